// Layout specs of compressed-tensors (spec safetensors-quant.md B.7): pack-quantized int codes,
// the unpacked int- and float-quantized forms, nvfp4-pack-quantized, and DeepSeek-style block
// FP8 (B.10). locate() uses the word arithmetic of formats/compressed_tensors/ct.h.
#include "formats/layoutspec_util.h"
#include "formats/compressed_tensors/ct.h"

namespace qs {

namespace {

using layout::tensor;

// Codes per int32 word: floor(32 / b), the top 32 - pf*b bits unused.
uint64_t perWord(const LayoutParams& p)
{
    return uint64_t(32 / p.bits);
}

LayoutTensor scaleTensor()
{
    return tensor(
        "weight_scale", "F16", "group: [N, G]; channel: [N, 1]; tensor: [1]",
        [](const LayoutParams& p) {
            return std::vector<uint64_t>{p.N, p.groups()};
        },
        "per-(row, group) scale in the model dtype (BF16/F16/F32)");
}

LayoutTensor gidxTensor()
{
    return tensor(
        "weight_g_idx", "I32", "[K]", [](const LayoutParams& p) { return std::vector<uint64_t>{p.K}; },
        "group of each input channel (actorder group)", true);
}

LayoutSpec packQuantized()
{
    LayoutSpec s;
    s.id = "compressed-tensors";
    s.name = "compressed-tensors pack-quantized";
    s.bitWidths = {2, 3, 4, 5, 6, 7, 8};
    s.packAxis = PackAxis::In;
    s.signedness = CodeSignedness::Offset;
    s.zeroPoint = ZeroPointKind::Stored;
    s.formula = "W[n][k] = s[n][g] * (q - zp), q = field - 2^(b-1), field k%pf of word k/pf, pf = floor(32/b); "
                "g = g_idx[k] or k/group_size";
    s.exactness = "(q - zp) is exact in any float dtype; one f32 product, one RNE to the scale dtype in the reference";
    s.tensors = {
        tensor(
            "weight_packed", "I32", "[N, ceil(K/pf)]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, perWord(p))};
            },
            "signed codes + 2^(b-1) along K, natural slots, whole codes per word (3-bit: 10 per word)"),
        tensor(
            "weight_shape", "I64", "[2]", [](const LayoutParams&) { return std::vector<uint64_t>{2}; },
            "the original [N, K] (I32 accepted)", true),
        scaleTensor(),
        tensor(
            "weight_zero_point", "I32", "[ceil(N/pf), G] (before PR #296: I8 [N, G], unpacked)",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{ceilDiv(p.N, perWord(p)), p.groups()};
            },
            "asymmetric only: zero + 2^(b-1) packed along N (dim 0) in the same slots", true),
        gidxTensor(),
    };
    s.padding = "the tail of each row's last word holds stored 0 (q = -2^(b-1)); packed zero points pad N likewise";
    s.notes = {"not a bitstream: for b not dividing 32 the top 32 - pf*b bits of each word are unused",
               "zero points of files before compressed-tensors PR #296 are unpacked signed I8 [N, G]: "
               "element (n, g) at index n*G + g; locate() names the packed form",
               "tensor strategy: weight_scale [1] serves every element"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        const uint64_t pf = perWord(p), G = p.groups();
        ElementLocation e;
        e.tensor = "weight_packed";
        e.slot = int(col % pf);
        e.pieceCount = 1;
        e.pieces[0] = {row * ceilDiv(p.K, pf) + col / pf, uint8_t(uint64_t(p.bits) * (col % pf)), uint8_t(p.bits)};
        e.group = col / p.effectiveGroupSize();
        e.scaleTensor = "weight_scale";
        e.scaleIndex = row * G + e.group;
        e.zeroTensor = "weight_zero_point";
        e.zeroPieceCount = 1;
        e.zeroPieces[0] = {(row / pf) * G + e.group, uint8_t(uint64_t(p.bits) * (row % pf)), uint8_t(p.bits)};
        return e;
    };
    return s;
}

LayoutSpec unpacked(bool fp8)
{
    LayoutSpec s;
    s.id = fp8 ? "compressed-tensors-fp8" : "compressed-tensors-int";
    s.name = fp8 ? "compressed-tensors float-quantized (FP8)" : "compressed-tensors int-/naive-quantized";
    s.bitWidths = {8};
    s.wordBits = 8;
    s.packAxis = PackAxis::None;
    s.signedness = fp8 ? CodeSignedness::Float : CodeSignedness::TwosComplement;
    s.zeroPoint = fp8 ? ZeroPointKind::None : ZeroPointKind::Stored;
    s.formula = fp8 ? "W[n][k] = fp8(weight[n][k]) * s[n][g]" : "W[n][k] = s[n][g] * (q[n][k] - zp[n][g])";
    s.exactness = "the FP8 / int value is exact in the scale dtype; one f32 product, one RNE to the scale dtype";
    s.tensors = {
        tensor(
            "weight", fp8 ? "F8_E4M3" : "I8", "[N, K]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.K};
            },
            fp8 ? "FP8 E4M3 (E5M2 accepted) values" : "signed int8 codes"),
        scaleTensor(),
    };
    if (!fp8) {
        s.tensors.push_back(tensor(
            "weight_zero_point", "I8", "[N, G]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.groups()};
            },
            "asymmetric only: signed zero point", true));
        s.tensors.push_back(gidxTensor());
    }
    s.tensors.push_back(tensor(
        "input_scale", "F32", "[1]", [](const LayoutParams&) { return std::vector<uint64_t>{1}; },
        "activation scale (not used to dequantize the weight)", true));
    s.padding = "none: one byte per element";
    s.locate = [fp8](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e = layout::plainElement("weight", 8, p, row, col);
        e.group = col / p.effectiveGroupSize();
        e.scaleTensor = "weight_scale";
        e.scaleIndex = row * p.groups() + e.group;
        if (!fp8) {
            e.zeroTensor = "weight_zero_point";
            e.zeroPieceCount = 1;
            e.zeroPieces[0] = {e.scaleIndex, 0, 8};
        }
        return e;
    };
    return s;
}

LayoutSpec nvfp4()
{
    LayoutSpec s;
    s.id = "compressed-tensors-nvfp4";
    s.name = "compressed-tensors nvfp4-pack-quantized";
    s.bitWidths = {4};
    s.wordBits = 8;
    s.packAxis = PackAxis::In;
    s.signedness = CodeSignedness::Float;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = E2M1(q[n][k]) * (fp8(weight_scale[n][k/16]) / weight_global_scale)";
    s.exactness = "not decoded here; the upstream reference divides the FP8 scale by the global scale in f32";
    s.tensors = {
        tensor(
            "weight_packed", "U8", "[N, K/2]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, 2)};
            },
            "FP4 E2M1 pairs along K, element 2i in the LOW nibble"),
        tensor(
            "weight_scale", "F8_E4M3", "[N, K/16]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, 16)};
            },
            "scale per 16 elements"),
        tensor(
            "weight_global_scale", "F32", "[1]", [](const LayoutParams&) { return std::vector<uint64_t>{1}; },
            "global divisor of the scales"),
        tensor(
            "input_global_scale", "F32", "[1]", [](const LayoutParams&) { return std::vector<uint64_t>{1}; },
            "activation global scale", true),
    };
    s.padding = "K must be a multiple of 16";
    s.notes = {"group size is fixed at 16 (LayoutParams::groupSize is ignored)",
               "detected and laid out only: no dequantizer is registered for this format"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        return layout::nibbleBlockElement("weight_packed", "weight_scale", 16, p, row, col);
    };
    return s;
}

LayoutSpec fp8Block()
{
    LayoutSpec s;
    s.id = "fp8-block";
    s.name = "block FP8 (DeepSeek style, weight_scale_inv per 128x128)";
    s.bitWidths = {8};
    s.wordBits = 8;
    s.packAxis = PackAxis::None;
    s.signedness = CodeSignedness::Float;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = fp8(weight[n][k]) * scale_inv[n/128][k/128]";
    s.exactness = "one f32 product";
    s.tensors = {
        tensor(
            "weight", "F8_E4M3", "[N, K]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.K};
            },
            "FP8 E4M3 values"),
        tensor(
            "weight_scale_inv", "F32", "[ceil(N/128), ceil(K/128)]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{ceilDiv(p.N, 128), ceilDiv(p.K, 128)};
            },
            "one multiplier per 128x128 block"),
    };
    s.padding = "edge blocks are partial; no padding is stored";
    s.notes = {"block size from weight_block_size in the config, [128, 128] in every known checkpoint",
               "detected and laid out only: no dequantizer is registered for this format"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e = layout::plainElement("weight", 8, p, row, col);
        e.group = col / 128;
        e.scaleTensor = "weight_scale_inv";
        e.scaleIndex = (row / 128) * ceilDiv(p.K, 128) + col / 128;
        return e;
    };
    return s;
}

} // namespace

void registerCompressedTensorsLayouts(LayoutRegistry& r)
{
    r.add(packQuantized());
    r.add(unpacked(false));
    r.add(unpacked(true));
    r.add(nvfp4());
    r.add(fp8Block());
}

} // namespace qs
