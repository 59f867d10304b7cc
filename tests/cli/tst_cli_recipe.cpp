// quantscope-cli recipe: one checkpoint (JSON and text) and two side by side on llama-quantize's
// own outputs; inspect's header names the fallbacks; usage errors; with --imatrix (a legacy .dat
// written here) the fit tensor by tensor, the ranking against the F16 source, and stats'
// importance-weighted error beside the plain one.
#include "container/gguf.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>

namespace {

QString quantized(const char* mix)
{
    return qstest::fixture(
        QStringLiteral("real/generated-llama-quantize/stories260K-mix-%1.gguf").arg(QLatin1String(mix)));
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

void putI32(std::string& out, int32_t v)
{
    out.append(reinterpret_cast<const char*>(&v), 4);
}

// A legacy llama-imatrix .dat: per entry the name, ncall 1 and the values; then the trailer.
QString writeLegacyImatrix(const QTemporaryDir& dir,
                           const std::vector<std::pair<std::string, std::vector<float>>>& entries)
{
    std::string out;
    putI32(out, int32_t(entries.size()));
    for (const auto& [name, values] : entries) {
        putI32(out, int32_t(name.size()));
        out += name;
        putI32(out, 1);
        putI32(out, int32_t(values.size()));
        out.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
    }
    putI32(out, 10);
    putI32(out, 5);
    out += "calib";
    const QString path = dir.filePath(QStringLiteral("imatrix.dat"));
    std::ofstream(path.toStdString(), std::ios::binary).write(out.data(), std::streamsize(out.size()));
    return path;
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
        QCOMPARE(types,
                 (QStringList{QStringLiteral("Q5_0"), QStringLiteral("F16"), QStringLiteral("Q8_0"),
                              QStringLiteral("F32")}));
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
        QVERIFY2(r.out.contains("did not fit the nominal type's block: 37 of 37"), r.out.constData());
        QVERIFY(r.out.contains("blk.0.ffn_down.weight"));
    }

    void twoCheckpointsSideBySide()
    {
        const QJsonObject o =
            runJson({QStringLiteral("recipe"), quantized("Q4_K_M"), quantized("Q5_K_M"), QStringLiteral("--json")});
        QCOMPARE(o.value(QStringLiteral("matched")).toInt(), 48);
        const QJsonArray rows = o.value(QStringLiteral("differing")).toArray();
        QVERIFY(!rows.isEmpty());
        for (const QJsonValue v : rows) {
            const QJsonObject r = v.toObject();
            QVERIFY(r.value(QStringLiteral("type_a")).toString() != r.value(QStringLiteral("type_b")).toString());
        }
        QCOMPARE(o.value(QStringLiteral("layers")).toArray().size(), 6);
        // The same file twice differs nowhere.
        const QJsonObject same =
            runJson({QStringLiteral("recipe"), quantized("Q6_K"), quantized("Q6_K"), QStringLiteral("--json")});
        QCOMPARE(same.value(QStringLiteral("differing")).toArray().size(), 0);
    }

    void inspectNamesTheFallbacks()
    {
        const qstest::CliResult r = qstest::runCli({QStringLiteral("inspect"), quantized("Q4_K_M")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Recipe:     MOSTLY_Q4_K_M"));
        QVERIFY(r.out.contains("Note: 37 weights fell back from the nominal type"));
    }

    void importanceMatrix()
    {
        QTemporaryDir dir;
        std::vector<float> down(172);
        for (size_t i = 0; i < down.size(); ++i)
            down[i] = float(i % 7) + 0.5f;
        const QString imatrix = writeLegacyImatrix(dir,
                                                   {{"blk.0.attn_q.weight", std::vector<float>(64, 2.0f)},
                                                    {"blk.0.ffn_down.weight", down},
                                                    {"blk.0.attn_k.weight", std::vector<float>(32, 1.0f)},
                                                    {"blk.99.attn_q.weight", std::vector<float>(64, 1.0f)}});
        const QJsonObject o =
            runJson({QStringLiteral("recipe"), quantized("Q4_K_M"), QStringLiteral("--imatrix"), imatrix,
                     QStringLiteral("--ref"),
                     quantized("Q4_K_M").replace(QStringLiteral("mix-Q4_K_M"), QStringLiteral("pure-F16")),
                     QStringLiteral("--json")});
        const QJsonObject im = o.value(QStringLiteral("imatrix")).toObject();
        QCOMPARE(im.value(QStringLiteral("format")).toString(), QStringLiteral("legacy .dat"));
        QCOMPARE(im.value(QStringLiteral("datasets")).toArray().at(0).toString(), QStringLiteral("calib"));
        QCOMPARE(im.value(QStringLiteral("unused_entries")).toArray().at(0).toString(),
                 QStringLiteral("blk.99.attn_q.weight"));
        int fits = 0;
        for (const QJsonValue v : im.value(QStringLiteral("weights")).toArray()) {
            const QJsonObject w = v.toObject();
            const QString name = w.value(QStringLiteral("name")).toString();
            fits += w.value(QStringLiteral("fits")).toBool();
            if (name == QStringLiteral("blk.0.attn_k.weight"))
                QCOMPARE(
                    w.value(QStringLiteral("problem")).toString(),
                    QStringLiteral("the imatrix entry 'blk.0.attn_k.weight' has 32 channels, the weight [32, 64] needs "
                                   "64 input channels"));
            if (name == QStringLiteral("blk.0.attn_q.weight"))
                QCOMPARE(w.value(QStringLiteral("mean")).toDouble(), 2.0);
            if (name == QStringLiteral("blk.1.attn_q.weight"))
                QVERIFY(w.value(QStringLiteral("problem")).toString().startsWith(QStringLiteral("no imatrix entry")));
        }
        QCOMPARE(fits, 2);
        // Ranked against the F16 source: both fitting weights, largest weighted error first (the
        // F16-stored ffn_down has none).
        const QJsonArray rows = im.value(QStringLiteral("ranking")).toObject().value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 2);
        const double first = rows.at(0).toObject().value(QStringLiteral("weighted_sum_sq")).toDouble();
        const double second = rows.at(1).toObject().value(QStringLiteral("weighted_sum_sq")).toDouble();
        QVERIFY(first > 0 && first >= second);
        QCOMPARE(rows.at(0).toObject().value(QStringLiteral("share")).toDouble()
                     + rows.at(1).toObject().value(QStringLiteral("share")).toDouble(),
                 1.0);

        // stats: with importance 2 everywhere the weighted MSE is twice the plain one.
        const QJsonObject st =
            runJson({QStringLiteral("stats"), quantized("Q4_K_M"), QStringLiteral("blk.0.attn_q.weight"),
                     QStringLiteral("--ref"),
                     quantized("Q4_K_M").replace(QStringLiteral("mix-Q4_K_M"), QStringLiteral("pure-F16")),
                     QStringLiteral("--imatrix"), imatrix, QStringLiteral("--json")});
        const QJsonObject w = st.value(QStringLiteral("weights")).toArray().at(0).toObject();
        const QJsonObject weighted = w.value(QStringLiteral("importance_weighted")).toObject();
        const double rmse = w.value(QStringLiteral("rmse")).toDouble();
        QVERIFY(rmse > 0);
        QCOMPARE(weighted.value(QStringLiteral("plain_mse")).toDouble(), rmse * rmse);
        QCOMPARE(weighted.value(QStringLiteral("mse")).toDouble(), 2.0 * rmse * rmse);
        QCOMPARE(weighted.value(QStringLiteral("sum_sq")).toDouble(), 2.0 * rmse * rmse * 64 * 64);
        // The text names both figures; a weight the imatrix does not fit is compared unweighted.
        const qstest::CliResult text =
            qstest::runCli({QStringLiteral("recipe"), quantized("Q4_K_M"), QStringLiteral("--imatrix"), imatrix});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("Importance matrix: "));
        QVERIFY(text.out.contains("Fits 2 of "));
        QVERIFY(text.out.contains("an imatrix entry for no weight of the checkpoint"));
        const qstest::CliResult k = qstest::runCli(
            {QStringLiteral("stats"), quantized("Q4_K_M"), QStringLiteral("blk.0.attn_k.weight"),
             QStringLiteral("--requantize"), QStringLiteral("gguf-q8_0"), QStringLiteral("--imatrix"), imatrix});
        QCOMPARE(k.exitCode, 0);
        QVERIFY(k.err.contains("unweighted: the imatrix entry 'blk.0.attn_k.weight' has 32 channels"));
        QVERIFY(!k.out.contains("importance-weighted"));
        // --imatrix needs a reference in stats; --ref needs --imatrix in recipe.
        QCOMPARE(qstest::runCli({QStringLiteral("stats"), quantized("Q4_K_M"), QStringLiteral("--imatrix"), imatrix})
                     .exitCode,
                 2);
        QCOMPARE(
            qstest::runCli({QStringLiteral("recipe"), quantized("Q4_K_M"), QStringLiteral("--ref"), imatrix}).exitCode,
            2);
        const qstest::CliResult bad = qstest::runCli(
            {QStringLiteral("recipe"), quantized("Q4_K_M"), QStringLiteral("--imatrix"), quantized("Q4_K_M")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("not an importance matrix"));
    }

    void usageErrors()
    {
        QCOMPARE(qstest::runCli({QStringLiteral("recipe")}).exitCode, 2);
        QCOMPARE(
            qstest::runCli({QStringLiteral("recipe"), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")})
                .exitCode,
            2);
        const qstest::CliResult r = qstest::runCli({QStringLiteral("recipe"), QStringLiteral("/nonexistent.gguf")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("/nonexistent.gguf"));
    }

    // A GGUF without tensors (vocab-only) still names its mix in general.file_type: recipe says
    // it, as inspect does (issue 29: "no general.file_type" beside inspect's MOSTLY_F16).
    void tensorlessGguf()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString path = tmp.filePath(QStringLiteral("vocab.gguf"));
        qs::writeGguf(
            path.toStdString(),
            {{"general.architecture", {qs::MetaValue::Type::String, qs::MetaValue::Type::U8, std::string("llama")}},
             {"general.file_type", {qs::MetaValue::Type::U32, qs::MetaValue::Type::U8, uint64_t(1)}}},
            {});
        const qstest::CliResult text = qstest::runCli({QStringLiteral("recipe"), path});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains("MOSTLY_F16 (general.file_type = 1)") && !text.out.contains("no general.file_type"),
                 text.out.constData());
        const QJsonObject o = runJson({QStringLiteral("recipe"), path, QStringLiteral("--json")});
        QCOMPARE(o.value(QStringLiteral("nominal")).toObject().value(QStringLiteral("name")).toString(),
                 QStringLiteral("MOSTLY_F16"));
        QCOMPARE(o.value(QStringLiteral("nominal")).toObject().value(QStringLiteral("format")).toString(),
                 QStringLiteral("gguf-f16"));
    }
};

QTEST_GUILESS_MAIN(TestCliRecipe)
#include "tst_cli_recipe.moc"
