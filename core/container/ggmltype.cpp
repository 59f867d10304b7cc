#include "container/ggmltype.h"

#include "base/asciicase.h"
#include "container/checkpoint.h"

#include <array>

namespace qs {
namespace {

constexpr GgmlTypeInfo plainTypeRow(int id, std::string_view name, uint32_t bytes)
{
    return {id, name, 1, bytes, false, true};
}
constexpr GgmlTypeInfo block(int id, std::string_view name, uint32_t weights, uint32_t bytes, bool storage = true)
{
    return {id, name, weights, bytes, false, storage};
}
constexpr GgmlTypeInfo removed(int id, std::string_view name)
{
    return {id, name, 0, 0, true, false};
}

// Spec 2.1 (ggml.h enum ggml_type, ggml-common.h block structs).
constexpr std::array<GgmlTypeInfo, kGgmlTypeCount> kTypes{
    plainTypeRow(GgmlF32, "F32", 4),
    plainTypeRow(GgmlF16, "F16", 2),
    block(GgmlQ4_0, "Q4_0", 32, 18),
    block(GgmlQ4_1, "Q4_1", 32, 20),
    removed(4, "Q4_2"),
    removed(5, "Q4_3"),
    block(GgmlQ5_0, "Q5_0", 32, 22),
    block(GgmlQ5_1, "Q5_1", 32, 24),
    block(GgmlQ8_0, "Q8_0", 32, 34),
    block(GgmlQ8_1, "Q8_1", 32, 36, false),
    block(GgmlQ2_K, "Q2_K", 256, 84),
    block(GgmlQ3_K, "Q3_K", 256, 110),
    block(GgmlQ4_K, "Q4_K", 256, 144),
    block(GgmlQ5_K, "Q5_K", 256, 176),
    block(GgmlQ6_K, "Q6_K", 256, 210),
    block(GgmlQ8_K, "Q8_K", 256, 292, false),
    block(GgmlIQ2_XXS, "IQ2_XXS", 256, 66),
    block(GgmlIQ2_XS, "IQ2_XS", 256, 74),
    block(GgmlIQ3_XXS, "IQ3_XXS", 256, 98),
    block(GgmlIQ1_S, "IQ1_S", 256, 50),
    block(GgmlIQ4_NL, "IQ4_NL", 32, 18),
    block(GgmlIQ3_S, "IQ3_S", 256, 110),
    block(GgmlIQ2_S, "IQ2_S", 256, 82),
    block(GgmlIQ4_XS, "IQ4_XS", 256, 136),
    plainTypeRow(GgmlI8, "I8", 1),
    plainTypeRow(GgmlI16, "I16", 2),
    plainTypeRow(GgmlI32, "I32", 4),
    plainTypeRow(GgmlI64, "I64", 8),
    plainTypeRow(GgmlF64, "F64", 8),
    block(GgmlIQ1_M, "IQ1_M", 256, 56),
    plainTypeRow(GgmlBF16, "BF16", 2),
    removed(31, "Q4_0_4_4"),
    removed(32, "Q4_0_4_8"),
    removed(33, "Q4_0_8_8"),
    block(GgmlTQ1_0, "TQ1_0", 256, 54),
    block(GgmlTQ2_0, "TQ2_0", 256, 66),
    removed(36, "IQ4_NL_4_4"),
    removed(37, "IQ4_NL_4_8"),
    removed(38, "IQ4_NL_8_8"),
    block(GgmlMXFP4, "MXFP4", 32, 17),
    block(GgmlNVFP4, "NVFP4", 64, 36),
    block(GgmlQ1_0, "Q1_0", 128, 18),
    block(GgmlQ2_0, "Q2_0", 64, 18),
};
// Each row sits at its id, so ggmlType(id) is an index and the GgmlType names cannot drift.
constexpr bool rowsAtTheirIds()
{
    for (size_t i = 0; i < kTypes.size(); ++i)
        if (kTypes[i].id != int(i))
            return false;
    return true;
}
static_assert(rowsAtTheirIds());

// llama.h enum llama_ftype, values 0..41 (5, 6 and 33..35 are retired but still named).
constexpr std::array<std::string_view, 42> kFileTypes{
    "ALL_F32",       "MOSTLY_F16",     "MOSTLY_Q4_0",      "MOSTLY_Q4_1",     "MOSTLY_Q4_1_SOME_F16", "MOSTLY_Q4_2",
    "MOSTLY_Q4_3",   "MOSTLY_Q8_0",    "MOSTLY_Q5_0",      "MOSTLY_Q5_1",     "MOSTLY_Q2_K",          "MOSTLY_Q3_K_S",
    "MOSTLY_Q3_K_M", "MOSTLY_Q3_K_L",  "MOSTLY_Q4_K_S",    "MOSTLY_Q4_K_M",   "MOSTLY_Q5_K_S",        "MOSTLY_Q5_K_M",
    "MOSTLY_Q6_K",   "MOSTLY_IQ2_XXS", "MOSTLY_IQ2_XS",    "MOSTLY_Q2_K_S",   "MOSTLY_IQ3_XS",        "MOSTLY_IQ3_XXS",
    "MOSTLY_IQ1_S",  "MOSTLY_IQ4_NL",  "MOSTLY_IQ3_S",     "MOSTLY_IQ3_M",    "MOSTLY_IQ2_S",         "MOSTLY_IQ2_M",
    "MOSTLY_IQ4_XS", "MOSTLY_IQ1_M",   "MOSTLY_BF16",      "MOSTLY_Q4_0_4_4", "MOSTLY_Q4_0_4_8",      "MOSTLY_Q4_0_8_8",
    "MOSTLY_TQ1_0",  "MOSTLY_TQ2_0",   "MOSTLY_MXFP4_MOE", "MOSTLY_NVFP4",    "MOSTLY_Q1_0",          "MOSTLY_Q2_0",
};
constexpr uint32_t kFileTypeGuessed = 1024;

// ik_llama.cpp's own ids (ggml/include/ggml.h enum ggml_type) with the type traits of ggml.c
// (blck_size, sizeof(block_*) in ggml-common.h, row_meta_size) for the types whose byte count is
// checked; the trellis (_KT), IQ2_KL and row-interleaved types are only named.
constexpr IkLlamaType kIkTypes[] = {
    {98, "Q8_0_X4"},
    {99, "Q8_1_X4"},
    {133, "Q6_0", 32, 26, 0},
    {134, "IQ1_BN", 64, 13, 2},
    {135, "IQ2_BN", 64, 16, 4},
    {136, "Q8_K64"},
    {137, "IQ2_K", 256, 76, 0},
    {138, "IQ3_K", 256, 110, 0},
    {139, "IQ4_K", 256, 144, 0},
    {140, "IQ5_K", 256, 176, 0},
    {141, "IQ6_K", 256, 212, 0},
    {144, "IQ4_KS", 256, 136, 4},
    {145, "IQ2_KS", 256, 70, 2},
    {146, "IQ4_KSS", 256, 128, 4},
    {147, "Q8_K16"},
    {148, "Q8_K32"},
    {149, "Q8_KR8"},
    {150, "Q8_K128"},
    {151, "Q8_KV"},
    {152, "IQ5_KS", 256, 168, 4},
    {153, "IQ2_KT"},
    {154, "IQ3_KT"},
    {155, "IQ4_KT"},
    {156, "IQ3_KS", 256, 102, 2},
    {157, "IQ2_KL"},
    {158, "IQ1_KT"},
    {202, "Q4_0_R8"},
    {206, "Q5_0_R4"},
    {208, "Q8_0_R8"},
    {210, "Q2_K_R4"},
    {211, "Q3_K_R4"},
    {212, "Q4_K_R4"},
    {213, "Q5_K_R4"},
    {214, "Q6_K_R4"},
    {216, "IQ2_XXS_R4"},
    {217, "IQ2_XS_R4"},
    {218, "IQ3_XXS_R4"},
    {219, "IQ1_S_R4"},
    {220, "IQ4_NL_R4"},
    {221, "IQ3_S_R4"},
    {222, "IQ2_S_R4"},
    {223, "IQ4_XS_R8"},
    {229, "IQ1_M_R4"},
    {230, "BF16_R16"},
    {233, "Q6_0_R4"},
    {335, "IQ2_BN_R4"},
    {337, "IQ2_K_R4"},
    {338, "IQ3_K_R4"},
    {339, "IQ4_K_R4"},
    {340, "IQ5_K_R4"},
    {344, "IQ4_KS_R4"},
    {398, "Q8_KV_R8"},
    {399, "Q8_K_R8"},
};

} // namespace

const IkLlamaType* ikLlamaType(int64_t id)
{
    for (const IkLlamaType& t : kIkTypes)
        if (t.id == id)
            return &t;
    return nullptr;
}

std::span<const GgmlTypeInfo> ggmlTypes()
{
    return kTypes;
}

const GgmlTypeInfo* ggmlType(int64_t id)
{
    if (id < 0 || id >= kGgmlTypeCount)
        return nullptr;
    return &kTypes[static_cast<size_t>(id)];
}

const GgmlTypeInfo* ggmlTypeByName(std::string_view name)
{
    for (const auto& t : kTypes)
        if (equalsIgnoreCase(t.name, name))
            return &t;
    return nullptr;
}

std::string ggmlTypeName(int64_t id)
{
    if (const GgmlTypeInfo* t = ggmlType(id))
        return std::string(t->name);
    return "unknown(" + std::to_string(id) + ")";
}

std::string llamaFileTypeName(uint32_t fileType)
{
    if (fileType & kFileTypeGuessed) {
        const uint32_t base = fileType & ~kFileTypeGuessed;
        if (base < kFileTypes.size())
            return std::string(kFileTypes[base]) + "|GUESSED";
    } else if (fileType < kFileTypes.size()) {
        return std::string(kFileTypes[fileType]);
    }
    return "unknown(" + std::to_string(fileType) + ")";
}

std::optional<uint64_t> ggufFileType(const Checkpoint& ckpt)
{
    const MetaValue* v = ckpt.meta("general.file_type");
    if (!v)
        return std::nullopt;
    if (const auto* u = std::get_if<uint64_t>(&v->value))
        return *u;
    if (const auto* i = std::get_if<int64_t>(&v->value); i && *i >= 0)
        return static_cast<uint64_t>(*i);
    return std::nullopt;
}

} // namespace qs
