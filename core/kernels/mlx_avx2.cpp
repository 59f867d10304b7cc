// AVX2 MLX affine path: eight codes per step from the row's bitstream (any b), one
// broadcast scale and bias per group, and the reference's two roundings to the scale dtype
// (F16: vcvtps2ph with round-to-nearest-even, exact like the scalar encoder; BF16: integer RNE).
#include "kernels/mlx.h"
#include "kernels/dtyperound_avx2.h"
#include "kernels/mlx_unpack_avx2.h"

namespace qs {

namespace {

template <DType T>
inline __m256 dequant8(__m256 q, __m256 vs, __m256 vb)
{
    return roundToDtype8<T>(_mm256_add_ps(roundToDtype8<T>(_mm256_mul_ps(q, vs)), vb));
}

template <DType T>
void rows(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    const Unpack8 unpack(s.bits);
    const uint8_t* end = s.packed.data() + s.packed.size();
    const bool chunked = s.groupSize % 8 == 0;
    // b <= 4: the group's 2^b results are formed once (the same lane-wise operations on the
    // same inputs, so the same bits) and each code selects its result with vpermps.
    const bool table = s.bits <= 4;
    const __m256 iota = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 iota8 = _mm256_add_ps(iota, _mm256_set1_ps(8));
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        if (!chunked) {
            mlxRowsScalar(s, n, n + 1, o);
            continue;
        }
        for (uint64_t g = 0; g < s.groups; ++g) {
            const float scale = s.scales.at(n * s.groups + g), bias = s.biases.at(n * s.groups + g);
            const __m256 vs = _mm256_set1_ps(scale), vb = _mm256_set1_ps(bias);
            const uint64_t k1 = (g + 1) * s.groupSize;
            uint64_t k = g * s.groupSize;
            if (table) {
                const __m256 lo = dequant8<T>(iota, vs, vb), hi = dequant8<T>(iota8, vs, vb);
                if (s.bits == 4) {
                    // 32 codes from 16 bytes: low nibble first, interleaved back to element order.
                    const __m128i m4 = _mm_set1_epi8(0x0F);
                    for (; k + 32 <= k1; k += 32) {
                        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k / 2));
                        const __m128i l = _mm_and_si128(v, m4), h = _mm_and_si128(_mm_srli_epi16(v, 4), m4);
                        const __m128i e0 = _mm_unpacklo_epi8(l, h), e1 = _mm_unpackhi_epi8(l, h);
                        const __m128i q[4] = {e0, _mm_srli_si128(e0, 8), e1, _mm_srli_si128(e1, 8)};
                        for (int i = 0; i < 4; ++i) {
                            const __m256i idx = _mm256_cvtepu8_epi32(q[i]);
                            _mm256_storeu_ps(o + k + 8 * uint64_t(i),
                                             _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, idx), _mm256_permutevar8x32_ps(hi, idx),
                                                              _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28))));
                        }
                    }
                }
                for (; k < k1 && row + k * s.bits / 8 + 16 <= end; k += 8) {
                    const __m256i idx = unpack(row + k * s.bits / 8);
                    const __m256 a = _mm256_permutevar8x32_ps(lo, idx);
                    _mm256_storeu_ps(o + k, s.bits < 4 ? a
                        : _mm256_blendv_ps(a, _mm256_permutevar8x32_ps(hi, idx), _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28))));
                }
            } else {
                if (s.bits == 8)
                    for (; k + 8 <= k1; k += 8)
                        _mm256_storeu_ps(o + k, dequant8<T>(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
                                                              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + k)))),
                                                          vs, vb));
                for (; k < k1 && row + k * s.bits / 8 + 16 <= end; k += 8)
                    _mm256_storeu_ps(o + k, dequant8<T>(_mm256_cvtepi32_ps(unpack(row + k * s.bits / 8)), vs, vb));
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
