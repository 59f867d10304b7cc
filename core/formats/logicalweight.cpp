#include "formats/logicalweight.h"

namespace qs {

uint64_t LogicalWeight::inFeatures() const
{
    return shape.empty() ? 1 : shape.back();
}

uint64_t LogicalWeight::outFeatures() const
{
    uint64_t n = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i)
        n *= shape[i];
    return n;
}

uint64_t LogicalWeight::elementCount() const
{
    uint64_t n = 1;
    for (uint64_t d : shape)
        n *= d;
    return n;
}

double LogicalWeight::bitsPerWeight() const
{
    const uint64_t n = elementCount();
    return n ? double(storedBytes) * 8.0 / double(n) : 0.0;
}

int LogicalWeight::member(std::string_view role) const
{
    for (const auto& [r, idx] : members)
        if (r == role)
            return static_cast<int>(idx);
    return -1;
}

} // namespace qs
