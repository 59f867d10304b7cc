// NEON kernels of the ggml types arm64 users open most (F16, BF16, Q4_0, Q8_0, Q4_K, Q5_K, Q6_K,
// IQ4_NL, IQ4_XS), bit for bit the references of ggml_ref.cpp: codes become exact floats and each
// value is the reference's product (and difference), unfused (-ffp-contract=off; the intrinsics
// are separate multiplies and subtractions). Other types take the reference.
#include "formats/ggml/ggml.h"

#include "container/ggmltype.h"
#include "formats/ggml/ggml_tables.h"
#include "base/half_neon.h"

#include <arm_neon.h>

#include <cstring>

namespace qs::ggml {

namespace {

// Four lanes of int16 -> float.
inline float32x4_t lowFloats(int16x8_t v)
{
    return vcvtq_f32_s32(vmovl_s16(vget_low_s16(v)));
}
inline float32x4_t highFloats(int16x8_t v)
{
    return vcvtq_f32_s32(vmovl_high_s16(v));
}

// y[0..16) = float(q[i]) * d.
inline void scaled16(float* y, int8x16_t q, float32x4_t d)
{
    const int16x8_t lo = vmovl_s8(vget_low_s8(q)), hi = vmovl_high_s8(q);
    vst1q_f32(y, vmulq_f32(lowFloats(lo), d));
    vst1q_f32(y + 4, vmulq_f32(highFloats(lo), d));
    vst1q_f32(y + 8, vmulq_f32(lowFloats(hi), d));
    vst1q_f32(y + 12, vmulq_f32(highFloats(hi), d));
}

// y[0..16) = float(q[i]) * d - m (the k-quants' d * sc * q - dmin * m with both products formed).
inline void affine16(float* y, uint8x16_t q, float32x4_t d, float32x4_t m)
{
    const int16x8_t lo = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(q))), hi = vreinterpretq_s16_u16(vmovl_high_u8(q));
    vst1q_f32(y, vsubq_f32(vmulq_f32(lowFloats(lo), d), m));
    vst1q_f32(y + 4, vsubq_f32(vmulq_f32(highFloats(lo), d), m));
    vst1q_f32(y + 8, vsubq_f32(vmulq_f32(lowFloats(hi), d), m));
    vst1q_f32(y + 12, vsubq_f32(vmulq_f32(highFloats(hi), d), m));
}

void neonF32(const uint8_t* s, uint64_t n, float* y)
{
    std::memcpy(y, s, n * 4);
}

void neonF16(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
        neon::halves8(s + 2 * i, y + i);
    for (; i < n; ++i)
        y[i] = halfAt(s + 2 * i);
}

void neonBF16(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
        neon::bf16s8(s + 2 * i, y + i);
    for (; i < n; ++i) {
        const uint32_t b = uint32_t(s[2 * i] | s[2 * i + 1] << 8) << 16;
        std::memcpy(y + i, &b, 4);
    }
}

void neonQ4_0(const uint8_t* b, uint64_t nb, float* y)
{
    const uint8x16_t low = vdupq_n_u8(0xF);
    const int8x16_t eight = vdupq_n_s8(8);
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32) {
        const float32x4_t d = vdupq_n_f32(halfAt(b));
        const uint8x16_t q = vld1q_u8(b + 2);
        scaled16(y, vsubq_s8(vreinterpretq_s8_u8(vandq_u8(q, low)), eight), d);
        scaled16(y + 16, vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(q, 4)), eight), d);
    }
}

void neonQ8_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 34, y += 32) {
        const float32x4_t d = vdupq_n_f32(halfAt(b));
        scaled16(y, vld1q_s8(reinterpret_cast<const int8_t*>(b + 2)), d);
        scaled16(y + 16, vld1q_s8(reinterpret_cast<const int8_t*>(b + 18)), d);
    }
}

// 32 weights of a 16-byte IQ4 sub-block (low nibble: element j, high: j + 16): dl * value.
inline void iq4Values32(float* y, const uint8_t* q, int8x16_t table, float32x4_t dl)
{
    const uint8x16_t v = vld1q_u8(q);
    scaled16(y, vqtbl1q_s8(table, vandq_u8(v, vdupq_n_u8(0xF))), dl);
    scaled16(y + 16, vqtbl1q_s8(table, vshrq_n_u8(v, 4)), dl);
}

void neonIQ4_NL(const uint8_t* b, uint64_t nb, float* y)
{
    const int8x16_t table = vld1q_s8(kValuesIq4nl);
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32)
        iq4Values32(y, b + 2, table, vdupq_n_f32(halfAt(b)));
}

void neonIQ4_XS(const uint8_t* b, uint64_t nb, float* y)
{
    const int8x16_t table = vld1q_s8(kValuesIq4nl);
    for (uint64_t i = 0; i < nb; ++i, b += 136) {
        const float d = halfAt(b);
        for (int ib = 0; ib < 8; ++ib, y += 32)
            iq4Values32(y, b + 8 + 16 * ib, table, vdupq_n_f32(d * float(iq4xsScale(b, ib) - 32)));
    }
}

// Q4_K and Q5_K: sub-blocks 2j and 2j+1 are the low and high nibbles of bytes 32j..32j+31; Q5_K
// adds 16 where bit s of qh[l] is set.
template <bool kFifth>
void neonK45(const uint8_t* b, uint64_t nb, float* y)
{
    constexpr uint64_t kBytes = kFifth ? 176 : 144;
    const uint8x16_t low = vdupq_n_u8(0xF), one = vdupq_n_u8(1);
    for (uint64_t i = 0; i < nb; ++i, b += kBytes, y += 256) {
        const float d = halfAt(b), dmin = halfAt(b + 2);
        const uint8_t* qh = b + 16;
        const uint8_t* qs = b + (kFifth ? 48 : 16);
        for (int j = 0; j < 4; ++j) {
            for (int half = 0; half < 2; ++half) {
                const uint8x16_t q = vld1q_u8(qs + 32 * j + 16 * half);
                uint8x16_t codes[2] = {vandq_u8(q, low), vshrq_n_u8(q, 4)};
                if constexpr (kFifth) {
                    const uint8x16_t h = vld1q_u8(qh + 16 * half);
                    for (int p = 0; p < 2; ++p) {
                        const int s = 2 * j + p;
                        const uint8x16_t bit = vandq_u8(vshlq_u8(h, vdupq_n_s8(int8_t(-s))), one);
                        codes[p] = vorrq_u8(codes[p], vshlq_n_u8(bit, 4));
                    }
                }
                for (int p = 0; p < 2; ++p) {
                    int sc = 0, m = 0;
                    scaleMinK4(b + 4, 2 * j + p, sc, m);
                    affine16(y + 64 * j + 32 * p + 16 * half, codes[p], vdupq_n_f32(d * float(sc)),
                             vdupq_n_f32(dmin * float(m)));
                }
            }
        }
    }
}

void neonQ6_K(const uint8_t* b, uint64_t nb, float* y)
{
    const uint8x16_t low = vdupq_n_u8(0xF), three = vdupq_n_u8(3);
    const int8x16_t bias = vdupq_n_s8(32);
    for (uint64_t i = 0; i < nb; ++i, b += 210, y += 256) {
        const uint8_t* ql = b;
        const uint8_t* qh = b + 128;
        const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
        const float d = halfAt(b + 208);
        for (int h = 0; h < 2; ++h)
            for (int k = 0; k < 4; ++k)
                for (int half = 0; half < 2; ++half) {
                    const int l = 16 * half;
                    const uint8x16_t lowBytes = vld1q_u8(ql + 64 * h + 32 * (k % 2) + l);
                    const uint8x16_t nib = k < 2 ? vandq_u8(lowBytes, low) : vshrq_n_u8(lowBytes, 4);
                    const uint8x16_t high =
                        vandq_u8(vshlq_u8(vld1q_u8(qh + 32 * h + l), vdupq_n_s8(int8_t(-2 * k))), three);
                    const int8x16_t q = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(nib, vshlq_n_u8(high, 4))), bias);
                    const int e = 128 * h + 32 * k + l;
                    scaled16(y + e, q, vdupq_n_f32(d * float(sc[e / 16])));
                }
    }
}

} // namespace

BlocksFn neonBlocksFn(int ggmlType)
{
    switch (ggmlType) {
    case GgmlF32: return neonF32;
    case GgmlF16: return neonF16;
    case GgmlBF16: return neonBF16;
    case GgmlQ4_0: return neonQ4_0;
    case GgmlQ8_0: return neonQ8_0;
    case GgmlIQ4_NL: return neonIQ4_NL;
    case GgmlIQ4_XS: return neonIQ4_XS;
    case GgmlQ4_K: return neonK45<false>;
    case GgmlQ5_K: return neonK45<true>;
    case GgmlQ6_K: return neonQ6_K;
    default: return nullptr;
    }
}

} // namespace qs::ggml
