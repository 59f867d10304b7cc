// Layout specs of the unquantized element types (every plain format id of formats/formatid.h:
// packAxis None, one stored value per element) and of the formats detection only names
// (EXL3, AMD Quark: their member tensors are listed, no locate()).
#include "formats/layoutspec_util.h"
#include "formats/plain/plain.h"

#include "container/dtype.h"
#include "formats/formatid.h"

namespace qs {

namespace {

using layout::namedOnly;
using layout::tensor;

constexpr DType kPlainTypes[] = {DType::BOOL,    DType::U8,          DType::I8,          DType::U16,     DType::I16,
                                 DType::U32,     DType::I32,         DType::U64,         DType::I64,     DType::F16,
                                 DType::BF16,    DType::F32,         DType::F64,         DType::C64,     DType::F8_E4M3,
                                 DType::F8_E5M2, DType::F8_E4M3FNUZ, DType::F8_E5M2FNUZ, DType::F8_E8M0, DType::F4,
                                 DType::F6_E2M3, DType::F6_E3M2};

LayoutSpec plainSpec(DType t)
{
    const unsigned bits = dtypeBits(t);
    const std::string dt(dtypeName(t));
    const bool subByte = bits < 8;
    LayoutSpec s;
    s.id = plainFormatId(t);
    s.name = "plain " + dt;
    s.bitWidths = {int(bits)};
    s.wordBits = subByte ? 8 : int(bits);
    s.packAxis = subByte ? PackAxis::In : PackAxis::None;
    s.straddles = bits == 6;
    s.signedness = dtypeIsFloat(t)                                                  ? CodeSignedness::Float
        : (t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64) ? CodeSignedness::TwosComplement
                                                                                    : CodeSignedness::Unsigned;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = weight[n][k]";
    s.exactness = dtypeIsFloat(t) && bits <= 32 && t != DType::C64 ? "exact: every value is representable in f32"
        : t == DType::F64                                          ? "RNE of binary64 to f32"
                                                                   : "not a float weight: values are shown raw";
    s.tensors = {tensor(
        "weight", dt, "[N, K] (any rank: leading dims fold into N)",
        [](const LayoutParams& p) {
            return std::vector<uint64_t>{p.N, p.K};
        },
        "the values")};
    s.padding = subByte ? "N*K*bits must be a multiple of 8 (safetensors rule)" : "none";
    if (subByte)
        s.notes = {"the safetensors reference defines no element order for sub-byte dtypes; locate() assumes "
                   "torch's float4_e2m1fn_x2 order (element 0 in the low bits) and, for FP6, an LSB-first stream: "
                   "unverified until a real file is seen"};
    s.locate = [bits](const LayoutParams& p, uint64_t row, uint64_t col) {
        if (bits >= 8)
            return layout::plainElement("weight", bits, p, row, col);
        ElementLocation e;
        e.tensor = "weight";
        e.wordBits = 8;
        const uint64_t bit = (row * p.K + col) * bits;
        e.pieceCount = layout::streamPieces(e.pieces, bit, int(bits), 0, 8);
        e.slot = 8 % bits == 0 ? int((row * p.K + col) % (8 / bits)) : -1;
        return e;
    };
    return s;
}

} // namespace

void registerPlainLayouts(LayoutRegistry& r)
{
    for (DType t : kPlainTypes)
        r.add(plainSpec(t));
    r.add(namedOnly("exl3", "ExLlamaV3 EXL3", {"trellis", "suh", "svh", "su", "sv", "mcg", "mul1"},
                    "trellis codes (QTIP): I16 trellis [K/16, N/16, 16*bits], 256 weights a 16x16 tile, in a "
                    "Hadamard-rotated basis with the F16 sign vectors suh [K] and svh [N] (su, sv: the same as "
                    "packed bits in older files); mcg or mul1 holds the multiplier of another codebook than the "
                    "default. Not decoded: exllamav3 decodes on the GPU only (CUDA and Triton kernels)"));
    r.add(namedOnly("quark", "AMD Quark",
                    {"weight", "weight_scale", "weight_zero_point", "input_scale", "input_zero_point", "output_scale",
                     "output_zero_point"},
                    "recognised by quantization_config quant_method \"quark\": codes in weight (FP8, int8, or "
                    "int4/FP4/FP6 packed in bytes), scales in weight_scale (E8M0 bytes for MX formats), zero points "
                    "in weight_zero_point; the element type and scheme come from global_quant_config.weight"));
}

} // namespace qs
