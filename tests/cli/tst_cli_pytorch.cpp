// quantscope-cli on PyTorch checkpoints: the GPTQ and AWQ fixtures' tensors as pytorch_model.bin
// (tests/data/pytorch, written by torch 1.13.1) give the same inspect weights and totals, the same
// verify report and the same dequantized bytes as the fixtures' model.safetensors; a hostile archive
// exits 2 naming the file and the refused global.
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

QString torchData(const QString& relative)
{
    return qstest::testData(QStringLiteral("pytorch/") + relative);
}

QJsonObject inspectJson(const QString& path)
{
    const auto r = qstest::runCli({QStringLiteral("inspect"), path, QStringLiteral("--json")});
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return QJsonDocument::fromJson(r.out).object();
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliPytorch : public QObject {
    Q_OBJECT
private slots:
    void sameOutputAsSafetensors_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* f : {"gptq-w4-g128-sym", "gptq-w4-g32-sym-actorder", "awq-gemm-w4-g128"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void sameOutputAsSafetensors()
    {
        QFETCH(QString, name);
        const QString st = qstest::fixture(QStringLiteral("safetensors/") + name), pt = torchData(name);
        const QJsonObject a = inspectJson(st), b = inspectJson(pt);
        QCOMPARE(b.value(QStringLiteral("container")).toString(), QStringLiteral("pytorch"));
        QCOMPARE(b.value(QStringLiteral("opened_as")).toString(), QStringLiteral("pytorch_model.bin"));
        QVERIFY(!a.value(QStringLiteral("weights")).toArray().isEmpty());
        QCOMPARE(b.value(QStringLiteral("weights")), a.value(QStringLiteral("weights")));
        QCOMPARE(b.value(QStringLiteral("totals")), a.value(QStringLiteral("totals")));

        // verify's report, the paths aside.
        const auto va = qstest::runCli({QStringLiteral("verify"), st}),
                   vb = qstest::runCli({QStringLiteral("verify"), pt});
        QCOMPARE(vb.exitCode, va.exitCode);
        QVERIFY(!va.out.isEmpty());
        QCOMPARE(QString::fromUtf8(vb.out).replace(pt, QStringLiteral("PATH")),
                 QString::fromUtf8(va.out).replace(st, QStringLiteral("PATH")));

        // Every weight's dequantized bytes.
        QTemporaryDir tmp;
        for (const QJsonValue w : a.value(QStringLiteral("weights")).toArray()) {
            const QString weight = w.toObject().value(QStringLiteral("name")).toString();
            const QString oa = tmp.filePath(QStringLiteral("a.npy")), ob = tmp.filePath(QStringLiteral("b.npy"));
            QCOMPARE(qstest::runCli({QStringLiteral("dequant"), st, weight, QStringLiteral("-o"), oa}).exitCode, 0);
            QCOMPARE(qstest::runCli({QStringLiteral("dequant"), pt, weight, QStringLiteral("-o"), ob}).exitCode, 0);
            QVERIFY(!fileBytes(oa).isEmpty());
            QCOMPARE(fileBytes(ob), fileBytes(oa));
        }
    }

    void hostilePickleExitsTwoNamingTheGlobal()
    {
        const QString path = torchData(QStringLiteral("hostile-os-system.pt"));
        const auto r = qstest::runCli({QStringLiteral("inspect"), path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(path.toUtf8() + ": data.pkl byte 2: global 'os.system' is not one torch.save writes"),
                 r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliPytorch)
#include "tst_cli_pytorch.moc"
