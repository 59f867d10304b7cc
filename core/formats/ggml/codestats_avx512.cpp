// AVX-512 path of tallyGgmlBlocks (codestats.h): the AVX2 path's bit-plane scheme with the 16
// codes of a group in one vector (lane c: code c), the planes taken with byte tests and read
// back as broadcast operands, and the double sums in one vector of the 8 lanes (codes 0-7,
// then 8-15: the reference's order).
// Measured without gain (Q4_K, in cache): adding only the codes present (packed with a
// compress and added 16 at a time: the branch on the queue's length cost more than the
// increments saved), a permute-based popcount, a counter copy rotating per group.
#include "formats/ggml/codestats.h"

#include "base/half.h"
#include "base/simd_tier.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_tables.h"

#include <algorithm>
#include <cmath>

QS_TIER_BEGIN_AVX512

namespace qs::avx512 {

namespace {

// The number of set bits of each 32-bit lane (VPOPCNTDQ is not part of the AVX-512 path).
inline __m512i codestatsPopcount32(__m512i v)
{
    const __m512i lut = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i nib = _mm512_set1_epi8(0x0F);
    const __m512i bytes = _mm512_add_epi8(_mm512_shuffle_epi8(lut, _mm512_and_si512(v, nib)),
                                          _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(v, 4), nib)));
    return _mm512_dpbusd_epi32(_mm512_setzero_si512(), bytes, _mm512_set1_epi8(1));
}

// ternarylogic immediates over (a, b, c) = (0xF0, 0xCC, 0xAA).
constexpr int kAndXor = 0x60; // a & (b ^ c)
constexpr int kXorOr = 0x1E; // a ^ (b | c)
constexpr int kAndOr = 0xEA; // (a & b) | c

// The object holds no array indexed at run time (the pending entries live outside it), so its
// members stay in registers; in memory each would be stored and reloaded around the counter
// stores, which may alias it, and the reloads would wait on those stores.
struct CodestatsGroups {
    __m512d s, q; // CodeTally::sum / sumSq, lane l
    __m512i lo, hi; // orderedBits extremes per code
    uint32_t* split;
    // A ring of four groups: each the split indices of its 16 codes and their counts (16
    // entries further). A group is added to the counters three groups after it was formed:
    // its vector stores have then left the store buffer, so the scalar loads do not wait on
    // forwarding from them (a one-group delay, as on the AVX2 path, measured 10% slower).
    // Indices and counts apart: two loads and an add to memory per code, no unpacking.
    uint32_t* pending; // 128
    uint32_t slot = 0; // the group formed last
    __m512i comp[4]; // lane c: all ones where bit k of c is clear
    __m512i sign, keyMask;

    [[gnu::always_inline]] inline void drain(const uint32_t* g)
    {
#pragma GCC unroll 16
        for (int c = 0; c < 16; ++c)
            split[g[c]] += g[c + 16];
    }

    // Adds the three groups still pending (before the reference takes a block, and at the end).
    void flush()
    {
        for (int d = 0; d < 3; ++d) {
            uint32_t* g = pending + 32 * ((slot + 2 + d) & 3);
            drain(g);
            std::fill(g + 16, g + 32, 0u);
        }
    }

    // One group: bit planes p[0], p[stride], p[2 * stride], p[3 * stride] of its 32 codes, the
    // values of codes 0-15.
    [[gnu::always_inline]] inline void group(const uint32_t* p, int stride, __m512 v)
    {
        __m512i m = _mm512_xor_si512(_mm512_set1_epi32(int32_t(p[0])), comp[0]);
        m = _mm512_ternarylogic_epi32(m, _mm512_set1_epi32(int32_t(p[stride])), comp[1], kAndXor);
        m = _mm512_ternarylogic_epi32(m, _mm512_set1_epi32(int32_t(p[2 * stride])), comp[2], kAndXor);
        m = _mm512_ternarylogic_epi32(m, _mm512_set1_epi32(int32_t(p[3 * stride])), comp[3], kAndXor);
        const __m512i n = codestatsPopcount32(m);
        const __mmask16 present = _mm512_test_epi32_mask(n, n);
        const __m512i u = _mm512_castps_si512(v);
        const __m512i o = _mm512_ternarylogic_epi32(u, _mm512_srai_epi32(u, 31), sign, kXorOr);
        // valueKey * kKeySplit (copy 0, as on the AVX2 path).
        uint32_t* out = pending + 32 * (slot = (slot + 1) & 3);
        _mm512_store_si512(out, _mm512_and_si512(_mm512_srli_epi32(o, 14), keyMask));
        _mm512_store_si512(out + 16, n);
        drain(pending + 32 * ((slot + 1) & 3));
        lo = _mm512_mask_min_epu32(lo, present, lo, o);
        hi = _mm512_mask_max_epu32(hi, present, hi, o);
        // A code that is absent adds 0 * value = +-0, which leaves a lane as it is.
        const __m512d v0 = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
        const __m512d v1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        const __m512d p0d = _mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(n)), v0);
        const __m512d p1d = _mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(n, 1)), v1);
        s = _mm512_add_pd(_mm512_add_pd(s, p0d), p1d);
        q = _mm512_add_pd(_mm512_add_pd(q, _mm512_mul_pd(p0d, v0)), _mm512_mul_pd(p1d, v1));
    }

    // A group stored as 16 bytes, element e in the low nibble of byte e (e < 16) or the high
    // nibble of byte e - 16.
    [[gnu::always_inline]] inline void nibbleGroup(const uint8_t* b, __m512 v)
    {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
        const __m256i y = _mm256_set_m128i(_mm_srli_epi16(x, 4), x);
        alignas(16) uint32_t p[4];
        for (int b = 0; b < 4; ++b)
            _store_mask32(reinterpret_cast<__mmask32*>(p + b),
                          _mm256_test_epi8_mask(y, _mm256_set1_epi8(char(1 << b))));
        group(p, 1, v);
    }
};

} // namespace

void tallyGgmlBlocks(int type, const uint8_t* src, uint64_t nblocks, CodeTally& t, uint32_t* split)
{
    static_assert(kKeySplit == 4);
    CodestatsGroups k;
    alignas(64) uint32_t pending[128] = {};
    k.pending = pending;
    k.s = _mm512_loadu_pd(t.sum);
    k.q = _mm512_loadu_pd(t.sumSq);
    k.lo = _mm512_set1_epi32(int32_t(t.lo));
    k.hi = _mm512_set1_epi32(int32_t(t.hi));
    k.split = split;
    k.sign = _mm512_set1_epi32(int32_t(0x80000000u));
    k.keyMask = _mm512_set1_epi32(~3);
    for (int b = 0; b < 4; ++b) {
        alignas(64) int32_t c[16];
        for (int l = 0; l < 16; ++l)
            c[l] = (l >> b) & 1 ? 0 : -1;
        k.comp[b] = _mm512_load_si512(c);
    }
    const __m512 q16 = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int8_t* nl = ggml::kValuesIq4nl;
    const __m512 nl16 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(nl))));
    // A block whose scales are NaN or Inf goes through the reference, which sorts out what
    // is binned and summed.
    const auto reference = [&](const uint8_t* block) {
        k.flush();
        _mm512_storeu_pd(t.sum, k.s);
        _mm512_storeu_pd(t.sumSq, k.q);
        qs::tallyGgmlBlocks(type, block, 1, t, split, nullptr, nullptr);
        k.s = _mm512_loadu_pd(t.sum);
        k.q = _mm512_loadu_pd(t.sumSq);
        k.lo = _mm512_min_epu32(k.lo, _mm512_set1_epi32(int32_t(t.lo)));
        k.hi = _mm512_max_epu32(k.hi, _mm512_set1_epi32(int32_t(t.hi)));
    };
    if (type == GgmlQ4_0 || type == GgmlQ4_1 || type == GgmlIQ4_NL) {
        // Legacy 32-weight blocks: d (and Q4_1's m) first, then 16 code bytes.
        const uint64_t bytes = type == GgmlQ4_1 ? 20 : 18, qs = type == GgmlQ4_1 ? 4 : 2;
        for (uint64_t i = 0; i < nblocks; ++i, src += bytes) {
            const float d = halfAt(src), m = type == GgmlQ4_1 ? halfAt(src + 2) : 0.0f;
            if (!std::isfinite(d) || !std::isfinite(m)) {
                reference(src);
                continue;
            }
            const __m512 dv = _mm512_set1_ps(d);
            __m512 v;
            if (type == GgmlQ4_0) // float(q - 8) * d
                v = _mm512_mul_ps(_mm512_sub_ps(q16, _mm512_set1_ps(8)), dv);
            else if (type == GgmlQ4_1) // float(q) * d + m
                v = _mm512_add_ps(_mm512_mul_ps(q16, dv), _mm512_set1_ps(m));
            else // d * float(kvalues_iq4nl[q])
                v = _mm512_mul_ps(dv, nl16);
            k.nibbleGroup(src + qs, v);
        }
    } else if (type == GgmlIQ4_XS) {
        for (uint64_t i = 0; i < nblocks; ++i, src += 136) {
            const float d = halfAt(src);
            if (!std::isfinite(d)) {
                reference(src);
                continue;
            }
            for (int ib = 0; ib < 8; ++ib)
                k.nibbleGroup(src + 8 + 16 * ib,
                              _mm512_mul_ps(_mm512_set1_ps(d * float(ggml::iq4xsScale(src, ib) - 32)), nl16));
        }
    } else {
        for (uint64_t i = 0; i < nblocks; ++i, src += 144) {
            float d1s[8], m1s[8];
            if (!ggml::subScalesK4(src, d1s, m1s)) {
                reference(src);
                continue;
            }
            for (int j = 0; j < 4; j += 2) {
                // 64 code bytes: sub-blocks 2j (low nibbles of bytes 0-31), 2j + 1 (high),
                // 2j + 2 (low of bytes 32-63), 2j + 3. Plane b of the low nibbles is bit b.
                const __m512i x = _mm512_loadu_si512(src + 16 + 32 * j);
                alignas(64) uint32_t p[16]; // plane b of bytes 0-31 at 2b, of bytes 32-63 at 2b + 1
                for (int b = 0; b < 8; ++b)
                    _store_mask64(reinterpret_cast<__mmask64*>(p + 2 * b),
                                  _mm512_test_epi8_mask(x, _mm512_set1_epi8(char(1 << b))));
                for (int g = 0; g < 4; ++g) {
                    // (d * float(sc)) * float(q) - dmin * float(m)
                    const int sub = 2 * j + g, hiNib = 4 * (g & 1);
                    const __m512 v =
                        _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(d1s[sub]), q16), _mm512_set1_ps(m1s[sub]));
                    k.group(p + 2 * hiNib + (g >> 1), 2, v);
                }
            }
        }
    }
    k.flush();
    _mm512_storeu_pd(t.sum, k.s);
    _mm512_storeu_pd(t.sumSq, k.q);
    t.lo = std::min(t.lo, _mm512_reduce_min_epu32(k.lo));
    t.hi = std::max(t.hi, _mm512_reduce_max_epu32(k.hi));
}

} // namespace qs::avx512

QS_TIER_END
