#include "formats/family.h"

#include <array>

namespace qs {

std::span<const FamilyRow> familyRows()
{
    // One line per family. Detection asks them in this order, most specific member names
    // first: changing it changes which family claims an ambiguous module.
    // clang-format off
    static const std::array<FamilyRow, 7> rows = {
        gptqFamily(),
        ggmlFamily(),
        bnbFamily(),
        compressedTensorsFamily(),
        mlxFamily(),
        hqqFamily(),
        plainFamily(),
    };
    // clang-format on
    return rows;
}

const FamilyRow* familyRow(FormatFamily family)
{
    for (const FamilyRow& r : familyRows())
        if (r.family == family)
            return &r;
    return nullptr;
}

const FamilyRow* familyRowOf(std::string_view formatId)
{
    const FormatInfo* f = findFormat(formatId);
    return f ? familyRow(f->family) : nullptr;
}

bool hasRequantizer(const FormatInfo& format)
{
    const FamilyRow* row = familyRow(format.family);
    return row && row->requantize && row->requantize(format);
}

bool requantizerTakesShape(const FormatInfo& format)
{
    return hasRequantizer(format) && familyRow(format.family)->requantizeShaped;
}

const char* familyDisplayName(const FormatInfo& format)
{
    const FamilyRow* row = familyRow(format.family);
    return row && row->displayName ? row->displayName(format) : "";
}

} // namespace qs
