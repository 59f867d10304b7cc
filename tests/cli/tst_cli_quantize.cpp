// quantscope-cli quantize: --all and named weights into each family, the output reopens as
// the target (inspect --json), verifies clean, and bad usage exits 2 without writing.
#include "container/checkpoint.h"
#include "container/safetensors.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

// sources.safetensors' float tensors under llama module names, plus an embedding and a norm.
QString writeSource(const QTemporaryDir& dir)
{
    const auto s = qs::openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
    const qs::TensorEntry* w = s->find("synthetic.W_128x256");
    const qs::TensorEntry* q = s->find("stories260K.layers.0.wq");
    static std::vector<float> embed(16 * 64, 0.25f), norm(64, 1.0f);
    const auto span = [](const std::vector<float>& v) {
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
    };
    const QString src = dir.filePath(QStringLiteral("src"));
    QDir().mkpath(src);
    qs::writeSafetensors((src + QStringLiteral("/model.safetensors")).toStdString(),
                         {{"model.layers.0.mlp.down_proj.weight", qs::DType::F32, w->shape, s->bytes(*w)},
                          {"model.layers.0.self_attn.q_proj.weight", qs::DType::F32, q->shape, s->bytes(*q)},
                          {"model.embed_tokens.weight", qs::DType::F32, {16, 64}, span(embed)},
                          {"model.norm.weight", qs::DType::F32, {64}, span(norm)}});
    QFile cfg(src + QStringLiteral("/config.json"));
    cfg.open(QIODevice::WriteOnly);
    cfg.write(R"({"model_type": "llama", "torch_dtype": "float32"})");
    return src;
}

// format of every logical weight, by name, as inspect --json lists them.
QMap<QString, QString> formats(const QString& path)
{
    const auto r = qstest::runCli({QStringLiteral("inspect"), path, QStringLiteral("--json")});
    QMap<QString, QString> out;
    const QJsonArray ws = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("weights")).toArray();
    for (const QJsonValue& v : ws)
        out.insert(v.toObject().value(QStringLiteral("name")).toString(),
                   v.toObject().value(QStringLiteral("format")).toString());
    return out;
}

} // namespace

class TestCliQuantize : public QObject {
    Q_OBJECT
private slots:
    void all_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("format");
        QTest::addRow("gptq-v1") << QStringList{
            QStringLiteral("--format"), QStringLiteral("gptq"), QStringLiteral("--sym"), QStringLiteral("--group-size"),
            QStringLiteral("32")} << "gptq-v1";
        QTest::addRow("gptq-v2 w3") << QStringList{QStringLiteral("--format"),     QStringLiteral("gptq-v2"),
                                                   QStringLiteral("--bits"),       QStringLiteral("3"),
                                                   QStringLiteral("--group-size"), QStringLiteral("-1")}
                                    << "gptq-v2";
        QTest::addRow("awq") << QStringList{QStringLiteral("--format"),     QStringLiteral("awq-gemm"),
                                            QStringLiteral("--group-size"), QStringLiteral("64"),
                                            QStringLiteral("--clip"),       QStringLiteral("0.9")}
                             << "awq-gemm";
        QTest::addRow("ct") << QStringList{QStringLiteral("--format"), QStringLiteral("compressed-tensors"),
                                           QStringLiteral("--asym"), QStringLiteral("--group-size"),
                                           QStringLiteral("32")}
                            << "compressed-tensors";
        QTest::addRow("mlx") << QStringList{QStringLiteral("--format"), QStringLiteral("mlx"), QStringLiteral("--bits"),
                                            QStringLiteral("5")}
                             << "mlx-affine";
        QTest::addRow("nf4") << QStringList{QStringLiteral("--format"), QStringLiteral("nf4"),
                                            QStringLiteral("--double-quant")}
                             << "bnb-nf4";
    }
    void all()
    {
        QFETCH(QStringList, options);
        QFETCH(QString, format);
        QTemporaryDir tmp;
        const QString src = writeSource(tmp), out = tmp.filePath(QStringLiteral("out"));
        const auto r = qstest::runCli(
            QStringList{QStringLiteral("quantize"), src, QStringLiteral("--all"), QStringLiteral("-o"), out} + options);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("2 weights quantized"));
        const auto f = formats(out);
        QCOMPARE(f.value(QStringLiteral("model.layers.0.mlp.down_proj")), format);
        QCOMPARE(f.value(QStringLiteral("model.layers.0.self_attn.q_proj")), format);
        QCOMPARE(f.value(QStringLiteral("model.embed_tokens.weight")), QStringLiteral("f32"));
        const auto v = qstest::runCli({QStringLiteral("verify"), out});
        QVERIFY2(v.exitCode == 0, v.out.constData());
    }

    void namedGguf()
    {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("q.gguf"));
        const auto r =
            qstest::runCli({QStringLiteral("quantize"), qstest::fixture(QStringLiteral("gguf/ggml-types.ref.gguf")),
                            QStringLiteral("source.synthetic"), QStringLiteral("--format"), QStringLiteral("q4_k"),
                            QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(formats(out).value(QStringLiteral("source.synthetic")), QStringLiteral("gguf-q4_k"));
        QCOMPARE(qstest::runCli({QStringLiteral("verify"), out}).exitCode, 0);
    }

    void usage()
    {
        QTemporaryDir tmp;
        const QString src = writeSource(tmp), out = tmp.filePath(QStringLiteral("bad"));
        const QStringList base{QStringLiteral("quantize"), src};
        QCOMPARE(qstest::runCli(base + QStringList{QStringLiteral("--all"), QStringLiteral("-o"), out}).exitCode,
                 2); // no --format
        QCOMPARE(qstest::runCli(
                     base + QStringList{QStringLiteral("--format"), QStringLiteral("gptq"), QStringLiteral("-o"), out})
                     .exitCode,
                 2); // neither WEIGHT nor --all
        QCOMPARE(qstest::runCli(base
                                + QStringList{QStringLiteral("--all"), QStringLiteral("--format"),
                                              QStringLiteral("exl3"), QStringLiteral("-o"), out})
                     .exitCode,
                 2);
        const auto missing = qstest::runCli(base
                                            + QStringList{QStringLiteral("model.nope"), QStringLiteral("--format"),
                                                          QStringLiteral("gptq"), QStringLiteral("-o"), out});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains("model.nope"));
        QCOMPARE(qstest::runCli(base
                                + QStringList{QStringLiteral("--all"), QStringLiteral("--format"),
                                              QStringLiteral("q8_0"), QStringLiteral("-o"), out})
                     .exitCode,
                 2); // HF names into GGUF
        QVERIFY(!QFile::exists(out));
    }

    // Values out of range are errors naming the option (issue 29: --bits 0 and --group-size 0
    // quantized with the defaults); nothing is written.
    void optionsOutOfRange_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        for (const char* f : {"gptq", "bnb-nf4", "mlx"}) {
            QTest::addRow("%s bits 0", f) << f << "--bits"
                                          << "0";
            QTest::addRow("%s bits -2", f) << f << "--bits"
                                           << "-2";
            QTest::addRow("%s group 0", f) << f << "--group-size"
                                           << "0";
            QTest::addRow("%s group -2", f) << f << "--group-size"
                                            << "-2";
        }
        QTest::addRow("clip 0") << "gptq"
                                << "--clip"
                                << "0";
        QTest::addRow("clip 1.5") << "gptq"
                                  << "--clip"
                                  << "1.5";
        QTest::addRow("clip nan") << "gptq"
                                  << "--clip"
                                  << "nan";
    }
    void optionsOutOfRange()
    {
        QFETCH(QString, format);
        QFETCH(QString, option);
        QFETCH(QString, value);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<float> w(64 * 64, 0.5f);
        const QString src = tmp.filePath(QStringLiteral("f.safetensors")), out = tmp.filePath(QStringLiteral("out"));
        qs::writeSafetensors(src.toStdString(),
                             {{"model.layers.0.mlp.up_proj.weight",
                               qs::DType::F32,
                               {64, 64},
                               {reinterpret_cast<const uint8_t*>(w.data()), w.size() * 4}}});
        const qstest::CliResult r =
            qstest::runCli({QStringLiteral("quantize"), src, QStringLiteral("--all"), QStringLiteral("--format"),
                            format, option, value, QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains((option + QLatin1Char(' ') + value).toUtf8()), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestCliQuantize)
#include "tst_cli_quantize.moc"
