// bitsandbytes NF4 / FP4 as targets: quantize's scheme, quantizer, the tensors
// Linear4bit._save_to_state_dict writes and transformers' quantization_config; the budget
// table's bnb rows (int8 included).
#include "formats/bnb/quantize_bnb.h"
#include "formats/target.h"

#include "base/error.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QtGlobal>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace qs {

Bnb4Type bnb4TypeOf(const FormatInfo& format)
{
    return format.id == "bnb-fp4" ? Bnb4Type::Fp4 : Bnb4Type::Nf4;
}

namespace {

std::string bnbTypeName(Bnb4Type t) { return t == Bnb4Type::Nf4 ? "nf4" : "fp4"; }

void bnbQuantizeScheme(const QuantizeRequest& r, QuantScheme& s)
{
    s.bits = fixedCodeBits(r, *s.format);
    s.groupSize = r.groupSize ? r.groupSize : 64;
    static constexpr int64_t sizes[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
    if (std::find(std::begin(sizes), std::end(sizes), s.groupSize) == std::end(sizes))
        throw Error("quantize: bitsandbytes block sizes are 32, 64, ..., 4096 (--group-size)");
    if (r.symmetric >= 0 || r.clipRatio != 1.0f)
        throw Error("quantize: " + s.format->id + " is absmax-scaled: --sym/--asym and --clip do not apply");
    s.blocksize = uint32_t(s.groupSize);
    s.nested = r.doubleQuant;
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

// bitsandbytes' tensors for one weight (Linear4bit._save_to_state_dict + QuantState.as_dict(packed=True)).
std::vector<StoredTensor> bnbQuantize(const QuantScheme& s, const float* x, uint64_t rows, uint64_t cols, bool parallel)
{
    const Bnb4Type type = bnb4TypeOf(*s.format);
    const Bnb4Quantized q = quantizeBnb4(x, rows * cols, type, s.blocksize, s.nested, std::nullopt, parallel);
    std::vector<StoredTensor> out;
    out.push_back(storedTensor("weight", DType::U8, {q.packed.size(), 1}, q.packed));
    if (q.nested) {
        out.push_back(storedTensor("weight.absmax", DType::U8, {q.absmaxCodes.size()}, q.absmaxCodes));
        out.push_back(storedTensor("weight.nested_absmax", DType::F32, {q.nestedAbsmax.size()}, q.nestedAbsmax));
        const auto& map = bnbDynamicMap();
        out.push_back(storedTensor("weight.nested_quant_map", DType::F32, {256}, std::vector<float>(map.begin(), map.end())));
    } else {
        out.push_back(storedTensor("weight.absmax", DType::F32, {q.absmax.size()}, q.absmax));
    }
    const auto& table = bnb4CodeTable(type);
    out.push_back(storedTensor("weight.quant_map", DType::F32, {16}, std::vector<float>(table.begin(), table.end())));
    const std::string typeName = bnbTypeName(type);
    std::string json = "{\"quant_type\": \"" + typeName + "\", \"blocksize\": " + std::to_string(q.blocksize) +
                       ", \"dtype\": \"" + torchDtypeName(s.modelDtype) + "\", \"shape\": [" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "]";
    if (q.nested)
        json += ", \"nested_blocksize\": 256, \"nested_dtype\": \"float32\", \"nested_offset\": " +
                pythonFloat(double(q.nestedOffset));
    json += "}";
    out.push_back(storedTensor("weight.quant_state.bitsandbytes__" + typeName, DType::U8, {json.size()},
                               std::vector<uint8_t>(json.begin(), json.end())));
    return out;
}

void bnbConfig(const QuantScheme& s, QJsonObject& cfg)
{
    cfg.insert(QStringLiteral("quantization_config"),
               QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("bitsandbytes")},
                           {QStringLiteral("_load_in_4bit"), true},
                           {QStringLiteral("_load_in_8bit"), false},
                           {QStringLiteral("load_in_4bit"), true},
                           {QStringLiteral("load_in_8bit"), false},
                           {QStringLiteral("bnb_4bit_quant_type"), QString::fromStdString(bnbTypeName(bnb4TypeOf(*s.format)))},
                           {QStringLiteral("bnb_4bit_use_double_quant"), s.nested},
                           {QStringLiteral("bnb_4bit_compute_dtype"), QString::fromStdString(torchDtypeName(s.modelDtype))},
                           {QStringLiteral("bnb_4bit_quant_storage"), QStringLiteral("uint8")},
                           {QStringLiteral("llm_int8_enable_fp32_cpu_offload"), false},
                           {QStringLiteral("llm_int8_has_fp16_weight"), false},
                           {QStringLiteral("llm_int8_skip_modules"), skippedModulesJson(s)},
                           {QStringLiteral("llm_int8_threshold"), 6.0}});
}

void bnbBudget(std::vector<BudgetFormat>& out)
{
    for (const char* id : {"bnb-nf4", "bnb-fp4"}) {
        BudgetFormat f = budgetRow(id, findFormat(id), BudgetKind::Bnb4, 4, 64);
        out.push_back(f);
        f.id += "-nested";
        f.nested = true;
        out.push_back(f);
    }
    out.push_back(budgetRow("bnb-int8", findFormat("bnb-int8"), BudgetKind::BnbInt8, 8));
    markBudgetPresets(out, {{"bnb-nf4", BudgetPreset::Headline}, {"bnb-nf4-nested", BudgetPreset::Common},
                            {"bnb-int8", BudgetPreset::Common}});
}

void bnbRequantizePresets(std::vector<RequantizePreset>& out)
{
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "bitsandbytes NF4"), {"bnb-nf4"}});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "bitsandbytes FP4"), {"bnb-fp4"}});
}

void bnbPlaygroundFormats(std::vector<PlaygroundBlockFormat>& out)
{
    out.push_back({findFormat("bnb-nf4"), 64});
}

// The tensor named `suffix`, or with `prefix` the first whose name starts with it.
const StoredTensor* storedTensorNamed(const std::vector<StoredTensor>& tensors, std::string_view suffix, bool prefix = false)
{
    for (const StoredTensor& t : tensors)
        if (prefix ? std::string_view(t.suffix).substr(0, suffix.size()) == suffix : t.suffix == suffix)
            return &t;
    return nullptr;
}

// What bnbQuantize wrote (not nested): the nibbles, the f32 absmax, the blocksize from the
// quant_state JSON; each code's value is table[c] * absmax, the dequantizer's one product.
PlaygroundBlocks bnbPlaygroundDecode(const FormatInfo& format, const std::vector<StoredTensor>& tensors, uint64_t rows,
                                     uint64_t cols)
{
    const std::string what = "playground: " + format.id + " tensors of " + std::to_string(rows) + " x " + std::to_string(cols);
    const StoredTensor* packed = storedTensorNamed(tensors, "weight");
    const StoredTensor* absmax = storedTensorNamed(tensors, "weight.absmax");
    const StoredTensor* state = storedTensorNamed(tensors, "weight.quant_state.", true);
    const uint64_t n = rows * cols;
    if (!packed || !absmax || !state || absmax->dtype != DType::F32 || packed->bytes.size() != (n + 1) / 2)
        throw Error(what + ": not what the quantizer writes (nested absmax is not shown)");
    const QJsonObject json =
        QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char*>(state->bytes.data()), qsizetype(state->bytes.size())))
            .object();
    const uint32_t blocksize = uint32_t(json.value(QStringLiteral("blocksize")).toInt());
    if (blocksize == 0 || absmax->bytes.size() != (n + blocksize - 1) / blocksize * 4)
        throw Error(what + ": the absmax does not match the quant_state's blocksize");
    const Bnb4Type type = bnb4TypeOf(format);
    const std::array<float, 16>& table = bnb4CodeTable(type);
    PlaygroundBlocks out;
    out.blockWeights = out.groupSize = blocksize;
    out.codeCount = 16;
    const uint64_t blocks = absmax->bytes.size() / 4;
    out.levels.resize(size_t(blocks * 16));
    for (uint64_t b = 0; b < blocks; ++b) {
        float a;
        uint32_t raw;
        std::memcpy(&a, absmax->bytes.data() + b * 4, 4);
        std::memcpy(&raw, &a, 4);
        for (int c = 0; c < 16; ++c) out.levels[size_t(b * 16 + uint64_t(c))] = table[size_t(c)] * a;
        BlockValues v;
        v.hasBlock = true;
        v.block = b;
        v.firstRow = b * blocksize / cols;
        v.firstCol = b * blocksize % cols;
        v.values.push_back({BlockValueKind::Absmax, "absmax", -1, -1, raw, 32, double(a)});
        out.blocks.push_back(std::move(v));
    }
    out.codes.resize(size_t(n));
    out.dequantized.resize(size_t(n));
    for (uint64_t e = 0; e < n; ++e) {
        const uint8_t byte = packed->bytes[size_t(e / 2)];
        const uint8_t c = (e & 1) ? (byte & 0xF) : (byte >> 4); // element 2i in the high nibble
        out.codes[size_t(e)] = c;
        out.dequantized[size_t(e)] = out.levels[size_t(e / blocksize * 16 + c)];
    }
    out.formula = type == Bnb4Type::Nf4 ? "w = NF4[q] * absmax" : "w = FP4[q] * absmax";
    return out;
}

} // namespace

const FamilyTargets& bnbTargets()
{
    static const FamilyTargets t{bnbQuantizeScheme,    bnbQuantize,          bnbConfig,          nullptr, nullptr, nullptr,
                                 bnbBudget,            bnbRequantizePresets, bnbPlaygroundFormats, bnbPlaygroundDecode};
    return t;
}

} // namespace qs
