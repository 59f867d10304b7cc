#pragma once
// A file mapped read-only into memory. Opening never reads the contents; pages come in
// when a span over them is touched.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace qs {

namespace remote {
class RemoteFile;
}

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
    // A remote file (remote/remotefile.h): its cache file mapped, path() the name it was opened
    // by. Bytes come in when ensure() or range() asks for them; unfetched ones read as zeros.
    explicit MappedFile(std::shared_ptr<remote::RemoteFile> remote);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return m_path; }
    uint64_t size() const { return m_size; }
    std::span<const uint8_t> bytes() const { return {m_data, static_cast<size_t>(m_size)}; }
    // Bytes of the mapping now held in RAM (pages read and not yet evicted); 0 where the
    // system cannot tell.
    uint64_t residentBytes() const;
    // A checked sub-range, fetched first when the file is remote; throws naming the file and
    // `what` when it is out of bounds or cannot be fetched.
    std::span<const uint8_t> range(uint64_t offset, uint64_t length, const std::string& what) const;
    // The same bounds check without a fetch.
    void checkRange(uint64_t offset, uint64_t length, const std::string& what) const;
    // Makes [offset, offset + length) readable: a remote file fetches what its cache lacks (a
    // parser calls it before it reads; range() does it for a tensor). Nothing for a local file.
    void ensure(uint64_t offset, uint64_t length) const
    {
        if (m_remote)
            fetch(offset, length);
    }
    const remote::RemoteFile* remoteFile() const { return m_remote.get(); }
    // The file that is mapped: path(), or a remote file's cache file.
    const std::string& localPath() const;
    // Bytes borrowed from memory (the second constructor): no file at localPath().
    bool inMemory() const { return m_borrowed; }
    // Why what was read from the file can no longer be trusted: a read hit a part the file no
    // longer has, or the file at the path is not the one mapped (base/mapguard.h); or nothing.
    std::optional<std::string> changed() const;

private:
    void fetch(uint64_t offset, uint64_t length) const;

    std::string m_path;
    std::shared_ptr<remote::RemoteFile> m_remote;
    const uint8_t* m_data = nullptr;
    uint64_t m_size = 0;
    bool m_mapped = false; // false: borrowed memory (or an empty file), nothing to unmap
    bool m_borrowed = false;
    int m_guard = -1; // mapguard handle
};

} // namespace qs
