#pragma once
// AVX2 forms of the k-quant scale searches and requantizing loops in quantize_ggml.cpp, bit for
// bit the same: each of the 8 lanes runs one sub-block's whole search (its own min, scale and
// step choices), so every sum still adds in the scalar order; only independent sub-blocks share
// an instruction. Compiled with -mavx2; called only when the SIMD path allows AVX2.
#include <cstdint>

namespace qs::ggmlquant {

// Q4_K / Q5_K: the 8 sub-blocks of 32 weights of one super-block (weights avX + |x|,
// make_qkx2_quants with squared error): scales[8], mins[8] (as -min) and codes L[256].
void searchScalesMinsAvx2(const float* x, int nmax, float rmin, float rdelta, int nstep, float* scales, float* mins,
                          uint8_t* L);
// Q2_K: the 16 sub-blocks of 16 (weights |x|, absolute error, nmax 3).
void searchQ2_KAvx2(const float* x, float* scales, float* mins, uint8_t* L);
// Q3_K: make_q3_quants with rmse on the 16 sub-blocks of 16 (nmax 4); codes biased by +4.
void searchQ3_KAvx2(const float* x, float* scales, int8_t* L);
// Q6_K: make_qx_quants (rmse_type 1) on the 16 sub-blocks of 16 (nmax 32); codes biased by +32.
void searchQ6_KAvx2(const float* x, float* scales, int8_t* L);
// out[i] = clamp(nearest((x[i] + dm) / d), lo, hi) + bias (withMin), or of x[i] / d; n is 16 or 32.
void requantAvx2(const float* x, int n, float d, float dm, bool withMin, int lo, int hi, int bias, uint8_t* out);
// F16 elements of n floats (ggml's row conversion; the same bits as floatToHalf).
void floatsToHalfAvx2(const float* x, uint8_t* y, int64_t n);

} // namespace qs::ggmlquant
