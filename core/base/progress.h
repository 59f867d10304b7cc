#pragma once
// The one cancel and progress convention of long work (stats, diff, quantize, repack, reports,
// group scales): the caller hands a Progress, the work polls it, and a cancelled run throws
// Cancelled. No partial result comes back looking whole (a flag on a result can be missed: the
// group scales of a cancelled read came back as a shorter grid), and the exception unwinds
// through runChunks (base/parallel.h) and the writers' temporary files like any error.
#include "base/error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace qs {

// Thrown when the caller's cancel flag is set; an Error, so whoever reports errors reports it.
class Cancelled : public Error {
public:
    Cancelled()
        : Error(Bare{}, "cancelled")
    {
    }
};

// Throws Cancelled when `cancel` is set.
inline void throwIfCancelled(const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw Cancelled();
}

// A caller's cancel flag and progress report; both optional.
struct Progress {
    const std::atomic<bool>* cancel = nullptr;
    // `done` of `total` (elements, weights or steps, as the work counts them) and the item in
    // progress; called on the calling thread.
    std::function<void(uint64_t done, uint64_t total, const std::string& item)> report;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    void check() const { throwIfCancelled(cancel); }
    void operator()(uint64_t done, uint64_t total, const std::string& item = {}) const
    {
        if (report)
            report(done, total, item);
    }
};

} // namespace qs
