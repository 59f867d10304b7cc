#include "analysis/quantize_checkpoint.h"

#include "analysis/checkpointwriter.h"
#include "base/error.h"
#include "container/ggmltype.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/target.h"

#include <map>

namespace qs {

namespace {

const FamilyTargets& targetsOf(const FormatInfo& f)
{
    const FamilyTargets* t = familyTargets(f);
    if (!t || !t->quantizeScheme || !t->quantize)
        throw Error("quantize: no quantizer writes " + f.id);
    return *t;
}

// Module prefix of "a.b.weight" ("a.b"); the name itself when it has no ".weight" suffix.
std::string modulePrefix(const std::string& tensor)
{
    static const std::string suf = ".weight";
    if (tensor.size() > suf.size() && tensor.compare(tensor.size() - suf.size(), suf.size(), suf) == 0)
        return tensor.substr(0, tensor.size() - suf.size());
    return tensor;
}

// quantize reads 16- and 32-bit float elements (F16, BF16, F32, as safetensors or GGUF types).
bool isFloatSource(const LogicalWeight& w)
{
    const FormatInfo* f = findFormat(w.format);
    return f && f->storage == StorageKind::Float && (f->bits == 16 || f->bits == 32);
}

DType entryDtype(const TensorEntry& t)
{
    if (t.dtype != DType::Ggml)
        return t.dtype;
    return t.ggmlType == GgmlBF16 ? DType::BF16 : t.ggmlType == GgmlF16 ? DType::F16 : DType::F32;
}

// The weights to quantize: the named ones, which must exist, be float and be matrices; with none
// named, every float matrix named *.weight, except embeddings and the output head (listed as
// skipped) when the output names tensors by module (GGUF: every float matrix named *weight).
std::vector<const LogicalWeight*> quantizedWeights(const Checkpoint& src, const QuantizeCheckpointOptions& opt,
                                                   bool byModule, QuantScheme& scheme)
{
    std::vector<const LogicalWeight*> todo;
    for (const std::string& n : opt.weights) {
        const LogicalWeight* w = src.findWeight(n);
        if (!w)
            w = src.findWeight(n + ".weight");
        if (!w)
            fail(src.path, "no weight named '" + n + "'");
        if (!isFloatSource(*w))
            fail(src.path, "weight '" + w->name + "' is " + w->format + ": quantize reads F32, F16 or BF16 weights");
        if (w->shape.size() < 2)
            fail(src.path, "weight '" + w->name + "' is not a matrix");
        todo.push_back(w);
    }
    if (opt.weights.empty()) {
        for (const LogicalWeight& w : src.weights) {
            if (!isFloatSource(w) || w.shape.size() < 2)
                continue;
            if (byModule) {
                const std::string m = modulePrefix(w.name);
                if (m == w.name)
                    continue;
                if (m.find("embed") != std::string::npos || m.find("lm_head") != std::string::npos) {
                    scheme.skipped.push_back(m);
                    continue;
                }
            } else if (w.name.size() < 6 || w.name.compare(w.name.size() - 6, 6, "weight") != 0) {
                continue;
            }
            todo.push_back(&w);
        }
    }
    if (todo.empty())
        fail(src.path, "no F32/F16/BF16 weight matrix to quantize");
    return todo;
}

} // namespace

std::vector<std::string> quantizeTargets()
{
    return writtenFormats(&FormatInfo::quantizeTarget);
}

const FormatInfo& parseQuantizeTarget(std::string_view text)
{
    const FormatInfo* f = resolveFormatId(text);
    if (f && f->quantizeTarget)
        return *f;
    std::string list;
    for (const std::string& t : quantizeTargets())
        list += (list.empty() ? "" : ", ") + t;
    throw Error("--format: quantize cannot produce '" + std::string(text) + "'; targets: " + list);
}

QuantizeCheckpointResult quantizeCheckpoint(const Checkpoint& src, const std::string& out,
                                            const QuantizeCheckpointOptions& opt)
{
    QuantScheme scheme;
    scheme.format = &parseQuantizeTarget(opt.format);
    const FormatInfo& target = *scheme.format;
    const auto writer = CheckpointWriter::open(src, out, target, opt.force, true);
    const FamilyTargets& targets = targetsOf(target);
    targets.quantizeScheme(opt, scheme);
    scheme.clipRatio = opt.clipRatio;
    writer->checkInput();
    const std::vector<const LogicalWeight*> todo = quantizedWeights(src, opt, writer->namesByModule(), scheme);

    QuantizeCheckpointResult res;
    res.output = out;
    const SimdPath path = bestSimdPath();
    std::map<size_t, const LogicalWeight*> byTensor; // source tensor index -> weight to quantize
    for (const LogicalWeight* w : todo)
        byTensor[size_t(w->members.at(0).second)] = w;
    size_t done = 0;
    const auto progress = [&](const std::string& name) {
        ++done;
        if (opt.progress.report)
            opt.progress(done, todo.size(), name);
    };
    const auto keep = [&](const LogicalWeight& w, DType dtype, const std::string& why) {
        if (!opt.weights.empty())
            throw Error(ErrorContext{src.path, w.name}, why);
        res.notes.push_back(w.name + " kept as " + std::string(dtypeName(dtype)) + ": " + why);
        if (writer->namesByModule())
            scheme.skipped.push_back(modulePrefix(w.name));
        progress(w.name);
    };

    // Output in the input's tensor order, replacements in place of their source. A weight the
    // target cannot hold (K not whole blocks) stays as it is; known before any data.
    std::vector<const LogicalWeight*> converted;
    for (size_t i = 0; i < src.tensors.size(); ++i) {
        const TensorEntry& t = src.tensors[i];
        if (const auto it = byTensor.find(i); it != byTensor.end()) {
            const LogicalWeight& w = *it->second;
            const uint32_t block = writer->floatFallback(w.inFeatures());
            if (!block) {
                // bnb writes the most tensors per weight (6) with the longest suffix
                // (".weight.quant_state.bitsandbytes__nf4").
                writer->convert({i, modulePrefix(w.name), std::string(t.name), t.shape, t.name.size() + 40, {}});
                converted.push_back(&w);
                continue;
            }
            keep(w, entryDtype(t),
                 "ne0 " + std::to_string(w.inFeatures()) + " is not a multiple of the " + target.alias + " block ("
                     + std::to_string(block) + ")");
        }
        writer->copy(i);
    }
    const auto nothingQuantized = [&] {
        fail(src.path, "no weight could be quantized to " + target.id + ": " + res.notes.front());
    };
    if (converted.empty())
        nothingQuantized();

    // Quantizes one weight into its output tensors (only this weight's output is in memory);
    // empty when the weight is kept as it is.
    const auto quantizeOne = [&](size_t c) -> std::vector<StoredTensor> {
        const LogicalWeight& w = *converted[c];
        opt.progress.check();
        const DType dtype = entryDtype(src.tensors[size_t(w.members.at(0).second)]);
        scheme.modelDtype = dtype;
        std::vector<StoredTensor> tensors;
        try {
            const std::vector<float> x = dequantizeWeight(src, w, path, opt.threads);
            tensors = targets.quantize(scheme, x.data(), w.outFeatures(), w.inFeatures(), opt.threads != 1);
        } catch (Error& e) {
            if (writer->fixedLayout()) { // the header already names this tensor's type: no way back to float
                e.addContext(ErrorContext{src.path, w.name});
                throw;
            }
            keep(w, dtype, e.what());
            return {};
        }
        res.quantized.push_back(w.name);
        progress(w.name);
        return tensors;
    };
    writer->write(
        quantizeOne,
        [&] {
            if (res.quantized.empty())
                nothingQuantized();
        },
        scheme, src.config);
    res.copied = writer->copied();
    res.leftAlone = writer->leftAlone();
    return res;
}

} // namespace qs
