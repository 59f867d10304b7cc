// AVX-512 compressed-tensors path for 4- and 8-bit packed rows, int8 and FP8 rows with
// contiguous groups (the rest goes to the AVX2 path); FP8 is converted exactly (base/fp8_avx512.h)
// and multiplied by the scale, as the reference. The reference value is float(u - half - zp) * scale
// for the stored unsigned u: at 4 bits a code selects it from the row's and group's table of the
// 16 products (the same multiply) with one vpermps; at 8 bits u sits under the exponent of 2^23,
// so one subtraction of 2^23 + half + zp gives float(u - half - zp) exactly, then the multiply.
#include "formats/compressed_tensors/ct.h"
#include "base/fp8_avx512.h"
#include "base/nibble_avx512.h"

#include <immintrin.h>

#include <algorithm>

namespace qs {

void ctRowsAvx512(const CtPacked& s, uint64_t r0, uint64_t r1, float* out)
{
    const bool int8 = s.source == CtPacked::Source::Int8, fp8 = s.source == CtPacked::Source::Fp8;
    const bool packed = s.source == CtPacked::Source::Packed && (s.bits == 4 || s.bits == 8);
    if (!(int8 || fp8 || packed) || !s.gidx.empty() || (s.groups != 1 && s.groupSize % 16)) {
        ctRowsAvx2(s, r0, r1, out);
        return;
    }
    const int half = int8 || fp8 ? 0 : 1 << (s.bits - 1);
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i magic = _mm512_set1_epi32(0x4B000000); // 2^23
    for (uint64_t n = r0; n < r1; ++n) {
        const uint8_t* row = int8 || fp8 ? s.packed.data() + n * s.cols : s.packed.data() + 4 * n * s.wordsPerRow;
        float* o = out + (n - r0) * s.cols;
        const uint64_t span = s.groups == 1 ? s.cols : s.groupSize;
        for (uint64_t g0 = 0, g = 0; g0 < s.cols; g0 += span, ++g) {
            const uint64_t g1 = std::min(g0 + span, s.cols);
            const float sc = s.scaleAt(n, g);
            const __m512 vs = _mm512_set1_ps(sc);
            uint64_t k = g0;
            if (fp8) {
                if (s.fp8Dtype == DType::F8_E4M3)
                    for (; k + 16 <= g1; k += 16)
                        _mm512_storeu_ps(o + k, _mm512_mul_ps(f8e4m3x16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k))), vs));
                else
                    for (; k + 16 <= g1; k += 16)
                        _mm512_storeu_ps(o + k, _mm512_mul_ps(f8e5m2x16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k))), vs));
                for (; k < g1; ++k)
                    o[k] = s.fp8At(n, k) * sc;
                continue;
            }
            const int zp = s.zeroAt(n, g);
            if (int8) {
                for (; k + 16 <= g1; k += 16) {
                    const __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k)));
                    _mm512_storeu_ps(o + k, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(q, _mm512_set1_epi32(zp))), vs));
                }
            } else if (s.bits == 4) {
                const __m512 table = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(iota, _mm512_set1_epi32(half + zp))), vs);
                for (; k + 16 <= g1; k += 16)
                    _mm512_storeu_ps(o + k, _mm512_permutexvar_ps(nibbleLanes16(row + k / 2), table));
            } else {
                const __m512 off = _mm512_set1_ps(8388608.0f + float(half + zp));
                for (; k + 16 <= g1; k += 16) {
                    const __m512i u = _mm512_or_si512(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k))), magic);
                    _mm512_storeu_ps(o + k, _mm512_mul_ps(_mm512_sub_ps(_mm512_castsi512_ps(u), off), vs));
                }
            }
            for (; k < g1; ++k)
                o[k] = static_cast<float>(s.code(n, k) - zp) * sc;
        }
    }
}

} // namespace qs
