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
#include "container/safetensors.h"

#include <QJsonObject>

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>
#include <string>
#include <vector>

namespace qs {

// The parameters a quantized safetensors checkpoint's config describes.
struct QuantScheme {
    std::string format;       // target format id (formats/formatid.h)
    int bits = 4;
    int64_t groupSize = 128;  // -1: one group per row (per channel)
    bool symmetric = false;
    bool actOrder = false;    // GPTQ desc_act / compressed-tensors actorder "group"
    uint32_t blocksize = 64;  // bnb
    bool nested = false;      // bnb double quant
    DType modelDtype = DType::F16;
    std::vector<std::string> skipped; // module names left unquantized (AWQ / bnb / CT lists)
    // Modules whose K columns were permuted into contiguous groups (repack of act-order into a
    // layout without g_idx): "<module>.input_perm" holds the gather the layer input needs.
    std::vector<std::string> inputPermutations;
};

// `base` (the input's config.json, may be empty) with the target's quantization config
// inserted, as the upstream tool writes it.
QJsonObject quantizedConfig(const QJsonObject& base, const QuantScheme& s);
// quantize_config.json (GPTQ) or quant_config.json (AWQ) when the target has one; empty otherwise.
std::pair<std::string, QJsonObject> quantizeSideConfig(const QuantScheme& s);
// Writes `dir` (created when missing): model.safetensors (metadata format=pt), config.json and
// the side config. Atomic per file.
void writeQuantizedFolder(const std::string& dir, const QJsonObject& baseConfig, const QuantScheme& s,
                          const std::vector<SafetensorsTensor>& tensors);
// config.json and the side config only, into the existing `dir` (model.safetensors streamed
// by the caller). Atomic per file.
void writeQuantizedConfigs(const std::string& dir, const QJsonObject& baseConfig, const QuantScheme& s);

// Accepts format ids and the short forms "mlx", "q4_k", "nf4", "fp4"; throws qs::Error for a
// format quantize cannot produce.
std::string quantizeTargetId(const std::string& text);
std::vector<std::string> quantizeTargets();

struct QuantizeCheckpointOptions {
    std::string format;              // quantizeTargetId() form
    int bits = 0;                    // 0: 4 (affine targets); fixed by the type for GGUF / bnb
    int64_t groupSize = 0;           // 0: the target's default (128; MLX 64; bnb blocksize 64); -1: per channel
    int symmetric = -1;              // -1: default (asymmetric, except compressed-tensors)
    float clipRatio = 1.0f;
    bool doubleQuant = false;        // bnb nested absmax
    std::vector<std::string> weights; // names (tensor or module) to quantize; empty: every eligible weight
    int threads = 0;                 // 1: serial; otherwise OpenMP across rows/blocks (0: its default count)
    // Called after each weight (done of total, the weight's name); from the calling thread.
    std::function<void(size_t done, size_t total, const std::string& weight)> progress;
    const std::atomic<bool>* cancel = nullptr; // checked between weights: throws qs::Error "cancelled"
    bool force = false; // write into a non-empty output folder (replacing only the files quantize writes)
};

struct QuantizeCheckpointResult {
    std::string output;                 // the file (GGUF) or folder (safetensors) written
    std::vector<std::string> quantized; // source tensor names
    std::vector<std::string> copied;    // stored tensors written unchanged
    std::vector<std::string> notes;     // weights kept in float and why
    std::vector<std::string> leftAlone; // entries of an existing output folder that quantize did not write
};

// Quantizes and streams `out` one weight at a time (memory: the largest weight, not the
// checkpoint). Nothing is left behind when it throws (bad option, a named weight
// that is missing, not float or does not fit the target, cancel).
QuantizeCheckpointResult quantizeCheckpoint(const Checkpoint& src, const std::string& out,
                                            const QuantizeCheckpointOptions& opt);

// llama.cpp's general.file_type (LLAMA_FTYPE_MOSTLY_*) for a model whose 2-D weights are all of
// `ggmlType` (the _S mix for k-quants); -1 when there is none.
int llamaFileType(int ggmlType);

} // namespace qs
