// quantscope-cli inspect: JSON against the fixture expectations, the human table, exit codes.
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

namespace {

QJsonObject inspectJson(const QString& path)
{
    const qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), path, QStringLiteral("--json")});
    if (r.crashed || r.exitCode != 0) {
        qWarning("inspect %s: exit %d: %s", qPrintable(path), r.exitCode, r.err.constData());
        return {};
    }
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &err);
    if (!doc.isObject())
        qWarning("inspect %s: bad JSON: %s", qPrintable(path), qPrintable(err.errorString()));
    return doc.object();
}

QJsonObject weightNamed(const QJsonObject& root, const QString& name)
{
    for (const QJsonValue w : root.value(QStringLiteral("weights")).toArray())
        if (w.toObject().value(QStringLiteral("name")).toString() == name)
            return w.toObject();
    return {};
}

QString fixtureModel(const char* folder)
{
    return qstest::fixture(QStringLiteral("safetensors/%1/model.safetensors").arg(QLatin1String(folder)));
}

QList<qint64> ints(const QJsonValue& v)
{
    QList<qint64> out;
    for (const QJsonValue x : v.toArray())
        out.append(x.toInteger());
    return out;
}

} // namespace

class TestCliInspect : public QObject {
    Q_OBJECT

private slots:
    void gptqJson();
    void everyFixtureFormat_data();
    void everyFixtureFormat();
    void torchaoJson();
    void ggufJson();
    void ggufFileTypeAndArrays();
    void humanTable();
    void exitCodes_data();
    void exitCodes();
    void help();
    void folderLeftOut();
    void manyTensorsLean_data();
    void manyTensorsLean();
    void longNameKeepsColumns();
    void countsAgreeWithTheirNumber();
};

void TestCliInspect::gptqJson()
{
    const QString path = fixtureModel("gptq-w4-g128-sym");
    const QJsonObject root = inspectJson(path);
    QCOMPARE(root.value(QStringLiteral("container")).toString(), QStringLiteral("safetensors"));
    QCOMPARE(root.value(QStringLiteral("path")).toString(), path);
    const QJsonArray tensors = root.value(QStringLiteral("tensors")).toArray();
    QCOMPARE(tensors.size(), 4);
    // PROVENANCE inventory, in data order (names sorted by the fixture writer).
    const QStringList names{QStringLiteral("g_idx"), QStringLiteral("qweight"), QStringLiteral("qzeros"),
                            QStringLiteral("scales")};
    const QStringList dtypes{QStringLiteral("I32"), QStringLiteral("I32"), QStringLiteral("I32"),
                             QStringLiteral("F16")};
    const QList<QList<qint64>> shapes{{256}, {32, 128}, {2, 16}, {2, 128}};
    const QList<qint64> bytes{1024, 16384, 128, 512};
    qint64 offset = -1;
    for (int i = 0; i < 4; ++i) {
        const QJsonObject t = tensors.at(i).toObject();
        QCOMPARE(t.value(QStringLiteral("name")).toString(),
                 QStringLiteral("model.layers.0.mlp.down_proj.") + names[i]);
        QCOMPARE(t.value(QStringLiteral("dtype")).toString(), dtypes[i]);
        QCOMPARE(ints(t.value(QStringLiteral("shape"))), shapes[i]);
        QCOMPARE(t.value(QStringLiteral("bytes")).toInteger(), bytes[i]);
        QVERIFY(t.value(QStringLiteral("offset")).toInteger() > offset);
        offset = t.value(QStringLiteral("offset")).toInteger();
    }
    const QJsonArray weights = root.value(QStringLiteral("weights")).toArray();
    QCOMPARE(weights.size(), 1);
    const QJsonObject w = weights.at(0).toObject();
    QCOMPARE(w.value(QStringLiteral("name")).toString(), QStringLiteral("model.layers.0.mlp.down_proj"));
    QCOMPARE(w.value(QStringLiteral("format")).toString(), QStringLiteral("gptq-v1"));
    QCOMPARE(w.value(QStringLiteral("bits")).toInt(), 4);
    QCOMPARE(w.value(QStringLiteral("group_size")).toInt(), 128);
    QCOMPARE(w.value(QStringLiteral("symmetric")).toBool(), true);
    QCOMPARE(w.value(QStringLiteral("act_order")).toBool(), false);
    QCOMPARE(ints(w.value(QStringLiteral("shape"))), (QList<qint64>{128, 256}));
    QStringList roles;
    for (const QJsonValue m : w.value(QStringLiteral("members")).toArray())
        roles << m.toObject().value(QStringLiteral("role")).toString();
    QCOMPARE(roles,
             (QStringList{QStringLiteral("qweight"), QStringLiteral("qzeros"), QStringLiteral("scales"),
                          QStringLiteral("g_idx")}));
    QCOMPARE(w.value(QStringLiteral("stored_bytes")).toInteger(), 18048);
    QCOMPARE(w.value(QStringLiteral("bpw")).toDouble(), 4.40625);
    QCOMPARE(w.value(QStringLiteral("params")).toObject().value(QStringLiteral("checkpoint_format")).toString(),
             QStringLiteral("gptq"));
    QCOMPARE(root.value(QStringLiteral("totals")).toObject().value(QStringLiteral("bpw")).toDouble(), 4.40625);
    QCOMPARE(root.value(QStringLiteral("config"))
                 .toObject()
                 .value(QStringLiteral("quantization_config"))
                 .toObject()
                 .value(QStringLiteral("bits"))
                 .toInt(),
             4);
    QCOMPARE(root.value(QStringLiteral("quantize_config_file")).toString(), QStringLiteral("quantize_config.json"));
    const QJsonArray meta = root.value(QStringLiteral("metadata")).toArray();
    QCOMPARE(meta.size(), 1);
    QCOMPARE(meta.at(0).toObject().value(QStringLiteral("key")).toString(), QStringLiteral("format"));
    QCOMPARE(meta.at(0).toObject().value(QStringLiteral("value")).toString(), QStringLiteral("pt"));
}

void TestCliInspect::everyFixtureFormat_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("weights");
    const std::pair<const char*, std::pair<const char*, int>> rows[] = {
        {"awq-gemm-w4-g128", {"awq-gemm", 1}},
        {"awq-gemm-w4-g32", {"awq-gemm", 2}},
        {"bnb-fp4", {"bnb-fp4", 3}},
        {"bnb-fp4-doublequant", {"bnb-fp4", 3}},
        {"bnb-nf4", {"bnb-nf4", 3}},
        {"bnb-nf4-doublequant", {"bnb-nf4", 3}},
        {"ct-pack-w4a16-channel-asym", {"compressed-tensors", 3}},
        {"ct-pack-w4a16-g128-sym", {"compressed-tensors", 1}},
        {"ct-pack-w4a16-g32-asym", {"compressed-tensors", 2}},
        {"ct-pack-w8a16-channel-sym", {"compressed-tensors", 3}},
        {"gptq-w2-g32-asym", {"gptq-v1", 2}},
        {"gptq-w3-g128-sym", {"gptq-v1", 1}},
        {"gptq-w3-g32-asym", {"gptq-v1", 2}},
        {"gptq-w4-g128-asym-actorder", {"gptq-v1", 1}},
        {"gptq-w4-g128-sym", {"gptq-v1", 1}},
        {"gptq-w4-g32-asym", {"gptq-v1", 2}},
        {"gptq-w4-g32-sym-actorder", {"gptq-v1", 2}},
        {"gptq-w8-g128-sym", {"gptq-v1", 1}},
    };
    for (const auto& [folder, fw] : rows)
        QTest::addRow("%s", folder) << QString::fromLatin1(folder) << QString::fromLatin1(fw.first) << fw.second;
}

void TestCliInspect::everyFixtureFormat()
{
    QFETCH(QString, folder);
    QFETCH(QString, format);
    QFETCH(int, weights);
    const QJsonObject root =
        inspectJson(qstest::fixture(QStringLiteral("safetensors/") + folder + QStringLiteral("/model.safetensors")));
    const QJsonArray ws = root.value(QStringLiteral("weights")).toArray();
    QCOMPARE(ws.size(), weights);
    for (const QJsonValue w : ws) {
        const QJsonObject o = w.toObject();
        QCOMPARE(o.value(QStringLiteral("format")).toString(), format);
        const double bpw = o.value(QStringLiteral("bpw")).toDouble();
        QCOMPARE(bpw,
                 double(o.value(QStringLiteral("stored_bytes")).toInteger()) * 8
                     / double(o.value(QStringLiteral("elements")).toInteger()));
        QVERIFY(bpw > 2 && bpw < 9);
    }
}

// torchao's kinds in the JSON: the decoded ones by their format id and parameters, the rest
// named with the note that says why they are not decoded.
void TestCliInspect::torchaoJson()
{
    const QString data = QStringLiteral(QT_TESTCASE_SOURCEDIR "/data/torchao/");
    const QJsonObject decoded = inspectJson(data + QStringLiteral("float8-v1/model.safetensors"));
    const QJsonObject q = weightNamed(decoded, QStringLiteral("model.layers.0.self_attn.q_proj"));
    QCOMPARE(q.value(QStringLiteral("format")).toString(), QStringLiteral("torchao-float8"));
    const QJsonObject params = q.value(QStringLiteral("params")).toObject();
    QCOMPARE(params.value(QStringLiteral("kind")).toString(), QStringLiteral("Float8Tensor"));
    QCOMPARE(params.value(QStringLiteral("block")).toString(), QStringLiteral("1x64"));
    QCOMPARE(q.value(QStringLiteral("notes")).toArray().size(), 0);

    const QJsonObject named = inspectJson(data + QStringLiteral("named-v2/model.safetensors"));
    const QJsonObject packed = weightNamed(named, QStringLiteral("model.layers.0.mlp.down_proj"));
    QCOMPARE(packed.value(QStringLiteral("format")).toString(), QStringLiteral("torchao"));
    const QJsonArray notes = packed.value(QStringLiteral("notes")).toArray();
    QVERIFY(std::any_of(notes.begin(), notes.end(), [](const QJsonValue& n) {
        return n.toString().startsWith(QStringLiteral("torchao Int4TilePackedTo4dTensor ("));
    }));
    for (const QJsonValue w : named.value(QStringLiteral("weights")).toArray())
        QVERIFY(!w.toObject().value(QStringLiteral("notes")).toArray().isEmpty());
}

void TestCliInspect::ggufJson()
{
    const QJsonObject root = inspectJson(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")));
    QCOMPARE(root.value(QStringLiteral("container")).toString(), QStringLiteral("gguf"));
    QCOMPARE(root.value(QStringLiteral("gguf_version")).toInt(), 3);
    QCOMPARE(root.value(QStringLiteral("alignment")).toInt(), 32);
    QCOMPARE(root.value(QStringLiteral("tensors")).toArray().size(), 72);
    QCOMPARE(root.value(QStringLiteral("weights")).toArray().size(), 72);
    bool arch = false;
    for (const QJsonValue m : root.value(QStringLiteral("metadata")).toArray())
        if (m.toObject().value(QStringLiteral("key")).toString() == QLatin1String("general.architecture"))
            arch = m.toObject().value(QStringLiteral("value")).toString() == QLatin1String("fixture");
    QVERIFY(arch);
    const QJsonObject q4 = weightNamed(root, QStringLiteral("synthetic.q4_0"));
    QCOMPARE(q4.value(QStringLiteral("format")).toString(), QStringLiteral("gguf-q4_0"));
    QCOMPARE(q4.value(QStringLiteral("bpw")).toDouble(), 4.5);
    QCOMPARE(ints(q4.value(QStringLiteral("shape"))), (QList<qint64>{34, 256}));
    QCOMPARE(q4.value(QStringLiteral("stored_bytes")).toInteger(), 4896);
    const QJsonObject k = weightNamed(root, QStringLiteral("real.q4_k"));
    QCOMPARE(k.value(QStringLiteral("format")).toString(), QStringLiteral("gguf-q4_k"));
    QCOMPARE(ints(k.value(QStringLiteral("shape"))), (QList<qint64>{64, 256}));
    QVERIFY(!root.contains(QStringLiteral("file_type")));
}

void TestCliInspect::ggufFileTypeAndArrays()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("tiny.gguf")).toStdString();
    std::vector<qs::MetaValue> tokens;
    for (int i = 0; i < 100; ++i)
        tokens.push_back(
            {qs::MetaValue::Type::String, qs::MetaValue::Type::U8, std::string("tok") + std::to_string(i)});
    std::vector<std::pair<std::string, qs::MetaValue>> meta{
        {"general.architecture", {qs::MetaValue::Type::String, qs::MetaValue::Type::U8, std::string("llama")}},
        {"general.file_type", {qs::MetaValue::Type::U32, qs::MetaValue::Type::U8, uint64_t(15)}},
        {"tokenizer.ggml.tokens", {qs::MetaValue::Type::Array, qs::MetaValue::Type::String, tokens}},
    };
    std::vector<uint8_t> data(2 * 18, 0);
    qs::writeGguf(path, meta, {{"blk.0.ffn_down.weight", 2, {32, 2}, data}});
    const QJsonObject root = inspectJson(QString::fromStdString(path));
    const QJsonObject ft = root.value(QStringLiteral("file_type")).toObject();
    QCOMPARE(ft.value(QStringLiteral("value")).toInt(), 15);
    QCOMPARE(ft.value(QStringLiteral("name")).toString(), QStringLiteral("MOSTLY_Q4_K_M"));
    QJsonObject arr;
    for (const QJsonValue m : root.value(QStringLiteral("metadata")).toArray())
        if (m.toObject().value(QStringLiteral("key")).toString() == QLatin1String("tokenizer.ggml.tokens"))
            arr = m.toObject();
    QCOMPARE(arr.value(QStringLiteral("type")).toString(), QStringLiteral("array"));
    QCOMPARE(arr.value(QStringLiteral("element_type")).toString(), QStringLiteral("string"));
    QCOMPARE(arr.value(QStringLiteral("count")).toInt(), 100);
    QCOMPARE(arr.value(QStringLiteral("items")).toArray().size(), 16);
    QCOMPARE(arr.value(QStringLiteral("items")).toArray().at(3).toString(), QStringLiteral("tok3"));
    QCOMPARE(arr.value(QStringLiteral("truncated")).toBool(), true);
    QCOMPARE(weightNamed(root, QStringLiteral("blk.0.ffn_down.weight")).value(QStringLiteral("format")).toString(),
             QStringLiteral("gguf-q4_0"));

    const qstest::CliResult table = qstest::runCli({QStringLiteral("inspect"), QString::fromStdString(path)});
    QCOMPARE(table.exitCode, 0);
    QVERIFY(table.out.contains("MOSTLY_Q4_K_M (general.file_type = 15)"));
    QVERIFY(table.out.contains("(100 items)"));
    QVERIFY(!table.out.contains("tok99"));
}

void TestCliInspect::humanTable()
{
    const qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), fixtureModel("gptq-w2-g32-asym")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.isEmpty());
    const QString out = QString::fromUtf8(r.out);
    QVERIFY(out.contains(QLatin1String("Container:  safetensors, 1 file")));
    const QStringList lines = out.split(QLatin1Char('\n'));
    const auto qweight = std::find_if(lines.begin(), lines.end(), [](const QString& l) {
        return l.contains(QLatin1String("down_proj.qweight")) && l.contains(QLatin1String(" I32 "))
            && l.contains(QLatin1String("[16, 128]")) && l.trimmed().endsWith(QLatin1String(" 8192"));
    });
    QVERIFY(qweight != lines.end());
    QVERIFY(out.contains(QLatin1String("gptq-v1")));
    QVERIFY(out.contains(QLatin1String("qweight,qzeros,scales,g_idx")));
    QVERIFY(out.contains(QLatin1String("2.8125"))); // (8192 + 256 + 2048 + 1024) * 8 / 32768
    QVERIFY(out.contains(QLatin1String("v1 cannot store zero point 0")));
    QVERIFY(out.contains(QLatin1String("Total: 2 weights")));
}

void TestCliInspect::exitCodes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("errorPart");
    QTest::addRow("no path") << QStringList{QStringLiteral("inspect")} << QStringLiteral("missing PATH");
    QTest::addRow("two paths") << QStringList{QStringLiteral("inspect"), QStringLiteral("a"), QStringLiteral("b")}
                               << QStringLiteral("exactly one PATH");
    QTest::addRow("unknown option") << QStringList{QStringLiteral("inspect"), QStringLiteral("--frobnicate"),
                                                   QStringLiteral("x")}
                                    << QStringLiteral("frobnicate");
    QTest::addRow("missing file") << QStringList{
        QStringLiteral("inspect"), QStringLiteral("/nonexistent/model.safetensors"),
        QStringLiteral("--json")} << QStringLiteral("/nonexistent/model.safetensors");
}

void TestCliInspect::exitCodes()
{
    QFETCH(QStringList, args);
    QFETCH(QString, errorPart);
    const qstest::CliResult r = qstest::runCli(args);
    QVERIFY(!r.crashed);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    const QString err = QString::fromUtf8(r.err).trimmed();
    QVERIFY2(err.contains(errorPart), qPrintable(err));
    QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err)); // one line
}

void TestCliInspect::help()
{
    const qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("Usage: quantscope-cli inspect PATH [--json]"));
    QVERIFY(r.out.contains("--json"));

    // A corrupt file: exit 2, one line naming the file.
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("broken.safetensors"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":", 13);
    f.close();
    const qstest::CliResult e = qstest::runCli({QStringLiteral("inspect"), bad});
    QCOMPARE(e.exitCode, 2);
    QVERIFY2(e.err.contains(bad.toUtf8()), e.err.constData());
    QCOMPARE(e.err.count('\n'), 1);
}

// A folder's other checkpoint files are named (text and JSON); a folder of several
// checkpoints is refused with their names (exit 2, one line).
void TestCliInspect::folderLeftOut()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    static const std::vector<uint8_t> z(16, 0);
    const std::span<const uint8_t> data(z.data(), z.size());
    qs::writeSafetensors(d + "/model.safetensors", {{"model.norm.weight", qs::DType::F32, {4}, data}});
    qs::writeSafetensors(d + "/adapters.safetensors", {{"lora_a", qs::DType::F32, {4}, data}});
    const QJsonObject o = inspectJson(dir.path());
    QCOMPARE(o.value(QStringLiteral("opened_as")).toString(), QStringLiteral("model.safetensors"));
    QCOMPARE(o.value(QStringLiteral("left_out")).toArray(), QJsonArray{QStringLiteral("adapters.safetensors")});
    QCOMPARE(o.value(QStringLiteral("tensors")).toArray().size(), 1);
    const qstest::CliResult text = qstest::runCli({QStringLiteral("inspect"), dir.path()});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("Left out:   adapters.safetensors"), text.out.constData());

    QFile::remove(dir.filePath(QStringLiteral("model.safetensors")));
    qs::writeSafetensors(d + "/base.safetensors", {{"w", qs::DType::F32, {4}, data}});
    const qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), dir.path()});
    QCOMPARE(r.exitCode, 2);
    const QString err = QString::fromUtf8(r.err).trimmed();
    QVERIFY2(err.contains(QStringLiteral("adapters.safetensors, base.safetensors")), qPrintable(err));
    QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
}

void TestCliInspect::manyTensorsLean_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addRow("json") << QStringList{QStringLiteral("--json")};
    QTest::addRow("text") << QStringList{};
}

// 100,000 tiny tensors (issue 29): the listing is written as it is made, not held as a document
// of the whole file (a QJsonDocument of a million tensors took 5.8 GB for an 80 MB file). The
// bound is on the child's peak RSS against the file's size; nothing is timed.
void TestCliInspect::manyTensorsLean()
{
    QFETCH(QStringList, options);
    if (!qstest::emulator().isEmpty() || qstest::kAsan)
        QSKIP("peak RSS is the emulator's or the sanitizer's here");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("many.gguf"));
    constexpr int kTensors = 100000;
    const std::vector<uint8_t> data(32, 0);
    std::vector<qs::GgufTensor> tensors;
    for (int i = 0; i < kTensors; ++i)
        tensors.push_back({"blk." + std::to_string(i) + ".ffn_down.weight", 0, {8}, data});
    qs::writeGguf(path.toStdString(), {}, tensors);
    tensors = {};
    const qint64 fileKiB = QFileInfo(path).size() / 1024;
    const qstest::CliResult r = qstest::runCli(QStringList{QStringLiteral("inspect"), path} + options, 300000);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("blk.99999.ffn_down.weight"));
    QCOMPARE(r.out.count(options.isEmpty() ? " gguf-f32 " : "\"format\": \"gguf-f32\""), kTensors);
    // Measured: 82 MiB (json) and 95 MiB (text) for the 8.5 MiB file; about 600 MB with the
    // whole document and a QString row per tensor.
    const long peakKiB = qstest::childrenPeakRssKiB();
    qInfo("file %lld KiB, peak RSS %ld KiB", fileKiB, peakKiB);
    QCOMPARE_LT(peakKiB, 64 * 1024 + 10 * fileKiB);
}

// A tensor name of a megabyte is printed whole once; it does not widen its column for every
// other row (the table was a megabyte a row).
void TestCliInspect::longNameKeepsColumns()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("long.gguf"));
    const std::vector<uint8_t> data(32, 0);
    std::vector<qs::GgufTensor> tensors{{std::string(1 << 20, 'x'), 0, {8}, data}};
    for (int i = 0; i < 100; ++i)
        tensors.push_back({"blk." + std::to_string(i) + ".ffn_down.weight", 0, {8}, data});
    qs::writeGguf(path.toStdString(), {}, tensors);
    const qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), path});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains(QByteArray(1 << 20, 'x')));
    const QList<QByteArray> lines = r.out.split('\n');
    const auto row = std::find_if(lines.begin(), lines.end(), [](const QByteArray& l) {
        return l.contains("blk.7.ffn_down.weight") && l.contains("F32");
    });
    QVERIFY(row != lines.end());
    QCOMPARE_LT(row->size(), 400);
    QCOMPARE_LT(r.out.size(), 4 << 20);
}

// A count of one reads "1 weight", never "1 weights" (issue 33), in the totals and the recipe
// line; verify counts the same way.
void TestCliInspect::countsAgreeWithTheirNumber()
{
    const QString path = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
    const auto r = qstest::runCli({QStringLiteral("inspect"), path});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("Total: 1 weight, 32768 elements in "), r.out.constData());
    QVERIFY2(r.out.contains("Quantized only: 1 weight, "), r.out.constData());
    QVERIFY2(r.out.contains("quantized weights: 1, at "), r.out.constData());
    const auto verify = qstest::runCli({QStringLiteral("verify"), path});
    QVERIFY2(verify.out.contains("1 weight checked, 0 errors, 0 warnings"), verify.out.constData());
    for (const auto* run : {&r, &verify})
        QVERIFY2(!run->out.contains(" 1 weights") && !run->out.contains("(s)"), run->out.constData());
}

QTEST_GUILESS_MAIN(TestCliInspect)
#include "tst_cli_inspect.moc"
