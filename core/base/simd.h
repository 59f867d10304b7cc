#pragma once
// The SIMD paths a kernel can take, and the best one this CPU has (checked at run time).
// The paths are ordered: a kernel without code for the path it is given takes the best one it
// has below it (an AVX-512 caller of a kernel with only AVX2 code gets the AVX2 code).
#include <string_view>
#include <vector>

namespace qs {

enum class SimdPath { Scalar, Avx2, Avx512 };
// The best path the CPU has (AVX2 = AVX2+FMA+F16C+BMI2; AVX-512 = F, BW, VL, VBMI, VNNI and BF16
// on top, with the OS saving the ZMM state), lowered by QUANTSCOPE_SIMD=scalar|avx2|avx512 when
// set. Asking for more than the CPU has gives what it has; an unknown value is reported on
// stderr once and ignored.
SimdPath bestSimdPath();
// The best path the CPU has, ignoring QUANTSCOPE_SIMD.
SimdPath cpuSimdPath();
// Every path this CPU can run, scalar first (what the kernel tests run).
std::vector<SimdPath> cpuSimdPaths();
std::string_view simdPathName(SimdPath p);
// Whether `p` may run the AVX2 code (it is AVX2 or a superset of it).
inline bool hasAvx2(SimdPath p) { return p >= SimdPath::Avx2; }

} // namespace qs
