#pragma once
// An OpenMP loop over independent blocks that carries the first exception out of the team
// (an exception must not leave an OpenMP region).
#include <cstdint>
#include <exception>

namespace qs {

// Runs fn(b) for b in [0, count) on an OpenMP team (dynamic schedule); rethrows the first
// exception any block threw once every block has run.
template <typename Fn>
void parallelBlocks(uint64_t count, Fn&& fn)
{
    std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic)
    for (int64_t b = 0; b < int64_t(count); ++b) {
        try {
            fn(uint64_t(b));
        } catch (...) {
#pragma omp critical(qs_parallel_blocks)
            if (!failure)
                failure = std::current_exception();
        }
    }
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace qs
