#include "kernels/kernel.h"

#include "error.h"

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

const TensorEntry& WeightData::entry(std::string_view role) const
{
    const int i = weight.member(role);
    if (i < 0)
        throw Error("weight '" + weight.name + "' (" + weight.format + "): no '" + std::string(role) + "' tensor");
    return ckpt.tensors.at(static_cast<size_t>(i));
}

std::span<const uint8_t> WeightData::bytes(std::string_view role) const
{
    return ckpt.bytes(entry(role));
}

} // namespace qs
