// Single-thread throughput of the ggml dequantizers on L2-sized chunks (256 KiB of float
// output per call): fast path vs the scalar reference vs memcpy of the same output bytes,
// all measured in this process. The three are interleaved in rounds and the best round of
// each is kept, so load from other processes affects them alike.
// Usage: bench_ggml [milliseconds per measurement, default 40] [rounds, default 7]
#include "formats/ggml/ggml.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using namespace qs;

namespace {

using Clock = std::chrono::steady_clock;

// Calls fn repeatedly for about `ms` milliseconds; returns output bytes per second.
template <typename F>
double rate(F&& fn, double bytesPerCall, int ms)
{
    fn(); // warm caches
    uint64_t calls = 0;
    const auto t0 = Clock::now();
    double elapsed = 0;
    do {
        for (int k = 0; k < 8; ++k)
            fn();
        calls += 8;
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (elapsed * 1000 < ms);
    return bytesPerCall * double(calls) / elapsed;
}

} // namespace

int main(int argc, char** argv)
{
    const int ms = argc > 1 ? std::atoi(argv[1]) : 40;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
    omp_set_num_threads(1);
    const SimdPath fast = bestSimdPath();
    constexpr uint64_t kOutFloats = 64 * 1024; // 256 KiB of output
    std::vector<float> out(kOutFloats), src(kOutFloats);
    std::mt19937 rng(1);
    for (float& f : src)
        f = float(rng() % 1000) / 1000.0f;
    auto copy = [&] {
        std::memcpy(out.data(), src.data(), kOutFloats * 4);
        asm volatile("" ::: "memory");
    };

    std::printf("fast path: %s, output chunk %llu KiB, single thread, best of %d rounds\n",
                std::string(simdPathName(fast)).c_str(), static_cast<unsigned long long>(kOutFloats * 4 / 1024),
                rounds);
    std::printf("%-8s %10s %10s %12s %9s %11s\n", "type", "fast Gw/s", "ref Gw/s", "memcpy GB/s", "fast/ref",
                "fast/memcpy");
    for (const GgmlTypeInfo& t : ggmlTypes()) {
        if (!ggmlTypeDecodable(t.id))
            continue;
        const uint64_t nblocks = kOutFloats / t.blockWeights;
        std::vector<uint8_t> bytes(nblocks * t.blockBytes);
        for (uint8_t& b : bytes)
            b = uint8_t(rng());
        // Finite scales: clear the top exponent bit of every byte pair that could be one.
        for (size_t i = 1; i < bytes.size(); i += 2)
            bytes[i] &= 0xBF;
        const uint64_t rowElems = nblocks * t.blockWeights;
        double fastRate = 0, refRate = 0, copyRate = 0;
        for (int r = 0; r < rounds; ++r) {
            copyRate = std::max(copyRate, rate(copy, kOutFloats * 4.0, ms));
            fastRate = std::max(fastRate,
                                rate([&] { dequantizeGgmlRows(t.id, bytes.data(), 1, rowElems, out.data(), fast); },
                                     kOutFloats * 4.0, ms));
            refRate = std::max(refRate,
                               rate([&] { dequantizeGgmlRowsRef(t.id, bytes.data(), 1, rowElems, out.data()); },
                                    kOutFloats * 4.0, ms));
        }
        std::printf("%-8s %10.2f %10.2f %12.2f %8.1fx %10.2fx\n", std::string(t.name).c_str(), fastRate / 4e9,
                    refRate / 4e9, copyRate / 1e9, fastRate / refRate, fastRate / copyRate);
    }
    return 0;
}
