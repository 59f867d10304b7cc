// Layout specs of optimum-quanto's weight qtypes (formats/quanto/quanto.h): qint2 and qint4
// packed along the first axis of the [R, C] view (C = the group size g, or K ungrouped), qint8
// and qfloat8 one byte per element. locate() uses the arithmetic of Quanto::code().
#include "formats/layoutspec_util.h"
#include "formats/quanto/quanto.h"

namespace qs {

namespace {

using layout::tensor;

// The view's row length: the group size, or K for an ungrouped weight.
uint64_t viewColsOf(const LayoutParams& p)
{
    return p.effectiveGroupSize();
}

uint64_t viewRowsOf(const LayoutParams& p)
{
    return p.N * p.K / viewColsOf(p);
}

LayoutTensor quantoScalar(const char* role, const char* meaning)
{
    return tensor(
        role, "BF16", "[]", [](const LayoutParams&) { return std::vector<uint64_t>{}; }, meaning, true);
}

LayoutSpec qbits(int bits)
{
    const unsigned parts = 8 / unsigned(bits);
    LayoutSpec s;
    s.id = std::string(quantoFormatId(Quanto::Kind::QBits, bits));
    s.name = "optimum-quanto qint" + std::to_string(bits);
    s.bitWidths = {bits};
    s.wordBits = 8;
    s.packAxis = PackAxis::Block;
    s.signedness = CodeSignedness::Unsigned;
    s.zeroPoint = ZeroPointKind::FloatBias;
    s.formula = "W[e] = scale[r] * Q[r][c] - shift[r], r = e / C, c = e % C, e = n*K + k, C = g (or K); byte[i][c] = "
        + std::string(bits == 4 ? "Q[i][c] | Q[i + P][c] << 4" : "Q[i][c] | Q[i + P][c] << 2 | ... | Q[i + 3P][c] << 6")
        + ", P = ceil(R / " + std::to_string(parts) + ")";
    s.exactness = "two RNE in the scale dtype (multiply, then subtract the shift), as torch computes "
                  "QBitsDequantizer; an integer shift is subtracted from the code first (int8), then one multiply";
    s.tensors = {
        tensor(
            "weight._data._data", "U8", "[ceil(R/" + std::to_string(parts) + "), C], R = N*K/C",
            [parts](const LayoutParams& p) {
                return std::vector<uint64_t>{ceilDiv(viewRowsOf(p), parts), viewColsOf(p)};
            },
            "codes of view rows i, i + P, ... in one byte, the first in the low bits (PackedTensor)"),
        tensor(
            "weight._scale", "BF16", "[R, 1]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{viewRowsOf(p), 1};
            },
            "per-view-row multiplier, in the model dtype"),
        tensor(
            "weight._shift", "BF16", "[R, 1]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{viewRowsOf(p), 1};
            },
            "per-view-row float shift subtracted after scaling (U8 with zeropoint=True: subtracted from the code)"),
        quantoScalar("input_scale", "activation scale (ones unless activations are quantized)"),
        quantoScalar("output_scale", "activation scale (ones unless activations are quantized)"),
    };
    s.padding = "a weight with more than 128 inputs is grouped: g = 128, 96, 64 or 32, the first that divides K; "
                "the last byte row's fields past R are zero";
    s.refuses = [](const LayoutParams& p) {
        return p.groupSize && p.K % p.groupSize ? std::string("the group size must divide K") : std::string();
    };
    s.notes = {"the file does not store the logical shape: a grouped weight's [N, K] is known only from its "
               "module (a bias gives N); upstream's ungroup() is a plain reshape of the [R, g] view",
               "an element's zero is the float shift[scaleIndex], not bit fields"};
    s.locate = [bits, parts](const LayoutParams& p, uint64_t row, uint64_t col) {
        const uint64_t C = viewColsOf(p), e0 = row * p.K + col, r = e0 / C, c = e0 % C;
        const uint64_t P = ceilDiv(viewRowsOf(p), parts), part = r / P;
        ElementLocation e;
        e.tensor = "weight._data._data";
        e.wordBits = 8;
        e.slot = int(part);
        e.pieceCount = 1;
        e.pieces[0] = {(r - part * P) * C + c, uint8_t(uint64_t(bits) * part), uint8_t(bits)};
        e.group = col / C;
        e.scaleTensor = "weight._scale";
        e.scaleIndex = r;
        e.zeroTensor = "weight._shift";
        return e;
    };
    s.elementsIn = [parts](const LayoutParams& p, uint64_t word) {
        const uint64_t C = viewColsOf(p), R = viewRowsOf(p), P = ceilDiv(R, parts), i = word / C, c = word % C;
        std::vector<std::pair<uint64_t, uint64_t>> out;
        for (uint64_t part = 0; part < parts && i + part * P < R; ++part) {
            const uint64_t e0 = (i + part * P) * C + c;
            out.emplace_back(e0 / p.K, e0 % p.K);
        }
        return out;
    };
    return s;
}

LayoutSpec qbytes(bool fp8)
{
    LayoutSpec s;
    s.id = std::string(quantoFormatId(fp8 ? Quanto::Kind::QFloat8 : Quanto::Kind::QInt8, 8));
    s.name = fp8 ? "optimum-quanto qfloat8" : "optimum-quanto qint8";
    s.bitWidths = {8};
    s.wordBits = 8;
    s.packAxis = PackAxis::None;
    s.signedness = fp8 ? CodeSignedness::Float : CodeSignedness::TwosComplement;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = fp8 ? "W[n][k] = scale[n] * float(Q[n][k])" : "W[n][k] = scale[n] * Q[n][k]";
    s.exactness = fp8 ? "the float8 value is exact in the scale dtype; one RNE of the product to it"
                      : "the int8 code is exact in the scale dtype; one RNE of the product to it";
    s.tensors = {
        tensor(
            "weight._data", fp8 ? "F8_E4M3" : "I8", "[N, K]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, p.K};
            },
            fp8 ? "float8 values (E4M3FN; E5M2 and E4M3FNUZ for their qtypes)" : "signed int8 codes"),
        tensor(
            "weight._scale", "BF16", "[N, 1]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{p.N, 1};
            },
            "per-row multiplier in the model dtype (one value: per tensor)"),
        quantoScalar("input_scale", "activation scale (ones unless activations are quantized)"),
        quantoScalar("output_scale", "activation scale (ones unless activations are quantized)"),
    };
    s.padding = "none";
    s.notes = {"weights are never grouped: one scale per output row (absmax / 127, or / the float8 maximum)"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        ElementLocation e = layout::plainElement("weight._data", 8, p, row, col);
        e.scaleTensor = "weight._scale";
        e.scaleIndex = row;
        return e;
    };
    return s;
}

} // namespace

void registerQuantoLayouts(LayoutRegistry& r)
{
    r.add(qbits(2));
    r.add(qbits(4));
    r.add(qbytes(false));
    r.add(qbytes(true));
}

} // namespace qs
