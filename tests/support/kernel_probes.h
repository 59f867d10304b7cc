#pragma once
// The seed probes: patterned (7*row + 3*col) mod 2^bits, random codes, all-max codes.
#include <cstdint>
#include <random>
#include <vector>

namespace qsk {

enum class Probe { Patterned, Random, AllMax };

inline std::vector<unsigned> probeCodes(Probe p, uint64_t rows, uint64_t cols, int bits, uint32_t seed = 7)
{
    std::vector<unsigned> q(rows * cols);
    const unsigned max = (1u << bits) - 1;
    std::mt19937 rng(seed);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            q[r * cols + c] = p == Probe::Patterned ? static_cast<unsigned>((7 * r + 3 * c) % (max + 1ull))
                : p == Probe::AllMax                ? max
                                                    : static_cast<unsigned>(rng() & max);
    return q;
}

inline const char* probeName(Probe p)
{
    return p == Probe::Patterned ? "patterned" : p == Probe::AllMax ? "allmax" : "random";
}

// f32 product of two floats, computed independently of the kernels: the double product of
// two floats is exact, so one rounding to float is the IEEE f32 product.
inline float mul32(float a, float b)
{
    return static_cast<float>(static_cast<double>(a) * static_cast<double>(b));
}
inline float add32(float a, float b)
{
    return static_cast<float>(static_cast<double>(a) + static_cast<double>(b));
}

} // namespace qsk
