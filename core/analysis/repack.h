#pragma once
// Repacking through the logical matrix: a quantized weight is decoded into its integer codes
// [N, K], scales, true zero points and g_idx (never by reinterpreting words), then encoded by the
// target's packer. Targets: gptq-v1, gptq-v2, awq-gemm, compressed-tensors (pack-quantized),
// mlx-affine (mlx-lm's "quantization" config; bias = -scale * zero in the weight's dtype) and
// the GGUF block types gguf-q4_1, gguf-q5_1, gguf-q8_0. Sources: every integer-code format
// (GPTQ v1/v2/planar, AWQ GEMM/GEMV, Marlin, compressed-tensors pack/int).
//
// Act-order (non-monotonic g_idx) into a layout without g_idx (AWQ, MLX, GGUF): the columns of
// K are permuted into contiguous groups (stable sort by group) and the permutation is stored as
// "<module>.input_perm" (I32 [K]) and named in the config: the layer's input must be gathered
// x' = x[perm] before the repacked weight is applied.
//
// Odd dimensions. compressed-tensors pads its packed words and records the logical shape
// (weight_shape). GGUF blocks need K % 32 == 0 and llama.cpp checks every weight's ne against
// the model, so a padded tensor would not load: such a weight is written as F32 (exact; llama.cpp's
// quantize falls back to float for it as well) with a note. AWQ GEMM needs N % 8 == 0 and whole
// groups (AutoAWQ asserts both): refused with that reason. MLX needs groups of 32, 64 or 128.
#include "base/progress.h"
#include "container/checkpoint.h"
#include "formats/codes.h"
#include "formats/formatid.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// A weight's logical codes (formats/codes.h) read by its family row (FamilyRow::codes), for
// the formats whose codes are affine with integer zeros (FormatInfo::affineCodes: GPTQ, AWQ
// GEMM/GEMV, Marlin, compressed-tensors; not AWQ GEMV_FAST, whose zeros are float biases).
// groupSize is set (K for one group per row). Throws qs::Error naming the weight for other
// formats. Without codes: shape, scales, zeros and g_idx (codes may stay empty).
WeightCodes readLogicalMatrix(const Checkpoint& ckpt, const LogicalWeight& weight, bool withCodes = true);

// A format id or alias (parseFormatId) whose format repack writes (FormatInfo::repackTarget);
// throws qs::Error "--to: repack cannot produce 'x'; targets: ..." otherwise.
const FormatInfo& parseRepackTarget(std::string_view text);
// The ids of those formats: the safetensors targets, then the GGUF ones.
std::vector<std::string> repackTargets();

struct RepackOptions {
    std::string to; // what the user typed: parseRepackTarget()
    bool verify = true; // dequantize source and target and compare
    int threads = 0; // the comparison's OpenMP team across row chunks (0: OpenMP default)
    // Cancel checked between weights (a cancelled call throws Cancelled); progress after each
    // weight (done of total, the weight's name), from the calling thread.
    Progress progress;
    bool force = false; // write into a non-empty output folder (replacing only the files repack writes)
};

struct RepackWeight {
    std::string name; // source logical weight
    std::string from; // source format
    bool permuted = false; // act-order columns sorted; input_perm written
    bool verified = false;
    bool exact = false; // dequantized target == source, bit for bit
    double maxAbsError = 0;
    double rmse = 0;
    uint64_t mismatches = 0; // elements whose float bits differ
    std::string note; // why the target cannot be exact, or how it holds the weight
};

struct RepackResult {
    std::string output; // folder (safetensors targets) or .gguf file
    std::vector<RepackWeight> weights;
    std::vector<std::string> copied;
    std::vector<std::string> notes; // "<weight>: <note>" for every weight with a note
    std::vector<std::string> leftAlone; // entries of an existing output folder that repack did not write
};

// Streams `out` one weight at a time (memory: the largest weight, not the checkpoint); throws
// qs::Error (nothing left behind) when a weight cannot be repacked.
RepackResult repackCheckpoint(const Checkpoint& src, const std::string& out, const RepackOptions& opt);

} // namespace qs
