#include "base/simd.h"

#include <cpuid.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace qs {

namespace {

// XCR0: the state the OS saves on a context switch (bits 1, 2: SSE, AVX; 5-7: opmask and ZMM).
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
    // F16C through cpuid: clang 14's __builtin_cpu_supports does not know "f16c".
    const bool f16c = c & bit_F16C, osxsave = c & bit_OSXSAVE;
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c
        && __builtin_cpu_supports("bmi2");
    if (!avx2 || !osxsave)
        return SimdPath::Scalar;
    const uint64_t xcr0 = osSavedState();
    if ((xcr0 & 0x6) != 0x6)
        return SimdPath::Scalar;
    unsigned b7 = 0, c7 = 0, d7 = 0, a7_1 = 0, tmp = 0;
    __cpuid_count(7, 0, a, b7, c7, d7);
    __cpuid_count(7, 1, a7_1, tmp, tmp, tmp);
    const bool avx512 = (b7 & bit_AVX512F) && (b7 & bit_AVX512BW) && (b7 & bit_AVX512VL) && (c7 & bit_AVX512VBMI)
        && (c7 & bit_AVX512VNNI) && (a7_1 & bit_AVX512BF16) && (xcr0 & 0xE0) == 0xE0;
    return avx512 ? SimdPath::Avx512 : SimdPath::Avx2;
}

} // namespace

SimdPath cpuSimdPath()
{
    static const SimdPath cpu = detectCpuPath();
    return cpu;
}

std::vector<SimdPath> cpuSimdPaths()
{
    std::vector<SimdPath> p{SimdPath::Scalar};
    for (SimdPath s : {SimdPath::Avx2, SimdPath::Avx512})
        if (s <= cpuSimdPath())
            p.push_back(s);
    return p;
}

SimdPath bestSimdPath()
{
    static const SimdPath best = [] {
        const SimdPath cpu = cpuSimdPath();
        const char* env = std::getenv("QUANTSCOPE_SIMD");
        if (!env || !*env)
            return cpu;
        for (SimdPath s : {SimdPath::Scalar, SimdPath::Avx2, SimdPath::Avx512})
            if (simdPathName(s) == env)
                return s < cpu ? s : cpu;
        std::fprintf(stderr, "quantscope: QUANTSCOPE_SIMD=%s is not one of scalar, avx2, avx512; using %s\n", env,
                     std::string(simdPathName(cpu)).c_str());
        return cpu;
    }();
    return best;
}

std::string_view simdPathName(SimdPath p)
{
    switch (p) {
    case SimdPath::Avx512: return "avx512";
    case SimdPath::Avx2: return "avx2";
    case SimdPath::Scalar: break;
    }
    return "scalar";
}

} // namespace qs
