#pragma once
// Hugging Face <-> GGUF tensor names for llama-family architectures, as llama.cpp's
// convert_hf_to_gguf.py and gguf-py's tensor_mapping.py name them, and the two value
// transforms that converter applies on the way: the q/k row permutation of LlamaModel
// (rotate-half -> interleaved rope pairs) and Gemma's "+1" baked into RMSNorm weights.
#include "container/checkpoint.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace qs {

// general.architecture of a GGUF, else config.json's model_type (lowercase); "" when neither.
std::string checkpointArchitecture(const Checkpoint& ckpt);
// Mistral, Mixtral and friends convert to GGUF arch "llama"; the name table and the
// transforms are keyed on the GGUF arch.
std::string ggufArchOf(std::string_view arch);

struct HeadCounts {
    uint64_t heads = 0;   // 0 = unknown
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

} // namespace qs
