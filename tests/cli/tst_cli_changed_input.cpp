// A checkpoint cut while a command reads it (a converter rewriting its output into the same path):
// every reading command ends with exit 2 and "PATH changed while it was being read (now N bytes,
// was M): nothing was reported", never with a signal (exit 135 before), and prints no results.
// The cut is made while the command holds the file mapped: it is stopped (SIGSTOP) as soon as its
// /proc/PID/maps shows the file, the file is truncated, and it goes on. A FIFO is refused at once.
#include "base/localpath.h"
#include "container/gguf.h"
#include "formats/ggml/quantize_ggml.h"
#include "testsupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <string>
#include <vector>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>

namespace {

constexpr uint64_t kRows = 128, kCols = 4096;

// Two weights of [128, 4096] as ggml type `type` (Q4_0: 576 KiB; F16, the float reference: 2 MiB).
void writeModel(const QString& path, int type)
{
    std::vector<float> w(kRows * kCols);
    for (size_t i = 0; i < w.size(); ++i)
        w[i] = float(std::sin(double(i) * 0.001) * 0.02);
    const std::vector<uint8_t> q = qs::quantizeGgml(type, w.data(), kRows, kCols);
    std::vector<qs::GgufTensor> tensors;
    for (int i = 0; i < 2; ++i)
        tensors.push_back({"blk." + std::to_string(i) + ".ffn_up.weight", type, {kCols, kRows}, q});
    qs::writeGguf(path.toStdString(), {}, tensors);
}

// Whether the child has ended (a zombie not yet waited for counts), without reaping it.
bool ended(int pid)
{
    siginfo_t info{};
    return ::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
}

bool mapsFile(int pid, const QByteArray& path)
{
    QFile maps(QStringLiteral("/proc/%1/maps").arg(pid));
    return maps.open(QIODevice::ReadOnly) && maps.readAll().contains(path);
}

} // namespace

class TestCliChangedInput : public QObject {
    Q_OBJECT
private slots:
    void cutWhileReading_data()
    {
        QTest::addColumn<QStringList>("args"); // MODEL stands for the Q4_0 file, REF for its F16 twin
        QTest::addRow("verify") << QStringList{QStringLiteral("verify"), QStringLiteral("MODEL")};
        QTest::addRow("dequant") << QStringList{QStringLiteral("dequant"), QStringLiteral("MODEL"),
                                                QStringLiteral("blk.1.ffn_up.weight"), QStringLiteral("-o"),
                                                QStringLiteral("OUT")};
        QTest::addRow("diff") << QStringList{QStringLiteral("diff"), QStringLiteral("MODEL"), QStringLiteral("REF")};
        QTest::addRow("stats") << QStringList{QStringLiteral("stats"), QStringLiteral("MODEL")};
        QTest::addRow("stats --approximate")
            << QStringList{QStringLiteral("stats"), QStringLiteral("MODEL"), QStringLiteral("--approximate")};
        QTest::addRow("stats --requantize") << QStringList{QStringLiteral("stats"), QStringLiteral("MODEL"),
                                                           QStringLiteral("--requantize"), QStringLiteral("q8_0")};
        QTest::addRow("stats --ref") << QStringList{QStringLiteral("stats"), QStringLiteral("MODEL"),
                                                    QStringLiteral("--ref"), QStringLiteral("REF")};
    }

    void cutWhileReading()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = dir.filePath(QStringLiteral("model.gguf")),
                      ref = dir.filePath(QStringLiteral("ref.gguf")), out = dir.filePath(QStringLiteral("out.npy"));
        writeModel(model, 2);
        writeModel(ref, 1);
        const qint64 size = QFileInfo(model).size();
        // What dequant writes from the intact file: an output put in place before the cut (the
        // command checks its inputs before it commits) must be exactly this.
        const QString intact = dir.filePath(QStringLiteral("intact.npy"));
        QCOMPARE(qstest::runCli({QStringLiteral("dequant"), model, QStringLiteral("blk.1.ffn_up.weight"),
                                 QStringLiteral("-o"), intact})
                     .exitCode,
                 0);
        args.replaceInStrings(QStringLiteral("MODEL"), model);
        args.replaceInStrings(QStringLiteral("REF"), ref);
        args.replaceInStrings(QStringLiteral("OUT"), out);
        const QByteArray mapped = QFile::encodeName(model);
        for (int attempt = 0;; ++attempt) {
            QVERIFY2(attempt < 20, "never caught the command with the file mapped");
            QVERIFY(QFile::resize(model, size));
            qstest::Process p;
            QVERIFY(qstest::startCli(p, args));
            bool cut = false;
            while (!ended(p.pid())) {
                if (!mapsFile(p.pid(), mapped)) {
                    usleep(100);
                    continue;
                }
                ::kill(p.pid(), SIGSTOP);
                cut = mapsFile(p.pid(), mapped) && QFile::resize(model, 4096);
                ::kill(p.pid(), SIGCONT);
                break;
            }
            QVERIFY(p.wait(600000)); // the emulated CPUs take their time
            if (!cut)
                continue;
            QVERIFY2(!p.crashed, qPrintable(QStringLiteral("signal %1").arg(p.signal)));
            QCOMPARE(p.exitCode, 2);
            const QString err = QString::fromLocal8Bit(p.err);
            QVERIFY2(err.contains(
                         model
                         + QStringLiteral(" changed while it was being read (now 4096 bytes, was %1 bytes)").arg(size)),
                     qPrintable(err));
            QVERIFY2(err.contains(QStringLiteral("nothing was reported"))
                         || err.contains(QStringLiteral("nothing was written")),
                     qPrintable(err));
            QVERIFY2(p.out.isEmpty(), p.out.constData());
            // Nothing read after the cut was written; a file written before it is whole.
            if (QFile::exists(out)) {
                QFile a(out), b(intact);
                QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
                QVERIFY(a.readAll() == b.readAll());
            }
            break;
        }
    }

    // File names are bytes: a checkpoint whose name is not UTF-8 opens, and an output of such a
    // name is written under exactly those bytes (both said "no such file or folder" before).
    void namesThatAreNotUtf8()
    {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        const std::string model = base + "/model-\xff\xfe.gguf", out = base + "/out-\xe9.npy";
        // QTemporaryDir cannot remove names that are not UTF-8: they go first, however the test ends.
        const struct RemoveByBytes {
            std::vector<std::string> paths;
            ~RemoveByBytes()
            {
                for (const std::string& p : paths)
                    ::unlink(p.c_str());
            }
        } removeByBytes{{model, out}};
        QVERIFY(QFile::copy(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")),
                            dir.filePath(QStringLiteral("plain.gguf"))));
        QCOMPARE(::rename((base + "/plain.gguf").c_str(), model.c_str()), 0);
        const QString modelArg = qs::decodeLocalBytes(model), outArg = qs::decodeLocalBytes(out);
        qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), modelArg});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = qstest::runCli(
            {QStringLiteral("dequant"), modelArg, QStringLiteral("synthetic.q4_0"), QStringLiteral("-o"), outArg});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(::access(out.c_str(), F_OK) == 0);
    }

    // Only regular files and folders are opened: a FIFO given as the checkpoint is refused at once
    // (its open() used to wait for a writer forever), naming what it is.
    void fifoRefusedAtOnce()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("model.gguf"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        for (const QString& command : {QStringLiteral("inspect"), QStringLiteral("verify")}) {
            const qstest::CliResult r = qstest::runCli({command, fifo}, 20000);
            QVERIFY2(!r.crashed, "timed out or crashed");
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(
                r.err.contains(QFile::encodeName(fifo) + ": is a FIFO (named pipe), not a checkpoint file or folder"),
                r.err.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestCliChangedInput)
#include "tst_cli_changed_input.moc"
