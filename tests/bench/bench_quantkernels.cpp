// Quick throughput figures for the bnb / compressed-tensors / MLX / HQQ / float kernels:
// single-thread weights/s of the scalar reference and the AVX2 path on an L2-sized output
// chunk (16 rows x 4096 = 256 KiB of f32), and each SIMD path's ratio to memcpy (copying the
// same number of output bytes in the same run); "-" for a path the CPU lacks.
#include "container/safetensors.h"
#include "formats/bnb/bnb.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/plain/floats.h"
#include "base/half.h"
#include "formats/hqq/hqq.h"
#include "formats/mlx/mlx.h"

#include <QTemporaryDir>

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace qs;

namespace {

constexpr uint64_t N = 256, K = 4096, ChunkRows = 16;

double secondsPer(const std::function<void()>& f)
{
    using clock = std::chrono::steady_clock;
    f();
    uint64_t reps = 1;
    for (;;) {
        const auto t0 = clock::now();
        for (uint64_t i = 0; i < reps; ++i)
            f();
        const double s = std::chrono::duration<double>(clock::now() - t0).count();
        if (s > 0.25)
            return s / double(reps);
        reps *= 2;
    }
}

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> b(n);
    for (auto& x : b)
        x = static_cast<uint8_t>(rng());
    return b;
}

template <typename V>
std::vector<uint8_t> bytesOf(const std::vector<V>& v)
{
    std::vector<uint8_t> b(v.size() * sizeof(V));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

std::vector<uint8_t> halfs(size_t n, float base)
{
    std::vector<uint16_t> h(n);
    for (size_t i = 0; i < n; ++i)
        h[i] = floatToHalf(base * static_cast<float>(i % 13 + 1));
    return bytesOf(h);
}

struct Case {
    const char* name;
    std::vector<SafetensorsTensor> tensors;
    std::vector<std::vector<uint8_t>> storage;
    LogicalWeight weight;
    std::vector<std::pair<std::string, std::string>> roles;
    DequantRowsFn fn;
};

} // namespace

int main()
{
    QTemporaryDir tmp;
    std::vector<Case> cases;
    auto add =
        [&](const char* name, DequantRowsFn fn, int bits, int64_t group,
            std::vector<std::tuple<std::string, std::string, DType, std::vector<uint64_t>, std::vector<uint8_t>>> ts) {
            Case c;
            c.name = name;
            c.fn = fn;
            c.weight.name = "m";
            c.weight.format = name;
            c.weight.bits = bits;
            c.weight.groupSize = group;
            c.weight.shape = {N, K};
            for (auto& [role, tname, dt, shape, data] : ts) {
                c.storage.push_back(std::move(data));
                c.tensors.push_back({tname, dt, shape, c.storage.back()});
                c.roles.emplace_back(role, tname);
            }
            cases.push_back(std::move(c));
        };
    const std::string js =
        "{\"quant_type\": \"nf4\", \"blocksize\": 64, \"dtype\": \"float16\", \"shape\": [256, 4096]}";
    std::vector<float> absmax(N * K / 64);
    for (size_t i = 0; i < absmax.size(); ++i)
        absmax[i] = 0.01f * static_cast<float>(i % 17 + 1);
    add("bnb-nf4", dequantBnb4Rows, 4, 64,
        {{"weight", "m.weight", DType::U8, {N * K / 2, 1}, randomBytes(N * K / 2, 1)},
         {"absmax", "m.weight.absmax", DType::F32, {absmax.size()}, bytesOf(absmax)},
         {"quant_state",
          "m.weight.quant_state.bitsandbytes__nf4",
          DType::U8,
          {js.size()},
          std::vector<uint8_t>(js.begin(), js.end())}});
    std::vector<float> scb(N, 0.5f);
    add("bnb-int8", dequantBnbInt8Rows, 8, 0,
        {{"weight", "m.weight", DType::I8, {N, K}, randomBytes(N * K, 2)},
         {"SCB", "m.SCB", DType::F32, {N}, bytesOf(scb)}});
    std::vector<float> cscale(N * K / 128, 0.01f);
    const std::vector<int64_t> shape{int64_t(N), int64_t(K)};
    add("ct-w4-g128", dequantCtRows, 4, 128,
        {{"weight_packed", "m.weight_packed", DType::I32, {N, K / 8}, randomBytes(N * K / 2, 3)},
         {"weight_scale", "m.weight_scale", DType::F32, {N, K / 128}, bytesOf(cscale)},
         {"weight_shape", "m.weight_shape", DType::I64, {2}, bytesOf(shape)},
         {"weight_zero_point",
          "m.weight_zero_point",
          DType::I32,
          {N / 8, K / 128},
          randomBytes(N / 8 * K / 128 * 4, 4)}});
    add("ct-w8-channel", dequantCtRows, 8, 0,
        {{"weight_packed", "m.weight_packed", DType::I32, {N, K / 4}, randomBytes(N * K, 5)},
         {"weight_scale", "m.weight_scale", DType::F32, {N, 1}, bytesOf(std::vector<float>(N, 0.01f))},
         {"weight_shape", "m.weight_shape", DType::I64, {2}, bytesOf(shape)}});
    for (int b : {4, 3, 8}) {
        const uint64_t words = K * b / 32;
        add(b == 4       ? "mlx-4-g64"
                : b == 3 ? "mlx-3-g64"
                         : "mlx-8-g64",
            dequantMlxRows, b, 64,
            {{"weight", "m.weight", DType::U32, {N, words}, randomBytes(N * words * 4, 6 + b)},
             {"scales", "m.scales", DType::F16, {N, K / 64}, halfs(N * K / 64, 0.01f)},
             {"biases", "m.biases", DType::F16, {N, K / 64}, halfs(N * K / 64, -0.02f)}});
    }
    const std::string cd = "torch.float16", pk = "4bit_u8";
    const std::vector<int64_t> hshape{int64_t(N), int64_t(K)};
    add("hqq-4-g64", dequantHqqRows, 4, 64,
        {{"W_q", "m.W_q", DType::U8, {N * K / 64 / 2, 64}, randomBytes(N * K / 2, 11)},
         {"scale", "m.scale", DType::F16, {N * K / 64, 1}, halfs(N * K / 64, 0.01f)},
         {"zero", "m.zero", DType::F16, {N * K / 64, 1}, halfs(N * K / 64, 0.5f)},
         {"shape", "m.shape", DType::I64, {2}, bytesOf(hshape)},
         {"nbits", "m.nbits", DType::I32, {}, bytesOf(std::vector<int32_t>{4})},
         {"group_size", "m.group_size", DType::I32, {}, bytesOf(std::vector<int32_t>{64})},
         {"axis", "m.axis", DType::I32, {}, bytesOf(std::vector<int32_t>{1})},
         {"compute_dtype", "m.compute_dtype", DType::U8, {cd.size()}, std::vector<uint8_t>(cd.begin(), cd.end())}});
    add("ct-fp8-channel", dequantCtRows, 8, 0,
        {{"weight", "m.weight", DType::F8_E4M3, {N, K}, randomBytes(N * K, 14)},
         {"weight_scale", "m.weight_scale", DType::F32, {N, 1}, bytesOf(std::vector<float>(N, 0.01f))}});
    add("f16", dequantFloatRows, 16, 0, {{"weight", "m.weight", DType::F16, {N, K}, halfs(N * K, 0.001f)}});
    add("bf16", dequantFloatRows, 16, 0, {{"weight", "m.weight", DType::BF16, {N, K}, randomBytes(N * K * 2, 12)}});
    add("f8_e4m3", dequantFloatRows, 8, 0, {{"weight", "m.weight", DType::F8_E4M3, {N, K}, randomBytes(N * K, 13)}});

    omp_set_num_threads(1);
    std::vector<float> out(ChunkRows * K), src(ChunkRows * K, 1.0f);
    const double tMemcpy = secondsPer([&] {
        std::memcpy(out.data(), src.data(), out.size() * 4);
        __asm__ volatile("" ::: "memory");
    });
    const double weights = double(ChunkRows * K);
    std::printf("memcpy of %llu floats: %.2f Gweights/s\n", static_cast<unsigned long long>(ChunkRows * K),
                weights / tMemcpy / 1e9);
    std::printf("%-14s %12s %12s %10s %11s\n", "format", "scalar Gw/s", "avx2 Gw/s", "avx2/mcpy", "avx512/mcpy");
    for (auto& c : cases) {
        const std::string path =
            (tmp.path() + QStringLiteral("/") + QString::fromUtf8(c.name)).toStdString() + ".safetensors";
        writeSafetensors(path, c.tensors);
        Checkpoint ck;
        ck.path = path;
        readSafetensorsFile(ck, path);
        ck.buildIndex();
        for (auto& [role, tname] : c.roles)
            c.weight.members.emplace_back(role, static_cast<size_t>(ck.indexOf(tname)));
        const WeightData wd{ck, c.weight};
        uint64_t r0 = 0;
        const auto runPath = [&](SimdPath p) {
            return secondsPer([&] {
                c.fn(wd, r0, r0 + ChunkRows, out.data(), p);
                r0 = (r0 + ChunkRows) % N;
            });
        };
        const double ts = runPath(SimdPath::Scalar);
        std::printf("%-14s %12.3f", c.name, weights / ts / 1e9);
        if (hasAvx2(cpuSimdPath())) {
            const double t2 = runPath(SimdPath::Avx2);
            std::printf(" %12.3f %10.2f", weights / t2 / 1e9, tMemcpy / t2);
        } else {
            std::printf(" %12s %10s", "-", "-");
        }
        if (cpuSimdPath() >= SimdPath::Avx512)
            std::printf(" %11.2f\n", tMemcpy / runPath(SimdPath::Avx512));
        else
            std::printf(" %11s\n", "-");
    }
    return 0;
}
