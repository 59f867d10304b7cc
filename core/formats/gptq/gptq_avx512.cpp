// AVX-512 paths for Marlin (4 and 8 bits) and AWQ GEMV (groups of whole 16-code vectors). Same
// float32 bits as the reference s * float(q - z): a 4-bit code selects its value from the row's
// and group's table of the 16 products (formed by the same lane-wise multiply) with one vpermps;
// an 8-bit code is put under the exponent of 2^23, so one subtraction of 2^23 + z gives
// float(q - z) exactly (both operands are integers below 2^24), then the reference's multiply.
// GPTQ-4 with groups in whole 16-code vectors reads each row of words as 64-byte vectors of
// 16 consecutive columns (no gathers, no per-row scalar word loads); the other column layouts
// (GPTQ 2/3/8-bit and act-order, AWQ GEMM [K, N/8]) keep the AVX2 path: earlier AVX-512
// versions of those (gathers, per-code group lookups) measured 5-35% slower on this Zen 4,
// whose AVX-512 units are 256 bits wide.
#include "formats/gptq/gptq.h"
#include "base/nibble_avx512.h"

#include <immintrin.h>

#include <algorithm>

namespace qs::avx512 {

namespace {

constexpr uint64_t kRows = 16; // Marlin rows per block

// The 16 values s * float(q - z) of codes q = 0..15.
inline __m512 codeTable(float s, int32_t z)
{
    const __m512i q = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm512_mul_ps(_mm512_set1_ps(s), _mm512_cvtepi32_ps(_mm512_sub_epi32(q, _mm512_set1_epi32(z))));
}

void tailColumns(const PackedLinear& p, uint64_t n, uint64_t rows, uint64_t from, float* out)
{
    for (uint64_t l = 0; l < rows; ++l)
        for (uint64_t k = from; k < p.K; ++k)
            out[l * p.K + k] = p.valueAt(n + l, k);
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

// GPTQ-4 runs can take the 16-code vectors: every run starts at a multiple of 16 and ends at
// one or at K (the columns past K / 16 * 16 are the reference's).
bool runsInVectors(const std::vector<PackedLinear::GroupRun>& runs, uint64_t K)
{
    return !runs.empty() && std::all_of(runs.begin(), runs.end(), [K](const PackedLinear::GroupRun& r) {
        return r.k0 % 16 == 0 && (r.k1 % 16 == 0 || r.k1 == K);
    });
}

// The code tables of rows n..n+15 in group g: their F16/BF16 scales and (n even) their packed
// zero fields each read as one vector, per row broadcast from its lane; zeroAt's rules.
void runTables(const PackedLinear& p, uint64_t g, uint64_t n, __m512* table)
{
    const uint64_t zeroRow = g * 4 * ((p.N * 4 + 31) / 32), zeroAt = zeroRow + n / 2;
    const uint8_t* sc = p.scales.data() + 2 * (g * p.N + n);
    if (n % 2 || zeroAt + 8 > p.qzeros.size() || p.scaleType == ScaleType::F32) {
        for (uint64_t l = 0; l < kRows; ++l)
            table[l] = codeTable(p.scaleAt(g, n + l), p.zeroAt(g, n + l));
        return;
    }
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc));
    const __m512 s = p.scaleType == ScaleType::F16 ? _mm512_cvtph_ps(h)
                                                   : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    const __m512i mask = _mm512_set1_epi32(0xF);
    __m512i z = _mm512_and_si512(nibbleLanes16(p.qzeros.data() + zeroAt), mask);
    if (p.zeros == ZeroConvention::StoredMinusOne) {
        z = _mm512_add_epi32(z, _mm512_set1_epi32(1));
        if (p.v1Rule != V1ZeroRule::NoWrap) // Reference wraps at 4 bits
            z = _mm512_and_si512(z, mask);
    }
    const __m512i q = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint64_t l = 0; l < kRows; ++l) {
        const __m512i lane = _mm512_set1_epi32(int(l));
        table[l] = _mm512_mul_ps(_mm512_permutexvar_ps(lane, s),
                                 _mm512_cvtepi32_ps(_mm512_sub_epi32(q, _mm512_permutexvar_epi32(lane, z))));
    }
}

// GPTQ-4, 16 output rows n..n+15: word row r holds codes 8r..8r+7 of every column, so one
// 64-byte load gives the 16 rows' words of it. Two word rows interleaved (vpunpckl/hdq) put
// each row's 16 codes k..k+15 in one qword; per row one vpermq broadcasts it, one multishift
// moves each nibble into its lane and one vpermps looks it up in the row's and run's table.
// Spans of 64 k: the four interleaved pairs are built once, then each row gets 64 floats.
void gptq4Block(const PackedLinear& p, const std::vector<PackedLinear::GroupRun>& runs, uint64_t n, float* rows)
{
    constexpr uint64_t Span = 64;
    const uint64_t K = p.K, N = p.N, fullK = K / 16 * 16, wordRows = (K + 7) / 8;
    const uint8_t* qw = p.qweight.data() + 4 * n;
    const __m512i offsets = _mm512_set_epi64(0x0000003C00000038, 0x0000003400000030, 0x0000002C00000028,
                                             0x0000002400000020, 0x0000001C00000018, 0x0000001400000010,
                                             0x0000000C00000008, 0x0000000400000000);
    __m512 table[kRows];
    for (const PackedLinear::GroupRun& run : runs) {
        const uint64_t k1 = std::min(run.k1, fullK);
        if (run.k0 >= k1)
            continue;
        runTables(p, run.group, n, table);
        for (uint64_t kb = run.k0; kb < k1; kb += Span) {
            const uint64_t pairs = (std::min(k1, kb + Span) - kb) / 16;
            // Each row of words is its own page for large N: fetch those six spans ahead.
            for (uint64_t i = 0; i < 8; ++i) {
                const uint64_t ahead = kb / 8 + 48 + i;
                if (ahead < wordRows) {
                    _mm_prefetch(reinterpret_cast<const char*>(qw + 4 * ahead * N), _MM_HINT_T0);
                    _mm_prefetch(reinterpret_cast<const char*>(qw + 4 * ahead * N + 63), _MM_HINT_T0);
                }
            }
            __m512i v[2 * Span / 16];
            for (uint64_t i = 0; i < pairs; ++i) {
                const uint8_t* w = qw + 4 * (kb / 8 + 2 * i) * N;
                const __m512i a = _mm512_loadu_si512(w), b = _mm512_loadu_si512(w + 4 * N);
                v[2 * i] = _mm512_unpacklo_epi32(a, b);     // qwords: rows 4c, 4c + 1 of lane c
                v[2 * i + 1] = _mm512_unpackhi_epi32(a, b); // rows 4c + 2, 4c + 3
            }
            for (uint64_t l = 0; l < kRows; ++l) {
                const __m512i sel = _mm512_set1_epi64(int64_t(2 * (l / 4) + l % 2));
                const uint64_t half = l % 4 / 2;
                float* row = rows + l * K + kb;
                for (uint64_t i = 0; i < pairs; ++i) {
                    const __m512i q = _mm512_multishift_epi64_epi8(offsets, _mm512_permutexvar_epi64(sel, v[2 * i + half]));
                    _mm512_storeu_ps(row + 16 * i, _mm512_permutexvar_ps(q, table[l]));
                }
            }
        }
    }
    tailColumns(p, n, kRows, fullK, rows);
}

} // namespace

bool dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    if (p.kind == PackedKind::Marlin && p.groupSize % 16 == 0 && (p.bits == 4 || p.bits == 8)) {
        (p.bits == 4 ? marlinRows<4> : marlinRows<8>)(p, n0, n1, out);
        return true;
    }
    if (p.kind == PackedKind::Gptq && p.bits == 4 && n1 - n0 >= kRows) {
        std::vector<PackedLinear::GroupRun> local;
        const auto& runs = p.groupRuns(local);
        if (runsInVectors(runs, p.K)) {
            uint64_t n = n0;
            for (; n + kRows <= n1; n += kRows)
                gptq4Block(p, runs, n, out + (n - n0) * p.K);
            if (n < n1)
                avx2::dequantPackedRows(p, n, n1, out + (n - n0) * p.K);
            return true;
        }
    }
    if (p.kind == PackedKind::AwqGemv && p.bits == 4 && p.groupSize % 16 == 0) {
        awqGemvRows(p, n0, n1, out);
        return true;
    }
    return false;
}

} // namespace qs::avx512
