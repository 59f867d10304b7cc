#pragma once
// Exact IEEE binary16 / bfloat16 <-> binary32 conversions, round-to-nearest-even.
// Scalar code that the fast paths must match bit for bit:
// - f16 -> f32 is exact; a signalling NaN comes back quiet (payload kept), as F16C's
//   vcvtph2ps does, so scalar and AVX2 kernels agree on every one of the 65536 inputs.
// - f32 -> f16 rounds to nearest even, overflows to Inf, keeps subnormals; NaN becomes
//   sign | 0x7E00 | (payload >> 13), as F16C's vcvtps2ph does.
// - bf16 -> f32 is a shift; f32 -> bf16 rounds to nearest even, NaN kept quiet.
#include <bit>
#include <cstdint>

namespace qs {

inline float halfToFloat(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13) | (mant ? 0x00400000u : 0u);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {
        // Subnormal: normalise; the value is mant * 2^-24.
        const int lead = std::countl_zero(mant) - 21; // shifts until bit 10 is set
        mant = (mant << lead) & 0x3FFu;
        bits = sign | (uint32_t(113 - lead) << 23) | (mant << 13);
    }
    return std::bit_cast<float>(bits);
}

inline uint16_t floatToHalf(float f)
{
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
    const uint32_t exp = (x >> 23) & 0xFFu;
    const uint32_t mant = x & 0x7FFFFFu;
    if (exp == 0xFF)
        return mant ? uint16_t(sign | 0x7E00u | (mant >> 13)) : uint16_t(sign | 0x7C00u);
    const int e = int(exp) - 127 + 15; // biased half exponent
    if (e >= 0x1F)
        return uint16_t(sign | 0x7C00u);
    if (e <= 0) {
        // Subnormal or zero in half: value = m24 * 2^(exp-150), half unit = 2^-24.
        if (e < -10)
            return sign; // below half the smallest subnormal (2^-25): rounds to zero
        const uint32_t m = mant | 0x800000u;
        const unsigned shift = unsigned(14 - e); // 14..24
        uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u)))
            ++q; // may carry into the smallest normal, which is the right encoding
        return uint16_t(sign | q);
    }
    uint32_t q = (uint32_t(e) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
        ++q; // a carry out of the mantissa bumps the exponent, up to Inf
    return uint16_t(sign | q);
}

// The little-endian binary16 field at p (a block's scale), as float.
inline float halfAt(const uint8_t* p)
{
    return halfToFloat(uint16_t(p[0] | (p[1] << 8)));
}

inline float bf16ToFloat(uint16_t b)
{
    return std::bit_cast<float>(uint32_t(b) << 16);
}

inline uint16_t floatToBf16(float f)
{
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u)
        return uint16_t((x >> 16) | 0x0040u);
    const uint32_t rounding = 0x7FFFu + ((x >> 16) & 1u);
    return uint16_t((x + rounding) >> 16);
}

} // namespace qs
