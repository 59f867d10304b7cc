#include "base/mapguard.h"

#include "base/error.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace qs::mapguard {

namespace {

// The signal handler's view: begin/end of each registered mapping and how often a fault in it was
// absorbed. Lock-free, fixed in size (the handler may not allocate or lock).
struct Slot {
    std::atomic<uintptr_t> begin{0}, end{0};
    std::atomic<uint32_t> faults{0};
};
constexpr int kSlots = 4096;
Slot g_slots[kSlots];

// The rest, for the normal code only.
struct Identity {
    std::string path;
    uint64_t dev = 0, ino = 0, bytes = 0;
    int64_t mtimeNs = 0;
    bool used = false;
};
std::mutex g_mutex;
std::vector<Identity>& identities()
{
    static std::vector<Identity> ids(kSlots);
    return ids;
}
// The first mapping found changed when it was unregistered (checkUnchangedSinceStart).
std::string& changedBeforeUnmap()
{
    static std::string why;
    return why;
}

uintptr_t g_pageMask = 0;
struct sigaction g_previous;

void onSigbus(int sig, siginfo_t* info, void* context)
{
    const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
    for (Slot& s : g_slots) {
        const uintptr_t begin = s.begin.load(std::memory_order_acquire);
        if (begin == 0 || at < begin || at >= s.end.load(std::memory_order_acquire))
            continue;
        // The page is past the file's end now: read it as zeros from here on.
        void* page = reinterpret_cast<void*>(at & g_pageMask);
        if (::mmap(page, ~g_pageMask + 1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            s.faults.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        break;
    }
    // Not a mapping of ours: what would have happened without this handler.
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction) {
            g_previous.sa_sigaction(sig, info, context);
            return;
        }
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(sig);
        return;
    }
    // Returning re-runs the faulting access, which now takes the default action.
    ::signal(SIGBUS, SIG_DFL);
}

void installHandler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        g_pageMask = ~(uintptr_t(::sysconf(_SC_PAGESIZE)) - 1);
        struct sigaction sa { };
        sa.sa_sigaction = onSigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previous);
    });
}

std::string bytesText(uint64_t n)
{
    return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

} // namespace

int registerMapping(const void* data, uint64_t size, const std::string& path, uint64_t dev, uint64_t ino,
                    uint64_t bytes, int64_t mtimeNs)
{
    if (!data || size == 0)
        return -1;
    installHandler();
    std::lock_guard lock(g_mutex);
    auto& ids = identities();
    for (int i = 0; i < kSlots; ++i) {
        if (ids[size_t(i)].used)
            continue;
        ids[size_t(i)] = {path, dev, ino, bytes, mtimeNs, true};
        Slot& s = g_slots[i];
        s.faults.store(0, std::memory_order_relaxed);
        s.end.store(reinterpret_cast<uintptr_t>(data) + size, std::memory_order_release);
        s.begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
        return i;
    }
    return -1;
}

void unregisterMapping(int handle)
{
    if (handle < 0 || handle >= kSlots)
        return;
    const std::optional<std::string> why = changed(handle);
    std::lock_guard lock(g_mutex);
    if (why && changedBeforeUnmap().empty())
        changedBeforeUnmap() = *why;
    g_slots[handle].begin.store(0, std::memory_order_release);
    identities()[size_t(handle)] = {};
}

std::optional<std::string> changed(int handle)
{
    if (handle < 0 || handle >= kSlots)
        return std::nullopt;
    Identity id;
    {
        std::lock_guard lock(g_mutex);
        id = identities()[size_t(handle)];
    }
    if (!id.used)
        return std::nullopt;
    struct stat st { };
    const bool present = ::stat(id.path.c_str(), &st) == 0;
    const bool faulted = g_slots[handle].faults.load(std::memory_order_relaxed) > 0;
    const int64_t mtime = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    const bool same = present && uint64_t(st.st_dev) == id.dev && uint64_t(st.st_ino) == id.ino
        && uint64_t(st.st_size) == id.bytes && mtime == id.mtimeNs;
    if (!faulted && same)
        return std::nullopt;
    std::string now;
    if (!present)
        now = "now gone, was " + bytesText(id.bytes);
    else if (uint64_t(st.st_dev) == id.dev && uint64_t(st.st_ino) == id.ino)
        now = "now " + bytesText(uint64_t(st.st_size)) + ", was " + bytesText(id.bytes);
    else
        now = "now another file of " + bytesText(uint64_t(st.st_size)) + ", was " + bytesText(id.bytes);
    return id.path + " changed while it was being read (" + now + ")";
}

namespace {
std::atomic<bool> g_checkWrites{false};
}

void setCheckBeforeWrites(bool on)
{
    g_checkWrites = on;
}

void checkBeforeWrite()
{
    if (g_checkWrites)
        checkUnchangedSinceStart("nothing was written");
}

void checkUnchangedSinceStart(const char* consequence)
{
    checkMappedFilesUnchanged(consequence);
    std::lock_guard lock(g_mutex);
    if (!changedBeforeUnmap().empty())
        throw Error(changedBeforeUnmap() + ": " + consequence);
}

void checkMappedFilesUnchanged(const char* consequence)
{
    for (int i = 0; i < kSlots; ++i) {
        if (g_slots[i].begin.load(std::memory_order_acquire) == 0)
            continue;
        if (const std::optional<std::string> why = changed(i))
            throw Error(*why + ": " + consequence);
    }
}

} // namespace qs::mapguard
