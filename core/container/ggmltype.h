#pragma once
// Every ggml tensor type id (../shared/spec/gguf.md, section 2.1) with its block geometry,
// and the llama.cpp names of general.file_type (llama_ftype, section 1.10).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace qs {

struct GgmlTypeInfo {
    int id = 0;
    std::string_view name;     // upstream spelling: "Q4_K", "IQ2_XXS", "F16"
    uint32_t blockWeights = 0; // 0 for removed ids
    uint32_t blockBytes = 0;
    bool removed = false;      // id retired by ggml; old files may still carry it
    bool storage = true;       // false: a dot-product intermediate (Q8_1, Q8_K), never in files

    bool hasSize() const { return blockWeights != 0; }
    // Row bytes for a row of `ne0` weights; ne0 must be a multiple of blockWeights.
    uint64_t rowBytes(uint64_t ne0) const { return ne0 / blockWeights * blockBytes; }
};

// GGML_TYPE_COUNT of the snapshot the spec describes: ids 0..42 exist.
inline constexpr int kGgmlTypeCount = 43;

// All ids 0..42 in order, removed ones included.
std::span<const GgmlTypeInfo> ggmlTypes();
// nullptr for ids outside 0..42.
const GgmlTypeInfo* ggmlType(int64_t id);
// Case-insensitive ("q4_k" or "Q4_K"); nullptr when unknown. Removed names resolve too.
const GgmlTypeInfo* ggmlTypeByName(std::string_view name);
// "Q4_K" for known ids (removed ones keep their old name), "unknown(<id>)" otherwise.
std::string ggmlTypeName(int64_t id);

// general.file_type as llama.cpp names it without the LLAMA_FTYPE_ prefix ("MOSTLY_Q4_K_M",
// "ALL_F32"); removed values are named too; "GUESSED" flag (1024) is appended as "|GUESSED";
// anything else is "unknown(<value>)".
std::string llamaFileTypeName(uint32_t fileType);

} // namespace qs
