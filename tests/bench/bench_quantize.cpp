// Single-thread throughput of the ggml reference quantizers (quantize's GGUF targets) on 64K
// seeded normal weights per call: every SIMD path this CPU has against the scalar loops, and
// against the dequantization of the same bytes, all measured in this process. The cases are
// interleaved in rounds and the best round of each is kept, and time is this thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), so load from other processes mostly drops out. The last column compares with
// llama-quantize's figure from issue 19 (110M weights of a Q4_K_M mix in 3.9 s on this machine kind's 2 threads: 14.1M
// weights/s per thread), which cannot be measured here (no llama.cpp build). The avx512 column runs the AVX2 searches
// (no AVX-512 code here: Zen 4 splits 512-bit operations). Usage: bench_quantize [milliseconds per measurement, default
// 60] [rounds, default 5]
#include "container/ggmltype.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/quantize_ggml.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

using namespace qs;

namespace {

constexpr double kLlamaQuantizePerThread = 110e6 / 3.9 / 2;

double threadSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Calls fn repeatedly for about `ms` milliseconds of CPU time; returns calls per CPU second.
template <typename F>
double callsPerSecond(F&& fn, int ms)
{
    fn(); // warm caches
    uint64_t calls = 0;
    const double t0 = threadSeconds();
    double elapsed = 0;
    do {
        fn();
        ++calls;
        elapsed = threadSeconds() - t0;
    } while (elapsed * 1000 < ms);
    return double(calls) / elapsed;
}

} // namespace

int main(int argc, char** argv)
{
    const int ms = argc > 1 ? std::atoi(argv[1]) : 60;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    omp_set_num_threads(1);
    constexpr uint64_t kRows = 16, kCols = 4096, kWeights = kRows * kCols;
    std::vector<float> src(kWeights), back(kWeights);
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.f, 0.02f);
    for (float& f : src)
        f = normal(rng);
    const std::vector<SimdPath> paths = cpuSimdPaths();

    std::printf("single thread, %llu weights per call, best of %d rounds; M weights per CPU second, ratios in the "
                "same process\n",
                static_cast<unsigned long long>(kWeights), rounds);
    std::printf("%-6s", "type");
    for (const SimdPath p : paths)
        std::printf(" %10s", std::string(simdPathName(p)).c_str());
    std::printf(" %12s %14s %14s\n", "best/scalar", "best/dequant", "best/llama-q");
    for (const int type : ggmlQuantizableTypes()) {
        std::vector<uint8_t> bytes(ggmlQuantizedBytes(type, kRows, kCols));
        std::vector<double> best(paths.size(), 0);
        double dequantBest = 0;
        for (int r = 0; r < rounds; ++r) {
            for (size_t k = 0; k < paths.size(); ++k)
                best[k] = std::max(
                    best[k],
                    callsPerSecond(
                        [&] { quantizeGgmlInto(type, src.data(), kRows, kCols, bytes.data(), false, paths[k]); }, ms));
            dequantBest = std::max(
                dequantBest,
                callsPerSecond([&] { dequantizeGgmlRows(type, bytes.data(), kRows, kCols, back.data(), paths.back()); },
                               ms));
        }
        const double top = best.back() * double(kWeights);
        std::printf("%-6s", ggmlTypeName(type).c_str());
        for (const double b : best)
            std::printf(" %10.1f", b * double(kWeights) / 1e6);
        std::printf(" %11.2fx %13.3fx %13.2fx\n", best.back() / best.front(), best.back() / dequantBest,
                    top / kLlamaQuantizePerThread);
    }
    return 0;
}
