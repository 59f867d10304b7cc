#include "container/dtype.h"

#include <array>
#include <utility>

namespace qs {
namespace {

struct DTypeRow {
    DType type;
    std::string_view name;
    unsigned bits;
    bool isFloat;
};

constexpr std::array kDTypes{
    DTypeRow{DType::BOOL, "BOOL", 8, false},
    DTypeRow{DType::U8, "U8", 8, false},
    DTypeRow{DType::I8, "I8", 8, false},
    DTypeRow{DType::U16, "U16", 16, false},
    DTypeRow{DType::I16, "I16", 16, false},
    DTypeRow{DType::U32, "U32", 32, false},
    DTypeRow{DType::I32, "I32", 32, false},
    DTypeRow{DType::U64, "U64", 64, false},
    DTypeRow{DType::I64, "I64", 64, false},
    DTypeRow{DType::F16, "F16", 16, true},
    DTypeRow{DType::BF16, "BF16", 16, true},
    DTypeRow{DType::F32, "F32", 32, true},
    DTypeRow{DType::F64, "F64", 64, true},
    DTypeRow{DType::C64, "C64", 64, true},
    DTypeRow{DType::F8_E4M3, "F8_E4M3", 8, true},
    DTypeRow{DType::F8_E5M2, "F8_E5M2", 8, true},
    DTypeRow{DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, true},
    DTypeRow{DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, true},
    DTypeRow{DType::F8_E8M0, "F8_E8M0", 8, true},
    DTypeRow{DType::F4, "F4", 4, true},
    DTypeRow{DType::F6_E2M3, "F6_E2M3", 6, true},
    DTypeRow{DType::F6_E3M2, "F6_E3M2", 6, true},
    DTypeRow{DType::Ggml, "GGML", 0, false},
};

const DTypeRow& row(DType t)
{
    return kDTypes[static_cast<size_t>(t)];
}

} // namespace

std::string_view dtypeName(DType t)
{
    return row(t).name;
}
unsigned dtypeBits(DType t)
{
    return row(t).bits;
}
bool dtypeIsFloat(DType t)
{
    return row(t).isFloat;
}

std::optional<DType> dtypeFromName(std::string_view name)
{
    for (const auto& r : kDTypes)
        if (r.name == name && r.type != DType::Ggml)
            return r.type;
    return std::nullopt;
}

} // namespace qs
