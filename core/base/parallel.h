#pragma once
// The one parallel chunk runner, and the loop every long piece of work goes through so that it
// can stop early. body(chunk, state) runs for every chunk in [0, chunks) on a team of `threads`
// threads (<= 0: OpenMP's default), each thread with its own default-constructed State (its
// scratch buffers). Chunks are handed out one at a time from a shared counter (the order of
// OpenMP's dynamic schedule), and a thread takes no new chunk once a chunk has thrown or
// `cancel` (polled before each chunk) is set: the run ends after the chunks already started,
// however many are left (an OpenMP `for` cannot be left early: it walked all of a wrapped
// shape's 2^40 chunks). The first exception a chunk, a State's constructor or afterChunk throws
// is rethrown on the calling thread; afterChunk() runs on the team's thread 0 (the caller) after
// each of its chunks (progress reports). Returns false when cancelled or stopped by an error.
//
// The default team (threads <= 0) is defaultTeam(): every core only when no other thread on the
// machine wants one. On a busy machine a second thread waits for a core, and the region's end
// waits for it: the bench's all-thread rate fell to a tenth of one thread's under a load of 12
// on 2 cores (libgomp's workers, woken for each region, queue behind the other work).
#include "base/cancel.h"

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <exception>

namespace qs {

struct NoChunkState { };

// The team a run with OpenMP's default would start: omp_get_max_threads() less the cores that
// other runnable threads on the machine hold now (platform::runnableThreads, without this
// thread and the workers of our last team, which may still be spinning in libgomp's wait), at
// least one; one inside a parallel region. Asked again at most every few milliseconds.
int defaultTeam();
// Called after a region of `team` > 1 threads ends (runChunks): its workers spin for a while.
void teamEnded(int team);

template <typename State = NoChunkState, typename Body, typename AfterChunk>
bool runChunks(uint64_t chunks, int threads, const std::atomic<bool>* cancel, Body&& body, AfterChunk&& afterChunk)
{
    const int team = threads > 0 ? threads : defaultTeam();
    // Every thread of the team passes the flag (else the caller's, base/cancel.h) on to what it
    // calls: a remote file's fetch stops with the work it is part of.
    const std::atomic<bool>* passedOn = cancel ? cancel : currentCancelFlag();
    std::exception_ptr failure;
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> next{0};
#pragma omp parallel num_threads(team)
    {
        const CancelScope scope(passedOn);
        // A team of one is not an active region: without this the kernels' own parallel
        // loops would fork inside a run asked to use one thread.
        if (team == 1)
            omp_set_num_threads(1);
        const bool reports = omp_get_thread_num() == 0;
        // Everything that can throw inside the region is caught: the state's construction and
        // the progress report too (an exception leaving an OpenMP region ends the program).
        try {
            State state;
            while (!stop.load(std::memory_order_relaxed)) {
                if (cancel && cancel->load(std::memory_order_relaxed)) {
                    stop = true;
                    break;
                }
                // Never past `chunks`: a counter that wrapped would hand out chunk 0 again.
                uint64_t c = next.load(std::memory_order_relaxed);
                do {
                    if (c >= chunks)
                        break;
                } while (!next.compare_exchange_weak(c, c + 1, std::memory_order_relaxed));
                if (c >= chunks)
                    break;
                body(c, state);
                if (reports)
                    afterChunk();
            }
        } catch (...) {
#pragma omp critical(qs_run_chunks_failure)
            if (!failure)
                failure = std::current_exception();
            stop = true;
        }
    }
    if (team > 1)
        teamEnded(team);
    if (failure)
        std::rethrow_exception(failure);
    return !stop;
}

template <typename State = NoChunkState, typename Body>
bool runChunks(uint64_t chunks, int threads, const std::atomic<bool>* cancel, Body&& body)
{
    return runChunks<State>(chunks, threads, cancel, static_cast<Body&&>(body), [] {});
}

// body(i) for every i in [0, count): through runChunks on its default team when `parallel`
// (the first exception reaches the caller, the other indices are not started), else in order on
// the calling thread without opening a region. The order of the indices is not defined.
template <typename Body>
void parallelFor(uint64_t count, bool parallel, Body&& body)
{
    if (!parallel || count < 2) {
        for (uint64_t i = 0; i < count; ++i)
            body(i);
        return;
    }
    runChunks(count, 0, nullptr, [&body](uint64_t i, NoChunkState&) { body(i); });
}

} // namespace qs
