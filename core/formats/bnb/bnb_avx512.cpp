// AVX-512 bitsandbytes paths. 4-bit: the absmax of every block of the call is decoded first
// (nested ones 16 at a time: one gather from the nested map, the reference's multiply and add);
// then per block the 16 products code[i] * absmax are formed by one vector multiply (the
// reference's own f32 products, so the same bits), and 16 elements at a time one VBMI
// multishift moves each element's nibble (element 2i: high nibble of byte i, 2i+1: low nibble)
// to the bottom of its lane from eight broadcast bytes, and one vpermps, which reads bits 0..3
// of each lane, selects the product. A block's last elements go through a masked load and
// store. Compiled with the AVX-512 flags of core/CMakeLists.txt; only called when the path is
// Avx512.
#include "formats/bnb/bnb.h"

#include "base/simd_tier.h"

#include <algorithm>
#include <cstring>
#include <vector>

QS_TIER_BEGIN_AVX512

namespace qs {

namespace {

// bnb4BlockAbsmaxes with nested ones 16 at a time: fl32(fl32(map[code] * nested_absmax[b /
// nested_blocksize]) + offset), as blockAbsmax (one gather per 16 blocks costs little beside
// their 1024 elements).
void blockAbsmaxes512(const Bnb4& s, uint64_t b0, uint64_t count, float* out)
{
    if (!s.nested)
        return bnb4BlockAbsmaxes(s, b0, count, out);
    alignas(64) float map[256];
    s.nestedMap.read(0, 256, map);
    const __m512 offset = _mm512_set1_ps(s.nestedOffset);
    const uint8_t* codes = s.absmaxCodes.data();
    for (uint64_t b = b0, end = b0 + count; b < end;) {
        const uint64_t j = b / s.nestedBlocksize, runEnd = std::min(end, (j + 1) * s.nestedBlocksize);
        const __m512 nested = _mm512_set1_ps(s.nestedAbsmax.at(j));
        for (; b < runEnd; b += 16) {
            const __mmask16 k = __mmask16(runEnd - b >= 16 ? 0xFFFF : (1u << (runEnd - b)) - 1);
            const __m512i idx = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(k, codes + b));
            const __m512 m = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), k, idx, map, 4);
            _mm512_mask_storeu_ps(out + (b - b0), k, _mm512_add_ps(_mm512_mul_ps(m, nested), offset));
        }
        b = runEnd;
    }
}

} // namespace

void bnb4ElementsAvx512(const Bnb4& s, uint64_t e0, uint64_t n, float* out)
{
    if (n == 0)
        return;
    const __m512 code = _mm512_loadu_ps(s.table());
    const uint8_t* packed = s.packed.data();
    // Qword lane q (elements 2q, 2q+1 of the 16) takes byte q of the 8: its high nibble (bit
    // offset 8q + 4) into the low byte of lane 2q, its low nibble (8q) into that of lane 2q + 1.
    alignas(64) static constexpr uint8_t kOffsets[64] = {
        4,  0, 0, 0, 0,  0, 0, 0, 12, 0, 0, 0, 8,  0, 0, 0, 20, 0, 0, 0, 16, 0, 0, 0, 28, 0, 0, 0, 24, 0, 0, 0,
        36, 0, 0, 0, 32, 0, 0, 0, 44, 0, 0, 0, 40, 0, 0, 0, 52, 0, 0, 0, 48, 0, 0, 0, 60, 0, 0, 0, 56, 0, 0, 0};
    const __m512i offsets = _mm512_load_si512(kOffsets);
    const auto lanes = [&](const uint8_t* p) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        return _mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(int64_t(w)));
    };
    const uint64_t end = e0 + n, bs = s.blocksize, b0 = e0 / bs, blocks = (end - 1) / bs + 1 - b0;
    thread_local std::vector<float> absmax;
    absmax.resize(blocks);
    blockAbsmaxes512(s, b0, blocks, absmax.data());
    uint64_t e = e0;
    float* o = out;
    if (bs == 64 && e0 % 64 == 0) { // the common block size: whole blocks without a check per vector
        const uint8_t* p = packed + e0 / 2;
        for (uint64_t j = 0; j < n / 64; ++j, p += 32, o += 64) {
            const __m512 prod = _mm512_mul_ps(code, _mm512_set1_ps(absmax[j]));
            _mm512_storeu_ps(o, _mm512_permutexvar_ps(lanes(p), prod));
            _mm512_storeu_ps(o + 16, _mm512_permutexvar_ps(lanes(p + 8), prod));
            _mm512_storeu_ps(o + 32, _mm512_permutexvar_ps(lanes(p + 16), prod));
            _mm512_storeu_ps(o + 48, _mm512_permutexvar_ps(lanes(p + 24), prod));
        }
        e += n / 64 * 64;
    }
    for (uint64_t block = e / bs; e < end; ++block) {
        const uint64_t blockEnd = std::min((block + 1) * bs, end);
        const __m512 prod = _mm512_mul_ps(code, _mm512_set1_ps(absmax[block - b0]));
        if (e & 1) { // an odd head (odd block sizes or starts): the low nibble of its byte
            *o++ = _mm512_cvtss_f32(_mm512_permutexvar_ps(_mm512_set1_epi32(packed[e / 2]), prod));
            ++e;
        }
        for (; e + 16 <= blockEnd; e += 16, o += 16)
            _mm512_storeu_ps(o, _mm512_permutexvar_ps(lanes(packed + e / 2), prod));
        if (e < blockEnd) { // the last r < 16 elements: their (r + 1) / 2 bytes only
            const uint64_t r = blockEnd - e;
            const __m512i idx = _mm512_multishift_epi64_epi8(
                offsets,
                _mm512_broadcastq_epi64(_mm_maskz_loadu_epi8(__mmask16((1u << ((r + 1) / 2)) - 1), packed + e / 2)));
            _mm512_mask_storeu_ps(o, __mmask16((1u << r) - 1), _mm512_permutexvar_ps(idx, prod));
            o += r;
            e = blockEnd;
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
            const __m512 f =
                _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + k))));
            _mm512_storeu_ps(o + k, _mm512_mul_ps(_mm512_mul_ps(f, vs), inv127));
        }
    }
}

} // namespace qs

QS_TIER_END
