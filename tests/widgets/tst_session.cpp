// One session per checkpoint (issue 16): the Error view's reference and the Diff view's B
// belong to the open checkpoint. Opening another clears them and offers to keep them; Keep
// brings them back (B paired again with the new A), closing them unmaps them. Close B,
// Clear Reference and Close Checkpoint (Ctrl+W, the window stays) release every mapping.
// Hidden views start no work.
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"
#include "jobrunner.h"
#include "mainwindow.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "views/diffview.h"
#include "views/errorview.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

using namespace qsw;

namespace {

constexpr int kTimeoutMs = 30000;

const QString kA = QStringLiteral("safetensors/gptq-w4-g128-sym");
const QString kB = QStringLiteral("safetensors/gptq-w4-g32-asym/model.safetensors");
const QString kReference = QStringLiteral("safetensors/gptq-w4-g128-sym/ref.safetensors");
const QString kOther = QStringLiteral("gguf/ggml-types.gguf");

void open(MainWindow& w, const QString& relative)
{
    const QString path = qstest::fixture(relative);
    w.openPath(path);
    QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading() && w.snapshot() && w.snapshot()->path == path, kTimeoutMs);
    QVERIFY(w.waitForIdle(kTimeoutMs));
}

QAction* fileAction(MainWindow& w, const QString& text)
{
    for (QAction* menu : w.menuBar()->actions())
        for (QAction* a : menu->menu()->actions())
            if (a->text() == text)
                return a;
    return nullptr;
}

// A with B open in the Diff view and a reference in the Error view.
struct Session {
    std::weak_ptr<const qs::Checkpoint> a, b, reference;
};

Session openSession(MainWindow& w)
{
    Session s;
    open(w, kA);
    s.a = w.checkpoint();
    auto* diff = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
    auto* error = qobject_cast<ErrorView*>(w.analysisView(QStringLiteral("error")));
    diff->openComparison(qstest::fixture(kB));
    error->addReference(qs::openCheckpoint(qstest::fixture(kReference).toStdString()));
    if (!w.waitForIdle(kTimeoutMs))
        qWarning("session did not settle");
    s.b = w.viewContext()->comparison();
    s.reference = w.viewContext()->reference();
    return s;
}

bool settlesExpired(MainWindow& w, const std::weak_ptr<const qs::Checkpoint>& c)
{
    return w.waitForIdle(kTimeoutMs) && c.expired();
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qstest::sandboxSettings(m_dir.path());
    }

    // Another checkpoint opens without the old reference and B; closing the offer unmaps them.
    void newCheckpointClearsAndOffersToKeep()
    {
        MainWindow w(MainWindow::Options{false});
        w.show();
        const Session s = openSession(w);
        QVERIFY(!s.b.expired() && !s.reference.expired());
        auto* diff = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
        QCOMPARE(diff->other(), s.b.lock());
        QVERIFY(diff->findChild<QPushButton*>(QStringLiteral("closeB"))->isEnabled());

        open(w, kOther);
        QVERIFY(!w.viewContext()->reference());
        QVERIFY(!w.viewContext()->comparison());
        QVERIFY(!diff->other());
        QVERIFY(!diff->model()->result());
        // No comparison of the GGUF with the old B, no lookup in the old reference.
        QVERIFY2(!diff->statusText().contains(QLatin1String("pairs compared")), qPrintable(diff->statusText()));
        auto* error = qobject_cast<ErrorView*>(w.analysisView(QStringLiteral("error")));
        QCOMPARE(error->findChild<QComboBox*>()->count(), 1);
        QVERIFY(!fileAction(w, QStringLiteral("Close &B"))->isEnabled());
        QVERIFY(!fileAction(w, QStringLiteral("Clear Re&ference"))->isEnabled());

        QMessageBox* box = w.keepSessionBox();
        QVERIFY(box && box->isVisible());
        QVERIFY(box->text().contains(QLatin1String("ref.safetensors")));
        QVERIFY(box->text().contains(QLatin1String("model.safetensors")));
        box->findChild<QAbstractButton*>(QStringLiteral("close"))->click();
        QVERIFY(settlesExpired(w, s.b));
        QVERIFY(s.reference.expired());
        QVERIFY(s.a.expired()); // the previous A too
    }

    // Keep: the reference and B come back for the new checkpoint, B paired with it again.
    void keepBringsThemBack()
    {
        MainWindow w(MainWindow::Options{false});
        w.show();
        const Session s = openSession(w);
        open(w, QStringLiteral("safetensors/gptq-w4-g32-asym"));
        QMessageBox* box = w.keepSessionBox();
        QVERIFY(box);
        box->findChild<QAbstractButton*>(QStringLiteral("keep"))->click();
        QVERIFY(w.waitForIdle(kTimeoutMs));
        QCOMPARE(w.viewContext()->comparison(), s.b.lock());
        QCOMPARE(w.viewContext()->reference(), s.reference.lock());
        auto* diff = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
        QCOMPARE(diff->other(), s.b.lock());
        QVERIFY2(diff->model()->result(), qPrintable(diff->statusText()));
        auto* error = qobject_cast<ErrorView*>(w.analysisView(QStringLiteral("error")));
        QCOMPARE(error->findChild<QComboBox*>()->count(), 2);
        QVERIFY(fileAction(w, QStringLiteral("Close &B"))->isEnabled());
    }

    // Close B, Clear Reference, then Ctrl+W: each unmaps what it closes, the window stays.
    void closeActionsUnmap()
    {
        MainWindow w(MainWindow::Options{false});
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        const Session s = openSession(w);
        auto* diff = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
        QVERIFY(diff->model()->result());

        fileAction(w, QStringLiteral("Close &B"))->trigger();
        QVERIFY(!diff->other());
        QVERIFY(!diff->model()->result());
        QVERIFY(settlesExpired(w, s.b));
        QVERIFY(!s.reference.expired());

        fileAction(w, QStringLiteral("Clear Re&ference"))->trigger();
        auto* error = qobject_cast<ErrorView*>(w.analysisView(QStringLiteral("error")));
        QCOMPARE(error->findChild<QComboBox*>()->count(), 1);
        QVERIFY(settlesExpired(w, s.reference));

        QTest::keyClick(&w, Qt::Key_W, Qt::ControlModifier);
        QVERIFY(w.isVisible());
        QVERIFY(!w.snapshot());
        QVERIFY(!w.checkpoint());
        QVERIFY(!w.viewContext()->checkpoint());
        QVERIFY(settlesExpired(w, s.a));
        QVERIFY(!fileAction(w, QStringLiteral("&Close Checkpoint"))->isEnabled());
        // And a checkpoint opens again after it.
        open(w, kOther);
    }

    // Work runs only for what is visible: selecting weights while the Bit map shows starts no
    // job for the hidden Error, Playground or Diff heatmap; showing one computes it then.
    void hiddenViewsDoNoWork()
    {
        MainWindow w(MainWindow::Options{false, MainWindow::SessionCarry::Close});
        w.show();
        QVERIFY(w.showView(QStringLiteral("bitmap")));
        QSignalSpy started(w.jobRunner(), &JobRunner::started);
        const auto keys = [&] {
            QStringList k;
            for (const QList<QVariant>& call : started)
                if (call.at(0).toString() != MainWindow::kLoadJob) // opening is a job too, no view's work
                    k << call.at(0).toString();
            return k;
        };
        open(w, kA); // selects its first weight
        QVERIFY(w.selectedWeight() >= 0);
        QVERIFY2(keys().isEmpty(), qPrintable(keys().join(QLatin1Char(' '))));
        // Opening B is asked for: it opens and compares, but draws no hidden heatmap.
        auto* diff = qobject_cast<DiffView*>(w.analysisView(QStringLiteral("diff")));
        diff->openComparison(qstest::fixture(kB));
        QVERIFY(w.waitForIdle(kTimeoutMs));
        QVERIFY(diff->model()->result());
        QCOMPARE(keys(), (QStringList{DiffView::kOpenJob, DiffView::kCompareJob}));
        QVERIFY(!diff->map());
        started.clear();

        QVERIFY(w.showView(QStringLiteral("playground")));
        QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), kTimeoutMs);
        QCOMPARE(started.last().at(0).toString(), QStringLiteral("playground"));
        // Its title names the weight and row, not a progress count.
        QVERIFY(!started.last().at(1).toString().startsWith(QLatin1String("Quantizing row")));
        QVERIFY(w.waitForIdle(kTimeoutMs));
        QVERIFY(w.showView(QStringLiteral("diff")));
        QVERIFY(w.waitForIdle(kTimeoutMs));
        QVERIFY(diff->map());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
