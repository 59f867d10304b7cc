#pragma once
// Affine integer codes with per-group scales and zeros: what the affine quantizer
// (formats/affine/quantize_affine.h) takes and returns, and what the Playground shows
// (analysis/playground.h). The rules themselves are the affine folder's.
#include "container/dtype.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace qs {

enum class AffineRule { Gptq, Awq, CompressedTensors, Mlx };
std::string_view affineRuleName(AffineRule r);

enum class AffineGranularity { Tensor, Channel, Group };

struct AffineOptions {
    int bits = 4;
    AffineGranularity granularity = AffineGranularity::Group;
    uint64_t groupSize = 128; // Group only: weights of one row of K that share a scale
    bool symmetric = false;
    float clipRatio = 1.0f; // (0, 1]: the min/max range is multiplied by it before the scale is chosen
    AffineRule rule = AffineRule::Gptq;
    // F32: codes and zeros against the float32 scale, as the upstream quantizers compute them.
    // F16/BF16: the scale (and MLX bias) is rounded to the stored type first (a zero scale
    // becomes the smallest positive value) and zeros and codes are computed against it, so
    // the stored values dequantize to the nearest grid point.
    DType codeScale = DType::F32;
    // Act-order: the group of each input column (K entries, 0 .. G-1); empty = k / groupSize.
    // Group granularity with the Gptq, Awq or CompressedTensors rule only.
    std::vector<int32_t> groupIndex;
};

struct AffineQuantized {
    uint64_t rows = 0; // N
    uint64_t cols = 0; // K
    int bits = 0;
    uint64_t groupSize = 0; // effective: K for per channel and per tensor
    uint64_t groups = 0; // G = ceil(K / groupSize)
    AffineRule rule = AffineRule::Gptq;
    bool symmetric = false;
    std::vector<uint8_t> codes; // [N, K]
    std::vector<float> scales; // [G, N]
    // [G, N]: the real zero point z in code units (w = s * (q - z)); for Mlx the float bias
    // (w = s * q + bias).
    std::vector<float> zeros;

    std::vector<int32_t> groupIndex; // as given in the options (empty: k / groupSize)

    uint64_t group(uint64_t k) const { return groupIndex.empty() ? k / groupSize : uint64_t(groupIndex[k]); }
};

} // namespace qs
