// AVX-512 compressed-tensors path for 4- and 8-bit packed rows, int8 and FP8 rows with
// contiguous groups (the rest goes to the AVX2 path); FP8 is converted exactly (base/fp8_avx512.h)
// and multiplied by the scale, as the reference. The reference value is float(u - half - zp) * scale
// for the stored unsigned u: at 4 bits a code selects it from the row's and group's table of the
// 16 products (the same multiply) with one vpermps; at 8 bits u sits under the exponent of 2^23,
// so one subtraction of 2^23 + half + zp gives float(u - half - zp) exactly, then the multiply.
// A row's scales and zero points are read once per row, not per group.
#include "formats/compressed_tensors/ct.h"

#include "base/simd_tier.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

QS_TIER_BEGIN_AVX512

#include "base/fp8_avx512.h"
#include "base/nibble_avx512.h"

namespace qs {

namespace {

// The zero points of row n's groups [0, G), as zeroAt: packed ones 16 groups at a time.
void rowZeros512(const CtPacked& s, uint64_t n, uint64_t G, int* out)
{
    if (s.zpKind != CtPacked::Zp::Packed) {
        for (uint64_t g = 0; g < G; ++g)
            out[g] = s.zeroAt(n, g);
        return;
    }
    const uint8_t* words = s.zp.data() + 4 * (n / s.pf) * G;
    const __m128i shift = _mm_cvtsi32_si128(int(s.bits * (n % s.pf)));
    const __m512i mask = _mm512_set1_epi32((1 << s.bits) - 1), half = _mm512_set1_epi32(1 << (s.bits - 1));
    for (uint64_t g = 0; g < G; g += 16) {
        const __mmask16 k = __mmask16(G - g >= 16 ? 0xFFFF : (1u << (G - g)) - 1);
        const __m512i w = _mm512_srl_epi32(_mm512_maskz_loadu_epi32(k, words + 4 * g), shift);
        _mm512_mask_storeu_epi32(out + g, k, _mm512_sub_epi32(_mm512_and_si512(w, mask), half));
    }
}

enum class Ct512 { E4M3, E5M2, Int8, Bits4, Bits8 };

// One row: per group its constants from the row's scale and zero point (at 4 bits the group's
// table of 16 values, formed while the previous group's vectors are written, so that they do
// not wait on it), then its whole vectors in a loop with nothing else in it; a group's last
// columns element by element.
template <Ct512 Kind>
void ctRow512(const CtPacked& s, uint64_t n, const uint8_t* row, float* o, const float* scales, const int* zeros)
{
    const int half = Kind == Ct512::Bits4 || Kind == Ct512::Bits8 ? 1 << (s.bits - 1) : 0;
    const __m512i magic = _mm512_set1_epi32(0x4B000000); // 2^23
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const uint64_t span = s.groups == 1 ? s.cols : s.groupSize;
    const auto tableOf = [&](uint64_t g) {
        return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(iota, _mm512_set1_epi32(half + zeros[g]))),
                             _mm512_set1_ps(scales[g]));
    };
    __m512 next = Kind == Ct512::Bits4 ? tableOf(0) : __m512();
    for (uint64_t g0 = 0, g = 0; g0 < s.cols; g0 += span, ++g) {
        [[maybe_unused]] const __m512 table = next;
        if (Kind == Ct512::Bits4 && g0 + span < s.cols)
            next = tableOf(g + 1);
        const uint64_t g1 = std::min(g0 + span, s.cols), k1 = g0 + (g1 - g0) / 16 * 16;
        const float sc = scales[g];
        const __m512 vs = _mm512_set1_ps(sc);
        const int zp = Kind == Ct512::E4M3 || Kind == Ct512::E5M2 ? 0 : zeros[g];
        [[maybe_unused]] const __m512 off = _mm512_set1_ps(8388608.0f + float(half + zp));
        // E4M3 with a scale whose 2^8 multiple is exact: one multiply (f8e4m3x16Scaled).
        if (Kind == Ct512::E4M3 && !(std::fabs(sc) >= 0x1p120f && std::isfinite(sc))) {
            const __m512 vs256 = _mm512_set1_ps(sc * 256.0f);
            for (uint64_t k = g0; k < k1; k += 16)
                _mm512_storeu_ps(o + k,
                                 f8e4m3x16Scaled(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k)), vs256));
            for (uint64_t k = k1; k < g1; ++k)
                o[k] = s.fp8At(n, k) * sc;
            continue;
        }
        for (uint64_t k = g0; k < k1; k += 16) {
            const auto bytes = [&] {
                return _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k));
            }; // one byte a code
            __m512 v;
            if constexpr (Kind == Ct512::E4M3)
                v = _mm512_mul_ps(f8e4m3x16(bytes()), vs);
            else if constexpr (Kind == Ct512::E5M2)
                v = _mm512_mul_ps(f8e5m2x16(bytes()), vs);
            else if constexpr (Kind == Ct512::Int8)
                v = _mm512_mul_ps(
                    _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepi8_epi32(bytes()), _mm512_set1_epi32(zp))), vs);
            else if constexpr (Kind == Ct512::Bits4)
                v = _mm512_permutexvar_ps(nibbleLanes16(row + k / 2), table);
            else
                v = _mm512_mul_ps(
                    _mm512_sub_ps(_mm512_castsi512_ps(_mm512_or_si512(_mm512_cvtepu8_epi32(bytes()), magic)), off), vs);
            _mm512_storeu_ps(o + k, v);
        }
        for (uint64_t k = k1; k < g1; ++k)
            o[k] = Kind == Ct512::E4M3 || Kind == Ct512::E5M2 ? s.fp8At(n, k) * sc
                                                              : static_cast<float>(s.code(n, k) - zp) * sc;
    }
}

template <Ct512 Kind>
void ctRows512(const CtPacked& s, uint64_t r0, uint64_t r1, float* out)
{
    // A row's scales and zero points, read once per row (not per group through at / zeroAt).
    const uint64_t G = s.tensorScale ? 1 : s.groups;
    thread_local std::vector<float> scales;
    thread_local std::vector<int> zeros;
    scales.resize(G);
    zeros.resize(G);
    float* sc = scales.data();
    int* zp = zeros.data();
    const bool bytes = Kind != Ct512::Bits4 && Kind != Ct512::Bits8;
    for (uint64_t n = r0; n < r1; ++n) {
        s.scale.read(s.tensorScale ? 0 : n * G, G, sc);
        if (Kind != Ct512::E4M3 && Kind != Ct512::E5M2)
            rowZeros512(s, n, G, zp);
        const uint8_t* row = s.packed.data() + (bytes ? n * s.cols : 4 * n * s.wordsPerRow);
        ctRow512<Kind>(s, n, row, out + (n - r0) * s.cols, sc, zp);
    }
}

} // namespace

void ctRowsAvx512(const CtPacked& s, uint64_t r0, uint64_t r1, float* out)
{
    const bool int8 = s.source == CtPacked::Source::Int8, fp8 = s.source == CtPacked::Source::Fp8;
    const bool packed = s.source == CtPacked::Source::Packed && (s.bits == 4 || s.bits == 8);
    if (!(int8 || fp8 || packed) || !s.gidx.empty() || (s.groups != 1 && s.groupSize % 16))
        return ctRowsAvx2(s, r0, r1, out);
    if (fp8)
        return (s.fp8Dtype == DType::F8_E4M3 ? ctRows512<Ct512::E4M3> : ctRows512<Ct512::E5M2>)(s, r0, r1, out);
    if (int8)
        return ctRows512<Ct512::Int8>(s, r0, r1, out);
    (s.bits == 4 ? ctRows512<Ct512::Bits4> : ctRows512<Ct512::Bits8>)(s, r0, r1, out);
}

} // namespace qs

QS_TIER_END
