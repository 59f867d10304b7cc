// Repack through the logical matrix: A -> B -> A gives the original bytes (upstream fixtures,
// including the GPTQ v1 zero-0 spill), lossless conversions dequantize bit for bit, act-order
// into AWQ/GGUF sorts the input channels and records the permutation, GGUF targets report the
// error they cost, and impossible conversions are refused.
#include "analysis/quantize_checkpoint.h"
#include "analysis/repack.h"
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "formats/dequant.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>
#include <fstream>
#include <random>

using namespace qs;

namespace {

std::shared_ptr<const Checkpoint> fixture(const QString& variant)
{
    return openCheckpoint(
        qstest::fixture(QStringLiteral("safetensors/") + variant + QStringLiteral("/model.safetensors")).toStdString());
}

// A fixture under GGUF-style names (blk.0.mlp.down_proj...), which a GGUF output keeps.
std::shared_ptr<const Checkpoint> ggufNamed(const QTemporaryDir& tmp, const QString& variant)
{
    return openCheckpoint(qstest::ggufNamedCopy(qstest::fixture(QStringLiteral("safetensors/") + variant),
                                                tmp.filePath(variant + QStringLiteral("-gguf-names")))
                              .toStdString());
}

RepackResult repackTo(const Checkpoint& src, const QString& dir, const QString& to)
{
    RepackOptions o;
    o.to = to.toStdString();
    return repackCheckpoint(src, dir.toStdString(), o);
}

QJsonObject configOf(const std::string& dir)
{
    QFile f(QString::fromStdString(dir) + QStringLiteral("/config.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// A compressed-tensors (pack-quantized, symmetric 4-bit, F16 scales) checkpoint of one weight
// [N, K] quantized from seeded normal values; groupSize -1 = per channel.
QString ctWeight(const QTemporaryDir& tmp, const QString& name, uint64_t N, uint64_t K, int64_t groupSize)
{
    std::mt19937 rng(uint32_t(N * 131 + K));
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<uint16_t> w(N * K);
    for (uint16_t& h : w)
        h = floatToHalf(normal(rng));
    const QString src = tmp.filePath(name + QStringLiteral("-float"));
    QDir().mkpath(src);
    writeSafetensors((src + QStringLiteral("/model.safetensors")).toStdString(),
                     {{"model.layers.0.mlp.down_proj.weight",
                       DType::F16,
                       {N, K},
                       {reinterpret_cast<const uint8_t*>(w.data()), w.size() * 2}}});
    QuantizeCheckpointOptions o;
    o.format = "compressed-tensors";
    o.bits = 4;
    o.groupSize = groupSize;
    const QString out = tmp.filePath(name);
    quantizeCheckpoint(*openCheckpoint(src.toStdString()), out.toStdString(), o);
    return out;
}

uint64_t rssAnonKiB()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("RssAnon:", 0) == 0)
            return std::stoull(line.substr(8));
    return 0;
}

void sameTensors(const Checkpoint& a, const Checkpoint& c)
{
    QCOMPARE(c.tensors.size(), a.tensors.size());
    for (const TensorEntry& t : a.tensors) {
        const TensorEntry* u = c.find(t.name);
        QVERIFY2(u, std::string(t.name).c_str());
        QCOMPARE(u->dtype, t.dtype);
        QCOMPARE(u->shape, t.shape);
        const auto x = a.bytes(t), y = c.bytes(*u);
        QVERIFY2(std::equal(x.begin(), x.end(), y.begin(), y.end()), std::string(t.name).c_str());
    }
}

} // namespace

class TestRepack : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("via");
        QTest::addColumn<QString>("back");
        QTest::addRow("gptq v1 -> v2 -> v1 (w4 sym)") << "gptq-w4-g128-sym"
                                                      << "gptq-v2"
                                                      << "gptq-v1";
        QTest::addRow("gptq v1 -> v2 -> v1 (w2 asym, zero-0 spill)") << "gptq-w2-g32-asym"
                                                                     << "gptq-v2"
                                                                     << "gptq-v1";
        QTest::addRow("gptq v1 -> v2 -> v1 (w3 sym, straddling fields)") << "gptq-w3-g128-sym"
                                                                         << "gptq-v2"
                                                                         << "gptq-v1";
        QTest::addRow("gptq v1 -> v2 -> v1 (act-order)") << "gptq-w4-g128-asym-actorder"
                                                         << "gptq-v2"
                                                         << "gptq-v1";
        QTest::addRow("gptq -> awq -> gptq") << "gptq-w4-g32-asym"
                                             << "awq-gemm"
                                             << "gptq-v1";
        QTest::addRow("awq -> gptq v2 -> awq") << "awq-gemm-w4-g32"
                                               << "gptq-v2"
                                               << "awq-gemm";
        QTest::addRow("awq -> ct -> awq") << "awq-gemm-w4-g128"
                                          << "compressed-tensors"
                                          << "awq-gemm";
        QTest::addRow("gptq -> ct -> gptq (w8 sym)") << "gptq-w8-g128-sym"
                                                     << "compressed-tensors"
                                                     << "gptq-v1";
        QTest::addRow("gptq -> ct -> gptq (act-order, weight_g_idx)") << "gptq-w4-g32-sym-actorder"
                                                                      << "compressed-tensors"
                                                                      << "gptq-v1";
    }
    void roundTrip()
    {
        QFETCH(QString, variant);
        QFETCH(QString, via);
        QFETCH(QString, back);
        QTemporaryDir tmp;
        const auto a = fixture(variant);
        const RepackResult r1 = repackTo(*a, tmp.filePath(QStringLiteral("b")), via);
        const auto b = openCheckpoint(r1.output);
        const RepackResult r2 = repackTo(*b, tmp.filePath(QStringLiteral("c")), back);
        for (const RepackResult* r : {&r1, &r2})
            for (const RepackWeight& w : r->weights) {
                QVERIFY(w.verified);
                QVERIFY2(
                    w.exact,
                    qPrintable(QString::fromStdString(w.name) + QStringLiteral(" max error %1").arg(w.maxAbsError)));
            }
        const auto c = openCheckpoint(r2.output);
        for (const TensorEntry& t : a->tensors) {
            const TensorEntry* u = c->find(t.name);
            QVERIFY2(u, std::string(t.name).c_str());
            QCOMPARE(u->dtype, t.dtype);
            QCOMPARE(u->shape, t.shape);
            const auto x = a->bytes(t), y = c->bytes(*u);
            QVERIFY2(std::equal(x.begin(), x.end(), y.begin(), y.end()), std::string(t.name).c_str());
        }
        QCOMPARE(c->tensors.size(), a->tensors.size());
        for (const LogicalWeight& w : b->weights)
            QCOMPARE(QString::fromStdString(w.format), via);
        // The intermediate verifies without errors.
        QCOMPARE(verifyCheckpoint(*b).errors(), size_t(0));
    }

    void codesMatchTheOracle_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : {"gptq-w2-g32-asym", "gptq-w3-g128-sym", "gptq-w3-g32-asym", "gptq-w4-g128-asym-actorder",
                              "gptq-w4-g128-sym", "gptq-w8-g128-sym", "awq-gemm-w4-g32"})
            QTest::addRow("%s", v) << QString::fromLatin1(v);
        QTest::addRow("synthetic 3-bit 72x96 (a partial column block)") << QString();
    }
    void codesMatchTheOracle()
    {
        // readLogicalMatrix (the family's codes) reads GPTQ codes a word row of 64 columns at a
        // time; PackedLinear::codeAt is the element-by-element oracle.
        QFETCH(QString, variant);
        QTemporaryDir tmp;
        std::shared_ptr<const Checkpoint> c;
        if (variant.isEmpty()) {
            const uint64_t N = 72, K = 96, rows = K * 3 / 32;
            std::mt19937 rng(5);
            std::vector<uint32_t> qweight(rows * N), qzeros((N * 3 + 31) / 32), gIdx(K, 0);
            for (uint32_t& w : qweight)
                w = rng();
            for (uint32_t& w : qzeros)
                w = rng();
            std::vector<uint16_t> scales(N, floatToHalf(0.01f));
            const auto bytes = [](const auto& v) {
                return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(v[0]));
            };
            const std::string p = "model.layers.0.mlp.down_proj.";
            writeSafetensors(tmp.filePath(QStringLiteral("model.safetensors")).toStdString(),
                             {{p + "qweight", DType::I32, {rows, N}, bytes(qweight)},
                              {p + "qzeros", DType::I32, {1, qzeros.size()}, bytes(qzeros)},
                              {p + "scales", DType::F16, {1, N}, bytes(scales)},
                              {p + "g_idx", DType::I32, {K}, bytes(gIdx)}});
            QFile cfg(tmp.filePath(QStringLiteral("quantize_config.json")));
            QVERIFY(cfg.open(QIODevice::WriteOnly));
            cfg.write(R"({"bits": 3, "group_size": 96, "desc_act": false, "sym": false, "quant_method": "gptq"})");
            cfg.close();
            c = openCheckpoint(tmp.path().toStdString());
        } else {
            c = fixture(variant);
        }
        QVERIFY(!c->weights.empty());
        for (const LogicalWeight& w : c->weights) {
            const WeightCodes m = readLogicalMatrix(*c, w);
            const PackedLinear p = describePacked(WeightData{*c, w});
            std::vector<uint8_t> oracle(p.N * p.K);
            for (uint64_t n = 0; n < p.N; ++n)
                for (uint64_t k = 0; k < p.K; ++k)
                    oracle[n * p.K + k] = uint8_t(p.codeAt(n, k));
            QCOMPARE(m.codes.size(), oracle.size());
            QVERIFY2(m.codes == oracle, w.name.c_str());
            QVERIFY2(extractCodes(*c, w).codes == oracle, w.name.c_str());
        }
    }

    // Issue 30: a cancelled repack throws Cancelled, as every long piece of work does (it threw a
    // plain Error "repack: cancelled"), and leaves no output behind.
    void cancelThrowsCancelled()
    {
        QTemporaryDir tmp;
        const auto a = fixture(QStringLiteral("gptq-w4-g128-asym-actorder"));
        const std::atomic<bool> cancel{true};
        RepackOptions o;
        o.to = "awq-gemm";
        o.progress.cancel = &cancel;
        const QString out = tmp.filePath(QStringLiteral("awq"));
        QVERIFY_THROWS_EXCEPTION(Cancelled, repackCheckpoint(*a, out.toStdString(), o));
        QVERIFY(!QFileInfo::exists(out) || QDir(out).isEmpty());
    }

    void actOrderToAwq()
    {
        QTemporaryDir tmp;
        const auto a = fixture(QStringLiteral("gptq-w4-g128-asym-actorder"));
        const RepackResult r = repackTo(*a, tmp.filePath(QStringLiteral("awq")), QStringLiteral("awq-gemm"));
        QCOMPARE(r.weights.size(), size_t(1));
        QVERIFY(r.weights[0].permuted);
        QVERIFY(r.weights[0].exact); // compared column i with source column perm[i]
        const auto b = openCheckpoint(r.output);
        const std::string mod = r.weights[0].name;
        const TensorEntry* perm = b->find(mod + ".input_perm");
        QVERIFY(perm);
        QCOMPARE(perm->shape, (std::vector<uint64_t>{256}));
        // perm is a permutation of 0..K-1 that is not the identity.
        std::vector<int32_t> p(256);
        std::memcpy(p.data(), b->bytes(*perm).data(), 1024);
        std::vector<int32_t> sorted = p;
        std::sort(sorted.begin(), sorted.end());
        for (int32_t i = 0; i < 256; ++i)
            QCOMPARE(sorted[size_t(i)], i);
        QVERIFY(!std::is_sorted(p.begin(), p.end()));
        // Dropping the permutation (using the weight on the unpermuted input) is wrong: the
        // dequantized matrices differ column for column.
        const auto x = dequantizeWeight(*a, *a->findWeight(mod), SimdPath::Scalar);
        const auto y = dequantizeWeight(*b, *b->findWeight(mod), SimdPath::Scalar);
        QVERIFY(x != y);
        for (uint64_t n = 0; n < 128; n += 17)
            for (uint64_t i = 0; i < 256; ++i)
                QCOMPARE(std::bit_cast<uint32_t>(y[n * 256 + i]), std::bit_cast<uint32_t>(x[n * 256 + uint64_t(p[i])]));
        QFile cfg(QString::fromStdString(r.output) + QStringLiteral("/config.json"));
        QVERIFY(cfg.open(QIODevice::ReadOnly));
        const QJsonObject qc =
            QJsonDocument::fromJson(cfg.readAll()).object().value(QStringLiteral("quantization_config")).toObject();
        QCOMPARE(qc.value(QStringLiteral("quant_method")).toString(), QStringLiteral("awq"));
        QVERIFY(qc.value(QStringLiteral("input_permutations"))
                    .toObject()
                    .value(QStringLiteral("modules"))
                    .toArray()
                    .contains(QString::fromStdString(mod)));
    }

    void gguf_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("to");
        QTest::addColumn<bool>("exact");
        QTest::addRow("gptq w4 -> q8_0") << "gptq-w4-g32-asym"
                                         << "gguf-q8_0" << true;
        QTest::addRow("gptq w8 sym -> q8_0") << "gptq-w8-g128-sym"
                                             << "gguf-q8_0" << true;
        QTest::addRow("awq -> q4_1") << "awq-gemm-w4-g32"
                                     << "gguf-q4_1" << false;
        QTest::addRow("gptq w3 -> q5_1") << "gptq-w3-g32-asym"
                                         << "gguf-q5_1" << false;
        QTest::addRow("act-order -> q8_0") << "gptq-w4-g128-asym-actorder"
                                           << "gguf-q8_0" << true;
    }
    void gguf()
    {
        QFETCH(QString, variant);
        QFETCH(QString, to);
        QFETCH(bool, exact);
        QTemporaryDir tmp;
        const auto a = ggufNamed(tmp, variant);
        const RepackResult r = repackTo(*a, tmp.filePath(QStringLiteral("out.gguf")), to);
        const auto b = openCheckpoint(r.output);
        QCOMPARE(b->container, Container::Gguf);
        QVERIFY(b->meta("general.architecture") && b->meta("general.file_type"));
        for (const RepackWeight& w : r.weights) {
            QVERIFY(w.verified);
            QCOMPARE(w.exact, exact);
            // Q4_1/Q5_1 round the min -s*z to f16: half an f16 ulp of |s*z| <= 2 at most.
            QVERIFY2(w.maxAbsError < 1e-3, qPrintable(QString::number(w.maxAbsError)));
            QVERIFY(exact || w.mismatches > 0);
            QCOMPARE(QString::fromStdString(b->findWeight(w.name + ".weight")->format), to);
        }
        QCOMPARE(verifyCheckpoint(*b).errors(), size_t(0));
    }

    // MLX affine: bias = -scale * zero in the scales' dtype. A symmetric zero (2^(b-1)) makes
    // the bias exact; an asymmetric zero mostly does not fit an f16, and the note says how many
    // biases were rounded. MLX computes q * scale + bias in f16 (each step rounded), the source
    // in float32, so the weight is close but not bit-identical: the error is reported, small.
    // Act-order is sorted as for AWQ.
    void mlx_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<bool>("biasesExact");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addRow("gptq w4 g128 sym") << "gptq-w4-g128-sym" << true << 4 << 128;
        QTest::addRow("gptq w3 g128 sym") << "gptq-w3-g128-sym" << true << 3 << 128;
        QTest::addRow("gptq w8 g128 sym") << "gptq-w8-g128-sym" << true << 8 << 128;
        QTest::addRow("gptq w4 g32 asym") << "gptq-w4-g32-asym" << false << 4 << 32;
        QTest::addRow("awq w4 g32") << "awq-gemm-w4-g32" << false << 4 << 32;
        QTest::addRow("act-order w4 g32 sym") << "gptq-w4-g32-sym-actorder" << true << 4 << 32;
        QTest::addRow("ct w4 g128 sym (F32 scales)") << "ct-pack-w4a16-g128-sym" << true << 4 << 128;
    }
    void mlx()
    {
        QFETCH(QString, variant);
        QFETCH(bool, biasesExact);
        QFETCH(int, bits);
        QFETCH(int, group);
        QTemporaryDir tmp;
        const auto a = fixture(variant);
        const RepackResult r = repackTo(*a, tmp.filePath(QStringLiteral("mlx")), QStringLiteral("mlx"));
        const auto b = openCheckpoint(r.output);
        for (const RepackWeight& w : r.weights) {
            QVERIFY(w.verified);
            QVERIFY(!w.exact);
            QVERIFY(w.mismatches > 0);
            QCOMPARE(QString::fromStdString(w.note).contains(QStringLiteral("biases")), !biasesExact);
            const LogicalWeight* s = a->findWeight(w.name);
            const int si = s->member("scales") >= 0 ? s->member("scales") : s->member("weight_scale");
            QVERIFY(si >= 0);
            const DType st = a->tensors[size_t(si)].dtype;
            QVERIFY(QString::fromStdString(w.note).contains(QString::fromLatin1(dtypeName(st).data())
                                                            + QStringLiteral(" arithmetic")));
            // f16 rounding of values below 0.5: under 2^-12 per rounding step.
            QVERIFY2(w.maxAbsError < 1e-3, qPrintable(QString::number(w.maxAbsError)));
            const LogicalWeight* m = b->findWeight(w.name);
            QVERIFY(m);
            QCOMPARE(m->format, std::string("mlx-affine"));
            QCOMPARE(m->bits, bits);
            const TensorEntry& scales = b->tensors[size_t(m->member("scales"))];
            const TensorEntry& biases = b->tensors[size_t(m->member("biases"))];
            QCOMPARE(scales.dtype, st); // the source's scale dtype
            QCOMPARE(biases.dtype, st);
            QCOMPARE(scales.shape, (std::vector<uint64_t>{s->outFeatures(), s->inFeatures() / uint64_t(group)}));
        }
        QCOMPARE(r.notes.size(), r.weights.size());
        const QJsonObject q = configOf(r.output).value(QStringLiteral("quantization")).toObject();
        QCOMPARE(q.value(QStringLiteral("group_size")).toInt(), group);
        QCOMPARE(q.value(QStringLiteral("bits")).toInt(), bits);
        QCOMPARE(verifyCheckpoint(*b).errors(), size_t(0));
    }

    // Odd dimensions: compressed-tensors pads its words and records weight_shape, so odd K and
    // N go through it and back byte for byte; AWQ takes odd K (one group per row) and returns it
    // unchanged, refuses odd N with AutoAWQ's reason; GGUF stores a K that is not whole blocks
    // as F32, exactly; MLX takes odd N.
    void oddDimensions()
    {
        QTemporaryDir tmp;
        const auto oddK = openCheckpoint(ctWeight(tmp, QStringLiteral("k75"), 40, 75, -1).toStdString());
        const auto oddN = openCheckpoint(ctWeight(tmp, QStringLiteral("n37"), 37, 64, 32).toStdString());
        const auto oddBoth = openCheckpoint(ctWeight(tmp, QStringLiteral("nk"), 37, 75, -1).toStdString());
        QCOMPARE(oddK->weights.front().format, std::string("compressed-tensors"));
        QCOMPARE(oddBoth->weights.front().inFeatures(), uint64_t(75));

        const auto exactAll = [](const RepackResult& r) {
            for (const RepackWeight& w : r.weights)
                if (!w.verified || !w.exact)
                    return false;
            return true;
        };
        // A -> B -> A, bytes equal.
        struct Trip {
            const Checkpoint* a;
            const char* via;
        };
        for (const Trip& t : {Trip{oddK.get(), "awq-gemm"}, Trip{oddN.get(), "gptq-v2"},
                              Trip{oddBoth.get(), "compressed-tensors"}, Trip{oddBoth.get(), "gptq-v1"}}) {
            const QString name = QString::fromLatin1(t.via);
            const RepackResult r1 = repackTo(
                *t.a, tmp.filePath(name + QStringLiteral("-b-") + QString::number(t.a->weights.front().inFeatures())),
                name);
            QVERIFY2(exactAll(r1), t.via);
            const auto b = openCheckpoint(r1.output);
            QCOMPARE(b->weights.front().outFeatures(), t.a->weights.front().outFeatures());
            QCOMPARE(b->weights.front().inFeatures(), t.a->weights.front().inFeatures());
            QCOMPARE(verifyCheckpoint(*b).errors(), size_t(0));
            const RepackResult r2 = repackTo(
                *b, tmp.filePath(name + QStringLiteral("-c-") + QString::number(t.a->weights.front().inFeatures())),
                QStringLiteral("compressed-tensors"));
            QVERIFY2(exactAll(r2), t.via);
            sameTensors(*t.a, *openCheckpoint(r2.output));
        }

        // GGUF: K = 75 is not whole 32-weight blocks: F32, exact, with a note.
        const auto oddBothGguf = openCheckpoint(
            qstest::ggufNamedCopy(QString::fromStdString(oddBoth->path), tmp.filePath(QStringLiteral("nk-gguf-names")))
                .toStdString());
        const RepackResult g = repackTo(*oddBothGguf, tmp.filePath(QStringLiteral("odd.gguf")), QStringLiteral("q8_0"));
        QVERIFY(exactAll(g));
        QVERIFY(QString::fromStdString(g.weights.front().note).contains(QStringLiteral("F32")));
        const auto gb = openCheckpoint(g.output);
        QCOMPARE(gb->findWeight(g.weights.front().name + ".weight")->format, std::string("gguf-f32"));
        // An all-float file: verify says it checked nothing (issue 14), and finds nothing else.
        const VerifyReport floats = verifyCheckpoint(*gb);
        QCOMPARE(floats.errors(), size_t(1));
        QCOMPARE(floats.findings.back().check, std::string("nothing-checked"));

        // AWQ refuses odd N, naming the weight and the reason; nothing is left behind.
        const QString awq = tmp.filePath(QStringLiteral("awq-odd-n"));
        try {
            repackTo(*oddN, awq, QStringLiteral("awq"));
            QFAIL("odd N repacked into AWQ");
        } catch (const Error& e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY2(msg.contains(QStringLiteral("down_proj")) && msg.contains(QStringLiteral("out_features % 8")),
                     e.what());
        }
        QVERIFY(!QFile::exists(awq));

        // MLX: odd N, groups of 32 (its f16 arithmetic costs a reported rounding error).
        const RepackResult m = repackTo(*oddN, tmp.filePath(QStringLiteral("mlx-odd-n")), QStringLiteral("mlx"));
        QVERIFY(m.weights.front().verified && m.weights.front().maxAbsError < 1e-3);
        QCOMPARE(openCheckpoint(m.output)->weights.front().outFeatures(), uint64_t(37));
    }

    // The output streams weight by weight: repacking 32 weights holds about one weight's
    // output in memory, not the whole checkpoint's (anonymous RSS sampled after each weight).
    void streamsInConstantMemory()
    {
        QTemporaryDir tmp;
        constexpr uint64_t N = 256, K = 4096, G = K / 128, weights = 32;
        std::mt19937 rng(3);
        std::vector<uint32_t> qweight(K / 8 * N), qzeros(G * N / 8, 0x77777777u); // v1 symmetric: z = 8
        std::vector<uint16_t> scales(G * N);
        std::vector<int32_t> gIdx(K);
        for (uint32_t& w : qweight)
            w = uint32_t(rng());
        for (uint16_t& h : scales)
            h = floatToHalf(0.001f + float(rng() % 1000) * 1e-6f);
        for (uint64_t k = 0; k < K; ++k)
            gIdx[k] = int32_t(k / 128);
        const auto bytes = [](const auto& v) {
            return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(v[0]));
        };
        std::vector<SafetensorsTensor> ts;
        std::vector<std::string> names;
        for (uint64_t i = 0; i < weights; ++i)
            names.push_back("model.layers." + std::to_string(i) + ".mlp.up_proj");
        for (const std::string& p : names) {
            ts.push_back({p + ".qweight", DType::I32, {K / 8, N}, bytes(qweight)});
            ts.push_back({p + ".qzeros", DType::I32, {G, N / 8}, bytes(qzeros)});
            ts.push_back({p + ".scales", DType::F16, {G, N}, bytes(scales)});
            ts.push_back({p + ".g_idx", DType::I32, {K}, bytes(gIdx)});
        }
        const QString src = tmp.filePath(QStringLiteral("src"));
        QDir().mkpath(src);
        writeSafetensors((src + QStringLiteral("/model.safetensors")).toStdString(), ts);
        QFile cfg(src + QStringLiteral("/config.json"));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write(
            R"({"model_type": "llama", "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128,
                     "desc_act": false, "sym": true, "checkpoint_format": "gptq"}})");
        cfg.close();
        ts.clear();
        const auto a = openCheckpoint(src.toStdString());
        QCOMPARE(a->weights.size(), size_t(weights));

        RepackOptions o;
        o.to = "awq-gemm";
        o.verify = false; // the writer's memory, not the comparison's two float copies
        const uint64_t before = rssAnonKiB();
        uint64_t peak = before;
        o.progress.report = [&](size_t, size_t, const std::string&) { peak = std::max(peak, rssAnonKiB()); };
        const RepackResult r = repackCheckpoint(*a, tmp.filePath(QStringLiteral("awq")).toStdString(), o);
        QCOMPARE(r.weights.size(), size_t(weights));
        const uint64_t outputKiB =
            uint64_t(QFileInfo(tmp.filePath(QStringLiteral("awq/model.safetensors"))).size()) / 1024;
        const uint64_t grew = peak - before;
        qInfo("repack of %llu weights: output %llu KiB, anonymous RSS grew by at most %llu KiB",
              static_cast<unsigned long long>(weights), static_cast<unsigned long long>(outputKiB),
              static_cast<unsigned long long>(grew));
        // One weight's codes (1 MiB) and output (0.5 MiB) are in memory at a time; the whole
        // output held in memory would be 17 MiB.
        if (!qstest::kAsan) // ASan's redzones and quarantine make peak RSS meaningless
            QVERIFY2(grew < outputKiB / 4, qPrintable(QStringLiteral("%1 KiB of %2").arg(grew).arg(outputKiB)));
        const auto b = openCheckpoint(r.output);
        QCOMPARE(b->weights.size(), size_t(weights));
        QCOMPARE(b->weights.back().format, std::string("awq-gemm"));
    }

    // quantize's per-channel asymmetric GPTQ of K = 100 (every row's zero comes out 7) into v2,
    // and back: the v2 output, whose constant zeros look like v1's symmetric ones, reads back as
    // gptq-v2 by its checkpoint_format and dequantizes bit for bit (it failed verify, issue 29).
    void perChannelAsymmetricIntoV2()
    {
        QTemporaryDir tmp;
        QuantizeCheckpointOptions q;
        q.format = "gptq-v1";
        q.groupSize = -1;
        const std::string k100 = tmp.filePath(QStringLiteral("k100")).toStdString();
        quantizeCheckpoint(
            *openCheckpoint(qstest::fixture(QStringLiteral("real/ollama/minicpm3-4b-model.safetensors")).toStdString()),
            k100, q);
        const auto src = openCheckpoint(k100);
        const RepackResult v2 = repackTo(*src, tmp.filePath(QStringLiteral("v2")), QStringLiteral("gptq-v2"));
        QCOMPARE(v2.weights.size(), size_t(8));
        for (const RepackWeight& w : v2.weights)
            QVERIFY2(w.verified && w.exact, w.name.c_str());
        const auto b = openCheckpoint(v2.output);
        for (const LogicalWeight& w : b->weights)
            if (w.name.ends_with("_proj"))
                QCOMPARE(w.format, std::string("gptq-v2"));
        const RepackResult v1 = repackTo(*b, tmp.filePath(QStringLiteral("v1")), QStringLiteral("gptq-v1"));
        sameTensors(*src, *openCheckpoint(v1.output));
    }

    // The targets are the formats whose traits say so; ids and aliases through the one parser.
    // A cancel between weights, into either output, throws and leaves nothing behind; progress
    // counts each weight written, then each weight verified, out of twice their number.
    void progressAndCancel_data()
    {
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("name");
        QTest::addRow("gguf") << "gguf-q8_0"
                              << "out.gguf";
        QTest::addRow("safetensors") << "awq-gemm"
                                     << "out";
    }
    void progressAndCancel()
    {
        QFETCH(QString, to);
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const bool gguf = name.endsWith(QStringLiteral(".gguf"));
        const QString variant = QStringLiteral("gptq-w4-g128-asym-actorder");
        const auto src = gguf ? ggufNamed(tmp, variant) : fixture(variant);
        RepackOptions o;
        o.to = to.toStdString();
        std::vector<size_t> done;
        o.progress.report = [&](size_t d, size_t total, const std::string& w) {
            QCOMPARE(total, size_t(2));
            QCOMPARE(w, std::string(gguf ? "blk.0.mlp.down_proj" : "model.layers.0.mlp.down_proj"));
            done.push_back(d);
        };
        repackCheckpoint(*src, tmp.filePath(name).toStdString(), o);
        QCOMPARE(done, (std::vector<size_t>{1, 2}));

        QTemporaryDir empty;
        std::atomic<bool> cancel{true};
        o.progress.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, repackCheckpoint(*src, empty.filePath(name).toStdString(), o));
        QCOMPARE(QDir(empty.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
    }

    // The output is verified before it is committed: a cancel during verification leaves
    // nothing under the output's name and no temporary file, and an existing folder written
    // into with force keeps its files as they were (issue 29: the verified output was already
    // in place, and a failed verification exited 2 with it left there).
    void cancelDuringVerifyLeavesNothing_data() { progressAndCancel_data(); }
    void cancelDuringVerifyLeavesNothing()
    {
        QFETCH(QString, to);
        QFETCH(QString, name);
        QTemporaryDir names;
        const QString variant = QStringLiteral("gptq-w4-g128-asym-actorder");
        const auto src = name.endsWith(QStringLiteral(".gguf")) ? ggufNamed(names, variant) : fixture(variant);
        RepackOptions o;
        o.to = to.toStdString();
        std::atomic<bool> cancel{false};
        o.progress.cancel = &cancel;
        o.progress.report = [&](size_t done, size_t, const std::string&) { cancel = done == 1; }; // 1 weight written
        QTemporaryDir empty;
        QVERIFY_THROWS_EXCEPTION(Cancelled, repackCheckpoint(*src, empty.filePath(name).toStdString(), o));
        QCOMPARE(QDir(empty.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
        if (name.endsWith(QStringLiteral(".gguf")))
            return;
        QTemporaryDir existing;
        const QString out = existing.filePath(name);
        QDir().mkpath(out);
        QFile old(out + QStringLiteral("/config.json"));
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("old");
        old.close();
        o.force = true;
        cancel = false;
        QVERIFY_THROWS_EXCEPTION(Cancelled, repackCheckpoint(*src, out.toStdString(), o));
        QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("config.json")});
        QVERIFY(old.open(QIODevice::ReadOnly));
        QCOMPARE(old.readAll(), QByteArray("old"));
    }

    // A GGUF output keeps tensor names and llama.cpp loads no Hugging Face names: repack refuses
    // them by the rule quantize follows, with the same message naming the tensor, and writes
    // nothing (it wrote model.layers.0.mlp.down_proj.weight into the GGUF file, issue 29).
    void ggufRefusesHuggingFaceNames()
    {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("out.gguf"));
        std::string repackError, quantizeError;
        try {
            repackTo(*fixture(QStringLiteral("gptq-w4-g128-sym")), out, QStringLiteral("q8_0"));
        } catch (const Error& e) {
            repackError = e.what();
        }
        QVERIFY2(repackError.find("'model.layers.0.mlp.down_proj.g_idx' is not a GGUF name") != std::string::npos,
                 repackError.c_str());
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
        QuantizeCheckpointOptions q;
        q.format = "q8_0";
        const auto floats =
            openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
        try {
            quantizeCheckpoint(*floats, out.toStdString(), q);
        } catch (const Error& e) {
            quantizeError = e.what();
        }
        const std::string rule = "is not a GGUF name (blk.N.*, token_embd, output...), which llama.cpp cannot load: "
                                 "use a GGUF input, or convert the names first";
        QVERIFY2(repackError.find(rule) != std::string::npos, repackError.c_str());
        QVERIFY2(quantizeError.find(rule) != std::string::npos, quantizeError.c_str());
        QVERIFY(!QFile::exists(out));
    }

    void targets()
    {
        QCOMPARE(repackTargets(),
                 (std::vector<std::string>{"gptq-v1", "gptq-v2", "awq-gemm", "compressed-tensors", "mlx-affine",
                                           "gguf-q4_1", "gguf-q5_1", "gguf-q8_0"}));
        QCOMPARE(parseRepackTarget("gptq").id, std::string("gptq-v1"));
        QCOMPARE(parseRepackTarget(" AWQ ").id, std::string("awq-gemm"));
        QCOMPARE(parseRepackTarget("ct").id, std::string("compressed-tensors"));
        QCOMPARE(parseRepackTarget("mlx").id, std::string("mlx-affine"));
        QCOMPARE(parseRepackTarget("q5_1").id, std::string("gguf-q5_1"));
        try {
            parseRepackTarget("nf4");
            QFAIL("bnb-nf4 is not a repack target");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("--to: repack cannot produce 'nf4'; targets: gptq-v1, gptq-v2, "
                                 "awq-gemm, compressed-tensors, mlx-affine, gguf-q4_1, gguf-q5_1, "
                                 "gguf-q8_0"));
        }
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("to");
        QTest::addRow("8-bit into AWQ") << "gptq-w8-g128-sym"
                                        << "awq-gemm";
        QTest::addRow("8-bit into Q4_1") << "gptq-w8-g128-sym"
                                         << "gguf-q4_1";
        // The reference v1 rule reads a 3-bit field 7 as z = 8, which a 3-bit v2 field cannot hold.
        QTest::addRow("3-bit v1 zero 8 into v2") << "gptq-w3-g32-asym"
                                                 << "gptq-v2";
        QTest::addRow("not a target") << "gptq-w4-g128-sym"
                                      << "hqq";
        QTest::addRow("MLX groups are 32, 64 or 128") << "ct-pack-w4a16-channel-asym"
                                                      << "mlx-affine";
        QTest::addRow("bnb has no integer zeros") << "bnb-nf4"
                                                  << "gptq-v2";
    }
    void refusals()
    {
        QFETCH(QString, variant);
        QFETCH(QString, to);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("x"));
        QVERIFY_THROWS_EXCEPTION(Error, repackTo(*fixture(variant), out, to));
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestRepack)
#include "tst_repack.moc"
