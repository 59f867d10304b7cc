// quantscope-bench: dequantization throughput per format through the dispatcher, on a
// synthetic checkpoint written to a temporary folder, for every format with a dequantizer. For each
// format: the single-thread weights/s of the scalar path and the ratio to memcpy of every SIMD path
// the CPU has, side by side (memcpy copies the same number of output bytes, measured in the same
// run), the best path's all-thread weights/s and its all-thread/one-thread ratio; at the end the
// geometric mean of each path's ratios. Work goes in L2-sized chunks (about 256 KiB of float32
// output) that are rewritten in place. QUANTSCOPE_SIMD lowers the best path.
//
// Like with like: memcpy copies a 256 KiB source that stays in L2 into the chunk's output, a
// working set of 512 KiB (half of this machine's L2, read from sysconf or sysfs). The single-thread
// kernels cycle over as many consecutive chunks of the weight as keep their input (the bytes a
// chunk reads, for most layouts the weight's bytes over its chunks) and the output within that same
// budget, at least one, so their input sits in L2 as memcpy's source does; each line says that
// working set. --stream cycles over every chunk instead (the input streams from L3 or memory) and
// memcpy then copies, piece by piece, from a source as large as the weight's whole input. The
// all-thread figure always covers every chunk.
//
// Each SIMD path's ratio is followed by whether it meets the format's aim (issue 34: .8 of memcpy
// for 4- and 8-bit codes and wider types, .6 for the other widths, .4 for the IQ grids). The
// all-thread figure runs the chunks through runChunks (base/parallel.h) with its default team, as
// the program does; nT/1T compares it with the L2-resident one-thread rate, nT/1Tw with one thread
// over the same chunks (the same working set: whether the team ever costs); the load the run met
// (/proc/loadavg) is printed at its start and its end, the medians and minima of both ratios at
// the end.
//
// Usage: quantscope-bench [--quick] [--stream] [--profile] [FORMAT-ID ...]
// --profile runs only the single-thread fast path of each chosen format for a few seconds and
// prints nothing else, so a sampling profiler sees the kernel and not the setup.
#include "container/checkpoint.h"
#include "base/error.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "formats/dequant.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <random>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

using namespace qs;

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kChunkBytes = 256 * 1024;

struct Case {
    std::string label;
    std::shared_ptr<const Checkpoint> ckpt;
    LogicalWeight weight;
    // The bytes one output row's dequantization reads, when they are not the weight's bytes over
    // its rows (0): HQQ splits the rows of its view into parts sharing bytes or words.
    uint64_t rowInputBytes = 0;
};

// Output buffers start on a cache line, as memcpy aligns its own stores: a buffer at malloc's
// 16-byte offset would split every other 32-byte store of the kernels across two lines and
// measure that instead of the kernel.
class AlignedFloats {
public:
    explicit AlignedFloats(size_t n)
        : m_p(static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64)))
    {
    }
    AlignedFloats(AlignedFloats&& o) noexcept
        : m_p(std::exchange(o.m_p, nullptr))
    {
    }
    AlignedFloats(const AlignedFloats&) = delete;
    AlignedFloats& operator=(const AlignedFloats&) = delete;
    ~AlignedFloats() { std::free(m_p); }
    float* data() const { return m_p; }

private:
    float* m_p;
};

// Seconds per call of each contender: the best of many short bursts, interleaved, so that
// load from other processes on the machine hits every contender alike and mostly drops out.
struct Contender {
    std::function<void()> body;
    uint64_t calls = 1;
    double best = 1e30;
};

void race(std::vector<Contender*> cs, double seconds)
{
    for (Contender* c : cs) {
        c->body(); // warm up caches and page in the mapping
        const auto t0 = Clock::now();
        c->body();
        const double once = std::max(1e-7, std::chrono::duration<double>(Clock::now() - t0).count());
        // Bursts of about 1 ms: short enough that on a loaded machine many fit inside one
        // scheduler time slice, so the best burst is the undisturbed rate.
        c->calls = std::max<uint64_t>(1, uint64_t(0.001 / once));
    }
    const auto start = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - start).count() < seconds)
        for (Contender* c : cs) {
            const auto t0 = Clock::now();
            for (uint64_t i = 0; i < c->calls; ++i)
                c->body();
            c->best = std::min(c->best, std::chrono::duration<double>(Clock::now() - t0).count() / double(c->calls));
        }
}

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed)
{
    std::vector<uint8_t> v(n);
    std::mt19937 rng(seed);
    for (size_t i = 0; i + 4 <= n; i += 4) {
        const uint32_t r = rng();
        std::memcpy(v.data() + i, &r, 4);
    }
    return v;
}

SafetensorsTensor st(const std::string& name, DType dt, std::vector<uint64_t> shape, const std::vector<uint8_t>& b)
{
    return {name, dt, std::move(shape), std::span<const uint8_t>(b)};
}

LogicalWeight logical(const Checkpoint& c, const std::string& name, const std::string& format, int bits, int64_t g,
                      uint64_t N, uint64_t K, std::initializer_list<std::pair<const char*, const char*>> roles)
{
    LogicalWeight w;
    w.name = name;
    w.format = format;
    w.bits = bits;
    w.groupSize = g;
    w.shape = {N, K};
    for (const auto& [role, tensor] : roles) {
        const int i = c.indexOf(name + "." + tensor);
        if (i < 0)
            throw Error("bench: missing tensor " + name + "." + tensor);
        w.members.emplace_back(role, size_t(i));
    }
    return w;
}

// GPTQ / AWQ / Marlin weights packed by our packers from random codes.
std::vector<Case> packedCases(const std::string& dir, uint64_t K, uint64_t N)
{
    std::mt19937 rng(1);
    const uint64_t g = 128, G = K / g;
    std::vector<uint16_t> scales(G * N);
    for (auto& s : scales)
        s = floatToHalf(float(rng() % 1000 + 1) * 1e-5f);
    std::vector<int32_t> gidx(K);
    for (uint64_t k = 0; k < K; ++k)
        gidx[k] = int32_t(k / g);
    const std::vector<uint8_t> gidxBytes(reinterpret_cast<const uint8_t*>(gidx.data()),
                                         reinterpret_cast<const uint8_t*>(gidx.data()) + K * 4);
    // Act-order g_idx: monotonic with uneven runs (g +- 5, boundaries inside vectors), and the
    // permuted one desc_act writes.
    std::vector<int32_t> mono(K), perm(K);
    for (uint64_t k = 0, grp = 0, end = g - 5; k < K; ++k) {
        if (k == end && grp + 1 < G)
            end += (++grp % 2) ? g + 10 : g - 10;
        mono[k] = int32_t(grp);
    }
    std::vector<uint64_t> order(K);
    for (uint64_t k = 0; k < K; ++k)
        order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    for (uint64_t i = 0; i < K; ++i)
        perm[order[i]] = int32_t(i / g);
    const auto i32Bytes = [](const std::vector<int32_t>& v) {
        return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                    reinterpret_cast<const uint8_t*>(v.data()) + v.size() * 4);
    };
    std::vector<std::vector<uint8_t>> keep; // tensor bytes must outlive writeSafetensors
    std::vector<SafetensorsTensor> tensors;
    auto hold = [&](std::vector<uint8_t> b) -> const std::vector<uint8_t>& {
        keep.push_back(std::move(b));
        return keep.back();
    };
    keep.reserve(64);
    for (int bits : {2, 3, 4, 5, 8}) {
        std::vector<uint8_t> codes(N * K);
        for (auto& c : codes)
            c = uint8_t(rng() & ((1u << bits) - 1));
        std::vector<int32_t> zeros(G * N);
        for (auto& z : zeros)
            z = int32_t(1 + rng() % ((1u << bits) - 1));
        const PackedOutput po = packGptq(codes, zeros, scales, bits, K, N, G, bits != 5, bits == 5);
        const std::string name = "gptq" + std::to_string(bits);
        tensors.push_back(st(name + ".qweight", DType::I32, po.qweight.shape, hold(po.qweight.bytes)));
        tensors.push_back(st(name + ".qzeros", DType::I32, po.qzeros.shape, hold(po.qzeros.bytes)));
        tensors.push_back(st(name + ".scales", DType::F16, po.scales.shape, hold(po.scales.bytes)));
        tensors.push_back(st(name + ".g_idx", DType::I32, {K}, gidxBytes));
        if (bits == 4) {
            tensors.push_back(st(name + ".g_idx_mono", DType::I32, {K}, hold(i32Bytes(mono))));
            tensors.push_back(st(name + ".g_idx_perm", DType::I32, {K}, hold(i32Bytes(perm))));
            const PackedOutput awq = packAwqGemm(codes, zeros, scales, K, N, g);
            tensors.push_back(st("awq.qweight", DType::I32, awq.qweight.shape, hold(awq.qweight.bytes)));
            tensors.push_back(st("awq.qzeros", DType::I32, awq.qzeros.shape, hold(awq.qzeros.bytes)));
            tensors.push_back(st("awq.scales", DType::F16, awq.scales.shape, hold(awq.scales.bytes)));
            const PackedOutput gemv = packAwqGemv(codes, zeros, scales, K, N, g);
            tensors.push_back(st("gemv.qweight", DType::I32, gemv.qweight.shape, hold(gemv.qweight.bytes)));
            tensors.push_back(st("gemv.qzeros", DType::I32, gemv.qzeros.shape, hold(gemv.qzeros.bytes)));
            tensors.push_back(st("gemv.scales", DType::F16, gemv.scales.shape, hold(gemv.scales.bytes)));
            const PackedOutput marlin = packMarlin(codes, scales, 4, K, N, G);
            tensors.push_back(st("marlin.B", DType::I32, marlin.qweight.shape, hold(marlin.qweight.bytes)));
            tensors.push_back(st("marlin.s", DType::F16, marlin.scales.shape, hold(marlin.scales.bytes)));
            std::vector<uint16_t> biases(G * N);
            for (auto& b : biases)
                b = floatToHalf(-float(rng() % 1000 + 1) * 1e-4f);
            const PackedOutput fast = packAwqGemvFast(codes, biases, scales, K, N, g);
            tensors.push_back(st("gemvfast.qweight", DType::I16, fast.qweight.shape, hold(fast.qweight.bytes)));
            tensors.push_back(st("gemvfast.qzeros", DType::F16, fast.qzeros.shape, hold(fast.qzeros.bytes)));
            tensors.push_back(st("gemvfast.scales", DType::F16, fast.scales.shape, hold(fast.scales.bytes)));
        }
        if (bits == 8) {
            const PackedOutput marlin = packMarlin(codes, scales, 8, K, N, G);
            tensors.push_back(st("marlin8.B", DType::I32, marlin.qweight.shape, hold(marlin.qweight.bytes)));
            tensors.push_back(st("marlin8.s", DType::F16, marlin.scales.shape, hold(marlin.scales.bytes)));
        }
    }
    const std::string path = dir + "/packed.safetensors";
    writeSafetensors(path, tensors);
    const auto ckpt = openCheckpoint(path);
    std::vector<Case> cases;
    for (int bits : {4, 3, 8, 2, 5}) {
        const std::string name = "gptq" + std::to_string(bits);
        cases.push_back(
            {bits == 5 ? "GPTQ-planar5" : "GPTQ-" + std::to_string(bits), ckpt,
             logical(*ckpt, name, bits == 5 ? "gptq-planar" : "gptq-v1", bits, int64_t(g), N, K,
                     {{"qweight", "qweight"}, {"qzeros", "qzeros"}, {"scales", "scales"}, {"g_idx", "g_idx"}})});
    }
    for (const char* gi : {"g_idx_mono", "g_idx_perm"})
        cases.push_back({gi == std::string("g_idx_mono") ? "GPTQ-4-gmono" : "GPTQ-4-gperm", ckpt,
                         logical(*ckpt, "gptq4", "gptq-v1", 4, int64_t(g), N, K,
                                 {{"qweight", "qweight"}, {"qzeros", "qzeros"}, {"scales", "scales"}, {"g_idx", gi}})});
    cases.push_back({"AWQ-GEMM", ckpt,
                     logical(*ckpt, "awq", "awq-gemm", 4, int64_t(g), N, K,
                             {{"qweight", "qweight"}, {"qzeros", "qzeros"}, {"scales", "scales"}})});
    cases.push_back({"AWQ-GEMV", ckpt,
                     logical(*ckpt, "gemv", "awq-gemv", 4, int64_t(g), N, K,
                             {{"qweight", "qweight"}, {"qzeros", "qzeros"}, {"scales", "scales"}})});
    cases.push_back({"AWQ-GEMVFAST", ckpt,
                     logical(*ckpt, "gemvfast", "awq-gemv-fast", 4, int64_t(g), N, K,
                             {{"qweight", "qweight"}, {"qzeros", "qzeros"}, {"scales", "scales"}})});
    cases.push_back(
        {"GPTQ-Marlin", ckpt, logical(*ckpt, "marlin", "gptq-marlin", 4, int64_t(g), N, K, {{"B", "B"}, {"s", "s"}})});
    cases.push_back(
        {"Marlin-8", ckpt, logical(*ckpt, "marlin8", "gptq-marlin", 8, int64_t(g), N, K, {{"B", "B"}, {"s", "s"}})});
    return cases;
}

std::vector<uint8_t> halfs(size_t n, float base, bool bf16 = false)
{
    std::vector<uint8_t> b(2 * n);
    for (size_t i = 0; i < n; ++i) {
        const float f = base * float(i % 13 + 1);
        const uint16_t h = bf16 ? floatToBf16(f) : floatToHalf(f);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return b;
}

template <typename V>
std::vector<uint8_t> bytesOf(const std::vector<V>& v)
{
    std::vector<uint8_t> b(v.size() * sizeof(V));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

// bitsandbytes, compressed-tensors, MXFP4 / ModelOpt, MLX, HQQ, GEMV_FAST and the plain float
// dtypes: random codes, plausible scales.
std::vector<Case> otherCases(const std::string& dir, uint64_t K, uint64_t N)
{
    struct Spec {
        std::string label, format;
        int bits;
        int64_t group;
        std::vector<std::tuple<std::string, DType, std::vector<uint64_t>, std::vector<uint8_t>>> tensors; // role ...
        uint64_t rowInputBytes = 0; // Case::rowInputBytes
    };
    std::vector<Spec> specs;
    for (const bool fp4 : {false, true}) {
        const std::string js = std::string("{\"quant_type\": \"") + (fp4 ? "fp4" : "nf4")
            + "\", \"blocksize\": 64, "
              "\"dtype\": \"float16\", \"shape\": ["
            + std::to_string(N) + ", " + std::to_string(K) + "]}";
        std::vector<float> absmax(N * K / 64);
        for (size_t i = 0; i < absmax.size(); ++i)
            absmax[i] = 0.01f * float(i % 17 + 1);
        specs.push_back({fp4 ? "FP4" : "NF4",
                         fp4 ? "bnb-fp4" : "bnb-nf4",
                         4,
                         64,
                         {{"weight", DType::U8, {N * K / 2, 1}, randomBytes(N * K / 2, 21)},
                          {"absmax", DType::F32, {absmax.size()}, bytesOf(absmax)},
                          {"quant_state", DType::U8, {js.size()}, std::vector<uint8_t>(js.begin(), js.end())}}});
    }
    {
        const uint64_t blocks = N * K / 64;
        const std::string js = "{\"quant_type\": \"nf4\", \"blocksize\": 64, \"dtype\": \"bfloat16\", \"shape\": ["
            + std::to_string(N) + ", " + std::to_string(K) + "], \"nested_blocksize\": 256, \"nested_offset\": 0.03}";
        std::vector<float> map(256);
        for (size_t i = 0; i < 256; ++i)
            map[i] = float(int(i) - 128) / 128.0f;
        specs.push_back({"NF4-nested",
                         "bnb-nf4",
                         4,
                         64,
                         {{"weight", DType::U8, {N * K / 2, 1}, randomBytes(N * K / 2, 22)},
                          {"absmax", DType::U8, {blocks}, randomBytes(blocks, 23)},
                          {"nested_absmax",
                           DType::F32,
                           {(blocks + 255) / 256},
                           bytesOf(std::vector<float>((blocks + 255) / 256, 0.02f))},
                          {"nested_quant_map", DType::F32, {256}, bytesOf(map)},
                          {"quant_state", DType::U8, {js.size()}, std::vector<uint8_t>(js.begin(), js.end())}}});
    }
    specs.push_back({"int8",
                     "bnb-int8",
                     8,
                     0,
                     {{"weight", DType::I8, {N, K}, randomBytes(N * K, 24)},
                      {"SCB", DType::F32, {N}, bytesOf(std::vector<float>(N, 0.5f))}}});
    const std::vector<int64_t> shape{int64_t(N), int64_t(K)};
    specs.push_back({"CT-4",
                     "compressed-tensors",
                     4,
                     128,
                     {{"weight_packed", DType::I32, {N, K / 8}, randomBytes(N * K / 2, 25)},
                      {"weight_scale", DType::BF16, {N, K / 128}, halfs(N * K / 128, 0.01f, true)},
                      {"weight_shape", DType::I64, {2}, bytesOf(shape)},
                      {"weight_zero_point", DType::I32, {N / 8, K / 128}, randomBytes(N / 8 * K / 128 * 4, 26)}}});
    specs.push_back({"CT-8",
                     "compressed-tensors",
                     8,
                     0,
                     {{"weight_packed", DType::I32, {N, K / 4}, randomBytes(N * K, 27)},
                      {"weight_scale", DType::BF16, {N, 1}, halfs(N, 0.01f, true)},
                      {"weight_shape", DType::I64, {2}, bytesOf(shape)}}});
    specs.push_back({"CT-FP8",
                     "compressed-tensors-fp8",
                     8,
                     0,
                     {{"weight", DType::F8_E4M3, {N, K}, randomBytes(N * K, 52)},
                      {"weight_scale", DType::BF16, {N, 1}, halfs(N, 0.01f, true)}}});
    {
        // Block-scaled floats: exponents around 2^-7, FP8 block scales as random bytes.
        std::vector<uint8_t> exps(N * K / 32);
        for (size_t i = 0; i < exps.size(); ++i)
            exps[i] = uint8_t(114 + i % 13);
        specs.push_back({"HF-MXFP4",
                         "hf-mxfp4",
                         4,
                         32,
                         {{"blocks", DType::U8, {N, K / 32, 16}, randomBytes(N * K / 2, 53)},
                          {"scales", DType::U8, {N, K / 32}, exps}}});
        specs.push_back({"MO-NVFP4",
                         "modelopt-nvfp4",
                         4,
                         16,
                         {{"weight", DType::U8, {N, K / 2}, randomBytes(N * K / 2, 54)},
                          {"weight_scale", DType::F8_E4M3, {N, K / 16}, randomBytes(N * K / 16, 55)},
                          {"weight_scale_2", DType::F32, {}, bytesOf(std::vector<float>{0.0005f})}}});
        specs.push_back({"MO-FP8",
                         "modelopt-fp8",
                         8,
                         0,
                         {{"weight", DType::F8_E4M3, {N, K}, randomBytes(N * K, 56)},
                          {"weight_scale", DType::F32, {}, bytesOf(std::vector<float>{0.003f})}}});
    }
    for (int b : {2, 3, 4, 8}) {
        const uint64_t words = K * uint64_t(b) / 32;
        specs.push_back({"MLX-" + std::to_string(b),
                         "mlx-affine",
                         b,
                         64,
                         {{"weight", DType::U32, {N, words}, randomBytes(N * words * 4, 28 + uint32_t(b))},
                          {"scales", DType::F16, {N, K / 64}, halfs(N * K / 64, 0.01f)},
                          {"biases", DType::F16, {N, K / 64}, halfs(N * K / 64, -0.02f)}}});
    }
    for (int b : {4, 3}) {
        const uint64_t R = N * K / 64, parts = b == 4 ? 2 : 10, step = (R + parts - 1) / parts;
        const std::string cd = "torch.float16";
        specs.push_back({"HQQ-" + std::to_string(b),
                         "hqq",
                         b,
                         64,
                         {{"W_q",
                           b == 3 ? DType::I32 : DType::U8,
                           {step, 64},
                           randomBytes(step * 64 * (b == 3 ? 4 : 1), 40 + uint32_t(b))},
                          {"scale", DType::F16, {R, 1}, halfs(R, 0.01f)},
                          {"zero", DType::F16, {R, 1}, halfs(R, 0.5f)},
                          {"compute_dtype", DType::U8, {cd.size()}, std::vector<uint8_t>(cd.begin(), cd.end())}},
                         // A row's codes fill whole bytes (4-bit) or words (3-bit) shared with the
                         // other parts; its scale and zero are two halfs per 64 weights.
                         (b == 4 ? K : 4 * K) + K / 16});
    }
    {
        // EXL2 as its converter mixes widths: the first quarter of the stored rows at 5 bits (codes
        // crossing words), the rest at 4, groups of 32 rows, the rows act-order permuted.
        std::vector<int16_t> groups;
        uint64_t packed = 0;
        for (uint64_t row = 0; row < K; row += 32) {
            const int b = row < K / 4 ? 5 : 4;
            groups.push_back(int16_t(b));
            groups.push_back(int16_t(packed));
            packed += uint64_t(b);
        }
        const uint64_t G = K / 32;
        std::vector<int32_t> invperm(K);
        std::iota(invperm.begin(), invperm.end(), 0);
        std::shuffle(invperm.begin(), invperm.end(), std::mt19937(60));
        specs.push_back({"EXL2-4.25",
                         "exl2",
                         5,
                         32,
                         {{"q_weight", DType::I32, {packed, N}, randomBytes(packed * N * 4, 61)},
                          {"q_scale", DType::I32, {G, N / 8}, randomBytes(G * N / 2, 62)},
                          {"q_scale_max", DType::F16, {G}, halfs(G, 0.5f)},
                          {"q_groups", DType::I16, {2 * G}, bytesOf(groups)},
                          {"q_invperm", DType::I32, {K}, bytesOf(invperm)}}});
    }
    // optimum-quanto: qint4/qint2 grouped by 128 (the [N*K/128, 128] view packed along its rows),
    // qint8 and qfloat8 with a scale per row; bf16, the dtype diffusion pipelines quantize.
    for (int b : {4, 2}) {
        const uint64_t R = N * K / 128, packed = R / uint64_t(8 / b);
        specs.push_back({"Quanto-" + std::to_string(b),
                         "quanto-qint" + std::to_string(b),
                         b,
                         128,
                         {{"weight._data._data", DType::U8, {packed, 128}, randomBytes(packed * 128, 60 + uint32_t(b))},
                          {"weight._scale", DType::BF16, {R, 1}, halfs(R, 0.01f, true)},
                          {"weight._shift", DType::BF16, {R, 1}, halfs(R, 0.05f, true)}},
                         // A row's codes share bytes with the rows of the other parts; its scale and
                         // shift are two bf16 per 128 weights.
                         K + K / 32});
    }
    specs.push_back({"Quanto-8",
                     "quanto-qint8",
                     8,
                     0,
                     {{"weight._data", DType::I8, {N, K}, randomBytes(N * K, 64)},
                      {"weight._scale", DType::BF16, {N, 1}, halfs(N, 0.01f, true)}}});
    specs.push_back({"Quanto-FP8",
                     "quanto-qfloat8",
                     8,
                     0,
                     {{"weight._data", DType::F8_E4M3, {N, K}, randomBytes(N * K, 65)},
                      {"weight._scale", DType::BF16, {N, 1}, halfs(N, 0.01f, true)}}});
    // AQLM's two published schemes over groups of 8 columns: a row reads its K / 8 code words per
    // codebook and its scale; the codebooks (1 MiB for 1x16) are a table its lookups read.
    for (const auto& [codebooks, bits] : {std::pair{uint64_t(1), 16}, std::pair{uint64_t(2), 8}}) {
        const uint64_t entries = uint64_t(1) << bits, codeBytes = bits / 8;
        specs.push_back({"AQLM-" + std::to_string(codebooks) + "x" + std::to_string(bits),
                         "aqlm",
                         bits,
                         8,
                         {{"codes",
                           bits > 8 ? DType::I16 : DType::I8,
                           {N, K / 8, codebooks},
                           randomBytes(N * K / 8 * codebooks * codeBytes, 60 + uint32_t(bits))},
                          {"codebooks", DType::F16, {codebooks, entries, 1, 8}, halfs(codebooks * entries * 8, 0.01f)},
                          {"scales", DType::F16, {N, 1, 1, 1}, halfs(N, 0.01f)}},
                         K / 8 * codebooks * codeBytes + 2});
    }
    specs.push_back({"F16", "f16", 16, 0, {{"weight", DType::F16, {N, K}, halfs(N * K, 0.001f)}}});
    specs.push_back({"BF16", "bf16", 16, 0, {{"weight", DType::BF16, {N, K}, randomBytes(N * K * 2, 50)}}});
    specs.push_back({"F8_E4M3", "f8_e4m3", 8, 0, {{"weight", DType::F8_E4M3, {N, K}, randomBytes(N * K, 51)}}});

    std::vector<SafetensorsTensor> tensors;
    for (const Spec& s : specs)
        for (const auto& [role, dt, shp, bytes] : s.tensors)
            tensors.push_back(st(s.label + "." + role, dt, shp, bytes));
    const std::string path = dir + "/other.safetensors";
    writeSafetensors(path, tensors);
    const auto ckpt = openCheckpoint(path);
    std::vector<Case> cases;
    for (const Spec& s : specs) {
        LogicalWeight w;
        w.name = s.label;
        w.format = s.format;
        w.bits = s.bits;
        w.groupSize = s.group;
        w.shape = {N, K};
        for (const auto& t : s.tensors)
            w.members.emplace_back(std::get<0>(t), size_t(ckpt->indexOf(s.label + "." + std::get<0>(t))));
        cases.push_back({s.label, ckpt, std::move(w), s.rowInputBytes});
    }
    return cases;
}

// Every storable ggml type the dispatcher handles, random block bytes.
std::vector<Case> ggufCases(const std::string& dir, uint64_t K, uint64_t N)
{
    std::vector<std::vector<uint8_t>> keep;
    keep.reserve(kGgmlTypeCount);
    std::vector<GgufTensor> tensors;
    std::vector<std::pair<std::string, std::string>> ids;
    for (const GgmlTypeInfo& t : ggmlTypes()) {
        if (!t.hasSize() || t.removed || !t.storage || K % t.blockWeights)
            continue;
        std::string id = "gguf-" + std::string(t.name);
        std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (!canDequantize(id) || t.name == "F32")
            continue;
        keep.push_back(randomBytes(t.rowBytes(K) * N, uint32_t(t.id)));
        tensors.push_back({std::string(t.name), t.id, {K, N}, keep.back()});
        ids.emplace_back(std::string(t.name), id);
    }
    if (tensors.empty())
        return {};
    const std::string path = dir + "/types.gguf";
    writeGguf(path, {}, tensors);
    const auto ckpt = openCheckpoint(path);
    std::vector<Case> cases;
    for (const auto& [name, id] : ids) {
        LogicalWeight w;
        w.name = name;
        w.format = id;
        w.shape = {N, K};
        w.members.emplace_back("weight", size_t(ckpt->indexOf(name)));
        cases.push_back({name, ckpt, std::move(w)});
    }
    return cases;
}

// The per-core L2 size in bytes (sysconf, else sysfs), 0 when neither says.
uint64_t l2Bytes()
{
    const long n = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (n > 0)
        return uint64_t(n);
    for (int i = 0; i < 8; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        std::ifstream level(dir + "level"), size(dir + "size");
        int l = 0;
        uint64_t kib = 0;
        if (level >> l && l == 2 && size >> kib)
            return kib * 1024; // "1024K"
    }
    return 0;
}

// The bytes dequantizing rows [0, rows) reads: the case's own figure, else the weight's members'
// bytes over its rows.
uint64_t inputBytes(const Case& c, uint64_t rows)
{
    if (c.rowInputBytes)
        return c.rowInputBytes * rows;
    uint64_t total = 0;
    for (const auto& member : c.weight.members)
        total += c.ckpt->tensors[member.second].nbytes;
    return total / c.weight.shape[0] * rows;
}

// The aim of a format's SIMD paths as a fraction of memcpy (issue 34).
double aimFor(const Case& c)
{
    const std::string& l = c.label;
    if (l.rfind("IQ", 0) == 0 && l.rfind("IQ4", 0) != 0)
        return 0.4; // the IQ grids
    int bits = c.weight.bits;
    if (bits == 0) // GGUF: Q4_K -> 4, TQ1_0 and TQ2_0 -> 2, MXFP4 / NVFP4 -> 4, else a float or integer type
        bits = l[0] == 'Q' && l.size() > 1       ? l[1] - '0'
            : l.rfind("TQ", 0) == 0              ? 2
            : l.find("FP4") != std::string::npos ? 4
                                                 : 16;
    return bits == 4 || bits >= 8 ? 0.8 : 0.6;
}

std::string loadAverage()
{
    std::ifstream f("/proc/loadavg");
    std::string line;
    std::getline(f, line);
    return line.empty() ? "unknown" : line;
}

} // namespace

int main(int argc, char** argv)
{
    bool quick = false, profile = false, stream = false;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (std::strcmp(argv[i], "--profile") == 0)
            profile = true;
        else if (std::strcmp(argv[i], "--stream") == 0)
            stream = true;
        else
            only.emplace_back(argv[i]);
    }
    const double seconds = quick ? 0.3 : 1.5;
    const uint64_t K = 4096, N = quick ? 256 : 1024;
    QTemporaryDir tmp;
    if (!tmp.isValid()) {
        std::fprintf(stderr, "quantscope-bench: cannot create a temporary folder\n");
        return 2;
    }
    const std::string dir = tmp.path().toStdString();
    std::vector<Case> cases;
    try {
        cases = packedCases(dir, K, N);
        for (Case& c : otherCases(dir, K, N))
            cases.push_back(std::move(c));
        for (Case& c : ggufCases(dir, K, N))
            cases.push_back(std::move(c));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "quantscope-bench: %s\n", e.what());
        return 2;
    }
    // The checkpoints just written are still dirty in the page cache: left to the kernel, their
    // writeback ran beside the first format's race (GPTQ-4 .36 of memcpy first in a full run,
    // .52 alone).
    ::sync();
    const SimdPath fast = bestSimdPath();
    std::vector<SimdPath> paths; // the SIMD paths raced, up to the best
    for (SimdPath p : cpuSimdPaths())
        if (p != SimdPath::Scalar && p <= fast)
            paths.push_back(p);
    const int threads = omp_get_max_threads();
    const uint64_t l2 = l2Bytes();
    // memcpy's working set, source and destination: the budget of the kernels' input and output.
    const uint64_t budget = std::max<uint64_t>(2 * kChunkBytes, l2 / 2);
    std::printf("quantscope-bench: K=%llu N=%llu, chunks of %llu KiB output, best path %s, %d threads\n",
                (unsigned long long)K, (unsigned long long)N, (unsigned long long)(kChunkBytes / 1024),
                std::string(simdPathName(fast)).c_str(), threads);
    std::printf("load at start (/proc/loadavg): %s\n", loadAverage().c_str());
    if (stream)
        std::printf("streaming: one thread cycles over every chunk; memcpy copies from a source as large as the "
                    "weight's input; set = that input + the output\n");
    else
        std::printf("in L2 (%llu KiB%s): memcpy copies %llu KiB to %llu KiB; one thread cycles over the chunks whose "
                    "input + output fit in %llu KiB; set = that input + the output\n",
                    (unsigned long long)(l2 / 1024), l2 ? "" : ", unknown", (unsigned long long)(kChunkBytes / 1024),
                    (unsigned long long)(kChunkBytes / 1024), (unsigned long long)(budget / 1024));
    std::printf("%-12s %12s %9s %5s", "format", "scalar Mw/s", "scal/mcpy", "aim");
    for (SimdPath p : paths)
        std::printf(" %14s", (std::string(simdPathName(p)) + "/mcpy met").c_str());
    std::printf(" %8s %12s %12s %9s %9s\n", "set KiB", "best 1T Mw/s", "best nT Mw/s", "nT/1T", "nT/1Tw");
    std::vector<double> teamRatios, teamSameRatios;
    std::vector<int> met(paths.size(), 0);
    std::vector<double> logSum(paths.size() + 1, 0.0); // scalar, then each path
    int measured = 0;
    for (const Case& c : cases) {
        if (!only.empty() && std::find(only.begin(), only.end(), c.weight.format) == only.end()
            && std::find(only.begin(), only.end(), c.label) == only.end())
            continue;
        const uint64_t rowsPerChunk = std::max<uint64_t>(8, kChunkBytes / 4 / K / 8 * 8);
        const uint64_t chunks = N / rowsPerChunk;
        const uint64_t chunkWeights = rowsPerChunk * K;
        const uint64_t chunkInput = std::max<uint64_t>(1, inputBytes(c, rowsPerChunk));
        // The chunks one thread cycles over, and the memcpy source's pieces of chunkWeights floats.
        const uint64_t cycle = stream
            ? chunks
            : std::clamp<uint64_t>(budget > 4 * chunkWeights ? (budget - 4 * chunkWeights) / chunkInput : 1, 1, chunks);
        const uint64_t pieces = stream ? std::max<uint64_t>(1, ceilDiv(inputBytes(c, N), 4 * chunkWeights)) : 1;
        AlignedFloats out(chunkWeights), src(chunkWeights * pieces);
        std::fill(src.data(), src.data() + chunkWeights * pieces, 1.f);
        uint64_t next = 0, nextPiece = 0;
        auto oneChunk = [&](SimdPath path) {
            const uint64_t b = (next++ % cycle) * rowsPerChunk;
            dequantizeRows(*c.ckpt, c.weight, b, b + rowsPerChunk, out.data(), path);
        };
        if (profile) {
            const auto t0 = Clock::now();
            while (std::chrono::duration<double>(Clock::now() - t0).count() < 3.0)
                oneChunk(fast);
            continue;
        }
        try {
            std::vector<AlignedFloats> outs;
            for (int t = 0; t < threads; ++t)
                outs.emplace_back(chunkWeights);
            Contender scalar{[&] { oneChunk(SimdPath::Scalar); }};
            std::vector<Contender> simd;
            for (SimdPath p : paths)
                simd.push_back(Contender{[&oneChunk, p] { oneChunk(p); }});
            Contender copy{[&] {
                std::memcpy(out.data(), src.data() + (nextPiece++ % pieces) * chunkWeights, chunkWeights * 4);
                asm volatile("" : : "r"(out.data()) : "memory"); // keep the copy
            }};
            // All threads: each dequantizes its chunks into its own L2-sized buffer.
            Contender fastN{[&] {
                runChunks(chunks, 0, nullptr, [&](uint64_t i, NoChunkState&) {
                    const uint64_t b = i * rowsPerChunk;
                    dequantizeRows(*c.ckpt, c.weight, b, b + rowsPerChunk, outs[size_t(omp_get_thread_num())].data(),
                                   fast);
                });
            }};
            // One thread over every chunk: the all-thread figure's work on a team of one.
            Contender fast1{[&] {
                runChunks(chunks, 1, nullptr, [&](uint64_t i, NoChunkState&) {
                    const uint64_t b = i * rowsPerChunk;
                    dequantizeRows(*c.ckpt, c.weight, b, b + rowsPerChunk, outs[0].data(), fast);
                });
            }};
            std::vector<Contender*> all{&scalar, &copy, &fastN, &fast1};
            for (Contender& s : simd)
                all.push_back(&s);
            race(all, seconds);
            const double w = double(chunkWeights);
            const double rScalar = w / scalar.best, rCopy = w / copy.best;
            const double rFast = simd.empty() ? rScalar : w / simd.back().best;
            const double rFastN = double(chunks) * w / fastN.best, rFast1 = double(chunks) * w / fast1.best;
            const double aim = aimFor(c);
            std::printf("%-12s %12.0f %9.2f %5.2f", c.label.c_str(), rScalar / 1e6, rScalar / rCopy, aim);
            logSum[0] += std::log(rScalar / rCopy);
            for (size_t i = 0; i < simd.size(); ++i) {
                const double ratio = w / simd[i].best / rCopy;
                std::printf(" %10.2f %3s", ratio, ratio >= aim ? "yes" : "no");
                met[i] += ratio >= aim;
                logSum[i + 1] += std::log(ratio);
            }
            ++measured;
            std::printf(" %8llu %12.0f %12.0f %9.2f %9.2f\n",
                        (unsigned long long)((inputBytes(c, cycle * rowsPerChunk) + 4 * chunkWeights) / 1024),
                        rFast / 1e6, rFastN / 1e6, rFastN / rFast, rFastN / rFast1);
            teamRatios.push_back(rFastN / rFast);
            teamSameRatios.push_back(rFastN / rFast1);
        } catch (const std::exception& e) {
            std::printf("%-12s error: %s\n", c.label.c_str(), e.what());
        }
        std::fflush(stdout);
    }
    if (measured > 0 && !profile) {
        std::printf("%-12s %12s %9.3f %5s", "geomean", "", std::exp(logSum[0] / measured), "");
        for (size_t i = 0; i < paths.size(); ++i)
            std::printf(" %10.3f %3s", std::exp(logSum[i + 1] / measured), "");
        std::printf("\n%-12s %12s %9s %5s", "aims met", "", "", "");
        for (size_t i = 0; i < paths.size(); ++i)
            std::printf(" %8d/%-5d", met[i], measured);
        const auto medianAndMin = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return std::pair{v[v.size() / 2], v.front()};
        };
        const auto [team, teamMin] = medianAndMin(teamRatios);
        const auto [same, sameMin] = medianAndMin(teamSameRatios);
        std::printf("\nthreads: nT/1T median %.2f (lowest %.2f); nT/1Tw median %.2f (lowest %.2f)", team, teamMin, same,
                    sameMin);
        std::printf("\nload at end (/proc/loadavg): %s\n", loadAverage().c_str());
    }
    return 0;
}
