#pragma once
// safetensors reader and writer (../shared/spec/safetensors-quant.md, Part A).
#include "container/checkpoint.h"
#include "container/folder.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace qs {

// The reference reader's limit on the JSON header (MAX_HEADER_SIZE).
inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;
// Configs and index files larger than this are not read (they are a few KiB in practice).
inline constexpr uint64_t kJsonSideFileMax = 64ull << 20;
// Parser budgets (json::ParseOptions::maxValues): a JSON value costs ~120 bytes of DOM for as
// little as 2 bytes of text. One header entry holds a dozen values and __metadata__ a few
// dozen; 2^17 stays above the 65536-element container limit so that its message comes
// first. The largest real index (a weight_map of a few hundred thousand tensors) stays
// under 2^20, which caps the DOM of a side file near 130 MB.
inline constexpr size_t kHeaderMemberMaxValues = size_t(1) << 17;
inline constexpr size_t kJsonSideFileMaxValues = size_t(1) << 20;

// Maps one .safetensors file, validates its header as the reference reader does, and
// appends its tensors (in data order; TensorEntry::offset is absolute in the file) and
// __metadata__ to `ckpt`. Reads only the header: tensor data is never touched.
void readSafetensorsFile(Checkpoint& ckpt, const std::string& path);
// The same for a file already mapped (or in memory).
void readSafetensorsMapped(Checkpoint& ckpt, std::shared_ptr<MappedFile> map);
// A folder's safetensors checkpoint as container/folder.h chooses it (a *.safetensors.index.json
// validated against its shards, model.safetensors, one shard set, the one file), or the
// `chosen` files; plus the configs. Sets ckpt.openedAs. Throws when it holds no checkpoint,
// FolderChoiceError when it holds several.
void readSafetensorsFolder(Checkpoint& ckpt, const FolderFiles& folder, const std::vector<std::string>& chosen = {});
// config.json, quantize_config.json / quant_config.json (else ModelOpt's hf_quant_config.json) from the folder,
// when present.
void readHuggingFaceConfigs(Checkpoint& ckpt, const FolderFiles& folder);
void readHuggingFaceConfigs(Checkpoint& ckpt, const std::string& dir);

struct SafetensorsTensor {
    std::string name;
    DType dtype = DType::F32;
    std::vector<uint64_t> shape;
    std::span<const uint8_t> data;
};
// Writes atomically (temporary file, then rename), laid out as the reference writer does:
// tensors sorted by dtype alignment (descending) then name, header space-padded to 8 bytes.
void writeSafetensors(const std::string& path, const std::vector<SafetensorsTensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

struct SafetensorsShard {
    std::string fileName; // inside the folder, e.g. shardFileName(0, 2)
    std::vector<SafetensorsTensor> tensors;
};
// "model-00001-of-00004.safetensors" for index 0 of 4.
std::string shardFileName(size_t index, size_t count);
// Writes every shard (each with `metadata`) and `indexName` into `dir` (which must exist),
// as transformers does: {"metadata": {"total_size": ...}, "weight_map": {name: shard}}.
void writeSafetensorsSharded(const std::string& dir, const std::vector<SafetensorsShard>& shards,
                             const std::map<std::string, std::string>& metadata = {},
                             const std::string& indexName = "model.safetensors.index.json");

} // namespace qs
