#pragma once
// Integer helpers the layouts, kernels and packers share.
#include <cstdint>

namespace qs {

// ceil(a / b) without the overflow of (a + b - 1) / b; b must not be 0.
inline uint64_t ceilDiv(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

} // namespace qs
