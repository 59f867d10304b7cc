// AVX2/F16C conversion of F16, BF16, F32, F8_E4M3 and F8_E5M2 tensors. vcvtph2ps is exact
// (every f16, subnormals and NaN payloads included, as the scalar decoder); BF16 is a 16-bit
// shift; the float8 types as base/fp8_avx2.h says.
#include "formats/plain/floats.h"

#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX2

#include "base/fp8_avx2.h"

namespace qs {

void floatElementsAvx2(const FloatTensor& t, uint64_t e0, uint64_t n, float* out)
{
    const uint8_t* p = t.bytes.data();
    uint64_t i = 0;
    if (t.dtype == DType::F16) {
        const uint8_t* src = p + 2 * e0;
        for (; i + 8 <= n; i += 8) {
            const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
            _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
        }
    } else if (t.dtype == DType::BF16) {
        const uint8_t* src = p + 2 * e0;
        for (; i + 8 <= n; i += 8) {
            const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
            const __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
            _mm256_storeu_ps(out + i, _mm256_castsi256_ps(w));
        }
    } else if (t.dtype == DType::F8_E5M2 || t.dtype == DType::F8_E4M3) {
        const uint8_t* src = p + e0;
        if (t.dtype == DType::F8_E4M3)
            for (; i + 16 <= n; i += 16) {
                __m256 v[2];
                f8e4m3x16Scaled(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)), _mm256_set1_ps(256.0f), v);
                _mm256_storeu_ps(out + i, v[0]);
                _mm256_storeu_ps(out + i + 8, v[1]);
            }
        else
            for (; i + 8 <= n; i += 8)
                _mm256_storeu_ps(out + i, f8e5m2x8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i))));
    } else if (t.dtype == DType::F32) {
        const uint8_t* src = p + 4 * e0;
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(out + i, _mm256_loadu_ps(reinterpret_cast<const float*>(src + 4 * i)));
    }
    floatElementsScalar(t, e0 + i, n - i, out + i);
}

} // namespace qs

QS_TIER_END
