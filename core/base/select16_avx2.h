#pragma once
// The 16-entry table lookup of the 4-bit kernels (bitsandbytes, MLX, HQQ): entry idx & 15 of
// the table held in (lo, hi), eight lanes at a time. vpermps reads bits 0..2 of each index,
// so a code shifted into its lane needs no mask; bit 3 picks the high half by a blend.
// Only inside a tier region (base/simd_tier.h).
#include <immintrin.h>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

inline __m256 select16(__m256 lo, __m256 hi, __m256i idx)
{
    return _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, idx), _mm256_permutevar8x32_ps(hi, idx),
                            _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
}

} // namespace
} // namespace qs
