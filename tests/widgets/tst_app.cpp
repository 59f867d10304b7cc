// The quantscope executable: --screenshot renders 1600x1000 offscreen and exits 0 with no
// QPainter warning (also for `A --diff B`),
// --lang de speaks German, a bad path exits 2 with the reader's message, and the
// committed German translation has no unfinished entry and covers every tr() string
// (lupdate over the sources), and --help/--version and usage errors need no display;
// --export writes the shown view as PNG, SVG or PDF.
#include "testsupport.h"

#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

// quantscope sits beside quantscope-cli in the build tree.
Run runApp(const QStringList& args, bool display = true)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (display) {
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    } else {
        for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
            env.remove(QLatin1String(name));
    }
    p.setProcessEnvironment(env);
    p.start(QFileInfo(QStringLiteral(QS_CLI_PATH)).absolutePath() + QStringLiteral("/quantscope"), args);
    Run r;
    if (!p.waitForStarted() || !p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestApp : public QObject {
    Q_OBJECT
private slots:
    void screenshot_data();
    void screenshot();
    void exportView_data();
    void exportView();
    void germanHelp();
    void badPathExitsTwo();
    void unknownViewOrWeightExitsTwo();
    void germanTranslationComplete();
    void helpNeedsNoDisplay_data();
    void helpNeedsNoDisplay();
    void usageErrorNeedsNoDisplay();
    void everyTrStringHasGerman();

private:
    QTemporaryDir m_dir;
};

void TestApp::screenshot_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addRow("demo, light") << QStringList{"--theme", "light", "--weight", "model.layers.1.mlp.down_proj"};
    QTest::addRow("demo, dark, German, metadata") << QStringList{"--theme", "dark", "--lang", "de", "--view", "metadata"};
    QTest::addRow("gguf fixture") << QStringList{qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")), "--theme", "light"};
    QTest::addRow("A --diff B") << QStringList{qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym")), "--diff",
                                               qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/ref.safetensors"))};
}

void TestApp::screenshot()
{
    QFETCH(QStringList, args);
    const QString png = m_dir.filePath(QStringLiteral("%1.png").arg(QTest::currentDataTag()));
    const Run r = runApp(args << QStringLiteral("--screenshot") << png);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // A plot painted at zero size (a hidden tab's, squeezed by its layout) warns so.
    QVERIFY2(!r.err.contains("QPainter::begin"), r.err.constData());
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1600, 1000));
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 5)
        for (int x = 0; x < image.width(); x += 5)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
}

void TestApp::exportView_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QByteArray>("magic");
    QTest::addRow("svg") << "svg" << QByteArray("<?xml");
    QTest::addRow("pdf") << "pdf" << QByteArray("%PDF");
    QTest::addRow("png") << "png" << QByteArray("\x89PNG");
}

// --export writes the shown view by its extension and exits 0; the SVG names the weight it
// shows. A tab that is no analysis view, or an unknown extension, exits 2 and writes nothing.
void TestApp::exportView()
{
    QFETCH(QString, suffix);
    QFETCH(QByteArray, magic);
    const QString file = m_dir.filePath(QStringLiteral("export-error.") + suffix);
    const Run r = runApp({"--theme", "light", "--view", "error", "--weight", "model.layers.1.mlp.down_proj", "--export", file});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.startsWith(magic));
    if (suffix == QLatin1String("svg"))
        QVERIFY(bytes.contains("model.layers.1.mlp.down_proj"));

    const QString never = m_dir.filePath(QStringLiteral("never-tensors.") + suffix);
    const Run bad = runApp({"--view", "tensors", "--export", never});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(!QFileInfo::exists(never));
    const Run unknown = runApp({"--view", "error", "--export", m_dir.filePath(QStringLiteral("x.bmpx"))});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("bmpx"), unknown.err.constData());
}

void TestApp::germanHelp()
{
    const Run r = runApp({QStringLiteral("--lang"), QStringLiteral("de"), QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("Speicherlayouts quantisierter LLM-Gewichte"), r.out.constData());
    // Qt's own strings come from qtbase_de.
    QVERIFY2(r.out.contains("Optionen"), r.out.constData());
}

void TestApp::badPathExitsTwo()
{
    const QString path = m_dir.filePath(QStringLiteral("broken.safetensors"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray("\xff\xff\xff\xff\0\0\0\0{}", 10));
    f.close();
    const Run r = runApp({path, QStringLiteral("--screenshot"), m_dir.filePath(QStringLiteral("never.png"))});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("broken.safetensors"), r.err.constData());
    QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("never.png"))));
}

// Like a bad path: the message names what is unknown, and no screenshot is written.
void TestApp::unknownViewOrWeightExitsTwo()
{
    const QString png = m_dir.filePath(QStringLiteral("unknown.png"));
    const Run view = runApp({QStringLiteral("--view"), QStringLiteral("bitmpa"), QStringLiteral("--screenshot"), png}, false);
    QCOMPARE(view.exitCode, 2);
    QVERIFY2(view.err.contains("'bitmpa'") && view.err.contains("verify"), view.err.constData());
    const Run weight = runApp({QStringLiteral("--weight"), QStringLiteral("no.such.weight"), QStringLiteral("--screenshot"), png});
    QCOMPARE(weight.exitCode, 2);
    QVERIFY2(weight.err.contains("'no.such.weight'"), weight.err.constData());
    QVERIFY(!QFileInfo::exists(png));
}

void TestApp::germanTranslationComplete()
{
    const QString ts = QFINDTESTDATA("../../translations/quantscope_de.ts");
    QVERIFY(!ts.isEmpty());
    QFile f(ts);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    int messages = 0;
    QString source;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("message")) {
            ++messages;
        } else if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            QVERIFY2(!xml.attributes().hasAttribute(QStringLiteral("type")), qPrintable(source));
            const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            QVERIFY2(!text.trimmed().isEmpty(), qPrintable(source));
        }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(messages > 100);
}

void TestApp::helpNeedsNoDisplay_data()
{
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QByteArray>("needle");
    QTest::addRow("--help") << "--help" << QByteArray("--screenshot");
    QTest::addRow("--version") << "--version" << QByteArray("quantscope");
}

// An installed package is first tried with --help, often over ssh: no platform plugin needed.
void TestApp::helpNeedsNoDisplay()
{
    QFETCH(QString, flag);
    QFETCH(QByteArray, needle);
    const Run r = runApp({flag}, false);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains(needle), r.out.constData());
}

// A mistyped option over ssh gets the usage error and exit 2, not a platform-plugin abort.
void TestApp::usageErrorNeedsNoDisplay()
{
    const Run r = runApp({QStringLiteral("--bogus")}, false);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("bogus"), r.err.constData());
    QVERIFY2(!r.err.contains("platform plugin"), r.err.constData());
}

// lupdate over the application's sources finds no string the committed German lacks.
void TestApp::everyTrStringHasGerman()
{
    const QString ts = m_dir.filePath(QStringLiteral("check_de.ts"));
    QVERIFY(QFile::copy(QStringLiteral(QS_SOURCE_DIR "/translations/quantscope_de.ts"), ts));
    QFile(ts).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QProcess lupdate;
    lupdate.setWorkingDirectory(QStringLiteral(QS_SOURCE_DIR));
    lupdate.start(QStringLiteral(QS_LUPDATE), {QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none"),
                                               QStringLiteral("app/gui"), QStringLiteral("widgets"), QStringLiteral("core"),
                                               QStringLiteral("-ts"), ts});
    QVERIFY(lupdate.waitForFinished(60000));
    QCOMPARE(lupdate.exitCode(), 0);
    QFile f(ts);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    QString context, source;
    QStringList missing;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("name"))
            context = xml.readElementText();
        else if (xml.name() == QLatin1String("source"))
            source = xml.readElementText();
        else if (xml.name() == QLatin1String("translation") && xml.attributes().hasAttribute(QStringLiteral("type")))
            missing << context + QStringLiteral(": ") + source;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
}

QTEST_GUILESS_MAIN(TestApp)
#include "tst_app.moc"
