// Never losing the user's data: repack, quantize, dequant, codes and report refuse an output
// that is, contains or lies inside an input (also through a symlink or a hard link), the
// checkpoint's side files included (config.json, quantize_config.json beside a single file),
// with exit 2 and leave the input byte-identical; a non-empty output folder needs --force, and
// even then the files the command does not write survive and are named. Only a regular file is
// ever replaced (a FIFO, symlink, socket, device or folder is refused, named as what it is),
// and it keeps its mode. A write killed by SIGTERM, SIGINT or SIGHUP leaves no temporary file;
// one a SIGKILL left is swept by the next run, which does not refuse the folder for it.
#include "testsupport.h"

#include "container/dtype.h"
#include "container/safetensors.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace {

const QString kWeight = QStringLiteral("model.layers.0.self_attn.q_proj");

// Every file below `dir` (hidden ones too: a stray temporary file counts) with its bytes.
QMap<QString, QByteArray> snapshot(const QString& dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System | QDir::Dirs | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        files.insert(QDir(dir).relativeFilePath(path), f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<dir>"));
    }
    return files;
}

// A copy of a GPTQ fixture folder (model.safetensors, config.json, quantize_config.json,
// ref.safetensors: a float reference to quantize) that the tests may try to damage.
QString copySource(const QTemporaryDir& tmp)
{
    const QString from = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym"));
    const QString to = tmp.filePath(QStringLiteral("src"));
    QDir().mkpath(to);
    for (const QString& name : QDir(from).entryList(QDir::Files))
        QFile::copy(from + QLatin1Char('/') + name, to + QLatin1Char('/') + name);
    return to;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size());
}

QByteArray encoded(const QString& path)
{
    return QFile::encodeName(path);
}

// The hidden temporary files (".NAME.tmp-XXXXXX") in `dir`.
QStringList temporaryFiles(const QString& dir)
{
    return QDir(dir).entryList({QStringLiteral(".*.tmp-*")}, QDir::Files | QDir::Hidden | QDir::System);
}

// A float checkpoint big enough that quantizing it takes a while (4 weights of [1024, 2048],
// 32 MiB): a command writing its output can be caught and killed mid-write. Hugging Face's
// names, or llama.cpp's (which a GGUF output keeps).
void writeBigFloatCheckpoint(const QString& path, bool ggufNames = false)
{
    constexpr uint64_t rows = 1024, cols = 2048;
    std::vector<float> values(rows * cols);
    uint32_t state = 12345;
    for (float& v : values) {
        state = state * 1664525u + 1013904223u;
        v = float(int32_t(state >> 8) - (1 << 23)) / float(1 << 23);
    }
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(values.data()),
                                         values.size() * sizeof(float));
    std::vector<qs::SafetensorsTensor> tensors;
    for (int i = 0; i < 4; ++i)
        tensors.push_back({ggufNames ? "blk." + std::to_string(i) + ".ffn_up.weight"
                                     : "model.layers." + std::to_string(i) + ".mlp.up_proj.weight",
                           qs::DType::F32,
                           {rows, cols},
                           bytes});
    qs::writeSafetensors(path.toStdString(), tensors);
}

// Waits until a temporary file appears in `dir` while `p` runs (at most 60 s): the name, or
// empty when none came.
QString waitForTemporaryFile(const QString& dir)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 60000) {
        const QStringList found = temporaryFiles(dir);
        if (!found.isEmpty())
            return found.front();
        QThread::usleep(500);
    }
    return {};
}

// Each kind of entry that is no regular file, made at `path`; what the refusal calls it, or
// empty when this system does not let the test make one.
QString makeEntry(const QString& kind, const QString& path, const QString& victim)
{
    const QByteArray p = encoded(path);
    if (kind == QLatin1String("fifo"))
        return ::mkfifo(p.constData(), 0600) == 0 ? QStringLiteral("a FIFO (named pipe)") : QString();
    if (kind == QLatin1String("symlink"))
        return QFile::link(victim, path) ? QStringLiteral("a symbolic link to ") + victim : QString();
    if (kind == QLatin1String("dangling symlink"))
        return QFile::link(path + QStringLiteral(".missing"), path)
            ? QStringLiteral("a symbolic link to ") + path + QStringLiteral(".missing")
            : QString();
    if (kind == QLatin1String("folder"))
        return QDir().mkpath(path) ? QStringLiteral("a folder") : QString();
    if (kind == QLatin1String("socket")) {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (fd < 0 || size_t(p.size()) >= sizeof addr.sun_path)
            return {};
        std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
        const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
        ::close(fd); // the socket file stays
        return bound ? QStringLiteral("a socket") : QString();
    }
    if (kind == QLatin1String("character device")) // /dev/null's numbers, in the test's folder (root only)
        return ::mknod(p.constData(), S_IFCHR | 0600, makedev(1, 3)) == 0 ? QStringLiteral("a character device")
                                                                          : QString();
    return {};
}

// The entry's type bits as lstat sees them (0 when absent).
mode_t entryType(const QString& path)
{
    struct stat st { };
    return ::lstat(encoded(path).constData(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

mode_t permissions(const QString& path)
{
    struct stat st { };
    return ::stat(encoded(path).constData(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

} // namespace

class TestCliOutputs : public QObject {
    Q_OBJECT
private slots:
    void refusedOutputs_data()
    {
        QTest::addColumn<QStringList>("args"); // SRC, ROOT and LINK stand for the paths
        QTest::addColumn<QString>("relation");
        const QString src = QStringLiteral("SRC");
        const QStringList repack{QStringLiteral("repack"), src, QStringLiteral("--to"), QStringLiteral("gptq-v2"),
                                 QStringLiteral("-o")};
        QTest::addRow("repack -o SRC") << repack + QStringList{src} << "is the input";
        QTest::addRow("repack -o SRC --force")
            << repack + QStringList{src, QStringLiteral("--force")} << "is the input";
        QTest::addRow("repack -o SRC/") << repack + QStringList{QStringLiteral("SRC/")} << "is the input";
        QTest::addRow("repack -o SRC/sub")
            << repack + QStringList{QStringLiteral("SRC/sub")} << "lies inside the input";
        QTest::addRow("repack -o parent") << repack + QStringList{QStringLiteral("ROOT")} << "contains the input";
        QTest::addRow("repack -o symlink to SRC") << repack + QStringList{QStringLiteral("LINK")} << "is the input";
        QTest::addRow("repack -o symlink/sub")
            << repack + QStringList{QStringLiteral("LINK/sub")} << "lies inside the input";
        QTest::addRow("repack gguf -o SRC/model.safetensors")
            << QStringList{QStringLiteral("repack"), src,
                           QStringLiteral("--to"),   QStringLiteral("q8_0"),
                           QStringLiteral("-o"),     QStringLiteral("SRC/model.safetensors")}
            << "lies inside the input";
        QTest::addRow("quantize -o SRC") << QStringList{QStringLiteral("quantize"),
                                                        QStringLiteral("SRC/ref.safetensors"),
                                                        QStringLiteral("--all"),
                                                        QStringLiteral("--format"),
                                                        QStringLiteral("gptq-v1"),
                                                        QStringLiteral("-o"),
                                                        src}
                                         << "contains the input";
        QTest::addRow("quantize -o SRC/q") << QStringList{QStringLiteral("quantize"), src,
                                                          QStringLiteral("--all"),    QStringLiteral("--format"),
                                                          QStringLiteral("gptq-v1"),  QStringLiteral("-o"),
                                                          QStringLiteral("SRC/q")}
                                           << "lies inside the input";
        QTest::addRow("dequant -o SRC/model.safetensors")
            << QStringList{QStringLiteral("dequant"), src, kWeight, QStringLiteral("-o"),
                           QStringLiteral("SRC/model.safetensors")}
            << "lies inside the input";
        QTest::addRow("dequant -o symlink to the file")
            << QStringList{QStringLiteral("dequant"), QStringLiteral("SRC/model.safetensors"), kWeight,
                           QStringLiteral("-o"), QStringLiteral("LINK/model.safetensors")}
            << "is the input";
        QTest::addRow("codes -o SRC") << QStringList{QStringLiteral("codes"), src, kWeight, QStringLiteral("-o"), src}
                                      << "is the input";
        QTest::addRow("report -o SRC/report.md")
            << QStringList{QStringLiteral("report"), src, QStringLiteral("-o"), QStringLiteral("SRC/report.md")}
            << "lies inside the input";
        // Side files the checkpoint read beside a single file: its configs are inputs too.
        QTest::addRow("dequant FILE -o config.json beside it")
            << QStringList{QStringLiteral("dequant"), QStringLiteral("SRC/model.safetensors"), kWeight,
                           QStringLiteral("-o"), QStringLiteral("SRC/config.json")}
            << "is the input";
        QTest::addRow("dequant FILE -o quantize_config.json beside it")
            << QStringList{QStringLiteral("dequant"), QStringLiteral("SRC/model.safetensors"), kWeight,
                           QStringLiteral("-o"), QStringLiteral("SRC/quantize_config.json")}
            << "is the input";
        QTest::addRow("codes FILE -o config.json beside it")
            << QStringList{QStringLiteral("codes"), QStringLiteral("SRC/model.safetensors"), kWeight,
                           QStringLiteral("-o"), QStringLiteral("SRC/config.json")}
            << "is the input";
        QTest::addRow("quantize FILE gguf -o quantize_config.json beside it")
            << QStringList{QStringLiteral("quantize"),
                           QStringLiteral("SRC/ref.safetensors"),
                           QStringLiteral("--all"),
                           QStringLiteral("--format"),
                           QStringLiteral("q8_0"),
                           QStringLiteral("-o"),
                           QStringLiteral("SRC/quantize_config.json")}
            << "is the input";
        QTest::addRow("repack FILE gguf -o config.json beside it")
            << QStringList{QStringLiteral("repack"), QStringLiteral("SRC/model.safetensors"),
                           QStringLiteral("--to"),   QStringLiteral("q8_0"),
                           QStringLiteral("-o"),     QStringLiteral("SRC/config.json")}
            << "is the input";
        QTest::addRow("report --ref -o inside the ref")
            << QStringList{QStringLiteral("report"), QStringLiteral("SRC/model.safetensors"),
                           QStringLiteral("--ref"),  QStringLiteral("LINK"),
                           QStringLiteral("-o"),     QStringLiteral("SRC/r.html")}
            << "lies inside the input";
    }

    void refusedOutputs()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, relation);
        QTemporaryDir tmp;
        const QString src = copySource(tmp);
        const QString link = tmp.filePath(QStringLiteral("link"));
        QVERIFY(QFile::link(src, link));
        for (QString& a : args)
            a.replace(QLatin1String("SRC"), src)
                .replace(QLatin1String("ROOT"), tmp.path())
                .replace(QLatin1String("LINK"), link);
        const auto before = snapshot(tmp.path());
        const auto r = qstest::runCli(args);
        QVERIFY2(!r.crashed && r.exitCode == 2, r.err.constData());
        QVERIFY2(r.err.contains("refusing to write") && r.err.contains(relation.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(src.toUtf8()), r.err.constData()); // names the input...
        QVERIFY2(r.err.contains((args.at(args.indexOf(QStringLiteral("-o")) + 1) + QStringLiteral(": ")).toUtf8()),
                 r.err.constData()); // ... and the output
        QCOMPARE(snapshot(tmp.path()), before); // nothing written, nothing created
    }

    void hardLinkToTheInput()
    {
        QTemporaryDir tmp;
        const QString src = copySource(tmp), hard = tmp.filePath(QStringLiteral("w.npy"));
        QVERIFY(::link(QFile::encodeName(src + QStringLiteral("/model.safetensors")).constData(),
                       QFile::encodeName(hard).constData())
                == 0);
        const auto before = snapshot(tmp.path());
        const auto r = qstest::runCli({QStringLiteral("dequant"), src, kWeight, QStringLiteral("-o"), hard});
        QVERIFY2(r.exitCode == 2 && r.err.contains("same file"), r.err.constData());
        QCOMPARE(snapshot(tmp.path()), before);
    }

    void nonEmptyFolderNeedsForce_data()
    {
        QTest::addColumn<QStringList>("args"); // OUT stands for the output folder
        QTest::addColumn<QStringList>("written");
        QTest::addRow("repack") << QStringList{QStringLiteral("repack"),  QStringLiteral("SRC"), QStringLiteral("--to"),
                                               QStringLiteral("gptq-v2"), QStringLiteral("-o"),  QStringLiteral("OUT")}
                                << QStringList{QStringLiteral("model.safetensors"), QStringLiteral("config.json"),
                                               QStringLiteral("quantize_config.json")};
        QTest::addRow("quantize") << QStringList{QStringLiteral("quantize"), QStringLiteral("SRC/ref.safetensors"),
                                                 QStringLiteral("--all"),    QStringLiteral("--format"),
                                                 QStringLiteral("awq"),      QStringLiteral("-o"),
                                                 QStringLiteral("OUT")}
                                  << QStringList{QStringLiteral("model.safetensors"), QStringLiteral("config.json"),
                                                 QStringLiteral("quant_config.json")};
        QTest::addRow("codes") << QStringList{QStringLiteral("codes"), QStringLiteral("SRC"), kWeight,
                                              QStringLiteral("-o"), QStringLiteral("OUT")}
                               << QStringList{QStringLiteral("codes.npy"), QStringLiteral("scales.npy"),
                                              QStringLiteral("g_idx.npy")};
    }

    void nonEmptyFolderNeedsForce()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, written);
        QTemporaryDir tmp;
        const QString src = copySource(tmp), out = tmp.filePath(QStringLiteral("out"));
        for (QString& a : args)
            a.replace(QLatin1String("SRC"), src).replace(QLatin1String("OUT"), out);
        QDir().mkpath(out + QStringLiteral("/sub"));
        writeFile(out + QStringLiteral("/README.md"), "the user's notes\n");
        writeFile(out + QStringLiteral("/sub/keep.bin"), "keep");
        writeFile(out + QLatin1Char('/') + written.front(), "an older output");

        const auto before = snapshot(tmp.path()), sourceBefore = snapshot(src);
        auto r = qstest::runCli(args);
        QVERIFY2(r.exitCode == 2 && r.err.contains("not empty") && r.err.contains("--force")
                     && r.err.contains("README.md"),
                 r.err.constData());
        QCOMPARE(snapshot(tmp.path()), before);

        r = qstest::runCli(args + QStringList{QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto after = snapshot(out);
        QCOMPARE(after.value(QStringLiteral("README.md")), QByteArray("the user's notes\n"));
        QCOMPARE(after.value(QStringLiteral("sub/keep.bin")), QByteArray("keep"));
        for (const QString& name : written)
            QVERIFY2(after.contains(name) && after.value(name) != "an older output", qPrintable(name));
        // Nothing but ours and theirs: no temporary file left.
        QCOMPARE(after.size(),
                 written.size() + 3 + (args.front() == QLatin1String("codes") ? 1 : 0)); // codes: zeros.npy too
        // Said, naming only what is not ours.
        QVERIFY2(
            r.err.contains("note: left alone in " + out.toUtf8() + " (not written by this command): README.md, sub\n"),
            r.err.constData());
        QCOMPARE(snapshot(src), sourceBefore);
    }

    // Only a regular file is ever replaced: the entry stays what it was, a symlink's target is
    // untouched, and the message names the path and what is there.
    void refusesWhatIsNoRegularFile_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("args"); // SRC and OUT stand for the input and the entry
        const QStringList dequant{QStringLiteral("dequant"), QStringLiteral("SRC"), kWeight, QStringLiteral("-o"),
                                  QStringLiteral("OUT")};
        for (const char* kind : {"fifo", "symlink", "dangling symlink", "socket", "character device", "folder"})
            QTest::addRow("dequant -o %s", kind) << QString::fromLatin1(kind) << dequant;
        QTest::addRow("quantize gguf -o fifo")
            << QStringLiteral("fifo") << QStringList{QStringLiteral("quantize"), QStringLiteral("SRC/ref.safetensors"),
                                                     QStringLiteral("--all"),    QStringLiteral("--format"),
                                                     QStringLiteral("q8_0"),     QStringLiteral("-o"),
                                                     QStringLiteral("OUT")};
        QTest::addRow("repack gguf -o symlink")
            << QStringLiteral("symlink")
            << QStringList{QStringLiteral("repack"), QStringLiteral("SRC"), QStringLiteral("--to"),
                           QStringLiteral("q8_0"),   QStringLiteral("-o"),  QStringLiteral("OUT")};
        QTest::addRow("report -o fifo") << QStringLiteral("fifo")
                                        << QStringList{QStringLiteral("report"), QStringLiteral("SRC"),
                                                       QStringLiteral("-o"), QStringLiteral("OUT.html")};
    }

    void refusesWhatIsNoRegularFile()
    {
        QFETCH(QString, kind);
        QFETCH(QStringList, args);
        QTemporaryDir tmp;
        const QString src = copySource(tmp), victim = tmp.filePath(QStringLiteral("victim.npy"));
        writeFile(victim, "the user's file");
        QString out = tmp.filePath(QStringLiteral("out"));
        if (args.contains(QStringLiteral("OUT.html")))
            out += QStringLiteral(".html");
        const QString what = makeEntry(kind, out, victim);
        if (what.isEmpty())
            QSKIP("this system does not let the test make the entry");
        const mode_t type = entryType(out);
        for (QString& a : args)
            a.replace(QLatin1String("SRC"), src)
                .replace(QLatin1String("OUT.html"), out)
                .replace(QLatin1String("OUT"), out);
        const auto r = qstest::runCli(args);
        QVERIFY2(!r.crashed && r.exitCode == 2, r.err.constData());
        QVERIFY2(r.err.contains(out.toUtf8() + ": refusing to write: the output is " + what.toUtf8()),
                 r.err.constData());
        QCOMPARE(entryType(out), type);
        QCOMPARE(QFile(victim).size(), qint64(15));
        QVERIFY2(temporaryFiles(tmp.path()).isEmpty(), qPrintable(temporaryFiles(tmp.path()).join(QLatin1Char(' '))));
    }

    // A folder output that is a file (or a FIFO) is no folder to write into.
    void folderOutputMustBeAFolder()
    {
        QTemporaryDir tmp;
        const QString src = copySource(tmp), file = tmp.filePath(QStringLiteral("notes.txt"));
        writeFile(file, "mine");
        auto r = qstest::runCli({QStringLiteral("codes"), src, kWeight, QStringLiteral("-o"), file});
        QVERIFY2(r.exitCode == 2
                     && r.err.contains(file.toUtf8() + ": refusing to write: the output is a file, not a folder"),
                 r.err.constData());
        const QString fifo = tmp.filePath(QStringLiteral("pipe"));
        QVERIFY(::mkfifo(encoded(fifo).constData(), 0600) == 0);
        r = qstest::runCli(
            {QStringLiteral("repack"), src, QStringLiteral("--to"), QStringLiteral("awq"), QStringLiteral("-o"), fifo});
        QVERIFY2(r.exitCode == 2
                     && r.err.contains(fifo.toUtf8()
                                       + ": refusing to write: the output is a FIFO (named pipe), not a folder"),
                 r.err.constData());
        QCOMPARE(entryType(fifo), mode_t(S_IFIFO));
        // A symlink to a folder is a folder to write into.
        const QString real = tmp.filePath(QStringLiteral("real")), link = tmp.filePath(QStringLiteral("link"));
        QVERIFY(QDir().mkpath(real) && QFile::link(real, link));
        r = qstest::runCli({QStringLiteral("codes"), src, kWeight, QStringLiteral("-o"), link});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QFileInfo::exists(real + QStringLiteral("/codes.npy")));
    }

    // A file replaced (a file output, or a file of a folder output with --force) keeps its mode.
    void replacedFileKeepsItsMode()
    {
        QTemporaryDir tmp;
        const QString src = copySource(tmp), npy = tmp.filePath(QStringLiteral("w.npy")),
                      out = tmp.filePath(QStringLiteral("codes"));
        writeFile(npy, "old");
        QVERIFY(::chmod(encoded(npy).constData(), 0600) == 0);
        auto r = qstest::runCli({QStringLiteral("dequant"), src, kWeight, QStringLiteral("-o"), npy});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QFile(npy).size() > 3);
        QCOMPARE(permissions(npy), mode_t(0600));

        QDir().mkpath(out);
        writeFile(out + QStringLiteral("/codes.npy"), "old");
        QVERIFY(::chmod(encoded(out + QStringLiteral("/codes.npy")).constData(), 0640) == 0);
        r = qstest::runCli(
            {QStringLiteral("codes"), src, kWeight, QStringLiteral("-o"), out, QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(permissions(out + QStringLiteral("/codes.npy")), mode_t(0640));
        QCOMPARE(permissions(out + QStringLiteral("/scales.npy")), mode_t(0644)); // a new file: as before
    }

    // SIGTERM, SIGINT and SIGHUP in the middle of a write: the process ends by the signal, as
    // it would have, and its temporary file is gone; nothing appeared under a final name, and
    // the next run needs no --force.
    void killedWriteLeavesNoTemporaryFile_data()
    {
        QTest::addColumn<int>("sig");
        QTest::addRow("SIGTERM") << int(SIGTERM);
        QTest::addRow("SIGINT") << int(SIGINT);
        QTest::addRow("SIGHUP") << int(SIGHUP);
    }

    void killedWriteLeavesNoTemporaryFile()
    {
        QFETCH(int, sig);
        QTemporaryDir tmp;
        const QString big = tmp.filePath(QStringLiteral("big.safetensors")), out = tmp.filePath(QStringLiteral("out"));
        writeBigFloatCheckpoint(big);
        const QStringList args{QStringLiteral("quantize"),
                               big,
                               QStringLiteral("--all"),
                               QStringLiteral("--format"),
                               QStringLiteral("gptq-v1"),
                               QStringLiteral("-o"),
                               out};
        qstest::Process p;
        QVERIFY(qstest::startCli(p, args));
        const QString temp = waitForTemporaryFile(out);
        QVERIFY2(!temp.isEmpty(), "no temporary file appeared");
        QVERIFY(p.sendSignal(sig));
        QVERIFY(p.wait(60000));
        QVERIFY2(p.crashed && p.signal == sig, p.err.constData());
        QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot),
                 QStringList());
        const auto r = qstest::runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(temporaryFiles(out).isEmpty());
    }

    // SIGKILL runs no handler: its temporary file stays, and the next run sweeps it (its writer
    // is gone), into a folder (no --force needed for it) or over a file.
    void sigkillLeftoverIsSweptByTheNextRun_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("output");
        QTest::addRow("folder") << "gptq-v1"
                                << "out";
        QTest::addRow("file") << "q8_0"
                              << "out.gguf";
    }

    void sigkillLeftoverIsSweptByTheNextRun()
    {
        QFETCH(QString, format);
        QFETCH(QString, output);
        QTemporaryDir tmp;
        const QString big = tmp.filePath(QStringLiteral("big.safetensors")), out = tmp.filePath(output);
        const bool folder = !output.endsWith(QLatin1String(".gguf"));
        const QString dir = folder ? out : tmp.path();
        writeBigFloatCheckpoint(big, !folder);
        const QStringList args{
            QStringLiteral("quantize"), big, QStringLiteral("--all"), QStringLiteral("--format"), format,
            QStringLiteral("-o"),       out};
        qstest::Process p;
        QVERIFY(qstest::startCli(p, args));
        const QString temp = waitForTemporaryFile(dir);
        QVERIFY2(!temp.isEmpty(), "no temporary file appeared");
        QVERIFY(p.sendSignal(SIGKILL));
        QVERIFY(p.wait(60000));
        QVERIFY(p.crashed && p.signal == SIGKILL);
        QCOMPARE(temporaryFiles(dir), QStringList{temp}); // left behind, as only the next run can help
        QVERIFY(!QFileInfo::exists(out + (folder ? QStringLiteral("/model.safetensors") : QString())));

        const auto r = qstest::runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(temporaryFiles(dir).isEmpty(), qPrintable(temporaryFiles(dir).join(QLatin1Char(' '))));
        QVERIFY(!r.err.contains("left alone"));
    }

    // An empty existing folder and a new one need no --force.
    void emptyOrNewFolder()
    {
        QTemporaryDir tmp;
        const QString src = copySource(tmp), empty = tmp.filePath(QStringLiteral("empty"));
        QDir().mkpath(empty);
        for (const QString& out : {empty, tmp.filePath(QStringLiteral("new/deeper"))}) {
            const auto r = qstest::runCli({QStringLiteral("repack"), src, QStringLiteral("--to"), QStringLiteral("awq"),
                                           QStringLiteral("-o"), out, QStringLiteral("--no-verify")});
            QVERIFY2(r.exitCode == 0 && !r.err.contains("left alone"), r.err.constData());
            QVERIFY(QFile::exists(out + QStringLiteral("/model.safetensors")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliOutputs)
#include "tst_cli_outputs.moc"
