// Plain floats in the budget table (the unquantized baselines); nothing is written in them.
#include "formats/target.h"
#include "formats/plain/plain.h"

namespace qs {

namespace {

void plainBudget(std::vector<BudgetFormat>& out)
{
    for (DType t : {DType::F32, DType::F16, DType::BF16}) {
        const std::string id = plainFormatId(t);
        out.push_back(budgetRow(id, findFormat(id), int(dtypeBits(t)), 0, {{"weight", BudgetPart::Codes}}));
    }
    markBudgetPresets(out, {{"f16", BudgetPreset::Headline}, {"bf16", BudgetPreset::Common}});
}

} // namespace

const FamilyTargets& plainTargets()
{
    static const FamilyTargets t{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, plainBudget};
    return t;
}

} // namespace qs
