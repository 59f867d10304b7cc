// AVX2 HQQ path for axis 1 (the transformers default): inside one view row the scale and
// zero are constant and the codes of consecutive columns sit in consecutive bytes (words for
// 3-bit) of one packed row. Axis 0 takes the scalar path.
#include "formats/hqq/hqq.h"

#include "base/simd_tier.h"
#include "container/dtype.h"

QS_TIER_BEGIN_AVX2

#include "base/select16_avx2.h"
#include "formats/plain/dtyperound_avx2.h"

namespace qs {

namespace {

template <DType T>
void elements(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    const uint64_t end = e0 + n;
    uint64_t e = e0;
    while (e < end) {
        const uint64_t r = e / s.viewCols;
        const uint64_t c0 = e % s.viewCols;
        const uint64_t c1 = std::min(s.viewCols, c0 + (end - e));
        const float sc = s.scale.at(r), z = s.zero.at(r);
        const __m256 vs = _mm256_set1_ps(sc), vz = _mm256_set1_ps(z);
        const uint64_t part = r / s.step, base = (r % s.step) * s.viewCols;
        float* o = out + (e - e0); // o[i] is column c0 + i
        uint64_t c = c0;
        if (s.parts != 1) {
            // <= 4-bit codes: the row's 2^b results are formed once with the same lane-wise
            // operations as below (so the same bits), and each code selects its result.
            const __m256 iota = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
            const __m256 lo = roundToDtype8<T>(_mm256_mul_ps(roundToDtype8<T>(_mm256_sub_ps(iota, vz)), vs));
            const __m256 hi = roundToDtype8<T>(
                _mm256_mul_ps(roundToDtype8<T>(_mm256_sub_ps(_mm256_add_ps(iota, _mm256_set1_ps(8)), vz)), vs));
            const unsigned b = s.parts == 10 ? 3 : 8 / s.parts;
            const int sh = s.parts == 10 ? int(27 - 3 * part) : int(8 - b * (part + 1));
            const __m128i shift = _mm_cvtsi32_si128(sh);
            const __m256i mask = _mm256_set1_epi32(static_cast<int>((1u << b) - 1));
            for (; c + 8 <= c1; c += 8) {
                const __m256i w = s.parts == 10
                    ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.wq.data() + 4 * (base + c)))
                    : _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.wq.data() + base + c)));
                const __m256i q = _mm256_and_si256(_mm256_srl_epi32(w, shift), mask);
                _mm256_storeu_ps(o + (c - c0), b < 4 ? _mm256_permutevar8x32_ps(lo, q) : select16(lo, hi, q));
            }
        }
        if (s.parts == 10) {
            const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(27 - 3 * part));
            for (; c + 8 <= c1; c += 8) {
                const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.wq.data() + 4 * (base + c)));
                const __m256i q = _mm256_and_si256(_mm256_srl_epi32(w, shift), _mm256_set1_epi32(7));
                const __m256 d = roundToDtype8<T>(_mm256_sub_ps(_mm256_cvtepi32_ps(q), vz));
                _mm256_storeu_ps(o + (c - c0), roundToDtype8<T>(_mm256_mul_ps(d, vs)));
            }
        } else {
            const unsigned b = 8 / s.parts;
            const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(8 - b * (part + 1)));
            const __m256i mask = _mm256_set1_epi32(static_cast<int>((1u << b) - 1));
            for (; c + 8 <= c1; c += 8) {
                const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.wq.data() + base + c));
                const __m256i q = _mm256_and_si256(_mm256_srl_epi32(_mm256_cvtepu8_epi32(bytes), shift), mask);
                const __m256 d = roundToDtype8<T>(_mm256_sub_ps(_mm256_cvtepi32_ps(q), vz));
                _mm256_storeu_ps(o + (c - c0), roundToDtype8<T>(_mm256_mul_ps(d, vs)));
            }
        }
        for (; c < c1; ++c) {
            const float d = roundToDtype(static_cast<float>(s.code(r, c)) - z, T);
            o[c - c0] = roundToDtype(d * sc, T);
        }
        e += c1 - c0;
    }
}

} // namespace

void hqqElementsAvx2(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    if (s.axis != 1) {
        hqqElementsScalar(s, e0, n, out);
        return;
    }
    switch (s.dtype) {
    case DType::F16: elements<DType::F16>(s, e0, n, out); break;
    case DType::BF16: elements<DType::BF16>(s, e0, n, out); break;
    default: elements<DType::F32>(s, e0, n, out); break;
    }
}

} // namespace qs

QS_TIER_END
