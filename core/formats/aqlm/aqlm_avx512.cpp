// AVX-512 AQLM path for F16 codebooks: sixteen lanes hold one group's entry row (in_group a
// multiple of 16) or the entry rows of 16 / in_group consecutive groups (in_group 8 or 4, the
// common 1x16 and 2x8 shapes), each lane summed in codebook order from +0.0, rounded to F16,
// scaled and rounded again as the scalar reference does. Other widths take the AVX2 path.
#include "formats/aqlm/aqlm.h"

#include "base/simd_tier.h"
#include "container/dtype.h"

#include <algorithm>

QS_TIER_BEGIN_AVX512

#include "formats/plain/dtyperound_avx512.h"

namespace qs {

namespace {

// The 16 halves of codebook m for groups [i, i + 16 / IG) of output group g, entry row r
// (groups past the row's last read as zeros).
template <uint32_t IG>
__m256i aqlmEntryHalves(const Aqlm& s, const uint16_t* book, uint64_t g, uint32_t r, uint64_t i, uint32_t m)
{
    static_assert(IG == 8 || IG == 4);
    const auto at = [&](uint64_t j) { return book + s.entry(m, s.index(g, j, m), r); };
    if constexpr (IG == 8) {
        const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(i)));
        const __m128i hi =
            i + 1 < s.inGroups ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(i + 1))) : _mm_setzero_si128();
        return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    } else {
        __m128i q[4];
        for (uint64_t j = 0; j < 4; ++j)
            q[j] =
                i + j < s.inGroups ? _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at(i + j))) : _mm_setzero_si128();
        return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(q[0], q[1])),
                                       _mm_unpacklo_epi64(q[2], q[3]), 1);
    }
}

inline __m512 aqlmScaled16(__m512 sum, float scale)
{
    return roundToDtype16<DType::F16>(_mm512_mul_ps(roundToDtype16<DType::F16>(sum), _mm512_set1_ps(scale)));
}

// in_group 8 or 4: 16 / IG groups per vector; the row's last vector masked.
template <uint32_t IG>
void aqlmRowsNarrow(const Aqlm& s, uint64_t r0, uint64_t r1, float* o)
{
    constexpr uint64_t per = 16 / IG;
    const auto* book = reinterpret_cast<const uint16_t*>(s.book.data());
    for (uint64_t n = r0; n < r1; ++n) {
        const uint64_t g = n / s.outGroup;
        const uint32_t r = uint32_t(n % s.outGroup);
        const float scale = s.scales.at(g);
        for (uint64_t i = 0; i < s.inGroups; i += per) {
            __m512 sum = _mm512_setzero_ps();
            for (uint32_t m = 0; m < s.codebooks; ++m)
                sum = _mm512_add_ps(sum, _mm512_cvtph_ps(aqlmEntryHalves<IG>(s, book, g, r, i, m)));
            const uint64_t lanes = std::min(per, s.inGroups - i) * IG;
            _mm512_mask_storeu_ps(o, __mmask16((1u << lanes) - 1), aqlmScaled16(sum, scale));
            o += lanes;
        }
    }
}

// in_group a multiple of 16: each group's entry rows in whole vectors.
void aqlmRowsWide(const Aqlm& s, uint64_t r0, uint64_t r1, float* o)
{
    const auto* book = reinterpret_cast<const uint16_t*>(s.book.data());
    for (uint64_t n = r0; n < r1; ++n) {
        const uint64_t g = n / s.outGroup;
        const uint32_t r = uint32_t(n % s.outGroup);
        const float scale = s.scales.at(g);
        for (uint64_t i = 0; i < s.inGroups; ++i)
            for (uint32_t c = 0; c < s.inGroup; c += 16, o += 16) {
                __m512 sum = _mm512_setzero_ps();
                for (uint32_t m = 0; m < s.codebooks; ++m)
                    sum = _mm512_add_ps(sum,
                                        _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                            book + s.entry(m, s.index(g, i, m), r) + c))));
                _mm512_storeu_ps(o, aqlmScaled16(sum, scale));
            }
    }
}

} // namespace

void aqlmRowsAvx512(const Aqlm& s, uint64_t r0, uint64_t r1, float* out)
{
    if (s.dtype != DType::F16)
        return aqlmRowsScalar(s, r0, r1, out);
    if (s.inGroup % 16 == 0)
        return aqlmRowsWide(s, r0, r1, out);
    if (s.inGroup == 8)
        return aqlmRowsNarrow<8>(s, r0, r1, out);
    if (s.inGroup == 4)
        return aqlmRowsNarrow<4>(s, r0, r1, out);
    aqlmRowsAvx2(s, r0, r1, out);
}

} // namespace qs

QS_TIER_END
