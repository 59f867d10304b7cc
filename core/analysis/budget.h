#pragma once
// Effective bits per weight and memory budgets. A format's cost is everything it stores for
// one logical weight [N, K] (out x in): codes, scales, zeros, g_idx, shape tensors, lookup
// tables, block headers and word padding, over N * K. Per-layer extras (g_idx, quant_map)
// depend on the layer shape, so every figure names the [N, K] it was amortised over.
#include "formats/layoutspec.h"
#include "formats/target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qs {

// BudgetFormat (one row of the table) is in formats/target.h: each family gives its rows, each
// a LayoutSpec at a code width and group size with the tensors it stores.

// Bytes one [N, K] weight occupies in the format: its spec's tensors at those dimensions.
// Throws qs::Error when the spec refuses the shape (formats/layoutsize.h layoutRefusal: a GGUF
// row that is not a whole number of blocks, MLX/AWQ group not dividing K).
uint64_t budgetStoredBytes(const BudgetFormat& f, uint64_t n, uint64_t k);
// budgetStoredBytes * 8 / (N * K).
double budgetBitsPerWeight(const BudgetFormat& f, uint64_t n, uint64_t k);
// The per-weight cost with the per-layer constants dropped (what the format costs as N and K
// grow), read off the same tensors: e.g. Q4_K 4.5, GPTQ-4 g128 4 + 4/128 + 16/128.
double asymptoticBitsPerWeight(const BudgetFormat& f);
// Human summary of where the bits go: "4 code + 0.125 scale + 0.03125 zero + 0.0078 g_idx".
std::string budgetBreakdown(const BudgetFormat& f, uint64_t n, uint64_t k);

// Every format of the budget table, the families' rows in FormatFamily order: F32/F16/BF16,
// every GGUF type with a block size, GPTQ 2/3/4/8 x g32/g64/g128/channel, AWQ 4 x
// g32/g64/g128, compressed-tensors w4 (sym/asym, g32/g128/channel) and w8 channel, MLX
// 2/3/4/5/6/8 x g32/g64/g128, bnb NF4/FP4 with and without nested absmax, bnb int8.
std::vector<BudgetFormat> budgetFormats();
const BudgetFormat* budgetFormat(const std::string& id);
// The row the layout report of `spec` at `p` compares its own count with: a GGUF spec's row of
// the same id, else the row naming the spec in `reportedBy` at the same bits and group size
// (per channel when the group is 0 or spans K); nullptr when the table has none.
const BudgetFormat* reportedBudgetFormat(const LayoutSpec& spec, const LayoutParams& p);

inline constexpr double kBytesPerGB = 1e9;
inline constexpr double kBytesPerGiB = 1073741824.0;
// 1B, 7B, 13B, 70B, 405B.
std::vector<uint64_t> budgetDefaultParamCounts();

struct BudgetRow {
    BudgetFormat format;
    double bitsPerWeight = 0;
    double bytes = 0; // params * bitsPerWeight / 8
    double gb = 0;
    double gib = 0;
    std::optional<bool> fits; // set when a memory size was given
};

// One row per format for `params` weights, each weight costing what it costs in a layer of
// [layerN, layerK] (default 4096 x 4096). `memoryGiB` marks which fit.
std::vector<BudgetRow> budgetTable(uint64_t params, std::optional<double> memoryGiB = std::nullopt,
                                   uint64_t layerN = 4096, uint64_t layerK = 4096);

} // namespace qs
