// The quantscope executable: --screenshot renders 1600x1000 (or --size) offscreen and exits 0
// with no QPainter warning (also for `A --diff B`, and the Bit map's hex view by --bitmap-mode),
// --help names only options it declares,
// --lang de speaks German, a bad path exits 2 with the reader's message, and the
// committed German translation has no unfinished entry and covers every tr() string
// (lupdate over the sources), and --help/--version and usage errors need no display;
// --export writes the shown view as PNG, SVG or PDF, or its table as CSV (in English and the C
// locale whatever --lang says; a view without a table exits 2). --screenshot and --export go through the
// output guard every writer shares: never over the checkpoint (by any path), a file it read
// (config.json, a split) or into an opened folder, never over a FIFO or a symlink; exit 2
// naming the path, nothing written.
#include "testsupport.h"

#include "container/gguf.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

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

// Every entry below `dir`: a file's bytes, else what it is.
QMap<QString, QByteArray> snapshot(const QString& dir)
{
    QMap<QString, QByteArray> entries;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info(path);
        QByteArray what;
        if (info.isSymLink()) {
            what = "symlink to " + QFile::encodeName(info.symLinkTarget());
        } else if (info.isFile()) {
            QFile f(path);
            what = f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
        } else {
            struct stat st { };
            what = ::lstat(QFile::encodeName(path).constData(), &st) == 0
                ? "type " + QByteArray::number(st.st_mode & S_IFMT)
                : "?";
        }
        entries.insert(QDir(dir).relativeFilePath(path), what);
    }
    return entries;
}

} // namespace

class TestApp : public QObject {
    Q_OBJECT
private slots:
    void screenshot_data();
    void screenshot();
    void exportView_data();
    void exportView();
    void exportTable_data();
    void exportTable();
    void germanHelp();
    void outputNeverOverAnInput_data();
    void outputNeverOverAnInput();
    void badPathExitsTwo();
    void unknownViewOrWeightExitsTwo();
    void germanTranslationComplete();
    void helpNeedsNoDisplay_data();
    void helpNeedsNoDisplay();
    void helpNamesOnlyItsOptions();
    void usageErrorNeedsNoDisplay();
    void everyTrStringHasGerman();
    void everyPluralHasEnglish();

private:
    QTemporaryDir m_dir;
};

void TestApp::screenshot_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QSize>("size");
    QTest::addRow("demo, light") << QStringList{"--theme", "light", "--weight", "model.layers.1.mlp.down_proj"}
                                 << QSize(1600, 1000);
    QTest::addRow("demo, dark, German, metadata")
        << QStringList{"--theme", "dark", "--lang", "de", "--view", "metadata"} << QSize(1600, 1000);
    QTest::addRow("gguf fixture") << QStringList{qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")), "--theme",
                                                 "light"}
                                  << QSize(1600, 1000);
    QTest::addRow("A --diff B") << QStringList{qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym")),
                                               "--diff",
                                               qstest::fixture(
                                                   QStringLiteral("safetensors/gptq-w4-g128-sym/ref.safetensors"))}
                                << QSize(1600, 1000);
    // A scripted walk's window size, and the Bit map's hex view by name.
    QTest::addRow("--size 1280x720, bytes")
        << QStringList{"--size", "1280x720", "--view", "bitmap", "--bitmap-mode", "bytes"} << QSize(1280, 720);
}

void TestApp::screenshot()
{
    QFETCH(QStringList, args);
    QFETCH(QSize, size);
    const QString png = m_dir.filePath(QStringLiteral("%1.png").arg(QTest::currentDataTag()));
    const Run r = runApp(args << QStringLiteral("--screenshot") << png);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // A plot painted at zero size (a hidden tab's, squeezed by its layout) warns so.
    QVERIFY2(!r.err.contains("QPainter::begin"), r.err.constData());
    const QImage image(png);
    QCOMPARE(image.size(), size);
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
    const Run r =
        runApp({"--theme", "light", "--view", "error", "--weight", "model.layers.1.mlp.down_proj", "--export", file});
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

void TestApp::exportTable_data()
{
    QTest::addColumn<QString>("view");
    QTest::addColumn<QByteArray>("header");
    QTest::addRow("tensors") << "tensors" << QByteArray("tensor,type,shape,file,offset,bytes,weight\r\n");
    QTest::addRow("metadata") << "metadata" << QByteArray("key,type,value,source\r\n");
    QTest::addRow("diff") << "diff" << QByteArray("name_a,name_b,rmse,max_abs,sqnr_db,status\r\n");
    QTest::addRow("verify") << "verify" << QByteArray("severity,weight,check,where,finding\r\n");
    QTest::addRow("recipe") << "recipe"
                            << QByteArray("name,layer,role,type,elements,bytes,bpw,kind,extra_bits,reason\r\n");
}

// `quantscope FILE --view NAME --export FILE.csv` writes the view's table and exits 0, German UI or not;
// a view without a table exits 2 saying so and writes nothing.
void TestApp::exportTable()
{
    QFETCH(QString, view);
    QFETCH(QByteArray, header);
    const QString folder = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-asym-actorder"));
    const QString file = m_dir.filePath(QStringLiteral("table-%1.csv").arg(view));
    const Run r = runApp({folder, "--lang", "de", "--diff", folder + QStringLiteral("/ref.safetensors"), "--view", view,
                          "--export", file});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY2(bytes.startsWith(header), bytes.left(200).constData());
    QVERIFY2(bytes.count("\r\n") > 1, bytes.constData());

    if (view != QLatin1String("tensors"))
        return;
    const QString never = m_dir.filePath(QStringLiteral("never-bitmap.csv"));
    const Run bad = runApp({folder, "--view", "bitmap", "--export", never});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("no table"), bad.err.constData());
    QVERIFY(!QFileInfo::exists(never));
}

void TestApp::germanHelp()
{
    const Run r = runApp({QStringLiteral("--lang"), QStringLiteral("de"), QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("Speicherlayouts quantisierter LLM-Gewichte"), r.out.constData());
    // Qt's own strings come from qtbase_de.
    QVERIFY2(r.out.contains("Optionen"), r.out.constData());
}

void TestApp::outputNeverOverAnInput_data()
{
    // FILE: SRC/model.safetensors (config.json and quantize_config.json beside it); LINK: a
    // symlink to FILE; SPLIT1, SPLIT2: a GGUF split set; VICTIM_LINK: a symlink to a file
    // outside every input; FIFO: a named pipe.
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("why");
    QTest::addRow("--screenshot over the checkpoint") << QStringList{"FILE", "--screenshot", "FILE"} << "is the input";
    QTest::addRow("--screenshot through a symlink") << QStringList{"FILE", "--screenshot", "LINK"} << "is the input";
    QTest::addRow("--screenshot into the opened folder")
        << QStringList{"SRC", "--screenshot", "SRC/config.json"} << "lies inside the input";
    QTest::addRow("--screenshot over config.json beside the file")
        << QStringList{"FILE", "--screenshot", "SRC/config.json"} << "is the input";
    QTest::addRow("--screenshot over split 2") << QStringList{"SPLIT1", "--screenshot", "SPLIT2"} << "is the input";
    QTest::addRow("--export over quantize_config.json beside the file")
        << QStringList{"FILE", "--view", "bitmap", "--export", "SRC/quantize_config.json"} << "is the input";
    QTest::addRow("--screenshot onto a FIFO")
        << QStringList{"FILE", "--screenshot", "FIFO"} << "is a FIFO (named pipe), not a regular file";
    QTest::addRow("--screenshot onto a symlink")
        << QStringList{"FILE", "--screenshot", "VICTIM_LINK"} << "is a symbolic link to VICTIM";
    QTest::addRow("--export onto a symlink")
        << QStringList{"FILE", "--view", "bitmap", "--export", "VICTIM_LINK"} << "is a symbolic link to VICTIM";
}

void TestApp::outputNeverOverAnInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, why);
    QTemporaryDir tmp;
    const QString src = tmp.filePath(QStringLiteral("src")),
                  from = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym"));
    QVERIFY(QDir().mkpath(src));
    for (const QString& name :
         {QStringLiteral("model.safetensors"), QStringLiteral("config.json"), QStringLiteral("quantize_config.json")})
        QVERIFY(QFile::copy(from + QLatin1Char('/') + name, src + QLatin1Char('/') + name));
    const QString file = src + QStringLiteral("/model.safetensors"), link = tmp.filePath(QStringLiteral("link.png"));
    QVERIFY(QFile::link(file, link));
    const QString victim = tmp.filePath(QStringLiteral("victim.png")),
                  victimLink = tmp.filePath(QStringLiteral("shot.png"));
    QFile v(victim);
    QVERIFY(v.open(QIODevice::WriteOnly) && v.write("the user's picture") > 0);
    v.close();
    QVERIFY(QFile::link(victim, victimLink));
    const QString fifo = tmp.filePath(QStringLiteral("pipe.png"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    const QString splits = tmp.filePath(QStringLiteral("splits"));
    QVERIFY(QDir().mkpath(splits));
    static const float values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(values), sizeof values);
    const std::vector<std::string> split =
        qs::writeGgufSplits(splits.toStdString() + "/model", {},
                            {{"blk.0.attn_norm.weight", 0, {8}, bytes}, {"blk.1.attn_norm.weight", 0, {8}, bytes}}, 1);
    QCOMPARE(split.size(), size_t(2));

    for (QString& a : args)
        a.replace(QLatin1String("FILE"), file)
            .replace(QLatin1String("VICTIM_LINK"), victimLink)
            .replace(QLatin1String("LINK"), link)
            .replace(QLatin1String("SRC"), src)
            .replace(QLatin1String("SPLIT1"), QString::fromStdString(split[0]))
            .replace(QLatin1String("SPLIT2"), QString::fromStdString(split[1]))
            .replace(QLatin1String("FIFO"), fifo);
    why.replace(QLatin1String("VICTIM"), victim);
    const QString output = args.last();
    const auto before = snapshot(tmp.path());
    const Run r = runApp(args);
    QVERIFY2(r.exitCode == 2, r.err.constData());
    QVERIFY2(r.err.contains((output + QStringLiteral(": refusing to write: the output ") + why).toUtf8()),
             r.err.constData());
    QCOMPARE(snapshot(tmp.path()), before);
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
    const Run view =
        runApp({QStringLiteral("--view"), QStringLiteral("bitmpa"), QStringLiteral("--screenshot"), png}, false);
    QCOMPARE(view.exitCode, 2);
    QVERIFY2(view.err.contains("'bitmpa'") && view.err.contains("verify"), view.err.constData());
    const Run weight =
        runApp({QStringLiteral("--weight"), QStringLiteral("no.such.weight"), QStringLiteral("--screenshot"), png});
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

// Every --option the help names is one it declares, in English and German (as
// tst_cli_commands checks the CLI's).
void TestApp::helpNamesOnlyItsOptions()
{
    for (const QStringList& args : {QStringList{"--help"}, QStringList{"--help", "--lang", "de"}}) {
        const Run r = runApp(args, false);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString help = QString::fromUtf8(r.out);
        static const QRegularExpression declared(QStringLiteral("^  (?:-[a-zA-Z?], )?--?([a-zA-Z0-9][a-z0-9-]*)"),
                                                 QRegularExpression::MultilineOption);
        QSet<QString> options;
        for (auto it = declared.globalMatch(help); it.hasNext();)
            options << it.next().captured(1);
        QVERIFY2(options.contains(QStringLiteral("size")) && options.contains(QStringLiteral("bitmap-mode")),
                 qPrintable(help));
        static const QRegularExpression named(QStringLiteral("(?<![\\w-])--([a-z0-9][a-z0-9-]*)"));
        for (auto it = named.globalMatch(help); it.hasNext();) {
            const QString o = it.next().captured(1);
            QVERIFY2(options.contains(o), qPrintable(QStringLiteral("--%1 is no option:\n%2").arg(o, help)));
        }
    }
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
namespace {

// lupdate over the sources into a copy of the committed `name` (with `options`): the entries it
// finds unfinished, and (English) the plural forms still spelled "(s)". Empty: complete.
QStringList untranslated(const QString& dir, const QString& name, const QStringList& options)
{
    const QString ts = dir + QLatin1Char('/') + name;
    if (!QFile::copy(QStringLiteral(QS_SOURCE_DIR "/translations/") + name, ts))
        return {QStringLiteral("no translations/") + name};
    QFile(ts).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QProcess lupdate;
    lupdate.setWorkingDirectory(QStringLiteral(QS_SOURCE_DIR));
    lupdate.start(QStringLiteral(QS_LUPDATE),
                  options
                      + QStringList{QStringLiteral("-no-obsolete"), QStringLiteral("-locations"),
                                    QStringLiteral("none"), QStringLiteral("app/gui"), QStringLiteral("widgets"),
                                    QStringLiteral("core"), QStringLiteral("-ts"), ts});
    if (!lupdate.waitForFinished(60000) || lupdate.exitCode() != 0)
        return {QStringLiteral("lupdate failed: ") + QString::fromLocal8Bit(lupdate.readAllStandardError())};
    QFile f(ts);
    if (!f.open(QIODevice::ReadOnly))
        return {QStringLiteral("cannot read ") + ts};
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
        else if (xml.name() == QLatin1String("numerusform") && xml.readElementText().contains(QLatin1String("(s)")))
            missing << context + QStringLiteral(": ") + source + QStringLiteral(" (a form says \"(s)\")");
    }
    if (xml.hasError())
        missing << xml.errorString();
    return missing;
}

} // namespace

void TestApp::everyTrStringHasGerman()
{
    const QStringList missing = untranslated(m_dir.path(), QStringLiteral("quantscope_de.ts"), {});
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
}

// Every "%n weight(s)" reads "1 weight" / "2 weights" in English and in any language without a
// translation of its own (the C locale included): quantscope_en.ts has each plural's forms.
void TestApp::everyPluralHasEnglish()
{
    const QStringList missing =
        untranslated(m_dir.path(), QStringLiteral("quantscope_en.ts"), {QStringLiteral("-pluralonly")});
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
}

QTEST_GUILESS_MAIN(TestApp)
#include "tst_app.moc"
