// Benchmark: how fast and how lean is listing a large checkpoint?
//
// Makes, in a temporary folder, sparse files shaped like real checkpoints:
//   - a GGUF laid out as Qwen2.5-14B-Instruct Q4_K_M (579 tensors, about 9 GiB, the full
//     152k-token tokenizer with its merges in metadata);
//   - a sharded safetensors folder laid out as Qwen2.5-14B-Instruct GPTQ-Int4 (1587 tensors in
//     3 shards, about 9 GiB, index + config.json with its quantization_config).
// Only headers are written; the data regions are holes (ftruncate), so nothing large touches
// the disk. Then, each in a fresh child process so that peak RSS belongs to that run alone:
//   - openCheckpoint (container + format detection), timed inside the child; for the GGUF the
//     child of its own (--ratio) then times it again and, as a same-process baseline, reading
//     the header's bytes and walking them with a minimal loop (walkGguf), and prints the ratio;
//   - `quantscope-cli inspect --json` (stdout discarded);
//   - an idle child of this program, the baseline the figures are compared with.
// Wall time and peak RSS (wait4's rusage) are printed as medians over the runs.
//
// Usage: bench_inspect [--cli PATH] [--runs N] [--dir DIR] [--keep]
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "formats/opencheckpoint.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using qs::MetaValue;
using Type = MetaValue::Type;

namespace {

// Qwen2.5-14B.
constexpr int kLayers = 48;
constexpr uint64_t kEmbd = 5120;
constexpr uint64_t kFf = 13824;
constexpr uint64_t kKv = 1024;
constexpr uint64_t kVocab = 152064;
constexpr uint64_t kTokens = 151665;
constexpr uint64_t kMerges = 151387;

constexpr int F32 = 0, Q4_K = 12, Q6_K = 14;

MetaValue u32(uint64_t v)
{
    MetaValue m;
    m.type = Type::U32;
    m.value = v;
    return m;
}
MetaValue f32(double v)
{
    MetaValue m;
    m.type = Type::F32;
    m.value = v;
    return m;
}
MetaValue str(std::string v)
{
    MetaValue m;
    m.type = Type::String;
    m.value = std::move(v);
    return m;
}
MetaValue arr(Type t, std::vector<MetaValue> v)
{
    MetaValue m;
    m.type = Type::Array;
    m.arrayType = t;
    m.value = std::move(v);
    return m;
}

// Deterministic byte-level-BPE-looking tokens: "Ġ" prefixes and 1..10 letters.
std::string token(uint64_t i)
{
    std::string s = (i % 3 == 0) ? "\xC4\xA0" : "";
    uint64_t x = i * 2654435761u + 12345;
    const size_t len = 1 + (x >> 7) % 10;
    for (size_t k = 0; k < len; ++k, x = x * 6364136223846793005ull + 1442695040888963407ull)
        s += static_cast<char>('a' + (x >> 33) % 26);
    return s;
}

void fail(const std::string& what)
{
    std::fprintf(stderr, "bench_inspect: %s\n", what.c_str());
    std::exit(2);
}

// Writes `head` at the start of `path` and extends the file to `size` with a hole.
void writeSparse(const std::string& path, const std::vector<uint8_t>& head, uint64_t size)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, head.data(), head.size()) != static_cast<ssize_t>(head.size())
        || ::ftruncate(fd, static_cast<off_t>(size)) != 0)
        fail("cannot write " + path + ": " + std::strerror(errno));
    ::close(fd);
}

// Qwen2.5-14B-Instruct-Q4_K_M.gguf as llama.cpp lays it out (tensor names, types, shapes).
uint64_t makeGguf(const std::string& path, size_t& tensorCount)
{
    std::vector<qs::GgufTensor> t;
    auto add = [&](std::string name, int type, std::vector<uint64_t> ne) {
        t.push_back({std::move(name), type, std::move(ne), {}});
    };
    add("token_embd.weight", Q4_K, {kEmbd, kVocab});
    for (int l = 0; l < kLayers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        // Q4_K_M gives attn_v and ffn_down more bits in the first and last eighth and every third layer.
        const bool more = l < kLayers / 8 || l >= 7 * kLayers / 8 || (l - kLayers / 8) % 3 == 2;
        add(b + "attn_norm.weight", F32, {kEmbd});
        add(b + "attn_q.weight", Q4_K, {kEmbd, kEmbd});
        add(b + "attn_q.bias", F32, {kEmbd});
        add(b + "attn_k.weight", Q4_K, {kEmbd, kKv});
        add(b + "attn_k.bias", F32, {kKv});
        add(b + "attn_v.weight", more ? Q6_K : Q4_K, {kEmbd, kKv});
        add(b + "attn_v.bias", F32, {kKv});
        add(b + "attn_output.weight", Q4_K, {kEmbd, kEmbd});
        add(b + "ffn_norm.weight", F32, {kEmbd});
        add(b + "ffn_gate.weight", Q4_K, {kEmbd, kFf});
        add(b + "ffn_up.weight", Q4_K, {kEmbd, kFf});
        add(b + "ffn_down.weight", more ? Q6_K : Q4_K, {kFf, kEmbd});
    }
    add("output_norm.weight", F32, {kEmbd});
    add("output.weight", Q6_K, {kEmbd, kVocab});
    tensorCount = t.size();

    std::vector<MetaValue> tokens, types, merges;
    tokens.reserve(kTokens);
    types.reserve(kTokens);
    merges.reserve(kMerges);
    for (uint64_t i = 0; i < kTokens; ++i) {
        tokens.push_back(str(token(i)));
        MetaValue ty;
        ty.type = Type::I32;
        ty.value = int64_t(i >= 151643 ? 3 : 1);
        types.push_back(ty);
    }
    for (uint64_t i = 0; i < kMerges; ++i)
        merges.push_back(str(token(i) + " " + token(i * 7 + 1)));
    const qs::GgufMetadata meta{
        {"general.architecture", str("qwen2")},
        {"general.type", str("model")},
        {"general.name", str("Qwen2.5 14B Instruct")},
        {"general.size_label", str("14B")},
        {"general.license", str("apache-2.0")},
        {"general.tags", arr(Type::String, {str("chat"), str("text-generation")})},
        {"general.languages", arr(Type::String, {str("en")})},
        {"qwen2.block_count", u32(kLayers)},
        {"qwen2.context_length", u32(32768)},
        {"qwen2.embedding_length", u32(kEmbd)},
        {"qwen2.feed_forward_length", u32(kFf)},
        {"qwen2.attention.head_count", u32(40)},
        {"qwen2.attention.head_count_kv", u32(8)},
        {"qwen2.rope.freq_base", f32(1000000.0)},
        {"qwen2.attention.layer_norm_rms_epsilon", f32(1e-6)},
        {"general.file_type", u32(15)},
        {"tokenizer.ggml.model", str("gpt2")},
        {"tokenizer.ggml.pre", str("qwen2")},
        {"tokenizer.ggml.tokens", arr(Type::String, std::move(tokens))},
        {"tokenizer.ggml.token_type", arr(Type::I32, std::move(types))},
        {"tokenizer.ggml.merges", arr(Type::String, std::move(merges))},
        {"tokenizer.ggml.eos_token_id", u32(151645)},
        {"tokenizer.ggml.padding_token_id", u32(151643)},
        {"tokenizer.ggml.bos_token_id", u32(151643)},
        {"tokenizer.ggml.add_bos_token",
         [] {
             MetaValue m;
             m.type = Type::Bool;
             m.value = false;
             return m;
         }()},
        {"tokenizer.chat_template", str(std::string(2500, 'x'))},
        {"general.quantization_version", u32(2)},
    };
    const qs::GgufLayout layout = qs::layoutGguf(path, meta, t);
    writeSparse(path, layout.head, layout.fileSize);
    return layout.fileSize;
}

// Qwen2.5-14B-Instruct-GPTQ-Int4 as Hugging Face stores it, in 3 shards.
uint64_t makeSafetensors(const std::string& dir, size_t& tensorCount)
{
    struct T {
        std::string name, dtype;
        std::vector<uint64_t> shape;
    };
    auto bytesOf = [](const T& t) {
        uint64_t n = t.dtype == "I32" ? 4 : 2;
        for (uint64_t d : t.shape)
            n *= d;
        return n;
    };
    std::vector<std::vector<T>> shards(3);
    auto linear = [](std::vector<T>& s, const std::string& p, uint64_t in, uint64_t out, bool bias) {
        s.push_back({p + ".qweight", "I32", {in / 8, out}});
        s.push_back({p + ".qzeros", "I32", {in / 128, out / 8}});
        s.push_back({p + ".scales", "F16", {in / 128, out}});
        s.push_back({p + ".g_idx", "I32", {in}});
        if (bias)
            s.push_back({p + ".bias", "F16", {out}});
    };
    shards[0].push_back({"model.embed_tokens.weight", "F16", {kVocab, kEmbd}});
    for (int l = 0; l < kLayers; ++l) {
        auto& s = shards[static_cast<size_t>(l * 3 / kLayers)];
        const std::string p = "model.layers." + std::to_string(l);
        s.push_back({p + ".input_layernorm.weight", "F16", {kEmbd}});
        s.push_back({p + ".post_attention_layernorm.weight", "F16", {kEmbd}});
        linear(s, p + ".self_attn.q_proj", kEmbd, kEmbd, true);
        linear(s, p + ".self_attn.k_proj", kEmbd, kKv, true);
        linear(s, p + ".self_attn.v_proj", kEmbd, kKv, true);
        linear(s, p + ".self_attn.o_proj", kEmbd, kEmbd, false);
        linear(s, p + ".mlp.gate_proj", kEmbd, kFf, false);
        linear(s, p + ".mlp.up_proj", kEmbd, kFf, false);
        linear(s, p + ".mlp.down_proj", kFf, kEmbd, false);
    }
    shards[2].push_back({"model.norm.weight", "F16", {kEmbd}});
    shards[2].push_back({"lm_head.weight", "F16", {kVocab, kEmbd}});

    fs::create_directories(dir);
    uint64_t total = 0;
    tensorCount = 0;
    std::string weightMap;
    for (size_t k = 0; k < shards.size(); ++k) {
        char file[64];
        std::snprintf(file, sizeof file, "model-%05zu-of-%05zu.safetensors", k + 1, shards.size());
        std::string json = "{\"__metadata__\":{\"format\":\"pt\"}";
        uint64_t off = 0;
        for (const auto& t : shards[k]) {
            std::string shape;
            for (uint64_t d : t.shape)
                shape += (shape.empty() ? "" : ",") + std::to_string(d);
            const uint64_t n = bytesOf(t);
            json += ",\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[" + shape + "],\"data_offsets\":["
                + std::to_string(off) + "," + std::to_string(off + n) + "]}";
            off += n;
            weightMap += std::string(weightMap.empty() ? "" : ",") + "\"" + t.name + "\":\"" + file + "\"";
        }
        json += "}";
        json.append((8 - json.size() % 8) % 8, ' ');
        std::vector<uint8_t> head(8 + json.size());
        const uint64_t len = json.size();
        std::memcpy(head.data(), &len, 8);
        std::memcpy(head.data() + 8, json.data(), json.size());
        writeSparse(dir + "/" + file, head, head.size() + off);
        total += head.size() + off;
        tensorCount += shards[k].size();
    }
    std::ofstream(dir + "/model.safetensors.index.json")
        << "{\"metadata\":{\"total_size\":" << total << "},\"weight_map\":{" << weightMap << "}}\n";
    std::ofstream(dir + "/config.json")
        << R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":5120,"intermediate_size":13824,)"
           R"("num_hidden_layers":48,"num_attention_heads":40,"num_key_value_heads":8,"vocab_size":152064,)"
           R"("torch_dtype":"float16","quantization_config":{"bits":4,"group_size":128,"desc_act":false,"sym":true,)"
           R"("damp_percent":0.01,"true_sequential":true,"quant_method":"gptq","checkpoint_format":"gptq"}})"
        << "\n";
    return total;
}

struct Run {
    double wallMs = 0;
    double cpuMs = 0; // user + system
    long maxRssKiB = 0;
    int status = 0;
    std::string out;
};

// Runs argv in a child, stdout captured (or discarded), stderr passed through.
Run spawn(const std::vector<std::string>& argv, bool captureOut)
{
    int fds[2];
    if (::pipe(fds) != 0)
        fail("pipe failed");
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0)
        fail("fork failed");
    if (pid == 0) {
        ::close(fds[0]);
        if (captureOut) {
            ::dup2(fds[1], STDOUT_FILENO);
        } else {
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, STDOUT_FILENO);
        }
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::_Exit(127);
    }
    ::close(fds[1]);
    Run r;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0)
        r.out.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    rusage ru{};
    ::wait4(pid, &r.status, 0, &ru);
    r.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.maxRssKiB = ru.ru_maxrss;
    r.cpuMs = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    return r;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Figures {
    double wallMs = 0, cpuMs = 0, innerMs = 0, rssMiB = 0;
    bool ok = true;
    std::string firstLine;
};

Figures measure(const std::vector<std::string>& argv, int runs, bool inner)
{
    std::vector<double> wall, cpu, in, rss;
    Figures f;
    for (int i = 0; i < runs; ++i) {
        const Run r = spawn(argv, inner);
        if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
            f.ok = false;
            f.firstLine = "exit status " + std::to_string(WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1);
            return f;
        }
        wall.push_back(r.wallMs);
        cpu.push_back(r.cpuMs);
        rss.push_back(r.maxRssKiB / 1024.0);
        if (inner) {
            double ms = 0;
            if (std::sscanf(r.out.c_str(), "open_ms %lf", &ms) == 1)
                in.push_back(ms);
            f.firstLine = r.out.substr(0, r.out.find('\n'));
        }
    }
    f.wallMs = median(wall);
    f.cpuMs = median(cpu);
    f.rssMiB = median(rss);
    f.innerMs = in.empty() ? 0 : median(in);
    return f;
}

// The same-process baseline for a GGUF: its header walked by a minimal loop over the file's
// bytes (read into memory once), every key, value, string length and tensor record stepped
// over and nothing kept or checked; what any reader of the file must at least do.
// Returns the sum of the string lengths (so the loop is not optimized away); 0 when not GGUF.
uint64_t walkGguf(const std::vector<uint8_t>& f)
{
    size_t p = 0;
    const auto u32 = [&] {
        uint32_t v = 0;
        if (p + 4 <= f.size())
            std::memcpy(&v, f.data() + p, 4);
        p += 4;
        return v;
    };
    const auto u64 = [&] {
        uint64_t v = 0;
        if (p + 8 <= f.size())
            std::memcpy(&v, f.data() + p, 8);
        p += 8;
        return v;
    };
    uint64_t lengths = 0;
    const auto str = [&] {
        const uint64_t n = u64();
        lengths += n;
        p += n;
    };
    const auto value = [&](auto& self, uint32_t t) -> void {
        static constexpr uint8_t kSize[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
        if (t == 8) {
            str();
        } else if (t == 9) {
            const uint32_t et = u32();
            const uint64_t n = u64();
            if (et == 8 || et == 9)
                for (uint64_t i = 0; i < n && p < f.size(); ++i)
                    self(self, et);
            else if (et < 13)
                p += n * kSize[et];
        } else if (t < 13) {
            p += kSize[t];
        }
    };
    if (f.size() < 24 || std::memcmp(f.data(), "GGUF", 4) != 0)
        return 0;
    p = 8;
    const uint64_t tensors = u64(), kvs = u64();
    for (uint64_t k = 0; k < kvs && p < f.size(); ++k) {
        str();
        value(value, u32());
    }
    for (uint64_t t = 0; t < tensors && p < f.size(); ++t) {
        str();
        p += 8 * u32() + 12;
    }
    return lengths;
}

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Child modes.
int childOpen(const std::string& path)
{
    try {
        auto start = std::chrono::steady_clock::now();
        const auto ckpt = qs::openCheckpoint(path);
        const double ms = msSince(start);
        rusage ru{};
        ::getrusage(RUSAGE_SELF, &ru);
        const double cpuMs =
            (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
        std::printf("open_ms %.2f (process CPU %.1f ms) tensors %zu weights %zu files %zu metadata %zu\n", ms, cpuMs,
                    ckpt->tensors.size(), ckpt->weights.size(), ckpt->files.size(), ckpt->metadata.size());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

// A child of its own, so that the --open child's time and peak RSS stay those of one open.
int childRatio(const std::string& path)
{
    try {
        const auto ckpt = qs::openCheckpoint(path);
        if (ckpt->container == qs::Container::Gguf) {
            std::chrono::steady_clock::time_point start;
            // Ratios in this process, best of 5 each (the machine may be loaded): openCheckpoint
            // again, against reading the header's bytes and walking them (walkGguf).
            std::vector<uint8_t> bytes;
            double again = 1e300, base = 1e300;
            uint64_t sink = 0;
            for (int r = 0; r < 5; ++r) {
                start = std::chrono::steady_clock::now();
                sink += qs::openCheckpoint(path)->metadata.size();
                again = std::min(again, msSince(start));
            }
            for (int r = 0; r < 5; ++r) {
                start = std::chrono::steady_clock::now();
                std::ifstream in(path, std::ios::binary);
                uint64_t head = ckpt->tensors.empty() ? 0 : ckpt->tensors.front().offset;
                for (const qs::TensorEntry& t : ckpt->tensors)
                    head = std::min(head, t.offset);
                bytes.resize(size_t(head));
                in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
                sink += walkGguf(bytes);
                base = std::min(base, msSince(start));
            }
            std::printf("%-42s in-process, best of 5: openCheckpoint %.1f ms, header read + walked %.1f ms (%.1f MiB): "
                        "x%.1f of the baseline (%llu)\n",
                        "", again, base, double(bytes.size()) / 1048576.0, again / base,
                        static_cast<unsigned long long>(sink % 10));
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

std::string selfPath()
{
    std::error_code ec;
    return fs::read_symlink("/proc/self/exe", ec).string();
}

void report(const char* what, const Figures& f, const Figures& idle)
{
    if (!f.ok) {
        std::printf("  %-40s FAILED (%s)\n", what, f.firstLine.c_str());
        return;
    }
    std::printf("  %-40s wall %7.1f ms  CPU %7.1f ms  peak RSS %5.1f MiB  (vs idle: CPU x%.1f, RSS +%.1f MiB)", what,
                f.wallMs, f.cpuMs, f.rssMiB, f.cpuMs / std::max(idle.cpuMs, 0.1), f.rssMiB - idle.rssMiB);
    if (f.innerMs > 0)
        std::printf("  openCheckpoint %.1f ms", f.innerMs);
    std::printf("\n");
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--open") == 0)
        return childOpen(argv[2]);
    if (argc == 3 && std::strcmp(argv[1], "--ratio") == 0)
        return childRatio(argv[2]);
    if (argc == 2 && std::strcmp(argv[1], "--idle") == 0)
        return 0;

    const std::string self = selfPath();
    std::string cli = (fs::path(self).parent_path().parent_path() / "app" / "quantscope-cli").string();
    std::string base;
    int runs = 5;
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cli" && i + 1 < argc)
            cli = argv[++i];
        else if (a == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--dir" && i + 1 < argc)
            base = argv[++i];
        else if (a == "--keep")
            keep = true;
        else {
            std::fprintf(stderr, "usage: bench_inspect [--cli PATH] [--runs N] [--dir DIR] [--keep]\n");
            return 2;
        }
    }
    if (base.empty())
        base = fs::temp_directory_path().string();
    std::string tmpl = base + "/bench_inspect-XXXXXX";
    if (!::mkdtemp(tmpl.data()))
        fail("cannot create a folder in " + base);
    const std::string dir = tmpl;

    size_t ggufTensors = 0, stTensors = 0;
    const std::string gguf = dir + "/Qwen2.5-14B-Instruct-Q4_K_M.gguf";
    const std::string st = dir + "/Qwen2.5-14B-Instruct-GPTQ-Int4";
    const uint64_t ggufSize = makeGguf(gguf, ggufTensors);
    const uint64_t stSize = makeSafetensors(st, stTensors);
    std::printf("synthetic checkpoints in %s (sparse files)\n", dir.c_str());
    std::printf("  GGUF        %.2f GiB, %zu tensors, tokenizer %llu tokens + %llu merges\n", ggufSize / 1073741824.0,
                ggufTensors, static_cast<unsigned long long>(kTokens), static_cast<unsigned long long>(kMerges));
    std::printf("  safetensors %.2f GiB, %zu tensors in 3 shards\n", stSize / 1073741824.0, stTensors);
    std::printf("medians of %d runs, each in a fresh process:\n", runs);

    const Figures idle = measure({self, "--idle"}, runs, false);
    std::printf("  %-40s wall %7.1f ms  CPU %7.1f ms  peak RSS %5.1f MiB\n", "idle child (baseline)", idle.wallMs,
                idle.cpuMs, idle.rssMiB);
    const bool haveCli = fs::exists(cli);
    for (const auto& [label, path] : {std::pair{"GGUF", gguf}, std::pair{"safetensors folder", st}}) {
        const Figures open = measure({self, "--open", path}, runs, true);
        report((std::string(label) + ": openCheckpoint").c_str(), open, idle);
        if (open.ok)
            std::printf("  %-40s %s\n", "", open.firstLine.c_str());
        if (open.ok && label == std::string("GGUF")) {
            const Run ratio = spawn({self, "--ratio", path}, true);
            std::printf("%s", ratio.out.c_str());
        }
        if (haveCli)
            report((std::string(label) + ": cli inspect --json").c_str(),
                   measure({cli, "inspect", path, "--json"}, runs, false), idle);
    }
    if (!haveCli)
        std::printf("  (no quantscope-cli at %s; pass --cli PATH)\n", cli.c_str());
    if (!keep)
        fs::remove_all(dir);
    return 0;
}
