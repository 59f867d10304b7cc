#include "formats/target.h"

#include "base/error.h"
#include "formats/family.h"

#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>

namespace qs {

const FamilyTargets* familyTargets(const FormatInfo& format)
{
    const FamilyRow* row = familyRow(format.family);
    return row ? row->targets : nullptr;
}

GgufOutput ggufOutput(const FormatInfo& target)
{
    const FamilyTargets* t = familyTargets(target);
    return t && t->gguf ? t->gguf(target) : GgufOutput{};
}

BudgetFormat budgetRow(std::string id, const FormatInfo* info, int bits, uint64_t group,
                       std::vector<BudgetTensor> tensors)
{
    BudgetFormat f;
    f.id = std::move(id);
    f.info = info;
    f.bits = bits;
    f.groupSize = group;
    f.tensors = std::move(tensors);
    return f;
}

void markBudgetPresets(std::vector<BudgetFormat>& rows,
                       std::initializer_list<std::pair<std::string_view, BudgetPreset>> presets)
{
    for (const auto& p : presets) {
        const auto it = std::find_if(rows.begin(), rows.end(), [&](const BudgetFormat& f) { return f.id == p.first; });
        if (it == rows.end())
            throw Error("budget preset names no row: " + std::string(p.first));
        it->preset = p.second;
    }
}

namespace {

// Every family's contribution to one list, in family order.
template <class T>
std::vector<T> collectFromFamilies(void (*FamilyTargets::*collect)(std::vector<T>&))
{
    std::vector<T> out;
    for (int f = 0; f <= int(FormatFamily::Unknown); ++f) {
        const FamilyRow* row = familyRow(FormatFamily(f));
        if (row && row->targets && row->targets->*collect)
            (row->targets->*collect)(out);
    }
    return out;
}

} // namespace

std::vector<RequantizePreset> requantizePresets()
{
    return collectFromFamilies(&FamilyTargets::requantizePresets);
}

std::vector<BudgetFormat> familyBudgetRows()
{
    return collectFromFamilies(&FamilyTargets::budget);
}

std::vector<PlaygroundBlockFormat> playgroundBlockFormats()
{
    return collectFromFamilies(&FamilyTargets::playgroundFormats);
}

std::vector<PlaygroundAffineFormat> playgroundAffineFormats()
{
    return collectFromFamilies(&FamilyTargets::playgroundAffineFormats);
}

std::optional<RequantizeSpec> ownRequantizeSpec(const FormatInfo& format, int bits, uint64_t groupSize, bool symmetric)
{
    if (!hasRequantizer(format))
        return std::nullopt;
    if (!requantizerTakesShape(format)) // GGUF types, bnb NF4/FP4: the format fixes everything
        return RequantizeSpec{format.id};
    if (bits < 2 || bits > 8) // the affine rules' widths
        return std::nullopt;
    return RequantizeSpec{format.id, bits, groupSize, symmetric};
}

std::string torchDtypeName(DType t)
{
    switch (t) {
    case DType::BF16: return "bfloat16";
    case DType::F32: return "float32";
    default: return "float16";
    }
}

QJsonValue skippedModulesJson(const QuantScheme& s)
{
    if (s.skipped.empty())
        return QJsonValue::Null;
    QJsonArray a;
    for (const std::string& m : s.skipped)
        a.append(QString::fromStdString(m));
    return a;
}

int fixedCodeBits(const QuantizeRequest& request, const FormatInfo& target)
{
    if (request.bits && request.bits != target.bits)
        throw Error("quantize: " + target.id + " has " + std::to_string(target.bits) + "-bit codes; --bits "
                    + std::to_string(request.bits) + " does not apply");
    return target.bits;
}

} // namespace qs
