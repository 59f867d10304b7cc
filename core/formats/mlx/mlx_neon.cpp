// NEON MLX affine path (arm64): eight codes per step from the row's bitstream (any b: each lane's
// two bytes gathered by a table lookup, shifted by its own amount and masked), one scale and bias
// per group, and the reference's two roundings to the scale dtype (F16: FCVT to half and back,
// round-to-nearest-even like the scalar encoder; BF16: integer RNE with NaNs kept quiet).
#include "formats/mlx/mlx.h"

#include <arm_neon.h>

#include <algorithm>
#include <vector>

namespace qs {

namespace {

template <DType T>
inline float32x4_t roundTo(float32x4_t x)
{
    if constexpr (T == DType::F16) {
        return vcvt_f32_f16(vcvt_f16_f32(x));
    } else if constexpr (T == DType::BF16) {
        const uint32x4_t u = vreinterpretq_u32_f32(x);
        const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
        const uint32x4_t rounded = vaddq_u32(u, vaddq_u32(lsb, vdupq_n_u32(0x7FFF)));
        const uint32x4_t quiet = vorrq_u32(u, vdupq_n_u32(0x400000));
        const uint32x4_t v = vbslq_u32(vceqq_f32(x, x), rounded, quiet);
        return vreinterpretq_f32_u32(vandq_u32(v, vdupq_n_u32(0xFFFF0000u)));
    } else {
        return x;
    }
}

// Eight consecutive b-bit codes starting at bit 0 of p, as two vectors of four floats: lane i takes
// bytes (b*i)/8 and (b*i)/8 + 1 as a 16-bit word, shifted right by (b*i)%8. Reads 16 bytes.
struct Unpack8 {
    uint8x16_t gather;
    int16x8_t shifts;
    uint16x8_t mask;
    explicit Unpack8(int b)
    {
        uint8_t g[16];
        int16_t sh[8];
        for (int i = 0; i < 8; ++i) {
            g[2 * i] = uint8_t(b * i / 8);
            g[2 * i + 1] = uint8_t(b * i / 8 + 1);
            sh[i] = int16_t(-(b * i % 8));
        }
        gather = vld1q_u8(g);
        shifts = vld1q_s16(sh);
        mask = vdupq_n_u16(uint16_t((1u << b) - 1));
    }
    void operator()(const uint8_t* p, float32x4_t& lo, float32x4_t& hi) const
    {
        const uint16x8_t words = vreinterpretq_u16_u8(vqtbl1q_u8(vld1q_u8(p), gather));
        const uint16x8_t codes = vandq_u16(vshlq_u16(words, shifts), mask);
        lo = vcvtq_f32_u32(vmovl_u16(vget_low_u16(codes)));
        hi = vcvtq_f32_u32(vmovl_high_u16(codes));
    }
};

template <DType T>
inline float32x4_t dequant4(float32x4_t q, float32x4_t scale, float32x4_t bias)
{
    return roundTo<T>(vaddq_f32(roundTo<T>(vmulq_f32(q, scale)), bias));
}

template <DType T>
void rows(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    const Unpack8 unpack(s.bits);
    const uint8_t* end = s.packed.data() + s.packed.size();
    std::vector<float> scales(s.groups), biases(s.groups);
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        if (s.groupSize % 8) {
            mlxRowsScalar(s, n, n + 1, o);
            continue;
        }
        s.scales.read(n * s.groups, s.groups, scales.data());
        s.biases.read(n * s.groups, s.groups, biases.data());
        for (uint64_t g = 0; g < s.groups; ++g) {
            const float32x4_t vs = vdupq_n_f32(scales[g]), vb = vdupq_n_f32(biases[g]);
            const uint64_t k1 = std::min(s.cols, (g + 1) * s.groupSize);
            uint64_t k = g * s.groupSize;
            // Eight codes fill s.bits whole bytes: each step starts on a byte.
            for (; k + 8 <= k1 && row + k * s.bits / 8 + 16 <= end; k += 8) {
                float32x4_t lo, hi;
                unpack(row + k * s.bits / 8, lo, hi);
                vst1q_f32(o + k, dequant4<T>(lo, vs, vb));
                vst1q_f32(o + k + 4, dequant4<T>(hi, vs, vb));
            }
            for (; k < k1; ++k)
                o[k] = roundToDtype(roundToDtype(static_cast<float>(s.code(n, k)) * scales[g], T) + biases[g], T);
        }
    }
}

} // namespace

void mlxRowsNeon(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    switch (s.dtype) {
    case DType::F16: rows<DType::F16>(s, r0, r1, out); break;
    case DType::BF16: rows<DType::BF16>(s, r0, r1, out); break;
    default: rows<DType::F32>(s, r0, r1, out); break;
    }
}

} // namespace qs
