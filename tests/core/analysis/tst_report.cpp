// Report content model: each format's chapter names the axis, order, shapes and bits per
// weight that the spec documents (facts written here by hand from ../shared/spec/*.md, not
// taken from our output); the probes pass; cancel and bad parameters behave.
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "formats/layoutspec.h"
#include "formats/wordmap.h"
#include "report/report.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace qs;
using namespace qs::report;

namespace {

std::string fact(const Document& d, const std::string& label)
{
    for (const Section& s : d.sections)
        for (const Block& b : s.blocks)
            for (const auto& [l, v] : b.facts)
                if (l == label)
                    return v;
    return {};
}

const Table* tableWithHeader(const Document& d, const std::string& first, size_t skip = 0)
{
    for (const Section& s : d.sections)
        for (const Block& b : s.blocks)
            if (b.kind == Block::Kind::Table && !b.table.header.empty() && b.table.header[0] == first && skip-- == 0)
                return &b.table;
    return nullptr;
}

std::string cell(const Table* t, const std::string& key, size_t column)
{
    if (!t)
        return "<no table>";
    for (const auto& row : t->rows)
        if (!row.empty() && row[0] == key && column < row.size())
            return row[column];
    return "<no row " + key + ">";
}

bool hasParagraph(const Document& d, const std::string& text)
{
    for (const Section& s : d.sections)
        for (const Block& b : s.blocks)
            if (b.kind == Block::Kind::Paragraph && b.text.find(text) != std::string::npos)
                return true;
    return false;
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT
private slots:
    void formatFacts_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::addColumn<QString>("axis"); // the pack axis as the spec names it
        QTest::addColumn<QString>("order"); // slot order, or "natural"
        QTest::addColumn<QString>("dataRole");
        QTest::addColumn<QString>("dataShape"); // evaluated by hand from the spec's formula
        QTest::addColumn<double>("bpw"); // by hand: data + scales + zeros
        // safetensors-quant.md B.1: qweight I32 [K*b/32, N] packed along K, qzeros [G, N*b/32], scales F16 [G, N].
        QTest::addRow("gptq-v1-4-g128") << "gptq-v1" << 4 << 128 << 4096 << 4096 << "in (K)"
                                        << "natural"
                                        << "qweight"
                                        << "[512, 4096]" << (4.0 + 16.0 / 128 + 4.0 / 128);
        // GPTQ 3-bit: 3*K/32 words per column; codes straddle.
        QTest::addRow("gptq-v2-3-g64") << "gptq-v2" << 3 << 64 << 1024 << 256 << "in (K)"
                                       << "natural"
                                       << "qweight"
                                       << "[96, 256]" << (3.0 + 16.0 / 64 + 3.0 / 64);
        // B.2.1: AWQ GEMM qweight I32 [K, N/8] packed along N, AWQ_ORDER [0,2,4,6,1,3,5,7].
        QTest::addRow("awq-gemm-4-g128") << "awq-gemm" << 4 << 128 << 4096 << 11008 << "out (N)"
                                         << "0, 2, 4, 6, 1, 3, 5, 7"
                                         << "qweight"
                                         << "[4096, 1376]" << (4.0 + 16.0 / 128 + 4.0 / 128);
        // gguf.md section 2: Q4_0 32 weights in 18 bytes (4.5 bpw), Q6_K 256 in 210 (6.5625), Q4_K 256 in 144 (4.5).
        QTest::addRow("q4_0") << "gguf-q4_0" << 4 << 0 << 4096 << 32 << "block"
                              << "natural"
                              << "weight"
                              << "[32, 128]" << 4.5;
        QTest::addRow("q6_k") << "gguf-q6_k" << 6 << 0 << 4096 << 8 << "block"
                              << "natural"
                              << "weight"
                              << "[8, 16]" << 6.5625;
        QTest::addRow("q4_k") << "gguf-q4_k" << 4 << 0 << 512 << 3 << "block"
                              << "natural"
                              << "weight"
                              << "[3, 2]" << 4.5;
    }
    void formatFacts()
    {
        QFETCH(QString, id);
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(int, K);
        QFETCH(int, N);
        QFETCH(QString, axis);
        QFETCH(QString, order);
        QFETCH(QString, dataRole);
        QFETCH(QString, dataShape);
        QFETCH(double, bpw);
        const LayoutSpec* spec = findLayoutSpec(id.toStdString());
        QVERIFY(spec);
        const LayoutParams p{uint64_t(K), uint64_t(N), bits, uint64_t(group)};
        const Document d = formatReport(*spec, p);
        QVERIFY(QString::fromStdString(fact(d, "Pack axis")).startsWith(axis));
        QVERIFY(QString::fromStdString(fact(d, "Slot order")).startsWith(order));
        const Table* tensors = tableWithHeader(d, "tensor");
        QCOMPARE(QString::fromStdString(cell(tensors, dataRole.toStdString(), 3)), dataShape);
        const Table* bitsTable =
            tableWithHeader(d, "tensor", 1) ? tableWithHeader(d, "tensor", 1) : tableWithHeader(d, "block field");
        QVERIFY(bitsTable);
        QCOMPARE(std::stod(cell(bitsTable, "total", 3)), bpw);
        // Two figures (slot order, block) for the format.
        QCOMPARE(d.figures.size(), size_t(2));
        QCOMPARE(d.figures[0].kind, FigureKind::SlotOrder);
        // Every probe passes, and there are patterned, random and all-max rows.
        const Table* probes = tableWithHeader(d, "probe");
        QVERIFY(probes);
        int seen = 0;
        for (const auto& row : probes->rows) {
            QVERIFY2(row[2] == "pass", (row[0] + " " + row[1] + ": " + row[3]).c_str());
            seen |= row[0] == "patterned" ? 1 : row[0] == "random" ? 2 : row[0] == "allmax" ? 4 : 0;
        }
        QCOMPARE(seen, 7);
    }

    void q6kBlockFields()
    {
        // gguf.md Q6_K: ql[128] @0, qh[64] @128, scales int8[16] @192, d f16 @208.
        const Document d = formatReport(*findLayoutSpec("gguf-q6_k"), {256, 1, 6, 0});
        const Table* f = tableWithHeader(d, "field");
        QVERIFY(f);
        QCOMPARE(f->rows.size(), size_t(4));
        QCOMPARE(f->rows[0][1] + "/" + f->rows[0][2], std::string("0/128"));
        QCOMPARE(f->rows[1][1] + "/" + f->rows[1][2], std::string("128/64"));
        QCOMPARE(f->rows[2][1] + "/" + f->rows[2][2], std::string("192/16"));
        QCOMPARE(f->rows[3][1] + "/" + f->rows[3][2], std::string("208/2"));
    }

    void everySpecProbes()
    {
        for (const LayoutSpec& s : layoutRegistry().all()) {
            ProbeRun run;
            try {
                run = runProbes(s, defaultParams(s));
            } catch (const std::exception& e) {
                QFAIL((s.id + ": " + e.what()).c_str());
            }
            if (!s.locate || s.packAxis == PackAxis::None) {
                QVERIFY(!run.skipped.empty());
                continue;
            }
            QVERIFY2(run.results.size() >= 4, s.id.c_str());
            for (const ProbeResult& r : run.results)
                QVERIFY2(r.pass, (s.id + " " + r.probe + " " + r.check + ": " + r.detail).c_str());
        }
    }

    void badParams()
    {
        const LayoutSpec& awq = *findLayoutSpec("awq-gemm");
        QVERIFY_THROWS_EXCEPTION(Error, formatReport(awq, {4096, 4096, 3, 128})); // AWQ is 4-bit only
        QVERIFY_THROWS_EXCEPTION(Error, formatReport(awq, {4096, 12, 4, 128})); // N not a multiple of 8
        QVERIFY_THROWS_EXCEPTION(Error, formatReport(*findLayoutSpec("gguf-q4_k"), {100, 4, 4, 0}));
        QVERIFY_THROWS_EXCEPTION(Error, formatReport(awq, {0, 8, 4, 128}));
    }

    // The report asks the spec which parameters it refuses (layoutRefusal, as the budget table
    // does): AWQ's group size must divide K, though every element of K = 100 lies in its words.
    void refusesWhatTheSpecRefuses()
    {
        try {
            formatReport(*findLayoutSpec("awq-gemm"), {100, 8, 4, 64});
            QFAIL("a group size that does not divide K was described");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("the group size must divide K") != std::string::npos, e.what());
        }
    }

    // Each chapter of a checkpoint's report checks the spec's tensors against the bytes its largest
    // weight stores: on every safetensors fixture every tensor the spec models agrees...
    void storedBytesAgree_data()
    {
        QTest::addColumn<QString>("fixture");
        const QDir root(qstest::fixture(QStringLiteral("safetensors")));
        for (const QString& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            if (QFileInfo::exists(root.filePath(name + QStringLiteral("/model.safetensors"))))
                QTest::addRow("%s", qPrintable(name)) << root.filePath(name);
    }
    void storedBytesAgree()
    {
        QFETCH(QString, fixture);
        const auto ckpt = openCheckpoint(fixture.toStdString());
        const Document d = checkpointReport(*ckpt, CheckpointOptions{}, qs::Progress{});
        QVERIFY(!hasParagraph(d, "DISAGREES"));
        // bitsandbytes' quant_state JSON has the length of its text, not one from the parameters.
        if (fixture.contains(QLatin1String("bnb-"))) {
            const Table* t = tableWithHeader(d, "tensor", 1);
            QVERIFY(t);
            QCOMPARE(cell(t, "quant_state", 5), std::string("its own length"));
        }
        if (!fixture.endsWith(QLatin1String("gptq-w4-g128-sym")))
            return;
        const Table* t = tableWithHeader(d, "tensor", 1); // the first is the spec's own tensor table
        QVERIFY(t);
        QCOMPARE(t->header.back(), std::string("result"));
        QCOMPARE(cell(t, "qweight", 5), std::string("agrees"));
        QCOMPARE(cell(t, "scales", 5), std::string("agrees"));
        QVERIFY(hasParagraph(d, "(agrees)."));
        QVERIFY(!hasParagraph(d, "DISAGREES"));
    }

    // ...and a hand-made MLX weight whose biases hold twice the groups its scales do (detection
    // notes it and keeps the weight) disagrees, and the chapter says so.
    void storedBytesDisagree()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::vector<uint8_t> weight(8 * 8 * 4), scales(8 * 2 * 2), biases(8 * 4 * 2);
        writeSafetensors(dir.filePath(QStringLiteral("model.safetensors")).toStdString(),
                         {{"layer.weight", DType::U32, {8, 8}, weight},
                          {"layer.scales", DType::F16, {8, 2}, scales},
                          {"layer.biases", DType::F16, {8, 4}, biases}});
        QFile config(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"quantization": {"bits": 4, "group_size": 32}})");
        config.close();
        const auto ckpt = openCheckpoint(dir.path().toStdString());
        QCOMPARE(ckpt->weights.size(), size_t(1));
        const LogicalWeight& w = ckpt->weights[0];
        QCOMPARE(w.format, std::string("mlx-affine"));
        Document d;
        const StoredWeight stored{ckpt.get(), &w};
        appendFormatChapter(d, *findLayoutSpec(w.format), layoutParams(w), qs::Progress{}, &stored);
        const Table* t = tableWithHeader(d, "tensor", 1);
        QVERIFY(t);
        QCOMPARE(cell(t, "weight", 5), std::string("agrees"));
        QCOMPARE(cell(t, "scales", 5), std::string("agrees"));
        QCOMPARE(cell(t, "biases", 3), std::string("64"));
        QCOMPARE(cell(t, "biases", 4), std::string("32"));
        QCOMPARE(cell(t, "biases", 5), std::string("DISAGREES"));
        QVERIFY(hasParagraph(d, "Stored 352 bytes; the spec gives 320 (DISAGREES)."));
    }

    void cancel()
    {
        std::atomic<bool> flag{true};
        qs::Progress c;
        c.cancel = &flag;
        QVERIFY_THROWS_EXCEPTION(Cancelled, formatReport(*findLayoutSpec("gptq-v1"), {128, 64, 4, 32}, c));
    }

    void checkpointReportGptq()
    {
        const auto ckpt = openCheckpoint(qstest::fixture(QStringLiteral("safetensors/gptq-w3-g32-asym")).toStdString());
        CheckpointOptions o;
        o.ref = openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/gptq-w3-g32-asym/ref.safetensors")).toStdString());
        double last = -1;
        bool monotonic = true;
        qs::Progress c;
        c.report = [&](uint64_t done, uint64_t total, const std::string&) {
            const double f = double(done) / double(total);
            monotonic = monotonic && f >= last;
            last = f;
        };
        const Document d = checkpointReport(*ckpt, o, c);
        QVERIFY(monotonic);
        QCOMPARE(last, 1.0);
        QVERIFY(fact(d, "Format").rfind("gptq-v1", 0) == 0);
        QVERIFY(!fact(d, "Evidence").empty());
        const Table* w = tableWithHeader(d, "weight");
        QVERIFY(w);
        QVERIFY(!w->rows.empty());
        QCOMPARE(w->header.size(), size_t(10)); // with the reference: RMSE, max, SQNR
        bool anyStats = false;
        for (const auto& row : w->rows)
            anyStats = anyStats || (row[1] == "gptq-v1" && row[7] != "-" && std::stod(row[7]) > 0);
        QVERIFY(anyStats);
        int heat = 0, hist = 0;
        for (const Figure& f : d.figures) {
            heat += f.kind == FigureKind::ScaleHeatmap;
            hist += f.kind == FigureKind::ErrorHistogram && f.histogram.total() > 0;
        }
        QVERIFY(heat >= 1);
        QVERIFY(hist >= 1);
        QVERIFY(fact(d, "Pack axis").rfind("in (K)", 0) == 0); // the gptq-v1 chapter follows
    }

    // An act-order weight's scale figure names its groups as the views do: by g_idx.
    void checkpointReportActOrderGroups()
    {
        const auto ckpt =
            openCheckpoint(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-asym-actorder")).toStdString());
        const Document d = checkpointReport(*ckpt, CheckpointOptions{}, qs::Progress{});
        int heat = 0;
        for (const Figure& f : d.figures)
            if (f.kind == FigureKind::ScaleHeatmap) {
                ++heat;
                QCOMPARE(f.axisLabel, std::string("group (act-order: columns by g_idx)"));
            }
        QVERIFY(heat >= 1);
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
