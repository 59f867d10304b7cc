#pragma once
// What the MLX AVX2 and AVX-512 paths share: the reference's value of eight codes (its two
// roundings to the scale dtype) and the row's scales read with F16C. Only for translation units
// compiled with AVX2 (*_avx2.cpp, *_avx512.cpp).
#include "formats/mlx/mlx.h"
#include "formats/plain/dtyperound_avx2.h"

#include <immintrin.h>

namespace qs {

template <DType T>
inline __m256 mlxDequant8(__m256 q, __m256 vs, __m256 vb)
{
    return roundToDtype8<T>(_mm256_add_ps(roundToDtype8<T>(_mm256_mul_ps(q, vs)), vb));
}

// FloatView::read with F16C for F16 (exact, as halfToFloat).
inline void mlxReadScales(const FloatView& v, uint64_t first, uint64_t count, float* out)
{
    if (v.dtype() != DType::F16) {
        v.read(first, count, out);
        return;
    }
    const uint8_t* p = v.data() + 2 * first;
    uint64_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i))));
    v.read(first + i, count - i, out + i);
}

} // namespace qs
