#pragma once
// What the value scans (analysis/valuescan.h) and a family's code-domain tallies
// (formats/ggml/codestats.h, through the row's weightTally) both fill: the per-lane sums and
// extremes, the value-key histogram, the caller's range bins and the code tally. Here, below both, so that a family's
// tally needs nothing of analysis/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace qs {

struct ValueLanes {
    double sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    double sumSq[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    float lo[8], hi[8];
    ValueLanes();
    // ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)); min and max over the lanes.
    void combine(double& sumOut, double& sumSqOut, float& loOut, float& hiOut) const;
};

// The order-preserving 16-bit key of a float: its top 16 bits with every bit of a negative
// flipped and the sign bit of a positive set (so keys sort as the values do).
inline uint32_t valueKey(uint32_t bits)
{
    const uint32_t flip = uint32_t(int32_t(bits) >> 31) | 0x80000000u;
    return (bits ^ flip) >> 16;
}

inline constexpr uint64_t kKeyCount = 65536;
// A key histogram as the scans fill it: kKeySplit interleaved 32-bit copies of every key's
// counter (element i of a call counts in copy i % kKeySplit, at key * kKeySplit + copy), so a
// run of equal keys, common in dequantized data, does not wait on its own store; the copies
// are folded into 64-bit totals before any could overflow.
// The one read-modify-write per element is the cost floor (about one per cycle on Zen 5, twice
// the Q4_K dequantization per element). The AVX-512 scan is at it: about 16.5 cycles per 16
// values in cache, its work without the increments 10.5; the AVX-512 dequantization of Q8_0
// takes about 0.1 cycle per element in cache, 0.6 reading the weights from memory, so stats
// of the element-scanned types costs at least 1.6x it even when the scan hides wholly behind
// the memory reads (about 10x in cache). Dequantized k-quants, whose values repeat within a
// block (equal keys four elements apart then land in the same counter copy), take about 1.6
// cycles per element on the AVX2 and AVX-512 paths (distinct floats 1.1). Measured without
// gain: 8 or 16 copies, 16-bit counters, a table over a window of exponents (the keys a weight
// touches already fit in L1/L2). Counted, not built: de-duplicating the keys of 32 values in
// registers takes more vector operations than the increments it saves.
inline constexpr uint64_t kKeySplit = 4;
struct KeyCounts {
    std::vector<uint32_t> split; // kKeyCount * kKeySplit
    std::vector<uint64_t> totals; // kKeyCount; complete after flush()
    uint64_t pending = 0; // elements counted in `split` since the last flush
    KeyCounts();
    // Call before scanning n more elements: flushes when a copy could pass 2^32 - 1.
    void makeRoom(uint64_t n);
    void flush();
};

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

} // namespace qs
