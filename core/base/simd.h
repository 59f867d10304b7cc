#pragma once
// The SIMD paths a kernel can take, and the best one this CPU has (checked at run time).
// Each architecture has its own ladder: x86-64 scalar < AVX2 < AVX-512, arm64 scalar < NEON;
// other architectures build the scalar path only. A kernel without code for the path it is given
// takes the best one it has below it (an AVX-512 caller of a kernel with only AVX2 code gets the
// AVX2 code).
//
// Code for a tier lives in files named *_avx2.cpp, *_avx512.cpp or *_neon.cpp, compiled with that
// tier's flags on its architecture only (core/CMakeLists.txt). Nothing in them runs before the
// dispatcher chose their path: no dynamic initializer, no weak function a scalar caller could
// reach (ctest build.simd_objects).
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#define QS_ARCH_X86 1
#elif defined(__aarch64__) || defined(_M_ARM64)
#define QS_ARCH_ARM64 1
#endif

#if QS_ARCH_X86
#define QS_X86(f) (f)
#else
#define QS_X86(f) nullptr
#endif
#if QS_ARCH_ARM64
#define QS_NEON(f) (f)
#else
#define QS_NEON(f) nullptr
#endif

namespace qs {

enum class SimdPath { Scalar, Avx2, Avx512, Neon };
// The path kernels take: what the CPU has (AVX2 = AVX2+FMA+F16C+BMI2 with the OS saving the YMM
// state; AVX-512 = F, BW, VL, VBMI, VNNI and BF16 on top, with the ZMM state saved; NEON on every
// arm64 CPU), or the one QUANTSCOPE_SIMD=scalar|avx2|avx512|neon forces. A forced path the CPU
// lacks, or an unknown value, throws qs::Error naming what the CPU has; the programs call this
// once at start-up, so the error is theirs to report.
SimdPath bestSimdPath();
// The best path the CPU has, ignoring QUANTSCOPE_SIMD.
SimdPath cpuSimdPath();
// Every path this CPU can run, scalar first (what the kernel tests run).
std::vector<SimdPath> cpuSimdPaths();
// Every path this build has for its architecture, scalar first.
std::vector<SimdPath> builtSimdPaths();
std::string_view simdPathName(SimdPath p);
// One line for --version and the test logs: the path taken and the built paths this CPU cannot
// run ("avx2; avx512 not on this CPU").
std::string simdSummary();
// Whether `p` may run the AVX2 code (it is AVX2 or a superset of it).
inline bool hasAvx2(SimdPath p)
{
    return p == SimdPath::Avx2 || p == SimdPath::Avx512;
}

// A kernel's code per tier, nullptr where it has none. Name tier code through QS_X86(f) and
// QS_NEON(f): on another architecture they are nullptr, so a scalar file references no symbol
// of a tier file the build leaves out.
template <typename Fn>
struct SimdKernels {
    Fn avx512 = nullptr;
    Fn avx2 = nullptr;
    Fn neon = nullptr;
};
// The best of `k` that `path` allows, or nullptr: the caller's scalar reference serves.
template <typename Fn>
Fn simdKernel(SimdPath path, const SimdKernels<Fn>& k)
{
    if (path == SimdPath::Avx512 && k.avx512)
        return k.avx512;
    if (hasAvx2(path) && k.avx2)
        return k.avx2;
    if (path == SimdPath::Neon && k.neon)
        return k.neon;
    return nullptr;
}

} // namespace qs
