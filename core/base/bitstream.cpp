#include "base/bitstream.h"

#include "base/intmath.h"

#include <stdexcept>
#include <string>

namespace qs::bitstream {

namespace {

void checkWidths(int bits, int wordBits)
{
    if (bits < 1 || bits > 8)
        throw std::invalid_argument("bitstream: code width " + std::to_string(bits) + " is not in 1..8");
    if (wordBits != 8 && wordBits != 32)
        throw std::invalid_argument("bitstream: word width " + std::to_string(wordBits) + " is not 8 or 32");
}

std::vector<int> resolvedOrder(std::span<const int> slotOrder, int perWord)
{
    std::vector<int> order(static_cast<size_t>(perWord));
    if (slotOrder.empty()) {
        for (int s = 0; s < perWord; ++s)
            order[size_t(s)] = s;
        return order;
    }
    if (slotOrder.size() != size_t(perWord))
        throw std::invalid_argument("bitstream: slot order has " + std::to_string(slotOrder.size())
                                    + " entries, the word holds " + std::to_string(perWord));
    std::vector<bool> seen(size_t(perWord), false);
    for (int s = 0; s < perWord; ++s) {
        const int c = slotOrder[size_t(s)];
        if (c < 0 || c >= perWord || seen[size_t(c)])
            throw std::invalid_argument("bitstream: slot order is not a permutation");
        seen[size_t(c)] = true;
        order[size_t(s)] = c;
    }
    return order;
}

} // namespace

size_t streamBytes(size_t count, int bits, int wordBits)
{
    checkWidths(bits, wordBits);
    const size_t wordBytes = size_t(wordBits / 8);
    const size_t bytes = ceilDiv(count * size_t(bits), 8);
    return ceilDiv(bytes, wordBytes) * wordBytes;
}

size_t slotBytes(size_t count, int bits, int wordBits)
{
    checkWidths(bits, wordBits);
    const size_t perWord = size_t(wordBits / bits);
    return ceilDiv(count, perWord) * size_t(wordBits / 8);
}

std::vector<uint8_t> packStream(std::span<const uint8_t> codes, int bits, int wordBits)
{
    std::vector<uint8_t> out(streamBytes(codes.size(), bits, wordBits), 0);
    for (size_t i = 0; i < codes.size(); ++i) {
        if (codes[i] >> bits)
            throw std::invalid_argument("bitstream: code " + std::to_string(codes[i]) + " at " + std::to_string(i)
                                        + " does not fit in " + std::to_string(bits) + " bits");
        // Bit by bit: the plainest statement of "LSB-first, little-endian words".
        for (int b = 0; b < bits; ++b) {
            const size_t pos = i * size_t(bits) + size_t(b);
            if ((codes[i] >> b) & 1)
                out[pos / 8] |= uint8_t(1u << (pos % 8));
        }
    }
    return out;
}

void unpackStream(std::span<const uint8_t> bytes, int bits, std::span<uint8_t> codes)
{
    checkWidths(bits, 8);
    if (bytes.size() < ceilDiv(codes.size() * size_t(bits), 8))
        throw std::invalid_argument("bitstream: " + std::to_string(bytes.size()) + " bytes cannot hold "
                                    + std::to_string(codes.size()) + " codes of " + std::to_string(bits) + " bits");
    for (size_t i = 0; i < codes.size(); ++i) {
        uint8_t c = 0;
        for (int b = 0; b < bits; ++b) {
            const size_t pos = i * size_t(bits) + size_t(b);
            c |= uint8_t(((bytes[pos / 8] >> (pos % 8)) & 1u) << b);
        }
        codes[i] = c;
    }
}

std::vector<uint8_t> packSlots(std::span<const uint8_t> codes, int bits, int wordBits, std::span<const int> slotOrder)
{
    const int perWord = wordBits / bits;
    const std::vector<int> order = resolvedOrder(slotOrder, perWord);
    std::vector<uint8_t> out(slotBytes(codes.size(), bits, wordBits), 0);
    const size_t wordBytes = size_t(wordBits / 8);
    for (size_t w = 0; w * size_t(perWord) < codes.size(); ++w) {
        uint32_t word = 0;
        for (int s = 0; s < perWord; ++s) {
            const size_t i = w * size_t(perWord) + size_t(order[size_t(s)]);
            if (i >= codes.size())
                continue;
            if (codes[i] >> bits)
                throw std::invalid_argument("bitstream: code " + std::to_string(codes[i]) + " at " + std::to_string(i)
                                            + " does not fit in " + std::to_string(bits) + " bits");
            word |= uint32_t(codes[i]) << (s * bits);
        }
        for (size_t b = 0; b < wordBytes; ++b)
            out[w * wordBytes + b] = uint8_t(word >> (8 * b));
    }
    return out;
}

void unpackSlots(std::span<const uint8_t> bytes, int bits, int wordBits, std::span<uint8_t> codes,
                 std::span<const int> slotOrder)
{
    const int perWord = wordBits / bits;
    const std::vector<int> order = resolvedOrder(slotOrder, perWord);
    const size_t wordBytes = size_t(wordBits / 8);
    if (bytes.size() < slotBytes(codes.size(), bits, wordBits))
        throw std::invalid_argument("bitstream: " + std::to_string(bytes.size()) + " bytes cannot hold "
                                    + std::to_string(codes.size()) + " codes in " + std::to_string(bits)
                                    + "-bit slots");
    for (size_t w = 0; w * size_t(perWord) < codes.size(); ++w) {
        uint32_t word = 0;
        for (size_t b = 0; b < wordBytes; ++b)
            word |= uint32_t(bytes[w * wordBytes + b]) << (8 * b);
        for (int s = 0; s < perWord; ++s) {
            const size_t i = w * size_t(perWord) + size_t(order[size_t(s)]);
            if (i < codes.size())
                codes[i] = uint8_t((word >> (s * bits)) & ((1u << bits) - 1u));
        }
    }
}

} // namespace qs::bitstream
