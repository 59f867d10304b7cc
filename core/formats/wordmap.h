#pragma once
// The inverse of LayoutSpec::locate(): which logical elements (row, col) have bits in a given
// stored word. The bit-map view asks it for the visible words only.
//
// Every layout repeats: shifting an element by one tile (TR rows, TC cols; for block and
// plain layouts TE elements of the flat row-major order) shifts its words by a constant.
// WordMap finds that period by probing locate(), keeps a table of which base-tile elements
// live at each word offset, and answers a word by solving word = offset + i*SR + j*SC for
// the tile (i, j). Every answer is confirmed by locate() itself, so a piece is never wrong;
// the tests check that no piece is missed.
#include "formats/layoutspec.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qs {

class Checkpoint;
struct LogicalWeight;

// One bit field of an element inside a word.
struct WordPiece {
    uint64_t row = 0;
    uint64_t col = 0;
    uint8_t bit = 0; // first bit in the word, LSB = 0
    uint8_t width = 0;
    uint8_t piece = 0; // which of the element's pieces (0 = lowest code bits)
    uint8_t pieceCount = 1; // > 1: the code is split over words (straddle or bit planes)
};

// The locate() parameters of a weight: K, N, bits and group size.
LayoutParams layoutParams(const LogicalWeight& weight);

class WordMap {
public:
    // Throws qs::Error when the spec has no locate() or no repeating tile is found (the search
    // is bounded, whatever the shape).
    WordMap(const LayoutSpec& spec, const LayoutParams& params);

    const LayoutSpec& spec() const { return *m_spec; }
    const LayoutParams& params() const { return m_params; }
    uint32_t wordBits() const { return m_wordBits; }
    // One past the highest word any element uses.
    uint64_t wordCount() const { return m_wordCount; }
    // The period found (rows/cols of a tile; flat layouts: tileCols elements, tileRows 0).
    uint64_t tileRows() const { return m_tileRows; }
    uint64_t tileCols() const { return m_tileCols; }

    // The element's place in the repeating tile, 0 .. tile elements - 1 (flat layouts: its
    // flat index modulo tileCols): the index every view colours an element by.
    uint64_t tileIndex(uint64_t row, uint64_t col) const;

    // The pieces in `word`, sorted by first bit.
    std::vector<WordPiece> piecesIn(uint64_t word) const;

private:
    struct Entry {
        uint64_t row = 0, col = 0; // inside the base tile (flat: col is the flat index)
    };
    void appendCandidates(uint64_t word, std::vector<std::pair<uint64_t, uint64_t>>& out) const;
    bool tryPeriod2d(uint64_t tr, uint64_t tc);
    bool tryPeriodFlat(uint64_t te);
    void probe(); // counts a step of the search; throws qs::Error past its bound
    void buildTable();
    uint64_t maxWord(uint64_t row, uint64_t col) const;

    const LayoutSpec* m_spec;
    LayoutParams m_params;
    uint32_t m_wordBits = 32;
    bool m_flat = false;
    uint64_t m_tileRows = 1, m_tileCols = 1;
    uint64_t m_strideRow = 0, m_strideCol = 0; // words per tile step (flat: m_strideCol only)
    uint64_t m_tilesRow = 1, m_tilesCol = 1; // tiles along rows / cols (flat: along the order)
    std::vector<uint64_t> m_offsets; // distinct word offsets of the base tile, sorted
    std::vector<std::vector<Entry>> m_atOffset; // base-tile elements per offset
    uint64_t m_wordCount = 0;
    uint64_t m_probes = 0; // locate() calls of the tile search (bounded: the GUI thread runs it)
};

// The stored code of an element and the parameters it is decoded with, for hover text.
struct ElementValues {
    uint64_t code = 0;
    uint64_t group = 0; // after g_idx remapping
    bool hasScale = false;
    double scale = 0;
    bool hasZero = false;
    double zero = 0; // the true integer zero, a float bias or a block min, per `zeroKind`
    ZeroPointKind zeroKind = ZeroPointKind::None;
};
// Reads the bits named by `loc` (and its scale and zero) from the weight's tensors. Throws
// qs::Error naming the checkpoint and tensor when a piece lies outside its tensor.
ElementValues elementValues(const Checkpoint& ckpt, const LogicalWeight& weight, const LayoutSpec& spec,
                            const LayoutParams& params, uint64_t row, uint64_t col);
// One decoded parameter of a block: a field of a GGUF block struct or bnb's absmax, for the
// bit map's panel. Decoded here, as the kernels read it, so the views parse no bytes.
enum class BlockValueKind : uint8_t {
    Scale, // the block's scale (GGUF d, an f16/f32/e8m0 field)
    Min, // the block's min or min super-scale (dmin, m)
    Sum, // Q8_1's d * sum(qs)
    SubScale, // a sub-block's integer scale (k-quants, IQ)
    SubMin, // a sub-block's integer min (Q2_K, Q4_K, Q5_K)
    GridIndex, // an IQ codebook row; `lane` is the element's byte of that row
    SignIndex, // IQ2/IQ3: index into ksigns_iq2xs; `value` is the 8-bit sign mask, `lane` its bit
    Sign, // IQ2_S/IQ3_S: the element's explicit sign bit (set = negative)
    Delta, // IQ1: set = delta -1/8, clear = +1/8
    Absmax, // bitsandbytes: the block's absmax (nested: decoded from its u8 code, `raw`)
    // bitsandbytes nested absmax = map[code] * scale + offset:
    AbsmaxCode, // the u8 code (`raw`) and its entry of the 8-bit dynamic map (`value`)
    AbsmaxScale, // the second-level scale of the code's block of codes (`index`)
    AbsmaxOffset, // the offset added back (the mean absmax)
};
struct BlockValue {
    BlockValueKind kind = BlockValueKind::Scale;
    std::string field; // the block field (GGUF) or tensor role (bnb) holding the bits
    int index = -1; // sub-block number (SubScale, SubMin), -1 otherwise
    int lane = -1; // GridIndex, SignIndex: the element's byte or bit; -1 otherwise
    uint64_t raw = 0; // the stored bits, LSB first
    uint8_t rawBits = 0;
    double value = 0; // as the kernel reads the bits: float, signed integer, index, mask
    bool hasEffective = false;
    double effective = 0; // k-quants: the float the kernel multiplies by, d x sc or dmin x m
};
struct BlockValues {
    bool hasBlock = false; // false: the weight's format stores no block parameters
    uint64_t block = 0; // the block's index in the stored tensor (row-major)
    uint64_t firstRow = 0, firstCol = 0; // its first element
    std::vector<BlockValue> values;
};
// The decoded parameters of the block holding element (row, col): the block's own and the
// element's sub-block, grid index and signs, or with `wholeBlock` the block's and every
// sub-block's (no per-element grid or sign values). Asks the weight's family row; throws
// qs::Error naming the checkpoint and tensor on a truncated tensor or an element outside it.
BlockValues blockValues(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t row, uint64_t col,
                        bool wholeBlock);

// A block format's bytes per block (the end of its last block field), 0 without fields; and
// the index in spec.blockFields of the field holding byte `byte` of the stored tensor, -1
// when none does.
uint32_t blockBytesOf(const LayoutSpec& spec);
int blockFieldAt(const LayoutSpec& spec, uint64_t byte);

// What one byte of a weight's stored code tensor holds, for a hex view: the block field it lies
// in and the element codes with bits in it, so a view colours and names bytes without reading
// a format's bytes itself.
struct ByteCode {
    uint64_t row = 0, col = 0; // the element
    uint8_t bit = 0; // first bit of the code's part inside the byte (LSB = 0)
    uint8_t width = 0; // bits of the code inside the byte
    uint8_t place = 0; // the code's place in its word, counted from the LSB (a packed word's slot)
};
struct ByteContent {
    int field = -1; // index into spec.blockFields, -1 for none
    uint64_t block = 0; // block formats: the block holding the byte
    bool fieldStart = false; // the byte is its field's first in the block
    std::vector<ByteCode> codes; // sorted by bit; empty for a field's or padding's byte
};
// Byte `byte` of the code tensor that `map` describes (words are whole bytes: wordBits % 8 == 0).
ByteContent byteContent(const WordMap& map, uint64_t byte);

// The concatenated (LSB first) bits of `pieces` in little-endian words of `wordBits`.
uint64_t readPieces(std::span<const uint8_t> bytes, std::span<const BitPiece> pieces, uint32_t wordBits,
                    const std::string& what);

} // namespace qs
