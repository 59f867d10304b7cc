#pragma once
// FloatView::read with F16C for F16 (exact, as halfToFloat): the scale rows of the MLX and HQQ
// kernels. Only inside a tier region (base/simd_tier.h).
#include "formats/kernelutil.h"

#include <immintrin.h>

namespace qs {
namespace { // one copy per tier file: see base/simd_tier.h

inline void readFloatsF16c(const FloatView& v, uint64_t first, uint64_t count, float* out)
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

} // namespace
} // namespace qs
