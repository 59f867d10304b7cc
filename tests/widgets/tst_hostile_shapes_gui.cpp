// The GUI on shapes from a file that are absurd or empty (issue 29):
// - a checkpoint whose bnb quant_state or compressed-tensors weight_shape claims [2^32, 2^32],
//   [128, 2^62+256] or 2^40 elements opens, its weight is selected and every view shown while the
//   GUI thread keeps running (the bit map's WordMap searched a 2^32-row layout on the GUI thread:
//   the window froze past 60 s), and the bit map says why it draws nothing (the refused shape);
// - the Playground on a weight with 0 rows (a GGUF ne with a 0, a GPTQ qweight with 0 columns, a
//   plain [0, 64]) or 0 columns shows an error instead of dividing by zero (SIGFPE in its worker).
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"
#include "jobrunner.h"
#include "mainwindow.h"
#include "snapshot.h"
#include "theme.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "views/bitmapview.h"
#include "views/playgroundview.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace qsw;

namespace {

QString corpus(const char* entry)
{
    return QStringLiteral(QT_TESTCASE_SOURCEDIR "/corpus/") + QLatin1String(entry);
}

// Ends the suite (a failure) when a step keeps the GUI thread longer than `seconds`: a frozen
// event loop never reaches a QTRY timeout.
class Watchdog {
public:
    Watchdog(int seconds, const char* what)
        : m_thread([this, seconds, what] {
            std::unique_lock<std::mutex> lock(m_mutex);
            if (!m_done.wait_for(lock, std::chrono::seconds(seconds), [this] { return m_finished; })) {
                std::fprintf(stderr, "FAIL: %s took more than %d s on the GUI thread\n", what, seconds);
                std::_Exit(3);
            }
        })
    {
    }
    ~Watchdog()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_finished = true;
        }
        m_done.notify_all();
        m_thread.join();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_done;
    bool m_finished = false;
    std::thread m_thread;
};

// A safetensors file of zero-filled tensors (name, dtype, shape, element size).
struct Spec {
    const char* name;
    const char* dtype;
    std::vector<qint64> shape;
    int elementBytes;
};

bool writeSafetensors(const QString& path, const std::vector<Spec>& tensors, const QByteArray& config = {})
{
    QJsonObject header;
    qint64 offset = 0;
    for (const Spec& t : tensors) {
        qint64 n = t.elementBytes;
        QJsonArray shape;
        for (qint64 d : t.shape) {
            n *= d;
            shape.append(d);
        }
        header.insert(QLatin1String(t.name),
                      QJsonObject{{QStringLiteral("dtype"), QLatin1String(t.dtype)},
                                  {QStringLiteral("shape"), shape},
                                  {QStringLiteral("data_offsets"), QJsonArray{offset, offset + n}}});
        offset += n;
    }
    QByteArray h = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (h.size() % 8)
        h.append(' ');
    const quint64 len = quint64(h.size());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(reinterpret_cast<const char*>(&len), 8);
    f.write(h);
    f.write(QByteArray(qsizetype(offset), '\0'));
    f.close();
    if (!config.isEmpty()) {
        QFile c(QFileInfo(path).absolutePath() + QStringLiteral("/config.json"));
        if (!c.open(QIODevice::WriteOnly) || c.write(config) != config.size())
            return false;
    }
    return true;
}

} // namespace

class TestHostileShapesGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_settings.isValid());
        qstest::sandboxSettings(m_settings.path(), QStringLiteral("tst_hostile_shapes_gui"));
    }

    void absurdShapeKeepsTheWindowResponsive_data()
    {
        QTest::addColumn<QString>("entry");
        QTest::addRow("bnb [2^32, 2^32]") << corpus("bnb-shape-2p32-squared");
        QTest::addRow("ct [2^32, 2^32]") << corpus("ct-weight-shape-2p32-squared");
        QTest::addRow("ct [128, 2^62+256]") << corpus("ct-weight-shape-2p62");
        QTest::addRow("bnb [128, 2^62]") << corpus("bnb-shape-2p62");
        QTest::addRow("bnb [2^20, 2^20]") << corpus("bnb-shape-beyond-bytes");
        QTest::addRow("bnb [2, 3] over 64 codes") << corpus("bnb-shape-disagrees");
    }
    void absurdShapeKeepsTheWindowResponsive()
    {
        QFETCH(QString, entry);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QSignalSpy opened(&w, &MainWindow::checkpointOpened);
        QElapsedTimer clock;
        clock.start();
        {
            Watchdog dog(60, "opening the checkpoint and selecting its weight");
            w.openPath(entry);
            QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 20000);
            QVERIFY(w.selectWeight(QStringLiteral("m")));
            for (const char* view : {"bitmap", "slots", "scales", "error", "playground", "verify", "tensors"}) {
                QVERIFY(w.showView(QLatin1String(view)));
                QCoreApplication::processEvents();
            }
            QVERIFY(w.waitForIdle(20000));
        }
        QVERIFY2(clock.elapsed() < 15000, qPrintable(QString::number(clock.elapsed())));
        auto* bitmap = qobject_cast<BitMapView*>(w.analysisView(QStringLiteral("bitmap")));
        QVERIFY(bitmap);
        QVERIFY2(bitmap->messageText().contains(QStringLiteral("shape refused")), qPrintable(bitmap->messageText()));
    }

    // The Playground's weight row on weights without rows or columns.
    void playgroundOnAnEmptyWeight_data()
    {
        QTest::addColumn<QString>("file"); // made in initTestCase's folder, or a corpus entry
        QTest::addColumn<QString>("weight");
        QTest::addRow("gguf F32 [0, 256]") << corpus("gguf-empty-f32-tensor.gguf") << "synthetic.q5_k";
        QTest::addRow("plain F32 [0, 64]") << "plain-rows"
                                           << "empty.rows";
        QTest::addRow("plain F32 [64, 0]") << "plain-cols"
                                           << "empty.cols";
        QTest::addRow("gptq qweight [8, 0]") << "gptq-no-columns"
                                             << "m";
    }
    void playgroundOnAnEmptyWeight()
    {
        QFETCH(QString, file);
        QFETCH(QString, weight);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString path = file;
        if (file == QLatin1String("plain-rows")) {
            path = dir.filePath(QStringLiteral("rows.safetensors"));
            QVERIFY(writeSafetensors(path, {{"empty.rows", "F32", {0, 64}, 4}, {"full", "F32", {4, 64}, 4}}));
        } else if (file == QLatin1String("plain-cols")) {
            path = dir.filePath(QStringLiteral("cols.safetensors"));
            QVERIFY(writeSafetensors(path, {{"empty.cols", "F32", {64, 0}, 4}, {"full", "F32", {4, 64}, 4}}));
        } else if (file == QLatin1String("gptq-no-columns")) {
            path = dir.filePath(QStringLiteral("model.safetensors"));
            QVERIFY(writeSafetensors(
                path, {{"m.qweight", "I32", {8, 0}, 4}, {"m.qzeros", "I32", {1, 0}, 4}, {"m.scales", "F16", {1, 0}, 2}},
                R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 64}})"));
            path = dir.path();
        }
        const auto ckpt = qs::openCheckpoint(path.toStdString());
        const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
        const int index = snap->findWeight(weight);
        QVERIFY(index >= 0);
        const qs::LogicalWeight& w = ckpt->weights.at(size_t(index));
        QVERIFY2(w.elementCount() == 0, qPrintable(QString::number(w.elementCount())));

        ViewContext context;
        context.setTheme(Theme::fromPalette(lightPalette()));
        context.setCheckpoint(ckpt, snap);
        PlaygroundView view(&context);
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        context.setWeight(index);
        view.setSource(PlaygroundView::Source::WeightRow);
        view.setRow(0);
        view.recompute();
        QVERIFY(context.jobs()->waitForIdle(20000));
        QCoreApplication::processEvents();
        QVERIFY(!view.result());
        QVERIFY2(!view.errorText().isEmpty(), "no error shown for an empty weight");
    }

private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestHostileShapesGui)
#include "tst_hostile_shapes_gui.moc"
