#include "formats/formatid.h"

#include "base/asciicase.h"
#include "base/error.h"
#include "container/ggmltype.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/quantize_ggml.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace qs {
namespace {

// What a user typed, as ids are spelled: lowercase, without surrounding blanks.
std::string formatKey(std::string_view text)
{
    size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
        --e;
    return asciiLower(text.substr(b, e - b));
}

struct GgufTraits {
    std::string_view name;
    int bits;
    std::string_view what;
};

// Nominal code width and a one-line description of each storable ggml type (spec gguf.md 2).
constexpr GgufTraits kGgufTraits[] = {
    {"F32", 32, "IEEE binary32"},
    {"F16", 16, "IEEE binary16"},
    {"Q4_0", 4, "32-weight blocks: f16 scale + 4-bit codes (x = d*(q-8))"},
    {"Q4_1", 4, "32-weight blocks: f16 scale and min + 4-bit codes"},
    {"Q5_0", 5, "32-weight blocks: f16 scale + 5-bit codes (high bits apart)"},
    {"Q5_1", 5, "32-weight blocks: f16 scale and min + 5-bit codes"},
    {"Q8_0", 8, "32-weight blocks: f16 scale + int8 codes"},
    {"Q8_1", 8, "32-weight blocks: f16 scale and sum + int8 codes (dot-product intermediate)"},
    {"Q2_K", 2, "256-weight super-blocks, 16 sub-blocks with 4-bit scales and mins, 2-bit codes"},
    {"Q3_K", 3, "256-weight super-blocks, 16 sub-blocks with 6-bit scales, 3-bit codes"},
    {"Q4_K", 4, "256-weight super-blocks, 8 sub-blocks with 6-bit scales and mins, 4-bit codes"},
    {"Q5_K", 5, "256-weight super-blocks, 8 sub-blocks with 6-bit scales and mins, 5-bit codes"},
    {"Q6_K", 6, "256-weight super-blocks, 16 sub-blocks with int8 scales, 6-bit codes"},
    {"Q8_K", 8, "256-weight blocks: f32 scale + int8 codes (dot-product intermediate)"},
    {"IQ2_XXS", 2, "256-weight blocks, E8-lattice grid codebook, about 2.06 bits"},
    {"IQ2_XS", 2, "256-weight blocks, 512-entry grid codebook, about 2.31 bits"},
    {"IQ3_XXS", 3, "256-weight blocks, 256-entry grid codebook, about 3.06 bits"},
    {"IQ1_S", 1, "256-weight blocks, ternary grid codebook, about 1.56 bits"},
    {"IQ4_NL", 4, "32-weight blocks: f16 scale + 4-bit non-linear codebook"},
    {"IQ3_S", 3, "256-weight blocks, 512-entry grid codebook, about 3.44 bits"},
    {"IQ2_S", 2, "256-weight blocks, 1024-entry grid codebook, about 2.56 bits"},
    {"IQ4_XS", 4, "256-weight blocks, 6-bit sub-block scales, 4-bit non-linear codebook"},
    {"I8", 8, "plain int8"},
    {"I16", 16, "plain int16"},
    {"I32", 32, "plain int32"},
    {"I64", 64, "plain int64"},
    {"F64", 64, "IEEE binary64"},
    {"IQ1_M", 1, "256-weight blocks, ternary grid codebook with per-16 scales, about 1.75 bits"},
    {"BF16", 16, "bfloat16"},
    {"TQ1_0", 2, "256-weight blocks of ternary codes, five per byte (base 3), about 1.69 bits"},
    {"TQ2_0", 2, "256-weight blocks of ternary codes in 2-bit fields"},
    {"MXFP4", 4, "32-weight blocks: E8M0 scale + FP4 E2M1 codes (OCP microscaling)"},
    {"NVFP4", 4, "64-weight blocks: FP8 E4M3 sub-block scales + FP4 E2M1 codes"},
    {"Q1_0", 1, "128-weight blocks: f16 scale + 1-bit signs (x = +-d)"},
    {"Q2_0", 2, "64-weight blocks: f16 scale + 2-bit codes (x = (q-1)*d)"},
};

struct PlainRow {
    DType dtype;
    std::string_view id;
    std::string_view what;
};

constexpr PlainRow kPlain[] = {
    {DType::F64, "f64", "IEEE binary64"},
    {DType::F32, "f32", "IEEE binary32"},
    {DType::F16, "f16", "IEEE binary16"},
    {DType::BF16, "bf16", "bfloat16 (the top half of a binary32)"},
    {DType::F8_E4M3, "f8_e4m3", "FP8 E4M3 (torch float8_e4m3fn: no infinities, max 448)"},
    {DType::F8_E5M2, "f8_e5m2", "FP8 E5M2 (IEEE-style infinities and NaN)"},
    {DType::F8_E4M3FNUZ, "f8_e4m3fnuz", "FP8 E4M3 AMD variant (no -0, single NaN)"},
    {DType::F8_E5M2FNUZ, "f8_e5m2fnuz", "FP8 E5M2 AMD variant (no -0, single NaN)"},
    {DType::F8_E8M0, "f8_e8m0", "exponent-only 8-bit scale (MX formats)"},
    {DType::F4, "f4", "FP4 E2M1 (safetensors sub-byte dtype)"},
    {DType::F6_E2M3, "f6_e2m3", "FP6 E2M3 (safetensors sub-byte dtype)"},
    {DType::F6_E3M2, "f6_e3m2", "FP6 E3M2 (safetensors sub-byte dtype)"},
    {DType::C64, "c64", "complex64"},
    {DType::I64, "i64", "plain int64"},
    {DType::I32, "i32", "plain int32"},
    {DType::I16, "i16", "plain int16"},
    {DType::I8, "i8", "plain int8"},
    {DType::U64, "u64", "plain uint64"},
    {DType::U32, "u32", "plain uint32"},
    {DType::U16, "u16", "plain uint16"},
    {DType::U8, "u8", "plain uint8"},
    {DType::BOOL, "bool", "booleans, one byte each"},
};

struct QuantRow {
    std::string_view id;
    FormatFamily family;
    int bits;
    StorageKind storage;
    ColourRole colour;
    bool integerCodes, affineCodes;
    RequantizeRule requantize;
    bool quantizeTarget, repackTarget;
    std::string_view alias;
    std::string_view what;
};

using enum FormatFamily;
using enum StorageKind;
constexpr RequantizeRule NoRule = RequantizeRule::None, Ggml = RequantizeRule::Ggml,
                         GptqAffine = RequantizeRule::GptqAffine, Awq = RequantizeRule::Awq,
                         Bnb4 = RequantizeRule::Bnb4;
constexpr ColourRole Int = ColourRole::Integer, Flt = ColourRole::Float, Book = ColourRole::Codebook,
                     Named = ColourRole::None;

// Part B/C of ../shared/spec/safetensors-quant.md: every format detection names.
//  id  family  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
constexpr QuantRow kQuant[] = {
    {"gptq-v1", Gptq, 0, PackedLinear, Int, true, true, GptqAffine, true, true, "gptq",
     "GPTQ (AutoGPTQ checkpoint_format gptq): qweight packed along K, zeros stored as z-1"},
    {"gptq-v2", Gptq, 0, PackedLinear, Int, true, true, GptqAffine, true, true, "",
     "GPTQ v2 (GPTQModel gptq_v2): qweight packed along K, zeros stored as z"},
    {"gptq-planar", Gptq, 0, PackedLinear, Int, true, true, GptqAffine, false, false, "",
     "GPTQModel split-plane layout (format gptq_p; 5/6/7-bit), v2 zeros"},
    {"awq-gemm", Gptq, 4, PackedLinear, Int, true, true, Awq, true, true, "awq",
     "AutoAWQ GEMM: qweight [K, N/8] packed along N in AWQ order, zeros as-is"},
    {"awq-gemv", Gptq, 4, PackedLinear, Int, true, true, Awq, false, false, "",
     "AutoAWQ GEMV: qweight [N, K/8] packed along K, padded zeros and scales"},
    // Its zeros are stored folded into float biases (-s*z): codes yes, integer zeros no.
    {"awq-gemv-fast", Gptq, 4, PackedLinear, Int, true, false, Awq, false, false, "",
     "llm-awq GEMV_FAST: int16 qweight [N/4, K] interleaved, f16 scales and -s*z biases"},
    {"gptq-marlin", Gptq, 4, PackedLinear, Int, true, true, GptqAffine, false, false, "",
     "Marlin tiles (B, s): symmetric GPTQ, 16x16 tiles permuted for mma"},
    {"awq-marlin", Gptq, 4, PackedLinear, Int, true, true, GptqAffine, false, false, "",
     "AutoAWQ version marlin: symmetric 4-bit Marlin tiles (qweight, scales)"},
    {"bnb-nf4", Bitsandbytes, 4, Codebook, Book, true, false, Bnb4, true, false, "nf4",
     "bitsandbytes 4-bit NormalFloat, blockwise absmax (optionally nested)"},
    {"bnb-fp4", Bitsandbytes, 4, Codebook, Book, true, false, Bnb4, true, false, "fp4",
     "bitsandbytes 4-bit float (its own E2M1 variant), blockwise absmax"},
    {"bnb-int8", Bitsandbytes, 8, RowInt8, Int, true, false, NoRule, false, false, "",
     "bitsandbytes LLM.int8: int8 rows with per-row absmax (SCB)"},
    {"compressed-tensors", CompressedTensors, 0, GroupAffine, Int, true, true, GptqAffine, true, true, "ct",
     "compressed-tensors pack-quantized: signed codes +2^(b-1) packed along K in int32"},
    {"compressed-tensors-int", CompressedTensors, 0, GroupAffine, Int, true, true, GptqAffine, false, false, "",
     "compressed-tensors int-/naive-quantized: unpacked int8 codes + weight_scale"},
    {"compressed-tensors-fp8", CompressedTensors, 8, ScaledFloat, Int, false, false, NoRule, false, false, "",
     "compressed-tensors float-quantized: FP8 weight + weight_scale"},
    {"compressed-tensors-nvfp4", CompressedTensors, 4, ScaledFloat, Int, false, false, NoRule, false, false, "",
     "compressed-tensors nvfp4-pack-quantized: FP4 E2M1 pairs, FP8 scales per 16, global scale"},
    {"mlx-affine", Mlx, 0, GroupAffine, Int, true, false, GptqAffine, true, true, "mlx",
     "MLX affine: uint32 words packed along K, scales and biases per group"},
    {"mlx-mxfp4", Mlx, 4, ScaledFloat, Int, false, false, NoRule, false, false, "",
     "MLX mxfp4: FP4 codes in uint32 words, E8M0 scales per 32"},
    {"mlx-nvfp4", Mlx, 4, ScaledFloat, Int, false, false, NoRule, false, false, "",
     "MLX nvfp4: FP4 codes in uint32 words, FP8 scales per 16"},
    {"mlx-mxfp8", Mlx, 8, ScaledFloat, Int, false, false, NoRule, false, false, "",
     "MLX mxfp8: FP8 codes in uint32 words, E8M0 scales per 32"},
    {"hqq", Hqq, 0, GroupAffine, Int, true, false, GptqAffine, false, false, "",
     "HQQ: W_q packed by halves of the grouped view, float scale and zero"},
    {"fp8-block", CompressedTensors, 8, ScaledFloat, Flt, false, false, NoRule, false, false, "",
     "block FP8 (DeepSeek style): FP8 weight + weight_scale_inv per 128x128"},
    {"exl2", Other, 0, StorageKind::None, Named, false, false, NoRule, false, false, "",
     "ExLlamaV2 EXL2 (q_weight, q_scale, q_perm ...): named, not decoded"},
    {"exl3", Other, 0, StorageKind::None, Named, false, false, NoRule, false, false, "",
     "ExLlamaV3 EXL3 (trellis): named, not decoded"},
    {"aqlm", Other, 0, StorageKind::None, Named, false, false, NoRule, false, false, "",
     "AQLM additive codebooks (codes, codebooks, scales): named, not decoded"},
    {"quanto", Other, 0, StorageKind::None, Named, false, false, NoRule, false, false, "",
     "optimum-quanto (weight._data, weight._scale): named, not decoded"},
};

FormatInfo makeFormatInfo(std::string id, std::string what, FormatFamily family, int bits, bool quantized)
{
    FormatInfo f;
    f.id = std::move(id);
    f.description = std::move(what);
    f.family = family;
    f.bits = bits;
    f.quantized = quantized;
    return f;
}

std::vector<FormatInfo> buildRegistry()
{
    std::vector<FormatInfo> out;
    for (const auto& p : kPlain) {
        FormatInfo f =
            makeFormatInfo(std::string(p.id), std::string(p.what), FormatFamily::Plain, int(dtypeBits(p.dtype)), false);
        f.storage = dtypeIsFloat(p.dtype) ? Float : Integer;
        f.colour = Flt;
        out.push_back(std::move(f));
    }
    for (const auto& t : ggmlTypes()) {
        if (t.removed)
            continue;
        const auto traits = std::find_if(std::begin(kGgufTraits), std::end(kGgufTraits),
                                         [&](const GgufTraits& g) { return g.name == t.name; });
        const bool plain = t.blockWeights == 1;
        std::string what = "GGUF " + std::string(t.name);
        if (traits != std::end(kGgufTraits))
            what += ": " + std::string(traits->what);
        FormatInfo f = makeFormatInfo("gguf-" + asciiLower(t.name), what, FormatFamily::Gguf,
                                      traits != std::end(kGgufTraits) ? traits->bits : 0, !plain);
        f.storage = !plain ? GgmlBlock : t.name[0] == 'I' ? Integer : Float;
        f.colour = asciiLower(t.name).rfind("iq", 0) == 0 ? Book : ColourRole::Block;
        f.requantize = plain ? NoRule : Ggml;
        f.quantizeTarget = ggmlQuantizeTarget(t.id);
        f.repackTarget = ggmlRepackTarget(t.id);
        f.alias = asciiLower(t.name);
        out.push_back(std::move(f));
    }
    for (const auto& q : kQuant) {
        FormatInfo f = makeFormatInfo(std::string(q.id), std::string(q.what), q.family, q.bits, true);
        f.storage = q.storage;
        f.colour = q.colour;
        f.integerCodes = q.integerCodes;
        f.affineCodes = q.affineCodes;
        f.requantize = q.requantize;
        f.quantizeTarget = q.quantizeTarget;
        f.repackTarget = q.repackTarget;
        f.alias = std::string(q.alias);
        out.push_back(std::move(f));
    }
    out.push_back(makeFormatInfo("unknown", "not recognised: listed, never decoded", FormatFamily::Unknown, 0, false));
    out.back().colour = Named;
    return out;
}

const std::vector<FormatInfo>& registry()
{
    static const std::vector<FormatInfo> r = buildRegistry();
    return r;
}

} // namespace

std::span<const FormatInfo> formatInfos()
{
    return registry();
}

const FormatInfo* findFormat(std::string_view id)
{
    // Without a lowered copy: the dispatcher asks once per row chunk.
    for (const auto& f : registry())
        if (equalsIgnoreCase(f.id, id))
            return &f;
    return nullptr;
}

std::string plainFormatId(DType dtype)
{
    for (const auto& p : kPlain)
        if (p.dtype == dtype)
            return std::string(p.id);
    return {};
}

std::string ggufFormatId(std::string_view ggmlTypeName)
{
    const GgmlTypeInfo* t = ggmlTypeByName(ggmlTypeName);
    if (!t || t->removed)
        return {};
    return "gguf-" + asciiLower(t->name);
}

const FormatInfo* resolveFormatId(std::string_view text)
{
    const std::string key = formatKey(text);
    const FormatInfo* f = findFormat(key);
    if (!f)
        for (const auto& a : registry())
            if (!a.alias.empty() && a.alias == key) {
                f = &a;
                break;
            }
    return f && f->family != FormatFamily::Unknown ? f : nullptr;
}

const FormatInfo& parseFormatId(std::string_view text, std::string_view option)
{
    if (const FormatInfo* f = resolveFormatId(text))
        return *f;
    const std::string key = formatKey(text);
    // Suggest ids that contain what was typed ("q4" -> "gguf-q4_0, gguf-q4_1, ..."), at most five.
    std::string hint;
    int shown = 0;
    if (!key.empty())
        for (const auto& f : registry())
            if (f.family != FormatFamily::Unknown && f.id.find(key) != std::string::npos && shown < 5)
                hint += (shown++ ? ", " : "") + f.id;
    std::string msg = std::string(option) + ": unknown format '" + std::string(text) + "'";
    msg += hint.empty() ? " (the README lists the format identifiers)" : " (did you mean " + hint + "?)";
    throw Error(msg);
}

} // namespace qs
