#include "analysis/rtn.h"

#include "analysis/quantize_affine.h"
#include "error.h"
#include "kernels/half.h"

#include <limits>
#include <stdexcept>

// The demo's RTN is the affine quantizer (quantize_affine.h) with its scales held as f16:
// symmetric is compressed-tensors' rule (2 max|w| / (2^b - 1), zero 2^(b-1)), asymmetric
// AWQ's; zeros and codes are computed against the f16 scale.

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

    AffineOptions o;
    o.bits = options.bits;
    o.granularity = AffineGranularity::Group;
    o.groupSize = options.groupSize > 0 ? uint64_t(options.groupSize) : cols;
    o.symmetric = options.symmetric;
    // Compressed-tensors' signed grid needs two bits; at one bit GPTQ's symmetric rule is the same grid.
    o.rule = options.symmetric ? (options.bits >= 2 ? AffineRule::CompressedTensors : AffineRule::Gptq) : AffineRule::Awq;
    o.codeScale = DType::F16;
    o.groupIndex = options.groupIndex;
    AffineQuantized q;
    try {
        q = quantizeAffine(weights.data(), rows, cols, o);
    } catch (const Error& e) {
        throw std::invalid_argument(std::string("rtn: ") + e.what());
    }

    RtnResult r;
    r.bits = q.bits;
    r.rows = rows;
    r.cols = cols;
    r.groups = q.groups;
    r.codes = std::move(q.codes);
    r.scales.resize(q.scales.size());
    r.zeros.resize(q.zeros.size());
    for (size_t i = 0; i < q.scales.size(); ++i) {
        r.scales[i] = floatToHalf(q.scales[i]); // exact: already an f16 value
        r.zeros[i] = uint8_t(q.zeros[i]);
    }
    r.groupIndex.resize(cols);
    for (uint64_t k = 0; k < cols; ++k) r.groupIndex[k] = int32_t(q.group(k));
    return r;
}

} // namespace qs
