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
#include "container/dtype.h"
#include "formats/target.h" // StoredTensor

#include <cstdint>
#include <string>
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

// Throws qs::Error on bits outside 1..8 (2..8 for compressed-tensors and symmetric AWQ), a
// bad group index, a zero group size, a clip ratio outside (0, 1], an
// Mlx group size that does not divide K, or a size that overflows.
AffineQuantized quantizeAffine(const float* w, uint64_t rows, uint64_t cols, const AffineOptions& opt,
                               bool parallel = true);

// The float32 weight the codes stand for: s * (q - z), or s * q + bias for Mlx.
std::vector<float> dequantizeAffine(const AffineQuantized& q);

// Stored formats, packed with the project's packers (formats/gptq/gptq.h, base/bitstream.h):
//   GptqV1 / GptqV2: qweight, qzeros (v1 holds z - 1: a zero of 0 is refused), scales, g_idx;
//   AwqGemm: qweight, qzeros, scales (4 bits, N % 8 == 0, whole groups);
//   CompressedTensors: weight_packed, weight_scale [N, G], weight_zero_point (asymmetric),
//                      weight_shape (the rule must be CompressedTensors: zeros are signed there);
//   Mlx: weight (U32 stream along K), scales, biases (the rule must be Mlx).
enum class AffineTarget { GptqV1, GptqV2, AwqGemm, CompressedTensors, Mlx };
// The format id (formats/formatid.h) the target writes: "gptq-v1", ..., "mlx-affine".
std::string_view affineTargetName(AffineTarget t);

// Scales (and MLX biases) are rounded once to `scaleType` (F16, BF16 or F32; GPTQ and AWQ
// take F16 or BF16). Throws qs::Error when the target cannot hold the quantization.
std::vector<StoredTensor> packAffine(const AffineQuantized& q, AffineTarget target, DType scaleType = DType::F16);

} // namespace qs
