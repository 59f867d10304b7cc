// AVX2 MLX affine path: eight codes per step from the row's bitstream (any b), one
// broadcast scale and bias per group, and the reference's two roundings to the scale dtype
// (F16: vcvtps2ph with round-to-nearest-even, exact like the scalar encoder; BF16: integer RNE).
#include "formats/mlx/mlx.h"

#include "base/simd_tier.h"
#include "container/dtype.h"
#include "formats/kernelutil.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

QS_TIER_BEGIN_AVX2

#include "base/select16_avx2.h"
#include "formats/mlx/mlx_simd.h"
#include "formats/mlx/mlx_unpack_avx2.h"
#include "formats/plain/dtyperound_avx2.h"

namespace qs {

namespace {

template <DType T>
void rows(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    const Unpack8 unpack(s.bits);
    const uint8_t* end = s.packed.data() + s.packed.size();
    const bool chunked = s.groupSize % 8 == 0;
    // b <= 4: the group's 2^b results are formed once (the same lane-wise operations on the
    // same inputs, so the same bits) and each code selects its result with vpermps, which
    // reads an index's low three bits only: a code shifted into its lane from a broadcast word
    // needs no mask (4-bit: bit 3 picks the high half by a blend; 2-bit: the table repeats
    // every four lanes, so the neighbour's bit 2 is harmless).
    const bool table = s.bits <= 4;
    const __m256 iota = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 iota8 = _mm256_add_ps(iota, _mm256_set1_ps(8));
    const __m256 iota4 = _mm256_setr_ps(0, 1, 2, 3, 0, 1, 2, 3);
    const __m256i sh4 = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const __m256i sh2lo = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14),
                  sh2hi = _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30);
    std::vector<float> scales(s.groups), biases(s.groups), tables(s.bits == 4 ? 16 * s.groups : 0);
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        if (!chunked) {
            mlxRowsScalar(s, n, n + 1, o);
            continue;
        }
        readFloatsF16c(s.scales, n * s.groups, s.groups, scales.data());
        readFloatsF16c(s.biases, n * s.groups, s.groups, biases.data());
        if (s.bits == 4 && s.cols % s.groupSize == 0) {
            // The row's tables first: formed group by group beside the group's vectors, each
            // table's chain of conversions waited on its scale and held up the stores (MLX-4 .44
            // of memcpy); in a loop of their own, the groups' chains overlap.
            for (uint64_t g = 0; g < s.groups; ++g) {
                const __m256 vs = _mm256_set1_ps(scales[g]), vb = _mm256_set1_ps(biases[g]);
                _mm256_storeu_ps(tables.data() + 16 * g, mlxDequant8<T>(iota, vs, vb));
                _mm256_storeu_ps(tables.data() + 16 * g + 8, mlxDequant8<T>(iota8, vs, vb));
            }
            for (uint64_t g = 0; g < s.groups; ++g) {
                const __m256 lo = _mm256_loadu_ps(tables.data() + 16 * g),
                             hi = _mm256_loadu_ps(tables.data() + 16 * g + 8);
                for (uint64_t k = g * s.groupSize; k < (g + 1) * s.groupSize; k += 8) {
                    int32_t w;
                    std::memcpy(&w, row + k / 2, 4);
                    _mm256_storeu_ps(o + k, select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w), sh4)));
                }
            }
            continue;
        }
        for (uint64_t g = 0; g < s.groups; ++g) {
            const float scale = scales[g], bias = biases[g];
            const __m256 vs = _mm256_set1_ps(scale), vb = _mm256_set1_ps(bias);
            const uint64_t k1 = std::min(s.cols, (g + 1) * s.groupSize);
            uint64_t k = g * s.groupSize;
            if (table) {
                const __m256 lo = mlxDequant8<T>(s.bits == 2 ? iota4 : iota, vs, vb);
                const __m256 hi = s.bits == 4 ? mlxDequant8<T>(iota8, vs, vb) : lo;
                if (s.bits == 4) {
                    for (; k + 8 <= k1; k += 8) {
                        int32_t w;
                        std::memcpy(&w, row + k / 2, 4);
                        _mm256_storeu_ps(o + k, select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w), sh4)));
                    }
                } else if (s.bits == 2) {
                    for (; k + 16 <= k1; k += 16) {
                        int32_t w;
                        std::memcpy(&w, row + k / 4, 4);
                        const __m256i b = _mm256_set1_epi32(w);
                        _mm256_storeu_ps(o + k, _mm256_permutevar8x32_ps(lo, _mm256_srlv_epi32(b, sh2lo)));
                        _mm256_storeu_ps(o + k + 8, _mm256_permutevar8x32_ps(lo, _mm256_srlv_epi32(b, sh2hi)));
                    }
                }
                for (; k + 8 <= k1 && row + k * s.bits / 8 + 16 <= end; k += 8) {
                    const __m256i idx = unpack(row + k * s.bits / 8);
                    _mm256_storeu_ps(o + k, s.bits < 4 ? _mm256_permutevar8x32_ps(lo, idx) : select16(lo, hi, idx));
                }
            } else {
                if (s.bits == 8)
                    for (; k + 8 <= k1; k += 8)
                        _mm256_storeu_ps(o + k,
                                         mlxDequant8<T>(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(
                                                            reinterpret_cast<const __m128i*>(row + k)))),
                                                        vs, vb));
                for (; k + 8 <= k1 && row + k * s.bits / 8 + 16 <= end; k += 8)
                    _mm256_storeu_ps(o + k, mlxDequant8<T>(_mm256_cvtepi32_ps(unpack(row + k * s.bits / 8)), vs, vb));
            }
            for (; k < k1; ++k)
                o[k] = roundToDtype(roundToDtype(static_cast<float>(s.code(n, k)) * scale, T) + bias, T);
        }
    }
}

} // namespace

void mlxRowsAvx2(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    switch (s.dtype) {
    case DType::F16: rows<DType::F16>(s, r0, r1, out); break;
    case DType::BF16: rows<DType::BF16>(s, r0, r1, out); break;
    default: rows<DType::F32>(s, r0, r1, out); break;
    }
}

} // namespace qs

QS_TIER_END
