#pragma once
// Exact float8 -> f32 conversion, 8 bytes (the low half of `bytes`) at a time, inside a tier region
// (base/simd_tier.h); bit-identical to f8e4m3ToF32 / f8e5m2ToF32
// (formats/kernelutil.h). E5M2 is the top byte of an f16. E4M3's exponent and mantissa bits,
// placed in an f32's with the exponent rebased, give every normal value, m * 2^-9 the
// subnormals, and NaN (S.1111.111) is the scalar decoder's sign | 0x7FC00000.
#include <immintrin.h>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

inline __m256 f8e5m2x8(__m128i bytes)
{
    return _mm256_cvtph_ps(_mm_slli_epi16(_mm_cvtepu8_epi16(bytes), 8));
}

inline __m256 f8e4m3x8(__m128i bytes)
{
    const __m256i magNan = _mm256_set1_epi32(0x7F);
    const __m256i v = _mm256_cvtepu8_epi32(bytes);
    const __m256i mag = _mm256_and_si256(v, magNan);
    // Normal: e, m under f32's exponent and mantissa, exponent rebased by 127 - 7.
    const __m256i normal = _mm256_add_epi32(_mm256_slli_epi32(mag, 20), _mm256_set1_epi32(120 << 23));
    // Subnormal (e = 0): m * 2^-9, exact (no denormal f32 operand, so no slow assist).
    const __m256i subnormal = _mm256_castps_si256(
        _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(v, _mm256_set1_epi32(7))), _mm256_set1_ps(0x1p-9f)));
    const __m256i isSub = _mm256_cmpeq_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x78)), _mm256_setzero_si256());
    __m256i r = _mm256_blendv_epi8(normal, subnormal, isSub);
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7FC00000), _mm256_cmpeq_epi32(mag, magNan));
    const __m256i sign = _mm256_and_si256(_mm256_slli_epi32(v, 24), _mm256_set1_epi32(int(0x80000000u)));
    return _mm256_castsi256_ps(_mm256_or_si256(r, sign));
}

} // namespace
} // namespace qs
