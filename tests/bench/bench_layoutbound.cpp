// The memory bound of the column-packed layouts (GPTQ qweight [K*b/32, N], AWQ GEMM
// qweight [K, N/8]) on the L2-sized chunks quantscope-bench uses (16 output rows x K):
// the AVX2 kernel, a read-only loop that touches the same qweight lines in the same order
// with no compute (one load per line, software prefetch as the kernel does), and that loop
// plus plain 32-byte stores of the chunk's output, each as a ratio to memcpy of the same
// output bytes, measured interleaved in one process. When the touch loop alone is slower
// than half of memcpy, the 0.5x aim is out of reach for that layout at that chunk size. Three
// more loops give the compute floors of the 4-bit kernels' building blocks on sequential
// output (see floorStores below), and the AVX-512 GPTQ-4 kernel beside three more that give the
// floors of the AVX-512 kernels (floorStores512), and those of the HQQ and MLX kernels (read-only
// passes over an L2-resident input, with stores, the per-group F16 table with the MLX-4 kernel's
// nibble extraction, and the two F16 roundings by conversions and by adds; touchInput512). The
// GPTQ 2/3/8-bit, act-order, Marlin and GEMV_FAST kernels of both paths follow, with
// touch(+store) loops of the GPTQ widths and of Marlin's tiles (64-byte stores, as its AVX-512
// kernel writes; GEMV_FAST reads its int16 words in order: its floor is vpermps16+store).
// Last, the GPTQ/AWQ AVX-512 kernels' store order alone (per span of 64 k, each of the 16 rows'
// 64 floats in 64-byte stores), with the rows K floats apart as the output is, and 16 floats
// further apart: when 4*K is a multiple of 4 KiB every row's line of a span lands in the same L1
// set (16 lines a span into 12 ways), and that order alone falls to about 0.7x memcpy, from
// 1.6x with the padded rows (64-byte stores in sequence: 2x); the rows alternating between two
// spans (the GPTQ 4-bit kernel's order) run at about 1.5x. Then the GPTQ 4-bit kernel's
// two shuffles per 64-byte store on sequential output. The word rows of qweight (4*N bytes
// apart) share one L1 set the same way when 4*N is a multiple of 4 KiB: compare the touch loops
// at N = 1024 and N = 1088. Both hold at the bench's shape (N = 1024, K = 4096). Beside the
// AVX-512 GPTQ 4-bit kernel: its own loads and stores without the arithmetic (a512 memory), and
// both again with qweight on a cache line (al64); the act-order and planar-5 kernels beside their
// method at its leanest over the same memory traffic (lean: the ceiling of per-lane lookups at
// this shape), and their work per store on sequential output (lookup+st).
// Usage: bench_layoutbound [N, default 1024] [K, default 4096, a multiple of 128]
#include "formats/gptq/gptq.h"
#include "base/half.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace qs;

namespace {

using Clock = std::chrono::steady_clock;

struct Contender {
    const char* name;
    std::function<void()> body;
    uint64_t calls = 1;
    double best = 1e30;
};

// Best of ~1 ms bursts, the contenders interleaved so load from other processes hits all alike.
void race(std::vector<Contender>& cs, double seconds)
{
    for (Contender& c : cs) {
        c.body();
        const auto t0 = Clock::now();
        c.body();
        c.calls = std::max<uint64_t>(
            1, uint64_t(0.001 / std::max(1e-7, std::chrono::duration<double>(Clock::now() - t0).count())));
    }
    const auto start = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - start).count() < seconds)
        for (Contender& c : cs) {
            const auto t0 = Clock::now();
            for (uint64_t i = 0; i < c.calls; ++i)
                c.body();
            c.best = std::min(c.best, std::chrono::duration<double>(Clock::now() - t0).count() / double(c.calls));
        }
}

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v)
        b = uint8_t(rng());
    return v;
}

std::vector<uint8_t> halfScales(size_t n)
{
    std::vector<uint8_t> b(2 * n);
    for (size_t i = 0; i < n; ++i) {
        const uint16_t h = floatToHalf(1e-3f * float(i % 13 + 1));
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return b;
}

// One load per qweight line a 16-row chunk's kernel reads, in its order, with the kernel's
// software prefetch; with `out`, also the chunk's output written as the kernel writes it (per
// span of 64 k, each of the 16 rows' 64 floats in a run), a constant instead of values.
// B bits per code: K*B/32 rows of words, eight rows (256/B codes) per span.
__attribute__((target("avx2"))) uint32_t touchGptq(const uint8_t* qweight, uint64_t N, uint64_t K, uint64_t n,
                                                   float* out, int B = 4)
{
    const uint8_t* col = qweight + 4 * n;
    const uint64_t wordRows = K * uint64_t(B) / 32;
    uint32_t acc = 0;
    const __m256 one = _mm256_set1_ps(1.f);
    for (uint64_t r0 = 0; r0 < wordRows; r0 += 8) {
        for (uint64_t r = r0; r < r0 + 8; ++r) {
            if (r + 48 < wordRows)
                _mm_prefetch(reinterpret_cast<const char*>(col + 4 * (r + 48) * N), _MM_HINT_T0);
            uint32_t w;
            std::memcpy(&w, col + 4 * r * N, 4);
            acc += w;
        }
        if (out)
            for (uint64_t l = 0; l < 16; ++l)
                for (uint64_t k = r0 * 32 / uint64_t(B) / 8 * 8; k < std::min(K, (r0 + 8) * 32 / uint64_t(B)); k += 8)
                    _mm256_store_ps(out + l * K + k, one);
    }
    return acc;
}

__attribute__((target("avx2"))) uint32_t touchAwq(const uint8_t* qweight, uint64_t N, uint64_t K, uint64_t n,
                                                  float* out)
{
    const uint8_t* col = qweight + 4 * (n / 8);
    const uint64_t stride = 4 * (N / 8);
    uint32_t acc = 0;
    const __m256 one = _mm256_set1_ps(1.f);
    for (uint64_t k0 = 0; k0 < K; k0 += 64) {
        for (uint64_t k = k0; k < k0 + 64; ++k) {
            if (k + 64 < K)
                _mm_prefetch(reinterpret_cast<const char*>(col + (k + 64) * stride), _MM_HINT_T0);
            uint32_t w;
            std::memcpy(&w, col + k * stride, 4);
            acc += w;
        }
        if (out)
            for (uint64_t l = 0; l < 16; ++l)
                for (uint64_t i = 0; i < 8; ++i)
                    _mm256_store_ps(out + l * K + k0 + 8 * i, one);
    }
    return acc;
}

// Marlin, 16 rows of one n-tile, in the AVX-512 kernel's order: per span of four k-tiles the
// 512 (8-bit: 1024) bytes of the rows' column block in each tile (N*B/2 words apart), one load
// per line; with `out`, each row's 64 floats of the span in 64-byte stores.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f"))) uint32_t touchMarlin(const uint8_t* qweight, uint64_t N, uint64_t K, uint64_t n,
                                                        float* out, int B)
{
    const uint64_t span = B == 4 ? 512 : 1024, tileBytes = 4 * N * uint64_t(B) / 2;
    const uint8_t* col = qweight + span * (n / 64);
    uint32_t acc = 0;
    const __m512 one = _mm512_set1_ps(1.f);
    for (uint64_t kt0 = 0; kt0 < K / 16; kt0 += 4) {
        for (uint64_t kt = kt0; kt < kt0 + 4; ++kt)
            for (uint64_t i = 0; i < span; i += 64) {
                uint32_t w;
                std::memcpy(&w, col + kt * tileBytes + i, 4);
                acc += w;
            }
        if (out)
            for (uint64_t l = 0; l < 16; ++l)
                for (uint64_t kt = kt0; kt < kt0 + 4; ++kt)
                    _mm512_store_ps(out + l * K + 16 * kt, one);
    }
    return acc;
}
#pragma GCC diagnostic pop

// Compute floors over the chunk's output written sequentially, codes read from an L1-sized
// buffer: plain 32-byte stores (the AVX2 store ceiling; memcpy here may use wider stores),
// one broadcast word shifted into eight lanes by vpsrlvd per eight outputs (how the GPTQ, AWQ,
// NF4 and MLX kernels extract nibbles), that plus the GPTQ / AWQ arithmetic, and the 16-entry
// select of NF4 / MLX-4 (two vpermps and a blend) on codes already widened to lanes.
__attribute__((target("avx2"))) void floorStores(float* out, uint64_t n)
{
    const __m256 one = _mm256_set1_ps(1.f);
    for (uint64_t i = 0; i < n; i += 8)
        _mm256_store_ps(out + i, one);
    asm volatile("" : : "r"(out) : "memory");
}

__attribute__((target("avx2"))) void floorShift(const uint8_t* codes, float* out, uint64_t n)
{
    const __m256i sh = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    for (uint64_t i = 0; i < n; i += 8) {
        int32_t w;
        std::memcpy(&w, codes + (i / 2) % 4096, 4);
        _mm256_store_ps(out + i, _mm256_castsi256_ps(_mm256_srlv_epi32(_mm256_set1_epi32(w), sh)));
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The GPTQ / AWQ value: float(q - z) * s after the shift and mask, all in registers.
__attribute__((target("avx2"))) void floorAffine(const uint8_t* codes, float* out, uint64_t n)
{
    const __m256i sh = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), mask = _mm256_set1_epi32(0xF),
                  z = _mm256_set1_epi32(8);
    const __m256 s = _mm256_set1_ps(1e-3f);
    for (uint64_t i = 0; i < n; i += 8) {
        int32_t w;
        std::memcpy(&w, codes + (i / 2) % 4096, 4);
        const __m256i q = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(w), sh), mask);
        _mm256_store_ps(out + i, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))));
    }
    asm volatile("" : : "r"(out) : "memory");
}

__attribute__((target("avx2"))) void floorSelect(const uint8_t* codes, float* out, uint64_t n)
{
    const __m256 lo = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), hi = _mm256_setr_ps(8, 9, 10, 11, 12, 13, 14, 15);
    for (uint64_t i = 0; i < n; i += 8) {
        const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + i % 4096)));
        _mm256_store_ps(out + i,
                        _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, idx), _mm256_permutevar8x32_ps(hi, idx),
                                         _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28))));
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The AVX-512 floors: plain 64-byte stores; 16 byte codes widened to lanes selecting from a
// 16-entry table with one vpermps (the unavoidable work of the table kernels: Q2_K, Q3_K, Q4_K,
// TQ2_0, NVFP4, ...); and 16 signed byte codes converted exactly and multiplied by a scale (that
// of the kernels whose codes take too many values for a table: Q6_K, Q8_0, int8). GCC 12 warns
// about its own _mm512_undefined_* inside intrinsics inlined into target("avx512f") functions
// (as maybe-uninitialized once K is a run-time value).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f"))) void floorStores512(float* out, uint64_t n)
{
    const __m512 one = _mm512_set1_ps(1.f);
    for (uint64_t i = 0; i < n; i += 16)
        _mm512_store_ps(out + i, one);
    asm volatile("" : : "r"(out) : "memory");
}

__attribute__((target("avx512f"))) void floorPermute512(const uint8_t* codes, float* out, uint64_t n)
{
    const __m512 table = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint64_t i = 0; i < n; i += 16) {
        const __m512i idx = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i % 4096)));
        _mm512_store_ps(out + i, _mm512_permutexvar_ps(idx, table));
    }
    asm volatile("" : : "r"(out) : "memory");
}

__attribute__((target("avx512f"))) void floorConvert512(const uint8_t* codes, float* out, uint64_t n)
{
    const __m512 s = _mm512_set1_ps(1e-3f);
    for (uint64_t i = 0; i < n; i += 16) {
        const __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i % 4096)));
        _mm512_store_ps(out + i, _mm512_mul_ps(s, _mm512_cvtepi32_ps(q)));
    }
    asm volatile("" : : "r"(out) : "memory");
}
// The floors of the kernels whose groups of 64 weights round to F16 twice (HQQ, MLX): a read-only
// pass over an L2-resident input of `bytes` (one load per line), that pass plus the chunk's stores,
// the per-group table of 16 results with its two F16 roundings plus 4 lookups and stores (HQQ and
// MLX up to 4 bits), and the two F16 roundings of every element plus its store (MLX-8).
uint64_t touchInput512(const uint8_t* in, uint64_t bytes, float* out, uint64_t n)
{
    uint64_t acc = 0;
    for (uint64_t i = 0; i < bytes; i += 64) {
        uint64_t w;
        std::memcpy(&w, in + i, 8);
        acc += w;
    }
    if (out)
        floorStores512(out, n);
    return acc;
}

__attribute__((target("avx512f,f16c"))) inline __m512 roundF16x16(__m512 x)
{
    return _mm512_cvtph_ps(_mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

__attribute__((target("avx512f,avx512bw,f16c"))) void floorTableF16(const uint8_t* codes, const float* scales,
                                                                    float* out, uint64_t n)
{
    const __m512 iota = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint64_t i = 0, g = 0; i < n; i += 64, ++g) {
        const __m512 vs = _mm512_set1_ps(scales[2 * (g % 512)]), vb = _mm512_set1_ps(scales[2 * (g % 512) + 1]);
        const __m512 t = roundF16x16(_mm512_add_ps(roundF16x16(_mm512_mul_ps(iota, vs)), vb));
        for (uint64_t j = i; j < i + 64; j += 16) {
            const __m512i idx =
                _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + j % 4096)));
            _mm512_store_ps(out + j, _mm512_permutexvar_ps(idx, t));
        }
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The same table with the 4-bit codes taken as the MLX-4 kernel takes them: 8 bytes broadcast by
// the load, one VBMI multishift into 16 lanes (the conversions, the multishift and vpermps compete
// for the same units).
__attribute__((target("avx512f,avx512bw,avx512vbmi,f16c"))) void
floorTableF16Nibbles(const uint8_t* codes, const float* scales, float* out, uint64_t n)
{
    const __m512 iota = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i offsets =
        _mm512_set_epi64(0x0000003C00000038, 0x0000003400000030, 0x0000002C00000028, 0x0000002400000020,
                         0x0000001C00000018, 0x0000001400000010, 0x0000000C00000008, 0x0000000400000000);
    for (uint64_t i = 0, g = 0; i < n; i += 64, ++g) {
        const __m512 vs = _mm512_set1_ps(scales[2 * (g % 512)]), vb = _mm512_set1_ps(scales[2 * (g % 512) + 1]);
        const __m512 t = roundF16x16(_mm512_add_ps(roundF16x16(_mm512_mul_ps(iota, vs)), vb));
        for (uint64_t j = i; j < i + 64; j += 16) {
            uint64_t w;
            std::memcpy(&w, codes + (j / 2) % 4096, 8);
            _mm512_store_ps(
                out + j,
                _mm512_permutexvar_ps(_mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(int64_t(w))), t));
        }
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The exact alternative to the conversions for MLX-8 (where no result can overflow F16): with
// C = 1.5 * 2^(max(e, -14) + 13) for x's binade e, (x + C) - C is x rounded to F16's quantum
// there, nearest even, and x's sign goes back on for the zeros. Checked bit for bit against
// vcvtps2ph on 200,000 random F16 scale/bias pairs with codes 0..255 when written; slower here.
__attribute__((target("avx512f"))) inline __m512 roundF16ByAdds(__m512 x)
{
    const __m512i bits = _mm512_castps_si512(x);
    const __m512i e =
        _mm512_max_epu32(_mm512_and_si512(bits, _mm512_set1_epi32(0x7F800000)), _mm512_set1_epi32(113 << 23));
    const __m512 c = _mm512_castsi512_ps(_mm512_add_epi32(e, _mm512_set1_epi32((13 << 23) | 0x400000)));
    const __m512 r = _mm512_sub_ps(_mm512_add_ps(x, c), c);
    return _mm512_castsi512_ps(
        _mm512_ternarylogic_epi32(_mm512_castps_si512(r), bits, _mm512_set1_epi32(int(0x80000000u)), 0xF8));
}

// Two F16 roundings per element (MLX-8): by conversions, or by adds.
template <bool byAdds>
__attribute__((target("avx512f,f16c"))) void floorTwoRoundsF16(const uint8_t* codes, float* out, uint64_t n)
{
    const __m512 vs = _mm512_set1_ps(1e-3f), vb = _mm512_set1_ps(-0.25f);
    for (uint64_t i = 0; i < n; i += 16) {
        const __m512 q = _mm512_cvtepi32_ps(
            _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i % 4096))));
        const __m512 r = byAdds ? roundF16ByAdds(_mm512_mul_ps(q, vs)) : roundF16x16(_mm512_mul_ps(q, vs));
        _mm512_store_ps(out + i, byAdds ? roundF16ByAdds(_mm512_add_ps(r, vb)) : roundF16x16(_mm512_add_ps(r, vb)));
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The GPTQ 2/3/4-bit kernel's work per 16 outputs on sequential output, codes from an L1-sized
// buffer: a row's qword broadcast by the load (vpbroadcastq m64), VBMI multishift moves each
// code to its lane's low byte, vpermps looks it up (two shuffles a 64-byte store;
// vpermps16+store has one).
__attribute__((target("avx512f,avx512vbmi"))) void floorGptqShuffles512(const uint8_t* codes, float* out, uint64_t n)
{
    const __m512 table = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    alignas(64) uint8_t o[64] = {};
    for (int i = 0; i < 16; ++i)
        o[(i / 2) * 8 + (i % 2) * 4] = uint8_t(4 * i);
    const __m512i offsets = _mm512_load_si512(o);
    for (uint64_t i = 0; i < n; i += 16) {
        int64_t w;
        std::memcpy(&w, codes + (i / 2) % 4096, 8);
        _mm512_store_ps(out + i,
                        _mm512_permutexvar_ps(_mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(w)), table));
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The act-order (permuted g_idx) kernel's work per 16 outputs on sequential output, codes and
// the g_idx slice from L1: the 16 codes as in floorGptqShuffles512, put under 2^23's exponent,
// each lane's scale and zero looked up in the row's 32-entry tables (one vpermt2ps each), then
// s * ((2^23 + q) - (2^23 + z)). With Planes = 2, planar 5-bit: a second, 1-bit plane's 16 codes
// (one word: multishift, shift, mask, or) joined to the 4-bit ones first. What the lookup
// method costs however the memory behaves.
template <int Planes>
__attribute__((target("avx512f,avx512vbmi"))) void floorLookup512(const uint8_t* codes, const int32_t* groups,
                                                                  const float* tables, float* out, uint64_t n)
{
    alignas(64) uint8_t o[64] = {}, o1[64] = {};
    for (int i = 0; i < 16; ++i) {
        o[(i / 2) * 8 + (i % 2) * 4] = uint8_t(4 * i);
        o1[(i / 2) * 8 + (i % 2) * 4] = uint8_t(i);
    }
    const __m512i offsets = _mm512_load_si512(o), offsets1 = _mm512_load_si512(o1);
    const __m512i low4 = _mm512_set1_epi32(15), magic = _mm512_set1_epi32(0x4B000000);
    const __m512 s0 = _mm512_loadu_ps(tables), s1 = _mm512_loadu_ps(tables + 16), z0 = _mm512_loadu_ps(tables + 32),
                 z1 = _mm512_loadu_ps(tables + 48);
    for (uint64_t i = 0; i < n; i += 16) {
        int64_t w;
        std::memcpy(&w, codes + (i / 2) % 4096, 8);
        __m512i q = _mm512_and_si512(_mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(w)), low4);
        if constexpr (Planes == 2) {
            int32_t b;
            std::memcpy(&b, codes + (i / 8) % 4096, 4);
            q = _mm512_ternarylogic_epi32(
                q, _mm512_slli_epi32(_mm512_multishift_epi64_epi8(offsets1, _mm512_set1_epi32(b)), 4),
                _mm512_set1_epi32(16), 0xF8); // a | (b & c)
        }
        const __m512i g = _mm512_loadu_si512(groups + i % 4096);
        const __m512 sv = _mm512_permutex2var_ps(s0, g, s1), zv = _mm512_permutex2var_ps(z0, g, z1);
        _mm512_store_ps(out + i, _mm512_mul_ps(sv, _mm512_sub_ps(_mm512_castsi512_ps(_mm512_or_si512(q, magic)), zv)));
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The act-order kernel as lean as it can be: floorGptq4Pairs512's loads (the pair's 16 word rows,
// interleaved into each row's qwords as the kernel does) and paired stores, with
// floorLookup512's work per vector, each row's two 32-entry tables read from memory (sixteen
// rows' tables do not fit the registers) and the lanes' groups from the g_idx slice of the
// span. What the lookup method can reach with this layout's memory traffic.
__attribute__((target("avx512f,avx512vbmi"))) void floorActOrder512(const uint8_t* qweight, uint64_t N, uint64_t K,
                                                                    uint64_t n, const int32_t* groups,
                                                                    const float* tables, float* out)
{
    const uint8_t* col = qweight + 4 * n;
    alignas(64) uint8_t o[64] = {};
    for (int i = 0; i < 16; ++i)
        o[(i / 2) * 8 + (i % 2) * 4] = uint8_t(4 * i);
    const __m512i offsets = _mm512_load_si512(o), low4 = _mm512_set1_epi32(15), magic = _mm512_set1_epi32(0x4B000000);
    alignas(64) float rowTables[16][64]; // row l: scales 0..31, zeros (2^23 + z) 32..63
    for (int l = 0; l < 16; ++l)
        for (int e = 0; e < 64; ++e)
            rowTables[l][e] = tables[(e + 7 * l) % 64];
    alignas(64) __m512i w[2][8]; // per span: 4 vectors x (rows 4c, 4c + 1 | 4c + 2, 4c + 3) qwords
    for (uint64_t kb = 0; kb < K; kb += 128) {
        for (uint64_t h = 0; h < 2; ++h)
            for (uint64_t i = 0; i < 4; ++i) {
                const uint64_t r = (kb + 64 * h + 16 * i) / 8;
                const __m512i a = _mm512_loadu_si512(col + 4 * r * N), b = _mm512_loadu_si512(col + 4 * (r + 1) * N);
                w[h][2 * i] = _mm512_unpacklo_epi32(a, b);
                w[h][2 * i + 1] = _mm512_unpackhi_epi32(a, b);
            }
        for (uint64_t t = 0; t < 2; ++t)
            for (uint64_t l = 0; l < 16; ++l) {
                const uint64_t h = (t + l) % 2, k0 = kb + 64 * h;
                const float* tb = rowTables[l];
                for (uint64_t i = 0; i < 4; ++i) {
                    int64_t q;
                    std::memcpy(&q, reinterpret_cast<const char*>(&w[h][2 * i + l % 4 / 2]) + 8 * (2 * (l / 4) + l % 2),
                                8);
                    const __m512i c = _mm512_ternarylogic_epi32(
                        _mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(q)), low4, magic, 0xEA);
                    const __m512i g = _mm512_loadu_si512(groups + (k0 + 16 * i) % 4096);
                    const __m512 sv = _mm512_permutex2var_ps(_mm512_load_ps(tb), g, _mm512_load_ps(tb + 16));
                    const __m512 zv = _mm512_permutex2var_ps(_mm512_load_ps(tb + 32), g, _mm512_load_ps(tb + 48));
                    _mm512_storeu_ps(out + l * K + k0 + 16 * i,
                                     _mm512_mul_ps(sv, _mm512_sub_ps(_mm512_castsi512_ps(c), zv)));
                }
            }
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The same for planar 5-bit GPTQ (its qweight [K*5/32, N]): per 32 k five word rows, the first
// four a 4-bit plane (half h in rows 2h, 2h + 1, interleaved into each row's qword), the fifth a
// 1-bit plane (half h at bits 16h..16h + 15), joined into 5-bit codes, then the lookups.
__attribute__((target("avx512f,avx512vbmi"))) void floorPlanar5Lean512(const uint8_t* qweight, uint64_t N, uint64_t K,
                                                                       uint64_t n, const int32_t* groups,
                                                                       const float* tables, float* out)
{
    const uint8_t* col = qweight + 4 * n;
    alignas(64) uint8_t o[64] = {}, o1[2][64] = {};
    for (int i = 0; i < 16; ++i) {
        o[(i / 2) * 8 + (i % 2) * 4] = uint8_t(4 * i);
        for (int h = 0; h < 2; ++h)
            o1[h][(i / 2) * 8 + (i % 2) * 4] = uint8_t(16 * h + i);
    }
    const __m512i offsets = _mm512_load_si512(o), offsets1[2] = {_mm512_load_si512(o1[0]), _mm512_load_si512(o1[1])};
    const __m512i low4 = _mm512_set1_epi32(15), bit4 = _mm512_set1_epi32(16), magic = _mm512_set1_epi32(0x4B000000);
    alignas(64) float rowTables[16][64];
    for (int l = 0; l < 16; ++l)
        for (int e = 0; e < 64; ++e)
            rowTables[l][e] = tables[(e + 7 * l) % 64];
    alignas(64) __m512i pairs[4][2][2], plane1[4]; // per chunk of 32 k: [half][lo/hi], the 1-bit row
    for (uint64_t kb = 0; kb < K; kb += 128) {
        for (uint64_t c = 0; c < 4; ++c) {
            const uint64_t r = (kb / 32 + c) * 5;
            for (uint64_t h = 0; h < 2; ++h) {
                const __m512i a = _mm512_loadu_si512(col + 4 * (r + 2 * h) * N),
                              b = _mm512_loadu_si512(col + 4 * (r + 2 * h + 1) * N);
                pairs[c][h][0] = _mm512_unpacklo_epi32(a, b);
                pairs[c][h][1] = _mm512_unpackhi_epi32(a, b);
            }
            plane1[c] = _mm512_loadu_si512(col + 4 * (r + 4) * N);
        }
        for (uint64_t t = 0; t < 2; ++t)
            for (uint64_t l = 0; l < 16; ++l) {
                const uint64_t sp = (t + l) % 2, k0 = kb + 64 * sp;
                const float* tb = rowTables[l];
                for (uint64_t i = 0; i < 4; ++i) {
                    const uint64_t c = 2 * sp + i / 2, h = i % 2;
                    int64_t q;
                    int32_t b;
                    std::memcpy(&q, reinterpret_cast<const char*>(&pairs[c][h][l % 4 / 2]) + 8 * (2 * (l / 4) + l % 2),
                                8);
                    std::memcpy(&b, reinterpret_cast<const char*>(&plane1[c]) + 4 * l, 4);
                    const __m512i q4 =
                        _mm512_and_si512(_mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(q)), low4);
                    const __m512i q5 = _mm512_ternarylogic_epi32(
                        q4, _mm512_slli_epi32(_mm512_multishift_epi64_epi8(offsets1[h], _mm512_set1_epi32(b)), 4), bit4,
                        0xF8); // a | (b & c)
                    const __m512i g = _mm512_loadu_si512(groups + (k0 + 16 * i) % 4096);
                    const __m512 sv = _mm512_permutex2var_ps(_mm512_load_ps(tb), g, _mm512_load_ps(tb + 16));
                    const __m512 zv = _mm512_permutex2var_ps(_mm512_load_ps(tb + 32), g, _mm512_load_ps(tb + 48));
                    _mm512_storeu_ps(
                        out + l * K + k0 + 16 * i,
                        _mm512_mul_ps(sv, _mm512_sub_ps(_mm512_castsi512_ps(_mm512_or_si512(q5, magic)), zv)));
                }
            }
    }
    asm volatile("" : : "r"(out) : "memory");
}

// The chunk's output in the AVX-512 GPTQ/AWQ kernels' order, rows `stride` floats apart: per
// batch of Spans spans of 64 k, at step t row l writes span (t + l) % Spans (the GPTQ 4-bit
// kernel's pairs: 2).
template <uint64_t Spans>
__attribute__((target("avx512f"))) void floorRowStores512(float* out, uint64_t K, uint64_t stride)
{
    const __m512 one = _mm512_set1_ps(1.f);
    for (uint64_t k0 = 0; k0 < K; k0 += 64 * Spans)
        for (uint64_t t = 0; t < Spans; ++t)
            for (uint64_t l = 0; l < 16; ++l)
                for (uint64_t i = 0; i < 64; i += 16)
                    _mm512_storeu_ps(out + l * stride + k0 + 64 * ((t + l) % Spans) + i, one);
    asm volatile("" : : "r"(out) : "memory");
}
// The AVX-512 GPTQ 4-bit kernel's memory traffic without its arithmetic: per pair of 64-k spans
// the 16 word rows' 64-byte loads, then each of the 16 rows' 64 floats of both spans in the
// kernel's alternating order, the stores waiting on the loads as the kernel's do. What that
// kernel can reach at this shape and this input alignment.
__attribute__((target("avx512f"))) uint32_t floorGptq4Pairs512(const uint8_t* qweight, uint64_t N, uint64_t K,
                                                               uint64_t n, float* out)
{
    const uint8_t* col = qweight + 4 * n;
    __m512i acc = _mm512_setzero_si512();
    for (uint64_t kb = 0; kb < K; kb += 128) {
        for (uint64_t r = kb / 8; r < kb / 8 + 16; ++r)
            acc = _mm512_xor_si512(acc, _mm512_loadu_si512(col + 4 * r * N));
        const __m512 v = _mm512_castsi512_ps(acc);
        for (uint64_t t = 0; t < 2; ++t)
            for (uint64_t l = 0; l < 16; ++l)
                for (uint64_t i = 0; i < 64; i += 16)
                    _mm512_storeu_ps(out + l * K + kb + 64 * ((t + l) % 2) + i, v);
    }
    asm volatile("" : : "r"(out) : "memory");
    return uint32_t(_mm_cvtsi128_si32(_mm512_castsi512_si128(acc)));
}
#pragma GCC diagnostic pop

} // namespace

int main(int argc, char** argv)
{
    const uint64_t N = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024,
                   K = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 4096;
    const uint64_t G = 32, Rows = 16;
    if (N < Rows || N % Rows || K < 128 || K % 128) {
        std::fprintf(stderr, "bench_layoutbound: N must be a multiple of %llu, K of 128\n", (unsigned long long)Rows);
        return 2;
    }
    if (!hasAvx2(cpuSimdPath())) {
        std::printf("bench_layoutbound: no AVX2 path on this machine\n");
        return 0;
    }
    const std::vector<uint8_t> gq = randomBytes(K / 8 * N * 4, 1), gz = randomBytes(G * N / 8 * 4, 2);
    const std::vector<uint8_t> aq = randomBytes(K * N / 8 * 4, 3), az = randomBytes(G * N / 8 * 4, 4);
    const std::vector<uint8_t> sc = halfScales(G * N);
    PackedLinear gptq;
    gptq.kind = PackedKind::Gptq;
    gptq.K = K;
    gptq.N = N;
    gptq.groupSize = K / G;
    gptq.groups = G;
    gptq.qweight = gq;
    gptq.qzeros = gz;
    gptq.scales = sc;
    gptq.indexGroupRuns();
    PackedLinear awq = gptq;
    awq.kind = PackedKind::AwqGemm;
    awq.qweight = aq;
    awq.qzeros = az;
    gptq.validate();
    awq.validate();

    // The same GPTQ weight with its qweight on a cache line (gq sits where malloc put it: a
    // 16-row block's 64 bytes of a word row then span two lines, as in most safetensors files,
    // whose tensors are 8-byte aligned).
    uint8_t* gq64 = static_cast<uint8_t*>(std::aligned_alloc(64, gq.size()));
    std::memcpy(gq64, gq.data(), gq.size());
    PackedLinear gptq64 = gptq;
    gptq64.qweight = std::span<const uint8_t>(gq64, gq.size());
    std::printf("qweight at %u bytes past a cache line; the al64 copy on one\n",
                unsigned(reinterpret_cast<uintptr_t>(gq.data()) % 64));

    // Room for the padded rows of floorRowStores512.
    float* out = static_cast<float*>(std::aligned_alloc(64, Rows * (K + 16) * 4));
    float* src = static_cast<float*>(std::aligned_alloc(64, Rows * K * 4));
    std::fill(src, src + Rows * K, 1.f);
    std::fill(out, out + Rows * (K + 16), 0.f);
    uint64_t next = 0;
    volatile uint32_t sink = 0;
    const auto chunk = [&] { return (next++ % (N / Rows)) * Rows; };
    const std::vector<uint8_t> codes = randomBytes(4096 + 8, 5), input = randomBytes(256u << 10, 6);
    std::vector<int32_t> groupOfK(4096 + 16); // a permuted g_idx's groups, 0..31
    for (size_t i = 0; i < groupOfK.size(); ++i)
        groupOfK[i] = int32_t((i * 2654435761u >> 7) % 32);
    std::vector<float> groupScales(1024);
    for (size_t i = 0; i < groupScales.size(); ++i)
        groupScales[i] = (i % 2 ? -0.01f : 1e-3f) * float(i % 7 + 1);
    std::vector<Contender> cs = {
        {"memcpy",
         [&] {
             std::memcpy(out, src, Rows * K * 4);
             asm volatile("" : : "r"(out) : "memory");
         }},
        {"GPTQ-4 kernel",
         [&] {
             const uint64_t n = chunk();
             dequantPackedRows(gptq, n, n + Rows, out, SimdPath::Avx2);
         }},
        {"GPTQ-4 touch", [&] { sink = touchGptq(gq.data(), N, K, chunk(), nullptr); }},
        {"GPTQ-4 touch+store", [&] { sink = touchGptq(gq.data(), N, K, chunk(), out); }},
        {"AWQ kernel",
         [&] {
             const uint64_t n = chunk();
             dequantPackedRows(awq, n, n + Rows, out, SimdPath::Avx2);
         }},
        {"AWQ touch", [&] { sink = touchAwq(aq.data(), N, K, chunk(), nullptr); }},
        {"AWQ touch+store", [&] { sink = touchAwq(aq.data(), N, K, chunk(), out); }},
        {"32-byte stores", [&] { floorStores(out, Rows * K); }},
        {"word+vpsrlvd+store", [&] { floorShift(codes.data(), out, Rows * K); }},
        {"word+affine+store", [&] { floorAffine(codes.data(), out, Rows * K); }},
        {"select16+store", [&] { floorSelect(codes.data(), out, Rows * K); }},
    };
    // The other layouts of the GPTQ family, as quantscope-bench builds them (groups of 128).
    const uint64_t G128 = K / 128;
    const std::vector<uint8_t> sc128 = halfScales(G128 * N), bias128 = halfScales(G128 * N);
    std::vector<std::vector<uint8_t>> qw(9), qz(9);
    std::vector<PackedLinear> gptqB(9);
    for (int b : {2, 3, 5, 8}) {
        qw[size_t(b)] = randomBytes((K * uint64_t(b) + 31) / 32 * N * 4, 10 + uint32_t(b));
        qz[size_t(b)] = randomBytes(G128 * ((N * uint64_t(b) + 31) / 32) * 4, 20 + uint32_t(b));
        PackedLinear& q = gptqB[size_t(b)];
        q = gptq;
        q.bits = b;
        q.groupSize = 128;
        q.groups = G128;
        q.qweight = qw[size_t(b)];
        q.qzeros = qz[size_t(b)];
        if (b == 5)
            q.kind = PackedKind::GptqPlanar; // 5 bits exist only planar
        q.scales = sc128;
        q.indexGroupRuns();
        q.validate();
    }
    // Act-order: a random permutation in runs of 128 (desc_act).
    std::vector<int32_t> perm(K);
    for (uint64_t k = 0; k < K; ++k)
        perm[k] = int32_t(k / 128);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
    PackedLinear actOrder = gptq;
    actOrder.groupSize = 128;
    actOrder.groups = G128;
    actOrder.scales = sc128;
    const std::vector<uint8_t> gz128 = randomBytes(G128 * N / 8 * 4, 6);
    actOrder.qzeros = gz128;
    actOrder.gIdx = {reinterpret_cast<const uint8_t*>(perm.data()), K * 4};
    actOrder.indexGroupRuns();
    actOrder.validate();
    const std::vector<uint8_t> m4 = randomBytes(K / 16 * N * 2 * 4, 30), m8 = randomBytes(K / 16 * N * 4 * 4, 31);
    PackedLinear marlin4;
    marlin4.kind = PackedKind::Marlin;
    marlin4.zeros = ZeroConvention::Implicit;
    marlin4.K = K;
    marlin4.N = N;
    marlin4.groupSize = 128;
    marlin4.groups = G128;
    marlin4.qweight = m4;
    marlin4.scales = sc128;
    marlin4.validate();
    PackedLinear marlin8 = marlin4;
    marlin8.bits = 8;
    marlin8.qweight = m8;
    marlin8.validate();
    const std::vector<uint8_t> fq = randomBytes(N / 4 * K * 2, 32);
    PackedLinear fast;
    fast.kind = PackedKind::AwqGemvFast;
    fast.zeros = ZeroConvention::FloatBias;
    fast.K = K;
    fast.N = N;
    fast.groupSize = 128;
    fast.groups = G128;
    fast.scaleRows = G128;
    fast.qweight = fq;
    fast.qzeros = bias128;
    fast.scales = sc128;
    fast.validate();
    const auto kernel = [&](const PackedLinear& q, SimdPath path) {
        return [&q, &chunk, out, path] {
            const uint64_t n = chunk();
            dequantPackedRows(q, n, n + Rows, out, path);
        };
    };
    cs.push_back({"GPTQ-2 avx2", kernel(gptqB[2], SimdPath::Avx2)});
    cs.push_back({"GPTQ-2 touch+store", [&] { sink = touchGptq(qw[2].data(), N, K, chunk(), out, 2); }});
    cs.push_back({"GPTQ-3 avx2", kernel(gptqB[3], SimdPath::Avx2)});
    cs.push_back({"GPTQ-3 touch+store", [&] { sink = touchGptq(qw[3].data(), N, K, chunk(), out, 3); }});
    cs.push_back({"GPTQ-8 avx2", kernel(gptqB[8], SimdPath::Avx2)});
    cs.push_back({"GPTQ-8 touch+store", [&] { sink = touchGptq(qw[8].data(), N, K, chunk(), out, 8); }});
    cs.push_back({"act-order perm avx2", kernel(actOrder, SimdPath::Avx2)});
    cs.push_back({"GPTQ-8 touch", [&] { sink = touchGptq(qw[8].data(), N, K, chunk(), nullptr, 8); }});
    cs.push_back({"Marlin-4 avx2", kernel(marlin4, SimdPath::Avx2)});
    cs.push_back({"Marlin-8 avx2", kernel(marlin8, SimdPath::Avx2)});
    cs.push_back({"GEMV_FAST avx2", kernel(fast, SimdPath::Avx2)});
    if (cpuSimdPath() >= SimdPath::Avx512) {
        cs.push_back({"GPTQ-4 avx512", [&] {
                          const uint64_t n = chunk();
                          dequantPackedRows(gptq, n, n + Rows, out, SimdPath::Avx512);
                      }});
        cs.push_back({"GPTQ-4 a512 memory", [&] { sink = floorGptq4Pairs512(gq.data(), N, K, chunk(), out); }});
        cs.push_back({"act-order avx512", kernel(actOrder, SimdPath::Avx512)});
        cs.push_back({"act-order lean",
                      [&] { floorActOrder512(gq.data(), N, K, chunk(), groupOfK.data(), groupScales.data(), out); }});
        cs.push_back({"planar-5 avx512", kernel(gptqB[5], SimdPath::Avx512)});
        cs.push_back({"planar-5 lean", [&] {
                          floorPlanar5Lean512(qw[5].data(), N, K, chunk(), groupOfK.data(), groupScales.data(), out);
                      }});
        cs.push_back({"GPTQ-4 avx512 al64", [&] {
                          const uint64_t n = chunk();
                          dequantPackedRows(gptq64, n, n + Rows, out, SimdPath::Avx512);
                      }});
        cs.push_back({"GPTQ-4 a512 mem al64", [&] { sink = floorGptq4Pairs512(gq64, N, K, chunk(), out); }});
        cs.push_back({"AWQ avx512", kernel(awq, SimdPath::Avx512)});
        cs.push_back({"GPTQ-2 avx512", kernel(gptqB[2], SimdPath::Avx512)});
        cs.push_back({"GPTQ-3 avx512", kernel(gptqB[3], SimdPath::Avx512)});
        cs.push_back({"GPTQ-8 avx512", kernel(gptqB[8], SimdPath::Avx512)});
        cs.push_back({"Marlin-4 avx512", kernel(marlin4, SimdPath::Avx512)});
        cs.push_back({"Marlin-4 touch", [&] { sink = touchMarlin(m4.data(), N, K, chunk(), nullptr, 4); }});
        cs.push_back({"Marlin-4 touch+st64", [&] { sink = touchMarlin(m4.data(), N, K, chunk(), out, 4); }});
        cs.push_back({"Marlin-8 avx512", kernel(marlin8, SimdPath::Avx512)});
        cs.push_back({"Marlin-8 touch", [&] { sink = touchMarlin(m8.data(), N, K, chunk(), nullptr, 8); }});
        cs.push_back({"Marlin-8 touch+st64", [&] { sink = touchMarlin(m8.data(), N, K, chunk(), out, 8); }});
        cs.push_back({"GEMV_FAST avx512", kernel(fast, SimdPath::Avx512)});
        cs.push_back({"64-byte stores", [&] { floorStores512(out, Rows * K); }});
        cs.push_back({"vpermps16+store", [&] { floorPermute512(codes.data(), out, Rows * K); }});
        cs.push_back({"i8 cvt+mul+store", [&] { floorConvert512(codes.data(), out, Rows * K); }});
        // Per chunk of 64K weights: 4-bit codes 32 KiB, 3-bit words (HQQ) 256 KiB, 8-bit 64 KiB.
        for (const uint64_t bytes : {32u << 10, 64u << 10, 256u << 10})
            cs.push_back({bytes == 32u << 10       ? "read 32K"
                              : bytes == 64u << 10 ? "read 64K"
                                                   : "read 256K",
                          [&, bytes] { sink = uint32_t(touchInput512(input.data(), bytes, nullptr, 0)); }});
        for (const uint64_t bytes : {32u << 10, 64u << 10, 256u << 10})
            cs.push_back({bytes == 32u << 10       ? "read 32K+store"
                              : bytes == 64u << 10 ? "read 64K+store"
                                                   : "read 256K+store",
                          [&, bytes] { sink = uint32_t(touchInput512(input.data(), bytes, out, Rows * K)); }});
        cs.push_back({"F16 table/64+lookup", [&] { floorTableF16(codes.data(), groupScales.data(), out, Rows * K); }});
        cs.push_back(
            {"F16 table/64+nibbles", [&] { floorTableF16Nibbles(codes.data(), groupScales.data(), out, Rows * K); }});
        cs.push_back({"two F16 rounds+store", [&] { floorTwoRoundsF16<false>(codes.data(), out, Rows * K); }});
        cs.push_back({"two rounds by adds", [&] { floorTwoRoundsF16<true>(codes.data(), out, Rows * K); }});
        cs.push_back({"GPTQ-4 shuffles+st", [&] { floorGptqShuffles512(codes.data(), out, Rows * K); }});
        cs.push_back({"act-order lookup+st",
                      [&] { floorLookup512<1>(codes.data(), groupOfK.data(), groupScales.data(), out, Rows * K); }});
        cs.push_back({"planar-5 lookup+st",
                      [&] { floorLookup512<2>(codes.data(), groupOfK.data(), groupScales.data(), out, Rows * K); }});
        cs.push_back({"st64 kernel order", [&] { floorRowStores512<1>(out, K, K); }});
        cs.push_back({"st64 paired spans", [&] { floorRowStores512<2>(out, K, K); }});
        cs.push_back({"st64 rows +64 B", [&] { floorRowStores512<1>(out, K, K + 16); }});
    }
    race(cs, 4.0);
    std::printf("bench_layoutbound: K=%llu N=%llu, %llu rows (%llu KiB output) per chunk; time relative to memcpy\n",
                (unsigned long long)K, (unsigned long long)N, (unsigned long long)Rows,
                (unsigned long long)(Rows * K * 4 / 1024));
    std::printf("%-20s %10s %14s\n", "loop", "us/chunk", "memcpy/loop");
    for (const Contender& c : cs)
        std::printf("%-20s %10.2f %14.2f\n", c.name, c.best * 1e6, cs[0].best / c.best);
    std::free(out);
    std::free(src);
    std::free(gq64);
    return 0;
}
