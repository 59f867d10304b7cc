#pragma once
// The recipe of a checkpoint: which weight got which type, per type and per layer, the nominal
// type the file is labelled with (general.file_type, the quantization config) and every weight
// stored otherwise, with the reason when the family's rules give one (formats/recipe.h) and
// the bits the difference costs; and two recipes side by side.
#include "base/message.h"
#include "container/checkpoint.h"
#include "formats/recipe.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace qs {

// One stored type (GGUF) or format at bits and group size (safetensors).
struct RecipeTypeRow {
    std::string label; // "Q5_0", "gptq-v1 4-bit g128"
    uint64_t tensors = 0, elements = 0, bytes = 0;
    double share = 0; // of all parameters
    double bitsPerWeight() const;
};

// A repeating block ("blk.3", "model.layers.3") or, with layer -1, the tensors outside them.
struct RecipeLayerRow {
    int layer = -1;
    uint64_t elements = 0, bytes = 0;
    double bitsPerWeight() const;
};

struct RecipeTensor {
    std::string name; // the logical weight's name
    int layer = -1; // -1: not in a repeating block
    std::string role; // GGUF-style: "attn_q", "ffn_down", "token_embd", "output_norm"
    std::string label; // the stored type
    uint64_t elements = 0, bytes = 0;
    RecipeVerdict verdict;
    // Stored bits minus those of the nominal type at its bits per weight; 0 when that is unknown.
    double extraBits = 0;
    double bitsPerWeight() const;
};

struct RecipeSummary {
    std::string path;
    bool hasNominal = false;
    RecipeNominal nominal;
    std::vector<RecipeTypeRow> types; // most parameters first
    std::vector<RecipeLayerRow> layers; // block order, then the non-repeating tensors (layer -1) when any
    std::vector<RecipeTensor> tensors; // the checkpoint's weight order (empty: RecipeDetail::Totals)
    uint64_t weights = 0; // how many the checkpoint has (tensors.size() when listed)
    uint64_t elements = 0, bytes = 0;
    // The weights the recipe quantizes (all but kept-float and excluded ones).
    uint64_t quantizable = 0, quantizableElements = 0, quantizableBytes = 0;

    double bitsPerWeight() const;
    double quantizableBitsPerWeight() const;
    size_t count(RecipeKind k) const;
    // The extra bits of the weights of kind k, summed.
    double extraBits(RecipeKind k) const;

    // Per kind, tallied as the weights are judged (tensors need not be kept for them).
    std::array<size_t, size_t(RecipeKind::Unexplained) + 1> kindCount{};
    std::array<double, size_t(RecipeKind::Unexplained) + 1> kindExtraBits{};
};

// Totals: types, layers and the tallies, without a RecipeTensor per weight (what inspect's
// overview needs, a third of the memory of a checkpoint of a million tiny weights).
enum class RecipeDetail { PerTensor, Totals };

// Throws nothing for a checkpoint that opened; a family without rules gives a tally only.
RecipeSummary summarizeRecipe(const Checkpoint& ckpt, RecipeDetail detail = RecipeDetail::PerTensor);

// The summary's first lines as `recipe` and `inspect` print them: the nominal type, the stored
// bits per weight against it, the weights that fell back or differ and what they cost (each
// label padded to one column, as the CLI aligns them).
std::vector<Message> recipeOverview(const RecipeSummary& s);

// "blk.3.attn_q.weight" -> {3, "attn_q"}; Hugging Face names through the GGUF name table
// ("model.layers.3.self_attn.q_proj" -> {3, "attn_q"}), else "layers.N.<rest>"; {-1, name
// without ".weight"} outside the blocks.
std::pair<int, std::string> recipeLayerRole(const std::string& name, std::string_view ggufArch);

// The weight a viewer shows first: the first quantized weight in a repeating block (a typical
// layer, not the output or a vocabulary-sized embedding table whose analysis takes seconds),
// else the first quantized weight, else the first; 0 when there are none.
size_t firstWeightToShow(const Checkpoint& ckpt);

// Two recipes side by side: weights matched by layer and role (so a GGUF file meets its
// Hugging Face source), the rows whose stored type differs or that one side lacks.
struct RecipeComparison {
    RecipeSummary a, b;
    struct Row {
        int layer = -1;
        std::string role;
        std::string nameA, nameB; // "" when that side lacks it
        std::string labelA, labelB;
        double bitsA = 0, bitsB = 0; // bits per weight
    };
    std::vector<Row> differing;
    size_t matched = 0; // weights found on both sides
    struct Layer {
        int layer = -1;
        double bitsA = 0, bitsB = 0; // 0 when that side has no such layer
    };
    std::vector<Layer> layers;
};
RecipeComparison compareRecipes(const Checkpoint& a, const Checkpoint& b);

} // namespace qs
