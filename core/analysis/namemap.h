#pragma once
// Hugging Face <-> GGUF tensor names for llama-family architectures, as llama.cpp's
// convert_hf_to_gguf.py and gguf-py's tensor_mapping.py name them, and the two value
// transforms that converter applies on the way: the q/k row permutation of LlamaModel
// (rotate-half -> interleaved rope pairs) and Gemma's "+1" baked into RMSNorm weights.
// Then the pairing of two checkpoints' weights that diff, stats --ref, report --ref and the
// GUI's Diff and Error views share (matchWeights), and the loader that brings one side of a
// pair into Hugging Face row order and values (loadMatchedRows).
#include "base/simd.h"
#include "container/checkpoint.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// general.architecture of a GGUF, else config.json's model_type (lowercase); "" when neither.
std::string checkpointArchitecture(const Checkpoint& ckpt);
// Mistral, Mixtral and friends convert to GGUF arch "llama"; the name table and the
// transforms are keyed on the GGUF arch.
std::string ggufArchOf(std::string_view arch);

struct HeadCounts {
    uint64_t heads = 0; // 0 = unknown
    uint64_t headsKv = 0; // equals heads when the checkpoint does not say
};
// "<arch>.attention.head_count[_kv]" from GGUF metadata, else num_attention_heads /
// num_key_value_heads from config.json.
HeadCounts headCounts(const Checkpoint& ckpt);

// A Hugging Face name ("model.layers.3.self_attn.q_proj.weight", or the module prefix
// "model.layers.3.self_attn.q_proj" a quantized weight carries) to its GGUF name
// ("blk.3.attn_q.weight", or "blk.3.attn_q"); the ".weight"/".bias" suffix is kept as given.
// "" when the name has no GGUF counterpart for `arch`.
std::string hfToGguf(std::string_view hfName, std::string_view arch);
// The inverse: "blk.3.ffn_down.weight" -> "model.layers.3.mlp.down_proj.weight".
std::string ggufToHf(std::string_view ggufName, std::string_view arch);

// What llama.cpp's converter did to the values of a tensor, given its GGUF name.
struct GgufTransform {
    // The converter permuted the rows (LlamaModel.permute(W, n, n)) with n = n_head for
    // attn_q and n_head_kv for attn_k; permuteHeads is that n, 0 when the counts are unknown.
    bool permuted = false;
    uint64_t permuteHeads = 0;
    // GGUF value = HF value + normShift (Gemma RMSNorm weights: 1).
    float normShift = 0;
};
// `heads` from headCounts() of either checkpoint; permuteHeads stays 0 when they are unknown.
GgufTransform ggufTransform(std::string_view ggufName, std::string_view arch, const HeadCounts& heads);

// LlamaModel.permute: W.reshape(n, 2, rows/n/2, K).swapaxes(1, 2). GGUF row of HF row `r`;
// requires rows % (2 n) == 0.
uint64_t permutedRow(uint64_t r, uint64_t rows, uint64_t heads);
// Undoes the permutation on a block of whole heads: `in` holds GGUF rows [r0, r0 + n) of a
// weight whose head block is `headRows` = rows / heads (r0 and n multiples of headRows);
// `out` receives the same HF rows in HF order. cols floats per row.
void unpermuteRows(const float* in, float* out, uint64_t n, uint64_t cols, uint64_t headRows);

// How one side's dequantized rows are brought into Hugging Face order and values.
struct SideTransform {
    uint64_t permuteHeads = 0; // > 0: the side is a GGUF q/k weight permuted for this many heads
    float normShift = 0; // subtracted from every value (Gemma norms in GGUF: 1)
};

struct WeightPair {
    const LogicalWeight* a = nullptr;
    const LogicalWeight* b = nullptr;
    SideTransform ta, tb;
    std::string note; // "q/k permutation undone (32 heads)", "gemma norm +1 undone", ...
};

struct ShapeMismatch {
    std::string nameA, nameB;
    std::vector<uint64_t> shapeA, shapeB;
};

struct SkippedPair {
    std::string nameA, nameB;
    std::string reason; // no dequantizer for a format, q/k heads unknown, ...
};

struct WeightMatch {
    std::vector<WeightPair> pairs; // in A's order
    std::vector<std::string> onlyInA, onlyInB;
    std::vector<ShapeMismatch> shapeMismatches;
    std::vector<SkippedPair> skipped;
};

// Pairs the logical weights of `a` and `b`: by name with a trailing ".weight" ignored (a
// quantized weight is named by its module prefix, a float one by its tensor name); when
// exactly one side is GGUF, every name that hfToGguf maps (for the GGUF side's architecture)
// is compared as its GGUF name, so a GGUF that llama.cpp's converter named pairs with its
// Hugging Face source and so does one that keeps the Hugging Face names (repack's output). `weightFilter` (empty = all)
// keeps the pairs where either name, with or without ".weight", equals it.
WeightMatch matchWeights(const Checkpoint& a, const Checkpoint& b, const std::string& weightFilter = {});

// Rows [r0, r1) of one side of a pair, dequantized and brought into Hugging Face order and
// values; `tmp` holds as many floats as `out` ((r1 - r0) * K). With t.permuteHeads, r0 and r1
// are multiples of the head block rows / t.permuteHeads.
void loadMatchedRows(const Checkpoint& c, const LogicalWeight& w, const SideTransform& t, uint64_t r0, uint64_t r1,
                     float* out, float* tmp, SimdPath path);
// The row in the side's own storage of Hugging Face row `r` (`rows` rows in all): r itself
// unless the side is permuted.
uint64_t storedRow(const SideTransform& t, uint64_t r, uint64_t rows);

// For "nothing to compare": which naming a checkpoint's weights use (Hugging Face, GGUF or
// neither) and its first few weight names, e.g. "GGUF names (blk.0.attn_q.weight, ...)".
std::string namingHint(const Checkpoint& c);

} // namespace qs
