// AVX2 bitsandbytes paths. 4-bit: per block the 16 products code[i] * absmax are formed
// once by two vector multiplies (the same f32 multiply the reference does per element, so
// the same bits), then each nibble selects its product with two vpermps (which read the low
// three bits only) and a blend on the code's bit 3, eight nibbles shifted into their lanes
// from a broadcast word (one operation fewer per eight values than splitting 16 bytes of
// nibbles and widening them).
#include "formats/bnb/bnb.h"

#include "base/simd_tier.h"

#include <algorithm>
#include <cstring>
#include <vector>

QS_TIER_BEGIN_AVX2

#include "base/select16_avx2.h"

namespace qs {

void bnb4ElementsAvx2(const Bnb4& s, uint64_t e0, uint64_t n, float* out)
{
    const float* code = s.table();
    const uint8_t* packed = s.packed.data();
    const __m256 codeLo = _mm256_loadu_ps(code), codeHi = _mm256_loadu_ps(code + 8);
    // Element 2i is the high nibble of byte i: from four bytes, lane j takes nibble j.
    const __m256i shifts = _mm256_setr_epi32(4, 0, 12, 8, 20, 16, 28, 24);
    const uint64_t end = e0 + n;
    const auto scalarAt = [&](uint64_t e, const float* t) {
        return t[(e & 1) ? (packed[e / 2] & 0x0F) : (packed[e / 2] >> 4)];
    };
    // The absmax of every block of the call, decoded once (nested ones: two table reads, a
    // multiply and an add each).
    const uint64_t b0 = e0 / s.blocksize;
    std::vector<float> absmax(n == 0 ? 0 : (end - 1) / s.blocksize + 1 - b0);
    bnb4BlockAbsmaxes(s, b0, absmax.size(), absmax.data());
    uint64_t e = e0;
    if (s.blocksize == 64 && e0 % 64 == 0) { // the common block size: whole blocks, no checks per word
        const uint8_t* p = packed + e0 / 2;
        float* o = out;
        for (uint64_t j = 0; j < n / 64; ++j, p += 32) {
            const __m256 a = _mm256_set1_ps(absmax[j]);
            const __m256 lo = _mm256_mul_ps(codeLo, a), hi = _mm256_mul_ps(codeHi, a);
            for (int i = 0; i < 8; ++i, o += 8) {
                int32_t w;
                std::memcpy(&w, p + 4 * i, 4);
                _mm256_storeu_ps(o, select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w), shifts)));
            }
        }
        e += n / 64 * 64;
    }
    for (uint64_t block = e / s.blocksize; e < end; ++block) {
        const uint64_t blockEnd = std::min((block + 1) * s.blocksize, end);
        const __m256 a = _mm256_set1_ps(absmax[block - b0]);
        // code[q] * absmax for the 16 codes: the reference's own f32 products.
        const __m256 lo = _mm256_mul_ps(codeLo, a), hi = _mm256_mul_ps(codeHi, a);
        float* o = out + (e - e0);
        if ((e & 7) || blockEnd - e < 16) {
            // Heads and short pieces element by element, from the same products.
            alignas(32) float t[16];
            _mm256_store_ps(t, lo);
            _mm256_store_ps(t + 8, hi);
            for (; e < blockEnd && (e & 7); ++e, ++o)
                *o = scalarAt(e, t);
            for (; e + 8 <= blockEnd; e += 8, o += 8) {
                int32_t w;
                std::memcpy(&w, packed + e / 2, 4);
                _mm256_storeu_ps(o, select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w), shifts)));
            }
            for (; e < blockEnd; ++e, ++o)
                *o = scalarAt(e, t);
            continue;
        }
        // Two words per step: two independent select chains.
        for (; e + 16 <= blockEnd; e += 16, o += 16) {
            int32_t w0, w1;
            std::memcpy(&w0, packed + e / 2, 4);
            std::memcpy(&w1, packed + e / 2 + 4, 4);
            const __m256 v0 = select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w0), shifts));
            const __m256 v1 = select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w1), shifts));
            _mm256_storeu_ps(o, v0);
            _mm256_storeu_ps(o + 8, v1);
        }
        for (; e + 8 <= blockEnd; e += 8, o += 8) {
            int32_t w;
            std::memcpy(&w, packed + e / 2, 4);
            _mm256_storeu_ps(o, select16(lo, hi, _mm256_srlv_epi32(_mm256_set1_epi32(w), shifts)));
        }
        if (e < blockEnd) {
            alignas(32) float t[16];
            _mm256_store_ps(t, lo);
            _mm256_store_ps(t + 8, hi);
            for (; e < blockEnd; ++e, ++o)
                *o = scalarAt(e, t);
        }
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

QS_TIER_END
