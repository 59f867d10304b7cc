#pragma once
// A checkpoint as opened from disk or a remote location (http(s), hf://: read by byte range into
// a cache, container/remotefolder.h): one or more memory-mapped files (shards), the stored
// tensors they hold (listing never touches tensor data), the container's metadata, the
// Hugging Face configs beside it, and the logical weights that format detection found
// (formats/opencheckpoint.h reads and detects; the container readers leave `weights` empty).
#include "container/dtype.h"
#include "container/mappedfile.h"
#include "container/logicalweight.h"
#include "base/error.h"
#include "base/message.h"
#include "base/smallvector.h"

#include <QJsonObject>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace qs {

enum class Container { Safetensors, Gguf };
std::string_view containerName(Container c);

// A typed metadata value. Types and their numbering are GGUF's (0..12); safetensors
// __metadata__ values are all String.
struct MetaValue {
    enum class Type : uint8_t { U8 = 0, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64 };
    Type type = Type::String;
    Type arrayType = Type::U8; // element type when type == Array
    std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<MetaValue>> value;

    // Human-readable, arrays abbreviated after `maxItems` elements.
    std::string toDisplayString(size_t maxItems = 8) const;
};
std::string_view metaTypeName(MetaValue::Type t);

// One stored tensor: 128 bytes and no allocation of its own for a name of any length and a shape
// of up to four dimensions (a million tensors were ~250 MB as strings and vectors).
struct TensorEntry {
    std::string_view name; // kept by the checkpoint (Checkpoint::keepName): valid as long as it is
    std::string_view typeName; // "F16", "I32", "Q4_K" (static), "unknown(99)" (kept like the name)
    Shape shape; // row-major, outermost first (GGUF: ne reversed, ne0 last)
    uint64_t offset = 0; // absolute byte offset inside that file
    uint64_t nbytes = 0;
    uint32_t file = 0; // index into Checkpoint::files
    int ggmlType = -1; // GGUF only: the ggml type id
    DType dtype = DType::U8;
    bool known = true; // false: type unknown to us; listed, never decoded
    Message note; // why it is not decoded (empty() when it is)

    uint64_t elementCount() const; // product of shape (checked at read time)
};

// A file's bytes already in memory (the caller keeps them alive as long as the checkpoint).
struct MemoryFile {
    std::string name;
    std::span<const uint8_t> bytes;
};

// One checkpoint a folder could hold: a single file or a shard set.
struct FolderCandidate {
    std::string label; // the file, or the shard set's pattern
    std::vector<std::string> files; // file names inside the folder, in shard order
};
// A folder holding several checkpoints and nothing that says which one to open (container/folder.h).
// Names copied once each into blocks that never move, so views of them stay valid as the arena
// grows; what TensorEntry::name views.
class NameArena {
public:
    std::string_view keep(std::string_view name);
    void take(NameArena&& other); // other's names, still valid, owned here from now on

private:
    std::vector<std::unique_ptr<char[]>> m_blocks;
    char* m_free = nullptr;
    size_t m_left = 0;
    size_t m_nextBlock = 1024;
};

class FolderChoiceError : public Error {
public:
    FolderChoiceError(const std::string& message, std::vector<FolderCandidate> candidates)
        : Error(message)
        , m_candidates(std::move(candidates))
    {
    }
    const std::vector<FolderCandidate>& candidates() const { return m_candidates; }

private:
    std::vector<FolderCandidate> m_candidates;
};

class Checkpoint {
public:
    // Reads a .gguf or .safetensors file, a GGUF split set, or a folder (container/folder.h says
    // which of its files): files mapped, tensors listed, no detection. `chosen` (file names in the
    // folder, e.g. a FolderCandidate's) overrides the folder's choice. Throws qs::Error naming the
    // file and field; FolderChoiceError for a folder of several checkpoints.
    static std::shared_ptr<Checkpoint> read(const std::string& path, const std::vector<std::string>& chosen = {});
    // The same from memory, as a folder holding `files` (a single file is a folder of one).
    static std::shared_ptr<Checkpoint> readMemory(const std::vector<MemoryFile>& files);

private:
    // Declared first, so destroyed last: once everything below is freed, the allocator hands the
    // memory back to the system (glibc keeps it: a closed checkpoint of a million tensors left
    // hundreds of MiB counted as the viewer's own).
    struct ReturnsFreedMemory {
        ReturnsFreedMemory() = default;
        ReturnsFreedMemory(const ReturnsFreedMemory&) = default;
        ReturnsFreedMemory& operator=(const ReturnsFreedMemory&) = default;
        ~ReturnsFreedMemory();
    } m_returnsFreedMemory;

public:
    Container container = Container::Safetensors;
    std::string path; // what was opened
    std::vector<std::string> files; // every mapped file, in shard order
    // Every other file the reader opened: the shard index, config.json, quantize_config.json or
    // quant_config.json or hf_quant_config.json (also one that was unreadable and became a note), in the order read.
    std::vector<std::string> sideFiles;
    std::vector<TensorEntry> tensors; // in file order
    std::vector<std::pair<std::string, MetaValue>> metadata; // in file order
    int ggufVersion = 0;
    uint64_t ggufAlignment = 0;
    QJsonObject config; // config.json (empty when absent)
    QJsonObject quantizeConfig; // quantize_config.json, quant_config.json or hf_quant_config.json
    std::string quantizeConfigFile; // which of them, or empty
    std::vector<LogicalWeight> weights; // format detection's result
    std::vector<Message> notes; // container-level warnings
    // A folder: what it opened as (its index, model.safetensors, a shard set, ...) and the
    // checkpoint files in it that were not read (file names, sorted).
    std::string openedAs;
    std::vector<std::string> leftOut;
    // Unique to this object among all the process creates (a copy shares it, and the mapped
    // bytes with it): the same serial and tensor bytes at the same place are the same bytes, as a
    // checkpoint never remaps or rewrites its files. Caches of parsed state key on it.
    uint64_t serial = nextSerial();

    std::span<const uint8_t> bytes(const TensorEntry& t) const;
    const TensorEntry* find(std::string_view name) const;
    int indexOf(std::string_view name) const; // -1 when absent
    const LogicalWeight* findWeight(std::string_view nameOrMember) const;
    const MetaValue* meta(std::string_view key) const;
    // What was opened, every mapped file and every side file: everything the checkpoint read,
    // what a command must never write over or into (base/outputpath.h).
    std::vector<std::string> sources() const;
    // Bytes of the mapped files now held in RAM (MappedFile::residentBytes summed).
    uint64_t residentBytes() const;
    // Remote files (http(s), hf://): their bytes, and how many of them the cache holds; zeros for
    // a local checkpoint. A tensor's bytes come in when bytes() asks for them.
    struct RemoteBytes {
        uint64_t size = 0, cached = 0;
        bool any() const { return size != 0; }
    };
    RemoteBytes remoteBytes() const;
    // Bytes of `t` that bytes(t) would fetch (0 for a local file).
    uint64_t missingBytes(const TensorEntry& t) const;
    // Why what was read from the mapped files can no longer be trusted (MappedFile::changed of the
    // first that changed), or nothing.
    std::optional<std::string> changedOnDisk() const;

    // Used by the readers while building (and tests that build a checkpoint by hand): a name
    // kept in this checkpoint's arena, shared with its copies, for TensorEntry::name.
    std::string_view keepName(std::string_view name) { return m_names->keep(name); }
    void takeNames(NameArena&& names) { m_names->take(std::move(names)); }
    uint32_t addFile(std::shared_ptr<MappedFile> file);
    void buildIndex(); // throws on duplicate tensor names
    const MappedFile& mappedFile(uint32_t i) const { return *m_maps.at(i); }

private:
    static uint64_t nextSerial();
    std::vector<std::shared_ptr<MappedFile>> m_maps;
    std::shared_ptr<NameArena> m_names = std::make_shared<NameArena>();
    // Tensor indices sorted by name: 4 bytes a tensor (a hash map of copied names cost ~100),
    // and valid however `tensors` moves.
    std::vector<uint32_t> m_index;
};

} // namespace qs
