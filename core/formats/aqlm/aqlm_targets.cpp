// AQLM's rows of the budget table (AQLM is read, not written): the schemes aqlm's published
// models use, 1x16 and 2x8 codebooks over groups of 8 input columns, whose codes cost 2 bits a
// weight; the codebooks (1 MiB for 1x16, 8 KiB for 2x8 per matrix) and the scales on top.
#include "formats/aqlm/aqlm.h"

#include "formats/target.h"

namespace qs {

namespace {

void aqlmBudget(std::vector<BudgetFormat>& out)
{
    const FormatInfo* aqlm = findFormat("aqlm");
    for (const auto& [codebooks, bits] : {std::pair{1, 16}, std::pair{2, 8}}) {
        out.push_back(budgetRow(
            "aqlm-" + std::to_string(codebooks) + "x" + std::to_string(bits) + "-g8", aqlm, bits, 8,
            {{"codes", BudgetPart::Codes}, {"codebooks", BudgetPart::Tables}, {"scales", BudgetPart::Scales}}));
        out.back().codebooks = codebooks;
        out.back().reportedBy = {"aqlm"};
    }
    markBudgetPresets(out, {{"aqlm-1x16-g8", BudgetPreset::Common}, {"aqlm-2x8-g8", BudgetPreset::Common}});
}

} // namespace

const FamilyTargets& aqlmTargets()
{
    static const FamilyTargets t = [] {
        FamilyTargets t;
        t.budget = aqlmBudget;
        return t;
    }();
    return t;
}

} // namespace qs
