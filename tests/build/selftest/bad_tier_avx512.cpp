// What build.simd_objects must catch (its self-test, build.simd_objects_catches): a tier file as
// core's *_avx512.cpp files are written (base/simd_tier.h), with the two mistakes that would run
// AVX-512 code on a CPU without it; compiled, never linked into anything.
#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX512

namespace {

float tierValue()
{
    return _mm512_reduce_add_ps(_mm512_set1_ps(1.0f));
}

} // namespace

// A namespace-scope constant with a dynamic initializer (the kind that made every program die with
// SIGILL on CPUs without AVX-512): it calls tier code when the program loads, before any dispatch.
const float kSixteen = tierValue();

// A weak function with VEX code: the linker may keep this copy for a scalar caller.
[[gnu::noinline]] inline float sumHalves(__m256 v)
{
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    return _mm_cvtss_f32(_mm_add_ps(s, _mm_movehl_ps(s, s)));
}

float badTierKernel(const float* x)
{
    return sumHalves(_mm256_loadu_ps(x)) + kSixteen;
}

QS_TIER_END
