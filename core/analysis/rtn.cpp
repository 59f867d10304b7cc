#include "analysis/rtn.h"

#include "kernels/half.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace qs {

float RtnResult::scale(uint64_t g, uint64_t r) const
{
    return halfToFloat(scales[g * rows + r]);
}

float RtnResult::dequant(uint64_t r, uint64_t c) const
{
    const uint64_t g = uint64_t(groupIndex[c]);
    return scale(g, r) * float(int(code(r, c)) - int(zero(g, r)));
}

RtnResult quantizeRtn(std::span<const float> weights, uint64_t rows, uint64_t cols, const RtnOptions& options)
{
    if (options.bits < 1 || options.bits > 8)
        throw std::invalid_argument("rtn: bits must be 1..8");
    if (rows == 0 || cols == 0 || rows > std::numeric_limits<uint64_t>::max() / cols || weights.size() != rows * cols)
        throw std::invalid_argument("rtn: weights do not match rows x cols");
    const uint64_t groupSize = options.groupSize > 0 ? std::min<uint64_t>(uint64_t(options.groupSize), cols) : cols;

    RtnResult r;
    r.bits = options.bits;
    r.rows = rows;
    r.cols = cols;
    if (options.groupIndex.empty()) {
        r.groupIndex.resize(cols);
        for (uint64_t k = 0; k < cols; ++k)
            r.groupIndex[k] = int32_t(k / groupSize);
        r.groups = (cols + groupSize - 1) / groupSize;
    } else {
        if (options.groupIndex.size() != cols)
            throw std::invalid_argument("rtn: groupIndex must have one entry per column");
        r.groupIndex = options.groupIndex;
        int32_t maxGroup = -1;
        for (int32_t g : r.groupIndex) {
            if (g < 0)
                throw std::invalid_argument("rtn: negative group index");
            maxGroup = std::max(maxGroup, g);
        }
        r.groups = uint64_t(maxGroup) + 1;
        if (r.groups > cols)
            throw std::invalid_argument("rtn: more groups than columns");
    }

    const int maxq = (1 << options.bits) - 1;
    r.codes.resize(rows * cols);
    r.scales.resize(r.groups * rows);
    r.zeros.resize(r.groups * rows);
    std::vector<float> lo(r.groups), hi(r.groups);
    for (uint64_t row = 0; row < rows; ++row) {
        const float* w = weights.data() + row * cols;
        std::fill(lo.begin(), lo.end(), std::numeric_limits<float>::infinity());
        std::fill(hi.begin(), hi.end(), -std::numeric_limits<float>::infinity());
        for (uint64_t k = 0; k < cols; ++k) {
            const auto g = size_t(r.groupIndex[k]);
            lo[g] = std::min(lo[g], w[k]);
            hi[g] = std::max(hi[g], w[k]);
        }
        for (uint64_t g = 0; g < r.groups; ++g) {
            if (lo[g] > hi[g]) // a group with no columns: any valid parameters
                lo[g] = hi[g] = 0.0f;
            float s;
            int z = (maxq + 1) / 2;
            if (options.symmetric) {
                float m = std::max(std::fabs(lo[g]), std::fabs(hi[g]));
                if (m == 0.0f)
                    m = 1.0f;
                s = 2.0f * m / float(maxq);
            } else {
                s = std::max(hi[g] - lo[g], 1e-5f) / float(maxq);
            }
            // The stored scale is f16: quantize against what the reader will see.
            uint16_t s16 = floatToHalf(s);
            if (halfToFloat(s16) == 0.0f)
                s16 = 0x0001; // the smallest subnormal; never divide by zero
            s = halfToFloat(s16);
            if (!options.symmetric)
                z = std::clamp(int(std::nearbyint(-lo[g] / s)), 0, maxq);
            r.scales[g * rows + row] = s16;
            r.zeros[g * rows + row] = uint8_t(z);
        }
        for (uint64_t k = 0; k < cols; ++k) {
            const auto g = uint64_t(r.groupIndex[k]);
            const float s = halfToFloat(r.scales[g * rows + row]);
            const int z = r.zeros[g * rows + row];
            // Clamp before converting so a huge ratio cannot overflow int.
            const float ratio = std::clamp(std::nearbyint(w[k] / s), -512.0f, 512.0f);
            const int q = int(ratio) + z;
            r.codes[row * cols + k] = uint8_t(std::clamp(q, 0, maxq));
        }
    }
    return r;
}

} // namespace qs
