#include "analysis/quantize_checkpoint.h"

#include "formats/affine/quantize_affine.h"
#include "formats/bnb/quantize_bnb.h"
#include "formats/ggml/quantize_ggml.h"
#include "analysis/streamwriter.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "base/error.h"
#include "formats/formatid.h"
#include "formats/dequant.h"
#include "formats/ggml/ggml.h"
#include "base/half.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <cctype>
#include <cstdio>
#include <map>

namespace qs {

namespace {

bool isGgufTarget(const std::string& id) { return id.rfind("gguf-", 0) == 0; }
bool isBnbTarget(const std::string& id) { return id == "bnb-nf4" || id == "bnb-fp4"; }

int ggmlTypeOf(const std::string& id)
{
    const GgmlTypeInfo* t = ggmlTypeByName(id.substr(5));
    return t ? t->id : -1;
}

std::string torchDtypeName(DType t)
{
    switch (t) {
    case DType::BF16: return "bfloat16";
    case DType::F32: return "float32";
    default: return "float16";
    }
}

QJsonValue skippedList(const QuantScheme& s)
{
    if (s.skipped.empty())
        return QJsonValue::Null;
    QJsonArray a;
    for (const std::string& m : s.skipped)
        a.append(QString::fromStdString(m));
    return a;
}

// Python's repr of a float (what json.dumps writes): shortest round trip, fixed notation for
// decimal exponents -4..15, else d.ddde-XX.
std::string pythonFloat(double v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    const std::string sci(buf, r.ptr);
    const size_t e = sci.find('e');
    std::string digits = sci.substr(0, e);
    const int exp = std::stoi(sci.substr(e + 1));
    std::string sign;
    if (digits[0] == '-') {
        sign = "-";
        digits.erase(0, 1);
    }
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    if (exp < -4 || exp >= 16) {
        std::string m = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "");
        char ex[16];
        std::snprintf(ex, sizeof ex, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return sign + m + ex;
    }
    std::string out;
    if (exp < 0) {
        out = "0." + std::string(size_t(-exp - 1), '0') + digits;
    } else if (size_t(exp) + 1 >= digits.size()) {
        out = digits + std::string(size_t(exp) + 1 - digits.size(), '0') + ".0";
    } else {
        out = digits.substr(0, size_t(exp) + 1) + "." + digits.substr(size_t(exp) + 1);
    }
    return sign + out;
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

bool isFloatSource(const LogicalWeight& w)
{
    static constexpr std::string_view ok[] = {"f32", "f16", "bf16", "gguf-f32", "gguf-f16", "gguf-bf16"};
    return std::find(std::begin(ok), std::end(ok), w.format) != std::end(ok);
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

struct OwnedTensor {
    std::string name;
    DType dtype = DType::U8;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> bytes;
};

template <typename T>
OwnedTensor owned(std::string name, DType dtype, std::vector<uint64_t> shape, const T* data, size_t count)
{
    OwnedTensor t{std::move(name), dtype, std::move(shape), {}};
    t.bytes.resize(count * sizeof(T));
    if (count)
        std::memcpy(t.bytes.data(), data, t.bytes.size());
    return t;
}

// bitsandbytes' tensors for one weight (Linear4bit._save_to_state_dict + QuantState.as_dict(packed=True)).
std::vector<OwnedTensor> packBnb(const std::string& prefix, const Bnb4Quantized& q, Bnb4Type type, uint64_t N, uint64_t K,
                                 DType dtype)
{
    const std::string w = prefix + ".weight";
    std::vector<OwnedTensor> out;
    out.push_back(owned(w, DType::U8, {q.packed.size(), 1}, q.packed.data(), q.packed.size()));
    if (q.nested) {
        out.push_back(owned(w + ".absmax", DType::U8, {q.absmaxCodes.size()}, q.absmaxCodes.data(), q.absmaxCodes.size()));
        out.push_back(owned(w + ".nested_absmax", DType::F32, {q.nestedAbsmax.size()}, q.nestedAbsmax.data(),
                            q.nestedAbsmax.size()));
        const auto& map = bnbDynamicMap();
        out.push_back(owned(w + ".nested_quant_map", DType::F32, {256}, map.data(), map.size()));
    } else {
        out.push_back(owned(w + ".absmax", DType::F32, {q.absmax.size()}, q.absmax.data(), q.absmax.size()));
    }
    const auto& table = bnb4CodeTable(type);
    out.push_back(owned(w + ".quant_map", DType::F32, {16}, table.data(), table.size()));
    const std::string typeName = type == Bnb4Type::Nf4 ? "nf4" : "fp4";
    std::string json = "{\"quant_type\": \"" + typeName + "\", \"blocksize\": " + std::to_string(q.blocksize) +
                       ", \"dtype\": \"" + torchDtypeName(dtype) + "\", \"shape\": [" + std::to_string(N) + ", " +
                       std::to_string(K) + "]";
    if (q.nested)
        json += ", \"nested_blocksize\": 256, \"nested_dtype\": \"float32\", \"nested_offset\": " +
                pythonFloat(double(q.nestedOffset));
    json += "}";
    out.push_back(owned(w + ".quant_state.bitsandbytes__" + typeName, DType::U8, {json.size()},
                        reinterpret_cast<const uint8_t*>(json.data()), json.size()));
    return out;
}

struct Resolved {
    std::string format;
    int bits = 4;
    int64_t groupSize = 128;
    bool symmetric = false;
};

Resolved resolve(const QuantizeCheckpointOptions& o)
{
    Resolved r;
    r.format = quantizeTargetId(o.format);
    const std::string& f = r.format;
    if (isGgufTarget(f) || isBnbTarget(f)) {
        r.bits = isBnbTarget(f) ? 4 : findFormat(f)->bits;
        if (o.bits && o.bits != r.bits)
            throw Error("quantize: " + f + " has " + std::to_string(r.bits) + "-bit codes; --bits " + std::to_string(o.bits) +
                        " does not apply");
        if (isGgufTarget(f) && (o.groupSize || o.symmetric >= 0 || o.clipRatio != 1.0f))
            throw Error("quantize: " + f + " has fixed blocks: --group-size, --sym/--asym and --clip do not apply");
        r.groupSize = isBnbTarget(f) ? (o.groupSize ? o.groupSize : 64) : 0;
        if (isBnbTarget(f)) {
            static constexpr int64_t sizes[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
            if (std::find(std::begin(sizes), std::end(sizes), r.groupSize) == std::end(sizes))
                throw Error("quantize: bitsandbytes block sizes are 32, 64, ..., 4096 (--group-size)");
            if (o.symmetric >= 0 || o.clipRatio != 1.0f)
                throw Error("quantize: " + f + " is absmax-scaled: --sym/--asym and --clip do not apply");
        }
        return r;
    }
    r.bits = o.bits ? o.bits : 4;
    r.groupSize = o.groupSize ? o.groupSize : (f == "mlx-affine" ? 64 : 128);
    if (r.groupSize < -1 || r.groupSize == 0)
        throw Error("quantize: --group-size must be positive or -1 (per channel)");
    r.symmetric = o.symmetric >= 0 ? o.symmetric == 1 : f == "compressed-tensors";
    if (f == "awq-gemm" && (r.bits != 4 || r.symmetric))
        throw Error("quantize: awq-gemm is 4-bit with zero points (AutoAWQ GEMM): no --bits other than 4, no --sym");
    if (f == "mlx-affine") {
        if (r.groupSize == -1)
            throw Error("quantize: mlx-affine quantizes in groups (32, 64 or 128), not per channel");
        if (r.bits == 7 || r.bits < 2)
            throw Error("quantize: mlx-affine takes 2, 3, 4, 5, 6 or 8 bits");
        if (r.symmetric)
            throw Error("quantize: mlx-affine always stores a bias; --sym does not apply");
    }
    if ((f == "gptq-v1" || f == "gptq-v2") && (r.bits < 2 || r.bits > 8 || r.bits == 5 || r.bits == 6 || r.bits == 7))
        throw Error("quantize: GPTQ packs 2, 3, 4 or 8 bits (5-7 need GPTQModel's planar layout)");
    return r;
}

AffineTarget affineTarget(const std::string& f)
{
    if (f == "gptq-v1") return AffineTarget::GptqV1;
    if (f == "gptq-v2") return AffineTarget::GptqV2;
    if (f == "awq-gemm") return AffineTarget::AwqGemm;
    if (f == "compressed-tensors") return AffineTarget::CompressedTensors;
    return AffineTarget::Mlx;
}

AffineRule affineRule(const std::string& f)
{
    if (f == "awq-gemm") return AffineRule::Awq;
    if (f == "compressed-tensors") return AffineRule::CompressedTensors;
    if (f == "mlx-affine") return AffineRule::Mlx;
    return AffineRule::Gptq;
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
    std::vector<std::string> out{"gptq-v1", "gptq-v2", "awq-gemm", "compressed-tensors", "mlx-affine", "bnb-nf4", "bnb-fp4"};
    for (const int t : {GgmlQ4_0, GgmlQ4_1, GgmlQ5_0, GgmlQ5_1, GgmlQ8_0, GgmlQ2_K, GgmlQ3_K, GgmlQ4_K, GgmlQ5_K, GgmlQ6_K})
        out.push_back(ggufFormatId(ggmlType(t)->name));
    return out;
}

std::string quantizeTargetId(const std::string& text)
{
    std::string id;
    for (char c : text)
        if (c != ' ')
            id += char(std::tolower(static_cast<unsigned char>(c)));
    if (id == "mlx") id = "mlx-affine";
    else if (id == "nf4" || id == "fp4") id = "bnb-" + id;
    else if (id == "gptq") id = "gptq-v1";
    else if (id == "awq") id = "awq-gemm";
    else if (id.size() >= 4 && id[0] == 'q' && id.find('_') != std::string::npos) id = "gguf-" + id;
    const std::vector<std::string> all = quantizeTargets();
    if (std::find(all.begin(), all.end(), id) == all.end()) {
        std::string list;
        for (const std::string& s : all)
            list += (list.empty() ? "" : ", ") + s;
        throw Error("--format: quantize cannot produce '" + text + "'; targets: " + list);
    }
    return id;
}

QJsonObject quantizedConfig(const QJsonObject& base, const QuantScheme& s)
{
    QJsonObject cfg = base;
    const QJsonValue group = s.groupSize < 0 ? QJsonValue(-1) : QJsonValue(qint64(s.groupSize));
    if (s.format == "gptq-v1" || s.format == "gptq-v2") {
        // AutoGPTQ BaseQuantizeConfig.to_dict(), as config.json and quantize_config.json hold it.
        cfg.insert(QStringLiteral("quantization_config"), quantizeSideConfig(s).second);
    } else if (s.format == "awq-gemm") {
        cfg.insert(QStringLiteral("quantization_config"),
                   QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("awq")},
                               {QStringLiteral("bits"), s.bits},
                               {QStringLiteral("group_size"), group},
                               {QStringLiteral("zero_point"), true},
                               {QStringLiteral("version"), QStringLiteral("gemm")},
                               {QStringLiteral("modules_to_not_convert"), skippedList(s)}});
    } else if (s.format == "compressed-tensors") {
        const bool channel = s.groupSize < 0;
        const QJsonObject weights{{QStringLiteral("num_bits"), s.bits},
                                  {QStringLiteral("type"), QStringLiteral("int")},
                                  {QStringLiteral("symmetric"), s.symmetric},
                                  {QStringLiteral("group_size"), channel ? QJsonValue(QJsonValue::Null) : group},
                                  {QStringLiteral("strategy"), channel ? QStringLiteral("channel") : QStringLiteral("group")},
                                  {QStringLiteral("block_structure"), QJsonValue::Null},
                                  {QStringLiteral("dynamic"), false},
                                  {QStringLiteral("actorder"), s.actOrder ? QJsonValue(QStringLiteral("group"))
                                                                          : QJsonValue(QJsonValue::Null)},
                                  {QStringLiteral("observer"), QStringLiteral("minmax")},
                                  {QStringLiteral("observer_kwargs"), QJsonObject{}}};
        const QJsonObject group0{{QStringLiteral("targets"), QJsonArray{QStringLiteral("Linear")}},
                                 {QStringLiteral("weights"), weights},
                                 {QStringLiteral("input_activations"), QJsonValue::Null},
                                 {QStringLiteral("output_activations"), QJsonValue::Null},
                                 {QStringLiteral("format"), QStringLiteral("pack-quantized")}};
        QJsonArray ignore;
        for (const std::string& m : s.skipped)
            ignore.append(QString::fromStdString(m));
        cfg.insert(QStringLiteral("quantization_config"),
                   QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("compressed-tensors")},
                               {QStringLiteral("format"), QStringLiteral("pack-quantized")},
                               {QStringLiteral("quantization_status"), QStringLiteral("compressed")},
                               {QStringLiteral("config_groups"), QJsonObject{{QStringLiteral("group_0"), group0}}},
                               {QStringLiteral("ignore"), ignore},
                               {QStringLiteral("kv_cache_scheme"), QJsonValue::Null},
                               {QStringLiteral("global_compression_ratio"), QJsonValue::Null},
                               {QStringLiteral("sparsity_config"), QJsonObject{}}});
    } else if (s.format == "mlx-affine") {
        // mlx-lm save_config: "quantization", duplicated as "quantization_config" by recent versions.
        const QJsonObject q{{QStringLiteral("group_size"), group},
                            {QStringLiteral("bits"), s.bits},
                            {QStringLiteral("mode"), QStringLiteral("affine")}};
        cfg.insert(QStringLiteral("quantization"), q);
        cfg.insert(QStringLiteral("quantization_config"), q);
    } else if (isBnbTarget(s.format)) {
        const QString type = s.format == "bnb-nf4" ? QStringLiteral("nf4") : QStringLiteral("fp4");
        cfg.insert(QStringLiteral("quantization_config"),
                   QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("bitsandbytes")},
                               {QStringLiteral("_load_in_4bit"), true},
                               {QStringLiteral("_load_in_8bit"), false},
                               {QStringLiteral("load_in_4bit"), true},
                               {QStringLiteral("load_in_8bit"), false},
                               {QStringLiteral("bnb_4bit_quant_type"), type},
                               {QStringLiteral("bnb_4bit_use_double_quant"), s.nested},
                               {QStringLiteral("bnb_4bit_compute_dtype"), QString::fromStdString(torchDtypeName(s.modelDtype))},
                               {QStringLiteral("bnb_4bit_quant_storage"), QStringLiteral("uint8")},
                               {QStringLiteral("llm_int8_enable_fp32_cpu_offload"), false},
                               {QStringLiteral("llm_int8_has_fp16_weight"), false},
                               {QStringLiteral("llm_int8_skip_modules"), skippedList(s)},
                               {QStringLiteral("llm_int8_threshold"), 6.0}});
    }
    if (!s.inputPermutations.empty()) {
        QJsonArray mods;
        for (const std::string& m : s.inputPermutations)
            mods.append(QString::fromStdString(m));
        QJsonObject qc = cfg.value(QStringLiteral("quantization_config")).toObject();
        qc.insert(QStringLiteral("input_permutations"),
                  QJsonObject{{QStringLiteral("modules"), mods},
                              {QStringLiteral("note"), QStringLiteral("act-order columns sorted into contiguous groups: "
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
    const QJsonValue group = s.groupSize < 0 ? QJsonValue(-1) : QJsonValue(qint64(s.groupSize));
    if (s.format == "gptq-v1" || s.format == "gptq-v2")
        return {"quantize_config.json",
                QJsonObject{{QStringLiteral("bits"), s.bits},
                            {QStringLiteral("group_size"), group},
                            {QStringLiteral("damp_percent"), 0.01},
                            {QStringLiteral("desc_act"), s.actOrder},
                            {QStringLiteral("static_groups"), false},
                            {QStringLiteral("sym"), s.symmetric},
                            {QStringLiteral("true_sequential"), true},
                            {QStringLiteral("model_name_or_path"), QJsonValue::Null},
                            {QStringLiteral("model_file_base_name"), QStringLiteral("model")},
                            {QStringLiteral("quant_method"), QStringLiteral("gptq")},
                            {QStringLiteral("checkpoint_format"),
                             s.format == "gptq-v2" ? QStringLiteral("gptq_v2") : QStringLiteral("gptq")}}};
    if (s.format == "awq-gemm")
        return {"quant_config.json", QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("awq")},
                                                 {QStringLiteral("zero_point"), true},
                                                 {QStringLiteral("q_group_size"), group},
                                                 {QStringLiteral("w_bit"), s.bits},
                                                 {QStringLiteral("version"), QStringLiteral("gemm")}}};
    return {};
}

void writeQuantizedFolder(const std::string& dir, const QJsonObject& baseConfig, const QuantScheme& s,
                          const std::vector<SafetensorsTensor>& tensors)
{
    if (!QDir().mkpath(QString::fromStdString(dir)))
        fail(dir, "cannot create the output folder");
    writeSafetensors(dir + "/model.safetensors", tensors, {{"format", "pt"}});
    writeQuantizedConfigs(dir, baseConfig, s);
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
    checkOutputPath(out, src.sources());
    const Resolved r = resolve(opt);
    const bool gguf = isGgufTarget(r.format);
    if (gguf && src.container != Container::Gguf)
        for (const TensorEntry& t : src.tensors)
            if (!ggufStyleName(t.name))
                fail(src.path, "GGUF output keeps tensor names, and '" + t.name +
                                   "' is not a GGUF name (blk.N.*, token_embd, output...): quantize a GGUF input, or "
                                   "convert the names first");
    if (!gguf && src.container != Container::Safetensors)
        fail(src.path, "safetensors targets need a safetensors input (GGUF names and metadata have no safetensors form here)");

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
    QuantScheme scheme;
    scheme.format = r.format;
    scheme.bits = r.bits;
    scheme.groupSize = r.groupSize;
    scheme.symmetric = r.symmetric;
    scheme.blocksize = uint32_t(std::max<int64_t>(r.groupSize, 0));
    scheme.nested = opt.doubleQuant;
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

    const int ggmlT = gguf ? ggmlTypeOf(r.format) : -1;
    const SimdPath path = bestSimdPath();
    std::map<size_t, const LogicalWeight*> byTensor; // source tensor index -> weight to quantize
    for (const LogicalWeight* w : todo)
        byTensor[size_t(w->members.at(0).second)] = w;
    size_t done = 0;
    const auto progress = [&](const std::string& name) {
        ++done;
        if (opt.progress)
            opt.progress(done, todo.size(), name);
    };
    // A weight GGUF cannot hold (ne0 not whole blocks) stays in float; known before any data.
    const auto ggufKeeps = [&](const LogicalWeight& w) { return w.inFeatures() % ggmlQuantBlockWeights(ggmlT) != 0; };
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
    const auto quantizeOne = [&](const LogicalWeight& w) -> std::vector<OwnedTensor> {
        if (opt.cancel && opt.cancel->load())
            throw Error("quantize: cancelled");
        const TensorEntry& t = src.tensors[size_t(w.members.at(0).second)];
        const uint64_t N = w.outFeatures(), K = w.inFeatures();
        const DType dtype = entryDtype(t);
        scheme.modelDtype = dtype;
        const std::string prefix = modulePrefix(w.name);
        std::vector<OwnedTensor> tensors;
        try {
            const bool parallel = opt.threads != 1;
            const std::vector<float> x = dequantizeWeight(src, w, path, opt.threads);
            if (gguf) {
                tensors.push_back(OwnedTensor{w.name, DType::Ggml, t.shape, quantizeGgml(ggmlT, x.data(), N, K, parallel)});
            } else if (isBnbTarget(r.format)) {
                const Bnb4Type bt = r.format == "bnb-nf4" ? Bnb4Type::Nf4 : Bnb4Type::Fp4;
                const Bnb4Quantized q = quantizeBnb4(x.data(), N * K, bt, scheme.blocksize, scheme.nested, std::nullopt, parallel);
                tensors = packBnb(prefix, q, bt, N, K, dtype);
            } else {
                AffineOptions ao;
                ao.bits = r.bits;
                ao.rule = affineRule(r.format);
                ao.symmetric = r.symmetric;
                ao.clipRatio = opt.clipRatio;
                ao.granularity = r.groupSize < 0 ? AffineGranularity::Channel : AffineGranularity::Group;
                ao.groupSize = r.groupSize < 0 ? K : uint64_t(r.groupSize);
                if (r.format == "awq-gemm" && K % ao.groupSize != 0)
                    throw Error("the group size " + std::to_string(ao.groupSize) + " does not divide K = " + std::to_string(K));
                const AffineQuantized q = quantizeAffine(x.data(), N, K, ao, parallel);
                // GPTQ and AWQ keep F16 scales for an F32 model (their kernels take half scales).
                const bool halfOnly = r.format != "compressed-tensors" && r.format != "mlx-affine";
                const DType st = halfOnly && dtype == DType::F32 ? DType::F16 : dtype;
                for (StoredTensor& s : packAffine(q, affineTarget(r.format), st))
                    tensors.push_back(OwnedTensor{prefix + "." + s.suffix, s.dtype, std::move(s.shape), std::move(s.bytes)});
            }
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
            meta.insert(meta.begin(), {"general.architecture", MetaValue{MetaValue::Type::String, MetaValue::Type::U8,
                                                                          arch.toStdString()}});
        }
        meta.emplace_back("general.quantization_version", MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, uint64_t(2)});
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
                     "ne0 " + std::to_string(it->second->inFeatures()) + " is not a multiple of the " + r.format.substr(5) +
                         " block (" + std::to_string(ggmlQuantBlockWeights(ggmlT)) + ")");
            }
            int type = t.ggmlType;
            if (t.dtype != DType::Ggml) {
                static const std::map<DType, int> plain{{DType::F32, GgmlF32}, {DType::F16, GgmlF16}, {DType::BF16, GgmlBF16},
                                                        {DType::I8, GgmlI8},   {DType::I16, GgmlI16}, {DType::I32, GgmlI32},
                                                        {DType::I64, GgmlI64}, {DType::F64, GgmlF64}};
                const auto p = plain.find(t.dtype);
                if (p == plain.end())
                    fail(src.path, "tensor '" + t.name + "': " + std::string(dtypeName(t.dtype)) + " has no GGUF type");
                type = p->second;
            }
            plan.push_back(GgufTensor{t.name, type, ne, {}});
        }
        if (std::find(quantized.begin(), quantized.end(), true) == quantized.end())
            fail(src.path, "no weight could be quantized to " + r.format + ": " + res.notes.front());
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
                const std::vector<OwnedTensor> q = quantizeOne(*it->second);
                for (const OwnedTensor& o : q)
                    writer.append(o.name, o.dtype, o.shape, o.bytes);
                if (!q.empty())
                    continue;
            }
            writer.append(t.name, t.dtype, t.shape, src.bytes(t));
            res.copied.push_back(t.name);
        }
        if (res.quantized.empty())
            fail(src.path, "no weight could be quantized to " + r.format + ": " + res.notes.front());
        writer.commit(stMeta);
        writeQuantizedConfigs(out, src.config, scheme);
    });
    return res;
}

} // namespace qs
