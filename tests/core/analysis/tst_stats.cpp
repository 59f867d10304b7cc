// Error statistics: every GPTQ/AWQ fixture against its ref.safetensors (upstream's f16
// rounding of our exact float32 values, checked element by element), and against the true float sources,
// where the test recomputes RMSE, max, mean and the percentiles on its own from the full
// dequantized weight and the source tensor.
#include "formats/gptq/codecount.h"
#include "formats/affine/quantize_affine.h"
#include "formats/bnb/quantize_bnb.h"
#include "formats/ggml/quantize_ggml.h"
#include "analysis/diff.h"
#include "analysis/stats.h"
#include "analysis/valuescan.h"
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "container/ggmltype.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "formats/dequant.h"
#include "formats/ggml/ggml.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"

#include "kernel_testutil.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

using namespace qs;

namespace {

const char* const kVariants[] = {
    "gptq-w2-g32-asym", "gptq-w3-g128-sym", "gptq-w3-g32-asym",         "gptq-w4-g128-asym-actorder",
    "gptq-w4-g128-sym", "gptq-w4-g32-asym", "gptq-w4-g32-sym-actorder", "gptq-w8-g128-sym",
    "awq-gemm-w4-g128", "awq-gemm-w4-g32",
};

std::span<const uint8_t> floatBytes(const std::vector<float>& v)
{
    return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4};
}

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

float bitsToFloat(uint32_t u)
{
    return std::bit_cast<float>(u);
}

// The reference figures from the full error vector: nearest-rank percentiles of the finite
// |float(q - r)|, 0 when none is finite.
std::vector<double> expectedPercentiles(const std::vector<float>& q, const std::vector<float>& r)
{
    std::vector<double> a;
    for (size_t i = 0; i < q.size(); ++i) {
        const float e = float(double(q[i]) - double(r[i]));
        if (std::isfinite(e))
            a.push_back(double(std::fabs(e)));
    }
    std::sort(a.begin(), a.end());
    std::vector<double> out;
    for (double p : {0.5, 0.95, 0.99, 0.999})
        out.push_back(a.empty() ? 0.0 : rankOf(a, p));
    return out;
}

// countCodes on whole weights and on row blocks that cut packed words, against codeAt.
void checkCodeCounts(const PackedLinear& p)
{
    const uint64_t N = p.N;
    const std::pair<uint64_t, uint64_t> blocks[] = {{0, N}, {3, N - 5}, {5, 6},     {8, std::min<uint64_t>(16, N)},
                                                    {1, N}, {0, N - 1}, {N / 2, N}, {N / 3, N}};
    for (const auto& [r0, r1] : blocks) {
        if (r0 >= r1)
            continue;
        std::vector<uint64_t> expect(size_t(1) << p.bits, 0), got(expect.size(), 0);
        for (uint64_t n = r0; n < r1; ++n)
            for (uint64_t k = 0; k < p.K; ++k)
                ++expect[p.codeAt(n, k)];
        countCodes(p, r0, r1, got);
        QCOMPARE(got, expect);
    }
}

} // namespace

using Floats = std::vector<float>;
Q_DECLARE_METATYPE(Floats)
Q_DECLARE_METATYPE(qs::SimdPath)

class TestStats : public QObject {
    Q_OBJECT
private slots:
    // A GGUF quantized from a Hugging Face checkpoint by llama.cpp's converter, against that
    // checkpoint: paired as diff pairs (output.weight = lm_head.weight, blk.0.attn_q =
    // q_proj with the row permutation undone), with the same max |error| as diff finds.
    void ggufAgainstHuggingFaceReference()
    {
        for (const bool permute : {true, false}) {
            QTemporaryDir tmp;
            QVERIFY(tmp.isValid());
            qstest::writeConvertedLlama(tmp.path(), permute);
            const auto gguf = openCheckpoint(tmp.filePath(QStringLiteral("model.gguf")).toStdString());
            const auto hf = openCheckpoint(tmp.filePath(QStringLiteral("hf")).toStdString());
            const DiffResult diff = diffCheckpoints(*gguf, *hf, {});
            QCOMPARE(diff.weights.size(), size_t(4));
            for (const LogicalWeight& w : gguf->weights) {
                const ReferenceMatch m = findReference(*gguf, w, *hf);
                QVERIFY2(m.found(), m.problem.c_str());
                const bool qk = w.name == "blk.0.attn_q.weight" || w.name == "blk.0.attn_k.weight";
                QCOMPARE(m.weightSide.permuteHeads, uint64_t(qk ? (w.name == "blk.0.attn_q.weight" ? 4 : 2) : 0));
                if (w.name == "output.weight")
                    QCOMPARE(m.tensor->name, std::string("lm_head.weight"));
                const WeightComparison c = compareWeight(*gguf, w, *hf, m, {});
                const auto d = std::find_if(diff.weights.begin(), diff.weights.end(),
                                            [&](const WeightDiff& x) { return x.nameA == w.name; });
                QVERIFY(d != diff.weights.end());
                QCOMPARE(c.error.maxAbs, d->maxAbs);
                QCOMPARE(c.error.count, d->count);
                // Q8_0 of values in [-1.1, 1.1]: a step of at most 1.1 / 127.
                QVERIFY2((c.error.maxAbs < 0.01) == (permute || !qk), w.name.c_str());
            }
        }
    }

    // An error of exactly 0 is counted in the bin that holds 0 ([0, w) of [-m, m] in 32 bins),
    // also for an m where (0 + m) * (32 / 2m) rounds below 16.
    void zeroErrorInTheBinOfZero()
    {
        const float m = 0.008083f;
        QVERIFY(double(m) * (32.0 / (2.0 * double(m))) < 16.0); // the rounding that put 0 in bin 15
        const uint64_t N = 16, K = 64;
        std::vector<float> q(N * K, 0.25f), r(N * K, 0.25f);
        r[5] = 0.0f;
        q[5] = m; // the one error, the largest: the range is [-m, m]
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = tmp.filePath(QStringLiteral("pair.safetensors")).toStdString();
        writeSafetensors(
            path, {{"w.weight", DType::F32, {N, K}, floatBytes(q)}, {"ref.weight", DType::F32, {N, K}, floatBytes(r)}});
        const auto ckpt = openCheckpoint(path);
        for (const bool ranged : {false, true}) {
            StatsOptions opt;
            if (ranged) { // the caller's range [-m, m] bins the same
                opt.rangeLo = -double(m);
                opt.rangeHi = double(m);
            }
            const WeightComparison c =
                compareWeight(*ckpt, *ckpt->findWeight("w.weight"), *ckpt, *ckpt->find("ref.weight"), opt);
            QCOMPARE(c.error.signedError.counts.size(), size_t(32));
            QCOMPARE(c.error.signedError.counts[15], uint64_t(0));
            QCOMPARE(c.error.signedError.counts[16], N * K - 1);
            QCOMPARE(c.error.signedError.counts[31], uint64_t(1));
        }
    }

    // One NaN or Inf on either side is counted apart, with its place; every figure is that of
    // the finite elements (one NaN scale made RMSE NaN, issues 29 and 33).
    void nonFiniteErrorsCountedApart()
    {
        const uint64_t N = 16, K = 64;
        std::vector<float> q(N * K), r(N * K);
        for (uint64_t i = 0; i < N * K; ++i) {
            r[i] = float(int(i % 13) - 6) * 0.125f;
            q[i] = r[i] + (i % 2 ? 0.25f : -0.25f); // every finite error 0.25 in size
        }
        q[70] = std::numeric_limits<float>::quiet_NaN();
        r[200] = std::numeric_limits<float>::infinity();
        q[201] = -std::numeric_limits<float>::infinity();
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = tmp.filePath(QStringLiteral("pair.safetensors")).toStdString();
        writeSafetensors(
            path, {{"w.weight", DType::F32, {N, K}, floatBytes(q)}, {"ref.weight", DType::F32, {N, K}, floatBytes(r)}});
        const auto ckpt = openCheckpoint(path);
        for (const SimdPath simd : {SimdPath::Scalar, bestSimdPath()})
            for (const int threads : {1, 2}) {
                StatsOptions opt;
                opt.path = simd;
                opt.threads = threads;
                opt.rowChunk = 3;
                const WeightComparison c =
                    compareWeight(*ckpt, *ckpt->findWeight("w.weight"), *ckpt, *ckpt->find("ref.weight"), opt);
                QCOMPARE(c.error.count, N * K);
                QCOMPARE(c.error.nonFinite, uint64_t(3));
                QCOMPARE(c.error.firstNonFinite, uint64_t(70));
                QCOMPARE(c.error.rmse, 0.25);
                QCOMPARE(c.error.meanAbs, 0.25);
                QCOMPARE(c.error.maxAbs, 0.25);
                QVERIFY(std::isfinite(c.error.sqnrDb));
                QCOMPARE(c.error.signedError.total(), N * K - 3);
                QVERIFY(std::isfinite(c.output.relativeError) && c.output.relativeError > 0);
                QVERIFY(std::isfinite(c.output.cosine) && c.output.cosine > 0.5);
            }
    }

    // Above kExactPercentileLimit elements the percentiles come from a sample, but the
    // signed-error histogram still counts every element (a second pass).
    void largeWeightHistogramCountsEveryError()
    {
        const uint64_t N = 4097, K = 4096, total = N * K;
        QVERIFY(total > kExactPercentileLimit);
        // Errors -2^-10, 0, +2^-10 by i % 3: bins 0, 16 and 31 of [-2^-10, 2^-10].
        std::vector<float> q(total), r(total, 0.5f);
        uint64_t per[3] = {0, 0, 0};
        for (uint64_t i = 0; i < total; ++i) {
            q[i] = 0.5f + float(int(i % 3) - 1) * 0x1p-10f;
            ++per[i % 3];
        }
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = tmp.filePath(QStringLiteral("big.safetensors")).toStdString();
        writeSafetensors(
            path, {{"w.weight", DType::F32, {N, K}, floatBytes(q)}, {"ref.weight", DType::F32, {N, K}, floatBytes(r)}});
        std::vector<float>().swap(q);
        std::vector<float>().swap(r);
        const auto ckpt = openCheckpoint(path);
        StatsOptions opt;
        opt.tokens = 1;
        uint64_t last = 0, calls = 0;
        bool monotonic = true;
        opt.progress.report = [&](uint64_t done, uint64_t all, const std::string&) {
            monotonic = monotonic && done >= last && all == total;
            last = done;
            ++calls;
        };
        const WeightComparison c =
            compareWeight(*ckpt, *ckpt->findWeight("w.weight"), *ckpt, *ckpt->find("ref.weight"), opt);
        QVERIFY(!c.error.percentilesExact);
        const Histogram& h = c.error.signedError;
        QCOMPARE(h.total(), total);
        QCOMPARE(h.counts[0], per[0]);
        QCOMPARE(h.counts[16], per[1]);
        QCOMPARE(h.counts[31], per[2]);
        QVERIFY(monotonic && calls > 2);
        QCOMPARE(last, total);
    }

    // What no reference matches is said with the names looked for and the reference's naming.
    void missingReferenceNamesBoth()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        qstest::writeConvertedLlama(tmp.path());
        const auto gguf = openCheckpoint(tmp.filePath(QStringLiteral("model.gguf")).toStdString());
        const auto other = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
        const ReferenceMatch m = findReference(*gguf, *gguf->findWeight("output.weight"), *other);
        QVERIFY(!m.found());
        QVERIFY2(m.problem.find("no reference tensor for output.weight or lm_head.weight") != std::string::npos,
                 m.problem.c_str());
        QVERIFY_THROWS_EXCEPTION(Error, compareWeight(*gguf, *gguf->findWeight("output.weight"), *other, m, {}));
    }

    void againstRef_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : kVariants)
            QTest::addRow("%s", v) << QString::fromLatin1(v);
    }
    void againstRef()
    {
        QFETCH(QString, variant);
        const auto ckpt = openCheckpoint(fixturePath(variant + QStringLiteral("/model.safetensors")));
        const auto ref = openCheckpoint(fixturePath(variant + QStringLiteral("/ref.safetensors")));
        int compared = 0;
        for (const LogicalWeight& w : ckpt->weights) {
            if (!canDequantize(w.format))
                continue;
            const ReferenceMatch t = findReference(*ckpt, w, *ref);
            QVERIFY2(t.found(), t.problem.c_str());
            StatsOptions opt;
            opt.rowChunk = 7; // slices that do not divide N
            const WeightComparison c = compareWeight(*ckpt, w, *ref, t, opt);
            // Our kernels return the exact float32 s * (q - z); upstream rounds it to f16 once.
            // So the reference is exactly our value rounded to f16, and the error is that rounding.
            const std::vector<float> q = dequantizeWeight(*ckpt, w, SimdPath::Scalar);
            const std::vector<float> r = readF32(*ref, *t.tensor);
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
                QTest::addRow("%s q_proj", v)
                    << QString::fromLatin1(v) << QStringLiteral("model.layers.0.self_attn.q_proj")
                    << QStringLiteral("stories260K.layers.0.wq");
        }
    }
    void againstSources()
    {
        QFETCH(QString, variant);
        QFETCH(QString, module);
        QFETCH(QString, source);
        const auto ckpt = openCheckpoint(fixturePath(variant + QStringLiteral("/model.safetensors")));
        const auto src = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
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
        const auto ckpt = openCheckpoint(fixturePath(QStringLiteral("gptq-w4-g32-asym/model.safetensors")));
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

    void threadsAndChunksDoNotChangeFigures()
    {
        const auto ckpt = openCheckpoint(fixturePath(QStringLiteral("gptq-w4-g32-asym/model.safetensors")));
        const auto src = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        StatsOptions opt;
        opt.rowChunk = 5;
        opt.threads = 1;
        const WeightComparison one = compareWeight(*ckpt, *w, *src, *src->find("synthetic.W_128x256"), opt);
        opt.threads = 2;
        uint64_t last = 0;
        int calls = 0;
        opt.progress.report = [&](uint64_t done, uint64_t total, const std::string& name) {
            QCOMPARE(total, uint64_t(128 * 256));
            QCOMPARE(name, w->name);
            last = done;
            ++calls;
        };
        const WeightComparison two = compareWeight(*ckpt, *w, *src, *src->find("synthetic.W_128x256"), opt);
        // Partial sums are reduced in chunk order: bit-identical figures on any team.
        QVERIFY(one.error.rmse == two.error.rmse && one.error.meanAbs == two.error.meanAbs);
        QVERIFY(one.error.sqnrDb == two.error.sqnrDb && one.output.cosine == two.output.cosine);
        QCOMPARE(one.error.signedError.counts, two.error.signedError.counts);
        QVERIFY(calls > 0);
        QCOMPARE(last, uint64_t(128 * 256));
        std::atomic<bool> cancel{true};
        opt.progress.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, compareWeight(*ckpt, *w, *src, *src->find("synthetic.W_128x256"), opt));
        QVERIFY_THROWS_EXCEPTION(Cancelled, weightHistograms(*ckpt, *w, opt));
    }

    void chosenRange()
    {
        // Signed error histogram over a range the caller picks: every element binned in the
        // pass, the ones outside counted below / above.
        const auto ckpt = openCheckpoint(fixturePath(QStringLiteral("gptq-w3-g32-asym/model.safetensors")));
        const auto src = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        StatsOptions opt;
        opt.bins = 8;
        opt.rangeLo = -0.01;
        opt.rangeHi = 0.03;
        const WeightComparison c = compareWeight(*ckpt, *w, *src, *src->find("synthetic.W_128x256"), opt);
        const std::vector<float> q = dequantizeWeight(*ckpt, *w, SimdPath::Scalar);
        const std::vector<float> r = readF32(*src, *src->find("synthetic.W_128x256"));
        std::vector<uint64_t> expect(8, 0);
        uint64_t below = 0, above = 0;
        for (size_t i = 0; i < q.size(); ++i) {
            const double e = double(q[i]) - double(r[i]);
            if (e < -0.01)
                ++below;
            else if (e > 0.03)
                ++above;
            else
                ++expect[std::min<size_t>(7, size_t((e + 0.01) * (8 / 0.04)))];
        }
        QCOMPARE(c.error.signedError.lo, -0.01);
        QCOMPARE(c.error.signedError.hi, 0.03);
        QCOMPARE(c.error.signedError.counts, expect);
        QCOMPARE(c.error.signedError.below, below);
        QCOMPARE(c.error.signedError.above, above);
        QVERIFY(below > 0 && above > 0);

        // Values over a chosen range, without a reference.
        opt.rangeLo = -0.5;
        opt.rangeHi = 0.0;
        const WeightHistograms h = weightHistograms(*ckpt, *w, opt);
        uint64_t vBelow = 0, vAbove = 0;
        for (float v : q) {
            vBelow += v < -0.5f;
            vAbove += v > 0.0f;
        }
        QCOMPARE(h.values.below, vBelow);
        QCOMPARE(h.values.above, vAbove);
        QCOMPARE(h.values.total() + h.values.below + h.values.above, uint64_t(q.size()));
    }

    void valueHistogramBins()
    {
        // Default range: [min, max], each value binned by its bfloat16 truncation.
        const auto ckpt = openCheckpoint(fixturePath(QStringLiteral("awq-gemm-w4-g32/model.safetensors")));
        const LogicalWeight* w = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        StatsOptions opt;
        opt.bins = 20;
        const WeightHistograms h = weightHistograms(*ckpt, *w, opt);
        const std::vector<float> q = dequantizeWeight(*ckpt, *w, SimdPath::Scalar);
        const double lo = *std::min_element(q.begin(), q.end()), hi = *std::max_element(q.begin(), q.end());
        std::vector<uint64_t> expect(20, 0);
        double sum = 0;
        for (float v : q) {
            uint32_t u;
            std::memcpy(&u, &v, 4);
            u &= 0xFFFF0000u;
            float t;
            std::memcpy(&t, &u, 4);
            const double pos = (double(t) - lo) / (hi - lo) * 20;
            ++expect[pos <= 0 ? 0 : std::min<size_t>(19, size_t(pos))];
            sum += v;
        }
        QCOMPARE(h.count, uint64_t(q.size()));
        QCOMPARE(h.minValue, lo);
        QCOMPARE(h.maxValue, hi);
        QCOMPARE(h.values.counts, expect);
        QVERIFY(std::fabs(h.meanValue - sum / double(q.size())) <= 1e-12);
        QCOMPARE(h.codes.size(), size_t(16));
    }

    // NaN, +Inf and -Inf are counted apart, and min, max, mean and RMS are those of the finite
    // values (issue 29: an all-NaN weight gave 0 for all four, 4095 +Inf and one 1.0 a mean of
    // 1/4096). The f16 NaNs 0x7C01 and 0xFC01 widen to floats whose top 16 bits are the
    // infinities': told apart. Every path, with a range and approximate (a small weight is read
    // whole); GGUF Q8_0 blocks whose d is +Inf (codes +-1 give +-Inf, 0 NaN), in the code domain.
    void nonFiniteValues()
    {
        QTemporaryDir tmp;
        const std::string st = tmp.filePath(QStringLiteral("m.safetensors")).toStdString();
        std::vector<uint16_t> inf(4096, 0x7C00), nan(64, 0x7E00), mixed(256);
        inf[17] = 0x3C00;
        const uint16_t pattern[] = {0x3C00, 0x4000, 0xBC00, 0x3800}; // 1, 2, -1, 0.5
        for (size_t i = 0; i < mixed.size(); ++i)
            mixed[i] = pattern[i % 4];
        mixed[3] = 0x7C01;
        mixed[10] = 0xFC00;
        mixed[11] = 0x7C00;
        mixed[12] = 0xFE00;
        mixed[13] = 0xFC01;
        const auto bytesOf = [](const std::vector<uint16_t>& v) {
            return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 2);
        };
        writeSafetensors(st,
                         {{"inf.weight", DType::F16, {64, 64}, bytesOf(inf)},
                          {"nan.weight", DType::F16, {8, 8}, bytesOf(nan)},
                          {"mixed.weight", DType::F16, {16, 16}, bytesOf(mixed)}});
        // Q8_0 [2, 32]: row 0 with d = +Inf, row 1 with d = 1 and codes -16 .. 15.
        std::vector<uint8_t> q8(2 * 34, 0);
        const uint16_t dInf = 0x7C00, dOne = 0x3C00;
        std::memcpy(q8.data(), &dInf, 2);
        q8[2] = 1;
        q8[3] = uint8_t(-1);
        std::memcpy(q8.data() + 34, &dOne, 2);
        for (int i = 0; i < 32; ++i)
            q8[size_t(36 + i)] = uint8_t(int8_t(i - 16));
        const std::string gg = tmp.filePath(QStringLiteral("m.gguf")).toStdString();
        writeGguf(gg, {}, {{"blk.0.attn_q.weight", GgmlQ8_0, {32, 2}, q8}});

        struct Expect {
            uint64_t nan, pos, neg;
            double lo, hi, mean, rms;
        };
        double sum = 0, sumSq = 0;
        for (size_t i = 0; i < mixed.size(); ++i)
            if (const float v = halfToFloat(mixed[i]); std::isfinite(v)) {
                sum += v;
                sumSq += double(v) * v;
            }
        const auto check = [&](const std::string& path, const char* weight, const Expect& e) {
            const auto ckpt = openCheckpoint(path);
            const LogicalWeight* w = ckpt->findWeight(weight);
            QVERIFY(w);
            for (SimdPath p : qsk::simdPaths())
                for (int mode = 0; mode < 3; ++mode) {
                    StatsOptions opt;
                    opt.path = p;
                    if (mode == 1) {
                        opt.rangeLo = -4;
                        opt.rangeHi = 4;
                    }
                    if (mode == 2)
                        opt.sampleEvery = kApproximateSampleEvery;
                    const WeightHistograms h = weightHistograms(*ckpt, *w, opt);
                    const QByteArray where = QByteArray(weight) + " path " + QByteArray::number(int(p)) + " mode "
                        + QByteArray::number(mode);
                    QVERIFY2(h.nanCount == e.nan && h.posInfCount == e.pos && h.negInfCount == e.neg,
                             (where + ": " + QByteArray::number(qulonglong(h.nanCount)) + " NaN "
                              + QByteArray::number(qulonglong(h.posInfCount)) + " +Inf "
                              + QByteArray::number(qulonglong(h.negInfCount)) + " -Inf")
                                 .constData());
                    QCOMPARE(h.finite(), h.count - e.nan - e.pos - e.neg);
                    QCOMPARE(h.hasFinite, h.finite() > 0);
                    QVERIFY2(h.minValue == e.lo && h.maxValue == e.hi, where.constData());
                    QVERIFY2(std::fabs(h.meanValue - e.mean) <= 1e-12 && std::fabs(h.rmsValue - e.rms) <= 1e-12,
                             (where + ": mean " + QByteArray::number(h.meanValue, 'g', 17) + " rms "
                              + QByteArray::number(h.rmsValue, 'g', 17))
                                 .constData());
                }
        };
        check(st, "inf.weight", {0, 4095, 0, 1, 1, 1, 1});
        check(st, "nan.weight", {64, 0, 0, 0, 0, 0, 0});
        check(st, "mixed.weight", {3, 1, 1, -1, 2, sum / 251, std::sqrt(sumSq / 251)});
        double qSq = 0;
        for (int i = 0; i < 32; ++i)
            qSq += double(i - 16) * (i - 16);
        check(gg, "blk.0.attn_q.weight", {30, 1, 1, -16, 15, -16.0 / 32, std::sqrt(qSq / 32)});
    }

    void ggufBlockScales()
    {
        const auto ckpt = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        const LogicalWeight* w = ckpt->findWeight("synthetic.q4_k");
        QVERIFY(w);
        StatsOptions opt;
        opt.bins = 4;
        const WeightHistograms h = weightHistograms(*ckpt, *w, opt);
        // Q4_K: 144-byte blocks of 256, d = the f16 at byte 0.
        const auto bytes = ckpt->bytes(*ckpt->find("synthetic.q4_k"));
        const size_t blocks = bytes.size() / 144;
        QCOMPARE(blocks, size_t(34));
        double lo = 1e30, hi = -1e30;
        for (size_t b = 0; b < blocks; ++b) {
            uint16_t d;
            std::memcpy(&d, bytes.data() + b * 144, 2);
            lo = std::min(lo, double(halfToFloat(d)));
            hi = std::max(hi, double(halfToFloat(d)));
        }
        QCOMPARE(h.scales.total(), uint64_t(blocks));
        QCOMPARE(h.scales.lo, lo);
        QCOMPARE(h.scales.hi, hi);
        QVERIFY(h.codes.empty());
        QCOMPARE(h.values.total(), uint64_t(256 * 34));
    }

    void requantized_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addColumn<bool>("sym");
        QTest::addRow("gguf-q4_0") << "gguf-q4_0" << 0 << 32 << true;
        QTest::addRow("gguf-q4_k") << "gguf-q4_k" << 0 << 256 << false;
        QTest::addRow("gptq 4-bit g32 asym") << "gptq" << 4 << 32 << false;
        QTest::addRow("awq 3-bit g64 sym") << "awq" << 3 << 64 << true;
        QTest::addRow("bnb-nf4") << "bnb-nf4" << 4 << 64 << false;
    }
    void requantized()
    {
        // "Requantizing the same weights": the float source is the reference, the candidate
        // is it quantized to the format and dequantized; recomputed here on the whole matrix.
        QFETCH(QString, format);
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(bool, sym);
        const auto src = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = src->findWeight("synthetic.W_128x256");
        QVERIFY(w);
        const std::vector<float> r = readF32(*src, *src->find("synthetic.W_128x256"));
        std::vector<float> q(r.size());
        if (format.startsWith(QLatin1String("gguf"))) {
            const int type = format == QLatin1String("gguf-q4_0") ? GgmlQ4_0 : GgmlQ4_K;
            const std::vector<uint8_t> b = quantizeGgml(type, r.data(), 128, 256);
            dequantizeGgmlRowsRef(type, b.data(), 128, 256, q.data());
        } else if (format == QLatin1String("bnb-nf4")) {
            std::vector<float> h(r.size());
            for (size_t i = 0; i < r.size(); ++i)
                h[i] = halfToFloat(floatToHalf(r[i]));
            q = dequantizeBnb4(quantizeBnb4(h.data(), h.size(), Bnb4Type::Nf4, 64), Bnb4Type::Nf4);
        } else {
            AffineOptions o;
            o.bits = bits;
            o.groupSize = uint64_t(group);
            o.symmetric = sym;
            o.rule = format == QLatin1String("awq") ? AffineRule::Awq : AffineRule::Gptq;
            o.codeScale = DType::F16;
            q = dequantizeAffine(quantizeAffine(r.data(), 128, 256, o));
        }
        double sq = 0, mx = 0;
        for (size_t i = 0; i < r.size(); ++i) {
            const double e = double(q[i]) - double(r[i]);
            sq += e * e;
            mx = std::max(mx, std::fabs(e));
        }
        RequantizeSpec spec;
        spec.format = format.toStdString();
        spec.bits = bits;
        spec.groupSize = uint64_t(group);
        spec.symmetric = sym;
        StatsOptions opt;
        opt.rowChunk = 3; // bnb: rounded up to whole 64-element blocks
        opt.path = bestSimdPath();
        const WeightComparison c = compareRequantized(*src, *w, spec, opt);
        QCOMPARE(c.error.maxAbs, mx);
        QCOMPARE(c.error.rmse, std::sqrt(sq / double(r.size())));
        QVERIFY(mx > 0);
        QCOMPARE(c.error.groups.size(), size_t(group < 256 ? 256 / group : 0)); // a group of all K is no grouping
        QCOMPARE(c.error.groupSize, uint64_t(group < 256 ? group : 0));
        QVERIFY(c.output.cosine > 0.9 && c.output.cosine < 1.0);
    }

    void requantizeRefusals()
    {
        const auto src = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = src->findWeight("stories260K.layers.0.wq"); // [64, 64]
        QVERIFY(w);
        RequantizeSpec spec;
        spec.format = "gguf-q4_k"; // 64 is not a whole 256-block
        QVERIFY_THROWS_EXCEPTION(Error, compareRequantized(*src, *w, spec, {}));
        spec.format = "exl3";
        QVERIFY_THROWS_EXCEPTION(Error, compareRequantized(*src, *w, spec, {}));
        spec.format = "gguf-q8_0";
        const WeightComparison q8 = compareRequantized(*src, *w, spec, {});
        QCOMPARE(q8.error.count, uint64_t(64 * 64));
        // Aliases name the same format (one parser): the same figures.
        spec.format = "q8_0";
        QCOMPARE(compareRequantized(*src, *w, spec, {}).error.rmse, q8.error.rmse);
        spec.format = "gguf-iq4_xs"; // a ggml type without a reference quantizer here
        QVERIFY_THROWS_EXCEPTION(Error, compareRequantized(*src, *w, spec, {}));
    }

    void valueScanPathsAgree_data()
    {
        // Every path the CPU has against the scalar reference; the lengths put the AVX-512
        // path's 16-value steps, the AVX2 path's 8-value steps and the scalar tail in turn.
        QTest::addColumn<int>("n");
        QTest::addColumn<SimdPath>("path");
        for (SimdPath p : qsk::simdPaths()) {
            const std::string pn(simdPathName(p));
            QTest::addRow("8 %s", pn.c_str()) << 8 << p;
            QTest::addRow("17 %s", pn.c_str()) << 17 << p;
            QTest::addRow("24 %s", pn.c_str()) << 24 << p;
            QTest::addRow("1003 (a tail) %s", pn.c_str()) << 1003 << p;
            QTest::addRow("4096 %s", pn.c_str()) << 4096 << p;
        }
    }
    void valueScanPathsAgree()
    {
        QFETCH(int, n);
        QFETCH(SimdPath, path);
        std::vector<float> v(static_cast<size_t>(n));
        uint32_t x = 12345;
        for (float& f : v) {
            x = x * 1664525u + 1013904223u;
            f = float(int32_t(x >> 8) - (1 << 23)) * 1e-6f;
        }
        v[3] = std::numeric_limits<float>::quiet_NaN();
        v[5] = std::numeric_limits<float>::infinity();
        v[6] = -0.0f;
        v[size_t(n) - 1] = -std::numeric_limits<float>::infinity();
        ValueLanes a, b;
        KeyCounts ka, kb;
        scanValues(v.data(), v.size(), a, ka.split.data());
        scanValues(v.data(), v.size(), b, kb.split.data(), path);
        QCOMPARE(ka.split, kb.split);
        ka.flush();
        kb.flush();
        const std::vector<uint64_t>& ha = ka.totals;
        const std::vector<uint64_t>& hb = kb.totals;
        QCOMPARE(std::memcmp(a.sum, b.sum, sizeof a.sum), 0);
        QCOMPARE(std::memcmp(a.sumSq, b.sumSq, sizeof a.sumSq), 0);
        QCOMPARE(std::memcmp(a.lo, b.lo, sizeof a.lo), 0);
        QCOMPARE(std::memcmp(a.hi, b.hi, sizeof a.hi), 0);
        QCOMPARE(ha, hb);
        uint64_t total = 0;
        for (uint64_t c : ha)
            total += c;
        QCOMPARE(total, uint64_t(n));
        double sum = 0, sq = 0;
        float lo = 0, hi = 0;
        a.combine(sum, sq, lo, hi);
        double expect = 0;
        float elo = std::numeric_limits<float>::infinity(), ehi = -elo;
        for (float f : v)
            if (std::isfinite(f)) {
                expect += f;
                elo = std::min(elo, f);
                ehi = std::max(ehi, f);
            }
        QVERIFY(std::fabs(sum - expect) <= 1e-9 * std::fabs(expect) + 1e-12);
        QCOMPARE(lo, elo);
        QCOMPARE(hi, ehi);
        // Keys sort as the values do.
        QVERIFY(valueKey(0xBF800000u) < valueKey(0x80000000u)); // -1 < -0
        QVERIFY(valueKey(0x80000000u) < valueKey(0x00000000u)); // -0 < +0
        QVERIFY(valueKey(0x00000000u) < valueKey(0x3F800000u)); // 0 < 1
    }

    void histogramPathsAgree()
    {
        const auto ckpt = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        StatsOptions opt;
        opt.rowChunk = 5;
        // Q4_K is counted in the code domain (codestats.h), Q8_0 and F16 dequantized and scanned.
        for (const char* name : {"synthetic.q4_k", "synthetic.q8_0", "synthetic.f16"}) {
            const LogicalWeight* w = ckpt->findWeight(name);
            QVERIFY2(w, name);
            opt.path = SimdPath::Scalar;
            opt.threads = 1;
            const WeightHistograms s = weightHistograms(*ckpt, *w, opt);
            for (SimdPath p : qsk::simdPaths()) {
                opt.path = p;
                opt.threads = 2;
                const WeightHistograms a = weightHistograms(*ckpt, *w, opt);
                QCOMPARE(std::memcmp(&s.minValue, &a.minValue, 8), 0);
                QCOMPARE(std::memcmp(&s.maxValue, &a.maxValue, 8), 0);
                QCOMPARE(std::memcmp(&s.meanValue, &a.meanValue, 8), 0);
                QCOMPARE(std::memcmp(&s.rmsValue, &a.rmsValue, 8), 0);
                QCOMPARE(s.values.counts, a.values.counts);
                QCOMPARE(s.scales.counts, a.scales.counts);
            }
        }
    }

    void exactPercentilesAdversarial_data()
    {
        // Candidate q and reference r, [N, K]; every row is checked on both paths, with one
        // and two threads and row chunks of 3, against a sort of the whole error vector.
        QTest::addColumn<int>("K");
        QTest::addColumn<Floats>("q");
        QTest::addColumn<Floats>("r");
        const auto fill = [](size_t n, const auto& f) {
            Floats v(n);
            for (size_t i = 0; i < n; ++i)
                v[i] = f(i);
            return v;
        };
        const size_t n = 40 * 64;
        QTest::addRow("all equal") << 64 << Floats(n, 0.5f) << Floats(n, 0.0f);
        QTest::addRow("no error") << 64 << fill(n, [](size_t i) { return float(i) * 0.25f - 3.0f; })
                                  << fill(n, [](size_t i) { return float(i) * 0.25f - 3.0f; });
        QTest::addRow("two values") << 64 << fill(n, [](size_t i) { return i % 2 ? 2e-3f : -1e-3f; })
                                    << Floats(n, 0.0f);
        // NaN and Inf take no rank (and are not binned); the ranks are over the finite errors.
        QTest::addRow("NaN and Inf excluded") << 64 << fill(n, [](size_t i) {
            if (i % 7 == 3)
                return std::numeric_limits<float>::quiet_NaN();
            if (i % 11 == 5)
                return i % 2 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
            return float(i % 97) * 1e-4f;
        }) << Floats(n, 0.0f);
        QTest::addRow("only NaN") << 64 << Floats(n, std::numeric_limits<float>::quiet_NaN()) << Floats(n, 0.0f);
        // From subnormals (a whole run in the lowest key) to 3e38, and a tail K of 37.
        QTest::addRow("huge range, K 37") << 37 << fill(40 * 37, [](size_t i) {
            const int e = int(i * 7919 % 277) - 149;
            return std::ldexp(1.0f + float(i % 5) / 8.0f, std::min(e, 127)) * (i % 3 ? 1.0f : -1.0f);
        }) << Floats(40 * 37, 0.0f);
        // Ranks on the borders of the 12-bit keys: 1.0625 - ulp is the last value of 1.0's key,
        // 1.0625 the first of the next; 1280 of each puts p50 on the last of the lower key.
        QTest::addRow("ranks on key borders")
            << 64 << fill(n, [](size_t i) { return i % 2 ? bitsToFloat(0x3F87FFFFu) : bitsToFloat(0x3F880000u); })
            << Floats(n, 0.0f);
        // p95, p99 and p999 on the first and last elements of keys: 2432 below one border,
        // 2534 below the next (n = 2560).
        QTest::addRow("upper ranks on borders") << 64 << fill(n, [](size_t i) {
            if (i < 2432)
                return bitsToFloat(0x3F87FFFFu);
            if (i < 2535)
                return bitsToFloat(0x3F880000u);
            return bitsToFloat(0x3F900000u) * (i % 2 ? 1.0f : -1.0f);
        }) << Floats(n, 0.0f);
        // Errors that round to a key border from the double difference.
        QTest::addRow("nonzero reference") << 64 << fill(n, [](size_t i) { return 1.0f + float(i % 13) * 0.0625f; })
                                           << fill(n, [](size_t i) { return float(i % 9) * 1e-8f; });
    }
    void exactPercentilesAdversarial()
    {
        QFETCH(int, K);
        QFETCH(Floats, q);
        QFETCH(Floats, r);
        const uint64_t N = q.size() / uint64_t(K);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("m.safetensors")).toStdString();
        const auto bytes = [](const Floats& v) {
            return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
        };
        writeSafetensors(path,
                         {{"cand.weight", DType::F32, {N, uint64_t(K)}, bytes(q)},
                          {"ref.weight", DType::F32, {N, uint64_t(K)}, bytes(r)}});
        const auto ckpt = openCheckpoint(path);
        const LogicalWeight* w = ckpt->findWeight("cand.weight");
        QVERIFY(w);
        const TensorEntry* ref = ckpt->find("ref.weight");
        QVERIFY(ref);
        const std::vector<double> want = expectedPercentiles(q, r);
        uint64_t finite = 0;
        double hi = 0, finiteHi = 0;
        for (size_t i = 0; i < q.size(); ++i) {
            const double e = double(q[i]) - double(r[i]);
            finite += std::isfinite(e);
            hi = std::max(hi, std::fabs(e));
            if (std::isfinite(e))
                finiteHi = std::max(finiteHi, double(std::fabs(float(e))));
        }
        // The default-range signed histogram: [-hi, hi] (the largest finite |error| when one is
        // infinite), each finite float(e) binned by one multiply.
        if (!std::isfinite(hi))
            hi = finiteHi;
        std::vector<uint64_t> bins(7, 0);
        for (size_t i = 0; i < q.size(); ++i) {
            const float e = float(double(q[i]) - double(r[i]));
            if (!std::isfinite(e))
                continue;
            const double pos = (double(e) + hi) * (7.0 / (2 * hi));
            ++bins[hi > 0 ? (pos <= 0 ? 0 : std::min<size_t>(6, size_t(pos))) : 3];
        }
        for (const SimdPath path : {SimdPath::Scalar, bestSimdPath()})
            for (const int threads : {1, 2}) {
                StatsOptions opt;
                opt.path = path;
                opt.threads = threads;
                opt.rowChunk = 3;
                opt.bins = 7;
                const WeightComparison c = compareWeight(*ckpt, *w, *ckpt, *ref, opt);
                QVERIFY(c.error.percentilesExact);
                const double got[4] = {c.error.p50, c.error.p95, c.error.p99, c.error.p999};
                for (int i = 0; i < 4; ++i)
                    QVERIFY2(got[i] == want[size_t(i)],
                             qPrintable(QStringLiteral("percentile %1: %2, expected %3 (%4, %5 threads)")
                                            .arg(i)
                                            .arg(got[i], 0, 'g', 17)
                                            .arg(want[size_t(i)], 0, 'g', 17)
                                            .arg(QString::fromLatin1(simdPathName(path)))
                                            .arg(threads)));
                QCOMPARE(c.error.signedError.total(), finite);
                QCOMPARE(c.error.signedError.hi, hi);
                QCOMPARE(c.error.signedError.counts, bins);
            }
    }

    void errorScanPathsAgree_data()
    {
        QTest::addColumn<int>("n");
        QTest::addRow("8") << 8;
        QTest::addRow("1003 (a tail)") << 1003;
        QTest::addRow("4096") << 4096;
    }
    void errorScanPathsAgree()
    {
        QFETCH(int, n);
        std::vector<float> q(static_cast<size_t>(n)), r(q.size());
        uint32_t x = 777;
        for (size_t i = 0; i < q.size(); ++i) {
            x = x * 1664525u + 1013904223u;
            q[i] = float(int32_t(x >> 8) - (1 << 23)) * 1e-6f;
            r[i] = q[i] * 0.999f + float(i % 5) * 1e-7f;
        }
        q[2] = std::numeric_limits<float>::quiet_NaN();
        q[size_t(n) - 1] = std::numeric_limits<float>::infinity();
        std::vector<float> ea(q.size()), eb(q.size());
        const ErrorSums a = scanError(q.data(), r.data(), q.size(), ea.data());
        QCOMPARE(a.maxAbs, std::numeric_limits<double>::infinity());
        std::vector<uint32_t> ca(kCoarseKeys * kKeySplit, 0);
        countCoarse(ea.data(), ea.size(), ca.data());
        for (const SimdPath path : cpuSimdPaths()) {
            const ErrorSums b = scanError(q.data(), r.data(), q.size(), eb.data(), path);
            QCOMPARE(std::memcmp(&a, &b, sizeof a), 0);
            QCOMPARE(std::memcmp(ea.data(), eb.data(), ea.size() * 4), 0);
            std::vector<uint32_t> cb(ca.size(), 0);
            countCoarse(eb.data(), eb.size(), cb.data(), path);
            QCOMPARE(ca, cb);
        }
        // Without the NaN the max is the largest |e|.
        q[2] = 0.5f;
        q[size_t(n) - 1] = 0.25f;
        const ErrorSums c = scanError(q.data(), r.data(), q.size(), ea.data());
        double mx = 0;
        for (size_t i = 0; i < q.size(); ++i)
            mx = std::max(mx, std::fabs(double(q[i]) - double(r[i])));
        QCOMPARE(c.maxAbs, mx);
    }

    void valueScanAdversarial_data()
    {
        // Every key the scans count, on both paths, against a plain count of valueKey.
        QTest::addColumn<Floats>("v");
        const auto bits = [](uint32_t u) { return bitsToFloat(u); };
        QTest::addRow("all equal") << Floats(1000, 0.5f);
        QTest::addRow("all -0") << Floats(777, -0.0f);
        Floats span, sub, zeros, special, edges;
        uint32_t x = 99;
        for (int e = 1; e <= 254; ++e)
            for (uint32_t sign : {0u, 0x80000000u}) {
                x = x * 1664525u + 1013904223u;
                span.push_back(bits(sign | (uint32_t(e) << 23) | (x >> 9))); // 2^-126 .. 2^127
            }
        for (int i = 0; i < 300; ++i) {
            x = x * 1664525u + 1013904223u;
            sub.push_back(bits((x & 0x80000000u) | ((x >> 9) & 0x7FFFFFu))); // subnormals and zeros of both signs
            zeros.push_back(i % 3 ? 0.0f : -0.0f);
        }
        for (float f : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                        std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()})
            for (int i = 0; i < 13; ++i)
                special.push_back(f);
        // Values on either side of key boundaries: the last float of a key and the first of the next.
        for (uint32_t k : {0x3F80u, 0x3F7Fu, 0x0080u, 0x007Fu, 0x7F7Fu, 0x0000u, 0x8000u, 0xBF80u})
            for (uint32_t low : {0x0000u, 0xFFFFu, 0x8000u})
                edges.push_back(bits((k << 16) | low));
        QTest::addRow("2^-126 .. 2^127, both signs") << span;
        QTest::addRow("subnormals") << sub;
        QTest::addRow("+0 and -0") << zeros;
        QTest::addRow("NaN, Inf, max, denorm_min") << special;
        QTest::addRow("key edges") << edges;
        // Sums that round differently when a lane takes its values in another order: lanes 0-3
        // get 1, 1, 2^-26, 3 * 2^-27 (squares 2 + 2^-52 + 9 * 2^-54: a tie, then past it),
        // lanes 4-7 get 1, 0, 2^-53, -1 (sum (1 + 2^-53) - 1 = 0, not 2^-53).
        Floats order;
        for (int step = 0; step < 4; ++step)
            for (int l = 0; l < 8; ++l) {
                const float a[4] = {1, 1, std::ldexp(1.0f, -26), 3 * std::ldexp(1.0f, -27)};
                const float b[4] = {1, 0, std::ldexp(1.0f, -53), -1};
                order.push_back(l < 4 ? a[step] : b[step]);
            }
        QTest::addRow("lane order") << order;
    }
    void valueScanAdversarial()
    {
        QFETCH(Floats, v);
        std::vector<uint64_t> expect(kKeyCount, 0);
        for (float f : v)
            ++expect[valueKey(std::bit_cast<uint32_t>(f))];
        ValueLanes a;
        KeyCounts ka;
        scanValues(v.data(), v.size(), a, ka.split.data());
        KeyCounts kf = ka;
        kf.flush();
        QCOMPARE(kf.totals, expect);
        for (SimdPath p : qsk::simdPaths()) {
            ValueLanes b;
            KeyCounts kb;
            scanValues(v.data(), v.size(), b, kb.split.data(), p);
            QCOMPARE(kb.split, ka.split);
            QCOMPARE(std::memcmp(a.sum, b.sum, sizeof a.sum), 0);
            QCOMPARE(std::memcmp(a.sumSq, b.sumSq, sizeof a.sumSq), 0);
            QCOMPARE(std::memcmp(a.lo, b.lo, sizeof a.lo), 0);
            QCOMPARE(std::memcmp(a.hi, b.hi, sizeof a.hi), 0);
        }
    }

    void codeCountsFixtures_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : kVariants)
            QTest::addRow("%s", v) << QString::fromLatin1(v);
    }
    void codeCountsFixtures()
    {
        // Row blocks that start and end inside AWQ words of 8 rows, and whole weights.
        QFETCH(QString, variant);
        const auto ckpt = openCheckpoint(fixturePath(variant + QStringLiteral("/model.safetensors")));
        const LogicalWeight* w = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        const PackedLinear p = describePacked(WeightData{*ckpt, *w});
        checkCodeCounts(p);
    }

    void codeCountsSynthetic_data()
    {
        // Every layout countCodes reads in words, with K that leaves partial words.
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::addRow("gptq 2-bit K 100") << "gptq" << 2 << 100 << 20;
        QTest::addRow("gptq 3-bit K 100") << "gptq" << 3 << 100 << 20;
        QTest::addRow("gptq 4-bit K 100") << "gptq" << 4 << 100 << 20;
        QTest::addRow("gptq 8-bit K 100") << "gptq" << 8 << 100 << 20;
        QTest::addRow("gptq planar 4-bit") << "planar" << 4 << 96 << 32;
        QTest::addRow("awq gemm K 100") << "gemm" << 4 << 100 << 24;
        QTest::addRow("awq gemv K 100") << "gemv" << 4 << 100 << 20;
        QTest::addRow("awq gemv_fast") << "gemv-fast" << 4 << 96 << 12;
        QTest::addRow("marlin 4-bit") << "marlin" << 4 << 32 << 64;
        QTest::addRow("marlin 8-bit") << "marlin" << 8 << 32 << 64;
        QTest::addRow("marlin 4-bit N 192") << "marlin" << 4 << 48 << 192;
        QTest::addRow("marlin 8-bit N 128") << "marlin" << 8 << 32 << 128;
    }
    void codeCountsSynthetic()
    {
        QFETCH(QString, layout);
        QFETCH(int, bits);
        QFETCH(int, K);
        QFETCH(int, N);
        const uint64_t k = uint64_t(K), n = uint64_t(N);
        // Skewed codes (a run of the top code, then a ramp) so a miscounted word shows.
        std::vector<uint8_t> codes(size_t(n * k));
        uint32_t x = 5;
        for (size_t i = 0; i < codes.size(); ++i) {
            x = x * 1664525u + 1013904223u;
            codes[i] = uint8_t(i % 7 == 0 ? (1u << bits) - 1u : (x >> 24) % (1u << bits));
        }
        const std::vector<int32_t> zeros(n, 1);
        const std::vector<uint16_t> scales(n, 0x3C00);
        PackedLinear p;
        p.bits = bits;
        p.K = k;
        p.N = n;
        p.groupSize = k;
        p.groups = 1;
        PackedOutput out;
        if (layout == "gptq" || layout == "planar") {
            out = packGptq(codes, zeros, scales, bits, k, n, 1, false, layout == "planar");
            p.kind = layout == "planar" ? PackedKind::GptqPlanar : PackedKind::Gptq;
        } else if (layout == "gemm") {
            out = packAwqGemm(codes, zeros, scales, k, n, k);
            p.kind = PackedKind::AwqGemm;
        } else if (layout == "gemv") {
            out = packAwqGemv(codes, zeros, scales, k, n, k);
            p.kind = PackedKind::AwqGemv;
            p.zeroWords = out.qzeros.shape.at(1);
            p.scaleRows = out.scales.shape.at(1);
        } else if (layout == "gemv-fast") {
            out = packAwqGemvFast(codes, scales, scales, k, n, k);
            p.kind = PackedKind::AwqGemvFast;
            p.zeros = ZeroConvention::FloatBias;
            p.scaleRows = out.scales.shape.at(0);
        } else {
            out = packMarlin(codes, scales, bits, k, n, 1);
            p.kind = PackedKind::Marlin;
            p.zeros = ZeroConvention::Implicit;
        }
        p.qweight = out.qweight.bytes;
        p.qzeros = out.qzeros.bytes;
        p.scales = out.scales.bytes;
        p.validate();
        for (uint64_t r = 0; r < n; ++r)
            for (uint64_t c = 0; c < k; ++c)
                QCOMPARE(p.codeAt(r, c), uint32_t(codes[size_t(r * k + c)]));
        checkCodeCounts(p);
    }

    void shapeMismatchThrows()
    {
        const auto ckpt = openCheckpoint(fixturePath(QStringLiteral("gptq-w4-g128-sym/model.safetensors")));
        const auto src = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        QVERIFY_THROWS_EXCEPTION(Error, compareWeight(*ckpt, *w, *src, *src->find("stories260K.layers.0.wq"), {}));
    }

    // stats' errors carry the checkpoint and the weight as their context (qs::ErrorContext), not
    // glued into the text: the GUI and the CLI print them once, in one form.
    void errorsCarryTheirContext()
    {
        const auto caught = [](const std::function<void()>& f) -> std::optional<Error> {
            try {
                f();
            } catch (const Error& e) {
                return e;
            }
            return std::nullopt;
        };
        const auto src = openCheckpoint(fixturePath(QStringLiteral("sources.safetensors")));
        const LogicalWeight* w = src->findWeight("stories260K.layers.0.wq"); // [64, 64]
        QVERIFY(w);
        const auto names = [&](const std::optional<Error>& e, const LogicalWeight& weight, const Checkpoint& c,
                               const std::string& detail) {
            QVERIFY(e);
            QCOMPARE(e->context().file, c.path);
            QCOMPARE(e->context().weight, weight.name);
            QVERIFY2(e->detail().find(detail) != std::string::npos, e->what());
            QCOMPARE(std::string(e->what()), c.path + ": weight '" + weight.name + "': " + e->detail());
        };
        RequantizeSpec spec;
        spec.format = "gguf-q4_k"; // 64 is not a whole 256-block
        names(caught([&] { compareRequantized(*src, *w, spec, {}); }), *w, *src,
              "requantized to gguf-q4_k: 64 input features are not a whole number of 256-weight blocks");
        spec.format = "exl3";
        names(caught([&] { compareRequantized(*src, *w, spec, {}); }), *w, *src, "cannot requantize to 'exl3'");
        spec.format = "gguf-q8_0";
        StatsOptions bins;
        bins.bins = 0;
        names(caught([&] { compareRequantized(*src, *w, spec, bins); }), *w, *src, "bins must be 1..100000");
        names(caught([&] { weightHistograms(*src, *w, bins); }), *w, *src, "bins must be 1..100000");
        StatsOptions acts;
        const std::vector<float> three(3, 1.0f);
        acts.activations = &three;
        names(caught([&] { compareRequantized(*src, *w, spec, acts); }), *w, *src,
              "activations hold 3 values, not a multiple of K = 64");

        const auto ckpt = openCheckpoint(fixturePath(QStringLiteral("gptq-w4-g128-sym/model.safetensors")));
        const LogicalWeight* q = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(q);
        names(caught([&] { compareWeight(*ckpt, *q, *src, *src->find("stories260K.layers.0.wq"), {}); }), *q, *ckpt,
              "the reference " + src->path + " tensor 'stories260K.layers.0.wq' has 4096 elements");
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
