// quantscope-cli budget: JSON figures against hand arithmetic, a checkpoint's own bpw,
// the human table, and usage errors.
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

namespace {

QJsonObject budgetJson(const QStringList& extra)
{
    const qstest::CliResult r = qstest::runCli(QStringList{QStringLiteral("budget"), QStringLiteral("--json")} + extra);
    if (r.crashed || r.exitCode != 0) {
        qWarning("budget: exit %d: %s", r.exitCode, r.err.constData());
        return {};
    }
    return QJsonDocument::fromJson(r.out).object();
}

QJsonObject format(const QJsonObject& root, const QString& id)
{
    for (const QJsonValue f : root.value(QStringLiteral("formats")).toArray())
        if (f.toObject().value(QStringLiteral("id")).toString() == id)
            return f.toObject();
    return {};
}

} // namespace

class TestCliBudget : public QObject {
    Q_OBJECT
private slots:
    void defaultsAndMemory()
    {
        const QJsonObject root = budgetJson({QStringLiteral("--memory"), QStringLiteral("24")});
        QCOMPARE(root.value(QStringLiteral("params")).toArray().size(), 5);
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(1).toInteger(), qint64(7000000000));
        const QJsonObject q4k = format(root, QStringLiteral("gguf-q4_k"));
        QCOMPARE(q4k.value(QStringLiteral("bpw")).toDouble(), 4.5);
        const QJsonArray sizes = q4k.value(QStringLiteral("sizes")).toArray();
        QCOMPARE(sizes.size(), 5);
        // 13B at 4.5 bits: 7.3125 GB; 70B: 39.375 GB = 36.67 GiB, more than 24 GiB.
        QCOMPARE(sizes.at(2).toObject().value(QStringLiteral("gb")).toDouble(), 7.3125);
        QCOMPARE(sizes.at(2).toObject().value(QStringLiteral("fits")).toBool(), true);
        QCOMPARE(sizes.at(3).toObject().value(QStringLiteral("gib")).toDouble(), 39.375e9 / 1073741824.0);
        QCOMPARE(sizes.at(3).toObject().value(QStringLiteral("fits")).toBool(), false);
        const QJsonObject gptq = format(root, QStringLiteral("gptq-4-g128"));
        QCOMPARE(gptq.value(QStringLiteral("bpw")).toDouble(), 4.15625 + 32.0 / 4096);
        QCOMPARE(gptq.value(QStringLiteral("asymptotic_bpw")).toDouble(), 4.15625);
        QCOMPARE(format(root, QStringLiteral("bnb-nf4-nested")).value(QStringLiteral("asymptotic_bpw")).toDouble(),
                 4.0 + 0.125 + 32.0 / 16384);
    }

    void paramsAndLayer()
    {
        const QJsonObject root = budgetJson({QStringLiteral("--params"), QStringLiteral("1.5B,350M"),
                                             QStringLiteral("--layer"), QStringLiteral("64x64")});
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(0).toInteger(), qint64(1500000000));
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(1).toInteger(), qint64(350000000));
        // 64-wide rows hold no 256-weight blocks: the k-quants drop out, Q8_0 stays.
        QVERIFY(format(root, QStringLiteral("gguf-q4_k")).isEmpty());
        QCOMPARE(format(root, QStringLiteral("gguf-q8_0")).value(QStringLiteral("bpw")).toDouble(), 8.5);
        // GPTQ-4 g32 over 64 x 64: 4 + 16/32 + 4/32 + 32/64 (g_idx).
        QCOMPARE(format(root, QStringLiteral("gptq-4-g32")).value(QStringLiteral("bpw")).toDouble(), 5.125);
    }

    void checkpointCounts()
    {
        const QString path = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/model.safetensors"));
        const QJsonObject root = budgetJson({path});
        const QJsonObject c = root.value(QStringLiteral("checkpoint")).toObject();
        // down_proj [128, 256]: 16384 + 128 + 512 + 1024 stored bytes.
        QCOMPARE(c.value(QStringLiteral("elements")).toInteger(), qint64(128 * 256));
        QCOMPARE(c.value(QStringLiteral("stored_bytes")).toInteger(), qint64(18048));
        QCOMPARE(root.value(QStringLiteral("params")).toArray().at(0).toInteger(), qint64(128 * 256));
    }

    void humanTable()
    {
        const qstest::CliResult r = qstest::runCli({QStringLiteral("budget"), QStringLiteral("--params"), QStringLiteral("7B"),
                                                    QStringLiteral("--memory"), QStringLiteral("8")});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.contains(QStringLiteral("7B")));
        QVERIFY(out.contains(QRegularExpression(QStringLiteral("gguf-q4_k\\s+4\\.5000\\s+3\\.94 / 3\\.67 \\*"))));
        QVERIFY(out.contains(QRegularExpression(QStringLiteral("f16\\s+16\\.0000\\s+14\\.00 / 13\\.04  "))));
    }

    void badUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("bad params") << QStringList{QStringLiteral("--params"), QStringLiteral("seven")};
        QTest::addRow("zero params") << QStringList{QStringLiteral("--params"), QStringLiteral("0")};
        QTest::addRow("bad memory") << QStringList{QStringLiteral("--memory"), QStringLiteral("-1")};
        QTest::addRow("bad layer") << QStringList{QStringLiteral("--layer"), QStringLiteral("4096")};
        QTest::addRow("missing file") << QStringList{QStringLiteral("/nonexistent/model.safetensors")};
        QTest::addRow("two paths") << QStringList{QStringLiteral("a"), QStringLiteral("b")};
    }
    void badUsage()
    {
        QFETCH(QStringList, args);
        const qstest::CliResult r = qstest::runCli(QStringList{QStringLiteral("budget")} + args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!r.err.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliBudget)
#include "tst_cli_budget.moc"
