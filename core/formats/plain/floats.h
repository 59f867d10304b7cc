#pragma once
// Plain float weights (safetensors F32, F16, BF16, F64, F8_E4M3, F8_E5M2 and the other
// byte-sized float dtypes of spec A.2) dequantized exactly to f32. F4 and F6_* stay raw:
// the safetensors reference defines no element order for them (spec Part E).
#include "formats/kernel.h"

#include <cstdint>
#include <span>

namespace qs {

struct FloatTensor {
    DType dtype = DType::F32;
    std::span<const uint8_t> bytes;
    uint64_t rows = 0, cols = 0;
};
// The weight's single float tensor, checked against the logical shape.
FloatTensor floatTensor(const WeightData& w);

// Elements [e0, e0 + n) of the flat tensor as f32.
using FloatElementsFn = void (*)(const FloatTensor& t, uint64_t e0, uint64_t n, float* out);
void floatElementsScalar(const FloatTensor& t, uint64_t e0, uint64_t n, float* out);
void floatElementsAvx2(const FloatTensor& t, uint64_t e0, uint64_t n, float* out); // F16, BF16, F32, F8_E4M3, F8_E5M2
void floatElementsAvx512(const FloatTensor& t, uint64_t e0, uint64_t n, float* out); // F16, BF16, F8_E4M3, F8_E5M2
void floatElementsNeon(const FloatTensor& t, uint64_t e0, uint64_t n, float* out); // F16, BF16, F32

// DequantRowsFn for f32, f16, bf16, f64, f8_e4m3, f8_e5m2 (and the fnuz / e8m0 variants).
void dequantFloatRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

} // namespace qs
