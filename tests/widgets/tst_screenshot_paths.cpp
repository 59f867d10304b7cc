// The GUI draws the same on every SIMD path: quantscope --screenshot of the demo's Error, Bit map
// and Scales views (requantization, error statistics, dequantized rows, group scales) on the scalar
// path and on the best one this CPU has are the same pixels, the status bar (process memory) aside.
// Under QS_TEST_EMULATOR (ctest haswell.gui.* / nehalem.gui.*, see tests/CMakeLists.txt) the
// screenshot is also taken with quantscope running on the emulated CPU, and must be the native
// run's pixels.
#include "testsupport.h"

#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

// The status bar shows this process's memory, which differs from run to run.
constexpr int kStatusBarRows = 40;

// quantscope --view `view` --screenshot `png`, with QUANTSCOPE_SIMD=`simd` when given and through
// `emulator` when not empty; the error text when it failed.
QString screenshot(const QString& view, const QString& png, const QString& simd, const QStringList& emulator)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    if (simd.isEmpty())
        env.remove(QStringLiteral("QUANTSCOPE_SIMD"));
    else
        env.insert(QStringLiteral("QUANTSCOPE_SIMD"), simd);
    p.setProcessEnvironment(env);
    QStringList command = emulator;
    command << QFileInfo(QStringLiteral(QS_CLI_PATH)).absolutePath() + QStringLiteral("/quantscope")
            << QStringLiteral("--view") << view << QStringLiteral("--screenshot") << png;
    const QString program = command.takeFirst();
    p.start(program, command);
    if (!p.waitForStarted() || !p.waitForFinished(600000))
        return QStringLiteral("%1 did not finish").arg(program);
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(QString::fromLocal8Bit(p.readAllStandardError()));
    return {};
}

// The first row (above the status bar) where the two images differ, or -1.
int firstDifferentRow(const QImage& a, const QImage& b)
{
    if (a.size() != b.size())
        return 0;
    const QImage x = a.convertToFormat(QImage::Format_ARGB32), y = b.convertToFormat(QImage::Format_ARGB32);
    for (int row = 0; row < x.height() - kStatusBarRows; ++row)
        if (std::memcmp(x.constScanLine(row), y.constScanLine(row), size_t(x.bytesPerLine())) != 0)
            return row;
    return -1;
}

} // namespace

class TestScreenshotPaths : public QObject {
    Q_OBJECT
private slots:
    void samePixels_data()
    {
        QTest::addColumn<QString>("view");
        for (const char* view : {"error", "bitmap", "scales"})
            QTest::addRow("%s", view) << QString::fromLatin1(view);
    }

    void samePixels()
    {
        QFETCH(QString, view);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString scalar = dir.filePath(QStringLiteral("scalar.png")),
                      best = dir.filePath(QStringLiteral("best.png"));
        QString error = screenshot(view, scalar, QStringLiteral("scalar"), {});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = screenshot(view, best, {}, {});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QImage reference(best);
        QVERIFY(!reference.isNull());
        int row = firstDifferentRow(QImage(scalar), reference);
        QVERIFY2(
            row < 0,
            qPrintable(
                QStringLiteral("the scalar path's screenshot differs from the native best path's at row %1").arg(row)));

        const QStringList emulator = qstest::emulator();
        if (emulator.isEmpty())
            return;
        const QString emulated = dir.filePath(QStringLiteral("emulated.png"));
        error = screenshot(view, emulated, {}, emulator);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        row = firstDifferentRow(QImage(emulated), reference);
        QVERIFY2(row < 0,
                 qPrintable(QStringLiteral("under %1 the screenshot differs from the native run's at row %2")
                                .arg(emulator.join(QLatin1Char(' ')))
                                .arg(row)));
    }
};

QTEST_GUILESS_MAIN(TestScreenshotPaths)
#include "tst_screenshot_paths.moc"
