#include "analysis/verify.h"

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

// Formats whose family has no format check: the weight must dequantize (every size and index is validated
// on the way) to finite values wherever its scales are finite.
void verifyByDequant(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep, Message why)
{
    const FindingSink add{w, rep};
    try {
        const std::vector<float> x = dequantizeWeight(ckpt, w, bestSimdPath(), 1);
        const uint64_t bad = uint64_t(std::count_if(x.begin(), x.end(), [](float v) { return !std::isfinite(v); }));
        if (bad)
            add("scale", Message(QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 dequantized values are NaN or Inf"), {std::to_string(bad), std::to_string(x.size())}));
    } catch (const Error& e) {
        add("shape", e.what());
    }
    rep.findings.push_back({w.name, "roundtrip-not-applicable", std::move(why), true});
}

} // namespace

void verifyWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    // A shape detection refused (it overflows, outgrows its bytes or disagrees with the stored
    // data) is an error: the weight is not decoded, so nothing else about it can be checked.
    if (const Message* refused = refusedShape(w)) {
        rep.findings.push_back({w.name, "shape", *refused});
        rep.checked.push_back(w.name);
        return;
    }
    const FormatInfo* f = findFormat(w.format);
    if (!f || !f->quantized) {
        if (f && f->family == FormatFamily::Unknown)
            rep.unchecked.push_back(w.name + " (" + f->id + ")");
        return;
    }
    // Detection goes by the tensors; a config declaring another method, version or width means
    // the writer packed something other than what it labelled (a wrong axis, a wrong layout).
    for (const Message& note : w.notes)
        for (const char* p : {"config says quant_method", "config says version", "config says bits", "config says num_bits"})
            if (note.startsWith(p))
                rep.findings.push_back({w.name, "config", Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "%1: the stored layout is not the one the config declares"), {note})});
    for (const Message& note : w.notes)
        if (note.startsWith(kZeroConventionNote))
            rep.findings.push_back({w.name, "zero-convention-mixed", note, true});
    const FamilyRow* row = familyRow(f->family);
    if (const VerifyFn check = row && row->verify ? row->verify(*f) : nullptr)
        check(ckpt, w, rep);
    else if (canDequantize(w.format))
        verifyByDequant(ckpt, w, rep,
                        {QT_TRANSLATE_NOOP("qs::Message", "%1: codes are floats or table indices whose every bit pattern is valid (or the "
                                                          "packing has no spare bits), so there is no round trip to compare; sizes and "
                                                          "values checked"),
                         {w.format}});
    else {
        rep.unchecked.push_back(w.name + " (" + w.format + ": no decoder, nothing to check against)");
        return;
    }
    rep.checked.push_back(w.name);
}

namespace {

// Weights repacked from act-order into a layout without g_idx carry "<module>.input_perm", named in
// the config (safetensors) or in quantscope.input_permutations (GGUF). Without it, or with
// something that is not a permutation of K, the layer reads the wrong input channels.
void verifyInputPermutations(const Checkpoint& ckpt, VerifyReport& rep)
{
    std::vector<std::string> modules;
    const QJsonValue qc = ckpt.config.value(QStringLiteral("quantization_config"));
    for (const QJsonValue v : qc.toObject().value(QStringLiteral("input_permutations")).toObject().value(QStringLiteral("modules")).toArray())
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
            rep.findings.push_back({who, "input-perm", {QT_TRANSLATE_NOOP("qs::Message", "the config says the input channels were permuted, but "
                                                                                          "%1.input_perm is missing: the act-order permutation was dropped"), {mod}}});
            continue;
        }
        const uint64_t K = w ? w->inFeatures() : t->elementCount();
        bool ok = t->elementCount() == K && (t->dtype == DType::I32 || t->dtype == DType::I64 ||
                                             (t->dtype == DType::Ggml && t->ggmlType == GgmlI32));
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
            rep.findings.push_back({who, "input-perm", {QT_TRANSLATE_NOOP("qs::Message", "%1.input_perm is not a permutation of the %2 input channels"),
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
                rep.findings.push_back({w.name, "stray-member",
                                        {QT_TRANSLATE_NOOP("qs::Message", "tensor %1: '%2' looks like a member of a quantized weight, but its module "
                                                                          "has no matching codes (a member of a wrong shape or dtype, or a missing "
                                                                          "one, splits a quantized weight into plain tensors, which verify cannot check)"),
                                         {w.name, note.args().empty() ? std::string() : note.args().front()}}});
    }
    for (size_t i = 0; i < ckpt.tensors.size(); ++i)
        if (!claimed[i])
            rep.findings.push_back({ckpt.tensors[i].name, "unmatched",
                                    {QT_TRANSLATE_NOOP("qs::Message", "tensor %1 belongs to no weight that detection found"), {ckpt.tensors[i].name}}});
    if (rep.checked.empty()) {
        const bool covered = rep.unchecked.empty();
        const char* what = ckpt.tensors.empty()
            ? (covered ? QT_TRANSLATE_NOOP("qs::Message", "no weight was checked: the checkpoint holds no tensors (metadata only, e.g. "
                                                          "a vocabulary file), so verify cannot vouch for anything")
                       : QT_TRANSLATE_NOOP("qs::Message", "no weight was checked: the checkpoint holds no tensors (metadata only, e.g. "
                                                          "a vocabulary file) of a format verify covers, so verify cannot vouch for anything"))
            : (covered ? QT_TRANSLATE_NOOP("qs::Message", "no weight was checked: the checkpoint holds %1 tensors and no quantized "
                                                          "weight, so verify cannot vouch for anything")
                       : QT_TRANSLATE_NOOP("qs::Message", "no weight was checked: the checkpoint holds %1 tensors and no quantized "
                                                          "weight of a format verify covers, so verify cannot vouch for anything"));
        rep.findings.push_back({ckpt.path, "nothing-checked", {what, {std::to_string(ckpt.tensors.size())}}});
    }
}

} // namespace

VerifyReport verifyCheckpoint(const Checkpoint& ckpt, const std::atomic<bool>* cancel,
                              const std::function<void(size_t, size_t)>& progress)
{
    VerifyReport rep;
    for (size_t i = 0; i < ckpt.weights.size(); ++i) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return rep;
        verifyWeight(ckpt, ckpt.weights[i], rep);
        if (progress)
            progress(i + 1, ckpt.weights.size());
    }
    verifyInputPermutations(ckpt, rep);
    verifyCoverage(ckpt, rep);
    return rep;
}

} // namespace qs
