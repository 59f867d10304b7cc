#pragma once
// Which files of a folder make its checkpoint, as the loaders choose (transformers, llama.cpp):
// the *.safetensors.index.json when present; else model.safetensors; else the shards of one
// <prefix>-NNNNN-of-NNNNN set (complete); else the folder's one file. A folder holding several
// checkpoints and nothing that says which is refused with a FolderChoiceError naming them (the
// GUI lets the user pick). Files not read are listed in Checkpoint::leftOut, never dropped silently.
#include "container/checkpoint.h"
#include "container/mappedfile.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

// The files of a folder as the readers see them: on disk, or in memory (Checkpoint::readMemory).
struct FolderFiles {
    std::string dir;
    std::vector<std::string> names; // the regular files, sorted
    // Maps one of `names`; throws qs::Error naming the file.
    std::function<std::shared_ptr<MappedFile>(const std::string& name)> open;
    // Where `names` is no listing (a URL's folder): whether a file not in it is there.
    std::function<bool(const std::string& name)> probe;

    bool has(std::string_view name) const;
    std::string pathOf(const std::string& name) const;
};
// Lists `dir` (throws when it cannot), or, when `only` is given, just those of its names that
// are regular files (nothing else is listed).
FolderFiles diskFolder(const std::string& dir, const std::vector<std::string>& only = {});
FolderFiles memoryFolder(const std::vector<MemoryFile>& files);

// The names ending in `ext` (".safetensors", ".gguf"), grouped into single files and
// <prefix>-NNNNN-of-NNNNN shard sets (in shard order); `missing` names the first absent shards of
// an incomplete set (at most 8), `missingCount` counts them all. Sorted by label.
struct FileSet {
    std::string label; // the file, or "<prefix>-NNNNN-of-00003<ext>" for a set
    std::vector<std::string> files;
    std::vector<std::string> missing;
    size_t missingCount = 0;
    bool sharded = false;
};
std::vector<FileSet> fileSets(const std::vector<std::string>& names, std::string_view ext);

// Picks the one set a folder's `sets` leave no doubt about (one shard set, else one single
// file); throws FolderChoiceError naming every set when there is none or several, and an
// Error naming the missing shards of an incomplete set.
const FileSet& pickFileSet(const std::string& dir, const std::vector<FileSet>& sets, std::string_view what);

} // namespace qs
