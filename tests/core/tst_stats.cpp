// Error statistics: every GPTQ/AWQ fixture against its ref.safetensors (upstream's f16
// rounding of our exact float32 values, checked element by element), and against the true float sources,
// where the test recomputes RMSE, max, mean and the percentiles on its own from the full
// dequantized weight and the source tensor.
#include "analysis/stats.h"
#include "container/checkpoint.h"
#include "error.h"
#include "kernels/dequant.h"
#include "kernels/half.h"

#include "testsupport.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace qs;

namespace {

const char* const kVariants[] = {
    "gptq-w2-g32-asym", "gptq-w3-g128-sym", "gptq-w3-g32-asym", "gptq-w4-g128-asym-actorder", "gptq-w4-g128-sym",
    "gptq-w4-g32-asym", "gptq-w4-g32-sym-actorder", "gptq-w8-g128-sym", "awq-gemm-w4-g128", "awq-gemm-w4-g32",
};

std::string fixturePath(const QString& rel)
{
    return qstest::fixture(QStringLiteral("safetensors/") + rel).toStdString();
}

std::vector<float> readF32(const Checkpoint& c, const TensorEntry& t)
{
    std::vector<float> v(t.elementCount());
    std::memcpy(v.data(), c.bytes(t).data(), v.size() * 4);
    return v;
}

// Nearest-rank percentile of a sorted vector.
double rankOf(const std::vector<double>& sorted, double p)
{
    size_t r = size_t(std::ceil(p * double(sorted.size())));
    return sorted[std::clamp<size_t>(r, 1, sorted.size()) - 1];
}

} // namespace

class TestStats : public QObject {
    Q_OBJECT
private slots:
    void againstRef_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : kVariants)
            QTest::addRow("%s", v) << QString::fromLatin1(v);
    }
    void againstRef()
    {
        QFETCH(QString, variant);
        const auto ckpt = Checkpoint::open(fixturePath(variant + QStringLiteral("/model.safetensors")));
        const auto ref = Checkpoint::open(fixturePath(variant + QStringLiteral("/ref.safetensors")));
        int compared = 0;
        for (const LogicalWeight& w : ckpt->weights) {
            if (!canDequantize(w.format))
                continue;
            const TensorEntry* t = findReference(*ref, w);
            QVERIFY2(t, w.name.c_str());
            StatsOptions opt;
            opt.rowChunk = 7; // slices that do not divide N
            const WeightComparison c = compareWeight(*ckpt, w, *ref, *t, opt);
            // Our kernels return the exact float32 s * (q - z); upstream rounds it to f16 once.
            // So the reference is exactly our value rounded to f16, and the error is that rounding.
            const std::vector<float> q = dequantizeWeight(*ckpt, w, SimdPath::Scalar);
            const std::vector<float> r = readF32(*ref, *t);
            QCOMPARE(q.size(), r.size());
            double sq = 0, mx = 0;
            for (size_t i = 0; i < q.size(); ++i) {
                QCOMPARE(r[i], halfToFloat(floatToHalf(q[i])));
                const double e = double(q[i]) - double(r[i]);
                sq += e * e;
                mx = std::max(mx, std::fabs(e));
                // At most half an f16 ulp of the value (normal range: 2^-11 relative).
                QVERIFY(std::fabs(e) <= std::ldexp(std::fabs(double(r[i])), -11) + std::ldexp(1.0, -25));
            }
            QCOMPARE(c.error.count, w.elementCount());
            QCOMPARE(c.error.rmse, std::sqrt(sq / double(q.size())));
            QCOMPARE(c.error.maxAbs, mx);
            QVERIFY(c.error.p999 <= mx);
            QVERIFY(c.error.sqnrDb > 60); // f16 rounding: about 70 dB
            QVERIFY(c.output.relativeError < 1e-3);
            QVERIFY(c.output.cosine > 0.999999);
            QCOMPARE(c.error.signedError.total(), w.elementCount());
            QVERIFY(c.error.percentilesExact);
            ++compared;
        }
        QCOMPARE(compared, variant.contains(QLatin1String("g32")) ? 2 : 1); // g32 variants also carry q_proj
    }

    void againstSources_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("source");
        for (const char* v : kVariants) {
            QTest::addRow("%s down_proj", v) << QString::fromLatin1(v) << QStringLiteral("model.layers.0.mlp.down_proj")
                                             << QStringLiteral("synthetic.W_128x256");
            if (std::strstr(v, "g32"))
                QTest::addRow("%s q_proj", v) << QString::fromLatin1(v) << QStringLiteral("model.layers.0.self_attn.q_proj")
                                          << QStringLiteral("stories260K.layers.0.wq");
        }
    }
    void againstSources()
    {
        QFETCH(QString, variant);
        QFETCH(QString, module);
        QFETCH(QString, source);
        const auto ckpt = Checkpoint::open(fixturePath(variant + QStringLiteral("/model.safetensors")));
        const auto src = Checkpoint::open(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = ckpt->findWeight(module.toStdString());
        QVERIFY(w);
        const TensorEntry* t = src->find(source.toStdString());
        QVERIFY(t);
        StatsOptions opt;
        opt.bins = 10;
        const WeightComparison c = compareWeight(*ckpt, *w, *src, *t, opt);

        const std::vector<float> q = dequantizeWeight(*ckpt, *w, SimdPath::Scalar);
        const std::vector<float> r = readF32(*src, *t);
        QCOMPARE(q.size(), r.size());
        double sq = 0, abs = 0, mx = 0, refSq = 0;
        std::vector<double> a;
        for (size_t i = 0; i < q.size(); ++i) {
            const double e = double(q[i]) - double(r[i]);
            sq += e * e;
            abs += std::fabs(e);
            mx = std::max(mx, std::fabs(e));
            refSq += double(r[i]) * double(r[i]);
            a.push_back(double(float(std::fabs(e))));
        }
        std::sort(a.begin(), a.end());
        const double n = double(q.size());
        QCOMPARE(c.error.rmse, std::sqrt(sq / n));
        QCOMPARE(c.error.meanAbs, abs / n);
        QCOMPARE(c.error.maxAbs, mx);
        QCOMPARE(c.error.sqnrDb, 10.0 * std::log10(refSq / sq));
        QCOMPARE(c.error.p50, rankOf(a, 0.5));
        QCOMPARE(c.error.p95, rankOf(a, 0.95));
        QCOMPARE(c.error.p99, rankOf(a, 0.99));
        QCOMPARE(c.error.p999, rankOf(a, 0.999));
        QVERIFY(c.error.p50 <= c.error.p95 && c.error.p999 <= c.error.maxAbs);
        QCOMPARE(c.error.signedError.total(), uint64_t(q.size()));
        QCOMPARE(c.error.signedError.counts.size(), size_t(10));
        // A real quantizer: some error, but the weight is still recognisably the source.
        QVERIFY(c.error.rmse > 0);
        // 2- and 3-bit with the upstream zero spill are far off; only the direction is asserted.
        QVERIFY(c.output.relativeError > 0);
        QVERIFY(c.output.cosine < 1.0);
        // Per-group RMSE recombines to the whole-weight RMSE (equal-sized groups here).
        if (!c.error.groups.empty()) {
            double g2 = 0;
            for (const GroupError& g : c.error.groups)
                g2 += g.rmse * g.rmse;
            QVERIFY(std::fabs(std::sqrt(g2 / double(c.error.groups.size())) - c.error.rmse) <= 1e-9 * c.error.rmse);
        }
    }

    void histogramsWithoutReference()
    {
        const auto ckpt = Checkpoint::open(fixturePath(QStringLiteral("gptq-w4-g32-asym/model.safetensors")));
        const LogicalWeight* w = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        StatsOptions opt;
        opt.bins = 16;
        const WeightHistograms h = weightHistograms(*ckpt, *w, opt);
        const std::vector<float> q = dequantizeWeight(*ckpt, *w, SimdPath::Scalar);
        QCOMPARE(h.values.total(), uint64_t(q.size()));
        QCOMPARE(h.minValue, double(*std::min_element(q.begin(), q.end())));
        QCOMPARE(h.maxValue, double(*std::max_element(q.begin(), q.end())));
        const WeightCodes codes = extractCodes(*ckpt, *w);
        QCOMPARE(h.codes.size(), size_t(16));
        std::vector<uint64_t> expect(16, 0);
        for (uint8_t v : codes.codes)
            ++expect[v];
        QCOMPARE(h.codes, expect);
        QCOMPARE(h.scales.total(), uint64_t(codes.scales.size()));
    }

    void shapeMismatchThrows()
    {
        const auto ckpt = Checkpoint::open(fixturePath(QStringLiteral("gptq-w4-g128-sym/model.safetensors")));
        const auto src = Checkpoint::open(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        QVERIFY_THROWS_EXCEPTION(Error, compareWeight(*ckpt, *w, *src, *src->find("stories260K.layers.0.wq"), {}));
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
