// AVX2 path of tallyGgmlBlocks (codestats.h) for the 4-bit codes in 32-weight groups:
// Q4_K, Q4_0, Q4_1, IQ4_NL and IQ4_XS. From 32 bytes holding two groups' codes the eight bit
// planes come out as movemasks; the lanes of a vector are the codes, each lane the AND of
// the four planes (or their complements) that select its code, and a popcount per lane gives
// the counts. The values of the 16 codes are formed in two vectors as the reference forms
// them (same operations, same order, no FMA).
#include "formats/ggml/codestats.h"

#include "base/half.h"
#include "base/simd_tier.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_tables.h"

#include <algorithm>
#include <cmath>

QS_TIER_BEGIN_AVX2

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

struct CodestatsNibbles {
    __m256d s[2], q[2]; // CodeTally::sum / sumSq: lanes 0-3 (codes 0-3, 8-11), 4-7 (codes 4-7, 12-15)
    __m256i lo, hi; // orderedBits extremes per lane
    uint32_t* split;
    // Per group: split index | count << 24 of its 16 codes, for the group just formed and the
    // one before. A group is added to the split counters while the next one is formed: by
    // then its stores have left the store buffer, and the scalar loads do not wait on
    // forwarding from a vector store.
    alignas(32) uint32_t pending[32] = {};
    uint32_t parity = 0;
    __m256i sign, keyMask, c0, c1, c2;

    [[gnu::always_inline]] inline void drain(const uint32_t* g)
    {
#pragma GCC unroll 16
        for (int c = 0; c < 16; ++c)
            split[g[c] & 0xFFFFFFu] += g[c] >> 24;
    }

    // Adds the group still pending (before the reference takes a block, and at the end).
    void flush()
    {
        uint32_t* g = pending + 16 * parity;
        drain(g);
        std::fill(g, g + 16, 0u);
    }

    // One group: bit planes p0..p3 of its 32 codes, the values of codes 0-7 and 8-15.
    [[gnu::always_inline]] inline void group(uint32_t p0, uint32_t p1, uint32_t p2, uint32_t p3, __m256 vLo, __m256 vHi)
    {
        const __m256i b0 = _mm256_set1_epi32(int32_t(p0)), b1 = _mm256_set1_epi32(int32_t(p1));
        const __m256i b2 = _mm256_set1_epi32(int32_t(p2)), b3 = _mm256_set1_epi32(int32_t(p3));
        const __m256i m012 = _mm256_and_si256(_mm256_and_si256(_mm256_xor_si256(b0, c0), _mm256_xor_si256(b1, c1)),
                                              _mm256_xor_si256(b2, c2));
        const __m256i nLo = codestatsPopcount32(_mm256_andnot_si256(b3, m012)); // codes 0..7
        const __m256i nHi = codestatsPopcount32(_mm256_and_si256(b3, m012)); // codes 8..15
        const __m256i uLo = _mm256_castps_si256(vLo), uHi = _mm256_castps_si256(vHi);
        const __m256i oLo = _mm256_xor_si256(uLo, _mm256_or_si256(_mm256_srai_epi32(uLo, 31), sign));
        const __m256i oHi = _mm256_xor_si256(uHi, _mm256_or_si256(_mm256_srai_epi32(uHi, 31), sign));
        // valueKey * kKeySplit (< 2^18; every code in copy 0: the codes of a group have
        // distinct keys, and a group's increments are far from the next one's), count above.
        uint32_t* out = pending + 16 * (parity ^= 1);
        _mm256_store_si256(
            reinterpret_cast<__m256i*>(out),
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(oLo, 14), keyMask), _mm256_slli_epi32(nLo, 24)));
        _mm256_store_si256(
            reinterpret_cast<__m256i*>(out + 8),
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(oHi, 14), keyMask), _mm256_slli_epi32(nHi, 24)));
        drain(pending + 16 * (parity ^ 1));
        const __m256i zero = _mm256_setzero_si256();
        const __m256i aLo = _mm256_cmpeq_epi32(nLo, zero), aHi = _mm256_cmpeq_epi32(nHi, zero);
        lo = _mm256_min_epu32(lo, _mm256_min_epu32(_mm256_or_si256(oLo, aLo), _mm256_or_si256(oHi, aHi)));
        hi = _mm256_max_epu32(hi, _mm256_max_epu32(_mm256_andnot_si256(aLo, oLo), _mm256_andnot_si256(aHi, oHi)));
        // A code that is absent adds 0 * value = +-0, which leaves a lane as it is.
        const __m256d v0 = _mm256_cvtps_pd(_mm256_castps256_ps128(vLo)),
                      v1 = _mm256_cvtps_pd(_mm256_extractf128_ps(vLo, 1));
        const __m256d v2 = _mm256_cvtps_pd(_mm256_castps256_ps128(vHi)),
                      v3 = _mm256_cvtps_pd(_mm256_extractf128_ps(vHi, 1));
        const __m256d p0d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(nLo)), v0);
        const __m256d p1d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(nLo, 1)), v1);
        const __m256d p2d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(nHi)), v2);
        const __m256d p3d = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(nHi, 1)), v3);
        s[0] = _mm256_add_pd(_mm256_add_pd(s[0], p0d), p2d);
        s[1] = _mm256_add_pd(_mm256_add_pd(s[1], p1d), p3d);
        q[0] = _mm256_add_pd(_mm256_add_pd(q[0], _mm256_mul_pd(p0d, v0)), _mm256_mul_pd(p2d, v2));
        q[1] = _mm256_add_pd(_mm256_add_pd(q[1], _mm256_mul_pd(p1d, v1)), _mm256_mul_pd(p3d, v3));
    }
};

// The eight bit planes of 32 code bytes: p[k] bit i = bit k of byte i.
[[gnu::always_inline]] inline void codestatsPlanes(__m256i x, uint32_t* p)
{
    p[0] = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 7)));
    p[1] = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 6)));
    p[2] = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 5)));
    p[3] = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 4)));
    p[4] = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 3)));
    p[5] = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 2)));
    p[6] = uint32_t(_mm256_movemask_epi8(_mm256_slli_epi16(x, 1)));
    p[7] = uint32_t(_mm256_movemask_epi8(x));
}

// Planes p of two 16-byte groups side by side (low nibble: elements 0-15, high: 16-31):
// plane k of the group in bytes 0-15 (half 0) or 16-31 (half 1).
inline uint32_t codestatsHalfPlane(const uint32_t* p, int k, int half)
{
    return half ? (p[k] >> 16) | (p[k + 4] & 0xFFFF0000u) : (p[k] & 0xFFFFu) | (p[k + 4] << 16);
}

} // namespace

void tallyGgmlBlocks(int type, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split)
{
    static_assert(kKeySplit == 4);
    CodestatsNibbles k;
    const auto load = [&] {
        for (int l = 0; l < 2; ++l) {
            k.s[l] = _mm256_loadu_pd(t.sum + 4 * l);
            k.q[l] = _mm256_loadu_pd(t.sumSq + 4 * l);
        }
    };
    const auto store = [&] {
        for (int l = 0; l < 2; ++l) {
            _mm256_storeu_pd(t.sum + 4 * l, k.s[l]);
            _mm256_storeu_pd(t.sumSq + 4 * l, k.q[l]);
        }
    };
    load();
    k.lo = _mm256_set1_epi32(int32_t(t.lo));
    k.hi = _mm256_set1_epi32(int32_t(t.hi));
    k.split = split;
    k.sign = _mm256_set1_epi32(int32_t(0x80000000u));
    k.keyMask = _mm256_set1_epi32(~3);
    // Lane c holds code c (or c + 8): plane k is complemented where bit k of c is clear.
    k.c0 = _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0);
    k.c1 = _mm256_setr_epi32(-1, -1, 0, 0, -1, -1, 0, 0);
    k.c2 = _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0);
    const __m256 q0 = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), q1 = _mm256_setr_ps(8, 9, 10, 11, 12, 13, 14, 15);
    const int8_t* nl = ggml::kValuesIq4nl;
    const __m256 t0 = _mm256_setr_ps(nl[0], nl[1], nl[2], nl[3], nl[4], nl[5], nl[6], nl[7]);
    const __m256 t1 = _mm256_setr_ps(nl[8], nl[9], nl[10], nl[11], nl[12], nl[13], nl[14], nl[15]);
    // A block whose scales are NaN or Inf goes through the reference, which sorts out what
    // is binned and summed.
    const auto reference = [&](const uint8_t* block) {
        k.flush();
        store();
        qs::tallyGgmlBlocks(type, block, 1, t, split, nullptr, nullptr);
        load();
        k.lo = _mm256_min_epu32(k.lo, _mm256_set1_epi32(int32_t(t.lo)));
        k.hi = _mm256_max_epu32(k.hi, _mm256_set1_epi32(int32_t(t.hi)));
    };
    if (type != GgmlQ4_K && type != GgmlIQ4_XS) {
        // Legacy 32-weight blocks, two at a time: d (and Q4_1's m) first, then 16 code bytes.
        const uint64_t bytes = type == GgmlQ4_1 ? 20 : 18, qs = type == GgmlQ4_1 ? 4 : 2;
        const auto values = [&](const uint8_t* b, __m256& vLo, __m256& vHi) {
            const __m256 d = _mm256_set1_ps(halfAt(b));
            if (type == GgmlQ4_0) { // float(q - 8) * d
                vLo = _mm256_mul_ps(_mm256_sub_ps(q0, _mm256_set1_ps(8)), d);
                vHi = _mm256_mul_ps(_mm256_sub_ps(q1, _mm256_set1_ps(8)), d);
            } else if (type == GgmlQ4_1) { // float(q) * d + m
                const __m256 m = _mm256_set1_ps(halfAt(b + 2));
                vLo = _mm256_add_ps(_mm256_mul_ps(q0, d), m);
                vHi = _mm256_add_ps(_mm256_mul_ps(q1, d), m);
            } else { // d * float(kvalues_iq4nl[q])
                vLo = _mm256_mul_ps(d, t0);
                vHi = _mm256_mul_ps(d, t1);
            }
        };
        const auto finite = [&](const uint8_t* b) {
            return std::isfinite(halfAt(b)) && (type != GgmlQ4_1 || std::isfinite(halfAt(b + 2)));
        };
        for (uint64_t i = 0; i < nblocks; i += 2) {
            const uint8_t* b0 = src + i * bytes;
            const uint8_t* b1 = i + 1 < nblocks ? b0 + bytes : nullptr;
            const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b0 + qs));
            const __m128i x1 = b1 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(b1 + qs)) : _mm_setzero_si128();
            alignas(32) uint32_t p[8];
            codestatsPlanes(_mm256_set_m128i(x1, x0), p);
            for (int h = 0; h < 2; ++h) {
                const uint8_t* b = h ? b1 : b0;
                if (!b)
                    break;
                if (!finite(b)) {
                    reference(b);
                    continue;
                }
                __m256 vLo, vHi;
                values(b, vLo, vHi);
                k.group(codestatsHalfPlane(p, 0, h), codestatsHalfPlane(p, 1, h), codestatsHalfPlane(p, 2, h),
                        codestatsHalfPlane(p, 3, h), vLo, vHi);
            }
        }
        nblocks = 0;
    }
    if (type == GgmlIQ4_XS) {
        for (uint64_t i = 0; i < nblocks; ++i, src += 136) {
            const float d = halfAt(src);
            if (!std::isfinite(d)) {
                reference(src);
                continue;
            }
            for (int j = 0; j < 4; ++j) {
                alignas(32) uint32_t p[8];
                codestatsPlanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 8 + 32 * j)), p);
                for (int h = 0; h < 2; ++h) {
                    const int ib = 2 * j + h;
                    const __m256 dl = _mm256_set1_ps(d * float(ggml::iq4xsScale(src, ib) - 32));
                    k.group(codestatsHalfPlane(p, 0, h), codestatsHalfPlane(p, 1, h), codestatsHalfPlane(p, 2, h),
                            codestatsHalfPlane(p, 3, h), _mm256_mul_ps(dl, t0), _mm256_mul_ps(dl, t1));
                }
            }
        }
        nblocks = 0;
    }
    for (uint64_t i = 0; i < nblocks; ++i, src += 144) {
        float d1s[8], m1s[8];
        if (!ggml::subScalesK4(src, d1s, m1s)) {
            reference(src);
            continue;
        }
        for (int j = 0; j < 4; ++j) {
            // Low nibbles: sub-block 2j, high nibbles: 2j + 1. (d * float(sc)) * float(q) - dmin * float(m)
            alignas(32) uint32_t p[8];
            codestatsPlanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 16 + 32 * j)), p);
            for (int h = 0; h < 2; ++h) {
                const __m256 d1 = _mm256_broadcast_ss(d1s + 2 * j + h), m1 = _mm256_broadcast_ss(m1s + 2 * j + h);
                k.group(p[4 * h], p[4 * h + 1], p[4 * h + 2], p[4 * h + 3], _mm256_sub_ps(_mm256_mul_ps(d1, q0), m1),
                        _mm256_sub_ps(_mm256_mul_ps(d1, q1), m1));
            }
        }
    }
    k.flush();
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

QS_TIER_END
