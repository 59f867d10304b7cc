// The analysis-view framework: background jobs keep the event loop running, report
// progress, can be cancelled or replaced, and report failures; views export as PNG, SVG
// and PDF atomically; the main window's export action follows the current tab.
#include "base/error.h"
#include "base/message.h"
#include "jobrunner.h"
#include "testsupport.h"
#include "mainwindow.h"
#include "viewcontext.h"
#include "views/analysisview.h"

#include <QDir>
#include <QPainter>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <thread>

using namespace qsw;

namespace {

// A view that paints a known colour in a known place, so an export can be checked.
class SwatchView : public AnalysisView {
public:
    using AnalysisView::AnalysisView;
    QSize exportSize() const override { return {200, 100}; }
    void renderExport(QPainter& p, const QRect& target) override
    {
        p.fillRect(target, Qt::white);
        p.fillRect(QRect(target.topLeft(), QSize(target.width() / 2, target.height())), QColor(200, 30, 40));
        p.drawText(target, Qt::AlignCenter, QStringLiteral("swatch"));
    }
};

} // namespace

class TestViewFramework : public QObject {
    Q_OBJECT
private slots:
    void jobKeepsEventLoopAndReportsProgress();
    void cancelledJobDropsResult();
    void replacedJobDropsResult();
    void failingJobReportsMessage();
    void failingJobMessageIsTranslated();
    void computeJobsOneAtATimeIoBeside();
    void exportFormats_data();
    void exportFormats();
    void exportUnknownSuffixWritesNothing();
    void contextClearsElementsOnWeightChange();
    void exportActionFollowsTab();
};

void TestViewFramework::jobKeepsEventLoopAndReportsProgress()
{
    JobRunner runner;
    std::atomic<bool> release{false};
    bool done = false;
    runner.start(QStringLiteral("k"), QStringLiteral("Long"), [&](JobControl& c) -> JobRunner::Continuation {
        c.setProgress(0.5);
        while (!release.load() && !c.cancelled())
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return [&] { done = true; };
    });
    QVERIFY(runner.isBusy());
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(5);
    QTRY_VERIFY(ticks >= 10); // the GUI thread keeps running while the job works
    QTRY_COMPARE(runner.currentPermille(), 500);
    QCOMPARE(runner.currentTitle(), QStringLiteral("Long"));
    QVERIFY(!done);
    release = true;
    QVERIFY(runner.waitForIdle(10000));
    QVERIFY(done);
}

void TestViewFramework::cancelledJobDropsResult()
{
    JobRunner runner;
    QSignalSpy cancelled(&runner, &JobRunner::cancelled);
    bool done = false;
    std::atomic<bool> began{false}, sawCancel{false};
    runner.start(QStringLiteral("k"), QStringLiteral("Long"), [&](JobControl& c) -> JobRunner::Continuation {
        began = true;
        while (!c.cancelled())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        sawCancel = true;
        return [&] { done = true; };
    });
    // Cancelled once running (a job cancelled before it begins never runs).
    QTRY_VERIFY(began.load());
    runner.cancel(QStringLiteral("k"));
    QVERIFY(!runner.isBusy());
    QCOMPARE(cancelled.count(), 1);
    QTRY_VERIFY(sawCancel.load());
    QTest::qWait(50);
    QVERIFY(!done);
}

void TestViewFramework::replacedJobDropsResult()
{
    JobRunner runner;
    std::atomic<bool> release{false};
    QStringList results;
    runner.start(QStringLiteral("k"), QStringLiteral("first"), [&](JobControl&) -> JobRunner::Continuation {
        while (!release.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return [&] { results << QStringLiteral("first"); };
    });
    runner.start(QStringLiteral("k"), QStringLiteral("second"),
                 [&](JobControl&) -> JobRunner::Continuation { return [&] { results << QStringLiteral("second"); }; });
    release = true;
    QVERIFY(runner.waitForIdle(10000));
    QTest::qWait(50);
    QCOMPARE(results, QStringList{QStringLiteral("second")});
}

void TestViewFramework::failingJobReportsMessage()
{
    JobRunner runner;
    QSignalSpy failed(&runner, &JobRunner::failed);
    runner.start(QStringLiteral("k"), QStringLiteral("bad"), [](JobControl&) -> JobRunner::Continuation {
        qs::fail("model.gguf", "tensor 'blk.0.attn_q.weight': truncated");
    });
    QVERIFY(runner.waitForIdle(10000));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("blk.0.attn_q.weight")));
}

void TestViewFramework::failingJobMessageIsTranslated()
{
    const qstest::GermanScope de;
    QVERIFY2(de.installed(), qPrintable(qstest::germanCatalogue()));
    JobRunner runner;
    QSignalSpy failed(&runner, &JobRunner::failed);
    runner.start(QStringLiteral("k"), QStringLiteral("bad"), [](JobControl&) -> JobRunner::Continuation {
        throw qs::Error(
            qs::Message("%1: %2 is missing (needed for the memory budget)", {"config.json", "num_hidden_layers"}));
    });
    QVERIFY(runner.waitForIdle(10000));
    QCOMPARE(failed.count(), 1);
    // The German of the message, not its English what().
    QCOMPARE(failed.at(0).at(1).toString(),
             QStringLiteral("config.json: num_hidden_layers fehlt (f\u00fcr das Speicherbudget n\u00f6tig)"));
}

// Issue 30: compute jobs run one at a time, each with the whole OpenMP team (the runner ran
// idealThreadCount() - 1 of them at once, each with a full team); an I/O job runs beside them on
// a team of one; a job cancelled while queued never runs.
void TestViewFramework::computeJobsOneAtATimeIoBeside()
{
    JobRunner runner;
    std::atomic<bool> release{false}, ioRan{false}, queuedRan{false};
    std::atomic<int> running{0}, most{0}, ioTeam{0}, computeTeam{0};
    const auto compute = [&](JobControl&) -> JobRunner::Continuation {
        const int now = ++running;
        most = std::max(most.load(), now);
        computeTeam = omp_get_max_threads();
        while (!release)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        --running;
        return {};
    };
    for (int i = 0; i < 4; ++i)
        runner.start(QStringLiteral("c%1").arg(i), QStringLiteral("compute"), compute);
    runner.start(QStringLiteral("queued"), QStringLiteral("queued"), [&](JobControl&) -> JobRunner::Continuation {
        queuedRan = true;
        return {};
    });
    runner.cancel(QStringLiteral("queued"));
    // The I/O job finishes while the first compute job still holds its thread.
    runner.start(
        QStringLiteral("io"), QStringLiteral("io"),
        [&](JobControl&) -> JobRunner::Continuation {
            ioTeam = omp_get_max_threads();
            ioRan = true;
            return {};
        },
        JobRunner::Kind::Io);
    QTRY_VERIFY(ioRan.load());
    QTRY_VERIFY(!runner.isRunning(QStringLiteral("io")));
    QCOMPARE(ioTeam.load(), 1);
    QCOMPARE(running.load(), 1);
    release = true;
    QVERIFY(runner.waitForIdle(10000));
    QCOMPARE(most.load(), 1);
    QCOMPARE(computeTeam.load(), omp_get_max_threads());
    QVERIFY(!queuedRan.load());
}

void TestViewFramework::exportFormats_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QByteArray>("magic");
    QTest::addRow("png") << QStringLiteral("png") << QByteArray("\x89PNG");
    QTest::addRow("svg") << QStringLiteral("svg") << QByteArray("<?xml");
    QTest::addRow("pdf") << QStringLiteral("pdf") << QByteArray("%PDF");
}

void TestViewFramework::exportFormats()
{
    QFETCH(QString, suffix);
    QFETCH(QByteArray, magic);
    QTemporaryDir dir;
    ViewContext context;
    SwatchView view(&context);
    const QString path = dir.filePath(QStringLiteral("view.") + suffix);
    QString error;
    QVERIFY2(exportView(&view, path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith(magic));
    if (suffix == QLatin1String("png")) {
        const QImage image(path);
        QCOMPARE(image.size(), QSize(400, 200)); // twice the logical size
        QCOMPARE(image.pixelColor(20, 100), QColor(200, 30, 40));
        QCOMPARE(image.pixelColor(380, 20), QColor(Qt::white));
    } else if (suffix == QLatin1String("svg")) {
        QVERIFY(bytes.contains("swatch"));
        QVERIFY(bytes.contains("#c81e28")); // the swatch colour stays vector, not a bitmap
    }
}

void TestViewFramework::exportUnknownSuffixWritesNothing()
{
    QTemporaryDir dir;
    ViewContext context;
    SwatchView view(&context);
    QString error;
    QVERIFY(!exportView(&view, dir.filePath(QStringLiteral("view.bmpx")), &error));
    QVERIFY(error.contains(QStringLiteral("bmpx")));
    QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
}

void TestViewFramework::contextClearsElementsOnWeightChange()
{
    ViewContext context;
    QSignalSpy hovered(&context, &ViewContext::hoveredChanged);
    context.setWeight(2);
    context.setHovered({2, 5, 7});
    context.setHovered({2, 5, 7}); // unchanged: no second signal
    QCOMPARE(hovered.count(), 1);
    context.setSelected({2, 1, 1});
    context.setWeight(3);
    QVERIFY(!context.hovered().isValid());
    QVERIFY(!context.selected().isValid());
}

void TestViewFramework::exportActionFollowsTab()
{
    QStandardPaths::setTestModeEnabled(true);
    MainWindow window(MainWindow::Options{false});
    QVERIFY(window.showView(QStringLiteral("tensors")));
    QString error;
    QTemporaryDir dir;
    QVERIFY(!window.exportCurrentView(dir.filePath(QStringLiteral("x.png")), &error));
    QVERIFY(!error.isEmpty());
}

QTEST_MAIN(TestViewFramework)
#include "tst_viewframework.moc"
