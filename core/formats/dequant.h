#pragma once
// The dequantization dispatcher: format id -> the family's DequantRowsFn, plus whole-weight
// helpers (parallel over row chunks) and the logical codes/scales/zeros for `codes`.
// Families add their formats to the table in dequant.cpp (one line per format id).
#include "formats/kernel.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// nullptr when no kernel handles the format.
DequantRowsFn dequantFunction(std::string_view formatId);
bool canDequantize(std::string_view formatId);
std::vector<std::string> dequantFormats(); // every id in the table (gguf-* as one prefix entry)

// Rows [rowBegin, rowEnd) of the logical [outFeatures, inFeatures] matrix into `out`.
// Throws qs::Error (unknown format, bad rows, malformed tensors).
void dequantizeRows(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t rowBegin, uint64_t rowEnd,
                    float* out, SimdPath path);
// The whole weight into `out` (outFeatures * inFeatures floats), OpenMP across L2-sized row
// chunks; threads <= 0 uses the OpenMP default. Not for the GUI thread (see anchors.md).
void dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, float* out, SimdPath path,
                      int threads = 0);
std::vector<float> dequantizeWeight(const Checkpoint& ckpt, const LogicalWeight& weight, SimdPath path,
                                    int threads = 0);

// What `quantscope-cli codes` writes: the logical integer codes [out, in] and the per-group
// parameters as the reader uses them (true zeros, after the v1 +1 rule). Signed codes
// (compressed-tensors, bnb int8) are given as q + 2^(b-1) with zeros in the same space.
// bnb 4-bit blocks and HQQ axis-1 groups become per-row groups when they tile the rows
// (else groups = 0 and g_idx -1: codes only); MLX gives biases, HQQ's float zeros are not included.
struct WeightCodes {
    uint64_t rows = 0, cols = 0;
    std::vector<uint8_t> codes;             // [rows, cols]
    uint64_t groups = 0;
    std::vector<float> scales;              // [groups, rows], float32 values of the stored scales
    std::vector<int32_t> zeros;             // [groups, rows] integer zeros (empty when none)
    std::vector<float> biases;              // [groups, rows] float zero terms (GEMV_FAST: -s*z)
    std::vector<int32_t> gIdx;              // [cols] group of each input channel
};
// Throws qs::Error for formats without integer codes.
WeightCodes extractCodes(const Checkpoint& ckpt, const LogicalWeight& weight);

} // namespace qs
