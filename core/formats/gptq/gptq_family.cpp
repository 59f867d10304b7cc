#include "formats/family.h"
#include "formats/recipe.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/target.h"
#include "formats/gptq/gptq.h"
#include "formats/affine/affine_requantize.h"
#include "formats/gptq/gptq_tally.h"
#include "formats/wordmap.h"

#include <QtGlobal>

namespace qs {
namespace {

// GPTQ, AWQ and Marlin: every format is read by the one PackedLinear kernel.
DequantRowsFn gptqFamilyDequant(const FormatInfo&)
{
    return dequantPackedWeightRows;
}

bool gptqFamilyCodes(const WeightData& data, WeightCodes& out, CodeParts parts)
{
    const PackedLinear p = describePacked(data);
    out.rows = p.N;
    out.cols = p.K;
    out.bits = p.bits;
    out.groups = p.groups;
    out.groupSize = p.groupSize ? p.groupSize : p.K;
    out.scaleType = p.scaleType == ScaleType::F16 ? DType::F16
        : p.scaleType == ScaleType::BF16          ? DType::BF16
                                                  : DType::F32;
    if (parts == CodeParts::All) {
        out.codes.resize(p.N * p.K);
        packedCodes(p, out.codes.data());
    }
    out.scales.resize(p.groups * p.N);
    if (p.zeros == ZeroConvention::FloatBias)
        out.biases.resize(p.groups * p.N);
    else
        out.zeros.resize(p.groups * p.N);
    for (uint64_t g = 0; g < p.groups; ++g)
        for (uint64_t n = 0; n < p.N; ++n) {
            out.scales[g * p.N + n] = p.scaleAt(g, n);
            if (p.zeros == ZeroConvention::FloatBias)
                out.biases[g * p.N + n] = p.biasAt(g, n);
            else
                out.zeros[g * p.N + n] = p.zeroAt(g, n);
        }
    out.gIdx.resize(p.K);
    for (uint64_t k = 0; k < p.K; ++k)
        out.gIdx[k] = int32_t(p.groupOf(k));
    return true;
}

// Every format of the family has the packer round trip and group scales.
VerifyFn gptqVerify(const FormatInfo&)
{
    return verifyPackedWeight;
}

GroupScalesFn gptqGroupScales(const FormatInfo&)
{
    return packedGroupScales;
}

// AWQ's layouts (GEMM, GEMV, Marlin) are named apart from GPTQ's, as their tools are.
const char* gptqDisplayName(const FormatInfo& format)
{
    return format.id.starts_with("awq-") ? QT_TRANSLATE_NOOP("qs::FamilyName", "AWQ")
                                         : QT_TRANSLATE_NOOP("qs::FamilyName", "GPTQ");
}

// The kernels' own reader: g_idx and the v1 zero rules are applied as when dequantizing.
void packedElementValues(const WeightData& data, uint64_t row, uint64_t col, ElementValues& v)
{
    const PackedLinear p = describePacked(data);
    v.code = p.codeAt(row, col);
    v.group = p.groupOf(col);
    v.hasScale = true;
    v.scale = p.scaleAt(v.group, row);
    v.hasZero = true;
    v.zero = p.zeros == ZeroConvention::FloatBias ? p.biasAt(v.group, row) : p.zeroAt(v.group, row);
}

// The members detection notes as stray on a tensor no row claimed.
constexpr std::string_view kGptqMembers[] = {"qweight", "qzeros", "scales", "g_idx"};

void gptqFormats(FormatList& out)
{
    using namespace formatrow;
    // Part B of ../shared/spec/safetensors-quant.md.
    //  id  bits  storage  colour  integerCodes affineCodes  requantize  quantize repack  alias
    static constexpr FormatRow kFormats[] = {
        {"gptq-v1", 0, StorageKind::PackedLinear, Int, true, true, GptqAffine, true, true, "gptq",
         "GPTQ (AutoGPTQ checkpoint_format gptq): qweight packed along K, zeros stored as z-1"},
        {"gptq-v2", 0, StorageKind::PackedLinear, Int, true, true, GptqAffine, true, true, "",
         "GPTQ v2 (GPTQModel gptq_v2): qweight packed along K, zeros stored as z"},
        {"gptq-planar", 0, StorageKind::PackedLinear, Int, true, true, GptqAffine, false, false, "",
         "GPTQModel split-plane layout (format gptq_p; 5/6/7-bit), v2 zeros"},
        {"awq-gemm", 4, StorageKind::PackedLinear, Int, true, true, Awq, true, true, "awq",
         "AutoAWQ GEMM: qweight [K, N/8] packed along N in AWQ order, zeros as-is"},
        {"awq-gemv", 4, StorageKind::PackedLinear, Int, true, true, Awq, false, false, "",
         "AutoAWQ GEMV: qweight [N, K/8] packed along K, padded zeros and scales"},
        // Its zeros are stored folded into float biases (-s*z): codes yes, integer zeros no.
        {"awq-gemv-fast", 4, StorageKind::PackedLinear, Int, true, false, Awq, false, false, "",
         "llm-awq GEMV_FAST: int16 qweight [N/4, K] interleaved, f16 scales and -s*z biases"},
        {"gptq-marlin", 4, StorageKind::PackedLinear, Int, true, true, GptqAffine, false, false, "",
         "Marlin tiles (B, s): symmetric GPTQ, 16x16 tiles permuted for mma"},
        {"awq-marlin", 4, StorageKind::PackedLinear, Int, true, true, GptqAffine, false, false, "",
         "AutoAWQ version marlin: symmetric 4-bit Marlin tiles (qweight, scales)"},
    };

    for (const FormatRow& f : kFormats)
        out.add(f);
}

} // namespace

const FamilyRow& gptqFamily()
{
    static const FamilyRow row = [] {
        FamilyRow r{FormatFamily::Gptq, "gptq",         gptqFormats, registerGptqAwqLayouts,
                    gptqFamilyDequant,  gptqFamilyCodes};
        // detection
        r.readConfig = detect::gptqReadConfig;
        r.detectGroup = detect::gptqGroup;
        r.memberNames = kGptqMembers;
        r.detectAcross = detect::gptqAcrossWeights;
        r.targets = &gptqTargets();
        r.displayName = gptqDisplayName;
        // verify, group scales, the layout report
        r.verify = gptqVerify;
        r.groupScales = gptqGroupScales;
        r.packProbe = packedProbe;
        r.elementValues = packedElementValues;
        r.recipe = &recipeFromConfig();
        r.weightTally = gptqWeightTally;
        r.requantize = affineRequantize;
        r.requantizeShaped = true;
        return r;
    }();
    return row;
}

} // namespace qs
