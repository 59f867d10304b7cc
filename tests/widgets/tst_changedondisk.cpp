// The open checkpoint changes on disk (a converter rewriting its output into the same path): the
// window notices through its file watcher and shows a bar with the reason and a Reload button;
// a view that reads the cut file does not take the application down; Reload opens the file as it
// is now and keeps the selected weight and the view.
#include "mainwindow.h"
#include "testsupport.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace qsw;

class TestChangedOnDisk : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qstest::sandboxSettings(m_dir.path(), QStringLiteral("tst_changedondisk"));
    }

    void barAndReload()
    {
        const QString original = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
        const QString path = m_dir.filePath(QStringLiteral("model.gguf"));
        QVERIFY(QFile::copy(original, path));
        MainWindow::Options options;
        options.persistent = false;
        MainWindow w(options);
        w.resize(1280, 800);
        w.show();
        w.openPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.snapshot() && !w.isLoading(), 20000);
        QVERIFY(w.selectWeight(QStringLiteral("q4_k")) || w.selectWeight(w.snapshot()->weights.back().name));
        const QString weight = w.snapshot()->weights[w.selectedWeight()].name;
        QVERIFY(w.showView(QStringLiteral("bitmap")));
        QVERIFY(w.waitForIdle(60000));
        auto* bar = w.findChild<QWidget*>(QStringLiteral("changedOnDiskBar"));
        QVERIFY(bar);
        QVERIFY(!bar->isVisible());
        QVERIFY(w.changedOnDisk().isEmpty());

        // Cut under the window, as a converter that truncates before it writes does.
        QVERIFY(QFile::resize(path, 4096));
        QTRY_VERIFY_WITH_TIMEOUT(bar->isVisible(), 10000);
        QVERIFY2(
            w.changedOnDisk().startsWith(path + QStringLiteral(" changed while it was being read (now 4096 bytes")),
            qPrintable(w.changedOnDisk()));
        // Views that read the weights now read past the file's end: no signal ends the process.
        for (const char* view : {"verify", "error", "scales", "bitmap"}) {
            QVERIFY(w.showView(QString::fromLatin1(view)));
            QVERIFY(w.waitForIdle(60000));
        }
        QVERIFY(bar->isVisible());

        // The converter finishes: the file is whole again, and Reload shows it.
        QVERIFY(QFile::remove(path));
        QVERIFY(QFile::copy(original, path));
        auto* reload = bar->findChild<QPushButton*>(QStringLiteral("reloadChanged"));
        QVERIFY(reload);
        reload->click();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading() && !bar->isVisible(), 20000);
        QVERIFY(w.changedOnDisk().isEmpty());
        QCOMPARE(w.snapshot()->weights[w.selectedWeight()].name, weight);
        QCOMPARE(w.currentView(), QStringLiteral("bitmap"));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestChangedOnDisk)
#include "tst_changedondisk.moc"
