// AVX-512 HQQ path for axis 1 (the transformers default): inside one view row the scale and zero
// are constant and the codes of consecutive columns sit in consecutive bytes (words for 3-bit) of
// one packed row. Codes of <= 4 bits select their value from the row's table of the 2^b results,
// formed with the scalar path's two roundings on 16 lanes (the same operations, so the same bits;
// the table repeats every 2^b lanes, so the bits above a code that vpermps reads are harmless);
// wider codes take the two roundings themselves. The rows' scales and zeros are read in batches,
// a row's last columns through masked loads and stores. Ranges of whole view rows of whole
// vectors (the common case) take a loop with nothing per row but its table and its vectors.
// Axis 0 goes to the AVX2 path.
#include "formats/hqq/hqq.h"

#include "base/intmath.h"
#include "base/simd_tier.h"
#include "container/dtype.h"
#include "formats/kernelutil.h"

#include <algorithm>

QS_TIER_BEGIN_AVX512

#include "formats/plain/dtyperound_avx512.h"
#include "formats/plain/floatread_avx2.h"

namespace qs {

namespace {

constexpr uint64_t kHqqBatchRows = 64;

// The values of codes 0..15 (lane & (2^b - 1) in `codes`) of a row: the scalar path's two roundings.
template <DType T>
inline __m512 hqqTable16(__m512 codes, float scale, float zero)
{
    return roundToDtype16<T>(
        _mm512_mul_ps(roundToDtype16<T>(_mm512_sub_ps(codes, _mm512_set1_ps(zero))), _mm512_set1_ps(scale)));
}

template <DType T, bool words, bool table>
void hqqRows512(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    const unsigned b = words ? 3 : table ? 8 / s.parts : unsigned(s.bits);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 codes =
        _mm512_cvtepi32_ps(_mm512_and_si512(lane, _mm512_set1_epi32(int((1u << std::min(b, 4u)) - 1))));
    const uint64_t C = s.viewCols, end = e0 + n;
    uint64_t r = e0 / C, c0 = e0 % C, part = r / s.step, inPart = r % s.step;
    float scales[kHqqBatchRows], zeros[kHqqBatchRows];
    float* o = out;
    for (uint64_t e = e0; e < end;) {
        const uint64_t batch = std::min(kHqqBatchRows, ceilDiv(end - r * C, C));
        readFloatsF16c(s.scale, r, batch, scales);
        readFloatsF16c(s.zero, r, batch, zeros);
        for (uint64_t j = 0; j < batch; ++j, ++r, c0 = 0) {
            const uint64_t c1 = std::min(C, c0 + (end - e));
            const __m512 vs = _mm512_set1_ps(scales[j]), vz = _mm512_set1_ps(zeros[j]);
            const __m512 t = table ? hqqTable16<T>(codes, scales[j], zeros[j]) : vs;
            const int shift = words ? int(27 - 3 * part) : table ? int(8 - b * (part + 1)) : 0;
            const __m128i sh = _mm_cvtsi32_si128(shift);
            const uint8_t* src = s.wq.data() + (words ? 4 : 1) * inPart * C;
            // Columns [c, c + 16) under mask k: the 16 codes in lanes, then their values. Byte
            // codes are shifted as bytes (16-bit lanes: what the upper byte shifts in lands above
            // the code's bits, which the table repeats over).
            const auto values = [&](uint64_t c, __mmask16 k) {
                __m512i w;
                if constexpr (words)
                    w = _mm512_srl_epi32(_mm512_maskz_loadu_epi32(k, src + 4 * c), sh);
                else
                    w = _mm512_cvtepu8_epi32(table ? _mm_srl_epi16(_mm_maskz_loadu_epi8(k, src + c), sh)
                                                   : _mm_maskz_loadu_epi8(k, src + c));
                if constexpr (table)
                    return _mm512_permutexvar_ps(w, t);
                const __m512 d = roundToDtype16<T>(_mm512_sub_ps(_mm512_cvtepi32_ps(w), vz));
                return roundToDtype16<T>(_mm512_mul_ps(d, vs));
            };
            uint64_t c = c0;
            for (; c + 16 <= c1; c += 16, o += 16)
                _mm512_storeu_ps(o, values(c, 0xFFFF));
            if (c < c1) {
                const __mmask16 k = __mmask16((1u << (c1 - c)) - 1);
                _mm512_mask_storeu_ps(o, k, values(c, k));
                o += c1 - c;
            }
            e += c1 - c0;
            if (++inPart == s.step) {
                inPart = 0;
                ++part;
            }
        }
    }
}

// Whole view rows of whole vectors (C a multiple of 16), codes of <= 4 bits: rows in runs
// inside one part (one shift), per row nothing but its table and its vectors. FixedC: the view
// rows of HQQ's default group of 64, their four vectors unrolled (HQQ-4 .75 -> .79 of memcpy).
template <DType T, bool words, uint64_t FixedC = 0>
void hqqTableRows512(const Hqq& s, uint64_t r0, uint64_t r1, float* o)
{
    const unsigned b = words ? 3 : 8 / s.parts;
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 codes =
        _mm512_cvtepi32_ps(_mm512_and_si512(lane, _mm512_set1_epi32(int((1u << std::min(b, 4u)) - 1))));
    const uint64_t C = FixedC ? FixedC : s.viewCols, rowBytes = (words ? 4 : 1) * C;
    float scales[kHqqBatchRows], zeros[kHqqBatchRows];
    for (uint64_t r = r0; r < r1;) {
        const uint64_t part = r / s.step, batch = std::min({kHqqBatchRows, r1 - r, (part + 1) * s.step - r});
        const __m128i sh = _mm_cvtsi32_si128(words ? int(27 - 3 * part) : int(8 - b * (part + 1)));
        readFloatsF16c(s.scale, r, batch, scales);
        readFloatsF16c(s.zero, r, batch, zeros);
        const uint8_t* src = s.wq.data() + (r % s.step) * rowBytes;
        for (uint64_t j = 0; j < batch; ++j, src += rowBytes) {
            const __m512 t = hqqTable16<T>(codes, scales[j], zeros[j]);
#pragma GCC unroll 4
            for (uint64_t c = 0; c < C; c += 16, o += 16) {
                const __m512i w = words ? _mm512_srl_epi32(_mm512_loadu_si512(src + 4 * c), sh)
                                        : _mm512_cvtepu8_epi32(_mm_srl_epi16(
                                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + c)), sh));
                _mm512_storeu_ps(o, _mm512_permutexvar_ps(w, t));
            }
        }
        r += batch;
    }
}

template <DType T>
void hqqLayout512(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    const uint64_t C = s.viewCols;
    if (s.parts != 1 && C % 16 == 0 && e0 % C == 0 && n % C == 0) {
        if (C == 64)
            return (s.parts == 10 ? hqqTableRows512<T, true, 64> : hqqTableRows512<T, false, 64>)(s, e0 / C,
                                                                                                  (e0 + n) / C, out);
        return (s.parts == 10 ? hqqTableRows512<T, true> : hqqTableRows512<T, false>)(s, e0 / C, (e0 + n) / C, out);
    }
    if (s.parts == 10)
        return hqqRows512<T, true, true>(s, e0, n, out);
    if (s.parts == 1)
        return hqqRows512<T, false, false>(s, e0, n, out);
    hqqRows512<T, false, true>(s, e0, n, out);
}

} // namespace

void hqqElementsAvx512(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    if (s.axis != 1)
        return hqqElementsAvx2(s, e0, n, out);
    switch (s.dtype) {
    case DType::F16: return hqqLayout512<DType::F16>(s, e0, n, out);
    case DType::BF16: return hqqLayout512<DType::BF16>(s, e0, n, out);
    default: return hqqLayout512<DType::F32>(s, e0, n, out);
    }
}

} // namespace qs

QS_TIER_END
