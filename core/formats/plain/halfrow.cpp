#include "formats/plain/halfrow.h"

#include "base/half.h"

namespace qs {

void halfToFloatRow(const uint16_t* in, float* out, size_t n, SimdPath path)
{
    if (hasAvx2(path))
        return avx2::halfToFloatRow(in, out, n);
    for (size_t i = 0; i < n; ++i)
        out[i] = halfToFloat(in[i]);
}

void floatToHalfRow(const float* in, uint16_t* out, size_t n, SimdPath path)
{
    if (hasAvx2(path))
        return avx2::floatToHalfRow(in, out, n);
    for (size_t i = 0; i < n; ++i)
        out[i] = floatToHalf(in[i]);
}

void bf16ToFloatRow(const uint16_t* in, float* out, size_t n, SimdPath path)
{
    if (hasAvx2(path))
        return avx2::bf16ToFloatRow(in, out, n);
    for (size_t i = 0; i < n; ++i)
        out[i] = bf16ToFloat(in[i]);
}

} // namespace qs
