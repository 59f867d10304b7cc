// AVX-512 conversion of F16, BF16, F8_E4M3 and F8_E5M2 tensors, 16 elements at a time (the rest
// and other dtypes through the AVX2 path). F16: vcvtph2ps (exact); BF16: a 16-bit shift; the
// float8 types as base/fp8_avx512.h says.
#include "formats/plain/floats.h"

#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX512

#include "base/fp8_avx512.h"

namespace qs {

void floatElementsAvx512(const FloatTensor& t, uint64_t e0, uint64_t n, float* out)
{
    const uint8_t* p = t.bytes.data();
    uint64_t i = 0;
    if (t.dtype == DType::F16) {
        const uint8_t* src = p + 2 * e0;
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(out + i,
                             _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i))));
    } else if (t.dtype == DType::BF16) {
        const uint8_t* src = p + 2 * e0;
        for (; i + 16 <= n; i += 16) {
            const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i)));
            _mm512_storeu_si512(out + i, _mm512_slli_epi32(w, 16));
        }
    } else if (t.dtype == DType::F8_E5M2 || t.dtype == DType::F8_E4M3) {
        const uint8_t* src = p + e0;
        if (t.dtype == DType::F8_E4M3)
            for (; i + 16 <= n; i += 16)
                _mm512_storeu_ps(out + i, f8e4m3x16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
        else
            for (; i + 16 <= n; i += 16)
                _mm512_storeu_ps(out + i, f8e5m2x16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
    floatElementsAvx2(t, e0 + i, n - i, out + i);
}

} // namespace qs

QS_TIER_END
