// AVX2 fast paths for the ggml types, bit-identical to ggml_ref.cpp: codes are unpacked with
// integer SIMD, converted exactly to float, then the same float operations run in the same
// order (separate mul and add, never fused; IQ signs as a negation, like the reference).
// Compiled with -mavx2 -mfma -mf16c -mbmi2; only called when bestSimdPath() is Avx2.
#include "formats/ggml/ggml.h"

#include "base/simd_tier.h"
#include "formats/ggml/ggml_tables.h"

#include <array>
#include <cstring>

QS_TIER_BEGIN_AVX2

namespace qs::ggml {

namespace {

inline uint16_t ld16(const uint8_t* p)
{
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
inline uint32_t ld32(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
inline float h2f(const uint8_t* p)
{
    return _cvtsh_ss(ld16(p));
}

inline __m128i lo64(__m128i v)
{
    return v;
}
inline __m128i hi64(__m128i v)
{
    return _mm_unpackhi_epi64(v, v);
}

// 8 signed / unsigned bytes (low half of v) -> 8 exact floats.
inline __m256 i8x8(__m128i v)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
}
inline __m256 u8x8(__m128i v)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v));
}

// y[0..15] = float(codes[k]) * d for 16 signed bytes.
inline void mul16(float* y, __m128i codes, __m256 d)
{
    _mm256_storeu_ps(y, _mm256_mul_ps(i8x8(lo64(codes)), d));
    _mm256_storeu_ps(y + 8, _mm256_mul_ps(i8x8(hi64(codes)), d));
}
// y[0..15] = float(codes[k]) * d + m.
inline void mulAdd16(float* y, __m128i codes, __m256 d, __m256 m)
{
    _mm256_storeu_ps(y, _mm256_add_ps(_mm256_mul_ps(i8x8(lo64(codes)), d), m));
    _mm256_storeu_ps(y + 8, _mm256_add_ps(_mm256_mul_ps(i8x8(hi64(codes)), d), m));
}
// y[0..15] = dl * float(codes[k]) - ml.
inline void mulSub16(float* y, __m128i codes, __m256 dl, __m256 ml)
{
    _mm256_storeu_ps(y, _mm256_sub_ps(_mm256_mul_ps(dl, i8x8(lo64(codes))), ml));
    _mm256_storeu_ps(y + 8, _mm256_sub_ps(_mm256_mul_ps(dl, i8x8(hi64(codes))), ml));
}

inline __m128i nibbleLo(__m128i q)
{
    return _mm_and_si128(q, _mm_set1_epi8(0x0F));
}
inline __m128i nibbleHi(__m128i q)
{
    return _mm_and_si128(_mm_srli_epi16(q, 4), _mm_set1_epi8(0x0F));
}

// 32 bits -> 32 bytes, 0xFF where the bit is set (byte k <- bit k).
inline __m256i bitsToBytes(uint32_t bits)
{
    const __m256i v = _mm256_set1_epi32(int(bits));
    const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3,
                                          3, 3, 3, 3, 3, 3);
    const __m256i sel = _mm256_set1_epi64x(0x8040201008040201LL);
    const __m256i b = _mm256_and_si256(_mm256_shuffle_epi8(v, shuf), sel);
    return _mm256_cmpeq_epi8(b, sel);
}

// 8 bits -> 8 float sign masks (bit set = 0x80000000: negate by xor, as the reference negates).
inline __m256 signs8(uint8_t s)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i set = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(s), bit), bit);
    return _mm256_castsi256_ps(_mm256_slli_epi32(set, 31));
}

// ---- plain types ----

void avxF16(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 2 * i))));
    for (; i < n; ++i)
        y[i] = h2f(s + 2 * i);
}

void avxBF16(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 2 * i)));
        _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
    }
    for (; i < n; ++i) {
        const uint32_t b = uint32_t(ld16(s + 2 * i)) << 16;
        std::memcpy(y + i, &b, 4);
    }
}

void avxF32(const uint8_t* s, uint64_t n, float* y)
{
    std::memcpy(y, s, n * 4);
}

void avxF64(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4)
        _mm_storeu_ps(y + i, _mm256_cvtpd_ps(_mm256_loadu_pd(reinterpret_cast<const double*>(s + 8 * i))));
    for (; i < n; ++i) {
        double v;
        std::memcpy(&v, s + 8 * i, 8);
        y[i] = float(v);
    }
}

void avxI8(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, i8x8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + i))));
    for (; i < n; ++i)
        y[i] = float(int8_t(s[i]));
}

void avxI16(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(
            y + i,
            _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 2 * i)))));
    for (; i < n; ++i)
        y[i] = float(int16_t(ld16(s + 2 * i)));
}

void avxI32(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 4 * i))));
    for (; i < n; ++i)
        y[i] = float(int32_t(ld32(s + 4 * i)));
}

// ---- 32-weight blocks ----

void avxQ4_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m128i eight = _mm_set1_epi8(8);
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(b));
        const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2));
        mul16(y, _mm_sub_epi8(nibbleLo(q), eight), d);
        mul16(y + 16, _mm_sub_epi8(nibbleHi(q), eight), d);
    }
}

// d and m, the block's first two halves, broadcast: one F16C conversion for both.
inline void halfPair(const uint8_t* b, __m256& d, __m256& m)
{
    const __m256 dm = _mm256_castps128_ps256(_mm_cvtph_ps(_mm_cvtsi32_si128(int(ld32(b)))));
    d = _mm256_permutevar8x32_ps(dm, _mm256_setzero_si256());
    m = _mm256_permutevar8x32_ps(dm, _mm256_set1_epi32(1));
}

void avxQ4_1(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 20, y += 32) {
        __m256 d, m;
        halfPair(b, d, m);
        const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 4));
        mulAdd16(y, nibbleLo(q), d, m);
        mulAdd16(y + 16, nibbleHi(q), d, m);
    }
}

// 32 five-bit codes of Q5_0/Q5_1 in element order (0..31).
inline __m256i q5Codes(const uint8_t* qs, uint32_t qh)
{
    const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m256i low = _mm256_set_m128i(nibbleHi(q), nibbleLo(q));
    return _mm256_or_si256(low, _mm256_and_si256(bitsToBytes(qh), _mm256_set1_epi8(0x10)));
}

void avxQ5_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 22, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(b));
        const __m256i c = _mm256_sub_epi8(q5Codes(b + 6, ld32(b + 2)), _mm256_set1_epi8(16));
        mul16(y, _mm256_castsi256_si128(c), d);
        mul16(y + 16, _mm256_extracti128_si256(c, 1), d);
    }
}

void avxQ5_1(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 24, y += 32) {
        __m256 d, m;
        halfPair(b, d, m);
        const __m256i c = q5Codes(b + 8, ld32(b + 4));
        mulAdd16(y, _mm256_castsi256_si128(c), d, m);
        mulAdd16(y + 16, _mm256_extracti128_si256(c, 1), d, m);
    }
}

// 8 signed bytes at p -> 8 floats times d (the extension reads memory directly).
inline void mul8mem(float* y, const uint8_t* p, __m256 d)
{
    _mm256_storeu_ps(y, _mm256_mul_ps(i8x8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))), d));
}

template <int kQsOffset, int kBlockBytes>
void avxQ8(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += kBlockBytes, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(b));
        for (int k = 0; k < 4; ++k)
            mul8mem(y + 8 * k, b + kQsOffset + 8 * k, d);
    }
}

inline __m128i table16(const int8_t* t)
{
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(t));
}

void avxIQ4_NL(const uint8_t* b, uint64_t nb, float* y)
{
    const __m128i lut = table16(kValuesIq4nl);
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32) {
        const __m256 d = _mm256_set1_ps(h2f(b));
        const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2));
        mul16(y, _mm_shuffle_epi8(lut, nibbleLo(q)), d);
        mul16(y + 16, _mm_shuffle_epi8(lut, nibbleHi(q)), d);
    }
}

void avxMXFP4(const uint8_t* b, uint64_t nb, float* y)
{
    const __m128i lut = table16(kValuesFp4);
    for (uint64_t i = 0; i < nb; ++i, b += 17, y += 32) {
        const uint32_t bits = b[0] < 2 ? 0x00200000u << b[0] : uint32_t(b[0] - 1) << 23;
        float df;
        std::memcpy(&df, &bits, 4);
        const __m256 d = _mm256_set1_ps(df);
        const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 1));
        mul16(y, _mm_shuffle_epi8(lut, nibbleLo(q)), d);
        mul16(y + 16, _mm_shuffle_epi8(lut, nibbleHi(q)), d);
    }
}

void avxNVFP4(const uint8_t* b, uint64_t nb, float* y)
{
    const __m128i lut = table16(kValuesFp4);
    const std::array<float, 256>& ue = ue4m3HalfTable();
    for (uint64_t i = 0; i < nb; ++i, b += 36) {
        const __m128i q0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 4));
        const __m128i q1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 20));
        // Sub-block s: bytes 8s..8s+7, low nibbles -> elements 0..7, high -> 8..15.
        const __m128i c0 = _mm_shuffle_epi8(lut, _mm_unpacklo_epi64(nibbleLo(q0), nibbleHi(q0)));
        const __m128i c1 = _mm_shuffle_epi8(lut, _mm_unpackhi_epi64(nibbleLo(q0), nibbleHi(q0)));
        const __m128i c2 = _mm_shuffle_epi8(lut, _mm_unpacklo_epi64(nibbleLo(q1), nibbleHi(q1)));
        const __m128i c3 = _mm_shuffle_epi8(lut, _mm_unpackhi_epi64(nibbleLo(q1), nibbleHi(q1)));
        mul16(y, c0, _mm256_set1_ps(ue[b[0]]));
        mul16(y + 16, c1, _mm256_set1_ps(ue[b[1]]));
        mul16(y + 32, c2, _mm256_set1_ps(ue[b[2]]));
        mul16(y + 48, c3, _mm256_set1_ps(ue[b[3]]));
        y += 64;
    }
}

void avxQ1_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 128) {
        const float df = h2f(b);
        const __m256 d = _mm256_set1_ps(df), nd = _mm256_set1_ps(-df);
        for (int k = 0; k < 16; ++k) {
            const __m256i set = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(b[2 + k]), bit), bit);
            _mm256_storeu_ps(y + 8 * k, _mm256_blendv_ps(nd, d, _mm256_castsi256_ps(set)));
        }
    }
}

void avxQ2_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i three = _mm256_set1_epi32(3), one = _mm256_set1_epi32(1);
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 64) {
        const __m256 d = _mm256_set1_ps(h2f(b));
        for (int k = 0; k < 8; ++k) {
            const __m256i v = _mm256_set1_epi32(ld16(b + 2 + 2 * k));
            const __m256i q = _mm256_sub_epi32(_mm256_and_si256(_mm256_srlv_epi32(v, shifts), three), one);
            _mm256_storeu_ps(y + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(q), d));
        }
    }
}

// ---- k-quants ----

inline __m256i load256(const uint8_t* p)
{
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline __m256i crumbs(__m256i q, int shift) // (q >> shift) & 3 per byte
{
    return _mm256_and_si256(_mm256_srl_epi16(q, _mm_cvtsi32_si128(shift)), _mm256_set1_epi8(3));
}

void avxQ2_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 84) {
        const float d = h2f(b + 80), dmin = h2f(b + 82);
        for (int h = 0; h < 2; ++h) {
            const __m256i qs = load256(b + 16 + 32 * h);
            for (int j = 0; j < 4; ++j, y += 32) {
                const __m256i q = crumbs(qs, 2 * j);
                const uint8_t s0 = b[8 * h + 2 * j], s1 = b[8 * h + 2 * j + 1];
                mulSub16(y, _mm256_castsi256_si128(q), _mm256_set1_ps(d * float(s0 & 0xF)),
                         _mm256_set1_ps(dmin * float(s0 >> 4)));
                mulSub16(y + 16, _mm256_extracti128_si256(q, 1), _mm256_set1_ps(d * float(s1 & 0xF)),
                         _mm256_set1_ps(dmin * float(s1 >> 4)));
            }
        }
    }
}

void avxQ3_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 110) {
        const __m256 d = _mm256_set1_ps(h2f(b + 108));
        const uint8_t* S = b + 96;
        // The 16 six-bit scales, eight lanes at a time: low nibbles of S[0..7] then their high
        // nibbles; two high bits from S[8 + s%4] at bit 2*(s/4).
        const __m256i low = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(S)));
        const __m256i high = _mm256_cvtepu8_epi32(_mm_set1_epi32(int(ld32(S + 8))));
        const __m256i three = _mm256_set1_epi32(3), bias = _mm256_set1_epi32(32);
        const __m256i h0 = _mm256_and_si256(_mm256_srlv_epi32(high, _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2)), three);
        const __m256i h1 = _mm256_and_si256(_mm256_srlv_epi32(high, _mm256_setr_epi32(4, 4, 4, 4, 6, 6, 6, 6)), three);
        const __m256i s0 = _mm256_or_si256(_mm256_and_si256(low, _mm256_set1_epi32(0xF)), _mm256_slli_epi32(h0, 4));
        const __m256i s1 = _mm256_or_si256(_mm256_srli_epi32(low, 4), _mm256_slli_epi32(h1, 4));
        alignas(32) float dl[16];
        _mm256_store_ps(dl, _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_sub_epi32(s0, bias))));
        _mm256_store_ps(dl + 8, _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_sub_epi32(s1, bias))));
        const __m256i hm = load256(b);
        for (int h = 0; h < 2; ++h) {
            const __m256i qs = load256(b + 32 + 32 * h);
            for (int j = 0; j < 4; ++j, y += 32) {
                // q2 - 4 + 4 * highbit: a clear high bit subtracts 4.
                const __m256i hb = _mm256_slli_epi16(crumbs(hm, 4 * h + j), 2);
                const __m256i q = _mm256_sub_epi8(
                    _mm256_or_si256(crumbs(qs, 2 * j), _mm256_and_si256(hb, _mm256_set1_epi8(4))), _mm256_set1_epi8(4));
                mul16(y, _mm256_castsi256_si128(q), _mm256_set1_ps(dl[8 * h + 2 * j]));
                mul16(y + 16, _mm256_extracti128_si256(q, 1), _mm256_set1_ps(dl[8 * h + 2 * j + 1]));
            }
        }
    }
}

// 32 codes (bytes, element order) of one 32-weight sub-block: y = (d*sc) * q - dmin*m.
inline void kSub32(float* y, __m256i q, float d, float dmin, const uint8_t* S, int s)
{
    int sc, m;
    scaleMinK4(S, s, sc, m);
    const __m256 dl = _mm256_set1_ps(d * float(sc)), ml = _mm256_set1_ps(dmin * float(m));
    mulSub16(y, _mm256_castsi256_si128(q), dl, ml);
    mulSub16(y + 16, _mm256_extracti128_si256(q, 1), dl, ml);
}

void avxQ4_K(const uint8_t* b, uint64_t nb, float* y)
{
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    for (uint64_t i = 0; i < nb; ++i, b += 144) {
        const float d = h2f(b), dmin = h2f(b + 2);
        for (int p = 0; p < 4; ++p, y += 64) {
            const __m256i q = load256(b + 16 + 32 * p);
            kSub32(y, _mm256_and_si256(q, m4), d, dmin, b + 4, 2 * p);
            kSub32(y + 32, _mm256_and_si256(_mm256_srli_epi16(q, 4), m4), d, dmin, b + 4, 2 * p + 1);
        }
    }
}

void avxQ5_K(const uint8_t* b, uint64_t nb, float* y)
{
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    for (uint64_t i = 0; i < nb; ++i, b += 176) {
        const float d = h2f(b), dmin = h2f(b + 2);
        const __m256i qh = load256(b + 16);
        for (int p = 0; p < 4; ++p, y += 64) {
            const __m256i q = load256(b + 48 + 32 * p);
            const __m256i h0 = _mm256_slli_epi16(
                _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * p)), _mm256_set1_epi8(1)), 4);
            const __m256i h1 = _mm256_slli_epi16(
                _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * p + 1)), _mm256_set1_epi8(1)), 4);
            kSub32(y, _mm256_or_si256(_mm256_and_si256(q, m4), h0), d, dmin, b + 4, 2 * p);
            kSub32(y + 32, _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), h1), d, dmin, b + 4,
                   2 * p + 1);
        }
    }
}

void avxQ6_K(const uint8_t* b, uint64_t nb, float* y)
{
    const __m256i m4 = _mm256_set1_epi8(0x0F), m32 = _mm256_set1_epi8(32);
    for (uint64_t i = 0; i < nb; ++i, b += 210) {
        const float d = h2f(b + 208);
        const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
        for (int h = 0; h < 2; ++h) {
            const __m256i l0 = load256(b + 64 * h), l1 = load256(b + 64 * h + 32);
            const __m256i qh = load256(b + 128 + 32 * h);
            const __m256i lows[4] = {_mm256_and_si256(l0, m4), _mm256_and_si256(l1, m4),
                                     _mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                                     _mm256_and_si256(_mm256_srli_epi16(l1, 4), m4)};
            for (int k = 0; k < 4; ++k, y += 32) {
                const __m256i hi = _mm256_and_si256(_mm256_slli_epi16(crumbs(qh, 2 * k), 4), _mm256_set1_epi8(0x30));
                const __m256i q = _mm256_sub_epi8(_mm256_or_si256(lows[k], hi), m32);
                mul16(y, _mm256_castsi256_si128(q), _mm256_set1_ps(d * float(sc[8 * h + 2 * k])));
                mul16(y + 16, _mm256_extracti128_si256(q, 1), _mm256_set1_ps(d * float(sc[8 * h + 2 * k + 1])));
            }
        }
    }
}

void avxQ8_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 292) {
        float df;
        std::memcpy(&df, b, 4);
        const __m256 d = _mm256_set1_ps(df);
        for (int k = 0; k < 32; ++k, y += 8)
            mul8mem(y, b + 4 + 8 * k, d);
    }
}

void avxIQ4_XS(const uint8_t* b, uint64_t nb, float* y)
{
    const __m128i lut = table16(kValuesIq4nl);
    const __m256i lowShift = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const __m256i highShift = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    for (uint64_t i = 0; i < nb; ++i, b += 136) {
        // The eight 6-bit scales at once: dl[ib] = d * float(ls(ib) - 32).
        const __m256i low =
            _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(int(ld32(b + 4))), lowShift), _mm256_set1_epi32(0xF));
        const __m256i high =
            _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(ld16(b + 2)), highShift), _mm256_set1_epi32(3));
        const __m256i ls = _mm256_sub_epi32(_mm256_or_si256(low, _mm256_slli_epi32(high, 4)), _mm256_set1_epi32(32));
        const __m256 dl8 = _mm256_mul_ps(_mm256_set1_ps(h2f(b)), _mm256_cvtepi32_ps(ls));
        for (int ib = 0; ib < 8; ++ib, y += 32) {
            const __m256 dl = _mm256_permutevar8x32_ps(dl8, _mm256_set1_epi32(ib));
            const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 8 + 16 * ib));
            mul16(y, _mm_shuffle_epi8(lut, nibbleLo(q)), dl);
            mul16(y + 16, _mm_shuffle_epi8(lut, nibbleHi(q)), dl);
        }
    }
}

// ---- ternary ----

// Trit n of 16 bytes: ((B * 3^n) mod 256) * 3 >> 8, minus 1, as 16 signed bytes. With B in
// the high byte of a u16 lane, mullo wraps mod 256 by itself and mulhi by 3 is the "* 3 >> 8".
inline __m128i trits16(__m128i bytes, int pow3)
{
    const __m256i w = _mm256_slli_epi16(_mm256_cvtepu8_epi16(bytes), 8);
    const __m256i q = _mm256_mullo_epi16(w, _mm256_set1_epi16(int16_t(pow3)));
    const __m256i t = _mm256_sub_epi16(_mm256_mulhi_epu16(q, _mm256_set1_epi16(3)), _mm256_set1_epi16(1));
    return _mm_packs_epi16(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

void avxTQ1_0(const uint8_t* b, uint64_t nb, float* y)
{
    static constexpr int pow3[5] = {1, 3, 9, 27, 81};
    for (uint64_t i = 0; i < nb; ++i, b += 54, y += 256) {
        const __m256 d = _mm256_set1_ps(h2f(b + 52));
        const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
        const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16));
        const __m128i a2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 32));
        for (int n = 0; n < 5; ++n) {
            mul16(y + 32 * n, trits16(a0, pow3[n]), d);
            mul16(y + 32 * n + 16, trits16(a1, pow3[n]), d);
            mul16(y + 160 + 16 * n, trits16(a2, pow3[n]), d);
        }
        // qh: 4 bytes x 4 trits; element 240 + 4n + m.
        const __m128i qh = _mm_set1_epi32(int(ld32(b + 48)));
        const __m128i t01 = _mm_unpacklo_epi32(trits16(qh, pow3[0]), trits16(qh, pow3[1]));
        const __m128i t23 = _mm_unpacklo_epi32(trits16(qh, pow3[2]), trits16(qh, pow3[3]));
        mul16(y + 240, _mm_unpacklo_epi64(t01, t23), d);
    }
}

void avxTQ2_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m256i one = _mm256_set1_epi8(1);
    for (uint64_t i = 0; i < nb; ++i, b += 66) {
        const __m256 d = _mm256_set1_ps(h2f(b + 64));
        for (int c = 0; c < 2; ++c) {
            const __m256i qs = load256(b + 32 * c);
            for (int n = 0; n < 4; ++n, y += 32) {
                const __m256i q = _mm256_sub_epi8(crumbs(qs, 2 * n), one);
                mul16(y, _mm256_castsi256_si128(q), d);
                mul16(y + 16, _mm256_extracti128_si256(q, 1), d);
            }
        }
    }
}

// ---- IQ grids: one 8-weight group = +-(db * grid byte) ----

inline void gridGroup(float* y, uint64_t grid, __m256 db, uint8_t signs)
{
    const __m256 g = u8x8(_mm_cvtsi64_si128(int64_t(grid)));
    _mm256_storeu_ps(y, _mm256_xor_ps(_mm256_mul_ps(db, g), signs8(signs)));
}

void avxIQ2_XXS(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 66) {
        const float d = h2f(b);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t* w0 = b + 2 + 8 * ib;
            const uint32_t w1 = ld32(w0 + 4);
            const __m256 db = _mm256_set1_ps(d * (0.5f + float(w1 >> 28)) * 0.25f);
            for (int l = 0; l < 4; ++l, y += 8)
                gridGroup(y, kIq2xxsGrid[w0[l]], db, kKsignsIq2xs[(w1 >> (7 * l)) & 127]);
        }
    }
}

void avxIQ2_XS(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 74) {
        const float d = h2f(b);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t sc = b[66 + ib];
            const __m256 db[2] = {_mm256_set1_ps(d * (0.5f + float(sc & 0xF)) * 0.25f),
                                  _mm256_set1_ps(d * (0.5f + float(sc >> 4)) * 0.25f)};
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint16_t w = ld16(b + 2 + 2 * (4 * ib + l));
                gridGroup(y, kIq2xsGrid[w & 511], db[l / 2], kKsignsIq2xs[w >> 9]);
            }
        }
    }
}

void avxIQ2_S(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 82) {
        const float d = h2f(b);
        const uint8_t* qs = b + 2;
        const uint8_t* qh = b + 66;
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t sc = b[74 + ib];
            const __m256 db[2] = {_mm256_set1_ps(d * (0.5f + float(sc & 0xF)) * 0.25f),
                                  _mm256_set1_ps(d * (0.5f + float(sc >> 4)) * 0.25f)};
            for (int l = 0; l < 4; ++l, y += 8)
                gridGroup(y, kIq2sGrid[qs[4 * ib + l] | ((qh[ib] >> (2 * l)) & 3) << 8], db[l / 2],
                          qs[32 + 4 * ib + l]);
        }
    }
}

void avxIQ3_XXS(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 98) {
        const float d = h2f(b);
        const uint8_t* qs = b + 2;
        for (int ib = 0; ib < 8; ++ib) {
            const uint32_t a = ld32(qs + 64 + 4 * ib);
            const __m256 db = _mm256_set1_ps(d * (0.5f + float(a >> 28)) * 0.5f);
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint64_t g =
                    kIq3xxsGrid[qs[8 * ib + 2 * l]] | uint64_t(kIq3xxsGrid[qs[8 * ib + 2 * l + 1]]) << 32;
                gridGroup(y, g, db, kKsignsIq2xs[(a >> (7 * l)) & 127]);
            }
        }
    }
}

void avxIQ3_S(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 110) {
        const float d = h2f(b);
        const uint8_t* qs = b + 2;
        const uint8_t* qh = b + 66;
        for (int ib = 0; ib < 8; ++ib) {
            const int nib = (b[106 + ib / 2] >> (4 * (ib % 2))) & 0xF;
            const __m256 db = _mm256_set1_ps(d * float(1 + 2 * nib));
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint32_t g1 = kIq3sGrid[qs[8 * ib + 2 * l] | ((qh[ib] >> (2 * l)) & 1) << 8];
                const uint32_t g2 = kIq3sGrid[qs[8 * ib + 2 * l + 1] | ((qh[ib] >> (2 * l + 1)) & 1) << 8];
                gridGroup(y, g1 | uint64_t(g2) << 32, db, b[74 + 4 * ib + l]);
            }
        }
    }
}

// IQ1: dl * (float(signed grid byte) + delta).
// delta = +-1/8 with the sign taken from a stored bit without a branch: the bit is random in
// real and test data alike, and a mispredicted select every group cost over half the time.
inline __m256 iq1Delta(uint32_t signBit)
{
    return _mm256_castsi256_ps(_mm256_set1_epi32(int(0x3E000000u | signBit << 31)));
}

inline void iq1Group(float* y, uint64_t grid, __m256 dl, __m256 delta)
{
    const __m256 g = i8x8(_mm_cvtsi64_si128(int64_t(grid)));
    _mm256_storeu_ps(y, _mm256_mul_ps(dl, _mm256_add_ps(g, delta)));
}

void avxIQ1_S(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 50) {
        const float d = h2f(b);
        const uint8_t* qs = b + 2;
        for (int ib = 0; ib < 8; ++ib) {
            const uint16_t h = ld16(b + 34 + 2 * ib);
            const __m256 dl = _mm256_set1_ps(d * float(2 * ((h >> 12) & 7) + 1));
            const __m256 delta = iq1Delta(uint32_t(h) >> 15);
            for (int l = 0; l < 4; ++l, y += 8)
                iq1Group(y, kIq1sGrid[qs[4 * ib + l] | ((h >> (3 * l)) & 7) << 8], dl, delta);
        }
    }
}

void avxIQ1_M(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 56) {
        const uint8_t* qs = b;
        const uint8_t* qh = b + 32;
        const float d = _cvtsh_ss(iq1mScaleBits(b + 48));
        for (int ib = 0; ib < 8; ++ib, qs += 4, qh += 2, y += 32) {
            const unsigned sw = ld16(b + 48 + 2 * (ib / 2)) >> (6 * (ib % 2));
            const __m256 dl1 = _mm256_set1_ps(d * float(2 * (sw & 7) + 1));
            const __m256 dl2 = _mm256_set1_ps(d * float(2 * ((sw >> 3) & 7) + 1));
            const int n0 = qh[0] & 0xF, n1 = qh[0] >> 4, n2 = qh[1] & 0xF, n3 = qh[1] >> 4;
            iq1Group(y, kIq1sGrid[qs[0] | (n0 & 7) << 8], dl1, iq1Delta(uint32_t(n0) >> 3));
            iq1Group(y + 8, kIq1sGrid[qs[1] | (n1 & 7) << 8], dl1, iq1Delta(uint32_t(n1) >> 3));
            iq1Group(y + 16, kIq1sGrid[qs[2] | (n2 & 7) << 8], dl2, iq1Delta(uint32_t(n2) >> 3));
            iq1Group(y + 24, kIq1sGrid[qs[3] | (n3 & 7) << 8], dl2, iq1Delta(uint32_t(n3) >> 3));
        }
    }
}

} // namespace

BlocksFn avx2BlocksFn(int ggmlType)
{
    switch (ggmlType) {
    case GgmlF32: return avxF32;
    case GgmlF16: return avxF16;
    case GgmlBF16: return avxBF16;
    case GgmlF64: return avxF64;
    case GgmlI8: return avxI8;
    case GgmlI16: return avxI16;
    case GgmlI32: return avxI32;
    case GgmlQ4_0: return avxQ4_0;
    case GgmlQ4_1: return avxQ4_1;
    case GgmlQ5_0: return avxQ5_0;
    case GgmlQ5_1: return avxQ5_1;
    case GgmlQ8_0: return avxQ8<2, 34>;
    case GgmlQ8_1: return avxQ8<4, 36>;
    case GgmlIQ4_NL: return avxIQ4_NL;
    case GgmlMXFP4: return avxMXFP4;
    case GgmlNVFP4: return avxNVFP4;
    case GgmlQ1_0: return avxQ1_0;
    case GgmlQ2_0: return avxQ2_0;
    case GgmlQ2_K: return avxQ2_K;
    case GgmlQ3_K: return avxQ3_K;
    case GgmlQ4_K: return avxQ4_K;
    case GgmlQ5_K: return avxQ5_K;
    case GgmlQ6_K: return avxQ6_K;
    case GgmlQ8_K: return avxQ8_K;
    case GgmlIQ4_XS: return avxIQ4_XS;
    case GgmlTQ1_0: return avxTQ1_0;
    case GgmlTQ2_0: return avxTQ2_0;
    case GgmlIQ2_XXS: return avxIQ2_XXS;
    case GgmlIQ2_XS: return avxIQ2_XS;
    case GgmlIQ2_S: return avxIQ2_S;
    case GgmlIQ3_XXS: return avxIQ3_XXS;
    case GgmlIQ3_S: return avxIQ3_S;
    case GgmlIQ1_S: return avxIQ1_S;
    case GgmlIQ1_M: return avxIQ1_M;
    default: return nullptr;
    }
}

} // namespace qs::ggml

QS_TIER_END
