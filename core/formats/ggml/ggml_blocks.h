#pragma once
// The block struct of every ggml type as data (fields with offsets, sizes, kinds and meanings)
// and "where does element e of a block live": the bit pieces of its code, grid index, sign,
// sub-block scale/min and super-scales. Read by the views and the layout report; tested
// against the dequantizer on real fixture blocks.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace qs {

enum class GgmlFieldKind : uint8_t {
    Value, // a plain element (F32, F16, BF16, I8 ...)
    F16Scale, // f16 scale (d)
    F16Min, // f16 minimum / min super-scale (m, dmin)
    F16Sum, // f16 d * sum(qs) (Q8_1 dot-product helper)
    F32Scale, // f32 scale (Q8_K)
    E8M0Scale, // power-of-two exponent byte (MXFP4)
    UE4M3Scales, // unsigned 4e3m scale bytes (NVFP4)
    PackedLow, // packed low bits of the codes
    HighBits, // high bits of the codes
    Codes8, // one signed byte per element
    Trits, // base-3 digits packed 5 (or 4) per byte
    Signs, // explicit sign bits
    GridIndex, // codebook indices (IQ types)
    Scales4Bit, // 4-bit sub-block scales (and mins)
    Scales6BitPacked, // 6-bit sub-block scales/mins packed over 12 bytes (or split fields)
    Scales8Bit, // signed 8-bit sub-block scales
    ScalesAndSigns, // words mixing sign indices, scales and extra index bits
    Sums, // redundant per-group sums
};
std::string_view ggmlFieldKindName(GgmlFieldKind k);

struct GgmlBlockField {
    std::string_view name;
    uint32_t offset = 0; // bytes from the block start
    uint32_t size = 0; // bytes
    GgmlFieldKind kind = GgmlFieldKind::Value;
    std::string_view meaning;
};
// The fields of one block in byte order; empty for unknown types.
std::span<const GgmlBlockField> ggmlBlockFields(int ggmlType);

enum class GgmlPieceRole : uint8_t {
    Value, // the whole element of a plain type
    Code, // bits of the element's code (pieces concatenated LSB first)
    TritByte, // the byte holding the element's trit; digit = GgmlElementLocation::lane
    GridIndex, // bits of the codebook index (LSB first); byte = GgmlElementLocation::lane
    Sign, // set = negative
    SignIndex, // 7-bit index into ksigns_iq2xs; bit `lane` of the mask is the sign
    Delta, // IQ1: set = delta -1/8, clear = +1/8
    SubScale, // sub-block scale bits (LSB first)
    SubMin, // sub-block min bits (LSB first)
    SuperScale, // the block's d (f16, f32, e8m0; IQ1_M: four nibbles forming an f16)
    SuperMin, // the block's m or dmin
};
std::string_view ggmlPieceRoleName(GgmlPieceRole r);

struct GgmlBitPiece {
    uint16_t byteOffset = 0; // in the block
    uint8_t bitOffset = 0; // 0..7, from the LSB of that byte; bits continue into later bytes
    uint8_t width = 0; // 1..64; bitOffset + width <= 64
    uint8_t field = 0; // index into ggmlBlockFields(type)
    GgmlPieceRole role = GgmlPieceRole::Code;
};

struct GgmlElementLocation {
    uint8_t count = 0;
    uint8_t lane = 0; // grid byte (IQ types) or trit digit (TQ1_0)
    std::array<GgmlBitPiece, 10> pieces{};
    std::span<const GgmlBitPiece> view() const { return {pieces.data(), count}; }
};
// Where element e (0..blockWeights-1) of a block of `ggmlType` lives. Empty (count 0) for
// unknown types or e out of range.
GgmlElementLocation ggmlLocateElement(int ggmlType, uint32_t e);

// The bits named by every piece of `role`, concatenated LSB first in piece order.
uint64_t ggmlExtractBits(const uint8_t* block, const GgmlElementLocation& loc, GgmlPieceRole role);
// Writes `value` into those bits (its low bits into the first piece), the inverse of ggmlExtractBits.
void ggmlDepositBits(uint8_t* block, const GgmlElementLocation& loc, GgmlPieceRole role, uint64_t value);

} // namespace qs
