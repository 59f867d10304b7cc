// AVX2 path of scanSpans (spanscan.h): eight values per step, |x| by its bits; a value is
// NaN or Inf when |x| > 0x7F7FFFFF (signed compare: |x| has no sign bit), a span is zero when
// the OR of its |x| is.
#include "analysis/spanscan.h"

#include "base/simd_tier.h"

#include <cstring>

QS_TIER_BEGIN_AVX2

namespace qs::avx2 {

uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero)
{
    const __m256i absMask = _mm256_set1_epi32(0x7FFFFFFF), finiteMax = _mm256_set1_epi32(0x7F7FFFFF);
    __m256i count = _mm256_setzero_si256(); // per lane, minus one per non-finite value
    uint64_t bad = 0;
    for (uint64_t a = 0, s = 0; a < n; a += span, ++s) {
        const uint64_t end = n - a > span ? a + span : n;
        __m256i any = _mm256_setzero_si256();
        uint64_t i = a;
        for (; i + 8 <= end; i += 8) {
            const __m256i x = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i)), absMask);
            count = _mm256_add_epi32(count, _mm256_cmpgt_epi32(x, finiteMax));
            any = _mm256_or_si256(any, x);
        }
        uint32_t tail = 0;
        for (; i < end; ++i) {
            uint32_t b;
            std::memcpy(&b, v + i, 4);
            b &= 0x7FFFFFFFu;
            bad += b > 0x7F7FFFFFu;
            tail |= b;
        }
        zero[s] = _mm256_testz_si256(any, any) && tail == 0;
        // Fold the lane counters before they could wrap (2^31 steps).
        if ((s & 0xFFFF) == 0xFFFF) {
            alignas(32) int32_t c[8];
            _mm256_store_si256(reinterpret_cast<__m256i*>(c), count);
            for (const int32_t x : c)
                bad += uint64_t(-int64_t(x));
            count = _mm256_setzero_si256();
        }
    }
    alignas(32) int32_t c[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(c), count);
    for (const int32_t x : c)
        bad += uint64_t(-int64_t(x));
    return bad;
}

} // namespace qs::avx2

QS_TIER_END
