#pragma once
// Round-to-nearest affine quantization of a logical weight [rows = out_features,
// cols = in_features], one scale and zero point per (group, row), groups along the input
// axis. The result is the logical matrix of codes, scales and zeros that GPTQ and AWQ
// pack; packing into words is the formats' business. Scales are rounded to f16 first and
// the codes computed with the rounded scale, so dequantizing the stored values gives the
// closest grid point.
#include <cstdint>
#include <span>
#include <vector>

namespace qs {

struct RtnOptions {
    int bits = 4;                    // 1..8
    int64_t groupSize = 128;         // <= 0: one group per row
    // Symmetric (GPTQ sym): scale = 2·max|w| / (2^b − 1), zero = 2^(b−1).
    // Asymmetric (AWQ's rule): scale = max(max − min, 1e−5) / (2^b − 1),
    // zero = clamp(−round(min / scale), 0, 2^b − 1).
    bool symmetric = true;
    std::vector<int32_t> groupIndex; // g_idx [cols] (act-order); empty: k / groupSize
};

struct RtnResult {
    int bits = 0;
    uint64_t rows = 0, cols = 0, groups = 0;
    std::vector<uint8_t> codes;       // [rows][cols], 0 .. 2^b − 1
    std::vector<uint16_t> scales;     // f16 bits, [groups][rows] (the GPTQ/AWQ orientation)
    std::vector<uint8_t> zeros;       // true zero points, [groups][rows]
    std::vector<int32_t> groupIndex;  // [cols]

    uint8_t code(uint64_t r, uint64_t c) const { return codes[r * cols + c]; }
    float scale(uint64_t g, uint64_t r) const;
    uint8_t zero(uint64_t g, uint64_t r) const { return zeros[g * rows + r]; }
    // s · (q − z) in f32, as the GPTQ/AWQ reference dequantizers compute it before rounding.
    float dequant(uint64_t r, uint64_t c) const;
};

// Throws std::invalid_argument on bad sizes, bits or group indices.
RtnResult quantizeRtn(std::span<const float> weights, uint64_t rows, uint64_t cols, const RtnOptions& options);

} // namespace qs
