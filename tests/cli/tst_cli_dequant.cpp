// quantscope-cli dequant and codes on the fixtures: .npy header and values against the
// upstream references; usage and input errors exit 2 with a one-line message.
#include "container/checkpoint.h"
#include "container/npy.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "base/half.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>

using namespace qs;

namespace {

std::vector<float> floatsOf(const npy::Array& a)
{
    std::vector<float> v(a.data.size() / 4);
    std::memcpy(v.data(), a.data.data(), v.size() * 4);
    return v;
}

} // namespace

class TestCliDequant : public QObject {
    Q_OBJECT
private slots:
    void safetensorsFixtures_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("weight");
        QTest::addColumn<QString>("member");
        const QDir root(qstest::fixture(QStringLiteral("safetensors")));
        for (const QString& d :
             root.entryList({QStringLiteral("gptq-*"), QStringLiteral("awq-*")}, QDir::Dirs, QDir::Name)) {
            const auto ckpt = openCheckpoint(root.filePath(d).toStdString());
            for (const LogicalWeight& w : ckpt->weights)
                if (w.member("scales") >= 0) // the folder's ref.safetensors is listed too
                    QTest::addRow("%s/%s", qPrintable(d), w.name.c_str())
                        << d << QString::fromStdString(w.name)
                        << QString::fromStdString(std::string(ckpt->tensors.at(size_t(w.member("scales"))).name));
        }
    }
    void safetensorsFixtures()
    {
        QFETCH(QString, dir);
        QFETCH(QString, weight);
        QFETCH(QString, member);
        QTemporaryDir tmp;
        const QString path = qstest::fixture(QStringLiteral("safetensors/") + dir);
        const QString out32 = tmp.filePath(QStringLiteral("w.npy")), out16 = tmp.filePath(QStringLiteral("h.npy"));
        // The logical name for f32, a member tensor name for f16.
        auto r = qstest::runCli({QStringLiteral("dequant"), path, weight, QStringLiteral("-o"), out32});
        QCOMPARE(r.exitCode, 0);
        r = qstest::runCli({QStringLiteral("dequant"), path, member, QStringLiteral("-o"), out16,
                            QStringLiteral("--dtype"), QStringLiteral("f16"), QStringLiteral("--threads"),
                            QStringLiteral("1")});
        QCOMPARE(r.exitCode, 0);
        const auto ref = openCheckpoint((path + QStringLiteral("/ref.safetensors")).toStdString());
        // ref.safetensors names the module's "<prefix>.weight".
        const std::string prefix = member.chopped(7).toStdString(); // minus ".scales"
        const TensorEntry* want = ref->find(prefix + ".weight");
        QVERIFY(want);
        std::vector<float> refValues(want->elementCount());
        std::memcpy(refValues.data(), ref->bytes(*want).data(), refValues.size() * 4);

        const npy::Array a = npy::read(out32.toStdString());
        QCOMPARE(a.descr, std::string("<f4"));
        QCOMPARE(a.shape, want->shape);
        const std::vector<float> got = floatsOf(a);
        const npy::Array h = npy::read(out16.toStdString());
        QCOMPARE(h.descr, std::string("<f2"));
        QCOMPARE(h.shape, want->shape);
        for (size_t i = 0; i < got.size(); ++i) {
            uint16_t half;
            std::memcpy(&half, h.data.data() + 2 * i, 2);
            QCOMPARE(floatToHalf(got[i]), floatToHalf(refValues[i]));
            QCOMPARE(half, floatToHalf(refValues[i]));
        }
    }

    void ggufFixture()
    {
        const QString path = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
        const auto ckpt = openCheckpoint(path.toStdString());
        const auto ref = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.ref.gguf")).toStdString());
        int checked = 0;
        for (const LogicalWeight& w : ckpt->weights) {
            if (w.format != "gguf-q4_k" && w.format != "gguf-q8_0")
                continue;
            const TensorEntry* want = ref->find(w.name);
            if (!want)
                continue;
            QTemporaryDir tmp;
            const QString out = tmp.filePath(QStringLiteral("g.npy"));
            const auto r = qstest::runCli(
                {QStringLiteral("dequant"), path, QString::fromStdString(w.name), QStringLiteral("-o"), out});
            QCOMPARE(r.exitCode, 0);
            const npy::Array a = npy::read(out.toStdString());
            // GGUF dims reversed: [ne1, ne0], ne0 last, as the reader's TensorEntry::shape.
            QCOMPARE(a.shape, want->shape);
            QVERIFY(a.data.size() == want->nbytes
                    && std::memcmp(a.data.data(), ref->bytes(*want).data(), a.data.size()) == 0);
            ++checked;
        }
        QVERIFY(checked >= 2);
    }

    // A vector is written with the shape inspect shows ([N]), not as a [1, N] matrix.
    void vectorKeepsItsShape()
    {
        QTemporaryDir tmp;
        const std::vector<uint8_t> bytes(6 * 4, 0);
        const QString dir = tmp.filePath(QStringLiteral("m"));
        QDir().mkpath(dir);
        writeSafetensors((dir + QStringLiteral("/model.safetensors")).toStdString(),
                         {{"model.norm.weight", DType::F32, {6}, bytes}});
        const QString out = tmp.filePath(QStringLiteral("v.npy"));
        const auto r = qstest::runCli(
            {QStringLiteral("dequant"), dir, QStringLiteral("model.norm.weight"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(npy::read(out.toStdString()).shape, std::vector<uint64_t>{6});
    }

    void codes()
    {
        QTemporaryDir tmp;
        const QString path = qstest::fixture(QStringLiteral("safetensors/gptq-w3-g32-asym"));
        const QString dir = tmp.filePath(QStringLiteral("codes"));
        const QString weight = QStringLiteral("model.layers.0.mlp.down_proj.qweight"); // a member name
        auto r = qstest::runCli({QStringLiteral("codes"), path, weight, QStringLiteral("-o"), dir});
        QCOMPARE(r.exitCode, 0);
        r = qstest::runCli(
            {QStringLiteral("dequant"), path, weight, QStringLiteral("-o"), tmp.filePath(QStringLiteral("w.npy"))});
        QCOMPARE(r.exitCode, 0);
        const npy::Array codes = npy::read((dir + QStringLiteral("/codes.npy")).toStdString());
        const npy::Array scales = npy::read((dir + QStringLiteral("/scales.npy")).toStdString());
        const npy::Array zeros = npy::read((dir + QStringLiteral("/zeros.npy")).toStdString());
        const npy::Array gidx = npy::read((dir + QStringLiteral("/g_idx.npy")).toStdString());
        const npy::Array w = npy::read(tmp.filePath(QStringLiteral("w.npy")).toStdString());
        QCOMPARE(codes.descr, std::string("|u1"));
        QCOMPARE(codes.shape, (std::vector<uint64_t>{128, 256}));
        QCOMPARE(scales.shape, (std::vector<uint64_t>{8, 128}));
        QCOMPARE(zeros.descr, std::string("<i4"));
        QCOMPARE(gidx.shape, (std::vector<uint64_t>{256}));
        const std::vector<float> values = floatsOf(w), s = floatsOf(scales);
        int zeroEight = 0;
        for (uint64_t n = 0; n < 128; ++n)
            for (uint64_t k = 0; k < 256; ++k) {
                int32_t g, z;
                std::memcpy(&g, gidx.data.data() + 4 * k, 4);
                std::memcpy(&z, zeros.data.data() + 4 * (uint64_t(g) * 128 + n), 4);
                zeroEight += z == 8;
                QVERIFY(codes.data[n * 256 + k] < 8);
                QCOMPARE(values[n * 256 + k], s[uint64_t(g) * 128 + n] * float(int32_t(codes.data[n * 256 + k]) - z));
            }
        QVERIFY(zeroEight > 0); // the 3-bit spill quirk: field 7 + 1 unmasked
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        const QString gptq = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym"));
        const QString w = QStringLiteral("model.layers.0.mlp.down_proj");
        QTest::addRow("no-args") << QStringList{QStringLiteral("dequant")};
        QTest::addRow("no-output") << QStringList{QStringLiteral("dequant"), gptq, w};
        QTest::addRow("bad-dtype") << QStringList{QStringLiteral("dequant"),
                                                  gptq,
                                                  w,
                                                  QStringLiteral("-o"),
                                                  QStringLiteral("x.npy"),
                                                  QStringLiteral("--dtype"),
                                                  QStringLiteral("f64")};
        QTest::addRow("bad-threads") << QStringList{QStringLiteral("dequant"),
                                                    gptq,
                                                    w,
                                                    QStringLiteral("-o"),
                                                    QStringLiteral("x.npy"),
                                                    QStringLiteral("--threads"),
                                                    QStringLiteral("-3")};
        QTest::addRow("unknown-weight") << QStringList{QStringLiteral("dequant"), gptq, QStringLiteral("nope"),
                                                       QStringLiteral("-o"), QStringLiteral("x.npy")};
        QTest::addRow("missing-path") << QStringList{QStringLiteral("dequant"), gptq + QStringLiteral("-missing"), w,
                                                     QStringLiteral("-o"), QStringLiteral("x.npy")};
        QTest::addRow("codes-no-output") << QStringList{QStringLiteral("codes"), gptq, w};
        QTest::addRow("codes-unknown-option")
            << QStringList{QStringLiteral("codes"), gptq, w, QStringLiteral("--bogus")};
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QTemporaryDir tmp;
        QDir::setCurrent(tmp.path());
        const auto r = qstest::runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!r.crashed);
        const QByteArray err = r.err.trimmed();
        QVERIFY(!err.isEmpty());
        QVERIFY2(!err.contains('\n'), err.constData());
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("x.npy"))));
    }

    void npyRoundTripAndRejects()
    {
        QTemporaryDir tmp;
        const std::string p = tmp.filePath(QStringLiteral("a.npy")).toStdString();
        const std::vector<int32_t> v{1, -2, 3, 4, 5, 6};
        npy::write(p, "<i4", {2, 3}, v);
        const npy::Array a = npy::read(p);
        QCOMPARE(a.descr, std::string("<i4"));
        QCOMPARE(a.shape, (std::vector<uint64_t>{2, 3}));
        QCOMPARE(std::memcmp(a.data.data(), v.data(), 24), 0);
        QFile f(QString::fromStdString(p));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray all = f.readAll();
        QCOMPARE((all.size() - 24) % 64, qsizetype(0)); // data starts on a 64-byte boundary
        npy::write(p, "<f4", {3}, std::vector<float>{1, 2, 3});
        QCOMPARE(npy::read(p).shape, (std::vector<uint64_t>{3}));
        // Truncated data and a bad magic are errors, not crashes.
        QFile t(QString::fromStdString(p));
        QVERIFY(t.open(QIODevice::ReadWrite));
        t.resize(t.size() - 1);
        t.close();
        QVERIFY_THROWS_EXCEPTION(Error, npy::read(p));
        QFile m(QString::fromStdString(p));
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write("NOTNPY....");
        m.close();
        QVERIFY_THROWS_EXCEPTION(Error, npy::read(p));
    }

    // OpenMP starts the team it is asked for: --threads 100000 crashed (SIGSEGV). Out of range,
    // the option is named and nothing is written.
    void threadsOutOfRange()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<float> w(256 * 256, 1.0f);
        const QString src = tmp.filePath(QStringLiteral("f.safetensors")), out = tmp.filePath(QStringLiteral("w.npy"));
        qs::writeSafetensors(
            src.toStdString(),
            {{"l.weight", qs::DType::F32, {256, 256}, {reinterpret_cast<const uint8_t*>(w.data()), w.size() * 4}}});
        for (const char* n : {"100000", "1025", "-1", "x"}) {
            const qstest::CliResult r =
                qstest::runCli({QStringLiteral("dequant"), src, QStringLiteral("l.weight"), QStringLiteral("-o"), out,
                                QStringLiteral("--threads"), QLatin1String(n)});
            QVERIFY2(!r.crashed && r.exitCode == 2 && r.err.contains("--threads " + QByteArray(n)), r.err.constData());
            QVERIFY(!QFileInfo::exists(out));
        }
        const qstest::CliResult ok =
            qstest::runCli({QStringLiteral("dequant"), src, QStringLiteral("l.weight"), QStringLiteral("-o"), out,
                            QStringLiteral("--threads"), QStringLiteral("64")});
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliDequant)
#include "tst_cli_dequant.moc"
