#pragma once
// Sixteen floats rounded to a scale dtype and back, as roundToDtype8 (dtyperound_avx2.h) does
// eight: F16 by vcvtps2ph round-to-nearest-even, BF16 by integer RNE with NaNs kept quiet
// (payload truncated), F32 unchanged. Only inside an AVX-512 tier region (base/simd_tier.h).
#include "container/dtype.h"

#include <immintrin.h>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

template <DType T>
inline __m512 roundToDtype16(__m512 x)
{
    if constexpr (T == DType::F16) {
        return _mm512_cvtph_ps(_mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    } else if constexpr (T == DType::BF16) {
        const __m512i u = _mm512_castps_si512(x);
        const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
        const __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF)));
        const __m512i v =
            _mm512_mask_or_epi32(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), u, _mm512_set1_epi32(0x400000));
        return _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
    } else {
        return x;
    }
}

} // namespace
} // namespace qs
