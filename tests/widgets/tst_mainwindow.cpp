// The main window on the offscreen platform: the embedded demo opens with the formats it
// was made with, a corrupt file shows an error naming it and keeps the previous
// checkpoint, views and weights are selectable by name, themes switch, recent files are
// capped and pruned, a screenshot is not blank, the status bar shows file and memory
// figures (private memory and checkpoint pages apart), the inspector has room, and reports export with their figures.
// Files and folders dropped on the window open as A, dropped on the Diff view open as B; the command line `quantscope A
// --diff B` (parseLaunchArguments + applyLaunchOptions) opens both.
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "inspector.h"
#include "launchoptions.h"
#include "base/platform.h"
#include "mainwindow.h"
#include "tablemodels.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"
#include "viewcontext.h"
#include "views/bitmapview.h"
#include "views/diffview.h"
#include "views/errorview.h"
#include "weighttreemodel.h"

#include <QAbstractItemModelTester>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QStatusBar>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace qsw;

namespace {

constexpr int kOpenTimeoutMs = 20000;

// Drags `urls` over the window at `pos` (window coordinates) and drops them there, through the
// window as the platform delivers it, so the widget under the cursor receives the drop.
// Returns whether the drag was accepted.
bool dropOnWindow(QMainWindow& w, const QList<QUrl>& urls, const QPoint& pos)
{
    QMimeData mime;
    mime.setUrls(urls);
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QApplication::sendEvent(w.windowHandle(), &enter);
    if (!enter.isAccepted()) {
        QDragLeaveEvent leave;
        QApplication::sendEvent(w.windowHandle(), &leave);
        return false;
    }
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w.windowHandle(), &drop);
    return drop.isAccepted();
}

void waitOpened(MainWindow& w)
{
    QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading() && (w.snapshot() || !w.lastError().isEmpty()), kOpenTimeoutMs);
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void demoOpensWithItsFormats();
    void loadCancels();
    void browserSelectionDrivesInspectorAndTensors();
    void filterSaysWhenItHidesTheSelection();
    void corruptFileShowsErrorAndKeepsPrevious_data();
    void corruptFileShowsErrorAndKeepsPrevious();
    void dropOpensAndRemembers();
    void dropFolderOnWindowAndFileOnDiff();
    void launchWithDiff();
    void launchUsageErrors_data();
    void launchBitmapModeAndSize();
    void launchUsageErrors();
    void viewsByName();
    void opensOnATypicalLayer();
    void themes();
    void recentFilesCappedAndPruned();
    void screenshotIsNotBlank();
    void statusBarShowsFileAndMemory();
    void inspectorHasRoomAt1600();
    void fileMenuHasEachActionOnce();
    void exportsReport_data();
    void exportsReport();
    void reportUsesReferenceAndWeight();
    void exportsTablesAsCsv();
    void csvIsMachineReadableInGerman();
    void exportsNeverOverSideFilesOrSpecialFiles();
    void folderOfSeveralCheckpointsAsks();

private:
    QTemporaryDir m_dir;
};

void TestMainWindow::init()
{
    // A plot painted at zero size (hidden, squeezed) warns so; none may.
    QTest::failOnWarning(QRegularExpression(QStringLiteral("^QPainter::begin")));
}

void TestMainWindow::initTestCase()
{
    // Settings and caches go to a temporary place, never the user's.
    QVERIFY(m_dir.isValid());
    qstest::sandboxSettings(m_dir.path(), QStringLiteral("tst_mainwindow"));
    QCoreApplication::setApplicationVersion(QStringLiteral("test"));
}

void TestMainWindow::demoOpensWithItsFormats()
{
    MainWindow w;
    QAbstractItemModelTester t1(w.weightModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(w.weightProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(w.tensorModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t4(w.metadataModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    w.show();
    w.openDemo();
    QVERIFY(w.isLoading());
    waitOpened(w);
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QVERIFY(w.isDemo());
    const auto snap = w.snapshot();

    // Every layer is named as it was made, and detection has nothing to warn about.
    QSet<QString> formats;
    for (const auto& weight : snap->weights) {
        QVERIFY2(weight.notes.isEmpty(),
                 qPrintable(weight.name + QLatin1String(": ") + weight.notes.join(QLatin1String("; "))));
        formats.insert(weight.format);
        if (weight.layer == QLatin1String("model.layers.0") && weight.format.startsWith(QLatin1String("gptq"))) {
            QCOMPARE(weight.format, QStringLiteral("gptq-v1"));
            QCOMPARE(weight.bits, 4);
            QCOMPARE(weight.groupSize, 32);
            QVERIFY(weight.actOrder);
        } else if (weight.layer == QLatin1String("model.layers.1") && !weight.name.contains(QLatin1String("norm"))) {
            QCOMPARE(weight.format, QStringLiteral("gptq-v1"));
            QCOMPARE(weight.bits, 3);
            QCOMPARE(weight.groupSize, 64);
            QVERIFY(!weight.actOrder);
        } else if (weight.layer == QLatin1String("model.layers.2") && !weight.name.contains(QLatin1String("norm"))) {
            QCOMPARE(weight.format, QStringLiteral("awq-gemm"));
            QCOMPARE(weight.bits, 4);
            QCOMPARE(weight.groupSize, 64);
            QVERIFY(!weight.symmetric);
        } else if (weight.layer == QLatin1String("model.layers.3") && !weight.name.contains(QLatin1String("norm"))) {
            QCOMPARE(weight.format, QStringLiteral("bf16"));
        } else {
            QCOMPARE(weight.format, QStringLiteral("f16"));
        }
    }
    QCOMPARE(formats, (QSet<QString>{"gptq-v1", "awq-gemm", "bf16", "f16"}));
    QCOMPARE(snap->weights.size(), 4 * 7 + 4 * 2 + 2);
    QCOMPARE(w.weightModel()->rowCount(), 4 + 2); // four layers, embeddings, final norm
    QCOMPARE(w.tensorModel()->rowCount(), snap->tensors.size());
    QVERIFY(w.metadataModel()->rowCount() > 0);
}

// Issue 30: opening a checkpoint is a job (it ran on QtConcurrent, which nothing could cancel):
// the status bar's Cancel stops it, nothing opens, and the window says so.
void TestMainWindow::loadCancels()
{
    MainWindow w;
    w.show();
    w.openDemo();
    QVERIFY(w.isLoading());
    auto* cancel = w.findChild<QToolButton*>(QStringLiteral("jobCancel"));
    QVERIFY(cancel);
    QVERIFY(cancel->isVisible());
    cancel->click();
    QVERIFY(!w.isLoading());
    QVERIFY(w.waitForIdle(kOpenTimeoutMs));
    QVERIFY(!w.snapshot());
    QVERIFY(w.lastError().isEmpty());
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("cancelled")),
             qPrintable(w.statusBar()->currentMessage()));
    // The next open goes ahead.
    w.openDemo();
    waitOpened(w);
    QVERIFY(w.snapshot());
}

void TestMainWindow::browserSelectionDrivesInspectorAndTensors()
{
    MainWindow w;
    w.show();
    w.openDemo();
    waitOpened(w);
    QVERIFY(w.snapshot());
    QVERIFY(w.selectWeight(QStringLiteral("model.layers.1.mlp.down_proj")));
    const int weight = w.snapshot()->findWeight(QStringLiteral("model.layers.1.mlp.down_proj"));
    QCOMPARE(w.selectedWeight(), weight);
    auto* inspector = w.findChild<Inspector*>(QStringLiteral("inspector"));
    QVERIFY(inspector);
    QVERIFY(inspector->toPlainText().contains(QLatin1String("model.layers.1.mlp.down_proj")));
    QVERIFY(inspector->toPlainText().contains(QLatin1String("gptq-v1")));
    // Its member tensors are selected in the stored-tensor view.
    auto* tensors = w.findChild<QTreeView*>(QStringLiteral("tensors"));
    QVERIFY(tensors);
    QCOMPARE(tensors->selectionModel()->selectedRows().size(), w.snapshot()->weights[weight].members.size());
    // By a member's name too; an unknown name selects nothing.
    QVERIFY(w.selectWeight(QStringLiteral("model.layers.2.self_attn.q_proj.qzeros")));
    QCOMPARE(w.snapshot()->weights[w.selectedWeight()].name, QStringLiteral("model.layers.2.self_attn.q_proj"));
    QVERIFY(!w.selectWeight(QStringLiteral("no.such.weight")));
    // The filter narrows the browser; selecting a hidden weight clears it.
    w.filterEdit()->setText(QStringLiteral("awq"));
    QCOMPARE(w.weightProxy()->rowCount(), 1);
    QVERIFY(w.selectWeight(QStringLiteral("model.norm.weight")));
    QVERIFY(w.filterEdit()->text().isEmpty());
}

// A filter that hides the selected weight leaves it shown in the views and the inspector, and
// the browser says so under the filter, with a link that brings the weight back into view.
void TestMainWindow::filterSaysWhenItHidesTheSelection()
{
    MainWindow w;
    w.show();
    w.openDemo();
    waitOpened(w);
    const QString name = QStringLiteral("model.layers.1.mlp.down_proj");
    QVERIFY(w.selectWeight(name));
    const int weight = w.snapshot()->findWeight(name);
    auto* note = w.findChild<QLabel*>(QStringLiteral("hiddenSelectionNote"));
    QVERIFY(note);
    QVERIFY(!note->isVisible());
    w.filterEdit()->setText(QStringLiteral("awq"));
    QCOMPARE(w.weightProxy()->rowCount(), 1);
    QCOMPARE(w.selectedWeight(), weight);
    QVERIFY(note->isVisible());
    QVERIFY2(note->text().contains(name), qPrintable(note->text()));
    emit note->linkActivated(QStringLiteral("show"));
    QVERIFY(w.filterEdit()->text().isEmpty());
    QVERIFY(!note->isVisible());
    QCOMPARE(w.weightView()->currentIndex().data(WeightTreeModel::WeightIndexRole).toInt(), weight);
    // A filter the selection matches says nothing.
    w.filterEdit()->setText(QStringLiteral("down_proj"));
    QVERIFY(!note->isVisible());
    QCOMPARE(w.selectedWeight(), weight);
}

void TestMainWindow::corruptFileShowsErrorAndKeepsPrevious_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fileName");
    QTest::addRow("header length past the end") << QByteArray("\xff\xff\xff\xff\0\0\0\0{}", 10) << "huge.safetensors";
    QTest::addRow("invalid json") << QByteArray("\x05\0\0\0\0\0\0\0{oops", 13) << "badjson.safetensors";
    QTest::addRow("truncated gguf") << QByteArray("GGUF\x03\0\0\0", 8) << "short.gguf";
    QTest::addRow("empty") << QByteArray() << "empty.safetensors";
}

void TestMainWindow::corruptFileShowsErrorAndKeepsPrevious()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fileName);
    const QString path = m_dir.filePath(fileName);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
    f.close();

    MainWindow w;
    w.show();
    w.openDemo();
    waitOpened(w);
    const auto before = w.snapshot();
    QVERIFY(before);
    QSignalSpy failed(&w, &MainWindow::openFailed);
    w.openPath(path);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kOpenTimeoutMs);
    // The error names the file (and the reader's message names the field).
    QVERIFY2(w.lastError().contains(fileName), qPrintable(w.lastError()));
    QVERIFY(w.errorBox());
    QTRY_VERIFY(w.errorBox()->isVisible());
    QVERIFY(w.errorBox()->text().contains(fileName));
    QCOMPARE(w.errorBox()->informativeText(), w.lastError());
    // The previous checkpoint is still the one shown.
    QCOMPARE(w.snapshot(), before);
    QCOMPARE(w.weightModel()->rowCount(), 6);
    QVERIFY(!w.recentFiles().contains(QFileInfo(path).absoluteFilePath()));
}

void TestMainWindow::dropOpensAndRemembers()
{
    const QString path = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/model.safetensors"));
    MainWindow w;
    w.show();
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    waitOpened(w);
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QCOMPARE(w.snapshot()->path, path);
    QCOMPARE(w.tensorModel()->rowCount(), qsizetype(w.checkpoint()->tensors.size()));
    QCOMPARE(w.recentFiles().value(0), QFileInfo(path).absoluteFilePath());
    QVERIFY(w.windowTitle().contains(QLatin1String("model.safetensors")));

    // Anything that is not a checkpoint is refused at the door.
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(m_dir.filePath(QStringLiteral("notes.txt")))});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QApplication::sendEvent(&w, &refused);
    QVERIFY(!refused.isAccepted());
}

// A folder dropped on the browser opens as the checkpoint (A); a file dropped on the Diff view
// opens as B there and leaves A open.
void TestMainWindow::dropFolderOnWindowAndFileOnDiff()
{
    const QString folder = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
    const QString other = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/model.safetensors"));
    MainWindow w(MainWindow::Options{false});
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(
        !dropOnWindow(w, {QUrl::fromLocalFile(folder), QUrl::fromLocalFile(other)}, QPoint(40, 200))); // two at once
    QVERIFY(dropOnWindow(w, {QUrl::fromLocalFile(folder)}, w.weightView()->mapTo(&w, w.weightView()->rect().center())));
    waitOpened(w);
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QCOMPARE(w.snapshot()->path, folder);
    const auto a = w.checkpoint();

    QVERIFY(w.showView(QStringLiteral("diff")));
    auto* diff = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
    QVERIFY(diff);
    QVERIFY(dropOnWindow(w, {QUrl::fromLocalFile(other)}, diff->mapTo(&w, diff->rect().center())));
    QVERIFY(w.waitForIdle(kOpenTimeoutMs));
    QVERIFY(diff->other());
    QCOMPARE(QString::fromStdString(diff->other()->path), other);
    QCOMPARE(w.checkpoint(), a); // A stays open
    QVERIFY2(diff->model()->result(), qPrintable(diff->statusText()));
}

// `quantscope A --diff B --weight W` through the application's own parser: A opens, the Diff
// view shows, B is compared, W is selected.
void TestMainWindow::launchWithDiff()
{
    const QString a = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
    const QString b = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/ref.safetensors"));
    QCommandLineParser parser;
    QString error;
    const auto o = parseLaunchArguments(parser,
                                        {QStringLiteral("quantscope"), a, QStringLiteral("--diff"), b,
                                         QStringLiteral("--theme"), QStringLiteral("dark"), QStringLiteral("--weight"),
                                         QStringLiteral("model.layers.0.mlp.down_proj")},
                                        &error);
    QVERIFY2(o, qPrintable(error));
    QCOMPARE(o->path, a);
    QCOMPARE(o->diff, b);
    QVERIFY(o->theme && *o->theme == ThemeMode::Dark);
    MainWindow w(MainWindow::Options{false});
    w.show();
    applyLaunchOptions(w, *o);
    waitOpened(w);
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QVERIFY(w.waitForIdle(kOpenTimeoutMs));
    QCOMPARE(w.snapshot()->path, a);
    QCOMPARE(w.themeMode(), ThemeMode::Dark);
    QCOMPARE(w.currentView(), QStringLiteral("diff"));
    QCOMPARE(w.checkpoint()->weights[size_t(w.selectedWeight())].name, std::string("model.layers.0.mlp.down_proj"));
    auto* diff = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
    QVERIFY(diff && diff->other());
    QCOMPARE(QString::fromStdString(diff->other()->path), b);
    QVERIFY2(diff->model()->result(), qPrintable(diff->statusText()));
    QVERIFY(diff->matchedB() >= 0); // the float reference holds the selected weight
}

void TestMainWindow::launchUsageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error");
    QTest::addRow("two paths") << QStringList{"a.gguf", "b.gguf"} << "at most one path";
    QTest::addRow("unknown theme") << QStringList{"--theme", "sepia"} << "sepia";
    QTest::addRow("unknown option") << QStringList{"--bogus"} << "bogus";
    QTest::addRow("--diff without B") << QStringList{"a.gguf", "--diff"} << "diff";
    QTest::addRow("walk step 0") << QStringList{"--walk", "0"} << "from 1 to 8";
    QTest::addRow("walk step 9") << QStringList{"--walk", "9"} << "from 1 to 8";
    QTest::addRow("walk with a path") << QStringList{"a.gguf", "--walk", "2"} << "its own view and weight";
    QTest::addRow("walk with a view") << QStringList{"--walk", "2", "--view", "budget"} << "its own view and weight";
    QTest::addRow("unknown bitmap mode") << QStringList{"--bitmap-mode", "nibbles"} << "nibbles";
    QTest::addRow("size without x") << QStringList{"--size", "1280"} << "1280";
    QTest::addRow("size too small") << QStringList{"--size", "320x200"} << "320x200";
}

// `--view bitmap --bitmap-mode bytes --size 1280x720` (a scripted walk's options): the Bit map
// shows its hex view, the window its size; every mode by name (the hex view could not be chosen
// from the command line, issue 33).
void TestMainWindow::launchBitmapModeAndSize()
{
    const QString a = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-asym-actorder"));
    for (const auto& [name, mode] :
         {std::pair(QStringLiteral("bits"), BitMapMode::Bits), std::pair(QStringLiteral("bytes"), BitMapMode::Bytes),
          std::pair(QStringLiteral("matrix"), BitMapMode::Logical)}) {
        QCommandLineParser parser;
        QString error;
        const auto o = parseLaunchArguments(parser,
                                            {QStringLiteral("quantscope"), a, QStringLiteral("--view"),
                                             QStringLiteral("bitmap"), QStringLiteral("--bitmap-mode"), name,
                                             QStringLiteral("--size"), QStringLiteral("1280x720")},
                                            &error);
        QVERIFY2(o, qPrintable(error));
        QVERIFY(o->bitmapMode && *o->bitmapMode == mode);
        QCOMPARE(o->size, QSize(1280, 720));
        MainWindow w(MainWindow::Options{false});
        w.resize(1600, 1000);
        w.show();
        applyLaunchOptions(w, *o);
        waitOpened(w);
        QVERIFY(w.waitForIdle(kOpenTimeoutMs));
        QCOMPARE(w.size(), QSize(1280, 720));
        QCOMPARE(w.currentView(), QStringLiteral("bitmap"));
        auto* bitmap = qobject_cast<BitMapView*>(w.analysisView(QStringLiteral("bitmap")));
        QVERIFY(bitmap);
        QCOMPARE(bitmap->canvas()->mode(), mode);
    }
}

void TestMainWindow::launchUsageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    QCommandLineParser parser;
    QString message;
    QVERIFY(!parseLaunchArguments(parser, QStringList{QStringLiteral("quantscope")} + args, &message));
    QVERIFY2(message.contains(error), qPrintable(message));
}

void TestMainWindow::viewsByName()
{
    MainWindow w;
    QVERIFY(w.viewNames().contains(QStringLiteral("tensors")));
    QVERIFY(w.viewNames().contains(QStringLiteral("metadata")));
    QVERIFY(w.showView(QStringLiteral("metadata")));
    QCOMPARE(w.currentView(), QStringLiteral("metadata"));
    QVERIFY(w.showView(QStringLiteral("tensors")));
    QCOMPARE(w.currentView(), QStringLiteral("tensors"));
    QVERIFY(!w.showView(QStringLiteral("nonsense")));
    QCOMPARE(w.currentView(), QStringLiteral("tensors"));
}

// Opened with the Error view in front, llama-quantize's output starts on block 0's first
// quantized weight, not on output.weight or token_embd.weight (on a 7B model the Error view
// started a 10 s requantization of the 131M-element embedding table).
void TestMainWindow::opensOnATypicalLayer()
{
    MainWindow w(MainWindow::Options{false});
    w.show();
    QVERIFY(w.showView(QStringLiteral("error")));
    w.openPath(qstest::fixture(QStringLiteral("real/generated-llama-quantize/stories260K-mix-Q4_K_M.gguf")));
    waitOpened(w);
    QVERIFY(w.checkpoint());
    QCOMPARE(w.checkpoint()->weights[size_t(w.selectedWeight())].name, std::string("blk.0.attn_k.weight"));
    QVERIFY(w.waitForIdle(kOpenTimeoutMs));
}

void TestMainWindow::themes()
{
    MainWindow w;
    w.setThemeMode(ThemeMode::Dark);
    QVERIFY(w.theme().dark);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 128);
    QVERIFY(w.theme().text.lightness() > w.theme().background.lightness());
    w.setThemeMode(ThemeMode::Light);
    QVERIFY(!w.theme().dark);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() >= 128);
    QVERIFY(w.theme().text.lightness() < w.theme().background.lightness());
    // Format families keep distinct colours in both palettes.
    for (bool dark : {false, true}) {
        const Theme t = Theme::fromPalette(dark ? darkPalette() : lightPalette());
        QCOMPARE(t.dark, dark);
        QCOMPARE(t.formatColor(QStringLiteral("gptq-v1")), t.integerFormat);
        QCOMPARE(t.formatColor(QStringLiteral("gguf-q4_k")), t.blockFormat);
        QCOMPARE(t.formatColor(QStringLiteral("gguf-iq4_xs")), t.codebookFormat);
        QCOMPARE(t.formatColor(QStringLiteral("bf16")), t.floatFormat);
        QVERIFY(t.integerFormat != t.floatFormat && t.blockFormat != t.codebookFormat);
    }
}

void TestMainWindow::recentFilesCappedAndPruned()
{
    QStringList list;
    for (int i = 0; i < 12; ++i) {
        const QString p = m_dir.filePath(QStringLiteral("r%1.gguf").arg(i));
        QFile f(p);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        list = MainWindow::updatedRecentFiles(list, p);
    }
    QCOMPARE(list.size(), 10);
    QCOMPARE(list.first(), m_dir.filePath(QStringLiteral("r11.gguf")));
    QCOMPARE(list.last(), m_dir.filePath(QStringLiteral("r2.gguf")));
    // Re-adding moves to the front without duplicates; missing files are pruned.
    list = MainWindow::updatedRecentFiles(list, m_dir.filePath(QStringLiteral("r5.gguf")));
    QCOMPARE(list.first(), m_dir.filePath(QStringLiteral("r5.gguf")));
    QCOMPARE(list.count(m_dir.filePath(QStringLiteral("r5.gguf"))), 1);
    QVERIFY(QFile::remove(m_dir.filePath(QStringLiteral("r7.gguf"))));
    list = MainWindow::updatedRecentFiles(list, m_dir.filePath(QStringLiteral("r0.gguf")));
    QVERIFY(!list.contains(m_dir.filePath(QStringLiteral("r7.gguf"))));
    QCOMPARE(list.size(), 10);
}

void TestMainWindow::screenshotIsNotBlank()
{
    MainWindow::Options options;
    options.persistent = false;
    MainWindow w(options);
    w.resize(1600, 1000);
    w.show();
    w.openDemo();
    waitOpened(w);
    QVERIFY(w.selectWeight(QStringLiteral("model.layers.0.self_attn.q_proj")));
    const QImage image = w.grab().toImage();
    QCOMPARE(image.size(), QSize(1600, 1000) * w.devicePixelRatio());
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
}

void TestMainWindow::statusBarShowsFileAndMemory()
{
    MainWindow w(MainWindow::Options{false});
    w.show();
    w.openDemo();
    waitOpened(w);
    const auto labelText = [&](const char* name) {
        auto* label = w.statusBar()->findChild<QLabel*>(QLatin1String(name));
        return label && label->isVisible() ? label->text() : QString();
    };
    // The file and its figures: path, disk and mapped bytes.
    const QList<QLabel*> labels = w.statusBar()->findChildren<QLabel*>();
    QVERIFY(std::any_of(labels.begin(), labels.end(),
                        [&](QLabel* l) { return l->text().contains(QDir::toNativeSeparators(w.snapshot()->path)); }));
    QVERIFY(std::any_of(labels.begin(), labels.end(),
                        [](QLabel* l) { return l->text().contains(QLatin1String("on disk")); }));
    QVERIFY(std::any_of(labels.begin(), labels.end(),
                        [](QLabel* l) { return l->text().contains(QLatin1String("mapped")); }));
    // Memory: the private memory, a positive size with its unit, and beside it (not in it)
    // the checkpoint's pages in RAM.
    const QString memory = labelText("memoryLabel");
    const QRegularExpression size(QStringLiteral("^(\\d+(?:[.,]\\d+)?) (KiB|MiB|GiB) private$"));
    const QRegularExpressionMatch m = size.match(memory);
    QVERIFY2(m.hasMatch(), qPrintable(memory));
    const double value = QLocale().toDouble(m.captured(1));
    const double bytes = value
        * (m.captured(2) == QLatin1String("KiB")       ? 1024.0
               : m.captured(2) == QLatin1String("MiB") ? 1048576.0
                                                       : 1073741824.0);
    QVERIFY2(bytes > 4 * 1048576.0, qPrintable(memory)); // a Qt application holds more than 4 MiB
    const QString resident = labelText("residentLabel");
    QVERIFY2(resident.endsWith(QLatin1String(" of the checkpoint in RAM")), qPrintable(resident));
}

// Closing a checkpoint gives its memory back to the system (issue 33: 218 MiB stayed after
// closing everything): a safetensors file of 200,000 small tensors, opened and closed twice
// (the first round warms up Qt's own caches), leaves the private memory within a few MiB of
// where it was before.
void TestMainWindow::inspectorHasRoomAt1600()
{
    MainWindow w(MainWindow::Options{false});
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* inspector = w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
    auto* browser = w.findChild<QDockWidget*>(QStringLiteral("browserDock"));
    QVERIFY(inspector && browser);
    // Below the browser at its width: the inspector's tables need some 400 px.
    QCOMPARE(w.dockWidgetArea(inspector), Qt::LeftDockWidgetArea);
    QVERIFY2(inspector->width() >= 450, qPrintable(QString::number(inspector->width())));
    QVERIFY(inspector->geometry().top() >= browser->geometry().bottom());
    // The views keep most of the window.
    QVERIFY(w.centralWidget()->width() >= 900);
}

void TestMainWindow::fileMenuHasEachActionOnce()
{
    MainWindow w(MainWindow::Options{false});
    QStringList texts;
    for (QAction* a : w.menuBar()->actions())
        for (QAction* item : a->menu()->actions())
            if (!item->isSeparator())
                texts << a->text() + QLatin1Char('/') + item->text();
    for (const QString& t : texts)
        QVERIFY2(texts.count(t) == 1, qPrintable(t));
}

void TestMainWindow::exportsReport_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("needle");
    QTest::addRow("html") << "report.html" << QByteArray("width=\"100%\"");
    QTest::addRow("pdf") << "report.pdf" << QByteArray("%PDF");
}

void TestMainWindow::exportsReport()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, needle);
    MainWindow w(MainWindow::Options{false});
    w.openDemo();
    waitOpened(w);
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    QSignalSpy done(&w, &MainWindow::reportExported);
    w.exportReport(path);
    QVERIFY(w.isBusy());
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.size() > 20000); // figures included
    QVERIFY(bytes.contains(needle));
}

// File > Export Report takes the Error view's reference for the error statistics and can
// cover only the selected weight.
void TestMainWindow::reportUsesReferenceAndWeight()
{
    MainWindow w(MainWindow::Options{false});
    w.openPath(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/model.safetensors")));
    waitOpened(w);
    w.viewContext()->setReference(qs::openCheckpoint(
        qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/ref.safetensors")).toStdString()));
    const QString weight = QString::fromStdString(w.viewContext()->checkpoint()->weights.back().name);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.md"));
    QSignalSpy done(&w, &MainWindow::reportExported);
    w.exportReport(path, weight);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY2(bytes.contains("ref.safetensors"), bytes.left(2000).constData());
    QVERIFY(bytes.contains("report covers " + weight.toUtf8()));
}

// The stored tensors (as filtered), the Error view's statistics: CSV, atomically, never
// over an input; a tab without a table says so.
void TestMainWindow::exportsTablesAsCsv()
{
    MainWindow w(MainWindow::Options{false});
    w.resize(1600, 1000);
    w.show();
    const QString model = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/model.safetensors"));
    w.openPath(model);
    waitOpened(w);
    QTemporaryDir dir;
    QString error;
    QVERIFY(w.showView(QStringLiteral("tensors")));
    const QString tensors = dir.filePath(QStringLiteral("tensors.csv"));
    QVERIFY2(w.exportCurrentTable(tensors, &error), qPrintable(error));
    QFile file(tensors);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().split('\n');
    QCOMPARE(lines.size() - 2, qsizetype(w.snapshot()->tensors.size())); // header, one per tensor, final "\r\n"
    QVERIFY(lines[0].startsWith("tensor,type,shape,file,offset,bytes,weight"));
    QVERIFY(!w.exportCurrentTable(model, &error));
    QVERIFY2(error.contains(QStringLiteral("model.safetensors")), qPrintable(error));

    QVERIFY(w.showView(QStringLiteral("bitmap")));
    QVERIFY(!w.exportCurrentTable(dir.filePath(QStringLiteral("bitmap.csv")), &error));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("bitmap.csv"))));

    QVERIFY(w.selectWeight(QString::fromStdString(w.viewContext()->checkpoint()->weights.back().name)));
    QVERIFY(w.showView(QStringLiteral("error")));
    QVERIFY(w.waitForIdle(30000));
    auto* view = qobject_cast<ErrorView*>(w.analysisView(QStringLiteral("error")));
    QVERIFY(view && view->result());
    const QString stats = dir.filePath(QStringLiteral("error.csv"));
    QVERIFY2(w.exportCurrentTable(stats, &error), qPrintable(error));
    QFile statsFile(stats);
    QVERIFY(statsFile.open(QIODevice::ReadOnly));
    const QByteArray csv = statsFile.readAll();
    QVERIFY(csv.startsWith("weight,reference,quantity,value\r\n"));
    QVERIFY(csv.contains(",rmse," + QByteArray::number(view->result()->error.rmse, 'g', 17) + "\r\n"));
}

namespace {

// RFC 4180 records (fields quoted where they hold a comma, quote or line break).
QList<QStringList> parseCsv(const QString& text)
{
    QList<QStringList> records;
    QStringList record;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"'))
                field += text[++i];
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                field += c;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            record << field;
            field.clear();
        } else if (c == QLatin1Char('\n')) {
            record << field;
            records << record;
            record.clear();
            field.clear();
        } else if (c != QLatin1Char('\r')) {
            field += c;
        }
    }
    return records;
}

QList<QStringList> exportedCsv(MainWindow& w, const QString& view, const QString& path)
{
    QString error;
    if (!w.showView(view) || !w.waitForIdle(kOpenTimeoutMs) || !w.exportCurrentTable(path, &error)) {
        qWarning("%s: %s", qPrintable(view), qPrintable(error));
        return {};
    }
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? parseCsv(QString::fromUtf8(f.readAll())) : QList<QStringList>();
}

} // namespace

// Every table's CSV is for a parser, whatever the UI's language: C-locale numbers that read back
// as the very values shown (an offset of 27000 is "27000", not "27.000"; an RMSE to the last bit,
// not to 4 digits), names in full, stable English headers and status words.
void TestMainWindow::csvIsMachineReadableInGerman()
{
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
    const QString a = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-asym-actorder"));
    LaunchOptions o;
    o.path = a;
    o.diff = a + QStringLiteral("/ref.safetensors");
    MainWindow w(MainWindow::Options{false});
    w.resize(1600, 1000);
    w.show();
    applyLaunchOptions(w, o);
    waitOpened(w);
    QVERIFY(w.waitForIdle(kOpenTimeoutMs));
    QTemporaryDir dir;
    const qs::Checkpoint& ckpt = *w.checkpoint();

    const QList<QStringList> tensors = exportedCsv(w, QStringLiteral("tensors"), dir.filePath(QStringLiteral("t.csv")));
    QCOMPARE(tensors.value(0), (QStringList{"tensor", "type", "shape", "file", "offset", "bytes", "weight"}));
    QCOMPARE(tensors.size() - 1, qsizetype(ckpt.tensors.size()));
    bool sawLargeOffset = false;
    for (const QStringList& row : tensors.mid(1)) {
        const auto t = std::find_if(ckpt.tensors.begin(), ckpt.tensors.end(), [&](const qs::TensorEntry& e) {
            return QString::fromStdString(std::string(e.name)) == row[0];
        });
        QVERIFY2(t != ckpt.tensors.end(), qPrintable(row[0]));
        QCOMPARE(row[4], QString::number(t->offset));
        QCOMPARE(row[5], QString::number(t->nbytes));
        sawLargeOffset = sawLargeOffset || t->offset >= 1000;
    }
    QVERIFY(sawLargeOffset); // where German groups digits

    const QList<QStringList> meta = exportedCsv(w, QStringLiteral("metadata"), dir.filePath(QStringLiteral("m.csv")));
    QCOMPARE(meta.value(0), (QStringList{"key", "type", "value", "source"}));
    QVERIFY(meta.size() > 1);

    const QList<QStringList> diff = exportedCsv(w, QStringLiteral("diff"), dir.filePath(QStringLiteral("d.csv")));
    QCOMPARE(diff.value(0), (QStringList{"name_a", "name_b", "rmse", "max_abs", "sqnr_db", "status"}));
    auto* diffView = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
    QVERIFY(diffView && diffView->model()->result());
    int pairs = 0;
    for (const qs::WeightDiff& d : diffView->model()->result()->weights) {
        const auto row = std::find_if(diff.begin(), diff.end(),
                                      [&](const QStringList& r) { return r[0] == QString::fromStdString(d.nameA); });
        QVERIFY(row != diff.end());
        QCOMPARE((*row)[2].toDouble(), d.rmse); // bit for bit
        QCOMPARE((*row)[3].toDouble(), d.maxAbs);
        QVERIFY2(QStringList({"identical", "within tolerance", "over tolerance"}).contains((*row)[5]),
                 qPrintable((*row)[5]));
        ++pairs;
    }
    QVERIFY(pairs > 0);

    const QList<QStringList> verify = exportedCsv(w, QStringLiteral("verify"), dir.filePath(QStringLiteral("v.csv")));
    QCOMPARE(verify.value(0), (QStringList{"severity", "weight", "check", "where", "finding"}));
    QVERIFY(verify.size() > 1);
    for (const QStringList& row : verify.mid(1))
        QVERIFY2(QStringList({"error", "warning", "not checked", "none"}).contains(row[0]), qPrintable(row[0]));

    const QList<QStringList> recipe = exportedCsv(w, QStringLiteral("recipe"), dir.filePath(QStringLiteral("r.csv")));
    QCOMPARE(
        recipe.value(0),
        (QStringList{"name", "layer", "role", "type", "elements", "bytes", "bpw", "kind", "extra_bits", "reason"}));
    QCOMPARE(recipe.size() - 1, qsizetype(ckpt.weights.size()));
    for (const QStringList& row : recipe.mid(1))
        QVERIFY2(!row[6].contains(QLatin1Char(',')) && row[6].toDouble() > 0, qPrintable(row.join(QLatin1Char('|'))));
}

// A folder of two checkpoints and nothing that says which: the window lists them, opens the
// one picked, and says (status bar, inspector) which file was left out.
// The GUI's writers (a table's CSV, a view's export, the screenshot) share the CLI's output guard:
// never over a config the checkpoint read beside its file, never over a FIFO or a symlink; a
// file replaced keeps its mode.
void TestMainWindow::exportsNeverOverSideFilesOrSpecialFiles()
{
    QTemporaryDir dir;
    const QString src = dir.filePath(QStringLiteral("src")),
                  from = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym"));
    QVERIFY(QDir().mkpath(src));
    for (const QString& name :
         {QStringLiteral("model.safetensors"), QStringLiteral("config.json"), QStringLiteral("quantize_config.json")})
        QVERIFY(QFile::copy(from + QLatin1Char('/') + name, src + QLatin1Char('/') + name));
    auto bytesOf = [](const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray config = bytesOf(src + QStringLiteral("/config.json"));
    const QByteArray quantizeConfig = bytesOf(src + QStringLiteral("/quantize_config.json"));
    MainWindow w(MainWindow::Options{false});
    w.resize(1600, 1000);
    w.show();
    w.openPath(src + QStringLiteral("/model.safetensors"));
    waitOpened(w);
    QVERIFY(w.snapshot());
    QString error;
    QVERIFY(w.showView(QStringLiteral("tensors")));
    QVERIFY(!w.exportCurrentTable(src + QStringLiteral("/config.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("refusing to write: the output is the input")), qPrintable(error));
    QCOMPARE(bytesOf(src + QStringLiteral("/config.json")), config);

    const QString fifo = dir.filePath(QStringLiteral("pipe.csv"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    QVERIFY(!w.exportCurrentTable(fifo, &error));
    QVERIFY2(error.contains(fifo + QStringLiteral(": refusing to write: the output is a FIFO (named pipe)")),
             qPrintable(error));
    struct stat st { };
    QVERIFY(::lstat(QFile::encodeName(fifo).constData(), &st) == 0 && S_ISFIFO(st.st_mode));

    const QString csv = dir.filePath(QStringLiteral("tensors.csv"));
    QFile old(csv);
    QVERIFY(old.open(QIODevice::WriteOnly) && old.write("old") == 3);
    old.close();
    QVERIFY(::chmod(QFile::encodeName(csv).constData(), 0600) == 0);
    QVERIFY2(w.exportCurrentTable(csv, &error), qPrintable(error));
    QVERIFY(::stat(QFile::encodeName(csv).constData(), &st) == 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0600));
    QVERIFY(bytesOf(csv).size() > 3);

    const QString victim = dir.filePath(QStringLiteral("victim.png")), link = dir.filePath(QStringLiteral("link.png"));
    QFile v(victim);
    QVERIFY(v.open(QIODevice::WriteOnly) && v.write("mine") == 4);
    v.close();
    QVERIFY(QFile::link(victim, link));
    QVERIFY(w.showView(QStringLiteral("bitmap")));
    QVERIFY(!w.exportCurrentView(link, &error));
    QVERIFY2(error.contains(link + QStringLiteral(": refusing to write: the output is a symbolic link to ") + victim),
             qPrintable(error));
    QVERIFY(QFileInfo(link).isSymLink());
    QCOMPARE(bytesOf(victim), QByteArray("mine"));

    QVERIFY(!w.saveScreenshot(link, &error));
    QVERIFY2(error.contains(link + QStringLiteral(": refusing to write: the output is a symbolic link to ") + victim),
             qPrintable(error));
    QCOMPARE(bytesOf(victim), QByteArray("mine"));
    QVERIFY(!w.saveScreenshot(src + QStringLiteral("/quantize_config.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("refusing to write: the output is the input")), qPrintable(error));
    QCOMPARE(bytesOf(src + QStringLiteral("/quantize_config.json")), quantizeConfig);
    const QString png = dir.filePath(QStringLiteral("shot.png"));
    QVERIFY2(w.saveScreenshot(png, &error), qPrintable(error));
    QVERIFY(bytesOf(png).startsWith("\x89PNG"));
}

void TestMainWindow::folderOfSeveralCheckpointsAsks()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    static const std::vector<uint8_t> z(32, 0);
    qs::writeSafetensors(d + "/base.safetensors", {{"model.norm.weight", qs::DType::F32, {8}, z}});
    qs::writeSafetensors(d + "/adapter.safetensors", {{"lora_a", qs::DType::F32, {4}, {z.data(), 16}}});
    MainWindow w;
    w.show();
    w.openPath(dir.path());
    QInputDialog* ask = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((ask = w.findChild<QInputDialog*>(QStringLiteral("folderChoiceDialog"))) != nullptr,
                             kOpenTimeoutMs);
    QTRY_VERIFY(ask->isVisible());
    QCOMPARE(ask->comboBoxItems(),
             (QStringList{QStringLiteral("adapter.safetensors"), QStringLiteral("base.safetensors")}));
    if (!qEnvironmentVariableIsEmpty("QS_SCREENSHOT_DIR"))
        ask->grab().save(qEnvironmentVariable("QS_SCREENSHOT_DIR") + QStringLiteral("/folder-choice.png"));
    ask->setTextValue(QStringLiteral("base.safetensors"));
    ask->accept();
    QTRY_VERIFY_WITH_TIMEOUT(w.snapshot() && w.snapshot()->tensors.size() == 1, kOpenTimeoutMs);
    QCOMPARE(w.snapshot()->tensors.front().name, QStringLiteral("model.norm.weight"));
    QCOMPARE(w.snapshot()->openedAs, QStringLiteral("base.safetensors"));
    QCOMPARE(w.snapshot()->leftOut, QStringList{QStringLiteral("adapter.safetensors")});
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("left out: adapter.safetensors")),
             qPrintable(w.statusBar()->currentMessage()));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
