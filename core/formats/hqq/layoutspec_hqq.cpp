// Layout spec of HQQ (mobiusml/hqq as transformers serializes it; spec safetensors-quant.md
// B.9). The [N, K] weight is viewed as [N*K/g, g] (axis 1); packing splits the FIRST dim of
// that view into hqqParts (halves for 4 bits, quarters, eighths, tenths in int32 for 3 bits),
// so element e = n*K + k sits in view row r = e / g, and view rows r and r + R/parts share a
// byte. locate() uses the arithmetic of formats/hqq/hqq.h.
#include "formats/layoutspec_util.h"
#include "formats/hqq/hqq.h"

namespace qs {

namespace {

using layout::blobTensor;
using layout::tensor;

uint64_t hqqGroupOf(const LayoutParams& p)
{
    return p.groupSize ? p.groupSize : 64;
}

uint64_t viewRows(const LayoutParams& p)
{
    return p.N * p.K / hqqGroupOf(p);
}

unsigned hqqParts(int bits)
{
    return bits == 4 ? 2 : bits == 2 ? 4 : bits == 1 ? 8 : bits == 3 ? 10 : 1;
}

// Packed rows: R / hqqParts (3 bits: rows padded to a multiple of 10).
uint64_t step(const LayoutParams& p)
{
    return hqqParts(p.bits) == 10 ? ceilDiv(viewRows(p), 10) : viewRows(p) / hqqParts(p.bits);
}

LayoutTensor hqqScalarTensor(const char* role, const char* dtype, const char* meaning)
{
    return tensor(
        role, dtype, "[] or [1]", [](const LayoutParams&) { return std::vector<uint64_t>{}; }, meaning, true);
}

LayoutSpec hqq()
{
    LayoutSpec s;
    s.id = "hqq";
    s.name = "HQQ (mobiusml/hqq, transformers serialization)";
    s.bitWidths = {1, 2, 3, 4, 5, 6, 8};
    s.wordBits = 8;
    s.packAxis = PackAxis::Block;
    s.signedness = CodeSignedness::Unsigned;
    s.zeroPoint = ZeroPointKind::Stored;
    s.formula = "W[e] = (Q[r][c] - zero[r]) * scale[r], r = e / g, c = e % g, e = n*K + k (axis 1); "
                "4-bit byte[i][c] = Q[i][c] << 4 | Q[i + R/2][c]";
    s.exactness = "two roundings in the compute dtype (subtract, then multiply), as torch computes half types";
    s.tensors = {
        tensor(
            "W_q", "U8",
            "[R/parts, g], R = N*K/g, parts = 2 (4-bit), 4 (2-bit), 8 (1-bit), 1 (5/6/8-bit); "
            "3-bit: I32 [ceil(R/10), g]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{step(p), hqqGroupOf(p)};
            },
            "codes of view rows r, r + R/parts, ... in one byte, the first part in the high bits"),
        tensor(
            "scale", "F16", "[R, 1]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{viewRows(p), 1};
            },
            "per-view-row multiplier (HQQ stores it already inverted)"),
        tensor(
            "zero", "F16", "[R, 1]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{viewRows(p), 1};
            },
            "per-view-row zero, real-valued unless round_zero"),
        tensor(
            "shape", "I64", "[2]", [](const LayoutParams&) { return std::vector<uint64_t>{2}; }, "the original [N, K]",
            true),
        hqqScalarTensor("nbits", "I32", "code width"),
        hqqScalarTensor("group_size", "I32", "g"),
        hqqScalarTensor("axis", "I32", "1 (rows of g) or 0 (columns of g)"),
        blobTensor("packing", "U8", "[len]", "ASCII, e.g. 4bit_u8 or 3bit_32", true),
        blobTensor("compute_dtype", "U8", "[len]", "ASCII torch dtype the arithmetic rounds to", true),
    };
    s.padding = "N*K must be a multiple of g and R of parts; 3-bit pads R to a multiple of 10 with zero rows";
    s.notes = {"locate() describes axis 1 (the transformers default); with axis 0 the view is [g, N*K/g] and "
               "scale/zero index the view column",
               "3-bit: ten parts in an int32 at shifts 27, 24, ..., 0; 5/6/8-bit: one code per byte, the whole byte "
               "is the value the reference subtracts the zero from",
               "an element's zero is zero[scaleIndex] (a float, not bit fields)",
               "with view_as_float the packed bytes are labelled with the compute dtype; the bits are the same"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        const uint64_t g = hqqGroupOf(p), e0 = row * p.K + col, r = e0 / g, c = e0 % g;
        const unsigned n = hqqParts(p.bits);
        const uint64_t st = step(p), part = r / st, i = (r % st) * g + c;
        ElementLocation e;
        e.tensor = "W_q";
        e.wordBits = n == 10 ? 32 : 8;
        e.slot = int(part);
        e.pieceCount = 1;
        if (n == 10)
            e.pieces[0] = {i, uint8_t(27 - 3 * part), 3};
        else if (n == 1)
            e.pieces[0] = {i, 0, 8}; // 5/6/8-bit codes are whole bytes, read whole by the reference
        else
            e.pieces[0] = {i, uint8_t(8 - uint64_t(p.bits) * (part + 1)), uint8_t(p.bits)};
        e.group = r;
        e.scaleTensor = "scale";
        e.scaleIndex = r;
        e.zeroTensor = "zero";
        return e;
    };
    return s;
}

} // namespace

void registerHqqLayouts(LayoutRegistry& r)
{
    r.add(hqq());
}

} // namespace qs
