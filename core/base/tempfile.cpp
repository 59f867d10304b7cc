#include "base/tempfile.h"

#include "base/error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>

namespace qs {

namespace fs = std::filesystem;

namespace {

// The registry of live temporary files, read by the signal handler: fixed slots, each a path
// buffer and a state, so the handler touches no allocator and no lock. A path longer than a
// slot holds, or a temporary file beyond the slots, is not registered: the next run removes it.
constexpr int kTempSlots = 64;
constexpr size_t kTempPathMax = 4096;
enum : int { kSlotFree = 0, kSlotFilling = 1, kSlotLive = 2 };
struct TempSlot {
    std::atomic<int> state{kSlotFree};
    char path[kTempPathMax];
};
TempSlot g_tempSlots[kTempSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' state");

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Unlinks every live temporary file, then ends the process as the signal would have: the
// action was reset to the default on entry (SA_RESETHAND), and the signal raised again is
// delivered as soon as this handler returns. Only async-signal-safe calls.
extern "C" void qsRemoveTempFilesOnSignal(int sig)
{
    const int savedErrno = errno;
    for (TempSlot& slot : g_tempSlots)
        if (slot.state.load(std::memory_order_acquire) == kSlotLive)
            ::unlink(slot.path);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    errno = savedErrno;
}

// Once per process, for each signal still at its default action: a handler the program (or
// a test harness) set, or an ignored signal (nohup), is left as it is.
void installTempFileCleanup()
{
    static std::once_flag once;
    std::call_once(once, [] {
        for (const int sig : kCleanupSignals) {
            struct sigaction old { };
            if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
                continue;
            struct sigaction sa { };
            sa.sa_handler = qsRemoveTempFilesOnSignal;
            sigemptyset(&sa.sa_mask);
            for (const int other : kCleanupSignals)
                sigaddset(&sa.sa_mask, other);
            sa.sa_flags = SA_RESETHAND;
            ::sigaction(sig, &sa, nullptr);
        }
    });
}

int registerTempFile(const std::string& path)
{
    installTempFileCleanup();
    std::error_code ec;
    const std::string absolute = fs::absolute(path, ec).string();
    if (ec || absolute.size() >= kTempPathMax)
        return -1;
    for (int i = 0; i < kTempSlots; ++i) {
        int expected = kSlotFree;
        if (g_tempSlots[i].state.compare_exchange_strong(expected, kSlotFilling, std::memory_order_acquire)) {
            std::memcpy(g_tempSlots[i].path, absolute.c_str(), absolute.size() + 1);
            g_tempSlots[i].state.store(kSlotLive, std::memory_order_release);
            return i;
        }
    }
    return -1;
}

constexpr char kTempChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// Six random letters and digits, as mkstemp's XXXXXX.
std::string randomTempSuffix()
{
    thread_local std::mt19937_64 engine{std::random_device{}() ^ (uint64_t(::getpid()) << 32)};
    std::string s(6, 'X');
    for (char& c : s)
        c = kTempChars[engine() % (sizeof kTempChars - 1)];
    return s;
}

bool isTempChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool sameInode(const struct stat& a, const struct stat& b)
{
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

bool isTempFileName(std::string_view name, std::string_view forName)
{
    constexpr std::string_view tag = ".tmp-";
    constexpr size_t randomChars = 6;
    if (name.size() < 1 + 1 + tag.size() + randomChars || name.front() != '.')
        return false;
    const std::string_view random = name.substr(name.size() - randomChars);
    for (const char c : random)
        if (!isTempChar(c))
            return false;
    const std::string_view rest = name.substr(0, name.size() - randomChars);
    if (!rest.ends_with(tag))
        return false;
    const std::string_view target = rest.substr(1, rest.size() - 1 - tag.size());
    return !target.empty() && (forName.empty() || target == forName);
}

CreatedTempFile createTempFile(const std::string& target)
{
    const fs::path t(target);
    const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
    const std::string prefix = (dir / ("." + t.filename().string() + ".tmp-")).string();
    installTempFileCleanup();
    for (int attempt = 0; attempt < 100; ++attempt) {
        CreatedTempFile f;
        f.path = prefix + randomTempSuffix();
        // Registered before it exists: a signal from here on finds it (or finds nothing yet,
        // and the process ends before the file is made).
        f.slot = registerTempFile(f.path);
        f.fd = ::open(f.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (f.fd < 0) {
            const int err = errno;
            releaseTempFile(f.slot, -1);
            if (err == EEXIST)
                continue;
            fail(target, "cannot create a temporary file in " + dir.string() + ": " + std::strerror(err));
        }
        f.lockFd = ::open(f.path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        int locked = -1;
        if (f.lockFd >= 0)
            do
                locked = ::flock(f.lockFd, LOCK_EX);
            while (locked != 0 && errno == EINTR);
        if (locked != 0) {
            // A file system without flock: the file is not protected, and no sweep can take it either.
            if (f.lockFd >= 0)
                ::close(f.lockFd);
            f.lockFd = -1;
            return f;
        }
        // A stale-file sweep of another run may have caught the file between its creation and
        // its lock: then it is gone from the folder now that the lock is ours; make another.
        struct stat own {
        }, named{};
        if (::fstat(f.fd, &own) == 0 && ::lstat(f.path.c_str(), &named) == 0 && sameInode(own, named))
            return f;
        ::close(f.fd);
        releaseTempFile(f.slot, f.lockFd);
    }
    fail(target,
         "cannot create a temporary file in " + dir.string() + ": no free name, or each one made was removed at once");
}

void releaseTempFile(int slot, int lockFd)
{
    if (slot >= 0 && slot < kTempSlots)
        g_tempSlots[slot].state.store(kSlotFree, std::memory_order_release);
    if (lockFd >= 0)
        ::close(lockFd);
}

bool removeIfStaleTempFile(const std::string& path)
{
    if (!isTempFileName(fs::path(path).filename().string()))
        return false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool removed = false;
    struct stat st {
    }, now{};
    // Locked by us: nobody else writes it. Still at its name: the lock is on what we unlink.
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && ::flock(fd, LOCK_EX | LOCK_NB) == 0
        && ::lstat(path.c_str(), &now) == 0 && sameInode(st, now))
        removed = ::unlink(path.c_str()) == 0;
    ::close(fd);
    return removed;
}

std::vector<std::string> removeStaleTempFiles(const std::string& dir, std::string_view forName)
{
    std::vector<std::string> removed;
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? fs::path(".") : fs::path(dir), ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (isTempFileName(name, forName) && removeIfStaleTempFile(it->path().string()))
            removed.push_back(name);
    }
    return removed;
}

} // namespace qs
