#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/aqlm/aqlm.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn aqlmDequant(const FormatInfo& format)
{
    return format.id == "aqlm" ? dequantAqlmRows : nullptr;
}

VerifyFn aqlmVerify(const FormatInfo& format)
{
    return format.id == "aqlm" ? verifyAqlmWeight : nullptr;
}

GroupScalesFn aqlmGroupScalesOf(const FormatInfo& format)
{
    return format.id == "aqlm" ? aqlmGroupScales : nullptr;
}

const char* aqlmDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "AQLM");
}

// The members detection notes as stray on a tensor no row claimed.
constexpr std::string_view kAqlmMembers[] = {"codes", "codebooks"};

void aqlmFormats(FormatList& out)
{
    using namespace formatrow;
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kAqlm = {"aqlm",
                                        0,
                                        Codebook,
                                        Book,
                                        false,
                                        false,
                                        NoRule,
                                        false,
                                        false,
                                        "",
                                        "AQLM additive codebooks: codes index M codebooks of out_group x in_group "
                                        "vectors, summed and scaled per output group"};
    out.add(kAqlm);
}

} // namespace

const FamilyRow& aqlmFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Aqlm, "aqlm", aqlmFormats, registerAqlmLayouts, aqlmDequant};
        // detection
        r.readConfig = detect::aqlmReadConfig;
        r.detectGroup = detect::aqlmGroup;
        r.memberNames = kAqlmMembers;
        r.targets = &aqlmTargets();
        r.displayName = aqlmDisplayName;
        // verify, group scales, the bit map's parameters
        r.verify = aqlmVerify;
        r.groupScales = aqlmGroupScalesOf;
        r.layoutParams = aqlmLayoutParams;
        r.recipe = &recipeFromConfig();
        return r;
    }();
    return row;
}

} // namespace qs
