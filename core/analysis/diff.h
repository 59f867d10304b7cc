#pragma once
// Comparing two checkpoints weight by weight through their dequantized logical matrices:
// weights are paired by name (also Hugging Face <-> GGUF for llama-family archs, undoing the
// converter's q/k row permutation and Gemma's norm +1, see namemap.h), each pair streams in
// row chunks (dequantizeRows on both sides, OpenMP across chunks, constant memory), and the
// per-weight error figures come back worst first. B is the reference side: SQNR and the
// relative error divide by B's energy.
#include "analysis/namemap.h"
#include "base/progress.h"
#include "container/checkpoint.h"
#include "formats/kernel.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace qs {

struct DiffOptions {
    std::string weight; // only this weight (either side's name); empty = every pair
    // A pair passes when max |a - b| <= its tolerance and every difference is finite: this one for
    // every pair, or, unset, automaticTolerance's for each pair.
    std::optional<double> tolerance;
    uint64_t chunkElements = 0; // floats per side per chunk; 0 = about 256 Ki (1 MiB) in whole kernel row blocks
    int threads = 0; // OpenMP threads; <= 0 = the default
    SimdPath path = SimdPath::Scalar;
    // Cancel polled between chunks (a cancelled call throws Cancelled); progress: elements
    // compared so far, elements in all pairs, and the weight being compared.
    Progress progress;
};

struct WeightDiff {
    std::string nameA, nameB;
    std::string formatA, formatB;
    std::vector<uint64_t> shape; // [N, K]
    std::string note;
    uint64_t count = 0;
    double rmse = 0, meanAbs = 0, maxAbs = 0, meanSigned = 0; // of a - b
    // Where max |a - b| is (the first such element in Hugging Face row order), as each side
    // stores it: the rows differ when one side is a GGUF q/k weight llama.cpp permuted.
    uint64_t maxRowA = 0, maxRowB = 0, maxCol = 0;
    double sqnrDb = 0; // 10 log10(sum b^2 / sum (a-b)^2); +inf when equal
    double relativeError = 0; // ||a - b|| / ||b|| (Frobenius); 0 when both are zero
    double cosine = 0; // <a, b> / (||a|| ||b||); 1 when both are zero
    uint64_t nonFinite = 0; // elements where a - b is NaN or infinite
    uint64_t differing = 0; // elements with a != b
    double maxAbsB = 0; // the largest finite |b|
    double tolerance = 0; // the one the pair was judged by
    bool pass = true;
};

struct DiffResult {
    std::vector<WeightDiff> weights; // failing first, then by relative error, largest first
    std::vector<std::string> onlyInA, onlyInB;
    std::vector<ShapeMismatch> shapeMismatches;
    std::vector<SkippedPair> skipped;
    // Detection notes on the compared weights that put the figures in doubt ("<weight>: zero
    // convention: ..." for GPTQ v1/v2 zeros mixed), in A's then B's order.
    std::vector<std::string> warnings;
    // No weight over the tolerance and no shape mismatch (one-sided weights are only listed).
    bool passed() const;
};

// The tolerance a pair is judged by when the caller gives none. Between a quantized weight and a
// float one (a checkpoint against its float reference): one code step of a uniform grid of the
// quantized side's code width over B's range, 2 max|b| / (2^bits - 1). A correct quantization
// with per-group (or per-block) scales stays within it, each group's step being at most that
// (NF4's and FP8's uneven grids may not, at their largest values); a decoding error (a wrong zero
// point, order or scale) leaves it. Between two quantized or two float weights: 0, as a converter
// or repacker must give every value back.
double automaticTolerance(const LogicalWeight& a, const LogicalWeight& b, double maxAbsB);

// Throws qs::Error naming the file and weight for malformed data, when `opt.weight` names no
// weight of either checkpoint, and when no pair is left to compare (no weight, shape mismatch
// or skipped pair: the error says which naming each side uses and its first names; only
// skipped pairs: it gives their reasons).
DiffResult diffCheckpoints(const Checkpoint& a, const Checkpoint& b, const DiffOptions& opt);
// One pair (from matchWeights); the pair's shapes must agree.
WeightDiff diffWeights(const Checkpoint& a, const Checkpoint& b, const WeightPair& pair, const DiffOptions& opt);

// |a - b| of one pair reduced to at most maxRows x maxCols cells, each the max over its
// block of elements (NaN differences count as +inf), for a heatmap. Row-major cells, the rows
// in A's stored order (a GGUF q/k weight's rows as llama.cpp permuted them).
struct DiffMap {
    uint64_t rows = 0, cols = 0; // the weight [N, K]
    uint64_t cellRows = 0, cellCols = 0; // the map's size
    uint64_t rowsPerCell = 1, colsPerCell = 1; // cell (i, j) covers rows [i*rowsPerCell, ...)
    std::vector<float> cells; // cellRows * cellCols
    float maxAbs = 0;
};
DiffMap diffMap(const Checkpoint& a, const Checkpoint& b, const WeightPair& pair, uint64_t maxRows, uint64_t maxCols,
                const DiffOptions& opt);

// The two values a pair compares at diffMap's element coordinates (A's stored row `row`,
// column `col`), as the comparison reads them (Hugging Face order and values). Reads the one
// row, or the head block a q/k permutation moves it within. Throws for a position outside
// the weight.
struct DiffValues {
    float a = 0, b = 0;
};
DiffValues diffValuesAt(const Checkpoint& a, const Checkpoint& b, const WeightPair& pair, uint64_t row, uint64_t col,
                        SimdPath path);

} // namespace qs
