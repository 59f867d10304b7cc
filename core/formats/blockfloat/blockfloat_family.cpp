#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/layoutspec.h"
#include "formats/statecache.h"
#include "formats/wordmap.h"
#include "formats/blockfloat/blockfloat.h"
#include "formats/compressed_tensors/ct.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn blockFloatDequant(const FormatInfo& format)
{
    if (format.id == "hf-mxfp4")
        return dequantMxfp4Rows;
    if (format.id == "modelopt-nvfp4")
        return dequantNvfp4Rows;
    // FP8 times a per-tensor (or per-channel [N, 1]) scale: compressed-tensors' float-quantized rows.
    return format.id == "modelopt-fp8" ? dequantCtRows : nullptr;
}

VerifyFn blockFloatVerify(const FormatInfo& format)
{
    if (format.id == "hf-mxfp4")
        return verifyMxfp4Weight;
    if (format.id == "modelopt-nvfp4")
        return verifyNvfp4Weight;
    return format.id == "modelopt-fp8" ? verifyModeloptFp8Weight : nullptr;
}

GroupScalesFn blockFloatGroupScales(const FormatInfo& format)
{
    return format.id == "hf-mxfp4" || format.id == "modelopt-nvfp4" ? fp4GroupScales : nullptr;
}

// An element's code and the scale its kernel multiplies by (the stored U8 / F8 scale bytes decoded):
// the Bit map's panel.
void blockFloatElementValues(const WeightData& d, uint64_t row, uint64_t col, ElementValues& out)
{
    out.zeroKind = ZeroPointKind::None;
    out.hasScale = true;
    if (d.weight.format == "modelopt-fp8") {
        const CtPacked& s = cachedState<CtPacked>(d, ctPackedState);
        out.code = s.packed[row * s.cols + col];
        out.scale = s.scaleAt(row, 0);
        return;
    }
    const Fp4Blocks& s = cachedState<Fp4Blocks>(d, d.weight.format == "hf-mxfp4" ? mxfp4State : nvfp4State);
    out.code = s.code(row, col);
    out.group = col / s.blockSize;
    out.scale = s.blockScale(row, out.group);
}

const char* blockFloatDisplayName(const FormatInfo& format)
{
    return format.id == "hf-mxfp4" ? QT_TRANSLATE_NOOP("qs::FamilyName", "gpt-oss MXFP4")
                                   : QT_TRANSLATE_NOOP("qs::FamilyName", "ModelOpt");
}

// The members detection notes as stray on a tensor no row claimed.
constexpr std::string_view kBlockFloatMembers[] = {"weight_scale_2"};

void blockFloatFormats(FormatList& out)
{
    using namespace formatrow;
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kFormats[] = {
        {"hf-mxfp4", 4, ScaledFloat, Int, false, false, NoRule, false, false, "gpt-oss-mxfp4",
         "transformers mxfp4 (gpt-oss MoE experts): E2M1 pairs in _blocks, E8M0 _scales per 32"},
        {"modelopt-nvfp4", 4, ScaledFloat, Int, false, false, NoRule, false, false, "",
         "NVIDIA ModelOpt NVFP4: E2M1 pairs, FP8 E4M3 scale per 16 times weight_scale_2"},
        {"modelopt-fp8", 8, ScaledFloat, Int, false, false, NoRule, false, false, "",
         "NVIDIA ModelOpt FP8: F8_E4M3 weight times a per-tensor weight_scale"},
    };
    for (const FormatRow& f : kFormats)
        out.add(f);
}

} // namespace

const FamilyRow& blockFloatFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::BlockFloat,  "blockfloat",      blockFloatFormats,
                    registerBlockFloatLayouts, blockFloatDequant, nullptr};
        r.targets = &blockFloatTargets();
        r.displayName = blockFloatDisplayName;
        // detection
        r.readConfig = detect::blockFloatReadConfig;
        r.detectGroup = detect::blockFloatGroup;
        r.memberNames = kBlockFloatMembers;
        // verify and group scales
        r.verify = blockFloatVerify;
        r.groupScales = blockFloatGroupScales;
        r.elementValues = blockFloatElementValues;
        r.recipe = &recipeFromConfig();
        return r;
    }();
    return row;
}

} // namespace qs
