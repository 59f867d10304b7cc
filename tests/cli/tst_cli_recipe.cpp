// quantscope-cli recipe: one checkpoint (JSON and text) and two side by side on llama-quantize's
// own outputs; inspect's header names the fallbacks; usage errors.
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

namespace {

QString quantized(const char* mix)
{
    return qstest::fixture(QStringLiteral("real/generated-llama-quantize/stories260K-mix-%1.gguf").arg(QLatin1String(mix)));
}

QJsonObject runJson(const QStringList& args)
{
    const qstest::CliResult r = qstest::runCli(args);
    if (r.crashed || r.exitCode != 0) {
        qWarning("exit %d: %s", r.exitCode, r.err.constData());
        return {};
    }
    return QJsonDocument::fromJson(r.out).object();
}

} // namespace

class TestCliRecipe : public QObject {
    Q_OBJECT
private slots:
    void oneCheckpointJson()
    {
        const QJsonObject o = runJson({QStringLiteral("recipe"), quantized("Q4_K_M"), QStringLiteral("--json")});
        QCOMPARE(o.value(QStringLiteral("nominal")).toObject().value(QStringLiteral("name")).toString(),
                 QStringLiteral("MOSTLY_Q4_K_M"));
        QCOMPARE(o.value(QStringLiteral("nominal")).toObject().value(QStringLiteral("format")).toString(),
                 QStringLiteral("gguf-q4_k"));
        const QJsonObject totals = o.value(QStringLiteral("totals")).toObject();
        QCOMPARE(totals.value(QStringLiteral("fallbacks")).toInt(), 37);
        QCOMPARE(totals.value(QStringLiteral("weights")).toInt(), 48);
        QStringList types;
        for (const QJsonValue t : o.value(QStringLiteral("types")).toArray())
            types << t.toObject().value(QStringLiteral("type")).toString();
        QCOMPARE(types, (QStringList{QStringLiteral("Q5_0"), QStringLiteral("F16"), QStringLiteral("Q8_0"), QStringLiteral("F32")}));
        QCOMPARE(o.value(QStringLiteral("layers")).toArray().size(), 6);
        bool sawDown = false;
        for (const QJsonValue v : o.value(QStringLiteral("tensors")).toArray()) {
            const QJsonObject t = v.toObject();
            if (t.value(QStringLiteral("name")).toString() != QStringLiteral("blk.0.ffn_down.weight"))
                continue;
            sawDown = true;
            QCOMPARE(t.value(QStringLiteral("kind")).toString(), QStringLiteral("fallback"));
            QCOMPARE(t.value(QStringLiteral("type")).toString(), QStringLiteral("F16"));
            QCOMPARE(t.value(QStringLiteral("extra_bits")).toDouble(), 172.0 * 64.0 * (16.0 - 4.5));
            QVERIFY(t.value(QStringLiteral("reason")).toString().startsWith(QStringLiteral("row length 172")));
        }
        QVERIFY(sawDown);
    }

    void oneCheckpointText()
    {
        const qstest::CliResult r = qstest::runCli({QStringLiteral("recipe"), quantized("Q4_K_M")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Recipe:     MOSTLY_Q4_K_M (general.file_type = 15)"));
        QVERIFY(r.out.contains("Fell back:  37 of 37"));
        QVERIFY(r.out.contains("blk.0.ffn_down.weight"));
    }

    void twoCheckpointsSideBySide()
    {
        const QJsonObject o = runJson({QStringLiteral("recipe"), quantized("Q4_K_M"), quantized("Q5_K_M"), QStringLiteral("--json")});
        QCOMPARE(o.value(QStringLiteral("matched")).toInt(), 48);
        const QJsonArray rows = o.value(QStringLiteral("differing")).toArray();
        QVERIFY(!rows.isEmpty());
        for (const QJsonValue v : rows) {
            const QJsonObject r = v.toObject();
            QVERIFY(r.value(QStringLiteral("type_a")).toString() != r.value(QStringLiteral("type_b")).toString());
        }
        QCOMPARE(o.value(QStringLiteral("layers")).toArray().size(), 6);
        // The same file twice differs nowhere.
        const QJsonObject same = runJson({QStringLiteral("recipe"), quantized("Q6_K"), quantized("Q6_K"), QStringLiteral("--json")});
        QCOMPARE(same.value(QStringLiteral("differing")).toArray().size(), 0);
    }

    void inspectNamesTheFallbacks()
    {
        const qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), quantized("Q4_K_M")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Recipe:     MOSTLY_Q4_K_M"));
        QVERIFY(r.out.contains("Note: 37 weights fell back from the nominal type"));
    }

    void usageErrors()
    {
        QCOMPARE(qstest::runCli({QStringLiteral("recipe")}).exitCode, 2);
        QCOMPARE(qstest::runCli({QStringLiteral("recipe"), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}).exitCode, 2);
        const qstest::CliResult r = qstest::runCli({QStringLiteral("recipe"), QStringLiteral("/nonexistent.gguf")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("/nonexistent.gguf"));
    }
};

QTEST_GUILESS_MAIN(TestCliRecipe)
#include "tst_cli_recipe.moc"
