#pragma once
// Integer helpers the layouts, kernels and packers share, and the checked arithmetic every size
// that comes from a file goes through (a shape, a count, a product of them): DESIGN's "every
// offset, length, count and shape from a file is checked before use (overflow included)".
// Only ceilDiv is inline: the rest lives in intmath.cpp, out of the SIMD tiers' objects.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace qs {

// ceil(a / b) without the overflow of (a + b - 1) / b; b must not be 0.
inline uint64_t ceilDiv(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

// a * b, or nullopt when the product does not fit 64 bits.
std::optional<uint64_t> mulChecked(uint64_t a, uint64_t b);
// a * b; throws qs::Error "<what>: size overflows 64 bits" when it does not fit.
uint64_t checkedMul(uint64_t a, uint64_t b, const std::string& what);
// The product of `dims` (1 for none, 0 when one is 0), or nullopt when it does not fit 64 bits.
std::optional<uint64_t> checkedProduct(std::span<const uint64_t> dims);

} // namespace qs
