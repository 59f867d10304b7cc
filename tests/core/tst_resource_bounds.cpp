// Resource bounds (issue 7): headers that claim absurd sizes are refused up front, before any
// allocation of that size. Each case runs in a forked child that resets its peak RSS
// (/proc/self/clear_refs), opens the file and reports the growth of VmHWM over its baseline;
// the bound is 64 MiB. (tst_gguf and tst_safetensors check the messages of many more
// malformed headers; this suite measures the memory of the absurd-size ones.)
#include "container/checkpoint.h"
#include "error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {

struct Bytes {
    QByteArray b;
    template <typename T>
    Bytes& put(T v)
    {
        b.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    Bytes& str(const QByteArray& s)
    {
        put<uint64_t>(uint64_t(s.size()));
        b.append(s);
        return *this;
    }
    Bytes& raw(const QByteArray& s)
    {
        b.append(s);
        return *this;
    }
    Bytes& gguf(uint64_t tensors, uint64_t kvs)
    {
        b.append("GGUF", 4);
        return put<uint32_t>(3).put<uint64_t>(tensors).put<uint64_t>(kvs);
    }
};

long statusKiB(const char* field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const size_t n = std::strlen(field);
    while (std::getline(in, line))
        if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
            return std::stol(line.substr(n + 1));
    return -1;
}

struct Result {
    bool refused = false;
    long growthKiB = -1;
    std::string message;
};

Result openInChild(const std::string& path)
{
    int fds[2];
    if (pipe(fds) != 0)
        return {};
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        { std::ofstream("/proc/self/clear_refs") << "5"; } // VmHWM := VmRSS
        const long base = statusKiB("VmHWM");
        std::string message;
        bool refused = false;
        try {
            qs::Checkpoint::open(path);
        } catch (const qs::Error& e) {
            refused = true;
            message = e.what();
        } catch (const std::exception& e) {
            message = std::string("other exception: ") + e.what();
        }
        const std::string out = std::to_string(refused) + " " + std::to_string(statusKiB("VmHWM") - base) + " " + message;
        [[maybe_unused]] const ssize_t w = write(fds[1], out.data(), out.size());
        _exit(0);
    }
    close(fds[1]);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        got.append(buf, size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    Result r;
    if (!WIFEXITED(status) || got.empty())
        return r;
    const size_t a = got.find(' '), b = got.find(' ', a + 1);
    r.refused = got[0] == '1';
    r.growthKiB = std::stol(got.substr(a + 1, b - a - 1));
    r.message = got.substr(b + 1);
    return r;
}

class TestResourceBounds : public QObject {
    Q_OBJECT

private slots:
    void refusedUpFront_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray pad(256, '\0');
        QTest::addRow("GGUF 2^40 tensors") << "t.gguf" << Bytes{}.gguf(uint64_t(1) << 40, 0).raw(pad).b
                                           << "tensor_count 1099511627776 is impossible";
        QTest::addRow("GGUF 2^40 metadata records") << "k.gguf" << Bytes{}.gguf(0, uint64_t(1) << 40).raw(pad).b
                                                    << "kv_count 1099511627776 is impossible";
        QTest::addRow("GGUF array of 2^60 strings")
            << "a.gguf"
            << Bytes{}.gguf(0, 1).str("tokenizer.ggml.tokens").put<uint32_t>(9).put<uint32_t>(8).put<uint64_t>(uint64_t(1) << 60).raw(pad).b
            << "array of 1152921504606846976 string elements cannot fit";
        QTest::addRow("GGUF shape product overflows")
            << "s.gguf"
            << Bytes{}.gguf(1, 0).str("t").put<uint32_t>(2).put<uint64_t>(uint64_t(1) << 32).put<uint64_t>(uint64_t(1) << 32)
                   .put<uint32_t>(0).put<uint64_t>(0).raw(pad).b
            << "overflow a 64-bit element count";
        QTest::addRow("safetensors 10 GB header length")
            << "h.safetensors" << Bytes{}.put<uint64_t>(10000000000ull).raw("{}").raw(pad).b << "header too large";
        const QByteArray overflow = R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})";
        QTest::addRow("safetensors shape product overflows")
            << "o.safetensors" << Bytes{}.put<uint64_t>(uint64_t(overflow.size())).raw(overflow).b
            << "element count overflows 64 bits";
        // Many tiny records: each costs the parser far more than its bytes; still bounded.
        QByteArray many = "{";
        for (int i = 0; i < 100000; ++i)
            many += "\"" + QByteArray::number(i) + "\":[],";
        many += "\"x\":1}";
        QTest::addRow("safetensors 100000 empty arrays")
            << "m.safetensors" << Bytes{}.put<uint64_t>(uint64_t(many.size())).raw(many).b << "m.safetensors";
    }

    void refusedUpFront()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(file);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(bytes), bytes.size());
        f.close();
        const Result r = openInChild(path.toStdString());
        QVERIFY2(r.growthKiB >= 0, "the child did not report");
        qInfo("%s: peak RSS grew by %ld KiB; %s", QTest::currentDataTag(), r.growthKiB, r.message.c_str());
        QVERIFY2(r.refused, r.message.c_str());
        QVERIFY2(r.message.find(file.toStdString()) != std::string::npos, r.message.c_str());
        QVERIFY2(r.message.find(expected.toStdString()) != std::string::npos, r.message.c_str());
        QCOMPARE_LT(r.growthKiB, 64 * 1024L);
    }
};

} // namespace

QTEST_GUILESS_MAIN(TestResourceBounds)
#include "tst_resource_bounds.moc"
