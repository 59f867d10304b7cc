#include "analysis/valuescan.h"
#include "base/lanesum.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace qs {

void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint32_t* split)
{
    scanValueRange(v, 0, n, lanes, split);
}

void scanValues(const float* v, uint64_t n, ValueLanes& lanes, uint32_t* split, SimdPath path)
{
    using ScanFn = void (*)(const float*, uint64_t, ValueLanes&, uint32_t*);
    const ScanFn scan = simdKernel(path, SimdKernels<ScanFn>{QS_X86(avx512::scanValues), QS_X86(avx2::scanValues)});
    (scan ? scan : static_cast<ScanFn>(scanValues))(v, n, lanes, split);
}

void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi)
{
    for (uint64_t i = 0; i < n; ++i) {
        if (!std::isfinite(v[i]))
            continue;
        uint32_t u;
        std::memcpy(&u, v + i, 4);
        lo = std::min(lo, orderedBits(u));
        hi = std::max(hi, orderedBits(u));
    }
}

void finishMinMax(const float* v, uint64_t from, uint64_t n, float l, float h, uint32_t& lo, uint32_t& hi)
{
    for (uint64_t i = from; i < n; ++i) {
        l = v[i] < l ? v[i] : l;
        h = v[i] > h ? v[i] : h;
    }
    if (l == 0 || h == 0 || std::isinf(l) || std::isinf(h)) {
        minMaxValues(v, n, lo, hi);
        return;
    }
    uint32_t ul, uh;
    std::memcpy(&ul, &l, 4);
    std::memcpy(&uh, &h, 4);
    lo = std::min(lo, orderedBits(ul));
    hi = std::max(hi, orderedBits(uh));
}

ErrorSums scanError(const float* q, const float* r, uint64_t n, float* err, SimdPath path)
{
    using ScanFn = ErrorSums (*)(const float*, const float*, uint64_t, float*);
    const ScanFn scan = simdKernel(path, SimdKernels<ScanFn>{nullptr, QS_X86(avx2::scanError)});
    return (scan ? scan : static_cast<ScanFn>(scanError))(q, r, n, err);
}

void countCoarse(const float* e, uint64_t n, uint32_t* counts, SimdPath path)
{
    using CountFn = void (*)(const float*, uint64_t, uint32_t*);
    const CountFn count = simdKernel(path, SimdKernels<CountFn>{nullptr, QS_X86(avx2::countCoarse)});
    (count ? count : static_cast<CountFn>(countCoarse))(e, n, counts);
}

void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi, SimdPath path)
{
    using MinMaxFn = void (*)(const float*, uint64_t, uint32_t&, uint32_t&);
    const MinMaxFn minMax =
        simdKernel(path, SimdKernels<MinMaxFn>{QS_X86(avx512::minMaxValues), QS_X86(avx2::minMaxValues)});
    (minMax ? minMax : static_cast<MinMaxFn>(minMaxValues))(v, n, lo, hi);
}

void scanValueRange(const float* v, uint64_t from, uint64_t n, ValueLanes& L, uint32_t* split)
{
    for (uint64_t i = from; i < n; ++i) {
        const float x = v[i];
        uint32_t u;
        std::memcpy(&u, &x, 4);
        ++split[valueKey(u) * kKeySplit + i % kKeySplit];
        if (!std::isfinite(x))
            continue;
        const size_t l = size_t(i % 8);
        L.lo[l] = x < L.lo[l] ? x : L.lo[l];
        L.hi[l] = x > L.hi[l] ? x : L.hi[l];
        L.sum[l] += double(x);
        L.sumSq[l] += double(x) * double(x);
    }
}

ErrorSums ErrorLanes::merge() const
{
    ErrorSums s;
    s.sumSq = mergeLaneSums(sumSq);
    s.sumAbs = mergeLaneSums(sumAbs);
    s.sumSigned = mergeLaneSums(sumSigned);
    s.refSq = mergeLaneSums(refSq);
    for (double m : maxAbs)
        s.maxAbs = s.maxAbs < m ? m : s.maxAbs;
    return s;
}

void scanErrorRange(const float* q, const float* r, uint64_t from, uint64_t n, float* err, ErrorLanes& L)
{
    for (uint64_t i = from; i < n; ++i) {
        const double e = double(q[i]) - double(r[i]), a = std::fabs(e), ref = r[i];
        const size_t l = size_t(i % 8);
        L.sumSq[l] += e * e;
        L.sumAbs[l] += a;
        L.sumSigned[l] += e;
        L.refSq[l] += ref * ref;
        L.maxAbs[l] = L.maxAbs[l] < a ? a : L.maxAbs[l];
        err[i] = float(e);
    }
}

ErrorSums scanError(const float* q, const float* r, uint64_t n, float* err)
{
    ErrorLanes lanes;
    scanErrorRange(q, r, 0, n, err, lanes);
    return lanes.merge();
}

void countCoarse(const float* e, uint64_t n, uint32_t* counts)
{
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t u;
        std::memcpy(&u, &e[i], 4);
        ++counts[coarseKey(u) * kKeySplit + i % kKeySplit];
    }
}

} // namespace qs
