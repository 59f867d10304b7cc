// Block structs of the ggml types (../shared/spec/gguf.md section 2) and the element-to-bits
// map. The map mirrors the reference dequantizer's indexing in closed form.
#include "formats/ggml/ggml_blocks.h"

#include "formats/ggml/ggml.h"

#include <cstring>
#include <vector>

namespace qs {

namespace {

using K = GgmlFieldKind;
using R = GgmlPieceRole;

struct TypeFields {
    int type;
    std::vector<GgmlBlockField> fields;
};

const std::vector<TypeFields>& allFields()
{
    static const std::vector<TypeFields> t = {
        {GgmlF32, {{"value", 0, 4, K::Value, "IEEE binary32"}}},
        {GgmlF16, {{"value", 0, 2, K::Value, "IEEE binary16"}}},
        {GgmlBF16, {{"value", 0, 2, K::Value, "upper 16 bits of a binary32"}}},
        {GgmlF64, {{"value", 0, 8, K::Value, "IEEE binary64"}}},
        {GgmlI8, {{"value", 0, 1, K::Value, "signed 8-bit integer"}}},
        {GgmlI16, {{"value", 0, 2, K::Value, "signed 16-bit integer"}}},
        {GgmlI32, {{"value", 0, 4, K::Value, "signed 32-bit integer"}}},
        {GgmlI64, {{"value", 0, 8, K::Value, "signed 64-bit integer"}}},
        {GgmlQ4_0,
         {{"d", 0, 2, K::F16Scale, "scale: x = (q - 8) * d"},
          {"qs", 2, 16, K::PackedLow, "4-bit codes: low nibble of byte j = element j, high nibble = element j+16"}}},
        {GgmlQ4_1,
         {{"d", 0, 2, K::F16Scale, "scale: x = q * d + m"},
          {"m", 2, 2, K::F16Min, "minimum"},
          {"qs", 4, 16, K::PackedLow, "4-bit codes: low nibble of byte j = element j, high nibble = element j+16"}}},
        {GgmlQ5_0,
         {{"d", 0, 2, K::F16Scale, "scale: x = (q - 16) * d"},
          {"qh", 2, 4, K::HighBits, "u32: bit e = 5th bit of element e"},
          {"qs", 6, 16, K::PackedLow, "low 4 bits: low nibble of byte j = element j, high nibble = element j+16"}}},
        {GgmlQ5_1,
         {{"d", 0, 2, K::F16Scale, "scale: x = q * d + m"},
          {"m", 2, 2, K::F16Min, "minimum"},
          {"qh", 4, 4, K::HighBits, "u32: bit e = 5th bit of element e"},
          {"qs", 8, 16, K::PackedLow, "low 4 bits: low nibble of byte j = element j, high nibble = element j+16"}}},
        {GgmlQ8_0,
         {{"d", 0, 2, K::F16Scale, "scale: x = q * d"}, {"qs", 2, 32, K::Codes8, "signed 8-bit codes, consecutive"}}},
        {GgmlQ8_1,
         {{"d", 0, 2, K::F16Scale, "scale: x = q * d"},
          {"s", 2, 2, K::F16Sum, "d * sum(qs), a dot-product helper (not a minimum)"},
          {"qs", 4, 32, K::Codes8, "signed 8-bit codes, consecutive"}}},
        {GgmlQ2_K,
         {{"scales", 0, 16, K::Scales4Bit, "per 16 weights: low nibble = scale, high nibble = min"},
          {"qs", 16, 64, K::PackedLow, "2-bit codes: byte 32h+l holds elements 128h+l+32j in bits 2j..2j+1"},
          {"d", 80, 2, K::F16Scale, "super-scale of the scales"},
          {"dmin", 82, 2, K::F16Min, "super-scale of the mins: x = d*sc*q - dmin*m"}}},
        {GgmlQ3_K,
         {{"hmask", 0, 32, K::HighBits, "3rd bit, inverted (clear = subtract 4): byte l, bit 4h+j"},
          {"qs", 32, 64, K::PackedLow, "low 2 bits, laid out as Q2_K"},
          {"scales", 96, 12, K::Scales6BitPacked,
           "sixteen 6-bit scales (offset 32): low nibbles in bytes 0-7, top 2 bits in bytes 8-11"},
          {"d", 108, 2, K::F16Scale, "super-scale: x = d*(sc-32)*q"}}},
        {GgmlQ4_K,
         {{"d", 0, 2, K::F16Scale, "super-scale of the scales"},
          {"dmin", 2, 2, K::F16Min, "super-scale of the mins: x = d*sc*q - dmin*m"},
          {"scales", 4, 12, K::Scales6BitPacked, "eight 6-bit scales and eight 6-bit mins"},
          {"qs", 16, 128, K::PackedLow, "4-bit codes: byte 32p+l = elements 64p+l (low) and 64p+32+l (high)"}}},
        {GgmlQ5_K,
         {{"d", 0, 2, K::F16Scale, "super-scale of the scales"},
          {"dmin", 2, 2, K::F16Min, "super-scale of the mins: x = d*sc*q - dmin*m"},
          {"scales", 4, 12, K::Scales6BitPacked, "eight 6-bit scales and eight 6-bit mins"},
          {"qh", 16, 32, K::HighBits, "5th bit: byte e%32, bit e/32"},
          {"qs", 48, 128, K::PackedLow, "low 4 bits, laid out as Q4_K"}}},
        {GgmlQ6_K,
         {{"ql", 0, 128, K::PackedLow, "low 4 bits"},
          {"qh", 128, 64, K::HighBits, "high 2 bits: byte 32h+l, bits 2k..2k+1"},
          {"scales", 192, 16, K::Scales8Bit, "signed scale per 16 weights"},
          {"d", 208, 2, K::F16Scale, "super-scale: x = d*sc*(q-32)"}}},
        {GgmlQ8_K,
         {{"d", 0, 4, K::F32Scale, "f32 scale: x = d * q"},
          {"qs", 4, 256, K::Codes8, "signed 8-bit codes"},
          {"bsums", 260, 32, K::Sums, "i16 sums of each 16 codes (redundant)"}}},
        {GgmlIQ2_XXS,
         {{"d", 0, 2, K::F16Scale, "super-scale: db = d*(0.5+s)*0.25"},
          {"qs", 2, 64, K::GridIndex,
           "per 32 weights: 4 grid bytes, then u32 of four 7-bit sign indices and a 4-bit scale"}}},
        {GgmlIQ2_XS,
         {{"d", 0, 2, K::F16Scale, "super-scale: db = d*(0.5+s)*0.25"},
          {"qs", 2, 64, K::GridIndex, "u16 per 8 weights: 9-bit grid index, 7-bit sign index"},
          {"scales", 66, 8, K::Scales4Bit, "two 4-bit scales per 32 weights"}}},
        {GgmlIQ2_S,
         {{"d", 0, 2, K::F16Scale, "super-scale: db = d*(0.5+s)*0.25"},
          {"qs", 2, 32, K::GridIndex, "low 8 bits of the 10-bit grid index per 8 weights"},
          {"signs", 34, 32, K::Signs, "one sign bit per weight"},
          {"qh", 66, 8, K::HighBits, "grid index bits 8-9, 2 per group"},
          {"scales", 74, 8, K::Scales4Bit, "two 4-bit scales per 32 weights"}}},
        {GgmlIQ3_XXS,
         {{"d", 0, 2, K::F16Scale, "super-scale: db = d*(0.5+s)*0.5"},
          {"qs", 2, 64, K::GridIndex, "8-bit grid index per 4 weights"},
          {"scales_signs", 66, 32, K::ScalesAndSigns, "u32 per 32 weights: four 7-bit sign indices, 4-bit scale"}}},
        {GgmlIQ3_S,
         {{"d", 0, 2, K::F16Scale, "super-scale: db = d*(1+2s)"},
          {"qs", 2, 64, K::GridIndex, "low 8 bits of the 9-bit grid index per 4 weights"},
          {"qh", 66, 8, K::HighBits, "grid index bit 8"},
          {"signs", 74, 32, K::Signs, "one sign bit per weight"},
          {"scales", 106, 4, K::Scales4Bit, "4-bit scale per 32 weights"}}},
        {GgmlIQ1_S,
         {{"d", 0, 2, K::F16Scale, "super-scale: dl = d*(2s+1)"},
          {"qs", 2, 32, K::GridIndex, "low 8 bits of the 11-bit grid index per 8 weights"},
          {"qh", 34, 16, K::ScalesAndSigns, "u16 per 32 weights: 3x3 index bits, 3-bit scale, delta sign"}}},
        {GgmlIQ1_M,
         {{"qs", 0, 32, K::GridIndex, "low 8 bits of the 11-bit grid index per 8 weights"},
          {"qh", 32, 16, K::HighBits, "nibble per 8 weights: 3 index bits, delta sign"},
          {"scales", 48, 8, K::ScalesAndSigns, "3-bit scales; the top nibbles of the four u16 form the f16 d"}}},
        {GgmlIQ4_NL,
         {{"d", 0, 2, K::F16Scale, "scale: x = d * kvalues_iq4nl[q]"},
          {"qs", 2, 16, K::PackedLow, "4-bit codebook indices: low nibble = element j, high = element j+16"}}},
        {GgmlIQ4_XS,
         {{"d", 0, 2, K::F16Scale, "super-scale: dl = d*(ls-32)"},
          {"scales_h", 2, 2, K::Scales6BitPacked, "u16: top 2 bits of the 6-bit scale of each 32"},
          {"scales_l", 4, 4, K::Scales6BitPacked, "low 4 bits of the 6-bit scales, a nibble per 32"},
          {"qs", 8, 128, K::PackedLow, "4-bit codebook indices, 16 bytes per 32 weights as IQ4_NL"}}},
        {GgmlTQ1_0,
         {{"qs", 0, 48, K::Trits, "5 trits per byte (base-3 fixed point)"},
          {"qh", 48, 4, K::Trits, "4 trits per byte"},
          {"d", 52, 2, K::F16Scale, "scale: x = (t - 1) * d"}}},
        {GgmlTQ2_0,
         {{"qs", 0, 64, K::PackedLow, "2-bit codes: byte 32c+m, bits 2n..2n+1"},
          {"d", 64, 2, K::F16Scale, "scale: x = (q - 1) * d"}}},
        {GgmlMXFP4,
         {{"e", 0, 1, K::E8M0Scale, "scale 2^(e-127), halved for the doubled FP4 table"},
          {"qs", 1, 16, K::PackedLow, "E2M1 codes: low nibble = element j, high = element j+16"}}},
        {GgmlNVFP4,
         {{"d", 0, 4, K::UE4M3Scales, "one UE4M3 scale per 16 weights"},
          {"qs", 4, 32, K::PackedLow, "E2M1 codes: 8 bytes per 16 weights, low nibbles first"}}},
        {GgmlQ1_0,
         {{"d", 0, 2, K::F16Scale, "scale: bit 1 = +d, 0 = -d"},
          {"qs", 2, 16, K::PackedLow, "one bit per element, LSB first"}}},
        {GgmlQ2_0,
         {{"d", 0, 2, K::F16Scale, "scale: x = (q - 1) * d"},
          {"qs", 2, 16, K::PackedLow, "2-bit codes, consecutive, LSB first"}}},
    };
    return t;
}

struct Builder {
    GgmlElementLocation loc;
    void add(uint32_t byte, uint32_t bit, uint32_t width, uint8_t field, R role)
    {
        byte += bit / 8;
        bit %= 8;
        loc.pieces[loc.count++] = GgmlBitPiece{uint16_t(byte), uint8_t(bit), uint8_t(width), field, role};
    }
};

} // namespace

std::string_view ggmlFieldKindName(GgmlFieldKind k)
{
    static constexpr std::string_view names[] = {"value",
                                                 "f16 scale",
                                                 "f16 min",
                                                 "f16 sum",
                                                 "f32 scale",
                                                 "e8m0 scale",
                                                 "ue4m3 scales",
                                                 "packed low bits",
                                                 "high bits",
                                                 "8-bit codes",
                                                 "trits",
                                                 "signs",
                                                 "grid index",
                                                 "4-bit scales",
                                                 "6-bit scales packed",
                                                 "8-bit scales",
                                                 "scales and signs",
                                                 "sums"};
    return names[size_t(k)];
}

std::string_view ggmlPieceRoleName(GgmlPieceRole r)
{
    static constexpr std::string_view names[] = {"value",   "code",        "trit byte", "grid index",
                                                 "sign",    "sign index",  "delta",     "sub-scale",
                                                 "sub-min", "super-scale", "super-min"};
    return names[size_t(r)];
}

std::span<const GgmlBlockField> ggmlBlockFields(int ggmlType)
{
    for (const TypeFields& t : allFields())
        if (t.type == ggmlType)
            return t.fields;
    return {};
}

namespace {

// The plain types (the whole element) and the blocks of one scale: the legacy quants, TQ, MXFP4, NVFP4.
bool locatePlainOrSmallBlock(Builder& b, int ggmlType, uint32_t e, uint32_t blockBytes)
{
    switch (ggmlType) {
    case GgmlF32:
    case GgmlF16:
    case GgmlBF16:
    case GgmlF64:
    case GgmlI8:
    case GgmlI16:
    case GgmlI32:
    case GgmlI64: b.add(0, 0, blockBytes * 8, 0, R::Value); break;
    case GgmlQ4_0:
    case GgmlIQ4_NL:
        b.add(2 + e % 16, 4 * (e / 16), 4, 1, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        break;
    case GgmlQ4_1:
        b.add(4 + e % 16, 4 * (e / 16), 4, 2, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.add(2, 0, 16, 1, R::SuperMin);
        break;
    case GgmlQ5_0:
        b.add(6 + e % 16, 4 * (e / 16), 4, 2, R::Code);
        b.add(2, e, 1, 1, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        break;
    case GgmlQ5_1:
        b.add(8 + e % 16, 4 * (e / 16), 4, 3, R::Code);
        b.add(4, e, 1, 2, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.add(2, 0, 16, 1, R::SuperMin);
        break;
    case GgmlQ8_0:
        b.add(2 + e, 0, 8, 1, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        break;
    case GgmlQ8_1:
        b.add(4 + e, 0, 8, 2, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        break;
    case GgmlQ8_K:
        b.add(4 + e, 0, 8, 1, R::Code);
        b.add(0, 0, 32, 0, R::SuperScale);
        break;
    case GgmlTQ1_0: {
        if (e < 160) {
            b.add(e % 32, 0, 8, 0, R::TritByte);
            b.loc.lane = uint8_t(e / 32);
        } else if (e < 240) {
            b.add(32 + (e - 160) % 16, 0, 8, 0, R::TritByte);
            b.loc.lane = uint8_t((e - 160) / 16);
        } else {
            b.add(48 + (e - 240) % 4, 0, 8, 1, R::TritByte);
            b.loc.lane = uint8_t((e - 240) / 4);
        }
        b.add(52, 0, 16, 2, R::SuperScale);
        break;
    }
    case GgmlTQ2_0:
        b.add(32 * (e / 128) + e % 32, 2 * ((e % 128) / 32), 2, 0, R::Code);
        b.add(64, 0, 16, 1, R::SuperScale);
        break;
    case GgmlMXFP4:
        b.add(1 + e % 16, 4 * (e / 16), 4, 1, R::Code);
        b.add(0, 0, 8, 0, R::SuperScale);
        break;
    case GgmlNVFP4: {
        const uint32_t s = e / 16, r = e % 16;
        b.add(4 + 8 * s + r % 8, 4 * (r / 8), 4, 1, R::Code);
        b.add(s, 0, 8, 0, R::SubScale);
        break;
    }
    case GgmlQ1_0:
        b.add(2 + e / 8, e % 8, 1, 1, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        break;
    case GgmlQ2_0:
        b.add(2 + e / 4, 2 * (e % 4), 2, 1, R::Code);
        b.add(0, 0, 16, 0, R::SuperScale);
        break;
    default: return false;
    }
    return true;
}

// The k-quants and IQ4_XS: codes with sub-block scales (and mins) under a super-block scale.
bool locateKQuant(Builder& b, int ggmlType, uint32_t e)
{
    switch (ggmlType) {
    case GgmlQ2_K: {
        const uint32_t h = e / 128, jj = (e % 128) / 32, ll = e % 32;
        b.add(16 + 32 * h + ll, 2 * jj, 2, 1, R::Code);
        b.add(e / 16, 0, 4, 0, R::SubScale);
        b.add(e / 16, 4, 4, 0, R::SubMin);
        b.add(80, 0, 16, 2, R::SuperScale);
        b.add(82, 0, 16, 3, R::SuperMin);
        break;
    }
    case GgmlQ3_K: {
        const uint32_t h = e / 128, jj = (e % 128) / 32, ll = e % 32, s = e / 16;
        b.add(32 + 32 * h + ll, 2 * jj, 2, 1, R::Code);
        b.add(ll, 4 * h + jj, 1, 0, R::Code); // inverted: clear subtracts 4
        b.add(96 + s % 8, s < 8 ? 0 : 4, 4, 2, R::SubScale);
        b.add(104 + s % 4, 2 * (s / 4), 2, 2, R::SubScale);
        b.add(108, 0, 16, 3, R::SuperScale);
        break;
    }
    case GgmlQ4_K:
    case GgmlQ5_K: {
        const bool q5 = ggmlType == GgmlQ5_K;
        const uint8_t fScales = 2, fQs = q5 ? 4 : 3;
        const uint32_t s = e / 32;
        b.add((q5 ? 48 : 16) + 32 * (e / 64) + e % 32, 4 * (s % 2), 4, fQs, R::Code);
        if (q5)
            b.add(16 + e % 32, s, 1, 3, R::Code);
        if (s < 4) {
            b.add(4 + s, 0, 6, fScales, R::SubScale);
            b.add(8 + s, 0, 6, fScales, R::SubMin);
        } else {
            b.add(8 + s, 0, 4, fScales, R::SubScale);
            b.add(s, 6, 2, fScales, R::SubScale);
            b.add(8 + s, 4, 4, fScales, R::SubMin);
            b.add(4 + s, 6, 2, fScales, R::SubMin);
        }
        b.add(0, 0, 16, 0, R::SuperScale);
        b.add(2, 0, 16, 1, R::SuperMin);
        break;
    }
    case GgmlQ6_K: {
        const uint32_t h = e / 128, k = (e % 128) / 32, ll = e % 32;
        b.add(64 * h + 32 * (k % 2) + ll, 4 * (k / 2), 4, 0, R::Code);
        b.add(128 + 32 * h + ll, 2 * k, 2, 1, R::Code);
        b.add(192 + e / 16, 0, 8, 2, R::SubScale);
        b.add(208, 0, 16, 3, R::SuperScale);
        break;
    }
    case GgmlIQ4_XS: {
        const uint32_t ib = e / 32, r = e % 32; // block of 32
        b.add(8 + 16 * ib + r % 16, 4 * (r / 16), 4, 3, R::Code);
        b.add(4 + ib / 2, 4 * (ib % 2), 4, 2, R::SubScale);
        b.add(2, 2 * ib, 2, 1, R::SubScale);
        b.add(0, 0, 16, 0, R::SuperScale);
        break;
    }
    default: return false;
    }
    return true;
}

// The IQ grid types: grid indices, signs and sub-scales of blocks of 32, groups of 8, lanes.
bool locateIqGrid(Builder& b, int ggmlType, uint32_t e)
{
    const uint32_t ib = e / 32, l = (e % 32) / 8, j = e % 8; // block of 32, group of 8, lane
    switch (ggmlType) {
    case GgmlIQ2_XXS:
        b.add(2 + 8 * ib + l, 0, 8, 1, R::GridIndex);
        b.add(6 + 8 * ib, 7 * l, 7, 1, R::SignIndex);
        b.add(9 + 8 * ib, 4, 4, 1, R::SubScale);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.loc.lane = uint8_t(j);
        break;
    case GgmlIQ2_XS:
        b.add(2 + 2 * (4 * ib + l), 0, 9, 1, R::GridIndex);
        b.add(2 + 2 * (4 * ib + l), 9, 7, 1, R::SignIndex);
        b.add(66 + ib, 4 * (l / 2), 4, 2, R::SubScale);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.loc.lane = uint8_t(j);
        break;
    case GgmlIQ2_S:
        b.add(2 + 4 * ib + l, 0, 8, 1, R::GridIndex);
        b.add(66 + ib, 2 * l, 2, 3, R::GridIndex);
        b.add(34 + 4 * ib + l, j, 1, 2, R::Sign);
        b.add(74 + ib, 4 * (l / 2), 4, 4, R::SubScale);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.loc.lane = uint8_t(j);
        break;
    case GgmlIQ3_XXS:
        b.add(2 + 8 * ib + 2 * l + j / 4, 0, 8, 1, R::GridIndex);
        b.add(66 + 4 * ib, 7 * l, 7, 2, R::SignIndex);
        b.add(69 + 4 * ib, 4, 4, 2, R::SubScale);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.loc.lane = uint8_t(j % 4);
        break;
    case GgmlIQ3_S:
        b.add(2 + 8 * ib + 2 * l + j / 4, 0, 8, 1, R::GridIndex);
        b.add(66 + ib, 2 * l + j / 4, 1, 2, R::GridIndex);
        b.add(74 + 4 * ib + l, j, 1, 3, R::Sign);
        b.add(106 + ib / 2, 4 * (ib % 2), 4, 4, R::SubScale);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.loc.lane = uint8_t(j % 4);
        break;
    case GgmlIQ1_S:
        b.add(2 + 4 * ib + l, 0, 8, 1, R::GridIndex);
        b.add(34 + 2 * ib, 3 * l, 3, 2, R::GridIndex);
        b.add(34 + 2 * ib, 15, 1, 2, R::Delta);
        b.add(34 + 2 * ib, 12, 3, 2, R::SubScale);
        b.add(0, 0, 16, 0, R::SuperScale);
        b.loc.lane = uint8_t(j);
        break;
    case GgmlIQ1_M:
        b.add(4 * ib + l, 0, 8, 0, R::GridIndex);
        b.add(32 + 2 * ib + l / 2, 4 * (l % 2), 3, 1, R::GridIndex);
        b.add(32 + 2 * ib + l / 2, 4 * (l % 2) + 3, 1, 1, R::Delta);
        b.add(48 + 2 * (ib / 2), 6 * (ib % 2) + 3 * (l / 2), 3, 2, R::SubScale);
        for (uint32_t w = 0; w < 4; ++w)
            b.add(49 + 2 * w, 4, 4, 2, R::SuperScale);
        b.loc.lane = uint8_t(j);
        break;
    default: return false;
    }
    return true;
}

} // namespace

GgmlElementLocation ggmlLocateElement(int ggmlType, uint32_t e)
{
    const GgmlTypeInfo* tr = ggmlTypeTraits(ggmlType);
    if (!tr || e >= tr->blockWeights)
        return {};
    Builder b;
    if (!locatePlainOrSmallBlock(b, ggmlType, e, tr->blockBytes) && !locateKQuant(b, ggmlType, e)
        && !locateIqGrid(b, ggmlType, e))
        return {};
    return b.loc;
}

namespace {

// The bytes a piece spans, read as one little-endian word, and its mask at bit 0.
struct PieceWord {
    uint64_t word = 0;
    unsigned nbytes;
    uint64_t mask;
    PieceWord(const uint8_t* block, const GgmlBitPiece& p)
        : nbytes((p.bitOffset + p.width + 7) / 8)
        , mask(p.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << p.width) - 1)
    {
        std::memcpy(&word, block + p.byteOffset, nbytes);
    }
};

} // namespace

uint64_t ggmlExtractBits(const uint8_t* block, const GgmlElementLocation& loc, GgmlPieceRole role)
{
    uint64_t out = 0;
    unsigned at = 0;
    for (const GgmlBitPiece& p : loc.view()) {
        if (p.role != role)
            continue;
        const PieceWord w(block, p);
        const uint64_t v = (w.word >> p.bitOffset) & w.mask;
        out |= at < 64 ? v << at : 0;
        at += p.width;
    }
    return out;
}

void ggmlDepositBits(uint8_t* block, const GgmlElementLocation& loc, GgmlPieceRole role, uint64_t value)
{
    unsigned at = 0;
    for (const GgmlBitPiece& p : loc.view()) {
        if (p.role != role)
            continue;
        PieceWord w(block, p);
        const uint64_t v = at < 64 ? (value >> at) & w.mask : 0;
        w.word = (w.word & ~(w.mask << p.bitOffset)) | (v << p.bitOffset);
        std::memcpy(block + p.byteOffset, &w.word, w.nbytes);
        at += p.width;
    }
}

} // namespace qs
