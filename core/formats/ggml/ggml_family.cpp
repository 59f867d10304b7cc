#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_tally.h"

#include <QtGlobal>

namespace qs {
namespace {

// Every GGUF type, plain ones included, goes through the ggml row kernels.
DequantRowsFn ggmlDequant(const FormatInfo&)
{
    return dequantGgufWeightRows;
}

VerifyFn ggmlVerify(const FormatInfo& format)
{
    return format.storage == StorageKind::GgmlBlock ? verifyGgufWeight : nullptr;
}

// Every GGUF type: the reader says why a plain or scale-less type has none (ggufBlockScalesApply
// tells them apart beforehand).
GroupScalesFn ggmlGroupScales(const FormatInfo&)
{
    return ggufGroupScales;
}

const char* ggmlDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "GGUF");
}

} // namespace

const FamilyRow& ggmlFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Gguf, "ggml", registerGgufLayouts, ggmlDequant, nullptr};
        // detection
        r.detectCheckpoint = detect::ggufCheckpoint;
        r.targets = &ggmlTargets();
        r.displayName = ggmlDisplayName;
        // verify, group scales, the layout report
        r.verify = ggmlVerify;
        r.groupScales = ggmlGroupScales;
        r.groupScalesApply = ggufBlockScalesApply;
        r.subBlockScales = ggufSubBlockScalesApply;
        r.packProbe = ggmlProbe;
        r.blockValues = ggufBlockValues;
        r.recipe = &ggmlRecipeRules();
        r.weightTally = ggmlWeightTally;
        r.requantize = ggmlRequantize;
        return r;
    }();
    return row;
}

} // namespace qs
