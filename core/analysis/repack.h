#pragma once
// Repacking through the logical matrix: a quantized weight is decoded into its integer codes
// [N, K], scales, true zero points and g_idx (never by reinterpreting words), then encoded by the
// target's packer. Targets: gptq-v1, gptq-v2, awq-gemm, compressed-tensors (pack-quantized) and
// the GGUF block types gguf-q4_1, gguf-q5_1, gguf-q8_0. Sources: every integer-code format
// (GPTQ v1/v2/planar, AWQ GEMM/GEMV, Marlin, compressed-tensors pack/int).
//
// Act-order (non-monotonic g_idx) into a layout without g_idx (AWQ, GGUF): the columns of K are
// permuted into contiguous groups (stable sort by group) and the permutation is stored as
// "<module>.input_perm" (I32 [K]) and named in the config: the layer's input must be gathered
// x' = x[perm] before the repacked weight is applied.
#include "container/checkpoint.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qs {

struct LogicalMatrix {
    uint64_t N = 0, K = 0;
    int bits = 4;
    uint64_t groupSize = 0; // K for one group per row
    uint64_t groups = 0;
    std::vector<uint8_t> codes;  // [N][K] unsigned codes: w = s * (code - zero)
    std::vector<float> scales;   // [G][N] values of the stored scales
    DType scaleType = DType::F16;
    std::vector<int32_t> zeros;  // [G][N] true integer zeros
    std::vector<int32_t> gIdx;   // [K]
    bool symmetric() const;      // every zero is 2^(b-1)
    bool actOrder() const;       // g_idx is not k / groupSize
};

// Throws qs::Error naming the weight for formats without integer codes and zeros.
LogicalMatrix readLogicalMatrix(const Checkpoint& ckpt, const LogicalWeight& weight);

// Accepts the ids above and the short forms "gptq", "awq", "ct", "q8_0"...; throws otherwise.
std::string repackTargetId(const std::string& text);
std::vector<std::string> repackTargets();

struct RepackOptions {
    std::string to;     // repackTargetId() form
    bool verify = true; // dequantize source and target and compare
    int threads = 0;    // for the comparison's dequantization (0: OpenMP default)
    std::function<void(size_t done, size_t total, const std::string& weight)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

struct RepackWeight {
    std::string name;         // source logical weight
    std::string from;         // source format
    bool permuted = false;    // act-order columns sorted; input_perm written
    bool verified = false;
    bool exact = false;       // dequantized target == source, bit for bit
    double maxAbsError = 0;
    double rmse = 0;
    uint64_t mismatches = 0;  // elements whose float bits differ
};

struct RepackResult {
    std::string output; // folder (safetensors targets) or .gguf file
    std::vector<RepackWeight> weights;
    std::vector<std::string> copied;
    std::vector<std::string> notes;
};

// Writes `out`; throws qs::Error (nothing written) when a weight cannot be repacked.
RepackResult repackCheckpoint(const Checkpoint& src, const std::string& out, const RepackOptions& opt);

} // namespace qs
