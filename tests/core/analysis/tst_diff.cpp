// The diff engine: Hugging Face <-> GGUF names both ways, llama.cpp's q/k row permutation
// (index by index, and undone on a synthetic HF / GGUF pair this test writes), Gemma's norm
// +1, the figures of one pair against values recomputed here, the difference map, and the
// seed's wrong conversions (made by corrupting a copy of a correct fixture pack) caught.
#include "analysis/diff.h"
#include "analysis/diffscan.h"
#include "analysis/namemap.h"
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "formats/dequant.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

using namespace qs;

namespace {

constexpr uint64_t kDim = 32, kHeads = 4, kHeadsKv = 2, kFfn = 64, kVocab = 16;

MetaValue metaU32(uint64_t v)
{
    MetaValue m;
    m.type = MetaValue::Type::U32;
    m.value = v;
    return m;
}

MetaValue metaStr(std::string v)
{
    MetaValue m;
    m.type = MetaValue::Type::String;
    m.value = std::move(v);
    return m;
}

// Row i holds i * 1000 + column: every row is told apart by its values.
std::vector<float> rowIndexed(uint64_t rows, uint64_t cols)
{
    std::vector<float> w(rows * cols);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            w[r * cols + c] = float(r * 1000 + c);
    return w;
}

// LlamaModel.permute written as the numpy it is: view rows as (n, 2, rows/n/2), swap the
// last two axes, flatten again.
std::vector<float> llamaPermute(const std::vector<float>& w, uint64_t rows, uint64_t cols, uint64_t n)
{
    const uint64_t half = rows / n / 2;
    std::vector<float> out(w.size());
    for (uint64_t h = 0; h < n; ++h)
        for (uint64_t a = 0; a < 2; ++a)
            for (uint64_t j = 0; j < half; ++j) {
                const uint64_t src = (h * 2 + a) * half + j; // index (h, a, j) of the view
                const uint64_t dst = (h * half + j) * 2 + a; // index (h, j, a) after swapaxes
                std::memcpy(&out[dst * cols], &w[src * cols], cols * 4);
            }
    return out;
}

std::span<const uint8_t> bytesOf(const std::vector<float>& v)
{
    return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4};
}

struct Synthetic {
    std::vector<float> embed = rowIndexed(kVocab, kDim), q = rowIndexed(kDim, kDim),
                       k = rowIndexed(kDim / kHeads * kHeadsKv, kDim), v = rowIndexed(kDim / kHeads * kHeadsKv, kDim),
                       down = rowIndexed(kDim, kFfn), norm = rowIndexed(1, kDim), outNorm = rowIndexed(1, kDim),
                       invFreq = rowIndexed(1, 4);
};

// An HF folder (model.safetensors + config.json) and a GGUF made from it the way
// convert_hf_to_gguf.py does (q/k permuted unless `permute` is false; norms + normShift).
void writePair(const QString& hfDir, const QString& ggufPath, const std::string& arch, bool permute,
               float normShift = 0)
{
    const Synthetic s;
    const uint64_t kvRows = kDim / kHeads * kHeadsKv;
    writeSafetensors((hfDir + QStringLiteral("/model.safetensors")).toStdString(),
                     {
                         {"model.embed_tokens.weight", DType::F32, {kVocab, kDim}, bytesOf(s.embed)},
                         {"model.layers.0.self_attn.q_proj.weight", DType::F32, {kDim, kDim}, bytesOf(s.q)},
                         {"model.layers.0.self_attn.k_proj.weight", DType::F32, {kvRows, kDim}, bytesOf(s.k)},
                         {"model.layers.0.self_attn.v_proj.weight", DType::F32, {kvRows, kDim}, bytesOf(s.v)},
                         {"model.layers.0.mlp.down_proj.weight", DType::F32, {kDim, kFfn}, bytesOf(s.down)},
                         {"model.layers.0.input_layernorm.weight", DType::F32, {kDim}, bytesOf(s.norm)},
                         {"model.norm.weight", DType::F32, {kDim}, bytesOf(s.outNorm)},
                         {"model.layers.0.self_attn.rotary_emb.inv_freq", DType::F32, {4}, bytesOf(s.invFreq)},
                     });
    QFile cfg(hfDir + QStringLiteral("/config.json"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(QStringLiteral("{\"model_type\": \"%1\", \"num_attention_heads\": %2, \"num_key_value_heads\": %3}")
                  .arg(QString::fromStdString(arch))
                  .arg(kHeads)
                  .arg(kHeadsKv)
                  .toUtf8());
    cfg.close();

    const std::vector<float> q = permute ? llamaPermute(s.q, kDim, kDim, kHeads) : s.q;
    const std::vector<float> k = permute ? llamaPermute(s.k, kvRows, kDim, kHeadsKv) : s.k;
    std::vector<float> norm = s.norm, outNorm = s.outNorm;
    for (float& x : norm)
        x += normShift;
    for (float& x : outNorm)
        x += normShift;
    const std::string ga = ggufArchOf(arch);
    writeGguf(ggufPath.toStdString(),
              {{"general.architecture", metaStr(ga)},
               {ga + ".attention.head_count", metaU32(kHeads)},
               {ga + ".attention.head_count_kv", metaU32(kHeadsKv)}},
              {
                  {"token_embd.weight", 0, {kDim, kVocab}, bytesOf(s.embed)},
                  {"blk.0.attn_q.weight", 0, {kDim, kDim}, bytesOf(q)},
                  {"blk.0.attn_k.weight", 0, {kDim, kvRows}, bytesOf(k)},
                  {"blk.0.attn_v.weight", 0, {kDim, kvRows}, bytesOf(s.v)},
                  {"blk.0.ffn_down.weight", 0, {kFfn, kDim}, bytesOf(s.down)},
                  {"blk.0.attn_norm.weight", 0, {kDim}, bytesOf(norm)},
                  {"output_norm.weight", 0, {kDim}, bytesOf(outNorm)},
                  {"rope_freqs.weight", 0, {4}, bytesOf(s.invFreq)},
              });
}

const WeightDiff* findDiff(const DiffResult& r, const std::string& nameA)
{
    for (const WeightDiff& d : r.weights)
        if (d.nameA == nameA)
            return &d;
    return nullptr;
}

QString variantDir(const QString& v)
{
    return qstest::fixture(QStringLiteral("safetensors/") + v);
}

// A copy of a fixture variant (model.safetensors and configs) with the bytes of one tensor
// changed by `patch`.
bool corruptedCopy(const QString& dir, const QString& variant, const std::string& tensor,
                   const std::function<void(const Checkpoint&, std::vector<uint8_t>&)>& patch)
{
    const QDir src(variantDir(variant));
    for (const QString& f : src.entryList({QStringLiteral("*.json"), QStringLiteral("model.safetensors")}, QDir::Files))
        if (!QFile::copy(src.filePath(f), dir + QLatin1Char('/') + f))
            return false;
    const QString path = dir + QStringLiteral("/model.safetensors");
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    std::vector<uint8_t> bytes;
    uint64_t offset = 0;
    {
        const auto c = openCheckpoint(path.toStdString());
        const TensorEntry* t = c->find(tensor);
        if (!t)
            return false;
        offset = t->offset;
        const auto b = c->bytes(*t);
        bytes.assign(b.begin(), b.end());
        patch(*c, bytes);
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite) || !f.seek(qint64(offset)))
        return false;
    return f.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size())) == qint64(bytes.size());
}

uint32_t word(const std::vector<uint8_t>& b, size_t i)
{
    uint32_t w;
    std::memcpy(&w, b.data() + 4 * i, 4);
    return w;
}

void setWord(std::vector<uint8_t>& b, size_t i, uint32_t w)
{
    std::memcpy(b.data() + 4 * i, &w, 4);
}

} // namespace

class TestDiff : public QObject {
    Q_OBJECT
private slots:
    void names_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("hf");
        QTest::addColumn<QString>("gguf");
        const auto row = [](const char* arch, const char* hf, const char* gguf) {
            QTest::addRow("%s %s", arch, hf)
                << QString::fromLatin1(arch) << QString::fromLatin1(hf) << QString::fromLatin1(gguf);
        };
        row("llama", "model.embed_tokens.weight", "token_embd.weight");
        row("llama", "model.norm.weight", "output_norm.weight");
        row("llama", "lm_head.weight", "output.weight");
        row("llama", "model.layers.0.self_attn.q_proj.weight", "blk.0.attn_q.weight");
        row("llama", "model.layers.12.self_attn.k_proj", "blk.12.attn_k");
        row("llama", "model.layers.3.self_attn.v_proj.weight", "blk.3.attn_v.weight");
        row("llama", "model.layers.31.self_attn.o_proj.weight", "blk.31.attn_output.weight");
        row("llama", "model.layers.7.mlp.gate_proj.weight", "blk.7.ffn_gate.weight");
        row("llama", "model.layers.7.mlp.up_proj", "blk.7.ffn_up");
        row("llama", "model.layers.7.mlp.down_proj.weight", "blk.7.ffn_down.weight");
        row("llama", "model.layers.2.input_layernorm.weight", "blk.2.attn_norm.weight");
        row("llama", "model.layers.2.post_attention_layernorm.weight", "blk.2.ffn_norm.weight");
        row("mistral", "model.layers.2.post_attention_layernorm.weight", "blk.2.ffn_norm.weight");
        row("qwen2", "model.layers.0.self_attn.q_proj.bias", "blk.0.attn_q.bias");
        row("qwen3", "model.layers.5.self_attn.k_norm.weight", "blk.5.attn_k_norm.weight");
        row("gemma", "model.layers.1.post_attention_layernorm.weight", "blk.1.ffn_norm.weight");
        row("gemma2", "model.layers.1.post_attention_layernorm.weight", "blk.1.post_attention_norm.weight");
        row("gemma2", "model.layers.1.pre_feedforward_layernorm.weight", "blk.1.ffn_norm.weight");
        row("gemma3", "model.layers.1.post_feedforward_layernorm.weight", "blk.1.post_ffw_norm.weight");
    }
    void names()
    {
        QFETCH(QString, arch);
        QFETCH(QString, hf);
        QFETCH(QString, gguf);
        QCOMPARE(QString::fromStdString(hfToGguf(hf.toStdString(), arch.toStdString())), gguf);
        QCOMPARE(QString::fromStdString(ggufToHf(gguf.toStdString(), arch.toStdString())), hf);
    }

    void namesWithoutCounterpart()
    {
        QCOMPARE(hfToGguf("model.layers.0.self_attn.rotary_emb.inv_freq", "llama"), std::string());
        QCOMPARE(hfToGguf("model.layers.x.mlp.up_proj.weight", "llama"), std::string());
        QCOMPARE(hfToGguf("model.layers.0.mlp.experts.0.up_proj.weight", "llama"), std::string());
        QCOMPARE(ggufToHf("rope_freqs.weight", "llama"), std::string());
        QCOMPARE(ggufToHf("blk..attn_q.weight", "llama"), std::string());
        // pre_feedforward_layernorm exists in gemma2 only.
        QCOMPARE(hfToGguf("model.layers.1.pre_feedforward_layernorm.weight", "llama"), std::string());
    }

    void transforms()
    {
        const HeadCounts h{32, 8};
        QCOMPARE(ggufTransform("blk.0.attn_q.weight", "llama", h).permuteHeads, uint64_t(32));
        QCOMPARE(ggufTransform("blk.0.attn_k.weight", "mistral", h).permuteHeads, uint64_t(8));
        QVERIFY(!ggufTransform("blk.0.attn_v.weight", "llama", h).permuted);
        QVERIFY(!ggufTransform("blk.0.attn_q.weight", "qwen2", h).permuted);
        QVERIFY(!ggufTransform("blk.0.attn_q.weight", "gemma", h).permuted);
        QVERIFY(ggufTransform("blk.0.attn_q.weight", "llama", {}).permuted);
        QCOMPARE(ggufTransform("blk.0.attn_q.weight", "llama", {}).permuteHeads, uint64_t(0));
        QCOMPARE(ggufTransform("blk.0.attn_norm.weight", "gemma2", h).normShift, 1.0f);
        QCOMPARE(ggufTransform("output_norm.weight", "gemma", h).normShift, 1.0f);
        QCOMPARE(ggufTransform("blk.0.attn_norm.weight", "llama", h).normShift, 0.0f);
    }

    void permutation_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("heads");
        QTest::addRow("4 heads of 8") << 32 << 4;
        QTest::addRow("1 head of 2") << 2 << 1;
        QTest::addRow("8 heads of 128") << 1024 << 8;
        QTest::addRow("3 heads of 6") << 18 << 3;
    }
    void permutation()
    {
        QFETCH(int, rows);
        QFETCH(int, heads);
        const uint64_t R = uint64_t(rows), H = uint64_t(heads), cols = 3;
        const std::vector<float> hf = rowIndexed(R, cols);
        const std::vector<float> gguf = llamaPermute(hf, R, cols, H);
        for (uint64_t r = 0; r < R; ++r)
            QCOMPARE(gguf[permutedRow(r, R, H) * cols], float(r * 1000));
        std::vector<float> back(hf.size());
        unpermuteRows(gguf.data(), back.data(), R, cols, R / H);
        QCOMPARE(back, hf);
        // On a block of whole heads (what the diff does per chunk).
        const uint64_t headRows = R / H;
        std::vector<float> part(headRows * cols);
        unpermuteRows(gguf.data() + (H - 1) * headRows * cols, part.data(), headRows, cols, headRows);
        QCOMPARE(part, std::vector<float>(hf.end() - std::ptrdiff_t(headRows * cols), hf.end()));
    }

    void hfVersusGguf_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<bool>("permute");
        QTest::addColumn<bool>("ggufFirst");
        QTest::addRow("llama") << "llama" << true << false;
        QTest::addRow("llama, gguf as A") << "llama" << true << true;
        QTest::addRow("mistral") << "mistral" << true << false;
        QTest::addRow("qwen2 (not permuted)") << "qwen2" << false << false;
    }
    void hfVersusGguf()
    {
        QFETCH(QString, arch);
        QFETCH(bool, permute);
        QFETCH(bool, ggufFirst);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString gguf = tmp.filePath(QStringLiteral("model.gguf"));
        writePair(tmp.path(), gguf, arch.toStdString(), permute);
        const auto hfC = openCheckpoint(tmp.path().toStdString());
        const auto ggC = openCheckpoint(gguf.toStdString());
        const Checkpoint& a = ggufFirst ? *ggC : *hfC;
        const Checkpoint& b = ggufFirst ? *hfC : *ggC;
        DiffOptions opt;
        opt.chunkElements = 40; // chunks of a few rows, rounded up to whole heads
        const DiffResult r = diffCheckpoints(a, b, opt);
        QCOMPARE(r.weights.size(), size_t(7));
        for (const WeightDiff& d : r.weights) {
            QVERIFY2(d.pass, d.nameA.c_str());
            QCOMPARE(d.maxAbs, 0.0);
            QCOMPARE(d.differing, uint64_t(0));
            QCOMPARE(d.cosine, 1.0);
        }
        const std::string q = ggufFirst ? "blk.0.attn_q.weight" : "model.layers.0.self_attn.q_proj.weight";
        QVERIFY(findDiff(r, q));
        QCOMPARE(QString::fromStdString(findDiff(r, q)->note).contains(QLatin1String("permutation")), permute);
        const std::vector<std::string> hfOnly{"model.layers.0.self_attn.rotary_emb.inv_freq"};
        const std::vector<std::string> ggOnly{"rope_freqs.weight"};
        QCOMPARE(r.onlyInA, ggufFirst ? ggOnly : hfOnly);
        QCOMPARE(r.onlyInB, ggufFirst ? hfOnly : ggOnly);
        QVERIFY(r.passed());
    }

    // Without a tolerance given, a quantized weight against a float one is judged by one code step
    // of its width over B's range (either side quantized); two quantized or two float weights by 0.
    void automaticToleranceIsOneCodeStep()
    {
        LogicalWeight gptq, q4k, f16;
        gptq.format = "gptq-v1";
        gptq.bits = 4;
        q4k.format = "gguf-q4_k";
        f16.format = "f16";
        f16.bits = 16;
        QCOMPARE(automaticTolerance(gptq, f16, 0.3), 2 * 0.3 / 15);
        QCOMPARE(automaticTolerance(f16, gptq, 0.3), 2 * 0.3 / 15);
        QCOMPARE(automaticTolerance(q4k, f16, 1.0), 2.0 / 15); // the format's width when the weight gives none
        QCOMPARE(automaticTolerance(gptq, q4k, 1.0), 0.0);
        QCOMPARE(automaticTolerance(f16, f16, 1.0), 0.0);
        // A diff without a tolerance judges each pair by it: the GPTQ weight against its float
        // reference is within one step; at tolerance 0 it is not.
        const QString dir = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
        const auto a = openCheckpoint((dir + QStringLiteral("/model.safetensors")).toStdString());
        const auto b = openCheckpoint((dir + QStringLiteral("/ref.safetensors")).toStdString());
        const DiffResult automatic = diffCheckpoints(*a, *b, {});
        QCOMPARE(automatic.weights.size(), size_t(1));
        const WeightDiff& d = automatic.weights[0];
        QVERIFY(d.maxAbsB > 0);
        QCOMPARE(d.tolerance, 2 * d.maxAbsB / 15);
        QVERIFY(d.maxAbs > 0 && d.pass && automatic.passed());
        DiffOptions exact;
        exact.tolerance = 0;
        QVERIFY(!diffCheckpoints(*a, *b, exact).passed());
    }

    void unpermutedGgufIsCaught()
    {
        // A converter that forgot the permutation: q and k differ, v and the rest do not.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString gguf = tmp.filePath(QStringLiteral("model.gguf"));
        writePair(tmp.path(), gguf, "llama", false);
        const auto hfC = openCheckpoint(tmp.path().toStdString());
        const auto ggC = openCheckpoint(gguf.toStdString());
        const DiffResult r = diffCheckpoints(*hfC, *ggC, {});
        QVERIFY(!r.passed());
        QCOMPARE(r.weights.size(), size_t(7));
        QVERIFY(!r.weights[0].pass && !r.weights[1].pass); // failing first
        QVERIFY(r.weights[2].pass);
        const WeightDiff* q = findDiff(r, "model.layers.0.self_attn.q_proj.weight");
        QVERIFY(q && !q->pass);
        // Unpermuting a plain GGUF reads HF row r from GGUF row permutedRow(r): row 3 of each
        // head gets row 6 (3000 off), rows 0 and 7 stay in place.
        QCOMPARE(q->maxAbs, 3000.0);
        QCOMPARE(q->maxRowA, uint64_t(3));
        QCOMPARE(q->maxRowB, uint64_t(6)); // B's own row: the GGUF row that was read for HF row 3
        QCOMPARE(q->maxCol, uint64_t(0));
        QCOMPARE(q->differing, uint64_t(6 * kHeads * kDim));
    }

    // With the GGUF as A, the worst element is reported in each side's stored rows (A's GGUF
    // row 6, B's HF row 3) and the difference map is drawn in A's row order.
    void ggufSideCoordinates()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString gguf = tmp.filePath(QStringLiteral("model.gguf"));
        writePair(tmp.path(), gguf, "llama", false);
        const auto hfC = openCheckpoint(tmp.path().toStdString());
        const auto ggC = openCheckpoint(gguf.toStdString());
        const DiffResult r = diffCheckpoints(*ggC, *hfC, {});
        const WeightDiff* q = findDiff(r, "blk.0.attn_q.weight");
        QVERIFY(q);
        QCOMPARE(q->maxAbs, 3000.0);
        QCOMPARE(q->maxRowA, uint64_t(6));
        QCOMPARE(q->maxRowB, uint64_t(3));
        const WeightDiff* v = findDiff(r, "blk.0.attn_v.weight"); // not permuted: the same row
        QVERIFY(v && v->maxRowA == v->maxRowB);

        const WeightMatch m = matchWeights(*ggC, *hfC, "blk.0.attn_q.weight");
        QCOMPARE(m.pairs.size(), size_t(1));
        const DiffMap map = diffMap(*ggC, *hfC, m.pairs[0], kDim, kDim, {});
        QCOMPARE(map.rowsPerCell, uint64_t(1));
        // GGUF row g holds HF row g (this converter forgot the permutation) and is compared
        // with the HF row that permutes to g: |g - unpermuted(g)| * 1000 in every column.
        for (uint64_t g = 0; g < kDim; ++g) {
            uint64_t hf = 0;
            while (permutedRow(hf, kDim, kHeads) != g)
                ++hf;
            const float want = std::fabs(float(g) - float(hf)) * 1000.0f;
            QCOMPARE(map.cells[size_t(g * kDim)], want);
        }
    }

    // Two checkpoints without a common name: an error saying which naming each side uses.
    void nothingToCompare()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString gguf = tmp.filePath(QStringLiteral("model.gguf"));
        writePair(tmp.path(), gguf, "llama", true);
        const std::vector<float> w(8 * 4, 0.5f);
        const std::string other = tmp.filePath(QStringLiteral("other.safetensors")).toStdString();
        writeSafetensors(other, {{"encoder.proj.weight", DType::F32, {8, 4}, bytesOf(w)}});
        const auto ggC = openCheckpoint(gguf.toStdString());
        const auto oC = openCheckpoint(other);
        try {
            diffCheckpoints(*ggC, *oC, {});
            QFAIL("comparing nothing must be an error");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("nothing to compare") != std::string::npos, what.c_str());
            QVERIFY2(what.find("A has GGUF names") != std::string::npos, what.c_str());
            QVERIFY2(what.find("token_embd.weight") != std::string::npos, what.c_str());
            QVERIFY2(what.find("encoder.proj.weight") != std::string::npos, what.c_str());
        }
        const auto hfC = openCheckpoint(tmp.path().toStdString() + "/model.safetensors");
        try {
            diffCheckpoints(*oC, *hfC, {});
            QFAIL("comparing nothing must be an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("B has Hugging Face names") != std::string::npos, e.what());
        }
    }

    // A GGUF that kept the Hugging Face names (what repack writes) pairs with its source.
    void huggingFaceNamedGgufPairs()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        writePair(tmp.path(), tmp.filePath(QStringLiteral("unused.gguf")), "llama", true);
        const auto hfC = openCheckpoint(tmp.path().toStdString() + "/model.safetensors");
        std::vector<GgufTensor> tensors;
        std::vector<std::vector<float>> data;
        for (const LogicalWeight& w : hfC->weights) {
            std::vector<float>& d = data.emplace_back(w.elementCount());
            dequantizeRows(*hfC, w, 0, w.outFeatures(), d.data(), SimdPath::Scalar);
            tensors.push_back({w.name, 0, {w.shape.rbegin(), w.shape.rend()}, bytesOf(d)});
        }
        const std::string gguf = tmp.filePath(QStringLiteral("hfnames.gguf")).toStdString();
        writeGguf(gguf, {{"general.architecture", metaStr("llama")}}, tensors);
        const auto ggC = openCheckpoint(gguf);
        const DiffResult r = diffCheckpoints(*ggC, *hfC, {});
        QCOMPARE(r.weights.size(), hfC->weights.size());
        QVERIFY(r.onlyInA.empty() && r.onlyInB.empty() && r.skipped.empty());
        QVERIFY(r.passed()); // not permuted: the names say the converter did not run
    }

    void gemmaNormShift()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString gguf = tmp.filePath(QStringLiteral("model.gguf"));
        writePair(tmp.path(), gguf, "gemma", false, 1.0f);
        const auto hfC = openCheckpoint(tmp.path().toStdString());
        const auto ggC = openCheckpoint(gguf.toStdString());
        const DiffResult r = diffCheckpoints(*hfC, *ggC, {});
        QVERIFY(r.passed());
        const WeightDiff* n = findDiff(r, "model.norm.weight");
        QVERIFY(n);
        QVERIFY(QString::fromStdString(n->note).contains(QLatin1String("1 + w")));
        QCOMPARE(n->maxAbs, 0.0);
    }

    void headCountUnknownIsSkipped()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const Synthetic s;
        const QString hf = tmp.filePath(QStringLiteral("hf.safetensors"));
        const QString gg = tmp.filePath(QStringLiteral("m.gguf"));
        writeSafetensors(hf.toStdString(),
                         {{"model.layers.0.self_attn.q_proj.weight", DType::F32, {kDim, kDim}, bytesOf(s.q)},
                          {"model.layers.0.mlp.up_proj.weight", DType::F32, {kDim, kDim}, bytesOf(s.q)}});
        writeGguf(gg.toStdString(), {{"general.architecture", metaStr("llama")}},
                  {{"blk.0.attn_q.weight", 0, {kDim, kDim}, bytesOf(s.q)},
                   {"blk.0.ffn_up.weight", 0, {kDim, kDim}, bytesOf(s.q)}});
        const DiffResult r = diffCheckpoints(*openCheckpoint(hf.toStdString()), *openCheckpoint(gg.toStdString()), {});
        QCOMPARE(r.weights.size(), size_t(1));
        QCOMPARE(r.skipped.size(), size_t(1));
        QVERIFY(QString::fromStdString(r.skipped[0].reason).contains(QLatin1String("head count")));
        // That pair alone: nothing was compared, an error with the reason (not a pass).
        DiffOptions only;
        only.weight = "blk.0.attn_q.weight";
        try {
            diffCheckpoints(*openCheckpoint(hf.toStdString()), *openCheckpoint(gg.toStdString()), only);
            QFAIL("comparing nothing passed");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("nothing compared") != std::string::npos
                         && std::string(e.what()).find("head count") != std::string::npos,
                     e.what());
        }
    }

    // Every SIMD path's comparison loop gives the scalar reference's bits: sums, the first index of
    // the largest |a - b| (a tie placed before it in another lane), the largest finite |b|,
    // non-finite and differing counts, for lengths with and without a tail.
    void scanPaths_data()
    {
        QTest::addColumn<int>("n");
        QTest::addRow("8") << 8;
        QTest::addRow("67") << 67;
        QTest::addRow("4099") << 4099;
    }
    void scanPaths()
    {
        QFETCH(int, n);
        std::vector<float> a(static_cast<size_t>(n)), b(a.size());
        uint32_t x = 99;
        for (size_t i = 0; i < a.size(); ++i) {
            x = x * 1664525u + 1013904223u;
            a[i] = float(int32_t(x >> 8) - (1 << 23)) * 1e-7f;
            b[i] = (i % 3 == 0) ? a[i] : a[i] + float(int32_t(x % 1000) - 500) * 1e-6f;
        }
        const float inf = std::numeric_limits<float>::infinity();
        a[1] = inf, b[1] = inf; // equal infinities: equal
        a[2] = std::numeric_limits<float>::quiet_NaN(); // non-finite, differing
        b[4] = -inf; // non-finite, differing
        a[5] = 0.0f, b[5] = 2.0f; // the largest |a - b| first here...
        a[size_t(n) - 1] = 1.0f, b[size_t(n) - 1] = -1.0f; // ... and again in another lane
        DiffLanes s;
        scanDiff(a.data(), b.data(), uint64_t(n), 1000, s);
        for (const SimdPath path : cpuSimdPaths()) {
            DiffLanes v;
            scanDiff(a.data(), b.data(), uint64_t(n), 1000, v, path);
            for (const auto& [p, q] : {std::pair{s.sumSq, v.sumSq},
                                       {s.sumAbs, v.sumAbs},
                                       {s.sumSigned, v.sumSigned},
                                       {s.aSq, v.aSq},
                                       {s.bSq, v.bSq},
                                       {s.dot, v.dot},
                                       {s.maxAbs, v.maxAbs},
                                       {s.maxAbsB, v.maxAbsB}})
                QCOMPARE(std::memcmp(p, q, 8 * sizeof(double)), 0);
            QCOMPARE(std::memcmp(s.maxAt, v.maxAt, sizeof s.maxAt), 0);
            QCOMPARE(s.nonFinite, v.nonFinite);
            QCOMPARE(s.differing, v.differing);
            const DiffSums m = mergeLanes(v);
            QCOMPARE(m.maxAbs, 2.0);
            QCOMPARE(m.maxAt, uint64_t(1005));
            QCOMPARE(m.nonFinite, uint64_t(2));
            double maxAbsB = 0;
            for (const float y : b)
                if (std::isfinite(y))
                    maxAbsB = std::max(maxAbsB, double(std::fabs(y)));
            QCOMPARE(m.maxAbsB, maxAbsB);
            uint64_t differing = 0;
            double sumSigned = 0;
            for (size_t i = 0; i < a.size(); ++i) {
                differing += !(a[i] == b[i]);
                const double e = double(a[i]) - double(b[i]);
                if (std::isfinite(e))
                    sumSigned += e;
            }
            QCOMPARE(m.differing, differing);
            QVERIFY(std::fabs(m.sumSigned - sumSigned) <= 1e-12 * (1 + std::fabs(sumSigned)));
        }
    }
    void figures()
    {
        // A quantized fixture against its float source under the same name: every figure
        // recomputed here from the full matrices.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const auto q = openCheckpoint(
            (variantDir(QStringLiteral("gptq-w3-g32-asym")) + QStringLiteral("/model.safetensors")).toStdString());
        const LogicalWeight* w = q->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        const std::vector<float> x = dequantizeWeight(*q, *w, SimdPath::Scalar);
        std::vector<float> y(x.size());
        for (size_t i = 0; i < y.size(); ++i)
            y[i] = x[i] + (i % 5 == 0 ? float(i % 7) * 0.01f : 0.0f);
        const QString other = tmp.filePath(QStringLiteral("ref.safetensors"));
        writeSafetensors(other.toStdString(),
                         {{"model.layers.0.mlp.down_proj.weight", DType::F32, {128, 256}, bytesOf(y)}});
        const auto ref = openCheckpoint(other.toStdString());
        DiffOptions opt;
        opt.weight = "model.layers.0.mlp.down_proj";
        opt.tolerance = 0.05;
        opt.chunkElements = 1000;
        opt.threads = 2;
        std::atomic<int> calls{0};
        uint64_t last = 0;
        opt.progress.report = [&](uint64_t done, uint64_t total, const std::string&) {
            ++calls;
            QVERIFY(done <= total && total == x.size());
            last = done;
        };
        const DiffResult r = diffCheckpoints(*q, *ref, opt);
        QCOMPARE(r.weights.size(), size_t(1));
        QVERIFY(r.onlyInA.empty() && r.onlyInB.empty()); // the filter hides q_proj
        const WeightDiff& d = r.weights[0];
        double sq = 0, abs = 0, sgn = 0, bb = 0, aa = 0, ab = 0, mx = 0;
        uint64_t at = 0, differing = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const double e = double(x[i]) - double(y[i]);
            sq += e * e;
            abs += std::fabs(e);
            sgn += e;
            aa += double(x[i]) * x[i];
            bb += double(y[i]) * y[i];
            ab += double(x[i]) * y[i];
            differing += x[i] != y[i];
            if (std::fabs(e) > mx) {
                mx = std::fabs(e);
                at = i;
            }
        }
        const double n = double(x.size());
        QCOMPARE(d.count, uint64_t(x.size()));
        QCOMPARE(d.differing, differing);
        QCOMPARE(d.maxAbs, mx);
        QCOMPARE(d.maxRowA, at / 256);
        QCOMPARE(d.maxCol, at % 256);
        QVERIFY(std::fabs(d.rmse - std::sqrt(sq / n)) <= 1e-12 * d.rmse);
        QVERIFY(std::fabs(d.meanAbs - abs / n) <= 1e-12 * d.meanAbs);
        QVERIFY(std::fabs(d.meanSigned - sgn / n) <= 1e-9 * std::fabs(d.meanSigned));
        QVERIFY(std::fabs(d.sqnrDb - 10 * std::log10(bb / sq)) <= 1e-9);
        QVERIFY(std::fabs(d.relativeError - std::sqrt(sq / bb)) <= 1e-12);
        QVERIFY(std::fabs(d.cosine - ab / std::sqrt(aa * bb)) <= 1e-12);
        QVERIFY(d.maxAbs > 0.05 && !d.pass && !r.passed()); // 6 * 0.01 = 0.06 over 0.05
        QVERIFY(calls > 0);
        QCOMPARE(last, uint64_t(x.size()));

        // Same figures on one thread (sums reduced in chunk order).
        opt.threads = 1;
        opt.progress.report = nullptr;
        const DiffResult one = diffCheckpoints(*q, *ref, opt);
        QCOMPARE(one.weights[0].rmse, d.rmse);
        QCOMPARE(one.weights[0].cosine, d.cosine);

        // The map: 128 x 256 into at most 10 x 20 cells of 13 x 13, each the max of its block.
        const WeightMatch m = matchWeights(*q, *ref, "model.layers.0.mlp.down_proj.weight");
        QCOMPARE(m.pairs.size(), size_t(1));
        const DiffMap map = diffMap(*q, *ref, m.pairs[0], 10, 20, opt);
        QCOMPARE(map.rowsPerCell, uint64_t(13));
        QCOMPARE(map.colsPerCell, uint64_t(13));
        QCOMPARE(map.cellRows, uint64_t(10));
        QCOMPARE(map.cellCols, uint64_t(20));
        std::vector<float> expect(200, 0.0f);
        for (size_t i = 0; i < x.size(); ++i) {
            float& c = expect[(i / 256 / 13) * 20 + (i % 256) / 13];
            c = std::max(c, std::fabs(x[i] - y[i]));
        }
        QCOMPARE(map.cells, expect);
        QCOMPARE(double(map.maxAbs), double(float(mx)));
        // Refusals name A's file and weight as their context (qs::ErrorContext), not in the text.
        for (const std::function<void()>& refused : std::vector<std::function<void()>>{
                 [&] { diffMap(*q, *ref, m.pairs[0], 0, 20, opt); },
                 [&] { diffValuesAt(*q, *ref, m.pairs[0], 128, 0, SimdPath::Scalar); }}) {
            try {
                refused();
                QFAIL("no error");
            } catch (const Error& e) {
                QCOMPARE(e.context().file, q->path);
                QCOMPARE(e.context().weight, m.pairs[0].a->name);
                QCOMPARE(std::string(e.what()), q->path + ": weight '" + m.pairs[0].a->name + "': " + e.detail());
            }
        }

        // Cancelled before the first chunk.
        std::atomic<bool> cancel{true};
        opt.progress.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, diffCheckpoints(*q, *ref, opt));
        opt.progress.cancel = nullptr;

        opt.weight = "no.such.weight";
        QVERIFY_THROWS_EXCEPTION(Error, diffCheckpoints(*q, *ref, opt));
    }

    void wrongConversions_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("what");
        QTest::addRow("wrong axis") << "gptq-w4-g128-sym"
                                    << "model.layers.0.mlp.down_proj.qweight" << 0;
        QTest::addRow("AWQ order missing") << "awq-gemm-w4-g32"
                                           << "model.layers.0.mlp.down_proj.qweight" << 1;
        QTest::addRow("zero off by one") << "gptq-w4-g32-asym"
                                         << "model.layers.0.mlp.down_proj.qzeros" << 2;
        QTest::addRow("dropped act-order permutation") << "gptq-w4-g32-sym-actorder"
                                                       << "model.layers.0.mlp.down_proj.g_idx" << 3;
        QTest::addRow("sign-extended top slot") << "gptq-w4-g128-sym"
                                                << "model.layers.0.mlp.down_proj.qzeros" << 4;
        QTest::addRow("untouched copy") << "gptq-w4-g128-sym"
                                        << "model.layers.0.mlp.down_proj.qzeros" << 5;
    }
    void wrongConversions()
    {
        QFETCH(QString, variant);
        QFETCH(QString, tensor);
        QFETCH(int, what);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const bool ok = corruptedCopy(
            tmp.path(), variant, tensor.toStdString(), [what](const Checkpoint& c, std::vector<uint8_t>& b) {
                const size_t words = b.size() / 4;
                switch (what) {
                case 0: { // packed along the wrong axis: 8 consecutive codes of the [N, K] matrix per word, in word
                          // order
                    const WeightCodes codes = extractCodes(c, *c.findWeight("model.layers.0.mlp.down_proj"));
                    for (size_t i = 0; i < words; ++i) {
                        uint32_t w = 0;
                        for (int s = 0; s < 8; ++s)
                            w |= uint32_t(codes.codes[i * 8 + size_t(s)] & 15) << (4 * s);
                        setWord(b, i, w);
                    }
                    break;
                }
                case 1: // AWQ words written in plain slot order (the [0 2 4 6 1 3 5 7] interleave not applied)
                    for (size_t i = 0; i < words; ++i) {
                        static constexpr int kOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};
                        const uint32_t w = word(b, i);
                        uint32_t out = 0;
                        for (int p = 0; p < 8; ++p)
                            out |= ((w >> (4 * kOrder[p])) & 15u) << (4 * p);
                        setWord(b, i, out);
                    }
                    break;
                case 2: // v2 zeros (z) in a checkpoint declared v1 (z - 1): every field one too high
                    for (size_t i = 0; i < words; ++i) {
                        uint32_t w = word(b, i), out = 0;
                        for (int s = 0; s < 8; ++s)
                            out |= std::min(15u, ((w >> (4 * s)) & 15u) + 1) << (4 * s);
                        setWord(b, i, out);
                    }
                    break;
                case 3: // act-order g_idx replaced by k / group_size
                    for (size_t k = 0; k < words; ++k)
                        setWord(b, k, uint32_t(k / 32));
                    break;
                case 4: // a v1 zero of -1 in slot 5 sign-extended over slots 5..7
                    setWord(b, 0, word(b, 0) | 0xFFF00000u);
                    break;
                default: break;
                }
            });
        QVERIFY(ok);
        const auto good = openCheckpoint((variantDir(variant) + QStringLiteral("/model.safetensors")).toStdString());
        const auto bad = openCheckpoint((tmp.path() + QStringLiteral("/model.safetensors")).toStdString());
        DiffOptions opt;
        opt.tolerance = 1e-6;
        const DiffResult r = diffCheckpoints(*good, *bad, opt);
        QVERIFY(r.onlyInA.empty() && r.onlyInB.empty() && r.shapeMismatches.empty());
        QCOMPARE(r.weights.size(), size_t(variant.contains(QLatin1String("g32")) ? 2 : 1));
        const WeightDiff* d = findDiff(r, "model.layers.0.mlp.down_proj");
        QVERIFY(d);
        if (what == 5) {
            QVERIFY(r.passed());
            QCOMPARE(d->maxAbs, 0.0);
            return;
        }
        QVERIFY(!r.passed());
        QVERIFY(!d->pass);
        QCOMPARE(r.weights[0].nameA, d->nameA); // the broken weight is listed first
        QVERIFY(d->maxAbs > 1e-3);
        QVERIFY(d->differing > 0);
        qInfo("%s: max %.4g rel %.4g, %llu of %llu elements differ",
              qPrintable(QString::fromLatin1(QTest::currentDataTag())), d->maxAbs, d->relativeError,
              static_cast<unsigned long long>(d->differing), static_cast<unsigned long long>(d->count));
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
