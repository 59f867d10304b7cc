// AVX-512 conversion of F16, BF16, F8_E4M3 and F8_E5M2 tensors, 16 elements at a time (the rest
// and other dtypes through the AVX2 path). F16: vcvtph2ps (exact); BF16: a 16-bit shift; E5M2:
// the top byte of an f16. E4M3: its seven magnitude bits under an f16's exponent and mantissa
// (bits 7..13) give, through vcvtph2ps, exactly 2^-8 times the E4M3 value, normals and
// subnormals alike (both exponent biases differ by 8), so one multiply by 2^8 gives it; the
// sign is the f16's; NaN (S.1111.111) becomes the scalar decoder's sign | 0x7FC00000.
#include "formats/plain/floats.h"

#include <immintrin.h>

namespace qs {

void floatElementsAvx512(const FloatTensor& t, uint64_t e0, uint64_t n, float* out)
{
    const uint8_t* p = t.bytes.data();
    uint64_t i = 0;
    if (t.dtype == DType::F16) {
        const uint8_t* src = p + 2 * e0;
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i))));
    } else if (t.dtype == DType::BF16) {
        const uint8_t* src = p + 2 * e0;
        for (; i + 16 <= n; i += 16) {
            const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i)));
            _mm512_storeu_si512(out + i, _mm512_slli_epi32(w, 16));
        }
    } else if (t.dtype == DType::F8_E5M2) {
        const uint8_t* src = p + e0;
        for (; i + 16 <= n; i += 16) {
            const __m256i h = _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))), 8);
            _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
        }
    } else if (t.dtype == DType::F8_E4M3) {
        const uint8_t* src = p + e0;
        const __m256i mag7 = _mm256_set1_epi16(0x7F), sign16 = _mm256_set1_epi16(int16_t(0x8000));
        const __m512i sign32 = _mm512_set1_epi32(int(0x80000000u)), nanBits = _mm512_set1_epi32(0x7FC00000);
        const __m512 rebias = _mm512_set1_ps(256.0f);
        for (; i + 16 <= n; i += 16) {
            const __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
            const __m256i mag = _mm256_and_si256(v, mag7);
            // (v << 8) & 0x8000 | mag << 7: the sign and the magnitude of an f16.
            const __m256i h = _mm256_ternarylogic_epi32(_mm256_slli_epi16(v, 8), _mm256_slli_epi16(mag, 7), sign16, 0xEC);
            const __m512 f = _mm512_mul_ps(_mm512_cvtph_ps(h), rebias);
            const __mmask16 nan = _mm256_cmpeq_epi16_mask(mag, mag7);
            // NaN lanes: the (finite) value's sign bit | 0x7FC00000.
            const __m512i r = _mm512_mask_ternarylogic_epi32(_mm512_castps_si512(f), nan, sign32, nanBits, 0xEA);
            _mm512_storeu_si512(out + i, r);
        }
    }
    floatElementsAvx2(t, e0 + i, n - i, out + i);
}

} // namespace qs
