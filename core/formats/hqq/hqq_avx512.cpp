// AVX-512 HQQ path for 4-bit codes on axis 1: per view row the 16 results of codes 0..15 are
// formed as the AVX2 path forms them (the same lane-wise operations, so the same bits), then 16
// codes at a time (one byte each, high nibble in the first half of the packed rows) select
// theirs with one vpermps. Row remainders and the other layouts go to the AVX2 path.
#include "formats/hqq/hqq.h"
#include "formats/plain/dtyperound_avx2.h"
#include "base/nibble_avx512.h"

#include <immintrin.h>

#include <algorithm>

namespace qs {

namespace {

template <DType T>
void hqq4Elements(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    const __m256 iota = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), iota8 = _mm256_add_ps(iota, _mm256_set1_ps(8));
    const uint64_t end = e0 + n;
    for (uint64_t e = e0; e < end;) {
        const uint64_t r = e / s.viewCols, c0 = e % s.viewCols, c1 = std::min(s.viewCols, c0 + (end - e));
        const __m256 vs = _mm256_set1_ps(s.scale.at(r)), vz = _mm256_set1_ps(s.zero.at(r));
        const __m512 table = joinHalves(roundToDtype8<T>(_mm256_mul_ps(roundToDtype8<T>(_mm256_sub_ps(iota, vz)), vs)),
                                        roundToDtype8<T>(_mm256_mul_ps(roundToDtype8<T>(_mm256_sub_ps(iota8, vz)), vs)));
        const uint8_t* codes = s.wq.data() + (r % s.step) * s.viewCols;
        const __m128i shift = _mm_cvtsi32_si128(r / s.step == 0 ? 4 : 0);
        float* o = out + (e - e0); // o[i] is column c0 + i
        uint64_t c = c0;
        for (; c + 16 <= c1; c += 16) {
            const __m512i q = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + c)));
            _mm512_storeu_ps(o + (c - c0), _mm512_permutexvar_ps(_mm512_srl_epi32(q, shift), table));
        }
        if (c < c1)
            hqqElementsAvx2(s, e + (c - c0), c1 - c, o + (c - c0));
        e += c1 - c0;
    }
}

} // namespace

void hqqElementsAvx512(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    if (s.axis != 1 || s.parts != 2)
        return hqqElementsAvx2(s, e0, n, out);
    switch (s.dtype) {
    case DType::F16: return hqq4Elements<DType::F16>(s, e0, n, out);
    case DType::BF16: return hqq4Elements<DType::BF16>(s, e0, n, out);
    default: return hqq4Elements<DType::F32>(s, e0, n, out);
    }
}

} // namespace qs
