// AVX2 EXL2 path: exl2_avx512.cpp's on 8 output rows at a time; the 8 values of an input channel
// go to their rows through a small buffer (AVX2 has no scatter).
#include "formats/exl2/exl2.h"

#include "container/dtype.h"

#include <cstdint>
#include <vector>

#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX2

#include "formats/plain/dtyperound_avx2.h"

namespace qs {

void exl2RowsAvx2(const Exl2& s, uint64_t r0, uint64_t r1, float* out)
{
    const uint64_t K = s.cols, N = s.rows, G = s.groups.size();
    if (N > (uint64_t(1) << 31)) // columns are int32 lanes
        return exl2RowsScalar(s, r0, r1, out);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    std::vector<float> scales(8 * G);
    alignas(32) float lanes[8];
    uint64_t n0 = r0;
    for (; n0 + 8 <= r1; n0 += 8) {
        const __m256i n = _mm256_add_epi32(lane, _mm256_set1_epi32(int32_t(n0)));
        const __m256i word = _mm256_srli_epi32(n, 3);
        const __m256i shift = _mm256_slli_epi32(_mm256_and_si256(n, _mm256_set1_epi32(7)), 2);
        for (uint64_t g = 0; g < G; ++g) {
            const __m256i w = _mm256_i32gather_epi32(reinterpret_cast<const int*>(s.qscale + 4 * g * (N / 8)), word, 4);
            const __m256i q = _mm256_add_epi32(_mm256_and_si256(_mm256_srlv_epi32(w, shift), _mm256_set1_epi32(15)),
                                               _mm256_set1_epi32(1));
            _mm256_storeu_ps(scales.data() + 8 * g,
                             roundToDtype8<DType::F16>(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_mullo_epi32(q, q)),
                                                                     _mm256_set1_ps(s.scaleMax[g]))));
        }
        float* o = out + (n0 - r0) * K;
        for (uint64_t k = 0; k < K; ++k) {
            const Exl2Place& p = s.column[k];
            const uint8_t* at = s.qweight + 4 * (uint64_t(p.packed) * N + n0);
            __m256i v =
                _mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)), _mm_cvtsi32_si128(p.shift));
            if (p.shift + p.bits > 32)
                v = _mm256_or_si256(v,
                                    _mm256_sll_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + 4 * N)),
                                                     _mm_cvtsi32_si128(32 - p.shift)));
            v = _mm256_sub_epi32(_mm256_and_si256(v, _mm256_set1_epi32((1 << p.bits) - 1)),
                                 _mm256_set1_epi32(1 << (p.bits - 1)));
            _mm256_store_ps(lanes,
                            roundToDtype8<DType::F16>(
                                _mm256_mul_ps(_mm256_cvtepi32_ps(v), _mm256_loadu_ps(scales.data() + 8 * p.group))));
            for (int j = 0; j < 8; ++j)
                o[uint64_t(j) * K + k] = lanes[j];
        }
    }
    if (n0 < r1)
        exl2RowsScalar(s, n0, r1, out + (n0 - r0) * K);
}

} // namespace qs

QS_TIER_END
