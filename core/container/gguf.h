#pragma once
// GGUF reader and writer, v1..v3 (../shared/spec/gguf.md, section 1).
#include "container/checkpoint.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace qs {

// Maps a GGUF file (and, for a split set, every sibling split) and appends its metadata
// and tensors to `ckpt`.
void readGguf(Checkpoint& ckpt, const std::string& path);

struct GgufTensor {
    std::string name;
    int ggmlType = 0;
    std::vector<uint64_t> ne; // GGUF order: ne[0] is the contiguous dimension
    std::span<const uint8_t> data;
};
// Writes a GGUF v3 file atomically with the given metadata (general.alignment honoured).
void writeGguf(const std::string& path, const std::vector<std::pair<std::string, MetaValue>>& metadata,
               const std::vector<GgufTensor>& tensors, uint32_t version = 3);

} // namespace qs
