#pragma once
// One pass over a slice of dequantized values for weightHistograms: count-free moments and
// the bfloat16-bucket histogram; and the error scan of compareWeight (scanError, below). Element i of a call goes to
// lane i % 8; finite values only (NaN and Inf are skipped). The AVX2 and AVX-512 paths give the same bits as the scalar
// reference: the same lanes, the same order within each lane, the lanes combined by combine().
#include "base/simd.h"
#include "base/valuekeys.h"

#include <cstdint>
#include <vector>

namespace qs {

// Adds v[0..n) to the lanes and counts valueKey(bits) of every element in `split`
// (kKeyCount * kKeySplit counters; NaN and Inf included, under their own keys).
void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint32_t* split);
// Elements [from, n) of v in the reference order: the scalar path is scanValueRange(v, 0, n),
// the AVX2 path its tail after the whole groups of eight.
void scanValueRange(const float* v, uint64_t from, uint64_t n, ValueLanes& lanes, uint32_t* split);
namespace avx2 {
void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint32_t* split);
} // namespace avx2
namespace avx512 {
void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint32_t* split);
} // namespace avx512
// The scan of `path` (the best one it has at or below it).
void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint32_t* split, SimdPath path);

// The extremes of the finite values of v[0..n), which an approximate weightHistograms takes
// from every row while it samples the rest: lo and hi as orderedBits (base/valuekeys.h: -0 below
// +0, so the same whatever the order, chunks and path), lo > hi while there are none. The
// fast paths take a float min and max per vector, a fraction of the dequantization feeding them.
void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi);
namespace avx2 {
void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi);
} // namespace avx2
namespace avx512 {
void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi);
} // namespace avx512
void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi, SimdPath path);
// The fast paths' end: l and h are the float min and max of v[0..from) (NaN passed over,
// infinities not); adds [from, n) and folds them into lo and hi, or hands all of v to the
// reference when an extreme is zero (its sign depends on the order) or infinite.
void finishMinMax(const float* v, uint64_t from, uint64_t n, float l, float h, uint32_t& lo, uint32_t& hi);

// The error scan of the statistics against a reference, over one span (a row's group of
// columns, or a whole row): e_i = double(q_i) - double(r_i) for i in [0, n), element i in
// lane i % 8, each lane's sums in element order, the lanes merged as
// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)); the largest |e| (a NaN is passed over,
// as std::max(m, NaN) keeps m); err[i] = float(e_i). NaN and Inf reach the sums as they are.
// The AVX2 path gives the same bits.
struct ErrorSums {
    double sumSq = 0, sumAbs = 0, sumSigned = 0, refSq = 0, maxAbs = 0;
};
struct ErrorLanes {
    double sumSq[8] = {}, sumAbs[8] = {}, sumSigned[8] = {}, refSq[8] = {}, maxAbs[8] = {};
    ErrorSums merge() const;
};
ErrorSums scanError(const float* q, const float* r, uint64_t n, float* err);
// Elements [from, n) in the reference order (the AVX2 path's tail).
void scanErrorRange(const float* q, const float* r, uint64_t from, uint64_t n, float* err, ErrorLanes& lanes);

// The coarse |error| key for exact percentiles: the top 12 bits below the sign of |x| (8
// exponent and 4 mantissa bits), which order non-negative floats as their values; keys from
// kCoarseNonFinite up hold Inf and NaN.
inline constexpr uint32_t kCoarseKeys = 4096, kCoarseNonFinite = 0x7F800000u >> 19;
inline uint32_t coarseKey(uint32_t bits)
{
    return (bits & 0x7FFFFFFFu) >> 19;
}
// ++counts[coarseKey(e_i) * kKeySplit + i % kKeySplit] for the floats e[0..n).
void countCoarse(const float* e, uint64_t n, uint32_t* counts);

namespace avx2 {
ErrorSums scanError(const float* q, const float* r, uint64_t n, float* err);
void countCoarse(const float* e, uint64_t n, uint32_t* counts);
} // namespace avx2
// The scan and the count of `path` (the best one they have at or below it).
ErrorSums scanError(const float* q, const float* r, uint64_t n, float* err, SimdPath path);
void countCoarse(const float* e, uint64_t n, uint32_t* counts, SimdPath path);

} // namespace qs
