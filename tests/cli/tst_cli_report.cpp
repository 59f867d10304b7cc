// quantscope-cli report: format and checkpoint reports as HTML (parses as XML, figures are
// embedded non-blank PNGs, facts from the spec files), Markdown (figures beside it) and PDF
// (pdftoppm renders its pages); bad input exits 2 and leaves no file; a weight the report cannot
// read is listed as refused and the others are reported (exit 1).
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

namespace {

// A PNG that is more than a blank canvas: blank figures compress to a few hundred bytes.
// (Pixel checks live in tests/widgets/tst_reportwriter.cpp; CLI suites link no QtGui.)
bool richPng(const QByteArray& png, int minBytes)
{
    return png.startsWith("\x89PNG\r\n\x1a\n") && png.size() > minBytes;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Parses the HTML as XML; returns the error or empty, and the img sources.
QString parseXhtml(const QByteArray& html, QStringList* images, QString* text)
{
    QXmlStreamReader xml(html);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("img"))
            images->append(xml.attributes().value(QLatin1String("src")).toString());
        if (xml.isCharacters())
            text->append(xml.text());
    }
    return xml.hasError() ? xml.errorString() + QStringLiteral(" at line %1").arg(xml.lineNumber()) : QString();
}

// A copy of the fixture folder `name` in `dir` whose tensor `tensor` has its first four bytes
// replaced by `bytes`; empty when it could not be written.
QString copyWithBytes(const QString& dir, const QString& name, const QString& tensor, const QByteArray& bytes)
{
    const QString dst = QDir(dir).filePath(QStringLiteral("broken"));
    if (!QDir().mkpath(dst))
        return {};
    for (const QFileInfo& f : QDir(qstest::fixture(QStringLiteral("safetensors/") + name)).entryInfoList(QDir::Files))
        if (!QFile::copy(f.filePath(), dst + QLatin1Char('/') + f.fileName())
            || !QFile(dst + QLatin1Char('/') + f.fileName())
                    .setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner))
            return {};
    QFile file(dst + QStringLiteral("/model.safetensors"));
    if (!file.open(QIODevice::ReadWrite))
        return {};
    const QByteArray size = file.read(8);
    quint64 n = 0;
    for (int i = 7; i >= 0; --i)
        n = n << 8 | quint8(size[i]);
    const QJsonObject header = QJsonDocument::fromJson(file.read(qint64(n))).object();
    const qint64 begin =
        header.value(tensor).toObject().value(QStringLiteral("data_offsets")).toArray().at(0).toInteger(-1);
    if (begin < 0 || !file.seek(8 + qint64(n) + begin) || file.write(bytes) != bytes.size())
        return {};
    return dst;
}

} // namespace

class TestCliReport : public QObject {
    Q_OBJECT
private slots:
    void formatHtml_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("facts"); // hand-written from ../shared/spec/*.md
        // safetensors-quant.md B.2.1: qweight I32 [K, N/8] along N, AWQ_ORDER 0,2,4,6,1,3,5,7.
        QTest::addRow("awq-gemm") << QStringList{"--format", "awq-gemm", "--k", "4096", "--n", "4096"}
                                  << QStringList{"out (N)", "0, 2, 4, 6, 1, 3, 5, 7", "[4096, 512]", "[32, 512]"};
        // B.1: qweight [K*b/32, N] along K; 3-bit codes straddle words; qzeros [G, N*b/32].
        QTest::addRow("gptq-v1-3") << QStringList{"--format", "gptq-v1", "--bits", "3",   "--group-size",
                                                  "64",       "--k",     "256",    "--n", "64"}
                                   << QStringList{"in (K)", "[24, 64]", "[4, 6]", "yes: LSB-first stream"};
        // gguf.md: Q4_0 is 18 bytes per 32 weights, d f16 then qs[16].
        QTest::addRow("q4_0") << QStringList{"--format", "gguf-q4_0", "--k", "64", "--n", "2"}
                              << QStringList{"block", "[N, K/32] blocks of 18 bytes", "4.5", "qs"};
    }
    void formatHtml()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, facts);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("spec.html"));
        const qstest::CliResult r =
            qstest::runCli(QStringList{QStringLiteral("report")} + args + QStringList{QStringLiteral("-o"), out});
        QVERIFY2(!r.crashed && r.exitCode == 0, r.err.constData());
        QStringList images;
        QString text;
        const QString err = parseXhtml(readAll(out), &images, &text);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        for (const QString& f : facts)
            QVERIFY2(text.contains(f), qPrintable(f));
        QVERIFY(!text.contains(QLatin1String("DISAGREES")));
        QCOMPARE(images.size(), 2);
        for (const QString& src : images) {
            QVERIFY(src.startsWith(QLatin1String("data:image/png;base64,")));
            QVERIFY(richPng(QByteArray::fromBase64(src.mid(22).toLatin1()), 20000));
        }
    }

    void markdownFiguresBeside()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("q6.md"));
        const qstest::CliResult r = qstest::runCli({QStringLiteral("report"), QStringLiteral("--format"),
                                                    QStringLiteral("gguf-q6_k"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString md = QString::fromUtf8(readAll(out));
        // gguf.md Q6_K: ql[128] low 4 bits, qh[64] high 2 bits, scales int8[16], d f16; 6.5625 bpw.
        QVERIFY(md.contains(QLatin1String("| ql | 0 | 128 |")));
        QVERIFY(md.contains(QLatin1String("| qh | 128 | 64 |")));
        QVERIFY(md.contains(QLatin1String("6.5625")));
        const QRegularExpression link(QStringLiteral("!\\[[^\\]]*\\]\\(([^)]+\\.png)\\)"));
        int n = 0;
        for (auto it = link.globalMatch(md); it.hasNext(); ++n) {
            QVERIFY(richPng(readAll(dir.filePath(it.next().captured(1))), 20000));
        }
        QCOMPARE(n, 2);
    }

    void pdfRenders()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("gptq.pdf"));
        const qstest::CliResult r =
            qstest::runCli({QStringLiteral("report"), QStringLiteral("--format"), QStringLiteral("gptq-v1"),
                            QStringLiteral("--bits"), QStringLiteral("3"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(readAll(out).startsWith("%PDF"));
        qstest::Process p;
        QVERIFY(p.start(QStringLiteral("pdftoppm"),
                        {QStringLiteral("-r"), QStringLiteral("30"), QStringLiteral("-png"), out,
                         dir.filePath(QStringLiteral("page"))}));
        QVERIFY2(p.wait(30000), "pdftoppm did not finish");
        QCOMPARE(p.exitCode, 0);
        const QStringList pages = QDir(dir.path()).entryList({QStringLiteral("page*.png")});
        QVERIFY(pages.size() >= 2);
        QVERIFY(richPng(readAll(dir.filePath(pages.first())), 3000));
    }

    void checkpointReport()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("ckpt.html"));
        const QString model = qstest::fixture(QStringLiteral("safetensors/awq-gemm-w4-g32"));
        const qstest::CliResult r =
            qstest::runCli({QStringLiteral("report"), model, QStringLiteral("--ref"),
                            model + QStringLiteral("/ref.safetensors"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QStringList images;
        QString text;
        QVERIFY(parseXhtml(readAll(out), &images, &text).isEmpty());
        QVERIFY(text.contains(QLatin1String("awq-gemm")));
        QVERIFY(text.contains(QLatin1String("Evidence")));
        QVERIFY(text.contains(QLatin1String("SQNR dB")));
        QVERIFY(text.contains(QLatin1String("Verify findings")));
        QVERIFY(images.size() >= 4); // heatmap + histogram, then the format's two figures
    }

    // One weight refused (q_proj's g_idx names a group 2^31 - 1 of a weight with 8): the report is
    // written, lists it under "Refused weights" with the reason, reports down_proj, and exits 1
    // naming the weight; it failed outright with exit 2 and no file (issue 33).
    void refusedWeightIsReported()
    {
        QTemporaryDir dir;
        const QString model =
            copyWithBytes(dir.path(), QStringLiteral("gptq-w4-g32-sym-actorder"),
                          QStringLiteral("model.layers.0.self_attn.q_proj.g_idx"), QByteArray("\xff\xff\xff\x7f", 4));
        QVERIFY(!model.isEmpty());
        const QString out = dir.filePath(QStringLiteral("ckpt.html"));
        const qstest::CliResult r = qstest::runCli({QStringLiteral("report"), model, QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 1, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err.constData())));
        QVERIFY2(r.err.contains("model.layers.0.self_attn.q_proj refused: "), r.err.constData());
        QVERIFY2(!r.err.contains("down_proj"), r.err.constData());
        QStringList images;
        QString text;
        QVERIFY(parseXhtml(readAll(out), &images, &text).isEmpty());
        QVERIFY(text.contains(QLatin1String("Refused weights")));
        QVERIFY(text.contains(QLatin1String("Value histogram of model.layers.0.mlp.down_proj")));
        QVERIFY(!images.isEmpty());
    }

    void badInputLeavesNoFile_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("name");
        QTest::addRow("awq-3-bit") << QStringList{"--format", "awq-gemm", "--bits", "3"} << "a.html";
        QTest::addRow("awq-odd-n") << QStringList{"--format", "awq-gemm", "--n", "12"} << "a.pdf";
        QTest::addRow("unknown-format") << QStringList{"--format", "nope"} << "a.md";
        QTest::addRow("bad-extension") << QStringList{"--format", "gptq-v1"} << "a.txt";
        QTest::addRow("both-modes") << QStringList{"--format", "gptq-v1", "--weight", "x"} << "a.html";
        QTest::addRow("missing-file") << QStringList{"/nonexistent/model.safetensors"} << "a.html";
        QTest::addRow("missing-dir") << QStringList{"--format", "gptq-v1"} << "no/such/dir/a.html";
    }
    void badInputLeavesNoFile()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, name);
        QTemporaryDir dir;
        const qstest::CliResult r = qstest::runCli(QStringList{QStringLiteral("report")} + args
                                                   + QStringList{QStringLiteral("-o"), dir.filePath(name)});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliReport)
#include "tst_cli_report.moc"
