#include "base/atomicfile.h"

#include "base/error.h"
#include "base/mapguard.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace qs {

namespace fs = std::filesystem;

namespace {

fs::path folderOf(const std::string& path)
{
    const fs::path target(path);
    return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

} // namespace

AtomicFile::AtomicFile(std::string path) : m_path(std::move(path))
{
    const fs::path dir = folderOf(m_path);
    m_tmp = (dir / ("." + fs::path(m_path).filename().string() + ".tmp-XXXXXX")).string();
    m_fd = ::mkstemp(m_tmp.data());
    if (m_fd < 0)
        fail(m_path, "cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno));
    if (::fchmod(m_fd, 0644) != 0)
        failWith("cannot set permissions", errno);
}

AtomicFile::~AtomicFile()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        ::unlink(m_tmp.c_str());
    }
}

void AtomicFile::failWith(const std::string& what, int err)
{
    if (m_fd >= 0) {
        ::close(m_fd);
        ::unlink(m_tmp.c_str());
        m_fd = -1;
    }
    fail(m_path, what + ": " + std::strerror(err));
}

void AtomicFile::writeAt(uint64_t offset, std::span<const uint8_t> data)
{
    if (m_fd < 0)
        fail(m_path, "write after the file was closed");
    const uint8_t* p = data.data();
    size_t left = data.size();
    while (left > 0) {
        const ssize_t w = ::pwrite(m_fd, p, std::min<size_t>(left, size_t(1) << 30), off_t(offset));
        if (w < 0) {
            if (errno == EINTR)
                continue;
            failWith("cannot write", errno);
        }
        p += w;
        left -= size_t(w);
        offset += uint64_t(w);
    }
    m_size = std::max(m_size, offset);
}

void AtomicFile::write(std::span<const uint8_t> data)
{
    writeAt(m_size, data);
}

void AtomicFile::writeZeros(uint64_t n)
{
    static const uint8_t zeros[4096] = {};
    while (n) {
        const size_t k = size_t(std::min<uint64_t>(n, sizeof zeros));
        write({zeros, k});
        n -= k;
    }
}

void AtomicFile::commit()
{
    if (m_fd < 0)
        fail(m_path, "commit after the file was closed");
    // What was written came from the inputs: if one changed while it was read, the file is not
    // put in place (the destructor removes the temporary file).
    mapguard::checkMappedFilesUnchanged("nothing was written");
    if (::fsync(m_fd) != 0)
        failWith("cannot sync", errno);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(m_tmp.c_str());
        fail(m_path, std::string("cannot close: ") + std::strerror(err));
    }
    if (std::rename(m_tmp.c_str(), m_path.c_str()) != 0) {
        const int err = errno;
        ::unlink(m_tmp.c_str());
        fail(m_path, std::string("cannot rename the temporary file into place: ") + std::strerror(err));
    }
    // Persist the rename itself; failure here leaves a complete file, so it is not an error.
    const int dfd = ::open(folderOf(m_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

void writeFileAtomically(const std::string& path, const std::vector<std::span<const uint8_t>>& pieces)
{
    AtomicFile file(path);
    for (const auto& piece : pieces)
        file.write(piece);
    file.commit();
}

void writeFileAtomically(const std::string& path, std::string_view bytes)
{
    writeFileAtomically(path, {{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}});
}

} // namespace qs
