#pragma once
// Every ggml tensor type id (../shared/spec/gguf.md, section 2.1) with its block geometry,
// and the llama.cpp names of general.file_type (llama_ftype, section 1.10).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace qs {

// ggml type ids (include/ggml.h); ids 4, 5 and 31..33, 36..38 were removed upstream.
enum GgmlType : int {
    GgmlF32 = 0,
    GgmlF16 = 1,
    GgmlQ4_0 = 2,
    GgmlQ4_1 = 3,
    GgmlQ5_0 = 6,
    GgmlQ5_1 = 7,
    GgmlQ8_0 = 8,
    GgmlQ8_1 = 9,
    GgmlQ2_K = 10,
    GgmlQ3_K = 11,
    GgmlQ4_K = 12,
    GgmlQ5_K = 13,
    GgmlQ6_K = 14,
    GgmlQ8_K = 15,
    GgmlIQ2_XXS = 16,
    GgmlIQ2_XS = 17,
    GgmlIQ3_XXS = 18,
    GgmlIQ1_S = 19,
    GgmlIQ4_NL = 20,
    GgmlIQ3_S = 21,
    GgmlIQ2_S = 22,
    GgmlIQ4_XS = 23,
    GgmlI8 = 24,
    GgmlI16 = 25,
    GgmlI32 = 26,
    GgmlI64 = 27,
    GgmlF64 = 28,
    GgmlIQ1_M = 29,
    GgmlBF16 = 30,
    GgmlTQ1_0 = 34,
    GgmlTQ2_0 = 35,
    GgmlMXFP4 = 39,
    GgmlNVFP4 = 40,
    GgmlQ1_0 = 41,
    GgmlQ2_0 = 42,
    GgmlTypeCount = 43,
};

struct GgmlTypeInfo {
    int id = 0;
    std::string_view name; // upstream spelling: "Q4_K", "IQ2_XXS", "F16"
    uint32_t blockWeights = 0; // 0 for removed ids
    uint32_t blockBytes = 0;
    bool removed = false; // id retired by ggml; old files may still carry it
    bool storage = true; // false: a dot-product intermediate (Q8_1, Q8_K), never in files

    bool hasSize() const { return blockWeights != 0; }
    // Row bytes for a row of `ne0` weights; ne0 must be a multiple of blockWeights.
    uint64_t rowBytes(uint64_t ne0) const { return ne0 / blockWeights * blockBytes; }
};

// GGML_TYPE_COUNT of the snapshot the spec describes: ids 0..42 exist.
inline constexpr int kGgmlTypeCount = GgmlTypeCount;

// All ids 0..42 in order, removed ones included.
std::span<const GgmlTypeInfo> ggmlTypes();
// nullptr for ids outside 0..42.
const GgmlTypeInfo* ggmlType(int64_t id);
// Case-insensitive ("q4_k" or "Q4_K"); nullptr when unknown. Removed names resolve too.
const GgmlTypeInfo* ggmlTypeByName(std::string_view name);
// "Q4_K" for known ids (removed ones keep their old name), "unknown(<id>)" otherwise.
std::string ggmlTypeName(int64_t id);

// A type id of ik_llama.cpp (ikawrakow/ik_llama.cpp, ggml/include/ggml.h) that mainline ggml does
// not define: its IQ*_K, IQ*_KS, IQ*_KT, IQ*_BN, Q6_0 types, their row-interleaved *_R4/_R8/_R16
// variants and its dot-product intermediates (Q8_K64 ...). Listed, never decoded.
struct IkLlamaType {
    int id = 0;
    std::string_view name; // ik_llama.cpp's spelling: "IQ4_KS"
    // Its type traits where the byte count is checked: a row is rowMetaBytes (a row scale in
    // front) + ne0 / blockWeights * blockBytes. blockWeights 0: no size rule known here.
    uint32_t blockWeights = 0;
    uint32_t blockBytes = 0;
    uint32_t rowMetaBytes = 0;
};
// nullptr for ids ik_llama.cpp shares with mainline (or does not have).
const IkLlamaType* ikLlamaType(int64_t id);

// BitNet's I2_S (microsoft/BitNet, its llama.cpp fork): 2-bit ternary codes, four a byte, then
// one f32 scale for the whole tensor in 32 bytes kept for it. Its forks (and ik_llama.cpp) give
// it id 36, the id mainline ggml gave IQ4_NL_4_4 and removed; the byte count tells them apart.
inline constexpr int kGgmlI2S = 36;
// ggml_nbytes of an I2_S tensor of `elements` weights in BitNet's fork: elements / 4 + 32.
inline uint64_t bitnetI2sBytes(uint64_t elements)
{
    return elements / 4 + 32;
}

// general.file_type as llama.cpp names it without the LLAMA_FTYPE_ prefix ("MOSTLY_Q4_K_M",
// "ALL_F32"); removed values are named too; "GUESSED" flag (1024) is appended as "|GUESSED";
// anything else is "unknown(<value>)".
std::string llamaFileTypeName(uint32_t fileType);
class Checkpoint;
// general.file_type of a checkpoint (any integer width, negative values ignored); nullopt when
// absent. The CLI's inspect, the recipe and the GUI's metadata read it here.
std::optional<uint64_t> ggufFileType(const Checkpoint& ckpt);

} // namespace qs
