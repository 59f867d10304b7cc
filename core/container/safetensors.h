#pragma once
// safetensors reader and writer (../shared/spec/safetensors-quant.md, Part A).
#include "container/checkpoint.h"

#include <map>
#include <span>
#include <string>
#include <vector>

namespace qs {

// Maps one .safetensors file, validates its header as the reference reader does, and
// appends its tensors and __metadata__ to `ckpt`.
void readSafetensorsFile(Checkpoint& ckpt, const std::string& path);
// A folder: a *.safetensors.index.json (sharded) or every *.safetensors in it, plus the
// configs. Throws when it holds no checkpoint.
void readSafetensorsFolder(Checkpoint& ckpt, const std::string& dir);
// config.json, quantize_config.json / quant_config.json from `dir`, when present.
void readHuggingFaceConfigs(Checkpoint& ckpt, const std::string& dir);

struct SafetensorsTensor {
    std::string name;
    DType dtype = DType::F32;
    std::vector<uint64_t> shape;
    std::span<const uint8_t> data;
};
// Writes atomically (temporary file, then rename), laid out as the reference writer does.
void writeSafetensors(const std::string& path, const std::vector<SafetensorsTensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

} // namespace qs
