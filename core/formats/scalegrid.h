#pragma once
// The per-group parameters of a quantized weight as a grid: one scale (and zero or minimum,
// when the format stores one) per (group, output row). Each family fills it in
// <family>_scales.cpp (reached through FamilyRow::groupScales); analysis/groupscales.h reads it.
#include "base/message.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace qs {

class Checkpoint;
struct LogicalWeight;

struct GroupScales {
    std::string weight;
    std::string format;
    uint64_t rows = 0; // N: output features
    uint64_t cols = 0; // K: input features
    uint64_t groups = 0; // groups per row (GGUF: blocks, or sub-blocks, per row)
    uint64_t groupSize = 0; // input columns per group (GGUF: weights per block or sub-block)
    // Grids [groups, rows]: element (g, n) at g * rows + n.
    std::vector<float> scales;
    std::vector<float> zeros; // empty when the format stores no zero, minimum or bias
    // What the grids hold, for labels: "scale", "zero point (code units)", "Q4_0 block scale d" ...
    Message scaleMeaning;
    Message zeroMeaning;
    // Act-order: the group of each input column; empty when group g covers columns
    // [g * groupSize, (g + 1) * groupSize).
    std::vector<int32_t> gIdx;
    // What verify's findings call them: the groups are the format's blocks (GGUF block level,
    // bitsandbytes), named by their stored index row * groups + g; the scale is an absmax
    // (bitsandbytes).
    bool blocks = false;
    bool absmax = false;

    float scaleAt(uint64_t g, uint64_t n) const { return scales[g * rows + n]; }
    float zeroAt(uint64_t g, uint64_t n) const { return zeros[g * rows + n]; }
    // The first input column that belongs to group g (act-order: the lowest such k), or
    // cols when no column does.
    uint64_t firstColumn(uint64_t g) const;
};

enum class GgufScaleLevel {
    Block, // the block's d (and m / dmin): one per block
    SubBlock, // k-quants: the stored integer sub-block scales (and mins), one per sub-block
};

// One weight's per-group parameters. Throws qs::Error naming the file and weight on malformed
// tensors; `cancel` is polled between rows (a cancelled call throws Cancelled, base/progress.h). Only GGUF k-quants
// read `level`.
using GroupScalesFn = GroupScales (*)(const Checkpoint& ckpt, const LogicalWeight& weight, GgufScaleLevel level,
                                      const std::atomic<bool>* cancel);

} // namespace qs
