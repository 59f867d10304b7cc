// AVX-512 path of scanDiff (diffscan.h): the eight lanes i % 8 held as one __m512d per sum,
// eight pairs per step; a non-finite
// difference is masked to +0 (adding +0 leaves a sum that started at +0 unchanged, as
// skipping does).
#include "analysis/diffscan.h"

#include "base/simd_tier.h"

#include <bit>

QS_TIER_BEGIN_AVX512

namespace qs::avx512 {

namespace {

struct Lanes {
    __m512d sumSq, sumAbs, sumSigned, aSq, bSq, dot, maxAbs, maxAbsB;
    __m512i maxAt;
    uint64_t nonFinite = 0, differing = 0;

    explicit Lanes(const DiffLanes& L)
        : sumSq(_mm512_loadu_pd(L.sumSq))
        , sumAbs(_mm512_loadu_pd(L.sumAbs))
        , sumSigned(_mm512_loadu_pd(L.sumSigned))
        , aSq(_mm512_loadu_pd(L.aSq))
        , bSq(_mm512_loadu_pd(L.bSq))
        , dot(_mm512_loadu_pd(L.dot))
        , maxAbs(_mm512_loadu_pd(L.maxAbs))
        , maxAbsB(_mm512_loadu_pd(L.maxAbsB))
        , maxAt(_mm512_loadu_si512(L.maxAt))
    {
    }
    void store(DiffLanes& L) const
    {
        _mm512_storeu_pd(L.sumSq, sumSq);
        _mm512_storeu_pd(L.sumAbs, sumAbs);
        _mm512_storeu_pd(L.sumSigned, sumSigned);
        _mm512_storeu_pd(L.aSq, aSq);
        _mm512_storeu_pd(L.bSq, bSq);
        _mm512_storeu_pd(L.dot, dot);
        _mm512_storeu_pd(L.maxAbs, maxAbs);
        _mm512_storeu_pd(L.maxAbsB, maxAbsB);
        _mm512_storeu_si512(L.maxAt, maxAt);
        L.nonFinite += nonFinite;
        L.differing += differing;
    }
    // Eight pairs, element j of the group in lane j.
    void add(__m256 x, __m256 y, __m512i index)
    {
        const __m512d inf = _mm512_set1_pd(__builtin_inf());
        const __m512d xa = _mm512_cvtps_pd(x), yb = _mm512_cvtps_pd(y);
        const __m512d ab = _mm512_abs_pd(yb);
        maxAbsB = _mm512_mask_max_pd(maxAbsB, _mm512_cmp_pd_mask(ab, inf, _CMP_LT_OQ), maxAbsB, ab);
        const __m512d e = _mm512_sub_pd(xa, yb);
        const __mmask8 finite = _mm512_cmp_pd_mask(_mm512_abs_pd(e), inf, _CMP_LT_OQ);
        const __m512d em = _mm512_maskz_mov_pd(finite, e), am = _mm512_maskz_mov_pd(finite, xa),
                      bm = _mm512_maskz_mov_pd(finite, yb);
        const __m512d ae = _mm512_abs_pd(em);
        sumSq = _mm512_add_pd(sumSq, _mm512_mul_pd(em, em));
        sumAbs = _mm512_add_pd(sumAbs, ae);
        sumSigned = _mm512_add_pd(sumSigned, em);
        aSq = _mm512_add_pd(aSq, _mm512_mul_pd(am, am));
        bSq = _mm512_add_pd(bSq, _mm512_mul_pd(bm, bm));
        dot = _mm512_add_pd(dot, _mm512_mul_pd(am, bm));
        const __mmask8 gt = _mm512_cmp_pd_mask(ae, maxAbs, _CMP_GT_OQ);
        maxAbs = _mm512_mask_mov_pd(maxAbs, gt, ae);
        maxAt = _mm512_mask_mov_epi64(maxAt, gt, index);
        const unsigned equal = unsigned(_mm256_cmp_ps_mask(x, y, _CMP_EQ_OQ));
        differing += unsigned(std::popcount(~equal & 0xFFu));
        nonFinite += unsigned(std::popcount(~equal & ~unsigned(finite) & 0xFFu));
    }
};

} // namespace

void scanDiff(const float* a, const float* b, uint64_t n, uint64_t base, DiffLanes& L)
{
    Lanes lanes(L);
    __m512i index = _mm512_add_epi64(_mm512_set1_epi64(int64_t(base)), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    const __m512i eight = _mm512_set1_epi64(8);
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        lanes.add(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), index);
        index = _mm512_add_epi64(index, eight);
    }
    lanes.store(L);
    scanDiffRange(a, b, i, n, base, L);
}

} // namespace qs::avx512

QS_TIER_END
