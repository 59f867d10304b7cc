#include "formats/family.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/gptq/gptq.h"

namespace qs {
namespace {

// GPTQ, AWQ and Marlin: every format is read by the one PackedLinear kernel.
DequantRowsFn gptqFamilyDequant(const FormatInfo&)
{
    return dequantPackedWeightRows;
}

bool gptqFamilyCodes(const WeightData& data, WeightCodes& out)
{
    const PackedLinear p = describePacked(data);
    out.rows = p.N;
    out.cols = p.K;
    out.groups = p.groups;
    out.codes.resize(p.N * p.K);
    for (uint64_t n = 0; n < p.N; ++n)
        for (uint64_t k = 0; k < p.K; ++k)
            out.codes[n * p.K + k] = uint8_t(p.codeAt(n, k));
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

} // namespace

const FamilyRow& gptqFamily()
{
    static const FamilyRow row{FormatFamily::Gptq, "gptq", registerGptqAwqLayouts, gptqFamilyDequant, gptqFamilyCodes,
                               // detection
                               nullptr, detect::gptqGroup, detect::gptqAcrossWeights};
    return row;
}

} // namespace qs
