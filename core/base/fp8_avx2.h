#pragma once
// Exact float8 -> f32 conversion, 8 bytes (the low half of `bytes`) at a time, inside a tier region
// (base/simd_tier.h); bit-identical to f8e4m3ToF32 / f8e5m2ToF32
// (formats/kernelutil.h). E5M2 is the top byte of an f16. E4M3's exponent and mantissa bits,
// placed in an f32's with the exponent rebased, give every normal value, m * 2^-9 the
// subnormals, and NaN (S.1111.111) is the scalar decoder's sign | 0x7FC00000.
// f8e4m3x16Scaled converts 16 at a time as base/fp8_avx512.h does (through an f16 that is 2^-8
// times the value) with the scale folded into its one multiply, a third of f8e4m3x8's work.
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

// fl32(value * s) of 16 E4M3 bytes into out[0] and out[1], given scale256 = 256 * s exactly (|s| <
// 2^120, or s infinite; not NaN): the seven magnitude bits under an f16's exponent and mantissa
// give exactly 2^-8 times the value (normals and subnormals alike), so one multiply rounds the
// same real product once. A NaN code (S.1111.111) becomes the f16 NaN S.11111.1000000000, whose
// f32 is the scalar decoder's sign | 0x7FC00000, and a NaN operand is what a multiply returns.
// No branch: random bytes hold a NaN code in one vector of eight, and a branch on them cost more
// than the conversion.
inline void f8e4m3x16Scaled(__m128i bytes, __m256 scale256, __m256 out[2])
{
    const __m256i v = _mm256_cvtepu8_epi16(bytes);
    const __m256i mag7 = _mm256_set1_epi16(0x7F);
    const __m256i mag = _mm256_and_si256(v, mag7);
    // mag << 7 is 0x3F80 for a NaN code; 0x3E80 more makes it 0x7E00.
    const __m256i field = _mm256_add_epi16(_mm256_slli_epi16(mag, 7),
                                           _mm256_and_si256(_mm256_cmpeq_epi16(mag, mag7), _mm256_set1_epi16(0x3E80)));
    const __m256i h =
        _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi16(v, 8), _mm256_set1_epi16(int16_t(0x8000))), field);
    out[0] = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(h)), scale256);
    out[1] = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_extracti128_si256(h, 1)), scale256);
}

} // namespace
} // namespace qs
