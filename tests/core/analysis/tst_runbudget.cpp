// Memory for running a model: KV cache figures for published configurations computed by hand
// from llama.cpp's rule (row bytes of the cache type x cells x layers), the architecture read
// from GGUF metadata and config.json, the offload split, the buffers and the searches.
#include "analysis/runbudget.h"
#include "base/error.h"
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "container/gguf.h"

#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

qs::ModelArch preset(const char* name)
{
    const auto a = qs::archPreset(name);
    if (!a)
        qFatal("no preset %s", name);
    return *a;
}

qs::WeightSplit noWeights(const qs::ModelArch& a)
{
    qs::WeightSplit w;
    w.layers.assign(a.layers, 0);
    return w;
}

qs::RunBudget kv(const char* name, uint64_t ctx, int typeK = qs::GgmlF16, int typeV = qs::GgmlF16, bool swaFull = false)
{
    const qs::ModelArch a = preset(name);
    qs::RunOptions o;
    o.context = ctx;
    o.typeK = typeK;
    o.typeV = typeV;
    o.swaFull = swaFull;
    return qs::runBudget(a, noWeights(a), o);
}

qs::MetaValue u32(uint64_t v)
{
    return {qs::MetaValue::Type::U32, qs::MetaValue::Type::U8, v};
}

qs::MetaValue str(const char* s)
{
    return {qs::MetaValue::Type::String, qs::MetaValue::Type::U8, std::string(s)};
}

bool errorMentions(const std::function<void()>& f, const char* what)
{
    try {
        f();
    } catch (const qs::Error& e) {
        if (std::string(e.what()).find(what) != std::string::npos)
            return true;
        qWarning("error without '%s': %s", what, e.what());
        return false;
    }
    qWarning("no error");
    return false;
}

} // namespace

class TestRunBudget : public QObject {
    Q_OBJECT
private slots:
    // Llama-3-8B: 32 layers, 8 KV heads of 128 -> K and V rows of 1024 elements per layer.
    void llama3Exact()
    {
        // f16: 1024 x 2 bytes x 2 (K, V) x 32 layers x 8192 cells = 1 GiB.
        const qs::RunBudget f16 = kv("llama-3-8b", 8192);
        QCOMPARE(f16.kvCacheBytes, uint64_t(1024) * 2 * 2 * 32 * 8192);
        QCOMPARE(f16.kvCacheBytes, uint64_t(1073741824));
        QCOMPARE(f16.kvBytesPerToken, uint64_t(131072));
        QCOMPARE(f16.layers[5].kBytes, uint64_t(1024) * 2 * 8192);
        // q8_0: 32 blocks of 34 bytes per 1024 elements = 1088 bytes a row.
        const qs::RunBudget q8 = kv("llama-3-8b", 8192, qs::GgmlQ8_0, qs::GgmlQ8_0);
        QCOMPARE(q8.kvCacheBytes, uint64_t(1088) * 2 * 32 * 8192);
        QCOMPARE(q8.kvCacheBytes, uint64_t(570425344));
        // q4_0 K (18 bytes per 32) with f16 V.
        QCOMPARE(kv("llama-3-8b", 8192, qs::GgmlQ4_0, qs::GgmlF16).kvCacheBytes, (uint64_t(576) + 2048) * 32 * 8192);
        // Every other cache type: a row is 1024 / block x block bytes.
        const std::pair<int, uint64_t> rows[] = {{qs::GgmlF32, 4096}, {qs::GgmlBF16, 2048}, {qs::GgmlQ4_1, 640},
                                                 {qs::GgmlQ5_0, 704}, {qs::GgmlQ5_1, 768},  {qs::GgmlIQ4_NL, 576}};
        for (const auto& [type, row] : rows)
            QCOMPARE(kv("llama-3-8b", 8192, type, type).kvCacheBytes, row * 2 * 32 * 8192);
        // The output buffer: 128256 logits of 4 bytes for the one sequence.
        QCOMPARE(f16.outputBytes, uint64_t(128256) * 4);
    }

    void publishedConfigurations()
    {
        // Mistral 7B: 32 layers x 8 x 128, the same cache as Llama-3-8B (llama.cpp runs it
        // as "llama", without its sliding window).
        QCOMPARE(kv("mistral-7b", 8192).kvCacheBytes, uint64_t(1073741824));
        // Qwen2.5-7B: 28 layers x 4 KV heads x 128 = 512-element rows.
        QCOMPARE(kv("qwen2.5-7b", 8192).kvCacheBytes, uint64_t(28) * 512 * 2 * 2 * 8192);
        QCOMPARE(kv("qwen2.5-7b", 8192).kvCacheBytes, uint64_t(469762048));
        // Qwen3-8B: 36 x 8 x 128.
        QCOMPARE(kv("qwen3-8b", 8192).kvCacheBytes, uint64_t(36) * 1024 * 2 * 2 * 8192);
        // Qwen3-30B-A3B (MoE; experts do not touch the cache): 48 x 4 x 128.
        QCOMPARE(kv("qwen3-30b-a3b", 8192).kvCacheBytes, uint64_t(805306368));
        // Mixtral 8x7B: 32 x 8 x 128.
        QCOMPARE(kv("mixtral-8x7b", 32768).kvCacheBytes, uint64_t(4) * 1073741824);
        // Phi-3-mini: 32 layers x 32 KV heads x 96 = 3072; at its 4096 tokens 1.5 GiB.
        QCOMPARE(kv("phi-3-mini", 4096).kvCacheBytes, uint64_t(32) * 3072 * 2 * 2 * 4096);
        QCOMPARE(kv("phi-3-mini", 4096).kvCacheBytes, uint64_t(1610612736));
        // Llama-3.1-70B: 80 x 8 x 128 at 131072: 40 GiB.
        QCOMPARE(kv("llama-3.1-70b", 131072).kvCacheBytes, uint64_t(80) * 1024 * 4 * 131072);
    }

    void slidingWindow()
    {
        // Gemma-2-9B: 42 layers, the even ones slide over 4096 tokens; 8 KV heads x 256 =
        // 2048-element rows, 8192 bytes a cell for K and V in f16.
        // 21 global layers x 8192 cells + 21 sliding layers x (4096 + 512 ubatch) cells.
        const qs::RunBudget g2 = kv("gemma-2-9b", 8192);
        QCOMPARE(g2.layers[0].kind, qs::LayerMemory::Sliding);
        QCOMPARE(g2.layers[1].kind, qs::LayerMemory::Full);
        QCOMPARE(g2.layers[0].cells, uint64_t(4608));
        QCOMPARE(g2.kvCacheBytes, uint64_t(21) * 8192 * 8192 + uint64_t(21) * 8192 * 4608);
        QCOMPARE(g2.kvCacheBytes, uint64_t(2202009600));
        // --swa-full: every layer the whole context.
        QCOMPARE(kv("gemma-2-9b", 8192, qs::GgmlF16, qs::GgmlF16, true).kvCacheBytes, uint64_t(42) * 8192 * 8192);
        // Below the window the sliding layers hold the whole (shorter) context.
        QCOMPARE(kv("gemma-2-9b", 4096).kvCacheBytes, uint64_t(42) * 8192 * 4096);
        // Gemma-3-12B: 48 layers, 5 of every 6 slide over 1024; 8 x 256. At 32768:
        // 8 global x 32768 + 40 sliding x (1024 + 512), 8192 bytes a cell.
        const qs::RunBudget g3 = kv("gemma-3-12b", 32768);
        QCOMPARE(g3.layers[5].kind, qs::LayerMemory::Full);
        QCOMPARE(g3.layers[4].kind, qs::LayerMemory::Sliding);
        QCOMPARE(g3.kvCacheBytes, uint64_t(8) * 8192 * 32768 + uint64_t(40) * 8192 * 1536);
        QCOMPARE(g3.kvCacheBytes, uint64_t(2650800128));
        // Gemma-3-27B: 62 layers (10 global), 16 x 128 = 2048 elements.
        QCOMPARE(kv("gemma-3-27b", 131072).kvCacheBytes, uint64_t(10) * 8192 * 131072 + uint64_t(52) * 8192 * 1536);
    }

    void mlaAndRecurrent()
    {
        // DeepSeek-V3 (MLA): one K row of kv_lora_rank 512 + rope 64 = 576 per layer, no V.
        QCOMPARE(kv("deepseek-v3", 8192).kvCacheBytes, uint64_t(61) * 576 * 2 * 8192);
        QCOMPARE(kv("deepseek-v3", 8192).kvCacheBytes, uint64_t(575668224));
        // q8_0: 18 blocks x 34 = 612 bytes.
        QCOMPARE(kv("deepseek-v3", 8192, qs::GgmlQ8_0, qs::GgmlQ8_0).kvCacheBytes, uint64_t(61) * 612 * 8192);
        // Mamba-2.8B: per layer and sequence (d_conv - 1) x d_inner + d_state x d_inner f32
        // = (3 + 16) x 5120 x 4 bytes, 64 layers; no KV cache, independent of the context.
        const qs::ModelArch m = preset("mamba-2.8b");
        qs::RunOptions o;
        o.context = 65536;
        o.parallel = 4;
        const qs::RunBudget r = qs::runBudget(m, noWeights(m), o);
        QCOMPARE(r.kvCacheBytes, uint64_t(0));
        QCOMPARE(r.recurrentBytes, uint64_t(64) * 19 * 5120 * 4 * 4);
        QCOMPARE(r.outputBytes, uint64_t(50280) * 4 * 4);
    }

    void parallelSequences()
    {
        // -c 8192 -np 3: each stream pad(8192 / 3 = 2730, 256) = 2816 cells, 3 streams.
        const qs::ModelArch a = preset("llama-3-8b");
        qs::RunOptions o;
        o.context = 8192;
        o.parallel = 3;
        const qs::RunBudget r = qs::runBudget(a, noWeights(a), o);
        QCOMPARE(r.cellsPerStream, uint64_t(2816));
        QCOMPARE(r.nCtx, uint64_t(8448));
        QCOMPARE(r.kvCacheBytes, uint64_t(131072) * 8448);
        QCOMPARE(r.outputBytes, uint64_t(128256) * 4 * 3);
        // -c 1000 pads to 1024.
        o.parallel = 1;
        o.context = 1000;
        QCOMPARE(qs::runBudget(a, noWeights(a), o).kvCacheBytes, uint64_t(131072) * 1024);
        // Unified with a sliding window: the window once per sequence plus a ubatch.
        const qs::ModelArch g = preset("gemma-2-9b");
        o.context = 16384;
        o.parallel = 2;
        o.unifiedKv = true;
        const qs::RunBudget u = qs::runBudget(g, noWeights(g), o);
        QCOMPARE(u.layers[0].cells, uint64_t(4096) * 2 + 512);
        QCOMPARE(u.layers[1].cells, uint64_t(16384));
    }

    void offloadSplit()
    {
        // 4 blocks; input 1000, blocks 100 each, output 10, tied copy 7.
        qs::ModelArch a = preset("llama-3-8b");
        a.layers = 4;
        a.heads.resize(4);
        a.headsKv.resize(4);
        a.kinds.resize(4);
        qs::WeightSplit w;
        w.input = 1000;
        w.layers = {100, 100, 100, 100};
        w.output = 10;
        w.outputDuplicate = 7;
        qs::RunOptions o;
        o.context = 256;
        o.gpuLayers = 2; // the last two blocks
        qs::RunBudget r = qs::runBudget(a, w, o);
        QCOMPARE(r.devices.size(), size_t(2));
        QCOMPARE(r.devices[0].weights, uint64_t(1000 + 200 + 10));
        QCOMPARE(r.devices[1].weights, uint64_t(200));
        QCOMPARE(r.layers[1].device, 0);
        QCOMPARE(r.layers[2].device, 1);
        QCOMPARE(r.devices[1].kvCache, uint64_t(2) * 4096 * 256);
        // -ngl 4 = every block, the output still on the CPU; -ngl 5 adds the output layer and
        // with it the tied embedding's copy. The input embedding never moves.
        o.gpuLayers = 4;
        r = qs::runBudget(a, w, o);
        QCOMPARE(r.devices[0].weights, uint64_t(1010));
        o.gpuLayers = 5;
        r = qs::runBudget(a, w, o);
        QCOMPARE(r.devices[0].weights, uint64_t(1000));
        QCOMPARE(r.devices[1].weights, uint64_t(400 + 10 + 7));
        QVERIFY(r.devices[1].hasOutput);
        QCOMPARE(r.devices[0].output, uint64_t(128256) * 4); // logits stay in host memory
        // Two GPUs of 24 and 8 GiB: splits 0.75, 1; layer il goes where (il - 0) / 5 falls:
        // 0, 0.2, 0.4, 0.6 -> GPU0; 0.8 (the output) -> GPU1.
        r = qs::runBudget(a, w, o, {64, 24, 8});
        QCOMPARE(r.devices.size(), size_t(3));
        QCOMPARE(r.devices[1].weights, uint64_t(400));
        QCOMPARE(r.devices[2].weights, uint64_t(17));
        QCOMPARE(r.devices[0].capacity.value(), uint64_t(64) << 30);
        QCOMPARE(r.devices[2].capacity.value(), uint64_t(8) << 30);
    }

    void weightsFromParams()
    {
        // 1000 params at 16 bits, vocab 10 x embd 4: 80 bytes of embedding, twice when untied.
        qs::ModelArch a = preset("llama-3-8b");
        a.vocab = 10;
        a.embd = 4;
        const qs::WeightSplit w = qs::weightSplitOfParams(a, 1000, 16);
        QCOMPARE(w.input, uint64_t(80));
        QCOMPARE(w.output, uint64_t(80));
        QCOMPARE(w.layers[0], uint64_t((2000 - 160) / 32));
    }

    void searches()
    {
        const qs::ModelArch a = preset("llama-3-8b");
        const qs::WeightSplit w = qs::weightSplitOfParams(a, a.params, 4.5);
        qs::RunOptions o;
        // The whole trained context fits in 64 GiB.
        QCOMPARE(qs::maxContext(a, w, o, {64}).value(), uint64_t(8192));
        // In 5 GiB: the answer fits and 256 more does not.
        const auto m = qs::maxContext(a, w, o, {5});
        QVERIFY(m && *m % 256 == 0 && *m < 8192);
        o.context = *m;
        QVERIFY(qs::runBudget(a, w, o, {5}).fits());
        o.context = *m + 256;
        QVERIFY(!qs::runBudget(a, w, o, {5}).fits());
        // Nothing fits in 1 GiB (4.2 GiB of weights).
        QVERIFY(!qs::maxContext(a, w, o, {1}));
        // The cache type that makes a context fit: a budget between the q8_0 and the f16 totals.
        o.context = 8192;
        o.typeK = o.typeV = qs::GgmlQ8_0;
        const double q8GiB = double(qs::runBudget(a, w, o).totalBytes()) / 1073741824.0;
        QCOMPARE(qs::cacheTypeThatFits(a, w, o, {q8GiB + 0.01}).value(), int(qs::GgmlQ8_0));
        QCOMPARE(qs::cacheTypeThatFits(a, w, o, {200}).value(), int(qs::GgmlF32));
        QVERIFY(!qs::cacheTypeThatFits(a, w, o, {1}));
        // Common contexts, capped at the trained 8192 / 4096.
        QCOMPARE(qs::commonContexts(a), (std::vector<uint64_t>{2048, 4096, 8192}));
        QCOMPARE(qs::commonContexts(preset("gemma-3-12b")).back(), uint64_t(131072));
        qs::ModelArch small = a;
        small.contextLength = 3000;
        QCOMPARE(qs::commonContexts(small), (std::vector<uint64_t>{2048, 3000}));
    }

    void refusals()
    {
        qs::ModelArch a = preset("phi-3-mini");
        a.headsKv.assign(a.layers, 1);
        a.keyLength = a.valueLength = 80; // 80-element rows: not whole blocks of 32
        qs::RunOptions o;
        o.typeK = qs::GgmlQ4_0;
        QVERIFY(errorMentions([&] { qs::runBudget(a, noWeights(a), o); }, "layer 0's K row has 80"));
        o.typeK = qs::GgmlF16;
        o.typeV = qs::GgmlQ8_0;
        o.flashAttention = false;
        a = preset("llama-3-8b");
        QVERIFY(errorMentions([&] { qs::runBudget(a, noWeights(a), o); }, "only with flash attention"));
        o = {};
        o.typeK = qs::GgmlQ4_K;
        QVERIFY(errorMentions([&] { qs::runBudget(a, noWeights(a), o); }, "not a KV cache type"));
        QCOMPARE(qs::kvCacheTypeByName("Q8_0").value(), int(qs::GgmlQ8_0));
        QVERIFY(!qs::kvCacheTypeByName("q4_k"));
        QCOMPARE(qs::kvCacheTypeName(qs::GgmlIQ4_NL), std::string("iq4_nl"));
        // The cache sizes come from the ggml type table.
        for (int t : qs::kvCacheTypes())
            QVERIFY(qs::ggmlType(t)->hasSize());
    }

    void fromGguf()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("tiny.gguf")).toStdString();
        std::vector<qs::MetaValue> kvHeads{u32(2), u32(1)};
        qs::GgufMetadata meta{
            {"general.architecture", str("llama")},
            {"llama.block_count", u32(2)},
            {"llama.embedding_length", u32(64)},
            {"llama.context_length", u32(512)},
            {"llama.attention.head_count", u32(4)},
            {"llama.attention.head_count_kv", {qs::MetaValue::Type::Array, qs::MetaValue::Type::U32, kvHeads}},
            {"llama.vocab_size", u32(100)},
        };
        std::vector<uint8_t> embd(64 * 4 * 4), q(64 * 2 * 4), q1(64 * 4), norm(64 * 4);
        qs::writeGguf(path, meta,
                      {{"token_embd.weight", 0, {64, 4}, embd},
                       {"blk.0.attn_q.weight", 0, {64, 2}, q},
                       {"blk.1.attn_q.weight", 0, {64, 1}, q1},
                       {"output_norm.weight", 0, {64}, norm}});
        const auto c = qs::Checkpoint::read(path);
        const qs::ModelArch a = qs::modelArchOf(*c);
        QCOMPARE(a.layers, 2u);
        QCOMPARE(a.keyLength, 16u); // 64 / 4 heads
        QCOMPARE(a.headsKv, (std::vector<uint32_t>{2, 1}));
        const qs::WeightSplit w = qs::weightSplitOf(*c, a);
        QCOMPARE(w.input, uint64_t(1024));
        QCOMPARE(w.layers, (std::vector<uint64_t>{512, 256}));
        QCOMPARE(w.output, uint64_t(256));
        QCOMPARE(w.outputDuplicate, uint64_t(1024)); // no output.weight: token_embd is reused
        qs::RunOptions o;
        o.context = 256;
        // Layer 0: 2 heads x 16 = 32 elements, 64 bytes for K and for V; layer 1 half.
        QCOMPARE(qs::runBudget(a, w, o).kvCacheBytes, uint64_t(64 + 64 + 32 + 32) * 256);
        // Without flash attention V is transposed and every layer's V row is the widest.
        o.flashAttention = false;
        QCOMPARE(qs::runBudget(a, w, o).kvCacheBytes, uint64_t(64 + 64 + 32 + 64) * 256);
        o.flashAttention = true;
        o.typeK = qs::GgmlQ8_0;
        QVERIFY(errorMentions([&] { qs::runBudget(a, w, o); }, "layer 1's K row has 16"));

        // A key missing, an array of the wrong length, an unknown architecture.
        auto without = [&](const std::string& key) {
            qs::GgufMetadata m;
            for (const auto& kv : meta)
                if (kv.first != key)
                    m.push_back(kv);
            qs::writeGguf(path, m, {{"blk.0.attn_q.weight", 0, {64, 2}, q}});
            return qs::Checkpoint::read(path);
        };
        QVERIFY(errorMentions([&] { qs::modelArchOf(*without("llama.block_count")); }, "llama.block_count is missing"));
        QVERIFY(errorMentions([&] { qs::modelArchOf(*without("llama.attention.head_count")); },
                              "llama.attention.head_count is missing"));
        QVERIFY(errorMentions([&] { qs::modelArchOf(*without("general.architecture")); },
                              "general.architecture is missing"));
        meta[0].second = str("llama");
        meta[1].second = u32(3);
        qs::writeGguf(path, meta, {{"blk.0.attn_q.weight", 0, {64, 2}, q}});
        QVERIFY(errorMentions([&] { qs::modelArchOf(*qs::Checkpoint::read(path)); }, "has 2 values for 3 layers"));
        meta[0].second = str("rwkv7");
        qs::writeGguf(path, meta, {{"blk.0.attn_q.weight", 0, {64, 2}, q}});
        QVERIFY(errorMentions([&] { qs::modelArchOf(*qs::Checkpoint::read(path)); },
                              "'rwkv7' is not one whose memory rules"));
    }

    // A file without weights (vocab-only) or with fewer blocks than its metadata names is
    // budgeted with a note saying so (issue 29: weights 0 B, and 40 blocks from block 0 alone,
    // without a word); every block held: no note.
    void heldBlocks()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("part.gguf")).toStdString();
        qs::GgufMetadata meta{
            {"general.architecture", str("llama")}, {"llama.block_count", u32(8)},
            {"llama.embedding_length", u32(64)},    {"llama.context_length", u32(512)},
            {"llama.attention.head_count", u32(4)}, {"llama.attention.head_count_kv", u32(4)},
            {"llama.vocab_size", u32(100)},
        };
        std::vector<uint8_t> q(64 * 2 * 4);
        const auto notesOf = [&](const std::vector<int>& blocks) {
            std::vector<qs::GgufTensor> tensors;
            for (int b : blocks)
                tensors.push_back({"blk." + std::to_string(b) + ".attn_q.weight", 0, {64, 2}, q});
            qs::writeGguf(path, meta, tensors);
            const auto c = qs::Checkpoint::read(path);
            const qs::ModelArch a = qs::modelArchOf(*c);
            const qs::WeightSplit w = qs::weightSplitOf(*c, a);
            qs::RunOptions o;
            o.context = 256;
            const qs::RunBudget r = qs::runBudget(a, w, o);
            std::string text;
            for (const qs::Message& n : r.notes)
                text += n.text() + "\n";
            return text;
        };
        QCOMPARE(notesOf({0, 1, 2, 3, 4, 5, 6, 7}), std::string());
        QCOMPARE(notesOf({}),
                 std::string("the file holds no weights (0 tensors): the weights count 0 bytes and the total is "
                             "the cache and buffers alone\n"));
        QCOMPARE(notesOf({0}),
                 std::string("the file holds the weights of 1 of the 8 blocks its metadata names (0): the weights "
                             "are this file's alone, the cache and buffers those of all 8 blocks\n"));
        const std::string some = notesOf({0, 1, 2, 5, 7});
        QVERIFY2(some.find("5 of the 8 blocks its metadata names (0-2, 5, 7)") != std::string::npos, some.c_str());
    }

    void gemma3Gguf()
    {
        // Gemma 3 from GGUF: the window from gemma3.attention.sliding_window, the pattern (5 of
        // 6 layers slide) from llama.cpp's rule for the architecture.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("g3.gguf")).toStdString();
        qs::GgufMetadata meta{
            {"general.architecture", str("gemma3")},     {"gemma3.block_count", u32(12)},
            {"gemma3.embedding_length", u32(256)},       {"gemma3.attention.head_count", u32(4)},
            {"gemma3.attention.head_count_kv", u32(1)},  {"gemma3.attention.key_length", u32(256)},
            {"gemma3.attention.value_length", u32(256)}, {"gemma3.vocab_size", u32(1000)},
        };
        std::vector<uint8_t> q(256 * 4);
        qs::writeGguf(path, meta, {{"blk.0.attn_q.weight", 0, {256}, q}});
        QVERIFY(errorMentions([&] { qs::modelArchOf(*qs::Checkpoint::read(path)); },
                              "gemma3.attention.sliding_window is missing"));
        meta.push_back({"gemma3.attention.sliding_window", u32(512)});
        qs::writeGguf(path, meta, {{"blk.0.attn_q.weight", 0, {256}, q}});
        const qs::ModelArch a = qs::modelArchOf(*qs::Checkpoint::read(path));
        int sliding = 0;
        for (qs::LayerMemory k : a.kinds)
            sliding += k == qs::LayerMemory::Sliding;
        QCOMPARE(sliding, 10);
        QCOMPARE(a.kinds[5], qs::LayerMemory::Full);
        qs::RunOptions o;
        o.context = 4096;
        // 2 global x 4096 + 10 x (512 + 512) cells, 256 x 2 bytes x 2 a cell.
        QCOMPARE(qs::runBudget(a, noWeights(a), o).kvCacheBytes, uint64_t(2 * 4096 + 10 * 1024) * 1024);
    }

    void fromConfig()
    {
        // Gemma 3 multimodal: the language model's fields under text_config, layer_types.
        QJsonArray types;
        for (int i = 0; i < 6; ++i)
            types.append(i == 5 ? QStringLiteral("full_attention") : QStringLiteral("sliding_attention"));
        const QJsonObject gemma{{QStringLiteral("model_type"), QStringLiteral("gemma3")},
                                {QStringLiteral("text_config"),
                                 QJsonObject{{QStringLiteral("model_type"), QStringLiteral("gemma3_text")},
                                             {QStringLiteral("num_hidden_layers"), 6},
                                             {QStringLiteral("hidden_size"), 640},
                                             {QStringLiteral("num_attention_heads"), 4},
                                             {QStringLiteral("num_key_value_heads"), 1},
                                             {QStringLiteral("head_dim"), 256},
                                             {QStringLiteral("sliding_window"), 512},
                                             {QStringLiteral("vocab_size"), 262144},
                                             {QStringLiteral("layer_types"), types}}}};
        const qs::ModelArch g = qs::modelArchFromConfig(gemma);
        QCOMPARE(g.arch, std::string("gemma3"));
        QCOMPARE(g.layers, 6u);
        QCOMPARE(g.slidingWindow, 512u);
        QCOMPARE(g.kinds[0], qs::LayerMemory::Sliding);
        QCOMPARE(g.kinds[5], qs::LayerMemory::Full);
        qs::RunOptions o;
        o.context = 8192;
        // 1 global x 8192 + 5 x 1024 cells, 1024 bytes a cell.
        QCOMPARE(qs::runBudget(g, noWeights(g), o).kvCacheBytes, uint64_t(8192 + 5 * 1024) * 1024);

        // DeepSeek-V3's config: the MLA cache llama.cpp's converter sets up.
        const QJsonObject ds{{QStringLiteral("model_type"), QStringLiteral("deepseek_v3")},
                             {QStringLiteral("num_hidden_layers"), 61},
                             {QStringLiteral("hidden_size"), 7168},
                             {QStringLiteral("num_attention_heads"), 128},
                             {QStringLiteral("num_key_value_heads"), 128},
                             {QStringLiteral("kv_lora_rank"), 512},
                             {QStringLiteral("qk_rope_head_dim"), 64},
                             {QStringLiteral("vocab_size"), 129280},
                             {QStringLiteral("n_routed_experts"), 256},
                             {QStringLiteral("num_experts_per_tok"), 8}};
        const qs::ModelArch d = qs::modelArchFromConfig(ds);
        QVERIFY(d.mla);
        QCOMPARE(d.experts, 256u);
        QCOMPARE(qs::runBudget(d, noWeights(d), o).kvCacheBytes, uint64_t(575668224));

        // Llama: no head_dim (4096 / 32), no num_key_value_heads (= heads).
        const QJsonObject llama{{QStringLiteral("model_type"), QStringLiteral("llama")},
                                {QStringLiteral("num_hidden_layers"), 32},
                                {QStringLiteral("hidden_size"), 4096},
                                {QStringLiteral("num_attention_heads"), 32},
                                {QStringLiteral("vocab_size"), 32000}};
        QCOMPARE(
            qs::runBudget(qs::modelArchFromConfig(llama), noWeights(qs::modelArchFromConfig(llama)), o).kvCacheBytes,
            uint64_t(32) * 4096 * 4 * 8192);
        QJsonObject broken = llama;
        broken.remove(QStringLiteral("num_hidden_layers"));
        QVERIFY(errorMentions([&] { qs::modelArchFromConfig(broken); }, "num_hidden_layers is missing"));
        broken = llama;
        broken[QStringLiteral("model_type")] = QStringLiteral("gpt_bigcode");
        QVERIFY(errorMentions([&] { qs::modelArchFromConfig(broken); }, "'gpt_bigcode' is not one"));
    }

    void realGguf()
    {
        // stories260K as llama.cpp's converter wrote it: 5 blocks, 8 heads, 4 KV heads of 8.
        const auto c = qs::Checkpoint::read(
            qstest::fixture(QStringLiteral("real/python-gen-worker/stories260K.gguf")).toStdString());
        const qs::ModelArch a = qs::modelArchOf(*c);
        QCOMPARE(a.arch, std::string("llama"));
        QCOMPARE(a.layers, 5u);
        QCOMPARE(a.kWidth(0), uint64_t(32));
        const qs::WeightSplit w = qs::weightSplitOf(*c, a);
        uint64_t stored = 0;
        for (const qs::TensorEntry& t : c->tensors)
            stored += t.nbytes;
        QCOMPARE(w.total() - w.outputDuplicate, stored);
        qs::RunOptions o;
        o.context = 256;
        // 5 layers x 32 elements x 2 bytes x 2 x 256 cells.
        QCOMPARE(qs::runBudget(a, w, o).kvCacheBytes, uint64_t(5) * 32 * 2 * 2 * 256);
    }
};

QTEST_GUILESS_MAIN(TestRunBudget)
#include "tst_runbudget.moc"
