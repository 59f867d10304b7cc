// Hostile input (issue 7): every fixture truncated at many offsets and with seeded random
// bytes flipped is opened, inspected and every weight dequantized (and its codes extracted),
// each case in a forked child under a time bound (alarm) and a memory bound (RLIMIT_AS).
// A case passes when the child exits 0 (accepted) or 2 (qs::Error with a message naming the
// file); a signal, a timeout, std::bad_alloc or any other exception fails it. The inputs that
// once crashed live in tests/corpus/ and are replayed the same way. A CLI sample (every
// fixture, four damaged copies, inspect/verify/dequant) checks that quantscope-cli ends with
// 0, 1 or 2 and a message on the same kind of input. The corpus entries also go through stats'
// histograms and its requantized error with the default activations (issue 29).
#include "analysis/stats.h"
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/detect.h"
#include "formats/dequant.h"
#include "formats/kernel.h"
#include "formats/target.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <omp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr unsigned kTimeLimitSeconds = 20;
constexpr rlim_t kAddressSpace = rlim_t(2) << 30;

enum ChildExit { Accepted = 0, Refused = 2, BadAlloc = 3, OtherException = 4, SilentError = 5 };

// What stats does with a weight (corpus entries): its histograms, and its error requantized to
// GPTQ 4-bit with the default activations [16, K]. A qs::Error must name the entry.
int analyse(const qs::Checkpoint& ckpt, const qs::LogicalWeight& w, const std::string& mustName, bool scalar,
            size_t& sink)
{
    qs::StatsOptions opt;
    opt.path = scalar ? qs::SimdPath::Scalar : qs::bestSimdPath();
    opt.threads = 1;
    try {
        sink += size_t(qs::weightHistograms(ckpt, w, opt).count);
    } catch (const qs::Error& e) {
        if (!*e.what() || !std::strstr(e.what(), mustName.c_str()))
            return std::fprintf(stderr, "silent: %s\n", e.what()), SilentError;
    }
    if (w.shape.size() < 2)
        return Accepted;
    try {
        sink += size_t(qs::compareRequantized(ckpt, w, qs::RequantizeSpec{"gptq", 4, 32, false}, opt).error.count);
    } catch (const qs::Error& e) {
        if (!*e.what() || !std::strstr(e.what(), mustName.c_str()))
            return std::fprintf(stderr, "silent: %s\n", e.what()), SilentError;
    }
    return Accepted;
}

// Everything a user can do with a file without writing it: open, list, show metadata,
// verify, dequantize every weight (alternating the scalar and the best SIMD path) and read codes;
// with `analyses`, stats' histograms and requantized error too.
int exercise(const std::string& path, const std::string& mustName, bool scalar, bool analyses = false)
{
    try {
        const auto ckpt = qs::openCheckpoint(path);
        size_t sink = 0;
        for (const auto& [key, value] : ckpt->metadata)
            sink += key.size() + value.toDisplayString().size();
        for (const auto& t : ckpt->tensors)
            sink += t.name.size() + t.typeName.size() + ckpt->bytes(t).size();
        sink += size_t(qs::summarizeBits(ckpt->weights).elements);
        sink += qs::verifyCheckpoint(*ckpt).findings.size();
        for (const auto& w : ckpt->weights) {
            if (!qs::canDequantize(w.format))
                continue;
            try {
                const std::vector<float> v =
                    qs::dequantizeWeight(*ckpt, w, scalar ? qs::SimdPath::Scalar : qs::bestSimdPath(), 1);
                sink += v.size();
            } catch (const qs::Error& e) {
                if (!*e.what() || !std::strstr(e.what(), mustName.c_str()))
                    return std::fprintf(stderr, "silent: %s\n", e.what()), SilentError;
            }
            try {
                sink += qs::extractCodes(*ckpt, w).codes.size();
            } catch (const qs::Error& e) {
                if (!*e.what())
                    return SilentError;
            }
            if (analyses)
                if (const int r = analyse(*ckpt, w, mustName, scalar, sink); r != Accepted)
                    return r;
        }
        return sink == size_t(-1) ? Refused : Accepted;
    } catch (const qs::Error& e) {
        if (!*e.what() || !std::strstr(e.what(), mustName.c_str())) {
            std::fprintf(stderr, "silent: %s\n", e.what());
            return SilentError;
        }
        return Refused;
    } catch (const std::bad_alloc&) {
        return BadAlloc;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "exception: %s\n", e.what());
        return OtherException;
    }
}

struct Outcome {
    bool ok = false;
    int code = -1; // exit code, or -signal
    QString what;
};

// Forks a child that runs exercise() under the time and memory bounds; returns its pid.
pid_t startIsolated(const std::string& path, const std::string& mustName, bool scalar, bool analyses = false)
{
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        // One thread per case: the slots are the parallelism (and qemu-user 7.2 aborts when the
        // forked child of a threaded guest starts threads of its own: the emulated suites).
        omp_set_num_threads(1);
        alarm(kTimeLimitSeconds);
        if (qstest::canLimitAddressSpace()) {
            const rlimit lim{kAddressSpace, kAddressSpace};
            setrlimit(RLIMIT_AS, &lim);
        }
        _exit(exercise(path, mustName, scalar, analyses));
    }
    return pid;
}

Outcome finishIsolated(pid_t pid)
{
    int status = 0;
    Outcome o;
    if (pid < 0) {
        o.what = QStringLiteral("fork failed");
        return o;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
    if (WIFSIGNALED(status)) {
        o.code = -WTERMSIG(status);
        o.what =
            WTERMSIG(status) == SIGALRM ? QStringLiteral("timeout") : QStringLiteral("signal %1").arg(WTERMSIG(status));
    } else {
        o.code = WEXITSTATUS(status);
        o.ok = o.code == Accepted || o.code == Refused;
        static const std::map<int, const char*> names{{BadAlloc, "std::bad_alloc (allocation beyond the memory bound)"},
                                                      {OtherException, "exception other than qs::Error"},
                                                      {SilentError, "error message empty or not naming the file"}};
        o.what = names.count(o.code) ? QString::fromLatin1(names.at(o.code)) : QStringLiteral("exit %1").arg(o.code);
    }
    return o;
}

Outcome runIsolated(const std::string& path, const std::string& mustName, bool scalar, bool analyses = false)
{
    return finishIsolated(startIsolated(path, mustName, scalar, analyses));
}

// Cases run this many at a time, each in its own copy of the target.
int sweepSlots()
{
    return std::clamp(QThread::idealThreadCount(), 1, 4);
}

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

// Where the header ends: safetensors 8 + its length; GGUF the first tensor's data offset.
qint64 headerEnd(const QString& path, const QByteArray& bytes)
{
    if (path.endsWith(QLatin1String(".safetensors")) && bytes.size() >= 8) {
        quint64 n = 0;
        std::memcpy(&n, bytes.constData(), 8);
        return qint64(std::min<quint64>(n + 8, quint64(bytes.size())));
    }
    const auto ckpt = qs::openCheckpoint(path.toStdString());
    uint64_t first = uint64_t(bytes.size());
    for (const auto& t : ckpt->tensors)
        first = std::min(first, t.offset);
    return qint64(first);
}

// Under ASan every case costs several times more: the sweep keeps the same regions (the first
// bytes, the header body, both sides of the header's end, the data, the last byte) with fewer
// points in each, and fewer flips. The normal build runs the full sweep.
constexpr bool kLean = qstest::kAsan;

std::vector<qint64> truncationPoints(qint64 header, qint64 size)
{
    std::set<qint64> at;
    // Magic, version and counts (GGUF), the length and the opening brace (safetensors).
    for (qint64 i = 0; i < std::min<qint64>(header, 16); i += kLean ? 3 : 1)
        at.insert(i);
    const qint64 step = std::max<qint64>(1, header / (kLean ? 8 : 32));
    for (qint64 i = 0; i < header; i += step)
        at.insert(i);
    for (qint64 d : {-2, -1, 1})
        if (header + d >= 0 && header + d < size)
            at.insert(header + d);
    const int dataCuts = kLean ? 2 : 8;
    for (int k = 0; k < dataCuts; ++k)
        at.insert(header + (size - header) * k / dataCuts);
    at.insert(size - 1);
    return {at.begin(), at.end()};
}

// The fixtures as (what to open, which file to mutate, the name its errors must contain).
struct Target {
    QString open;
    QString mutate;
    QString name;
};

class TestHostileSweep : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::vector<Target> m_targets;

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const QString root = qstest::fixture(QString());
        const QString gguf = m_tmp.path() + QStringLiteral("/ggml-types.gguf");
        QVERIFY(QFile::copy(root + QStringLiteral("gguf/ggml-types.gguf"), gguf));
        m_targets.push_back({gguf, gguf, QStringLiteral("ggml-types.gguf")});
        const QString sources = m_tmp.path() + QStringLiteral("/sources.safetensors");
        QVERIFY(QFile::copy(root + QStringLiteral("safetensors/sources.safetensors"), sources));
        m_targets.push_back({sources, sources, QStringLiteral("sources.safetensors")});
        QDir st(root + QStringLiteral("safetensors"));
        for (const QString& dir : st.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QString to = m_tmp.path() + QLatin1Char('/') + dir;
            QVERIFY(QDir().mkpath(to));
            for (const QString& f : QDir(st.filePath(dir)).entryList(QDir::Files)) {
                if (f != QLatin1String("ref.safetensors")) // the kernels' expected output, not an input
                    QVERIFY(QFile::copy(st.filePath(dir) + QLatin1Char('/') + f, to + QLatin1Char('/') + f));
            }
            m_targets.push_back({to, to + QStringLiteral("/model.safetensors"), dir});
            for (const char* cfg : {"config.json", "quant_config.json", "quantize_config.json"})
                if (QFileInfo::exists(to + QLatin1Char('/') + QLatin1String(cfg)))
                    m_targets.push_back({to, to + QLatin1Char('/') + QLatin1String(cfg), dir});
        }
        QVERIFY(m_targets.size() >= 38); // 2 files, 18 folders and their configs
    }

    void sweep_data()
    {
        QTest::addColumn<int>("target");
        for (size_t i = 0; i < m_targets.size(); ++i)
            QTest::addRow(
                "%s",
                qPrintable(QFileInfo(m_targets[i].mutate).fileName() == QLatin1String("model.safetensors")
                               ? m_targets[i].name
                               : m_targets[i].name + QLatin1Char('/') + QFileInfo(m_targets[i].mutate).fileName()))
                << int(i);
    }

    void sweep()
    {
        QFETCH(int, target);
        const Target& t = m_targets[size_t(target)];
        const QByteArray original = readAll(t.mutate);
        QVERIFY(!original.isEmpty());
        const bool json = t.mutate.endsWith(QLatin1String(".json"));
        const qint64 header = json ? original.size() : headerEnd(t.mutate, original);
        QVERIFY(header > 0 && header <= original.size());

        std::vector<std::pair<QString, QByteArray>> cases;
        const std::vector<qint64> cuts = truncationPoints(header, original.size());
        for (size_t k = 0; k < cuts.size(); ++k)
            if (!json || (kLean ? k % 2 : cuts[k] % 5) == 0) // configs: a side file, a lighter sample
                cases.emplace_back(QStringLiteral("truncated at %1").arg(cuts[k]), original.left(cuts[k]));
        QRandomGenerator rng(0x5eed0000u + quint32(target));
        const int flips = json ? (kLean ? 4 : 8) : (kLean ? 8 : 24);
        for (int k = 0; k < flips; ++k) {
            QByteArray b = original;
            const int n = 1 + int(rng.bounded(4));
            QStringList where;
            for (int j = 0; j < n; ++j) {
                // Three flips in four land in the header, where the structure is.
                const qint64 span = rng.bounded(4) != 0 ? header : b.size();
                const qint64 pos = qint64(rng.bounded(quint64(span)));
                const char value = rng.bounded(2) ? char(rng.bounded(256)) : char(b[pos] ^ char(1 << rng.bounded(8)));
                b[pos] = value;
                where << QString::number(pos);
            }
            cases.emplace_back(QStringLiteral("bytes changed at %1").arg(where.join(QLatin1Char(','))), b);
        }

        // Every slot works on its own copy of the target (same names, so messages still name it).
        const QString top = QFileInfo(t.open).fileName();
        const QString inside = t.mutate.mid(t.open.size());
        std::vector<std::pair<std::string, QString>> copies; // what to open, what to mutate
        for (int k = 0; k < sweepSlots(); ++k) {
            const QString dir = m_tmp.path() + QStringLiteral("/slot%1").arg(k);
            QVERIFY(QDir().mkpath(dir));
            std::filesystem::copy(t.open.toStdString(), (dir + QLatin1Char('/') + top).toStdString(),
                                  std::filesystem::copy_options::recursive
                                      | std::filesystem::copy_options::overwrite_existing);
            copies.emplace_back((dir + QLatin1Char('/') + top).toStdString(), dir + QLatin1Char('/') + top + inside);
        }
        const std::string name = t.name.toStdString();
        int accepted = 0, refused = 0;
        QStringList failures;
        for (size_t first = 0; first < cases.size(); first += copies.size()) {
            const size_t last = std::min(cases.size(), first + copies.size());
            std::vector<pid_t> running;
            for (size_t c = first; c < last; ++c) {
                QVERIFY(writeAll(copies[c - first].second, cases[c].second));
                running.push_back(startIsolated(copies[c - first].first, name, c % 2 == 1));
            }
            for (size_t c = first; c < last; ++c) {
                const Outcome o = finishIsolated(running[c - first]);
                if (!o.ok) {
                    failures << cases[c].first + QStringLiteral(": ") + o.what;
                    QDir().mkpath(m_tmp.path() + QStringLiteral("/failed"));
                    writeAll(m_tmp.path() + QStringLiteral("/failed/%1-%2").arg(t.name).arg(c), cases[c].second);
                }
                (o.code == Accepted ? accepted : refused)++;
            }
        }
        qInfo("%s: %zu cases (%zu truncations), %d accepted, %d refused", qPrintable(t.name), cases.size(), cuts.size(),
              accepted, refused);
        if (!failures.isEmpty())
            m_tmp.setAutoRemove(false);
        QVERIFY2(failures.isEmpty(),
                 qPrintable(QStringLiteral("%1 of %2 cases failed (inputs kept in %3/failed):\n")
                                .arg(failures.size())
                                .arg(cases.size())
                                .arg(m_tmp.path())
                            + failures.mid(0, 20).join(QLatin1Char('\n'))));
    }

    void sweepMemory()
    {
        const long peak = qstest::childrenPeakRssKiB();
        QVERIFY(peak > 0);
        qInfo("peak RSS of any sweep child: %ld KiB", peak);
        if (!qstest::kAsan)
            QVERIFY2(peak < 256 * 1024, qPrintable(QStringLiteral("%1 KiB").arg(peak)));
    }

    // The same kind of input through quantscope-cli, for every fixture (files and folders):
    // inspect, verify --json and dequant of the first weight end with exit 0, 1 or 2 (with a
    // message when not 0), never a signal, within 30 s, under the same address-space limit.
    void cliSample_data()
    {
        QTest::addColumn<QString>("fixture"); // relative to the fixtures folder
        QTest::addColumn<QString>("mutate"); // the file inside a folder fixture
        QTest::addColumn<int>("row");
        QTest::addRow("ggml-types.gguf") << QStringLiteral("gguf/ggml-types.gguf") << QString() << 0;
        QTest::addRow("sources.safetensors") << QStringLiteral("safetensors/sources.safetensors") << QString() << 1;
        const QDir st(qstest::fixture(QStringLiteral("safetensors")));
        int row = 2;
        for (const QString& dir : st.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            QTest::addRow("%s", qPrintable(dir))
                << QStringLiteral("safetensors/") + dir << QStringLiteral("model.safetensors") << row++;
    }

    void cliSample()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, mutate);
        QFETCH(int, row);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString from = qstest::fixture(fixture);
        const QString open = dir.filePath(QFileInfo(from).fileName());
        std::filesystem::copy(from.toStdString(), open.toStdString(), std::filesystem::copy_options::recursive);
        QFile::remove(open + QStringLiteral("/ref.safetensors")); // expected output, not part of the checkpoint
        const QString file = mutate.isEmpty() ? open : open + QLatin1Char('/') + mutate;
        const QByteArray original = readAll(file);
        const auto intact = qs::openCheckpoint(open.toStdString());
        QVERIFY(!intact->weights.empty());
        const QString weight = QString::fromStdString(intact->weights.front().name);
        const qint64 header = headerEnd(file, original);

        // Cut in the header, just before its end and in the data; bytes changed in the header.
        std::vector<QByteArray> cases{original.left(header / 2), original.left(header - 1),
                                      original.left(header + (original.size() - header) / 2)};
        QRandomGenerator rng(0xc11u + quint32(fixture.size()));
        QByteArray b = original;
        for (int j = 0; j < 3; ++j)
            b[qsizetype(rng.bounded(quint64(header)))] = char(rng.bounded(256));
        cases.push_back(b);
        // Under ASan (each CLI run costs a second or more) every fixture runs two of the four
        // cases, in turn, so that the fixtures together still run every kind.
        if (kLean)
            for (size_t c = cases.size(); c-- > 0;)
                if ((c + size_t(row)) % 2)
                    cases.erase(cases.begin() + std::ptrdiff_t(c));
        const QString npy = dir.filePath(QStringLiteral("out.npy"));
        const QList<QStringList> commands{{QStringLiteral("inspect"), open},
                                          {QStringLiteral("verify"), open, QStringLiteral("--json")},
                                          {QStringLiteral("dequant"), open, weight, QStringLiteral("-o"), npy}};
        QStringList failures;
        for (size_t c = 0; c < cases.size(); ++c) {
            QVERIFY(writeAll(file, cases[c]));
            // The three commands only read the file: they run side by side.
            std::vector<std::unique_ptr<qstest::Process>> procs;
            for (const QStringList& args : commands)
                QVERIFY(qstest::startCli(*procs.emplace_back(std::make_unique<qstest::Process>()), args,
                                         qstest::canLimitAddressSpace() ? kAddressSpace : 0));
            for (size_t k = 0; k < procs.size(); ++k) {
                qstest::Process& p = *procs[k];
                const QStringList& args = commands[qsizetype(k)];
                const bool finished = p.wait(30000);
                const QByteArray& err = p.err;
                const QByteArray& out = p.out;
                const QString what = QStringLiteral("case %1, %2").arg(c).arg(args.first());
                if (!finished)
                    failures << what + QStringLiteral(": timeout");
                else if (p.crashed)
                    failures << what + QStringLiteral(": crashed");
                else if (p.exitCode < 0 || p.exitCode > 2)
                    failures << what + QStringLiteral(": exit %1").arg(p.exitCode);
                else if (p.exitCode == 2 && err.trimmed().isEmpty())
                    failures << what + QStringLiteral(": exit 2 without a message");
                else if (p.exitCode == 1 && (err + out).trimmed().isEmpty()) // verify reports on stdout
                    failures << what + QStringLiteral(": exit 1 without a message");
                else if (err.contains("internal error") || err.contains("out of memory"))
                    failures << what + QStringLiteral(": ") + QString::fromUtf8(err.trimmed());
            }
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
    }

    // tests/corpus/<case>/: the inputs that once crashed, hung or allocated without bound.
    // Each is a file or a folder; it must now be refused or accepted cleanly.
    void corpus_data()
    {
        QTest::addColumn<QString>("path");
        // QtTest's absolute source folder: __FILE__ is relative to the build folder under Ninja.
        const QDir dir(QStringLiteral(QT_TESTCASE_SOURCEDIR "/corpus"));
        QStringList entries = dir.entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        entries.removeAll(QStringLiteral("README.md"));
        QVERIFY2(!entries.isEmpty(), qPrintable(dir.path() + QStringLiteral(": no regression corpus")));
        for (const QString& e : entries)
            QTest::addRow("%s", qPrintable(e)) << dir.filePath(e);
    }

    void corpus()
    {
        QFETCH(QString, path);
        // Copied first: the reader must never depend on the file's name or location.
        const QString to = m_tmp.path() + QStringLiteral("/corpus-") + QFileInfo(path).fileName();
        std::filesystem::copy(path.toStdString(), to.toStdString(),
                              std::filesystem::copy_options::recursive
                                  | std::filesystem::copy_options::overwrite_existing);
        // Stats' analyses too: the histograms and the requantized error with default activations.
        const Outcome o = runIsolated(to.toStdString(), QFileInfo(path).fileName().toStdString(), false, true);
        QVERIFY2(o.ok, qPrintable(o.what));
        const Outcome s = runIsolated(to.toStdString(), QFileInfo(path).fileName().toStdString(), true, true);
        QVERIFY2(s.ok, qPrintable(s.what));
    }
};

} // namespace

QTEST_GUILESS_MAIN(TestHostileSweep)
#include "tst_hostile_sweep.moc"
