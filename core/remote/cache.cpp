#include "remote/cache.h"

#include <QCryptographicHash>
#include <QByteArray>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace qs::remote {

namespace fs = std::filesystem;

std::string cacheRoot()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        return std::string(x) + "/quantscope";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : "/tmp") + "/.cache/quantscope";
}

uint64_t cacheLimitBytes()
{
    if (const char* v = std::getenv("QUANTSCOPE_CACHE_MB"); v && *v) {
        char* end = nullptr;
        const unsigned long long mb = std::strtoull(v, &end, 10);
        if (end && *end == '\0')
            return mb > (UINT64_MAX >> 20) ? UINT64_MAX : uint64_t(mb) << 20;
    }
    return uint64_t(20480) << 20;
}

std::string cacheEntryDir(const std::string& url, const std::string& validator, uint64_t size)
{
    const std::string key = url + '\n' + validator + '\n' + std::to_string(size);
    const QByteArray hash =
        QCryptographicHash::hash(QByteArray::fromStdString(key), QCryptographicHash::Sha256).toHex();
    return cacheRoot() + "/" + hash.left(40).toStdString();
}

void trimCache(const std::string& keep)
{
    struct Entry {
        std::string dir;
        int64_t usedNs = 0;
        uint64_t bytes = 0;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;
    std::error_code ec;
    for (fs::directory_iterator it(cacheRoot(), ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code dirEc;
        if (!it->is_directory(dirEc))
            continue;
        Entry e{it->path().string()};
        struct stat st { };
        if (::stat((e.dir + "/lock").c_str(), &st) == 0)
            e.usedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        for (fs::directory_iterator f(it->path(), dirEc), fend; !dirEc && f != fend; f.increment(dirEc))
            if (::stat(f->path().c_str(), &st) == 0)
                e.bytes += uint64_t(st.st_blocks) * 512; // what the sparse file takes on disk
        total += e.bytes;
        entries.push_back(std::move(e));
    }
    const uint64_t limit = cacheLimitBytes();
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.usedNs < b.usedNs; });
    for (const Entry& e : entries) {
        if (total <= limit)
            break;
        if (e.dir == keep)
            continue;
        const int fd = ::open((e.dir + "/lock").c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd); // open in another process
            continue;
        }
        fs::remove_all(e.dir, ec);
        if (fd >= 0)
            ::close(fd);
        total -= std::min(total, e.bytes);
    }
}

} // namespace qs::remote
