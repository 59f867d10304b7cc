// The bitsandbytes row's reference round trip (formats/tally.h): NF4 / FP4 in blocks of 64 of
// the f16 model weight, which bitsandbytes quantizes.
#include "formats/bnb/bnb_requantize.h"

#include "formats/formatid.h"
#include "formats/target.h"
#include "base/half.h"
#include "formats/bnb/quantize_bnb.h"

#include <cstring>
#include <numeric>

namespace qs {
namespace {

Requantizer bnb4Requantizer(const FormatInfo& format, const RequantizeSpec&, uint64_t K)
{
    Requantizer r;
    r.groupSize = 64;
    r.rowAlign = 64 / std::gcd<uint64_t>(K ? K : 1, 64); // whole blocks of 64 per chunk
    const Bnb4Type type = bnb4TypeOf(format);
    r.roundTrip = [type](const float* w, uint64_t rows, uint64_t K, float* q, SimdPath) {
        const uint64_t n = rows * K;
        static thread_local std::vector<float> half;
        half.resize(size_t(n));
        for (uint64_t i = 0; i < n; ++i)
            half[i] = halfToFloat(floatToHalf(w[i]));
        const std::vector<float> d =
            dequantizeBnb4(quantizeBnb4(half.data(), n, type, 64, false, std::nullopt, false), type);
        std::memcpy(q, d.data(), size_t(n) * 4);
    };
    return r;
}

} // namespace

RequantizeFn bnbRequantize(const FormatInfo& format)
{
    return format.requantize == RequantizeRule::Bnb4 ? bnb4Requantizer : nullptr;
}

} // namespace qs
