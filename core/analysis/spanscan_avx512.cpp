// AVX-512 path of scanSpans (spanscan.h): sixteen values per step, |x| by its bits; a value
// is NaN or Inf when |x| >= 0x7F800000, a span is zero when the OR of its |x| is.
#include "analysis/spanscan.h"

#include "base/simd_tier.h"

#include <cstring>

QS_TIER_BEGIN_AVX512

namespace qs::avx512 {

uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero)
{
    const __m512i absMask = _mm512_set1_epi32(0x7FFFFFFF), infBits = _mm512_set1_epi32(0x7F800000),
                  one = _mm512_set1_epi32(1);
    __m512i count = _mm512_setzero_si512(); // per lane
    uint64_t bad = 0;
    for (uint64_t a = 0, s = 0; a < n; a += span, ++s) {
        const uint64_t end = n - a > span ? a + span : n;
        __m512i any = _mm512_setzero_si512();
        uint64_t i = a;
        for (; i + 16 <= end; i += 16) {
            const __m512i x = _mm512_and_si512(_mm512_loadu_si512(v + i), absMask);
            count = _mm512_mask_add_epi32(count, _mm512_cmpge_epu32_mask(x, infBits), count, one);
            any = _mm512_or_si512(any, x);
        }
        uint32_t tail = 0;
        for (; i < end; ++i) {
            uint32_t b;
            std::memcpy(&b, v + i, 4);
            b &= 0x7FFFFFFFu;
            bad += b >= 0x7F800000u;
            tail |= b;
        }
        zero[s] = _mm512_test_epi32_mask(any, any) == 0 && tail == 0;
        // Fold the lane counters before they could wrap (2^32 steps).
        if ((s & 0xFFFF) == 0xFFFF) {
            bad += uint64_t(_mm512_reduce_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(count))))
                + uint64_t(_mm512_reduce_add_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(count, 1))));
            count = _mm512_setzero_si512();
        }
    }
    return bad + uint64_t(_mm512_reduce_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(count))))
        + uint64_t(_mm512_reduce_add_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(count, 1))));
}

} // namespace qs::avx512

QS_TIER_END
