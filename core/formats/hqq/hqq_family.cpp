#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/hqq/hqq.h"
#include "formats/affine/affine_requantize.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn hqqDequant(const FormatInfo& format)
{
    return format.id == "hqq" ? dequantHqqRows : nullptr;
}

bool hqqCodes(const WeightData& data, WeightCodes& c, CodeParts)
{
    const Hqq s = hqqState(data);
    c.rows = s.rows;
    c.cols = s.cols;
    c.bits = s.bits;
    c.scaleType = s.scale.dtype();
    c.codes.resize(s.rows * s.cols);
    for (uint64_t e = 0; e < c.codes.size(); ++e)
        c.codes[e] = uint8_t(s.code(e / s.viewCols, e % s.viewCols));
    // Axis 1 groups are runs of viewCols flat elements; axis 0 groups are strided.
    rowGroups(c, s.axis == 1 ? s.viewCols : 0, [&](uint64_t r) { return s.scale.at(r); });
    return true;
}

// The member detection notes on a tensor no row claimed (HQQ's scale and zero are names too
// common to count).
constexpr std::string_view kHqqMembers[] = {"W_q"};

const char* hqqDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "HQQ");
}

void hqqFormats(FormatList& out)
{
    using namespace formatrow;
    // Part B of ../shared/spec/safetensors-quant.md.
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kHqq = {"hqq",
                                       0,
                                       GroupAffine,
                                       Int,
                                       true,
                                       false,
                                       GptqAffine,
                                       false,
                                       false,
                                       "",
                                       "HQQ: W_q packed by halves of the grouped view, float scale and zero"};

    out.add(kHqq);
}

} // namespace

const FamilyRow& hqqFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Hqq, "hqq", hqqFormats, registerHqqLayouts, hqqDequant, hqqCodes};
        // detection
        r.detectGroup = detect::hqqGroup;
        r.memberNames = kHqqMembers;
        r.displayName = hqqDisplayName;
        r.recipe = &recipeFromConfig();
        r.requantize = affineRequantize;
        r.requantizeShaped = true;
        return r;
    }();
    return row;
}

} // namespace qs
