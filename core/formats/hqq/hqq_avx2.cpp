// AVX2 HQQ path for axis 1 (the transformers default): inside one view row the scale and
// zero are constant and the codes of consecutive columns sit in consecutive bytes (words for
// 3-bit) of one packed row. Axis 0 takes the scalar path. Ranges of whole view rows of whole
// vectors with codes of <= 4 bits (the common case) take tableRows: nothing per row but its
// table and its vectors.
#include "formats/hqq/hqq.h"

#include "base/simd_tier.h"
#include "container/dtype.h"

#include <algorithm>
#include <cstring>

QS_TIER_BEGIN_AVX2

#include "base/select16_avx2.h"
#include "formats/plain/dtyperound_avx2.h"
#include "formats/plain/floatread_avx2.h"

namespace qs {

namespace {

constexpr uint64_t kHqqBatchRows = 64;

// Whole view rows [r0, r1) of whole vectors, codes of <= 4 bits: rows in runs inside one part
// (one shift), their scales and zeros read in batches, per row its table of the 2^b results
// (the operations of `elements`, so the same bits) and its vectors. Eight byte codes come from two
// broadcast loads and a blend, each lane shifted to its byte's field: no widening on the shuffle
// port, which the lookups need (HQQ-4 .25 -> see the commit).
template <DType T, bool words>
void tableRows(const Hqq& s, uint64_t r0, uint64_t r1, float* o)
{
    const unsigned b = words ? 3 : 8 / s.parts;
    const uint64_t C = s.viewCols, rowBytes = (words ? 4 : 1) * C;
    const __m256 iota = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 iota8 = _mm256_add_ps(iota, _mm256_set1_ps(8));
    const __m256i mask = _mm256_set1_epi32(int((1u << b) - 1));
    float scales[kHqqBatchRows], zeros[kHqqBatchRows];
    for (uint64_t r = r0; r < r1;) {
        const uint64_t part = r / s.step, batch = std::min({kHqqBatchRows, r1 - r, (part + 1) * s.step - r});
        const int shift = words ? int(27 - 3 * part) : int(8 - b * (part + 1));
        const __m128i count = _mm_cvtsi32_si128(shift);
        const __m256i byteShifts =
            _mm256_add_epi32(_mm256_setr_epi32(0, 8, 16, 24, 0, 8, 16, 24), _mm256_set1_epi32(shift));
        readFloatsF16c(s.scale, r, batch, scales);
        readFloatsF16c(s.zero, r, batch, zeros);
        const uint8_t* src = s.wq.data() + (r % s.step) * rowBytes;
        for (uint64_t j = 0; j < batch; ++j, src += rowBytes) {
            const __m256 vs = _mm256_set1_ps(scales[j]), vz = _mm256_set1_ps(zeros[j]);
            const __m256 lo = roundToDtype8<T>(_mm256_mul_ps(roundToDtype8<T>(_mm256_sub_ps(iota, vz)), vs));
            const __m256 hi =
                b == 4 ? roundToDtype8<T>(_mm256_mul_ps(roundToDtype8<T>(_mm256_sub_ps(iota8, vz)), vs)) : lo;
            for (uint64_t c = 0; c < C; c += 8, o += 8) {
                __m256i q;
                if constexpr (words) {
                    q = _mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 4 * c)), count);
                } else {
                    int32_t w0, w1;
                    std::memcpy(&w0, src + c, 4);
                    std::memcpy(&w1, src + c + 4, 4);
                    q = _mm256_srlv_epi32(_mm256_blend_epi32(_mm256_set1_epi32(w0), _mm256_set1_epi32(w1), 0xF0),
                                          byteShifts);
                }
                // select16 reads bits 0..3 only; narrower codes are masked for vpermps.
                _mm256_storeu_ps(
                    o, b == 4 ? select16(lo, hi, q) : _mm256_permutevar8x32_ps(lo, _mm256_and_si256(q, mask)));
            }
        }
        r += batch;
    }
}

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
    const uint64_t C = s.viewCols;
    if (s.parts != 1 && C % 8 == 0 && e0 % C == 0 && n % C == 0) {
        const uint64_t r0 = e0 / C, r1 = (e0 + n) / C;
        switch (s.dtype) {
        case DType::F16:
            return (s.parts == 10 ? tableRows<DType::F16, true> : tableRows<DType::F16, false>)(s, r0, r1, out);
        case DType::BF16:
            return (s.parts == 10 ? tableRows<DType::BF16, true> : tableRows<DType::BF16, false>)(s, r0, r1, out);
        default: return (s.parts == 10 ? tableRows<DType::F32, true> : tableRows<DType::F32, false>)(s, r0, r1, out);
        }
    }
    switch (s.dtype) {
    case DType::F16: elements<DType::F16>(s, e0, n, out); break;
    case DType::BF16: elements<DType::BF16>(s, e0, n, out); break;
    default: elements<DType::F32>(s, e0, n, out); break;
    }
}

} // namespace qs

QS_TIER_END
