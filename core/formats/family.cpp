#include "formats/family.h"

#include <array>

namespace qs {

namespace {

// The `listed` numbers of formats/families.def (the FormatFamily values): 0, 1, 2 ... each once.
constexpr int kListed[] = {
#define QS_FAMILY(value, row, listed) listed,
#include "formats/families.def"
#undef QS_FAMILY
};

constexpr bool listedOnceEach()
{
    const int n = int(std::size(kListed));
    for (int i = 0; i < n; ++i) {
        if (kListed[i] < 0 || kListed[i] >= n)
            return false;
        for (int j = 0; j < i; ++j)
            if (kListed[i] == kListed[j])
                return false;
    }
    return int(FormatFamily::Other) == n;
}
static_assert(listedOnceEach(), "formats/families.def: the listed numbers are 0, 1, 2 ..., each once");

} // namespace

std::span<const FamilyRow> familyRows()
{
    // In the order of formats/families.def: detection asks the rows in it.
    static const std::array rows = {
#define QS_FAMILY(value, row, listed) row##Family(),
#include "formats/families.def"
#undef QS_FAMILY
    };
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
