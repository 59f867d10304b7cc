#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/mlx/mlx.h"
#include "formats/affine/affine_requantize.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn mlxDequant(const FormatInfo& format)
{
    return format.id == "mlx-affine" ? dequantMlxRows : nullptr;
}

bool mlxCodes(const WeightData& data, WeightCodes& c, CodeParts)
{
    const MlxAffine s = mlxState(data);
    c.rows = s.rows;
    c.cols = s.cols;
    c.bits = s.bits;
    c.scaleType = s.scales.dtype();
    c.codes.resize(s.rows * s.cols);
    for (uint64_t n = 0; n < s.rows; ++n)
        for (uint64_t k = 0; k < s.cols; ++k)
            c.codes[n * s.cols + k] = uint8_t(s.code(n, k));
    rowGroups(c, s.groupSize, [&](uint64_t g) { return s.scales.at(g); });
    c.biases.resize(c.scales.size());
    for (uint64_t g = 0; g < s.groups; ++g)
        for (uint64_t n = 0; n < s.rows; ++n)
            c.biases[g * s.rows + n] = s.biases.at(n * s.groups + g);
    return true;
}

VerifyFn mlxVerify(const FormatInfo& format)
{
    return format.id == "mlx-affine" ? verifyMlxWeight : nullptr;
}

GroupScalesFn mlxGroupScalesOf(const FormatInfo& format)
{
    return format.id == "mlx-affine" ? mlxGroupScales : nullptr;
}

const char* mlxDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "MLX");
}

// The members detection notes as stray on a tensor no row claimed.
constexpr std::string_view kMlxMembers[] = {"scales", "biases"};

void mlxFormats(FormatList& out)
{
    using namespace formatrow;
    // Part B of ../shared/spec/safetensors-quant.md.
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kFormats[] = {
        {"mlx-affine", 0, GroupAffine, Int, true, false, GptqAffine, true, true, "mlx",
         "MLX affine: uint32 words packed along K, scales and biases per group"},
        {"mlx-mxfp4", 4, ScaledFloat, Int, false, false, NoRule, false, false, "",
         "MLX mxfp4: FP4 codes in uint32 words, E8M0 scales per 32"},
        {"mlx-nvfp4", 4, ScaledFloat, Int, false, false, NoRule, false, false, "",
         "MLX nvfp4: FP4 codes in uint32 words, FP8 scales per 16"},
        {"mlx-mxfp8", 8, ScaledFloat, Int, false, false, NoRule, false, false, "",
         "MLX mxfp8: FP8 codes in uint32 words, E8M0 scales per 32"},
    };

    for (const FormatRow& f : kFormats)
        out.add(f);
}

} // namespace

const FamilyRow& mlxFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Mlx, "mlx", mlxFormats, registerMlxLayouts, mlxDequant, mlxCodes};
        // detection
        r.readConfig = detect::mlxReadConfig;
        r.detectGroup = detect::mlxGroup;
        r.memberNames = kMlxMembers;
        r.targets = &mlxTargets();
        r.displayName = mlxDisplayName;
        // verify and group scales
        r.verify = mlxVerify;
        r.groupScales = mlxGroupScalesOf;
        r.recipe = &recipeFromConfig();
        r.requantize = affineRequantize;
        r.requantizeShaped = true;
        return r;
    }();
    return row;
}

} // namespace qs
