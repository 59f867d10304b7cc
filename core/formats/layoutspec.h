#pragma once
// LayoutSpec: each storage format described once, as data. The kernels, the bit-map and
// slot-order views, the spec report and the probes all read the same description, so a
// picture or a report cannot drift from what the kernel does.
//
// A family registers its specs with the function its row of the family table names
// (FamilyRow::registerLayouts, formats/family.h), e.g. GPTQ/AWQ/Marlin in gptq/layoutspec_gptq.cpp.
#include "base/intmath.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// A run of input rows (along K) coded at its own width: EXL2's row groups. firstRow and
// firstWord (its first row of 32-bit words per output column) are the sums over the groups before.
struct RowGroup {
    int bits = 0;
    uint64_t rows = 0;
    uint64_t firstRow = 0, firstWord = 0;
    bool operator==(const RowGroup&) const = default;
};

// The logical dimensions a spec's formulas are evaluated at.
struct LayoutParams {
    uint64_t K = 0; // in_features (GGUF ne0)
    uint64_t N = 0; // out_features (product of the other dims)
    int bits = 4; // code width
    uint64_t groupSize = 0; // 0 or >= K: one group per row/column
    // Additive codebook formats (AQLM): the codebooks summed per code group and the output rows
    // a code group spans (its in_group is groupSize); 1 for every other format.
    int codebooks = 1;
    uint64_t outGroupSize = 1;
    // Row groups of their own code width along K, in stored order (EXL2's q_groups); empty:
    // every row at `bits`. A weight's come from its "row_groups" parameter (layoutParams,
    // formats/wordmap.h; rowGroupsText writes it).
    std::vector<RowGroup> rowGroups = {}; // "= {}": LayoutParams{K, N, bits, group} leaves it out
    uint64_t groups() const { return groupSize == 0 || groupSize >= K ? 1 : ceilDiv(K, groupSize); }
    uint64_t effectiveGroupSize() const { return groupSize == 0 || groupSize >= K ? K : groupSize; }
};

enum class LayoutContainer { Safetensors, Gguf };
enum class PackAxis {
    None, // one element per stored value (float dtypes, int8)
    In, // codes of consecutive input channels share a word (GPTQ qweight, MLX, CT)
    Out, // codes of consecutive output rows share a word (AWQ GEMM)
    Tile, // a fixed tile permutation (Marlin)
    Block, // fixed-size blocks with their own struct (GGUF, bnb)
};
enum class CodeSignedness {
    Unsigned, // 0 .. 2^b - 1, used with a zero point
    Offset, // stored q + 2^(b-1) for a signed q (Marlin, compressed-tensors)
    TwosComplement,
    Float, // the stored value is itself a float (F16, FP8, FP4 table index)
};
enum class ZeroPointKind {
    None, // symmetric, no zero
    Stored, // z stored as is (GPTQ v2, AWQ)
    StoredMinusOne, // GPTQ v1: z - 1 stored
    Implicit, // constant 2^(b-1) (Marlin)
    FloatBias, // a float added after scaling (-s*z: AWQ GEMV_FAST, MLX biases)
    BlockMin, // ggml: d * q + m with a per-block min
};
std::string_view packAxisName(PackAxis a);
// LayoutParams::rowGroups as a weight parameter, runs of equal groups together ("8b 2x32, 4b 4x32":
// two 8-bit groups of 32 rows, then four 4-bit ones), and back; parseRowGroups gives {} for text
// it cannot read or that holds more than `maxRows` rows.
std::string rowGroupsText(const std::vector<RowGroup>& groups);
std::vector<RowGroup> parseRowGroups(std::string_view text, uint64_t maxRows);
// The group holding input row `row` (the last one for rows past the end); groups is not empty.
const RowGroup& rowGroupOf(const std::vector<RowGroup>& groups, uint64_t row);

// One stored tensor of the format and its shape as a function of K, N, bits, group size.
struct LayoutTensor {
    std::string role; // member role: qweight, qzeros, scales, g_idx, B, s, weight, ...
    std::string dtype; // safetensors dtype name ("I32", "F16") or "block"
    std::string shapeFormula; // human-readable, e.g. "[ceil(K*b/32), N]"
    // {} for a scalar, and for a tensor whose size is its own (ownLength) or that a format
    // detection only names.
    std::function<std::vector<uint64_t>(const LayoutParams&)> shape;
    std::string meaning;
    bool optional = false;
    // A blob whose length is its own (a JSON, a name in ASCII): no size follows from the
    // parameters, so size checks, budgets and bits-per-weight leave it out.
    bool ownLength = false;
};
// Whether the parameters give the tensor's size.
inline bool sizedByParams(const LayoutTensor& t)
{
    return t.shape && !t.ownLength;
}

// A field of a block struct (GGUF types), as data for the views and the report.
struct BlockField {
    std::string name;
    uint32_t byteOffset = 0;
    uint32_t byteSize = 0;
    std::string kind; // "f16 scale", "packed low bits", ...
    std::string meaning;
};

// Where one bit field lives: a word (or block) of a tensor, its first bit and width.
struct BitPiece {
    uint64_t word = 0; // index of the word (wordBits wide) in the tensor, row-major flat
    uint8_t bit = 0; // first bit inside that word, LSB = 0
    uint8_t width = 0;
};

// Where logical element (row, col) lives, and the parameters it uses.
struct ElementLocation {
    std::string_view tensor; // role of the tensor holding the code
    uint32_t wordBits = 32;
    uint8_t pieceCount = 0; // 2 when the code straddles words (low bits in pieces[0])
    BitPiece pieces[3]; // planar layouts may use up to 3
    int slot = -1; // slot within the word (slot layouts), -1 for streams
    uint64_t group = 0; // scale/zero group of the element (before g_idx remapping)
    std::string_view scaleTensor;
    uint64_t scaleIndex = 0; // flat element index into the scale tensor
    std::string_view zeroTensor; // empty when the zero is implicit or absent
    uint8_t zeroPieceCount = 0;
    BitPiece zeroPieces[3];
};

struct LayoutSpec {
    std::string id; // format id (formats/formatid.h)
    std::string name; // "GPTQ v1 (AutoGPTQ)"
    LayoutContainer container = LayoutContainer::Safetensors;
    std::vector<int> bitWidths; // supported code widths
    int wordBits = 32;
    PackAxis packAxis = PackAxis::In;
    bool straddles = false; // codes may cross word edges (LSB-first stream)
    std::vector<int> slotOrder; // slot s holds the word's element slotOrder[s]; empty = natural
    CodeSignedness signedness = CodeSignedness::Unsigned;
    ZeroPointKind zeroPoint = ZeroPointKind::None;
    std::string formula; // "W[n][k] = s[g][n] * (q - (zs + 1))"
    std::string exactness; // order of operations and roundings
    std::vector<LayoutTensor> tensors;
    std::vector<BlockField> blockFields;
    std::string padding; // what happens when K or N is not a multiple of the pack factor
    // Why the format cannot hold an [N, K] weight at these parameters ("the group size must
    // divide K"), what `padding` says in words; empty when it can. Unset: every shape whose
    // tensors the formulas give. The budget table leaves a format out at a shape it refuses.
    std::function<std::string(const LayoutParams&)> refuses;
    std::vector<std::string> notes;
    // Exact and cheap; row < N, col < K. `group` ignores g_idx (the caller owns it).
    // Empty for the formats detection only names (FormatFamily::Other): nothing is modelled.
    std::function<ElementLocation(const LayoutParams&, uint64_t row, uint64_t col)> locate;
    // The elements (row, col) with bits in `word` of locate()'s tensor, for a layout that repeats
    // no tile (optimum-quanto's parts: view rows i, i + P, ... share a byte, so a window of a few
    // tiles cannot tell a period from the wrap at P): WordMap asks it instead of searching, and
    // confirms each with locate(). Empty for the layouts that tile.
    std::function<std::vector<std::pair<uint64_t, uint64_t>>(const LayoutParams&, uint64_t word)> elementsIn;

    // ---- Word arrangement the packed-word kernel reads (formats/gptq: PackedLinear takes its
    // variant from these with packAxis, wordBits, slotOrder and zeroPoint; others ignore them) ----
    bool planar = false; // codes split into bit planes per 32 codes (GPTQModel gptq_p), not one stream
    bool transposed = false; // codes stored [in, out] (torch's [K, N] qweight: GPTQ, AWQ GEMM), not [out, in]
};

class LayoutRegistry {
public:
    void add(LayoutSpec spec); // replaces an existing id
    const LayoutSpec* find(std::string_view id) const;
    const std::vector<LayoutSpec>& all() const { return m_specs; }

private:
    std::vector<LayoutSpec> m_specs;
};

// Every registered spec (built once, thread-safe).
const LayoutRegistry& layoutRegistry();
const LayoutSpec* findLayoutSpec(std::string_view id);

} // namespace qs
