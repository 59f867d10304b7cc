// quantscope-cli budget: JSON figures against hand arithmetic, a checkpoint's own bpw,
// the human table, and usage errors.
#include "container/gguf.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

namespace {

QJsonObject budgetJson(const QStringList& extra)
{
    const qstest::CliResult r = qstest::runCli(QStringList{QStringLiteral("budget"), QStringLiteral("--json")} + extra);
    if (r.crashed || r.exitCode != 0) {
        qWarning("budget: exit %d: %s", r.exitCode, r.err.constData());
        return {};
    }
    return QJsonDocument::fromJson(r.out).object();
}

QJsonObject format(const QJsonObject& root, const QString& id)
{
    for (const QJsonValue f : root.value(QStringLiteral("formats")).toArray())
        if (f.toObject().value(QStringLiteral("id")).toString() == id)
            return f.toObject();
    return {};
}

} // namespace

class TestCliBudget : public QObject {
    Q_OBJECT
private slots:
    void defaultsAndMemory()
    {
        const QJsonObject root = budgetJson({QStringLiteral("--memory"), QStringLiteral("24")});
        QCOMPARE(root.value(QStringLiteral("params")).toArray().size(), 5);
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(1).toInteger(), qint64(7000000000));
        const QJsonObject q4k = format(root, QStringLiteral("gguf-q4_k"));
        QCOMPARE(q4k.value(QStringLiteral("bpw")).toDouble(), 4.5);
        const QJsonArray sizes = q4k.value(QStringLiteral("sizes")).toArray();
        QCOMPARE(sizes.size(), 5);
        // 13B at 4.5 bits: 7.3125 GB; 70B: 39.375 GB = 36.67 GiB, more than 24 GiB.
        QCOMPARE(sizes.at(2).toObject().value(QStringLiteral("gb")).toDouble(), 7.3125);
        QCOMPARE(sizes.at(2).toObject().value(QStringLiteral("fits")).toBool(), true);
        QCOMPARE(sizes.at(3).toObject().value(QStringLiteral("gib")).toDouble(), 39.375e9 / 1073741824.0);
        QCOMPARE(sizes.at(3).toObject().value(QStringLiteral("fits")).toBool(), false);
        const QJsonObject gptq = format(root, QStringLiteral("gptq-4-g128"));
        QCOMPARE(gptq.value(QStringLiteral("bpw")).toDouble(), 4.15625 + 32.0 / 4096);
        QCOMPARE(gptq.value(QStringLiteral("asymptotic_bpw")).toDouble(), 4.15625);
        QCOMPARE(format(root, QStringLiteral("bnb-nf4-nested")).value(QStringLiteral("asymptotic_bpw")).toDouble(),
                 4.0 + 0.125 + 32.0 / 16384);
    }

    void paramsAndLayer()
    {
        const QJsonObject root = budgetJson({QStringLiteral("--params"), QStringLiteral("1.5B,350M"),
                                             QStringLiteral("--layer"), QStringLiteral("64x64")});
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(0).toInteger(), qint64(1500000000));
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(1).toInteger(), qint64(350000000));
        // 64-wide rows hold no 256-weight blocks: the k-quants drop out, Q8_0 stays.
        QVERIFY(format(root, QStringLiteral("gguf-q4_k")).isEmpty());
        QCOMPARE(format(root, QStringLiteral("gguf-q8_0")).value(QStringLiteral("bpw")).toDouble(), 8.5);
        // GPTQ-4 g32 over 64 x 64: 4 + 16/32 + 4/32 + 32/64 (g_idx).
        QCOMPARE(format(root, QStringLiteral("gptq-4-g32")).value(QStringLiteral("bpw")).toDouble(), 5.125);
    }

    void checkpointCounts()
    {
        const QString path = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/model.safetensors"));
        const QJsonObject root = budgetJson({path});
        const QJsonObject c = root.value(QStringLiteral("checkpoint")).toObject();
        // down_proj [128, 256]: 16384 + 128 + 512 + 1024 stored bytes.
        QCOMPARE(c.value(QStringLiteral("elements")).toInteger(), qint64(128 * 256));
        QCOMPARE(c.value(QStringLiteral("stored_bytes")).toInteger(), qint64(18048));
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(0).toInteger(), qint64(128 * 256));
    }

    void humanTable()
    {
        const qstest::CliResult r =
            qstest::runCli({QStringLiteral("budget"), QStringLiteral("--params"), QStringLiteral("7B"),
                            QStringLiteral("--memory"), QStringLiteral("8")});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.contains(QStringLiteral("7B")));
        QVERIFY(out.contains(QRegularExpression(QStringLiteral("gguf-q4_k\\s+4\\.5000\\s+3\\.94 / 3\\.67 \\*"))));
        QVERIFY(out.contains(QRegularExpression(QStringLiteral("f16\\s+16\\.0000\\s+14\\.00 / 13\\.04  "))));
    }

    // --context: llama.cpp's allocation, figures computed by hand from the published shape.
    void runningMemory()
    {
        // Llama-3-8B at 8192: f16 K and V, 32 layers x 1024 elements x 2 bytes x 2 x 8192 = 1 GiB;
        // q8_0: 1088 bytes a row.
        QJsonObject root = budgetJson({QStringLiteral("--arch"), QStringLiteral("llama-3-8b"),
                                       QStringLiteral("--context"), QStringLiteral("8192")});
        QCOMPARE(root.value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(1073741824));
        QCOMPARE(root.value(QStringLiteral("kv_bytes_per_token")).toInteger(), qint64(131072));
        QCOMPARE(root.value(QStringLiteral("output_bytes")).toInteger(), qint64(128256 * 4));
        // bf16 weights by default: 8030261248 x 2 bytes.
        QCOMPARE(root.value(QStringLiteral("weights_bytes")).toInteger(), qint64(8030261248) * 2);
        QVERIFY(root.value(QStringLiteral("compute_bytes_estimate")).toInteger() > 0);
        QCOMPARE(root.value(QStringLiteral("total_bytes")).toInteger(),
                 root.value(QStringLiteral("weights_bytes")).toInteger()
                     + root.value(QStringLiteral("kv_cache_bytes")).toInteger()
                     + root.value(QStringLiteral("output_bytes")).toInteger()
                     + root.value(QStringLiteral("compute_bytes_estimate")).toInteger());
        QCOMPARE(root.value(QStringLiteral("contexts")).toArray().size(), 3); // 2K, 4K, 8K (trained 8192)
        root = budgetJson({QStringLiteral("--arch"), QStringLiteral("llama-3-8b"), QStringLiteral("--context"),
                           QStringLiteral("8192"), QStringLiteral("--cache-type"), QStringLiteral("q8_0")});
        QCOMPARE(root.value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(570425344));
        // K q8_0, V f16: (1088 + 2048) x 32 x 8192.
        root = budgetJson({QStringLiteral("--arch"), QStringLiteral("llama-3-8b"), QStringLiteral("--context"),
                           QStringLiteral("8192"), QStringLiteral("--cache-type-k"), QStringLiteral("q8_0"),
                           QStringLiteral("--cache-type-v"), QStringLiteral("f16")});
        QCOMPARE(root.value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(3136) * 32 * 8192);
        // Gemma-2-9B: the sliding half by its window (4096 + 512 cells), or full-size.
        root = budgetJson({QStringLiteral("--arch"), QStringLiteral("gemma-2-9b"), QStringLiteral("--context"),
                           QStringLiteral("8192")});
        QCOMPARE(root.value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(21) * 8192 * (8192 + 4608));
        root = budgetJson({QStringLiteral("--arch"), QStringLiteral("gemma-2-9b"), QStringLiteral("--context"),
                           QStringLiteral("8192"), QStringLiteral("--swa-full")});
        QCOMPARE(root.value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(42) * 8192 * 8192);
        // DeepSeek-V3's MLA cache: 61 x 576 x 2 bytes a token.
        root = budgetJson({QStringLiteral("--arch"), QStringLiteral("deepseek-v3"), QStringLiteral("--context"),
                           QStringLiteral("8192")});
        QCOMPARE(root.value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(575668224));
    }

    void offloadAndFit()
    {
        // 64 GiB RAM and a 12 GiB GPU: every block and the output on the GPU, the input
        // embedding (128256 x 4096 x 4.5 bits) in RAM.
        const QJsonObject root =
            budgetJson({QStringLiteral("--arch"), QStringLiteral("llama-3-8b"), QStringLiteral("--weights"),
                        QStringLiteral("gguf-q4_k"), QStringLiteral("--context"), QStringLiteral("8192"),
                        QStringLiteral("--memory"), QStringLiteral("64,12")});
        QCOMPARE(root.value(QStringLiteral("gpu_layers")).toInt(), 33);
        const QJsonArray devices = root.value(QStringLiteral("devices")).toArray();
        QCOMPARE(devices.size(), 2);
        QCOMPARE(devices.at(0).toObject().value(QStringLiteral("weights_bytes")).toInteger(),
                 qint64(128256) * 4096 * 9 / 16);
        QCOMPARE(devices.at(1).toObject().value(QStringLiteral("layers")).toInt(), 32);
        QCOMPARE(devices.at(1).toObject().value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(1073741824));
        QVERIFY(root.value(QStringLiteral("fits")).toBool());
        QCOMPARE(root.value(QStringLiteral("max_context")).toInteger(), qint64(8192));
        // -ngl 16: half the blocks, the output and its KV stay on the CPU.
        const QJsonObject half =
            budgetJson({QStringLiteral("--arch"), QStringLiteral("llama-3-8b"), QStringLiteral("--context"),
                        QStringLiteral("8192"), QStringLiteral("--gpu-layers"), QStringLiteral("16"),
                        QStringLiteral("--memory"), QStringLiteral("64,12")});
        const QJsonArray d2 = half.value(QStringLiteral("devices")).toArray();
        QCOMPARE(d2.at(0).toObject().value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(1073741824) / 2);
        QVERIFY(d2.at(0).toObject().value(QStringLiteral("output_layer")).toBool());
        // Too little memory for the context: the largest that fits, and the cache type that would.
        const QJsonObject tight =
            budgetJson({QStringLiteral("--arch"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--weights"),
                        QStringLiteral("gguf-q4_k"), QStringLiteral("--context"), QStringLiteral("65536"),
                        QStringLiteral("--memory"), QStringLiteral("10")});
        QVERIFY(!tight.value(QStringLiteral("fits")).toBool());
        const qint64 maxCtx = tight.value(QStringLiteral("max_context")).toInteger();
        QVERIFY(maxCtx > 8192 && maxCtx < 65536 && maxCtx % 256 == 0);
        QCOMPARE(tight.value(QStringLiteral("cache_type_that_fits")).toString(), QStringLiteral("q8_0"));
    }

    void runningFromCheckpoint()
    {
        // stories260K (llama.cpp's converter): 5 blocks, 4 KV heads of 8; at 256 tokens
        // 5 x 32 x 2 bytes x 2 x 256.
        const QString path = qstest::fixture(QStringLiteral("real/python-gen-worker/stories260K.gguf"));
        const QJsonObject root = budgetJson({path, QStringLiteral("--context"), QStringLiteral("256")});
        QCOMPARE(root.value(QStringLiteral("kv_cache_bytes")).toInteger(), qint64(5 * 32 * 2 * 2 * 256));
        QCOMPARE(root.value(QStringLiteral("architecture")).toObject().value(QStringLiteral("arch")).toString(),
                 QStringLiteral("llama"));
        QCOMPARE(root.value(QStringLiteral("layers")).toArray().size(), 5);
        const qstest::CliResult human =
            qstest::runCli({QStringLiteral("budget"), path, QStringLiteral("--context"), QStringLiteral("256")});
        QCOMPARE(human.exitCode, 0);
        QVERIFY(human.out.contains("KV cache per token: 640 bytes"));
        QVERIFY(human.out.contains("compute (estimate)"));
        // A checkpoint without an architecture the budget knows: named, not guessed.
        const qstest::CliResult bad = qstest::runCli(
            {QStringLiteral("budget"), qstest::fixture(QStringLiteral("real/ggml-superpoint/superpoint.gguf")),
             QStringLiteral("--context"), QStringLiteral("256")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("is not one whose memory rules quantscope knows") || bad.err.contains("is missing"),
                 bad.err.constData());
        QVERIFY(bad.out.isEmpty());
    }

    void badUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("bad params") << QStringList{QStringLiteral("--params"), QStringLiteral("seven")};
        QTest::addRow("zero params") << QStringList{QStringLiteral("--params"), QStringLiteral("0")};
        QTest::addRow("bad memory") << QStringList{QStringLiteral("--memory"), QStringLiteral("-1")};
        QTest::addRow("bad layer") << QStringList{QStringLiteral("--layer"), QStringLiteral("4096")};
        QTest::addRow("missing file") << QStringList{QStringLiteral("/nonexistent/model.safetensors")};
        QTest::addRow("two paths") << QStringList{QStringLiteral("a"), QStringLiteral("b")};
        QTest::addRow("parallel without context") << QStringList{QStringLiteral("--parallel"), QStringLiteral("2")};
        QTest::addRow("context without model") << QStringList{QStringLiteral("--context"), QStringLiteral("4096")};
        QTest::addRow("unknown arch") << QStringList{QStringLiteral("--arch"), QStringLiteral("llama-9")};
        QTest::addRow("unknown cache type") << QStringList{QStringLiteral("--arch"), QStringLiteral("llama-3-8b"),
                                                           QStringLiteral("--cache-type"), QStringLiteral("q4_k")};
        QTest::addRow("both cache options")
            << QStringList{QStringLiteral("--arch"), QStringLiteral("llama-3-8b"),     QStringLiteral("--cache-type"),
                           QStringLiteral("q8_0"),   QStringLiteral("--cache-type-k"), QStringLiteral("f16")};
        QTest::addRow("zero context") << QStringList{QStringLiteral("--arch"), QStringLiteral("llama-3-8b"),
                                                     QStringLiteral("--context"), QStringLiteral("0")};
        QTest::addRow("bad memory list") << QStringList{QStringLiteral("--arch"), QStringLiteral("llama-3-8b"),
                                                        QStringLiteral("--memory"), QStringLiteral("64,x")};
        QTest::addRow("quantized V without flash attention")
            << QStringList{QStringLiteral("--arch"), QStringLiteral("llama-3-8b"), QStringLiteral("--cache-type"),
                           QStringLiteral("q8_0"), QStringLiteral("--no-flash-attn")};
    }
    void badUsage()
    {
        QFETCH(QStringList, args);
        const qstest::CliResult r = qstest::runCli(QStringList{QStringLiteral("budget")} + args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!r.err.isEmpty());
    }

    // A file without weights, or with fewer blocks than its metadata names, is budgeted with a
    // note saying so, in the text and the JSON (issue 29: weights 0 B with no word; 40 blocks
    // from a file holding block 0).
    void fileHoldsLessThanTheModel()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const auto u32 = [](uint64_t v) { return qs::MetaValue{qs::MetaValue::Type::U32, qs::MetaValue::Type::U8, v}; };
        const qs::GgufMetadata meta{
            {"general.architecture", {qs::MetaValue::Type::String, qs::MetaValue::Type::U8, std::string("llama")}},
            {"llama.block_count", u32(40)},
            {"llama.embedding_length", u32(64)},
            {"llama.context_length", u32(4096)},
            {"llama.attention.head_count", u32(4)},
            {"llama.attention.head_count_kv", u32(4)},
            {"llama.vocab_size", u32(3)},
        };
        std::vector<uint8_t> q(64 * 64 * 4);
        const QString vocab = tmp.filePath(QStringLiteral("vocab.gguf")),
                      block0 = tmp.filePath(QStringLiteral("block0.gguf"));
        qs::writeGguf(vocab.toStdString(), meta, {});
        qs::writeGguf(block0.toStdString(), meta, {{"blk.0.attn_q.weight", 0, {64, 64}, q}});
        const QStringList run{QStringLiteral("--context"), QStringLiteral("4096")};
        for (const auto& [path, note] : {std::pair{vocab, QByteArray("the file holds no weights (0 tensors)")},
                                         std::pair{block0,
                                                   QByteArray("the file holds the weights of 1 of the 40 blocks its "
                                                              "metadata names (0)")}}) {
            const qstest::CliResult text = qstest::runCli(QStringList{QStringLiteral("budget"), path} + run);
            QVERIFY2(text.exitCode == 0, text.err.constData());
            QVERIFY2(text.out.contains("note: " + note), text.out.constData());
            const QJsonObject root = budgetJson(QStringList{path} + run);
            QVERIFY(root.value(QStringLiteral("notes"))
                        .toArray()
                        .contains(QString::fromUtf8(note)
                                  + QLatin1String(
                                      path == vocab
                                          ? ": the weights count 0 bytes and the total is the cache and buffers alone"
                                          : ": the weights are this file's alone, the cache and buffers those of all "
                                            "40 blocks")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliBudget)
#include "tst_cli_budget.moc"
