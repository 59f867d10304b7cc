// Approximate statistics without a reference (StatsOptions::sampleEvery): the sampled figures
// against the exact ones within the bound stats.h states, min and max equal to the exact ones, on a real fixture weight
// tiled to a sampled size (counted in the code domain), on synthetic rows of a periodic scale (dequantized and scanned;
// a fixed-phase sample would alias with them), and weights too small to sample read whole; the same bits on every SIMD
// path and team.
#include "analysis/stats.h"
#include "analysis/valuescan.h"
#include "container/gguf.h"
#include "container/ggmltype.h"
#include "container/safetensors.h"
#include "formats/ggml/codestats.h"
#include "formats/opencheckpoint.h"

#include "kernel_testutil.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <cstring>
#include <random>
#include <vector>

using namespace qs;

namespace {

// The bound stats.h states for kApproximateSampleEvery.
constexpr double kMomentBound = 0.02, kHistogramBound = 0.02;

// Half the L1 distance of the two histograms' shares: the largest share of values either
// puts in a set of bins the other does not.
double totalVariation(const Histogram& a, const Histogram& b)
{
    const double na = double(a.total()), nb = double(b.total());
    double d = 0;
    for (size_t i = 0; i < a.counts.size(); ++i)
        d += std::fabs(double(a.counts[i]) / na - double(b.counts[i]) / nb);
    return d / 2;
}

// Exact and approximate of the same weight, with the exact [min, max] as the caller's range
// so both histograms share their bins, then the bound checked.
void checkWithinBound(const Checkpoint& ckpt, const LogicalWeight& w, StatsOptions opt)
{
    const WeightHistograms exact = weightHistograms(ckpt, w, opt);
    QCOMPARE(exact.sampleEvery, uint64_t(0));
    QCOMPARE(exact.sampled, exact.count);
    opt.sampleEvery = kApproximateSampleEvery;
    const WeightHistograms approx = weightHistograms(ckpt, w, opt);
    QCOMPARE(approx.count, exact.count);
    QCOMPARE(approx.sampleEvery, kApproximateSampleEvery);
    // One run in 16, give or take the last period.
    QVERIFY2(approx.sampled * kApproximateSampleEvery <= exact.count + kApproximateSampleEvery * 4096
                 && approx.sampled * kApproximateSampleEvery + kApproximateSampleEvery * 4096 >= exact.count,
             qPrintable(QStringLiteral("%1 of %2").arg(approx.sampled).arg(exact.count)));
    QCOMPARE(approx.values.total(), approx.sampled);
    const double rms = exact.rmsValue;
    QVERIFY2(std::fabs(approx.meanValue - exact.meanValue) <= kMomentBound * rms,
             qPrintable(QStringLiteral("mean %1 vs %2").arg(approx.meanValue).arg(exact.meanValue)));
    QVERIFY2(std::fabs(approx.rmsValue - rms) <= kMomentBound * rms,
             qPrintable(QStringLiteral("rms %1 vs %2").arg(approx.rmsValue).arg(rms)));
    // Min and max from every row (== : a zero extreme may differ in sign only).
    QVERIFY(approx.minValue == exact.minValue && approx.maxValue == exact.maxValue);
    opt.rangeLo = exact.minValue;
    opt.rangeHi = exact.maxValue;
    const WeightHistograms exactBins = weightHistograms(ckpt, w, [&] {
        StatsOptions o = opt;
        o.sampleEvery = 0;
        return o;
    }());
    const WeightHistograms approxBins = weightHistograms(ckpt, w, opt);
    const double tv = totalVariation(approxBins.values, exactBins.values);
    QVERIFY2(tv <= kHistogramBound, qPrintable(QStringLiteral("total variation %1").arg(tv)));
    qInfo("%s: mean %.3g%% rms %.3g%% of the rms, histogram total variation %.4f, %llu of %llu values", w.name.c_str(),
          100 * std::fabs(approx.meanValue - exact.meanValue) / rms, 100 * std::fabs(approx.rmsValue - rms) / rms, tv,
          static_cast<unsigned long long>(approx.sampled), static_cast<unsigned long long>(approx.count));
}

// The same bits on every path the CPU has and on one and two threads.
void checkDeterministic(const Checkpoint& ckpt, const LogicalWeight& w)
{
    StatsOptions opt;
    opt.sampleEvery = kApproximateSampleEvery;
    opt.path = SimdPath::Scalar;
    opt.threads = 1;
    const WeightHistograms s = weightHistograms(ckpt, w, opt);
    QVERIFY(s.sampleEvery);
    for (SimdPath p : qsk::simdPaths()) {
        opt.path = p;
        opt.threads = 2;
        const WeightHistograms a = weightHistograms(ckpt, w, opt);
        QCOMPARE(a.sampled, s.sampled);
        QCOMPARE(std::memcmp(&s.minValue, &a.minValue, 8), 0);
        QCOMPARE(std::memcmp(&s.maxValue, &a.maxValue, 8), 0);
        QCOMPARE(std::memcmp(&s.meanValue, &a.meanValue, 8), 0);
        QCOMPARE(std::memcmp(&s.rmsValue, &a.rmsValue, 8), 0);
        QCOMPARE(a.values.counts, s.values.counts);
        QCOMPARE(a.scales.counts, s.scales.counts);
    }
}

} // namespace

class TestStatsApprox : public QObject {
    Q_OBJECT
private slots:
    // The fixture's real Q4_K weight [64, 256], 4096 rows (2^20 values) drawn from its rows at
    // random (seeded; copies of the whole weight would line up with the runs, and any sample
    // of them be exact).
    void realQ4kTiled()
    {
        const auto fixture = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        const TensorEntry* t = fixture->find("real.q4_k");
        QVERIFY(t);
        const auto bytes = fixture->bytes(*t);
        const size_t rowBytes = bytes.size() / 64;
        QCOMPARE(rowBytes, size_t(144)); // one Q4_K block a row
        std::vector<uint8_t> tiled;
        std::mt19937 rng(5);
        for (size_t r = 0; r < 4096; ++r) {
            const auto row = bytes.begin() + std::ptrdiff_t(rng() % 64 * rowBytes);
            tiled.insert(tiled.end(), row, row + std::ptrdiff_t(rowBytes));
        }
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = tmp.filePath(QStringLiteral("tiled.gguf")).toStdString();
        writeGguf(path, {}, {GgufTensor{"real.q4_k", GgmlQ4_K, {256, 64 * 64}, tiled}});
        const auto ckpt = openCheckpoint(path);
        const LogicalWeight* w = ckpt->findWeight("real.q4_k");
        QVERIFY(w);
        QCOMPARE(w->elementCount(), kApproximateMinElements);
        checkWithinBound(*ckpt, *w, {});
        checkDeterministic(*ckpt, *w);
    }

    // F32 [2048, 1024], normal(0, 0.02) with row r scaled by 1 + (r % 16) / 4: sampling row 0
    // of every 16 would see scale 1 only, its RMS less than half the true one.
    void periodicRowScales()
    {
        constexpr uint64_t N = 2048, K = 1024;
        std::vector<float> v(N * K);
        std::mt19937 rng(11);
        std::normal_distribution<float> normal(0.0f, 0.02f);
        for (uint64_t r = 0; r < N; ++r)
            for (uint64_t k = 0; k < K; ++k)
                v[r * K + k] = normal(rng) * (1.0f + float(r % 16) / 4.0f);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = tmp.filePath(QStringLiteral("periodic.safetensors")).toStdString();
        writeSafetensors(
            path,
            {SafetensorsTensor{"w", DType::F32, {N, K}, {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4}}});
        const auto ckpt = openCheckpoint(path);
        const LogicalWeight* w = ckpt->findWeight("w");
        QVERIFY(w);
        checkWithinBound(*ckpt, *w, {});
        checkDeterministic(*ckpt, *w);
    }

    // minMaxValues on every path against a plain loop: NaN and Inf passed over, -0 below +0
    // (a zero extreme is where the fast paths hand over to the reference), every length's tail.
    void minMaxAdversarial()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(-2.0f, 2.0f);
        const std::vector<std::vector<float>> specials{{},
                                                       {nan, nan},
                                                       {inf, -inf, nan},
                                                       {0.0f, -0.0f},
                                                       {-0.0f, 0.0f, 1.0f},
                                                       {0.5f, 0.0f, 2.0f},
                                                       {-1.0f, -0.0f},
                                                       {inf, 3.0f, nan, -inf, -7.0f},
                                                       {1e-45f, -1e-45f}};
        for (int c = 0; c < 40; ++c)
            for (const std::vector<float>& sp : specials) {
                std::vector<float> v(size_t(c * 3));
                for (float& x : v)
                    x = c % 4 == 0 ? std::fabs(u(rng)) : u(rng); // every fourth case non-negative
                for (size_t k = 0; k < sp.size() && !v.empty(); ++k)
                    v[(k * 37 + size_t(c)) % v.size()] = sp[k];
                if (v.empty())
                    v = sp;
                uint32_t elo = 0xFFFFFFFFu, ehi = 0;
                for (float x : v)
                    if (std::isfinite(x)) {
                        uint32_t b;
                        std::memcpy(&b, &x, 4);
                        elo = std::min(elo, orderedBits(b));
                        ehi = std::max(ehi, orderedBits(b));
                    }
                for (SimdPath p : qsk::simdPaths()) {
                    uint32_t lo = 0xFFFFFFFFu, hi = 0;
                    minMaxValues(v.data(), v.size(), lo, hi, p);
                    QCOMPARE(lo, elo);
                    QCOMPARE(hi, ehi);
                }
            }
    }

    // Below kApproximateMinElements a weight is read whole: the exact figures, bit for bit,
    // and the result says it is exact (codes and scales too: GPTQ, GGUF code domain, Q8_0, F16).
    void smallWeightsReadWhole_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("weight");
        QTest::addRow("gptq") << QStringLiteral("safetensors/gptq-w4-g32-asym/model.safetensors")
                              << QStringLiteral("model.layers.0.mlp.down_proj");
        for (const char* name : {"real.q4_k", "synthetic.q8_0", "synthetic.f16"})
            QTest::addRow("%s", name) << QStringLiteral("gguf/ggml-types.gguf") << QString::fromLatin1(name);
    }
    void smallWeightsReadWhole()
    {
        QFETCH(QString, file);
        QFETCH(QString, weight);
        const auto ckpt = openCheckpoint(qstest::fixture(file).toStdString());
        const LogicalWeight* w = ckpt->findWeight(weight.toStdString());
        QVERIFY(w);
        StatsOptions opt;
        const WeightHistograms exact = weightHistograms(*ckpt, *w, opt);
        opt.sampleEvery = kApproximateSampleEvery;
        const WeightHistograms h = weightHistograms(*ckpt, *w, opt);
        QCOMPARE(h.sampleEvery, uint64_t(0));
        QCOMPARE(h.sampled, h.count);
        QCOMPARE(std::memcmp(&h.meanValue, &exact.meanValue, 8), 0);
        QCOMPARE(std::memcmp(&h.rmsValue, &exact.rmsValue, 8), 0);
        QCOMPARE(h.minValue, exact.minValue);
        QCOMPARE(h.maxValue, exact.maxValue);
        QCOMPARE(h.values.counts, exact.values.counts);
        QCOMPARE(h.codes, exact.codes);
        QCOMPARE(h.scales.counts, exact.scales.counts);
    }
};

QTEST_GUILESS_MAIN(TestStatsApprox)
#include "tst_statsapprox.moc"
