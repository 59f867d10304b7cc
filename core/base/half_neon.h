#pragma once
// Eight f16 or bf16 values at any byte address -> eight floats (arm64), shared by the NEON row,
// float and ggml kernels. FCVT from half is exact and, with the default FPCR (no flush-to-zero, no
// default NaN), keeps subnormals and quiets a signalling NaN with its payload, as halfToFloat
// does; bf16 is a shift.
#include <arm_neon.h>

#include <cstdint>

namespace qs::neon {

inline void halves8(const uint8_t* p, float* out)
{
    const float16x8_t h = vreinterpretq_f16_u8(vld1q_u8(p));
    vst1q_f32(out, vcvt_f32_f16(vget_low_f16(h)));
    vst1q_f32(out + 4, vcvt_high_f32_f16(h));
}

inline void bf16s8(const uint8_t* p, float* out)
{
    const uint16x8_t h = vreinterpretq_u16_u8(vld1q_u8(p));
    vst1q_f32(out, vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16)));
    vst1q_f32(out + 4, vreinterpretq_f32_u32(vshll_high_n_u16(h, 16)));
}

} // namespace qs::neon
