#include "base/simd.h"

#include "base/error.h"

#include <cstdlib>

#if QS_ARCH_X86
#include <cpuid.h>
#endif

namespace qs {

namespace {

#if QS_ARCH_X86
// XCR0: the state the OS saves on a context switch (bits 1, 2: SSE, AVX; 5-7: opmask and ZMM).
// Only read when CPUID says OSXSAVE: xgetbv itself faults where the OS has not enabled it.
uint64_t osSavedState()
{
    uint32_t lo = 0, hi = 0;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return uint64_t(hi) << 32 | lo;
}

SimdPath detectCpuPath()
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return SimdPath::Scalar;
    const bool fma = c & bit_FMA, f16c = c & bit_F16C, osxsave = c & bit_OSXSAVE, avx = c & bit_AVX;
    if (!osxsave || !avx || !fma || !f16c || __get_cpuid_max(0, nullptr) < 7)
        return SimdPath::Scalar;
    const uint64_t xcr0 = osSavedState();
    if ((xcr0 & 0x6) != 0x6)
        return SimdPath::Scalar;
    unsigned b7 = 0, c7 = 0, d7 = 0, a7_1 = 0, tmp = 0;
    __cpuid_count(7, 0, a, b7, c7, d7);
    if (!(b7 & bit_AVX2) || !(b7 & bit_BMI2))
        return SimdPath::Scalar;
    __cpuid_count(7, 1, a7_1, tmp, tmp, tmp);
    const bool avx512 = (b7 & bit_AVX512F) && (b7 & bit_AVX512BW) && (b7 & bit_AVX512VL) && (c7 & bit_AVX512VBMI)
        && (c7 & bit_AVX512VNNI) && (a7_1 & bit_AVX512BF16) && (xcr0 & 0xE0) == 0xE0;
    return avx512 ? SimdPath::Avx512 : SimdPath::Avx2;
}
#elif QS_ARCH_ARM64
// Advanced SIMD is part of the AArch64 base architecture: every arm64 CPU has it.
SimdPath detectCpuPath()
{
    return SimdPath::Neon;
}
#else
SimdPath detectCpuPath()
{
    return SimdPath::Scalar;
}
#endif

std::string pathList(const std::vector<SimdPath>& paths)
{
    std::string s;
    for (SimdPath p : paths)
        s += (s.empty() ? "" : ", ") + std::string(simdPathName(p));
    return s;
}

SimdPath pathFromEnvironment()
{
    const SimdPath cpu = cpuSimdPath();
    const char* env = std::getenv("QUANTSCOPE_SIMD");
    if (!env || !*env)
        return cpu;
    const std::string value(env);
    for (SimdPath p : cpuSimdPaths())
        if (simdPathName(p) == value)
            return p;
    const std::string has = "this CPU runs " + pathList(cpuSimdPaths());
    for (SimdPath p : {SimdPath::Scalar, SimdPath::Avx2, SimdPath::Avx512, SimdPath::Neon})
        if (simdPathName(p) == value)
            throw Error("QUANTSCOPE_SIMD=" + value + " asks for a path this CPU (or this build) does not have: " + has);
    throw Error("QUANTSCOPE_SIMD=" + value + " is not a SIMD path (scalar, avx2, avx512, neon): " + has);
}

} // namespace

SimdPath cpuSimdPath()
{
    static const SimdPath cpu = detectCpuPath();
    return cpu;
}

std::vector<SimdPath> builtSimdPaths()
{
#if QS_ARCH_X86
    return {SimdPath::Scalar, SimdPath::Avx2, SimdPath::Avx512};
#elif QS_ARCH_ARM64
    return {SimdPath::Scalar, SimdPath::Neon};
#else
    return {SimdPath::Scalar};
#endif
}

std::vector<SimdPath> cpuSimdPaths()
{
    // A ladder: the CPU runs every built path up to its best one.
    std::vector<SimdPath> paths;
    for (SimdPath p : builtSimdPaths()) {
        paths.push_back(p);
        if (p == cpuSimdPath())
            break;
    }
    return paths;
}

SimdPath bestSimdPath()
{
    // A throwing initializer is retried at the next call, so a bad value is reported every time.
    static const SimdPath best = pathFromEnvironment();
    return best;
}

std::string simdSummary()
{
    std::string s = std::string(simdPathName(bestSimdPath()));
    const std::vector<SimdPath> built = builtSimdPaths(), runs = cpuSimdPaths();
    if (built.size() > runs.size()) {
        std::vector<SimdPath> missing(built.begin() + ptrdiff_t(runs.size()), built.end());
        s += "; " + pathList(missing) + " not on this CPU: those kernels do not run here";
    }
    return s;
}

std::string_view simdPathName(SimdPath p)
{
    switch (p) {
    case SimdPath::Avx512: return "avx512";
    case SimdPath::Avx2: return "avx2";
    case SimdPath::Neon: return "neon";
    case SimdPath::Scalar: break;
    }
    return "scalar";
}

} // namespace qs
