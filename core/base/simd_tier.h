#pragma once
// The region of a SIMD tier file (*_avx2.cpp, *_avx512.cpp) that is compiled for the tier:
//
//   #include "formats/mlx/mlx.h"        every project and standard header the file needs,
//   #include <vector>                   the tier headers' own includes too
//   #include "base/simd_tier.h"
//   QS_TIER_BEGIN_AVX2
//   #include "base/select16_avx2.h"     tier headers (internal linkage: one copy per file)
//   ... kernels ...
//   QS_TIER_END
//
// Only the functions defined between BEGIN and END get the tier's instructions. The inline
// functions and templates of the headers included before it stay baseline code, so that whichever
// copy of such a weak symbol the linker keeps, a scalar caller never meets an instruction its CPU
// lacks, at any optimisation level (ctest build.simd_objects checks the objects). That is why the
// tiers are target pragmas, not -mavx2 on the command line: with the flag, GCC at -O0 and clang at
// -O1 (the sanitizer build) emitted halfAt, floatToHalf and friends with VEX code as weak symbols.
#include <immintrin.h>

// The x86 tiers, exactly as base/simd.cpp's detection defines them.
#define QS_TIER_TARGET_AVX2 "avx2,fma,f16c,bmi2"
#define QS_TIER_TARGET_AVX512 QS_TIER_TARGET_AVX2 ",avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni,avx512bf16"

#define QS_TIER_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define QS_TIER_BEGIN(targets)                                                                                         \
    QS_TIER_PRAGMA(clang attribute push(__attribute__((target(targets))), apply_to = function))
#define QS_TIER_END QS_TIER_PRAGMA(clang attribute pop)
#else
#define QS_TIER_BEGIN(targets) QS_TIER_PRAGMA(GCC push_options) QS_TIER_PRAGMA(GCC target(targets))
#define QS_TIER_END QS_TIER_PRAGMA(GCC pop_options)
#endif
#define QS_TIER_BEGIN_AVX2 QS_TIER_BEGIN(QS_TIER_TARGET_AVX2)
#define QS_TIER_BEGIN_AVX512 QS_TIER_BEGIN(QS_TIER_TARGET_AVX512)
