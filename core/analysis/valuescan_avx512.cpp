// AVX-512 path of scanValues (valuescan.h): sixteen floats per step, the eight lanes i % 8
// kept as one vector of sums, one of squares and 8-float minima and maxima, each step's two
// halves added in element order.
#include "analysis/valuescan.h"

#include "base/simd_tier.h"

#include <cmath>

QS_TIER_BEGIN_AVX512

namespace qs::avx512 {

void scanValues(const float* v, uint64_t n, ValueLanes& L, uint32_t* split)
{
    __m512d s = _mm512_loadu_pd(L.sum), q = _mm512_loadu_pd(L.sumSq);
    __m256 lo = _mm256_loadu_ps(L.lo), hi = _mm256_loadu_ps(L.hi);
    const __m512 inf = _mm512_set1_ps(INFINITY), negInf = _mm512_set1_ps(-INFINITY);
    const __m512i sign = _mm512_set1_epi32(int32_t(0x80000000u));
    static_assert(kKeySplit == 4);
    const __m512i copy = _mm512_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    // Each step's counter indices, added three steps later: the vector store has then left
    // the store buffer, so the scalar loads do not wait on forwarding from it (one step later
    // measured 8% slower; the AVX2 path's extraction through general registers, 3%).
    alignas(64) uint32_t idx[4][16];
    uint64_t step = 0;
    uint64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 x = _mm512_loadu_ps(v + i);
        const __mmask16 finite = _mm512_cmp_ps_mask(_mm512_abs_ps(x), inf, _CMP_LT_OQ);
        // min_ps(a, b) is a < b ? a : b, as the scalar reference compares; elements i..i+7
        // before i+8..i+15 in each lane.
        const __m512 xl = _mm512_mask_blend_ps(finite, inf, x), xh = _mm512_mask_blend_ps(finite, negInf, x);
        lo = _mm256_min_ps(_mm512_castps512_ps256(xl), lo);
        lo = _mm256_min_ps(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xl), 1)), lo);
        hi = _mm256_max_ps(_mm512_castps512_ps256(xh), hi);
        hi = _mm256_max_ps(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xh), 1)), hi);
        const __m512 xz = _mm512_maskz_mov_ps(finite, x); // a skipped value adds +0
        const __m512d x0 = _mm512_cvtps_pd(_mm512_castps512_ps256(xz));
        const __m512d x1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xz), 1)));
        s = _mm512_add_pd(_mm512_add_pd(s, x0), x1);
        q = _mm512_add_pd(_mm512_add_pd(q, _mm512_mul_pd(x0, x0)), _mm512_mul_pd(x1, x1));
        // key * kKeySplit + i % kKeySplit: (key << 2) | (lane & 3), from the order-preserving
        // bits u ^ ((u >> 31) | sign).
        const __m512i u = _mm512_castps_si512(x);
        const __m512i o = _mm512_ternarylogic_epi32(u, _mm512_srai_epi32(u, 31), sign, 0x1E); // a ^ (b | c)
        _mm512_store_si512(idx[step++ & 3], _mm512_or_si512(_mm512_slli_epi32(_mm512_srli_epi32(o, 16), 2), copy));
        if (step > 3) {
#pragma GCC unroll 16
            for (int c = 0; c < 16; ++c)
                ++split[idx[step & 3][c]];
        }
    }
    for (uint64_t k = step > 3 ? step - 3 : 0; k < step; ++k)
        for (int c = 0; c < 16; ++c)
            ++split[idx[k & 3][c]];
    _mm512_storeu_pd(L.sum, s);
    _mm512_storeu_pd(L.sumSq, q);
    _mm256_storeu_ps(L.lo, lo);
    _mm256_storeu_ps(L.hi, hi);
    scanValueRange(v, i, n, L, split); // the tail, in the lanes the reference uses (i % 8)
}

void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi)
{
    // Plain float min and max, two of each to hide their latency: min_ps(x, m) returns m when
    // x is NaN, so NaN is passed over. Equal values have equal bits but for -0 and +0, and an
    // infinity would win: an extreme that is zero or infinite is taken again by the reference,
    // in orderedBits.
    const __m512 inf = _mm512_set1_ps(INFINITY), negInf = _mm512_set1_ps(-INFINITY);
    __m512 l0 = inf, l1 = inf, h0 = negInf, h1 = negInf;
    uint64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 a = _mm512_loadu_ps(v + i), b = _mm512_loadu_ps(v + i + 16);
        l0 = _mm512_min_ps(a, l0);
        h0 = _mm512_max_ps(a, h0);
        l1 = _mm512_min_ps(b, l1);
        h1 = _mm512_max_ps(b, h1);
    }
    finishMinMax(v, i, n, _mm512_reduce_min_ps(_mm512_min_ps(l0, l1)), _mm512_reduce_max_ps(_mm512_max_ps(h0, h1)), lo,
                 hi);
}

} // namespace qs::avx512

QS_TIER_END
