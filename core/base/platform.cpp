#include "base/platform.h"

#include "base/intmath.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace qs::platform {

uint64_t pageSize()
{
#if defined(__unix__) || defined(__APPLE__)
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0)
        return uint64_t(page);
#endif
    return 4096;
}

uint64_t physicalMemoryBytes()
{
#if defined(__APPLE__)
    uint64_t bytes = 0;
    size_t len = sizeof bytes;
    return ::sysctlbyname("hw.memsize", &bytes, &len, nullptr, 0) == 0 ? bytes : 0;
#elif defined(__unix__) && defined(_SC_PHYS_PAGES)
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    return pages > 0 ? uint64_t(pages) * pageSize() : 0;
#else
    return 0;
#endif
}

uint64_t residentBytes(const void* data, uint64_t size)
{
#if defined(__linux__) || defined(__APPLE__)
    if (!data || size == 0)
        return 0;
    // mincore reports one byte per page; a window at a time keeps the vector small for
    // checkpoints of many GiB.
    constexpr uint64_t kWindowPages = 1 << 16;
    const uint64_t page = pageSize();
    const uint64_t pages = ceilDiv(size, page);
#if defined(__APPLE__)
    std::vector<char> resident(size_t(std::min(pages, kWindowPages)));
#else
    std::vector<unsigned char> resident(size_t(std::min(pages, kWindowPages)));
#endif
    uint64_t count = 0;
    for (uint64_t first = 0; first < pages; first += kWindowPages) {
        const uint64_t n = std::min(kWindowPages, pages - first);
        void* start = const_cast<uint8_t*>(static_cast<const uint8_t*>(data)) + first * page;
        if (::mincore(start, size_t(std::min(n * page, size - first * page)), resident.data()) != 0)
            return 0;
        for (uint64_t i = 0; i < n; ++i)
            count += resident[size_t(i)] & 1;
    }
    return std::min(count * page, size);
#else
    (void)data;
    (void)size;
    return 0;
#endif
}

uint64_t privateResidentBytes()
{
#if defined(__linux__)
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("RssAnon:", 0) == 0) {
            const uint64_t kib = std::strtoull(line.c_str() + 8, nullptr, 10);
            return kib * 1024;
        }
#endif
    return 0;
}

void returnFreedMemory()
{
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
}

bool stderrIsTerminal()
{
#if defined(__unix__) || defined(__APPLE__)
    return ::isatty(2) == 1;
#else
    return false;
#endif
}

int runnableThreads()
{
#if defined(__linux__)
    // "0.52 0.58 0.59 3/467 12345": runnable / all. Read with plain calls: this is asked before
    // parallel runs, some of them a few microseconds long.
    const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char text[128];
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    const char* p = text;
    for (int field = 0; field < 3; ++field) {
        p = std::strchr(p, ' ');
        if (!p)
            return 0;
        ++p;
    }
    return std::max(0, std::atoi(p));
#else
    return 0;
#endif
}

} // namespace qs::platform
