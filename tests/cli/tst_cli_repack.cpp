// quantscope-cli repack: round trips through the CLI give the original bytes, --json reports
// exactness and error, act-order gets an input permutation, and every fixture verifies clean
// (exit 0) while bad usage exits 2.
#include "container/checkpoint.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

QString model(const QString& variant)
{
    return qstest::fixture(QStringLiteral("safetensors/") + variant + QStringLiteral("/model.safetensors"));
}

QJsonArray repackJson(const QString& src, const QString& to, const QString& out)
{
    const auto r = qstest::runCli({QStringLiteral("repack"), src, QStringLiteral("--to"), to, QStringLiteral("-o"), out,
                                   QStringLiteral("--json")});
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return QJsonDocument::fromJson(r.out).object().value(QStringLiteral("weights")).toArray();
}

} // namespace

class TestCliRepack : public QObject {
    Q_OBJECT
private slots:
    void roundTrip()
    {
        QTemporaryDir tmp;
        const QString a = model(QStringLiteral("gptq-w4-g32-asym"));
        const QString b = tmp.filePath(QStringLiteral("awq")), c = tmp.filePath(QStringLiteral("gptq"));
        for (const QJsonArray& ws :
             {repackJson(a, QStringLiteral("awq"), b), repackJson(b, QStringLiteral("gptq-v1"), c)}) {
            QCOMPARE(ws.size(), 2);
            for (const QJsonValue& w : ws)
                QVERIFY(w.toObject().value(QStringLiteral("exact")).toBool());
        }
        QFile x(a), y(c + QStringLiteral("/model.safetensors"));
        QVERIFY(x.open(QIODevice::ReadOnly) && y.open(QIODevice::ReadOnly));
        // Same tensors, same bytes; the header differs only by nothing: both are the reference layout.
        const auto ca = qs::openCheckpoint(a.toStdString()), cc = qs::openCheckpoint(y.fileName().toStdString());
        for (const qs::TensorEntry& t : ca->tensors) {
            const qs::TensorEntry* u = cc->find(t.name);
            QVERIFY(u);
            const auto p = ca->bytes(t), q = cc->bytes(*u);
            QVERIFY2(std::equal(p.begin(), p.end(), q.begin(), q.end()), std::string(t.name).c_str());
        }
    }

    // GGUF targets, from inputs under GGUF names (Hugging Face names are refused, as quantize
    // refuses them, with exit 2 and nothing written).
    void ggufError()
    {
        QTemporaryDir tmp;
        const auto ggufNamed = [&](const QString& variant) {
            return qstest::ggufNamedCopy(model(variant), tmp.filePath(variant));
        };
        const QString out = tmp.filePath(QStringLiteral("q41.gguf"));
        const auto refused =
            qstest::runCli({QStringLiteral("repack"), model(QStringLiteral("awq-gemm-w4-g128")), QStringLiteral("--to"),
                            QStringLiteral("q4_1"), QStringLiteral("-o"), out});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("'model.layers.0.mlp.down_proj.qweight' is not a GGUF name"),
                 refused.err.constData());
        QVERIFY(!QFile::exists(out));
        const auto r = qstest::runCli({QStringLiteral("repack"), ggufNamed(QStringLiteral("awq-gemm-w4-g128")),
                                       QStringLiteral("--to"), QStringLiteral("q4_1"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("elements differ, max |error|"));
        const auto text = qstest::runCli(
            {QStringLiteral("repack"), ggufNamed(QStringLiteral("gptq-w4-g128-asym-actorder")), QStringLiteral("--to"),
             QStringLiteral("q8_0"), QStringLiteral("-o"), tmp.filePath(QStringLiteral("q8.gguf"))});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY(text.out.contains("(input channels permuted): bit-identical"));
        QCOMPARE(qstest::runCli({QStringLiteral("verify"), tmp.filePath(QStringLiteral("q8.gguf"))}).exitCode, 0);
    }

    // MLX as a target: the config's "quantization" block, a note per weight (rounded biases,
    // f16 arithmetic) and the error in --json and in the text output.
    void mlx()
    {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("mlx"));
        const QJsonArray ws = repackJson(model(QStringLiteral("gptq-w4-g32-asym")), QStringLiteral("mlx"), out);
        QCOMPARE(ws.size(), 2);
        for (const QJsonValue& v : ws) {
            const QJsonObject w = v.toObject();
            QVERIFY(w.value(QStringLiteral("verified")).toBool());
            QVERIFY(!w.value(QStringLiteral("exact")).toBool());
            QVERIFY(w.value(QStringLiteral("max_abs_error")).toDouble() < 1e-3);
            QVERIFY(w.value(QStringLiteral("note")).toString().contains(QStringLiteral("biases")));
        }
        QFile cfg(out + QStringLiteral("/config.json"));
        QVERIFY(cfg.open(QIODevice::ReadOnly));
        const QJsonObject q =
            QJsonDocument::fromJson(cfg.readAll()).object().value(QStringLiteral("quantization")).toObject();
        QCOMPARE(q.value(QStringLiteral("group_size")).toInt(), 32);
        QCOMPARE(q.value(QStringLiteral("bits")).toInt(), 4);
        const auto text =
            qstest::runCli({QStringLiteral("repack"), model(QStringLiteral("gptq-w4-g128-sym")), QStringLiteral("--to"),
                            QStringLiteral("mlx-affine"), QStringLiteral("-o"), tmp.filePath(QStringLiteral("m2"))});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY(text.out.contains("note: MLX dequantizes in F16 arithmetic"));
        QCOMPARE(qstest::runCli({QStringLiteral("verify"), tmp.filePath(QStringLiteral("m2"))}).exitCode, 0);
    }

    void fixturesVerifyClean_data()
    {
        QTest::addColumn<QString>("path");
        const QDir root(qstest::fixture(QStringLiteral("safetensors")));
        for (const QString& d : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            QTest::addRow("%s", qPrintable(d)) << root.filePath(d) + QStringLiteral("/model.safetensors");
        QTest::addRow("ggml-types.gguf") << qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
    }
    void fixturesVerifyClean()
    {
        QFETCH(QString, path);
        const auto r = qstest::runCli({QStringLiteral("verify"), path});
        QVERIFY2(r.exitCode == 0, r.out.constData());
        QVERIFY(!r.out.contains("not checked"));
    }

    void usage()
    {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("x"));
        QCOMPARE(qstest::runCli(
                     {QStringLiteral("repack"), model(QStringLiteral("gptq-w4-g128-sym")), QStringLiteral("-o"), out})
                     .exitCode,
                 2);
        QCOMPARE(qstest::runCli({QStringLiteral("repack"), model(QStringLiteral("gptq-w4-g128-sym")),
                                 QStringLiteral("--to"), QStringLiteral("exl3"), QStringLiteral("-o"), out})
                     .exitCode,
                 2);
        const auto refused = qstest::runCli({QStringLiteral("repack"), model(QStringLiteral("gptq-w8-g128-sym")),
                                             QStringLiteral("--to"), QStringLiteral("awq"), QStringLiteral("-o"), out});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY(refused.err.contains("AWQ"));
        QVERIFY2(refused.err.contains("gptq-w8-g128-sym") && refused.err.contains("mlp.down_proj"),
                 refused.err.constData());
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestCliRepack)
#include "tst_cli_repack.moc"
