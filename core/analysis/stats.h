#pragma once
// Error statistics of a dequantized weight against a float reference, the output error
// y = W x on activations, and value/code/scale histograms without a reference.
// Weights stream a bounded row range at a time (dequantizeRows), so memory stays constant
// apart from the |error| store for the percentiles (exact up to kExactPercentileLimit values,
// see ErrorStats::percentilesExact).
#include "container/checkpoint.h"
#include "kernels/kernel.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qs {

struct Histogram {
    double lo = 0, hi = 0;          // [lo, hi] split into counts.size() equal bins; hi inclusive
    std::vector<uint64_t> counts;
    uint64_t total() const;
};

struct GroupError {
    uint64_t group = 0;     // column block k / groupSize (storage groups, before g_idx)
    double rmse = 0;
    double maxAbs = 0;
};

struct ErrorStats {
    uint64_t count = 0;
    double rmse = 0, meanAbs = 0, maxAbs = 0;
    double meanSigned = 0;
    double sqnrDb = 0;              // 10 log10(sum ref^2 / sum err^2); +inf when the error is 0
    double p50 = 0, p95 = 0, p99 = 0, p999 = 0; // of |error|, nearest-rank
    // True: percentiles are exact (every |error| kept, nth_element). False: the weight had more
    // than kExactPercentileLimit elements and a fixed-stride sample of that many was used.
    bool percentilesExact = true;
    Histogram signedError;          // symmetric [-maxAbs, maxAbs]
    std::vector<GroupError> groups; // empty when the weight is not grouped
};

struct OutputError {
    uint64_t tokens = 0;
    double relativeError = 0; // ||Yq - Yr||_F / ||Yr||_F
    double cosine = 0;        // <Yq, Yr> / (||Yq|| ||Yr||)
};

struct StatsOptions {
    int bins = 32;
    uint64_t rowChunk = 0;       // rows per dequantized slice; 0 = about 1 MiB of floats
    uint64_t tokens = 16;        // default activations: random normal [tokens, K]
    uint64_t seed = 1;
    int outlierChannels = 4;     // default activations: this many channels scaled by 20
    const std::vector<float>* activations = nullptr; // [tokens, K] when given (tokens = size / K)
    SimdPath path = SimdPath::Scalar;
};

static constexpr uint64_t kExactPercentileLimit = uint64_t(1) << 24;

struct WeightComparison {
    std::string weight;
    std::string reference;        // the reference tensor's name
    std::vector<uint64_t> shape;  // [N, K]
    ErrorStats error;
    OutputError output;
};

// A float reference stored as a plain F32/F16/BF16 tensor [N, K] (or N*K elements).
// Throws qs::Error naming both files and tensors when the shapes disagree.
WeightComparison compareWeight(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref,
                               const TensorEntry& refTensor, const StatsOptions& opt);
// The reference tensor for `weight` in `ref`: "<name>.weight", then "<name>"; nullptr if none.
const TensorEntry* findReference(const Checkpoint& ref, const LogicalWeight& weight);

// Without a reference.
struct WeightHistograms {
    std::string weight;
    double minValue = 0, maxValue = 0, meanValue = 0, rmsValue = 0;
    Histogram values;
    int bits = 0;
    std::vector<uint64_t> codes;  // count of each code 0 .. 2^bits-1 (empty: no integer codes)
    Histogram scales;             // empty counts when the format has no per-group scales
};
WeightHistograms weightHistograms(const Checkpoint& ckpt, const LogicalWeight& weight, const StatsOptions& opt);

// The default activations: normal(0, 1), `outlierChannels` channels chosen by the seed
// scaled by 20 (what real LLM activations look like), row-major [tokens, K].
std::vector<float> defaultActivations(uint64_t tokens, uint64_t K, uint64_t seed, int outlierChannels);

} // namespace qs
