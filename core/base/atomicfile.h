#pragma once
// The one way Quantscope writes a file: into a temporary file beside the target (base/tempfile.h:
// `.NAME.tmp-XXXXXX`, removed when SIGINT, SIGTERM or SIGHUP ends the process, swept as stale
// by the next writer after a SIGKILL), fsynced and renamed over it on commit(), the folder
// synced after. Readers never see a half-written file and a failure leaves the target as it
// was: destroyed uncommitted (an error or exception on the way), the temporary file is removed.
// Only a regular file is ever replaced: a symlink, folder, device, FIFO or socket at the target
// is refused (checkReplaceable), at construction and again before the rename; a replaced file
// keeps its mode (and, where the system lets us, its owner). rename() never writes into the
// inode of a hard link.
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
    // The temporary file written until commit(): what was written can be read back there first.
    const std::string& tempPath() const { return m_tmp; }
    uint64_t size() const { return m_size; }

private:
    [[noreturn]] void failWith(const std::string& what, int err);
    void discard(); // closes and removes the temporary file
    void release(); // it is gone: out of the registry, its lock dropped
    std::string m_path, m_tmp;
    int m_fd = -1;
    int m_lockFd = -1, m_slot = -1; // base/tempfile.h's lock and registry
    uint64_t m_size = 0;
};

// Throws qs::Error naming `path` when an entry other than a regular file is there: a symbolic
// link, a folder, a character or block device, a FIFO or a socket, named as what it is. Writing
// never replaces one (it would turn /dev/null into a file, or a symlink into a copy).
void checkReplaceable(const std::string& path);
// "a FIFO (named pipe)", "a symbolic link to T", ...: what the entry at `path` is when it is no
// regular file; empty for a regular file or nothing at all.
std::string nonRegularKind(const std::string& path);

// `pieces` one after the other, through an AtomicFile.
void writeFileAtomically(const std::string& path, const std::vector<std::span<const uint8_t>>& pieces);
void writeFileAtomically(const std::string& path, std::string_view bytes);

} // namespace qs
