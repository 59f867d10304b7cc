#include "formats/target.h"

#include "base/error.h"
#include "formats/family.h"

#include <QJsonArray>
#include <QJsonValue>

namespace qs {

const FamilyTargets* familyTargets(const FormatInfo& format)
{
    const FamilyRow* row = familyRow(format.family);
    return row ? row->targets : nullptr;
}

BudgetFormat budgetRow(std::string id, const FormatInfo* info, BudgetKind kind, int bits, uint64_t group, bool symmetric)
{
    BudgetFormat f;
    f.id = std::move(id);
    f.info = info;
    f.kind = kind;
    f.bits = bits;
    f.groupSize = group;
    f.symmetric = symmetric;
    return f;
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
        throw Error("quantize: " + target.id + " has " + std::to_string(target.bits) + "-bit codes; --bits " +
                    std::to_string(request.bits) + " does not apply");
    return target.bits;
}

} // namespace qs
