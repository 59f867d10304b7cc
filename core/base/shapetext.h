#pragma once
// How every message and report writes a tensor shape: "[4096, 11008]".
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace qs {

inline std::string shapeText(std::span<const uint64_t> shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}
inline std::string shapeText(std::initializer_list<uint64_t> shape)
{
    return shapeText(std::span<const uint64_t>(shape.begin(), shape.size()));
}

} // namespace qs
