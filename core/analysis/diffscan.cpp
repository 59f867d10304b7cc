#include "analysis/diffscan.h"
#include "base/lanesum.h"

#include <algorithm>
#include <cmath>

namespace qs {

DiffSums mergeLanes(const DiffLanes& L)
{
    DiffSums s;
    s.sumSq = mergeLaneSums(L.sumSq);
    s.sumAbs = mergeLaneSums(L.sumAbs);
    s.sumSigned = mergeLaneSums(L.sumSigned);
    s.aSq = mergeLaneSums(L.aSq);
    s.bSq = mergeLaneSums(L.bSq);
    s.dot = mergeLaneSums(L.dot);
    for (int l = 0; l < 8; ++l)
        if (L.maxAbs[l] > s.maxAbs || (L.maxAbs[l] == s.maxAbs && L.maxAbs[l] > 0 && L.maxAt[l] < s.maxAt)) {
            s.maxAbs = L.maxAbs[l];
            s.maxAt = L.maxAt[l];
        }
    for (const double m : L.maxAbsB)
        s.maxAbsB = std::max(s.maxAbsB, m);
    s.nonFinite = L.nonFinite;
    s.differing = L.differing;
    return s;
}

void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& lanes)
{
    scanDiffRange(a, b, 0, n, base, lanes);
}

void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& lanes, SimdPath path)
{
    using ScanFn = void (*)(const float*, const float*, uint64_t, uint64_t, DiffLanes&);
    const ScanFn scan = simdKernel(path, SimdKernels<ScanFn>{QS_X86(avx512::scanDiff), QS_X86(avx2::scanDiff)});
    (scan ? scan : static_cast<ScanFn>(scanDiff))(a, b, n, base, lanes);
}

void scanDiffRange(const float* a, const float* b, uint64_t from, uint64_t n, uint64_t base, DiffLanes& L)
{
    for (uint64_t i = from; i < n; ++i) {
        const double xa = a[i], yb = b[i], e = xa - yb;
        const size_t l = size_t(i % 8);
        if (std::isfinite(yb))
            L.maxAbsB[l] = std::max(L.maxAbsB[l], std::fabs(yb));
        L.differing += !(xa == yb);
        if (!std::isfinite(e)) {
            L.nonFinite += !(xa == yb); // equal infinities are equal
            continue;
        }
        const double ae = std::fabs(e);
        L.sumSq[l] += e * e;
        L.sumAbs[l] += ae;
        L.sumSigned[l] += e;
        L.aSq[l] += xa * xa;
        L.bSq[l] += yb * yb;
        L.dot[l] += xa * yb;
        if (ae > L.maxAbs[l]) {
            L.maxAbs[l] = ae;
            L.maxAt[l] = base + i;
        }
    }
}

} // namespace qs
