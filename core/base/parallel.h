#pragma once
// The one OpenMP chunk runner. body(chunk, state) runs for every chunk in [0, chunks) on a
// team of `threads` threads (<= 0: OpenMP's default), dynamic schedule, each thread with its
// own default-constructed State (its scratch buffers). The first exception a chunk throws
// stops the chunks not yet started and is rethrown on the calling thread; `cancel`, polled
// before each chunk, ends the run early; afterChunk() runs on the team's thread 0 after each
// of its chunks (progress reports). Returns false when cancelled.
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <exception>

namespace qs {

struct NoChunkState {};

template <typename State = NoChunkState, typename Body, typename AfterChunk>
bool runChunks(uint64_t chunks, int threads, const std::atomic<bool>* cancel, Body&& body, AfterChunk&& afterChunk)
{
    const int team = threads > 0 ? threads : omp_get_max_threads();
    std::exception_ptr failure;
    std::atomic<bool> stop{false};
#pragma omp parallel num_threads(team)
    {
        State state;
        // A team of one is not an active region: without this the kernels' own parallel
        // loops would fork inside a run asked to use one thread.
        if (team == 1)
            omp_set_num_threads(1);
#pragma omp for schedule(dynamic)
        for (int64_t c = 0; c < int64_t(chunks); ++c) {
            if (stop.load(std::memory_order_relaxed) || (cancel && cancel->load(std::memory_order_relaxed))) {
                stop = true;
                continue;
            }
            try {
                body(uint64_t(c), state);
            } catch (...) {
#pragma omp critical(qs_run_chunks_failure)
                if (!failure)
                    failure = std::current_exception();
                stop = true;
            }
            if (omp_get_thread_num() == 0)
                afterChunk();
        }
    }
    if (failure)
        std::rethrow_exception(failure);
    return !stop;
}

template <typename State = NoChunkState, typename Body>
bool runChunks(uint64_t chunks, int threads, const std::atomic<bool>* cancel, Body&& body)
{
    return runChunks<State>(chunks, threads, cancel, static_cast<Body&&>(body), [] {});
}

} // namespace qs
