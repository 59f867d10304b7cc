#pragma once
// What the MLX AVX2 and AVX-512 paths share: the reference's value of eight codes (its two
// roundings to the scale dtype); the row's scales are read with readFloatsF16c. Only inside a tier
// region (base/simd_tier.h).
#include "formats/mlx/mlx.h"
#include "formats/plain/dtyperound_avx2.h"
#include "formats/plain/floatread_avx2.h"

#include <immintrin.h>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

template <DType T>
inline __m256 mlxDequant8(__m256 q, __m256 vs, __m256 vb)
{
    return roundToDtype8<T>(_mm256_add_ps(roundToDtype8<T>(_mm256_mul_ps(q, vs)), vb));
}

} // namespace
} // namespace qs
