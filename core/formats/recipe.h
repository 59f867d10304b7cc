#pragma once
// What a checkpoint's quantization recipe says each weight should be, and why a weight is
// stored otherwise. A family reaches the recipe analysis (analysis/recipe.h) through its
// row's `recipe`: GGUF reads general.file_type and llama-quantize's type choice and fallback
// rules (ggml/ggml_recipe.cpp); the safetensors families read their quantization config
// (GPTQModel `dynamic`, MLX per-module entries, compressed-tensors config groups and ignore
// lists, modules_to_not_convert) through recipeFromConfig (formats/recipe.cpp).
#include "base/message.h"
#include "formats/formatid.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qs {

class Checkpoint;
struct LogicalWeight;

// The type or format the checkpoint is labelled with.
struct RecipeNominal {
    Message name; // "MOSTLY_Q4_K_M", "gptq 4-bit, group 128"
    Message source; // "general.file_type = 15", "config.json quantization_config"
    const FormatInfo* format = nullptr; // the nominal format; nullptr when the label names none
    int bits = 0; // 0: any
    int64_t groupSize = 0; // 0: any
    double bitsPerWeight = 0; // of a weight stored as the nominal format (0 when unknown)
};

// How one weight relates to the nominal recipe.
enum class RecipeKind : uint8_t {
    Nominal, // stored as the label says
    Fallback, // the label's type does not fit the shape; the tool substituted another
    Mix, // another quantized type the recipe picks for this tensor (llama-quantize's mixes)
    Override, // a per-module entry of the config gives it other parameters
    Excluded, // the config keeps the module unquantized (ignore, modules_to_not_convert, ...)
    KeptFloat, // never quantized by the tool (1-D tensors, norms, rows the group does not fit)
    Unexplained, // differs, and neither the config nor the shape says why
};
const char* recipeKindName(RecipeKind k); // "nominal", "fallback", ...

struct RecipeVerdict {
    RecipeKind kind = RecipeKind::Nominal;
    std::string reason; // "row length 64 is not a multiple of Q4_K's 256-weight block: ..."; may be empty
};

struct RecipeRules {
    // The nominal recipe from the checkpoint's metadata or config (and its detected weights);
    // false when it names none.
    bool (*nominal)(const Checkpoint& ckpt, RecipeNominal& out) = nullptr;
    // How each of `weights` relates to `nominal`: out[i] for weights[i] (one call, so that a
    // config is parsed once).
    void (*judge)(const Checkpoint& ckpt, const RecipeNominal& nominal, std::span<const LogicalWeight> weights,
                  std::vector<RecipeVerdict>& out) = nullptr;
    // A short label for a weight's stored type in tallies and grids: "Q5_0", "gptq-v1 4-bit g128".
    std::string (*typeLabel)(const Checkpoint& ckpt, const LogicalWeight& w) = nullptr;
};

// The rules of the safetensors families: the nominal format is the most common quantized
// format of the family's weights with the config's bits and group size; the verdicts come
// from the config's per-module entries.
const RecipeRules& recipeFromConfig();

} // namespace qs
