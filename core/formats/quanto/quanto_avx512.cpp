// AVX-512 optimum-quanto path: the AVX2 path's work on sixteen lanes. qint2/qint4 rows select
// their value from the row's table of the 2^b results (vpermps reads four index bits: the
// table repeats every 2^b lanes, so the bits above a code are harmless); qint8 and float8 rows
// take the one multiply and rounding. FNUZ float8 goes to the AVX2 path, a row's last columns
// to the scalar one.
#include "formats/quanto/quanto.h"

#include "base/simd_tier.h"
#include "container/dtype.h"

#include <algorithm>

QS_TIER_BEGIN_AVX512

#include "base/fp8_avx512.h"
#include "formats/plain/dtyperound_avx512.h"

namespace qs {

namespace {

// The values of codes lane & (2^b - 1) of view row r: the scalar path's two roundings.
template <DType T>
__m512 quantoTable16(const Quanto& s, uint64_t r)
{
    const unsigned mask = (1u << s.bits) - 1;
    if (!s.intShift.empty()) {
        alignas(64) float t[16];
        for (unsigned q = 0; q < 16; ++q)
            t[q] = s.qbitsValue(r, q & mask);
        return _mm512_load_ps(t);
    }
    const __m512i q = _mm512_and_si512(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                       _mm512_set1_epi32(int(mask)));
    const __m512 sc = _mm512_set1_ps(s.scale.at(r)), z = _mm512_set1_ps(s.shift.at(r));
    return roundToDtype16<T>(_mm512_sub_ps(roundToDtype16<T>(_mm512_mul_ps(_mm512_cvtepi32_ps(q), sc)), z));
}

template <DType T>
void quantoRow16(const Quanto& s, uint64_t r, uint64_t c0, uint64_t c1, float* o)
{
    const uint64_t C = s.viewCols;
    uint64_t c = c0;
    if (s.kind == Quanto::Kind::QBits) {
        const __m512 t = quantoTable16<T>(s, r);
        const uint64_t part = r / s.packedRows;
        const uint8_t* src = s.data.data() + (r - part * s.packedRows) * C;
        const __m128i shift = _mm_cvtsi32_si128(int(unsigned(s.bits) * part));
        for (; c + 16 <= c1; c += 16) {
            const __m512i q = _mm512_srl_epi32(
                _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + c))), shift);
            _mm512_storeu_ps(o + (c - c0), _mm512_permutexvar_ps(q, t));
        }
    } else {
        const __m512 sc = _mm512_set1_ps(s.scale.at(r));
        const uint8_t* src = s.data.data() + r * C;
        for (; c + 16 <= c1; c += 16) {
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + c));
            const __m512 v = s.kind == Quanto::Kind::QInt8 ? _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b))
                : s.dataType == DType::F8_E5M2             ? f8e5m2x16(b)
                                                           : f8e4m3x16(b);
            _mm512_storeu_ps(o + (c - c0), roundToDtype16<T>(_mm512_mul_ps(v, sc)));
        }
    }
    if (c < c1)
        quantoElementsScalar(s, r * C + c, c1 - c, o + (c - c0));
}

template <DType T>
void quantoElements16(const Quanto& s, uint64_t e0, uint64_t n, float* out)
{
    const uint64_t end = e0 + n, C = s.viewCols;
    for (uint64_t e = e0; e < end;) {
        const uint64_t r = e / C, c0 = e % C, c1 = std::min(C, c0 + (end - e));
        quantoRow16<T>(s, r, c0, c1, out + (e - e0));
        e += c1 - c0;
    }
}

} // namespace

void quantoElementsAvx512(const Quanto& s, uint64_t e0, uint64_t n, float* out)
{
    if (s.kind == Quanto::Kind::QFloat8 && s.dataType == DType::F8_E4M3FNUZ)
        return quantoElementsAvx2(s, e0, n, out);
    switch (s.dtype) {
    case DType::F16: return quantoElements16<DType::F16>(s, e0, n, out);
    case DType::BF16: return quantoElements16<DType::BF16>(s, e0, n, out);
    default: return quantoElements16<DType::F32>(s, e0, n, out);
    }
}

} // namespace qs

QS_TIER_END
