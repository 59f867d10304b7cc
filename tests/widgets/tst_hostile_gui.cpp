// Hostile input in the GUI (issue 7): a real checkpoint is open, then a damaged one (made from
// a fixture) is opened. The dialog names the damaged file and the field the reader refused,
// the first checkpoint stays the one shown, and nothing is written next to either: both
// folders list the same names, sizes and modification times before and after.
#include "container/checkpoint.h"
#include "mainwindow.h"
#include "tablemodels.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDirIterator>
#include <QFile>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <functional>

using namespace qsw;

namespace {

constexpr int kOpenTimeoutMs = 20000;

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& b)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(b) == b.size();
}

// Every entry under `dir`, hidden ones included, with its size and modification time.
QStringList listing(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo fi = it.fileInfo();
        out << QStringLiteral("%1 %2 %3").arg(fi.filePath()).arg(fi.size()).arg(fi.lastModified().toMSecsSinceEpoch());
    }
    out.sort();
    return out;
}

// Replaces the first occurrence of `from` in the safetensors header by `to` (same length, so
// the header length and the data offsets stay valid).
bool patchHeader(const QString& path, const QByteArray& from, const QByteArray& to)
{
    QByteArray b = readAll(path);
    quint64 n = 0;
    std::memcpy(&n, b.constData(), 8);
    const qsizetype at = b.indexOf(from, 8);
    if (from.size() != to.size() || at < 0 || quint64(at) >= 8 + n)
        return false;
    b.replace(at, from.size(), to);
    return writeAll(path, b);
}

void copyFixture(const QString& fixture, const QString& to)
{
    std::filesystem::copy(qstest::fixture(fixture).toStdString(), to.toStdString(),
                          std::filesystem::copy_options::recursive);
    QFile::remove(to + QStringLiteral("/ref.safetensors")); // expected output, not part of the checkpoint
}

} // namespace

class TestHostileGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void errorDialogKeepsPreviousAndWritesNothing_data();
    void errorDialogKeepsPreviousAndWritesNothing();

private:
    QTemporaryDir m_settings;
};

void TestHostileGui::initTestCase()
{
    QVERIFY(m_settings.isValid());
    qstest::sandboxSettings(m_settings.path(), QStringLiteral("tst_hostile_gui"));
}

void TestHostileGui::errorDialogKeepsPreviousAndWritesNothing_data()
{
    QTest::addColumn<QString>("fixture"); // copied into a temporary folder, then damaged
    QTest::addColumn<QString>("open"); // relative to that folder
    QTest::addColumn<QString>("damaged"); // the file changed, named by the dialog
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<QStringList>("expected"); // in the dialog's text, besides the file name

    QTest::addRow("safetensors unknown dtype")
        << "safetensors/gptq-w4-g128-sym"
        << "gptq-w4-g128-sym/model.safetensors"
        << "model.safetensors" << QByteArray("\"dtype\":\"F16\"") << QByteArray("\"dtype\":\"Q16\"")
        << QStringList{QStringLiteral("unknown dtype 'Q16'"), QStringLiteral("tensor '")};
    QTest::addRow("safetensors data_offsets")
        << "safetensors/awq-gemm-w4-g32"
        << "awq-gemm-w4-g32"
        << "model.safetensors" << QByteArray("\"data_offsets\":[0,") << QByteArray("\"data_offsets\":[1,")
        << QStringList{QStringLiteral("data_offsets")};
    QTest::addRow("safetensors shape overflow") << "safetensors/bnb-nf4"
                                                << "bnb-nf4/model.safetensors"
                                                << "model.safetensors" << QByteArray("\"shape\":[")
                                                << QByteArray("\"shape\":[") << QStringList{QStringLiteral("shape")};
    QTest::addRow("safetensors header length")
        << "safetensors/ct-pack-w4a16-g32-asym"
        << "ct-pack-w4a16-g32-asym/model.safetensors"
        << "model.safetensors" << QByteArray() << QByteArray("\xff\xff\xff\xff\x02", 5)
        << QStringList{QStringLiteral("header too large"), QStringLiteral("header length")};
    QTest::addRow("gguf truncated in the tensor infos")
        << "gguf/ggml-types.gguf"
        << "ggml-types.gguf"
        << "ggml-types.gguf" << QByteArray() << QByteArray("cut") << QStringList{QStringLiteral("tensor")};
}

void TestHostileGui::errorDialogKeepsPreviousAndWritesNothing()
{
    QFETCH(QString, fixture);
    QFETCH(QString, open);
    QFETCH(QString, damaged);
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(QStringList, expected);

    QTemporaryDir goodDir, badDir;
    QVERIFY(goodDir.isValid() && badDir.isValid());
    const QString good = goodDir.filePath(QStringLiteral("gptq-w4-g32-asym"));
    copyFixture(QStringLiteral("safetensors/gptq-w4-g32-asym"), good);
    const QString bad = badDir.filePath(open);
    const QString copied = badDir.filePath(QFileInfo(qstest::fixture(fixture)).fileName());
    copyFixture(fixture, copied);
    const QString file = QFileInfo(copied).isDir() ? copied + QLatin1Char('/') + damaged : copied;

    if (to == "cut") {
        // Cut inside the tensor infos: after the metadata, before the first tensor's data.
        const auto ckpt = qs::openCheckpoint(file.toStdString());
        uint64_t dataStart = UINT64_MAX;
        for (const auto& t : ckpt->tensors)
            dataStart = std::min(dataStart, t.offset);
        QVERIFY(writeAll(file, readAll(file).left(qsizetype(dataStart) - 200)));
    } else if (from.isEmpty()) {
        QByteArray b = readAll(file);
        b.replace(0, to.size(), to);
        QVERIFY(writeAll(file, b));
    } else if (from == to) {
        // The first shape becomes [2^32, 2^32, ...]: its element count overflows 64 bits.
        QByteArray b = readAll(file);
        quint64 n = 0;
        std::memcpy(&n, b.constData(), 8);
        const qsizetype at = b.indexOf(from, 8);
        QVERIFY(at > 0 && quint64(at) < 8 + n);
        QByteArray header = b.mid(8, qsizetype(n));
        header.insert(at - 8 + from.size(), "4294967296,4294967296,");
        header = header.trimmed();
        const quint64 m = quint64(header.size());
        b = QByteArray(reinterpret_cast<const char*>(&m), 8) + header + b.mid(8 + qsizetype(n));
        QVERIFY(writeAll(file, b));
    } else {
        QVERIFY(patchHeader(file, from, to));
    }

    const QStringList goodBefore = listing(goodDir.path());
    const QStringList badBefore = listing(badDir.path());

    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::checkpointOpened);
    QSignalSpy failed(&w, &MainWindow::openFailed);
    w.openPath(good);
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, kOpenTimeoutMs);
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    const auto before = w.snapshot();
    QVERIFY(before);
    const qsizetype tensors = w.tensorModel()->rowCount();
    QVERIFY(tensors > 0);

    w.openPath(bad);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, kOpenTimeoutMs);
    QCOMPARE(opened.size(), 1);
    QCOMPARE(failed.first().at(0).toString(), bad);
    // The dialog: its text names what was opened, its details the damaged file and the field.
    QVERIFY(w.errorBox());
    QTRY_VERIFY(w.errorBox()->isVisible());
    QVERIFY2(w.errorBox()->text().contains(QFileInfo(bad).fileName()), qPrintable(w.errorBox()->text()));
    const QString details = w.errorBox()->informativeText();
    QCOMPARE(details, w.lastError());
    QVERIFY2(details.contains(damaged), qPrintable(details));
    for (const QString& e : expected)
        QVERIFY2(details.contains(e), qPrintable(details + QStringLiteral("\nlacks: ") + e));
    // The previous checkpoint is still the one shown, with all its tensors.
    QCOMPARE(w.snapshot(), before);
    QCOMPARE(w.checkpoint()->path, good.toStdString());
    QCOMPARE(w.tensorModel()->rowCount(), tensors);
    QVERIFY(!w.recentFiles().contains(QFileInfo(bad).absoluteFilePath()));
    w.errorBox()->close();
    w.close();
    QCoreApplication::processEvents();

    // Nothing written, renamed or touched beside either checkpoint.
    QCOMPARE(listing(goodDir.path()), goodBefore);
    QCOMPARE(listing(badDir.path()), badBefore);
}

QTEST_MAIN(TestHostileGui)
#include "tst_hostile_gui.moc"
