#include "container/mappedfile.h"

#include "base/error.h"
#include "base/mapguard.h"
#include "base/platform.h"
#include "remote/remotefile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>
#include <vector>

namespace qs {

namespace {

// "a FIFO (named pipe)", ...: what a non-regular, non-folder entry is.
std::string entryKind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

} // namespace

bool isFolderPath(const std::string& path)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        fail(path,
             err == ENOENT || err == ENOTDIR ? std::string("no such file or folder")
                                             : std::string("cannot open: ") + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode))
        return true;
    if (!S_ISREG(st.st_mode))
        fail(path, "is " + entryKind(st.st_mode) + ", not a checkpoint file or folder");
    return false;
}

MappedFile::MappedFile(const std::string& path)
    : m_path(path)
{
    // Non-blocking: opening a FIFO would otherwise wait for a writer (it is refused below).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        fail(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st { };
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        fail(path, std::string("cannot stat: ") + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        fail(path, "is a directory, not a file");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(path, "is " + entryKind(st.st_mode) + ", not a regular file");
    }
    m_size = static_cast<uint64_t>(st.st_size);
    if (m_size > 0) {
        void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            fail(path, std::string("cannot map: ") + std::strerror(err));
        }
        m_data = static_cast<const uint8_t*>(p);
        m_mapped = true;
        m_guard = mapguard::registerMapping(p, m_size, path, uint64_t(st.st_dev), uint64_t(st.st_ino), m_size,
                                            int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
    }
    ::close(fd);
}

MappedFile::MappedFile(std::shared_ptr<remote::RemoteFile> remote)
    : m_path(remote->name())
    , m_remote(std::move(remote))
    , m_size(m_remote->size())
{
    const std::string& cache = m_remote->dataPath();
    const int fd = ::open(cache.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail(cache, std::string("cannot open the cache file: ") + std::strerror(errno));
    if (m_size > 0) {
        // Shared: the bytes fetched after mapping (written into the cache file) show through. Not
        // registered with mapguard: every fetch moves the cache file's modification time; a remote
        // file that changes is caught by its validator on every response instead.
        void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            fail(cache, std::string("cannot map the cache file: ") + std::strerror(err));
        }
        m_data = static_cast<const uint8_t*>(p);
        m_mapped = true;
    }
    ::close(fd);
}

void MappedFile::fetch(uint64_t offset, uint64_t length) const
{
    m_remote->ensure(offset, length);
}

const std::string& MappedFile::localPath() const
{
    return m_remote ? m_remote->dataPath() : m_path;
}

MappedFile::MappedFile(std::string name, std::span<const uint8_t> bytes)
    : m_path(std::move(name))
    , m_data(bytes.data())
    , m_size(bytes.size())
    , m_borrowed(true)
{
}

MappedFile::~MappedFile()
{
    mapguard::unregisterMapping(m_guard);
    if (m_mapped)
        ::munmap(const_cast<uint8_t*>(m_data), m_size);
}

std::optional<std::string> MappedFile::changed() const
{
    return mapguard::changed(m_guard);
}

uint64_t MappedFile::residentBytes() const
{
    return m_mapped ? platform::residentBytes(m_data, m_size) : 0;
}

void MappedFile::checkRange(uint64_t offset, uint64_t length, const std::string& what) const
{
    if (offset > m_size || length > m_size - offset)
        fail(m_path,
             what + ": bytes " + std::to_string(offset) + "+" + std::to_string(length)
                 + " lie past the end of the file (" + std::to_string(m_size) + " bytes)");
}

std::span<const uint8_t> MappedFile::range(uint64_t offset, uint64_t length, const std::string& what) const
{
    checkRange(offset, length, what);
    ensure(offset, length);
    return {m_data + offset, static_cast<size_t>(length)};
}

} // namespace qs
