// AVX-512 bitsandbytes paths. 4-bit: per block the 16 products code[i] * absmax are formed by one
// vector multiply (the reference's own f32 products, so the same bits); then 16 elements at a
// time, one VBMI multishift moves each element's nibble (element 2i: high nibble of byte i,
// 2i+1: low nibble) to the bottom of its lane from eight broadcast bytes, and one vpermps, which
// reads bits 0..3 of each lane, selects the product. Compiled with the AVX-512 flags of
// core/CMakeLists.txt; only called when the path is Avx512.
#include "formats/bnb/bnb.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace qs {

void bnb4ElementsAvx512(const Bnb4& s, uint64_t e0, uint64_t n, float* out)
{
    const __m512 code = _mm512_loadu_ps(s.table());
    const uint8_t* packed = s.packed.data();
    // Qword lane q (elements 2q, 2q+1 of the 16) takes byte q of the 8: its high nibble (bit
    // offset 8q + 4) into the low byte of lane 2q, its low nibble (8q) into that of lane 2q + 1.
    alignas(64) static constexpr uint8_t kOffsets[64] = {
        4, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 8, 0, 0, 0, 20, 0, 0, 0, 16, 0, 0, 0, 28, 0, 0, 0, 24, 0, 0, 0,
        36, 0, 0, 0, 32, 0, 0, 0, 44, 0, 0, 0, 40, 0, 0, 0, 52, 0, 0, 0, 48, 0, 0, 0, 60, 0, 0, 0, 56, 0, 0, 0};
    const __m512i offsets = _mm512_load_si512(kOffsets);
    const uint64_t end = e0 + n;
    const auto scalarAt = [&](uint64_t e, const float* t) { return t[(e & 1) ? (packed[e / 2] & 0x0F) : (packed[e / 2] >> 4)]; };
    const uint64_t b0 = e0 / s.blocksize;
    std::vector<float> plain(s.nested || n == 0 ? 0 : (end - 1) / s.blocksize + 1 - b0);
    if (!plain.empty())
        s.absmax.read(b0, plain.size(), plain.data());
    uint64_t e = e0;
    alignas(64) float t[16];
    for (uint64_t block = b0; e < end; ++block) {
        const uint64_t blockEnd = std::min((block + 1) * s.blocksize, end);
        const __m512 prod = _mm512_mul_ps(code, _mm512_set1_ps(s.nested ? s.blockAbsmax(block) : plain[block - b0]));
        float* o = out + (e - e0);
        if (e & 1) { // an odd head: element by element up to a byte boundary
            _mm512_store_ps(t, prod);
            *o++ = scalarAt(e++, t);
        }
        for (; e + 16 <= blockEnd; e += 16, o += 16) {
            uint64_t w;
            std::memcpy(&w, packed + e / 2, 8);
            const __m512i idx = _mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(int64_t(w)));
            _mm512_storeu_ps(o, _mm512_permutexvar_ps(idx, prod));
        }
        if (e < blockEnd) {
            _mm512_store_ps(t, prod);
            for (; e < blockEnd; ++e, ++o)
                *o = scalarAt(e, t);
        }
    }
}

// LLM.int8: the AVX2 path's two multiplies, 16 lanes at a time; rows that are not whole
// vectors go to the AVX2 path.
void bnbInt8RowsAvx512(const BnbInt8& s, uint64_t r0, uint64_t r1, float* out)
{
    if (s.cols % 16) {
        bnbInt8RowsAvx2(s, r0, r1, out);
        return;
    }
    const __m512 inv127 = _mm512_set1_ps(7.874015718698502e-3f);
    for (uint64_t r = r0; r < r1; ++r) {
        const __m512 vs = _mm512_set1_ps(s.scb.at(r));
        const uint8_t* q = s.q.data() + r * s.cols;
        float* o = out + (r - r0) * s.cols;
        for (uint64_t k = 0; k < s.cols; k += 16) {
            const __m512 f = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + k))));
            _mm512_storeu_ps(o + k, _mm512_mul_ps(_mm512_mul_ps(f, vs), inv127));
        }
    }
}

} // namespace qs
