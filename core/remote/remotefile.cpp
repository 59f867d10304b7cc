#include "remote/remotefile.h"

#include "base/atomicfile.h"
#include "base/error.h"
#include "base/intmath.h"
#include "remote/cache.h"
#include "remote/http.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qs::remote {

namespace {

FetchObserver g_observer;
std::mutex g_statusLock;
FetchStatus g_status;

void reportFetch(const std::string& name, uint64_t done, uint64_t total)
{
    {
        const std::lock_guard guard(g_statusLock);
        g_status = {done < total, name, done, total};
    }
    if (g_observer)
        g_observer(name, done, total);
}

// Clears the status when a request ends, however it ends.
struct FetchScope {
    const std::string& name;
    uint64_t total;
    explicit FetchScope(const std::string& n, uint64_t t)
        : name(n)
        , total(t)
    {
        reportFetch(name, 0, total);
    }
    ~FetchScope()
    {
        const std::lock_guard guard(g_statusLock);
        g_status.active = false;
    }
};
std::atomic<bool> g_wholeAllowed{false};

// The largest single ranged request: its body goes straight into the cache file.
constexpr uint64_t kMaxRequestBlocks = 256; // 64 MiB
constexpr uint64_t kMaxReadAhead = 64; // 16 MiB

std::string sysError(const std::string& what)
{
    return what + ": " + std::strerror(errno);
}

} // namespace

void setFetchObserver(FetchObserver observer)
{
    g_observer = std::move(observer);
}

FetchStatus currentFetch()
{
    const std::lock_guard guard(g_statusLock);
    return g_status;
}

void setWholeDownloadAllowed(bool allowed)
{
    g_wholeAllowed = allowed;
}

std::shared_ptr<RemoteFile> RemoteFile::open(const std::string& url, const std::string& name)
{
    std::shared_ptr<RemoteFile> f(new RemoteFile);
    f->m_url = url;
    f->m_name = name;
    HttpRequest head;
    head.url = url;
    head.head = true;
    const HttpReply r = httpRequest(head, name);
    if (r.status != 200)
        fail(name, "the server answered HTTP " + std::to_string(r.status) + " to a request for the file's size");
    if (!r.contentLength)
        fail(name, "the server does not say the file's size (no Content-Length)");
    if (r.etag.empty() && r.lastModified.empty())
        fail(name,
             "the server gives neither an ETag nor a Last-Modified date, so a file replaced between two "
             "requests could not be told from the one being read: refused");
    if (*r.contentLength > kMaxRemoteBytes)
        fail(name,
             "the server says the file holds " + std::to_string(*r.contentLength) + " bytes, more than the "
                 + std::to_string(kMaxRemoteBytes >> 40) + " TiB a remote checkpoint file may have: refused");
    f->m_size = *r.contentLength;
    f->m_etag = !r.etag.empty();
    f->m_validator = f->m_etag ? r.etag : r.lastModified;
    f->m_blockCount = ceilDiv(f->m_size, kBlockBytes); // a server's Content-Length near 2^64 must not wrap
    f->m_blocks.reset(new std::atomic<uint8_t>[f->m_blockCount]());

    f->m_dir = cacheEntryDir(url, f->m_validator, f->m_size);
    std::error_code ec;
    std::filesystem::create_directories(f->m_dir, ec);
    if (ec)
        fail(f->m_dir, "cannot create the cache folder: " + ec.message());
    // Held shared while the file is open: trimCache leaves the entry alone.
    f->m_lockFd = ::open((f->m_dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f->m_lockFd < 0 || ::flock(f->m_lockFd, LOCK_SH) != 0)
        fail(f->m_dir, sysError("cannot lock the cache entry"));
    ::futimens(f->m_lockFd, nullptr); // the entry's last use, for trimCache
    f->m_dataPath = f->m_dir + "/data";
    f->m_dataFd = ::open(f->m_dataPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f->m_dataFd < 0)
        fail(f->m_dataPath, sysError("cannot open the cache file"));
    struct stat st { };
    if (::fstat(f->m_dataFd, &st) != 0)
        fail(f->m_dataPath, sysError("cannot stat the cache file"));
    if (uint64_t(st.st_size) != f->m_size && ::ftruncate(f->m_dataFd, off_t(f->m_size)) != 0)
        fail(f->m_dataPath, sysError("cannot size the cache file"));
    {
        // The record: one byte a block, 1 = fetched. One of another length is ignored.
        std::ifstream in(f->m_dir + "/fetched", std::ios::binary);
        std::string record((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (record.size() == f->m_blockCount && uint64_t(st.st_size) == f->m_size) {
            uint64_t cached = 0;
            for (uint64_t b = 0; b < f->m_blockCount; ++b)
                if (record[b] == 1) {
                    f->m_blocks[b].store(1, std::memory_order_relaxed);
                    cached += std::min(kBlockBytes, f->m_size - b * kBlockBytes);
                }
            f->m_cached = cached;
        }
    }
    // For whoever looks into the cache: which file this is.
    if (::access((f->m_dir + "/source").c_str(), F_OK) != 0)
        writeFileAtomically(f->m_dir + "/source",
                            url + '\n' + f->m_validator + '\n' + std::to_string(f->m_size) + '\n');
    trimCache(f->m_dir);
    return f;
}

RemoteFile::~RemoteFile()
{
    if (m_dataFd >= 0)
        ::close(m_dataFd);
    if (m_lockFd >= 0)
        ::close(m_lockFd);
}

uint64_t RemoteFile::missingBytes(uint64_t offset, uint64_t length) const
{
    if (length == 0 || offset >= m_size)
        return 0;
    length = std::min(length, m_size - offset);
    uint64_t missing = 0;
    for (uint64_t b = offset / kBlockBytes; b <= (offset + length - 1) / kBlockBytes; ++b)
        if (!hasBlock(b)) {
            const uint64_t lo = std::max(offset, b * kBlockBytes);
            const uint64_t hi = std::min(offset + length, (b + 1) * kBlockBytes);
            missing += hi - lo;
        }
    return missing;
}

void RemoteFile::ensure(uint64_t offset, uint64_t length)
{
    if (length == 0 || offset >= m_size)
        return;
    length = std::min(length, m_size - offset);
    const uint64_t b0 = offset / kBlockBytes, b1 = (offset + length - 1) / kBlockBytes;
    bool complete = true;
    for (uint64_t b = b0; b <= b1 && complete; ++b)
        complete = hasBlock(b);
    if (complete)
        return;
    std::lock_guard lock(m_fetch);
    uint64_t end = b1 + 1;
    // A small read right after the last fetch is a header being parsed: read ahead, twice as far
    // each time, up to the next block already held.
    if (b0 == m_lastEnd && b1 - b0 < m_readAhead) {
        m_readAhead = std::min(m_readAhead * 2, kMaxReadAhead);
        end = std::min(m_blockCount, b0 + m_readAhead);
        for (uint64_t b = b1 + 1; b < end; ++b)
            if (hasBlock(b)) {
                end = b;
                break;
            }
    } else if (b1 - b0 >= m_readAhead) {
        m_readAhead = 1;
    }
    for (uint64_t b = b0; b < end;) {
        if (hasBlock(b)) {
            ++b;
            continue;
        }
        uint64_t run = 1;
        while (b + run < end && run < kMaxRequestBlocks && !hasBlock(b + run))
            ++run;
        fetchBlocks(b, run);
        b += run;
    }
    m_lastEnd = end;
}

void RemoteFile::fetchBlocks(uint64_t first, uint64_t count)
{
    const uint64_t offset = first * kBlockBytes;
    const uint64_t length = std::min(count * kBlockBytes, m_size - offset);
    bool ignoresRange = false;
    HttpRequest req;
    req.url = m_url;
    req.range = {offset, length};
    req.checkHeaders = [&](const HttpReply& r) {
        if (r.status == 200) {
            ignoresRange = true;
            throw Error(m_name + ": the server ignores Range requests (it answered bytes " + std::to_string(offset)
                        + "-" + std::to_string(offset + length - 1) + " with the whole file)");
        }
        if (r.status != 206)
            fail(m_name,
                 "the server answered HTTP " + std::to_string(r.status) + " to a request for bytes "
                     + std::to_string(offset) + "-" + std::to_string(offset + length - 1));
        const std::string now = m_etag ? r.etag : r.lastModified;
        if (now != m_validator || (r.rangeTotal && *r.rangeTotal != m_size))
            fail(m_name,
                 "the file changed on the server while it was being read ("
                     + std::string(m_etag ? "ETag " : "Last-Modified ") + m_validator + ", now "
                     + (now.empty() ? std::string("none") : now)
                     + (r.rangeTotal && *r.rangeTotal != m_size
                            ? ", " + std::to_string(m_size) + " bytes, now " + std::to_string(*r.rangeTotal)
                            : std::string())
                     + "): what was read from it is not used; open it again");
        if (!r.rangeFirst || !r.rangeLast || !r.rangeTotal || *r.rangeFirst != offset
            || *r.rangeLast != offset + length - 1)
            fail(m_name,
                 "the server answered a request for bytes " + std::to_string(offset) + "-"
                     + std::to_string(offset + length - 1) + " of " + std::to_string(m_size)
                     + " with another range (Content-Range "
                     + (r.rangeFirst && r.rangeLast ? std::to_string(*r.rangeFirst) + "-" + std::to_string(*r.rangeLast)
                                                    : std::string("missing or unreadable"))
                     + ")");
    };
    uint64_t received = 0;
    req.sink = [&](uint64_t at, const char* data, size_t size) {
        if (at + size > length)
            fail(m_name, "the server sent more than the " + std::to_string(length) + " bytes asked for");
        for (size_t done = 0; done < size;) {
            const ssize_t n = ::pwrite(m_dataFd, data + done, size - done, off_t(offset + at + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                fail(m_dataPath, sysError("cannot write the cache file"));
            done += size_t(n);
        }
        received = std::max(received, at + size);
    };
    req.progress = [this, length](uint64_t done, uint64_t) { reportFetch(m_name, done, length); };
    const FetchScope scope(m_name, length);
    HttpReply reply;
    try {
        reply = httpRequest(req, m_name);
    } catch (const Error&) {
        if (!ignoresRange)
            throw;
        if (!g_wholeAllowed)
            fail(m_name,
                 "the server ignores Range requests, so the file cannot be read piece by piece; it is "
                 "refused (--download-whole, or the GUI's offer, downloads all "
                     + std::to_string(m_size) + " bytes instead)");
        fetchWhole();
        return;
    }
    if (reply.status != 206)
        fail(m_name,
             "the server answered HTTP " + std::to_string(reply.status) + " to a request for bytes "
                 + std::to_string(offset) + "-" + std::to_string(offset + length - 1));
    if (received != length)
        fail(m_name,
             "the server sent " + std::to_string(received) + " of the " + std::to_string(length) + " bytes asked for");
    markFetched(first, count);
}

void RemoteFile::fetchWhole()
{
    HttpRequest req;
    req.url = m_url;
    req.checkHeaders = [&](const HttpReply& r) {
        const std::string now = m_etag ? r.etag : r.lastModified;
        if (r.status != 200 || now != m_validator || r.contentLength != m_size)
            fail(m_name, "the file changed on the server while it was being read: what was read from it is not used");
    };
    uint64_t received = 0;
    req.sink = [&](uint64_t at, const char* data, size_t size) {
        if (at + size > m_size)
            fail(m_name, "the server sent more than the file's " + std::to_string(m_size) + " bytes");
        for (size_t done = 0; done < size;) {
            const ssize_t n = ::pwrite(m_dataFd, data + done, size - done, off_t(at + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                fail(m_dataPath, sysError("cannot write the cache file"));
            done += size_t(n);
        }
        received = std::max(received, at + size);
    };
    req.progress = [this](uint64_t done, uint64_t) { reportFetch(m_name, done, m_size); };
    const FetchScope scope(m_name, m_size);
    if (const HttpReply reply = httpRequest(req, m_name); reply.status != 200)
        fail(m_name, "the server answered HTTP " + std::to_string(reply.status) + " to a request for the whole file");
    if (received != m_size)
        fail(m_name,
             "the server sent " + std::to_string(received) + " of the file's " + std::to_string(m_size) + " bytes");
    markFetched(0, m_blockCount);
}

void RemoteFile::markFetched(uint64_t first, uint64_t count)
{
    // The bytes are on disk before the record says so.
    if (::fdatasync(m_dataFd) != 0)
        fail(m_dataPath, sysError("cannot sync the cache file"));
    for (uint64_t b = first; b < first + count; ++b)
        if (m_blocks[b].exchange(1, std::memory_order_release) == 0)
            m_cached += std::min(kBlockBytes, m_size - b * kBlockBytes);
    saveRecord();
}

void RemoteFile::saveRecord()
{
    std::string record(m_blockCount, '\0');
    for (uint64_t b = 0; b < m_blockCount; ++b)
        record[b] = char(hasBlock(b) ? 1 : 0);
    writeFileAtomically(m_dir + "/fetched", record);
}

} // namespace qs::remote
