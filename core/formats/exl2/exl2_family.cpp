#include "formats/family.h"
#include "formats/recipe.h"

#include "container/checkpoint.h"
#include "formats/detectutil.h"
#include "formats/exl2/exl2.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/wordmap.h"

#include <QtGlobal>

#include <cstdio>

namespace qs {
namespace {

DequantRowsFn exl2Dequant(const FormatInfo& format)
{
    return format.id == "exl2" ? dequantExl2Rows : nullptr;
}

VerifyFn exl2Verify(const FormatInfo& format)
{
    return format.id == "exl2" ? verifyExl2Weight : nullptr;
}

GroupScalesFn exl2GroupScalesOf(const FormatInfo& format)
{
    return format.id == "exl2" ? exl2GroupScales : nullptr;
}

// The Bit map's element: `col` counts stored rows, as the layout's locate() does.
void exl2ElementValues(const WeightData& data, uint64_t row, uint64_t col, ElementValues& v)
{
    const Exl2& s = cachedState<Exl2>(data, exl2State);
    if (row >= s.rows || col >= s.cols)
        failWeight(data.weight, "element outside the matrix");
    const Exl2Place p = s.place(col);
    v.code = s.code(p, row);
    v.group = p.group;
    v.hasScale = true;
    v.scale = s.scale(p.group, row);
    v.hasZero = true;
    v.zero = double(1u << (p.bits - 1));
    v.zeroKind = ZeroPointKind::Implicit;
}

const char* exl2DisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "EXL2");
}

void exl2Formats(FormatList& out)
{
    using namespace formatrow;
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kExl2 = {
        "exl2",
        0,
        GroupAffine,
        Int,
        false,
        false,
        NoRule,
        false,
        false,
        "",
        "ExLlamaV2 EXL2: row groups of 2..8-bit codes along K, 4-bit scales times a per-group f16 max, q_invperm"};
    out.add(kExl2);
}

void exl2Budget(std::vector<BudgetFormat>& out)
{
    const FormatInfo* exl2 = findFormat("exl2");
    for (int b : {2, 3, 4, 5, 6, 8})
        out.push_back(budgetRow("exl2-" + std::to_string(b) + "-g32", exl2, b, 32,
                                {{"q_weight", BudgetPart::Codes},
                                 {"q_scale", BudgetPart::Scales},
                                 {"q_scale_max", BudgetPart::Scales, "q_scale_max"},
                                 {"q_groups", BudgetPart::Index, "q_groups"},
                                 {"q_invperm", BudgetPart::Index, "q_invperm"}}));
    markBudgetPresets(out, {{"exl2-4-g32", BudgetPreset::Common}});
}

const FamilyTargets& exl2Targets()
{
    static const FamilyTargets t{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, exl2Budget};
    return t;
}

// ---- the recipe: the converter's target average (config bits, head_bits) and each layer's mix ----

bool exl2RecipeNominal(const Checkpoint& ckpt, RecipeNominal& out)
{
    out.format = findFormat("exl2");
    uint64_t bytes = 0, n = 0;
    for (const LogicalWeight& w : ckpt.weights)
        if (w.format == "exl2") {
            bytes += w.storedBytes;
            n += w.elementCount();
        }
    if (!n)
        return false;
    out.bitsPerWeight = double(bytes) * 8.0 / double(n);
    const detect::QuantConfig cfg(ckpt);
    const auto bits = cfg.get({"bits"});
    if (!bits || !bits->value.isDouble()) {
        out.name = Message::verbatim("exl2");
        out.source = Message(QT_TRANSLATE_NOOP("qs::Message", "most parameters; the config states no bits"));
        return true;
    }
    char target[32];
    std::snprintf(target, sizeof target, "%g", bits->value.toDouble());
    const auto head = cfg.get({"head_bits"});
    out.name = head && head->value.isDouble()
        ? Message(QT_TRANSLATE_NOOP("qs::Message", "%1, %2 bits per weight on average (head %3)"),
                  {"exl2", target, std::to_string(head->value.toInt())})
        : Message(QT_TRANSLATE_NOOP("qs::Message", "%1, %2 bits per weight on average"), {"exl2", target});
    out.source = Message::verbatim(bits->where);
    return true;
}

// Every EXL2 layer is nominal: the converter picks each layer's mix to meet the average.
void exl2RecipeJudge(const Checkpoint& ckpt, const RecipeNominal&, std::span<const LogicalWeight> weights,
                     std::vector<RecipeVerdict>& out)
{
    const detect::QuantConfig cfg(ckpt);
    out.clear();
    for (const LogicalWeight& w : weights) {
        if (w.format == "exl2") {
            const auto mix = w.params.find("row_groups");
            out.push_back({RecipeKind::Nominal, mix == w.params.end() ? "" : "row groups " + mix->second});
        } else if (const FormatInfo* f = findFormat(w.format); f && f->quantized) {
            out.push_back({RecipeKind::Unexplained, "not EXL2"});
        } else if (auto e = cfg.moduleEntry(w.name, false)) {
            out.push_back({e->excluded ? RecipeKind::Excluded : RecipeKind::Override, std::move(e->reason)});
        } else {
            out.push_back({RecipeKind::KeptFloat, ""});
        }
    }
}

std::string exl2RecipeLabel(const Checkpoint&, const LogicalWeight& w)
{
    const auto average = w.params.find("code_bits_average");
    return average == w.params.end() ? w.format : w.format + " " + average->second + "-bit";
}

const RecipeRules& exl2Recipe()
{
    static const RecipeRules rules{exl2RecipeNominal, exl2RecipeJudge, exl2RecipeLabel};
    return rules;
}

// The member detection notes as stray on a tensor no row claimed.
constexpr std::string_view kExl2Members[] = {"q_weight", "q_scale", "q_scale_max", "q_groups", "q_invperm", "q_perm"};

} // namespace

const FamilyRow& exl2Family()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Exl2, "exl2", exl2Formats, registerExl2Layouts, exl2Dequant, nullptr, &exl2Targets()};
        r.displayName = exl2DisplayName;
        r.detectGroup = detect::exl2Group;
        r.memberNames = kExl2Members;
        r.verify = exl2Verify;
        r.groupScales = exl2GroupScalesOf;
        r.elementValues = exl2ElementValues;
        r.recipe = &exl2Recipe();
        return r;
    }();
    return row;
}

} // namespace qs
