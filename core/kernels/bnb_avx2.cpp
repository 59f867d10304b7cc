// AVX2 bitsandbytes paths. 4-bit: per block the 16 products code[i] * absmax are formed
// once by two vector multiplies (the same f32 multiply the reference does per element, so
// the same bits), then each nibble selects its product with two vpermps (which read the low
// three bits only) and a blend on the code's bit 3: 32 nibbles per 16-byte load, and runs of
// eight shifted into their lanes from a broadcast word.
#include "kernels/bnb.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace qs {

namespace {

inline __m256 select16(__m256 lo, __m256 hi, __m256i idx)
{
    const __m256 a = _mm256_permutevar8x32_ps(lo, idx);
    const __m256 b = _mm256_permutevar8x32_ps(hi, idx);
    return _mm256_blendv_ps(a, b, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
}

} // namespace

void bnb4ElementsAvx2(const Bnb4& s, uint64_t e0, uint64_t n, float* out)
{
    const float* code = s.table();
    const uint8_t* packed = s.packed.data();
    const __m256 codeLo = _mm256_loadu_ps(code), codeHi = _mm256_loadu_ps(code + 8);
    // Element 2i is the high nibble of byte i: from four bytes, lane j takes nibble j.
    const __m256i shifts = _mm256_setr_epi32(4, 0, 12, 8, 20, 16, 28, 24);
    const __m128i low4 = _mm_set1_epi8(0x0F);
    const uint64_t end = e0 + n;
    uint64_t e = e0;
    uint64_t block = e / s.blocksize;
    while (e < end) {
        const uint64_t blockEnd = std::min((block + 1) * s.blocksize, end);
        const __m256 a = _mm256_set1_ps(s.blockAbsmax(block));
        // code[q] * absmax for the 16 codes: the reference's own f32 products.
        const __m256 lo = _mm256_mul_ps(codeLo, a), hi = _mm256_mul_ps(codeHi, a);
        alignas(32) float t[16];
        _mm256_store_ps(t, lo);
        _mm256_store_ps(t + 8, hi);
        float* o = out + (e - e0);
        for (; e < blockEnd && (e & 7); ++e, ++o)
            *o = t[(e & 1) ? (packed[e / 2] & 0x0F) : (packed[e / 2] >> 4)];
        for (; e + 32 <= blockEnd; e += 32, o += 32) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed + e / 2));
            const __m128i h = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
            const __m128i l = _mm_and_si128(v, low4);
            const __m128i c0 = _mm_unpacklo_epi8(h, l); // elements 0..15 in order
            const __m128i c1 = _mm_unpackhi_epi8(h, l); // elements 16..31
            _mm256_storeu_ps(o, select16(lo, hi, _mm256_cvtepu8_epi32(c0)));
            _mm256_storeu_ps(o + 8, select16(lo, hi, _mm256_cvtepu8_epi32(_mm_srli_si128(c0, 8))));
            _mm256_storeu_ps(o + 16, select16(lo, hi, _mm256_cvtepu8_epi32(c1)));
            _mm256_storeu_ps(o + 24, select16(lo, hi, _mm256_cvtepu8_epi32(_mm_srli_si128(c1, 8))));
        }
        for (; e + 8 <= blockEnd; e += 8, o += 8) {
            int32_t w;
            std::memcpy(&w, packed + e / 2, 4);
            _mm256_storeu_ps(o, select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w), shifts)));
        }
        for (; e < blockEnd; ++e, ++o)
            *o = t[(e & 1) ? (packed[e / 2] & 0x0F) : (packed[e / 2] >> 4)];
        ++block;
    }
}

void bnbInt8RowsAvx2(const BnbInt8& s, uint64_t r0, uint64_t r1, float* out)
{
    const __m256 inv127 = _mm256_set1_ps(7.874015718698502e-3f);
    for (uint64_t r = r0; r < r1; ++r) {
        const float scb = s.scb.at(r);
        const __m256 vs = _mm256_set1_ps(scb);
        const int8_t* q = reinterpret_cast<const int8_t*>(s.q.data()) + r * s.cols;
        float* o = out + (r - r0) * s.cols;
        uint64_t k = 0;
        for (; k + 8 <= s.cols; k += 8) {
            const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + k));
            const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
            _mm256_storeu_ps(o + k, _mm256_mul_ps(_mm256_mul_ps(f, vs), inv127));
        }
        for (; k < s.cols; ++k) {
            const float t = static_cast<float>(q[k]) * scb;
            o[k] = t * 7.874015718698502e-3f;
        }
    }
}

} // namespace qs
