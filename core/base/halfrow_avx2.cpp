#include "base/halfrow.h"

#include "base/half.h"
#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX2

namespace qs::avx2 {

void halfToFloatRow(const uint16_t* in, float* out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
    for (; i < n; ++i)
        out[i] = halfToFloat(in[i]);
}

void floatToHalfRow(const float* in, uint16_t* out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; ++i)
        out[i] = floatToHalf(in[i]);
}

void bf16ToFloatRow(const uint16_t* in, float* out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
        _mm256_storeu_ps(out + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
    }
    for (; i < n; ++i)
        out[i] = bf16ToFloat(in[i]);
}

} // namespace qs::avx2

QS_TIER_END
