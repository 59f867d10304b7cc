// The recipe rules of the safetensors families, read from the quantization config that
// detection merges (formats/detectutil.h): bits and group size, and each module's entry
// (the exclusion lists, and the families' own parts: GPTQModel `dynamic`, MLX per-module
// entries, compressed-tensors config groups and ignore lists).
#include "formats/recipe.h"

#include "container/checkpoint.h"
#include "formats/detectutil.h"
#include "formats/formatid.h"

#include <map>
#include <tuple>

namespace qs {

const char* recipeKindName(RecipeKind k)
{
    switch (k) {
    case RecipeKind::Nominal: return "nominal";
    case RecipeKind::Fallback: return "fallback";
    case RecipeKind::Mix: return "mix";
    case RecipeKind::Override: return "override";
    case RecipeKind::Excluded: return "excluded";
    case RecipeKind::KeptFloat: return "kept-float";
    case RecipeKind::Unexplained: return "unexplained";
    }
    return "unexplained";
}

namespace {

bool configRecipeQuantized(const LogicalWeight& w)
{
    const FormatInfo* f = findFormat(w.format);
    return f && f->quantized;
}

bool configRecipeMatches(const RecipeNominal& n, const LogicalWeight& w)
{
    return n.format && w.format == n.format->id && (n.bits == 0 || w.bits == n.bits)
        && (n.groupSize == 0 || w.groupSize == n.groupSize);
}

bool configRecipeNominal(const Checkpoint& ckpt, RecipeNominal& out)
{
    // The quantized (format, bits, group size) holding the most parameters.
    std::map<std::tuple<std::string, int, int64_t>, uint64_t> elements;
    for (const LogicalWeight& w : ckpt.weights)
        if (configRecipeQuantized(w))
            elements[{w.format, w.bits, w.groupSize}] += w.elementCount();
    if (elements.empty())
        return false;
    auto best = elements.begin();
    for (auto it = elements.begin(); it != elements.end(); ++it)
        if (it->second > best->second)
            best = it;
    out.format = findFormat(std::get<0>(best->first));
    out.bits = std::get<1>(best->first);
    out.groupSize = std::get<2>(best->first);
    const detect::QuantConfig cfg(ckpt);
    out.source = Message(QT_TRANSLATE_NOOP("qs::Message", "most parameters (no quantization config)"));
    if (!cfg.empty()) {
        std::string where;
        if (const auto b = cfg.get({"bits", "w_bit"}); b && detect::jsonInt(b->value)) {
            out.bits = static_cast<int>(*detect::jsonInt(b->value));
            where = b->where;
        }
        if (const auto g = cfg.get({"group_size", "q_group_size"}); g && detect::jsonInt(g->value)) {
            out.groupSize = std::max<int64_t>(0, *detect::jsonInt(g->value)); // -1: per channel
            where += (where.empty() ? "" : ", ") + g->where;
        }
        out.source = where.empty()
            ? Message(QT_TRANSLATE_NOOP("qs::Message", "most parameters; the config states no bits"))
            : Message::verbatim(where);
    }
    const std::string method = cfg.method();
    const std::string family = method.empty() ? out.format->id : method;
    out.name = out.groupSize > 0
        ? Message(QT_TRANSLATE_NOOP("qs::Message", "%1 %2-bit, group %3"),
                  {family, std::to_string(out.bits), std::to_string(out.groupSize)})
        : Message(QT_TRANSLATE_NOOP("qs::Message", "%1 %2-bit"), {family, std::to_string(out.bits)});
    uint64_t bytes = 0, n = 0;
    for (const LogicalWeight& w : ckpt.weights)
        if (configRecipeMatches(out, w)) {
            bytes += w.storedBytes;
            n += w.elementCount();
        }
    out.bitsPerWeight = n ? double(bytes) * 8.0 / double(n) : 0;
    return true;
}

RecipeVerdict configRecipeJudgeOne(const detect::QuantConfig& cfg, const RecipeNominal& n, const LogicalWeight& w)
{
    if (configRecipeMatches(n, w))
        return {};
    const bool quantized = configRecipeQuantized(w);
    // A 1-D tensor (a norm, a bias) is never quantized, whatever a per-module entry matching its
    // layer's prefix says of the layer's linear weights.
    if (!quantized && w.shape.size() < 2)
        return {RecipeKind::KeptFloat, "1-D tensor: only linear weights are quantized"};
    if (auto e = cfg.moduleEntry(w.name, quantized))
        return {e->excluded ? RecipeKind::Excluded : RecipeKind::Override, std::move(e->reason)};
    if (!quantized) {
        if (n.groupSize > 0 && w.inFeatures() % uint64_t(n.groupSize) != 0)
            return {RecipeKind::KeptFloat,
                    "in_features " + std::to_string(w.inFeatures()) + " is not a multiple of the group size "
                        + std::to_string(n.groupSize)};
        return {RecipeKind::KeptFloat, ""};
    }
    return {RecipeKind::Unexplained, "no per-module entry of the config says why"};
}

void configRecipeJudge(const Checkpoint& ckpt, const RecipeNominal& nominal, std::span<const LogicalWeight> weights,
                       std::vector<RecipeVerdict>& out)
{
    const detect::QuantConfig cfg(ckpt);
    out.clear();
    out.reserve(weights.size());
    for (const LogicalWeight& w : weights)
        out.push_back(configRecipeJudgeOne(cfg, nominal, w));
}

std::string configRecipeLabel(const Checkpoint&, const LogicalWeight& w)
{
    if (!configRecipeQuantized(w))
        return w.format;
    return w.format + " " + std::to_string(w.bits) + "-bit"
        + (w.groupSize > 0 ? " g" + std::to_string(w.groupSize) : "");
}

} // namespace

const RecipeRules& recipeFromConfig()
{
    static const RecipeRules rules{configRecipeNominal, configRecipeJudge, configRecipeLabel};
    return rules;
}

} // namespace qs
