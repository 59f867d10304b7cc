#pragma once
// Eight floats rounded to a scale dtype and back, as the scalar roundToDtype (kernelutil.h)
// does: F16 by vcvtps2ph round-to-nearest-even, BF16 by integer RNE with NaNs kept quiet
// (payload truncated), F32 unchanged. Only inside a tier region (base/simd_tier.h).
#include "container/dtype.h"

#include <immintrin.h>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

template <DType T>
inline __m256 roundToDtype8(__m256 x)
{
    if constexpr (T == DType::F16) {
        return _mm256_cvtph_ps(_mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    } else if constexpr (T == DType::BF16) {
        const __m256i u = _mm256_castps_si256(x);
        const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
        const __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7FFF)));
        const __m256i nan = _mm256_or_si256(u, _mm256_set1_epi32(0x400000));
        const __m256i isnan = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
        const __m256i v = _mm256_blendv_epi8(r, nan, isnan);
        return _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
    } else {
        return x;
    }
}

} // namespace
} // namespace qs
