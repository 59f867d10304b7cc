// AVX-512 paths for GPTQ (4- and 8-bit whole codes per word, groups in runs of whole 16-code
// vectors; 4-bit with any g_idx of at most 32 groups), AWQ GEMM and AWQ GEMV (groups of whole
// 16-code vectors) and Marlin (4 and 8 bits). Same float32 bits as the reference s * float(q - z): a 4-bit code selects its value from the row's and group's table
// of the 16 products (formed by the same lane-wise multiply) with one vpermps; an 8-bit code is
// put under the exponent of 2^23 by a byte permute, so one subtraction of 2^23 + z gives
// float(q - z) exactly (both operands are integers below 2^24), then the reference's multiply.
// What these do not cover returns false and the AVX2 path serves it.
#include "formats/gptq/gptq.h"
#include "base/nibble_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace qs::avx512 {

namespace {

constexpr uint64_t kRows = 16; // output rows per block: one 64-byte line of GPTQ words

inline int32_t load32(const uint8_t* p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The 16 values s * float(q - z) of codes q = 0..15.
inline __m512 codeTable(float s, int32_t z)
{
    const __m512i q = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm512_mul_ps(_mm512_set1_ps(s), _mm512_cvtepi32_ps(_mm512_sub_epi32(q, _mm512_set1_epi32(z))));
}

// Whether every group run starts on a multiple of `step` (each vector then lies in one group).
bool runsInSteps(const std::vector<PackedLinear::GroupRun>& runs, uint64_t step)
{
    return std::all_of(runs.begin(), runs.end(), [&](const PackedLinear::GroupRun& r) { return r.k0 % step == 0; });
}

void tailColumns(const PackedLinear& p, uint64_t n, uint64_t rows, uint64_t from, float* out)
{
    for (uint64_t l = 0; l < rows; ++l)
        for (uint64_t k = from; k < p.K; ++k)
            out[l * p.K + k] = p.valueAt(n + l, k);
}

// GPTQ 4-bit: a row's codes k..k+15 are its words in rows of words k/8 and k/8 + 1 (4N bytes
// apart), blended into the two halves of one vector and shifted into their lanes (bits 0..3;
// the bits above are the next codes').
inline __m512i gptq4Codes(const uint8_t* w, uint64_t N)
{
    const __m512i shifts = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
    return _mm512_srlv_epi32(_mm512_mask_blend_epi32(0xFF00, _mm512_set1_epi32(load32(w)), _mm512_set1_epi32(load32(w + 4 * N))), shifts);
}

// Prefetch rows of words [r0, r1) (below `end`) of the block's column: rows of words are pages
// apart for large N, a stride no hardware prefetcher follows.
inline void prefetchWordRows(const uint8_t* qw, uint64_t N, uint64_t r0, uint64_t r1, uint64_t end)
{
    for (uint64_t r = r0; r < std::min(r1, end); ++r)
        _mm_prefetch(reinterpret_cast<const char*>(qw + 4 * r * N), _MM_HINT_T0);
}

// GPTQ 4-bit, 16 rows, groups in whole vectors. Each output row is written in runs of a span of
// 128 codes while the span's 16 lines of words (one per row of words) stay in L1.
void gptq4Block(const PackedLinear& p, const std::vector<PackedLinear::GroupRun>& runs, uint64_t n, float* rows)
{
    constexpr uint64_t Span = 128;
    const uint64_t K = p.K, N = p.N, fullK = K / 16 * 16, wordRows = K / 8;
    const uint8_t* qw = p.qweight.data() + 4 * n;
    __m512 table[kRows];
    for (const PackedLinear::GroupRun& run : runs) {
        const uint64_t k1 = std::min(run.k1, fullK);
        if (run.k0 >= k1)
            continue;
        for (uint64_t l = 0; l < kRows; ++l)
            table[l] = codeTable(p.scaleAt(run.group, n + l), p.zeroAt(run.group, n + l));
        for (uint64_t kb = run.k0; kb < k1; kb += Span) {
            const uint64_t ke = std::min(k1, kb + Span);
            prefetchWordRows(qw, N, (kb + Span) / 8, (kb + 2 * Span) / 8, wordRows);
            for (uint64_t l = 0; l < kRows; ++l) {
                float* row = rows + l * K;
                const uint8_t* w = qw + 4 * (kb / 8) * N + 4 * l;
                const __m512 t = table[l];
                for (uint64_t k = kb; k < ke; k += 16, w += 8 * N)
                    _mm512_storeu_ps(row + k, _mm512_permutexvar_ps(gptq4Codes(w, N), t));
            }
        }
    }
    tailColumns(p, n, kRows, fullK, rows);
}

// GPTQ 8-bit, 16 rows: the four lines of words holding codes k..k+15 of the 16 rows (line r:
// row l's codes 4r..4r+3 in bytes 4l..4l+3) are regrouped by two rounds of byte permutes into
// four vectors of four rows' 16 codes each; a masked byte permute then puts each code in the
// low byte of its lane over 2^23's exponent bits.
void gptq8Block(const PackedLinear& p, const std::vector<PackedLinear::GroupRun>& runs, uint64_t n, float* rows)
{
    const uint64_t K = p.K, N = p.N, fullK = K / 16 * 16, wordRows = K / 4;
    const uint8_t* qw = p.qweight.data() + 4 * n;
    alignas(64) uint8_t pair[2][64], quad[2][64], spread[4][64];
    for (int b = 0; b < 64; ++b) {
        const int j = b % 8, j16 = b % 16;
        // Round 1: rows h*8 + b/8, their 4 bytes of line 2i then of line 2i + 1.
        for (int h = 0; h < 2; ++h)
            pair[h][b] = uint8_t((j < 4 ? 0 : 64) + 4 * (8 * h + b / 8) + j % 4);
        // Round 2: rows h*4 + b/16 of a round-1 vector, 8 bytes of the first then of the second.
        for (int h = 0; h < 2; ++h)
            quad[h][b] = uint8_t((j16 < 8 ? 0 : 64) + 8 * (4 * h + b / 16) + j16 % 8);
        // Row r of four: code b/4 (only the low byte of each lane is taken).
        for (int r = 0; r < 4; ++r)
            spread[r][b] = uint8_t(16 * r + b / 4);
    }
    const __m512i pairIdx[2] = {_mm512_load_si512(pair[0]), _mm512_load_si512(pair[1])};
    const __m512i quadIdx[2] = {_mm512_load_si512(quad[0]), _mm512_load_si512(quad[1])};
    __m512i spreadIdx[4];
    for (int r = 0; r < 4; ++r)
        spreadIdx[r] = _mm512_load_si512(spread[r]);
    const __m512i magic = _mm512_set1_epi32(0x4B000000); // 2^23
    constexpr __mmask64 lowBytes = 0x1111111111111111ull;
    alignas(64) float s[kRows], zf[kRows];
    for (const PackedLinear::GroupRun& run : runs) {
        const uint64_t k1 = std::min(run.k1, fullK);
        if (run.k0 >= k1)
            continue;
        for (uint64_t l = 0; l < kRows; ++l) {
            s[l] = p.scaleAt(run.group, n + l);
            zf[l] = 8388608.0f + float(p.zeroAt(run.group, n + l));
        }
        for (uint64_t k = run.k0; k < k1; k += 16) {
            const uint8_t* w = qw + 4 * (k / 4) * N;
            prefetchWordRows(qw, N, k / 4 + 16, k / 4 + 20, wordRows);
            const __m512i v0 = _mm512_loadu_si512(w), v1 = _mm512_loadu_si512(w + 4 * N);
            const __m512i v2 = _mm512_loadu_si512(w + 8 * N), v3 = _mm512_loadu_si512(w + 12 * N);
            __m512i quads[4];
            for (int h = 0; h < 2; ++h) {
                const __m512i a = _mm512_permutex2var_epi8(v0, pairIdx[h], v1);
                const __m512i b = _mm512_permutex2var_epi8(v2, pairIdx[h], v3);
                quads[2 * h] = _mm512_permutex2var_epi8(a, quadIdx[0], b);
                quads[2 * h + 1] = _mm512_permutex2var_epi8(a, quadIdx[1], b);
            }
            for (uint64_t l = 0; l < kRows; ++l) {
                const __m512i q = _mm512_mask_permutexvar_epi8(magic, lowBytes, spreadIdx[l % 4], quads[l / 4]);
                const __m512 d = _mm512_sub_ps(_mm512_castsi512_ps(q), _mm512_set1_ps(zf[l]));
                _mm512_storeu_ps(rows + l * K + k, _mm512_mul_ps(_mm512_set1_ps(s[l]), d));
            }
        }
    }
    tailColumns(p, n, kRows, fullK, rows);
}

// GPTQ 4-bit, 16 rows, any g_idx with at most 32 groups (act-order): per row its scales and
// zeros (as 2^23 + z) of every group sit in two vectors each, and each code's group index
// selects its pair with vpermt2ps. The code goes under 2^23's exponent bits (and-or in one
// ternary op), so the subtraction gives float(q - z) exactly.
void gptq4ActOrderBlock(const PackedLinear& p, const int32_t* groupOfK, uint64_t n, float* rows)
{
    constexpr uint64_t Span = 128;
    const uint64_t K = p.K, N = p.N, fullK = K / 16 * 16, wordRows = K / 8;
    const uint8_t* qw = p.qweight.data() + 4 * n;
    alignas(64) float s[kRows][32] = {}, zf[kRows][32] = {};
    for (uint64_t l = 0; l < kRows; ++l)
        for (uint64_t g = 0; g < p.groups; ++g) {
            s[l][g] = p.scaleAt(g, n + l);
            zf[l][g] = 8388608.0f + float(p.zeroAt(g, n + l));
        }
    const __m512i low4 = _mm512_set1_epi32(0xF), magic = _mm512_set1_epi32(0x4B000000);
    for (uint64_t kb = 0; kb < fullK; kb += Span) {
        const uint64_t ke = std::min(fullK, kb + Span);
        prefetchWordRows(qw, N, (kb + Span) / 8, (kb + 2 * Span) / 8, wordRows);
        for (uint64_t l = 0; l < kRows; ++l) {
            float* row = rows + l * K;
            const uint8_t* w = qw + 4 * (kb / 8) * N + 4 * l;
            const __m512 sLo = _mm512_load_ps(s[l]), sHi = _mm512_load_ps(s[l] + 16);
            const __m512 zLo = _mm512_load_ps(zf[l]), zHi = _mm512_load_ps(zf[l] + 16);
            for (uint64_t k = kb; k < ke; k += 16, w += 8 * N) {
                const __m512i q = _mm512_ternarylogic_epi32(gptq4Codes(w, N), low4, magic, 0xEA); // (a & b) | c
                const __m512i g = _mm512_loadu_si512(groupOfK + k);
                const __m512 d = _mm512_sub_ps(_mm512_castsi512_ps(q), _mm512_permutex2var_ps(zLo, g, zHi));
                _mm512_storeu_ps(row + k, _mm512_mul_ps(_mm512_permutex2var_ps(sLo, g, sHi), d));
            }
        }
    }
    tailColumns(p, n, kRows, fullK, rows);
}

// AWQ GEMM, 16 rows from n (a multiple of 8): word (k, c) holds columns 8c..8c+7, so the 8
// bytes of word columns n/8 and n/8 + 1 of 16 consecutive k, split into one vector per word
// column (lanes = k), give any of the 16 rows' codes with one shift.
void awqGemmBlock(const PackedLinear& p, uint64_t n, float* rows)
{
    const uint64_t K = p.K, stride = 4 * (p.N / 8), fullK = K / 16 * 16;
    const uint8_t* col = p.qweight.data() + 4 * (n / 8);
    // Lanes 4i..4i+3 of the gathered vectors: (column c, c + 1) of k + 2i, then of k + 2i + 1.
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
    __m512i shift[8];
    for (size_t j = 0; j < 8; ++j)
        shift[j] = _mm512_set1_epi32(4 * kAwqSlotOf[j]);
    __m512 table[kRows];
    for (uint64_t g = 0; g < p.groups; ++g) {
        for (uint64_t l = 0; l < kRows; ++l)
            table[l] = codeTable(p.scaleAt(g, n + l), p.zeroAt(g, n + l));
        const uint64_t k1 = std::min(fullK, (g + 1) * p.groupSize);
        for (uint64_t k = g * p.groupSize; k < k1; k += 16) {
            for (uint64_t r = k + 64; r < std::min(K, k + 80); ++r)
                _mm_prefetch(reinterpret_cast<const char*>(col + r * stride), _MM_HINT_T0);
            __m128i x[8];
            for (uint64_t i = 0; i < 8; ++i) {
                const uint8_t* w = col + (k + 2 * i) * stride;
                x[i] = _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w))),
                                                     reinterpret_cast<const double*>(w + stride)));
            }
            const __m512i lo = _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(x[0]), x[1], 1), x[2], 2), x[3], 3);
            const __m512i hi = _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(x[4]), x[5], 1), x[6], 2), x[7], 3);
            const __m512i words[2] = {_mm512_permutex2var_epi32(lo, evens, hi), _mm512_permutex2var_epi32(lo, odds, hi)};
            for (uint64_t l = 0; l < kRows; ++l)
                _mm512_storeu_ps(rows + l * K + k, _mm512_permutexvar_ps(_mm512_srlv_epi32(words[l / 8], shift[l % 8]), table[l]));
        }
    }
    tailColumns(p, n, kRows, fullK, rows);
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
    float scale[kRows];
    // Blocks of up to 16 rows, k-tile outer: each tile's words (N*b/2 words apart) are read for
    // all the block's rows while in the TLB.
    for (uint64_t nb = n0; nb < n1; nb += kRows) {
        const uint64_t count = std::min(kRows, n1 - nb);
        for (uint64_t r = 0; r < count; ++r) {
            const uint64_t n = nb + r, nt = n / 16, nr = n % 16, c = nt >> 2, j = nt & 3, block = nr >> 3;
            // Lane kr of k 0..7 and 8 + kr of k 8..15: slot of r = (kr & 1) | (k >= 8) << 1.
            alignas(64) int32_t idx[16], sh[16];
            for (int k = 0; k < 16; ++k) {
                const int kr = k % 8, slotRow = (kr & 1) | (k >= 8 ? 2 : 0);
                sh[k] = B * (B == 4 ? kMarlinSlotOf4[4 * block + uint64_t(slotRow)] : kMarlinSlotOf8[slotRow]);
                // 4-bit: words j, j + 4 of the low 8 (k 0..3), j + 8, j + 12 (k 4..7); 8-bit: the
                // four words 8 apart, loaded as two vectors (lanes 0, 8 and 16, 24).
                const int m = kr / 2;
                idx[k] = B == 4 ? int(j) + 4 * m : 8 * m;
            }
            rows[r].idx = _mm512_load_si512(idx);
            rows[r].shift = _mm512_load_si512(sh);
            // 4-bit: words 128c + 16(nr&7) + 4m + j; 8-bit: 256c + 32(nr&7) + 8m + 2j + block.
            rows[r].col = p.qweight.data() + 4 * (B == 4 ? 128 * c + 16 * (nr & 7) : 256 * c + 32 * (nr & 7) + 2 * j + block);
            rows[r].out = out + (n - n0) * K;
        }
        uint64_t group = ~uint64_t(0);
        for (uint64_t kt = 0; kt < tiles; ++kt) {
            const uint64_t g = 16 * kt / p.groupSize;
            if (g != group) {
                group = g;
                for (uint64_t r = 0; r < count; ++r) {
                    scale[r] = p.scaleAt(g, nb + r);
                    if constexpr (B == 4)
                        table[r] = codeTable(scale[r], 1 << (B - 1));
                }
            }
            for (uint64_t r = 0; r < count; ++r) {
                const Row& row = rows[r];
                const uint8_t* w = row.col + 4 * kt * wordsPerTile;
                if constexpr (B == 4) {
                    const __m512i v = _mm512_permutexvar_epi32(row.idx, _mm512_loadu_si512(w));
                    _mm512_storeu_ps(row.out + 16 * kt, _mm512_permutexvar_ps(_mm512_srlv_epi32(v, row.shift), table[r]));
                } else {
                    // Words 16..24 only: the block's last row reads no further.
                    const __m512i v = _mm512_permutex2var_epi32(_mm512_loadu_si512(w), row.idx, _mm512_maskz_loadu_epi32(0x01FF, w + 64));
                    const __m512i q = _mm512_ternarylogic_epi32(_mm512_srlv_epi32(v, row.shift), low8, magic, 0xEA); // (a & b) | c
                    _mm512_storeu_ps(row.out + 16 * kt, _mm512_mul_ps(_mm512_set1_ps(scale[r]), _mm512_sub_ps(_mm512_castsi512_ps(q), zf)));
                }
            }
        }
    }
}

// AWQ GEMV: a row's codes are contiguous along k, 16 per 8 bytes.
void awqGemvRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K, fullK = K / 16 * 16;
    for (uint64_t n = n0; n < n1; ++n) {
        float* row = out + (n - n0) * K;
        const uint8_t* words = p.qweight.data() + 4 * n * ((K + 7) / 8);
        for (uint64_t g = 0; g < p.groups; ++g) {
            const __m512 t = codeTable(p.scaleAt(g, n), p.zeroAt(g, n));
            const uint64_t k1 = std::min(fullK, (g + 1) * p.groupSize);
            for (uint64_t k = g * p.groupSize; k < k1; k += 16)
                _mm512_storeu_ps(row + k, _mm512_permutexvar_ps(nibbleLanes16(words + k / 2), t));
        }
        tailColumns(p, n, 1, fullK, row);
    }
}

} // namespace

bool dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const bool stream = p.kind == PackedKind::Gptq || p.kind == PackedKind::GptqPlanar; // one plane at 4 and 8 bits
    if (stream && (p.bits == 4 || p.bits == 8)) {
        std::vector<PackedLinear::GroupRun> local;
        const std::vector<PackedLinear::GroupRun>& runs = p.groupRuns(local);
        const bool whole = !runs.empty() && runsInSteps(runs, 16);
        // Groups that change inside vectors (act-order, uneven runs): per-code group lookups.
        const bool perCode = !whole && p.bits == 4 && p.groups <= 32;
        if (!whole && !perCode)
            return false;
        std::vector<int32_t> groupOfK(perCode ? p.K : 0);
        for (uint64_t k = 0; k < groupOfK.size(); ++k)
            groupOfK[k] = int32_t(p.groupOf(k));
        uint64_t n = n0;
        for (; n + kRows <= n1; n += kRows) {
            float* rows = out + (n - n0) * p.K;
            if (perCode)
                gptq4ActOrderBlock(p, groupOfK.data(), n, rows);
            else
                (p.bits == 4 ? gptq4Block : gptq8Block)(p, runs, n, rows);
        }
        avx2::dequantPackedRows(p, n, n1, out + (n - n0) * p.K);
        return true;
    }
    if (p.kind == PackedKind::AwqGemm && p.bits == 4 && p.groupSize % 16 == 0) {
        const uint64_t lead = std::min(n1, (n0 + 7) / 8 * 8);
        avx2::dequantPackedRows(p, n0, lead, out);
        uint64_t n = lead;
        for (; n + kRows <= n1; n += kRows)
            awqGemmBlock(p, n, out + (n - n0) * p.K);
        avx2::dequantPackedRows(p, n, n1, out + (n - n0) * p.K);
        return true;
    }
    if (p.kind == PackedKind::Marlin && p.groupSize % 16 == 0 && (p.bits == 4 || p.bits == 8)) {
        (p.bits == 4 ? marlinRows<4> : marlinRows<8>)(p, n0, n1, out);
        return true;
    }
    if (p.kind == PackedKind::AwqGemv && p.bits == 4 && p.groupSize % 16 == 0) {
        awqGemvRows(p, n0, n1, out);
        return true;
    }
    return false;
}

} // namespace qs::avx512
