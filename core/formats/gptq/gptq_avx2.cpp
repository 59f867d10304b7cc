// AVX2 paths for GPTQ (stream and planar, any width 2..8), AWQ GEMM and AWQ GEMV.
// Same arithmetic as the reference: float(q - z) * s in float32, no FMA; the layouts put
// eight output rows (GPTQ, AWQ GEMM) or eight input channels (GEMV) in the lanes.
// Marlin and GEMV_FAST have their own lane layouts below; row or column tails go to the
// reference.
#include "formats/gptq/gptq.h"

#include "base/simd_tier.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

QS_TIER_BEGIN_AVX2

#include "formats/mlx/mlx_unpack_avx2.h"

namespace qs::avx2 {

namespace {

inline void transpose8(__m256 r[8])
{
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// [0, end) (end a multiple of `step`) cut at multiples of `step` into spans of whole steps in
// one group, and single steps whose lanes straddle runs (group -1; for step 8 `lanes` holds
// each lane's group).
struct Segment {
    uint64_t k0, k1;
    int64_t group;
    uint64_t lanes[8];
};
std::vector<Segment> stepSegments(const std::vector<PackedLinear::GroupRun>& runs, uint64_t end, uint64_t step)
{
    std::vector<Segment> segs;
    size_t r = 0;
    for (uint64_t k = 0; k < end;) {
        while (runs[r].k1 <= k)
            ++r;
        if (runs[r].k1 >= k + step) {
            const uint64_t e = std::min(end, runs[r].k1 / step * step);
            segs.push_back({k, e, int64_t(runs[r].group), {}});
            k = e;
        } else {
            Segment sg{k, k + step, -1, {}};
            for (uint64_t i = 0, q = r; i < 8 && step == 8; ++i) {
                while (runs[q].k1 <= k + i)
                    ++q;
                sg.lanes[i] = runs[q].group;
            }
            segs.push_back(sg);
            k += step;
        }
    }
    return segs;
}

// Lane j: the bit shift of AWQ GEMM column 8c + j in its word (4 * kAwqSlotOf[j]).
inline __m256i awqSlotShifts()
{
    return _mm256_setr_epi32(4 * kAwqSlotOf[0], 4 * kAwqSlotOf[1], 4 * kAwqSlotOf[2], 4 * kAwqSlotOf[3],
                             4 * kAwqSlotOf[4], 4 * kAwqSlotOf[5], 4 * kAwqSlotOf[6], 4 * kAwqSlotOf[7]);
}

// Scales and zeros of eight consecutive rows for every group, read once per row block.
struct GroupVectors {
    std::vector<float> s; // [groups][8]
    std::vector<int32_t> z; // [groups][8]
    void fill(const PackedLinear& p, uint64_t n)
    {
        s.resize(p.groups * 8);
        z.resize(p.groups * 8);
        const bool rowMajorScales = p.kind != PackedKind::AwqGemv && p.kind != PackedKind::Marlin;
        const Unpack8 unpack(p.bits);
        for (uint64_t g = 0; g < p.groups; ++g) {
            if (rowMajorScales && p.scaleType == ScaleType::F16) {
                // Eight consecutive F16 scales of group g: one F16C conversion.
                const __m128i h =
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(p.scales.data() + 2 * (g * p.N + n)));
                _mm256_storeu_ps(s.data() + g * 8, _mm256_cvtph_ps(h));
            } else if (rowMajorScales && p.scaleType == ScaleType::BF16) {
                // BF16 -> F32 is the 16-bit shift bf16ToFloat does.
                const __m128i h =
                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(p.scales.data() + 2 * (g * p.N + n)));
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(s.data() + g * 8),
                                    _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
            } else {
                for (uint64_t l = 0; l < 8; ++l)
                    s[g * 8 + l] = p.scaleAt(g, n + l);
            }
            if (!zeros8(p, unpack, g, n, z.data() + g * 8))
                for (uint64_t l = 0; l < 8; ++l)
                    z[g * 8 + l] = p.zeroAt(g, n + l);
        }
    }
    // The true zeros of rows n..n+7 (n a multiple of 8) in group g, as zeroAt gives them, from
    // one vector unpack of the packed field(s); false for layouts left to zeroAt.
    static bool zeros8(const PackedLinear& p, const Unpack8& unpack, uint64_t g, uint64_t n, int32_t* out)
    {
        __m256i f;
        if (p.kind == PackedKind::Gptq) {
            // n a multiple of 8: the eight fields start on a byte.
            const uint64_t at = p.zeroFieldBit(g, n) / 8;
            if (n % 8 || at + 16 > p.qzeros.size())
                return false;
            f = unpack(p.qzeros.data() + at);
        } else if (p.kind == PackedKind::AwqGemm && n % 8 == 0) {
            uint32_t w;
            std::memcpy(&w, p.qzeros.data() + 4 * (g * (p.N / 8) + n / 8), 4);
            f = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(int(w)), awqSlotShifts()), _mm256_set1_epi32(0xF));
        } else {
            return false;
        }
        if (p.zeros == ZeroConvention::StoredMinusOne) {
            f = _mm256_add_epi32(f, _mm256_set1_epi32(1));
            if (p.v1ZeroWraps())
                f = _mm256_and_si256(f, _mm256_set1_epi32((1 << p.bits) - 1));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), f);
        return true;
    }
    __m256 scale(uint64_t g) const { return _mm256_loadu_ps(s.data() + g * 8); }
    __m256i zero(uint64_t g) const { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(z.data() + g * 8)); }
};

// Code j (0..31) of a 32-code chunk whose B words (lanes = eight rows) are in w.
template <int B, bool Planar, int J>
inline __m256i extract(const __m256i* w)
{
    if constexpr (!Planar) {
        constexpr int bit = J * B, wi = bit / 32, sh = bit % 32;
        __m256i v = _mm256_srli_epi32(w[wi], sh);
        if constexpr (sh + B > 32)
            v = _mm256_or_si256(v, _mm256_slli_epi32(w[wi + 1], 32 - sh));
        return _mm256_and_si256(v, _mm256_set1_epi32((1 << B) - 1));
    } else {
        // Planes of B.1.6: widths from gptqPlanes(), low plane first, natural slots.
        constexpr int hi = B >= 4 ? 4 : 2; // first plane
        constexpr int mid = B == 6 || B == 7 ? 2 : 0; // second plane of 6, 7
        constexpr int lo = B == 3 || B == 5 || B == 7 ? 1 : 0; // the 1-bit plane
        __m256i v = _mm256_and_si256(_mm256_srli_epi32(w[J / (32 / hi)], hi * (J % (32 / hi))),
                                     _mm256_set1_epi32((1 << hi) - 1));
        int base = hi, off = hi;
        if constexpr (mid) {
            const __m256i m = _mm256_and_si256(_mm256_srli_epi32(w[base + J / 16], 2 * (J % 16)), _mm256_set1_epi32(3));
            v = _mm256_or_si256(v, _mm256_slli_epi32(m, off));
            base += 2;
            off += 2;
        }
        if constexpr (lo) {
            const __m256i m = _mm256_and_si256(_mm256_srli_epi32(w[base], J), _mm256_set1_epi32(1));
            v = _mm256_or_si256(v, _mm256_slli_epi32(m, off));
        }
        return v;
    }
}

template <int B, bool Planar, size_t... J>
inline void chunkValues(const __m256i* w, const uint32_t* grp, const GroupVectors& gv, __m256* vals,
                        std::index_sequence<J...>)
{
    ((vals[J] = _mm256_mul_ps(gv.scale(grp[J]),
                              _mm256_cvtepi32_ps(_mm256_sub_epi32(extract<B, Planar, int(J)>(w), gv.zero(grp[J]))))),
     ...);
}

template <int B, bool Planar, size_t... J>
inline void chunkValuesUniform(const __m256i* w, __m256 s, __m256i z, __m256* vals, std::index_sequence<J...>)
{
    ((vals[J] = _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(extract<B, Planar, int(J)>(w), z)))), ...);
}

template <int B, bool Planar>
void gptqRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K, N = p.N;
    const uint64_t fullK = K / 32 * 32;
    // A 32-code chunk inside one group run takes one scale/zero vector; the others (chunks
    // that straddle runs, every chunk of a non-monotonic g_idx) look groups up per code.
    std::vector<PackedLinear::GroupRun> local;
    const auto& runs = p.groupRuns(local);
    std::vector<int64_t> chunkGroup(fullK / 32, -1);
    if (!runs.empty())
        for (const Segment& sg : stepSegments(runs, fullK, 32))
            for (uint64_t c = sg.k0 / 32; c < sg.k1 / 32; ++c)
                chunkGroup[c] = sg.group;
    std::vector<uint32_t> grp;
    if (std::find(chunkGroup.begin(), chunkGroup.end(), -1) != chunkGroup.end()) {
        grp.resize(K);
        for (uint64_t k = 0; k < K; ++k)
            grp[k] = uint32_t(p.groupOf(k));
    }
    GroupVectors gv;
    uint64_t n = n0;
    for (; n + 8 <= n1; n += 8) {
        gv.fill(p, n);
        float* rows = out + (n - n0) * K;
        for (uint64_t c = 0; c < fullK / 32; ++c) {
            __m256i w[B];
            for (int i = 0; i < B; ++i)
                w[i] = _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(p.qweight.data() + 4 * ((c * B + uint64_t(i)) * N + n)));
            __m256 vals[32];
            if (chunkGroup[c] >= 0) {
                const uint64_t g = uint64_t(chunkGroup[c]);
                chunkValuesUniform<B, Planar>(w, gv.scale(g), gv.zero(g), vals, std::make_index_sequence<32>());
            } else {
                chunkValues<B, Planar>(w, grp.data() + 32 * c, gv, vals, std::make_index_sequence<32>());
            }
            for (int q = 0; q < 4; ++q) {
                transpose8(vals + 8 * q);
                for (int l = 0; l < 8; ++l)
                    _mm256_storeu_ps(rows + uint64_t(l) * K + 32 * c + 8 * uint64_t(q), vals[8 * q + l]);
            }
        }
        for (int l = 0; l < 8; ++l)
            for (uint64_t k = fullK; k < K; ++k)
                rows[uint64_t(l) * K + k] = p.valueAt(n + uint64_t(l), k);
    }
    dequantPackedRowsRef(p, n, n1, out + (n - n0) * K);
}

// One row's scale and zero of the current group, in registers for the row's inner loop.
struct RowAffine {
    __m256 s;
    __m256i z;
    __m256 operator()(__m256i q) const { return _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))); }
};

// Per row of a block of R rows: its scale and zero of the current group, each broadcast to a
// full vector.
template <int R>
struct RowGroupVectors {
    alignas(32) float s[R][8];
    alignas(32) int32_t z[R][8];
    void set(const GroupVectors* gv, uint64_t g)
    {
        for (int l = 0; l < R; ++l) {
            _mm256_store_ps(s[l], _mm256_set1_ps(gv[l / 8].s[g * 8 + uint64_t(l % 8)]));
            _mm256_store_si256(reinterpret_cast<__m256i*>(z[l]),
                               _mm256_set1_epi32(gv[l / 8].z[g * 8 + uint64_t(l % 8)]));
        }
    }
    // Left to itself the compiler folds these into vmulps / vpsubd memory operands on this
    // stack block, and with them the GPTQ-4 loop ran at 7.2 instead of 10.6 Gw/s (measured;
    // most likely the loads falsely depending on the row's output stores, 4 KiB aliasing); the
    // empty asm keeps them in registers.
    RowAffine row(int l) const
    {
        RowAffine a{_mm256_load_ps(s[l]), _mm256_load_si256(reinterpret_cast<const __m256i*>(z[l]))};
        __asm__("" : "+x"(a.s), "+x"(a.z));
        return a;
    }
};

// Eight 2-bit codes of row l at k (a multiple of 8), from the row of words at w: half a word.
inline __m256i codes2(const uint8_t* w, int l, uint64_t k)
{
    int32_t word;
    std::memcpy(&word, w + 4 * l, 4);
    const __m256i sh =
        (k % 16) ? _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30) : _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(word), sh), _mm256_set1_epi32(3));
}

// Eight codes k..k+7 (k a multiple of 8) of row l, b = 2, 4 or 8; qw points at the block's column.
template <int B>
inline __m256i slotCodes(const uint8_t* qw, uint64_t N, int l, uint64_t k)
{
    const uint8_t* w = qw + 4 * (k * B / 32) * N + 4 * uint64_t(l);
    if constexpr (B == 2)
        return codes2(qw + 4 * (k / 16) * N, l, k);
    int32_t a;
    std::memcpy(&a, w, 4);
    if constexpr (B == 4)
        return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(a), _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
                                _mm256_set1_epi32(0xF));
    int32_t b;
    std::memcpy(&b, w + 4 * N, 4);
    return _mm256_cvtepu8_epi32(_mm_insert_epi32(_mm_cvtsi32_si128(a), b, 1));
}

// GPTQ with whole codes per word (b = 2, 4, 8) and groups in runs along k: each row's codes
// come from its broadcast word shifted into k order, no transpose. Rows of words are N*4
// bytes apart, which for a power-of-two N puts them all in one L1 set: a span of 16 rows of
// words (128 codes at 4 bits) is copied for all R rows into a small buffer first, and each
// output row is written in runs of whole cache lines, the rows alternating between two spans.
// Vectors whose lanes straddle two runs (a g_idx with runs not in whole vectors) take per-lane
// scales and zeros.
template <int B, int R>
void gptqSlotBlock(const PackedLinear& p, const std::vector<Segment>& segs, uint64_t n, float* rows,
                   const GroupVectors* gv)
{
    constexpr uint64_t SpanRows = 16; // rows of words in a span (eight measured slower)
    constexpr uint64_t Span = SpanRows * 32 / B;
    using SpanWords = int32_t[SpanRows + 1][R]; // one more: 2-bit spans from the middle of a word
    const uint64_t K = p.K, N = p.N, fullK = K / 8 * 8;
    const uint8_t* qw = p.qweight.data() + 4 * n;
    RowGroupVectors<R> rg;
    for (const Segment& sg : segs) {
        if (sg.group < 0) {
            // Lanes in runs (groups never decrease): each run's values with its broadcast
            // scale and zero, blended into the lanes from its first one on.
            for (int l = 0; l < R; ++l) {
                const GroupVectors& v = gv[l / 8];
                const __m256i q = slotCodes<B>(qw, N, l, sg.k0);
                __m256 val = _mm256_setzero_ps();
                for (int i = 0; i < 8;) {
                    const uint64_t at = 8 * sg.lanes[i] + uint64_t(l % 8);
                    const __m256 x = _mm256_mul_ps(_mm256_set1_ps(v.s[at]),
                                                   _mm256_cvtepi32_ps(_mm256_sub_epi32(q, _mm256_set1_epi32(v.z[at]))));
                    val = _mm256_blendv_ps(val, x,
                                           _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                                               _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(i - 1))));
                    const uint64_t g = sg.lanes[i];
                    while (i < 8 && sg.lanes[i] == g)
                        ++i;
                }
                _mm256_storeu_ps(rows + uint64_t(l) * K + sg.k0, val);
            }
            continue;
        }
        rg.set(gv, uint64_t(sg.group));
        // Row l's codes [k, ke) of the span from kb whose word rows are in `words`.
        const auto put = [&](int l, const SpanWords& words, uint64_t kb, uint64_t k, uint64_t ke) {
            float* row = rows + uint64_t(l) * K;
            const RowAffine a = rg.row(l);
            if constexpr (B == 4) {
                const __m256i sh = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), mask = _mm256_set1_epi32(0xF);
                for (; k < ke; k += 8)
                    _mm256_storeu_ps(
                        row + k,
                        a(_mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(words[k / 8 - kb / 8][l]), sh), mask)));
            } else if constexpr (B == 8) {
                // The two words as lanes 0..3 and 4..7 (broadcast loads and a blend), each lane
                // its byte by one in-lane shuffle: no insert, no widening on the shuffle port.
                const __m256i spread = _mm256_setr_epi8(0, -1, -1, -1, 1, -1, -1, -1, 2, -1, -1, -1, 3, -1, -1, -1, 4,
                                                        -1, -1, -1, 5, -1, -1, -1, 6, -1, -1, -1, 7, -1, -1, -1);
                for (; k < ke; k += 8) {
                    const uint64_t r = k / 4 - kb / 4;
                    const __m256i both =
                        _mm256_blend_epi32(_mm256_set1_epi32(words[r][l]), _mm256_set1_epi32(words[r + 1][l]), 0xF0);
                    _mm256_storeu_ps(row + k, a(_mm256_shuffle_epi8(both, spread)));
                }
            } else {
                const __m256i mask = _mm256_set1_epi32(3);
                for (; k < ke; k += 8) {
                    const __m256i sh = (k % 16) ? _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30)
                                                : _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
                    _mm256_storeu_ps(row + k,
                                     a(_mm256_and_si256(
                                         _mm256_srlv_epi32(_mm256_set1_epi32(words[k / 16 - kb / 16][l]), sh), mask)));
                }
            }
        };
        // The span's rows of words, R words each, into `words`: read once for all R rows (one
        // or two lines each), where the rows' own word loads, 4N bytes apart, met their rows of
        // words in one L1 set again and again (GPTQ-4 .43 of memcpy). The rows of words two spans
        // ahead are fetched now: for large N each is its own page, and no hardware prefetcher
        // follows that stride.
        const uint64_t wordRows = (K * B + 31) / 32;
        const auto load = [&](SpanWords& words, uint64_t kb, uint64_t ke) {
            const uint64_t r0 = kb * B / 32, r1 = std::min(wordRows, (ke * B + 31) / 32);
            for (uint64_t r = r0; r < r1; ++r)
                std::memcpy(words[r - r0], qw + 4 * r * N, 4 * R);
            for (uint64_t r = r0 + 2 * SpanRows; r < std::min(wordRows, r0 + 3 * SpanRows); ++r)
                _mm_prefetch(reinterpret_cast<const char*>(qw + 4 * r * N), _MM_HINT_T0);
        };
        alignas(64) SpanWords words[2];
        for (uint64_t kb = sg.k0; kb < sg.k1;) {
            if (kb + 2 * Span <= sg.k1) {
                // Two spans at once, the rows alternating between them: the R rows' lines at one
                // column share an L1 set when 4K is a multiple of 4 KiB, and stores to one set
                // from row after row run at half the speed (as in the AVX-512 gptqBlock).
                load(words[0], kb, kb + Span);
                load(words[1], kb + Span, kb + 2 * Span);
                for (int l = 0; l < R; ++l) {
                    const uint64_t h = uint64_t(l % 2), from = kb + h * Span;
                    put(l, words[h], from, from, from + Span);
                }
                for (int l = 0; l < R; ++l) {
                    const uint64_t h = uint64_t(1 - l % 2), from = kb + h * Span;
                    put(l, words[h], from, from, from + Span);
                }
                kb += 2 * Span;
                continue;
            }
            const uint64_t ke = std::min(sg.k1, kb + Span);
            load(words[0], kb, ke);
            for (int l = 0; l < R; ++l)
                put(l, words[0], kb, kb, ke);
            kb = ke;
        }
    }
    for (uint64_t l = 0; l < uint64_t(R); ++l)
        for (uint64_t k = fullK; k < K; ++k)
            rows[l * K + k] = p.valueAt(n + l, k);
}

template <int B>
void gptqSlotRows(const PackedLinear& p, const std::vector<PackedLinear::GroupRun>& runs, uint64_t n0, uint64_t n1,
                  float* out)
{
    const std::vector<Segment> segs = stepSegments(runs, p.K / 8 * 8, 8);
    GroupVectors gv[2];
    uint64_t n = n0;
    for (; n + 16 <= n1; n += 16) {
        gv[0].fill(p, n);
        gv[1].fill(p, n + 8);
        gptqSlotBlock<B, 16>(p, segs, n, out + (n - n0) * p.K, gv);
    }
    for (; n + 8 <= n1; n += 8) {
        gv[0].fill(p, n);
        gptqSlotBlock<B, 8>(p, segs, n, out + (n - n0) * p.K, gv);
    }
    dequantPackedRowsRef(p, n, n1, out + (n - n0) * p.K);
}

// AWQ GEMM with groups of whole vectors, written row by row (no transpose): word (k, c)
// holds columns 8c..8c+7, so the words of eight consecutive k of one word column, as one
// vector (lanes = k), give any of its eight rows' codes with one shift and mask. Per span of
// up to 64 k the C word columns' vectors are built once (C = 2: the eight bytes of both
// columns per k, one load each), then each of the 8*C rows is written in a run.
template <int C>
void awqGemmBlock(const PackedLinear& p, uint64_t n, float* rows, const GroupVectors* gv)
{
    constexpr int R = 8 * C;
    constexpr uint64_t Span = 64;
    const uint64_t K = p.K, stride = 4 * (p.N / 8), fullK = K / 8 * 8;
    const uint8_t* col = p.qweight.data() + 4 * (n / 8);
    alignas(32) int32_t shifts[8][8];
    for (size_t j = 0; j < 8; ++j) // AWQ slot of column j, times 4
        _mm256_store_si256(reinterpret_cast<__m256i*>(shifts[j]), _mm256_set1_epi32(4 * kAwqSlotOf[j]));
    const __m256i mask = _mm256_set1_epi32(0xF);
    RowGroupVectors<R> rg;
    __m256i words[C][Span / 8];
    for (uint64_t g = 0; g < p.groups; ++g) {
        rg.set(gv, g);
        const uint64_t k1 = std::min(fullK, (g + 1) * p.groupSize);
        for (uint64_t kb = g * p.groupSize; kb < k1; kb += Span) {
            const uint64_t steps = (std::min(k1, kb + Span) - kb) / 8;
            // The next span's 64 rows of words, one line each, N/2 bytes apart.
            for (uint64_t r = kb + Span; r < std::min(K, kb + 2 * Span); ++r)
                _mm_prefetch(reinterpret_cast<const char*>(col + r * stride), _MM_HINT_T0);
            for (uint64_t i = 0; i < steps; ++i) {
                const uint8_t* w = col + (kb + 8 * i) * stride;
                if constexpr (C == 2) {
                    __m128i q[8];
                    for (int r = 0; r < 8; ++r)
                        q[r] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w + uint64_t(r) * stride));
                    // a = k0 k1 | k4 k5, b = k2 k3 | k6 k7 (each k: column c, column c+1).
                    const __m256 a = _mm256_castsi256_ps(
                        _mm256_set_m128i(_mm_unpacklo_epi64(q[4], q[5]), _mm_unpacklo_epi64(q[0], q[1])));
                    const __m256 b = _mm256_castsi256_ps(
                        _mm256_set_m128i(_mm_unpacklo_epi64(q[6], q[7]), _mm_unpacklo_epi64(q[2], q[3])));
                    words[0][i] = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88));
                    words[C - 1][i] = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xDD));
                } else {
                    int32_t v[8];
                    for (int r = 0; r < 8; ++r)
                        std::memcpy(&v[r], w + uint64_t(r) * stride, 4);
                    words[0][i] = _mm256_setr_epi32(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
                }
            }
            for (int l = 0; l < R; ++l) {
                float* o = rows + uint64_t(l) * K + kb;
                const __m256i sh = _mm256_load_si256(reinterpret_cast<const __m256i*>(shifts[l % 8]));
                const RowAffine a = rg.row(l);
                for (uint64_t i = 0; i < steps; ++i)
                    _mm256_storeu_ps(o + 8 * i, a(_mm256_and_si256(_mm256_srlv_epi32(words[l / 8][i], sh), mask)));
            }
        }
    }
    for (uint64_t l = 0; l < uint64_t(R); ++l)
        for (uint64_t k = fullK; k < K; ++k)
            rows[l * K + k] = p.valueAt(n + l, k);
}

void awqGemmRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    // Rows before the first word boundary take the reference.
    const uint64_t lead = std::min(n1, (n0 + 7) / 8 * 8);
    dequantPackedRowsRef(p, n0, lead, out);
    GroupVectors gv[2];
    uint64_t n = lead;
    for (; n + 16 <= n1; n += 16) {
        gv[0].fill(p, n);
        gv[1].fill(p, n + 8);
        awqGemmBlock<2>(p, n, out + (n - n0) * p.K, gv);
    }
    for (; n + 8 <= n1; n += 8) {
        gv[0].fill(p, n);
        awqGemmBlock<1>(p, n, out + (n - n0) * p.K, gv);
    }
    dequantPackedRowsRef(p, n, n1, out + (n - n0) * p.K);
}

// Groups that are not whole vectors: eight columns per k from one word, transposed to rows.
void awqGemmRowsTransposed(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K, words = p.N / 8;
    uint64_t n = n0;
    // Rows before the first word boundary take the reference.
    const uint64_t lead = std::min(n1, (n0 + 7) / 8 * 8);
    dequantPackedRowsRef(p, n0, lead, out);
    n = lead;
    const __m256i shifts = awqSlotShifts();
    const __m256i mask = _mm256_set1_epi32(0xF);
    GroupVectors gv;
    for (; n + 8 <= n1; n += 8) {
        gv.fill(p, n);
        const uint64_t c = n / 8;
        float* rows = out + (n - n0) * K;
        uint64_t k = 0;
        for (; k + 8 <= K; k += 8) {
            __m256 v[8];
            // One group for all eight columns when groups are whole vectors (no division per k).
            const bool whole = p.groupSize % 8 == 0;
            const uint64_t g8 = k / p.groupSize;
            const __m256 s8 = gv.scale(g8);
            const __m256i z8 = gv.zero(g8);
            for (uint64_t i = 0; i < 8; ++i) {
                uint32_t word;
                std::memcpy(&word, p.qweight.data() + 4 * ((k + i) * words + c), 4);
                const __m256i q = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(int(word)), shifts), mask);
                const uint64_t g = whole ? g8 : (k + i) / p.groupSize;
                v[i] = _mm256_mul_ps(whole ? s8 : gv.scale(g),
                                     _mm256_cvtepi32_ps(_mm256_sub_epi32(q, whole ? z8 : gv.zero(g))));
            }
            transpose8(v);
            for (int l = 0; l < 8; ++l)
                _mm256_storeu_ps(rows + uint64_t(l) * K + k, v[l]);
        }
        for (int l = 0; l < 8; ++l)
            for (uint64_t kk = k; kk < K; ++kk)
                rows[uint64_t(l) * K + kk] = p.valueAt(n + uint64_t(l), kk);
    }
    dequantPackedRowsRef(p, n, n1, out + (n - n0) * K);
}

// AWQ GEMV: a row's codes are contiguous along k, eight per word; its scale and zero are
// read once per group, not per vector.
void awqGemvRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K, wordsPerRow = (K + 7) / 8, fullK = K / 8 * 8;
    const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const __m256i mask = _mm256_set1_epi32(0xF);
    std::vector<float> scales(p.groups);
    std::vector<int32_t> zeros(p.groups);
    for (uint64_t n = n0; n < n1; ++n) {
        float* row = out + (n - n0) * K;
        const uint8_t* words = p.qweight.data() + 4 * n * wordsPerRow;
        // The row's scales and zeros up front: F16 scales are contiguous per row.
        uint64_t g = 0;
        if (p.scaleType == ScaleType::F16)
            for (; g + 8 <= p.groups; g += 8)
                _mm256_storeu_ps(scales.data() + g,
                                 _mm256_cvtph_ps(_mm_loadu_si128(
                                     reinterpret_cast<const __m128i*>(p.scales.data() + 2 * (n * p.scaleRows + g)))));
        for (; g < p.groups; ++g)
            scales[g] = p.scaleAt(g, n);
        // Zeros: group g's nibble g%8 of word g/8 in the row's Zw words (AutoAWQ stores z).
        for (g = 0; g < p.groups; ++g) {
            if (p.zeros != ZeroConvention::Stored) {
                zeros[g] = p.zeroAt(g, n);
                continue;
            }
            uint32_t w;
            std::memcpy(&w, p.qzeros.data() + 4 * (n * p.zeroWords + g / 8), 4);
            zeros[g] = int32_t((w >> (4 * (g % 8))) & 0xF);
        }
        for (g = 0; g < p.groups; ++g) {
            const __m256 s = _mm256_set1_ps(scales[g]);
            const __m256i z = _mm256_set1_epi32(zeros[g]);
            const uint64_t k1 = std::min(fullK, (g + 1) * p.groupSize);
            uint64_t k = g * p.groupSize;
            // 32 codes from 16 bytes: nibbles split and interleaved into k order, the zero
            // taken off as bytes (q - z fits int8), widened eight at a time.
            const __m128i zb = _mm_set1_epi8(char(zeros[g]));
            const __m128i low4 = _mm_set1_epi8(0x0F);
            for (; k + 32 <= k1; k += 32) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(words + k / 2));
                const __m128i lo = _mm_and_si128(v, low4), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
                const __m128i c0 = _mm_sub_epi8(_mm_unpacklo_epi8(lo, hi), zb),
                              c1 = _mm_sub_epi8(_mm_unpackhi_epi8(lo, hi), zb);
                _mm256_storeu_ps(row + k, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c0))));
                _mm256_storeu_ps(row + k + 8,
                                 _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(c0, 8)))));
                _mm256_storeu_ps(row + k + 16, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c1))));
                _mm256_storeu_ps(row + k + 24,
                                 _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(c1, 8)))));
            }
            for (; k < k1; k += 8) {
                int32_t word;
                std::memcpy(&word, words + k / 2, 4);
                const __m256i q = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(word), shifts), mask);
                _mm256_storeu_ps(row + k, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))));
            }
        }
        for (uint64_t k = fullK; k < K; ++k)
            row[k] = p.valueAt(n, k);
    }
}

// Marlin (B.4): for output row n the 16 codes of k-tile kt sit in four words at stride 4
// (4-bit) or 8 (8-bit) inside the row's 128- (256-) word column block, four codes per word
// at slots fixed by the row's half-tile; a lane per k picks its word and shifts to its slot.
template <int B>
void marlinRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    constexpr uint64_t Rows = 16;
    const uint64_t K = p.K, tiles = K / 16, wordsPerTile = p.N * uint64_t(B) / 2;
    const __m256i mask = _mm256_set1_epi32((1 << B) - 1), zero = _mm256_set1_epi32(1 << (B - 1));
    struct Row {
        __m256i shLo, shHi, idx;
        const uint8_t* col;
        float* out;
    };
    Row rows[Rows];
    std::vector<float> sc(Rows * p.groups);
    // Blocks of up to 16 rows, k-tile outer: each tile's words (N*b/2 words apart, a page
    // each for large N) are read for all the block's rows while in the TLB.
    for (uint64_t nb = n0; nb < n1; nb += Rows) {
        const uint64_t count = std::min(Rows, n1 - nb);
        for (uint64_t r = 0; r < count; ++r) {
            const uint64_t n = nb + r, nt = n / 16, nr = n % 16, c = nt >> 2, j = nt & 3, block = nr >> 3;
            // Lane kr of the low (k 0..7) and high (k 8..15) vectors: slot of r = (kr & 1) | (kr >> 3) << 1.
            alignas(32) int32_t shLo[8], shHi[8];
            for (int kr = 0; kr < 8; ++kr) {
                const int r0 = kr & 1, r1 = r0 | 2;
                shLo[kr] = B * (B == 4 ? kMarlinSlotOf4[4 * block + uint64_t(r0)] : kMarlinSlotOf8[r0]);
                shHi[kr] = B * (B == 4 ? kMarlinSlotOf4[4 * block + uint64_t(r1)] : kMarlinSlotOf8[r1]);
            }
            rows[r].shLo = _mm256_load_si256(reinterpret_cast<const __m256i*>(shLo));
            rows[r].shHi = _mm256_load_si256(reinterpret_cast<const __m256i*>(shHi));
            rows[r].idx =
                _mm256_setr_epi32(int(j), int(j), int(j) + 4, int(j) + 4, int(j), int(j), int(j) + 4, int(j) + 4);
            // 4-bit: words 128c + 16(nr&7) + 4m + j; 8-bit: 256c + 32(nr&7) + 8m + 2j + block.
            rows[r].col =
                p.qweight.data() + 4 * (B == 4 ? 128 * c + 16 * (nr & 7) : 256 * c + 32 * (nr & 7) + 2 * j + block);
            rows[r].out = out + (n - n0) * K;
            for (uint64_t g = 0; g < p.groups; ++g)
                sc[r * p.groups + g] = p.scaleAt(g, n);
        }
        // Spans of up to eight tiles in one group, each row writing its 128 floats of them in a
        // run: tile by tile, the 16 rows' lines (16 KiB apart for K = 4096) crowd one L1 set.
        for (uint64_t kt0 = 0; kt0 < tiles;) {
            const uint64_t g = 16 * kt0 / p.groupSize;
            const uint64_t kt1 = std::min({tiles, kt0 + 8, (g + 1) * p.groupSize / 16});
            for (uint64_t r = 0; r < count; ++r) {
                const Row& row = rows[r];
                const __m256 s = _mm256_set1_ps(sc[r * p.groups + g]);
                for (uint64_t kt = kt0; kt < kt1; ++kt) {
                    const uint8_t* w = row.col + 4 * kt * wordsPerTile;
                    __m256i v;
                    if constexpr (B == 4) {
                        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
                        const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
                        v = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(lo, row.idx),
                                               _mm256_permutevar8x32_epi32(hi, row.idx), 0xF0);
                    } else {
                        // Lanes (m0, m0, m1, m1, m2, m2, m3, m3) of the four words 32 bytes apart:
                        // broadcast loads and blends, nothing on the shuffle port (inserts and a
                        // permute cost four shuffles a tile).
                        int32_t m0, m1, m2, m3;
                        std::memcpy(&m0, w, 4);
                        std::memcpy(&m1, w + 32, 4);
                        std::memcpy(&m2, w + 64, 4);
                        std::memcpy(&m3, w + 96, 4);
                        v = _mm256_blend_epi32(_mm256_set1_epi32(m0), _mm256_set1_epi32(m1), 0x0C);
                        v = _mm256_blend_epi32(v, _mm256_set1_epi32(m2), 0x30);
                        v = _mm256_blend_epi32(v, _mm256_set1_epi32(m3), 0xC0);
                    }
                    const __m256i q0 = _mm256_sub_epi32(_mm256_and_si256(_mm256_srlv_epi32(v, row.shLo), mask), zero);
                    const __m256i q1 = _mm256_sub_epi32(_mm256_and_si256(_mm256_srlv_epi32(v, row.shHi), mask), zero);
                    _mm256_storeu_ps(row.out + 16 * kt, _mm256_mul_ps(s, _mm256_cvtepi32_ps(q0)));
                    _mm256_storeu_ps(row.out + 16 * kt + 8, _mm256_mul_ps(s, _mm256_cvtepi32_ps(q1)));
                }
            }
            kt0 = kt1;
        }
    }
}

// fp16 rounding (RNE) of eight floats, back to float.
inline __m256 toHalf(__m256 x)
{
    return _mm256_cvtph_ps(_mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// GEMV_FAST (B.2.3): int16 [N/4, K], nibble n%4 of position 32(k/32) + 4(k%8) + (k%32)/8.
// Per four rows and 32 channels: the 32 int16 of the block, one row's nibbles packed to
// bytes in position order, a byte shuffle to channel order, then fp16(fp16(q*s) + bias):
// f32 holds the product exactly and its sum rounds to fp16 as the exact sum does (24 >= 2*11+2).
void awqGemvFastRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    const uint64_t K = p.K;
    const uint64_t a0 = std::min(n1, (n0 + 3) / 4 * 4);
    dequantPackedRowsRef(p, n0, a0, out);
    // In each 16-position half: positions 4e + a -> bytes [a][e], channels 8a + e (+4 in the high half).
    const __m256i order = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9,
                                           13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i nib = _mm256_set1_epi16(0xF);
    uint64_t n = a0;
    for (; n + 4 <= n1; n += 4) {
        const uint8_t* src = p.qweight.data() + 2 * (n / 4) * K;
        for (uint64_t t = 0; t < 4; ++t) {
            const __m128i shift = _mm_cvtsi32_si128(int(4 * t));
            float* o = out + (n + t - n0) * K;
            for (uint64_t b = 0; b < K / 32; ++b) {
                const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 64 * b));
                const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 64 * b + 32));
                const __m256i c0 = _mm256_and_si256(_mm256_srl_epi16(x0, shift), nib);
                const __m256i c1 = _mm256_and_si256(_mm256_srl_epi16(x1, shift), nib);
                // packus interleaves 128-bit lanes; the permute restores position order 0..31.
                const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(c0, c1), 0xD8);
                const __m256i grouped = _mm256_shuffle_epi8(bytes, order);
                const __m128i l = _mm256_castsi256_si128(grouped), h = _mm256_extracti128_si256(grouped, 1);
                const __m128i k0 = _mm_unpacklo_epi32(l, h), k1 = _mm_unpackhi_epi32(l, h); // channels 0..15, 16..31
                const uint64_t g = 32 * b / p.groupSize;
                const __m256 s = _mm256_set1_ps(p.scaleAt(g, n + t)), z = _mm256_set1_ps(p.biasAt(g, n + t));
                const __m128i parts[4] = {k0, _mm_srli_si128(k0, 8), k1, _mm_srli_si128(k1, 8)};
                for (int i = 0; i < 4; ++i) {
                    const __m256 q = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(parts[i]));
                    _mm256_storeu_ps(o + 32 * b + 8 * uint64_t(i),
                                     toHalf(_mm256_add_ps(toHalf(_mm256_mul_ps(q, s)), z)));
                }
            }
        }
    }
    dequantPackedRowsRef(p, n, n1, out + (n - n0) * K);
}

} // namespace

void dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out)
{
    switch (p.kind) {
    case PackedKind::Gptq: {
        std::vector<PackedLinear::GroupRun> local;
        const auto& runs = p.groupRuns(local);
        if (!runs.empty() && p.bits != 3)
            return p.bits == 2 ? gptqSlotRows<2>(p, runs, n0, n1, out)
                : p.bits == 4  ? gptqSlotRows<4>(p, runs, n0, n1, out)
                               : gptqSlotRows<8>(p, runs, n0, n1, out);
        switch (p.bits) {
        case 2: return gptqRows<2, false>(p, n0, n1, out);
        case 3: return gptqRows<3, false>(p, n0, n1, out);
        case 4: return gptqRows<4, false>(p, n0, n1, out);
        case 8: return gptqRows<8, false>(p, n0, n1, out);
        default: break;
        }
        break;
    }
    case PackedKind::GptqPlanar:
        switch (p.bits) {
        case 2: return gptqRows<2, false>(p, n0, n1, out); // single plane = stream
        case 3: return gptqRows<3, true>(p, n0, n1, out);
        case 4: return gptqRows<4, false>(p, n0, n1, out);
        case 5: return gptqRows<5, true>(p, n0, n1, out);
        case 6: return gptqRows<6, true>(p, n0, n1, out);
        case 7: return gptqRows<7, true>(p, n0, n1, out);
        case 8: return gptqRows<8, false>(p, n0, n1, out);
        default: break;
        }
        break;
    case PackedKind::AwqGemm:
        return p.groupSize % 8 == 0 ? awqGemmRows(p, n0, n1, out) : awqGemmRowsTransposed(p, n0, n1, out);
    case PackedKind::AwqGemv:
        if (p.groupSize % 8 == 0)
            return awqGemvRows(p, n0, n1, out);
        break;
    case PackedKind::AwqGemvFast:
        if (p.groupSize % 32 == 0)
            return awqGemvFastRows(p, n0, n1, out);
        break;
    case PackedKind::Marlin:
        if (p.groupSize % 16 == 0)
            return p.bits == 4 ? marlinRows<4>(p, n0, n1, out) : marlinRows<8>(p, n0, n1, out);
        break;
    default: break;
    }
    dequantPackedRowsRef(p, n0, n1, out);
}

} // namespace qs::avx2

QS_TIER_END
