// Writes the fuzz targets' seeds (run by run-fuzzers.sh) into OUT_DIR/<target>/:
// - fuzz_gguf: one small GGUF per tensor of the ggml-types fixture (mutating the whole 600 KiB
//   file runs ~50x slower), a GGUF holding every metadata value type, nested arrays and
//   empty arrays in versions 1, 2 and 3, and the output of every GGUF quantize target;
// - the folder targets (fuzz_safetensors, fuzz_detect_dequant, fuzz_stats, fuzz_verify and
//   fuzz_diff: itself, a mutated copy, and each output against its float source): packed
//   folders (fuzzcommon.h) of each safetensors fixture with its configs, every quantize
//   target's output (each family's tensors and configs; a GGUF as a folder of one), a sharded
//   index with its shards, and the folder rules' cases (an adapter beside model.safetensors, consolidated.safetensors
//   beside shards, two shard sets, an incomplete set);
// - fuzz_json: the configs and indexes written above (and the fixtures' configs);
// - fuzz_imatrix: an importance matrix in each llama-imatrix format (GGUF with in_sum2, counts
//   and in_sum for a plain weight and two experts; legacy .dat with and without its trailer);
// - from CORPUS_DIR (tests/corpus), every entry into every target that reads its kind: a folder
//   or a .safetensors packed for the folder targets, a .gguf as it is for fuzz_gguf and
//   fuzz_imatrix (and packed for the folder targets), each JSON file and safetensors header for
//   fuzz_json, and the files of a fuzz_<target>/ folder (a target's own finding) as they are;
// - fuzz_pytorch: every packed folder above, and CORPUS_DIR/../data/pytorch's archives whole, their
//   data.pkl alone and their folders packed.
// usage: make_seeds FIXTURES_DIR OUT_DIR [CORPUS_DIR]
//        make_seeds --corpus CORPUS_DIR OUT_DIR   (the corpus only: replay-corpus.sh)
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
    std::ofstream(outDir + "/" + target + "/" + name, std::ios::binary)
        .write(bytes.data(), std::streamsize(bytes.size()));
    ++seedCount;
}

// Every file of `dir` packed as one folder (fuzzcommon.h), without a target's layout byte.
std::string packDir(const fs::path& dir)
{
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file())
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::string out;
    for (const auto& f : files)
        qsfuzz::appendPacked(out, f.filename().string(), readAll(f));
    return out;
}

// A safetensors file's JSON header (8-byte little-endian length, then the JSON) for fuzz_json.
void seedHeader(const std::string& name, const std::vector<uint8_t>& file)
{
    if (file.size() < 8)
        return;
    uint64_t len = 0;
    for (int i = 0; i < 8; ++i)
        len |= uint64_t(file[size_t(i)]) << (8 * i);
    if (len <= file.size() - 8)
        writeSeed("fuzz_json", name + "-header", std::string(file.begin() + 8, file.begin() + 8 + std::ptrdiff_t(len)));
}

std::string text(const std::vector<uint8_t>& b)
{
    return {b.begin(), b.end()};
}

// The first byte of a folder target's input: the packed-folder layout, and in the high 5 bits
// the target's own choice (fuzz_stats: the requantization; fuzz_diff: what B is).
char folderMode(unsigned choice)
{
    return char(qsfuzz::kPackedFolderLayout | (choice << 3));
}

// diff's third mode: A and B packed one after the other, A's length first.
std::string pairedInput(const std::string& a, const std::string& b)
{
    std::string out(1, folderMode(2));
    for (int i = 0; i < 4; ++i)
        out += char((a.size() >> (8 * i)) & 0xff);
    return out + a + b;
}

// One checkpoint as a packed folder (the bytes after the layout byte) for every folder target.
void seedPacked(const std::string& name, const std::string& packed)
{
    writeSeed("fuzz_safetensors", name, char(2) + packed);
    writeSeed("fuzz_pytorch", name, char(2) + packed);
    writeSeed("fuzz_detect_dequant", name, folderMode(0) + packed);
    writeSeed("fuzz_verify", name, folderMode(0) + packed);
    // A requantization that changes from seed to seed (the fuzzer mutates it anyway).
    writeSeed("fuzz_stats", name, folderMode(unsigned(std::hash<std::string>{}(name) % 32)) + packed);
    writeSeed("fuzz_diff", name + "-self", folderMode(0) + packed);
    writeSeed("fuzz_diff", name + "-mutated", folderMode(1) + packed);
}

std::string packFile(const fs::path& file)
{
    std::string out;
    qsfuzz::appendPacked(out, file.filename().string(), readAll(file));
    return out;
}

void seedFolder(const std::string& name, const fs::path& dir)
{
    seedPacked(name, packDir(dir));
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json")
            writeSeed("fuzz_json", name + "-" + e.path().filename().string(), text(readAll(e.path())));
}

// tests/corpus: see the header comment.
void seedCorpus(const fs::path& corpus)
{
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(corpus))
        if (e.path().filename() != "README.md")
            entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const fs::path& e : entries) {
        const std::string name = "corpus-" + e.filename().string();
        if (fs::is_directory(e) && e.filename().string().starts_with("fuzz_")) {
            for (const auto& f : fs::directory_iterator(e))
                writeSeed(e.filename().string(), name + "-" + f.path().filename().string(), text(readAll(f.path())));
        } else if (fs::is_directory(e)) {
            seedFolder(name, e);
            for (const auto& f : fs::directory_iterator(e))
                if (f.path().extension() == ".safetensors")
                    seedHeader(name + "-" + f.path().filename().string(), readAll(f.path()));
        } else if (e.extension() == ".json") {
            writeSeed("fuzz_json", name, text(readAll(e)));
        } else {
            const std::vector<uint8_t> bytes = readAll(e);
            seedPacked(name, packFile(e));
            if (e.extension() == ".gguf") {
                writeSeed("fuzz_gguf", name, text(bytes));
                writeSeed("fuzz_imatrix", name, text(bytes));
            } else if (e.extension() == ".safetensors") {
                writeSeed("fuzz_safetensors", name + "-file", char(0) + text(bytes));
                seedHeader(name, bytes);
            }
        }
    }
}

// tests/data/pytorch (torch.save archives, hostile ones included) for fuzz_pytorch: each file as
// it is, its data.pkl alone (found through its stored record's local header) for the unpickler,
// and each folder packed.
void seedPytorch(const fs::path& dir)
{
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = "torch-" + e.path().filename().string();
        if (fs::is_directory(e)) {
            writeSeed("fuzz_pytorch", name, char(2) + packDir(e.path()));
            continue;
        }
        const std::vector<uint8_t> b = readAll(e.path());
        writeSeed("fuzz_pytorch", name, char(1) + text(b));
        const std::string_view bytes(reinterpret_cast<const char*>(b.data()), b.size());
        for (size_t at = bytes.find("PK\x03\x04"); at != std::string_view::npos && at + 30 <= b.size();
             at = bytes.find("PK\x03\x04", at + 4)) {
            const size_t nameLen = b[at + 26] | size_t(b[at + 27]) << 8,
                         extraLen = b[at + 28] | size_t(b[at + 29]) << 8;
            const size_t stored =
                b[at + 22] | size_t(b[at + 23]) << 8 | size_t(b[at + 24]) << 16 | size_t(b[at + 25]) << 24;
            const size_t data = at + 30 + nameLen + extraLen;
            // torch writes a record's sizes after its data (flag bit 3): then it runs to the next signature.
            const size_t size = stored ? stored : std::min(bytes.find("PK", data), b.size()) - std::min(data, b.size());
            if (data + size <= b.size() && bytes.substr(at + 30, nameLen).ends_with("/data.pkl"))
                writeSeed("fuzz_pytorch", name + "-data.pkl", char(0) + std::string(bytes.substr(data, size)));
        }
    }
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
    std::ofstream(dir / "config.json")
        << R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":128})";
}

// The same model as an F16 GGUF with llama.cpp's names, 256 wide so that the k-quants' blocks
// fit: GGUF quantize targets keep tensor names, so they take a GGUF input.
void writeTinyGguf(const fs::path& file)
{
    static const std::vector<uint8_t> big = f16Ones(32 * 256), embed = f16Ones(16 * 256), norm = f16Ones(256);
    constexpr int f16 = qs::GgmlF16;
    const std::vector<qs::GgufTensor> t = {
        {"token_embd.weight", f16, {256, 16}, embed}, {"blk.0.attn_q.weight", f16, {256, 32}, big},
        {"blk.0.ffn_up.weight", f16, {256, 32}, big}, {"blk.0.attn_norm.weight", f16, {256}, norm},
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
        {"t.arr.nested",
         array(T::Array,
               {array(T::U16, {meta(T::U16, uint64_t(3))}),
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
            // diff against the float source: the error of every quantize target.
            if (fs::is_directory(r.output)) {
                seedFolder("target-" + id, r.output);
                writeSeed("fuzz_diff", "target-" + id + "-vs-source",
                          pairedInput(folderMode(0) + packDir(r.output), folderMode(0) + packDir(tiny)));
            } else {
                writeSeed("fuzz_gguf", "target-" + id + ".gguf", text(readAll(r.output)));
                seedPacked("target-" + id + ".gguf", packFile(r.output));
                writeSeed("fuzz_diff", "target-" + id + "-vs-source",
                          pairedInput(folderMode(0) + packFile(r.output), folderMode(0) + packFile(tinyGguf)));
            }
        } catch (const qs::Error& e) {
            std::fprintf(stderr, "make_seeds: no seed for %s: %s\n", id.c_str(), e.what());
        }
    }
    // Hugging Face names against llama.cpp's: the name mapping, the q/k permutation's head counts.
    writeSeed("fuzz_diff", "tiny-vs-gguf",
              pairedInput(folderMode(0) + packDir(tiny), folderMode(0) + packFile(tinyGguf)));
}

// Each safetensors fixture folder with its configs, as the CLI opens it.
void seedFixtureFolders(const fs::path& fixtures)
{
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(fixtures / "safetensors"))
        if (e.is_directory())
            dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& d : dirs)
        seedFolder("fixture-" + d.filename().string(), d);
}

// The folder rules (container/folder.h): each folder is a seed, and the sharded one also
// seeds fuzz_json with its index.
void seedFolders(const fs::path& tiny)
{
    const fs::path tmp = fs::path(outDir) / "tmp";
    const auto src = qs::openCheckpoint(tiny.string());
    std::vector<qs::SafetensorsTensor> all;
    for (const auto& t : src->tensors)
        all.push_back({std::string(t.name), t.dtype, t.shape, src->bytes(t)});
    const std::vector<qs::SafetensorsTensor> first(all.begin(), all.begin() + 2), second(all.begin() + 2, all.end());

    const fs::path sharded = tmp / "sharded";
    fs::create_directories(sharded);
    qs::writeSafetensorsSharded(sharded.string(),
                                {{qs::shardFileName(0, 2), first}, {qs::shardFileName(1, 2), second}});
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

void putInt32(std::string& out, int32_t v)
{
    out.append(reinterpret_cast<const char*>(&v), 4);
}

void seedImatrix()
{
    using T = qs::MetaValue::Type;
    const qs::GgufMetadata md = {{"general.type", meta(T::String, std::string("imatrix"))},
                                 {"imatrix.datasets", array(T::String, {meta(T::String, std::string("calib.txt"))})},
                                 {"imatrix.chunk_count", meta(T::U32, uint64_t(4))},
                                 {"imatrix.chunk_size", meta(T::U32, uint64_t(512))}};
    std::vector<float> sums(16), counts{3, 0};
    for (size_t i = 0; i < sums.size(); ++i)
        sums[i] = float(i + 1);
    const auto bytesOf = [](const std::vector<float>& v) {
        return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                    reinterpret_cast<const uint8_t*>(v.data() + v.size()));
    };
    const std::vector<uint8_t> s8 = bytesOf({sums.begin(), sums.begin() + 8}), s16 = bytesOf(sums), c1 = bytesOf({2}),
                               c2 = bytesOf(counts);
    const std::vector<qs::GgufTensor> tensors = {{"blk.0.attn_q.weight.in_sum2", 0, {8, 1}, s8},
                                                 {"blk.0.attn_q.weight.counts", 0, {1, 1}, c1},
                                                 {"blk.0.attn_q.weight.in_sum", 0, {8, 1}, s8},
                                                 {"blk.0.ffn_up_exps.weight.in_sum2", 0, {8, 2}, s16},
                                                 {"blk.0.ffn_up_exps.weight.counts", 0, {1, 2}, c2}};
    const std::string p = (fs::path(outDir) / "tmp" / "imatrix.gguf").string();
    qs::writeGguf(p, md, tensors);
    const auto b = readAll(p);
    writeSeed("fuzz_imatrix", "imatrix.gguf", std::string(b.begin(), b.end()));
    // The legacy layout: entry count; per entry name length, name, ncall, value count, values;
    // then the last-call count and the dataset name.
    std::string dat;
    putInt32(dat, 2);
    for (const auto& [name, n] :
         {std::pair<std::string, int32_t>{"blk.0.attn_q.weight", 8}, {"blk.0.ffn_down.weight", 32}}) {
        putInt32(dat, int32_t(name.size()));
        dat += name;
        putInt32(dat, 3);
        putInt32(dat, n);
        for (int32_t i = 0; i < n; ++i) {
            const float v = float(i) * 0.5f;
            dat.append(reinterpret_cast<const char*>(&v), 4);
        }
    }
    writeSeed("fuzz_imatrix", "legacy-old.dat", dat);
    putInt32(dat, 4);
    putInt32(dat, 9);
    dat += "calib.txt";
    writeSeed("fuzz_imatrix", "legacy.dat", dat);
}

} // namespace

int main(int argc, char** argv)
{
    const bool corpusOnly = argc == 4 && std::string_view(argv[1]) == "--corpus";
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr,
                     "usage: make_seeds FIXTURES_DIR OUT_DIR [CORPUS_DIR]\n"
                     "       make_seeds --corpus CORPUS_DIR OUT_DIR\n");
        return 2;
    }
    outDir = argv[corpusOnly ? 3 : 2];
    try {
        if (corpusOnly) {
            seedCorpus(argv[2]);
            std::printf("%zu seeds\n", seedCount);
            return 0;
        }
        if (argc == 4) {
            seedCorpus(argv[3]);
            if (const fs::path torch = fs::path(argv[3]) / ".." / "data" / "pytorch"; fs::is_directory(torch))
                seedPytorch(torch);
        }
        fs::create_directories(outDir + "/tmp");
        seedFixtureTensors(std::string(argv[1]) + "/gguf/ggml-types.gguf");
        seedFixtureFolders(argv[1]);
        seedEveryValueType();
        seedImatrix();
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
