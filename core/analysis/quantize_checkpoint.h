#pragma once
// Whole-checkpoint quantization: float weights (F32/F16/BF16) of an opened checkpoint become a
// real checkpoint of a target format that other tools load, with the config such a checkpoint
// carries, every other tensor copied through.
//   safetensors targets (a folder: model.safetensors + config.json [+ quantize_config.json /
//   quant_config.json]): gptq-v1, gptq-v2 (AutoGPTQ config), awq-gemm (AutoAWQ),
//   compressed-tensors (pack-quantized), mlx-affine (mlx-lm "quantization"), bnb-nf4 / bnb-fp4
//   (transformers' bitsandbytes serialization);
//   GGUF targets (a .gguf file): gguf-q4_0 .. gguf-q8_0, gguf-q2_k .. gguf-q6_k, with the input's
//   metadata, general.file_type and general.quantization_version. Tensor names are kept: GGUF
//   output needs a GGUF input or GGUF-style names (HF -> GGUF naming is not done here).
#include "container/checkpoint.h"
#include "formats/target.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// QuantScheme (what the written config describes) is in formats/target.h.

// A format id or alias (parseFormatId) whose format quantize writes (FormatInfo::quantizeTarget);
// throws qs::Error "--format: quantize cannot produce 'x'; targets: ..." otherwise.
const FormatInfo& parseQuantizeTarget(std::string_view text);
// The ids of those formats: the safetensors targets, then the GGUF ones.
std::vector<std::string> quantizeTargets();

// The request's bits, groupSize, symmetric, clipRatio and doubleQuant (formats/target.h):
// 0 (-1 for symmetric) is the target's default (4 bits; group 128, MLX 64, bnb blocks of 64;
// asymmetric except compressed-tensors); GGUF and bnb fix the bits; groupSize -1 is per channel.
struct QuantizeCheckpointOptions : QuantizeRequest {
    std::string format; // what the user typed: parseQuantizeTarget()
    std::vector<std::string> weights; // names (tensor or module) to quantize; empty: every eligible weight
    int threads = 0; // 1: serial; otherwise OpenMP across rows/blocks (0: its default count)
    // Called after each weight (done of total, the weight's name); from the calling thread.
    std::function<void(size_t done, size_t total, const std::string& weight)> progress;
    const std::atomic<bool>* cancel = nullptr; // checked between weights: throws qs::Error "cancelled"
    bool force = false; // write into a non-empty output folder (replacing only the files quantize writes)
};

struct QuantizeCheckpointResult {
    std::string output; // the file (GGUF) or folder (safetensors) written
    std::vector<std::string> quantized; // source tensor names
    std::vector<std::string> copied; // stored tensors written unchanged
    std::vector<std::string> notes; // weights kept in float and why
    std::vector<std::string> leftAlone; // entries of an existing output folder that quantize did not write
};

// Quantizes and streams `out` one weight at a time (memory: the largest weight, not the
// checkpoint). Nothing is left behind when it throws (bad option, a named weight
// that is missing, not float or does not fit the target, cancel).
QuantizeCheckpointResult quantizeCheckpoint(const Checkpoint& src, const std::string& out,
                                            const QuantizeCheckpointOptions& opt);

} // namespace qs
