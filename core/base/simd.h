#pragma once
// The SIMD paths a kernel can take, and the best one this CPU has (checked at run time).
#include <string_view>

namespace qs {

enum class SimdPath { Scalar, Avx2 };
// AVX2+FMA+F16C when the CPU has them, unless QUANTSCOPE_SIMD=scalar forces the fallback.
SimdPath bestSimdPath();
std::string_view simdPathName(SimdPath p);

} // namespace qs
