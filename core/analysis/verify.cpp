#include "analysis/verify.h"

#include "analysis/healthscan.h"
#include "base/stringindex.h"

#include "base/error.h"
#include "container/ggmltype.h"
#include "formats/dequant.h"
#include "formats/detect.h"
#include "formats/family.h"
#include "formats/formatid.h"
#include "formats/verify_util.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace qs {

namespace {

// Detection's notes where the config disagrees with the tensors (detection goes by the
// tensors): an error where a loader that trusts the config computes other values (another
// method, version, width or group size; zero points it would drop), a warning where it would
// compute the same ones or refuse to load (symmetric data labelled asymmetric).
struct ConfigNote {
    const char* prefix;
    const char* kind;
    bool warning;
};
constexpr ConfigNote kConfigNotes[] = {
    {"config says quant_method", "config", false},
    {"config says version", "config", false},
    {"config says bits", "config", false},
    {"config says num_bits", "config", false},
    {"config says group_size", "config-group-size", false},
    {"config group_size", "config-group-size", false},
    {"config says sym true", "config-zero", false},
    {"config says symmetric true", "config-zero", false},
    {"config says zero_point false", "config-zero", false},
    {"config says sym false", "config-zero", true},
    {"config says symmetric false", "config-zero", true},
    {"config says zero_point true", "config-zero", true},
};

} // namespace

void verifyWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep, const HealthOptions& health)
{
    // A shape detection refused (it overflows, outgrows its bytes or disagrees with the stored
    // data) is an error: the weight is not decoded, so nothing else about it can be checked.
    if (const Message* refused = refusedShape(w)) {
        rep.findings.push_back({w.name, "shape", *refused});
        rep.checked.push_back(w.name);
        return;
    }
    const FormatInfo* f = findFormat(w.format);
    // The health scan; a weight whose tensors the kernel refuses gets a "shape" finding, unless
    // the format check has already said why (from `first` on, the weight's findings). A cancel
    // is no finding: it goes on to the caller.
    const auto scan = [&](size_t first) {
        try {
            scanWeightHealth(ckpt, w, rep, health);
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            if (std::none_of(rep.findings.begin() + ptrdiff_t(first), rep.findings.end(),
                             [](const VerifyFinding& x) { return x.check == "shape"; }))
                FindingSink{w, rep}("shape", e.what());
        }
    };
    if (!f || !f->quantized) {
        if (f && f->unrecognised())
            rep.unchecked.push_back(w.name + " (" + f->id + ")");
        // Float weights: NaN, Inf and zeros as in any other weight (what llama.cpp's tensor
        // validation looks for); they are not "checked", which is about quantized layouts.
        if (f && f->storage == StorageKind::Float && canDequantize(w.format))
            scan(rep.findings.size());
        return;
    }
    // Detection goes by the tensors; a config declaring another method, version or width means
    // the writer packed something other than what it labelled (a wrong axis, a wrong layout).
    for (const Message& note : w.notes)
        for (const ConfigNote& c : kConfigNotes)
            if (note.startsWith(c.prefix))
                rep.findings.push_back(
                    {w.name, c.kind,
                     c.warning ? Message::quoting(QT_TRANSLATE_NOOP("qs::Message",
                                                                    "%1: the config does not describe the stored data, "
                                                                    "but reading it as declared gives the same values"),
                                                  {note})
                               : Message::quoting(
                                   QT_TRANSLATE_NOOP("qs::Message",
                                                     "%1: the stored layout is not the one the config declares"),
                                   {note}),
                     c.warning});
    for (const Message& note : w.notes)
        if (note.startsWith(kZeroConventionNote))
            rep.findings.push_back({w.name, "zero-convention-mixed", note, true});
    const FamilyRow* row = familyRow(f->family);
    const size_t before = rep.findings.size();
    if (const VerifyFn check = row && row->verify ? row->verify(*f) : nullptr)
        check(ckpt, w, rep);
    else if (canDequantize(w.format))
        rep.findings.push_back(
            {w.name,
             "roundtrip-not-applicable",
             {QT_TRANSLATE_NOOP("qs::Message",
                                "%1: codes are floats or table indices whose every bit pattern is valid (or the "
                                "packing has no spare bits), so there is no round trip to compare; sizes and "
                                "values checked"),
              {w.format}},
             true});
    else {
        rep.unchecked.push_back(w.name + " (" + w.format + ": no decoder, nothing to check against)");
        return;
    }
    rep.checked.push_back(w.name);
    if (canDequantize(w.format))
        scan(before);
}

namespace {

// Weights repacked from act-order into a layout without g_idx carry "<module>.input_perm", named in
// the config (safetensors) or in quantscope.input_permutations (GGUF). Without it, or with
// something that is not a permutation of K, the layer reads the wrong input channels.
void verifyInputPermutations(const Checkpoint& ckpt, VerifyReport& rep)
{
    std::vector<std::string> modules;
    const QJsonValue qc = ckpt.config.value(QStringLiteral("quantization_config"));
    for (const QJsonValue v : qc.toObject()
                                  .value(QStringLiteral("input_permutations"))
                                  .toObject()
                                  .value(QStringLiteral("modules"))
                                  .toArray())
        modules.push_back(v.toString().toStdString());
    if (const MetaValue* m = ckpt.meta("quantscope.input_permutations"); m && m->type == MetaValue::Type::Array)
        for (const MetaValue& v : std::get<std::vector<MetaValue>>(m->value))
            if (const auto* s = std::get_if<std::string>(&v.value); s && s->size() > 11)
                modules.push_back(s->substr(0, s->size() - 11)); // minus ".input_perm"
    // Checkpoint::findWeight, through one hash index of the names and a map of each tensor to
    // the first weight listing it: the config may list a module per weight.
    const auto nameAt = [&](size_t k) -> const std::string& { return ckpt.weights[k].name; };
    StringIndex byName;
    std::vector<int> weightOfTensor;
    if (!modules.empty()) {
        byName.reserve(ckpt.weights.size());
        for (size_t k = 0; k < ckpt.weights.size(); ++k)
            byName.findOrInsert(ckpt.weights[k].name, k, nameAt);
        weightOfTensor.assign(ckpt.tensors.size(), -1);
        for (size_t k = ckpt.weights.size(); k-- > 0;)
            for (const auto& [role, idx] : ckpt.weights[k].members)
                if (idx < weightOfTensor.size())
                    weightOfTensor[idx] = int(k);
    }
    const auto findWeight = [&](const std::string& name) -> const LogicalWeight* {
        if (const size_t k = byName.find(name, nameAt); k != StringIndex::npos)
            return &ckpt.weights[k];
        const int t = ckpt.indexOf(name);
        return t >= 0 && weightOfTensor[size_t(t)] >= 0 ? &ckpt.weights[size_t(weightOfTensor[size_t(t)])] : nullptr;
    };
    for (const std::string& mod : modules) {
        const LogicalWeight* w = findWeight(mod);
        if (!w)
            w = findWeight(mod + ".weight");
        const TensorEntry* t = ckpt.find(mod + ".input_perm");
        const std::string who = w ? w->name : mod;
        if (!t) {
            rep.findings.push_back(
                {who,
                 "input-perm",
                 {QT_TRANSLATE_NOOP("qs::Message",
                                    "the config says the input channels were permuted, but "
                                    "%1.input_perm is missing: the act-order permutation was dropped"),
                  {mod}}});
            continue;
        }
        const uint64_t K = w ? w->inFeatures() : t->elementCount();
        bool ok = t->elementCount() == K
            && (t->dtype == DType::I32 || t->dtype == DType::I64
                || (t->dtype == DType::Ggml && t->ggmlType == GgmlI32));
        if (ok) {
            const auto b = ckpt.bytes(*t);
            std::vector<bool> seen(K, false);
            const size_t width = t->dtype == DType::I64 ? 8 : 4;
            for (uint64_t i = 0; i < K && ok; ++i) {
                int64_t v = 0;
                if (width == 8)
                    std::memcpy(&v, b.data() + 8 * i, 8);
                else {
                    int32_t v32;
                    std::memcpy(&v32, b.data() + 4 * i, 4);
                    v = v32;
                }
                ok = v >= 0 && uint64_t(v) < K && !seen[size_t(v)];
                if (ok)
                    seen[size_t(v)] = true;
            }
        }
        if (!ok)
            rep.findings.push_back(
                {who,
                 "input-perm",
                 {QT_TRANSLATE_NOOP("qs::Message", "%1.input_perm is not a permutation of the %2 input channels"),
                  {mod, std::to_string(K)}}});
    }
}

// What would otherwise pass as an all-clear: tensors detection could not assemble into a
// quantized weight (a member with the wrong shape splits its weight into plain tensors),
// tensors no weight claims, and a checkpoint in which nothing was checked at all.
void verifyCoverage(const Checkpoint& ckpt, VerifyReport& rep)
{
    std::vector<bool> claimed(ckpt.tensors.size(), false);
    for (const LogicalWeight& w : ckpt.weights) {
        for (const auto& [role, index] : w.members)
            if (index < claimed.size())
                claimed[index] = true;
        for (const Message& note : w.notes)
            if (note.startsWith(kStrayMemberNote))
                rep.findings.push_back(
                    {w.name,
                     "stray-member",
                     {QT_TRANSLATE_NOOP(
                          "qs::Message",
                          "tensor %1: '%2' looks like a member of a quantized weight, but its module "
                          "has no matching codes (a member of a wrong shape or dtype, or a missing "
                          "one, splits a quantized weight into plain tensors, which verify cannot check)"),
                      {w.name, note.args().empty() ? std::string() : note.args().front()}}});
    }
    for (size_t i = 0; i < ckpt.tensors.size(); ++i)
        if (!claimed[i])
            rep.findings.push_back(
                {std::string(ckpt.tensors[i].name),
                 "unmatched",
                 {QT_TRANSLATE_NOOP("qs::Message", "tensor %1 belongs to no weight that detection found"),
                  {std::string(ckpt.tensors[i].name)}}});
    if (rep.checked.empty()) {
        const bool covered = rep.unchecked.empty();
        const char* what = ckpt.tensors.empty()
            ? (covered
                   ? QT_TRANSLATE_NOOP("qs::Message",
                                       "no weight was checked: the checkpoint holds no tensors (metadata only, e.g. "
                                       "a vocabulary file), so verify cannot vouch for anything")
                   : QT_TRANSLATE_NOOP(
                       "qs::Message",
                       "no weight was checked: the checkpoint holds no tensors (metadata only, e.g. "
                       "a vocabulary file) of a format verify covers, so verify cannot vouch for anything"))
            : (covered ? QT_TRANSLATE_NOOP("qs::Message",
                                           "no weight was checked: the checkpoint holds tensors (%1) but no quantized "
                                           "weight, so verify cannot vouch for anything")
                       : QT_TRANSLATE_NOOP("qs::Message",
                                           "no weight was checked: the checkpoint holds tensors (%1) but no quantized "
                                           "weight of a format verify covers, so verify cannot vouch for anything"));
        rep.findings.push_back({ckpt.path, "nothing-checked", {what, {std::to_string(ckpt.tensors.size())}}});
    }
}

} // namespace

VerifyReport verifyCheckpoint(const Checkpoint& ckpt, const Progress& progress)
{
    VerifyReport rep;
    // Progress in elements (each weight one more, so that weights the scan skips count too).
    uint64_t total = 0, through = 0;
    for (const LogicalWeight& w : ckpt.weights)
        total += 1 + w.elementCount();
    HealthOptions health;
    health.progress.cancel = progress.cancel;
    if (progress.report)
        health.progress.report = [&](uint64_t done, uint64_t, const std::string& weight) {
            progress(through + done, total, weight);
        };
    for (const LogicalWeight& w : ckpt.weights) {
        progress.check();
        verifyWeight(ckpt, w, rep, health);
        through += 1 + w.elementCount();
        progress(through, total, w.name);
    }
    verifyInputPermutations(ckpt, rep);
    verifyCoverage(ckpt, rep);
    return rep;
}

} // namespace qs
