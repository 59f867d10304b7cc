// quantscope-cli on shapes from JSON and side tensors that are absurd or disagree with the
// stored data (issue 29; tests/corpus/, written by tests/support/make_shape_corpus.py):
// - dequant refuses the weight with exit 2 and a message naming it and the shape, and writes
//   nothing (it wrote (2, 3), (128,) and (0, 64) arrays, or spun through 2^28 empty chunks);
// - stats names the weight and what is wrong instead of "out of memory" or "internal error:
//   vector::_M_default_append", and stats --requantize ends cleanly (it wrote past its default
//   activations: SIGSEGV);
// - inspect lists the weight with the reason, verify reports it (exit 1);
// - a GPTQ weight with a 1-D qzeros opens (detection read past the shape: ASan), and a float
//   weight holding NaN and Inf requantizes (NaN converted to unsigned char: UBSan).
// Each run is bounded in time and, where the build allows, in address space.
#include "testsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

namespace {

constexpr int kTimeoutMs = 30000;
constexpr unsigned long long kAddressSpace = 4ull << 30;

QString corpus(const QString& entry)
{
    return QStringLiteral(QT_TESTCASE_SOURCEDIR "/corpus/") + entry;
}

qstest::CliResult run(const QStringList& args)
{
    qstest::Process p;
    qstest::CliResult r;
    if (!qstest::startCli(p, args, qstest::canLimitAddressSpace() ? kAddressSpace : 0))
        return r;
    r.crashed = !p.wait(kTimeoutMs) || p.crashed;
    r.exitCode = p.exitCode;
    r.out = p.out;
    r.err = p.err;
    return r;
}

// What no message about a size from a file may say: these mean it was not checked first.
bool unchecked(const QByteArray& err)
{
    return err.contains("internal error") || err.contains("out of memory") || err.contains("max_size")
        || err.contains("bad_alloc");
}

QString describe(const qstest::CliResult& r)
{
    return QStringLiteral("exit %1%2\nstdout: %3\nstderr: %4")
        .arg(r.exitCode)
        .arg(r.crashed ? QStringLiteral(" (crashed or timed out)") : QString())
        .arg(QString::fromUtf8(r.out.left(2000)), QString::fromUtf8(r.err.left(2000)));
}

} // namespace

class TestCliHostileShapes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // Under ASan no address-space limit can be set: an allocation past 4 GiB fails instead
        // (and is reported as out of memory) rather than taking the machine's memory.
        if (qstest::kAsan) {
            QByteArray asan = qgetenv("ASAN_OPTIONS");
            asan += QByteArray(asan.isEmpty() ? "" : ":") + "allocator_may_return_null=1:max_allocation_size_mb=4096";
            qputenv("ASAN_OPTIONS", asan);
        }
    }

    void refusedWeights_data()
    {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("claimed"); // the shape the file claims, named by the messages
        QTest::addRow("ct [128, 2^62+256]") << "ct-weight-shape-2p62"
                                            << "[128, 4611686018427388160]";
        QTest::addRow("bnb [128, 2^62]") << "bnb-shape-2p62"
                                         << "[128, 4611686018427387904]";
        QTest::addRow("ct [2^32, 2^32]") << "ct-weight-shape-2p32-squared"
                                         << "[4294967296, 4294967296]";
        QTest::addRow("bnb [2^32, 2^32]") << "bnb-shape-2p32-squared"
                                          << "[4294967296, 4294967296]";
        QTest::addRow("bnb [2^20, 2^20]") << "bnb-shape-beyond-bytes"
                                          << "[1048576, 1048576]";
        QTest::addRow("bnb [2, 3] over 64 codes") << "bnb-shape-disagrees"
                                                  << "[2, 3]";
        QTest::addRow("bnb [128] over 8192 codes") << "bnb-shape-1d-disagrees"
                                                   << "[128]";
        QTest::addRow("ct [0, 64] over [4, 8] words") << "ct-weight-shape-no-rows"
                                                      << "[0, 64]";
    }
    void refusedWeights()
    {
        QFETCH(QString, entry);
        QFETCH(QString, claimed);
        const QString path = corpus(entry);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString npy = tmp.filePath(QStringLiteral("m.npy"));

        const qstest::CliResult dq =
            run({QStringLiteral("dequant"), path, QStringLiteral("m"), QStringLiteral("-o"), npy});
        QVERIFY2(!dq.crashed && dq.exitCode == 2, qPrintable(describe(dq)));
        QVERIFY2(dq.err.contains("'m'") && dq.err.contains(claimed.toUtf8()) && !unchecked(dq.err),
                 qPrintable(describe(dq)));
        QVERIFY2(!QFileInfo::exists(npy), "dequant wrote an array for a refused weight");
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());

        const qstest::CliResult st = run({QStringLiteral("stats"), path, QStringLiteral("m")});
        QVERIFY2(!st.crashed && st.exitCode == 2, qPrintable(describe(st)));
        QVERIFY2(st.err.contains("m") && st.err.contains(claimed.toUtf8()) && !unchecked(st.err),
                 qPrintable(describe(st)));

        for (const QStringList& args :
             {QStringList{QStringLiteral("stats"), path},
              QStringList{QStringLiteral("stats"), path, QStringLiteral("--requantize"), QStringLiteral("gptq")},
              QStringList{QStringLiteral("stats"), path, QStringLiteral("--approximate")}}) {
            const qstest::CliResult r = run(args);
            QVERIFY2(!r.crashed && r.exitCode >= 0 && r.exitCode <= 2 && !unchecked(r.err),
                     qPrintable(args.join(QLatin1Char(' ')) + QLatin1Char('\n') + describe(r)));
        }

        const qstest::CliResult in = run({QStringLiteral("inspect"), path});
        QVERIFY2(!in.crashed && in.exitCode == 0, qPrintable(describe(in)));
        QVERIFY2(in.out.contains("shape refused") && in.out.contains(claimed.toUtf8()), qPrintable(describe(in)));

        const qstest::CliResult ve = run({QStringLiteral("verify"), path});
        QVERIFY2(!ve.crashed && ve.exitCode == 1, qPrintable(describe(ve)));
        QVERIFY2(ve.out.contains("m:") && ve.out.contains(claimed.toUtf8()), qPrintable(describe(ve)));
    }

    // Detection read the second dimension of a 1-D qzeros (heap-buffer-overflow under ASan, on
    // every command). The weight opens, dequantizes and verifies; a note names the odd qzeros.
    void gptqOneDimensionalQzeros()
    {
        const QString path = corpus(QStringLiteral("gptq-qzeros-1d"));
        const qstest::CliResult in = run({QStringLiteral("inspect"), path});
        QVERIFY2(!in.crashed && in.exitCode == 0 && in.out.contains("qzeros [8]"), qPrintable(describe(in)));
        QTemporaryDir tmp;
        const qstest::CliResult dq = run({QStringLiteral("dequant"), path, QStringLiteral("m"), QStringLiteral("-o"),
                                          tmp.filePath(QStringLiteral("m.npy"))});
        QVERIFY2(!dq.crashed && (dq.exitCode == 0 || dq.exitCode == 2) && !unchecked(dq.err), qPrintable(describe(dq)));
        const qstest::CliResult ve = run({QStringLiteral("verify"), path});
        QVERIFY2(!ve.crashed && (ve.exitCode == 0 || ve.exitCode == 1), qPrintable(describe(ve)));
    }

    // NaN and Inf in a float weight through --requantize gptq and awq (UBSan: NaN to unsigned char).
    void nonFiniteWeightRequantizes()
    {
        const QString path = corpus(QStringLiteral("f16-nan-inf.safetensors"));
        for (const char* target : {"gptq", "awq"}) {
            const qstest::CliResult r =
                run({QStringLiteral("stats"), path, QStringLiteral("--requantize"), QLatin1String(target),
                     QStringLiteral("--group-size"), QStringLiteral("32")});
            QVERIFY2(!r.crashed && r.exitCode == 0 && !unchecked(r.err), qPrintable(describe(r)));
            QVERIFY2(r.out.contains("up_proj"), qPrintable(describe(r)));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliHostileShapes)
#include "tst_cli_hostile_shapes.moc"
