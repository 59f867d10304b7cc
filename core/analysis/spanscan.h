#pragma once
// The health scan's row kernel (analysis/healthscan.cpp): one pass over dequantized values
// that counts the NaN and Inf ones and finds the all-zero spans (groups or blocks) of a row.
// The AVX2 and AVX-512 paths give the same results as the scalar reference.
#include "base/simd.h"

#include <cstdint>

namespace qs {

// v[0..n) in spans of `span` values (the last one shorter when span does not divide n):
// returns how many values are NaN or Inf, and sets zero[s] to 1 when every value of span s is
// +0 or -0, else to 0 (zero holds ceil(n / span) bytes).
uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero);
namespace avx2 {
uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero);
} // namespace avx2
namespace avx512 {
uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero);
} // namespace avx512
// The scan of `path` (the best one it has at or below it).
uint64_t scanSpans(const float* v, uint64_t n, uint64_t span, uint8_t* zero, SimdPath path);

} // namespace qs
