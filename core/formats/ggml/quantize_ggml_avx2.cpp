// AVX2 k-quant scale searches, bit-identical to quantize_ggml.cpp: lane j holds sub-block j, the
// data is transposed to [element][sub-block] so one load brings element i of 8 sub-blocks, and
// every expression keeps the scalar operand order (separate mul and add, never fused; C's
// comparisons as ordered predicates, != as unordered). Branches become per-lane selects.
#include "formats/ggml/quantize_ggml_avx2.h"

#include "base/half.h"
#include "base/simd_tier.h"

#include <cstring>

QS_TIER_BEGIN_AVX2

namespace qs::ggmlquant {

namespace {

constexpr float kGroupMaxEps = 1e-15f;

inline __m256 splat(float f)
{
    return _mm256_set1_ps(f);
}
inline __m256 absPs(__m256 v)
{
    return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
}
inline __m256 pick(__m256 a, __m256 b, __m256 mask)
{
    return _mm256_blendv_ps(a, b, mask);
}
inline __m256 gt(__m256 a, __m256 b)
{
    return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}

// ggml's nearest_int: add 1.5 * 2^23 and read the mantissa.
inline __m256i nearestInt8(__m256 f)
{
    const __m256i bits = _mm256_castps_si256(_mm256_add_ps(f, _mm256_set1_ps(12582912.f)));
    return _mm256_sub_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x00400000));
}
inline __m256i clampInt(__m256i l, int lo, int hi)
{
    return _mm256_max_epi32(_mm256_set1_epi32(lo), _mm256_min_epi32(_mm256_set1_epi32(hi), l));
}

// xT[i * 8 + j] = x[j * n + i] for 8 sub-blocks of n weights.
void transposeSubBlocks(const float* x, int n, float* xT)
{
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < n; ++i)
            xT[i * 8 + j] = x[j * n + i];
}

// Codes of 8 sub-blocks, one int32 vector per element, back to [sub-block][element] bytes.
void storeCodes(const __m256i* codes, int n, uint8_t* L)
{
    alignas(32) int32_t lane[32 * 8];
    for (int i = 0; i < n; ++i)
        _mm256_store_si256(reinterpret_cast<__m256i*>(lane + 8 * i), codes[i]);
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < n; ++i)
            L[j * n + i] = uint8_t(lane[8 * i + j]);
}

// make_qkx2_quants on 8 sub-blocks of n (<= 32) weights at once (xT, wT as [n][8]).
void qkx2Lanes(int n, int nmax, const float* xT, const float* wT, float rmin, float rdelta, int nstep, bool useMad,
               float* scales, float* theMins, uint8_t* L)
{
    const __m256 zero = _mm256_setzero_ps();
    __m256 min = _mm256_loadu_ps(xT), max = min;
    __m256 sumW = _mm256_loadu_ps(wT);
    __m256 sumX = _mm256_mul_ps(sumW, min);
    for (int i = 1; i < n; ++i) {
        const __m256 x = _mm256_loadu_ps(xT + 8 * i);
        min = _mm256_min_ps(x, min); // x < min ? x : min
        max = _mm256_max_ps(x, max);
        const __m256 w = _mm256_loadu_ps(wT + 8 * i);
        sumW = _mm256_add_ps(sumW, w);
        sumX = _mm256_add_ps(sumX, _mm256_mul_ps(w, x));
    }
    min = pick(min, zero, gt(min, zero));
    const __m256 flat = _mm256_cmp_ps(max, min, _CMP_EQ_OQ);
    const __m256 flatMin = min;
    const __m256 iscale0 = _mm256_div_ps(splat(float(nmax)), _mm256_sub_ps(max, min));
    __m256 scale = _mm256_div_ps(splat(1.f), iscale0);
    __m256 bestError = zero;
    const auto absOrSquare = [useMad](__m256 d) { return useMad ? absPs(d) : _mm256_mul_ps(d, d); };
    for (int i = 0; i < n; ++i) {
        const __m256 x = _mm256_loadu_ps(xT + 8 * i);
        const __m256 l =
            _mm256_cvtepi32_ps(clampInt(nearestInt8(_mm256_mul_ps(iscale0, _mm256_sub_ps(x, min))), 0, nmax));
        const __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(scale, l), min), x);
        bestError = _mm256_add_ps(bestError, _mm256_mul_ps(_mm256_loadu_ps(wT + 8 * i), absOrSquare(diff)));
    }
    // The codes kept are those of the chosen step: its iscale and the min it subtracted.
    __m256 keptIscale = iscale0, keptMin = min;
    __m256 laux[32];
    for (int is = 0; is <= nstep; ++is) {
        const float num = rmin + rdelta * float(is) + float(nmax);
        const __m256 iscale = _mm256_div_ps(splat(num), _mm256_sub_ps(max, min));
        __m256 sumL = zero, sumL2 = zero, sumXL = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 x = _mm256_loadu_ps(xT + 8 * i);
            const __m256 l =
                _mm256_cvtepi32_ps(clampInt(nearestInt8(_mm256_mul_ps(iscale, _mm256_sub_ps(x, min))), 0, nmax));
            laux[i] = l;
            const __m256 wl = _mm256_mul_ps(_mm256_loadu_ps(wT + 8 * i), l);
            sumL = _mm256_add_ps(sumL, wl);
            sumL2 = _mm256_add_ps(sumL2, _mm256_mul_ps(wl, l));
            sumXL = _mm256_add_ps(sumXL, _mm256_mul_ps(wl, x));
        }
        const __m256 D = _mm256_sub_ps(_mm256_mul_ps(sumW, sumL2), _mm256_mul_ps(sumL, sumL));
        __m256 thisScale = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sumW, sumXL), _mm256_mul_ps(sumX, sumL)), D);
        __m256 thisMin = _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(sumL2, sumX), _mm256_mul_ps(sumL, sumXL)), D);
        const __m256 positive = gt(thisMin, zero);
        thisMin = pick(thisMin, zero, positive);
        thisScale = pick(thisScale, _mm256_div_ps(sumXL, sumL2), positive);
        __m256 curError = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 x = _mm256_loadu_ps(xT + 8 * i);
            const __m256 diff = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(thisScale, laux[i]), thisMin), x);
            curError = _mm256_add_ps(curError, _mm256_mul_ps(_mm256_loadu_ps(wT + 8 * i), absOrSquare(diff)));
        }
        const __m256 take = _mm256_and_ps(gt(D, zero), _mm256_cmp_ps(curError, bestError, _CMP_LT_OQ));
        bestError = pick(bestError, curError, take);
        scale = pick(scale, thisScale, take);
        keptIscale = pick(keptIscale, iscale, take);
        keptMin = pick(keptMin, min, take);
        min = pick(min, thisMin, take);
    }
    __m256i codes[32];
    const __m256i flatI = _mm256_castps_si256(flat);
    for (int i = 0; i < n; ++i) {
        const __m256 x = _mm256_loadu_ps(xT + 8 * i);
        const __m256i l = clampInt(nearestInt8(_mm256_mul_ps(keptIscale, _mm256_sub_ps(x, keptMin))), 0, nmax);
        codes[i] = _mm256_andnot_si256(flatI, l);
    }
    storeCodes(codes, n, L);
    _mm256_storeu_ps(scales, pick(scale, zero, flat));
    const __m256 sign = splat(-0.0f);
    _mm256_storeu_ps(theMins, _mm256_xor_ps(pick(min, flatMin, flat), sign));
}

// ggml's scan for the element of largest magnitude (the first on ties), per lane.
__m256 signedAbsMax(const float* xT, int n, __m256& max)
{
    __m256 amax = _mm256_setzero_ps();
    max = _mm256_setzero_ps();
    for (int i = 0; i < n; ++i) {
        const __m256 x = _mm256_loadu_ps(xT + 8 * i);
        const __m256 ax = absPs(x);
        const __m256 bigger = gt(ax, amax);
        amax = pick(amax, ax, bigger);
        max = pick(max, x, bigger);
    }
    return amax;
}

// make_qx_quants (rmse_type 1, no weights) on 8 sub-blocks of 16; codes biased by +nmax.
void qxRmse1Lanes(const float* xT, int nmax, float* scales, uint8_t* L)
{
    constexpr int n = 16;
    const __m256 zero = _mm256_setzero_ps();
    __m256 max;
    const __m256 amax = signedAbsMax(xT, n, max);
    const __m256 tiny = _mm256_cmp_ps(amax, splat(kGroupMaxEps), _CMP_LT_OQ);
    __m256 w[n], wx[n];
    for (int i = 0; i < n; ++i) {
        const __m256 x = _mm256_loadu_ps(xT + 8 * i);
        w[i] = _mm256_mul_ps(x, x);
        wx[i] = _mm256_mul_ps(w[i], x);
    }
    const auto sums = [&](__m256 iscale, __m256& sumlx, __m256& suml2) {
        sumlx = zero;
        suml2 = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 l = _mm256_cvtepi32_ps(
                clampInt(nearestInt8(_mm256_mul_ps(iscale, _mm256_loadu_ps(xT + 8 * i))), -nmax, nmax - 1));
            sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(wx[i], l));
            suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w[i], l), l));
        }
    };
    __m256 iscale = _mm256_div_ps(splat(float(-nmax)), max);
    __m256 sumlx, suml2;
    sums(iscale, sumlx, suml2);
    __m256 scale = pick(zero, _mm256_div_ps(sumlx, suml2), _mm256_cmp_ps(suml2, zero, _CMP_NEQ_UQ));
    __m256 best = _mm256_mul_ps(scale, sumlx);
    __m256 kept = iscale;
    for (int is = -9; is <= 9; ++is) {
        if (is == 0)
            continue;
        iscale = _mm256_div_ps(splat(-(float(nmax) + 0.1f * float(is))), max);
        sums(iscale, sumlx, suml2);
        const __m256 take = _mm256_and_ps(gt(suml2, zero), gt(_mm256_mul_ps(sumlx, sumlx), _mm256_mul_ps(best, suml2)));
        const __m256 s = _mm256_div_ps(sumlx, suml2);
        scale = pick(scale, s, take);
        best = pick(best, _mm256_mul_ps(s, sumlx), take);
        kept = pick(kept, iscale, take);
    }
    __m256i codes[n];
    const __m256i tinyI = _mm256_castps_si256(tiny);
    for (int i = 0; i < n; ++i) {
        const __m256i l = clampInt(nearestInt8(_mm256_mul_ps(kept, _mm256_loadu_ps(xT + 8 * i))), -nmax, nmax - 1);
        codes[i] = _mm256_andnot_si256(tinyI, _mm256_add_epi32(l, _mm256_set1_epi32(nmax)));
    }
    storeCodes(codes, n, L);
    _mm256_storeu_ps(scales, pick(scale, zero, tiny));
}

// make_q3_quants with rmse on 8 sub-blocks of 16; codes biased by +nmax. A lane whose pass
// changes nothing would change nothing on the next pass either, so running the passes until
// no lane changes equals each sub-block stopping on its own.
void q3Lanes(const float* xT, int nmax, float* scales, uint8_t* L)
{
    constexpr int n = 16;
    const __m256 zero = _mm256_setzero_ps();
    __m256 max;
    const __m256 amax = signedAbsMax(xT, n, max);
    const __m256 tiny = _mm256_cmp_ps(amax, splat(kGroupMaxEps), _CMP_LT_OQ);
    const __m256 iscale = _mm256_div_ps(splat(float(-nmax)), max);
    __m256 x[n], w[n], wx[n];
    __m256i l[n];
    __m256 sumlx = zero, suml2 = zero;
    for (int i = 0; i < n; ++i) {
        x[i] = _mm256_loadu_ps(xT + 8 * i);
        w[i] = _mm256_mul_ps(x[i], x[i]);
        wx[i] = _mm256_mul_ps(w[i], x[i]);
        l[i] = clampInt(nearestInt8(_mm256_mul_ps(iscale, x[i])), -nmax, nmax - 1);
        const __m256 lf = _mm256_cvtepi32_ps(l[i]);
        sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(wx[i], lf));
        suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w[i], lf), lf));
    }
    for (int itry = 0; itry < 5; ++itry) {
        __m256 changed = zero;
        for (int i = 0; i < n; ++i) {
            const __m256 lf = _mm256_cvtepi32_ps(l[i]);
            __m256 slx = _mm256_sub_ps(sumlx, _mm256_mul_ps(wx[i], lf));
            const __m256 slxPositive = gt(slx, zero);
            __m256 sl2 = _mm256_sub_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w[i], lf), lf));
            const __m256i newL = clampInt(nearestInt8(_mm256_div_ps(_mm256_mul_ps(x[i], sl2), slx)), -nmax, nmax - 1);
            const __m256 differs =
                _mm256_castsi256_ps(_mm256_xor_si256(_mm256_cmpeq_epi32(newL, l[i]), _mm256_set1_epi32(-1)));
            const __m256 nf = _mm256_cvtepi32_ps(newL);
            slx = _mm256_add_ps(slx, _mm256_mul_ps(wx[i], nf));
            sl2 = _mm256_add_ps(sl2, _mm256_mul_ps(_mm256_mul_ps(w[i], nf), nf));
            const __m256 better = _mm256_and_ps(
                gt(sl2, zero),
                gt(_mm256_mul_ps(_mm256_mul_ps(slx, slx), suml2), _mm256_mul_ps(_mm256_mul_ps(sumlx, sumlx), sl2)));
            const __m256 take = _mm256_and_ps(_mm256_and_ps(slxPositive, differs), better);
            l[i] = _mm256_castps_si256(pick(_mm256_castsi256_ps(l[i]), _mm256_castsi256_ps(newL), take));
            sumlx = pick(sumlx, slx, take);
            suml2 = pick(suml2, sl2, take);
            changed = _mm256_or_ps(changed, take);
        }
        if (!_mm256_movemask_ps(_mm256_andnot_ps(tiny, changed)))
            break;
    }
    const __m256i tinyI = _mm256_castps_si256(tiny);
    for (int i = 0; i < n; ++i)
        l[i] = _mm256_andnot_si256(tinyI, _mm256_add_epi32(l[i], _mm256_set1_epi32(nmax)));
    storeCodes(l, n, L);
    const __m256 scale = pick(zero, _mm256_div_ps(sumlx, suml2), gt(suml2, zero));
    _mm256_storeu_ps(scales, pick(scale, zero, tiny));
}

// 8 int32 values in 0..255 to 8 bytes.
inline void storeBytes8(uint8_t* out, __m256i v)
{
    const __m128i s16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(s16, s16));
}

} // namespace

void searchScalesMinsAvx2(const float* x, int nmax, float rmin, float rdelta, int nstep, float* scales, float* mins,
                          uint8_t* L)
{
    alignas(32) float xT[256], wT[256];
    transposeSubBlocks(x, 32, xT);
    __m256 sumX2 = _mm256_setzero_ps();
    for (int i = 0; i < 32; ++i) {
        const __m256 v = _mm256_load_ps(xT + 8 * i);
        sumX2 = _mm256_add_ps(sumX2, _mm256_mul_ps(v, v));
    }
    const __m256 avX = _mm256_sqrt_ps(_mm256_div_ps(sumX2, splat(32.f)));
    for (int i = 0; i < 32; ++i)
        _mm256_store_ps(wT + 8 * i, _mm256_add_ps(avX, absPs(_mm256_load_ps(xT + 8 * i))));
    qkx2Lanes(32, nmax, xT, wT, rmin, rdelta, nstep, false, scales, mins, L);
}

void searchQ2_KAvx2(const float* x, float* scales, float* mins, uint8_t* L)
{
    alignas(32) float xT[128], wT[128];
    for (int g = 0; g < 2; ++g) {
        transposeSubBlocks(x + 128 * g, 16, xT);
        for (int i = 0; i < 16; ++i)
            _mm256_store_ps(wT + 8 * i, absPs(_mm256_load_ps(xT + 8 * i)));
        qkx2Lanes(16, 3, xT, wT, -0.5f, 0.1f, 15, true, scales + 8 * g, mins + 8 * g, L + 128 * g);
    }
}

void searchQ3_KAvx2(const float* x, float* scales, int8_t* L)
{
    alignas(32) float xT[128];
    for (int g = 0; g < 2; ++g) {
        transposeSubBlocks(x + 128 * g, 16, xT);
        q3Lanes(xT, 4, scales + 8 * g, reinterpret_cast<uint8_t*>(L) + 128 * g);
    }
}

void searchQ6_KAvx2(const float* x, float* scales, int8_t* L)
{
    alignas(32) float xT[128];
    for (int g = 0; g < 2; ++g) {
        transposeSubBlocks(x + 128 * g, 16, xT);
        qxRmse1Lanes(xT, 32, scales + 8 * g, reinterpret_cast<uint8_t*>(L) + 128 * g);
    }
}

void requantAvx2(const float* x, int n, float d, float dm, bool withMin, int lo, int hi, int bias, uint8_t* out)
{
    const __m256 dv = splat(d), dmv = splat(dm);
    const __m256i biasV = _mm256_set1_epi32(bias);
    for (int i = 0; i < n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        if (withMin)
            v = _mm256_add_ps(v, dmv);
        const __m256i l = clampInt(nearestInt8(_mm256_div_ps(v, dv)), lo, hi);
        storeBytes8(out + i, _mm256_add_epi32(l, biasV));
    }
}

void floatsToHalfAvx2(const float* x, uint8_t* y, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + 2 * i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; ++i) {
        const uint16_t h = floatToHalf(x[i]);
        std::memcpy(y + 2 * i, &h, 2);
    }
}

} // namespace qs::ggmlquant

QS_TIER_END
