#include "formats/ggml/ggml_codes.h"

#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_tables.h"
#include "base/half.h"

namespace qs {

namespace {

// File-local names carry a prefix: core/ is compiled in unity batches.
// Legacy 32-weight blocks: low nibble of byte j -> element j, high nibble -> element j + 16.
void codesNibbles(const uint8_t* qs, uint8_t* codes)
{
    for (int j = 0; j < 16; ++j) {
        codes[j] = qs[j] & 0xF;
        codes[j + 16] = qs[j] >> 4;
    }
}

} // namespace

bool ggmlCodeShape(int type, GgmlCodeShape& s)
{
    switch (type) {
    case GgmlQ4_0:
    case GgmlQ4_1:
    case GgmlIQ4_NL: s = {32, 16, 1}; return true;
    case GgmlQ4_K:
    case GgmlIQ4_XS: s = {32, 16, 8}; return true;
    default: return false;
    }
}

void ggmlBlockCodes(int type, const uint8_t* b, float* v, uint8_t* codes)
{
    switch (type) {
    case GgmlQ4_0: {
        const float d = halfAt(b);
        for (int c = 0; c < 16; ++c)
            v[c] = float(c - 8) * d;
        codesNibbles(b + 2, codes);
        break;
    }
    case GgmlQ4_1: {
        const float d = halfAt(b), m = halfAt(b + 2);
        for (int c = 0; c < 16; ++c)
            v[c] = float(c) * d + m;
        codesNibbles(b + 4, codes);
        break;
    }
    case GgmlIQ4_NL: {
        const float d = halfAt(b);
        for (int c = 0; c < 16; ++c)
            v[c] = d * float(ggml::kValuesIq4nl[c]);
        codesNibbles(b + 2, codes);
        break;
    }
    case GgmlQ4_K: {
        const float d = halfAt(b), dmin = halfAt(b + 2);
        for (int s = 0; s < 8; ++s) {
            int sc, m;
            ggml::scaleMinK4(b + 4, s, sc, m);
            for (int c = 0; c < 16; ++c)
                v[16 * s + c] = (d * float(sc)) * float(c) - dmin * float(m);
        }
        for (int e = 0; e < 256; ++e) {
            const uint8_t byte = b[16 + 32 * (e / 64) + e % 32];
            codes[e] = (e / 32) % 2 ? byte >> 4 : byte & 0xF;
        }
        break;
    }
    case GgmlIQ4_XS: {
        const float d = halfAt(b);
        for (int ib = 0; ib < 8; ++ib) {
            const float dl = d * float(ggml::iq4xsScale(b, ib) - 32);
            for (int c = 0; c < 16; ++c)
                v[16 * ib + c] = dl * float(ggml::kValuesIq4nl[c]);
            codesNibbles(b + 8 + 16 * ib, codes + 32 * ib);
        }
        break;
    }
    default: break;
    }
}

} // namespace qs
