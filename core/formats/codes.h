#pragma once
// A weight's logical integer codes with the per-group parameters the reader uses, as every
// family with integer codes gives them (FamilyRow::codes).
#include "container/dtype.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace qs {

// A weight's logical codes: what `quantscope-cli codes` writes and what repack re-encodes
// (analysis/repack.h). The logical integer codes [out, in] and the per-group parameters as
// the reader uses them (true zeros, after the v1 +1 rule). Signed codes (compressed-tensors,
// bnb int8) are given as q + 2^(b-1) with zeros in the same space. bnb 4-bit blocks and HQQ
// axis-1 groups become per-row groups when they tile the rows (else groups = 0 and g_idx -1:
// codes only); MLX gives biases, HQQ's float zeros are not included.
struct WeightCodes {
    uint64_t rows = 0, cols = 0;
    int bits = 0; // code width
    std::vector<uint8_t> codes; // [rows, cols] (may be empty with CodeParts::Groups)
    uint64_t groups = 0;
    uint64_t groupSize = 0; // input channels per group; 0 without per-row groups
    std::vector<float> scales; // [groups, rows], float32 values of the stored scales
    DType scaleType = DType::F32; // the stored scales' dtype
    std::vector<int32_t> zeros; // [groups, rows] integer zeros (empty when none)
    std::vector<float> biases; // [groups, rows] float zero terms (GEMV_FAST: -s*z)
    std::vector<int32_t> gIdx; // [cols] group of each input channel

    bool symmetric() const; // every zero is 2^(bits-1)
    bool actOrder() const; // g_idx is not k / groupSize
};

// What FamilyRow::codes reads: everything, or the groups only (shape, scales, zeros, g_idx;
// a family may leave the codes out, which repack's GGUF header pass uses).
enum class CodeParts : uint8_t { All, Groups };

// Fills groups, scales and gIdx with groups along K of `groupSize` flat elements when they
// tile every row; else no per-row groups exist (blocks straddle rows): codes only, g_idx -1.
void rowGroups(WeightCodes& c, uint64_t groupSize, const std::function<float(uint64_t flatGroup)>& scale);

} // namespace qs
