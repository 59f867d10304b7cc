#include "formats/codes.h"

#include <algorithm>

namespace qs {

bool WeightCodes::symmetric() const
{
    const int32_t mid = int32_t(1u << (bits - 1));
    return std::all_of(zeros.begin(), zeros.end(), [mid](int32_t z) { return z == mid; });
}

bool WeightCodes::actOrder() const
{
    if (groupSize == 0)
        return false;
    for (uint64_t k = 0; k < gIdx.size(); ++k)
        if (uint64_t(gIdx[k]) != k / groupSize)
            return true;
    return false;
}

void rowGroups(WeightCodes& c, uint64_t groupSize, const std::function<float(uint64_t flatGroup)>& scale)
{
    if (groupSize == 0 || c.cols % groupSize != 0) {
        c.gIdx.assign(c.cols, -1);
        return;
    }
    const uint64_t perRow = c.cols / groupSize;
    c.groups = perRow;
    c.groupSize = groupSize;
    c.scales.resize(perRow * c.rows);
    for (uint64_t g = 0; g < perRow; ++g)
        for (uint64_t n = 0; n < c.rows; ++n)
            c.scales[g * c.rows + n] = scale(n * perRow + g);
    c.gIdx.resize(c.cols);
    for (uint64_t k = 0; k < c.cols; ++k)
        c.gIdx[k] = int32_t(k / groupSize);
}

} // namespace qs
