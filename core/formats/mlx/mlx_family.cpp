#include "formats/family.h"

#include "formats/codes.h"
#include "formats/layoutspec.h"
#include "formats/mlx/mlx.h"

namespace qs {
namespace {

DequantRowsFn mlxDequant(const FormatInfo& format)
{
    return format.id == "mlx-affine" ? dequantMlxRows : nullptr;
}

bool mlxCodes(const WeightData& data, WeightCodes& c)
{
    const MlxAffine s = mlxState(data);
    c.rows = s.rows;
    c.cols = s.cols;
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

} // namespace

const FamilyRow& mlxFamily()
{
    static const FamilyRow row{FormatFamily::Mlx, "mlx", registerMlxLayouts, mlxDequant, mlxCodes,
                               // detection
                               nullptr, detect::mlxGroup, nullptr};
    return row;
}

} // namespace qs
