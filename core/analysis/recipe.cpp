#include "analysis/recipe.h"

#include "analysis/namemap.h"
#include "formats/family.h"
#include "formats/formatid.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <optional>

namespace qs {
namespace {

double recipeBpw(uint64_t bytes, uint64_t elements)
{
    return elements ? double(bytes) * 8.0 / double(elements) : 0.0;
}

std::string stripParamSuffix(std::string s)
{
    for (std::string_view suffix : {".weight", ".bias"})
        if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
            return s.substr(0, s.size() - suffix.size());
    return s;
}

// "<head>N.<rest>" at the first occurrence of head followed by digits and a dot.
std::optional<std::pair<int, std::string>> splitLayer(const std::string& name, std::string_view head)
{
    for (size_t at = name.find(head); at != std::string::npos; at = name.find(head, at + 1)) {
        if (at > 0 && name[at - 1] != '.')
            continue;
        const size_t digits = at + head.size();
        int layer = 0;
        const auto [end, ec] = std::from_chars(name.data() + digits, name.data() + name.size(), layer);
        if (ec != std::errc() || end == name.data() + digits || end == name.data() + name.size() || *end != '.')
            continue;
        return std::make_pair(layer, stripParamSuffix(std::string(end + 1)));
    }
    return std::nullopt;
}

// The row whose rules judge the checkpoint: that of the family of the quantized format holding
// the most parameters, else that of the format holding the most; nullptr when it has none.
const FamilyRow* recipeRow(const Checkpoint& ckpt)
{
    std::map<FormatFamily, uint64_t> quantized, all;
    for (const LogicalWeight& w : ckpt.weights)
        if (const FormatInfo* f = findFormat(w.format)) {
            all[f->family] += w.elementCount();
            if (f->quantized)
                quantized[f->family] += w.elementCount();
        }
    const auto& pick = quantized.empty() ? all : quantized;
    const FamilyRow* best = nullptr;
    uint64_t most = 0;
    for (const auto& [family, n] : pick)
        if (n > most) {
            best = familyRow(family);
            most = n;
        }
    return best;
}

} // namespace

double RecipeTypeRow::bitsPerWeight() const
{
    return recipeBpw(bytes, elements);
}
double RecipeLayerRow::bitsPerWeight() const
{
    return recipeBpw(bytes, elements);
}
double RecipeTensor::bitsPerWeight() const
{
    return recipeBpw(bytes, elements);
}
double RecipeSummary::bitsPerWeight() const
{
    return recipeBpw(bytes, elements);
}
double RecipeSummary::quantizableBitsPerWeight() const
{
    return recipeBpw(quantizableBytes, quantizableElements);
}

size_t RecipeSummary::count(RecipeKind k) const
{
    return kindCount[size_t(k)];
}

double RecipeSummary::extraBits(RecipeKind k) const
{
    return kindExtraBits[size_t(k)];
}

std::pair<int, std::string> recipeLayerRole(const std::string& name, std::string_view ggufArch)
{
    if (auto s = splitLayer(name, "blk."))
        return *s;
    const std::string gguf = ggufArch.empty() ? std::string() : hfToGguf(name, ggufArch);
    if (!gguf.empty()) {
        if (auto s = splitLayer(gguf, "blk."))
            return *s;
        return {-1, stripParamSuffix(gguf)};
    }
    if (auto s = splitLayer(name, "layers."))
        return *s;
    return {-1, stripParamSuffix(name)};
}

size_t firstWeightToShow(const Checkpoint& ckpt)
{
    const std::string arch = ggufArchOf(checkpointArchitecture(ckpt));
    const auto quantized = [](const LogicalWeight& w) { return w.bits > 0 && w.bits < 16; };
    std::optional<size_t> firstQuantized;
    for (size_t i = 0; i < ckpt.weights.size(); ++i) {
        const LogicalWeight& w = ckpt.weights[i];
        if (!quantized(w))
            continue;
        if (recipeLayerRole(w.name, arch).first >= 0)
            return i;
        if (!firstQuantized)
            firstQuantized = i;
    }
    return firstQuantized.value_or(0);
}

RecipeSummary summarizeRecipe(const Checkpoint& ckpt, RecipeDetail detail)
{
    RecipeSummary s;
    s.path = ckpt.path;
    const FamilyRow* row = recipeRow(ckpt);
    const RecipeRules* rules = row ? row->recipe : nullptr;
    std::vector<RecipeVerdict> verdicts;
    if (rules && rules->nominal(ckpt, s.nominal)) {
        s.hasNominal = true;
        rules->judge(ckpt, s.nominal, ckpt.weights, verdicts);
    } else if (!row) {
        // No weight names a family (a file without tensors): the metadata may still name the
        // recipe (a vocab-only GGUF's general.file_type), as inspect shows it.
        for (const FamilyRow& r : familyRows())
            if (r.recipe && r.recipe->nominal(ckpt, s.nominal)) {
                s.hasNominal = true;
                rules = r.recipe;
                break;
            }
    }
    const std::string arch = ggufArchOf(checkpointArchitecture(ckpt));
    std::map<std::string, size_t> typeIndex;
    std::map<int, RecipeLayerRow> layers;
    if (detail == RecipeDetail::PerTensor)
        s.tensors.reserve(ckpt.weights.size());
    s.weights = ckpt.weights.size();
    for (size_t i = 0; i < ckpt.weights.size(); ++i) {
        const LogicalWeight& w = ckpt.weights[i];
        RecipeTensor t;
        t.name = w.name;
        std::tie(t.layer, t.role) = recipeLayerRole(w.name, arch);
        t.label = rules ? rules->typeLabel(ckpt, w) : w.format;
        t.elements = w.elementCount();
        t.bytes = w.storedBytes;
        if (i < verdicts.size())
            t.verdict = verdicts[i];
        if (s.hasNominal && s.nominal.bitsPerWeight > 0 && t.verdict.kind != RecipeKind::Nominal)
            t.extraBits = double(t.bytes) * 8.0 - s.nominal.bitsPerWeight * double(t.elements);
        s.elements += t.elements;
        s.bytes += t.bytes;
        if (t.verdict.kind != RecipeKind::KeptFloat && t.verdict.kind != RecipeKind::Excluded) {
            ++s.quantizable;
            s.quantizableElements += t.elements;
            s.quantizableBytes += t.bytes;
        }
        auto [it, fresh] = typeIndex.try_emplace(t.label, s.types.size());
        if (fresh)
            s.types.push_back({t.label});
        RecipeTypeRow& tr = s.types[it->second];
        ++tr.tensors;
        tr.elements += t.elements;
        tr.bytes += t.bytes;
        RecipeLayerRow& lr = layers[t.layer];
        lr.layer = t.layer;
        lr.elements += t.elements;
        lr.bytes += t.bytes;
        ++s.kindCount[size_t(t.verdict.kind)];
        s.kindExtraBits[size_t(t.verdict.kind)] += t.extraBits;
        if (detail == RecipeDetail::PerTensor)
            s.tensors.push_back(std::move(t));
    }
    for (RecipeTypeRow& tr : s.types)
        tr.share = s.elements ? double(tr.elements) / double(s.elements) : 0;
    std::stable_sort(s.types.begin(), s.types.end(),
                     [](const RecipeTypeRow& x, const RecipeTypeRow& y) { return x.elements > y.elements; });
    for (const auto& [layer, lr] : layers)
        if (layer >= 0)
            s.layers.push_back(lr);
    if (const auto it = layers.find(-1); it != layers.end())
        s.layers.push_back(it->second);
    return s;
}

std::vector<Message> recipeOverview(const RecipeSummary& s)
{
    const auto num = [](double v, int digits) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", digits, v);
        return std::string(buf);
    };
    std::vector<Message> out;
    if (!s.hasNominal) {
        out.push_back(
            {QT_TRANSLATE_NOOP(
                 "qs::Message",
                 "Recipe:     no nominal type (no general.file_type or quantization config); %1 stored types"),
             {std::to_string(s.types.size())}});
        return out;
    }
    const RecipeNominal& n = s.nominal;
    if (!n.format)
        out.push_back(Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "Recipe:     %1 (%2)"), {n.name, n.source}));
    else if (n.bitsPerWeight > 0)
        out.push_back(Message::quoting(
            QT_TRANSLATE_NOOP("qs::Message", "Recipe:     %1 (%2): nominal %3 at %4 bits per weight"),
            {n.name, n.source, Message::verbatim(n.format->id), Message::verbatim(num(n.bitsPerWeight, 2))}));
    else
        out.push_back(Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "Recipe:     %1 (%2): nominal %3"),
                                       {n.name, n.source, Message::verbatim(n.format->id)}));
    const std::string quantized = std::to_string(s.quantizable), bpw = num(s.quantizableBitsPerWeight(), 2);
    const std::string asNominal = std::to_string(s.count(RecipeKind::Nominal)), all = std::to_string(s.weights);
    if (n.bitsPerWeight > 0 && s.quantizableElements)
        out.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "Stored:     quantized weights: %1, at %2 bits per weight (%3% over the nominal); "
                               "as the nominal type: %4; all weights: %5, at %6 bits per weight"),
             {quantized, bpw,
              std::string(s.quantizableBitsPerWeight() >= n.bitsPerWeight ? "+" : "")
                  + num(100.0 * (s.quantizableBitsPerWeight() / n.bitsPerWeight - 1.0), 1),
              asNominal, all, num(s.bitsPerWeight(), 2)}});
    else
        out.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                         "Stored:     quantized weights: %1, at %2 bits per weight; "
                                         "as the nominal type: %3; all weights: %4, at %5 bits per weight"),
                       {quantized, bpw, asNominal, all, num(s.bitsPerWeight(), 2)}});
    if (const size_t fb = s.count(RecipeKind::Fallback))
        out.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "Fell back:  quantized weights that did not fit the nominal type's block: %1 of %2, "
                               "costing %3 bytes (%4 bits per weight)"),
             {std::to_string(fb), quantized, num(s.extraBits(RecipeKind::Fallback) / 8.0, 0),
              num(s.quantizableElements ? s.extraBits(RecipeKind::Fallback) / double(s.quantizableElements) : 0, 2)}});
    if (s.count(RecipeKind::Mix) + s.count(RecipeKind::Override) + s.count(RecipeKind::Unexplained))
        out.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "Otherwise:  %1 by the mix, %2 by per-module overrides, %3 unexplained"),
             {std::to_string(s.count(RecipeKind::Mix)), std::to_string(s.count(RecipeKind::Override)),
              std::to_string(s.count(RecipeKind::Unexplained))}});
    return out;
}

RecipeComparison compareRecipes(const Checkpoint& a, const Checkpoint& b)
{
    RecipeComparison c;
    c.a = summarizeRecipe(a);
    c.b = summarizeRecipe(b);
    std::map<std::pair<int, std::string>, size_t> inB;
    for (size_t i = 0; i < c.b.tensors.size(); ++i)
        inB.emplace(std::make_pair(c.b.tensors[i].layer, c.b.tensors[i].role), i);
    std::vector<bool> usedB(c.b.tensors.size(), false);
    for (const RecipeTensor& ta : c.a.tensors) {
        RecipeComparison::Row r{ta.layer, ta.role, ta.name, "", ta.label, "", ta.bitsPerWeight(), 0};
        if (const auto it = inB.find({ta.layer, ta.role}); it != inB.end() && !usedB[it->second]) {
            const RecipeTensor& tb = c.b.tensors[it->second];
            usedB[it->second] = true;
            ++c.matched;
            if (tb.label == ta.label)
                continue;
            r.nameB = tb.name;
            r.labelB = tb.label;
            r.bitsB = tb.bitsPerWeight();
        }
        c.differing.push_back(std::move(r));
    }
    for (size_t i = 0; i < c.b.tensors.size(); ++i)
        if (!usedB[i]) {
            const RecipeTensor& tb = c.b.tensors[i];
            c.differing.push_back({tb.layer, tb.role, "", tb.name, "", tb.label, 0, tb.bitsPerWeight()});
        }
    std::map<int, RecipeComparison::Layer> layers;
    for (const RecipeLayerRow& l : c.a.layers)
        layers[l.layer] = {l.layer, l.bitsPerWeight(), 0};
    for (const RecipeLayerRow& l : c.b.layers) {
        auto& e = layers[l.layer];
        e.layer = l.layer;
        e.bitsB = l.bitsPerWeight();
    }
    for (const auto& [layer, e] : layers)
        if (layer >= 0)
            c.layers.push_back(e);
    if (const auto it = layers.find(-1); it != layers.end())
        c.layers.push_back(it->second);
    return c;
}

} // namespace qs
