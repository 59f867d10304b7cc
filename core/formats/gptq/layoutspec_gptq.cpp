// Layout specs of GPTQ (v1, v2, planar), AWQ (GEMM, GEMV, GEMV_FAST) and Marlin
// (spec safetensors-quant.md B.1, B.2, B.4). The locate() answers use the same index
// arithmetic as the kernels in formats/gptq/gptq.h, and tests read codes back through them.
#include "formats/layoutspec_util.h"

#include "formats/gptq/gptq.h"

namespace qs {

namespace {

using layout::tensor;

// A `width`-bit field at stream bit `bit` of a column whose words are `stride` apart.
uint8_t streamPieces(BitPiece* out, uint64_t bit, int width, uint64_t firstWord, uint64_t stride)
{
    const uint64_t r = bit / 32;
    const uint8_t sh = uint8_t(bit % 32);
    if (sh + width <= 32) {
        out[0] = {firstWord + r * stride, sh, uint8_t(width)};
        return 1;
    }
    out[0] = {firstWord + r * stride, sh, uint8_t(32 - sh)};
    out[1] = {firstWord + (r + 1) * stride, 0, uint8_t(width - (32 - sh))};
    return 2;
}

// Planar (B.1.6): code j of a 32-code chunk, plane by plane, low plane first.
uint8_t planarPieces(BitPiece* out, uint64_t index, int bits, uint64_t firstWord, uint64_t stride)
{
    uint64_t wordRow = (index / 32) * uint64_t(bits);
    const uint64_t j = index % 32;
    uint8_t count = 0;
    for (int w : gptqPlanes(bits)) {
        const uint64_t perWord = uint64_t(32 / w);
        out[count++] = {firstWord + (wordRow + j / perWord) * stride, uint8_t(uint64_t(w) * (j % perWord)), uint8_t(w)};
        wordRow += uint64_t(w);
    }
    return count;
}

LayoutSpec gptq(bool v1, bool planar)
{
    LayoutSpec s;
    s.id = planar ? "gptq-planar" : v1 ? "gptq-v1" : "gptq-v2";
    s.name = planar ? "GPTQ planar (GPTQModel gptq_p)"
        : v1        ? "GPTQ v1 (AutoGPTQ checkpoint_format gptq)"
                    : "GPTQ v2 (GPTQModel gptq_v2)";
    s.bitWidths = planar ? std::vector<int>{2, 3, 4, 5, 6, 7, 8} : std::vector<int>{2, 3, 4, 8};
    s.packAxis = PackAxis::In;
    s.transposed = true;
    s.planar = planar;
    s.straddles = !planar;
    s.zeroPoint = v1 ? ZeroPointKind::StoredMinusOne : ZeroPointKind::Stored;
    s.formula = v1 ? "W[n][k] = s[g_idx[k]][n] * (q[k][n] - (zs[g_idx[k]][n] + 1))"
                   : "W[n][k] = s[g_idx[k]][n] * (q[k][n] - zs[g_idx[k]][n])";
    s.exactness = "float32 product of the scale and the small integer (exact for F16/BF16 scales), "
                  "one RNE to the scale dtype in the reference";
    s.tensors = {
        tensor(
            "qweight", "I32", "[ceil(K*b/32), N]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{ceilDiv(p.K * uint64_t(p.bits), 32), p.N};
            },
            planar ? "codes along K, per 32 codes b words: low plane first"
                   : "codes along K, LSB-first bitstream per column"),
        tensor(
            "qzeros", "I32", "[G, ceil(N*b/32)]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.groups(), ceilDiv(p.N * uint64_t(p.bits), 32)};
            },
            v1 ? "zero - 1 along N, same bit order" : "zero along N, same bit order"),
        tensor(
            "scales", "F16", "[G, N]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.groups(), p.N};
            },
            "per-group scale (F16; BF16/F32 accepted)"),
        tensor(
            "g_idx", "I32", "[K]", [](const LayoutParams& p) { return std::vector<uint64_t>{p.K}; },
            "group of each input channel (act-order: any permutation)", true),
        tensor(
            "bias", "F16", "[N]", [](const LayoutParams& p) { return std::vector<uint64_t>{p.N}; }, "layer bias", true),
    };
    s.padding = planar ? "K and N must be multiples of 32"
                       : "the last word of a column is zero-padded when K*b is not a multiple of 32 "
                         "(AutoGPTQ itself requires K % 32 == 0); qzeros rows likewise";
    if (v1)
        s.notes = {"a true zero of 0 is stored as -1: 0xFFFFFFFF << shift sets every higher field of that word",
                   "readers disagree on a field 2^b-1: AutoGPTQ cuda_old masks (f+1) for 2/4/8 bits and not for 3 bits "
                   "(the fixtures' references), qlinear_cuda/exllama never mask"};
    if (planar)
        s.notes = {"plane widths 3=2+1, 5=4+1, 6=4+2, 7=4+2+1; zeros are v2 on disk"};
    s.locate = [planar](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e;
        e.tensor = "qweight";
        e.group = col / p.effectiveGroupSize();
        e.pieceCount = planar ? planarPieces(e.pieces, col, p.bits, row, p.N)
                              : streamPieces(e.pieces, col * uint64_t(p.bits), p.bits, row, p.N);
        e.slot = planar ? -1 : (32 % p.bits == 0 ? int(col % uint64_t(32 / p.bits)) : -1);
        e.scaleTensor = "scales";
        e.scaleIndex = e.group * p.N + row;
        e.zeroTensor = "qzeros";
        const uint64_t zrow = e.group * ceilDiv(p.N * uint64_t(p.bits), 32);
        e.zeroPieceCount = planar ? planarPieces(e.zeroPieces, row, p.bits, zrow, 1)
                                  : streamPieces(e.zeroPieces, row * uint64_t(p.bits), p.bits, zrow, 1);
        return e;
    };
    return s;
}

LayoutSpec awqGemm()
{
    LayoutSpec s;
    s.id = "awq-gemm";
    s.name = "AWQ GEMM (AutoAWQ version gemm)";
    s.bitWidths = {4};
    s.packAxis = PackAxis::Out;
    s.transposed = true;
    s.slotOrder.assign(kAwqPackOrder.begin(), kAwqPackOrder.end());
    s.zeroPoint = ZeroPointKind::Stored;
    s.formula = "W[n][k] = s[k/g][n] * (q[k][n] - z[k/g][n]); column 8c+j in slot AWQ_REVERSE_ORDER[j]";
    s.exactness = "float32 product, one RNE to F16 in the reference";
    s.tensors = {
        tensor(
            "qweight", "I32", "[K, N/8]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.K, p.N / 8};
            },
            "codes along N, AWQ slot order"),
        tensor(
            "qzeros", "I32", "[G, N/8]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.groups(), p.N / 8};
            },
            "zeros along N, AWQ slot order"),
        tensor(
            "scales", "F16", "[G, N]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.groups(), p.N};
            },
            "per-group scale"),
        tensor(
            "bias", "F16", "[N]", [](const LayoutParams& p) { return std::vector<uint64_t>{p.N}; }, "layer bias", true),
    };
    s.padding = "N must be a multiple of 8 and K of the group size (AutoAWQ); no padding exists";
    s.refuses = [](const LayoutParams& p) -> std::string {
        if (p.groupSize && p.K % p.groupSize != 0)
            return "the group size must divide K";
        if (p.N % 8 != 0)
            return "N must be a multiple of 8";
        return {};
    };
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e;
        e.tensor = "qweight";
        e.slot = kAwqSlotOf[row % 8];
        e.pieceCount = 1;
        e.pieces[0] = {col * (p.N / 8) + row / 8, uint8_t(4 * e.slot), 4};
        e.group = col / p.effectiveGroupSize();
        e.scaleTensor = "scales";
        e.scaleIndex = e.group * p.N + row;
        e.zeroTensor = "qzeros";
        e.zeroPieceCount = 1;
        e.zeroPieces[0] = {e.group * (p.N / 8) + row / 8, uint8_t(4 * e.slot), 4};
        return e;
    };
    return s;
}

LayoutSpec awqGemv()
{
    LayoutSpec s;
    s.id = "awq-gemv";
    s.name = "AWQ GEMV (AutoAWQ version gemv)";
    s.bitWidths = {4};
    s.packAxis = PackAxis::In;
    s.zeroPoint = ZeroPointKind::Stored;
    s.formula = "W[n][k] = s[n][k/g] * (q[n][k] - z[n][k/g])";
    s.exactness = "float32 product, one RNE to F16 in the reference";
    auto zw = [](const LayoutParams& p) { return awqGemvZeroWords(p.K, p.effectiveGroupSize()); };
    s.tensors = {
        tensor(
            "qweight", "I32", "[N, ceil(K/8)]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, ceilDiv(p.K, 8)};
            },
            "codes along K, natural slots"),
        tensor(
            "qzeros", "I32", "[N, Zw], Zw = roundup(ceil(G/8), m), m = 1 (g>=128), 2 (g=64), 4 (g=32)",
            [zw](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, zw(p)};
            },
            "zeros along the group index, zero-padded"),
        tensor(
            "scales", "F16", "[N, 8*Zw]",
            [zw](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, 8 * zw(p)};
            },
            "per-group scale; columns >= G are padding"),
    };
    s.padding = "zeros and scales are padded to 8*Zw groups";
    s.locate = [zw](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e;
        e.tensor = "qweight";
        e.slot = int(col % 8);
        e.pieceCount = 1;
        e.pieces[0] = {row * ceilDiv(p.K, 8) + col / 8, uint8_t(4 * (col % 8)), 4};
        e.group = col / p.effectiveGroupSize();
        e.scaleTensor = "scales";
        e.scaleIndex = row * 8 * zw(p) + e.group;
        e.zeroTensor = "qzeros";
        e.zeroPieceCount = 1;
        e.zeroPieces[0] = {row * zw(p) + e.group / 8, uint8_t(4 * (e.group % 8)), 4};
        return e;
    };
    return s;
}

LayoutSpec awqGemvFast()
{
    LayoutSpec s;
    s.id = "awq-gemv-fast";
    s.name = "AWQ GEMV_FAST (llm-awq v2 kernels)";
    s.bitWidths = {4};
    s.wordBits = 16;
    s.packAxis = PackAxis::Out;
    s.zeroPoint = ZeroPointKind::FloatBias;
    s.formula = "W[n][k] = fp16(fp16(q * s[k/g][n]) + qzeros[k/g][n]), qzeros = -s*z; "
                "int16 [n/4][p] nibble n%4, p = 32*(k/32) + 4*(k%8) + (k%32)/8";
    s.exactness = "two fp16 roundings (product, then sum), as the fp16 kernel computes";
    auto rows = [](const LayoutParams& p) { return 8 * awqGemvZeroWords(p.K, p.effectiveGroupSize()); };
    s.tensors = {
        tensor(
            "qweight", "I16", "[N/4, K]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N / 4, p.K};
            },
            "four output rows per int16, input channels interleaved in blocks of 32"),
        tensor(
            "scales", "F16", "[8*Zw, N]",
            [rows](const LayoutParams& p) {
                return std::vector<uint64_t>{rows(p), p.N};
            },
            "per-group scale, transposed, padded"),
        tensor(
            "qzeros", "F16", "[8*Zw, N]",
            [rows](const LayoutParams& p) {
                return std::vector<uint64_t>{rows(p), p.N};
            },
            "per-group bias -s*z (a float, not an integer zero)"),
    };
    s.padding = "N % 4 == 0, K % 32 == 0; scale and bias rows padded to 8*Zw";
    s.notes = {"channel mapping derived from the upstream reshape sequence, not from a real checkpoint"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e;
        e.tensor = "qweight";
        e.wordBits = 16;
        e.slot = int(row % 4);
        e.pieceCount = 1;
        e.pieces[0] = {(row / 4) * p.K + gemvFastPosition(col), uint8_t(4 * (row % 4)), 4};
        e.group = col / p.effectiveGroupSize();
        e.scaleTensor = "scales";
        e.scaleIndex = e.group * p.N + row;
        e.zeroTensor = "qzeros";
        e.zeroPieceCount = 1;
        e.zeroPieces[0] = {e.group * p.N + row, 0, 16};
        return e;
    };
    return s;
}

LayoutSpec marlin(bool awq)
{
    LayoutSpec s;
    s.id = awq ? "awq-marlin" : "gptq-marlin";
    s.name = awq ? "AWQ Marlin (AutoAWQ version marlin)" : "GPTQ Marlin (AutoGPTQ checkpoint_format marlin)";
    s.bitWidths = {4, 8};
    s.packAxis = PackAxis::Tile;
    s.signedness = CodeSignedness::Offset;
    s.zeroPoint = ZeroPointKind::Implicit;
    s.formula = "W[n][k] = s[k/g][n] * (u - 2^(b-1)); 16x16 tiles, mma B-fragment permutation, "
                "interleave 0,2,4,6,1,3,5,7 (4-bit) / 0,2,1,3 (8-bit)";
    s.exactness = "float32 product, one RNE to F16 in the reference";
    const std::string w = awq ? "qweight" : "B", sc = awq ? "scales" : "s";
    s.tensors = {
        tensor(
            w, "I32", "[K/16, N*b/2]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.K / 16, p.N * uint64_t(p.bits) / 2};
            },
            "codes in Marlin tile order"),
        tensor(
            sc, "F16", "[G, N]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.groups(), p.N};
            },
            "scales, permuted: 8x8 transposes in chunks of 64 (grouped) or the 32-chunk channel permutation"),
    };
    s.padding = "K % 16 == 0 and N % 64 == 0 (original Marlin: K % 128, N % 256); no padding exists";
    s.locate = [awq](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e;
        e.tensor = awq ? "qweight" : "B";
        const MarlinPos pos = marlinLocate(col, row, p.bits, p.N);
        e.slot = pos.slot;
        e.pieceCount = 1;
        e.pieces[0] = {pos.word, uint8_t(p.bits * pos.slot), uint8_t(p.bits)};
        e.group = col / p.effectiveGroupSize();
        e.scaleTensor = awq ? "scales" : "s";
        e.scaleIndex = marlinScaleIndex(e.group, row, p.N, p.groups());
        return e;
    };
    return s;
}

} // namespace

void registerGptqAwqLayouts(LayoutRegistry& r)
{
    r.add(gptq(true, false));
    r.add(gptq(false, false));
    r.add(gptq(false, true));
    r.add(awqGemm());
    r.add(awqGemv());
    r.add(awqGemvFast());
    r.add(marlin(false));
    r.add(marlin(true));
}

} // namespace qs
