#pragma once
// weightHistograms in the code domain: a group of a quantized block (ggml_codes.h) holds at
// most `codes` distinct values, so each group's codes are counted and each code's value is
// taken once, with its count. No float per element is written. The cost that remains is per
// code, not per element: 16 key-counter increments per 32 weights (a scalar read-modify-write
// each, through a store/reload of the indices), the bit-plane counts, and the double products
// of the sums. On AVX-512 (Zen 5, Q4_K in cache) a group takes about 29 cycles: the
// increments alone about 16 (one per cycle, the floor of an exact histogram: 0.5 cycle per
// weight, where the AVX-512 dequantization takes 0.13 in cache and about 0.3 reading the
// weights from memory), the vector work alone about 23. The value-key histogram, the
// caller's-range histogram, min and max come out identical to dequantizing and scanning every
// element (valuescan.h); the sums are formed differently (CodeTally). The AVX2 and AVX-512
// paths give the same bits as the scalar reference.
#include "analysis/valuescan.h"
#include "base/simd.h"

#include <algorithm>
#include <cstdint>

namespace qs {

// A histogram over [lo, hi] in n bins: counts[0 .. n) the bins, counts[n] the values below
// lo (-Inf included), counts[n + 1] those above hi; NaN is not counted. The bin of v is
// v * scale + offset with offset = (0 - lo) / (hi - lo) * n formed once, so 0 lands exactly
// at its position (in the bin that contains it: [0, w) when 0 is an edge, as for [-m, m]
// with an even n) rather than one rounding of (v - lo) * scale below it.
struct RangeBins {
    double lo = 0, hi = 0, scale = 0, offset = 0;
    size_t n = 0;
    static RangeBins over(double lo, double hi, size_t n)
    {
        RangeBins r;
        r.lo = lo;
        r.hi = hi;
        r.n = n;
        r.scale = double(n) / (hi - lo);
        r.offset = (0.0 - lo) / (hi - lo) * double(n);
        return r;
    }
    bool on() const { return n > 0; }
    size_t bin(double v) const
    {
        const double pos = v * scale + offset;
        return pos <= 0 ? 0 : std::min(n - 1, size_t(pos));
    }
    void add(uint64_t* counts, double v, uint64_t count = 1) const
    {
        if (v < lo)
            counts[n] += count;
        else if (v > hi)
            counts[n + 1] += count;
        else if (v == v)
            counts[bin(v)] += count;
    }
};

// A float's bits mapped so that unsigned order is value order, with -0 below +0 (valueKey is
// its top 16 bits).
inline uint32_t orderedBits(uint32_t bits)
{
    return bits ^ (uint32_t(int32_t(bits) >> 31) | 0x80000000u);
}
inline uint32_t unorderedBits(uint32_t o)
{
    return o & 0x80000000u ? o ^ 0x80000000u : ~o;
}

// Sums and extremes of the finite values. Summation order: the product count * value of
// code c (exact in double: a count <= 256 times a float) goes to lane c % 8, and
// count * value^2 (that product times the value, rounded once) to the same lane of sumSq; a
// lane takes its codes in ascending order, group after group through the whole call, and
// the 8 lanes are merged by a pairwise tree (total()). A lane's error bound is that of a
// running sum over its terms.
// min and max compare orderedBits (so -0 < +0), which makes them independent of the order
// and the chunking; the element-wise scan keeps the first of equal values instead, so the
// two can differ in the sign of a zero extreme only.
struct CodeTally {
    static constexpr int kLanes = 8;
    double sum[kLanes] = {}, sumSq[kLanes] = {};
    uint32_t lo = 0xFFFFFFFFu, hi = 0; // orderedBits of the extremes; lo > hi: none yet
    static double tree(const double* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }
    double total() const { return tree(sum); }
    double totalSq() const { return tree(sumSq); }
};

// `nblocks` consecutive blocks of a ggml type that ggmlCodeShape accepts, group by group:
// each code present adds its count to split[valueKey(value) * kKeySplit + code % kKeySplit]
// (NaN and Inf too, under their own keys) and to the range bins when given, and its finite
// value to the tally.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split,
                     const RangeBins* range, uint64_t* rangeCounts);
// The types weightHistograms counts in the code domain: those with an AVX2 tally below (the
// scalar tally is the reference, slower than dequantizing with AVX2 and scanning; a type is
// switched on every path or none, so that all give the same bits).
bool codeDomainStats(int ggmlType);

namespace avx2 {
// The codeDomainStats types without a range: codes counted from bit planes, values formed
// 16 at a time; a block whose scales are not finite through the reference.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split);
} // namespace avx2
namespace avx512 {
// The same, 16 codes to a vector.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split);
} // namespace avx512

// The tally of `path` (the best one it has at or below it); with a range, or a type the SIMD
// tallies do not cover, the reference.
void tallyGgmlBlocks(int ggmlType, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split,
                     const RangeBins* range, uint64_t* rangeCounts, SimdPath path);

} // namespace qs
