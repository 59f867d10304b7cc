#pragma once
// Affine round-to-nearest quantization of a logical weight [N, K] (out x in, row-major):
// symmetric or asymmetric, per tensor, per channel or per group of K, any width 2..8, with an
// optional clipping ratio. Each rule picks scale and zero exactly as its upstream tool does
// (float32 arithmetic, torch.round / rint = round half to even):
//   Gptq:  AutoGPTQ Quantizer.find_params (range always includes 0; sym: z = (maxq+1)/2)
//          and q = clamp(round(w/s) + z, 0, maxq).
//   Awq:   AutoAWQ pseudo_quantize_tensor (asym: s = max(max-min, 1e-5)/maxq,
//          z = clamp(-round(min/s), 0, maxq); sym: s = max(|w|max, 1e-5)/(2^(b-1)-1)).
//   CompressedTensors: calculate_qparams + _quantize (signed codes, q = round(clamp(w/s + zp))).
//   Mlx:   mlx affine quantize (scale signed so the larger-magnitude edge is exact, bias = edge).
// Codes are unsigned (0..2^b-1); compressed-tensors' signed q is stored as q + 2^(b-1).
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
    uint64_t groupSize = 128;  // Group only: weights of one row of K that share a scale
    bool symmetric = false;
    float clipRatio = 1.0f;    // (0, 1]: the min/max range is multiplied by it before the scale is chosen
    AffineRule rule = AffineRule::Gptq;
};

struct AffineQuantized {
    uint64_t rows = 0;        // N
    uint64_t cols = 0;        // K
    int bits = 0;
    uint64_t groupSize = 0;   // effective: K for per channel and per tensor
    uint64_t groups = 0;      // G = ceil(K / groupSize)
    AffineRule rule = AffineRule::Gptq;
    std::vector<uint8_t> codes; // [N, K]
    std::vector<float> scales;  // [G, N]
    // [G, N]: the real zero point z in code units (w = s * (q - z)); for Mlx the float bias
    // (w = s * q + bias).
    std::vector<float> zeros;

    uint64_t group(uint64_t k) const { return k / groupSize; }
};

// Throws qs::Error on bits outside 2..8, a zero group size, a clip ratio outside (0, 1], an
// Mlx group size that does not divide K, or a size that overflows.
AffineQuantized quantizeAffine(const float* w, uint64_t rows, uint64_t cols, const AffineOptions& opt,
                               bool parallel = true);

// The float32 weight the codes stand for: s * (q - z), or s * q + bias for Mlx.
std::vector<float> dequantizeAffine(const AffineQuantized& q);

} // namespace qs
