#pragma once
// A remote file read by byte range into the on-disk cache. Opening asks the server for the file's
// size and validator (HEAD; its ETag, else its Last-Modified date) and opens the cache entry keyed
// by URL and validator under $XDG_CACHE_HOME/quantscope (remote/cache.h): a sparse file of the
// remote size, which container/mappedfile maps read-only, and the record of which of its 256 KiB
// blocks hold fetched bytes. ensure() fetches the blocks a read needs that the record lacks
// (sequential small reads, a header being parsed, fetch a growing read-ahead), each response
// checked: status 206, Content-Range exactly the bytes asked for of a file of the same size, the
// same validator (a file replaced between two requests is an error, never a mix). A block enters
// the record only once its bytes are all written and synced, so an interrupted fetch leaves
// nothing the next run would take for fetched bytes.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace qs::remote {

inline constexpr uint64_t kBlockBytes = 256 * 1024;
// The largest file read from a server: far above any checkpoint file, and it bounds what a
// server's Content-Length can make us allocate (a byte per block: 16 MiB here).
inline constexpr uint64_t kMaxRemoteBytes = uint64_t(4) << 40;

// What the fetches report: `name` (the file as shown), bytes of this request received and asked for.
using FetchObserver = std::function<void(const std::string& name, uint64_t done, uint64_t total)>;
// Set before any file is opened (the CLI's and the GUI's progress); called on fetching threads.
void setFetchObserver(FetchObserver observer);
// The request being received now (the latest started when several run), for a GUI that polls:
// no callback reaches it on a fetching thread.
struct FetchStatus {
    bool active = false;
    std::string name;
    uint64_t done = 0, total = 0;
};
FetchStatus currentFetch();
// Whether a server that ignores Range may send the whole file (off: such a server is refused).
void setWholeDownloadAllowed(bool allowed);

class RemoteFile {
public:
    // `url` is what is requested, `name` what messages call the file (an hf:// path, the URL).
    // Throws qs::Error naming `name`.
    static std::shared_ptr<RemoteFile> open(const std::string& url, const std::string& name);
    ~RemoteFile();
    RemoteFile(const RemoteFile&) = delete;
    RemoteFile& operator=(const RemoteFile&) = delete;

    const std::string& url() const { return m_url; }
    const std::string& name() const { return m_name; }
    uint64_t size() const { return m_size; }
    // The cache file holding the fetched bytes (sparse, size() bytes).
    const std::string& dataPath() const { return m_dataPath; }

    // Fetches what [offset, offset + length) lacks; thread-safe. Throws qs::Error naming the file.
    void ensure(uint64_t offset, uint64_t length);
    // Bytes of [offset, offset + length) not in the cache yet (whole blocks, clipped to the range).
    uint64_t missingBytes(uint64_t offset, uint64_t length) const;
    uint64_t cachedBytes() const { return m_cached.load(std::memory_order_relaxed); }

private:
    RemoteFile() = default;
    bool hasBlock(uint64_t b) const { return m_blocks[b].load(std::memory_order_acquire) != 0; }
    void fetchBlocks(uint64_t first, uint64_t count);
    void fetchWhole();
    void markFetched(uint64_t first, uint64_t count);
    void saveRecord();

    std::string m_url, m_name, m_validator, m_dir, m_dataPath;
    bool m_etag = true; // the validator is an ETag (else a Last-Modified date)
    uint64_t m_size = 0, m_blockCount = 0;
    int m_dataFd = -1, m_lockFd = -1;
    std::unique_ptr<std::atomic<uint8_t>[]> m_blocks;
    std::atomic<uint64_t> m_cached{0};
    std::mutex m_fetch; // one fetch at a time per file
    uint64_t m_lastEnd = UINT64_MAX; // the block after the last fetch: a read starting there is sequential
    uint64_t m_readAhead = 1; // blocks, doubling while reads stay sequential
};

} // namespace qs::remote
