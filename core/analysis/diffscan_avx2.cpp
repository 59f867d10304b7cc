// AVX2 path of scanDiff (diffscan.h): eight pairs per step, lanes i % 8 held as two __m256d
// (lanes 0-3 and 4-7) per sum; a non-finite difference is masked to +0 (adding +0 leaves a
// sum that started at +0 unchanged, as skipping does).
#include "analysis/diffscan.h"

#include "base/simd_tier.h"

#include <bit>

QS_TIER_BEGIN_AVX2

namespace qs::avx2 {

namespace {

struct Half {
    __m256d sumSq, sumAbs, sumSigned, aSq, bSq, dot, maxAbs, maxAbsB;
    __m256i maxAt;

    void load(const DiffLanes& L, int o)
    {
        sumSq = _mm256_loadu_pd(L.sumSq + o);
        sumAbs = _mm256_loadu_pd(L.sumAbs + o);
        sumSigned = _mm256_loadu_pd(L.sumSigned + o);
        aSq = _mm256_loadu_pd(L.aSq + o);
        bSq = _mm256_loadu_pd(L.bSq + o);
        dot = _mm256_loadu_pd(L.dot + o);
        maxAbs = _mm256_loadu_pd(L.maxAbs + o);
        maxAbsB = _mm256_loadu_pd(L.maxAbsB + o);
        maxAt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(L.maxAt + o));
    }
    void store(DiffLanes& L, int o) const
    {
        _mm256_storeu_pd(L.sumSq + o, sumSq);
        _mm256_storeu_pd(L.sumAbs + o, sumAbs);
        _mm256_storeu_pd(L.sumSigned + o, sumSigned);
        _mm256_storeu_pd(L.aSq + o, aSq);
        _mm256_storeu_pd(L.bSq + o, bSq);
        _mm256_storeu_pd(L.dot + o, dot);
        _mm256_storeu_pd(L.maxAbs + o, maxAbs);
        _mm256_storeu_pd(L.maxAbsB + o, maxAbsB);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(L.maxAt + o), maxAt);
    }
    // Four pairs; returns the bits of the lanes whose difference is finite.
    int add(__m256d xa, __m256d yb, __m256i index)
    {
        const __m256d absMask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
        const __m256d e = _mm256_sub_pd(xa, yb);
        const __m256d inf = _mm256_set1_pd(__builtin_inf());
        const __m256d finite = _mm256_cmp_pd(_mm256_and_pd(e, absMask), inf, _CMP_LT_OQ);
        const __m256d ab = _mm256_and_pd(yb, absMask);
        maxAbsB = _mm256_max_pd(maxAbsB, _mm256_and_pd(ab, _mm256_cmp_pd(ab, inf, _CMP_LT_OQ)));
        const __m256d em = _mm256_and_pd(e, finite), am = _mm256_and_pd(xa, finite), bm = _mm256_and_pd(yb, finite);
        const __m256d ae = _mm256_and_pd(em, absMask);
        sumSq = _mm256_add_pd(sumSq, _mm256_mul_pd(em, em));
        sumAbs = _mm256_add_pd(sumAbs, ae);
        sumSigned = _mm256_add_pd(sumSigned, em);
        aSq = _mm256_add_pd(aSq, _mm256_mul_pd(am, am));
        bSq = _mm256_add_pd(bSq, _mm256_mul_pd(bm, bm));
        dot = _mm256_add_pd(dot, _mm256_mul_pd(am, bm));
        const __m256d gt = _mm256_cmp_pd(ae, maxAbs, _CMP_GT_OQ);
        maxAbs = _mm256_blendv_pd(maxAbs, ae, gt);
        maxAt = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(maxAt), _mm256_castsi256_pd(index), gt));
        return _mm256_movemask_pd(finite);
    }
};

} // namespace

void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& L)
{
    Half lo, hi;
    lo.load(L, 0);
    hi.load(L, 4);
    __m256i idxLo = _mm256_add_epi64(_mm256_set1_epi64x(int64_t(base)), _mm256_setr_epi64x(0, 1, 2, 3));
    __m256i idxHi = _mm256_add_epi64(idxLo, _mm256_set1_epi64x(4));
    const __m256i step = _mm256_set1_epi64x(8);
    uint64_t nonFinite = 0, differing = 0;
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(a + i), y = _mm256_loadu_ps(b + i);
        const unsigned equal = unsigned(_mm256_movemask_ps(_mm256_cmp_ps(x, y, _CMP_EQ_OQ)));
        const unsigned finite = unsigned(lo.add(_mm256_cvtps_pd(_mm256_castps256_ps128(x)),
                                                _mm256_cvtps_pd(_mm256_castps256_ps128(y)), idxLo))
            | unsigned(hi.add(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)),
                              _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1)), idxHi))
                << 4;
        differing += unsigned(std::popcount(~equal & 0xFFu));
        nonFinite += unsigned(std::popcount(~equal & ~finite & 0xFFu));
        idxLo = _mm256_add_epi64(idxLo, step);
        idxHi = _mm256_add_epi64(idxHi, step);
    }
    lo.store(L, 0);
    hi.store(L, 4);
    L.nonFinite += nonFinite;
    L.differing += differing;
    scanDiffRange(a, b, i, n, base, L);
}

} // namespace qs::avx2

QS_TIER_END
