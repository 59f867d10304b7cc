#include "base/intmath.h"

#include "base/error.h"

namespace qs {

std::optional<uint64_t> mulChecked(uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

uint64_t checkedMul(uint64_t a, uint64_t b, const std::string& what)
{
    const std::optional<uint64_t> r = mulChecked(a, b);
    if (!r)
        throw Error(what + ": size overflows 64 bits");
    return *r;
}

std::optional<uint64_t> checkedProduct(std::span<const uint64_t> dims)
{
    for (uint64_t d : dims)
        if (d == 0)
            return 0;
    uint64_t n = 1;
    for (uint64_t d : dims)
        if (__builtin_mul_overflow(n, d, &n))
            return std::nullopt;
    return n;
}

} // namespace qs
