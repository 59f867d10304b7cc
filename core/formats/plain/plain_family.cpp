#include "formats/family.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/plain/floats.h"
#include "formats/plain/plain_detect.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn plainDequant(const FormatInfo& format)
{
    // The float element types the float kernel widens; integers and sub-byte floats are
    // listed, not decoded.
    static constexpr std::string_view decoded[] = {"f32",     "f16",         "bf16",        "f64",    "f8_e4m3",
                                                   "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz", "f8_e8m0"};
    for (std::string_view id : decoded)
        if (format.id == id)
            return dequantFloatRows;
    return nullptr;
}

const char* plainDisplayName(const FormatInfo& format)
{
    return format.storage == StorageKind::Float ? QT_TRANSLATE_NOOP("qs::FamilyName", "float")
                                                : QT_TRANSLATE_NOOP("qs::FamilyName", "integer");
}

// optimum-quanto's member names with a dot of their own (a named-only format).
constexpr std::string_view kQuantoDottedMembers[] = {"weight._data", "weight._scale", "weight._shift"};

} // namespace

const FamilyRow& plainFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Plain, "plain", registerPlainLayouts, plainDequant, nullptr, &plainTargets()};
        // detection: the named-only formats; what no row claims stays a plain weight
        r.detectGroup = detect::namedOnlyGroup;
        r.dottedMembers = kQuantoDottedMembers;
        r.displayName = plainDisplayName;
        return r;
    }();
    return row;
}

} // namespace qs
