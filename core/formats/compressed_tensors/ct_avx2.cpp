// AVX2 compressed-tensors path for 2, 4 and 8 bits (pf * b = 32, so a row is a plain
// LSB-first bitstream), int8 and FP8 (converted exactly, then the one multiply) with contiguous
// groups; act-order rows, 3/5/6/7-bit words and groups that are not a multiple of 8 take the
// scalar row.
#include "formats/compressed_tensors/ct.h"

#include "base/simd_tier.h"

#include <cmath>
#include <cstdint>

QS_TIER_BEGIN_AVX2

#include "base/fp8_avx2.h"
#include "formats/mlx/mlx_unpack_avx2.h"

namespace qs {

void ctRowsAvx2(const CtPacked& s, uint64_t r0, uint64_t r1, float* out)
{
    const bool fp8 = s.source == CtPacked::Source::Fp8;
    const bool vectorOk =
        (fp8 || s.bits == 2 || s.bits == 4 || s.bits == 8) && s.gidx.empty() && (s.groups == 1 || s.groupSize % 8 == 0);
    if (!vectorOk) {
        ctRowsScalar(s, r0, r1, out);
        return;
    }
    const Unpack8 unpack(fp8 ? 8 : s.bits);
    const bool int8 = s.source == CtPacked::Source::Int8;
    const uint8_t* end = s.packed.data() + s.packed.size();
    const int half = 1 << (s.bits - 1);
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = int8 || fp8 ? s.packed.data() + n * s.cols : s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        const uint64_t span = s.groups == 1 ? s.cols : s.groupSize;
        for (uint64_t g0 = 0, g = 0; g0 < s.cols; g0 += span, ++g) {
            const uint64_t g1 = std::min(g0 + span, s.cols);
            const float sc = s.scaleAt(n, g);
            if (fp8) {
                const __m256 vs = _mm256_set1_ps(sc);
                uint64_t k = g0;
                // f8e4m3x16Scaled: 256 * sc exact (below 2^120, or infinite), and not NaN (with a
                // NaN code, which of two NaNs a multiply returns depends on the operand order).
                if (s.fp8Dtype == DType::F8_E4M3 && (std::fabs(sc) < 0x1p120f || std::isinf(sc))) {
                    const __m256 vs256 = _mm256_set1_ps(256.0f * sc);
                    for (; k + 16 <= g1; k += 16) {
                        __m256 v[2];
                        f8e4m3x16Scaled(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k)), vs256, v);
                        _mm256_storeu_ps(o + k, v[0]);
                        _mm256_storeu_ps(o + k + 8, v[1]);
                    }
                }
                if (s.fp8Dtype == DType::F8_E4M3)
                    for (; k + 8 <= g1; k += 8)
                        _mm256_storeu_ps(
                            o + k,
                            _mm256_mul_ps(f8e4m3x8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + k))), vs));
                else
                    for (; k + 8 <= g1; k += 8)
                        _mm256_storeu_ps(
                            o + k,
                            _mm256_mul_ps(f8e5m2x8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + k))), vs));
                for (; k < g1; ++k)
                    o[k] = s.fp8At(n, k) * sc;
                continue;
            }
            const int zp = s.zeroAt(n, g);
            const __m256i off = _mm256_set1_epi32(int8 ? zp : half + zp);
            const __m256 vs = _mm256_set1_ps(sc);
            uint64_t k = g0;
            if (int8) {
                for (; k + 8 <= g1; k += 8) {
                    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + k));
                    const __m256i q = _mm256_sub_epi32(_mm256_cvtepi8_epi32(b), off);
                    _mm256_storeu_ps(o + k, _mm256_mul_ps(_mm256_cvtepi32_ps(q), vs));
                }
            }
            for (; !int8 && k + 8 <= g1 && row + k * s.bits / 8 + 16 <= end; k += 8) {
                const __m256i q = _mm256_sub_epi32(unpack(row + k * s.bits / 8), off);
                _mm256_storeu_ps(o + k, _mm256_mul_ps(_mm256_cvtepi32_ps(q), vs));
            }
            for (; k < g1; ++k)
                o[k] = static_cast<float>(s.code(n, k) - zp) * sc;
        }
    }
}

} // namespace qs

QS_TIER_END
