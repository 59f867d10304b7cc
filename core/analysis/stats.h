#pragma once
// Error statistics of a dequantized weight against a float reference (a second checkpoint,
// or the weight itself requantized), the output error y = W x on activations, and
// value/code/scale histograms without a reference.
// Each weight streams in row chunks (dequantizeRows) in one pass, OpenMP across chunks, with
// per-chunk partial sums reduced in chunk order (the figures do not depend on the thread
// count); within a chunk each row's groups (or the row) are summed by an 8-lane scan
// (valuescan.h: pairwise-style, at least as accurate as one running sum) and added in order. Memory stays constant
// apart from the |error| store for the percentiles (exact up to kExactPercentileLimit values, see
// ErrorStats::percentilesExact) and the per-group scales.
#include "analysis/namemap.h"
#include "base/progress.h"
#include "container/checkpoint.h"
#include "formats/kernel.h"
#include "formats/target.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qs {

struct Histogram {
    double lo = 0, hi = 0; // [lo, hi] split into counts.size() equal bins; hi inclusive
    std::vector<uint64_t> counts;
    uint64_t below = 0, above = 0; // outside [lo, hi] (only with a range chosen by the caller)
    uint64_t total() const; // the counts, without below/above
};

struct GroupError {
    uint64_t group = 0; // the stored group: k / groupSize, or g_idx[k] for an act-order weight
    double rmse = 0;
    double maxAbs = 0;
};

struct ErrorStats {
    uint64_t count = 0;
    // Elements where the weight or the reference is NaN or Inf: counted apart, every figure
    // below is over the others; the flat index (row * K + column) of the first.
    uint64_t nonFinite = 0, firstNonFinite = 0;
    double rmse = 0, meanAbs = 0, maxAbs = 0;
    double meanSigned = 0;
    double sqnrDb = 0; // 10 log10(sum ref^2 / sum err^2); +inf when the error is 0
    double p50 = 0, p95 = 0, p99 = 0, p999 = 0; // of the finite |float(error)|, nearest-rank (NaN/Inf take no rank)
    // True: percentiles are exact (every error kept; a 12-bit key histogram of |error| counted
    // in the pass names the key holding each rank, and a selection over that key's values
    // gives it). False: the weight had more than kExactPercentileLimit elements and a
    // fixed-stride sample of that many was used (for the percentiles only).
    bool percentilesExact = true;
    // [-maxAbs, maxAbs] (the largest finite |error| when one is infinite), or the caller's
    // range; every finite error is binned (a weight above kExactPercentileLimit elements is
    // read a second time for the default range, which needs maxAbs first). An error of 0 is in
    // the bin that holds 0 (RangeBins::bin).
    Histogram signedError;
    std::vector<GroupError> groups; // empty when the weight is not grouped
    uint64_t groupSize = 0; // columns per group of `groups` (the last may be shorter); 0: none
    // Act-order (compared against a reference): the group of each input column, the weight's
    // g_idx, as the Bit map and Scales name it; empty when column k is in group k / groupSize.
    std::vector<int32_t> columnGroup;
    // With StatsOptions::importance: the importance-weighted squared error, the sum over
    // elements of importance[column] * error^2 (the weighting an imatrix gives llama-quantize's
    // error, imatrix.h), its mean per element, and relative to the weighted sum of reference^2.
    bool weighted = false;
    double weightedSumSq = 0, weightedMse = 0, weightedRelative = 0;
};

struct OutputError {
    uint64_t tokens = 0;
    double relativeError = 0; // ||Yq - Yr||_F / ||Yr||_F
    double cosine = 0; // <Yq, Yr> / (||Yq|| ||Yr||)
};

struct StatsOptions {
    int bins = 32;
    // rangeHi > rangeLo: the histogram range (signed error with a reference, values without),
    // every element binned in the pass; outside values are counted in below/above.
    double rangeLo = 0, rangeHi = 0;
    uint64_t rowChunk = 0; // rows per dequantized slice; 0 = about 1 MiB of floats
    uint64_t tokens = 16; // default activations: random normal [tokens, K]
    uint64_t seed = 1;
    int outlierChannels = 4; // default activations: this many channels scaled by 20
    const std::vector<float>* activations = nullptr; // [tokens, K] when given (tokens = size / K)
    // Per input channel importance (an imatrix entry, imatrix.h): K values, or E x K for a weight
    // of E matrices stacked by rows (experts: rows [e N/E, (e+1) N/E) take the e-th K values).
    const std::vector<float>* importance = nullptr;
    // weightHistograms only: > 1 reads one run of rows (whole kernel blocks, at least 4096
    // values) in every sampleEvery, at an offset that changes from period to period, and
    // computes every figure but the count from those rows; a weight below
    // kApproximateMinElements is read whole; min and max come from every row. 0 or 1: exact.
    // An exact histogram costs a counter update per element, 1.4x to 7x the dequantization
    // (valuescan.h, codestats.h); sampling 1 in kApproximateSampleEvery costs 1.35x to 1.9x it
    // (bench_stats, every type it covers, one thread). Stated error (tst_statsapprox): mean and RMS within 2%
    // of the RMS, the value histogram within 0.02 total variation over the same bins.
    uint64_t sampleEvery = 0;
    SimdPath path = SimdPath::Scalar;
    int threads = 0; // OpenMP threads across row chunks; <= 0 = the default
    // Cancel polled between chunks (a cancelled call throws Cancelled); progress: elements done
    // and in all, and the weight in progress.
    Progress progress;
};

static constexpr uint64_t kExactPercentileLimit = uint64_t(1) << 24;
static constexpr uint64_t kApproximateSampleEvery = 32, kApproximateMinElements = uint64_t(1) << 20;

struct WeightComparison {
    std::string weight;
    std::string reference; // the reference tensor's name
    std::string note; // what was undone to pair them (ReferenceMatch::note)
    std::vector<uint64_t> shape; // [N, K]
    ErrorStats error;
    OutputError output;
};

// A float reference stored as a plain F32/F16/BF16 tensor [N, K] (or N*K elements), read as
// stored. Throws qs::Error naming both files and tensors when the shapes disagree.
WeightComparison compareWeight(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref,
                               const TensorEntry& refTensor, const StatsOptions& opt);

// The reference of `weight` (a weight of `ckpt`) in `ref`, paired as diff pairs weights
// (matchWeights, namemap.h): the same name with ".weight" ignored, or Hugging Face <-> GGUF
// names, with llama.cpp's q/k row permutation and Gemma's norm +1 undone on the GGUF side.
struct ReferenceMatch {
    const LogicalWeight* reference = nullptr; // the paired weight of `ref`; nullptr: none
    const TensorEntry* tensor = nullptr; // its one stored tensor (nullptr: not a single tensor)
    SideTransform weightSide, referenceSide; // what brings each side into Hugging Face order
    std::string note; // what was undone, "" when nothing
    // Why there is no usable reference: "no reference tensor for <weight>" (and the names looked
    // for), the paired weight's shape or format, an unknown head count; "" when found.
    std::string problem;
    bool found() const { return reference && tensor && problem.empty(); }
};
ReferenceMatch findReference(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref);
// `weight` against the reference `match` found (match.found()): both sides in Hugging Face
// row order, so every figure is that of the same elements paired. Throws qs::Error naming both
// files and weights when the reference is not F32, F16 or BF16.
WeightComparison compareWeight(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref,
                               const ReferenceMatch& match, const StatsOptions& opt);

// "Requantizing the same weights": the weight as stored (dequantized; a float weight as it
// is) is the reference, and the candidate is that reference quantized to `format` by the
// project's reference quantizers and dequantized again, a row chunk at a time. So the figures
// say what `format` would cost on these weights (on a float checkpoint: the quantization error
// of that format; on a quantized one: the loss of re-quantizing it).
// RequantizeSpec (the format, bits, group size and zero rule) is in formats/target.h.
// Throws qs::Error for a format it cannot produce or a weight it does not fit (K not a whole
// number of ggml blocks, ...).
WeightComparison compareRequantized(const Checkpoint& ckpt, const LogicalWeight& weight, const RequantizeSpec& spec,
                                    const StatsOptions& opt);

// Without a reference, in one pass. GGUF Q4_K, Q4_0, Q4_1, IQ4_NL and IQ4_XS are counted in
// the code domain (codestats.h): per 32-weight group the count of each code and the code's
// value, computed once as the reference dequantizer does; no float per element. The value
// histograms, count and min/max are those of the element-wise scan (a zero extreme may differ
// in sign only: the code domain orders -0 below +0); mean and RMS come from the per-code
// products count * value (exact in double) and count * value^2, summed in 8 lanes (code % 8),
// a pairwise tree per chunk and the chunks in order (CodeTally). Everything else is
// dequantized a slice at a time and scanned (valuescan.h). Approximate (sampleEvery): the same
// on the sampled rows, and every row dequantized for min and max (minMaxValues).
struct WeightHistograms {
    std::string weight;
    uint64_t count = 0;
    // Approximate (StatsOptions::sampleEvery): mean, RMS and every histogram (values, codes,
    // scales) are those of `sampled` elements, the rows of one run in every sampleEvery; min
    // and max stay exact (a zero extreme may differ in sign, as in the code domain). 0 when
    // exact (sampled == count).
    uint64_t sampleEvery = 0, sampled = 0;
    // The non-finite elements among the `sampled` ones; min, max, mean and RMS are those of
    // the finite ones (finite() of them; min and max of every row when approximate) and stay 0
    // when there is none.
    uint64_t nanCount = 0, posInfCount = 0, negInfCount = 0;
    uint64_t nonFinite() const { return nanCount + posInfCount + negInfCount; }
    uint64_t finite() const { return sampled - nonFinite(); }
    bool hasFinite = false; // min and max were found
    double minValue = 0, maxValue = 0, meanValue = 0, rmsValue = 0;
    // Over [min, max] (or the caller's range). With the default range each value is binned by
    // its bfloat16 truncation (the top 16 bits of its float32), so a value within 2^-8 relative
    // of a bin edge may land in the neighbouring bin; with a caller's range binning is exact.
    Histogram values;
    int bits = 0;
    std::vector<uint64_t> codes; // count of each code 0 .. 2^bits-1 (GPTQ/AWQ/Marlin; empty otherwise)
    // Per-group scales (GPTQ/AWQ/Marlin), or each block's f16 scale d (GGUF block types);
    // empty counts when there are none.
    Histogram scales;
};
WeightHistograms weightHistograms(const Checkpoint& ckpt, const LogicalWeight& weight, const StatsOptions& opt);

// The default activations: normal(0, 1), `outlierChannels` channels chosen by the seed
// scaled by 20 (what real LLM activations look like), row-major [tokens, K]. Throws qs::Error
// when tokens * K overflows or exceeds kMaxActivationValues (16 GiB of floats).
inline constexpr uint64_t kMaxActivationValues = uint64_t(1) << 32;
std::vector<float> defaultActivations(uint64_t tokens, uint64_t K, uint64_t seed, int outlierChannels);

} // namespace qs
