// AVX2 path of tallyGgmlBlocks (codestats.h) for Q4_K. Per pair of sub-blocks (32 bytes:
// low nibbles one sub-block, high nibbles the next) the eight bit planes come out as
// movemasks; the lanes of a vector are the codes, each lane the AND of the four planes (or
// their complements) that select its code, and a popcount per lane gives the counts. The
// values of the 16 codes are d1 * q - m1 in two vectors, as the reference forms them.
#include "analysis/codestats.h"

#include "kernels/ggml.h"
#include "kernels/half.h"

#include <immintrin.h>

#include <cmath>

namespace qs::avx2 {

namespace {

// The number of set bits of each 32-bit lane.
inline __m256i codestatsPopcount32(__m256i v)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2,
                                         2, 3, 2, 3, 3, 4);
    const __m256i nib = _mm256_set1_epi8(0x0F);
    const __m256i bytes = _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(v, nib)),
                                          _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib)));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, _mm256_set1_epi8(1)), _mm256_set1_epi16(1));
}

// split[idx] += count for the eight lanes, taken out two at a time through general
// registers (a vector store reloaded as scalars waits on store forwarding).
inline void codestatsAddCounts(uint32_t* split, __m256i idx, __m256i cnt)
{
    const __m128i il = _mm256_castsi256_si128(idx), ih = _mm256_extracti128_si256(idx, 1);
    const __m128i cl = _mm256_castsi256_si128(cnt), ch = _mm256_extracti128_si256(cnt, 1);
    const uint64_t i0 = uint64_t(_mm_cvtsi128_si64(il)), i1 = uint64_t(_mm_extract_epi64(il, 1));
    const uint64_t i2 = uint64_t(_mm_cvtsi128_si64(ih)), i3 = uint64_t(_mm_extract_epi64(ih, 1));
    const uint64_t c0 = uint64_t(_mm_cvtsi128_si64(cl)), c1 = uint64_t(_mm_extract_epi64(cl, 1));
    const uint64_t c2 = uint64_t(_mm_cvtsi128_si64(ch)), c3 = uint64_t(_mm_extract_epi64(ch, 1));
    split[uint32_t(i0)] += uint32_t(c0);
    split[i0 >> 32] += uint32_t(c0 >> 32);
    split[uint32_t(i1)] += uint32_t(c1);
    split[i1 >> 32] += uint32_t(c1 >> 32);
    split[uint32_t(i2)] += uint32_t(c2);
    split[i2 >> 32] += uint32_t(c2 >> 32);
    split[uint32_t(i3)] += uint32_t(c3);
    split[i3 >> 32] += uint32_t(c3 >> 32);
}

struct CodestatsQ4K {
    __m256d s[4], q[4];    // CodeTally::sum / sumSq, codes 0-3, 4-7, 8-11, 12-15
    __m256i lo, hi;        // orderedBits extremes per lane
    uint32_t* split;
    __m256i sign, copy, keyMask, c0, c1, c2, q0, q1;

    // One sub-block: bit planes p0..p3 of its 32 codes, d1 and m1 broadcast.
    [[gnu::always_inline]] inline void group(uint32_t p0, uint32_t p1, uint32_t p2, uint32_t p3, __m256 d1, __m256 m1)
    {
        const __m256i b0 = _mm256_set1_epi32(int32_t(p0)), b1 = _mm256_set1_epi32(int32_t(p1));
        const __m256i b2 = _mm256_set1_epi32(int32_t(p2)), b3 = _mm256_set1_epi32(int32_t(p3));
        const __m256i m012 = _mm256_and_si256(_mm256_and_si256(_mm256_xor_si256(b0, c0), _mm256_xor_si256(b1, c1)),
                                              _mm256_xor_si256(b2, c2));
        const __m256i nLo = codestatsPopcount32(_mm256_andnot_si256(b3, m012)); // codes 0..7
        const __m256i nHi = codestatsPopcount32(_mm256_and_si256(b3, m012));    // codes 8..15
        const __m256 vLo = _mm256_sub_ps(_mm256_mul_ps(d1, _mm256_castsi256_ps(q0)), m1);
        const __m256 vHi = _mm256_sub_ps(_mm256_mul_ps(d1, _mm256_castsi256_ps(q1)), m1);
        const __m256i uLo = _mm256_castps_si256(vLo), uHi = _mm256_castps_si256(vHi);
        const __m256i oLo = _mm256_xor_si256(uLo, _mm256_or_si256(_mm256_srai_epi32(uLo, 31), sign));
        const __m256i oHi = _mm256_xor_si256(uHi, _mm256_or_si256(_mm256_srai_epi32(uHi, 31), sign));
        // valueKey * kKeySplit + code % kKeySplit
        codestatsAddCounts(split, _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(oLo, 14), keyMask), copy), nLo);
        codestatsAddCounts(split, _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(oHi, 14), keyMask), copy), nHi);
        const __m256i zero = _mm256_setzero_si256();
        const __m256i aLo = _mm256_cmpeq_epi32(nLo, zero), aHi = _mm256_cmpeq_epi32(nHi, zero);
        lo = _mm256_min_epu32(lo, _mm256_min_epu32(_mm256_or_si256(oLo, aLo), _mm256_or_si256(oHi, aHi)));
        hi = _mm256_max_epu32(hi, _mm256_max_epu32(_mm256_andnot_si256(aLo, oLo), _mm256_andnot_si256(aHi, oHi)));
        // A code that is absent adds 0 * value = +-0, which leaves a lane as it is.
        const __m256d v0 = _mm256_cvtps_pd(_mm256_castps256_ps128(vLo)), v1 = _mm256_cvtps_pd(_mm256_extractf128_ps(vLo, 1));
        const __m256d v2 = _mm256_cvtps_pd(_mm256_castps256_ps128(vHi)), v3 = _mm256_cvtps_pd(_mm256_extractf128_ps(vHi, 1));
        const __m256d p0d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(nLo)), v0);
        const __m256d p1d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(nLo, 1)), v1);
        const __m256d p2d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(nHi)), v2);
        const __m256d p3d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(nHi, 1)), v3);
        s[0] = _mm256_add_pd(s[0], p0d);
        s[1] = _mm256_add_pd(s[1], p1d);
        s[2] = _mm256_add_pd(s[2], p2d);
        s[3] = _mm256_add_pd(s[3], p3d);
        q[0] = _mm256_add_pd(q[0], _mm256_mul_pd(p0d, v0));
        q[1] = _mm256_add_pd(q[1], _mm256_mul_pd(p1d, v1));
        q[2] = _mm256_add_pd(q[2], _mm256_mul_pd(p2d, v2));
        q[3] = _mm256_add_pd(q[3], _mm256_mul_pd(p3d, v3));
    }
};

// The 6-bit scales and mins of the eight Q4_K sub-blocks.
inline void codestatsScalesQ4K(const uint8_t* S, int32_t* sc, int32_t* m)
{
    for (int s = 0; s < 4; ++s) {
        sc[s] = S[s] & 63;
        m[s] = S[s + 4] & 63;
        sc[s + 4] = (S[s + 8] & 0xF) | ((S[s] >> 6) << 4);
        m[s + 4] = (S[s + 8] >> 4) | ((S[s + 4] >> 6) << 4);
    }
}

} // namespace

void tallyGgmlBlocks(int type, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split,
                     const RangeBins* range, uint64_t* rangeCounts)
{
    if (type != GgmlQ4_K || range) {
        qs::tallyGgmlBlocks(type, src, nblocks, t, split, range, rangeCounts);
        return;
    }
    static_assert(kKeySplit == 4);
    CodestatsQ4K k;
    const auto load = [&] {
        for (int l = 0; l < 4; ++l) {
            k.s[l] = _mm256_loadu_pd(t.sum + 4 * l);
            k.q[l] = _mm256_loadu_pd(t.sumSq + 4 * l);
        }
    };
    const auto store = [&] {
        for (int l = 0; l < 4; ++l) {
            _mm256_storeu_pd(t.sum + 4 * l, k.s[l]);
            _mm256_storeu_pd(t.sumSq + 4 * l, k.q[l]);
        }
    };
    load();
    k.lo = _mm256_set1_epi32(int32_t(t.lo));
    k.hi = _mm256_set1_epi32(int32_t(t.hi));
    k.split = split;
    k.sign = _mm256_set1_epi32(int32_t(0x80000000u));
    k.copy = _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3);
    k.keyMask = _mm256_set1_epi32(~3);
    // Lane c holds code c (or c + 8): plane k is complemented where bit k of c is clear.
    k.c0 = _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0);
    k.c1 = _mm256_setr_epi32(-1, -1, 0, 0, -1, -1, 0, 0);
    k.c2 = _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0);
    k.q0 = _mm256_castps_si256(_mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7));
    k.q1 = _mm256_castps_si256(_mm256_setr_ps(8, 9, 10, 11, 12, 13, 14, 15));
    for (uint64_t i = 0; i < nblocks; ++i, src += 144) {
        const float d = halfToFloat(uint16_t(src[0] | (src[1] << 8)));
        const float dmin = halfToFloat(uint16_t(src[2] | (src[3] << 8)));
        if (!std::isfinite(d) || !std::isfinite(dmin)) {
            // NaN or Inf values: the reference sorts out what is binned and summed.
            store();
            qs::tallyGgmlBlocks(type, src, 1, t, split, nullptr, nullptr);
            load();
            k.lo = _mm256_min_epu32(k.lo, _mm256_set1_epi32(int32_t(t.lo)));
            k.hi = _mm256_max_epu32(k.hi, _mm256_set1_epi32(int32_t(t.hi)));
            continue;
        }
        alignas(32) int32_t sc[8], mn[8];
        codestatsScalesQ4K(src + 4, sc, mn);
        alignas(32) float d1[8], m1[8];
        _mm256_store_ps(d1, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(sc)))));
        _mm256_store_ps(m1, _mm256_mul_ps(_mm256_set1_ps(dmin), _mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(mn)))));
        for (int j = 0; j < 4; ++j) {
            const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 16 + 32 * j));
            const uint32_t p0 = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 7)));
            const uint32_t p1 = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 6)));
            const uint32_t p2 = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 5)));
            const uint32_t p3 = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 4)));
            const uint32_t p4 = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 3)));
            const uint32_t p5 = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 2)));
            const uint32_t p6 = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 1)));
            const uint32_t p7 = uint32_t(_mm256_movemask_epi8(x));
            k.group(p0, p1, p2, p3, _mm256_broadcast_ss(d1 + 2 * j), _mm256_broadcast_ss(m1 + 2 * j));
            k.group(p4, p5, p6, p7, _mm256_broadcast_ss(d1 + 2 * j + 1), _mm256_broadcast_ss(m1 + 2 * j + 1));
        }
    }
    store();
    alignas(32) uint32_t lo[8], hi[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lo), k.lo);
    _mm256_store_si256(reinterpret_cast<__m256i*>(hi), k.hi);
    for (int l = 0; l < 8; ++l) {
        t.lo = std::min(t.lo, lo[l]);
        t.hi = std::max(t.hi, hi[l]);
    }
}

} // namespace qs::avx2
