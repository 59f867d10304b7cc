#pragma once
// A file mapped read-only into memory. Opening never reads the contents; pages come in
// when a span over them is touched.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace qs {

// Whether the entry at `path` is a folder (true) or a regular file (false); throws qs::Error naming
// the path and the real reason otherwise: missing, not permitted (a folder on the path that cannot
// be entered), or a FIFO, socket or device, which are never opened (a FIFO's open would wait for
// a writer forever).
bool isFolderPath(const std::string& path);

class MappedFile {
public:
    explicit MappedFile(const std::string& path); // throws qs::Error
    // Bytes already in memory, read as the file `name` (the fuzz targets parse without a file
    // per input). Not copied: the caller keeps them alive as long as this object.
    MappedFile(std::string name, std::span<const uint8_t> bytes);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return m_path; }
    uint64_t size() const { return m_size; }
    std::span<const uint8_t> bytes() const { return {m_data, static_cast<size_t>(m_size)}; }
    // Bytes of the mapping now held in RAM (pages read and not yet evicted); 0 where the
    // system cannot tell.
    uint64_t residentBytes() const;
    // A checked sub-range; throws naming the file and `what` when it is out of bounds.
    std::span<const uint8_t> range(uint64_t offset, uint64_t length, const std::string& what) const;
    // Why what was read from the file can no longer be trusted: a read hit a part the file no
    // longer has, or the file at the path is not the one mapped (base/mapguard.h); or nothing.
    std::optional<std::string> changed() const;

private:
    std::string m_path;
    const uint8_t* m_data = nullptr;
    uint64_t m_size = 0;
    bool m_mapped = false; // false: borrowed memory, nothing to unmap
    int m_guard = -1; // mapguard handle
};

} // namespace qs
