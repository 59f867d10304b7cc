// Repack through the logical matrix: A -> B -> A gives the original bytes (upstream fixtures,
// including the GPTQ v1 zero-0 spill), lossless conversions dequantize bit for bit, act-order
// into AWQ/GGUF sorts the input channels and records the permutation, GGUF targets report the
// error they cost, and impossible conversions are refused.
#include "analysis/repack.h"
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "error.h"
#include "kernels/dequant.h"

#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>

using namespace qs;

namespace {

std::shared_ptr<const Checkpoint> fixture(const QString& variant)
{
    return Checkpoint::open(qstest::fixture(QStringLiteral("safetensors/") + variant + QStringLiteral("/model.safetensors")).toStdString());
}

RepackResult repackTo(const Checkpoint& src, const QString& dir, const QString& to)
{
    RepackOptions o;
    o.to = to.toStdString();
    return repackCheckpoint(src, dir.toStdString(), o);
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
        QTest::addRow("gptq v1 -> v2 -> v1 (w4 sym)") << "gptq-w4-g128-sym" << "gptq-v2" << "gptq-v1";
        QTest::addRow("gptq v1 -> v2 -> v1 (w2 asym, zero-0 spill)") << "gptq-w2-g32-asym" << "gptq-v2" << "gptq-v1";
        QTest::addRow("gptq v1 -> v2 -> v1 (w3 sym, straddling fields)") << "gptq-w3-g128-sym" << "gptq-v2" << "gptq-v1";
        QTest::addRow("gptq v1 -> v2 -> v1 (act-order)") << "gptq-w4-g128-asym-actorder" << "gptq-v2" << "gptq-v1";
        QTest::addRow("gptq -> awq -> gptq") << "gptq-w4-g32-asym" << "awq-gemm" << "gptq-v1";
        QTest::addRow("awq -> gptq v2 -> awq") << "awq-gemm-w4-g32" << "gptq-v2" << "awq-gemm";
        QTest::addRow("awq -> ct -> awq") << "awq-gemm-w4-g128" << "compressed-tensors" << "awq-gemm";
        QTest::addRow("gptq -> ct -> gptq (w8 sym)") << "gptq-w8-g128-sym" << "compressed-tensors" << "gptq-v1";
        QTest::addRow("gptq -> ct -> gptq (act-order, weight_g_idx)") << "gptq-w4-g32-sym-actorder" << "compressed-tensors" << "gptq-v1";
    }
    void roundTrip()
    {
        QFETCH(QString, variant);
        QFETCH(QString, via);
        QFETCH(QString, back);
        QTemporaryDir tmp;
        const auto a = fixture(variant);
        const RepackResult r1 = repackTo(*a, tmp.filePath(QStringLiteral("b")), via);
        const auto b = Checkpoint::open(r1.output);
        const RepackResult r2 = repackTo(*b, tmp.filePath(QStringLiteral("c")), back);
        for (const RepackResult* r : {&r1, &r2})
            for (const RepackWeight& w : r->weights) {
                QVERIFY(w.verified);
                QVERIFY2(w.exact, qPrintable(QString::fromStdString(w.name) + QStringLiteral(" max error %1").arg(w.maxAbsError)));
            }
        const auto c = Checkpoint::open(r2.output);
        for (const TensorEntry& t : a->tensors) {
            const TensorEntry* u = c->find(t.name);
            QVERIFY2(u, t.name.c_str());
            QCOMPARE(u->dtype, t.dtype);
            QCOMPARE(u->shape, t.shape);
            const auto x = a->bytes(t), y = c->bytes(*u);
            QVERIFY2(std::equal(x.begin(), x.end(), y.begin(), y.end()), t.name.c_str());
        }
        QCOMPARE(c->tensors.size(), a->tensors.size());
        for (const LogicalWeight& w : b->weights)
            QCOMPARE(QString::fromStdString(w.format), via);
        // The intermediate verifies without errors.
        QCOMPARE(verifyCheckpoint(*b).errors(), size_t(0));
    }

    void actOrderToAwq()
    {
        QTemporaryDir tmp;
        const auto a = fixture(QStringLiteral("gptq-w4-g128-asym-actorder"));
        const RepackResult r = repackTo(*a, tmp.filePath(QStringLiteral("awq")), QStringLiteral("awq-gemm"));
        QCOMPARE(r.weights.size(), size_t(1));
        QVERIFY(r.weights[0].permuted);
        QVERIFY(r.weights[0].exact); // compared column i with source column perm[i]
        const auto b = Checkpoint::open(r.output);
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
        const QJsonObject qc = QJsonDocument::fromJson(cfg.readAll()).object().value(QStringLiteral("quantization_config")).toObject();
        QCOMPARE(qc.value(QStringLiteral("quant_method")).toString(), QStringLiteral("awq"));
        QVERIFY(qc.value(QStringLiteral("input_permutations")).toObject().value(QStringLiteral("modules")).toArray().contains(
            QString::fromStdString(mod)));
    }

    void gguf_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("to");
        QTest::addColumn<bool>("exact");
        QTest::addRow("gptq w4 -> q8_0") << "gptq-w4-g32-asym" << "gguf-q8_0" << true;
        QTest::addRow("gptq w8 sym -> q8_0") << "gptq-w8-g128-sym" << "gguf-q8_0" << true;
        QTest::addRow("awq -> q4_1") << "awq-gemm-w4-g32" << "gguf-q4_1" << false;
        QTest::addRow("gptq w3 -> q5_1") << "gptq-w3-g32-asym" << "gguf-q5_1" << false;
        QTest::addRow("act-order -> q8_0") << "gptq-w4-g128-asym-actorder" << "gguf-q8_0" << true;
    }
    void gguf()
    {
        QFETCH(QString, variant);
        QFETCH(QString, to);
        QFETCH(bool, exact);
        QTemporaryDir tmp;
        const auto a = fixture(variant);
        const RepackResult r = repackTo(*a, tmp.filePath(QStringLiteral("out.gguf")), to);
        const auto b = Checkpoint::open(r.output);
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

    void refusals_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("to");
        QTest::addRow("8-bit into AWQ") << "gptq-w8-g128-sym" << "awq-gemm";
        QTest::addRow("8-bit into Q4_1") << "gptq-w8-g128-sym" << "gguf-q4_1";
        // The reference v1 rule reads a 3-bit field 7 as z = 8, which a 3-bit v2 field cannot hold.
        QTest::addRow("3-bit v1 zero 8 into v2") << "gptq-w3-g32-asym" << "gptq-v2";
        QTest::addRow("not a target") << "gptq-w4-g128-sym" << "mlx-affine";
        QTest::addRow("bnb has no integer zeros") << "bnb-nf4" << "gptq-v2";
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
