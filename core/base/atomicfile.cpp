#include "base/atomicfile.h"

#include "base/error.h"
#include "base/mapguard.h"
#include "base/tempfile.h"

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

std::string kindOfMode(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return S_ISREG(mode) ? "" : "not a regular file";
}

} // namespace

std::string nonRegularKind(const std::string& path)
{
    struct stat st { };
    if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode))
        return {};
    std::string kind = kindOfMode(st.st_mode);
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        const fs::path to = fs::read_symlink(path, ec);
        if (!ec)
            kind += " to " + to.string();
    }
    return kind;
}

void checkReplaceable(const std::string& path)
{
    const std::string kind = nonRegularKind(path);
    if (!kind.empty())
        fail(path,
             "refusing to write: the output is " + kind
                 + ", not a regular file, and only a regular file is ever replaced; choose another path");
}

AtomicFile::AtomicFile(std::string path)
    : m_path(std::move(path))
{
    checkReplaceable(m_path);
    struct stat existing { };
    const bool replaces = ::stat(m_path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode);
    // What a killed run of this very write left behind.
    removeStaleTempFiles(folderOf(m_path).string(), fs::path(m_path).filename().string());
    CreatedTempFile tmp = createTempFile(m_path);
    m_tmp = std::move(tmp.path);
    m_fd = tmp.fd;
    m_lockFd = tmp.lockFd;
    m_slot = tmp.slot;
    // A replaced file keeps its owner where we may set it (root, or a group of ours) and its mode;
    // the owner first, as a change of owner clears the set-id bits.
    if (replaces && (existing.st_uid != ::geteuid() || existing.st_gid != ::getegid())
        && ::fchown(m_fd, existing.st_uid, existing.st_gid) != 0) {
        // Not ours to give (we are not root, the group is not ours): the new file is ours.
    }
    if (::fchmod(m_fd, replaces ? existing.st_mode & 07777 : 0644) != 0)
        failWith("cannot set permissions", errno);
}

AtomicFile::~AtomicFile()
{
    discard();
}

void AtomicFile::discard()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        ::unlink(m_tmp.c_str());
        m_fd = -1;
    }
    release();
}

void AtomicFile::release()
{
    releaseTempFile(m_slot, m_lockFd);
    m_slot = m_lockFd = -1;
}

void AtomicFile::failWith(const std::string& what, int err)
{
    discard();
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
    // put in place (the destructor removes the temporary file). The CLI asks for this.
    mapguard::checkBeforeWrite();
    if (::fsync(m_fd) != 0)
        failWith("cannot sync", errno);
    // Whatever took the target's place since the start (a FIFO, a symlink) is not replaced either.
    if (const std::string kind = nonRegularKind(m_path); !kind.empty()) {
        discard();
        checkReplaceable(m_path);
    }
    // The lock (its own descriptor) and the registry hold until the file is renamed away.
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(m_tmp.c_str());
        release();
        fail(m_path, std::string("cannot close: ") + std::strerror(err));
    }
    const int renamed = std::rename(m_tmp.c_str(), m_path.c_str());
    const int err = errno;
    if (renamed != 0)
        ::unlink(m_tmp.c_str());
    release();
    if (renamed != 0)
        fail(m_path, std::string("cannot rename the temporary file into place: ") + std::strerror(err));
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
