// The affine families' reference round trip (formats/tally.h): GPTQ's or AutoAWQ's rounding at
// the spec's bits, group size and symmetry, scales rounded to f16 as the files store them.
#include "formats/affine/affine_requantize.h"

#include "formats/formatid.h"
#include "formats/target.h"
#include "base/error.h"
#include "formats/affine/quantize_affine.h"

#include <algorithm>
#include <cstring>

namespace qs {
namespace {

Requantizer affineRequantizer(const FormatInfo& format, const RequantizeSpec& spec, uint64_t K)
{
    if (spec.groupSize == 0 || spec.bits < 2 || spec.bits > 8)
        throw Error("requantized to " + format.id + ": bits must be 2..8 and the group size positive");
    Requantizer r;
    r.groupSize = std::min<uint64_t>(spec.groupSize, K);
    AffineOptions ao;
    ao.bits = spec.bits;
    ao.groupSize = r.groupSize;
    ao.symmetric = spec.symmetric;
    ao.rule = format.requantize == RequantizeRule::Awq ? AffineRule::Awq : AffineRule::Gptq;
    ao.codeScale = DType::F16;
    r.roundTrip = [ao](const float* w, uint64_t rows, uint64_t K, float* q, SimdPath) {
        const std::vector<float> d = dequantizeAffine(quantizeAffine(w, rows, K, ao, false));
        std::memcpy(q, d.data(), size_t(rows * K) * 4);
    };
    return r;
}

} // namespace

RequantizeFn affineRequantize(const FormatInfo& format)
{
    const bool affine = format.requantize == RequantizeRule::GptqAffine || format.requantize == RequantizeRule::Awq;
    return affine ? affineRequantizer : nullptr;
}

} // namespace qs
