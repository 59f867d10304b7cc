// AVX2 AQLM path for F16 codebooks: per code group the M codebook entries of the element's row
// (ig contiguous halves each) are loaded, widened and summed lane-wise in codebook order from
// +0.0 as the scalar reference sums, then rounded to F16, scaled and rounded again: the same
// operations on the same values, so the same bits. in_group a multiple of 8 takes eight lanes,
// a multiple of 4 four; any other width and non-F16 codebooks take the scalar path.
#include "formats/aqlm/aqlm.h"

#include "base/simd_tier.h"
#include "container/dtype.h"

QS_TIER_BEGIN_AVX2

#include "formats/plain/dtyperound_avx2.h"

namespace qs {

namespace {

inline __m128 aqlmRoundF16x4(__m128 x)
{
    return _mm_cvtph_ps(_mm_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

template <uint32_t Lanes>
void aqlmRowsF16(const Aqlm& s, uint64_t r0, uint64_t r1, float* o)
{
    const auto* book = reinterpret_cast<const uint16_t*>(s.book.data());
    for (uint64_t n = r0; n < r1; ++n) {
        const uint64_t g = n / s.outGroup;
        const uint32_t r = uint32_t(n % s.outGroup);
        const float scale = s.scales.at(g);
        for (uint64_t i = 0; i < s.inGroups; ++i)
            for (uint32_t c = 0; c < s.inGroup; c += Lanes, o += Lanes) {
                if constexpr (Lanes == 8) {
                    __m256 sum = _mm256_setzero_ps();
                    for (uint32_t m = 0; m < s.codebooks; ++m)
                        sum = _mm256_add_ps(sum,
                                            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                                book + s.entry(m, s.index(g, i, m), r) + c))));
                    _mm256_storeu_ps(o,
                                     roundToDtype8<DType::F16>(
                                         _mm256_mul_ps(roundToDtype8<DType::F16>(sum), _mm256_set1_ps(scale))));
                } else {
                    __m128 sum = _mm_setzero_ps();
                    for (uint32_t m = 0; m < s.codebooks; ++m)
                        sum = _mm_add_ps(sum,
                                         _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(
                                             book + s.entry(m, s.index(g, i, m), r) + c))));
                    _mm_storeu_ps(o, aqlmRoundF16x4(_mm_mul_ps(aqlmRoundF16x4(sum), _mm_set1_ps(scale))));
                }
            }
    }
}

} // namespace

void aqlmRowsAvx2(const Aqlm& s, uint64_t r0, uint64_t r1, float* out)
{
    if (s.dtype != DType::F16 || s.inGroup % 4)
        return aqlmRowsScalar(s, r0, r1, out);
    (s.inGroup % 8 ? aqlmRowsF16<4> : aqlmRowsF16<8>)(s, r0, r1, out);
}

} // namespace qs

QS_TIER_END
