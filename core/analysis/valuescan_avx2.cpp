// AVX2 path of scanValues (valuescan.h): eight floats per step, lanes i % 8 kept as two
// __m256d of sums, two of squares and one __m256 each of minima and maxima.
#include "analysis/valuescan.h"

#include <immintrin.h>

#include <cmath>

namespace qs::avx2 {

void scanValues(const float* v, uint64_t n, ValueLanes& L, uint64_t* keyHist)
{
    __m256d s0 = _mm256_loadu_pd(L.sum), s1 = _mm256_loadu_pd(L.sum + 4);
    __m256d q0 = _mm256_loadu_pd(L.sumSq), q1 = _mm256_loadu_pd(L.sumSq + 4);
    __m256 lo = _mm256_loadu_ps(L.lo), hi = _mm256_loadu_ps(L.hi);
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 inf = _mm256_set1_ps(INFINITY), negInf = _mm256_set1_ps(-INFINITY);
    const __m256i sign = _mm256_set1_epi32(int32_t(0x80000000u));
    alignas(32) uint32_t keys[8];
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(v + i);
        const __m256 finite = _mm256_cmp_ps(_mm256_and_ps(x, absMask), inf, _CMP_LT_OQ);
        // min_ps(a, b) is a < b ? a : b, as the scalar reference compares.
        lo = _mm256_min_ps(_mm256_blendv_ps(inf, x, finite), lo);
        hi = _mm256_max_ps(_mm256_blendv_ps(negInf, x, finite), hi);
        const __m256 xz = _mm256_and_ps(x, finite); // a skipped value adds +0
        const __m256d xl = _mm256_cvtps_pd(_mm256_castps256_ps128(xz));
        const __m256d xh = _mm256_cvtps_pd(_mm256_extractf128_ps(xz, 1));
        s0 = _mm256_add_pd(s0, xl);
        s1 = _mm256_add_pd(s1, xh);
        q0 = _mm256_add_pd(q0, _mm256_mul_pd(xl, xl));
        q1 = _mm256_add_pd(q1, _mm256_mul_pd(xh, xh));
        const __m256i u = _mm256_castps_si256(x);
        const __m256i flip = _mm256_or_si256(_mm256_srai_epi32(u, 31), sign);
        _mm256_store_si256(reinterpret_cast<__m256i*>(keys), _mm256_srli_epi32(_mm256_xor_si256(u, flip), 16));
        for (int j = 0; j < 8; ++j)
            ++keyHist[keys[j]];
    }
    _mm256_storeu_pd(L.sum, s0);
    _mm256_storeu_pd(L.sum + 4, s1);
    _mm256_storeu_pd(L.sumSq, q0);
    _mm256_storeu_pd(L.sumSq + 4, q1);
    _mm256_storeu_ps(L.lo, lo);
    _mm256_storeu_ps(L.hi, hi);
    scanValueRange(v, i, n, L, keyHist); // the tail, in the lanes the reference uses (i % 8)
}

} // namespace qs::avx2
