// quantscope-cli diff: exit codes (0 same, 1 over tolerance, 2 bad input), JSON that parses
// with the figures, the --weight filter, and an HF float checkpoint against a Q8_0 GGUF made
// from it with llama.cpp's q/k permutation (written by this test with the project's writers).
#include "formats/ggml/quantize_ggml.h"
#include "container/gguf.h"
#include "container/safetensors.h"

#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

constexpr uint64_t kDim = 64, kHeads = 4, kHeadsKv = 2;

QString variantFile(const QString& v)
{
    return qstest::fixture(QStringLiteral("safetensors/") + v + QStringLiteral("/model.safetensors"));
}

QJsonObject parse(const QByteArray& out)
{
    QJsonParseError err{};
    const QJsonDocument d = QJsonDocument::fromJson(out, &err);
    return err.error == QJsonParseError::NoError ? d.object() : QJsonObject{};
}

std::vector<float> smooth(uint64_t rows, uint64_t cols, uint64_t seed)
{
    std::vector<float> w(rows * cols);
    for (uint64_t i = 0; i < w.size(); ++i)
        w[i] = float(std::sin(double(i * 7 + seed * 13) * 0.37) * (1.0 + double(i / cols) * 0.01));
    return w;
}

std::vector<float> permuted(const std::vector<float>& w, uint64_t rows, uint64_t cols, uint64_t n)
{
    const uint64_t half = rows / n / 2;
    std::vector<float> out(w.size());
    for (uint64_t h = 0; h < n; ++h)
        for (uint64_t a = 0; a < 2; ++a)
            for (uint64_t j = 0; j < half; ++j)
                std::memcpy(&out[((h * half + j) * 2 + a) * cols], &w[((h * 2 + a) * half + j) * cols], cols * 4);
    return out;
}

std::span<const uint8_t> bytesOf(const std::vector<float>& v)
{
    return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4};
}

// hf/model.safetensors + config.json and model.gguf (Q8_0, q and k permuted when asked).
void writePair(const QString& dir, bool permute)
{
    const uint64_t kv = kDim / kHeads * kHeadsKv;
    const std::vector<float> q = smooth(kDim, kDim, 1), k = smooth(kv, kDim, 2), up = smooth(2 * kDim, kDim, 3);
    QDir(dir).mkdir(QStringLiteral("hf"));
    qs::writeSafetensors((dir + QStringLiteral("/hf/model.safetensors")).toStdString(),
                         {{"model.layers.0.self_attn.q_proj.weight", qs::DType::F32, {kDim, kDim}, bytesOf(q)},
                          {"model.layers.0.self_attn.k_proj.weight", qs::DType::F32, {kv, kDim}, bytesOf(k)},
                          {"model.layers.0.mlp.up_proj.weight", qs::DType::F32, {2 * kDim, kDim}, bytesOf(up)}});
    QFile cfg(dir + QStringLiteral("/hf/config.json"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write("{\"model_type\": \"llama\", \"num_attention_heads\": 4, \"num_key_value_heads\": 2}");
    cfg.close();
    const std::vector<uint8_t> q8 =
        qs::quantizeGgml(8, (permute ? permuted(q, kDim, kDim, kHeads) : q).data(), kDim, kDim);
    const std::vector<uint8_t> k8 =
        qs::quantizeGgml(8, (permute ? permuted(k, kv, kDim, kHeadsKv) : k).data(), kv, kDim);
    const std::vector<uint8_t> up8 = qs::quantizeGgml(8, up.data(), 2 * kDim, kDim);
    qs::MetaValue arch;
    arch.value = std::string("llama");
    qs::writeGguf((dir + QStringLiteral("/model.gguf")).toStdString(), {{"general.architecture", arch}},
                  {{"blk.0.attn_q.weight", 8, {kDim, kDim}, q8},
                   {"blk.0.attn_k.weight", 8, {kDim, kv}, k8},
                   {"blk.0.ffn_up.weight", 8, {kDim, 2 * kDim}, up8}});
}

} // namespace

class TestCliDiff : public QObject {
    Q_OBJECT
private slots:
    void sameCheckpoint()
    {
        const QString f = variantFile(QStringLiteral("gptq-w4-g32-asym"));
        const auto r = qstest::runCli({QStringLiteral("diff"), f, f, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = parse(r.out);
        QVERIFY(o.value(QStringLiteral("passed")).toBool());
        const QJsonArray ws = o.value(QStringLiteral("weights")).toArray();
        QCOMPARE(ws.size(), 2);
        for (const QJsonValue& v : ws) {
            QCOMPARE(v.toObject().value(QStringLiteral("max_abs")).toDouble(-1), 0.0);
            QVERIFY(v.toObject().value(QStringLiteral("sqnr_db")).isNull()); // equal: infinite SQNR
            QCOMPARE(v.toObject().value(QStringLiteral("cosine")).toDouble(), 1.0);
        }
        const auto text = qstest::runCli({QStringLiteral("diff"), f, f});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("2 of 2 weights within their automatic tolerance"), text.out.constData());
    }

    void overTolerance()
    {
        // The fixture's f16 reference under the module's float name: f16 rounding differs.
        const QString dir = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
        const QStringList base{QStringLiteral("diff"), dir + QStringLiteral("/model.safetensors"),
                               dir + QStringLiteral("/ref.safetensors")};
        const auto r = qstest::runCli(
            base + QStringList{QStringLiteral("--tolerance"), QStringLiteral("0"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject o = parse(r.out);
        QVERIFY(!o.value(QStringLiteral("passed")).toBool(true));
        const QJsonObject w = o.value(QStringLiteral("weights")).toArray().at(0).toObject();
        QCOMPARE(w.value(QStringLiteral("name_a")).toString(), QStringLiteral("model.layers.0.mlp.down_proj"));
        QCOMPARE(w.value(QStringLiteral("name_b")).toString(), QStringLiteral("model.layers.0.mlp.down_proj.weight"));
        QCOMPARE(w.value(QStringLiteral("format_a")).toString(), QStringLiteral("gptq-v1"));
        const double mx = w.value(QStringLiteral("max_abs")).toDouble(-1);
        QVERIFY(mx > 0 && mx < 1e-3);
        QVERIFY(!w.value(QStringLiteral("pass")).toBool(true));
        QCOMPARE(w.value(QStringLiteral("shape")).toArray(), (QJsonArray{128, 256}));
        // Within a tolerance of 1e-3: exit 0.
        const auto ok = qstest::runCli(base + QStringList{QStringLiteral("--tolerance"), QStringLiteral("1e-3")});
        QVERIFY2(ok.exitCode == 0, ok.out.constData());
        QVERIFY2(ok.out.contains("1 of 1 weight within tolerance 0.001"), ok.out.constData());
    }

    // Without --tolerance a quantized weight against a float one may differ by one code step of
    // its width over B's range, 2 max|b| / (2^bits - 1): the 4-bit GPTQ weight against its float
    // reference passes (it failed at the old default 0, as the Diff view painted it, issue 33); a
    // float weight against itself still has to match exactly.
    void automaticTolerance()
    {
        const QString dir = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym"));
        const auto r = qstest::runCli({QStringLiteral("diff"), dir + QStringLiteral("/model.safetensors"),
                                       dir + QStringLiteral("/ref.safetensors"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.out.constData());
        const QJsonObject o = parse(r.out);
        QCOMPARE(o.value(QStringLiteral("tolerance")).toString(), QStringLiteral("auto"));
        const QJsonObject w = o.value(QStringLiteral("weights")).toArray().at(0).toObject();
        const double maxB = w.value(QStringLiteral("max_abs_b")).toDouble(-1);
        QVERIFY(maxB > 0);
        QCOMPARE(w.value(QStringLiteral("tolerance")).toDouble(-1), 2 * maxB / 15);
        QVERIFY(w.value(QStringLiteral("pass")).toBool());
        const QString ref = dir + QStringLiteral("/ref.safetensors");
        const auto same = qstest::runCli({QStringLiteral("diff"), ref, ref, QStringLiteral("--json")});
        QCOMPARE(parse(same.out)
                     .value(QStringLiteral("weights"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("tolerance"))
                     .toDouble(-1),
                 0.0);
    }

    void huggingFaceVersusGguf()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        writePair(tmp.path(), true);
        const QStringList args{QStringLiteral("diff"),
                               tmp.filePath(QStringLiteral("hf")),
                               tmp.filePath(QStringLiteral("model.gguf")),
                               QStringLiteral("--tolerance"),
                               QStringLiteral("0.01"),
                               QStringLiteral("--json")};
        const auto r = qstest::runCli(args);
        QVERIFY2(r.exitCode == 0, r.out.constData());
        const QJsonObject o = parse(r.out);
        const QJsonArray ws = o.value(QStringLiteral("weights")).toArray();
        QCOMPARE(ws.size(), 3);
        for (const QJsonValue& v : ws) {
            const QJsonObject w = v.toObject();
            QCOMPARE(w.value(QStringLiteral("format_b")).toString(), QStringLiteral("gguf-q8_0"));
            // Q8_0 of values up to ~2.3: at most half a step of amax/127.
            const double mx = w.value(QStringLiteral("max_abs")).toDouble(-1);
            QVERIFY(mx > 0 && mx < 0.01);
            QVERIFY(w.value(QStringLiteral("cosine")).toDouble() > 0.9999);
        }
        QCOMPARE(ws.at(0).toObject().value(QStringLiteral("name_b")).toString().startsWith(QLatin1String("blk.0.")),
                 true);

        // The same GGUF without the permutation: q and k fail, up passes.
        QTemporaryDir plain;
        QVERIFY(plain.isValid());
        writePair(plain.path(), false);
        const auto bad = qstest::runCli({QStringLiteral("diff"), plain.filePath(QStringLiteral("hf")),
                                         plain.filePath(QStringLiteral("model.gguf")), QStringLiteral("--tolerance"),
                                         QStringLiteral("0.01"), QStringLiteral("--json")});
        QCOMPARE(bad.exitCode, 1);
        const QJsonArray bws = parse(bad.out).value(QStringLiteral("weights")).toArray();
        QCOMPARE(bws.size(), 3);
        QVERIFY(!bws.at(0).toObject().value(QStringLiteral("pass")).toBool(true));
        QVERIFY(!bws.at(1).toObject().value(QStringLiteral("pass")).toBool(true));
        QVERIFY(bws.at(2).toObject().value(QStringLiteral("pass")).toBool());
        QCOMPARE(bws.at(2).toObject().value(QStringLiteral("name_a")).toString(),
                 QStringLiteral("model.layers.0.mlp.up_proj.weight"));

        // --weight by either name; the rest is not listed.
        const auto one = qstest::runCli({QStringLiteral("diff"), tmp.filePath(QStringLiteral("hf")),
                                         tmp.filePath(QStringLiteral("model.gguf")), QStringLiteral("--weight"),
                                         QStringLiteral("blk.0.attn_k.weight"), QStringLiteral("--tolerance"),
                                         QStringLiteral("0.01"), QStringLiteral("--json")});
        QVERIFY2(one.exitCode == 0, one.err.constData());
        const QJsonObject oo = parse(one.out);
        QCOMPARE(oo.value(QStringLiteral("weights")).toArray().size(), 1);
        QCOMPARE(
            oo.value(QStringLiteral("weights")).toArray().at(0).toObject().value(QStringLiteral("name_a")).toString(),
            QStringLiteral("model.layers.0.self_attn.k_proj.weight"));
        QVERIFY(oo.value(QStringLiteral("only_in_a")).toArray().isEmpty());
    }

    void oneSidedAndShapes()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::vector<float> w(8 * 4, 0.5f), v(4 * 8, 0.5f);
        const QString a = tmp.filePath(QStringLiteral("a.safetensors")),
                      b = tmp.filePath(QStringLiteral("b.safetensors"));
        qs::writeSafetensors(
            a.toStdString(),
            {{"x.weight", qs::DType::F32, {8, 4}, bytesOf(w)}, {"only_a.weight", qs::DType::F32, {8, 4}, bytesOf(w)}});
        qs::writeSafetensors(
            b.toStdString(),
            {{"x.weight", qs::DType::F32, {4, 8}, bytesOf(v)}, {"only_b.weight", qs::DType::F32, {8, 4}, bytesOf(w)}});
        const auto r = qstest::runCli({QStringLiteral("diff"), a, b, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1); // the shape mismatch fails
        const QJsonObject o = parse(r.out);
        QCOMPARE(o.value(QStringLiteral("only_in_a")).toArray(), (QJsonArray{QStringLiteral("only_a.weight")}));
        QCOMPARE(o.value(QStringLiteral("only_in_b")).toArray(), (QJsonArray{QStringLiteral("only_b.weight")}));
        const QJsonObject m = o.value(QStringLiteral("shape_mismatches")).toArray().at(0).toObject();
        QCOMPARE(m.value(QStringLiteral("shape_a")).toArray(), (QJsonArray{8, 4}));
        QCOMPARE(m.value(QStringLiteral("shape_b")).toArray(), (QJsonArray{4, 8}));
        const auto text = qstest::runCli({QStringLiteral("diff"), a, b});
        QVERIFY(text.out.contains("only in A: only_a.weight"));
        QVERIFY(text.out.contains("only in B: only_b.weight"));
        QVERIFY(text.out.contains("SHAPE x.weight [8x4] vs x.weight [4x8]"));
    }

    // repack keeps the tensor names in the GGUF it writes (GGUF-style ones: it refuses Hugging
    // Face names): diff pairs every weight with its source, and reports the worst element in
    // each side's coordinates.
    void repackedGgufAgainstSource()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString src =
            qstest::ggufNamedCopy(variantFile(QStringLiteral("gptq-w4-g32-asym")), tmp.filePath(QStringLiteral("src")));
        const QString out = tmp.filePath(QStringLiteral("q8.gguf"));
        const auto rp = qstest::runCli(
            {QStringLiteral("repack"), src, QStringLiteral("--to"), QStringLiteral("q8_0"), QStringLiteral("-o"), out});
        QVERIFY2(rp.exitCode == 0, rp.err.constData());
        const auto r = qstest::runCli({QStringLiteral("diff"), out, src, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = parse(r.out);
        QCOMPARE(o.value(QStringLiteral("weights")).toArray().size(), 2);
        QVERIFY(o.value(QStringLiteral("only_in_a")).toArray().isEmpty());
        QVERIFY(o.value(QStringLiteral("only_in_b")).toArray().isEmpty());
        for (const QJsonValue& v : o.value(QStringLiteral("weights")).toArray())
            QCOMPARE(v.toObject().value(QStringLiteral("max_at_b")).toArray(), (QJsonArray{0, 0}));
    }

    // No common name: exit 2 and a hint naming each side's naming and first names.
    void nothingToCompare()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        writePair(tmp.path(), true);
        const std::vector<float> w(8 * 4, 0.5f);
        const QString other = tmp.filePath(QStringLiteral("other.safetensors"));
        qs::writeSafetensors(other.toStdString(), {{"encoder.proj.weight", qs::DType::F32, {8, 4}, bytesOf(w)}});
        const auto r = qstest::runCli({QStringLiteral("diff"), tmp.filePath(QStringLiteral("model.gguf")), other});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("nothing to compare"), r.err.constData());
        QVERIFY2(r.err.contains("A has GGUF names (3 weights: blk.0.attn_q.weight"), r.err.constData());
        QVERIFY2(r.err.contains("B has names of neither Hugging Face nor GGUF (1 weight: encoder.proj.weight)"),
                 r.err.constData());
    }

    // With the GGUF as A, the position of the worst q element is given in both sides' rows.
    void positionsInEachSidesRows()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        writePair(tmp.path(), false); // the permutation forgotten: q and k differ
        const auto r = qstest::runCli({QStringLiteral("diff"), tmp.filePath(QStringLiteral("model.gguf")),
                                       tmp.filePath(QStringLiteral("hf")), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        bool seen = false;
        for (const QJsonValue& v : parse(r.out).value(QStringLiteral("weights")).toArray()) {
            const QJsonObject w = v.toObject();
            if (w.value(QStringLiteral("name_a")).toString() != QStringLiteral("blk.0.attn_q.weight"))
                continue;
            seen = true;
            const QJsonArray a = w.value(QStringLiteral("max_at")).toArray(),
                             b = w.value(QStringLiteral("max_at_b")).toArray();
            QCOMPARE(a.at(1), b.at(1));
            // A's GGUF row g was compared with B's HF row whose permuted row is g.
            const int g = a.at(0).toInt(), hf = b.at(0).toInt(), headRows = int(kDim / kHeads), half = headRows / 2;
            QCOMPARE(g, hf / headRows * headRows + 2 * (hf % headRows % half) + hf % headRows / half);
            QVERIFY(g != hf);
        }
        QVERIFY(seen);
        const auto text = qstest::runCli(
            {QStringLiteral("diff"), tmp.filePath(QStringLiteral("model.gguf")), tmp.filePath(QStringLiteral("hf"))});
        QVERIFY2(text.out.contains(") in A, ("), text.out.constData());
    }

    void usage()
    {
        const QString f = variantFile(QStringLiteral("gptq-w4-g32-asym"));
        QCOMPARE(qstest::runCli({QStringLiteral("diff")}).exitCode, 2);
        QCOMPARE(qstest::runCli({QStringLiteral("diff"), f}).exitCode, 2);
        QCOMPARE(qstest::runCli({QStringLiteral("diff"), f, f, QStringLiteral("--tolerance"), QStringLiteral("-1")})
                     .exitCode,
                 2);
        QCOMPARE(
            qstest::runCli({QStringLiteral("diff"), f, f, QStringLiteral("--tolerance"), QStringLiteral("x")}).exitCode,
            2);
        const auto missing = qstest::runCli({QStringLiteral("diff"), f, QStringLiteral("/nonexistent/model.gguf")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains("/nonexistent/model.gguf"));
        const auto noWeight =
            qstest::runCli({QStringLiteral("diff"), f, f, QStringLiteral("--weight"), QStringLiteral("nope")});
        QCOMPARE(noWeight.exitCode, 2);
        QVERIFY(noWeight.err.contains("nope"));
        QCOMPARE(qstest::runCli({QStringLiteral("diff"), QStringLiteral("--help")}).exitCode, 0);
    }

    // A pair without a dequantizer (int64 codes) is skipped, but its shapes are still compared
    // (issue 29: [2, 2, 2] against [4, 2], same rows and columns, said "0 of 0 weights ... 1
    // skipped", passed); when every pair is skipped nothing was compared: exit 2, with why.
    void skippedPairs()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::vector<int64_t> codes{0, 1, 2, 3, 4, 5, 6, 7};
        const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(codes.data()), codes.size() * 8);
        const QString cube = tmp.filePath(QStringLiteral("cube.safetensors")),
                      flat = tmp.filePath(QStringLiteral("flat.safetensors"));
        qs::writeSafetensors(cube.toStdString(), {{"codes", qs::DType::I64, {2, 2, 2}, bytes}});
        qs::writeSafetensors(flat.toStdString(), {{"codes", qs::DType::I64, {4, 2}, bytes}});

        const qstest::CliResult r = qstest::runCli({QStringLiteral("diff"), cube, flat, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject o = parse(r.out);
        QCOMPARE(o.value(QStringLiteral("passed")).toBool(true), false);
        const QJsonArray m = o.value(QStringLiteral("shape_mismatches")).toArray();
        QCOMPARE(m.size(), 1);
        QCOMPARE(m.at(0).toObject().value(QStringLiteral("shape_a")).toArray(), (QJsonArray{2, 2, 2}));
        QCOMPARE(o.value(QStringLiteral("skipped")).toArray().size(), 0);

        for (const QStringList& extra : {QStringList{}, QStringList{QStringLiteral("--json")}}) {
            const qstest::CliResult same = qstest::runCli(QStringList{QStringLiteral("diff"), cube, cube} + extra);
            QCOMPARE(same.exitCode, 2);
            QVERIFY2(same.err.contains("nothing compared") && same.err.contains("codes: no dequantizer"),
                     same.err.constData());
            QVERIFY(same.out.isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestCliDiff)
#include "tst_cli_diff.moc"
