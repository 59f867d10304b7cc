#include "base/halfrow.h"

#include "base/half.h"

namespace qs {

namespace {
using HalfRowFn = void (*)(const uint16_t*, float*, size_t);
}

void halfToFloatRow(const uint16_t* in, float* out, size_t n, SimdPath path)
{
    if (const auto kernel = simdKernel(
            path, SimdKernels<HalfRowFn>{nullptr, QS_X86(avx2::halfToFloatRow), QS_NEON(neon::halfToFloatRow)}))
        return kernel(in, out, n);
    for (size_t i = 0; i < n; ++i)
        out[i] = halfToFloat(in[i]);
}

void floatToHalfRow(const float* in, uint16_t* out, size_t n, SimdPath path)
{
    using FloatRowFn = void (*)(const float*, uint16_t*, size_t);
    if (const auto kernel = simdKernel(path, SimdKernels<FloatRowFn>{nullptr, QS_X86(avx2::floatToHalfRow)}))
        return kernel(in, out, n);
    for (size_t i = 0; i < n; ++i)
        out[i] = floatToHalf(in[i]);
}

void bf16ToFloatRow(const uint16_t* in, float* out, size_t n, SimdPath path)
{
    if (const auto kernel = simdKernel(
            path, SimdKernels<HalfRowFn>{nullptr, QS_X86(avx2::bf16ToFloatRow), QS_NEON(neon::bf16ToFloatRow)}))
        return kernel(in, out, n);
    for (size_t i = 0; i < n; ++i)
        out[i] = bf16ToFloat(in[i]);
}

} // namespace qs
