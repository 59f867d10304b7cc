// AVX-512 paths for Marlin (4 and 8 bits), AWQ GEMV, GEMV_FAST, AWQ GEMM, GPTQ 2/3/4/8-bit with
// groups in runs or a permuted g_idx of up to 128 groups, and planar GPTQ 3/5/6/7-bit. Same
// float32 bits as the reference s * float(q - z): a code of at most 4 bits selects its value from
// the row's and group's table of the 16 products (formed by the same lane-wise multiply) with one
// vpermps; an 8-bit code is put under the exponent of 2^23, so one subtraction of 2^23 + z gives
// float(q - z) exactly (both operands are integers below 2^24), then the reference's multiply.
// GEMV_FAST's table holds its two fp16 roundings. The GPTQ and AWQ GEMM kernels read each row of
// words as 64-byte vectors of 16 consecutive columns (no gathers, no per-row scalar word loads).
// A permuted g_idx, and planar GPTQ, look each lane's scale and zero up in the row's tables of
// the groups; with more than 128 groups they keep the AVX2 path.
#include "formats/gptq/gptq.h"

#include "base/simd_tier.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

QS_TIER_BEGIN_AVX512

#include "base/nibble_avx512.h"

namespace qs::avx512 {

namespace {

constexpr uint64_t kRows = 16; // Marlin rows per block

void tailColumns(const PackedLinear& p, uint64_t n, uint64_t rows, uint64_t from, float* out)
{
    for (uint64_t l = 0; l < rows; ++l)
        for (uint64_t k = from; k < p.K; ++k)
            out[l * p.K + k] = p.valueAt(n + l, k);
}

// The scales of rows nb..nb+count-1 (count <= 16) in group g, from Marlin's permuted places:
// marlinScaleIndex worked out in lanes, then 16 scalar reads (a gather could read past the end).
__m512 marlinScales(const PackedLinear& p, uint64_t g, uint64_t nb, uint64_t count)
{
    alignas(64) float s[16] = {};
    if (g * p.N + nb + 16 > uint64_t(INT32_MAX)) {
        for (uint64_t r = 0; r < count; ++r)
            s[r] = p.scaleAt(g, nb + r);
        return _mm512_load_ps(s);
    }
    const __m512i f = _mm512_add_epi32(_mm512_set1_epi32(int(g * p.N + nb)),
                                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    __m512i idx;
    if (p.groups > 1) { // f - o + 8 (o % 8) + o / 8, o = f % 64
        const __m512i o = _mm512_and_si512(f, _mm512_set1_epi32(63));
        const __m512i moved =
            _mm512_add_epi32(_mm512_slli_epi32(_mm512_and_si512(o, _mm512_set1_epi32(7)), 3), _mm512_srli_epi32(o, 3));
        idx = _mm512_add_epi32(_mm512_sub_epi32(f, o), moved);
    } else { // f - o + 8 ((o >> 1) & 3) + 2 (o >> 3) + (o & 1), o = f % 32
        const __m512i o = _mm512_and_si512(f, _mm512_set1_epi32(31));
        const __m512i i = _mm512_and_si512(_mm512_srli_epi32(o, 1), _mm512_set1_epi32(3));
        const __m512i m =
            _mm512_add_epi32(_mm512_slli_epi32(_mm512_srli_epi32(o, 3), 1), _mm512_and_si512(o, _mm512_set1_epi32(1)));
        idx = _mm512_add_epi32(_mm512_sub_epi32(f, o), _mm512_add_epi32(_mm512_slli_epi32(i, 3), m));
    }
    // F16/BF16 rows inside one block of the permutation (64 scales, 32 per channel; the
    // scale tensor holding 64 from its start): one vpermt2w picks the 16 out of the block's 128
    // bytes (16 scalar loads and their stores read back as a vector stalled, a sixth of
    // Marlin-4's time).
    const uint64_t block = p.groups > 1 ? 64 : 32, f0 = g * p.N + nb, base = f0 / block * block;
    if (p.scaleType != ScaleType::F32 && f0 - base + count <= block && 2 * (base + 64) <= p.scales.size()) {
        const __m512i words =
            _mm512_zextsi256_si512(_mm512_cvtepi32_epi16(_mm512_sub_epi32(idx, _mm512_set1_epi32(int(base)))));
        const uint8_t* b = p.scales.data() + 2 * base;
        const __m256i h =
            _mm512_castsi512_si256(_mm512_permutex2var_epi16(_mm512_loadu_si512(b), words, _mm512_loadu_si512(b + 64)));
        return p.scaleType == ScaleType::F16 ? _mm512_cvtph_ps(h)
                                             : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
    alignas(64) uint32_t at[16], raw[16] = {};
    _mm512_store_si512(at, idx);
    // Each width's loop on its own: a memcpy of a run-time width compiled to a byte loop.
    const uint8_t* sc = p.scales.data();
    if (p.scaleType == ScaleType::F32)
        for (uint64_t r = 0; r < count; ++r)
            std::memcpy(&raw[r], sc + 4 * at[r], 4);
    else
        for (uint64_t r = 0; r < count; ++r) {
            uint16_t h;
            std::memcpy(&h, sc + 2 * at[r], 2);
            raw[r] = h;
        }
    const __m512i v = _mm512_load_si512(raw);
    switch (p.scaleType) {
    case ScaleType::F16: return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(v));
    case ScaleType::BF16: return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
    case ScaleType::F32: break;
    }
    return _mm512_castsi512_ps(v);
}

// Marlin (B.4), as the AVX2 path reads it: for output row n the 16 codes of k-tile kt sit in
// four words at stride 4 (4-bit) or 8 (8-bit) inside the row's column block, at slots fixed by
// the row's half-tile; one permute gives each lane (k) its word, one shift its slot. 4-bit
// codes select from the row's and group's table; 8-bit ones go under 2^23's exponent bits.
template <int B>
void marlinRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K, tiles = K / 16, wordsPerTile = p.N * uint64_t(B) / 2;
    const __m512i low8 = _mm512_set1_epi32(0xFF), magic = _mm512_set1_epi32(0x4B000000);
    const __m512 zf = _mm512_set1_ps(8388608.0f + float(1 << (B - 1)));
    struct Row {
        __m512i idx, shift;
        const uint8_t* col;
        float* out;
    };
    Row rows[kRows];
    __m512 table[kRows];
    alignas(64) float scale[kRows];
    // float(q - 8) of the 4-bit codes q = 0..15 (the implicit zero): a table is s times it.
    const __m512 centered = _mm512_cvtepi32_ps(_mm512_sub_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(1 << (B - 1))));
    // Per lane (k of the tile): its word, less the row's j (4-bit), and its slot's shift for
    // either half-tile of rows (block); lane kr of k 0..7 and 8 + kr of k 8..15, slot of row
    // (kr & 1) | (k >= 8) << 1. Formed once here, not per row from stored arrays (which stalled
    // on store forwarding when read back as vectors).
    __m512i wordOf, shiftOf[2];
    {
        alignas(64) int32_t idx[16], sh[2][16];
        for (int k = 0; k < 16; ++k) {
            const int kr = k % 8, slotRow = (kr & 1) | (k >= 8 ? 2 : 0);
            // 4-bit: words j, j + 4 of the low 8 (k 0..3), j + 8, j + 12 (k 4..7); 8-bit: the
            // four words 8 apart, loaded as two vectors (lanes 0, 8 and 16, 24).
            idx[k] = B == 4 ? 4 * (kr / 2) : 8 * (kr / 2);
            for (int block = 0; block < 2; ++block)
                sh[block][k] = B * (B == 4 ? kMarlinSlotOf4[4 * block + slotRow] : kMarlinSlotOf8[slotRow]);
        }
        wordOf = _mm512_load_si512(idx);
        shiftOf[0] = _mm512_load_si512(sh[0]);
        shiftOf[1] = _mm512_load_si512(sh[1]);
    }
    // Blocks of up to 16 rows, k-tile outer: each tile's words (N*b/2 words apart) are read for
    // all the block's rows while in the TLB.
    for (uint64_t nb = n0; nb < n1; nb += kRows) {
        const uint64_t count = std::min(kRows, n1 - nb);
        for (uint64_t r = 0; r < count; ++r) {
            const uint64_t n = nb + r, nt = n / 16, nr = n % 16, c = nt >> 2, j = nt & 3, block = nr >> 3;
            rows[r].idx = B == 4 ? _mm512_add_epi32(wordOf, _mm512_set1_epi32(int(j))) : wordOf;
            rows[r].shift = shiftOf[block];
            // 4-bit: words 128c + 16(nr&7) + 4m + j; 8-bit: 256c + 32(nr&7) + 8m + 2j + block.
            rows[r].col =
                p.qweight.data() + 4 * (B == 4 ? 128 * c + 16 * (nr & 7) : 256 * c + 32 * (nr & 7) + 2 * j + block);
            rows[r].out = out + (n - n0) * K;
        }
        // Spans of up to eight tiles in one group: each row writes its 128 floats of them in a run.
        // With four tiles (256 bytes a row) the 16 rows' stores crowded too few L1 sets, as in
        // gptqBlock (Marlin-4 .37 -> .45 of memcpy with eight).
        uint64_t group = ~uint64_t(0);
        for (uint64_t kt0 = 0; kt0 < tiles;) {
            const uint64_t g = 16 * kt0 / p.groupSize;
            const uint64_t kt1 = std::min({tiles, kt0 + 8, (g + 1) * p.groupSize / 16});
            if (g != group) {
                group = g;
                // The block's 16 scales at once: read one by one they cost a quarter of the time.
                const __m512 sv = marlinScales(p, g, nb, count);
                _mm512_store_ps(scale, sv);
                if constexpr (B == 4)
                    for (uint64_t r = 0; r < count; ++r)
                        table[r] = _mm512_mul_ps(_mm512_permutexvar_ps(_mm512_set1_epi32(int(r)), sv), centered);
            }
            for (uint64_t r = 0; r < count; ++r) {
                const Row& row = rows[r];
                for (uint64_t kt = kt0; kt < kt1; ++kt) {
                    const uint8_t* w = row.col + 4 * kt * wordsPerTile;
                    if constexpr (B == 4) {
                        const __m512i v = _mm512_permutexvar_epi32(row.idx, _mm512_loadu_si512(w));
                        _mm512_storeu_ps(row.out + 16 * kt,
                                         _mm512_permutexvar_ps(_mm512_srlv_epi32(v, row.shift), table[r]));
                    } else {
                        // Words 16..24 only: the block's last row reads no further.
                        const __m512i v = _mm512_permutex2var_epi32(_mm512_loadu_si512(w), row.idx,
                                                                    _mm512_maskz_loadu_epi32(0x01FF, w + 64));
                        const __m512i q = _mm512_ternarylogic_epi32(_mm512_srlv_epi32(v, row.shift), low8, magic,
                                                                    0xEA); // (a & b) | c
                        _mm512_storeu_ps(
                            row.out + 16 * kt,
                            _mm512_mul_ps(_mm512_set1_ps(scale[r]), _mm512_sub_ps(_mm512_castsi512_ps(q), zf)));
                    }
                }
            }
            kt0 = kt1;
        }
    }
}

// 16 consecutive scales from element `index` of the scale tensor; lanes outside `live` read
// nothing and hold zero.
inline __m512 scaleRun(const PackedLinear& p, uint64_t index, __mmask16 live)
{
    const uint8_t* sc = p.scales.data() + (p.scaleType == ScaleType::F32 ? 4 : 2) * index;
    if (p.scaleType == ScaleType::F32)
        return _mm512_maskz_loadu_ps(live, sc);
    const __m256i h = _mm256_maskz_loadu_epi16(live, sc);
    return p.scaleType == ScaleType::F16 ? _mm512_cvtph_ps(h)
                                         : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// The 16 scales of rows n..n+15 in group g ([G, N] scales, the GPTQ layouts).
inline __m512 scales16(const PackedLinear& p, uint64_t g, uint64_t n)
{
    return scaleRun(p, g * p.N + n, 0xFFFF);
}

// Stored zero fields to the true zeros, by zeroAt's rules.
inline __m512i trueZeros(const PackedLinear& p, __m512i f)
{
    if (p.zeros != ZeroConvention::StoredMinusOne)
        return f;
    f = _mm512_add_epi32(f, _mm512_set1_epi32(1));
    return p.v1ZeroWraps() ? _mm512_and_si512(f, _mm512_set1_epi32((1 << p.bits) - 1)) : f;
}

// The true zeros of rows n..n+15 in group g, as zeroAt gives them: the 16 packed fields read
// as one vector (B <= 4: one multishift of the 8 bytes they lie in; B = 8: 16 bytes widened).
template <int B>
__m512i zeros16(const PackedLinear& p, uint64_t g, uint64_t n)
{
    const uint64_t bit = p.zeroFieldBit(g, n), at = bit / 8;
    const int off = int(bit % 8);
    __m512i z;
    if (at + 16 > p.qzeros.size() || off + 16 * B > 64 + (B == 8 ? 64 : 0)) {
        alignas(64) int32_t f[16];
        for (uint64_t l = 0; l < kRows; ++l)
            f[l] = p.zeroAt(g, n + l);
        return _mm512_load_si512(f);
    }
    if constexpr (B == 8) {
        z = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p.qzeros.data() + at)));
    } else {
        // Lane i's control byte off + B i (built in a register: sixteen byte stores read back as
        // one vector stalled on store forwarding, a tenth of GPTQ-2's time).
        const __m512i control =
            _mm512_add_epi32(_mm512_set1_epi32(off),
                             _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                _mm512_set1_epi32(B)));
        uint64_t w;
        std::memcpy(&w, p.qzeros.data() + at, 8);
        z = _mm512_and_si512(_mm512_multishift_epi64_epi8(control, _mm512_set1_epi64(int64_t(w))),
                             _mm512_set1_epi32((1 << B) - 1));
    }
    return trueZeros(p, z);
}

// One group's values for rows n..n+15. B <= 4: per row the 16-entry table of s * float(q - z)
// for q = 0..2^B - 1, each repeated in the entries whose low B bits are q (vpermps reads index
// bits 0..3, and a code shifted into its lane may have its neighbours' bits above it). B = 8:
// per row s and 2^23 + z as floats, for s * ((2^23 + q) - (2^23 + z)) = s * float(q - z).
template <int B>
struct RunAffine {
    __m512 table[B <= 4 ? kRows : 1];
    alignas(64) float s[kRows], zf[kRows];
    void fill(const PackedLinear& p, uint64_t g, uint64_t n) { fill(scales16(p, g, n), zeros16<B>(p, g, n)); }
    void fill(__m512 sv, __m512i z)
    {
        if constexpr (B <= 4) {
            const __m512i q = _mm512_and_si512(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                               _mm512_set1_epi32((1 << B) - 1));
            for (uint64_t l = 0; l < kRows; ++l) {
                const __m512i lane = _mm512_set1_epi32(int(l));
                table[l] = _mm512_mul_ps(_mm512_permutexvar_ps(lane, sv),
                                         _mm512_cvtepi32_ps(_mm512_sub_epi32(q, _mm512_permutexvar_epi32(lane, z))));
            }
        } else {
            _mm512_store_ps(s, sv);
            _mm512_store_ps(zf, _mm512_add_ps(_mm512_cvtepi32_ps(z), _mm512_set1_ps(8388608.0f)));
        }
    }
};

// Lanes lo..hi-1 of a 16-lane vector.
inline __mmask16 laneRange(uint64_t lo, uint64_t hi)
{
    return __mmask16(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

// The codes of a GPTQ span (up to 64 k from kb) for 16 output rows, the span's word rows read
// once. Word row r holds bits 32r..32r+31 of every column's code stream, so one 64-byte load
// gives the 16 rows' words of it. B <= 4: the 16 codes k..k+15 of a row lie in one qword of two
// word rows (interleaved by vpunpckl/hdq); one vpermq broadcasts a row's qword and one
// multishift moves each code to its lane's low byte (the next codes' bits above it). B = 8: four
// word rows transposed 4x4 (vpunpck dq/qdq) give each row's 16 code bytes in one 128-bit lane;
// one vpermb widens a row's, zero above.
template <int B>
struct GptqSpan {
    static constexpr uint64_t kSpan = 64, kVecs = kSpan / 16;
    __m512i w[B <= 4 ? 2 * kVecs : 4 * kVecs];
    __m512i offsets, offsets16, widen0;
    uint64_t kb = 0;
    GptqSpan()
    {
        alignas(64) uint8_t o0[64] = {}, o16[64] = {}, widen[64] = {};
        for (int i = 0; i < 16; ++i) {
            o0[(i / 2) * 8 + (i % 2) * 4] = uint8_t(B * i);
            o16[(i / 2) * 8 + (i % 2) * 4] = uint8_t(B * i + 16);
            widen[4 * i] = uint8_t(i);
        }
        offsets = _mm512_load_si512(o0);
        offsets16 = _mm512_load_si512(o16);
        widen0 = _mm512_load_si512(widen);
    }
    // wordRow(r): the 16 rows' word of word row r (zeros past the last).
    template <typename WordRow>
    void load(WordRow wordRow, uint64_t from, uint64_t vecs)
    {
        kb = from;
        for (uint64_t i = 0; i < vecs; ++i) {
            if constexpr (B <= 4) {
                const uint64_t r = B * (kb + 16 * i) / 32;
                // 2-bit: the 16 codes are one word, the qword's high half is not read.
                const __m512i a = wordRow(r), b = B == 2 ? a : wordRow(r + 1);
                w[2 * i] = _mm512_unpacklo_epi32(a, b); // qwords: rows 4c, 4c + 1 of lane c
                w[2 * i + 1] = _mm512_unpackhi_epi32(a, b); // rows 4c + 2, 4c + 3
            } else {
                const uint64_t r = (kb + 16 * i) / 4;
                const __m512i a = wordRow(r), b = wordRow(r + 1), c = wordRow(r + 2), d = wordRow(r + 3);
                const __m512i abLo = _mm512_unpacklo_epi32(a, b), abHi = _mm512_unpackhi_epi32(a, b);
                const __m512i cdLo = _mm512_unpacklo_epi32(c, d), cdHi = _mm512_unpackhi_epi32(c, d);
                // Lane c of w[4i + j]: the 16 code bytes of row 4c + j.
                w[4 * i] = _mm512_unpacklo_epi64(abLo, cdLo);
                w[4 * i + 1] = _mm512_unpackhi_epi64(abLo, cdLo);
                w[4 * i + 2] = _mm512_unpacklo_epi64(abHi, cdHi);
                w[4 * i + 3] = _mm512_unpackhi_epi64(abHi, cdHi);
            }
        }
    }
    // Row l's codes of vector i, one to a lane's low byte.
    __m512i codes(uint64_t l, uint64_t i) const
    {
        if constexpr (B <= 4) {
            const __m512i off = B == 3 && (kb + 16 * i) % 32 ? offsets16 : offsets;
            int64_t q;
            std::memcpy(&q, reinterpret_cast<const char*>(&w[2 * i + l % 4 / 2]) + 8 * (2 * (l / 4) + l % 2), 8);
            return _mm512_multishift_epi64_epi8(off, _mm512_set1_epi64(q));
        } else {
            const __m512i idx = _mm512_add_epi8(widen0, _mm512_set1_epi8(char(16 * (l / 4))));
            return _mm512_maskz_permutexvar_epi8(0x1111111111111111ull, idx, w[4 * i + l % 4]);
        }
    }
};

// GPTQ (stream layout, B = 2, 3, 4, 8), 16 output rows n..n+15, groups in monotonic runs along
// k. Spans of 64 k (B <= 4: two at once where whole): the word rows are read once (GptqSpan),
// then each row gets its 64 floats of a span:
// B <= 4, one vpermps looks each code up in the row's and run's table; B = 8, the code under
// 2^23's exponent bits. A vector a run ends or starts in, and the column tail past K, is
// written with a masked store (its missing word rows read as zeros).
template <int B>
void gptqBlock(const PackedLinear& p, const std::vector<PackedLinear::GroupRun>& runs, uint64_t n, float* rows)
{
    constexpr uint64_t Span = GptqSpan<B>::kSpan, Vecs = GptqSpan<B>::kVecs;
    const uint64_t K = p.K, N = p.N, wordRows = (K * B + 31) / 32;
    const uint8_t* qw = p.qweight.data() + 4 * n;
    const __m512i magic = _mm512_set1_epi32(0x4B000000);
    GptqSpan<B> span[2];
    RunAffine<B> ra;
    // Row l's vectors i < vecs of the loaded span s; masked (the run's or K's ends) unless Whole.
    const auto put = [&](auto whole, const GptqSpan<B>& s, uint64_t l, uint64_t vecs, const __mmask16* mask) {
        constexpr bool Whole = decltype(whole)::value;
        float* row = rows + l * K + s.kb;
        for (uint64_t i = 0; i < (Whole ? Vecs : vecs); ++i) {
            const __m512i q = s.codes(l, i);
            __m512 x;
            if constexpr (B <= 4)
                x = _mm512_permutexvar_ps(q, ra.table[l]);
            else
                x = _mm512_mul_ps(
                    _mm512_set1_ps(ra.s[l]),
                    _mm512_sub_ps(_mm512_castsi512_ps(_mm512_or_si512(q, magic)), _mm512_set1_ps(ra.zf[l])));
            if constexpr (Whole)
                _mm512_storeu_ps(row + 16 * i, x);
            else
                _mm512_mask_storeu_ps(row + 16 * i, mask[i], x);
        }
    };
    for (const PackedLinear::GroupRun& run : runs) {
        ra.fill(p, run.group, n);
        for (uint64_t kb = run.k0 / 16 * 16; kb < run.k1;) {
            const uint64_t ke = std::min({run.k1, kb + Span, K});
            // B <= 4: two whole spans at once, the rows alternating between them. The 16 rows'
            // lines at one column share an L1 set when 4K is a multiple of 4 KiB, and 64-byte
            // stores to one set from row after row run at half the speed of alternating ones
            // (bench_layoutbound: st64 kernel order, paired spans). B = 8 would spill. (B = 2, 3
            // measured slower paired while a vpermq brought each row's codes; with the load's
            // broadcast they gain a quarter or more, at N = 1024 and 1088 alike.)
            const bool pair = B <= 4 && kb >= run.k0 && kb + 2 * Span <= std::min(run.k1, K);
            // Each row of words is its own page for large N: fetch those six spans ahead. Not
            // for 8 bits nor pairs, where it measured 10-30% slower with the input in L2 (8 bits
            // streaming too); single spans (runs not of whole spans) lose a third without it
            // when streaming.
            if (B <= 4 && !pair)
                for (uint64_t r = (kb + 6 * Span) * B / 32; r < std::min(wordRows, (kb + 7 * Span) * B / 32); ++r) {
                    _mm_prefetch(reinterpret_cast<const char*>(qw + 4 * r * N), _MM_HINT_T0);
                    _mm_prefetch(reinterpret_cast<const char*>(qw + 4 * r * N + 63), _MM_HINT_T0);
                }
            if (pair) {
                for (uint64_t h = 0; h < 2; ++h)
                    span[h].load([&](uint64_t r) { return _mm512_loadu_si512(qw + 4 * r * N); }, kb + h * Span, Vecs);
                [&]<size_t... L>(std::index_sequence<L...>)
                {
                    ((put(std::true_type{}, span[L % 2], L, Vecs, nullptr)), ...);
                    ((put(std::true_type{}, span[(L + 1) % 2], L, Vecs, nullptr)), ...);
                }
                (std::make_index_sequence<kRows>{});
                kb += 2 * Span;
                continue;
            }
            // A single span: whole vectors inside the run and the word rows take unmasked stores
            // and unchecked loads; otherwise masks, and missing word rows read as zeros.
            const bool full = kb >= run.k0 && ke == kb + Span;
            const auto write = [&](auto whole) {
                constexpr bool Whole = decltype(whole)::value;
                const uint64_t vecs = Whole ? Vecs : (ke - kb + 15) / 16;
                __mmask16 mask[Vecs];
                for (uint64_t i = 0; i < vecs; ++i)
                    mask[i] = Whole ? __mmask16(0xFFFF)
                                    : laneRange(std::max(run.k0, kb + 16 * i) - (kb + 16 * i),
                                                std::min(ke, kb + 16 * i + 16) - (kb + 16 * i));
                span[0].load(
                    [&](uint64_t r) {
                        return Whole || r < wordRows ? _mm512_loadu_si512(qw + 4 * r * N) : _mm512_setzero_si512();
                    },
                    kb, vecs);
                for (uint64_t l = 0; l < kRows; ++l)
                    put(whole, span[0], l, vecs, mask);
            };
            if (full)
                write(std::true_type{});
            else
                write(std::false_type{});
            kb += Span;
        }
    }
}

// Planar GPTQ (gptq_p, B = 3, 5, 6, 7): each chunk of 32 k has B word rows, planes of 4, 2 and
// 1 bits (gptqPlanes) in that order; code j of a plane of width w sits in its word j / (32 / w)
// at bit w * (j % (32 / w)). So the 16 codes of half h of a chunk are, in a plane of width 4,
// the qword of its words 2h, 2h + 1 (code i at bit 4i); of width 2, its word h (bit 2i); of
// width 1, its word (bit 16h + i). The qzeros rows are planes along n the same way.
template <int B>
struct PlanarPlanes {
    static constexpr int kCount = B == 7 ? 3 : 2;
    static constexpr int kWidth[3] = {B == 3 ? 2 : 4, B == 3 ? 1 : B == 7 ? 2 : B - 4, 1};
    __m512i offsets[3][2]; // [plane][half]: lane i's multishift control, bit w * i (w = 1: 16h + i)
    PlanarPlanes()
    {
        const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for (int pl = 0; pl < kCount; ++pl)
            for (int h = 0; h < 2; ++h)
                offsets[pl][h] = kWidth[pl] == 1 ? _mm512_add_epi32(lane, _mm512_set1_epi32(16 * h))
                                                 : _mm512_mullo_epi32(lane, _mm512_set1_epi32(kWidth[pl]));
    }
    // The B-bit codes of half h of a chunk, one to a lane, from its plane words: word(first, two)
    // gives plane word `first` in every qword (with word `first` + 1 as the high half when two).
    template <typename Word>
    __m512i fields(uint64_t h, Word word) const
    {
        __m512i q = field<0>(h, word);
        q = _mm512_or_si512(q, field<1>(h, word));
        if constexpr (kCount > 2)
            q = _mm512_or_si512(q, field<2>(h, word));
        return q;
    }
    // Plane Pl's codes, shifted above the planes before it (its first word row is their widths' sum).
    template <int Pl, typename Word>
    __m512i field(uint64_t h, Word& word) const
    {
        constexpr int w = kWidth[Pl], row = Pl == 0 ? 0 : Pl == 1 ? kWidth[0] : kWidth[0] + kWidth[1];
        const __m512i piece = w == 4 ? word(row + 2 * int(h), true) : word(row + (w == 2 ? int(h) : 0), false);
        const __m512i f =
            _mm512_and_si512(_mm512_multishift_epi64_epi8(offsets[Pl][h], piece), _mm512_set1_epi32((1 << w) - 1));
        return _mm512_slli_epi32(f, row);
    }
};

// The codes of a planar span (up to 64 k from kb, two chunks) for 16 output rows, its word rows
// read once; GptqSpan's interface.
template <int B>
struct PlanarSpan {
    static constexpr uint64_t kSpan = 64, kVecs = kSpan / 16;
    PlanarPlanes<B> planes;
    __m512i w[2][B];
    uint64_t kb = 0;
    template <typename WordRow>
    void load(WordRow wordRow, uint64_t from, uint64_t vecs)
    {
        kb = from;
        for (uint64_t c = 0; c < (vecs + 1) / 2; ++c)
            for (int r = 0; r < B; ++r)
                w[c][r] = wordRow((kb / 32 + c) * B + uint64_t(r));
    }
    // Row l's codes of vector i, one to a lane.
    __m512i codes(uint64_t l, uint64_t i) const
    {
        const __m512i* chunk = w[i / 2];
        const __m512i pair = _mm512_set1_epi64(int64_t(uint64_t(16 + l) << 32 | l)); // lane l of two word rows
        return planes.fields(i % 2, [&](int first, bool two) {
            return two ? _mm512_permutex2var_epi32(chunk[first], pair, chunk[first + 1])
                       : _mm512_permutexvar_epi32(_mm512_set1_epi32(int(l)), chunk[first]);
        });
    }
};

// The true zeros of planar rows n..n+15 in group g (rows that straddle two halves: zeroAt's).
template <int B>
__m512i planarZeros16(const PackedLinear& p, const PlanarPlanes<B>& planes, uint64_t g, uint64_t n)
{
    if (n % 16) {
        alignas(64) int32_t z[16];
        for (uint64_t l = 0; l < kRows; ++l)
            z[l] = p.zeroAt(g, n + l);
        return _mm512_load_si512(z);
    }
    const uint8_t* row = p.qzeros.data() + 4 * (g * (p.N * B / 32) + n / 32 * B);
    const __m512i z = planes.fields((n % 32) / 16, [&](int first, bool two) {
        uint64_t v = 0;
        std::memcpy(&v, row + 4 * first, two ? 8 : 4);
        return _mm512_set1_epi64(int64_t(two ? v : v | v << 32));
    });
    return trueZeros(p, z);
}

// GPTQ with each code's own group (a permuted g_idx, desc_act; and planar GPTQ, any grouping), at
// most 32 * Banks groups, 16 output rows n..n+15: each row's scales and true zeros of every group
// are held as tables of 32 entries a bank and each lane looks its group up (vpermt2ps in each
// bank, the lane's bank kept), then s * float(q - z), the reference's operations. The
// codes come from the span (GptqSpan, PlanarSpan), the zeros from zerosOf(g), the group of each
// k from groupOfK (g_idx, or k / group size), or, null, of each vector of 16 k (group size a
// multiple of 16).
template <int B, int Banks, typename Span, typename Zeros>
void lookupBlock(const PackedLinear& p, uint64_t n, float* rows, const int32_t* groupOfK, Zeros zerosOf)
{
    constexpr uint64_t SpanK = Span::kSpan, Vecs = Span::kVecs, Entries = 32 * Banks;
    const uint64_t K = p.K, N = p.N, wordRows = (K * B + 31) / 32;
    const uint8_t* qw = p.qweight.data() + 4 * n;
    // Row l's tables: scale[l][g], and zero[l][g] as 2^23 + z: a code put under 2^23's exponent
    // bits less it is float(q - z) exactly (both integers below 2^24), no conversion needed.
    alignas(64) float scale[kRows][Entries] = {};
    alignas(64) float zero[kRows][Entries] = {};
    for (uint64_t g = 0; g < p.groups; ++g) {
        alignas(64) float sv[16], zv[16];
        _mm512_store_ps(sv, scales16(p, g, n));
        _mm512_store_ps(zv, _mm512_add_ps(_mm512_cvtepi32_ps(zerosOf(g)), _mm512_set1_ps(8388608.0f)));
        for (uint64_t l = 0; l < kRows; ++l) {
            scale[l][g] = sv[l];
            zero[l][g] = zv[l];
        }
    }
    const __m512i codeMask = _mm512_set1_epi32((1 << B) - 1), magic = _mm512_set1_epi32(0x4B000000);
    // A span's groups per vector of 16 k, and which lanes' groups lie in each bank past the first.
    struct Groups {
        __m512i group[Vecs];
        __mmask16 mask[Vecs], inBank[Vecs][Banks];
        void of(const PackedLinear& q, const int32_t* gk, uint64_t kb, uint64_t vecs)
        {
            for (uint64_t i = 0; i < vecs; ++i) {
                mask[i] = laneRange(0, std::min<uint64_t>(16, q.K - (kb + 16 * i)));
                group[i] = gk ? _mm512_maskz_loadu_epi32(mask[i], gk + kb + 16 * i)
                              : _mm512_set1_epi32(int((kb + 16 * i) / q.groupSize));
                for (int b = 1; b < Banks; ++b)
                    inBank[i][b] = _mm512_cmpeq_epi32_mask(_mm512_srli_epi32(group[i], 5), _mm512_set1_epi32(b));
            }
        }
    };
    // Row l's vectors i < vecs of a loaded span and its groups; masked unless Whole.
    const auto put = [&](auto whole, const Span& span, const Groups& gr, uint64_t l, uint64_t vecs) {
        constexpr bool Whole = decltype(whole)::value;
        float* row = rows + l * K + span.kb;
        for (uint64_t i = 0; i < (Whole ? Vecs : vecs); ++i) {
            const __m512i group = gr.group[i];
            __m512 sv = _mm512_permutex2var_ps(_mm512_load_ps(scale[l]), group, _mm512_load_ps(scale[l] + 16));
            __m512 zv = _mm512_permutex2var_ps(_mm512_load_ps(zero[l]), group, _mm512_load_ps(zero[l] + 16));
            for (int b = 1; b < Banks; ++b) {
                const float* sb = scale[l] + 32 * b;
                const float* zb = zero[l] + 32 * b;
                sv = _mm512_mask_blend_ps(gr.inBank[i][b], sv,
                                          _mm512_permutex2var_ps(_mm512_load_ps(sb), group, _mm512_load_ps(sb + 16)));
                zv = _mm512_mask_blend_ps(gr.inBank[i][b], zv,
                                          _mm512_permutex2var_ps(_mm512_load_ps(zb), group, _mm512_load_ps(zb + 16)));
            }
            const __m512i q = _mm512_ternarylogic_epi32(span.codes(l, i), codeMask, magic, 0xEA); // (a & b) | c
            const __m512 x = _mm512_mul_ps(sv, _mm512_sub_ps(_mm512_castsi512_ps(q), zv));
            if constexpr (Whole)
                _mm512_storeu_ps(row + 16 * i, x);
            else
                _mm512_mask_storeu_ps(row + 16 * i, gr.mask[i], x);
        }
    };
    const auto loadWords = [&](uint64_t r) {
        return r < wordRows ? _mm512_loadu_si512(qw + 4 * r * N) : _mm512_setzero_si512();
    };
    Span span[2];
    Groups groups[2];
    for (uint64_t kb = 0; kb < K;) {
        // Two whole spans at once, the rows alternating between them, as gptqBlock's pairs (the
        // 16 rows' stores to one L1 set); a single span, masked, at K's end.
        if (kb + 2 * SpanK <= K) {
            for (uint64_t h = 0; h < 2; ++h) {
                span[h].load(loadWords, kb + h * SpanK, Vecs);
                groups[h].of(p, groupOfK, kb + h * SpanK, Vecs);
            }
            for (uint64_t t = 0; t < 2; ++t)
                for (uint64_t l = 0; l < kRows; ++l)
                    put(std::true_type{}, span[(t + l) % 2], groups[(t + l) % 2], l, Vecs);
            kb += 2 * SpanK;
            continue;
        }
        const uint64_t vecs = (std::min(K, kb + SpanK) - kb + 15) / 16;
        span[0].load(loadWords, kb, vecs);
        groups[0].of(p, groupOfK, kb, vecs);
        for (uint64_t l = 0; l < kRows; ++l)
            put(std::false_type{}, span[0], groups[0], l, vecs);
        kb += SpanK;
    }
}

// The lookup kernel for rows n0..n1 in 16-row blocks, with the banks its groups need (at most
// 128 groups: K = 16384 at group size 128); the remainder rows take the AVX2 path.
template <int B, typename Span, typename ZerosFor>
bool lookupRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out, ZerosFor zerosFor)
{
    if (p.groups > 128)
        return false;
    std::vector<int32_t> computed;
    const int32_t* groupOfK = reinterpret_cast<const int32_t*>(p.gIdx.data());
    if (p.gIdx.empty() && p.groupSize % 16) {
        computed.resize(p.K);
        for (uint64_t k = 0, g = 0, left = p.groupSize; k < p.K; ++k, --left) {
            if (left == 0) {
                ++g;
                left = p.groupSize;
            }
            computed[k] = int32_t(g);
        }
        groupOfK = computed.data();
    }
    uint64_t n = n0;
    for (; n + kRows <= n1; n += kRows) {
        float* rows = out + (n - n0) * p.K;
        const auto zerosOf = [&](uint64_t g) { return zerosFor(g, n); };
        if (p.groups <= 32)
            lookupBlock<B, 1, Span>(p, n, rows, groupOfK, zerosOf);
        else if (p.groups <= 64)
            lookupBlock<B, 2, Span>(p, n, rows, groupOfK, zerosOf);
        else
            lookupBlock<B, 4, Span>(p, n, rows, groupOfK, zerosOf);
    }
    if (n < n1)
        avx2::dequantPackedRows(p, n, n1, out + (n - n0) * p.K);
    return true;
}

// GPTQ with groups in runs (no g_idx, or a monotonic one): gptqBlock; with a permuted g_idx: the
// lookup kernel.
template <int B>
bool gptqRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    std::vector<PackedLinear::GroupRun> local;
    const auto& runs = p.groupRuns(local);
    if (runs.empty())
        return lookupRows<B, GptqSpan<B>>(p, n0, n1, out, [&](uint64_t g, uint64_t n) { return zeros16<B>(p, g, n); });
    uint64_t n = n0;
    for (; n + kRows <= n1; n += kRows)
        gptqBlock<B>(p, runs, n, out + (n - n0) * p.K);
    if (n < n1)
        avx2::dequantPackedRows(p, n, n1, out + (n - n0) * p.K);
    return true;
}

template <int B>
bool planarRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const PlanarPlanes<B> planes;
    return lookupRows<B, PlanarSpan<B>>(p, n0, n1, out,
                                        [&](uint64_t g, uint64_t n) { return planarZeros16<B>(p, planes, g, n); });
}

// AWQ GEMM, 16 output rows n..n+15 (n a multiple of 8), groups of whole 16-code vectors: word
// (k, c) holds columns 8c..8c+7, so the 8 bytes of word columns n/8, n/8 + 1 at one k hold the
// 16 rows' codes of it. Spans of 64 k: those qwords are loaded into vectors of eight k once; per
// row one vpermt2d gives each lane (k) its word, one shift its slot's nibble, and one vpermps
// looks it up in the row's and group's table. The column tail past K takes masked stores.
void awqGemmBlock(const PackedLinear& p, uint64_t n, float* rows)
{
    constexpr uint64_t Span = 64, Vecs = Span / 16;
    const uint64_t K = p.K, stride = 4 * (p.N / 8);
    const uint8_t* col = p.qweight.data() + 4 * (n / 8);
    // Zeros: lane l reads word l / 8 of the two at (g, n / 8), shifted to column l % 8's slot.
    alignas(64) int32_t zsh[16], sh[8];
    for (int l = 0; l < 16; ++l)
        zsh[l] = 4 * kAwqSlotOf[size_t(l % 8)];
    for (int j = 0; j < 8; ++j)
        sh[j] = 4 * kAwqSlotOf[size_t(j)];
    const __m512i zeroShift = _mm512_load_si512(zsh);
    const __m512i zeroWord = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    // vpermt2d indices: lane i takes dword 2i + w of the eight qwords (two vectors) of its k.
    const __m512i pick[2] = {_mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
                             _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)};
    RunAffine<4> ra;
    for (uint64_t g = 0; g < p.groups; ++g) {
        uint64_t zw;
        std::memcpy(&zw, p.qzeros.data() + 4 * (g * (p.N / 8) + n / 8), 8);
        const __m512i f = _mm512_and_si512(
            _mm512_srlv_epi32(_mm512_permutexvar_epi32(zeroWord, _mm512_set1_epi64(int64_t(zw))), zeroShift),
            _mm512_set1_epi32(0xF));
        ra.fill(scales16(p, g, n), trueZeros(p, f));
        const uint64_t k1 = std::min(K, (g + 1) * p.groupSize);
        for (uint64_t kb = g * p.groupSize; kb < k1; kb += Span) {
            const uint64_t ke = std::min(k1, kb + Span), vecs = (ke - kb + 15) / 16;
            // No software prefetch: one of each k's line two spans ahead measured 5-25% slower
            // (input in L2 or streaming, N = 1024, 1088 and 4096).
            __m512i v[2 * Vecs];
            for (uint64_t i = 0; i < vecs; ++i) {
                __m128i q[8];
                for (uint64_t h = 0; h < 2; ++h) {
                    for (uint64_t j = 0; j < 8; ++j) {
                        const uint64_t k = kb + 16 * i + 8 * h + j;
                        q[j] = k < ke ? _mm_loadl_epi64(reinterpret_cast<const __m128i*>(col + k * stride))
                                      : _mm_setzero_si128();
                    }
                    const __m256i lo = _mm256_set_m128i(_mm_unpacklo_epi64(q[2], q[3]), _mm_unpacklo_epi64(q[0], q[1]));
                    const __m256i hi = _mm256_set_m128i(_mm_unpacklo_epi64(q[6], q[7]), _mm_unpacklo_epi64(q[4], q[5]));
                    v[2 * i + h] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
                }
            }
            for (uint64_t l = 0; l < kRows; ++l) {
                const __m128i count = _mm_cvtsi32_si128(sh[l % 8]);
                float* row = rows + l * K + kb;
                for (uint64_t i = 0; i < vecs; ++i) {
                    const __m512i w = _mm512_permutex2var_epi32(v[2 * i], pick[l / 8], v[2 * i + 1]);
                    const __m512 x = _mm512_permutexvar_ps(_mm512_srl_epi32(w, count), ra.table[l]);
                    if (kb + 16 * i + 16 <= ke)
                        _mm512_storeu_ps(row + 16 * i, x);
                    else
                        _mm512_mask_storeu_ps(row + 16 * i, laneRange(0, ke - kb - 16 * i), x);
                }
            }
        }
    }
}

void awqGemmRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    // Rows before the first word boundary, and the last fewer than 16, take the AVX2 path.
    const uint64_t lead = std::min(n1, (n0 + 7) / 8 * 8);
    if (lead > n0)
        avx2::dequantPackedRows(p, n0, lead, out);
    uint64_t n = lead;
    for (; n + kRows <= n1; n += kRows)
        awqGemmBlock(p, n, out + (n - n0) * p.K);
    if (n < n1)
        avx2::dequantPackedRows(p, n, n1, out + (n - n0) * p.K);
}

// AWQ GEMV: a row's codes are contiguous along k, 16 per 8 bytes, and so are its groups' scales
// and zero nibbles: 16 groups' of each are read at once, and each group's table is formed from
// lanes of them (a scalar read of each group's scale and zero cost as much as its stores).
void awqGemvRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K, fullK = K / 16 * 16;
    const __m512i codes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint64_t n = n0; n < n1; ++n) {
        float* row = out + (n - n0) * K;
        const uint8_t* words = p.qweight.data() + 4 * n * ((K + 7) / 8);
        const uint8_t* zeroRow = p.qzeros.data() + 4 * n * p.zeroWords; // nibble g: group g's stored zero
        for (uint64_t g0 = 0; g0 < p.groups; g0 += 16) {
            const uint64_t count = std::min<uint64_t>(16, p.groups - g0);
            const __m512 s = scaleRun(p, n * p.scaleRows + g0, laneRange(0, count));
            uint8_t zeroBytes[8] = {};
            std::memcpy(zeroBytes, zeroRow + g0 / 2, (count + 1) / 2);
            const __m512i z = trueZeros(p, _mm512_and_si512(nibbleLanes16(zeroBytes), _mm512_set1_epi32(0xF)));
            for (uint64_t j = 0; j < count; ++j) {
                const __m512i lane = _mm512_set1_epi32(int(j));
                const __m512 t =
                    _mm512_mul_ps(_mm512_permutexvar_ps(lane, s),
                                  _mm512_cvtepi32_ps(_mm512_sub_epi32(codes, _mm512_permutexvar_epi32(lane, z))));
                const uint64_t g = g0 + j, k1 = std::min(fullK, (g + 1) * p.groupSize);
                for (uint64_t k = g * p.groupSize; k < k1; k += 16)
                    _mm512_storeu_ps(row + k, _mm512_permutexvar_ps(nibbleLanes16(words + k / 2), t));
            }
        }
        tailColumns(p, n, 1, fullK, row);
    }
}

// fp16 rounding (RNE) of 16 floats, back to float: the AVX2 path's toHalf, lane for lane.
inline __m512 toHalf16(__m512 x)
{
    return _mm512_cvtph_ps(_mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// GEMV_FAST (B.2.3), groups of whole 32-channel blocks: per row and group the 16 values
// fp16(fp16(q*s) + bias) of codes q = 0..15, formed as the AVX2 path forms each value, and
// looked up with one vpermps. Per 32-channel block of a 4-row int16 block (64 bytes), one vpermb
// puts channel j's low byte (rows 0, 1) in byte 0 of dword j, its high byte (rows 2, 3) in byte
// 1, and channel 16 + j's in bytes 2, 3: row t's code of channel 16h + j is that dword shifted
// right by 16h + 4t (vpermps reads bits 0..3). Row blocks cut by n0 or n1 store only their rows.
void awqGemvFastRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K;
    alignas(64) uint8_t idx[64];
    for (uint64_t j = 0; j < 16; ++j)
        for (uint64_t h = 0; h < 2; ++h) {
            const uint64_t pos = gemvFastPosition(16 * h + j);
            idx[4 * j + 2 * h] = uint8_t(2 * pos);
            idx[4 * j + 2 * h + 1] = uint8_t(2 * pos + 1);
        }
    const __m512i order = _mm512_load_si512(idx);
    const __m512 codes = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint64_t nb = n0 / 4 * 4; nb < n1; nb += 4) {
        const uint8_t* src = p.qweight.data() + 2 * (nb / 4) * K;
        float* rows[4];
        bool live[4];
        for (uint64_t t = 0; t < 4; ++t) {
            live[t] = nb + t >= n0 && nb + t < n1;
            rows[t] = live[t] ? out + (nb + t - n0) * K : nullptr;
        }
        __m512 table[4];
        for (uint64_t g = 0; g < p.groups; ++g) {
            // The block's four scales and biases of group g, adjacent F16 values each.
            uint64_t sb, bb;
            std::memcpy(&sb, p.scales.data() + 2 * (g * p.N + nb), 8);
            std::memcpy(&bb, p.qzeros.data() + 2 * (g * p.N + nb), 8);
            const __m512 s4 = _mm512_castps128_ps512(_mm_cvtph_ps(_mm_cvtsi64_si128(int64_t(sb))));
            const __m512 b4 = _mm512_castps128_ps512(_mm_cvtph_ps(_mm_cvtsi64_si128(int64_t(bb))));
            for (uint64_t t = 0; t < 4; ++t) {
                const __m512i lane = _mm512_set1_epi32(int(t));
                table[t] = toHalf16(_mm512_add_ps(toHalf16(_mm512_mul_ps(codes, _mm512_permutexvar_ps(lane, s4))),
                                                  _mm512_permutexvar_ps(lane, b4)));
            }
            const uint64_t k1 = std::min(K, (g + 1) * p.groupSize);
            for (uint64_t k = g * p.groupSize; k < k1; k += 32) {
                const __m512i x = _mm512_permutexvar_epi8(order, _mm512_loadu_si512(src + 2 * k));
                // Row t by a constant index, so that the tables and codes stay in registers.
                const auto put = [&](auto row) {
                    constexpr int t = decltype(row)::value;
                    if (live[t]) {
                        _mm512_storeu_ps(rows[t] + k, _mm512_permutexvar_ps(_mm512_srli_epi32(x, 4 * t), table[t]));
                        _mm512_storeu_ps(rows[t] + k + 16,
                                         _mm512_permutexvar_ps(_mm512_srli_epi32(x, 16 + 4 * t), table[t]));
                    }
                };
                put(std::integral_constant<int, 0>{});
                put(std::integral_constant<int, 1>{});
                put(std::integral_constant<int, 2>{});
                put(std::integral_constant<int, 3>{});
            }
        }
    }
}

} // namespace

bool dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    if (p.kind == PackedKind::Marlin && p.groupSize % 16 == 0 && (p.bits == 4 || p.bits == 8)) {
        (p.bits == 4 ? marlinRows<4> : marlinRows<8>)(p, n0, n1, out);
        return true;
    }
    if (p.kind == PackedKind::Gptq && n1 - n0 >= kRows) {
        switch (p.bits) {
        case 2: return gptqRows<2>(p, n0, n1, out);
        case 3: return gptqRows<3>(p, n0, n1, out);
        case 4: return gptqRows<4>(p, n0, n1, out);
        case 8: return gptqRows<8>(p, n0, n1, out);
        default: break;
        }
    }
    if (p.kind == PackedKind::GptqPlanar && n1 - n0 >= kRows) {
        switch (p.bits) {
        case 3: return planarRows<3>(p, n0, n1, out);
        case 5: return planarRows<5>(p, n0, n1, out);
        case 6: return planarRows<6>(p, n0, n1, out);
        case 7: return planarRows<7>(p, n0, n1, out);
        default: break;
        }
    }
    if (p.kind == PackedKind::AwqGemm && p.groupSize % 16 == 0 && n1 - n0 >= kRows) {
        awqGemmRows(p, n0, n1, out);
        return true;
    }
    if (p.kind == PackedKind::AwqGemvFast && p.groupSize % 32 == 0) {
        awqGemvFastRows(p, n0, n1, out);
        return true;
    }
    if (p.kind == PackedKind::AwqGemv && p.bits == 4 && p.groupSize % 16 == 0) {
        awqGemvRows(p, n0, n1, out);
        return true;
    }
    return false;
}

} // namespace qs::avx512

QS_TIER_END
