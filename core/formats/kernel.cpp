#include "formats/kernel.h"

#include "base/error.h"

namespace qs {

const TensorEntry& WeightData::entry(std::string_view role) const
{
    const int i = weight.member(role);
    if (i < 0)
        throw Error("weight '" + weight.name + "' (" + weight.format + "): no '" + std::string(role) + "' tensor");
    return ckpt.tensors.at(static_cast<size_t>(i));
}

std::span<const uint8_t> WeightData::bytes(std::string_view role) const
{
    return ckpt.bytes(entry(role));
}

} // namespace qs
