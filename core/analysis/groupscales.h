#pragma once
// The per-group parameters of a quantized weight as a grid for a heatmap: one scale (and zero
// or minimum, when the format stores one) per (group, output row). Read through the kernels'
// own descriptions of each format, so the values are exactly what the dequantizer uses.
// Also the min/max decimation that turns a huge grid into at most R x C heatmap cells.
// The readers live in the family folders (<family>_scales.cpp, FamilyRow::groupScales); the grid
// type in formats/scalegrid.h.
#include "container/checkpoint.h"
#include "formats/scalegrid.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace qs {

// True when groupScales() can read the format (GPTQ, AWQ, Marlin, MLX affine,
// compressed-tensors packed/int, bitsandbytes NF4/FP4 with K a multiple of the block size,
// GGUF block types with a scale field).
bool hasGroupScales(const Checkpoint& ckpt, const LogicalWeight& weight);
// Throws qs::Error naming the file and weight for float weights, formats without per-group
// parameters and malformed tensors. `cancel` is polled between rows; a cancelled call throws
// Cancelled (base/progress.h).
GroupScales groupScales(const Checkpoint& ckpt, const LogicalWeight& weight,
                        GgufScaleLevel level = GgufScaleLevel::Block, const std::atomic<bool>* cancel = nullptr);
// True for GGUF k-quant types whose blocks carry integer sub-block scales.
bool hasGgufSubBlockScales(const Checkpoint& ckpt, const LogicalWeight& weight);

enum class CellReduce { MaxAbs, Min, Max };

// A grid [rows, cols] reduced to at most maxRows x maxCols cells, each covering a
// rowStep x colStep block (the last ones may be smaller). Non-finite values are skipped; a
// cell with none is NaN. lo/hi: the range of the finite cells (0, 0 when there are none).
struct DecimatedGrid {
    uint64_t rows = 0, cols = 0; // cells
    uint64_t rowStep = 1, colStep = 1; // source elements per cell along each axis
    std::vector<float> cells; // [rows, cols]: of the finite values covered; NaN where there is none
    float lo = 0, hi = 0; // of the finite cells
    // Source values that are NaN or Inf, the first one's place in the source grid, and the cells
    // covering one ([rows, cols], empty when there is none), which a heatmap draws as such.
    uint64_t nonFinite = 0, firstNonFiniteRow = 0, firstNonFiniteCol = 0;
    std::vector<bool> coversNonFinite;
};
DecimatedGrid decimateGrid(const std::vector<float>& grid, uint64_t rows, uint64_t cols, uint64_t maxRows,
                           uint64_t maxCols, CellReduce reduce);

} // namespace qs
