#pragma once
// Small helpers shared by the layoutspec_<family>.cpp files.
#include "formats/layoutspec.h"
#include "base/intmath.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qs::layout {

using ShapeFn = std::function<std::vector<uint64_t>(const LayoutParams&)>;

inline LayoutTensor tensor(std::string role, std::string dtype, std::string formula, ShapeFn shape, std::string meaning,
                           bool optional = false)
{
    return {std::move(role), std::move(dtype), std::move(formula), std::move(shape), std::move(meaning), optional};
}

// A tensor whose length is its own (LayoutTensor::ownLength).
inline LayoutTensor blobTensor(std::string role, std::string dtype, std::string formula, std::string meaning,
                               bool optional = false)
{
    LayoutTensor t = tensor(
        std::move(role), std::move(dtype), std::move(formula),
        [](const LayoutParams&) { return std::vector<uint64_t>{}; }, std::move(meaning), optional);
    t.ownLength = true;
    return t;
}

// A `width`-bit field at bit `bit` of an LSB-first stream of `wordBits`-bit words starting at
// word `firstWord`; a field crossing a word edge gives two pieces, low bits first.
inline uint8_t streamPieces(BitPiece* out, uint64_t bit, int width, uint64_t firstWord, uint32_t wordBits)
{
    const uint64_t w = bit / wordBits;
    const uint8_t sh = uint8_t(bit % wordBits);
    if (sh + uint32_t(width) <= wordBits) {
        out[0] = {firstWord + w, sh, uint8_t(width)};
        return 1;
    }
    out[0] = {firstWord + w, sh, uint8_t(wordBits - sh)};
    out[1] = {firstWord + w + 1, 0, uint8_t(uint32_t(width) - (wordBits - sh))};
    return 2;
}

// Two 4-bit codes a byte, low nibble first, rows of ceil(K/2) bytes, one scale per `block`
// elements of a row (NVFP4, MXFP4): element (row, col).
inline ElementLocation nibbleBlockElement(std::string_view codes, std::string_view scales, uint64_t block,
                                          const LayoutParams& p, uint64_t row, uint64_t col)
{
    ElementLocation e;
    e.tensor = codes;
    e.wordBits = 8;
    e.slot = int(col % 2);
    e.pieceCount = 1;
    e.pieces[0] = {row * ceilDiv(p.K, 2) + col / 2, uint8_t(4 * (col % 2)), 4};
    e.group = col / block;
    e.scaleTensor = scales;
    e.scaleIndex = row * ceilDiv(p.K, block) + e.group;
    return e;
}

// One whole stored value per element: element (row, col) of a row-major [N, K] tensor.
inline ElementLocation plainElement(std::string_view role, uint32_t bits, const LayoutParams& p, uint64_t row,
                                    uint64_t col)
{
    ElementLocation e;
    e.tensor = role;
    e.wordBits = bits;
    e.pieceCount = 1;
    e.pieces[0] = {row * p.K + col, 0, uint8_t(bits)};
    return e;
}

// The spec of a format detection only names: its member tensors listed, no locate().
inline LayoutSpec namedOnly(std::string id, std::string name, std::vector<std::string> roles, std::string note)
{
    LayoutSpec s;
    s.id = std::move(id);
    s.name = std::move(name);
    s.packAxis = PackAxis::None;
    s.formula = "not decoded: named by detection only";
    for (std::string& r : roles)
        s.tensors.push_back(tensor(
            std::move(r), "?", "not modelled", [](const LayoutParams&) { return std::vector<uint64_t>{}; },
            "member tensor detection recognises", true));
    s.notes = {std::move(note), "no locate(): the element layout is not modelled"};
    return s;
}

} // namespace qs::layout
