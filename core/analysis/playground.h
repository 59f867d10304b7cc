#pragma once
// The quantization playground's numbers. A row of weights (for AWQ GEMM a block of 8 rows,
// since 8 output rows share one packed word) is quantized and packed exactly as the chosen
// storage format's tool does, through its family's PlaygroundAffineFormat (formats/target.h:
// playgroundAffineFormats(), the affine rounding rules); this file derives everything a
// teaching view draws from that result: each group's code levels and decision edges, the
// values that fall on each code, the error per element, and which bits of which stored word
// hold which element (from the format's LayoutSpec). The view only draws.
// A block format (GGUF Q4_0, Q4_1, Q8_0, Q4_K, bnb NF4/FP4: playgroundBlockFormats()) is quantized
// by its own checkpoint quantizer instead (FamilyTargets::quantize) and decoded by its family
// (FamilyTargets::playgroundDecode): the same codes, block fields and bytes a file would hold.
#include "formats/affinecodes.h"
#include "formats/formatid.h"
#include "formats/target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qs {

enum class SampleDistribution { Normal, NormalOutliers, Uniform, Laplace };

// rows x length values with the spread of an LLM weight (standard deviation 0.02), the
// same for a seed on every platform (own generator; <random>'s distributions are not portable).
// NormalOutliers: 1 value in 64 is a 6 to 12 sigma outlier. Throws qs::Error above 2^26 values.
std::vector<float> playgroundSamples(SampleDistribution d, uint64_t rows, uint64_t length, uint64_t seed);

// The Playground affine format of `format` (its family's PlaygroundAffineFormat: the rule of
// its tool, the rows quantized together, how it packs); nullptr when the Playground has none.
const PlaygroundAffineFormat* playgroundAffineFormatOf(const FormatInfo& format);

class Checkpoint;
struct LogicalWeight;

// The Playground block format of `format` (a stored weight's own), or nullptr when it is not one.
const PlaygroundBlockFormat* playgroundBlockFormatOf(const FormatInfo& format);

struct PlaygroundOptions {
    // A block format (playgroundBlockFormats()): quantized by that format's own quantizer;
    // affine, bits, groupSize, symmetric, clipRatio and scaleType do not apply. nullptr: affine.
    const FormatInfo* block = nullptr;
    // Block formats that offer them (PlaygroundBlockFormat::blocksizes, nestedOf): elements
    // per block (0: the format's default) and nested (double-quantized) block scales.
    uint32_t blocksize = 0;
    bool nested = false;
    // An affine format (playgroundAffineFormats()) when block is nullptr; nullptr: the first
    // of them (GPTQ v1). The result names the one it used.
    const FormatInfo* affine = nullptr;
    int bits = 4;
    uint64_t groupSize = 32; // 0: the whole row is one group
    bool symmetric = false;
    float clipRatio = 1.0f;
    DType scaleType = DType::F16; // codes are chosen against the stored (rounded) scale
    int histogramBins = 64; // per group, 1..4096
};

// One group of the focus row (row 0 of the block): for block formats the elements sharing one
// level table (a k-quant sub-block, else the block).
struct PlaygroundGroup {
    uint64_t begin = 0, end = 0; // columns [begin, end)
    uint64_t block = 0; // block formats: index into PlaygroundResult::blocks.blocks
    int subBlock = -1; // block formats with sub-blocks: the group's number in its block
    float scale = 0; // as quantizeAffine reports it (block formats: 0, see the block's fields)
    float zero = 0; // code units (w = s (q - z)); for MLX the float bias
    float min = 0, max = 0; // of the group's values
    std::vector<float> levels; // [2^b] the value code q stands for (as dequantizeAffine computes it)
    float lowLevel = 0, highLevel = 0; // smallest and largest level
    float step = 0; // |scale|: distance between adjacent levels (block formats: the largest)
    std::vector<float> edges; // [2^b - 1] ascending decision edges: midpoints of adjacent levels
    std::vector<uint64_t> codeCounts; // [2^b] values per code
    // Values beyond the outer levels by more than half a step (half the outer gap): clamped to the end codes.
    uint64_t clippedLow = 0, clippedHigh = 0;
    double rmse = 0, maxAbs = 0, sqnrDb = 0;
    // Histogram of the values over [histLow, histHigh] (covers the values and the levels),
    // bins x 2^b counts, row-major: histogram[bin * 2^b + code].
    double histLow = 0, histHigh = 0;
    int bins = 0;
    std::vector<uint32_t> histogram;
};

struct PlaygroundResult {
    PlaygroundOptions options;
    AffineRule rule = AffineRule::Gptq;
    uint64_t rows = 0, cols = 0; // the block; row 0 is the focus row
    std::vector<float> values; // [rows, cols] input
    // quantizeAffine's result for the block. Block formats: the stored codes, rows, cols, bits,
    // groupSize (elements per level table) and groups only, no scales or zeros.
    AffineQuantized quantized;
    std::vector<float> dequantized; // [rows, cols] dequantizeAffine
    std::vector<float> error; // [cols] focus row: dequantized - value
    std::vector<PlaygroundGroup> groups; // of the focus row
    double rmse = 0, maxAbs = 0, sqnrDb = 0; // focus row; sqnrDb is +inf for an exact row
    std::vector<StoredTensor> stored; // packAffine's tensors; empty when packError is set
    std::string packError; // why the target cannot hold this quantization
    std::string codeTensor; // role of the stored tensor holding the codes ("qweight", ...)
    bool hasLayout = false; // a LayoutSpec describes the target's bits
    PlaygroundBlocks blocks; // block formats: the family's decoding (levels, block fields, formula)
    bool signedCodes = false; // block formats: two's complement codes (Q8_0), code c stands for int8(c)
};

// Throws qs::Error on an empty block, bad sizes or options quantizeAffine refuses. A target
// that cannot store the result (AWQ at 3 bits, a GPTQ v1 zero of 0, ...) sets packError instead.
PlaygroundResult runPlayground(std::vector<float> values, uint64_t rows, uint64_t cols, const PlaygroundOptions& opt);

// A bit field of a stored word and the element it belongs to (or, field >= 0, the block field).
struct PlaygroundField {
    uint8_t bit = 0; // first bit, LSB = 0
    uint8_t width = 0;
    uint64_t row = 0; // block row (0 = focus row)
    uint64_t col = 0;
    int slot = -1; // slot in the word, -1 for bit streams
    int piece = 0; // 0 = low bits; 1, 2 for the rest of a code that straddles words
    int pieces = 1;
    uint8_t code = 0;
    int field = -1; // >= 0: bits of the block field LayoutSpec::blockFields[field], no element
    int64_t tile = -1; // block formats: the element's WordMap::tileIndex, the hue every view gives it
};

struct PlaygroundWord {
    uint64_t index = 0; // word index in the code tensor (row-major flat)
    uint32_t value = 0; // the word (block formats: of the spec's wordBits, a byte)
    std::vector<PlaygroundField> fields; // by bit, ascending; bits in no field are padding
};

// The words of the code tensor that hold focus-row columns [colBegin, colEnd), ascending,
// at most maxWords of them, with every field they contain. Empty without a layout or packing.
// Block formats: also the words of the block's fields (d, dmin, scales) before them.
std::vector<PlaygroundWord> playgroundWords(const PlaygroundResult& r, uint64_t colBegin, uint64_t colEnd,
                                            size_t maxWords);
// Renumbers `words` (playgroundWords of `r`) as the words holding the same elements in the
// code tensor of a weight of `weightRows` rows of r.cols columns, the block being its rows
// [firstRow, firstRow + r.rows): the Playground then names a word as the Bit map and Slot
// order do. Words stay as they are when the block does not lie inside such a weight.
void numberAsStored(std::vector<PlaygroundWord>& words, const PlaygroundResult& r, uint64_t weightRows,
                    uint64_t firstRow);
// The word width of the result's code tensor (32; block formats: the LayoutSpec's, 8).
int playgroundWordBits(const PlaygroundResult& r);

// Block formats: how many of the focus row's codes equal the codes `weight` (stored in the
// result's format) holds in row `row`, read through the format's LayoutSpec; -1 when the
// weight is not stored in that format with that block size. Throws qs::Error naming the tensor
// when it is too short.
int64_t playgroundStoredMatches(const Checkpoint& ckpt, const LogicalWeight& weight, uint64_t row,
                                const PlaygroundResult& r);
// The words of `weight`'s code tensor as the file holds them (32-bit words of an integer-code
// format with a LayoutSpec: GPTQ, AWQ, Marlin, compressed-tensors, ...) that carry the codes of
// `columns` of row rowBegin, ascending, at most maxWords, each with every element of rows
// rowBegin .. rowBegin + rows - 1 (modulo the weight's rows; field row i) in it, its code read
// from the file: what the Playground shows beside its own packing of a stored row. Empty when
// the format has no such layout. Throws qs::Error naming the tensor when it is too short.
std::vector<PlaygroundWord> playgroundStoredWords(const Checkpoint& ckpt, const LogicalWeight& weight,
                                                  uint64_t rowBegin, uint64_t rows,
                                                  const std::vector<uint64_t>& columns, size_t maxWords);

} // namespace qs
