// AVX2 optimum-quanto path: inside one view row the scale (and shift) is constant and the codes
// of consecutive columns sit in consecutive bytes. qint2/qint4 rows select their value from the
// row's table of the 2^b results, formed with the scalar path's operations (scale * q rounded,
// then minus the shift rounded) on eight lanes, so the same bits; qint8 and float8 rows take the
// one multiply and rounding themselves. FNUZ float8 and a row's last columns go to the scalar path.
#include "formats/quanto/quanto.h"

#include "base/simd_tier.h"
#include "container/dtype.h"

#include <algorithm>

QS_TIER_BEGIN_AVX2

#include "base/fp8_avx2.h"
#include "base/select16_avx2.h"
#include "formats/plain/dtyperound_avx2.h"

namespace qs {

namespace {

// The values of codes 0..15 of view row r (lane & (2^b - 1) in lo, lane + 8 in hi).
template <DType T>
void quantoTable8(const Quanto& s, uint64_t r, __m256& lo, __m256& hi)
{
    const __m256i mask = _mm256_set1_epi32(int((1u << s.bits) - 1));
    const __m256i iota = _mm256_and_si256(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), mask);
    const __m256i iota8 = _mm256_and_si256(_mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15), mask);
    if (!s.intShift.empty()) {
        // Integer shifts (q - shift in int8 first): the scalar path's own values.
        alignas(32) float t[16];
        for (unsigned q = 0; q < 16; ++q)
            t[q] = s.qbitsValue(r, q & ((1u << s.bits) - 1));
        lo = _mm256_load_ps(t);
        hi = _mm256_load_ps(t + 8);
        return;
    }
    const __m256 sc = _mm256_set1_ps(s.scale.at(r)), z = _mm256_set1_ps(s.shift.at(r));
    const auto values = [&](__m256i q) {
        return roundToDtype8<T>(_mm256_sub_ps(roundToDtype8<T>(_mm256_mul_ps(_mm256_cvtepi32_ps(q), sc)), z));
    };
    lo = values(iota);
    hi = values(iota8);
}

template <DType T>
void quantoRow8(const Quanto& s, uint64_t r, uint64_t c0, uint64_t c1, float* o)
{
    const uint64_t C = s.viewCols;
    uint64_t c = c0;
    if (s.kind == Quanto::Kind::QBits) {
        __m256 lo, hi;
        quantoTable8<T>(s, r, lo, hi);
        const uint64_t part = r / s.packedRows;
        const uint8_t* src = s.data.data() + (r - part * s.packedRows) * C;
        const __m128i shift = _mm_cvtsi32_si128(int(unsigned(s.bits) * part));
        for (; c + 8 <= c1; c += 8) {
            const __m256i q = _mm256_srl_epi32(
                _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + c))), shift);
            // select16 reads bits 0..3, vpermps bits 0..2: the 2-bit table repeats every four lanes.
            _mm256_storeu_ps(o + (c - c0), s.bits == 4 ? select16(lo, hi, q) : _mm256_permutevar8x32_ps(lo, q));
        }
    } else if (s.kind == Quanto::Kind::QInt8 || s.dataType != DType::F8_E4M3FNUZ) {
        const __m256 sc = _mm256_set1_ps(s.scale.at(r));
        const uint8_t* src = s.data.data() + r * C;
        for (; c + 8 <= c1; c += 8) {
            const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + c));
            const __m256 v = s.kind == Quanto::Kind::QInt8 ? _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b))
                : s.dataType == DType::F8_E5M2             ? f8e5m2x8(b)
                                                           : f8e4m3x8(b);
            _mm256_storeu_ps(o + (c - c0), roundToDtype8<T>(_mm256_mul_ps(v, sc)));
        }
    }
    if (c < c1)
        quantoElementsScalar(s, r * C + c, c1 - c, o + (c - c0));
}

template <DType T>
void quantoElements8(const Quanto& s, uint64_t e0, uint64_t n, float* out)
{
    const uint64_t end = e0 + n, C = s.viewCols;
    for (uint64_t e = e0; e < end;) {
        const uint64_t r = e / C, c0 = e % C, c1 = std::min(C, c0 + (end - e));
        quantoRow8<T>(s, r, c0, c1, out + (e - e0));
        e += c1 - c0;
    }
}

} // namespace

void quantoElementsAvx2(const Quanto& s, uint64_t e0, uint64_t n, float* out)
{
    switch (s.dtype) {
    case DType::F16: return quantoElements8<DType::F16>(s, e0, n, out);
    case DType::BF16: return quantoElements8<DType::BF16>(s, e0, n, out);
    default: return quantoElements8<DType::F32>(s, e0, n, out);
    }
}

} // namespace qs

QS_TIER_END
