#include "base/simd.h"

#include <cpuid.h>
#include <cstdlib>
#include <cstring>

namespace qs {

SimdPath bestSimdPath()
{
    static const SimdPath best = [] {
        const char* env = std::getenv("QUANTSCOPE_SIMD");
        if (env && std::strcmp(env, "scalar") == 0)
            return SimdPath::Scalar;
        __builtin_cpu_init();
        // F16C through cpuid: clang 14's __builtin_cpu_supports does not know "f16c".
        unsigned a = 0, b = 0, c = 0, d = 0;
        const bool f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
        const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c
            && __builtin_cpu_supports("bmi2");
        return avx2 ? SimdPath::Avx2 : SimdPath::Scalar;
    }();
    return best;
}

std::string_view simdPathName(SimdPath p)
{
    return p == SimdPath::Avx2 ? "avx2" : "scalar";
}

} // namespace qs
