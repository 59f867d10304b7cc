// The block-scaled floats in the budget table; nothing is written in them.
#include "formats/target.h"
#include "formats/blockfloat/blockfloat.h"

namespace qs {

namespace {

void blockFloatBudget(std::vector<BudgetFormat>& out)
{
    out.push_back(budgetRow("hf-mxfp4", findFormat("hf-mxfp4"), 4, 32,
                            {{"blocks", BudgetPart::Codes}, {"scales", BudgetPart::Scales}}));
    out.push_back(budgetRow(
        "modelopt-nvfp4", findFormat("modelopt-nvfp4"), 4, 16,
        {{"weight", BudgetPart::Codes}, {"weight_scale", BudgetPart::Scales}, {"weight_scale_2", BudgetPart::Scales}}));
    out.push_back(budgetRow("modelopt-fp8", findFormat("modelopt-fp8"), 8, 0,
                            {{"weight", BudgetPart::Codes}, {"weight_scale", BudgetPart::Scales}}));
    // gpt-oss and NVIDIA's FP4 exports: what people choose between among 4-bit floats.
    markBudgetPresets(out, {{"hf-mxfp4", BudgetPreset::Common}, {"modelopt-nvfp4", BudgetPreset::Common}});
}

} // namespace

const FamilyTargets& blockFloatTargets()
{
    static const FamilyTargets t{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, blockFloatBudget};
    return t;
}

} // namespace qs
