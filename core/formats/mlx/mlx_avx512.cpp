// AVX-512 MLX affine path for 4- and 8-bit codes in groups of whole 16-code vectors. 4-bit: per
// row and group the 16 results of codes 0..15 are formed as the AVX2 path forms them (the same
// operations on the same inputs, so the same bits), then 16 codes at a time select theirs with
// one vpermps. Other widths and group sizes go to the AVX2 path.
#include "formats/mlx/mlx.h"
#include "formats/mlx/mlx_simd.h"
#include "formats/plain/dtyperound_avx512.h"
#include "base/nibble_avx512.h"

#include <vector>

namespace qs {

namespace {

template <DType T>
void mlx4Rows(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    const __m256 iota = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), iota8 = _mm256_add_ps(iota, _mm256_set1_ps(8));
    std::vector<float> scales(s.groups), biases(s.groups);
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        readFloatsF16c(s.scales, n * s.groups, s.groups, scales.data());
        readFloatsF16c(s.biases, n * s.groups, s.groups, biases.data());
        for (uint64_t g = 0; g < s.groups; ++g) {
            const __m256 vs = _mm256_set1_ps(scales[g]), vb = _mm256_set1_ps(biases[g]);
            const __m512 table = joinHalves(mlxDequant8<T>(iota, vs, vb), mlxDequant8<T>(iota8, vs, vb));
            for (uint64_t k = g * s.groupSize; k < (g + 1) * s.groupSize; k += 16)
                _mm512_storeu_ps(o + k, _mm512_permutexvar_ps(nibbleLanes16(row + k / 2), table));
        }
    }
}

// 8-bit codes: the AVX2 path's operations on 16 lanes (vcvtps2ph and the integer BF16 rounding
// give the same bits at any width).
template <DType T>
void mlx8Rows(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    std::vector<float> scales(s.groups), biases(s.groups);
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        readFloatsF16c(s.scales, n * s.groups, s.groups, scales.data());
        readFloatsF16c(s.biases, n * s.groups, s.groups, biases.data());
        for (uint64_t g = 0; g < s.groups; ++g) {
            const __m512 vs = _mm512_set1_ps(scales[g]), vb = _mm512_set1_ps(biases[g]);
            for (uint64_t k = g * s.groupSize; k < (g + 1) * s.groupSize; k += 16) {
                const __m512 q = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k))));
                _mm512_storeu_ps(o + k, roundToDtype16<T>(_mm512_add_ps(roundToDtype16<T>(_mm512_mul_ps(q, vs)), vb)));
            }
        }
    }
}

template <DType T>
void rowsAvx512(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    (s.bits == 4 ? mlx4Rows<T> : mlx8Rows<T>)(s, r0, r1, out);
}

} // namespace

void mlxRowsAvx512(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    if ((s.bits != 4 && s.bits != 8) || s.groupSize % 16)
        return mlxRowsAvx2(s, r0, r1, out);
    switch (s.dtype) {
    case DType::F16: return rowsAvx512<DType::F16>(s, r0, r1, out);
    case DType::BF16: return rowsAvx512<DType::BF16>(s, r0, r1, out);
    default: return rowsAvx512<DType::F32>(s, r0, r1, out);
    }
}

} // namespace qs
