#pragma once
// One pass over a slice of dequantized values for weightHistograms: count-free moments and
// the bfloat16-bucket histogram. Element i of a call goes to lane i % 8; finite values only
// (NaN and Inf are skipped). The AVX2 path gives the same bits as the scalar reference: the
// same lanes, the same order within each lane, the lanes combined by combine().
#include <cstdint>

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
// Adds v[0..n) to the lanes and ++keyHist[valueKey(bits)] for every element (kKeyCount
// counters; NaN and Inf included, under their own keys).
void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint64_t* keyHist);
// Elements [from, n) of v in the reference order: the scalar path is scanValueRange(v, 0, n),
// the AVX2 path its tail after the whole groups of eight.
void scanValueRange(const float* v, uint64_t from, uint64_t n, ValueLanes& lanes, uint64_t* keyHist);
namespace avx2 {
void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint64_t* keyHist);
} // namespace avx2

} // namespace qs
