#pragma once
// Exact float8 -> f32 conversion, 16 bytes at a time, inside an AVX-512 tier region
// (base/simd_tier.h); bit-identical to f8e4m3ToF32 / f8e5m2ToF32 (formats/kernelutil.h).
// E5M2 is the top byte of an f16. E4M3: its seven magnitude bits under an f16's exponent and
// mantissa (bits 7..13) give, through vcvtph2ps, exactly 2^-8 times the E4M3 value, normals and
// subnormals alike (both exponent biases differ by 8), so one multiply by 2^8 gives it; the sign
// is the f16's; NaN (S.1111.111) becomes the scalar decoder's sign | 0x7FC00000.
#include <immintrin.h>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

inline __m512 f8e5m2x16(__m128i bytes)
{
    return _mm512_cvtph_ps(_mm256_slli_epi16(_mm256_cvtepu8_epi16(bytes), 8));
}

// fl32(value * s) for each E4M3 value, given scale256 = 256 * s exactly (|s| < 2^120, or s
// not finite): the f16's value times 2^8 * s is the same real product, rounded once. NaN codes
// give the scalar decoder's NaN whatever s is, as value * s does for a NaN value.
inline __m512 f8e4m3x16Scaled(__m128i bytes, __m512 scale256)
{
    const __m256i mag7 = _mm256_set1_epi16(0x7F);
    const __m256i v = _mm256_cvtepu8_epi16(bytes);
    const __m256i mag = _mm256_and_si256(v, mag7);
    // (v << 8) & 0x8000 | mag << 7: the sign and the magnitude of an f16.
    const __m256i h = _mm256_ternarylogic_epi32(_mm256_slli_epi16(v, 8), _mm256_slli_epi16(mag, 7),
                                                _mm256_set1_epi16(int16_t(0x8000)), 0xEC);
    const __m512 f = _mm512_mul_ps(_mm512_cvtph_ps(h), scale256);
    const __mmask16 nan = _mm256_cmpeq_epi16_mask(mag, mag7);
    // NaN lanes: the (finite) value's sign bit | 0x7FC00000.
    return _mm512_castsi512_ps(_mm512_mask_ternarylogic_epi32(
        _mm512_castps_si512(f), nan, _mm512_set1_epi32(int(0x80000000u)), _mm512_set1_epi32(0x7FC00000), 0xEA));
}

inline __m512 f8e4m3x16(__m128i bytes)
{
    return f8e4m3x16Scaled(bytes, _mm512_set1_ps(256.0f));
}

} // namespace
} // namespace qs
