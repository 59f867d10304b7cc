// AVX-512 fast paths for the ggml types, bit-identical to ggml_ref.cpp. The codes of a 4- or
// 5-bit type index a table of the (at most 32) values a block or sub-block can take, and one
// permute writes 16 floats: each table entry is computed with the same float operations, in the
// same order, as the reference computes an element (separate mul and add, never fused), so the
// permuted values carry the same bits. Wider codes convert exactly to float first.
// Compiled with the AVX-512 flags of core/CMakeLists.txt; only called when bestSimdPath() is
// Avx512. Types without a kernel here take the AVX2 one.
#include "formats/ggml/ggml.h"

#include "base/simd_tier.h"
#include "formats/ggml/ggml_tables.h"

#include <array>
#include <cstring>
#include <iterator>

QS_TIER_BEGIN_AVX512

namespace qs::ggml {

namespace {

inline uint16_t ld16v(const uint8_t* p)
{
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
inline uint32_t ld32v(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
inline uint64_t ld64v(const uint8_t* p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline float half512(const uint8_t* p)
{
    return _cvtsh_ss(ld16v(p));
}

inline __m128i load128(const uint8_t* p)
{
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
// 16 bytes -> 16 dword lanes (zero-extended): a byte's low nibble indexes a 16-entry table as it
// is (vpermps reads bits 0..3 of each lane), its high nibble after a shift by 4.
inline __m512i lanes16(const uint8_t* p)
{
    return _mm512_cvtepu8_epi32(load128(p));
}

// Vector constants are constant-initialized (braces, not _mm512_set*): a dynamic initializer would
// run AVX-512 code when the program loads, before any dispatch, on every CPU (ctest
// build.simd_static_init).
constexpr __m512 kIota{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
constexpr __m512 splat512(float v)
{
    return __m512{v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v};
}

// The 16 values of a 16-entry integer table as floats.
inline __m512 tableFloats(const int8_t* t)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t))));
}

// y[0..31] of a 32-weight block whose 16 bytes at q hold element j in the low nibble of byte j
// and element j+16 in the high nibble.
inline void nibbles32(float* y, const uint8_t* q, __m512 table)
{
    const __m512i v = lanes16(q);
    _mm512_storeu_ps(y, _mm512_permutexvar_ps(v, table));
    _mm512_storeu_ps(y + 16, _mm512_permutexvar_ps(_mm512_srli_epi32(v, 4), table));
}

// ---- plain types ----

void avx512F16(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 2 * i))));
    const __mmask16 k = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, k, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, s + 2 * i)));
}

void avx512BF16(const uint8_t* s, uint64_t n, float* y)
{
    uint64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 2 * i)));
        _mm512_storeu_ps(y + i, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
    }
    const __mmask16 k = __mmask16((1u << (n - i)) - 1);
    const __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, s + 2 * i));
    _mm512_mask_storeu_ps(y + i, k, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
}

// ---- 32-weight blocks ----

void avx512Q4_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 codes = _mm512_sub_ps(kIota, _mm512_set1_ps(8)); // float(q - 8), exact
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32)
        nibbles32(y, b + 2, _mm512_mul_ps(codes, _mm512_set1_ps(half512(b))));
}

void avx512Q4_1(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 20, y += 32) {
        const __m512 t =
            _mm512_add_ps(_mm512_mul_ps(kIota, _mm512_set1_ps(half512(b))), _mm512_set1_ps(half512(b + 2)));
        nibbles32(y, b + 4, t);
    }
}

// Q5_0/Q5_1: the fifth bit of element j is bit j of qh; a 32-entry table in two registers.
inline void q5Block(float* y, const uint8_t* qs, uint32_t qh, __m512 t0, __m512 t1)
{
    const __m512i v = lanes16(qs);
    const __m512i bit4 = _mm512_set1_epi32(0x10);
    const __m512i lo = _mm512_mask_or_epi32(_mm512_and_si512(v, _mm512_set1_epi32(0xF)), __mmask16(qh), v, bit4);
    const __m512i hi0 = _mm512_srli_epi32(v, 4);
    const __m512i hi = _mm512_mask_or_epi32(hi0, __mmask16(qh >> 16), hi0, bit4);
    _mm512_storeu_ps(y, _mm512_permutex2var_ps(t0, lo, t1));
    _mm512_storeu_ps(y + 16, _mm512_permutex2var_ps(t0, hi, t1));
}

void avx512Q5_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 c0 = _mm512_sub_ps(kIota, _mm512_set1_ps(16)), c1 = kIota; // float(q - 16)
    for (uint64_t i = 0; i < nb; ++i, b += 22, y += 32) {
        const __m512 d = _mm512_set1_ps(half512(b));
        q5Block(y, b + 6, ld32v(b + 2), _mm512_mul_ps(c0, d), _mm512_mul_ps(c1, d));
    }
}

void avx512Q5_1(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 c1 = _mm512_add_ps(kIota, _mm512_set1_ps(16));
    for (uint64_t i = 0; i < nb; ++i, b += 24, y += 32) {
        const __m512 d = _mm512_set1_ps(half512(b)), m = _mm512_set1_ps(half512(b + 2));
        q5Block(y, b + 8, ld32v(b + 4), _mm512_add_ps(_mm512_mul_ps(kIota, d), m),
                _mm512_add_ps(_mm512_mul_ps(c1, d), m));
    }
}

template <int kQsOffset, int kBlockBytes>
void avx512Q8(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += kBlockBytes, y += 32) {
        const __m512 d = _mm512_set1_ps(half512(b));
        const __m512i q0 = _mm512_cvtepi8_epi32(load128(b + kQsOffset));
        const __m512i q1 = _mm512_cvtepi8_epi32(load128(b + kQsOffset + 16));
        _mm512_storeu_ps(y, _mm512_mul_ps(_mm512_cvtepi32_ps(q0), d));
        _mm512_storeu_ps(y + 16, _mm512_mul_ps(_mm512_cvtepi32_ps(q1), d));
    }
}

void avx512IQ4_NL(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 values = tableFloats(kValuesIq4nl);
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32)
        nibbles32(y, b + 2, _mm512_mul_ps(_mm512_set1_ps(half512(b)), values));
}

// NVFP4: four 16-weight sub-blocks, each with its UE4M3 scale; sub-block s is bytes 8s..8s+7,
// low nibbles then high nibbles. One VBMI multishift moves nibble j of the 8 bytes (bits 8j for
// j < 8, 8(j - 8) + 4 after) to the low byte of lane j; vpermps reads only its bits 0..3.
void avx512NVFP4(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 values = tableFloats(kValuesFp4);
    const float* ue = ue4m3HalfTable().data();
    // Qword q: lanes 2q and 2q + 1 (their low bytes are bytes 0 and 4 of the qword).
    const __m512i offsets =
        _mm512_set_epi64(0x0000003C00000034, 0x0000002C00000024, 0x0000001C00000014, 0x0000000C00000004,
                         0x0000003800000030, 0x0000002800000020, 0x0000001800000010, 0x0000000800000000);
    for (uint64_t i = 0; i < nb; ++i, b += 36) {
        for (int s = 0; s < 4; ++s, y += 16) {
            const __m512i idx = _mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(int64_t(ld64v(b + 4 + 8 * s))));
            _mm512_storeu_ps(y, _mm512_permutexvar_ps(idx, _mm512_mul_ps(values, _mm512_set1_ps(ue[b[s]]))));
        }
    }
}

void avx512MXFP4(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 values = tableFloats(kValuesFp4);
    for (uint64_t i = 0; i < nb; ++i, b += 17, y += 32) {
        const uint32_t bits = b[0] < 2 ? 0x00200000u << b[0] : uint32_t(b[0] - 1) << 23;
        float d;
        std::memcpy(&d, &bits, 4);
        nibbles32(y, b + 1, _mm512_mul_ps(values, _mm512_set1_ps(d)));
    }
}

// ---- 1- and 2-bit blocks ----

// A 2-bit (or, with a third bit at bit 2, 3-bit) code in a lane's low bits indexes a table whose
// 16 entries repeat the 4 (8) values, so the bits above it need no masking.
constexpr __m512 kIota4{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
constexpr __m512 kIota8{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};

// Q1_0: 128 sign bits, +d where set and -d elsewhere; 16 bits are one blend's mask.
void avx512Q1_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 18) {
        const float df = half512(b);
        const __m512 d = _mm512_set1_ps(df), nd = _mm512_set1_ps(-df);
        for (int k = 0; k < 8; ++k, y += 16)
            _mm512_storeu_ps(y, _mm512_mask_blend_ps(__mmask16(ld16v(b + 2 + 2 * k)), nd, d));
    }
}

// Q2_0: 64 consecutive 2-bit codes, float(q - 1) * d. 16 codes are 32 bits of a qword (the low or
// high half): one multishift moves code i to lane i's low byte, whose low two bits index a
// 16-entry table repeating the four values.
void avx512Q2_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 codes = _mm512_sub_ps(kIota4, _mm512_set1_ps(1));
    // Lanes 2q, 2q + 1 read bytes 0 and 4 of qword q: bits 2i (+ 32 for the high half).
    const __m512i low =
        _mm512_set_epi64(0x0000001E0000001C, 0x0000001A00000018, 0x0000001600000014, 0x0000001200000010,
                         0x0000000E0000000C, 0x0000000A00000008, 0x0000000600000004, 0x0000000200000000);
    const __m512i high = _mm512_add_epi8(low, _mm512_set1_epi64(0x0000002000000020));
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 64) {
        const __m512 t = _mm512_mul_ps(codes, _mm512_set1_ps(half512(b)));
        const __m512i q0 = _mm512_set1_epi64(int64_t(ld64v(b + 2))), q1 = _mm512_set1_epi64(int64_t(ld64v(b + 10)));
        _mm512_storeu_ps(y, _mm512_permutexvar_ps(_mm512_multishift_epi64_epi8(low, q0), t));
        _mm512_storeu_ps(y + 16, _mm512_permutexvar_ps(_mm512_multishift_epi64_epi8(high, q0), t));
        _mm512_storeu_ps(y + 32, _mm512_permutexvar_ps(_mm512_multishift_epi64_epi8(low, q1), t));
        _mm512_storeu_ps(y + 48, _mm512_permutexvar_ps(_mm512_multishift_epi64_epi8(high, q1), t));
    }
}

// ---- k-quants ----

// Q2_K/Q3_K/TQ2_0 codes are the 2-bit crumbs of 32 bytes: crumb j of byte l is element
// 32j + l, shifted right by 2j into a lane's low bits.
void avx512Q2_K(const uint8_t* b, uint64_t nb, float* y)
{
    alignas(64) float dl[16], ml[16];
    for (uint64_t i = 0; i < nb; ++i, b += 84) {
        // dl = d * float(sc & 0xF), ml = dmin * float(sc >> 4) for the 16 sub-blocks at once.
        const __m512i sc = lanes16(b);
        _mm512_store_ps(dl,
                        _mm512_mul_ps(_mm512_set1_ps(half512(b + 80)),
                                      _mm512_cvtepi32_ps(_mm512_and_si512(sc, _mm512_set1_epi32(0xF)))));
        _mm512_store_ps(ml,
                        _mm512_mul_ps(_mm512_set1_ps(half512(b + 82)), _mm512_cvtepi32_ps(_mm512_srli_epi32(sc, 4))));
        for (int h = 0; h < 2; ++h) {
            const __m512i v0 = lanes16(b + 16 + 32 * h), v1 = lanes16(b + 32 + 32 * h);
            for (int j = 0; j < 4; ++j, y += 32) {
                const int s = 8 * h + 2 * j;
                // dl * float(q) - ml, as the reference computes it.
                const __m512 t0 = _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(dl[s]), kIota4), _mm512_set1_ps(ml[s]));
                const __m512 t1 =
                    _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(dl[s + 1]), kIota4), _mm512_set1_ps(ml[s + 1]));
                _mm512_storeu_ps(y, _mm512_permutexvar_ps(_mm512_srli_epi32(v0, 2 * j), t0));
                _mm512_storeu_ps(y + 16, _mm512_permutexvar_ps(_mm512_srli_epi32(v1, 2 * j), t1));
            }
        }
    }
}

void avx512Q3_K(const uint8_t* b, uint64_t nb, float* y)
{
    // The 16 six-bit scales: lane s takes the nibble of S[s % 8] (the high one for s >= 8) and
    // bits 2*(s/4)..+1 of S[8 + s % 4] as bits 4..5.
    const __m128i iLow = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i iHigh = _mm_setr_epi8(8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11);
    const __m512i shLow = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4);
    const __m512i shHigh = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
    // float(q) for index q2 | hbit << 2: q2 - 4 with the bit clear, q2 with it set.
    const __m512 codes = _mm512_sub_ps(kIota8, _mm512_set1_ps(4));
    const __m512i bit2 = _mm512_set1_epi32(4);
    alignas(64) float dl[16];
    for (uint64_t i = 0; i < nb; ++i, b += 110) {
        const __m128i S = _mm_maskz_loadu_epi8(0xFFF, b + 96); // the 12 scale bytes, no read past the block
        const __m512i low = _mm512_and_si512(_mm512_srlv_epi32(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(S, iLow)), shLow),
                                             _mm512_set1_epi32(0xF));
        const __m512i high = _mm512_and_si512(
            _mm512_srlv_epi32(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(S, iHigh)), shHigh), _mm512_set1_epi32(3));
        const __m512i ls = _mm512_sub_epi32(_mm512_or_si512(low, _mm512_slli_epi32(high, 4)), _mm512_set1_epi32(32));
        _mm512_store_ps(dl, _mm512_mul_ps(_mm512_set1_ps(half512(b + 108)), _mm512_cvtepi32_ps(ls)));
        // hmask byte l bit 4h + j is the third bit of element 128h + 32j + l: moved to bit 2 + 4h + j
        // here, so a right shift by 4h + j brings it to bit 2 of the index.
        const __m512i m0 = _mm512_slli_epi32(lanes16(b), 2), m1 = _mm512_slli_epi32(lanes16(b + 16), 2);
        for (int h = 0; h < 2; ++h) {
            const __m512i v0 = lanes16(b + 32 + 32 * h), v1 = lanes16(b + 48 + 32 * h);
            for (int j = 0; j < 4; ++j, y += 32) {
                const int s = 8 * h + 2 * j;
                const __m128i cq = _mm_cvtsi32_si128(2 * j), cm = _mm_cvtsi32_si128(4 * h + j);
                // 0xCA = A ? B : C per bit: bit 2 from the hmask, the rest from the crumbs.
                const __m512i i0 =
                    _mm512_ternarylogic_epi32(bit2, _mm512_srl_epi32(m0, cm), _mm512_srl_epi32(v0, cq), 0xCA);
                const __m512i i1 =
                    _mm512_ternarylogic_epi32(bit2, _mm512_srl_epi32(m1, cm), _mm512_srl_epi32(v1, cq), 0xCA);
                _mm512_storeu_ps(y, _mm512_permutexvar_ps(i0, _mm512_mul_ps(_mm512_set1_ps(dl[s]), codes)));
                _mm512_storeu_ps(y + 16, _mm512_permutexvar_ps(i1, _mm512_mul_ps(_mm512_set1_ps(dl[s + 1]), codes)));
            }
        }
    }
}

// Q6_K: 64 values per sub-block are too many for a table; the six-bit codes are assembled 64 at
// a time in byte lanes and converted exactly, then multiplied by d * float(sc) as the reference.
void avx512Q6_K(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512i m4 = _mm512_set1_epi8(0x0F), m3 = _mm512_set1_epi8(3), m32 = _mm512_set1_epi8(32);
    // Per 256-bit half of the broadcast qh: the crumb of element group k = 0, 1 (then 2, 3).
    const __m512i sh01 = _mm512_setr_epi64(0, 0, 0, 0, 2, 2, 2, 2), sh23 = _mm512_setr_epi64(4, 4, 4, 4, 6, 6, 6, 6);
    alignas(64) float dl[16];
    alignas(64) int8_t q[128];
    for (uint64_t i = 0; i < nb; ++i, b += 210) {
        _mm512_store_ps(dl,
                        _mm512_mul_ps(_mm512_set1_ps(half512(b + 208)),
                                      _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(load128(b + 192)))));
        for (int h = 0; h < 2; ++h) {
            // ql byte l (l < 64): low nibble = element l, high nibble = element 64 + l.
            const __m512i L = _mm512_loadu_si512(b + 64 * h);
            const __m512i H =
                _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 128 + 32 * h)));
            const __m512i h01 = _mm512_slli_epi16(_mm512_and_si512(_mm512_srlv_epi64(H, sh01), m3), 4);
            const __m512i h23 = _mm512_slli_epi16(_mm512_and_si512(_mm512_srlv_epi64(H, sh23), m3), 4);
            _mm512_store_si512(q, _mm512_sub_epi8(_mm512_or_si512(_mm512_and_si512(L, m4), h01), m32));
            _mm512_store_si512(
                q + 64, _mm512_sub_epi8(_mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(L, 4), m4), h23), m32));
            for (int k = 0; k < 8; ++k, y += 16) {
                const __m512 c = _mm512_cvtepi32_ps(
                    _mm512_cvtepi8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(q + 16 * k))));
                _mm512_storeu_ps(y, _mm512_mul_ps(_mm512_set1_ps(dl[8 * h + k]), c));
            }
        }
    }
}

// The eight sub-block multipliers of a Q4_K/Q5_K block: lanes 0..7 d * float(sc[s]), lanes
// 8..15 dmin * float(m[s]), the 6-bit values unpacked as scaleMinK4 does, all lanes at once.
inline __m512 kScalesMins(const uint8_t* block)
{
    const __m128i S = load128(block + 4); // the 12 scale bytes and 4 of the codes
    // Lane L = s + 8 * isMin. Low part: (S[i] >> sh) & mask; high part (s >= 4): S[j] >> 6 << 4.
    const __m128i iLow = _mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11);
    const __m128i iHigh = _mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, 5, 6, 7);
    const __m512i sh = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4);
    const __m512i mask = _mm512_setr_epi32(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 15, 15, 15, 15);
    const __m512i low = _mm512_and_si512(_mm512_srlv_epi32(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(S, iLow)), sh), mask);
    const __m512i high = _mm512_slli_epi32(_mm512_srli_epi32(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(S, iHigh)), 6), 4);
    const __m512 d =
        _mm512_mask_blend_ps(__mmask16(0xFF00), _mm512_set1_ps(half512(block)), _mm512_set1_ps(half512(block + 2)));
    return _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_or_si512(low, high)));
}

void avx512Q4_K(const uint8_t* b, uint64_t nb, float* y)
{
    alignas(64) float dm[16];
    for (uint64_t i = 0; i < nb; ++i, b += 144) {
        _mm512_store_ps(dm, kScalesMins(b));
        for (int p = 0; p < 4; ++p, y += 64) {
            // (d * sc) * float(q) - dmin * m for q = 0..15, for sub-blocks 2p and 2p+1.
            const __m512 t0 =
                _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(dm[2 * p]), kIota), _mm512_set1_ps(dm[8 + 2 * p]));
            const __m512 t1 =
                _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(dm[2 * p + 1]), kIota), _mm512_set1_ps(dm[9 + 2 * p]));
            const uint8_t* q = b + 16 + 32 * p;
            const __m512i v0 = lanes16(q), v1 = lanes16(q + 16);
            _mm512_storeu_ps(y, _mm512_permutexvar_ps(v0, t0));
            _mm512_storeu_ps(y + 16, _mm512_permutexvar_ps(v1, t0));
            _mm512_storeu_ps(y + 32, _mm512_permutexvar_ps(_mm512_srli_epi32(v0, 4), t1));
            _mm512_storeu_ps(y + 48, _mm512_permutexvar_ps(_mm512_srli_epi32(v1, 4), t1));
        }
    }
}

void avx512Q5_K(const uint8_t* b, uint64_t nb, float* y)
{
    alignas(64) float dm[16];
    const __m512 iota16 = _mm512_add_ps(kIota, _mm512_set1_ps(16));
    const __m512i bit4 = _mm512_set1_epi32(0x10);
    for (uint64_t i = 0; i < nb; ++i, b += 176) {
        _mm512_store_ps(dm, kScalesMins(b));
        // qh[l] bit s is the fifth bit of element l of sub-block s: moved to bit 4 + s here, so a
        // right shift by s brings it to the table-select bit of permutex2var.
        const __m512i h0 = _mm512_slli_epi32(lanes16(b + 16), 4), h1 = _mm512_slli_epi32(lanes16(b + 32), 4);
        for (int p = 0; p < 4; ++p, y += 64) {
            const uint8_t* q = b + 48 + 32 * p;
            const __m512i v0 = lanes16(q), v1 = lanes16(q + 16);
            for (int half = 0; half < 2; ++half) {
                const int s = 2 * p + half;
                const __m512 dl = _mm512_set1_ps(dm[s]), ml = _mm512_set1_ps(dm[8 + s]);
                const __m512 t0 = _mm512_sub_ps(_mm512_mul_ps(dl, kIota), ml);
                const __m512 t1 = _mm512_sub_ps(_mm512_mul_ps(dl, iota16), ml);
                const __m128i cnt = _mm_cvtsi32_si128(s);
                const __m512i n0 = half ? _mm512_srli_epi32(v0, 4) : v0, n1 = half ? _mm512_srli_epi32(v1, 4) : v1;
                // 0xCA = A ? B : C per bit: bit 4 from the shifted qh, the rest from the codes.
                const __m512i i0 = _mm512_ternarylogic_epi32(bit4, _mm512_srl_epi32(h0, cnt), n0, 0xCA);
                const __m512i i1 = _mm512_ternarylogic_epi32(bit4, _mm512_srl_epi32(h1, cnt), n1, 0xCA);
                _mm512_storeu_ps(y + 32 * half, _mm512_permutex2var_ps(t0, i0, t1));
                _mm512_storeu_ps(y + 32 * half + 16, _mm512_permutex2var_ps(t0, i1, t1));
            }
        }
    }
}

void avx512IQ4_XS(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 values = tableFloats(kValuesIq4nl);
    const __m256i lowShift = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const __m256i highShift = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    alignas(32) float dl[8];
    for (uint64_t i = 0; i < nb; ++i, b += 136) {
        // dl[ib] = d * float(ls(ib) - 32), the eight 6-bit scales at once.
        const __m256i low =
            _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(int(ld32v(b + 4))), lowShift), _mm256_set1_epi32(0xF));
        const __m256i high =
            _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(ld16v(b + 2)), highShift), _mm256_set1_epi32(3));
        const __m256i ls = _mm256_sub_epi32(_mm256_or_si256(low, _mm256_slli_epi32(high, 4)), _mm256_set1_epi32(32));
        _mm256_store_ps(dl, _mm256_mul_ps(_mm256_set1_ps(half512(b)), _mm256_cvtepi32_ps(ls)));
        for (int ib = 0; ib < 8; ++ib, y += 32)
            nibbles32(y, b + 8 + 16 * ib, _mm512_mul_ps(_mm512_set1_ps(dl[ib]), values));
    }
}

// ---- ternary ----

// Trit n of a base-3 fixed-point byte B is ((B * 3^n) mod 256) * 3 >> 8: with B in the high byte
// of a 16-bit lane, mullo wraps mod 256 by itself and mulhi by 3 is the "* 3 >> 8". The trit
// (0..2) then indexes the table float(t - 1) * d.
inline __m512i trits(__m512i wordsHigh, int pow3)
{
    return _mm512_mulhi_epu16(_mm512_mullo_epi16(wordsHigh, _mm512_set1_epi16(int16_t(pow3))), _mm512_set1_epi16(3));
}

void avx512TQ1_0(const uint8_t* b, uint64_t nb, float* y)
{
    static constexpr int pow3[5] = {1, 3, 9, 27, 81};
    const __m512 codes = _mm512_sub_ps(kIota, _mm512_set1_ps(1));
    // Bytes 0..31 into 16-bit lanes, byte m (m < 16) in the high byte of lane 2m and byte m + 16
    // in that of lane 2m + 1: dword lane m then yields element m in its low half and element
    // m + 16 in its high half. The other bytes are zero (mask 0xAAAA...).
    alignas(64) static constexpr uint8_t kSpread[64] = {
        0, 0, 0, 16, 0, 1, 0, 17, 0, 2,  0, 18, 0, 3,  0, 19, 0, 4,  0, 20, 0, 5,  0, 21, 0, 6,  0, 22, 0, 7,  0, 23,
        0, 8, 0, 24, 0, 9, 0, 25, 0, 10, 0, 26, 0, 11, 0, 27, 0, 12, 0, 28, 0, 13, 0, 29, 0, 14, 0, 30, 0, 15, 0, 31};
    const __m512i spread = _mm512_load_si512(kSpread);
    // The last 16 elements: byte m of qh, trit n, at 4n + m.
    const __m512i qhPow = _mm512_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27);
    for (uint64_t i = 0; i < nb; ++i, b += 54, y += 256) {
        const __m512 t = _mm512_mul_ps(codes, _mm512_set1_ps(half512(b + 52)));
        const __m512i w = _mm512_maskz_permutexvar_epi8(
            0xAAAAAAAAAAAAAAAAull, spread,
            _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b))));
        const __m512i w2 = _mm512_slli_epi32(lanes16(b + 32), 8);
        for (int n = 0; n < 5; ++n) {
            const __m512i tr = trits(w, pow3[n]);
            _mm512_storeu_ps(y + 32 * n, _mm512_permutexvar_ps(tr, t));
            _mm512_storeu_ps(y + 32 * n + 16, _mm512_permutexvar_ps(_mm512_srli_epi32(tr, 16), t));
            _mm512_storeu_ps(y + 160 + 16 * n, _mm512_permutexvar_ps(trits(w2, pow3[n]), t));
        }
        const __m512i qh = _mm512_slli_epi32(_mm512_cvtepu8_epi32(_mm_set1_epi32(int(ld32v(b + 48)))), 8);
        const __m512i tr = _mm512_mulhi_epu16(_mm512_mullo_epi16(qh, qhPow), _mm512_set1_epi16(3));
        _mm512_storeu_ps(y + 240, _mm512_permutexvar_ps(tr, t));
    }
}

void avx512TQ2_0(const uint8_t* b, uint64_t nb, float* y)
{
    const __m512 codes = _mm512_sub_ps(kIota4, _mm512_set1_ps(1));
    for (uint64_t i = 0; i < nb; ++i, b += 66) {
        const __m512 t = _mm512_mul_ps(codes, _mm512_set1_ps(half512(b + 64))); // float(q - 1) * d
        for (int c = 0; c < 2; ++c) {
            const __m512i v0 = lanes16(b + 32 * c), v1 = lanes16(b + 32 * c + 16);
            for (int n = 0; n < 4; ++n, y += 32) {
                _mm512_storeu_ps(y, _mm512_permutexvar_ps(_mm512_srli_epi32(v0, 2 * n), t));
                _mm512_storeu_ps(y + 16, _mm512_permutexvar_ps(_mm512_srli_epi32(v1, 2 * n), t));
            }
        }
    }
}

// ---- IQ grids ----

// A sub-block's 32 weights are four 8-weight groups, each one grid entry of 8 magnitudes
// (IQ1: signed values). The grids are read here as floats, 8 (IQ3: 4) per entry, built once
// from the byte tables (exact conversions), so two groups are two loads into 16 lanes and one
// multiply, not a gather, a widening and a conversion. The 32 weights' sign bits form one 32-bit
// mask (bit 8l + j of group l's sign byte), applied as a masked xor of the sign bit: the
// reference's negation, NaN included.
template <const auto& kGrid, bool kSigned>
const float* gridFloats()
{
    constexpr size_t kPerEntry = sizeof(kGrid[0]), kFloats = std::size(kGrid) * kPerEntry;
    alignas(64) static const std::array<float, kFloats> table = [] {
        std::array<float, kFloats> t{};
        for (size_t k = 0; k < kFloats; ++k) {
            const auto byte = uint8_t(kGrid[k / kPerEntry] >> (8 * (k % kPerEntry)));
            t[k] = kSigned ? float(int8_t(byte)) : float(byte);
        }
        return t;
    }();
    return table.data();
}

// Two 8-float entries (IQ2, IQ1) or four 4-float ones (IQ3) in 16 lanes.
inline __m512 entries8x2(const float* t, const uint32_t* off)
{
    const __m512d lo = _mm512_castpd256_pd512(_mm256_load_pd(reinterpret_cast<const double*>(t + off[0])));
    return _mm512_castpd_ps(_mm512_insertf64x4(lo, _mm256_load_pd(reinterpret_cast<const double*>(t + off[1])), 1));
}
inline __m512 entries4x4(const float* t, const uint32_t* off)
{
    const __m256 lo = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(t + off[0])), _mm_load_ps(t + off[1]), 1);
    const __m256 hi = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(t + off[2])), _mm_load_ps(t + off[3]), 1);
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)), _mm256_castps_pd(hi), 1));
}

// Each 64-bit element holds two dwords' sign bits.
constexpr long long kSignBits2 = static_cast<long long>(0x8000000080000000ull);
constexpr __m512i kSignBit{kSignBits2, kSignBits2, kSignBits2, kSignBits2,
                           kSignBits2, kSignBits2, kSignBits2, kSignBits2};

// y[0..15] = d * g, negated where the sign bit is set.
inline void gridSigned16(float* y, __m512 g, float d, __mmask16 signs)
{
    const __m512i v = _mm512_castps_si512(_mm512_mul_ps(_mm512_set1_ps(d), g));
    _mm512_storeu_ps(y, _mm512_castsi512_ps(_mm512_mask_xor_epi32(v, signs, v, kSignBit)));
}

// IQ2/IQ3_XXS signs: 7-bit indices into ksigns_iq2xs (the byte's parity completes it), looked up
// in the 128-byte table held in two registers, 64 at a time (bit 7 of an index is ignored).
// (The constructor is written out: an implicit one would be compiled outside the tier's target.)
struct KSigns {
    KSigns()
        : lo(_mm512_loadu_si512(kKsignsIq2xs))
        , hi(_mm512_loadu_si512(kKsignsIq2xs + 64))
    {
    }
    __m512i lo, hi;
    __m512i operator()(__m512i idx) const { return _mm512_permutex2var_epi8(lo, idx, hi); }
};

// The IQ2/IQ3_XXS sub-block multiplier d * (0.5f + float(v)) * c, in the reference's order.
inline __m512 halfStepScales(float d, __m512i v, float c)
{
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(d), _mm512_add_ps(_mm512_set1_ps(0.5f), _mm512_cvtepi32_ps(v))),
                         _mm512_set1_ps(c));
}
// The eight scale bytes of IQ2_XS/IQ2_S: lane 2ib the low nibble of byte ib, lane 2ib + 1 the high.
inline __m512i scaleNibbles(const uint8_t* sc)
{
    const __m128i s = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(sc));
    const __m512i v = _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(s, s));
    return _mm512_and_si512(_mm512_srlv_epi32(v, _mm512_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4)),
                            _mm512_set1_epi32(0xF));
}

// What a super-block's stores need, formed in lanes: entry offsets into the float grid (cheaper
// than extracting each index with scalar shifts and masks), the sub-block multipliers and
// the sub-blocks' 32-bit sign masks. They are formed one
// block ahead of the stores that use them: reading back a table just stored waits for the store
// (no forwarding from the vector stores to the scalar loads), and that wait cost more than the
// table saves.
struct GridTables {
    alignas(64) uint32_t off[64];
    alignas(64) float dl[16];
    alignas(64) uint32_t signs[16];
};
template <int kBlockBytes, typename Prepare, typename Write>
void gridBlocks(const uint8_t* b, uint64_t nb, float* y, Prepare prepare, Write write)
{
    GridTables t[2];
    if (nb > 0)
        prepare(b, t[0]);
    for (uint64_t i = 0; i < nb; ++i, b += kBlockBytes, y += 256) {
        if (i + 1 < nb)
            prepare(b + kBlockBytes, t[(i + 1) & 1]);
        write(b, t[i & 1], y);
    }
}

// A signed IQ2/IQ3 super-block's stores: sub-block ib's four entries at off[offStep * ib], the
// multipliers of its two halves dl[dlStep * ib] and dl[dlStep * ib + dlHalf], its signs[ib].
template <int kEntryFloats>
inline void gridStores(float* y, const float* grid, const GridTables& t, int offStep, int dlStep, int dlHalf)
{
    for (int ib = 0; ib < 8; ++ib, y += 32) {
        const uint32_t* off = t.off + offStep * ib;
        const uint32_t s = t.signs[ib];
        if constexpr (kEntryFloats == 8) {
            gridSigned16(y, entries8x2(grid, off), t.dl[dlStep * ib], __mmask16(s));
            gridSigned16(y + 16, entries8x2(grid, off + 2), t.dl[dlStep * ib + dlHalf], __mmask16(s >> 16));
        } else {
            gridSigned16(y, entries4x4(grid, off), t.dl[dlStep * ib], __mmask16(s));
            gridSigned16(y + 16, entries4x4(grid, off + 4), t.dl[dlStep * ib + dlHalf], __mmask16(s >> 16));
        }
    }
}

void avx512IQ2_XXS(const uint8_t* b, uint64_t nb, float* y)
{
    const KSigns ksigns;
    const float* grid = gridFloats<kIq2xxsGrid, false>();
    // Sub-block ib is qword ib: bytes 0..3 its entries, bits 32 + 7l its sign indices, bits
    // 60..63 its scale. Sign index l goes to byte l of the qword, so the looked-up qword's low
    // half is the sub-block's sign mask.
    const __m512i signFields = _mm512_set1_epi64(0x352E2720);
    const auto prepare = [&](const uint8_t* block, GridTables& t) {
        const __m512i words = _mm512_loadu_si512(block + 2);
        for (int c = 0; c < 4; ++c)
            _mm512_store_si512(t.off + 16 * c, _mm512_slli_epi32(lanes16(block + 2 + 16 * c), 3));
        _mm512_store_ps(t.dl,
                        halfStepScales(half512(block),
                                       _mm512_zextsi256_si512(_mm512_cvtepi64_epi32(_mm512_srli_epi64(words, 60))),
                                       0.25f));
        _mm256_store_si256(reinterpret_cast<__m256i*>(t.signs),
                           _mm512_cvtepi64_epi32(ksigns(_mm512_multishift_epi64_epi8(signFields, words))));
    };
    gridBlocks<66>(b, nb, y, prepare,
                   [&](const uint8_t*, const GridTables& t, float* out) { gridStores<8>(out, grid, t, 8, 1, 0); });
}

void avx512IQ2_XS(const uint8_t* b, uint64_t nb, float* y)
{
    const KSigns ksigns;
    const float* grid = gridFloats<kIq2xsGrid, false>();
    const auto prepare = [&](const uint8_t* block, GridTables& t) {
        // 32 words: entry (bits 0..8) and sign index (bits 9..15) of each group.
        const __m512i words = _mm512_loadu_si512(block + 2);
        for (int c = 0; c < 2; ++c) {
            const __m512i w =
                _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2 + 32 * c)));
            _mm512_store_si512(t.off + 16 * c, _mm512_slli_epi32(_mm512_and_si512(w, _mm512_set1_epi32(511)), 3));
        }
        const __m512i signIdx = _mm512_castsi256_si512(_mm512_cvtepi16_epi8(_mm512_srli_epi16(words, 9)));
        _mm512_store_si512(t.signs, ksigns(signIdx));
        _mm512_store_ps(t.dl, halfStepScales(half512(block), scaleNibbles(block + 66), 0.25f));
    };
    gridBlocks<74>(b, nb, y, prepare,
                   [&](const uint8_t*, const GridTables& t, float* out) { gridStores<8>(out, grid, t, 4, 2, 1); });
}

void avx512IQ2_S(const uint8_t* b, uint64_t nb, float* y)
{
    const float* grid = gridFloats<kIq2sGrid, false>();
    // Entry n's bits 8, 9 are bits 2n, 2n + 1 of the 64-bit qh: byte n of the multishift.
    const __m256i crumbAt =
        _mm256_setr_epi64x(0x0E0C0A0806040200ll, 0x1E1C1A1816141210ll, 0x2E2C2A2826242220ll, 0x3E3C3A3836343230ll);
    const auto prepare = [&](const uint8_t* block, GridTables& t) {
        const __m256i high = _mm256_and_si256(
            _mm256_multishift_epi64_epi8(crumbAt, _mm256_set1_epi64x(int64_t(ld64v(block + 66)))), _mm256_set1_epi8(3));
        for (int c = 0; c < 2; ++c) {
            const __m512i h = _mm512_slli_epi32(
                _mm512_cvtepu8_epi32(c ? _mm256_extracti128_si256(high, 1) : _mm256_castsi256_si128(high)), 8);
            _mm512_store_si512(t.off + 16 * c, _mm512_slli_epi32(_mm512_or_si512(lanes16(block + 2 + 16 * c), h), 3));
        }
        _mm512_store_ps(t.dl, halfStepScales(half512(block), scaleNibbles(block + 74), 0.25f));
        _mm256_store_si256(reinterpret_cast<__m256i*>(t.signs),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 34))); // one bit a weight
    };
    gridBlocks<82>(b, nb, y, prepare,
                   [&](const uint8_t*, const GridTables& t, float* out) { gridStores<8>(out, grid, t, 4, 2, 1); });
}

void avx512IQ3_XXS(const uint8_t* b, uint64_t nb, float* y)
{
    const KSigns ksigns;
    const float* grid = gridFloats<kIq3xxsGrid, false>();
    // The eight words after the entries: bits 7l of word ib are its sign index l, bits 28..31
    // its scale. Sign index l goes to byte l of the word (two words to a qword).
    const __m256i signFields = _mm256_set1_epi64x(0x352E2720150E0700ll);
    const auto prepare = [&](const uint8_t* block, GridTables& t) {
        for (int c = 0; c < 4; ++c)
            _mm512_store_si512(t.off + 16 * c, _mm512_slli_epi32(lanes16(block + 2 + 16 * c), 2));
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 66));
        _mm512_store_ps(t.dl, halfStepScales(half512(block), _mm512_zextsi256_si512(_mm256_srli_epi32(a, 28)), 0.5f));
        _mm512_store_si512(t.signs, ksigns(_mm512_zextsi256_si512(_mm256_multishift_epi64_epi8(signFields, a))));
    };
    gridBlocks<98>(b, nb, y, prepare,
                   [&](const uint8_t*, const GridTables& t, float* out) { gridStores<4>(out, grid, t, 8, 1, 0); });
}

void avx512IQ3_S(const uint8_t* b, uint64_t nb, float* y)
{
    const float* grid = gridFloats<kIq3sGrid, false>();
    const __m256i nibbleShift = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const auto prepare = [&](const uint8_t* block, GridTables& t) {
        const uint64_t qh = ld64v(block + 66); // bit n: entry n's bit 8
        for (int c = 0; c < 4; ++c) {
            const __m512i q = lanes16(block + 2 + 16 * c);
            _mm512_store_si512(
                t.off + 16 * c,
                _mm512_slli_epi32(_mm512_mask_or_epi32(q, __mmask16(qh >> 16 * c), q, _mm512_set1_epi32(0x100)), 2));
        }
        // d * float(1 + 2 * nibble ib)
        const __m256i nib = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(int(ld32v(block + 106))), nibbleShift),
                                             _mm256_set1_epi32(0xF));
        const __m256 odd = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_add_epi32(nib, nib), _mm256_set1_epi32(1)));
        _mm256_store_ps(t.dl, _mm256_mul_ps(_mm256_set1_ps(half512(block)), odd));
        _mm256_store_si256(reinterpret_cast<__m256i*>(t.signs),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 74))); // one bit a weight
    };
    gridBlocks<110>(b, nb, y, prepare,
                    [&](const uint8_t*, const GridTables& t, float* out) { gridStores<4>(out, grid, t, 8, 1, 0); });
}

// IQ1: dl * (float(signed grid byte) + delta), delta = +-1/8; 3-bit sub-block scales, dl = d * float(2s + 1).
constexpr __m512 kIq1Delta = splat512(0.125f), kIq1NegDelta = splat512(-0.125f);
inline void iq1Grid16(float* y, __m512 g, float dl, __mmask16 negative)
{
    _mm512_storeu_ps(
        y,
        _mm512_mul_ps(_mm512_set1_ps(dl), _mm512_add_ps(g, _mm512_mask_blend_ps(negative, kIq1Delta, kIq1NegDelta))));
}
inline __m512 oddScales(float d, __m512i s)
{
    return _mm512_mul_ps(_mm512_set1_ps(d),
                         _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_add_epi32(s, s), _mm512_set1_epi32(1))));
}
// Lanes 4q .. 4q + 3 take 3-bit field 0..3 of dword q of v (q < 4 + 4 * quarter).
inline __m512i threeBitFields(__m512i v, int quarter)
{
    const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i shifts = _mm512_setr_epi32(0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9);
    const __m512i lanes = _mm512_permutexvar_epi32(_mm512_add_epi32(spread, _mm512_set1_epi32(4 * quarter)), v);
    return _mm512_and_si512(_mm512_srlv_epi32(lanes, shifts), _mm512_set1_epi32(7));
}
// Offsets of entries q | high << 8, eight floats each.
inline void iq1Offsets(uint32_t* off, const uint8_t* q, __m512i high)
{
    _mm512_store_si512(off, _mm512_slli_epi32(_mm512_or_si512(lanes16(q), _mm512_slli_epi32(high, 8)), 3));
}

void avx512IQ1_S(const uint8_t* b, uint64_t nb, float* y)
{
    const float* grid = gridFloats<kIq1sGrid, true>();
    // Word ib of qh: bits 3l..3l + 2 extend entry 4ib + l, bits 12..14 the scale, bit 15 delta's sign.
    const auto prepare = [&](const uint8_t* block, GridTables& t) {
        const __m512i h = _mm512_cvtepu16_epi32(_mm256_castsi128_si256(load128(block + 34)));
        for (int c = 0; c < 2; ++c)
            iq1Offsets(t.off + 16 * c, block + 2 + 16 * c, threeBitFields(h, c));
        _mm512_store_ps(t.dl,
                        oddScales(half512(block), _mm512_and_si512(_mm512_srli_epi32(h, 12), _mm512_set1_epi32(7))));
    };
    gridBlocks<50>(b, nb, y, prepare, [&](const uint8_t* block, const GridTables& t, float* out) {
        const unsigned negative = _mm_movemask_epi8(_mm_srai_epi16(load128(block + 34), 15)); // two bits a sub-block
        for (int ib = 0; ib < 8; ++ib, out += 32) {
            const auto neg = __mmask16(0u - ((negative >> (2 * ib)) & 1));
            iq1Grid16(out, entries8x2(grid, t.off + 4 * ib), t.dl[ib], neg);
            iq1Grid16(out + 16, entries8x2(grid, t.off + 4 * ib + 2), t.dl[ib], neg);
        }
    });
}

void avx512IQ1_M(const uint8_t* b, uint64_t nb, float* y)
{
    const float* grid = gridFloats<kIq1sGrid, true>();
    const auto nibbles = [](const uint8_t* block, int c) { // nibble 16c + k of qh (low nibble first) in byte k
        const __m128i qh = load128(block + 32);
        const __m128i lo = _mm_and_si128(qh, _mm_set1_epi8(0x0F)),
                      hi = _mm_and_si128(_mm_srli_epi16(qh, 4), _mm_set1_epi8(0x0F));
        return c ? _mm_unpackhi_epi8(lo, hi) : _mm_unpacklo_epi8(lo, hi);
    };
    const auto prepare = [&](const uint8_t* block, GridTables& t) {
        // Nibble n: bits 0..2 extend entry n, bit 3 negates its delta.
        for (int c = 0; c < 2; ++c)
            iq1Offsets(t.off + 16 * c, block + 16 * c,
                       _mm512_cvtepu8_epi32(_mm_and_si128(nibbles(block, c), _mm_set1_epi8(7))));
        // Field f = 2ib + half of the sub-block scales: bits 3(f % 4) of scale word f / 4.
        const __m512i sw = _mm512_cvtepu16_epi32(
            _mm256_castsi128_si256(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(block + 48))));
        _mm512_store_ps(t.dl, oddScales(_cvtsh_ss(iq1mScaleBits(block + 48)), threeBitFields(sw, 0)));
    };
    gridBlocks<56>(b, nb, y, prepare, [&](const uint8_t* block, const GridTables& t, float* out) {
        uint32_t negative = 0; // bit n: entry n
        for (int c = 0; c < 2; ++c)
            negative |= uint32_t(_mm_movemask_epi8(_mm_slli_epi16(nibbles(block, c), 4))) << 16 * c;
        for (int ib = 0; ib < 8; ++ib, out += 32) {
            const uint32_t lanes = _pdep_u32(negative >> (4 * ib), 0x01010101u) * 0xFFu; // bit 8l + j: group l's lane j
            iq1Grid16(out, entries8x2(grid, t.off + 4 * ib), t.dl[2 * ib], __mmask16(lanes));
            iq1Grid16(out + 16, entries8x2(grid, t.off + 4 * ib + 2), t.dl[2 * ib + 1], __mmask16(lanes >> 16));
        }
    });
}

} // namespace

BlocksFn avx512BlocksFn(int ggmlType)
{
    switch (ggmlType) {
    case GgmlF16: return avx512F16;
    case GgmlBF16: return avx512BF16;
    case GgmlQ4_0: return avx512Q4_0;
    case GgmlQ4_1: return avx512Q4_1;
    case GgmlQ5_0: return avx512Q5_0;
    case GgmlQ5_1: return avx512Q5_1;
    case GgmlQ8_0: return avx512Q8<2, 34>;
    case GgmlQ8_1: return avx512Q8<4, 36>;
    case GgmlIQ4_NL: return avx512IQ4_NL;
    case GgmlMXFP4: return avx512MXFP4;
    case GgmlQ4_K: return avx512Q4_K;
    case GgmlQ5_K: return avx512Q5_K;
    case GgmlIQ4_XS: return avx512IQ4_XS;
    case GgmlTQ1_0: return avx512TQ1_0;
    case GgmlTQ2_0: return avx512TQ2_0;
    case GgmlNVFP4: return avx512NVFP4;
    case GgmlQ2_K: return avx512Q2_K;
    case GgmlQ3_K: return avx512Q3_K;
    case GgmlQ6_K: return avx512Q6_K;
    case GgmlQ1_0: return avx512Q1_0;
    case GgmlQ2_0: return avx512Q2_0;
    case GgmlIQ2_XXS: return avx512IQ2_XXS;
    case GgmlIQ2_XS: return avx512IQ2_XS;
    case GgmlIQ2_S: return avx512IQ2_S;
    case GgmlIQ3_XXS: return avx512IQ3_XXS;
    case GgmlIQ3_S: return avx512IQ3_S;
    case GgmlIQ1_S: return avx512IQ1_S;
    case GgmlIQ1_M: return avx512IQ1_M;
    default: return nullptr;
    }
}

} // namespace qs::ggml

QS_TIER_END
