// NEON rows of f16 / bf16 -> f32 (arm64), bit for bit the scalar conversions of half.h.
#include "base/halfrow.h"

#include "base/half.h"
#include "base/half_neon.h"

namespace qs::neon {

void halfToFloatRow(const uint16_t* in, float* out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        halves8(reinterpret_cast<const uint8_t*>(in + i), out + i);
    for (; i < n; ++i)
        out[i] = halfToFloat(in[i]);
}

void bf16ToFloatRow(const uint16_t* in, float* out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        bf16s8(reinterpret_cast<const uint8_t*>(in + i), out + i);
    for (; i < n; ++i)
        out[i] = bf16ToFloat(in[i]);
}

} // namespace qs::neon
