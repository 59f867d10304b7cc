#include "base/parallel.h"

#include "base/platform.h"

#include <algorithm>
#include <chrono>

namespace qs {

namespace {

using Clock = std::chrono::steady_clock;

int64_t nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// libgomp's workers spin up to GOMP_SPINCOUNT (300000 pauses: milliseconds) after a region
// before they sleep; while they do they count as runnable.
constexpr int64_t kSpinNs = 50'000'000;
// How long a team size stays decided: /proc/loadavg costs microseconds, some runs as little.
constexpr int64_t kRecheckNs = 5'000'000;

std::atomic<int64_t> g_teamEndedAt{INT64_MIN / 2};
std::atomic<int> g_lastTeam{1};
std::atomic<int64_t> g_decidedAt{INT64_MIN / 2};
std::atomic<int> g_decided{0};

} // namespace

void teamEnded(int team)
{
    g_lastTeam.store(team, std::memory_order_relaxed);
    g_teamEndedAt.store(nowNs(), std::memory_order_relaxed);
}

int defaultTeam()
{
    const int cores = omp_get_max_threads();
    if (cores < 2 || omp_in_parallel())
        return omp_in_parallel() ? 1 : cores;
    const int64_t now = nowNs();
    if (now - g_decidedAt.load(std::memory_order_relaxed) < kRecheckNs) {
        const int team = g_decided.load(std::memory_order_relaxed);
        if (team > 0)
            return std::min(team, cores);
    }
    const int runnable = platform::runnableThreads();
    int team = cores;
    if (runnable > 0) {
        const int spinning = now - g_teamEndedAt.load(std::memory_order_relaxed) < kSpinNs
            ? g_lastTeam.load(std::memory_order_relaxed) - 1
            : 0;
        const int others = std::max(0, runnable - 1 - spinning);
        team = std::clamp(cores - others, 1, cores);
    }
    g_decided.store(team, std::memory_order_relaxed);
    g_decidedAt.store(now, std::memory_order_relaxed);
    return team;
}

} // namespace qs
