#include "formats/family.h"
#include "formats/recipe.h"

#include "base/intmath.h"
#include "base/parallel.h"
#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/affine/affine_requantize.h"

#include <QtGlobal>

namespace qs {
namespace {

DequantRowsFn ctDequant(const FormatInfo& format)
{
    const std::string& f = format.id;
    return f == "compressed-tensors" || f == "compressed-tensors-int" || f == "compressed-tensors-fp8" ? dequantCtRows
                                                                                                       : nullptr;
}

bool ctCodes(const WeightData& data, WeightCodes& c, CodeParts parts)
{
    const CtPacked s = ctPackedState(data);
    if (s.source == CtPacked::Source::Fp8)
        return false;
    const int offset = 1 << (s.bits - 1);
    c.rows = s.rows;
    c.cols = s.cols;
    c.bits = s.bits;
    if (parts == CodeParts::All) {
        c.codes.resize(s.rows * s.cols);
        parallelFor(s.rows, true, [&](uint64_t n) { // code() only reads: rows are independent
            for (uint64_t k = 0; k < s.cols; ++k)
                c.codes[n * s.cols + k] = uint8_t(s.code(n, k) + offset);
        });
    }
    c.groups = s.groups;
    // The config's group size when there is no g_idx, else ceil(K / G).
    c.groupSize = s.gidx.empty() && s.groupSize ? s.groupSize : ceilDiv(s.cols, s.groups);
    c.scaleType = s.scale.dtype();
    c.scales.resize(s.groups * s.rows);
    c.zeros.resize(s.groups * s.rows);
    for (uint64_t g = 0; g < s.groups; ++g)
        for (uint64_t n = 0; n < s.rows; ++n) {
            c.scales[g * s.rows + n] = s.scaleAt(n, g);
            c.zeros[g * s.rows + n] = s.zeroAt(n, g) + offset;
        }
    c.gIdx.resize(s.cols);
    for (uint64_t k = 0; k < s.cols; ++k)
        c.gIdx[k] = int32_t(s.group(k));
    return true;
}

// The integer formats; the float ones (FP8, NVFP4, block FP8) have no integer fields to round trip.
bool ctIntegerFormat(const FormatInfo& format)
{
    return format.id == "compressed-tensors" || format.id == "compressed-tensors-int";
}

VerifyFn ctVerify(const FormatInfo& format)
{
    return ctIntegerFormat(format) ? verifyCtWeight : nullptr;
}

GroupScalesFn ctGroupScalesOf(const FormatInfo& format)
{
    return ctIntegerFormat(format) ? ctGroupScales : nullptr;
}

const char* ctDisplayName(const FormatInfo&)
{
    return QT_TRANSLATE_NOOP("qs::FamilyName", "compressed-tensors");
}

// The members detection notes as stray on a tensor no row claimed.
constexpr std::string_view kCtMembers[] = {"weight_scale", "weight_zero_point", "weight_packed", "weight_shape",
                                           "weight_scale_inv"};

void ctFormats(FormatList& out)
{
    using namespace formatrow;
    // Part B of ../shared/spec/safetensors-quant.md.
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kFormats[] = {
        {"compressed-tensors", 0, GroupAffine, Int, true, true, GptqAffine, true, true, "ct",
         "compressed-tensors pack-quantized: signed codes +2^(b-1) packed along K in int32"},
        {"compressed-tensors-int", 0, GroupAffine, Int, true, true, GptqAffine, false, false, "",
         "compressed-tensors int-/naive-quantized: unpacked int8 codes + weight_scale"},
        {"compressed-tensors-fp8", 8, ScaledFloat, Int, false, false, NoRule, false, false, "",
         "compressed-tensors float-quantized: FP8 weight + weight_scale"},
        {"compressed-tensors-nvfp4", 4, ScaledFloat, Int, false, false, NoRule, false, false, "",
         "compressed-tensors nvfp4-pack-quantized: FP4 E2M1 pairs, FP8 scales per 16, global scale"},
    };
    static constexpr FormatRow kFp8Block = {"fp8-block",
                                            8,
                                            ScaledFloat,
                                            Flt,
                                            false,
                                            false,
                                            NoRule,
                                            false,
                                            false,
                                            "",
                                            "block FP8 (DeepSeek style): FP8 weight + weight_scale_inv per 128x128"};

    for (const FormatRow& f : kFormats)
        out.add(f);
    out.addAfterFamilies(kFp8Block);
}

} // namespace

const FamilyRow& compressedTensorsFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::CompressedTensors,
                    "compressed_tensors",
                    ctFormats,
                    registerCompressedTensorsLayouts,
                    ctDequant,
                    ctCodes};
        // detection
        r.readConfig = detect::ctReadConfig;
        r.detectGroup = detect::compressedTensorsGroup;
        r.memberNames = kCtMembers;
        r.targets = &compressedTensorsTargets();
        r.displayName = ctDisplayName;
        // verify and group scales
        r.verify = ctVerify;
        r.groupScales = ctGroupScalesOf;
        r.recipe = &recipeFromConfig();
        r.requantize = affineRequantize;
        r.requantizeShaped = true;
        return r;
    }();
    return row;
}

} // namespace qs
