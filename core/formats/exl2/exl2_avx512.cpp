// AVX-512 EXL2 path: 16 output rows at a time, one lane each. A stored row's codes sit at the
// same bit of the same q_weight row for every output column, so 16 consecutive columns are one
// 64-byte load (two where the code crosses words) and one shift. The block's scales are formed
// for every group first (a gather of the 4-bit fields, the scalar path's two f16 roundings), then
// the input channels are walked in logical order, 16 at a time through a 16 x 16 tile, so that
// each output row gets whole 64-byte lines (a scatter, or 16 rows written a float at a time,
// 4*K bytes apart, thrashed L1 sets: a quarter of the AVX2 path's rate).
// Rows past the last whole block take the scalar path.
#include "formats/exl2/exl2.h"

#include "container/dtype.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/simd_tier.h"

QS_TIER_BEGIN_AVX512

#include "formats/plain/dtyperound_avx512.h"

namespace qs {

void exl2RowsAvx512(const Exl2& s, uint64_t r0, uint64_t r1, float* out)
{
    const uint64_t K = s.cols, N = s.rows, G = s.groups.size();
    if (N > (uint64_t(1) << 31)) // columns are int32 lanes
        return exl2RowsScalar(s, r0, r1, out);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    std::vector<float> scales(16 * G);
    alignas(64) float tile[16][16]; // [input channel][output row] of 16 x 16 values
    uint64_t n0 = r0;
    for (; n0 + 16 <= r1; n0 += 16) {
        const __m512i n = _mm512_add_epi32(lane, _mm512_set1_epi32(int32_t(n0)));
        const __m512i word = _mm512_srli_epi32(n, 3),
                      shift = _mm512_slli_epi32(_mm512_and_si512(n, _mm512_set1_epi32(7)), 2);
        for (uint64_t g = 0; g < G; ++g) {
            const __m512i w = _mm512_i32gather_epi32(word, s.qscale + 4 * g * (N / 8), 4);
            const __m512i q = _mm512_add_epi32(_mm512_and_si512(_mm512_srlv_epi32(w, shift), _mm512_set1_epi32(15)),
                                               _mm512_set1_epi32(1));
            _mm512_storeu_ps(scales.data() + 16 * g,
                             roundToDtype16<DType::F16>(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_mullo_epi32(q, q)),
                                                                      _mm512_set1_ps(s.scaleMax[g]))));
        }
        float* o = out + (n0 - r0) * K;
        for (uint64_t k0 = 0; k0 < K; k0 += 16) {
            const uint64_t kn = std::min<uint64_t>(16, K - k0);
            for (uint64_t kk = 0; kk < kn; ++kk) {
                const Exl2Place& p = s.column[k0 + kk];
                const uint8_t* at = s.qweight + 4 * (uint64_t(p.packed) * N + n0);
                __m512i v = _mm512_srl_epi32(_mm512_loadu_si512(at), _mm_cvtsi32_si128(p.shift));
                if (p.shift + p.bits > 32)
                    v = _mm512_or_si512(
                        v, _mm512_sll_epi32(_mm512_loadu_si512(at + 4 * N), _mm_cvtsi32_si128(32 - p.shift)));
                v = _mm512_sub_epi32(_mm512_and_si512(v, _mm512_set1_epi32((1 << p.bits) - 1)),
                                     _mm512_set1_epi32(1 << (p.bits - 1)));
                _mm512_store_ps(tile[kk],
                                roundToDtype16<DType::F16>(_mm512_mul_ps(
                                    _mm512_cvtepi32_ps(v), _mm512_loadu_ps(scales.data() + 16 * p.group))));
            }
            for (uint64_t j = 0; j < 16; ++j)
                for (uint64_t kk = 0; kk < kn; ++kk)
                    o[j * K + k0 + kk] = tile[kk][j];
        }
    }
    if (n0 < r1)
        exl2RowsScalar(s, n0, r1, out + (n0 - r0) * K);
}

} // namespace qs

QS_TIER_END
