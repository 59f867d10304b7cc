#include "formats/ggml/quantize_ggml.h"

#include "base/error.h"
#include "base/half.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "container/ggmltype.h"
#include "formats/ggml/quantize_ggml_avx2.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

// Every float expression below keeps ggml's operand order and types (int operands are
// converted to float where C converts them), and the build uses -ffp-contract=off, as the
// reference build has no FMA: that is what makes the bytes identical.

namespace qs {
namespace {

constexpr int QK_K = 256;
constexpr float GROUP_MAX_EPS = 1e-15f;
constexpr std::array<int, 13> kTypes = {GgmlF32,  GgmlF16,  GgmlBF16, GgmlQ4_0, GgmlQ4_1, GgmlQ5_0, GgmlQ5_1,
                                        GgmlQ8_0, GgmlQ2_K, GgmlQ3_K, GgmlQ4_K, GgmlQ5_K, GgmlQ6_K};

// ggml's rounding trick: add 1.5 * 2^23 so the integer lands in the mantissa
// (round half to even), valid for |f| <= 2^22 - 1.
inline int nearestInt(float f)
{
    const float v = f + 12582912.f;
    return int(std::bit_cast<uint32_t>(v) & 0x007fffffu) - 0x00400000;
}

// ggml converts floats straight to int8_t/uint8_t, undefined in C++ when the value does not fit
// (an Inf or NaN weight gets there). On x86 the conversion is cvttss2si, whose answer out of
// range (and for NaN) is INT32_MIN, narrowed to its low byte: that, defined.
inline int32_t truncateLikeX86(float f)
{
    return f >= -2147483648.0f && f < 2147483648.0f ? int32_t(f) : std::numeric_limits<int32_t>::min();
}

inline void putHalf(uint8_t* p, float f)
{
    const uint16_t h = floatToHalf(f);
    p[0] = uint8_t(h & 0xFF);
    p[1] = uint8_t(h >> 8);
}

// ---- legacy 32-weight blocks

void blockQ4_0(const float* x, uint8_t* y)
{
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < 32; j++) {
        if (amax < std::fabs(x[j])) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    const float d = max / -8;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    putHalf(y, d);
    for (int j = 0; j < 16; ++j) {
        const float x0 = x[j] * id;
        const float x1 = x[16 + j] * id;
        const uint8_t q0 = uint8_t(std::min(15, int(int8_t(truncateLikeX86(x0 + 8.5f)))));
        const uint8_t q1 = uint8_t(std::min(15, int(int8_t(truncateLikeX86(x1 + 8.5f)))));
        y[2 + j] = uint8_t(q0 | (q1 << 4));
    }
}

void blockQ4_1(const float* x, uint8_t* y)
{
    float min = FLT_MAX, max = -FLT_MAX;
    for (int j = 0; j < 32; j++) {
        if (x[j] < min)
            min = x[j];
        if (x[j] > max)
            max = x[j];
    }
    const float d = (max - min) / 15;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    putHalf(y, d);
    putHalf(y + 2, min);
    for (int j = 0; j < 16; ++j) {
        const float x0 = (x[j] - min) * id;
        const float x1 = (x[16 + j] - min) * id;
        const uint8_t q0 = uint8_t(std::min(15, int(int8_t(truncateLikeX86(x0 + 0.5f)))));
        const uint8_t q1 = uint8_t(std::min(15, int(int8_t(truncateLikeX86(x1 + 0.5f)))));
        y[4 + j] = uint8_t(q0 | (q1 << 4));
    }
}

void blockQ5_0(const float* x, uint8_t* y)
{
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < 32; j++) {
        if (amax < std::fabs(x[j])) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    const float d = max / -16;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    putHalf(y, d);
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
        const float x0 = x[j] * id;
        const float x1 = x[16 + j] * id;
        const uint8_t q0 = uint8_t(std::min(31, int(int8_t(truncateLikeX86(x0 + 16.5f)))));
        const uint8_t q1 = uint8_t(std::min(31, int(int8_t(truncateLikeX86(x1 + 16.5f)))));
        y[6 + j] = uint8_t((q0 & 0x0F) | ((q1 & 0x0F) << 4));
        qh |= uint32_t((q0 & 0x10u) >> 4) << j;
        qh |= uint32_t((q1 & 0x10u) >> 4) << (j + 16);
    }
    for (int b = 0; b < 4; ++b)
        y[2 + b] = uint8_t(qh >> (8 * b));
}

void blockQ5_1(const float* x, uint8_t* y)
{
    float min = FLT_MAX, max = -FLT_MAX;
    for (int j = 0; j < 32; j++) {
        if (x[j] < min)
            min = x[j];
        if (x[j] > max)
            max = x[j];
    }
    const float d = (max - min) / 31;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    putHalf(y, d);
    putHalf(y + 2, min);
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
        const float x0 = (x[j] - min) * id;
        const float x1 = (x[16 + j] - min) * id;
        const uint8_t q0 = uint8_t(truncateLikeX86(x0 + 0.5f));
        const uint8_t q1 = uint8_t(truncateLikeX86(x1 + 0.5f));
        y[8 + j] = uint8_t((q0 & 0x0F) | ((q1 & 0x0F) << 4));
        qh |= uint32_t((q0 & 0x10u) >> 4) << j;
        qh |= uint32_t((q1 & 0x10u) >> 4) << (j + 16);
    }
    for (int b = 0; b < 4; ++b)
        y[4 + b] = uint8_t(qh >> (8 * b));
}

void blockQ8_0(const float* x, uint8_t* y)
{
    float amax = 0.0f;
    for (int j = 0; j < 32; j++)
        amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    putHalf(y, d);
    for (int j = 0; j < 32; ++j)
        y[2 + j] = uint8_t(int8_t(truncateLikeX86(std::round(x[j] * id)))); // roundf: half away from zero
}

// ---- k-quant helpers (make_qx_quants with rmse_type 1 and no weights, make_q3_quants with
// rmse, make_qkx2_quants)

// The element of largest magnitude (first one on ties), as ggml's scans find it; returns |max|.
float signedAbsMax(int n, const float* x, float& max)
{
    float amax = 0;
    max = 0;
    for (int i = 0; i < n; ++i) {
        const float ax = std::fabs(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    return amax;
}

float makeQxQuantsRmse1(int n, int nmax, const float* x, int8_t* L)
{
    float max = 0;
    const float amax = signedAbsMax(n, x, max);
    if (amax < GROUP_MAX_EPS) {
        for (int i = 0; i < n; ++i)
            L[i] = 0;
        return 0.f;
    }
    float iscale = float(-nmax) / max;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
        int l = nearestInt(iscale * x[i]);
        l = std::max(-nmax, std::min(nmax - 1, l));
        L[i] = int8_t(l + nmax);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * float(l);
        suml2 += w * float(l) * float(l);
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; ++is) {
        if (is == 0)
            continue;
        iscale = -(float(nmax) + 0.1f * float(is)) / max;
        sumlx = suml2 = 0;
        for (int i = 0; i < n; ++i) {
            int l = nearestInt(iscale * x[i]);
            l = std::max(-nmax, std::min(nmax - 1, l));
            const float w = x[i] * x[i];
            sumlx += w * x[i] * float(l);
            suml2 += w * float(l) * float(l);
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; ++i) {
                const int l = nearestInt(iscale * x[i]);
                L[i] = int8_t(nmax + std::max(-nmax, std::min(nmax - 1, l)));
            }
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

float makeQ3QuantsRmse(int n, int nmax, const float* x, int8_t* L)
{
    float max = 0;
    const float amax = signedAbsMax(n, x, max);
    if (amax < GROUP_MAX_EPS) {
        for (int i = 0; i < n; ++i)
            L[i] = 0;
        return 0.f;
    }
    const float iscale = float(-nmax) / max;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
        int l = nearestInt(iscale * x[i]);
        l = std::max(-nmax, std::min(nmax - 1, l));
        L[i] = int8_t(l);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * float(l);
        suml2 += w * float(l) * float(l);
    }
    for (int itry = 0; itry < 5; ++itry) {
        int nChanged = 0;
        for (int i = 0; i < n; ++i) {
            const float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * float(L[i]);
            if (slx > 0) {
                float sl2 = suml2 - w * float(L[i]) * float(L[i]);
                int newL = nearestInt(x[i] * sl2 / slx);
                newL = std::max(-nmax, std::min(nmax - 1, newL));
                if (newL != L[i]) {
                    slx += w * x[i] * float(newL);
                    sl2 += w * float(newL) * float(newL);
                    if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = int8_t(newL);
                        sumlx = slx;
                        suml2 = sl2;
                        ++nChanged;
                    }
                }
            }
        }
        if (!nChanged)
            break;
    }
    for (int i = 0; i < n; ++i)
        L[i] = int8_t(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

float makeQkx2Quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* theMin, uint8_t* Laux,
                     float rmin, float rdelta, int nstep, bool useMad)
{
    float min = x[0], max = x[0];
    float sumW = weights[0];
    float sumX = sumW * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min)
            min = x[i];
        if (x[i] > max)
            max = x[i];
        const float w = weights[i];
        sumW += w;
        sumX += w * x[i];
    }
    if (min > 0)
        min = 0;
    if (max == min) {
        for (int i = 0; i < n; ++i)
            L[i] = 0;
        *theMin = -min;
        return 0.f;
    }
    float iscale = float(nmax) / (max - min);
    float scale = 1 / iscale;
    float bestError = 0;
    for (int i = 0; i < n; ++i) {
        const int l = nearestInt(iscale * (x[i] - min));
        L[i] = uint8_t(std::max(0, std::min(nmax, l)));
        float diff = scale * float(L[i]) + min - x[i];
        diff = useMad ? std::fabs(diff) : diff * diff;
        bestError += weights[i] * diff;
    }
    for (int is = 0; is <= nstep; ++is) {
        iscale = (rmin + rdelta * float(is) + float(nmax)) / (max - min);
        float sumL = 0, sumL2 = 0, sumXL = 0;
        for (int i = 0; i < n; ++i) {
            int l = nearestInt(iscale * (x[i] - min));
            l = std::max(0, std::min(nmax, l));
            Laux[i] = uint8_t(l);
            const float w = weights[i];
            sumL += w * float(l);
            sumL2 += w * float(l) * float(l);
            sumXL += w * float(l) * x[i];
        }
        const float D = sumW * sumL2 - sumL * sumL;
        if (D > 0) {
            float thisScale = (sumW * sumXL - sumX * sumL) / D;
            float thisMin = (sumL2 * sumX - sumL * sumXL) / D;
            if (thisMin > 0) {
                thisMin = 0;
                thisScale = sumXL / sumL2;
            }
            float curError = 0;
            for (int i = 0; i < n; ++i) {
                float diff = thisScale * float(Laux[i]) + thisMin - x[i];
                diff = useMad ? std::fabs(diff) : diff * diff;
                curError += weights[i] * diff;
            }
            if (curError < bestError) {
                std::memcpy(L, Laux, size_t(n));
                bestError = curError;
                scale = thisScale;
                min = thisMin;
            }
        }
    }
    *theMin = -min;
    return scale;
}

void getScaleMinK4(int j, const uint8_t* q, uint8_t* d, uint8_t* m)
{
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = uint8_t((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = uint8_t((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// 2-bit fields of four 32-element strides per byte (Q2_K, Q3_K low bits).
void pack2BitPlanes(const uint8_t* L, uint8_t* qs)
{
    for (int j = 0; j < QK_K; j += 128)
        for (int l = 0; l < 32; ++l)
            qs[j / 4 + l] = uint8_t(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
}

// The per-sub-block searches and requantizing loops a k-quant block runs: these scalar loops,
// or their AVX2 lanes (quantize_ggml_avx2.cpp), which give the same bits.
struct ScalarKernels {
    // Q4_K / Q5_K: weights avX + |x| per sub-block of 32, then make_qkx2_quants.
    static void searchScalesMins(const float* x, int nmax, float rmin, float rdelta, int nstep, float* scales,
                                 float* mins, uint8_t* L)
    {
        uint8_t Laux[32];
        float weights[32];
        for (int j = 0; j < 8; ++j) {
            float sumX2 = 0;
            for (int l = 0; l < 32; ++l)
                sumX2 += x[32 * j + l] * x[32 * j + l];
            const float avX = std::sqrt(sumX2 / 32);
            for (int l = 0; l < 32; ++l)
                weights[l] = avX + std::fabs(x[32 * j + l]);
            scales[j] =
                makeQkx2Quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, rmin, rdelta, nstep, false);
        }
    }
    static void searchQ2_K(const float* x, float* scales, float* mins, uint8_t* L)
    {
        uint8_t Laux[16];
        float weights[16];
        for (int j = 0; j < 16; ++j) {
            for (int l = 0; l < 16; ++l)
                weights[l] = std::fabs(x[16 * j + l]);
            scales[j] = makeQkx2Quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
        }
    }
    static void searchQ3_K(const float* x, float* scales, int8_t* L)
    {
        for (int j = 0; j < 16; ++j)
            scales[j] = makeQ3QuantsRmse(16, 4, x + 16 * j, L + 16 * j);
    }
    static void searchQ6_K(const float* x, float* scales, int8_t* L)
    {
        for (int ib = 0; ib < 16; ++ib)
            scales[ib] = makeQxQuantsRmse1(16, 32, x + 16 * ib, L + 16 * ib);
    }
    // out[i] = clamp(nearest((x[i] + dm) / d), lo, hi) + bias, or of x[i] / d without a min.
    static void requant(const float* x, int n, float d, float dm, bool withMin, int lo, int hi, int bias, uint8_t* out)
    {
        for (int ii = 0; ii < n; ++ii) {
            const int l = nearestInt(withMin ? (x[ii] + dm) / d : x[ii] / d);
            out[ii] = uint8_t(std::max(lo, std::min(hi, l)) + bias);
        }
    }
};

#if QS_ARCH_X86
struct Avx2Kernels {
    static void searchScalesMins(const float* x, int nmax, float rmin, float rdelta, int nstep, float* scales,
                                 float* mins, uint8_t* L)
    {
        ggmlquant::searchScalesMinsAvx2(x, nmax, rmin, rdelta, nstep, scales, mins, L);
    }
    static void searchQ2_K(const float* x, float* scales, float* mins, uint8_t* L)
    {
        ggmlquant::searchQ2_KAvx2(x, scales, mins, L);
    }
    static void searchQ3_K(const float* x, float* scales, int8_t* L) { ggmlquant::searchQ3_KAvx2(x, scales, L); }
    static void searchQ6_K(const float* x, float* scales, int8_t* L) { ggmlquant::searchQ6_KAvx2(x, scales, L); }
    static void requant(const float* x, int n, float d, float dm, bool withMin, int lo, int hi, int bias, uint8_t* out)
    {
        ggmlquant::requantAvx2(x, n, d, dm, withMin, lo, hi, bias, out);
    }
};
#endif

// ---- k-quants

// Q2_K: scales[16] @0, qs[64] @16, d @80, dmin @82.
template <class K>
void blockQ2_K(const float* x, uint8_t* y)
{
    uint8_t L[QK_K];
    float mins[16], scales[16];
    uint8_t* sc = y;
    const float q4scale = 15.f;
    float maxScale = 0, maxMin = 0;
    K::searchQ2_K(x, scales, mins, L);
    for (int j = 0; j < 16; ++j) {
        if (scales[j] > maxScale)
            maxScale = scales[j];
        if (mins[j] > maxMin)
            maxMin = mins[j];
    }
    if (maxScale > 0) {
        const float iscale = q4scale / maxScale;
        for (int j = 0; j < 16; ++j)
            sc[j] = uint8_t(nearestInt(iscale * scales[j]));
        putHalf(y + 80, maxScale / q4scale);
    } else {
        for (int j = 0; j < 16; ++j)
            sc[j] = 0;
        putHalf(y + 80, 0.f);
    }
    if (maxMin > 0) {
        const float iscale = q4scale / maxMin;
        for (int j = 0; j < 16; ++j)
            sc[j] = uint8_t(sc[j] | (nearestInt(iscale * mins[j]) << 4));
        putHalf(y + 82, maxMin / q4scale);
    } else {
        putHalf(y + 82, 0.f);
    }
    const float dAll = halfAt(y + 80), mAll = halfAt(y + 82);
    for (int j = 0; j < 16; ++j) {
        const float d = dAll * float(sc[j] & 0xF);
        if (d == 0.0f)
            continue;
        const float dm = mAll * float(sc[j] >> 4);
        K::requant(x + 16 * j, 16, d, dm, true, 0, 3, 0, L + 16 * j);
    }
    pack2BitPlanes(L, y + 16);
}

// Q3_K: hmask[32] @0, qs[64] @32, scales[12] @96, d @108.
template <class K>
void blockQ3_K(const float* x, uint8_t* y)
{
    int8_t L[QK_K];
    float scales[16];
    uint8_t* hmask = y;
    uint8_t* sc = y + 96;
    float maxScale = 0, amax = 0;
    K::searchQ3_K(x, scales, L);
    for (int j = 0; j < 16; ++j) {
        const float scale = std::fabs(scales[j]);
        if (scale > amax) {
            amax = scale;
            maxScale = scales[j];
        }
    }
    std::memset(sc, 0, 12);
    if (maxScale != 0.0f) {
        const float iscale = -32.f / maxScale;
        for (int j = 0; j < 16; ++j) {
            int8_t l = int8_t(nearestInt(iscale * scales[j]));
            l = int8_t(std::max(-32, std::min(31, int(l))) + 32);
            if (j < 8)
                sc[j] = uint8_t(l & 0xF);
            else
                sc[j - 8] = uint8_t(sc[j - 8] | ((l & 0xF) << 4));
            l = int8_t(l >> 4);
            sc[j % 4 + 8] = uint8_t(sc[j % 4 + 8] | (l << (2 * (j / 4))));
        }
        putHalf(y + 108, 1 / iscale);
    } else {
        putHalf(y + 108, 0.f);
    }
    const float dAll = halfAt(y + 108);
    for (int j = 0; j < 16; ++j) {
        int8_t s = int8_t(j < 8 ? sc[j] & 0xF : sc[j - 8] >> 4);
        s = int8_t((s | (((sc[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32);
        const float d = dAll * float(s);
        if (d == 0.0f)
            continue;
        K::requant(x + 16 * j, 16, d, 0.f, false, -4, 3, 4, reinterpret_cast<uint8_t*>(L) + 16 * j);
    }
    std::memset(hmask, 0, 32);
    uint8_t U[QK_K];
    for (int j = 0; j < QK_K; ++j) {
        int v = L[j];
        if (v > 3) {
            hmask[j % 32] = uint8_t(hmask[j % 32] | (1u << (j / 32)));
            v -= 4;
        }
        U[j] = uint8_t(v);
    }
    pack2BitPlanes(U, y + 32);
}

// Q4_K and Q5_K share the scale search and the 12-byte packing of six-bit scales and mins.
// d @0, dmin @2, scales[12] @4. Returns the requantized codes in L.
template <class K>
void kquantScalesMins(const float* x, uint8_t* y, uint8_t* L, int nmax, float rmin, float rdelta, int nstep)
{
    float mins[8], scales[8];
    uint8_t* sc = y + 4;
    float maxScale = 0, maxMin = 0;
    K::searchScalesMins(x, nmax, rmin, rdelta, nstep, scales, mins, L);
    for (int j = 0; j < 8; ++j) {
        if (scales[j] > maxScale)
            maxScale = scales[j];
        if (mins[j] > maxMin)
            maxMin = mins[j];
    }
    const float invScale = maxScale > 0 ? 63.f / maxScale : 0.f;
    const float invMin = maxMin > 0 ? 63.f / maxMin : 0.f;
    for (int j = 0; j < 8; ++j) {
        uint8_t ls = uint8_t(nearestInt(invScale * scales[j]));
        uint8_t lm = uint8_t(nearestInt(invMin * mins[j]));
        ls = std::min<uint8_t>(63, ls);
        lm = std::min<uint8_t>(63, lm);
        if (j < 4) {
            sc[j] = ls;
            sc[j + 4] = lm;
        } else {
            sc[j + 4] = uint8_t((ls & 0xF) | ((lm & 0xF) << 4));
            sc[j - 4] = uint8_t(sc[j - 4] | ((ls >> 4) << 6));
            sc[j] = uint8_t(sc[j] | ((lm >> 4) << 6));
        }
    }
    putHalf(y, maxScale / 63.f);
    putHalf(y + 2, maxMin / 63.f);
    const float dAll = halfAt(y), mAll = halfAt(y + 2);
    for (int j = 0; j < 8; ++j) {
        uint8_t s, m;
        getScaleMinK4(j, sc, &s, &m);
        const float d = dAll * float(s);
        if (d == 0.0f)
            continue;
        const float dm = mAll * float(m);
        K::requant(x + 32 * j, 32, d, dm, true, 0, nmax, 0, L + 32 * j);
    }
}

// Q4_K: d, dmin, scales[12], qs[128] @16.
template <class K>
void blockQ4_K(const float* x, uint8_t* y)
{
    uint8_t L[QK_K];
    kquantScalesMins<K>(x, y, L, 15, -1.f, 0.1f, 20);
    uint8_t* q = y + 16;
    for (int j = 0; j < QK_K; j += 64) {
        for (int l = 0; l < 32; ++l)
            q[l] = uint8_t(L[j + l] | (L[j + l + 32] << 4));
        q += 32;
    }
}

// Q5_K: d, dmin, scales[12], qh[32] @16, qs[128] @48.
template <class K>
void blockQ5_K(const float* x, uint8_t* y)
{
    uint8_t L[QK_K];
    kquantScalesMins<K>(x, y, L, 31, -0.5f, 0.1f, 15);
    uint8_t* qh = y + 16;
    uint8_t* ql = y + 48;
    std::memset(qh, 0, 32);
    uint8_t m1 = 1, m2 = 2;
    for (int n = 0; n < QK_K; n += 64) {
        for (int j = 0; j < 32; ++j) {
            int l1 = L[n + j];
            if (l1 > 15) {
                l1 -= 16;
                qh[j] |= m1;
            }
            int l2 = L[n + j + 32];
            if (l2 > 15) {
                l2 -= 16;
                qh[j] |= m2;
            }
            ql[j] = uint8_t(l1 | (l2 << 4));
        }
        m1 = uint8_t(m1 << 2);
        m2 = uint8_t(m2 << 2);
        ql += 32;
    }
}

// Q6_K: ql[128] @0, qh[64] @128, scales[16] (int8) @192, d @208.
template <class K>
void blockQ6_K(const float* x, uint8_t* y)
{
    int8_t L[QK_K];
    float scales[16];
    float maxScale = 0, maxAbsScale = 0;
    K::searchQ6_K(x, scales, L);
    for (int ib = 0; ib < 16; ++ib) {
        const float scale = scales[ib];
        const float absScale = std::fabs(scale);
        if (absScale > maxAbsScale) {
            maxAbsScale = absScale;
            maxScale = scale;
        }
    }
    if (maxAbsScale < GROUP_MAX_EPS) {
        std::memset(y, 0, 210);
        return;
    }
    const float iscale = -128.f / maxScale;
    putHalf(y + 208, 1 / iscale);
    int8_t* sc = reinterpret_cast<int8_t*>(y + 192);
    for (int ib = 0; ib < 16; ++ib)
        sc[ib] = int8_t(std::min(127, nearestInt(iscale * scales[ib])));
    const float dAll = halfAt(y + 208);
    for (int j = 0; j < 16; ++j) {
        const float d = dAll * float(sc[j]);
        if (d == 0.0f)
            continue;
        K::requant(x + 16 * j, 16, d, 0.f, false, -32, 31, 32, reinterpret_cast<uint8_t*>(L) + 16 * j);
    }
    uint8_t* ql = y;
    uint8_t* qh = y + 128;
    for (int j = 0; j < QK_K; j += 128) {
        for (int l = 0; l < 32; ++l) {
            const uint8_t q1 = L[j + l] & 0xF, q2 = L[j + l + 32] & 0xF;
            const uint8_t q3 = L[j + l + 64] & 0xF, q4 = L[j + l + 96] & 0xF;
            ql[l] = uint8_t(q1 | (q3 << 4));
            ql[l + 32] = uint8_t(q2 | (q4 << 4));
            qh[l] = uint8_t((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4)
                            | ((L[j + l + 96] >> 4) << 6));
        }
        ql += 64;
        qh += 32;
    }
}

void elemF32(const float* x, uint8_t* y)
{
    std::memcpy(y, x, 4);
}
void elemF16(const float* x, uint8_t* y)
{
    putHalf(y, *x);
}
void elemBF16(const float* x, uint8_t* y)
{
    const uint16_t b = floatToBf16(*x);
    y[0] = uint8_t(b & 0xFF);
    y[1] = uint8_t(b >> 8);
}

// Quantizes n consecutive blocks.
using BlocksFn = void (*)(const float* x, uint8_t* y, int64_t n);

template <void (*Block)(const float*, uint8_t*), uint32_t Weights, uint32_t Bytes>
void runBlocks(const float* x, uint8_t* y, int64_t n)
{
    for (int64_t b = 0; b < n; ++b)
        Block(x + uint64_t(b) * Weights, y + uint64_t(b) * Bytes);
}

struct TypeInfo {
    uint32_t weights = 0;
    uint32_t bytes = 0;
    BlocksFn scalar = nullptr;
    BlocksFn avx2 = nullptr; // the scalar loops serve when null
};

template <void (*Block)(const float*, uint8_t*), uint32_t Weights, uint32_t Bytes>
constexpr TypeInfo plain()
{
    return {Weights, Bytes, runBlocks<Block, Weights, Bytes>, nullptr};
}

// Avx2 is nullptr where the build has no AVX2 code (QS_X86).
template <void (*Scalar)(const float*, uint8_t*), void (*Avx2)(const float*, uint8_t*), uint32_t Bytes>
constexpr TypeInfo kquant()
{
    BlocksFn avx2 = nullptr;
    if constexpr (Avx2 != nullptr)
        avx2 = runBlocks<Avx2, QK_K, Bytes>;
    return {QK_K, Bytes, runBlocks<Scalar, QK_K, Bytes>, avx2};
}

TypeInfo quantTypeInfo(int type)
{
    switch (type) {
    case GgmlF32: return plain<elemF32, 1, 4>();
    case GgmlF16: return {1, 2, runBlocks<elemF16, 1, 2>, QS_X86(ggmlquant::floatsToHalfAvx2)};
    case GgmlBF16: return plain<elemBF16, 1, 2>();
    case GgmlQ4_0: return plain<blockQ4_0, 32, 18>();
    case GgmlQ4_1: return plain<blockQ4_1, 32, 20>();
    case GgmlQ5_0: return plain<blockQ5_0, 32, 22>();
    case GgmlQ5_1: return plain<blockQ5_1, 32, 24>();
    case GgmlQ8_0: return plain<blockQ8_0, 32, 34>();
    case GgmlQ2_K: return kquant<blockQ2_K<ScalarKernels>, QS_X86(blockQ2_K<Avx2Kernels>), 84>();
    case GgmlQ3_K: return kquant<blockQ3_K<ScalarKernels>, QS_X86(blockQ3_K<Avx2Kernels>), 110>();
    case GgmlQ4_K: return kquant<blockQ4_K<ScalarKernels>, QS_X86(blockQ4_K<Avx2Kernels>), 144>();
    case GgmlQ5_K: return kquant<blockQ5_K<ScalarKernels>, QS_X86(blockQ5_K<Avx2Kernels>), 176>();
    case GgmlQ6_K: return kquant<blockQ6_K<ScalarKernels>, QS_X86(blockQ6_K<Avx2Kernels>), 210>();
    default: return {};
    }
}

} // namespace

bool ggmlCanQuantize(int ggmlType)
{
    return quantTypeInfo(ggmlType).scalar != nullptr;
}
std::span<const int> ggmlQuantizableTypes()
{
    return kTypes;
}
bool ggmlQuantizeTarget(int ggmlType)
{
    return ggmlCanQuantize(ggmlType) && ggmlQuantBlockWeights(ggmlType) > 1;
}

bool ggmlRepackTarget(int ggmlType)
{
    return ggmlType == GgmlQ4_1 || ggmlType == GgmlQ5_1 || ggmlType == GgmlQ8_0;
}

uint32_t ggmlQuantBlockWeights(int ggmlType)
{
    return quantTypeInfo(ggmlType).weights;
}
uint32_t ggmlQuantBlockBytes(int ggmlType)
{
    return quantTypeInfo(ggmlType).bytes;
}

uint64_t ggmlQuantizedBytes(int ggmlType, uint64_t nrows, uint64_t rowElems)
{
    const TypeInfo t = quantTypeInfo(ggmlType);
    if (!t.scalar)
        throw Error("quantize: ggml type " + std::to_string(ggmlType) + " has no reference quantizer here");
    if (rowElems % t.weights != 0)
        throw Error("quantize: row length " + std::to_string(rowElems) + " is not a multiple of the block size "
                    + std::to_string(t.weights));
    const uint64_t rowBytes = rowElems / t.weights * t.bytes;
    uint64_t total = 0;
    if (__builtin_mul_overflow(rowBytes, nrows, &total) || rowElems > (uint64_t(1) << 62)
        || (nrows && rowElems > UINT64_MAX / 4 / nrows))
        throw Error("quantize: tensor size overflows");
    return total;
}

void quantizeGgmlInto(int ggmlType, const float* src, uint64_t nrows, uint64_t rowElems, uint8_t* dst, bool parallel)
{
    quantizeGgmlInto(ggmlType, src, nrows, rowElems, dst, parallel, bestSimdPath());
}

void quantizeGgmlInto(int ggmlType, const float* src, uint64_t nrows, uint64_t rowElems, uint8_t* dst, bool parallel,
                      SimdPath path)
{
    ggmlQuantizedBytes(ggmlType, nrows, rowElems); // validates
    const TypeInfo t = quantTypeInfo(ggmlType);
    const BlocksFn run = hasAvx2(path) && t.avx2 ? t.avx2 : t.scalar;
    // Reference quantizers treat each block on its own, so blocks can run in any order; a chunk
    // holds about 64K weights.
    const uint64_t nblocks = nrows * (rowElems / t.weights);
    const uint64_t chunkBlocks = std::max<uint64_t>(1, (uint64_t(1) << 16) / t.weights);
    const uint64_t chunks = ceilDiv(nblocks, chunkBlocks);
    runChunks(chunks, parallel && chunks > 1 ? 0 : 1, nullptr, [&](uint64_t c, NoChunkState&) {
        const uint64_t first = c * chunkBlocks;
        run(src + first * t.weights, dst + first * t.bytes, int64_t(std::min(chunkBlocks, nblocks - first)));
    });
}

std::vector<uint8_t> quantizeGgml(int ggmlType, const float* src, uint64_t nrows, uint64_t rowElems, bool parallel)
{
    std::vector<uint8_t> out(ggmlQuantizedBytes(ggmlType, nrows, rowElems));
    quantizeGgmlInto(ggmlType, src, nrows, rowElems, out.data(), parallel);
    return out;
}

} // namespace qs
