#pragma once
// How the CLI and core's English text count things: "1 weight", "3 weights", never "1 weights"
// or "weight(s)". (The GUI counts through tr()'s %n plural forms.)
#include <cstdint>
#include <string>
#include <string_view>

namespace qs {

inline std::string counted(uint64_t n, std::string_view one, std::string_view many)
{
    return std::to_string(n) + ' ' + std::string(n == 1 ? one : many);
}

} // namespace qs
