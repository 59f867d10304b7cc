#pragma once
// Format detection: groups stored tensors into logical weights and names their format
// (../shared/spec/safetensors-quant.md Part C; GGUF tensors map one to one).
//
// Detection reads names, dtypes, shapes and the configs; besides those it reads only small
// tensors (qzeros, g_idx, bnb quant_state JSON, weight_shape, HQQ scalars), never the codes.
// When the config and the tensors disagree the tensors win and a note on the weight says so.
#include "container/logicalweight.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace qs {

class Checkpoint;
std::vector<LogicalWeight> detectWeights(const Checkpoint& ckpt);

// Notes starting with this (and params["zero_convention"] = "mixed") say a GPTQ checkpoint
// mixes the v1 (z - 1) and v2 (z) zero conventions, within a weight or across weights;
// verify and diff report them as warnings.
inline constexpr const char* kZeroConventionNote = "zero convention:";
// Notes starting with this mark a plain tensor whose name says it belongs to a quantized weight
// (qweight, qzeros, scales, g_idx, ...) that detection could not assemble; verify reports them.
inline constexpr const char* kStrayMemberNote = "stray member:";
// Notes starting with this mark a weight whose shape detection refused: its products overflow
// 64 bits, its dimensions span more elements than its stored bytes can hold (64 a byte: 1/8 bit
// a weight, below every format), or a shape from a config, JSON or side tensor disagrees with
// the stored data. The note names the format and shape claimed and why; the weight's shape is
// then unknown (empty) and a decodable format becomes "unknown", so that nothing loops over,
// allocates for or half-writes a shape nobody checked. verify reports the note as an error.
inline constexpr const char* kRefusedShapeNote = "shape refused:";
// The kRefusedShapeNote note of a weight, or nullptr.
const Message* refusedShape(const LogicalWeight& w);
// What a consumer loops over for `shape`: its product with each 0 counted as 1 (an empty weight's
// rows or columns are still walked), or nullopt when that overflows 64 bits.
std::optional<uint64_t> shapeSpan(std::span<const uint64_t> shape);
// The largest span detection leaves a weight of `storedBytes` (more is refused, kRefusedShapeNote):
// 64 elements a stored byte (the densest format stores more than 1/8 bit a weight: AQLM 1x8 over
// 4x4 tiles 1/2 bit, IQ1_S 1.56 bits), and at least 2^16 for a weight with nothing stored.
uint64_t maxShapeSpan(uint64_t storedBytes);

// Stored bytes and logical elements summed over a set of weights; bpw = bytes*8/elements.
struct BitsSummary {
    uint64_t storedBytes = 0;
    uint64_t elements = 0;
    uint64_t weights = 0;
    double bitsPerWeight() const;
};
// All logical weights, or only those whose format is quantized.
BitsSummary summarizeBits(const std::vector<LogicalWeight>& weights, bool quantizedOnly = false);

} // namespace qs
