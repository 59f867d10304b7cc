#include "analysis/quantize_checkpoint.h"

#include "analysis/streamwriter.h"
#include "base/error.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/target.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
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

void writeJsonFile(const std::string& path, const QJsonObject& o)
{
    const QByteArray json = QJsonDocument(o).toJson(QJsonDocument::Indented);
    writeFileAtomically(path, std::string_view(json.constData(), size_t(json.size())));
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

// Names llama.cpp's converters give GGUF tensors (blk.N.*, token_embd, output, ...).
bool ggufStyleName(const std::string& n)
{
    for (const char* p : {"blk.", "token_embd", "output", "rope_", "pos_embd", "token_types", "cls", "enc.", "dec."})
        if (n.rfind(p, 0) == 0)
            return true;
    return false;
}

DType entryDtype(const TensorEntry& t)
{
    if (t.dtype != DType::Ggml)
        return t.dtype;
    return t.ggmlType == GgmlBF16 ? DType::BF16 : t.ggmlType == GgmlF16 ? DType::F16 : DType::F32;
}

} // namespace

int llamaFileType(int t)
{
    switch (t) {
    case GgmlF32: return 0;
    case GgmlF16: return 1;
    case GgmlQ4_0: return 2;
    case GgmlQ4_1: return 3;
    case GgmlQ8_0: return 7;
    case GgmlQ5_0: return 8;
    case GgmlQ5_1: return 9;
    case GgmlQ2_K: return 10;
    case GgmlQ3_K: return 11; // Q3_K_S: every tensor Q3_K
    case GgmlQ4_K: return 14; // Q4_K_S
    case GgmlQ5_K: return 16; // Q5_K_S
    case GgmlQ6_K: return 18;
    case GgmlBF16: return 32;
    default: return -1;
    }
}

std::vector<std::string> quantizeTargets()
{
    std::vector<std::string> out, gguf;
    for (const FormatInfo& f : formatInfos())
        if (f.quantizeTarget)
            (ggufOutput(f).on() ? gguf : out).push_back(f.id);
    out.insert(out.end(), gguf.begin(), gguf.end());
    return out;
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

QJsonObject quantizedConfig(const QJsonObject& base, const QuantScheme& s)
{
    QJsonObject cfg = base;
    if (const FamilyTargets* t = familyTargets(*s.format); t && t->config)
        t->config(s, cfg);
    if (!s.inputPermutations.empty()) {
        QJsonArray mods;
        for (const std::string& m : s.inputPermutations)
            mods.append(QString::fromStdString(m));
        QJsonObject qc = cfg.value(QStringLiteral("quantization_config")).toObject();
        qc.insert(QStringLiteral("input_permutations"),
                  QJsonObject{{QStringLiteral("modules"), mods},
                              {QStringLiteral("note"),
                               QStringLiteral("act-order columns sorted into contiguous groups: "
                                              "<module>.input_perm (I32 [K]) gathers the layer "
                                              "input, x' = x[perm], before this weight applies")}});
        cfg.insert(QStringLiteral("quantization_config"), qc);
    }
    if (!cfg.contains(QStringLiteral("torch_dtype")))
        cfg.insert(QStringLiteral("torch_dtype"), QString::fromStdString(torchDtypeName(s.modelDtype)));
    return cfg;
}

std::pair<std::string, QJsonObject> quantizeSideConfig(const QuantScheme& s)
{
    std::pair<std::string, QJsonObject> side;
    if (const FamilyTargets* t = familyTargets(*s.format); t && t->sideConfig)
        side.first = t->sideConfig(s, side.second);
    return side;
}

void writeQuantizedConfigs(const std::string& dir, const QJsonObject& baseConfig, const QuantScheme& s)
{
    writeJsonFile(dir + "/config.json", quantizedConfig(baseConfig, s));
    const auto side = quantizeSideConfig(s);
    if (!side.first.empty())
        writeJsonFile(dir + "/" + side.first, side.second);
}

QuantizeCheckpointResult quantizeCheckpoint(const Checkpoint& src, const std::string& out,
                                            const QuantizeCheckpointOptions& opt)
{
    QuantScheme scheme;
    scheme.format = &parseQuantizeTarget(opt.format);
    const FormatInfo& target = *scheme.format;
    const GgufOutput ggufOut = ggufOutput(target);
    const bool gguf = ggufOut.on();
    checkOutputPath(out, src.sources(), gguf ? OutputKind::File : OutputKind::Folder);
    const FamilyTargets& targets = targetsOf(target);
    targets.quantizeScheme(opt, scheme);
    scheme.clipRatio = opt.clipRatio;
    if (gguf && src.container != Container::Gguf)
        for (const TensorEntry& t : src.tensors)
            if (!ggufStyleName(t.name))
                fail(src.path,
                     "GGUF output keeps tensor names, and '" + t.name
                         + "' is not a GGUF name (blk.N.*, token_embd, output...): quantize a GGUF input, or "
                           "convert the names first");
    if (!gguf && src.container != Container::Safetensors)
        fail(src.path,
             "safetensors targets need a safetensors input (GGUF names and metadata have no safetensors form here)");

    // Which weights: named ones must exist and be float; --all takes every float matrix
    // named *.weight (GGUF: every float matrix) except embeddings and the output head on safetensors.
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
    QuantizeCheckpointResult res;
    res.output = out;
    if (opt.weights.empty()) {
        for (const LogicalWeight& w : src.weights) {
            if (!isFloatSource(w) || w.shape.size() < 2)
                continue;
            if (!gguf) {
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

    const int ggmlT = ggufOut.type;
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
    // A weight GGUF cannot hold (ne0 not whole blocks) stays in float; known before any data.
    const auto ggufKeeps = [&](const LogicalWeight& w) { return w.inFeatures() % ggufOut.blockWeights != 0; };
    const auto keep = [&](const LogicalWeight& w, DType dtype, const std::string& why) {
        if (!opt.weights.empty())
            fail(src.path, "weight '" + w.name + "': " + why);
        res.notes.push_back(w.name + " kept as " + std::string(dtypeName(dtype)) + ": " + why);
        if (!gguf)
            scheme.skipped.push_back(modulePrefix(w.name));
        progress(w.name);
    };
    // Quantizes one weight into its output tensors (only this weight's output is in memory);
    // empty when the weight is kept as it is.
    const auto quantizeOne = [&](const LogicalWeight& w) -> std::vector<StoredTensor> {
        opt.progress.check();
        const TensorEntry& t = src.tensors[size_t(w.members.at(0).second)];
        const DType dtype = entryDtype(t);
        scheme.modelDtype = dtype;
        std::vector<StoredTensor> tensors;
        try {
            const std::vector<float> x = dequantizeWeight(src, w, path, opt.threads);
            tensors = targets.quantize(scheme, x.data(), w.outFeatures(), w.inFeatures(), opt.threads != 1);
        } catch (const Error& e) {
            // The GGUF header already names this tensor's type: no way back to float there.
            if (gguf)
                fail(src.path, "weight '" + w.name + "': " + e.what());
            keep(w, dtype, e.what());
            return {};
        }
        res.quantized.push_back(w.name);
        progress(w.name);
        return tensors;
    };

    // Output in the input's tensor order, replacements in place of their source.
    if (gguf) {
        GgufMetadata meta;
        bool hasArch = false;
        for (const auto& [k, v] : src.metadata) {
            if (k == "general.file_type" || k == "general.quantization_version" || k.rfind("split.", 0) == 0)
                continue;
            hasArch |= k == "general.architecture";
            meta.emplace_back(k, v);
        }
        if (!hasArch) {
            const QString arch = src.config.value(QStringLiteral("model_type")).toString(QStringLiteral("llama"));
            meta.insert(
                meta.begin(),
                {"general.architecture", MetaValue{MetaValue::Type::String, MetaValue::Type::U8, arch.toStdString()}});
        }
        meta.emplace_back("general.quantization_version",
                          MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, uint64_t(2)});
        meta.emplace_back("general.file_type",
                          MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, uint64_t(llamaFileType(ggmlT))});
        std::vector<GgufTensor> plan;
        std::vector<bool> quantized(src.tensors.size(), false);
        for (size_t i = 0; i < src.tensors.size(); ++i) {
            const TensorEntry& t = src.tensors[i];
            std::vector<uint64_t> ne(t.shape.rbegin(), t.shape.rend());
            if (const auto it = byTensor.find(i); it != byTensor.end()) {
                if (!ggufKeeps(*it->second)) {
                    quantized[i] = true;
                    plan.push_back(GgufTensor{t.name, ggmlT, ne, {}});
                    continue;
                }
                keep(*it->second, entryDtype(t),
                     "ne0 " + std::to_string(it->second->inFeatures()) + " is not a multiple of the " + target.alias
                         + " block (" + std::to_string(ggufOut.blockWeights) + ")");
            }
            const int type = t.dtype == DType::Ggml ? t.ggmlType : ggufOut.plainType(t.dtype);
            if (type < 0)
                fail(src.path, "tensor '" + t.name + "': " + std::string(dtypeName(t.dtype)) + " has no GGUF type");
            plan.push_back(GgufTensor{t.name, type, ne, {}});
        }
        if (std::find(quantized.begin(), quantized.end(), true) == quantized.end())
            fail(src.path, "no weight could be quantized to " + target.id + ": " + res.notes.front());
        GgufStreamWriter writer(out, meta, plan);
        for (size_t i = 0; i < src.tensors.size(); ++i) {
            if (quantized[i]) {
                writer.append(quantizeOne(*byTensor.at(i)).front().bytes);
                continue;
            }
            writer.append(src.bytes(src.tensors[i]));
            res.copied.push_back(src.tensors[i].name);
        }
        writer.commit();
        return res;
    }

    const std::map<std::string, std::string> stMeta{{"format", "pt"}};
    uint64_t reserve = SafetensorsStreamWriter::metadataBound(stMeta);
    for (size_t i = 0; i < src.tensors.size(); ++i) {
        const TensorEntry& t = src.tensors[i];
        // bnb writes the most tensors per weight (6) with the longest suffix (".weight.quant_state.bitsandbytes__nf4").
        reserve += byTensor.count(i) ? 6 * SafetensorsStreamWriter::entryBound(t.name + std::string(40, ' '), 2)
                                     : SafetensorsStreamWriter::entryBound(t.name, t.shape.size());
    }
    res.leftAlone = writeIntoFolder(out, opt.force, [&] {
        SafetensorsStreamWriter writer(out + "/model.safetensors", reserve);
        for (size_t i = 0; i < src.tensors.size(); ++i) {
            const TensorEntry& t = src.tensors[i];
            if (const auto it = byTensor.find(i); it != byTensor.end()) {
                const std::string prefix = modulePrefix(it->second->name);
                const std::vector<StoredTensor> q = quantizeOne(*it->second);
                for (const StoredTensor& o : q)
                    writer.append(prefix + "." + o.suffix, o.dtype, o.shape, o.bytes);
                if (!q.empty())
                    continue;
            }
            writer.append(t.name, t.dtype, t.shape, src.bytes(t));
            res.copied.push_back(t.name);
        }
        if (res.quantized.empty())
            fail(src.path, "no weight could be quantized to " + target.id + ": " + res.notes.front());
        writer.commit(stMeta);
        writeQuantizedConfigs(out, src.config, scheme);
    });
    return res;
}

} // namespace qs
