#pragma once
// Memory for running a model the way llama.cpp allocates it (issue 17): the architecture read
// from GGUF `<arch>.*` keys or config.json, the KV cache (per layer, sliding-window layers by
// their window, MLA's compressed K, recurrent state), the weights per device for an offload
// split, the output logits buffer and an estimate of the compute buffer; the largest context
// that fits a memory size. Everything but the compute buffer is llama.cpp's own arithmetic.
#include "base/message.h"
#include "formats/target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

class QJsonObject;

namespace qs {

class Checkpoint;

// What one layer keeps between tokens.
enum class LayerMemory : uint8_t { Full, Sliding, Recurrent, None };

// The hyperparameters the memory depends on, as llama.cpp's llama_hparams holds them.
struct ModelArch {
    std::string arch; // llama.cpp's name: "llama", "gemma3", "deepseek2"
    std::string source; // "GGUF metadata", "config.json", "preset llama-3.1-8b"
    uint32_t layers = 0;
    uint64_t embd = 0;
    uint64_t vocab = 0;
    uint64_t contextLength = 0; // trained context; 0 when not given
    uint64_t ffn = 0; // dense feed-forward width (largest layer)
    uint32_t experts = 0, expertsUsed = 0;
    uint64_t expertFfn = 0;
    std::vector<uint32_t> heads; // per layer
    std::vector<uint32_t> headsKv; // per layer; 0: the layer has no KV cache
    uint32_t keyLength = 0, valueLength = 0; // per head, as cached
    bool mla = false; // MLA: one compressed K row per token, V is a view of it
    uint32_t kvLoraRank = 0, ropeDim = 0;
    uint32_t slidingWindow = 0;
    std::vector<LayerMemory> kinds; // per layer
    // Recurrent (Mamba) state: conv kernel, inner size, state size, groups.
    uint64_t ssmConv = 0, ssmInner = 0, ssmState = 0, ssmGroups = 0;
    uint64_t params = 0; // presets only: the published parameter count
    bool tiedEmbeddings = false; // presets only: output shares token_embd
    std::vector<Message> notes;

    uint64_t kWidth(uint32_t layer) const { return uint64_t(keyLength) * headsKv[layer]; }
    uint64_t vWidth(uint32_t layer) const { return uint64_t(valueLength) * headsKv[layer]; }
    // Recurrent state per sequence and layer in f32 elements (llama_hparams n_embd_r + n_embd_s).
    uint64_t recurrentElements() const;
};

// llama.cpp architecture names this module knows the memory rules of.
const std::vector<std::string>& runBudgetArchitectures();

// From a GGUF's metadata (general.architecture and its `<arch>.*` keys) or a safetensors
// checkpoint's config.json. Throws qs::Error naming the missing key or the unknown architecture.
ModelArch modelArchOf(const Checkpoint& c);
ModelArch modelArchFromGguf(const Checkpoint& c);
// config.json, text_config nesting included.
ModelArch modelArchFromConfig(const QJsonObject& config);

// Published configurations (the names `--arch` takes).
std::vector<std::string> archPresetNames();
std::optional<ModelArch> archPreset(const std::string& name);

// Cache types llama.cpp accepts for -ctk/-ctv: f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl
// (ggml type ids; sizes from container/ggmltype).
const std::vector<int>& kvCacheTypes();
std::optional<int> kvCacheTypeByName(const std::string& name); // "q8_0", "F16"
std::string kvCacheTypeName(int type); // "q8_0"
// The budget row an --arch preset's published weights are priced in by default (bf16).
const BudgetFormat& publishedWeightsFormat();

// Weights by where llama.cpp places them: the input embedding, each block, the output layer.
struct WeightSplit {
    uint64_t input = 0;
    std::vector<uint64_t> layers;
    uint64_t output = 0;
    uint64_t outputDuplicate = 0; // tied embeddings: token_embd loaded again with the output layer
    // What the stored tensors leave out: none at all (a vocab-only file), or blocks the
    // metadata names (one file of a model cut apart). runBudget passes them on.
    std::vector<Message> notes;
    uint64_t total() const;
};
// Stored bytes of a checkpoint's tensors: "blk.N." / "layers.N." per block, token
// embeddings as input, everything else with the output layer.
WeightSplit weightSplitOf(const Checkpoint& c, const ModelArch& arch);
// `params` weights at `bitsPerWeight`: embeddings vocab x embd, the rest spread over the blocks.
WeightSplit weightSplitOfParams(const ModelArch& arch, uint64_t params, double bitsPerWeight);

struct RunOptions {
    uint64_t context = 4096; // llama.cpp -c: the total, shared by the sequences
    uint32_t parallel = 1; // -np: sequences
    int typeK = 1, typeV = 1; // ggml type ids (f16)
    int gpuLayers = 0; // -ngl: the last N blocks, N = layers + 1 adds the output layer
    std::vector<double> gpuSplit; // one share per GPU (their memory); empty: one GPU
    bool swaFull = false; // --swa-full: sliding-window layers sized like the others
    bool unifiedKv = false; // --kv-unified: one stream for all sequences
    bool flashAttention = true;
    uint32_t ubatch = 512; // -ub
};

struct LayerBudget {
    uint32_t layer = 0;
    LayerMemory kind = LayerMemory::Full;
    uint64_t cells = 0; // per stream
    uint64_t kBytes = 0, vBytes = 0, stateBytes = 0;
    int device = 0; // index into RunBudget::devices
    uint64_t bytes() const { return kBytes + vBytes + stateBytes; }
};

struct DeviceBudget {
    std::string name; // "CPU", "GPU0"
    uint64_t weights = 0; // CPU: memory-mapped from the file; GPU: loaded
    uint64_t kvCache = 0; // K and V
    uint64_t recurrent = 0; // recurrent state
    uint64_t output = 0; // logits buffer (host)
    uint64_t compute = 0; // estimate
    std::optional<uint64_t> capacity;
    int layers = 0;
    bool hasOutput = false;
    uint64_t total() const { return weights + kvCache + recurrent + output + compute; }
    bool fits() const { return !capacity || total() <= *capacity; }
};

struct RunBudget {
    RunOptions options;
    uint64_t nCtx = 0; // after llama.cpp's padding to 256
    uint64_t cellsPerStream = 0;
    uint32_t streams = 1;
    uint64_t weightsBytes = 0, kvCacheBytes = 0, recurrentBytes = 0, outputBytes = 0, computeEstimate = 0;
    uint64_t kvBytesPerToken = 0; // one cell in every attention layer
    std::vector<LayerBudget> layers;
    std::vector<DeviceBudget> devices; // CPU first, then the GPUs
    std::vector<Message> notes;
    uint64_t totalBytes() const { return weightsBytes + kvCacheBytes + recurrentBytes + outputBytes + computeEstimate; }
    bool fits() const;
};

// Throws qs::Error for options llama.cpp refuses (a cache type whose block does not divide a
// row, zero sequences) or an architecture without the fields needed.
RunBudget runBudget(const ModelArch& arch, const WeightSplit& weights, const RunOptions& options,
                    const std::vector<double>& memoryGiB = {});

// The largest context (a multiple of 256, at most the trained context when known, else 2^20)
// for which every device with a capacity fits; nullopt when not even 256 tokens do.
std::optional<uint64_t> maxContext(const ModelArch& arch, const WeightSplit& weights, RunOptions options,
                                   const std::vector<double>& memoryGiB);
// The most precise cache type (same for K and V, f16 first) with which options.context fits.
std::optional<int> cacheTypeThatFits(const ModelArch& arch, const WeightSplit& weights, RunOptions options,
                                     const std::vector<double>& memoryGiB);
// 2K, 4K, ... 128K, capped at the trained context (which is added when it is not a power of two).
std::vector<uint64_t> commonContexts(const ModelArch& arch);

} // namespace qs
