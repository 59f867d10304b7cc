// The error view: its histogram bars are core's counts (against a float reference checkpoint
// and against the weight requantized), the statistics table shows core's figures, bins and
// log scale apply, a long comparison keeps the event loop running and can be cancelled, and
// the table writes numbers in the application's locale; log-scale bars stand at their
// counts, the CLI's range and a zoom apply, any affine bits and group size, a quantized
// checkpoint is offered the float reference beside it, and exports say what they show.
#include "analysis/groupscales.h"
#include "analysis/stats.h"
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "demo.h"
#include "jobrunner.h"
#include "base/half.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "figures/errorhistogram.h"
#include "theme.h"
#include "views/errorview.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"

#include <qcustomplot.h>

#include <QPainter>
#include <QPushButton>
#include <QScopeGuard>
#include <QSvgRenderer>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QtTest>

using namespace qsw;

namespace {

constexpr int kJobTimeoutMs = 20000;

std::vector<uint64_t> barCounts(QCPBars* bars)
{
    std::vector<uint64_t> out;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        out.push_back(uint64_t(it->value));
    return out;
}

int firstQuantized(const qs::Checkpoint& c)
{
    for (size_t i = 0; i < c.weights.size(); ++i)
        if (c.weights[i].format.rfind("gptq", 0) == 0 || c.weights[i].format.rfind("awq", 0) == 0)
            return int(i);
    return -1;
}

// A checkpoint in a context and an error view on it, shown at 1000 x 700.
struct Fixture {
    std::shared_ptr<const qs::Checkpoint> ckpt;
    ViewContext context;
    ErrorView view{&context};

    explicit Fixture(const QString& path, const Theme& theme = Theme::fromPalette(lightPalette()))
        : ckpt(qs::openCheckpoint(path.toStdString()))
    {
        context.setTheme(theme);
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(*ckpt));
        view.resize(1000, 700);
        view.show();
    }
    // Selects the weight and waits until its comparison is done.
    bool select(int weight)
    {
        if (!QTest::qWaitForWindowExposed(&view))
            return false;
        context.setWeight(weight);
        return context.jobs()->waitForIdle(kJobTimeoutMs);
    }
};

QString fixtureModel(const QString& dir)
{
    return qstest::fixture(QStringLiteral("safetensors/%1/model.safetensors").arg(dir));
}

std::shared_ptr<const qs::Checkpoint> fixtureReference(const QString& dir)
{
    return qs::openCheckpoint(qstest::fixture(QStringLiteral("safetensors/%1/ref.safetensors").arg(dir)).toStdString());
}

} // namespace

class TestErrorView : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        // A plot painted at zero size (hidden, squeezed) warns so; none may.
        QTest::failOnWarning(QRegularExpression(QStringLiteral("^QPainter::begin")));
    }

    // A GGUF against the Hugging Face checkpoint it was converted from: the view finds the
    // reference as diff and stats --ref pair weights (output.weight = lm_head.weight, q with
    // llama.cpp's row permutation undone) and shows core's figures.
    void ggufAgainstHuggingFaceReference()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        qstest::writeConvertedLlama(tmp.path());
        Fixture f(tmp.filePath(QStringLiteral("model.gguf")));
        const auto ref = qs::openCheckpoint(tmp.filePath(QStringLiteral("hf")).toStdString());
        f.view.addReference(ref);
        for (const char* name : {"output.weight", "blk.0.attn_q.weight"}) {
            const qs::LogicalWeight* w = f.ckpt->findWeight(name);
            QVERIFY(w);
            QVERIFY(f.select(int(w - f.ckpt->weights.data())));
            QVERIFY2(f.view.result(), qPrintable(f.view.message()));
            const qs::WeightComparison want =
                qs::compareWeight(*f.ckpt, *w, *ref, qs::findReference(*f.ckpt, *w, *ref), {});
            QCOMPARE(f.view.result()->reference, want.reference);
            QCOMPARE(f.view.result()->error.maxAbs, want.error.maxAbs);
            QVERIFY(want.error.maxAbs < 0.01); // Q8_0's rounding: the rows are paired right
        }
        QCOMPARE(f.view.result()->note, std::string("q/k row permutation undone (4 heads)"));
    }

    // While the next weight is computed, the caption names it, not the weight shown before.
    void captionFollowsTheWeightAtOnce()
    {
        Fixture f(fixtureModel(QStringLiteral("gptq-w4-g32-asym")));
        QVERIFY(f.ckpt->weights.size() >= 2);
        const QString before = shownText(QString::fromStdString(f.ckpt->weights[0].name)).toHtmlEscaped();
        const QString next = shownText(QString::fromStdString(f.ckpt->weights[1].name)).toHtmlEscaped();
        QVERIFY(f.select(0));
        QVERIFY(f.view.caption().contains(before));
        f.context.setWeight(1);
        QVERIFY2(f.view.caption().contains(next) && !f.view.caption().contains(before), qPrintable(f.view.caption()));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(f.view.caption().contains(next));
    }

    void countsEqualCoreAgainstReference_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<int>("bins");
        QTest::addRow("gptq act-order, 64 bins") << "gptq-w4-g32-sym-actorder" << 64;
        QTest::addRow("awq, 17 bins") << "awq-gemm-w4-g32" << 17;
    }
    void countsEqualCoreAgainstReference()
    {
        QFETCH(QString, dir);
        QFETCH(int, bins);
        Fixture f(fixtureModel(dir));
        const auto ref = fixtureReference(dir);
        const int index = firstQuantized(*f.ckpt);
        QVERIFY(index >= 0);
        f.view.setBins(bins);
        f.view.addReference(ref);
        QVERIFY(f.select(index));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));

        const qs::LogicalWeight& w = f.ckpt->weights[size_t(index)];
        qs::StatsOptions opt;
        opt.bins = bins;
        const qs::WeightComparison want = qs::compareWeight(*f.ckpt, w, *ref, qs::findReference(*f.ckpt, w, *ref), opt);
        QCOMPARE(barCounts(f.view.histogramBars()), want.error.signedError.counts);
        QCOMPARE(f.view.result()->error.rmse, want.error.rmse);
        QVERIFY(f.view.statisticsText().contains(QLocale().toString(want.error.rmse, 'g', 5)));
        QVERIFY(!want.error.groups.empty());

        // Log scale keeps the counts and switches the axis.
        f.view.setLogScale(true);
        QCOMPARE(barCounts(f.view.histogramBars()), want.error.signedError.counts);
        QCOMPARE(f.view.histogramBars()->valueAxis()->scaleType(), QCPAxis::stLogarithmic);
    }

    void countsEqualCoreRequantized()
    {
        Fixture f(fixtureModel(QStringLiteral("gptq-w4-g128-sym")));
        const int index = firstQuantized(*f.ckpt);
        QVERIFY(index >= 0);
        f.view.setBins(40);
        f.view.setRequantizeTarget(4); // GGUF Q4_K
        QVERIFY(f.select(index));
        if (!f.view.result())
            QVERIFY2(f.view.message().contains(QStringLiteral("256")),
                     qPrintable(f.view.message())); // K too small for Q4_K
        f.view.setRequantizeTarget(9); // GPTQ 4-bit g128 sym
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        qs::RequantizeSpec spec;
        spec.format = "gptq";
        spec.bits = 4;
        spec.groupSize = 128;
        spec.symmetric = true;
        qs::StatsOptions opt;
        opt.bins = 40;
        const qs::WeightComparison want = qs::compareRequantized(*f.ckpt, f.ckpt->weights[size_t(index)], spec, opt);
        QCOMPARE(barCounts(f.view.histogramBars()), want.error.signedError.counts);
        QCOMPARE(f.view.result()->error.maxAbs, want.error.maxAbs);
    }

    // The per-group chart spans the groups core's comparison reports: ggml blocks, bnb blocks
    // of 64, or the affine group.
    void requantizedGroupsMatchCore_data()
    {
        QTest::addColumn<int>("target");
        QTest::addColumn<int>("groupSize");
        QTest::addRow("GGUF Q8_0") << 1 << 32;
        QTest::addRow("GGUF Q4_K") << 4 << 256;
        QTest::addRow("GPTQ 4-bit g32") << 10 << 32;
        QTest::addRow("bitsandbytes NF4") << 15 << 64;
    }
    void requantizedGroupsMatchCore()
    {
        QFETCH(int, target);
        QFETCH(int, groupSize);
        Fixture f(fixtureModel(QStringLiteral("gptq-w4-g128-sym"))); // K = 256
        const int index = firstQuantized(*f.ckpt);
        QCOMPARE(f.ckpt->weights[size_t(index)].inFeatures(), uint64_t(256));
        f.view.setRequantizeTarget(target);
        QVERIFY(f.select(index));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        QCOMPARE(f.view.groupSize(), uint64_t(groupSize) < 256 ? uint64_t(groupSize) : 0);
        QCOMPARE(f.view.result()->error.groups.size(), size_t(256 / groupSize > 1 ? 256 / groupSize : 0));
    }

    void longJobKeepsEventLoopAndCancels()
    {
        // A 4096 x 8192 f16 weight: requantizing and comparing it takes a while.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const uint64_t n = 4096, k = 8192;
        std::vector<uint16_t> values(n * k);
        uint32_t state = 1;
        for (uint16_t& v : values) {
            state = state * 1664525u + 1013904223u;
            v = qs::floatToHalf(float(int(state >> 16) - 32768) / 32768.0f * 0.05f);
        }
        const std::string path = dir.filePath(QStringLiteral("big.safetensors")).toStdString();
        qs::writeSafetensors(path,
                             {{"model.layers.0.mlp.down_proj.weight",
                               qs::DType::F16,
                               {n, k},
                               {reinterpret_cast<const uint8_t*>(values.data()), values.size() * 2}}},
                             {});
        values = {};
        Fixture f(QString::fromStdString(path));
        QVERIFY(QTest::qWaitForWindowExposed(&f.view));
        ViewContext& context = f.context;
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&] { ++ticks; });
        timer.start(5);
        context.setWeight(0);
        QVERIFY(context.jobs()->isRunning(QStringLiteral("error")));
        QTRY_VERIFY(ticks >= 10); // the GUI thread keeps running while the job works
        QVERIFY(context.jobs()->isRunning(QStringLiteral("error")));
        context.jobs()->cancel(QStringLiteral("error"));
        QVERIFY(!context.jobs()->isBusy());
        QVERIFY(f.view.message().contains(QStringLiteral("Cancelled")));
        QTest::qWait(100);
        QVERIFY(!f.view.result());
        // The worker notices the flag and stops: the runner's pool drains quickly.
        QVERIFY(context.jobs()->waitForIdle(kJobTimeoutMs));
        // Computing again needs no other weight and back: the message offers it.
        auto* again = f.view.findChild<QPushButton*>(QStringLiteral("computeAgain"));
        QVERIFY(again && again->isVisible());
        QTest::mouseClick(again, Qt::LeftButton);
        QVERIFY(context.jobs()->isRunning(QStringLiteral("error")));
        QVERIFY(!again->isVisible());
        context.jobs()->cancel(QStringLiteral("error"));
        QVERIFY(context.jobs()->waitForIdle(kJobTimeoutMs));
    }

    // A click on the per-group chart selects that group's first element in the context.
    void groupClickSelectsGroup()
    {
        const QString dir = QStringLiteral("gptq-w4-g32-sym-actorder");
        Fixture f(fixtureModel(dir));
        const int index = firstQuantized(*f.ckpt);
        f.view.addReference(fixtureReference(dir));
        QVERIFY(f.select(index));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        ErrorView& view = f.view;
        ViewContext& context = f.context;
        const qs::LogicalWeight& w = f.ckpt->weights[size_t(index)];
        QCOMPARE(view.groupSize(), uint64_t(w.groupSize));
        const size_t groups = view.result()->error.groups.size();
        QCOMPARE(groups, size_t(w.inFeatures() / uint64_t(w.groupSize)));
        QCustomPlot* plot = view.groupPlot();
        plot->replot();
        QCPAxis* x = plot->plottable(0)->keyAxis();
        QCPAxis* y = plot->plottable(0)->valueAxis();
        const int last = int(groups) - 1;
        const QPointF pixel(x->coordToPixel(last), y->coordToPixel(y->range().center()));
        const ElementRef e = view.groupElementAt(pixel);
        QCOMPARE(e.weight, index);
        // Act-order: the group's lowest column by g_idx, as Scales names it.
        const qs::GroupScales scales = qs::groupScales(*f.ckpt, w);
        QCOMPARE(e.col, int64_t(scales.firstColumn(uint64_t(last))));
        QSignalSpy spy(&context, &ViewContext::selectedChanged);
        QTest::mouseClick(plot, Qt::LeftButton, {}, pixel.toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(context.selected(), e);
        // Outside the groups: nothing.
        QVERIFY(!view.groupElementAt(QPointF(x->coordToPixel(double(groups) + 0.8), pixel.y())).isValid());
    }

    // Act-order: element (3, k) is in group g_idx[k] in the Error view as in the Bit map and
    // Scales, and each group's error is that of the columns g_idx puts in it.
    void actOrderGroupsAreGIdxGroups()
    {
        const QString dir = QStringLiteral("gptq-w4-g128-asym-actorder");
        Fixture f(fixtureModel(dir));
        const auto ref = fixtureReference(dir);
        const int index = firstQuantized(*f.ckpt);
        QVERIFY(index >= 0);
        const qs::LogicalWeight& w = f.ckpt->weights[size_t(index)];
        QVERIFY(w.actOrder);
        f.view.addReference(ref);
        QVERIFY(f.select(index));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        const std::vector<int32_t> gIdx = qs::groupScales(*f.ckpt, w).gIdx;
        const uint64_t K = w.inFeatures(), N = w.outFeatures(), gs = uint64_t(w.groupSize);
        QCOMPARE(gIdx.size(), size_t(K));
        int64_t k = 0;
        while (uint64_t(k) < K && uint64_t(gIdx[size_t(k)]) == uint64_t(k) / gs)
            ++k;
        QVERIFY2(uint64_t(k) < K, "the fixture's g_idx is k / group size everywhere");
        f.context.setSelected({index, 3, k});
        QCOMPARE(f.view.groupOfColumn(k), std::optional<uint64_t>(uint64_t(gIdx[size_t(k)])));

        const qs::ReferenceMatch match = qs::findReference(*f.ckpt, w, *ref);
        QVERIFY(match.found());
        const std::vector<float> q = qs::dequantizeWeight(*f.ckpt, w, qs::SimdPath::Scalar);
        const std::vector<float> r = qs::dequantizeWeight(*ref, *match.reference, qs::SimdPath::Scalar);
        const std::vector<qs::GroupError>& groups = f.view.result()->error.groups;
        std::vector<double> sq(groups.size(), 0.0);
        std::vector<uint64_t> count(groups.size(), 0);
        for (uint64_t n = 0; n < N; ++n)
            for (uint64_t c = 0; c < K; ++c) {
                const double e = double(q[n * K + c]) - double(r[n * K + c]);
                sq[size_t(gIdx[c])] += e * e;
                ++count[size_t(gIdx[c])];
            }
        for (size_t g = 0; g < groups.size(); ++g)
            QVERIFY2(std::fabs(groups[g].rmse - std::sqrt(sq[g] / double(count[g]))) <= 1e-12 * groups[g].rmse,
                     qPrintable(QStringLiteral("group %1").arg(g)));
    }

    // "Requantizing to its own format shows whether its codes are reproduced (error 0 when they
    // are)" holds where the view says it: on the demo (made by Quantscope's own round-to-nearest
    // quantizer) the asymmetric AWQ layer comes back exactly; the symmetric GPTQ layers cannot
    // (their scale came from the original max |w|), and the view says so instead.
    void ownFormatCheckIsTruthfulOnTheDemo_data()
    {
        QTest::addColumn<QString>("weight");
        QTest::addColumn<bool>("reproducible");
        QTest::addRow("layer 0: gptq 4-bit sym act-order") << "model.layers.0.mlp.down_proj" << false;
        QTest::addRow("layer 1: gptq 3-bit sym") << "model.layers.1.mlp.down_proj" << false;
        QTest::addRow("layer 2: awq 4-bit asym") << "model.layers.2.mlp.down_proj" << true;
    }
    void ownFormatCheckIsTruthfulOnTheDemo()
    {
        QFETCH(QString, weight);
        QFETCH(bool, reproducible);
        Fixture f(extractDemoCheckpoint());
        const qs::LogicalWeight* w = f.ckpt->findWeight(weight.toStdString());
        QVERIFY(w);
        QVERIFY(f.select(int(w - f.ckpt->weights.data())));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        const QString hint = f.view.hintText();
        if (reproducible) {
            QVERIFY2(hint.contains(QStringLiteral("error 0 when they are")), qPrintable(hint));
            QCOMPARE(f.view.result()->error.maxAbs, 0.0);
        } else {
            QVERIFY2(hint.contains(QStringLiteral("cannot reproduce")) && hint.contains(QStringLiteral("symmetric")),
                     qPrintable(hint));
            QVERIFY(!hint.contains(QStringLiteral("error 0 when they are")));
            QCOMPARE(hint.contains(QStringLiteral("g_idx")), w->actOrder);
            QVERIFY(f.view.result()->error.maxAbs > 0);
        }
    }

    // A float weight has no format of its own: the view shows what GPTQ 4-bit g128 would cost.
    void floatWeightShowsRequantizationCost()
    {
        Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-sym-actorder/ref.safetensors")));
        QVERIFY(!f.ckpt->weights.empty());
        QVERIFY(f.select(0));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        qs::RequantizeSpec spec;
        spec.format = "gptq";
        spec.bits = 4;
        spec.groupSize = 128;
        spec.symmetric = true;
        qs::StatsOptions opt;
        opt.bins = 64;
        const qs::WeightComparison want = qs::compareRequantized(*f.ckpt, f.ckpt->weights[0], spec, opt);
        QCOMPARE(barCounts(f.view.histogramBars()), want.error.signedError.counts);
        QCOMPARE(f.view.result()->error.rmse, want.error.rmse);
        QVERIFY(want.error.rmse > 0);
    }

    // The German UI writes decimal commas and grouped counts in the statistics table.
    void statisticsFollowTheLocale()
    {
        const QLocale before;
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        const QLocale german(QLocale::German, QLocale::Germany);
        QLocale::setDefault(german);
        const QString dir = QStringLiteral("gptq-w4-g32-sym-actorder");
        Fixture f(fixtureModel(dir));
        f.view.addReference(fixtureReference(dir));
        QVERIFY(f.select(firstQuantized(*f.ckpt)));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        const qs::ErrorStats& e = f.view.result()->error;
        const QString table = f.view.statisticsText();
        for (double v : {e.rmse, e.meanAbs, e.maxAbs, e.p99}) {
            const QString text = german.toString(v, 'g', 5);
            QVERIFY2(text.contains(QLatin1Char(',')), qPrintable(text));
            QVERIFY2(table.contains(QLatin1Char('>') + text + QLatin1Char('<')), qPrintable(text));
            QVERIFY(!table.contains(QString::number(v, 'g', 5)));
        }
        QVERIFY(table.contains(german.toString(f.view.result()->output.cosine, 'f', 6)));
        QVERIFY(table.contains(german.toString(qulonglong(e.count))));
    }

    // A NaN scale: its group's values are counted apart with their place, and every figure is
    // that of the finite ones (RMSE was NaN beside a finite max |error| and a cosine of 0).
    void nonFiniteValuesCountedApart()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dir = QStringLiteral("gptq-w4-g128-sym");
        const QString path = qstest::copyWithNanScale(tmp.path(), dir);
        QVERIFY(!path.isEmpty());
        Fixture f(path);
        f.view.addReference(fixtureReference(dir));
        QVERIFY(f.select(firstQuantized(*f.ckpt)));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        const qs::WeightComparison& r = *f.view.result();
        QVERIFY(r.error.nonFinite > 0);
        QVERIFY(std::isfinite(r.error.rmse) && std::isfinite(r.output.cosine) && r.output.cosine > 0.5);
        const QString table = f.view.statisticsText();
        QVERIFY2(table.contains(QStringLiteral("%1 left out of every figure; the first at (%2, %3)")
                                    .arg(r.error.nonFinite)
                                    .arg(r.error.firstNonFinite / r.shape[1])
                                    .arg(r.error.firstNonFinite % r.shape[1])),
                 qPrintable(table));
        QVERIFY2(!table.contains(QStringLiteral(">nan<"), Qt::CaseInsensitive), qPrintable(table)); // no figure is NaN
        QVERIFY(f.view.tableCsv().contains(QStringLiteral("non_finite,%1").arg(r.error.nonFinite)));
    }

    // Log-scale bars stand at their counts (a count of 1 on the 1 line), and an all-zero
    // error draws its one bar at 0.
    void histogramBarsStandAtTheirCounts()
    {
        QCustomPlot plot;
        plot.resize(600, 400);
        qs::Histogram h;
        h.lo = -1;
        h.hi = 1;
        h.counts = {1, 0, 5, 1};
        ErrorHistogramOptions opt;
        opt.logScale = true;
        QCPBars* bars = buildErrorHistogram(&plot, h, opt, Theme::fromPalette(lightPalette()));
        bool found = false;
        const QCPRange values = bars->getValueRange(found, QCP::sdPositive);
        QVERIFY(found);
        QVERIFY2(std::fabs(values.upper - 5) < 1e-6, qPrintable(QString::number(values.upper)));
        QVERIFY2(values.lower < 0.5, qPrintable(QString::number(values.lower))); // below the axis

        qs::Histogram zero;
        zero.counts = std::vector<uint64_t>(8, 0);
        zero.counts[4] = 4096;
        QCPBars* one = buildErrorHistogram(&plot, zero, {}, Theme::fromPalette(lightPalette()));
        for (auto it = one->data()->constBegin(); it != one->data()->constEnd(); ++it)
            if (it->value > 0)
                QCOMPARE(it->key, 0.0);
        const QCPRange keys = one->keyAxis()->range();
        QVERIFY(keys.lower < 0 && keys.upper > 0);
        QCOMPARE(keys.center(), 0.0);
    }

    // The CLI's --range: the same counts as core with that range, what fell outside in the
    // table; the wheel zooms the error axis only and a double-click shows the range again.
    void rangeAndZoom()
    {
        const QString dir = QStringLiteral("gptq-w4-g32-asym");
        Fixture f(fixtureModel(dir));
        const auto ref = fixtureReference(dir);
        const int index = firstQuantized(*f.ckpt);
        const qs::LogicalWeight& w = f.ckpt->weights[size_t(index)];
        // A range narrower than the errors, lopsided: some fall outside on both sides.
        const double maxAbs = qs::compareWeight(*f.ckpt, w, *ref, qs::findReference(*f.ckpt, w, *ref), {}).error.maxAbs;
        QVERIFY(maxAbs > 0);
        // At the spin boxes' precision.
        const double lo = -std::round(maxAbs / 4 * 1e7) / 1e7, hi = std::round(maxAbs / 8 * 1e7) / 1e7;
        f.view.addReference(ref);
        f.view.setRange(lo, hi);
        QVERIFY(f.select(index));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        qs::StatsOptions opt;
        opt.bins = 64;
        opt.rangeLo = lo;
        opt.rangeHi = hi;
        const qs::WeightComparison want = qs::compareWeight(*f.ckpt, w, *ref, qs::findReference(*f.ckpt, w, *ref), opt);
        QCOMPARE(barCounts(f.view.histogramBars()), want.error.signedError.counts);
        QCOMPARE(f.view.result()->error.signedError.below, want.error.signedError.below);
        QVERIFY(want.error.signedError.below + want.error.signedError.above > 0);
        QVERIFY(f.view.statisticsText().contains(QLocale().toString(qulonglong(want.error.signedError.above))));

        QCustomPlot* plot = f.view.histogramPlot();
        plot->replot();
        QCPAxis* x = f.view.histogramBars()->keyAxis();
        QCPAxis* y = f.view.histogramBars()->valueAxis();
        const QCPRange before = x->range(), counts = y->range();
        const QPointF centre = x->axisRect()->rect().center();
        QWheelEvent wheel(centre, plot->mapToGlobal(centre), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(plot, &wheel);
        QVERIFY2(x->range().size() < before.size() * 0.9, qPrintable(QString::number(x->range().size())));
        QCOMPARE(y->range(), counts);
        QTest::mouseDClick(plot, Qt::LeftButton, {}, centre.toPoint());
        QCOMPARE(f.view.histogramBars()->keyAxis()->range(), before);
    }

    // The Range boxes show the range's magnitude with four significant digits, not nine
    // decimals; a --range that needs more keeps them; a range taken from the errors rounds
    // outward so it still holds them all.
    void rangeBoxesShowSignificantDigits()
    {
        const QString dir = QStringLiteral("gptq-w4-g32-asym");
        Fixture f(fixtureModel(dir));
        auto* lo = f.view.findChild<QDoubleSpinBox*>(QStringLiteral("rangeLow"));
        auto* hi = f.view.findChild<QDoubleSpinBox*>(QStringLiteral("rangeHigh"));
        QVERIFY(lo && hi);
        f.view.setRange(-0.0025, 0.00125);
        QCOMPARE(lo->decimals(), 6);
        QCOMPARE(lo->text(), QLocale().toString(-0.0025, 'f', 6));
        QCOMPARE(hi->text(), QLocale().toString(0.00125, 'f', 6));
        f.view.setRange(-0.0031234, 0.0015617);
        QCOMPARE(hi->decimals(), 7);
        QCOMPARE(lo->value(), -0.0031234);
        f.view.setRange(-2.5, 4);
        QCOMPARE(lo->text(), QLocale().toString(-2.5, 'f', 3));

        f.view.setRange(0, 0);
        f.view.addReference(fixtureReference(dir));
        QVERIFY(f.select(firstQuantized(*f.ckpt)));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        const qs::Histogram& h = f.view.result()->error.signedError;
        QCheckBox* on = nullptr;
        for (QCheckBox* box : f.view.findChildren<QCheckBox*>())
            if (box->text() == QLatin1String("Range"))
                on = box;
        QVERIFY(on);
        on->setChecked(true);
        QCOMPARE(lo->decimals(), 3 - int(std::floor(std::log10(std::max(std::fabs(h.lo), std::fabs(h.hi))))));
        QVERIFY(lo->decimals() < 9);
        QVERIFY(lo->value() <= h.lo && hi->value() >= h.hi);
        QVERIFY(lo->value() > h.lo - std::pow(10.0, -lo->decimals()));
    }

    // Any bits and group size of an affine target, not only the presets'; a group size the
    // weight cannot hold says so where the per-group chart would be.
    void anyBitsAndGroupSize()
    {
        Fixture f(fixtureModel(QStringLiteral("gptq-w4-g128-sym"))); // K = 256
        const int index = firstQuantized(*f.ckpt);
        f.view.setRequantizeTarget(9); // GPTQ 4-bit g128 sym
        f.view.setRequantizeBits(3);
        f.view.setRequantizeGroupSize(64);
        QVERIFY(f.select(index));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        qs::RequantizeSpec spec{"gptq", 3, 64, true};
        qs::StatsOptions opt;
        opt.bins = 64;
        const qs::WeightComparison want = qs::compareRequantized(*f.ckpt, f.ckpt->weights[size_t(index)], spec, opt);
        QCOMPARE(barCounts(f.view.histogramBars()), want.error.signedError.counts);
        QCOMPARE(f.view.result()->error.groups.size(), size_t(4));
        QVERIFY(f.view.groupNote().isEmpty());

        f.view.setRequantizeGroupSize(512);
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        QVERIFY(f.view.result()->error.groups.empty());
        QVERIFY2(f.view.groupNote().contains(QStringLiteral("512"))
                     && f.view.groupNote().contains(QStringLiteral("256")),
                 qPrintable(f.view.groupNote()));
    }

    // A quantized checkpoint's first sight: requantizing to its own format says what it
    // shows, and the float checkpoint beside it (ref.safetensors) is offered and opens as
    // the reference.
    void quantizedFirstSightOffersReference()
    {
        Fixture f(fixtureModel(QStringLiteral("gptq-w4-g32-asym")));
        QVERIFY(f.select(firstQuantized(*f.ckpt)));
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(f.view.hintText().contains(QStringLiteral("reproduced")), qPrintable(f.view.hintText()));
        QCOMPARE(QFileInfo(f.view.foundReference()).fileName(), QStringLiteral("ref.safetensors"));
        QVERIFY(f.view.hintText().contains(QStringLiteral("ref.safetensors")));
        f.view.useFoundReference();
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(f.context.reference());
        QVERIFY(f.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY2(f.view.result() && !f.view.result()->reference.empty(), qPrintable(f.view.message()));
        QVERIFY(f.view.hintText().isEmpty());

        // Without a float checkpoint beside it the view says what a reference would give.
        QTemporaryDir tmp;
        QVERIFY(QFile::copy(fixtureModel(QStringLiteral("gptq-w4-g32-asym")),
                            tmp.filePath(QStringLiteral("model.safetensors"))));
        for (const char* name : {"config.json", "quantize_config.json"})
            QFile::copy(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/%1").arg(QLatin1String(name))),
                        tmp.filePath(QLatin1String(name)));
        Fixture alone(tmp.filePath(QStringLiteral("model.safetensors")));
        QVERIFY(alone.select(firstQuantized(*alone.ckpt)));
        QVERIFY(alone.context.jobs()->waitForIdle(kJobTimeoutMs));
        QVERIFY(alone.view.foundReference().isEmpty());
        QVERIFY2(alone.view.hintText().contains(QStringLiteral("real error")), qPrintable(alone.view.hintText()));
    }

    // The export says what it shows (checkpoint, weight, reference), carries the statistics
    // table and no "click" hint, and the SVG fills its view box as the PNG does.
    void exportCarriesContext()
    {
        const QString dir = QStringLiteral("gptq-w4-g32-asym");
        Fixture f(fixtureModel(dir));
        f.view.addReference(fixtureReference(dir));
        const int index = firstQuantized(*f.ckpt);
        QVERIFY(f.select(index));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        QTemporaryDir tmp;
        QString error;
        const QString svg = tmp.filePath(QStringLiteral("error.svg")), png = tmp.filePath(QStringLiteral("error.png"));
        QVERIFY2(exportView(&f.view, svg, &error), qPrintable(error));
        QVERIFY2(exportView(&f.view, png, &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        for (const QString& want :
             {QString::fromStdString(f.ckpt->weights[size_t(index)].name), QStringLiteral("model.safetensors"),
              QStringLiteral("ref.safetensors"), QStringLiteral("RMSE"), QStringLiteral("SQNR")})
            QVERIFY2(text.contains(want), qPrintable(want));
        QVERIFY(!text.contains(QStringLiteral("click"), Qt::CaseInsensitive));

        // The drawing's extent: the SVG rendered at the PNG's logical size covers what the PNG does.
        auto extent = [](const QImage& image) {
            const QRgb background = image.pixel(image.width() - 1, image.height() - 1);
            int right = 0, bottom = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    if (image.pixel(x, y) != background && qAlpha(image.pixel(x, y)) > 0) {
                        right = std::max(right, x);
                        bottom = std::max(bottom, y);
                    }
            return QPoint(right, bottom);
        };
        const QImage raster = QImage(png).scaled(QImage(png).size() / 2);
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QImage vector(raster.size(), QImage::Format_ARGB32);
        vector.fill(raster.pixel(raster.width() - 1, raster.height() - 1));
        {
            QPainter painter(&vector);
            renderer.render(&painter);
        }
        const QPoint a = extent(raster), b = extent(vector);
        QVERIFY2(std::abs(a.x() - b.x()) < raster.width() / 20 && std::abs(a.y() - b.y()) < raster.height() / 20,
                 qPrintable(QStringLiteral("png %1,%2 svg %3,%4").arg(a.x()).arg(a.y()).arg(b.x()).arg(b.y())));

        // Never over an input.
        QVERIFY(!exportView(&f.view, QString::fromStdString(f.context.reference()->path), &error));
        QVERIFY2(error.contains(QStringLiteral("ref.safetensors")), qPrintable(error));
    }

    void screenshotNotBlank_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::addRow("light") << false;
        QTest::addRow("dark") << true;
    }
    void screenshotNotBlank()
    {
        QFETCH(bool, dark);
        Fixture f(fixtureModel(QStringLiteral("gptq-w4-g32-sym-actorder")),
                  Theme::fromPalette(dark ? darkPalette() : lightPalette()));
        QVERIFY(f.select(firstQuantized(*f.ckpt)));
        QVERIFY2(f.view.result(), qPrintable(f.view.message()));
        const QImage image = f.view.grab().toImage();
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
    }
};

QTEST_MAIN(TestErrorView)
#include "tst_errorview.moc"
