// AVX2/F16C conversion of F16, BF16, F32, F8_E4M3 and F8_E5M2 tensors. vcvtph2ps is exact
// (every f16, subnormals and NaN payloads included, as the scalar decoder); BF16 is a 16-bit
// shift; E5M2 is the top byte of an f16; E4M3's exponent and mantissa bits, placed in an f32's
// with the exponent rebased, give every normal value, m * 2^-9 the subnormals, and NaN
// (S.1111.111) is the scalar decoder's sign | 0x7FC00000.
#include "formats/plain/floats.h"
#include "formats/kernelutil.h"

#include <immintrin.h>

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
    } else if (t.dtype == DType::F8_E5M2) {
        const uint8_t* src = p + e0;
        for (; i + 8 <= n; i += 8) {
            const __m128i h = _mm_slli_epi16(_mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i))), 8);
            _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
        }
    } else if (t.dtype == DType::F8_E4M3) {
        const uint8_t* src = p + e0;
        const __m256i bias = _mm256_set1_epi32(120 << 23), signMask = _mm256_set1_epi32(int(0x80000000u));
        const __m256i nanBits = _mm256_set1_epi32(0x7FC00000), magNan = _mm256_set1_epi32(0x7F);
        const __m256i expMask = _mm256_set1_epi32(0x78), seven = _mm256_set1_epi32(7);
        const __m256 sub = _mm256_set1_ps(0x1p-9f);
        for (; i + 8 <= n; i += 8) {
            const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i)));
            const __m256i mag = _mm256_and_si256(v, magNan);
            // Normal: e, m under f32's exponent and mantissa, exponent rebased by 127 - 7.
            const __m256i normal = _mm256_add_epi32(_mm256_slli_epi32(mag, 20), bias);
            // Subnormal (e = 0): m * 2^-9, exact (no denormal f32 operand, so no slow assist).
            const __m256i subnormal = _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(v, seven)), sub));
            __m256i r = _mm256_blendv_epi8(normal, subnormal, _mm256_cmpeq_epi32(_mm256_and_si256(v, expMask), _mm256_setzero_si256()));
            r = _mm256_blendv_epi8(r, nanBits, _mm256_cmpeq_epi32(mag, magNan));
            const __m256i sign = _mm256_and_si256(_mm256_slli_epi32(v, 24), signMask);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_or_si256(r, sign));
        }
    } else if (t.dtype == DType::F32) {
        const uint8_t* src = p + 4 * e0;
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(out + i, _mm256_loadu_ps(reinterpret_cast<const float*>(src + 4 * i)));
    }
    floatElementsScalar(t, e0 + i, n - i, out + i);
}

} // namespace qs
