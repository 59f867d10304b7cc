// A checkpoint file that changes while it is read (a converter rewriting its output in place):
// a read past the new end of a truncated file does not kill the process (SIGBUS inside one of our
// mappings, on any thread, reads zeros), and whatever was read is not reported: the mapping says
// how the file changed, and checkMappedFilesUnchanged / AtomicFile::commit refuse. A SIGBUS outside
// our mappings still ends the process. Bytes rewritten in place are caught by the file's
// modification time.
#include "analysis/diff.h"
#include "analysis/stats.h"
#include "analysis/verify.h"
#include "base/atomicfile.h"
#include "base/error.h"
#include "base/mapguard.h"
#include "container/mappedfile.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"
#include "formats/target.h"
#include "testsupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>

using namespace qs;

namespace {

// A copy of the GGUF fixture in `dir`, opened; then cut to its header, so that every tensor read
// lies past the file's end.
std::shared_ptr<const Checkpoint> openThenTruncate(const QTemporaryDir& dir, std::string* pathOut = nullptr)
{
    const QString path = dir.filePath(QStringLiteral("ggml-types.gguf"));
    QFile::remove(path);
    if (!QFile::copy(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")), path))
        return nullptr;
    auto ckpt = openCheckpoint(path.toStdString());
    uint64_t first = ~uint64_t(0);
    for (const TensorEntry& t : ckpt->tensors)
        first = std::min(first, t.offset);
    if (::truncate(path.toLocal8Bit().constData(), off_t(first)) != 0)
        return nullptr;
    if (pathOut)
        *pathOut = path.toStdString();
    return ckpt;
}

// The child of otherSigbusStillKills, in a process of its own (QtTest's crash handler would
// otherwise stand behind ours): a registered mapping installs the handler, then a read past the end
// of a file truncated under a mapping that is not registered. Returns only if no signal came.
int sigbusChild(const char* dir)
{
    const std::string guarded = std::string(dir) + "/guarded.bin", raw = std::string(dir) + "/raw.bin";
    {
        std::ofstream(guarded, std::ios::binary) << std::string(4096, 'g');
    }
    {
        std::ofstream(raw, std::ios::binary) << std::string(1 << 16, 'x');
    }
    const MappedFile installsTheHandler(guarded);
    const int fd = ::open(raw.c_str(), O_RDONLY);
    auto* p = static_cast<const volatile uint8_t*>(::mmap(nullptr, 1 << 16, PROT_READ, MAP_PRIVATE, fd, 0));
    if (::truncate(raw.c_str(), 0) != 0)
        return 3;
    return p[40000] == 'x' ? 4 : 5;
}

bool saysChanged(const std::string& message, const std::string& path)
{
    return message.find(path + " changed while it was being read (now ") != std::string::npos;
}

} // namespace

class TestChangedOnDisk : public QObject {
    Q_OBJECT
private slots:
    void truncatedMappingReadsZerosAndSaysSo()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("f.bin")).toStdString();
        {
            std::ofstream(path, std::ios::binary) << std::string(1 << 20, 'x');
        }
        const MappedFile f(path);
        QVERIFY(!f.changed());
        QCOMPARE(::truncate(path.c_str(), 4096), 0);
        uint64_t sum = 0;
        for (uint8_t b : f.bytes()) // every page: 255 of them are past the end now
            sum += b;
        QCOMPARE(sum, uint64_t('x') * 4096);
        const std::optional<std::string> why = f.changed();
        QVERIFY(why);
        QCOMPARE(*why, path + " changed while it was being read (now 4096 bytes, was 1048576 bytes)");
        try {
            mapguard::checkMappedFilesUnchanged();
            QFAIL("a changed mapping passed the check");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()), *why + ": nothing was reported");
        }
        // Nothing is written from what was read, in a process that says its mappings are its
        // inputs (the CLI).
        mapguard::setCheckBeforeWrites(true);
        const std::string out = dir.filePath(QStringLiteral("out.bin")).toStdString();
        QVERIFY_THROWS_EXCEPTION(Error, writeFileAtomically(out, std::string_view("data")));
        QVERIFY(!QFile::exists(QString::fromStdString(out)));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1); // no temporary file left
        mapguard::setCheckBeforeWrites(false);
    }

    void rewrittenInPlaceIsCaught()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("f.bin")).toStdString();
        {
            std::ofstream(path, std::ios::binary) << std::string(8192, 'x');
        }
        const MappedFile f(path);
        // Same size, new bytes: no signal, but another modification time.
        const timespec later[2] = {{0, UTIME_OMIT}, {time(nullptr) + 5, 0}};
        {
            std::fstream(path, std::ios::binary | std::ios::in | std::ios::out).write("yy", 2);
        }
        QCOMPARE(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
        QVERIFY(f.changed());
        QVERIFY(f.changed()->find("(now 8192 bytes, was 8192 bytes)") != std::string::npos);
    }

    void replacedFileIsCaught()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("f.bin")).toStdString();
        {
            std::ofstream(path, std::ios::binary) << std::string(8192, 'x');
        }
        const MappedFile f(path);
        const std::string next = path + ".new";
        {
            std::ofstream(next, std::ios::binary) << std::string(100, 'y');
        }
        QCOMPARE(std::rename(next.c_str(), path.c_str()), 0);
        QVERIFY(f.changed());
        QVERIFY(f.changed()->find("(now another file of 100 bytes, was 8192 bytes)") != std::string::npos);
        QCOMPARE(::unlink(path.c_str()), 0);
        QVERIFY(f.changed()->find("(now gone, was 8192 bytes)") != std::string::npos);
    }

    // Every reader of weights over a file cut under it: no signal, and the checkpoint says so.
    void everyDriverSurvivesACut_data()
    {
        QTest::addColumn<QString>("driver");
        for (const char* d :
             {"verify", "dequant", "dequant-scalar", "stats", "stats-approximate", "stats-requantize", "diff"})
            QTest::addRow("%s", d) << QString::fromLatin1(d);
    }
    void everyDriverSurvivesACut()
    {
        QFETCH(QString, driver);
        QTemporaryDir dir;
        std::string path;
        const auto ckpt = openThenTruncate(dir, &path);
        QVERIFY(ckpt);
        const LogicalWeight* q4 = nullptr;
        for (const LogicalWeight& w : ckpt->weights)
            if (w.format == "gguf-q4_k")
                q4 = &w;
        QVERIFY(q4);
        StatsOptions so;
        so.path = bestSimdPath();
        if (driver == QLatin1String("verify")) {
            verifyCheckpoint(*ckpt);
        } else if (driver.startsWith(QLatin1String("dequant"))) {
            for (const LogicalWeight& w : ckpt->weights) // every type, across threads
                if (canDequantize(w.format))
                    dequantizeWeight(*ckpt, w,
                                     driver.endsWith(QLatin1String("scalar")) ? SimdPath::Scalar : bestSimdPath(), 0);
        } else if (driver == QLatin1String("stats")) {
            weightHistograms(*ckpt, *q4, so);
        } else if (driver == QLatin1String("stats-approximate")) {
            so.sampleEvery = kApproximateSampleEvery;
            weightHistograms(*ckpt, *q4, so);
        } else if (driver == QLatin1String("stats-requantize")) {
            compareRequantized(*ckpt, *q4, RequantizeSpec{"gguf-q8_0", 8, 32, true}, so);
        } else {
            DiffOptions d;
            d.path = bestSimdPath();
            diffCheckpoints(*ckpt, *ckpt, d);
        }
        const std::optional<std::string> why = ckpt->changedOnDisk();
        QVERIFY(why);
        QVERIFY2(saysChanged(*why, path), why->c_str());
        QVERIFY_THROWS_EXCEPTION(Error, mapguard::checkMappedFilesUnchanged());
    }

    // The handler only takes faults in registered mappings: any other SIGBUS ends the process.
    void otherSigbusStillKills()
    {
        QTemporaryDir dir;
        QStringList command = qstest::emulator();
        command << QCoreApplication::applicationFilePath() << QStringLiteral("--sigbus-child") << dir.path();
        // Under AddressSanitizer the handler before ours is ASan's, which reports a SIGBUS and exits 1;
        // the child runs without it so that the default action is what our handler falls back to.
        const QByteArray asanOptions = qgetenv("ASAN_OPTIONS");
        qputenv("ASAN_OPTIONS", asanOptions + (asanOptions.isEmpty() ? "" : ":") + "handle_sigbus=0");
        qstest::Process child;
        const bool started = child.start(command.takeFirst(), command);
        qputenv("ASAN_OPTIONS", asanOptions);
        QVERIFY(started);
        QVERIFY(child.wait(60000));
        // Under qemu-user the guest's signal reaches the emulator, which ends itself the same way.
        QVERIFY2(child.crashed && child.signal == SIGBUS,
                 qPrintable(QStringLiteral("exit %1, signal %2: %3")
                                .arg(child.exitCode)
                                .arg(child.signal)
                                .arg(QString::fromLocal8Bit(child.err))));
    }

    // A mapping that had changed when it was unmapped is still reported (the CLI checks after
    // its command has closed the checkpoint).
    void rememberedAfterUnmap()
    {
        QTemporaryDir dir;
        {
            const auto ckpt = openThenTruncate(dir);
            QVERIFY(ckpt);
        }
        QVERIFY_THROWS_EXCEPTION(Error, mapguard::checkUnchangedSinceStart());
    }
};

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--sigbus-child") == 0)
        return sigbusChild(argv[2]);
    QCoreApplication app(argc, argv);
    TestChangedOnDisk test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_changed_on_disk.moc"
