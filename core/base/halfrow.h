#pragma once
// Rows of f16/bf16 <-> f32, with the scalar conversions of half.h as the reference and an
// F16C/AVX2 path that gives the same bits.
#include "base/simd.h"

#include <cstddef>
#include <cstdint>

namespace qs {

void halfToFloatRow(const uint16_t* in, float* out, size_t n, SimdPath path);
void floatToHalfRow(const float* in, uint16_t* out, size_t n, SimdPath path);
void bf16ToFloatRow(const uint16_t* in, float* out, size_t n, SimdPath path);

namespace avx2 {
void halfToFloatRow(const uint16_t* in, float* out, size_t n);
void floatToHalfRow(const float* in, uint16_t* out, size_t n);
void bf16ToFloatRow(const uint16_t* in, float* out, size_t n);
} // namespace avx2
namespace neon {
void halfToFloatRow(const uint16_t* in, float* out, size_t n);
void bf16ToFloatRow(const uint16_t* in, float* out, size_t n);
} // namespace neon

} // namespace qs
