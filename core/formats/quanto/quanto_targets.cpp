// optimum-quanto in the budget table; nothing is written in its formats.
#include "formats/target.h"
#include "formats/quanto/quanto.h"

namespace qs {

namespace {

void quantoBudget(std::vector<BudgetFormat>& out)
{
    // qint2/qint4 at quanto's default group of 128 (what a weight of more than 128 inputs gets).
    for (int b : {4, 2}) {
        const std::string id(quantoFormatId(Quanto::Kind::QBits, b));
        out.push_back(budgetRow(id + "-g128", findFormat(id), b, 128,
                                {{"weight._data._data", BudgetPart::Codes},
                                 {"weight._scale", BudgetPart::Scales},
                                 {"weight._shift", BudgetPart::Zeros, "shift"}}));
    }
    for (const Quanto::Kind k : {Quanto::Kind::QInt8, Quanto::Kind::QFloat8}) {
        const std::string id(quantoFormatId(k, 8));
        out.push_back(budgetRow(id, findFormat(id), 8, 0,
                                {{"weight._data", BudgetPart::Codes}, {"weight._scale", BudgetPart::Scales}}));
    }
    markBudgetPresets(out, {{"quanto-qint4-g128", BudgetPreset::Common}});
}

} // namespace

const FamilyTargets& quantoTargets()
{
    static const FamilyTargets t{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, quantoBudget};
    return t;
}

} // namespace qs
