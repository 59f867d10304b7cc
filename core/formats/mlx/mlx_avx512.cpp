// AVX-512 MLX affine path for 2-, 3-, 4- and 8-bit codes in groups of whole 16-code vectors. Up to
// 4 bits: per row and group the results of the 2^b codes are formed as the AVX2 path forms them
// (the same operations on the same inputs, so the same bits), then 16 codes at a time select
// theirs with one vpermps. Other widths and group sizes go to the AVX2 path.
#include "formats/mlx/mlx.h"

#include "base/simd_tier.h"
#include "container/dtype.h"
#include "formats/kernelutil.h"

#include <cstring>
#include <vector>

QS_TIER_BEGIN_AVX512

#include "formats/mlx/mlx_simd.h"
#include "formats/plain/dtyperound_avx512.h"

namespace qs {

namespace {

// 16 codes of b <= 4 bits from the 2b bytes at p, each in the low byte of its lane (one VBMI
// multishift: qword q holds lanes 2q and 2q + 1, at bits 2qb and (2q + 1)b of the broadcast
// bytes). vpermps reads bits 0..3, so the table repeats every 2^b lanes. Masked: only the 2b
// bytes are read (the weight's last row); else 8 bytes, broadcast by the load itself.
template <bool masked>
inline __m512i mlxLanes16(const uint8_t* p, __m512i offsets, __mmask16 bytes)
{
    if constexpr (masked)
        return _mm512_multishift_epi64_epi8(offsets, _mm512_broadcastq_epi64(_mm_maskz_loadu_epi8(bytes, p)));
    uint64_t w;
    std::memcpy(&w, p, 8);
    return _mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(int64_t(w)));
}

// Codes of 2, 3 or 4 bits: per row and group the 16 results of lanes' codes (lane & (2^b - 1))
// formed on 16 lanes with the AVX2 path's operations (so the same bits), then 16 codes at a
// time select theirs with one vpermps. FixedGs: MLX's default group of 64, its four vectors
// unrolled.
template <DType T, uint64_t FixedGs = 0>
void mlxTableRows(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    const int b = s.bits;
    alignas(64) int64_t off[8];
    for (int q = 0; q < 8; ++q)
        off[q] = int64_t(2 * q * b) | (int64_t((2 * q + 1) * b) << 32);
    const __m512i offsets = _mm512_load_si512(off);
    const __mmask16 bytes = __mmask16((1u << (2 * b)) - 1);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 codes = _mm512_cvtepi32_ps(_mm512_and_si512(lane, _mm512_set1_epi32((1 << b) - 1)));
    const uint64_t G = s.groups, gs = FixedGs ? FixedGs : s.groupSize; // locals: the stores to out could alias s
    const uint8_t* dataEnd = s.packed.data() + s.packed.size();
    std::vector<float> scales(G), biases(G);
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        readFloatsF16c(s.scales, n * G, G, scales.data());
        readFloatsF16c(s.biases, n * G, G, biases.data());
        const auto groups = [&]<bool masked>() {
            const uint8_t* p = row;
            for (uint64_t g = 0; g < G; ++g) {
                const __m512 vs = _mm512_set1_ps(scales[g]), vb = _mm512_set1_ps(biases[g]);
                const __m512 table = roundToDtype16<T>(_mm512_add_ps(roundToDtype16<T>(_mm512_mul_ps(codes, vs)), vb));
#pragma GCC unroll 4
                for (uint64_t k = 0; k < gs; k += 16, p += 2 * b, o += 16)
                    _mm512_storeu_ps(o, _mm512_permutexvar_ps(mlxLanes16<masked>(p, offsets, bytes), table));
            }
        };
        // 8-byte loads read up to 8 - 2b bytes past a row: past the data only in its last row.
        if (row + 4 * s.wordsPerRow + 8 > dataEnd)
            groups.template operator()<true>();
        else
            groups.template operator()<false>();
    }
}

// 8-bit codes: the AVX2 path's operations on 16 lanes (vcvtps2ph and the integer BF16 rounding
// give the same bits at any width).
template <DType T>
void mlx8Rows(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    const uint64_t G = s.groups, gs = s.groupSize; // locals: the stores to out could alias s
    std::vector<float> scales(G), biases(G);
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        readFloatsF16c(s.scales, n * G, G, scales.data());
        readFloatsF16c(s.biases, n * G, G, biases.data());
        for (uint64_t g = 0; g < G; ++g) {
            const __m512 vs = _mm512_set1_ps(scales[g]), vb = _mm512_set1_ps(biases[g]);
            for (uint64_t k = g * gs; k < (g + 1) * gs; k += 16) {
                const __m512 q = _mm512_cvtepi32_ps(
                    _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k))));
                _mm512_storeu_ps(o + k, roundToDtype16<T>(_mm512_add_ps(roundToDtype16<T>(_mm512_mul_ps(q, vs)), vb)));
            }
        }
    }
}

template <DType T>
void rowsAvx512(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    (s.bits == 8 ? mlx8Rows<T> : s.groupSize == 64 ? mlxTableRows<T, 64> : mlxTableRows<T>)(s, r0, r1, out);
}

} // namespace

void mlxRowsAvx512(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    if (s.bits == 5 || s.bits == 6 || s.groupSize % 16)
        return mlxRowsAvx2(s, r0, r1, out);
    switch (s.dtype) {
    case DType::F16: return rowsAvx512<DType::F16>(s, r0, r1, out);
    case DType::BF16: return rowsAvx512<DType::BF16>(s, r0, r1, out);
    default: return rowsAvx512<DType::F32>(s, r0, r1, out);
    }
}

} // namespace qs

QS_TIER_END
