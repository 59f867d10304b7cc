#include "container/mappedfile.h"

#include "base/error.h"
#include "base/platform.h"

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

MappedFile::MappedFile(const std::string& path)
    : m_path(path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
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
        fail(path, "is not a regular file");
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
    }
    ::close(fd);
}

MappedFile::MappedFile(std::string name, std::span<const uint8_t> bytes)
    : m_path(std::move(name))
    , m_data(bytes.data())
    , m_size(bytes.size())
{
}

MappedFile::~MappedFile()
{
    if (m_mapped)
        ::munmap(const_cast<uint8_t*>(m_data), m_size);
}

uint64_t MappedFile::residentBytes() const
{
    return m_mapped ? platform::residentBytes(m_data, m_size) : 0;
}

std::span<const uint8_t> MappedFile::range(uint64_t offset, uint64_t length, const std::string& what) const
{
    if (offset > m_size || length > m_size - offset)
        fail(m_path, what + ": bytes " + std::to_string(offset) + "+" + std::to_string(length)
                         + " lie past the end of the file (" + std::to_string(m_size) + " bytes)");
    return {m_data + offset, static_cast<size_t>(length)};
}

} // namespace qs
