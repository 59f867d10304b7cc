// Writes the fuzz targets' seeds (run by run-fuzzers.sh) into OUT_DIR/<target>/:
// - fuzz_gguf: one small GGUF per tensor of the ggml-types fixture (mutating the whole 600 KiB
//   file runs ~50x slower), a GGUF holding every metadata value type, nested arrays and
//   empty arrays in versions 1, 2 and 3, and the output of every GGUF quantize target;
// - fuzz_detect_dequant and fuzz_safetensors: packed folders (fuzzcommon.h) of every
//   safetensors quantize target's output (each family's tensors and configs), a sharded
//   index with its shards, and the folder rules' cases (an adapter beside model.safetensors,
//   consolidated.safetensors beside shards, two shard sets, an incomplete set);
// - fuzz_json: the configs and indexes written above.
// usage: make_seeds FIXTURES_DIR OUT_DIR
#include "analysis/quantize_checkpoint.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "formats/formatid.h"
#include "container/safetensors.h"
#include "fuzzcommon.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

namespace {

std::string outDir;
size_t seedCount = 0;

std::vector<uint8_t> readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeSeed(const std::string& target, const std::string& name, std::string_view bytes)
{
    fs::create_directories(outDir + "/" + target);
    std::ofstream(outDir + "/" + target + "/" + name, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    ++seedCount;
}

// Every file of `dir` packed as one folder input, after the target's mode byte.
std::string packDir(char mode, const fs::path& dir)
{
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file())
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::string out(1, mode);
    for (const auto& f : files)
        qsfuzz::appendPacked(out, f.filename().string(), readAll(f));
    return out;
}

void seedFolder(const std::string& name, const fs::path& dir)
{
    writeSeed("fuzz_safetensors", name, packDir(2, dir));
    writeSeed("fuzz_detect_dequant", name, packDir(5, dir));
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json")
            writeSeed("fuzz_json", name + "-" + e.path().filename().string(), [&] {
                const auto b = readAll(e.path());
                return std::string(b.begin(), b.end());
            }());
}

std::vector<uint8_t> f16Ones(size_t n)
{
    std::vector<uint8_t> b;
    for (size_t i = 0; i < n; ++i) {
        // Values spread over [-1, 1] so that quantizers see a real range.
        const uint16_t h = uint16_t(0x3800 + (i * 37 % 0x400)) | uint16_t(i % 3 == 0 ? 0x8000 : 0);
        b.push_back(uint8_t(h & 0xff));
        b.push_back(uint8_t(h >> 8));
    }
    return b;
}

// A small llama-like float checkpoint: embed_tokens, two projections, a 1-D norm, lm_head.
void writeTinyModel(const fs::path& dir)
{
    fs::create_directories(dir);
    static const std::vector<uint8_t> big = f16Ones(32 * 128), embed = f16Ones(16 * 128), norm = f16Ones(128);
    std::vector<qs::SafetensorsTensor> t = {
        {"model.embed_tokens.weight", qs::DType::F16, {16, 128}, embed},
        {"model.layers.0.self_attn.q_proj.weight", qs::DType::F16, {32, 128}, big},
        {"model.layers.0.mlp.up_proj.weight", qs::DType::F16, {32, 128}, big},
        {"model.layers.0.input_layernorm.weight", qs::DType::F16, {128}, norm},
        {"lm_head.weight", qs::DType::F16, {16, 128}, embed},
    };
    qs::writeSafetensors((dir / "model.safetensors").string(), t);
    std::ofstream(dir / "config.json") << R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":128})";
}

// The same model as an F16 GGUF with llama.cpp's names, 256 wide so that the k-quants' blocks
// fit: GGUF quantize targets keep tensor names, so they take a GGUF input.
void writeTinyGguf(const fs::path& file)
{
    static const std::vector<uint8_t> big = f16Ones(32 * 256), embed = f16Ones(16 * 256), norm = f16Ones(256);
    constexpr int f16 = qs::GgmlF16;
    const std::vector<qs::GgufTensor> t = {
        {"token_embd.weight", f16, {256, 16}, embed},
        {"blk.0.attn_q.weight", f16, {256, 32}, big},
        {"blk.0.ffn_up.weight", f16, {256, 32}, big},
        {"blk.0.attn_norm.weight", f16, {256}, norm},
        {"output.weight", f16, {256, 16}, embed},
    };
    qs::MetaValue arch;
    arch.type = qs::MetaValue::Type::String;
    arch.value = std::string("llama");
    qs::writeGguf(file.string(), {{"general.architecture", arch}}, t, 3);
}

qs::MetaValue meta(qs::MetaValue::Type t, decltype(qs::MetaValue::value) v)
{
    qs::MetaValue m;
    m.type = t;
    m.value = std::move(v);
    return m;
}

qs::MetaValue array(qs::MetaValue::Type of, std::vector<qs::MetaValue> items)
{
    qs::MetaValue m;
    m.type = qs::MetaValue::Type::Array;
    m.arrayType = of;
    m.value = std::move(items);
    return m;
}

void seedEveryValueType()
{
    using T = qs::MetaValue::Type;
    qs::GgufMetadata md = {
        {"general.architecture", meta(T::String, std::string("llama"))},
        {"t.u8", meta(T::U8, uint64_t(200))},
        {"t.i8", meta(T::I8, int64_t(-100))},
        {"t.u16", meta(T::U16, uint64_t(60000))},
        {"t.i16", meta(T::I16, int64_t(-30000))},
        {"t.u32", meta(T::U32, uint64_t(4000000000u))},
        {"t.i32", meta(T::I32, int64_t(-2000000000))},
        {"t.f32", meta(T::F32, 0.25)},
        {"t.bool", meta(T::Bool, true)},
        {"t.string", meta(T::String, std::string("h\xc3\xa9llo"))},
        {"t.u64", meta(T::U64, uint64_t(1) << 60)},
        {"t.i64", meta(T::I64, int64_t(-1) << 60)},
        {"t.f64", meta(T::F64, -1.5)},
        {"t.arr.u8", array(T::U8, {meta(T::U8, uint64_t(1)), meta(T::U8, uint64_t(2))})},
        {"t.arr.i32", array(T::I32, {meta(T::I32, int64_t(-1)), meta(T::I32, int64_t(7))})},
        {"t.arr.f32", array(T::F32, {meta(T::F32, 1.0), meta(T::F32, -0.5)})},
        {"t.arr.bool", array(T::Bool, {meta(T::Bool, false), meta(T::Bool, true)})},
        {"t.arr.string", array(T::String, {meta(T::String, std::string("a")), meta(T::String, std::string(""))})},
        {"t.arr.u64", array(T::U64, {meta(T::U64, uint64_t(5))})},
        {"t.arr.f64", array(T::F64, {meta(T::F64, 2.0)})},
        {"t.arr.empty", array(T::I16, {})},
        {"t.arr.nested", array(T::Array, {array(T::U16, {meta(T::U16, uint64_t(3))}),
                                          array(T::U16, {meta(T::U16, uint64_t(4)), meta(T::U16, uint64_t(5))})})},
    };
    static const std::vector<uint8_t> f32(4 * 8, 0), q40(18 * 2, 0x11);
    const std::vector<qs::GgufTensor> tensors = {{"blk.0.attn_norm.weight", 0, {8}, f32},
                                                 {"blk.0.ffn_up.weight", 2, {32, 2}, q40}};
    const fs::path tmp = fs::path(outDir) / "tmp";
    for (uint32_t v = 1; v <= 3; ++v) {
        const std::string p = (tmp / ("types-v" + std::to_string(v) + ".gguf")).string();
        qs::writeGguf(p, md, tensors, v);
        const auto b = readAll(p);
        writeSeed("fuzz_gguf", "types-v" + std::to_string(v) + ".gguf", std::string(b.begin(), b.end()));
    }
}

void seedFixtureTensors(const std::string& fixture)
{
    const auto ckpt = qs::openCheckpoint(fixture);
    const std::string tmp = outDir + "/tmp/tensor.gguf";
    size_t n = 0;
    for (const auto& t : ckpt->tensors) {
        qs::GgufTensor g;
        g.name = t.name;
        g.ggmlType = t.ggmlType;
        g.ne.assign(t.shape.rbegin(), t.shape.rend());
        g.data = ckpt->bytes(t);
        qs::writeGguf(tmp, ckpt->metadata, {g}, uint32_t(std::max(ckpt->ggufVersion, 1)));
        const auto b = readAll(tmp);
        writeSeed("fuzz_gguf", "tensor-" + std::to_string(n++) + ".gguf", std::string(b.begin(), b.end()));
    }
}

void seedQuantizeTargets(const fs::path& tiny, const fs::path& tinyGguf)
{
    const auto src = qs::openCheckpoint(tiny.string()), srcGguf = qs::openCheckpoint(tinyGguf.string());
    for (const std::string& id : qs::quantizeTargets()) {
        const bool gguf = qs::findFormat(id)->family == qs::FormatFamily::Gguf;
        qs::QuantizeCheckpointOptions opt;
        opt.format = id;
        opt.threads = 1;
        const fs::path out = fs::path(outDir) / "tmp" / ("q-" + id);
        try {
            const auto r = qs::quantizeCheckpoint(gguf ? *srcGguf : *src, out.string(), opt);
            if (fs::is_directory(r.output)) {
                seedFolder("target-" + id, r.output);
            } else {
                const auto b = readAll(r.output);
                writeSeed("fuzz_gguf", "target-" + id + ".gguf", std::string(b.begin(), b.end()));
            }
        } catch (const qs::Error& e) {
            std::fprintf(stderr, "make_seeds: no seed for %s: %s\n", id.c_str(), e.what());
        }
    }
}

// The folder rules (container/folder.h): each folder is a seed, and the sharded one also
// seeds fuzz_json with its index.
void seedFolders(const fs::path& tiny)
{
    const fs::path tmp = fs::path(outDir) / "tmp";
    const auto src = qs::openCheckpoint(tiny.string());
    std::vector<qs::SafetensorsTensor> all;
    for (const auto& t : src->tensors)
        all.push_back({t.name, t.dtype, t.shape, src->bytes(t)});
    const std::vector<qs::SafetensorsTensor> first(all.begin(), all.begin() + 2), second(all.begin() + 2, all.end());

    const fs::path sharded = tmp / "sharded";
    fs::create_directories(sharded);
    qs::writeSafetensorsSharded(sharded.string(), {{qs::shardFileName(0, 2), first}, {qs::shardFileName(1, 2), second}});
    seedFolder("sharded", sharded);

    const fs::path shardsOnly = tmp / "shards-consolidated";
    fs::create_directories(shardsOnly);
    fs::copy(sharded / qs::shardFileName(0, 2), shardsOnly);
    fs::copy(sharded / qs::shardFileName(1, 2), shardsOnly);
    qs::writeSafetensors((shardsOnly / "consolidated.safetensors").string(), all);
    seedFolder("shards-consolidated", shardsOnly);

    const fs::path adapter = tmp / "model-adapter";
    fs::create_directories(adapter);
    fs::copy(tiny / "model.safetensors", adapter);
    qs::writeSafetensors((adapter / "adapters.safetensors").string(), second);
    seedFolder("model-adapter", adapter);

    const fs::path twoSets = tmp / "two-sets";
    fs::create_directories(twoSets);
    fs::copy(sharded / qs::shardFileName(0, 2), twoSets);
    fs::copy(sharded / qs::shardFileName(1, 2), twoSets);
    qs::writeSafetensors((twoSets / "other-00001-of-00001.safetensors").string(), first);
    seedFolder("two-sets", twoSets);

    const fs::path incomplete = tmp / "incomplete";
    fs::create_directories(incomplete);
    fs::copy(sharded / qs::shardFileName(0, 2), incomplete);
    seedFolder("incomplete", incomplete);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_seeds FIXTURES_DIR OUT_DIR\n");
        return 2;
    }
    outDir = argv[2];
    try {
        fs::create_directories(outDir + "/tmp");
        seedFixtureTensors(std::string(argv[1]) + "/gguf/ggml-types.gguf");
        seedEveryValueType();
        const fs::path tiny = fs::path(outDir) / "tmp" / "tiny";
        const fs::path tinyGguf = fs::path(outDir) / "tmp" / "tiny.gguf";
        writeTinyModel(tiny);
        writeTinyGguf(tinyGguf);
        seedQuantizeTargets(tiny, tinyGguf);
        seedFolders(tiny);
        fs::remove_all(outDir + "/tmp");
        std::printf("%zu seeds\n", seedCount);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_seeds: %s\n", e.what());
        return 2;
    }
    return 0;
}
