#pragma once
// What the affine-code targets (GPTQ, AWQ GEMM, compressed-tensors, MLX affine) share when
// quantize and repack write them (formats/target.h): the scheme from the user's options,
// one weight quantized and packed, logical codes as an AffineQuantized for packAffine.
#include "formats/affine/quantize_affine.h"

namespace qs {

struct WeightCodes;

// bits (default 4), group size (default `defaultGroup`; -1 per channel) and symmetry
// (default `defaultSymmetric`) of `s`; throws qs::Error for a group size of 0 or below -1.
void affineScheme(const QuantizeRequest& request, int64_t defaultGroup, bool defaultSymmetric, QuantScheme& s);

// The groups of `s` along K = cols: per channel (K) or s.groupSize.
uint64_t affineGroupSize(const QuantScheme& s, uint64_t cols);

// One float weight [rows, cols] quantized with `rule` and packed as `target`, scales in `scaleType`.
std::vector<StoredTensor> quantizeAffineTensors(const QuantScheme& s, const float* weight, uint64_t rows, uint64_t cols,
                                                AffineRule rule, AffineTarget target, DType scaleType, bool parallel);

// The Playground's run of an affine target (PlaygroundAffineFormat::run): quantizeAffine with
// the options, dequantizeAffine, and packAffine as the target that writes `format`.
PlaygroundAffineRun affinePlaygroundRun(const FormatInfo& format, const float* values, uint64_t rows, uint64_t cols,
                                        const AffineOptions& options, DType scaleType);

// Logical codes with integer zeros as packAffine takes them (zeros as floats; MLX callers
// replace them with biases).
AffineQuantized affineFromCodes(const WeightCodes& codes, AffineRule rule);

} // namespace qs
