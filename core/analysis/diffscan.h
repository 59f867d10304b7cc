#pragma once
// One pass over two slices of dequantized values for diff: the sums of a - b, |a - b|,
// (a - b)^2, a^2, b^2 and a*b, the largest |a - b| with its first index, and the counts of
// differing and non-finite elements, and the largest finite |b| (the automatic tolerance's
// scale). Element i of a call goes to lane i % 8; the AVX2 path
// gives the same bits as the scalar reference (same lanes, the same order within each lane,
// the lanes merged by DiffLanes::merge).
#include "base/simd.h"

#include <cstdint>

namespace qs {

struct DiffLanes {
    double sumSq[8] = {}, sumAbs[8] = {}, sumSigned[8] = {}, aSq[8] = {}, bSq[8] = {}, dot[8] = {};
    double maxAbs[8] = {};
    uint64_t maxAt[8] = {}; // the first index of each lane's maxAbs (0 while it is 0)
    double maxAbsB[8] = {}; // the largest |b| of the lane's finite b
    uint64_t nonFinite = 0, differing = 0;
};

struct DiffSums {
    double sumSq = 0, sumAbs = 0, sumSigned = 0, aSq = 0, bSq = 0, dot = 0, maxAbs = 0, maxAbsB = 0;
    uint64_t maxAt = 0, nonFinite = 0, differing = 0;
};
// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)); the largest maxAbs, the first index on a tie.
DiffSums mergeLanes(const DiffLanes& lanes);

// Adds a[i] - b[i] for i in [0, n) to the lanes; `base` is the index of element 0 (for maxAt).
// A non-finite difference counts as non-finite (unless a == b, equal infinities) and adds
// nothing to the sums.
void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& lanes);
// Elements [from, n), in the reference order (the AVX2 path's tail).
void scanDiffRange(const float* a, const float* b, uint64_t from, uint64_t n, uint64_t base, DiffLanes& lanes);
namespace avx2 {
void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& lanes);
} // namespace avx2
namespace avx512 {
void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& lanes);
} // namespace avx512
// The scan of `path` (the best one it has at or below it).
void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& lanes, SimdPath path);

} // namespace qs
