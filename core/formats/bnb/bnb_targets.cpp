// bitsandbytes NF4 / FP4 as targets: quantize's scheme, quantizer, the tensors
// Linear4bit._save_to_state_dict writes and transformers' quantization_config; the budget
// table's bnb rows (int8 included).
#include "formats/bnb/bnb.h"
#include "formats/bnb/quantize_bnb.h"
#include "formats/target.h"
#include "formats/wordmap.h"
#include "container/logicalweight.h"

#include "base/error.h"
#include "base/intmath.h"

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

std::string bnbTypeName(Bnb4Type t)
{
    return t == Bnb4Type::Nf4 ? "nf4" : "fp4";
}

// The blocksizes bitsandbytes' quantize_4bit takes (its CUDA kernels check this list; 32 is newer,
// older releases start at 64).
constexpr uint32_t kBnbBlocksizes[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};

void bnbQuantizeScheme(const QuantizeRequest& r, QuantScheme& s)
{
    s.bits = fixedCodeBits(r, *s.format);
    s.groupSize = r.groupSize ? r.groupSize : 64;
    if (std::find(std::begin(kBnbBlocksizes), std::end(kBnbBlocksizes), s.groupSize) == std::end(kBnbBlocksizes))
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
        out.push_back(
            storedTensor("weight.nested_quant_map", DType::F32, {256}, std::vector<float>(map.begin(), map.end())));
    } else {
        out.push_back(storedTensor("weight.absmax", DType::F32, {q.absmax.size()}, q.absmax));
    }
    const auto& table = bnb4CodeTable(type);
    out.push_back(storedTensor("weight.quant_map", DType::F32, {16}, std::vector<float>(table.begin(), table.end())));
    const std::string typeName = bnbTypeName(type);
    std::string json = "{\"quant_type\": \"" + typeName + "\", \"blocksize\": " + std::to_string(q.blocksize)
        + ", \"dtype\": \"" + torchDtypeName(s.modelDtype) + "\", \"shape\": [" + std::to_string(rows) + ", "
        + std::to_string(cols) + "]";
    if (q.nested)
        json += ", \"nested_blocksize\": 256, \"nested_dtype\": \"float32\", \"nested_offset\": "
            + pythonFloat(double(q.nestedOffset));
    json += "}";
    out.push_back(storedTensor("weight.quant_state.bitsandbytes__" + typeName, DType::U8, {json.size()},
                               std::vector<uint8_t>(json.begin(), json.end())));
    return out;
}

void bnbConfig(const QuantScheme& s, QJsonObject& cfg)
{
    cfg.insert(
        QStringLiteral("quantization_config"),
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
    // Blocks of 64; the quant_state JSON (about 80 to 170 bytes per weight) is not counted.
    for (const char* id : {"bnb-nf4", "bnb-fp4"}) {
        out.push_back(budgetRow(id, findFormat(id), 4, 64,
                                {{"weight", BudgetPart::Codes},
                                 {"absmax", BudgetPart::Scales, "absmax"},
                                 {"quant_map", BudgetPart::Tables}}));
        // Nested: u8 absmax codes, an f32 absmax per 256 blocks and the 256-entry nested map.
        out.push_back(budgetRow(std::string(id) + "-nested", findFormat(id), 4, 64,
                                {{"weight", BudgetPart::Codes},
                                 {"absmax", BudgetPart::Scales, "absmax", "U8"},
                                 {"nested_absmax", BudgetPart::Scales},
                                 {"quant_map", BudgetPart::Tables},
                                 {"nested_quant_map", BudgetPart::Tables}}));
    }
    out.push_back(
        budgetRow("bnb-int8", findFormat("bnb-int8"), 8, 0,
                  {{"weight", BudgetPart::Codes}, {"SCB", BudgetPart::Scales}, {"weight_format", BudgetPart::Tables}}));
    markBudgetPresets(out,
                      {{"bnb-nf4", BudgetPreset::Headline},
                       {"bnb-nf4-nested", BudgetPreset::Common},
                       {"bnb-int8", BudgetPreset::Common}});
}

void bnbRequantizePresets(std::vector<RequantizePreset>& out)
{
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "bitsandbytes NF4"), {"bnb-nf4"}});
    out.push_back({QT_TRANSLATE_NOOP("qs::RequantizePreset", "bitsandbytes FP4"), {"bnb-fp4"}});
}

bool bnbStoredNested(const LogicalWeight& w)
{
    return w.member("nested_absmax") >= 0;
}

void bnbToolInput(std::vector<float>& values)
{
    roundToModelHalf(values.data(), values.data(), values.size());
}

void bnbPlaygroundFormats(std::vector<PlaygroundBlockFormat>& out)
{
    const std::vector<uint32_t> sizes(std::begin(kBnbBlocksizes), std::end(kBnbBlocksizes));
    for (const char* id : {"bnb-nf4", "bnb-fp4"})
        out.push_back({findFormat(id), 64, sizes, bnbStoredNested, bnbToolInput});
}

// The tensor named `suffix`, or with `prefix` the first whose name starts with it.
const StoredTensor* storedTensorNamed(const std::vector<StoredTensor>& tensors, std::string_view suffix,
                                      bool prefix = false)
{
    for (const StoredTensor& t : tensors)
        if (prefix ? std::string_view(t.suffix).substr(0, suffix.size()) == suffix : t.suffix == suffix)
            return &t;
    return nullptr;
}

// What bnbQuantize wrote, read as the checkpoint reader reads a stored weight (a Bnb4 state
// over the tensors and the quant_state JSON) and decoded by the dequantizer's own kernel: each
// code's value is table[c] * absmax, nested absmax fl32(fl32(map[u8] * scale) + offset).
PlaygroundBlocks bnbPlaygroundDecode(const FormatInfo& format, const std::vector<StoredTensor>& tensors, uint64_t rows,
                                     uint64_t cols)
{
    const std::string what =
        "playground: " + format.id + " tensors of " + std::to_string(rows) + " x " + std::to_string(cols);
    const StoredTensor* packed = storedTensorNamed(tensors, "weight");
    const StoredTensor* absmax = storedTensorNamed(tensors, "weight.absmax");
    const StoredTensor* state = storedTensorNamed(tensors, "weight.quant_state.", true);
    const uint64_t n = rows * cols;
    if (!packed || !absmax || !state || packed->bytes.size() != ceilDiv(n, 2))
        throw Error(what + ": not what the quantizer writes");
    const QJsonObject json = QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char*>(state->bytes.data()),
                                                                qsizetype(state->bytes.size())))
                                 .object();
    Bnb4 s;
    s.fp4 = bnb4TypeOf(format) == Bnb4Type::Fp4;
    s.rows = rows;
    s.cols = cols;
    s.blocksize = uint64_t(json.value(QStringLiteral("blocksize")).toInt());
    s.packed = packed->bytes;
    s.nested = json.contains(QStringLiteral("nested_offset"));
    const uint64_t blocks = s.blocksize ? s.blocks() : 0;
    if (s.nested) {
        const StoredTensor* scales = storedTensorNamed(tensors, "weight.nested_absmax");
        const StoredTensor* map = storedTensorNamed(tensors, "weight.nested_quant_map");
        s.nestedBlocksize = uint64_t(json.value(QStringLiteral("nested_blocksize")).toInt());
        if (!scales || !map || absmax->dtype != DType::U8 || absmax->bytes.size() != blocks || s.nestedBlocksize == 0
            || scales->bytes.size() != ceilDiv(blocks, s.nestedBlocksize) * 4 || map->bytes.size() != 256 * 4)
            throw Error(what + ": the nested absmax does not match the quant_state");
        s.absmaxCodes = absmax->bytes;
        s.nestedAbsmax = FloatView(scales->bytes, scales->dtype, what);
        s.nestedMap = FloatView(map->bytes, map->dtype, what);
        s.nestedOffset = float(json.value(QStringLiteral("nested_offset")).toDouble());
    } else {
        if (blocks == 0 || absmax->dtype != DType::F32 || absmax->bytes.size() != blocks * 4)
            throw Error(what + ": the absmax does not match the quant_state's blocksize");
        s.absmax = FloatView(absmax->bytes, absmax->dtype, what);
    }
    PlaygroundBlocks out;
    out.blockWeights = out.groupSize = uint32_t(s.blocksize);
    out.codeCount = 16;
    out.levels.resize(size_t(blocks * 16));
    for (uint64_t b = 0; b < blocks; ++b) {
        const float a = s.blockAbsmax(b);
        for (int c = 0; c < 16; ++c)
            out.levels[size_t(b * 16 + uint64_t(c))] = s.table()[c] * a;
        out.blocks.push_back(bnb4BlockFields(s, b));
    }
    out.codes.resize(size_t(n));
    for (uint64_t e = 0; e < n; ++e) {
        const uint8_t byte = s.packed[size_t(e / 2)];
        out.codes[size_t(e)] = (e & 1) ? (byte & 0xF) : (byte >> 4); // element 2i in the high nibble
    }
    out.dequantized.resize(size_t(n));
    bnb4ElementsScalar(s, 0, n, out.dequantized.data());
    const char* table = s.fp4 ? "FP4" : "NF4";
    out.formula = s.nested ? std::string("w = ") + table + "[q] * absmax,  absmax = map[c] * s2 + offset"
                           : std::string("w = ") + table + "[q] * absmax";
    return out;
}

} // namespace

const FamilyTargets& bnbTargets()
{
    static const FamilyTargets t{
        bnbQuantizeScheme,    bnbQuantize,          bnbConfig,          nullptr, nullptr, nullptr, bnbBudget,
        bnbRequantizePresets, bnbPlaygroundFormats, bnbPlaygroundDecode};
    return t;
}

} // namespace qs
