// quantscope-cli stats on the fixtures: JSON figures against the upstream references (all
// zero), histograms without a reference (exact, and --approximate), --activations from a .npy,
// and usage errors.
#include "analysis/stats.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "container/npy.h"
#include "container/safetensors.h"
#include "base/half.h"
#include "formats/ggml/quantize_ggml.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

QString variantDir(const QString& v)
{
    return qstest::fixture(QStringLiteral("safetensors/") + v);
}

QJsonArray weightsOf(const QByteArray& out)
{
    return QJsonDocument::fromJson(out).object().value(QStringLiteral("weights")).toArray();
}

} // namespace

class TestCliStatsVerify : public QObject {
    Q_OBJECT
private slots:
    void statsAgainstRef_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : {"gptq-w2-g32-asym", "gptq-w3-g32-asym", "gptq-w4-g128-asym-actorder", "awq-gemm-w4-g32"})
            QTest::addRow("%s", v) << QString::fromLatin1(v);
    }
    void statsAgainstRef()
    {
        QFETCH(QString, variant);
        const auto r =
            qstest::runCli({QStringLiteral("stats"), variantDir(variant) + QStringLiteral("/model.safetensors"),
                            QStringLiteral("--ref"), variantDir(variant) + QStringLiteral("/ref.safetensors"),
                            QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ws = weightsOf(r.out);
        QCOMPARE(ws.size(), variant.contains(QLatin1String("g32")) ? 2 : 1);
        for (const QJsonValue& v : ws) {
            // The references are rounded to f16 once, our dequant is exact: f16 rounding error only.
            const QJsonObject o = v.toObject();
            const double mx = o.value(QStringLiteral("max_abs")).toDouble(-1);
            QVERIFY(mx >= 0 && mx < 1e-3);
            const QJsonValue sqnr = o.value(QStringLiteral("sqnr_db")); // null: exactly equal
            QVERIFY(sqnr.isNull() || sqnr.toDouble() > 60);
            QVERIFY(o.value(QStringLiteral("output")).toObject().value(QStringLiteral("cosine")).toDouble() > 0.999999);
        }
    }

    void statsHistograms()
    {
        const auto r =
            qstest::runCli({QStringLiteral("stats"),
                            variantDir(QStringLiteral("gptq-w4-g32-asym")) + QStringLiteral("/model.safetensors"),
                            QStringLiteral("model.layers.0.mlp.down_proj"), QStringLiteral("--json"),
                            QStringLiteral("--bins"), QStringLiteral("8")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ws = weightsOf(r.out);
        QCOMPARE(ws.size(), 1);
        const QJsonObject o = ws.at(0).toObject();
        const QJsonArray codes = o.value(QStringLiteral("codes")).toArray();
        QCOMPARE(codes.size(), 16);
        qint64 total = 0;
        for (const QJsonValue& c : codes)
            total += c.toInteger();
        QCOMPARE(total, qint64(128 * 256));
        QCOMPARE(o.value(QStringLiteral("values")).toObject().value(QStringLiteral("counts")).toArray().size(), 8);
    }

    // --approximate: a weight of 2^20 values sampled and saying so in the text and the JSON, a
    // small one read whole; without it the output carries no trace of the option.
    void statsApproximate()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<float> w(1024 * 1024);
        std::mt19937 rng(9);
        std::normal_distribution<float> normal(0.0f, 0.02f);
        for (float& x : w)
            x = normal(rng);
        const std::vector<uint8_t> q = qs::quantizeGgml(qs::GgmlQ4_K, w.data(), 1024, 1024);
        const std::vector<uint8_t> small = qs::quantizeGgml(qs::GgmlQ4_K, w.data(), 4, 1024);
        const QString path = tmp.filePath(QStringLiteral("m.gguf"));
        qs::writeGguf(path.toStdString(), {},
                      {qs::GgufTensor{"big.weight", qs::GgmlQ4_K, {1024, 1024}, q},
                       qs::GgufTensor{"small.weight", qs::GgmlQ4_K, {1024, 4}, small}});

        const auto exact = qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("--json")});
        QVERIFY2(exact.exitCode == 0, exact.err.constData());
        QVERIFY(!exact.out.contains("approximate") && !exact.out.contains("sampling"));
        const auto exactText =
            qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("--bins"), QStringLiteral("4")});
        QVERIFY(!exactText.out.contains("approximate") && !exactText.out.contains("sampled"));

        const auto r =
            qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("--json"), QStringLiteral("--approximate")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ws = weightsOf(r.out);
        QCOMPARE(ws.size(), 2);
        const QJsonArray ews = weightsOf(exact.out);
        for (int i = 0; i < 2; ++i) {
            const QJsonObject o = ws.at(i).toObject(), e = ews.at(i).toObject();
            const bool big = o.value(QStringLiteral("weight")).toString() == QStringLiteral("big.weight");
            QCOMPARE(o.value(QStringLiteral("approximate")).toBool(false), big);
            QCOMPARE(o.value(QStringLiteral("count")).toInteger(), e.value(QStringLiteral("count")).toInteger());
            QCOMPARE(o.value(QStringLiteral("max")).toDouble(), e.value(QStringLiteral("max")).toDouble());
            if (!big) {
                QVERIFY(!o.contains(QStringLiteral("sampling")));
                QCOMPARE(o.value(QStringLiteral("values")), e.value(QStringLiteral("values")));
                continue;
            }
            const QJsonObject sampling = o.value(QStringLiteral("sampling")).toObject();
            QCOMPARE(sampling.value(QStringLiteral("rows_one_in")).toInteger(), qint64(qs::kApproximateSampleEvery));
            const qint64 sampled = sampling.value(QStringLiteral("sampled")).toInteger();
            QCOMPARE(sampled, qint64(1024 * 1024 / qs::kApproximateSampleEvery));
            qint64 binned = 0;
            for (const QJsonValue& c :
                 o.value(QStringLiteral("values")).toObject().value(QStringLiteral("counts")).toArray())
                binned += c.toInteger();
            QCOMPARE(binned, sampled);
            const double rms = e.value(QStringLiteral("rms")).toDouble();
            QVERIFY(std::fabs(o.value(QStringLiteral("rms")).toDouble() - rms) <= 0.02 * rms);
        }

        const auto text =
            qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("big.weight"),
                            QStringLiteral("--approximate"), QStringLiteral("--bins"), QStringLiteral("4")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains(QStringLiteral(" (approximate: rows sampled 1 in %1, %2 of 1048576 elements)\n")
                                       .arg(qs::kApproximateSampleEvery)
                                       .arg(1024 * 1024 / qs::kApproximateSampleEvery)
                                       .toUtf8()),
                 text.out.constData());
        QVERIFY(text.out.contains("  values (sampled), 4 bins:"));
        // Only without a reference.
        QCOMPARE(qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("--approximate"),
                                 QStringLiteral("--requantize"), QStringLiteral("gguf-q4_0")})
                     .exitCode,
                 2);
        const auto help = qstest::runCli({QStringLiteral("stats"), QStringLiteral("--help")});
        QVERIFY(help.out.contains("--approximate"));
    }

    // Text output: a line per weight; --bins or --range adds the histogram, a line per bin.
    void statsTextHistogram()
    {
        const QString path = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
        const QString weight = QStringLiteral("real.q4_k");
        const auto plain = qstest::runCli({QStringLiteral("stats"), path, weight});
        QVERIFY2(plain.exitCode == 0, plain.err.constData());
        QVERIFY(!plain.out.contains("bins:"));

        const auto binned =
            qstest::runCli({QStringLiteral("stats"), path, weight, QStringLiteral("--bins"), QStringLiteral("5")});
        QVERIFY2(binned.exitCode == 0, binned.err.constData());
        const QList<QByteArray> lines = binned.out.split('\n');
        QVERIFY(binned.out.contains("  values, 5 bins:"));
        // "    [lo, hi) count ###" (no bar for an empty bin), the last bin closed: "hi]".
        static const QRegularExpression bin(QStringLiteral(R"(^    \[[^,]+,[^\)\]]+[\)\]]\s+(\d+)( #+)?$)"));
        qint64 total = 0;
        int rows = 0;
        for (const QByteArray& l : lines)
            if (const QRegularExpressionMatch m = bin.match(QString::fromUtf8(l)); m.hasMatch()) {
                ++rows;
                total += m.captured(1).toLongLong();
            }
        QCOMPARE(rows, 5);
        QCOMPARE(total, qint64(16384)); // every element of the weight

        const auto ranged = qstest::runCli(
            {QStringLiteral("stats"), path, weight, QStringLiteral("--range"), QStringLiteral("-0.5,0.5")});
        QVERIFY2(ranged.exitCode == 0, ranged.err.constData());
        QVERIFY(ranged.out.contains("  values, 32 bins:"));
        QVERIFY(ranged.out.contains("    below "));

        const auto err = qstest::runCli({QStringLiteral("stats"), path, weight, QStringLiteral("--requantize"),
                                         QStringLiteral("gguf-q4_0"), QStringLiteral("--bins"), QStringLiteral("3")});
        QVERIFY2(err.exitCode == 0, err.err.constData());
        QVERIFY(err.out.contains("  signed error (dequantized - reference), 3 bins:"));
    }

    // stats PATH.gguf --ref HF_FOLDER: llama.cpp's names paired with the Hugging Face ones
    // (output.weight = lm_head.weight) and the q/k permutation undone, as diff does.
    void statsGgufAgainstHuggingFace()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        qstest::writeConvertedLlama(tmp.path());
        const auto r =
            qstest::runCli({QStringLiteral("stats"), tmp.filePath(QStringLiteral("model.gguf")),
                            QStringLiteral("--ref"), tmp.filePath(QStringLiteral("hf")), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ws = weightsOf(r.out);
        QCOMPARE(ws.size(), 4);
        for (const QJsonValue& v : ws) {
            const QJsonObject w = v.toObject();
            const QString name = w.value(QStringLiteral("weight")).toString();
            QVERIFY2(w.value(QStringLiteral("max_abs")).toDouble() < 0.01, qPrintable(name)); // Q8_0's rounding only
            if (name == QStringLiteral("output.weight"))
                QCOMPARE(w.value(QStringLiteral("reference")).toString(), QStringLiteral("lm_head.weight"));
            if (name == QStringLiteral("blk.0.attn_q.weight"))
                QCOMPARE(w.value(QStringLiteral("note")).toString(),
                         QStringLiteral("q/k row permutation undone (4 heads)"));
        }
        const auto text = qstest::runCli({QStringLiteral("stats"), tmp.filePath(QStringLiteral("model.gguf")),
                                          QStringLiteral("blk.0.attn_k.weight"), QStringLiteral("--ref"),
                                          tmp.filePath(QStringLiteral("hf"))});
        QVERIFY2(text.out.contains("blk.0.attn_k.weight vs model.layers.0.self_attn.k_proj.weight (q/k row permutation "
                                   "undone (2 heads))"),
                 text.out.constData());
    }

    void statsWithActivations()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<float> x(3 * 256);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = float(int(i % 7) - 3);
        const QString xPath = tmp.filePath(QStringLiteral("x.npy"));
        qs::npy::write(xPath.toStdString(), "<f4", {3, 256}, x);
        const QString v = variantDir(QStringLiteral("gptq-w4-g128-sym"));
        const auto r = qstest::runCli({QStringLiteral("stats"), v + QStringLiteral("/model.safetensors"),
                                       QStringLiteral("model.layers.0.mlp.down_proj"), QStringLiteral("--ref"),
                                       qstest::fixture(QStringLiteral("safetensors/sources.safetensors")),
                                       QStringLiteral("--activations"), xPath, QStringLiteral("--json")});
        // sources.safetensors names its tensors differently: no reference found, exit 2.
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("no reference tensor"));
        const auto ok = qstest::runCli({QStringLiteral("stats"), v + QStringLiteral("/model.safetensors"),
                                        QStringLiteral("model.layers.0.mlp.down_proj"), QStringLiteral("--ref"),
                                        v + QStringLiteral("/ref.safetensors"), QStringLiteral("--activations"), xPath,
                                        QStringLiteral("--json")});
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        const QJsonObject out = weightsOf(ok.out).at(0).toObject().value(QStringLiteral("output")).toObject();
        QCOMPARE(out.value(QStringLiteral("tokens")).toInteger(), qint64(3));
        const double rel = out.value(QStringLiteral("relative_error")).toDouble(-1);
        QVERIFY(rel >= 0 && rel < 1e-3);
        // Activations of the wrong width (q_proj has K = 64): exit 2 naming the file.
        const QString v32 = variantDir(QStringLiteral("gptq-w4-g32-asym"));
        const auto bad =
            qstest::runCli({QStringLiteral("stats"), v32 + QStringLiteral("/model.safetensors"),
                            QStringLiteral("model.layers.0.self_attn.q_proj"), QStringLiteral("--ref"),
                            v32 + QStringLiteral("/ref.safetensors"), QStringLiteral("--activations"), xPath});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("x.npy"));
    }

    void verifyFixtures()
    {
        const auto clean =
            qstest::runCli({QStringLiteral("verify"),
                            variantDir(QStringLiteral("gptq-w4-g32-asym")) + QStringLiteral("/model.safetensors"),
                            QStringLiteral("--json")});
        QVERIFY2(clean.exitCode == 0, clean.out.constData());
        const QJsonObject o = QJsonDocument::fromJson(clean.out).object();
        QCOMPARE(o.value(QStringLiteral("checked")).toArray().size(), 2);
        QVERIFY(o.value(QStringLiteral("findings")).toArray().isEmpty());
        // Upstream's v1 zero-0 spill is what AutoGPTQ really writes and reads: a warning, exit 0.
        const auto spill =
            qstest::runCli({QStringLiteral("verify"),
                            variantDir(QStringLiteral("gptq-w2-g32-asym")) + QStringLiteral("/model.safetensors")});
        QCOMPARE(spill.exitCode, 0);
        QVERIFY(spill.out.contains("warning: v1-zero-spill"));
        QCOMPARE(qstest::runCli({QStringLiteral("verify")}).exitCode, 2);
    }

    // The health scan's findings in JSON: kind, weight, the first place's row and col, the
    // count and every listed place; a NaN is an error (exit 1), a zero row a warning.
    void verifyHealthJson()
    {
        QTemporaryDir tmp;
        std::vector<float> v(4 * 8, 0.5f);
        v[2 * 8 + 3] = std::nanf("");
        v[2 * 8 + 6] = INFINITY;
        std::fill(v.begin() + 8, v.begin() + 16, 0.0f);
        std::vector<uint8_t> bytes(v.size() * 4);
        std::memcpy(bytes.data(), v.data(), bytes.size());
        const QString path = tmp.filePath(QStringLiteral("nan.safetensors"));
        qs::writeSafetensors(path.toStdString(), {{"m.weight", qs::DType::F32, {4, 8}, bytes}});
        const auto r = qstest::runCli({QStringLiteral("verify"), path, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        QJsonObject nan, zero;
        for (const QJsonValue f : QJsonDocument::fromJson(r.out).object().value(QStringLiteral("findings")).toArray()) {
            if (f[QStringLiteral("kind")] == QStringLiteral("nonfinite-value"))
                nan = f.toObject();
            if (f[QStringLiteral("kind")] == QStringLiteral("zero-row"))
                zero = f.toObject();
        }
        QCOMPARE(nan.value(QStringLiteral("weight")).toString(), QStringLiteral("m.weight"));
        QCOMPARE(nan.value(QStringLiteral("severity")).toString(), QStringLiteral("error"));
        QCOMPARE(nan.value(QStringLiteral("row")).toInt(), 2);
        QCOMPARE(nan.value(QStringLiteral("col")).toInt(), 3);
        QCOMPARE(nan.value(QStringLiteral("count")).toInt(), 2);
        QVERIFY(!nan.contains(QStringLiteral("group")) && !nan.contains(QStringLiteral("block")));
        const QJsonArray places = nan.value(QStringLiteral("places")).toArray();
        QCOMPARE(places.size(), 2);
        QCOMPARE(places.at(1).toObject(), (QJsonObject{{QStringLiteral("row"), 2}, {QStringLiteral("col"), 6}}));
        QCOMPARE(zero.value(QStringLiteral("severity")).toString(), QStringLiteral("warning"));
        QCOMPARE(zero.value(QStringLiteral("row")).toInt(), 1);
        QCOMPARE(zero.value(QStringLiteral("count")).toInt(), 1);
        QVERIFY(!zero.contains(QStringLiteral("col")));
    }

    void statsRangeAndRequantize()
    {
        const QString src = qstest::fixture(QStringLiteral("safetensors/sources.safetensors"));
        // Requantizing the float source to Q4_0: every 2-D weight, error against itself.
        const auto r = qstest::runCli({QStringLiteral("stats"), src, QStringLiteral("--requantize"),
                                       QStringLiteral("gguf-q4_0"), QStringLiteral("--json"), QStringLiteral("--bins"),
                                       QStringLiteral("4"), QStringLiteral("--range=-0.01,0.01")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ws = weightsOf(r.out);
        QCOMPARE(ws.size(), 3);
        for (const QJsonValue& v : ws) {
            const QJsonObject o = v.toObject();
            QVERIFY(o.value(QStringLiteral("reference")).toString().endsWith(QLatin1String("(as stored)")));
            QVERIFY(o.value(QStringLiteral("rmse")).toDouble() > 0);
            const QJsonObject h = o.value(QStringLiteral("signed_error_histogram")).toObject();
            QCOMPARE(h.value(QStringLiteral("lo")).toDouble(), -0.01);
            QCOMPARE(h.value(QStringLiteral("counts")).toArray().size(), 4);
            qint64 total = h.value(QStringLiteral("below")).toInteger() + h.value(QStringLiteral("above")).toInteger();
            for (const QJsonValue& c : h.value(QStringLiteral("counts")).toArray())
                total += c.toInteger();
            QCOMPARE(total, o.value(QStringLiteral("count")).toInteger());
            QCOMPARE(o.value(QStringLiteral("groups")).toArray().size(),
                     int(o.value(QStringLiteral("shape")).toArray().at(1).toInteger() / 32));
        }
        // GPTQ 3-bit g32 costs more than Q4_0 on the same weight.
        const auto g3 = qstest::runCli({QStringLiteral("stats"), src, QStringLiteral("synthetic.W_128x256"),
                                        QStringLiteral("--requantize"), QStringLiteral("gptq"),
                                        QStringLiteral("--bits"), QStringLiteral("3"), QStringLiteral("--group-size"),
                                        QStringLiteral("32"), QStringLiteral("--json")});
        QVERIFY2(g3.exitCode == 0, g3.err.constData());
        const double rmse3 = weightsOf(g3.out).at(0).toObject().value(QStringLiteral("rmse")).toDouble();
        double rmse4 = 0;
        for (const QJsonValue& v : ws)
            if (v.toObject().value(QStringLiteral("weight")).toString() == QLatin1String("synthetic.W_128x256"))
                rmse4 = v.toObject().value(QStringLiteral("rmse")).toDouble();
        QVERIFY(rmse4 > 0 && rmse3 > rmse4);
        // A format the requantizer cannot make, --ref with --requantize, a bad range: exit 2.
        const auto bad =
            qstest::runCli({QStringLiteral("stats"), src, QStringLiteral("--requantize"), QStringLiteral("exl3")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("exl3"));
        QCOMPARE(qstest::runCli({QStringLiteral("stats"), src, QStringLiteral("--requantize"),
                                 QStringLiteral("gguf-q4_0"), QStringLiteral("--ref"), src})
                     .exitCode,
                 2);
        QCOMPARE(
            qstest::runCli({QStringLiteral("stats"), src, QStringLiteral("--range"), QStringLiteral("1,0")}).exitCode,
            2);
    }

    void statsUsage()
    {
        QCOMPARE(qstest::runCli({QStringLiteral("stats")}).exitCode, 2);
        QCOMPARE(qstest::runCli(
                     {QStringLiteral("stats"), QStringLiteral("x"), QStringLiteral("--bins"), QStringLiteral("0")})
                     .exitCode,
                 2);
    }

    // A float checkpoint against its float reference is the error of its dtype (issue 29: F16
    // against F32 printed {"weights": []}, exit 0); alone, its floats are reported; a checkpoint
    // with nothing that decodes, or whose weights match nothing in the reference, is exit 2
    // with the reason.
    // One NaN in the weight is counted apart with its place, not an RMSE of NaN (issue 29).
    void statsCountsNonFiniteApart()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<float> ref(8 * 16), w(ref.size());
        for (size_t i = 0; i < ref.size(); ++i) {
            ref[i] = 0.125f * float(int(i % 7) - 3);
            w[i] = ref[i] + 0.5f;
        }
        w[2 * 16 + 5] = std::nanf("");
        const auto bytes = [](const std::vector<float>& v) {
            return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
        };
        const QString a = tmp.filePath(QStringLiteral("a.safetensors")),
                      b = tmp.filePath(QStringLiteral("b.safetensors"));
        qs::writeSafetensors(a.toStdString(), {{"l.weight", qs::DType::F32, {8, 16}, bytes(w)}});
        qs::writeSafetensors(b.toStdString(), {{"l.weight", qs::DType::F32, {8, 16}, bytes(ref)}});
        const auto r =
            qstest::runCli({QStringLiteral("stats"), a, QStringLiteral("--ref"), b, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = weightsOf(r.out).at(0).toObject();
        QCOMPARE(o.value(QStringLiteral("rmse")).toDouble(-1), 0.5);
        const QJsonObject left = o.value(QStringLiteral("non_finite")).toObject();
        QCOMPARE(left.value(QStringLiteral("count")).toInteger(), qint64(1));
        QCOMPARE(left.value(QStringLiteral("first")).toArray(), (QJsonArray{2, 5}));
        const auto text = qstest::runCli({QStringLiteral("stats"), a, QStringLiteral("--ref"), b});
        QVERIFY2(text.out.contains("rmse 0.5 ")
                     && text.out.contains("1 NaN or Inf element left out of these figures, "
                                          "the first at (2, 5)"),
                 text.out.constData());
    }

    void statsOfFloatCheckpoints()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<float> f32(64 * 32);
        std::vector<uint16_t> f16(f32.size());
        for (size_t i = 0; i < f32.size(); ++i) {
            f32[i] = 0.01f * float(int(i % 97) - 48) + 1e-4f;
            f16[i] = qs::floatToHalf(f32[i]);
        }
        const std::vector<int64_t> ints{1, 2, 3, 4};
        const auto bytes = [](const auto& v) {
            return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(v[0]));
        };
        const QString ref = tmp.filePath(QStringLiteral("f32.safetensors")),
                      half = tmp.filePath(QStringLiteral("f16.safetensors"));
        const QString codes = tmp.filePath(QStringLiteral("codes.safetensors")),
                      other = tmp.filePath(QStringLiteral("other.safetensors"));
        qs::writeSafetensors(ref.toStdString(), {{"l.weight", qs::DType::F32, {64, 32}, bytes(f32)}});
        qs::writeSafetensors(half.toStdString(), {{"l.weight", qs::DType::F16, {64, 32}, bytes(f16)}});
        qs::writeSafetensors(codes.toStdString(), {{"codes", qs::DType::I64, {4}, bytes(ints)}});
        qs::writeSafetensors(other.toStdString(), {{"m.weight", qs::DType::F32, {64, 32}, bytes(f32)}});

        const auto r =
            qstest::runCli({QStringLiteral("stats"), half, QStringLiteral("--ref"), ref, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ws = weightsOf(r.out);
        QCOMPARE(ws.size(), 1);
        const QJsonObject o = ws.at(0).toObject();
        QCOMPARE(o.value(QStringLiteral("weight")).toString(), QStringLiteral("l.weight"));
        QCOMPARE(o.value(QStringLiteral("count")).toInteger(), qint64(64 * 32));
        const double mx = o.value(QStringLiteral("max_abs")).toDouble(-1);
        QVERIFY2(mx > 0 && mx < 1e-3, qPrintable(QString::number(mx))); // f16 rounding
        QVERIFY(r.err.contains("no quantized weight"));

        const auto alone = qstest::runCli({QStringLiteral("stats"), half});
        QVERIFY2(alone.exitCode == 0, alone.err.constData());
        QVERIFY2(alone.out.startsWith("l.weight: min "), alone.out.constData());

        for (const QStringList& args :
             {QStringList{QStringLiteral("stats"), codes},
              QStringList{QStringLiteral("stats"), codes, QStringLiteral("--ref"), ref},
              QStringList{QStringLiteral("stats"), codes, QStringLiteral("--requantize"), QStringLiteral("gptq")}}) {
            const auto n = qstest::runCli(args);
            QVERIFY2(n.exitCode == 2 && n.err.contains("nothing to report") && n.err.contains("codes.safetensors"),
                     qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(n.err)));
        }
        const auto unmatched =
            qstest::runCli({QStringLiteral("stats"), half, QStringLiteral("--ref"), other, QStringLiteral("--json")});
        QVERIFY2(unmatched.exitCode == 2 && unmatched.err.contains("nothing compared"), unmatched.err.constData());
    }

    // NaN and infinities are counted in the text and the JSON, and the figures are said to be
    // of the finite values (issue 29: "min 1 max 1 mean 0.000244" for 4095 +Inf and one 1.0;
    // 0 everywhere for an all-NaN weight).
    void statsNonFinite()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<float> inf(4096, INFINITY), nan(64, NAN);
        inf[5] = 1.0f;
        const auto bytes = [](const std::vector<float>& v) {
            return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
        };
        const QString path = tmp.filePath(QStringLiteral("m.safetensors"));
        qs::writeSafetensors(
            path.toStdString(),
            {{"inf.weight", qs::DType::F32, {64, 64}, bytes(inf)}, {"nan.weight", qs::DType::F32, {8, 8}, bytes(nan)}});
        const auto text = qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("inf.weight")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QCOMPARE(text.out,
                 QByteArray("inf.weight: min 1 max 1 mean 1 rms 1 of the 1 finite values; non-finite: 4095 +Inf\n"));
        const auto nanText = qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("nan.weight")});
        QCOMPARE(nanText.out, QByteArray("nan.weight: no finite value: 64 NaN\n"));

        const auto r = qstest::runCli({QStringLiteral("stats"), path, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ws = weightsOf(r.out);
        QCOMPARE(ws.size(), 2);
        for (const QJsonValue& v : ws) {
            const QJsonObject o = v.toObject();
            const QJsonObject nf = o.value(QStringLiteral("non_finite")).toObject();
            if (o.value(QStringLiteral("weight")).toString() == QStringLiteral("inf.weight")) {
                QCOMPARE(o.value(QStringLiteral("finite")).toInteger(), qint64(1));
                QCOMPARE(nf.value(QStringLiteral("pos_inf")).toInteger(), qint64(4095));
                QCOMPARE(nf.value(QStringLiteral("nan")).toInteger(), qint64(0));
                QCOMPARE(o.value(QStringLiteral("mean")).toDouble(), 1.0);
                QCOMPARE(o.value(QStringLiteral("min")).toDouble(), 1.0);
            } else {
                QCOMPARE(o.value(QStringLiteral("finite")).toInteger(), qint64(0));
                QCOMPARE(nf.value(QStringLiteral("nan")).toInteger(), qint64(64));
                QCOMPARE(nf.value(QStringLiteral("neg_inf")).toInteger(), qint64(0));
                for (const char* k : {"min", "max", "mean", "rms"})
                    QVERIFY2(o.value(QLatin1String(k)).isNull(), k);
            }
        }
    }

    // An error deep in a kernel (a GPTQ g_idx entry out of range, found when stats reads the
    // weight's packed layout) reaches the message with the file and the weight, each once: the
    // code-domain tally wrote the checkpoint folder in front of the layout's own "file: weight"
    // ("m: m/model.safetensors: ...").
    void kernelErrorNamesFileOnce()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dir = tmp.filePath(QStringLiteral("m"));
        QVERIFY(QDir().mkpath(dir));
        for (const char* f : {"config.json", "quantize_config.json", "model.safetensors"})
            QVERIFY(QFile::copy(variantDir(QStringLiteral("gptq-w4-g32-sym-actorder/")) + QLatin1String(f),
                                dir + QLatin1Char('/') + QLatin1String(f)));
        const QString model = dir + QStringLiteral("/model.safetensors");
        const char* weight = "model.layers.0.mlp.down_proj";
        {
            QFile file(model);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QByteArray bytes = file.readAll();
            quint64 headerLength = 0;
            std::memcpy(&headerLength, bytes.constData(), 8);
            const QJsonObject header = QJsonDocument::fromJson(bytes.mid(8, qsizetype(headerLength))).object();
            const QJsonArray at = header.value(QLatin1String(weight) + QStringLiteral(".g_idx"))
                                      .toObject()
                                      .value(QStringLiteral("data_offsets"))
                                      .toArray();
            QCOMPARE(at.size(), 2);
            const int32_t outside = 100000;
            std::memcpy(bytes.data() + 8 + headerLength + at[0].toInteger(), &outside, 4);
            QVERIFY(file.seek(0));
            QCOMPARE(file.write(bytes), bytes.size());
        }
        // A relative path too, as a user types it.
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(tmp.path()));
        const auto back = qScopeGuard([&] { QDir::setCurrent(cwd); });
        for (const QString& path : {dir, QStringLiteral("m")}) {
            const auto r = qstest::runCli({QStringLiteral("stats"), path});
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(r.err,
                     "quantscope-cli stats: " + path.toUtf8() + "/model.safetensors: " + QByteArray(weight)
                         + ": g_idx[0] = 100000 is outside 0..7\n");
        }
    }

    // Option values out of range are errors naming the option, never the default in silence.
    void statsOptionsOutOfRange_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("option");
        const QString gptq = QStringLiteral("gptq");
        QTest::addRow("bits 0") << QStringList{QStringLiteral("--requantize"), gptq, QStringLiteral("--bits"),
                                               QStringLiteral("0")}
                                << "--bits";
        QTest::addRow("bits 9") << QStringList{QStringLiteral("--requantize"), gptq, QStringLiteral("--bits"),
                                               QStringLiteral("9")}
                                << "--bits";
        QTest::addRow("group 0") << QStringList{QStringLiteral("--requantize"), gptq, QStringLiteral("--group-size"),
                                                QStringLiteral("0")}
                                 << "--group-size";
        QTest::addRow("bits alone") << QStringList{QStringLiteral("--bits"), QStringLiteral("3")} << "--bits";
        QTest::addRow("sym alone") << QStringList{QStringLiteral("--sym")} << "--sym";
        QTest::addRow("group on gguf") << QStringList{QStringLiteral("--requantize"), QStringLiteral("gguf-q4_0"),
                                                      QStringLiteral("--group-size"), QStringLiteral("64")}
                                       << "--group-size";
    }
    void statsOptionsOutOfRange()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, option);
        const auto r = qstest::runCli(
            QStringList{QStringLiteral("stats"),
                        variantDir(QStringLiteral("gptq-w4-g32-asym")) + QStringLiteral("/model.safetensors")}
            + args);
        QVERIFY2(r.exitCode == 2 && r.err.contains(option.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliStatsVerify)
#include "tst_cli_stats_verify.moc"
