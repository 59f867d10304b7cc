#pragma once
// The one way Quantscope writes a file: into a temporary file beside the target, fsynced and
// renamed over it on commit(), the folder synced after. Readers never see a half-written file
// and a failure leaves the target as it was: destroyed uncommitted (an error or exception on
// the way), the temporary file is removed. rename() replaces a symlink at the target rather
// than writing through it, and never writes into the inode of a hard link.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qs {

class AtomicFile {
public:
    explicit AtomicFile(std::string path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(std::span<const uint8_t> data);
    void writeZeros(uint64_t n);
    void writeAt(uint64_t offset, std::span<const uint8_t> data);
    void commit();
    const std::string& path() const { return m_path; }
    uint64_t size() const { return m_size; }

private:
    [[noreturn]] void failWith(const std::string& what, int err);
    std::string m_path, m_tmp;
    int m_fd = -1;
    uint64_t m_size = 0;
};

// `pieces` one after the other, through an AtomicFile.
void writeFileAtomically(const std::string& path, const std::vector<std::span<const uint8_t>>& pieces);
void writeFileAtomically(const std::string& path, std::string_view bytes);

} // namespace qs
