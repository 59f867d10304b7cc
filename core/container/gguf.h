#pragma once
// GGUF reader and writer, v1..v3 (../shared/spec/gguf.md, section 1).
#include "container/checkpoint.h"
#include "container/folder.h"

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace qs {

// Maps a GGUF file (and, for a split set, every sibling split) and appends its metadata
// and tensors to `ckpt`. Opening any split of a set opens the whole set, in split order.
// Little-endian only: a big-endian file is recognised and refused with a clear error.
void readGguf(Checkpoint& ckpt, const std::string& path);
// The same for a file already mapped (or in memory, or remote); its siblings are looked for in
// `folder` by file name when given (a remote location's), else on disk.
void readGguf(Checkpoint& ckpt, std::shared_ptr<MappedFile> map, const FolderFiles* folder = nullptr);

using GgufMetadata = std::vector<std::pair<std::string, MetaValue>>;

struct GgufTensor {
    std::string name;
    int ggmlType = 0;
    std::vector<uint64_t> ne; // GGUF order: ne[0] is the contiguous dimension
    std::span<const uint8_t> data;
};

// Writes a GGUF file (version 1, 2 or 3) atomically (temporary file, then rename): metadata in
// the given order, tensors back to back in the given order, each padded to the alignment
// (general.alignment when present, else 32). Throws qs::Error naming the file and the field
// or tensor for input it cannot write (unknown type, data size not matching ne, ...).
void writeGguf(const std::string& path, const GgufMetadata& metadata, const std::vector<GgufTensor>& tensors,
               uint32_t version = 3);

// The bytes of a GGUF file before its data section (header, metadata, tensor infos and the
// padding up to the data section), the tensors' data offsets (relative to the data section)
// and sizes, and the total file size, without any tensor data. Tensor data spans are ignored, so a
// benchmark can lay out a large sparse file without holding its contents.
struct GgufLayout {
    std::vector<uint8_t> head;
    std::vector<uint64_t> offsets;
    std::vector<uint64_t> sizes; // each tensor's bytes, before padding
    uint64_t fileSize = 0;
};
GgufLayout layoutGguf(const std::string& path, const GgufMetadata& metadata, const std::vector<GgufTensor>& tensors,
                      uint32_t version = 3);

// Writes a split set as llama.cpp's gguf-split does: `<prefix>-00001-of-0000N.gguf`, ...,
// at most `tensorsPerSplit` tensors in each; the full metadata goes into the first split,
// every split carries split.no (u16), split.count (u16) and split.tensors.count (i32), and
// general.alignment when the metadata sets it. Returns the paths in split order.
std::vector<std::string> writeGgufSplits(const std::string& prefix, const GgufMetadata& metadata,
                                         const std::vector<GgufTensor>& tensors, size_t tensorsPerSplit,
                                         uint32_t version = 3);

// The name of split `no` (1-based) of `count`: "<prefix>-00002-of-00003.gguf".
std::string ggufSplitPath(const std::string& prefix, uint32_t no, uint32_t count);

} // namespace qs
