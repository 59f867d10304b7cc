// The recipe of a GGUF file: general.file_type names llama-quantize's mix (LLAMA_FTYPE_*), whose
// default type is the nominal one; a tensor stored otherwise is explained by llama-quantize's
// rules (src/llama-quant.cpp, llama_tensor_get_type and llama_model_quantize_impl): only 2-D and
// 3-D tensors whose name ends in "weight" are quantized, norms and expert routers never; a row
// length that is not a multiple of the chosen type's block falls back (TQ1_0/TQ2_0 -> Q4_0,
// the 2- and 3-bit k- and i-quants and IQ4_XS -> IQ4_NL, Q4_K -> Q5_0, Q5_K -> Q5_1,
// Q6_K -> Q8_0) and to F16 when the fallback's block does not fit either; the *_M and *_L
// mixes pick more bits for some roles (output, attn_v, ffn_down).
#include "formats/recipe.h"

#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/formatid.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/quantize_ggml.h"

#include <array>
#include <cctype>

namespace qs {
namespace {

// llama_ftype -> the default ggml type of llama_model_quantize_impl; -1 for removed values.
constexpr std::array<int, 39> kFtypeDefault = {
    GgmlF32,    GgmlF16,   GgmlQ4_0,  GgmlQ4_1,    -1,        -1,         -1,        GgmlQ8_0,  GgmlQ5_0,   GgmlQ5_1,
    GgmlQ2_K,   GgmlQ3_K,  GgmlQ3_K,  GgmlQ3_K,    GgmlQ4_K,  GgmlQ4_K,   GgmlQ5_K,  GgmlQ5_K,  GgmlQ6_K,   GgmlIQ2_XXS,
    GgmlIQ2_XS, GgmlQ2_K,  GgmlIQ3_S, GgmlIQ3_XXS, GgmlIQ1_S, GgmlIQ4_NL, GgmlIQ3_S, GgmlIQ3_S, GgmlIQ2_XS, GgmlIQ2_S,
    GgmlIQ4_XS, GgmlIQ1_M, GgmlBF16,  -1,          -1,        -1,         GgmlTQ1_0, GgmlTQ2_0, GgmlMXFP4,
};

// The types llama-quantize substitutes when the row does not fit their block, in its order.
constexpr std::array<int, 15> kFallbackSources = {
    GgmlTQ1_0, GgmlTQ2_0, GgmlIQ2_XXS, GgmlIQ2_XS, GgmlIQ2_S, GgmlIQ3_XXS, GgmlIQ3_S, GgmlIQ1_S,
    GgmlIQ1_M, GgmlQ2_K,  GgmlQ3_K,    GgmlIQ4_XS, GgmlQ4_K,  GgmlQ5_K,    GgmlQ6_K,
};

int ggmlFallbackOf(int type)
{
    switch (type) {
    case GgmlTQ1_0:
    case GgmlTQ2_0: return GgmlQ4_0;
    case GgmlQ4_K: return GgmlQ5_0;
    case GgmlQ5_K: return GgmlQ5_1;
    case GgmlQ6_K: return GgmlQ8_0;
    default: return GgmlIQ4_NL; // the 1- to 3-bit i- and k-quants and IQ4_XS (kFallbackSources only)
    }
}

uint32_t ggmlBlockOf(int type)
{
    const GgmlTypeInfo* t = ggmlType(type);
    return t && t->blockWeights ? t->blockWeights : 1;
}

// The type llama-quantize stores for `type` chosen on rows of nx weights; -1 when it refuses.
int ggmlTypeForRow(int type, uint64_t nx)
{
    if (nx % ggmlBlockOf(type) == 0)
        return type;
    if (std::find(kFallbackSources.begin(), kFallbackSources.end(), type) == kFallbackSources.end())
        return -1;
    const int f = ggmlFallbackOf(type);
    return nx % ggmlBlockOf(f) == 0 ? f : int(GgmlF16);
}

bool ggmlRecipeNominal(const Checkpoint& ckpt, RecipeNominal& out)
{
    if (ckpt.container != Container::Gguf)
        return false;
    const auto ft = ggufFileType(ckpt);
    if (!ft || *ft > 0xffffffffu)
        return false;
    out.name = Message::verbatim(llamaFileTypeName(static_cast<uint32_t>(*ft)));
    out.source = Message::verbatim("general.file_type = " + std::to_string(*ft));
    const uint64_t base = *ft & ~uint64_t(1024); // the GUESSED flag
    const int type = base < kFtypeDefault.size() ? kFtypeDefault[base] : -1;
    if (type < 0)
        return true;
    const GgmlTypeInfo* t = ggmlType(type);
    out.format = findFormat(ggufFormatId(t->name));
    out.bits = out.format ? out.format->bits : 0;
    out.bitsPerWeight = double(t->blockBytes) * 8.0 / double(t->blockWeights);
    return true;
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string joinTypeNames(const std::vector<int>& types)
{
    std::string s;
    for (size_t i = 0; i < types.size() && i < 3; ++i)
        s += (i ? "/" : "") + std::string(ggmlType(types[i])->name);
    if (types.size() > 3)
        s += "/...";
    return s;
}

RecipeVerdict ggmlJudgeOne(const Checkpoint& ckpt, int nominal, const LogicalWeight& w)
{
    const int m = w.member("weight");
    if (m < 0)
        return {RecipeKind::Unexplained, "no stored tensor"};
    const TensorEntry& t = ckpt.tensors[static_cast<size_t>(m)];
    const int stored = t.ggmlType;
    if (stored == nominal)
        return {};
    const std::string_view name = w.name;
    if (t.shape.size() < 2)
        return {RecipeKind::KeptFloat, "1-D tensor: llama-quantize quantizes only 2-D and 3-D weights"};
    if (!endsWith(name, "weight"))
        return {RecipeKind::KeptFloat, "not a weight: llama-quantize quantizes only tensors named *weight"};
    if (name.find("_norm.weight") != std::string_view::npos)
        return {RecipeKind::KeptFloat, "norm: llama-quantize never quantizes *_norm.weight"};
    if (name.find("ffn_gate_inp.weight") != std::string_view::npos)
        return {RecipeKind::KeptFloat, "expert router: llama-quantize never quantizes ffn_gate_inp"};

    const GgmlTypeInfo* nt = ggmlType(nominal);
    const GgmlTypeInfo* st = ggmlType(stored);
    const std::string storedName(st ? st->name : t.typeName);
    const uint64_t nx = w.inFeatures();
    const std::string row = "row length " + std::to_string(nx);
    // The types llama-quantize could have chosen that fall back to the stored one on this row.
    std::vector<int> sources;
    for (int s : kFallbackSources)
        if (nx % ggmlBlockOf(s) != 0 && ggmlTypeForRow(s, nx) == stored)
            sources.push_back(s);
    const bool nominalFits = nx % nt->blockWeights == 0;
    if (!nominalFits) {
        const std::string head = row + " is not a multiple of " + std::string(nt->name) + "'s "
            + std::to_string(nt->blockWeights) + "-weight block";
        if (std::find(sources.begin(), sources.end(), nominal) != sources.end()) {
            const int f = ggmlFallbackOf(nominal);
            if (stored == f)
                return {RecipeKind::Fallback, head + ": llama-quantize falls back to " + storedName};
            return {RecipeKind::Fallback,
                    head + " nor of its fallback " + std::string(ggmlType(f)->name) + "'s "
                        + std::to_string(ggmlBlockOf(f)) + ": llama-quantize stores " + storedName};
        }
        if (!sources.empty())
            return {RecipeKind::Fallback,
                    head + "; " + storedName + " is llama-quantize's fallback for " + joinTypeNames(sources)
                        + " (the mix's choice for this tensor)"};
        return {RecipeKind::Unexplained, head + ", and " + storedName + " is no llama-quantize fallback for it"};
    }
    if (!sources.empty())
        return {RecipeKind::Fallback,
                row + " is not a multiple of " + joinTypeNames(sources) + "'s "
                    + std::to_string(ggmlBlockOf(sources.front())) + "-weight block (the mix's choice "
                    + "for this tensor): llama-quantize falls back to " + storedName};
    if (st && st->blockWeights > 1)
        return {RecipeKind::Mix, ""};
    return {RecipeKind::Unexplained,
            std::string(nt->name) + "'s block fits the row, yet it is stored as " + storedName};
}

void ggmlRecipeJudge(const Checkpoint& ckpt, const RecipeNominal& nominal, std::span<const LogicalWeight> weights,
                     std::vector<RecipeVerdict>& out)
{
    const int type = nominal.format ? ggufFormatType(*nominal.format) : -1;
    out.clear();
    out.reserve(weights.size());
    for (const LogicalWeight& w : weights)
        out.push_back(type < 0 ? RecipeVerdict{RecipeKind::Unexplained, "the file type names no ggml type"}
                               : ggmlJudgeOne(ckpt, type, w));
}

std::string ggmlRecipeLabel(const Checkpoint& ckpt, const LogicalWeight& w)
{
    const int m = w.member("weight");
    return m < 0 ? w.format : std::string(ckpt.tensors[static_cast<size_t>(m)].typeName);
}

} // namespace

const RecipeRules& ggmlRecipeRules()
{
    static const RecipeRules rules{ggmlRecipeNominal, ggmlRecipeJudge, ggmlRecipeLabel};
    return rules;
}

} // namespace qs
