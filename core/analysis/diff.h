#pragma once
// Comparing two checkpoints weight by weight through their dequantized logical matrices:
// weights are paired by name (also Hugging Face <-> GGUF for llama-family archs, undoing the
// converter's q/k row permutation and Gemma's norm +1, see namemap.h), each pair streams in
// row chunks (dequantizeRows on both sides, OpenMP across chunks, constant memory), and the
// per-weight error figures come back worst first. B is the reference side: SQNR and the
// relative error divide by B's energy.
#include "container/checkpoint.h"
#include "formats/kernel.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qs {

// How one side's dequantized rows are brought into Hugging Face order and values.
struct SideTransform {
    uint64_t permuteHeads = 0; // > 0: the side is a GGUF q/k weight permuted for this many heads
    float normShift = 0;       // subtracted from every value (Gemma norms in GGUF: 1)
};

struct WeightPair {
    const LogicalWeight* a = nullptr;
    const LogicalWeight* b = nullptr;
    SideTransform ta, tb;
    std::string note; // "q/k permutation undone (32 heads)", "gemma norm +1 undone", ...
};

struct ShapeMismatch {
    std::string nameA, nameB;
    std::vector<uint64_t> shapeA, shapeB;
};

struct SkippedPair {
    std::string nameA, nameB;
    std::string reason; // no dequantizer for a format, q/k heads unknown, ...
};

struct WeightMatch {
    std::vector<WeightPair> pairs; // in A's order
    std::vector<std::string> onlyInA, onlyInB;
    std::vector<ShapeMismatch> shapeMismatches;
    std::vector<SkippedPair> skipped;
};

// Pairs the logical weights of `a` and `b`: by name with a trailing ".weight" ignored (a
// quantized weight is named by its module prefix, a float one by its tensor name); when
// exactly one side is GGUF, the other side's names go through hfToGguf for the GGUF side's
// architecture. `weightFilter` (empty = all) keeps the pairs where either name, with or
// without ".weight", equals it.
WeightMatch matchWeights(const Checkpoint& a, const Checkpoint& b, const std::string& weightFilter = {});

struct DiffOptions {
    std::string weight;          // only this weight (either side's name); empty = every pair
    double tolerance = 0;        // a pair passes when max |a - b| <= tolerance (and all finite)
    uint64_t chunkElements = 0;  // floats per side per chunk; 0 = 256 Ki (1 MiB)
    int threads = 0;             // OpenMP threads; <= 0 = the default
    SimdPath path = SimdPath::Scalar;
    const std::atomic<bool>* cancel = nullptr; // polled between chunks
    // Called on the calling thread: elements compared so far, elements in all pairs, and the
    // weight being compared.
    std::function<void(uint64_t done, uint64_t total, const std::string& weight)> progress;
};

struct WeightDiff {
    std::string nameA, nameB;
    std::string formatA, formatB;
    std::vector<uint64_t> shape; // [N, K] in A's (HF) orientation
    std::string note;
    uint64_t count = 0;
    double rmse = 0, meanAbs = 0, maxAbs = 0, meanSigned = 0; // of a - b
    uint64_t maxRow = 0, maxCol = 0;   // where max |a - b| is (first such element)
    double sqnrDb = 0;                 // 10 log10(sum b^2 / sum (a-b)^2); +inf when equal
    double relativeError = 0;          // ||a - b|| / ||b|| (Frobenius); 0 when both are zero
    double cosine = 0;                 // <a, b> / (||a|| ||b||); 1 when both are zero
    uint64_t nonFinite = 0;            // elements where a - b is NaN or infinite
    uint64_t differing = 0;            // elements with a != b
    bool pass = true;
};

struct DiffResult {
    std::vector<WeightDiff> weights;   // failing first, then by relative error, largest first
    std::vector<std::string> onlyInA, onlyInB;
    std::vector<ShapeMismatch> shapeMismatches;
    std::vector<SkippedPair> skipped;
    // Detection notes on the compared weights that put the figures in doubt ("<weight>: zero
    // convention: ..." for GPTQ v1/v2 zeros mixed), in A's then B's order.
    std::vector<std::string> warnings;
    bool cancelled = false;
    // No weight over the tolerance and no shape mismatch (one-sided weights are only listed).
    bool passed() const;
};

// Throws qs::Error naming the file and weight for malformed data, and when `opt.weight`
// names no weight of either checkpoint.
DiffResult diffCheckpoints(const Checkpoint& a, const Checkpoint& b, const DiffOptions& opt);
// One pair (from matchWeights); the pair's shapes must agree.
WeightDiff diffWeights(const Checkpoint& a, const Checkpoint& b, const WeightPair& pair, const DiffOptions& opt);

// |a - b| of one pair reduced to at most maxRows x maxCols cells, each the max over its
// block of elements (NaN differences count as +inf), for a heatmap. Row-major cells.
struct DiffMap {
    uint64_t rows = 0, cols = 0;              // the weight [N, K]
    uint64_t cellRows = 0, cellCols = 0;      // the map's size
    uint64_t rowsPerCell = 1, colsPerCell = 1; // cell (i, j) covers rows [i*rowsPerCell, ...)
    std::vector<float> cells;                  // cellRows * cellCols
    float maxAbs = 0;
    bool cancelled = false;
};
DiffMap diffMap(const Checkpoint& a, const Checkpoint& b, const WeightPair& pair, uint64_t maxRows, uint64_t maxCols,
                const DiffOptions& opt);

} // namespace qs
