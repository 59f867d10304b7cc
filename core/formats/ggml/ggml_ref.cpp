// Scalar references for every ggml type: one loop per block, written from the block layouts
// of ../shared/spec/gguf.md section 2, in ggml's order of float operations (d*q then +m;
// k-quants form d*scale first; IQ signs as a negation, see sgn). The build uses
// -ffp-contract=off, so nothing is fused. Also: the type table and the row dispatcher.
#include "formats/ggml/ggml.h"

#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "formats/ggml/ggml_tables.h"
#include "base/half.h"

#include <omp.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace qs {

namespace {

uint16_t ld16(const uint8_t* p)
{
    return uint16_t(p[0] | (p[1] << 8));
}
uint32_t ld32(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
// ggml writes "v * (bit ? -1.f : 1.f)", which compilers fold into a negation; the two differ
// only in the sign of a NaN, and the negation is what the fast path reproduces (sign-bit xor).
float sgn(float v, uint8_t mask, int j)
{
    return (mask >> j) & 1 ? -v : v;
}

// ---- plain types ----

void refF32(const uint8_t* s, uint64_t n, float* y)
{
    std::memcpy(y, s, n * 4);
}
void refF16(const uint8_t* s, uint64_t n, float* y)
{
    for (uint64_t i = 0; i < n; ++i)
        y[i] = halfAt(s + 2 * i);
}
void refBF16(const uint8_t* s, uint64_t n, float* y)
{
    for (uint64_t i = 0; i < n; ++i) {
        const uint32_t b = uint32_t(ld16(s + 2 * i)) << 16;
        std::memcpy(y + i, &b, 4);
    }
}
void refF64(const uint8_t* s, uint64_t n, float* y)
{
    for (uint64_t i = 0; i < n; ++i) {
        double v;
        std::memcpy(&v, s + 8 * i, 8);
        y[i] = float(v);
    }
}
template <typename T>
void refInt(const uint8_t* s, uint64_t n, float* y)
{
    for (uint64_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, s + sizeof(T) * i, sizeof(T));
        y[i] = float(v);
    }
}

// ---- 32-weight legacy blocks (low nibble -> element j, high nibble -> element j+16) ----

void refQ4_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32) {
        const float d = halfAt(b);
        for (int j = 0; j < 16; ++j) {
            y[j] = float((b[2 + j] & 0xF) - 8) * d;
            y[j + 16] = float((b[2 + j] >> 4) - 8) * d;
        }
    }
}

void refQ4_1(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 20, y += 32) {
        const float d = halfAt(b), m = halfAt(b + 2);
        for (int j = 0; j < 16; ++j) {
            y[j] = float(b[4 + j] & 0xF) * d + m;
            y[j + 16] = float(b[4 + j] >> 4) * d + m;
        }
    }
}

void refQ5_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 22, y += 32) {
        const float d = halfAt(b);
        const uint32_t qh = ld32(b + 2);
        for (int j = 0; j < 16; ++j) {
            const int q0 = (b[6 + j] & 0xF) | int((qh >> j) & 1) << 4;
            const int q1 = (b[6 + j] >> 4) | int((qh >> (j + 16)) & 1) << 4;
            y[j] = float(q0 - 16) * d;
            y[j + 16] = float(q1 - 16) * d;
        }
    }
}

void refQ5_1(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 24, y += 32) {
        const float d = halfAt(b), m = halfAt(b + 2);
        const uint32_t qh = ld32(b + 4);
        for (int j = 0; j < 16; ++j) {
            const int q0 = (b[8 + j] & 0xF) | int((qh >> j) & 1) << 4;
            const int q1 = (b[8 + j] >> 4) | int((qh >> (j + 16)) & 1) << 4;
            y[j] = float(q0) * d + m;
            y[j + 16] = float(q1) * d + m;
        }
    }
}

void refQ8_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 34, y += 32) {
        const float d = halfAt(b);
        for (int j = 0; j < 32; ++j)
            y[j] = float(int8_t(b[2 + j])) * d;
    }
}

// Q8_1: the second half-float is d*sum(qs), not a minimum; the value is d*q alone.
void refQ8_1(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 36, y += 32) {
        const float d = halfAt(b);
        for (int j = 0; j < 32; ++j)
            y[j] = float(int8_t(b[4 + j])) * d;
    }
}

void refIQ4_NL(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 32) {
        const float d = halfAt(b);
        for (int j = 0; j < 16; ++j) {
            y[j] = d * float(ggml::kValuesIq4nl[b[2 + j] & 0xF]);
            y[j + 16] = d * float(ggml::kValuesIq4nl[b[2 + j] >> 4]);
        }
    }
}

// E8M0 exponent e -> 2^(e-128): half the MX scale, because kValuesFp4 holds doubled E2M1 values.
float e8m0Half(uint8_t e)
{
    const uint32_t bits = e < 2 ? 0x00200000u << e : uint32_t(e - 1) << 23;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

void refMXFP4(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 17, y += 32) {
        const float d = e8m0Half(b[0]);
        for (int j = 0; j < 16; ++j) {
            y[j] = float(ggml::kValuesFp4[b[1 + j] & 0xF]) * d;
            y[j + 16] = float(ggml::kValuesFp4[b[1 + j] >> 4]) * d;
        }
    }
}

void refNVFP4(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 36) {
        for (int s = 0; s < 4; ++s, y += 16) {
            const float d = ggml::ue4m3Half(b[s]);
            const uint8_t* q = b + 4 + 8 * s;
            for (int j = 0; j < 8; ++j) {
                y[j] = float(ggml::kValuesFp4[q[j] & 0xF]) * d;
                y[j + 8] = float(ggml::kValuesFp4[q[j] >> 4]) * d;
            }
        }
    }
}

// Q1_0 selects +d or -d (no multiplication), bits LSB first, consecutive elements.
void refQ1_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 128) {
        const float d = halfAt(b), nd = -d;
        for (int j = 0; j < 128; ++j)
            y[j] = (b[2 + j / 8] >> (j % 8)) & 1 ? d : nd;
    }
}

void refQ2_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 18, y += 64) {
        const float d = halfAt(b);
        for (int j = 0; j < 64; ++j)
            y[j] = float(((b[2 + j / 4] >> (2 * (j % 4))) & 3) - 1) * d;
    }
}

// ---- k-quants (256-weight super-blocks) ----

void refQ2_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 84, y += 256) {
        const uint8_t* sc = b;
        const uint8_t* qs = b + 16;
        const float d = halfAt(b + 80), dmin = halfAt(b + 82);
        for (int e = 0; e < 256; ++e) {
            const int h = e / 128, j = (e % 128) / 32, l = e % 32;
            const int q = (qs[32 * h + l] >> (2 * j)) & 3;
            const uint8_t s = sc[e / 16];
            const float dl = d * float(s & 0xF), ml = dmin * float(s >> 4);
            y[e] = dl * float(q) - ml;
        }
    }
}

void refQ3_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 110, y += 256) {
        const uint8_t* hm = b;
        const uint8_t* qs = b + 32;
        const uint8_t* S = b + 96;
        const float d = halfAt(b + 108);
        for (int e = 0; e < 256; ++e) {
            const int h = e / 128, j = (e % 128) / 32, l = e % 32, s = e / 16;
            const int q2 = (qs[32 * h + l] >> (2 * j)) & 3;
            const int hb = (hm[l] >> (4 * h + j)) & 1;
            const int low4 = s < 8 ? S[s] & 0xF : S[s - 8] >> 4;
            const int high2 = (S[8 + s % 4] >> (2 * (s / 4))) & 3;
            const float dl = d * float((low4 | high2 << 4) - 32);
            y[e] = dl * float(q2 - (hb ? 0 : 4));
        }
    }
}

void refQ4_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 144, y += 256) {
        const float d = halfAt(b), dmin = halfAt(b + 2);
        const uint8_t* qs = b + 16;
        for (int e = 0; e < 256; ++e) {
            int sc, m;
            ggml::scaleMinK4(b + 4, e / 32, sc, m);
            const uint8_t byte = qs[32 * (e / 64) + e % 32];
            const int q = (e / 32) % 2 ? byte >> 4 : byte & 0xF;
            y[e] = (d * float(sc)) * float(q) - dmin * float(m);
        }
    }
}

void refQ5_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 176, y += 256) {
        const float d = halfAt(b), dmin = halfAt(b + 2);
        const uint8_t* qh = b + 16;
        const uint8_t* qs = b + 48;
        for (int e = 0; e < 256; ++e) {
            int sc, m;
            ggml::scaleMinK4(b + 4, e / 32, sc, m);
            const uint8_t byte = qs[32 * (e / 64) + e % 32];
            const int q = ((e / 32) % 2 ? byte >> 4 : byte & 0xF) + ((qh[e % 32] >> (e / 32)) & 1 ? 16 : 0);
            y[e] = (d * float(sc)) * float(q) - dmin * float(m);
        }
    }
}

void refQ6_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 210, y += 256) {
        const uint8_t* ql = b;
        const uint8_t* qh = b + 128;
        const float d = halfAt(b + 208);
        for (int e = 0; e < 256; ++e) {
            const int h = e / 128, k = (e % 128) / 32, l = e % 32;
            const uint8_t low = ql[64 * h + 32 * (k % 2) + l];
            const int nib = k < 2 ? low & 0xF : low >> 4;
            const int q = (nib | ((qh[32 * h + l] >> (2 * k)) & 3) << 4) - 32;
            y[e] = (d * float(int8_t(b[192 + e / 16]))) * float(q);
        }
    }
}

void refQ8_K(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 292, y += 256) {
        float d;
        std::memcpy(&d, b, 4);
        for (int j = 0; j < 256; ++j)
            y[j] = d * float(int8_t(b[4 + j]));
    }
}

void refIQ4_XS(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 136) {
        const float d = halfAt(b);
        for (int ib = 0; ib < 8; ++ib, y += 32) {
            const float dl = d * float(ggml::iq4xsScale(b, ib) - 32);
            const uint8_t* q = b + 8 + 16 * ib;
            for (int j = 0; j < 16; ++j) {
                y[j] = dl * float(ggml::kValuesIq4nl[q[j] & 0xF]);
                y[j + 16] = dl * float(ggml::kValuesIq4nl[q[j] >> 4]);
            }
        }
    }
}

// ---- ternary ----

// Digit n of a base-3 fixed-point byte: ((B * 3^n) mod 256) * 3 >> 8.
int trit(uint8_t byte, int n)
{
    static constexpr uint8_t pow3[5] = {1, 3, 9, 27, 81};
    const uint8_t q = uint8_t(byte * pow3[n]);
    return (q * 3) >> 8;
}

void refTQ1_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 54, y += 256) {
        const float d = halfAt(b + 52);
        for (int n = 0; n < 5; ++n)
            for (int m = 0; m < 32; ++m)
                y[32 * n + m] = float(trit(b[m], n) - 1) * d;
        for (int n = 0; n < 5; ++n)
            for (int m = 0; m < 16; ++m)
                y[160 + 16 * n + m] = float(trit(b[32 + m], n) - 1) * d;
        for (int n = 0; n < 4; ++n)
            for (int m = 0; m < 4; ++m)
                y[240 + 4 * n + m] = float(trit(b[48 + m], n) - 1) * d;
    }
}

void refTQ2_0(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 66, y += 256) {
        const float d = halfAt(b + 64);
        for (int e = 0; e < 256; ++e) {
            const int c = e / 128, n = (e % 128) / 32, m = e % 32;
            y[e] = float(((b[32 * c + m] >> (2 * n)) & 3) - 1) * d;
        }
    }
}

// ---- IQ grid types: 8 blocks of 32 = 4 groups of 8 per super-block ----

uint8_t gridByte(uint64_t entry, int j)
{
    return uint8_t(entry >> (8 * j));
}

void refIQ2_XXS(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 66) {
        const float d = halfAt(b);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t* w0 = b + 2 + 8 * ib;
            const uint32_t w1 = ld32(w0 + 4);
            const float db = d * (0.5f + float(w1 >> 28)) * 0.25f;
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint64_t g = ggml::kIq2xxsGrid[w0[l]];
                const uint8_t signs = ggml::kKsignsIq2xs[(w1 >> (7 * l)) & 127];
                for (int j = 0; j < 8; ++j)
                    y[j] = sgn(db * float(gridByte(g, j)), signs, j);
            }
        }
    }
}

void refIQ2_XS(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 74) {
        const float d = halfAt(b);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t sc = b[66 + ib];
            const float db[2] = {d * (0.5f + float(sc & 0xF)) * 0.25f, d * (0.5f + float(sc >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint16_t w = ld16(b + 2 + 2 * (4 * ib + l));
                const uint64_t g = ggml::kIq2xsGrid[w & 511];
                const uint8_t signs = ggml::kKsignsIq2xs[w >> 9];
                for (int j = 0; j < 8; ++j)
                    y[j] = sgn(db[l / 2] * float(gridByte(g, j)), signs, j);
            }
        }
    }
}

void refIQ2_S(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 82) {
        const float d = halfAt(b);
        const uint8_t* qs = b + 2;
        const uint8_t* qh = b + 66;
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t sc = b[74 + ib];
            const float db[2] = {d * (0.5f + float(sc & 0xF)) * 0.25f, d * (0.5f + float(sc >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l, y += 8) {
                const int idx = qs[4 * ib + l] | ((qh[ib] >> (2 * l)) & 3) << 8;
                const uint64_t g = ggml::kIq2sGrid[idx];
                const uint8_t signs = qs[32 + 4 * ib + l];
                for (int j = 0; j < 8; ++j)
                    y[j] = sgn(db[l / 2] * float(gridByte(g, j)), signs, j);
            }
        }
    }
}

void refIQ3_XXS(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 98) {
        const float d = halfAt(b);
        const uint8_t* qs = b + 2;
        for (int ib = 0; ib < 8; ++ib) {
            const uint32_t a = ld32(qs + 64 + 4 * ib);
            const float db = d * (0.5f + float(a >> 28)) * 0.5f;
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint8_t signs = ggml::kKsignsIq2xs[(a >> (7 * l)) & 127];
                const uint32_t g1 = ggml::kIq3xxsGrid[qs[8 * ib + 2 * l]];
                const uint32_t g2 = ggml::kIq3xxsGrid[qs[8 * ib + 2 * l + 1]];
                for (int j = 0; j < 4; ++j) {
                    y[j] = sgn(db * float(gridByte(g1, j)), signs, j);
                    y[j + 4] = sgn(db * float(gridByte(g2, j)), signs, j + 4);
                }
            }
        }
    }
}

void refIQ3_S(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 110) {
        const float d = halfAt(b);
        const uint8_t* qs = b + 2;
        const uint8_t* qh = b + 66;
        const uint8_t* signs = b + 74;
        for (int ib = 0; ib < 8; ++ib) {
            const int nib = (b[106 + ib / 2] >> (4 * (ib % 2))) & 0xF;
            const float db = d * float(1 + 2 * nib);
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint32_t g1 = ggml::kIq3sGrid[qs[8 * ib + 2 * l] | ((qh[ib] >> (2 * l)) & 1) << 8];
                const uint32_t g2 = ggml::kIq3sGrid[qs[8 * ib + 2 * l + 1] | ((qh[ib] >> (2 * l + 1)) & 1) << 8];
                const uint8_t s = signs[4 * ib + l];
                for (int j = 0; j < 4; ++j) {
                    y[j] = sgn(db * float(gridByte(g1, j)), s, j);
                    y[j + 4] = sgn(db * float(gridByte(g2, j)), s, j + 4);
                }
            }
        }
    }
}

constexpr float kIq1Delta = 0.125f;

void refIQ1_S(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 50) {
        const float d = halfAt(b);
        const uint8_t* qs = b + 2;
        for (int ib = 0; ib < 8; ++ib) {
            const uint16_t h = ld16(b + 34 + 2 * ib);
            const float dl = d * float(2 * ((h >> 12) & 7) + 1);
            const float delta = h & 0x8000 ? -kIq1Delta : kIq1Delta;
            for (int l = 0; l < 4; ++l, y += 8) {
                const uint64_t g = ggml::kIq1sGrid[qs[4 * ib + l] | ((h >> (3 * l)) & 7) << 8];
                for (int j = 0; j < 8; ++j)
                    y[j] = dl * (float(int8_t(gridByte(g, j))) + delta);
            }
        }
    }
}

void refIQ1_M(const uint8_t* b, uint64_t nb, float* y)
{
    for (uint64_t i = 0; i < nb; ++i, b += 56) {
        const uint8_t* qs = b;
        const uint8_t* qh = b + 32;
        const float d = halfToFloat(ggml::iq1mScaleBits(b + 48));
        for (int ib = 0; ib < 8; ++ib) {
            const uint16_t sw = ld16(b + 48 + 2 * (ib / 2));
            const float dl[2] = {d * float(2 * ((sw >> (6 * (ib % 2))) & 7) + 1),
                                 d * float(2 * ((sw >> (6 * (ib % 2) + 3)) & 7) + 1)};
            for (int l = 0; l < 4; ++l, y += 8) {
                const int nib = (qh[2 * ib + l / 2] >> (4 * (l % 2))) & 0xF;
                const uint64_t g = ggml::kIq1sGrid[qs[4 * ib + l] | (nib & 7) << 8];
                const float delta = nib & 8 ? -kIq1Delta : kIq1Delta;
                for (int j = 0; j < 8; ++j)
                    y[j] = dl[l / 2] * (float(int8_t(gridByte(g, j))) + delta);
            }
        }
    }
}

// The reference kernel of each type id; block sizes come from container/ggmltype.h.
const std::array<ggml::BlocksFn, GgmlTypeCount>& refTable()
{
    static const std::array<ggml::BlocksFn, GgmlTypeCount> table = [] {
        std::array<ggml::BlocksFn, GgmlTypeCount> t{};
        t[GgmlF32] = refF32;
        t[GgmlF16] = refF16;
        t[GgmlQ4_0] = refQ4_0;
        t[GgmlQ4_1] = refQ4_1;
        t[GgmlQ5_0] = refQ5_0;
        t[GgmlQ5_1] = refQ5_1;
        t[GgmlQ8_0] = refQ8_0;
        t[GgmlQ8_1] = refQ8_1;
        t[GgmlQ2_K] = refQ2_K;
        t[GgmlQ3_K] = refQ3_K;
        t[GgmlQ4_K] = refQ4_K;
        t[GgmlQ5_K] = refQ5_K;
        t[GgmlQ6_K] = refQ6_K;
        t[GgmlQ8_K] = refQ8_K;
        t[GgmlIQ2_XXS] = refIQ2_XXS;
        t[GgmlIQ2_XS] = refIQ2_XS;
        t[GgmlIQ3_XXS] = refIQ3_XXS;
        t[GgmlIQ1_S] = refIQ1_S;
        t[GgmlIQ4_NL] = refIQ4_NL;
        t[GgmlIQ3_S] = refIQ3_S;
        t[GgmlIQ2_S] = refIQ2_S;
        t[GgmlIQ4_XS] = refIQ4_XS;
        t[GgmlI8] = refInt<int8_t>;
        t[GgmlI16] = refInt<int16_t>;
        t[GgmlI32] = refInt<int32_t>;
        t[GgmlI64] = refInt<int64_t>;
        t[GgmlF64] = refF64;
        t[GgmlIQ1_M] = refIQ1_M;
        t[GgmlBF16] = refBF16;
        t[GgmlTQ1_0] = refTQ1_0;
        t[GgmlTQ2_0] = refTQ2_0;
        t[GgmlMXFP4] = refMXFP4;
        t[GgmlNVFP4] = refNVFP4;
        t[GgmlQ1_0] = refQ1_0;
        t[GgmlQ2_0] = refQ2_0;
        return t;
    }();
    return table;
}

const GgmlTypeInfo& infoFor(int type)
{
    const GgmlTypeInfo* t = ggmlTypeTraits(type);
    if (!t)
        throw Error("ggml type " + ggmlTypeName(type) + " has no dequantizer");
    return *t;
}

// Number of blocks in nrows x rowElems; throws when rowElems is not a whole number of blocks.
uint64_t blockCount(const GgmlTypeInfo& t, uint64_t nrows, uint64_t rowElems)
{
    if (rowElems % t.blockWeights != 0)
        throw Error("ggml " + std::string(t.name) + ": row length " + std::to_string(rowElems)
                    + " is not a multiple of the block size " + std::to_string(t.blockWeights));
    if (rowElems && nrows > std::numeric_limits<uint64_t>::max() / 8 / rowElems)
        throw Error("ggml " + std::string(t.name) + ": tensor too large");
    return rowElems / t.blockWeights * nrows;
}

} // namespace

uint16_t ggml::iq1mScaleBits(const uint8_t* scales)
{
    const uint16_t s0 = ld16(scales), s1 = ld16(scales + 2), s2 = ld16(scales + 4), s3 = ld16(scales + 6);
    return uint16_t((s0 >> 12) | ((s1 >> 8) & 0x00F0) | ((s2 >> 4) & 0x0F00) | (s3 & 0xF000));
}

float ggml::ue4m3Half(uint8_t u)
{
    if (u == 0 || u == 0x7F)
        return 0.0f;
    const int e = (u >> 3) & 0xF, m = u & 7;
    const float raw = e == 0 ? std::ldexp(float(m), -9) : std::ldexp(1.0f + float(m) / 8.0f, e - 7);
    return raw * 0.5f;
}

const std::array<float, 256>& ggml::ue4m3HalfTable()
{
    static const std::array<float, 256> t = [] {
        std::array<float, 256> r{};
        for (int u = 0; u < 256; ++u)
            r[size_t(u)] = ue4m3Half(uint8_t(u));
        return r;
    }();
    return t;
}

const GgmlTypeInfo* ggmlTypeTraits(int id)
{
    if (id < 0 || id >= GgmlTypeCount || !refTable()[size_t(id)])
        return nullptr;
    return ggmlType(id);
}

bool ggmlTypeDecodable(int ggmlType)
{
    return ggmlTypeTraits(ggmlType) != nullptr;
}

ggml::BlocksFn ggml::refBlocksFn(int ggmlType)
{
    return ggmlTypeTraits(ggmlType) ? refTable()[size_t(ggmlType)] : nullptr;
}

ggml::BlocksFn ggml::blocksFn(int ggmlType, SimdPath path)
{
#if QS_ARCH_X86
    if (path == SimdPath::Avx512)
        if (BlocksFn f = avx512BlocksFn(ggmlType))
            return f;
    if (hasAvx2(path))
        if (BlocksFn f = avx2BlocksFn(ggmlType))
            return f;
#elif QS_ARCH_ARM64
    if (path == SimdPath::Neon)
        if (BlocksFn f = neonBlocksFn(ggmlType))
            return f;
#endif
    return refBlocksFn(ggmlType);
}

void dequantizeGgmlRowsRef(int ggmlType, const uint8_t* src, uint64_t nrows, uint64_t rowElems, float* out)
{
    const GgmlTypeInfo& t = infoFor(ggmlType);
    refTable()[size_t(ggmlType)](src, blockCount(t, nrows, rowElems), out);
}

void dequantizeGgmlRows(int ggmlType, const uint8_t* src, uint64_t nrows, uint64_t rowElems, float* out, SimdPath path)
{
    const GgmlTypeInfo& t = infoFor(ggmlType);
    const uint64_t nblocks = blockCount(t, nrows, rowElems);
    const ggml::BlocksFn fn = ggml::blocksFn(ggmlType, path);
    const uint64_t bw = t.blockWeights, bb = t.blockBytes;
    // Chunks of ~64 Ki weights: threads only pay off well above that.
    const uint64_t chunkBlocks = std::max<uint64_t>(1, (uint64_t(1) << 16) / bw);
    const uint64_t nchunks = ceilDiv(nblocks, chunkBlocks);
    if (nchunks < 4 || omp_get_max_threads() < 2 || omp_in_parallel()) {
        fn(src, nblocks, out);
        return;
    }
    parallelFor(nchunks, true, [&](uint64_t c) {
        const uint64_t b0 = c * chunkBlocks;
        const uint64_t n = std::min(chunkBlocks, nblocks - b0);
        fn(src + b0 * bb, n, out + b0 * bw);
    });
}

void dequantGgufWeightRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    const TensorEntry& t = w.entry("weight");
    const std::string where = "tensor '" + std::string(t.name) + "' (" + std::string(t.typeName) + ")";
    if (!ggmlTypeDecodable(t.ggmlType))
        throw Error(where + ": ggml type " + std::to_string(t.ggmlType) + " cannot be decoded");
    const GgmlTypeInfo& tr = *ggmlTypeTraits(t.ggmlType);
    const uint64_t rowElems = w.weight.inFeatures();
    const uint64_t rows = w.weight.outFeatures();
    if (rowBegin > rowEnd || rowEnd > rows)
        throw Error(where + ": rows [" + std::to_string(rowBegin) + ", " + std::to_string(rowEnd) + ") outside 0.."
                    + std::to_string(rows));
    if (rowElems == 0 || rowElems % tr.blockWeights != 0)
        throw Error(where + ": row length " + std::to_string(rowElems) + " is not a multiple of "
                    + std::to_string(tr.blockWeights));
    const uint64_t rowBytes = rowElems / tr.blockWeights * tr.blockBytes;
    const std::span<const uint8_t> bytes = w.bytes("weight");
    if (rows > bytes.size() / rowBytes)
        throw Error(where + ": " + std::to_string(bytes.size()) + " bytes hold fewer than " + std::to_string(rows)
                    + " rows of " + std::to_string(rowBytes) + " bytes");
    dequantizeGgmlRows(t.ggmlType, bytes.data() + rowBegin * rowBytes, rowEnd - rowBegin, rowElems, out, path);
}

} // namespace qs
