#pragma once
// The generic scalar bit packer: the oracle every packed format is checked against.
// Codes of width 1..8 bits go LSB-first into little-endian words of 8 or 32 bits.
//  - Stream layout: code i occupies bits [i*b, i*b + b) of the stream formed by the words
//    (word w holds stream bits [w*W, w*W + W)); a code that crosses a word edge is split,
//    low bits at the top of word w, high bits at the bottom of word w+1 (GPTQ 3-bit, MLX).
//  - Slot layout: each word holds floor(W/b) whole codes, nothing straddles, unused top
//    bits are zero; `slotOrder[s]` names which of the word's codes sits in slot s (bits
//    [s*b, s*b + b)), e.g. AWQ's {0,2,4,6,1,3,5,7}. Identity order = natural.
// Because the words are little-endian, the stream layout is the same bytes for W = 8 and
// W = 32; only the number of padding bytes at the end differs.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace qs::bitstream {

// Bytes needed for `count` codes in the stream layout (rounded up to whole words).
size_t streamBytes(size_t count, int bits, int wordBits);
// Bytes needed for `count` codes in the slot layout.
size_t slotBytes(size_t count, int bits, int wordBits);

// Stream layout. Throws std::invalid_argument on a bad width, a code wider than `bits`,
// or a short buffer.
std::vector<uint8_t> packStream(std::span<const uint8_t> codes, int bits, int wordBits);
void unpackStream(std::span<const uint8_t> bytes, int bits, std::span<uint8_t> codes);

// Slot layout; slotOrder is empty (natural) or a permutation of 0..floor(W/b)-1.
std::vector<uint8_t> packSlots(std::span<const uint8_t> codes, int bits, int wordBits,
                               std::span<const int> slotOrder = {});
void unpackSlots(std::span<const uint8_t> bytes, int bits, int wordBits, std::span<uint8_t> codes,
                 std::span<const int> slotOrder = {});

// One field of `width` bits at absolute bit `bitOffset` of a little-endian byte string
// (may span up to two 32-bit words). The caller guarantees the bytes exist.
inline uint32_t readField(const uint8_t* bytes, uint64_t bitOffset, int width)
{
    const uint64_t byte = bitOffset >> 3;
    const unsigned shift = unsigned(bitOffset & 7);
    const int need = int((shift + unsigned(width) + 7) / 8);
    uint32_t v = 0;
    for (int i = 0; i < need; ++i)
        v |= uint32_t(bytes[byte + uint64_t(i)]) << (8 * i);
    return (v >> shift) & ((1u << width) - 1u);
}

} // namespace qs::bitstream
