// Benchmark: statistics of a whole Q4_K (or --type) checkpoint against the dequantization alone.
//
// Writes, in a temporary folder, a GGUF laid out as a 7B llama in Q4_K (32 layers of
// attn_q/k/v/output 4096x4096 and ffn_gate/up 11008x4096, ffn_down 4096x11008, token_embd and
// output 32000x4096) as a sparse file: only the first --layers layers hold data (real blocks
// of the type, --type NAME: any GGUF type ggml's reference quantizer writes, F16 or Q8_0 say; ggml's reference
// quantizer on seeded normal weights, repeated), the rest are holes. Then, over those layers' weights, each timed as
// the median of --runs:
//   - dequant: every weight streamed through dequantizeRows in the same row chunks and
//     OpenMP team as the statistics use, nothing else done with the floats (the baseline);
//   - stats:   weightHistograms (one pass: min/max/mean/RMS, value histogram, block-scale
//              histogram), what `quantscope-cli stats PATH` computes without a reference;
//   - stats-approx: the same with StatsOptions::sampleEvery = kApproximateSampleEvery
//              (`stats PATH --approximate`: every figure but the count from a sample of rows);
//   - compare: compareWeight against a float reference (`stats PATH --ref REF`): error sums,
//              exact |error| percentiles, signed error histogram, per-group figures and the
//              output error y = W x on 16 tokens. The reference is a sparse F16 GGUF of the
//              same names whose data are holes (all zero), so the error is the weight itself;
//   - compare-range: the same with --range -1,1 (one pass: the caller's range bins every error
//              in it), against which compare's second pass over weights above 2^24 elements
//              (binning every error over [-max, max]) is measured;
//   - requantize, requantize-range: compareRequantized to the weights' own Q4_K (`stats PATH
//              --requantize q4_k`, the Error view's first sight of a quantized GGUF), without and
//              with --range -1,1: the default range's second pass requantizes a large weight again;
//   - diff:    diffWeights of every weight against itself (two dequantizations per element).
// --threads N caps every OpenMP level at N (omp_set_num_threads): with a team of 1 the
// kernels' own parallel loops would otherwise fork inside the "single-threaded" measurement.
// Prints weights/s and elements/s for each and the ratios to the dequant baseline; the aim
// is stats / dequant < 2, i.e. the statistics cost less than the dequantization itself.
//
// Usage: bench_stats [--layers N] [--runs N] [--threads N] [--type NAME] [--dir DIR] [--skip
// stats|compare|requantize|diff]...
#include "analysis/diff.h"
#include "formats/ggml/quantize_ggml.h"
#include "analysis/stats.h"
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "container/ggmltype.h"
#include "formats/dequant.h"
#include "formats/ggml/ggml.h"
#include "formats/opencheckpoint.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time of the whole process (every thread): on a loaded machine the wall clock also
// counts the time other processes held the cores.
double cpuSeconds()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

bool writeAt(int fd, const uint8_t* p, size_t n, uint64_t offset)
{
    while (n) {
        const ssize_t w = ::pwrite(fd, p, n, off_t(offset));
        if (w <= 0)
            return false;
        p += w;
        n -= size_t(w);
        offset += uint64_t(w);
    }
    return true;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    int layers = 2, runs = 3, threads = 0;
    std::string dirArg, typeName = "Q4_K";
    std::vector<std::string> skip;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--layers" && i + 1 < argc)
            layers = std::atoi(argv[++i]);
        else if (a == "--runs" && i + 1 < argc)
            runs = std::atoi(argv[++i]);
        else if (a == "--threads" && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if (a == "--type" && i + 1 < argc)
            typeName = argv[++i];
        else if (a == "--dir" && i + 1 < argc)
            dirArg = argv[++i];
        else if (a == "--skip" && i + 1 < argc)
            skip.push_back(argv[++i]);
        else {
            std::fprintf(stderr,
                         "usage: bench_stats [--layers N] [--runs N] [--threads N] [--type NAME] [--dir DIR] [--skip "
                         "stats|compare|requantize|diff]...\n");
            return 2;
        }
    }
    layers = std::clamp(layers, 1, 32);
    runs = std::max(runs, 1);
    const int team = threads > 0 ? threads : omp_get_max_threads();
    omp_set_num_threads(team);

    namespace fs = std::filesystem;
    const fs::path dir =
        dirArg.empty() ? fs::temp_directory_path() / ("bench_stats." + std::to_string(::getpid())) : fs::path(dirArg);
    fs::create_directories(dir);
    const qs::GgmlTypeInfo* typeInfo = qs::ggmlTypeByName(typeName);
    if (!typeInfo || !typeInfo->hasSize() || 4096 % typeInfo->blockWeights != 0) {
        std::fprintf(stderr, "bench_stats: unknown or unsupported GGUF type %s\n", typeName.c_str());
        return 2;
    }
    const int type = typeInfo->id;
    const std::string path = (dir / ("llama-7b-" + typeName + ".gguf")).string();

    // The 7B layout.
    constexpr uint64_t dim = 4096, ffn = 11008, vocab = 32000;
    struct Spec {
        std::string name;
        uint64_t ne0, ne1;
        int layer; // -1: global
    };
    std::vector<Spec> specs{{"token_embd.weight", dim, vocab, -1}};
    for (int l = 0; l < 32; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_output"})
            specs.push_back({b + n + ".weight", dim, dim, l});
        specs.push_back({b + "ffn_gate.weight", dim, ffn, l});
        specs.push_back({b + "ffn_up.weight", dim, ffn, l});
        specs.push_back({b + "ffn_down.weight", ffn, dim, l});
    }
    specs.push_back({"output.weight", dim, vocab, -1});
    std::vector<qs::GgufTensor> tensors;
    for (const Spec& s : specs)
        tensors.push_back({s.name, type, {s.ne0, s.ne1}, {}});
    qs::MetaValue arch;
    arch.value = std::string("llama");
    const qs::GgufMetadata meta{{"general.architecture", arch}};
    const qs::GgufLayout layout = qs::layoutGguf(path, meta, tensors);

    // Real blocks for the measured layers: 64 rows quantized once per row width, repeated.
    const double t0 = seconds();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::ftruncate(fd, off_t(layout.fileSize)) != 0
        || !writeAt(fd, layout.head.data(), layout.head.size(), 0)) {
        std::fprintf(stderr, "bench_stats: cannot write %s\n", path.c_str());
        return 1;
    }
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<std::vector<uint8_t>> rowBlocks;
    for (uint64_t width : {dim, ffn}) {
        std::vector<float> w(64 * width);
        for (float& x : w)
            x = normal(rng);
        rowBlocks.push_back(qs::quantizeGgml(type, w.data(), 64, width));
    }
    uint64_t measuredElements = 0;
    std::vector<std::string> measured;
    for (size_t i = 0; i < specs.size(); ++i) {
        if (specs[i].layer < 0 || specs[i].layer >= layers)
            continue;
        const std::vector<uint8_t>& blk = rowBlocks[specs[i].ne0 == dim ? 0 : 1];
        const uint64_t base = layout.head.size() + layout.offsets[i];
        for (uint64_t off = 0; off < layout.sizes[i]; off += blk.size())
            if (!writeAt(fd, blk.data(), size_t(std::min<uint64_t>(blk.size(), layout.sizes[i] - off)), base + off)) {
                std::fprintf(stderr, "bench_stats: cannot write %s\n", path.c_str());
                return 1;
            }
        measured.push_back(specs[i].name);
        measuredElements += specs[i].ne0 * specs[i].ne1;
    }
    ::close(fd);
    // The reference: the same names in F16, all holes.
    const std::string refPath = (dir / "llama-7b-f16-zero.gguf").string();
    std::vector<qs::GgufTensor> refTensors;
    for (const Spec& s : specs)
        refTensors.push_back({s.name, qs::GgmlF16, {s.ne0, s.ne1}, {}});
    const qs::GgufLayout refLayout = qs::layoutGguf(refPath, meta, refTensors);
    const int rfd = ::open(refPath.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (rfd < 0 || ::ftruncate(rfd, off_t(refLayout.fileSize)) != 0
        || !writeAt(rfd, refLayout.head.data(), refLayout.head.size(), 0)) {
        std::fprintf(stderr, "bench_stats: cannot write %s\n", refPath.c_str());
        return 1;
    }
    ::close(rfd);
    std::printf(
        "synthetic 7B %s checkpoint: %s, %.2f GiB (sparse), %zu tensors; %d layer(s) with data, written in %.1f s\n",
        typeName.c_str(), path.c_str(), double(layout.fileSize) / 1073741824.0, specs.size(), layers, seconds() - t0);

    const auto ckpt = qs::openCheckpoint(path);
    const auto ref = qs::openCheckpoint(refPath);
    std::vector<const qs::LogicalWeight*> ws;
    for (const std::string& n : measured)
        ws.push_back(ckpt->findWeight(n));
    const qs::SimdPath simd = qs::bestSimdPath();
    std::printf("measuring %zu weights, %.1f M elements, SIMD %s, %d threads, median of %d runs\n", ws.size(),
                double(measuredElements) / 1e6, std::string(qs::simdPathName(simd)).c_str(), team, runs);

    // Baseline: the same chunks and team as the statistics, dequantization only.
    qs::StatsOptions opt;
    opt.path = simd;
    opt.threads = team;
    volatile float sink = 0;
    std::vector<double> tDeq, tStats, tApprox, tCompare, tCompareRange, tRequant, tRequantRange, tDiff;
    std::vector<double> cDeq, cStats, cApprox, cCompare, cCompareRange, cRequant, cRequantRange, cDiff;
    const auto skipped = [&](const char* what) { return std::find(skip.begin(), skip.end(), what) != skip.end(); };
    for (int r = 0; r < runs; ++r) {
        double s = seconds(), c = cpuSeconds();
        for (const qs::LogicalWeight* w : ws) {
            const uint64_t N = w->outFeatures(), K = w->inFeatures();
            const uint64_t rows = std::max<uint64_t>(1, (uint64_t(1) << 18) / K);
            const uint64_t chunks = (N + rows - 1) / rows;
#pragma omp parallel num_threads(team)
            {
                std::vector<float> buf(size_t(rows * K));
                float acc = 0;
#pragma omp for schedule(dynamic)
                for (uint64_t c = 0; c < chunks; ++c) {
                    const uint64_t r0 = c * rows, r1 = std::min(N, r0 + rows);
                    qs::dequantizeRows(*ckpt, *w, r0, r1, buf.data(), simd);
                    acc += buf[0];
                }
#pragma omp critical
                sink = sink + acc;
            }
        }
        tDeq.push_back(seconds() - s);
        cDeq.push_back(cpuSeconds() - c);

        s = seconds();
        c = cpuSeconds();
        for (const qs::LogicalWeight* w : ws) {
            if (skipped("stats"))
                break;
            const qs::WeightHistograms h = qs::weightHistograms(*ckpt, *w, opt);
            sink = sink + float(h.rmsValue);
        }
        tStats.push_back(seconds() - s);
        cStats.push_back(cpuSeconds() - c);

        s = seconds();
        c = cpuSeconds();
        qs::StatsOptions approx = opt;
        approx.sampleEvery = qs::kApproximateSampleEvery;
        for (const qs::LogicalWeight* w : ws) {
            if (skipped("stats"))
                break;
            const qs::WeightHistograms h = qs::weightHistograms(*ckpt, *w, approx);
            sink = sink + float(h.rmsValue);
        }
        tApprox.push_back(seconds() - s);
        cApprox.push_back(cpuSeconds() - c);

        s = seconds();
        c = cpuSeconds();
        for (const qs::LogicalWeight* w : ws) {
            if (skipped("compare"))
                break;
            const qs::WeightComparison c = qs::compareWeight(*ckpt, *w, *ref, qs::findReference(*ckpt, *w, *ref), opt);
            sink = sink + float(c.error.p99);
        }
        tCompare.push_back(seconds() - s);
        cCompare.push_back(cpuSeconds() - c);

        // The same with a caller's range: one pass, every error binned in it. A weight above
        // kExactPercentileLimit elements (ffn, embeddings) takes a second pass by default to bin
        // every error over [-max, max]: compare / compare-range is that pass's cost.
        s = seconds();
        c = cpuSeconds();
        qs::StatsOptions ranged = opt;
        ranged.rangeLo = -1;
        ranged.rangeHi = 1;
        for (const qs::LogicalWeight* w : ws) {
            if (skipped("compare"))
                break;
            const qs::WeightComparison c =
                qs::compareWeight(*ckpt, *w, *ref, qs::findReference(*ckpt, *w, *ref), ranged);
            sink = sink + float(c.error.p99);
        }
        tCompareRange.push_back(seconds() - s);
        cCompareRange.push_back(cpuSeconds() - c);

        // The weights requantized to their own format, by default and with the caller's range.
        qs::RequantizeSpec own;
        own.format = ws.empty() ? std::string() : ws.front()->format;
        for (const qs::StatsOptions* o : {&opt, &ranged}) {
            s = seconds();
            c = cpuSeconds();
            for (const qs::LogicalWeight* w : ws) {
                if (skipped("requantize"))
                    break;
                const qs::WeightComparison q = qs::compareRequantized(*ckpt, *w, own, *o);
                sink = sink + float(q.error.p99);
            }
            (o == &opt ? tRequant : tRequantRange).push_back(seconds() - s);
            (o == &opt ? cRequant : cRequantRange).push_back(cpuSeconds() - c);
        }

        s = seconds();
        c = cpuSeconds();
        qs::DiffOptions dopt;
        dopt.path = simd;
        dopt.threads = team;
        for (const qs::LogicalWeight* w : ws) {
            if (skipped("diff"))
                break;
            const qs::WeightDiff d = qs::diffWeights(*ckpt, *ckpt, qs::WeightPair{w, w, {}, {}, {}}, dopt);
            sink = sink + float(d.maxAbs);
        }
        tDiff.push_back(seconds() - s);
        cDiff.push_back(cpuSeconds() - c);
    }
    const double deq = median(tDeq), cdeq = median(cDeq), st = median(tStats);
    const auto line = [&](const char* what, const std::vector<double>& wall, const std::vector<double>& cpu) {
        if (skipped(what))
            return;
        const double t = median(wall), ct = median(cpu);
        std::printf("  %-12s %7.3f s  %7.1f weights/s  %7.1f M elements/s  x%.2f of dequant   cpu %7.3f s  x%.2f\n",
                    what, t, double(ws.size()) / t, double(measuredElements) / t / 1e6, t / deq, ct, ct / cdeq);
    };
    line("dequant", tDeq, cDeq);
    line("stats", tStats, cStats);
    if (!skipped("stats"))
        line("stats-approx", tApprox, cApprox);
    line("compare", tCompare, cCompare);
    if (!skipped("compare")) {
        line("compare-range", tCompareRange, cCompareRange);
        std::printf("second pass of the signed-error histogram (weights above 2^24 elements): compare / compare-range "
                    "x%.2f wall, x%.2f cpu\n",
                    median(tCompare) / median(tCompareRange), median(cCompare) / median(cCompareRange));
    }
    line("requantize", tRequant, cRequant);
    if (!skipped("requantize")) {
        line("requantize-range", tRequantRange, cRequantRange);
        std::printf("second pass with --requantize (weights above 2^24 elements): requantize / requantize-range "
                    "x%.2f wall, x%.2f cpu\n",
                    median(tRequant) / median(tRequantRange), median(cRequant) / median(cRequantRange));
    }
    line("diff", tDiff, cDiff);
    if (!skipped("stats"))
        std::printf("stats overhead over the dequantization: %.0f%% exact, %.0f%% approximate (aim: < 100%%)\n",
                    (st / deq - 1.0) * 100.0, (median(tApprox) / deq - 1.0) * 100.0);
    if (dirArg.empty())
        fs::remove_all(dir);
    return 0;
}
