#pragma once
// How every message and report writes a tensor shape: "[4096, 11008]".
#include <cstdint>
#include <string>
#include <vector>

namespace qs {

inline std::string shapeText(const std::vector<uint64_t>& shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

} // namespace qs
