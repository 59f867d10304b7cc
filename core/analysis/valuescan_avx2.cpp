// AVX2 path of scanValues (valuescan.h): eight floats per step, lanes i % 8 kept as two
// __m256d of sums, two of squares and one __m256 each of minima and maxima.
#include "analysis/valuescan.h"

#include "base/simd_tier.h"

#include <cmath>

QS_TIER_BEGIN_AVX2

namespace qs::avx2 {

namespace {

// ++counts[idx[j]] for the eight indices, taken out two at a time through general registers:
// a vector store reloaded as eight scalars waits on store forwarding and costs about twice as
// much (bench_stats: 0.8 -> 0.45 ns per element on Zen 5).
inline void countKeys(uint32_t* counts, __m256i idx)
{
    const __m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
    const uint64_t a = uint64_t(_mm_cvtsi128_si64(lo)), b = uint64_t(_mm_extract_epi64(lo, 1));
    const uint64_t c = uint64_t(_mm_cvtsi128_si64(hi)), d = uint64_t(_mm_extract_epi64(hi, 1));
    ++counts[uint32_t(a)];
    ++counts[a >> 32];
    ++counts[uint32_t(b)];
    ++counts[b >> 32];
    ++counts[uint32_t(c)];
    ++counts[c >> 32];
    ++counts[uint32_t(d)];
    ++counts[d >> 32];
}

} // namespace

void scanValues(const float* v, uint64_t n, ValueLanes& L, uint32_t* split)
{
    __m256d s0 = _mm256_loadu_pd(L.sum), s1 = _mm256_loadu_pd(L.sum + 4);
    __m256d q0 = _mm256_loadu_pd(L.sumSq), q1 = _mm256_loadu_pd(L.sumSq + 4);
    __m256 lo = _mm256_loadu_ps(L.lo), hi = _mm256_loadu_ps(L.hi);
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 inf = _mm256_set1_ps(INFINITY), negInf = _mm256_set1_ps(-INFINITY);
    const __m256i sign = _mm256_set1_epi32(int32_t(0x80000000u));
    static_assert(kKeySplit == 4);
    const __m256i copy = _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3);
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
        // key * kKeySplit + i % kKeySplit: (key << 2) | (lane & 3)
        const __m256i key = _mm256_srli_epi32(_mm256_xor_si256(u, flip), 16);
        countKeys(split, _mm256_or_si256(_mm256_slli_epi32(key, 2), copy));
    }
    _mm256_storeu_pd(L.sum, s0);
    _mm256_storeu_pd(L.sum + 4, s1);
    _mm256_storeu_pd(L.sumSq, q0);
    _mm256_storeu_pd(L.sumSq + 4, q1);
    _mm256_storeu_ps(L.lo, lo);
    _mm256_storeu_ps(L.hi, hi);
    scanValueRange(v, i, n, L, split); // the tail, in the lanes the reference uses (i % 8)
}

ErrorSums scanError(const float* q, const float* r, uint64_t n, float* err)
{
    ErrorLanes L;
    // Lanes 0-3 and 4-7 of each sum.
    __m256d sq0 = _mm256_setzero_pd(), sq1 = sq0, ab0 = sq0, ab1 = sq0, sg0 = sq0, sg1 = sq0, rs0 = sq0, rs1 = sq0;
    __m256d mx0 = sq0, mx1 = sq0;
    const __m256d absMask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 qv = _mm256_loadu_ps(q + i), rv = _mm256_loadu_ps(r + i);
        const __m256d rl = _mm256_cvtps_pd(_mm256_castps256_ps128(rv)),
                      rh = _mm256_cvtps_pd(_mm256_extractf128_ps(rv, 1));
        const __m256d el = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(qv)), rl);
        const __m256d eh = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(qv, 1)), rh);
        const __m256d al = _mm256_and_pd(el, absMask), ah = _mm256_and_pd(eh, absMask);
        sq0 = _mm256_add_pd(sq0, _mm256_mul_pd(el, el));
        sq1 = _mm256_add_pd(sq1, _mm256_mul_pd(eh, eh));
        ab0 = _mm256_add_pd(ab0, al);
        ab1 = _mm256_add_pd(ab1, ah);
        sg0 = _mm256_add_pd(sg0, el);
        sg1 = _mm256_add_pd(sg1, eh);
        rs0 = _mm256_add_pd(rs0, _mm256_mul_pd(rl, rl));
        rs1 = _mm256_add_pd(rs1, _mm256_mul_pd(rh, rh));
        // max_pd(a, m) is a > m ? a : m, so a NaN a leaves m, as the scalar reference does.
        mx0 = _mm256_max_pd(al, mx0);
        mx1 = _mm256_max_pd(ah, mx1);
        _mm256_storeu_ps(err + i, _mm256_set_m128(_mm256_cvtpd_ps(eh), _mm256_cvtpd_ps(el)));
    }
    _mm256_storeu_pd(L.sumSq, sq0);
    _mm256_storeu_pd(L.sumSq + 4, sq1);
    _mm256_storeu_pd(L.sumAbs, ab0);
    _mm256_storeu_pd(L.sumAbs + 4, ab1);
    _mm256_storeu_pd(L.sumSigned, sg0);
    _mm256_storeu_pd(L.sumSigned + 4, sg1);
    _mm256_storeu_pd(L.refSq, rs0);
    _mm256_storeu_pd(L.refSq + 4, rs1);
    _mm256_storeu_pd(L.maxAbs, mx0);
    _mm256_storeu_pd(L.maxAbs + 4, mx1);
    scanErrorRange(q, r, i, n, err, L);
    return L.merge();
}

void countCoarse(const float* e, uint64_t n, uint32_t* counts)
{
    static_assert(kKeySplit == 4);
    const __m256i low = _mm256_set1_epi32(0x7FFFFFFF), copy = _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3);
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i u = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(e + i)), low);
        countKeys(counts, _mm256_or_si256(_mm256_slli_epi32(_mm256_srli_epi32(u, 19), 2), copy));
    }
    qs::countCoarse(e + i, n - i, counts); // i is a multiple of 8: the copies line up
}

void minMaxValues(const float* v, uint64_t n, uint32_t& lo, uint32_t& hi)
{
    // As the AVX-512 path does (plain float min and max, zero and infinite extremes to the reference).
    const __m256 inf = _mm256_set1_ps(INFINITY), negInf = _mm256_set1_ps(-INFINITY);
    __m256 l0 = inf, l1 = inf, h0 = negInf, h1 = negInf;
    uint64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_loadu_ps(v + i), b = _mm256_loadu_ps(v + i + 8);
        l0 = _mm256_min_ps(a, l0);
        h0 = _mm256_max_ps(a, h0);
        l1 = _mm256_min_ps(b, l1);
        h1 = _mm256_max_ps(b, h1);
    }
    alignas(32) float ls[8], hs[8];
    _mm256_store_ps(ls, _mm256_min_ps(l0, l1));
    _mm256_store_ps(hs, _mm256_max_ps(h0, h1));
    float l = INFINITY, h = -INFINITY;
    for (int k = 0; k < 8; ++k) {
        l = ls[k] < l ? ls[k] : l;
        h = hs[k] > h ? hs[k] : h;
    }
    finishMinMax(v, i, n, l, h, lo, hi);
}

} // namespace qs::avx2

QS_TIER_END
