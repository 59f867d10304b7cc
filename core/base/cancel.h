#pragma once
// The cancel flag of the work running on this thread, for code deep below the call that was given
// one (a remote file's fetch, base of every tensor read, knows no job). A JobRunner worker sets it
// for its job; runChunks hands the caller's flag (or its own) on to every thread of its team.
#include <atomic>

namespace qs {

namespace detail {
inline thread_local const std::atomic<bool>* tlCancel = nullptr;
}

// Whether the work on this thread was asked to stop.
inline bool cancelRequested()
{
    const std::atomic<bool>* c = detail::tlCancel;
    return c && c->load(std::memory_order_relaxed);
}
inline const std::atomic<bool>* currentCancelFlag()
{
    return detail::tlCancel;
}

// Sets this thread's flag for its lifetime (nullptr keeps the one already set).
class CancelScope {
public:
    explicit CancelScope(const std::atomic<bool>* flag)
        : m_prev(detail::tlCancel)
    {
        if (flag)
            detail::tlCancel = flag;
    }
    ~CancelScope() { detail::tlCancel = m_prev; }
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;

private:
    const std::atomic<bool>* m_prev;
};

} // namespace qs
