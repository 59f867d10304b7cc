#include "kernels/ggml_codes.h"

#include "kernels/ggml.h"
#include "kernels/ggml_tables.h"
#include "kernels/half.h"

#include <cstring>

namespace qs {

namespace {

// File-local names carry a prefix: core/ is compiled in unity batches.
float codesF16(const uint8_t* p)
{
    return halfToFloat(uint16_t(p[0] | (p[1] << 8)));
}

// The 6-bit scale and min of sub-block s (0..7) of Q4_K/Q5_K (gguf.md 2.4).
void codesScaleMinK4(const uint8_t* S, int s, int& sc, int& m)
{
    if (s < 4) {
        sc = S[s] & 63;
        m = S[s + 4] & 63;
    } else {
        sc = (S[s + 4] & 0xF) | ((S[s - 4] >> 6) << 4);
        m = (S[s + 4] >> 4) | ((S[s] >> 6) << 4);
    }
}

// Legacy 32-weight blocks: low nibble of byte j -> element j, high nibble -> element j + 16.
void codesNibbles(const uint8_t* qs, uint8_t* codes)
{
    for (int j = 0; j < 16; ++j) {
        codes[j] = qs[j] & 0xF;
        codes[j + 16] = qs[j] >> 4;
    }
}

void codesFifthBit(const uint8_t* qhBytes, uint8_t* codes)
{
    uint32_t qh;
    std::memcpy(&qh, qhBytes, 4);
    for (int j = 0; j < 32; ++j)
        codes[j] = uint8_t(codes[j] | ((qh >> j) & 1) << 4);
}

} // namespace

bool ggmlCodeShape(int type, GgmlCodeShape& s)
{
    switch (type) {
    case GgmlQ4_0: case GgmlQ4_1: case GgmlIQ4_NL: s = {32, 16, 1}; return true;
    case GgmlQ5_0: case GgmlQ5_1: s = {32, 32, 1}; return true;
    case GgmlQ8_0: s = {32, 256, 1}; return true;
    case GgmlQ2_K: s = {16, 4, 16}; return true;
    case GgmlQ3_K: s = {16, 8, 16}; return true;
    case GgmlQ4_K: case GgmlIQ4_XS: s = {32, 16, 8}; return true;
    case GgmlQ5_K: s = {32, 32, 8}; return true;
    case GgmlQ6_K: s = {16, 64, 16}; return true;
    default: return false;
    }
}

void ggmlBlockCodes(int type, const uint8_t* b, float* v, uint8_t* codes)
{
    switch (type) {
    case GgmlQ4_0: {
        const float d = codesF16(b);
        for (int c = 0; c < 16; ++c) v[c] = float(c - 8) * d;
        codesNibbles(b + 2, codes);
        break;
    }
    case GgmlQ4_1: {
        const float d = codesF16(b), m = codesF16(b + 2);
        for (int c = 0; c < 16; ++c) v[c] = float(c) * d + m;
        codesNibbles(b + 4, codes);
        break;
    }
    case GgmlIQ4_NL: {
        const float d = codesF16(b);
        for (int c = 0; c < 16; ++c) v[c] = d * float(ggml::kValuesIq4nl[c]);
        codesNibbles(b + 2, codes);
        break;
    }
    case GgmlQ5_0: {
        const float d = codesF16(b);
        for (int c = 0; c < 32; ++c) v[c] = float(c - 16) * d;
        codesNibbles(b + 6, codes);
        codesFifthBit(b + 2, codes);
        break;
    }
    case GgmlQ5_1: {
        const float d = codesF16(b), m = codesF16(b + 2);
        for (int c = 0; c < 32; ++c) v[c] = float(c) * d + m;
        codesNibbles(b + 8, codes);
        codesFifthBit(b + 4, codes);
        break;
    }
    case GgmlQ8_0: {
        const float d = codesF16(b);
        for (int c = 0; c < 256; ++c) v[c] = float(int8_t(uint8_t(c))) * d;
        std::memcpy(codes, b + 2, 32);
        break;
    }
    case GgmlQ2_K: {
        const float d = codesF16(b + 80), dmin = codesF16(b + 82);
        for (int s = 0; s < 16; ++s) {
            const float dl = d * float(b[s] & 0xF), ml = dmin * float(b[s] >> 4);
            for (int c = 0; c < 4; ++c) v[4 * s + c] = dl * float(c) - ml;
        }
        for (int e = 0; e < 256; ++e)
            codes[e] = (b[16 + 32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
        break;
    }
    case GgmlQ3_K: {
        const uint8_t* S = b + 96;
        const float d = codesF16(b + 108);
        for (int s = 0; s < 16; ++s) {
            const int low4 = s < 8 ? S[s] & 0xF : S[s - 8] >> 4;
            const int high2 = (S[8 + s % 4] >> (2 * (s / 4))) & 3;
            const float dl = d * float((low4 | high2 << 4) - 32);
            for (int c = 0; c < 8; ++c) v[8 * s + c] = dl * float((c & 3) - (c >> 2 ? 0 : 4));
        }
        for (int e = 0; e < 256; ++e) {
            const int h = e / 128, j = (e % 128) / 32, l = e % 32;
            const int q2 = (b[32 + 32 * h + l] >> (2 * j)) & 3;
            codes[e] = uint8_t(q2 | ((b[l] >> (4 * h + j)) & 1) << 2);
        }
        break;
    }
    case GgmlQ4_K:
    case GgmlQ5_K: {
        const float d = codesF16(b), dmin = codesF16(b + 2);
        const bool five = type == GgmlQ5_K;
        const int nc = five ? 32 : 16;
        for (int s = 0; s < 8; ++s) {
            int sc, m;
            codesScaleMinK4(b + 4, s, sc, m);
            for (int c = 0; c < nc; ++c) v[nc * s + c] = (d * float(sc)) * float(c) - dmin * float(m);
        }
        const uint8_t* qs = b + (five ? 48 : 16);
        for (int e = 0; e < 256; ++e) {
            const uint8_t byte = qs[32 * (e / 64) + e % 32];
            codes[e] = (e / 32) % 2 ? byte >> 4 : byte & 0xF;
            if (five)
                codes[e] = uint8_t(codes[e] | ((b[16 + e % 32] >> (e / 32)) & 1) << 4);
        }
        break;
    }
    case GgmlQ6_K: {
        const float d = codesF16(b + 208);
        for (int s = 0; s < 16; ++s) {
            const float dl = d * float(int8_t(b[192 + s]));
            for (int c = 0; c < 64; ++c) v[64 * s + c] = dl * float(c - 32);
        }
        for (int e = 0; e < 256; ++e) {
            const int h = e / 128, k = (e % 128) / 32, l = e % 32;
            const uint8_t low = b[64 * h + 32 * (k % 2) + l];
            const int nib = k < 2 ? low & 0xF : low >> 4;
            codes[e] = uint8_t(nib | ((b[128 + 32 * h + l] >> (2 * k)) & 3) << 4);
        }
        break;
    }
    case GgmlIQ4_XS: {
        const float d = codesF16(b);
        const uint16_t sh = uint16_t(b[2] | (b[3] << 8));
        for (int ib = 0; ib < 8; ++ib) {
            const int ls = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | ((sh >> (2 * ib)) & 3) << 4;
            const float dl = d * float(ls - 32);
            for (int c = 0; c < 16; ++c) v[16 * ib + c] = dl * float(ggml::kValuesIq4nl[c]);
            codesNibbles(b + 8 + 16 * ib, codes + 32 * ib);
        }
        break;
    }
    default:
        break;
    }
}

} // namespace qs
