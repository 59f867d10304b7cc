#include "formats/aqlm/aqlm.h"

#include "base/intmath.h"

#include <bit>
#include <string>

namespace qs {

namespace {

uint64_t aqlmElementBytes(DType t)
{
    return dtypeBits(t) / 8;
}

std::string aqlmDims(const TensorEntry& e)
{
    std::string s;
    for (uint64_t d : e.shape)
        s += (s.empty() ? "" : ", ") + std::to_string(d);
    return "[" + s + "]";
}

// The code tensor's first stored value outside [-2^(bits-1), 2^bits) (what aqlm's pack_int_data
// writes, and the unsigned indices that name the same entries); -1 when every code is in range.
int64_t firstAqlmCodeOutOfRange(const Aqlm& s)
{
    if (s.codeType == DType::I8 && s.bits == 8)
        return -1; // every int8 is one of the 256 entries
    if (s.codeType == DType::I16 && s.bits == 16)
        return -1;
    const int64_t lo = -(int64_t(1) << (s.bits - 1)), hi = int64_t(1) << s.bits;
    const uint64_t n = s.codes.size() / aqlmElementBytes(s.codeType);
    for (uint64_t e = 0; e < n; ++e) {
        const int64_t v = readInt(s.codes, s.codeType, e);
        if (v < lo || v >= hi)
            return int64_t(e);
    }
    return -1;
}

} // namespace

Aqlm aqlmState(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string what = "weight '" + lw.name + "'";
    const TensorEntry& c = w.entry("codes");
    const TensorEntry& b = w.entry("codebooks");
    const TensorEntry& sc = w.entry("scales");
    const std::string cn(c.name), bn(b.name), sn(sc.name);
    Aqlm s;
    if (c.shape.size() != 3)
        failWeight(lw, "codes '" + cn + "' is " + aqlmDims(c) + ", not [N/out_group, K/in_group, num_codebooks]");
    if (b.shape.size() != 4)
        failWeight(lw,
                   "codebooks '" + bn + "' is " + aqlmDims(b)
                       + ", not [num_codebooks, codebook_size, out_group, in_group]");
    if (c.dtype != DType::I8 && c.dtype != DType::I16 && c.dtype != DType::I32)
        failWeight(lw, "codes '" + cn + "' holds " + std::string(dtypeName(c.dtype)) + ", not I8, I16 or I32");
    if (b.dtype != DType::F16 && b.dtype != DType::BF16 && b.dtype != DType::F32)
        failWeight(lw, "codebooks '" + bn + "' holds " + std::string(dtypeName(b.dtype)) + ", not F16, BF16 or F32");
    if (sc.dtype != b.dtype)
        failWeight(lw,
                   "scales '" + sn + "' holds " + std::string(dtypeName(sc.dtype)) + ", the codebooks "
                       + std::string(dtypeName(b.dtype)));
    const uint64_t M = b.shape[0], size = b.shape[1], og = b.shape[2], ig = b.shape[3];
    if (M == 0 || M > 64 || og == 0 || og > 4096 || ig == 0 || ig > 4096)
        failWeight(lw, "codebooks '" + bn + "' is " + aqlmDims(b) + ": 1..64 codebooks of 1..4096 x 1..4096 groups");
    if (size < 2 || size > (uint64_t(1) << 16) || (size & (size - 1)))
        failWeight(lw,
                   "codebooks '" + bn + "' holds " + std::to_string(size)
                       + " entries per codebook, not a power of two from 2 to 65536");
    if (c.shape[2] != M)
        failWeight(lw,
                   "codes '" + cn + "' is " + aqlmDims(c) + ": " + std::to_string(c.shape[2])
                       + " codes per group, but codebooks '" + bn + "' holds " + std::to_string(M) + " codebooks");
    s.codebooks = uint32_t(M);
    s.outGroup = uint32_t(og);
    s.inGroup = uint32_t(ig);
    s.bits = std::countr_zero(size);
    s.codeType = c.dtype;
    s.dtype = b.dtype;
    if (dtypeBits(c.dtype) < unsigned(s.bits))
        failWeight(lw,
                   "codes '" + cn + "' holds " + std::string(dtypeName(c.dtype)) + ", too narrow for "
                       + std::to_string(s.bits) + "-bit indices");
    s.outGroups = c.shape[0];
    s.inGroups = c.shape[1];
    s.rows = checkedMul(s.outGroups, og, what);
    s.cols = checkedMul(s.inGroups, ig, what);
    if (lw.shape.size() >= 2 && (lw.outFeatures() != s.rows || lw.inFeatures() != s.cols))
        failWeight(lw,
                   "codes " + aqlmDims(c) + " with codebooks " + aqlmDims(b) + " make [" + std::to_string(s.rows) + ", "
                       + std::to_string(s.cols) + "], the weight is [" + std::to_string(lw.outFeatures()) + ", "
                       + std::to_string(lw.inFeatures()) + "]");
    s.codes = w.bytes("codes");
    s.book = w.bytes("codebooks");
    const uint64_t codeCount = checkedMul(checkedMul(s.outGroups, s.inGroups, what), M, what);
    if (s.codes.size() != checkedMul(codeCount, aqlmElementBytes(c.dtype), what))
        failWeight(lw,
                   "codes '" + cn + "' holds " + std::to_string(s.codes.size()) + " bytes, its shape needs "
                       + std::to_string(codeCount * aqlmElementBytes(c.dtype)));
    const uint64_t bookValues = checkedMul(checkedMul(M, size, what), og * ig, what);
    if (s.book.size() != checkedMul(bookValues, aqlmElementBytes(b.dtype), what))
        failWeight(lw,
                   "codebooks '" + bn + "' holds " + std::to_string(s.book.size()) + " bytes, its shape needs "
                       + std::to_string(bookValues * aqlmElementBytes(b.dtype)));
    s.scales = FloatView(w.ckpt.bytes(sc), sc.dtype, what + " tensor '" + sn + "'");
    // [N/og, 1, 1, 1]: upstream broadcasts it over [N/og, K/ig, og, ig], so one value per output group.
    if (sc.shape.empty() || sc.shape[0] != s.outGroups || s.scales.size() != s.outGroups)
        failWeight(lw,
                   "scales '" + sn + "' is " + aqlmDims(sc) + ": " + std::to_string(s.scales.size()) + " values for "
                       + std::to_string(s.outGroups) + " output groups");
    if (const int64_t e = firstAqlmCodeOutOfRange(s); e >= 0) {
        const uint64_t u = uint64_t(e);
        failWeight(lw,
                   "codes '" + cn + "' [" + std::to_string(u / M / s.inGroups) + ", "
                       + std::to_string(u / M % s.inGroups) + ", " + std::to_string(u % M) + "] holds "
                       + std::to_string(readInt(s.codes, s.codeType, u)) + ", outside the " + std::to_string(size)
                       + "-entry codebook (stored from -" + std::to_string(size / 2) + " to " + std::to_string(size - 1)
                       + ")");
    }
    return s;
}

void aqlmRowsScalar(const Aqlm& s, uint64_t r0, uint64_t r1, float* out)
{
    const FloatView book(s.book, s.dtype, "codebooks");
    for (uint64_t n = r0; n < r1; ++n) {
        const uint64_t g = n / s.outGroup;
        const uint32_t r = uint32_t(n % s.outGroup);
        const float scale = s.scales.at(g);
        for (uint64_t i = 0; i < s.inGroups; ++i)
            for (uint32_t c = 0; c < s.inGroup; ++c) {
                float sum = 0.0f; // embedding_bag's zeroed float32 accumulator
                for (uint32_t m = 0; m < s.codebooks; ++m)
                    sum += book.at(s.entry(m, s.index(g, i, m), r) + c);
                *out++ = roundToDtype(roundToDtype(sum, s.dtype) * scale, s.dtype);
            }
    }
}

void dequantAqlmRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<Aqlm, RowSpan::Rows>(
        w, rowBegin, rowEnd, out, aqlmState, aqlmRowsScalar,
        simdKernel(path, SimdKernels<AqlmRowsFn>{QS_X86(aqlmRowsAvx512), QS_X86(aqlmRowsAvx2)}));
}

} // namespace qs
