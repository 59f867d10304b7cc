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
#include "formats/affinecodes.h"
#include "formats/target.h" // StoredTensor

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

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
