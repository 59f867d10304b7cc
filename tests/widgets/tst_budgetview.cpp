// The budget view: its bars are core's budgetTable (bits per weight, GiB, fits) bar for bar,
// the parameter count defaults to the open checkpoint's and parses free entry, the memory
// budget defaults to the machine's RAM, and the view is not blank.
#include "analysis/budget.h"
#include "analysis/runbudget.h"
#include "container/ggmltype.h"
#include "container/checkpoint.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "views/budgetview.h"
#include "qtext.h"
#include "formats/opencheckpoint.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFontMetrics>
#include <QLabel>
#include <QSet>
#include <QScopeGuard>
#include <QtTest>

#include <map>
#include <optional>

using namespace qsw;

namespace {

// The value of the bar at `key` among `bars`, or NaN when none has one.
double barAt(const QVector<QCPBars*>& bars, int key)
{
    for (QCPBars* b : bars)
        for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it)
            if (int(it->key) == key)
                return it->value;
    return NAN;
}

} // namespace

class TestBudgetView : public QObject {
    Q_OBJECT
private slots:
    void barsEqualBudgetTable_data()
    {
        QTest::addColumn<qulonglong>("params");
        QTest::addColumn<double>("memory");
        QTest::addRow("7B in 8 GiB") << qulonglong(7000000000ull) << 8.0;
        QTest::addRow("70B in 48 GiB") << qulonglong(70000000000ull) << 48.0;
        QTest::addRow("1B in 1 GiB") << qulonglong(1000000000ull) << 1.0;
    }
    void barsEqualBudgetTable()
    {
        QFETCH(qulonglong, params);
        QFETCH(double, memory);
        ViewContext context;
        BudgetView view(&context);
        view.setFamilyFilter(1); // all formats
        view.setMemoryGiB(memory);
        view.setParams(params);
        const std::vector<qs::BudgetRow> table = qs::budgetTable(params, memory);
        std::map<std::string, const qs::BudgetRow*> byId;
        for (const qs::BudgetRow& r : table)
            byId[r.format.id] = &r;
        const BudgetChart& chart = view.chart();
        QCOMPARE(chart.rows.size(), table.size());
        int fitting = 0;
        for (size_t i = 0; i < chart.rows.size(); ++i) {
            const qs::BudgetRow& shown = chart.rows[i];
            QVERIFY(byId.count(shown.format.id));
            const qs::BudgetRow& want = *byId[shown.format.id];
            QCOMPARE(barAt(chart.bitsBars, int(i)), want.bitsPerWeight);
            QVERIFY(want.fits.has_value());
            const double inFits = barAt({chart.fits}, int(i)), inOver = barAt({chart.over}, int(i));
            QCOMPARE(*want.fits ? inFits : inOver, want.gib * chart.memoryScale);
            QVERIFY(std::isnan(*want.fits ? inOver : inFits));
            fitting += *want.fits;
            if (i > 0)
                QVERIFY(chart.rows[i - 1].bitsPerWeight >= shown.bitsPerWeight);
        }
        QCOMPARE(chart.fits->data()->size(), fitting);
        QCOMPARE(chart.over->data()->size(), int(table.size()) - fitting);
    }

    // The family entries split the table: every row is shown under exactly one of them, and
    // the rows under one share their family's name (GPTQ and AWQ, bnb 4-bit and int8 apart).
    void familyFiltersPartitionTheTable()
    {
        ViewContext context;
        BudgetView view(&context);
        view.setParams(7000000000ull);
        const auto* box = view.findChild<QComboBox*>(QStringLiteral("familyFilter"));
        QVERIFY(box);
        // common, all, then float, GGUF, GPTQ, AWQ, CT, MLX, bnb 4-bit and int8, gpt-oss MXFP4, ModelOpt, EXL2,
        // optimum-quanto, AQLM
        QCOMPARE(box->count(), 2 + 13);
        std::map<std::string, int> seen;
        for (int i = 2; i < box->count(); ++i) {
            view.setFamilyFilter(i);
            QVERIFY(!view.chart().rows.empty());
            for (const qs::BudgetRow& r : view.chart().rows) {
                ++seen[r.format.id];
                QCOMPARE(box->itemText(i), familyName(*r.format.info));
            }
        }
        const std::vector<qs::BudgetRow> table = qs::budgetTable(7000000000ull);
        QCOMPARE(seen.size(), table.size());
        for (const qs::BudgetRow& r : table)
            QVERIFY2(seen[r.format.id] == 1, r.format.id.c_str());
    }

    // "All formats": some 75 bars, each format name at least a line below the previous one
    // (the plot grows and scrolls), and the legend names every colour: the storage kinds and
    // the memory bars' fits / does not fit.
    void allFormatsAreLegible()
    {
        ViewContext context;
        BudgetView view(&context);
        view.resize(1000, 700);
        view.setFamilyFilter(1);
        view.setMemoryGiB(8);
        view.setParams(7000000000ull);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const BudgetChart& chart = view.chart();
        QVERIFY(chart.rows.size() > 60);
        view.plot()->replot();
        QCPAxis* names = chart.bitsRect->axis(QCPAxis::atLeft);
        const double step = std::fabs(names->coordToPixel(1) - names->coordToPixel(0));
        const int line = QFontMetrics(names->tickLabelFont()).height();
        QVERIFY2(step >= line, qPrintable(QStringLiteral("%1 px per bar, labels %2 px").arg(step).arg(line)));
        // Every name lies inside the plot (none clipped at the top or bottom).
        QVERIFY(names->coordToPixel(0) - line / 2.0 >= 0);
        QVERIFY(names->coordToPixel(double(chart.rows.size() - 1)) + line / 2.0 <= view.plot()->height());
        QCPLegend* legend = nullptr;
        for (QCPLayoutElement* e : view.plot()->plotLayout()->elements(true))
            if (auto* l = qobject_cast<QCPLegend*>(e))
                legend = l;
        QVERIFY(legend);
        for (QCPBars* b : chart.bitsBars)
            QVERIFY(legend->hasItemWithPlottable(b));
        QVERIFY(legend->hasItemWithPlottable(chart.fits));
        QVERIFY(legend->hasItemWithPlottable(chart.over));
        // The export draws the whole chart, not the part in view.
        QVERIFY(view.exportSize().height() >= int(chart.rows.size()) * line);
        // The chart scrolls: the scales and what they measure stand above the bars as well, on
        // the first screen; "does not fit" is red, apart from the integer formats' brown.
        for (QCPAxisRect* rect : {chart.bitsRect, chart.memoryRect}) {
            QCPAxis* top = rect->axis(QCPAxis::atTop);
            QCPAxis* bottom = rect->axis(QCPAxis::atBottom);
            QVERIFY(top->visible() && top->tickLabels());
            QCOMPARE(top->label(), bottom->label());
            QCOMPARE(top->range(), bottom->range());
            QVERIFY2(rect->top() < view.height() / 2, qPrintable(QString::number(rect->top())));
        }
        QCOMPARE(chart.over->brush().color().rgb(), context.theme().error.rgb());
    }

    // A tiny checkpoint against a big budget: the memory axis switches unit and leaves the
    // budget off scale, so the longest bar still spans most of the axis.
    void memoryAxisFitsTheBars_data()
    {
        QTest::addColumn<qulonglong>("params");
        QTest::addColumn<double>("memory");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<bool>("budgetOnAxis");
        QTest::addRow("623.7K in 23.5 GiB") << qulonglong(623700) << 23.5 << "MiB" << false;
        QTest::addRow("20K in 16 GiB") << qulonglong(20000) << 16.0 << "KiB" << false;
        QTest::addRow("7B in 8 GiB") << qulonglong(7000000000ull) << 8.0 << "GiB" << true;
        QTest::addRow("1T in 64 GiB") << qulonglong(1000000000000ull) << 64.0 << "TiB" << true;
    }
    void memoryAxisFitsTheBars()
    {
        QFETCH(qulonglong, params);
        QFETCH(double, memory);
        QFETCH(QString, unit);
        QFETCH(bool, budgetOnAxis);
        ViewContext context;
        BudgetView view(&context);
        view.setMemoryGiB(memory);
        view.setParams(params);
        const BudgetChart& chart = view.chart();
        QCOMPARE(chart.memoryUnit, unit);
        QCOMPARE(chart.budgetOnAxis, budgetOnAxis);
        double longest = 0;
        for (QCPBars* b : {chart.fits, chart.over})
            for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it)
                longest = std::max(longest, it->value);
        const QCPRange range = chart.memoryRect->axis(QCPAxis::atBottom)->range();
        QVERIFY2(longest >= 0.3 * range.upper, qPrintable(QStringLiteral("%1 of %2").arg(longest).arg(range.upper)));
        QCOMPARE_GE(longest, 1.0); // never a bar of 0.00 units
    }

    void paramCountParses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("want"); // 0: refused
        QTest::addRow("7B") << "7B" << qulonglong(7000000000ull);
        QTest::addRow("1.5b") << "1.5b" << qulonglong(1500000000ull);
        QTest::addRow("350M") << "350M" << qulonglong(350000000ull);
        QTest::addRow("70e9") << "70e9" << qulonglong(70000000000ull);
        QTest::addRow("plain") << "13000000000" << qulonglong(13000000000ull);
        QTest::addRow("preset label") << "8.03B (this checkpoint)" << qulonglong(8030000000ull);
        QTest::addRow("words") << "seven" << qulonglong(0);
        QTest::addRow("zero") << "0" << qulonglong(0);
        QTest::addRow("negative") << "-7B" << qulonglong(0);
    }
    void paramCountParses()
    {
        QFETCH(QString, text);
        QFETCH(qulonglong, want);
        const std::optional<uint64_t> got = BudgetView::parseParamCount(text);
        QCOMPARE(got.has_value(), want != 0);
        if (got)
            QCOMPARE(qulonglong(*got), want);
    }

    // In German the size reads "623,7K" and parses back; the two charts' axis titles fit their
    // own halves instead of running into each other (issue 33).
    void sizeAndTitlesReadInGerman()
    {
        const QLocale before;
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        QCOMPARE(BudgetView::parseParamCount(QStringLiteral("623,7K")), std::optional<uint64_t>(623700));
        QCOMPARE(BudgetView::parseParamCount(QStringLiteral("1.5B")), std::optional<uint64_t>(1500000000));
        ViewContext context;
        BudgetView view(&context);
        view.resize(1100, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setMemoryGiB(23.5);
        view.setParams(623700);
        const BudgetChart& chart = view.chart();
        const QString label = chart.memoryRect->axis(QCPAxis::atBottom)->label();
        QVERIFY2(label.contains(QLatin1String("623,7K")), qPrintable(label));
        chart.memoryRect->parentPlot()->replot();
        for (QCPAxisRect* rect : {chart.bitsRect, chart.memoryRect}) {
            QCPAxis* axis = rect->axis(QCPAxis::atBottom);
            const QFontMetrics fm(axis->labelFont());
            const int wide = fm.boundingRect(QRect(), Qt::TextDontClip, axis->label()).width();
            QVERIFY2(
                wide <= rect->outerRect().width(),
                qPrintable(
                    QStringLiteral("%1: %2 px in %3").arg(axis->label()).arg(wide).arg(rect->outerRect().width())));
        }
    }

    // Every legend entry, "this checkpoint" last, lies inside the plot at the widths a 1280x720
    // and a 1600x1000 window leave the view, in English and German: in one row it ran past the
    // right edge and "this checkpoint" was cut off (issue 33).
    void legendStaysInsideThePlot_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<bool>("german");
        for (int width : {560, 760, 1100})
            for (bool german : {false, true})
                QTest::addRow("%d px%s", width, german ? ", German" : "") << width << german;
    }
    void legendStaysInsideThePlot()
    {
        QFETCH(int, width);
        QFETCH(bool, german);
        std::optional<qstest::GermanScope> translation;
        if (german) {
            translation.emplace();
            QVERIFY2(translation->installed(), qPrintable(qstest::germanCatalogue()));
        }
        ViewContext context;
        const auto ckpt = qs::openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/model.safetensors")).toStdString());
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(*ckpt));
        BudgetView view(&context);
        view.resize(width, 700);
        view.setMemoryGiB(8);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCustomPlot* plot = view.plot();
        plot->replot();
        QCPLegend* legend = nullptr;
        for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
            if (auto* l = qobject_cast<QCPLegend*>(e))
                legend = l;
        QVERIFY(legend);
        QStringList names;
        for (int i = 0; i < legend->itemCount(); ++i) {
            auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
            QVERIFY(item);
            names << item->plottable()->name();
            const QRect r = item->outerRect();
            QVERIFY2(r.left() >= 0 && r.right() <= plot->viewport().right(),
                     qPrintable(QStringLiteral("%1: x %2 to %3 in a plot %4 px wide")
                                    .arg(item->plottable()->name())
                                    .arg(r.left())
                                    .arg(r.right())
                                    .arg(plot->viewport().width())));
            const int text = QFontMetrics(item->font()).horizontalAdvance(item->plottable()->name());
            QVERIFY2(
                text <= r.width(),
                qPrintable(
                    QStringLiteral("%1: %2 px of text in %3").arg(item->plottable()->name()).arg(text).arg(r.width())));
        }
        QVERIFY2(names.contains(german ? QStringLiteral("dieser Checkpoint") : QStringLiteral("this checkpoint")),
                 qPrintable(names.join(QLatin1String(", "))));
    }

    void defaultsFollowCheckpointAndMachine()
    {
        ViewContext context;
        const auto ckpt = qs::openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/model.safetensors")).toStdString());
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(*ckpt));
        BudgetView view(&context);
        uint64_t params = 0;
        std::vector<bool> member(ckpt->tensors.size());
        for (const qs::LogicalWeight& w : ckpt->weights) {
            params += w.elementCount();
            for (const auto& m : w.members)
                member[m.second] = true;
        }
        for (size_t i = 0; i < ckpt->tensors.size(); ++i)
            if (!member[i])
                params += ckpt->tensors[i].elementCount();
        QCOMPARE(view.params(), params);
        const double ram = BudgetView::machineMemoryGiB();
        QVERIFY(ram > 0);
        QCOMPARE(view.memoryGiB(), std::round(ram * 10) / 10);
    }

    // Running a published architecture: the view's figures are core's runBudget at the
    // controls' values (Llama-3-8B at 8192: f16 1 GiB, q8_0 570425344 bytes by hand), the
    // formats' bars add the KV cache and buffers, and the largest context follows the memory.
    void runningAPreset()
    {
        ViewContext context;
        BudgetView view(&context);
        QVERIFY(!view.run());
        view.setMemoryGiB(64);
        QVERIFY(view.setArchitecture(QStringLiteral("llama-3-8b")));
        QVERIFY2(view.run(), qPrintable(view.findChild<QLabel*>(QStringLiteral("runSummary"))->text()));
        QCOMPARE(view.params(), uint64_t(8030261248ull));
        view.setContext(8192);
        QVERIFY(view.run());
        QCOMPARE(view.run()->kvCacheBytes, uint64_t(1073741824));
        view.setCacheTypes(qs::GgmlQ8_0, qs::GgmlQ8_0);
        QCOMPARE(view.run()->kvCacheBytes, uint64_t(570425344));
        QCOMPARE(view.maxContext().value(), uint64_t(8192)); // the whole trained context in 64 GiB
        QVERIFY(view.runSummary().contains(QStringLiteral("8,192 tokens"))
                || view.runSummary().contains(QStringLiteral("8192 tokens")));
        // Each format's bar: its weights plus the run's KV cache and buffers.
        const uint64_t overhead = view.run()->totalBytes() - view.run()->weightsBytes;
        for (const qs::BudgetRow& r : view.chart().rows)
            if (r.format.id == "f16")
                QCOMPARE(r.bytes, 8030261248.0 * 2 + double(overhead));
        // A small GPU: every layer goes there (the output included), the largest context shrinks.
        view.setGpuMemoryGiB(4.5); // 3.95 GiB of blocks and output at q4_k, about 0.26 of compute
        QCOMPARE(view.run()->devices.size(), size_t(2));
        QCOMPARE(view.run()->options.gpuLayers, 33);
        QCOMPARE(view.deviceChart().weights->data()->size(), 2);
        const auto onGpu = view.maxContext();
        QVERIFY(onGpu && *onGpu > 256 && *onGpu < 8192);
        qs::RunOptions o = view.run()->options;
        const qs::ModelArch arch = *qs::archPreset("llama-3-8b");
        const qs::BudgetFormat* q4k = qs::budgetFormat("gguf-q4_k");
        const qs::WeightSplit w = qs::weightSplitOfParams(arch, arch.params, qs::budgetBitsPerWeight(*q4k, 4096, 4096));
        QCOMPARE(view.maxContext(), qs::maxContext(arch, w, o, {64, 4.5}));
        // Half the layers: the rest and their cache back in RAM.
        view.setGpuLayers(16);
        QCOMPARE(view.run()->devices[1].layers, 16);
        QCOMPARE(view.run()->devices[1].kvCache, uint64_t(570425344) / 2);
        // Back to weights only: the bars are budgetTable's again.
        QVERIFY(view.setArchitecture(QString()));
        QVERIFY(!view.run());
    }

    void runningARealGguf()
    {
        ViewContext context;
        const auto ckpt = qs::openCheckpoint(
            qstest::fixture(QStringLiteral("real/python-gen-worker/stories260K.gguf")).toStdString());
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(*ckpt));
        BudgetView view(&context);
        QVERIFY2(
            view.run(),
            qPrintable(
                view.findChild<QLabel*>(QStringLiteral("runSummary"))->text())); // the checkpoint's own architecture
        view.setContext(1024);
        // 5 layers x 4 KV heads x 8 x 2 bytes x 2 x 1024 cells.
        QCOMPARE(view.run()->kvCacheBytes, uint64_t(5 * 32 * 2 * 2 * 1024));
        uint64_t stored = 0;
        for (const qs::TensorEntry& t : ckpt->tensors)
            stored += t.nbytes;
        QCOMPARE(view.run()->weightsBytes, stored);
        // A checkpoint without an architecture the budget knows says so.
        const auto other =
            qs::openCheckpoint(qstest::fixture(QStringLiteral("real/ggml-superpoint/superpoint.gguf")).toStdString());
        context.setCheckpoint(other, CheckpointSnapshot::fromCheckpoint(*other));
        QVERIFY(!view.run());
        const QLabel* summary = view.findChild<QLabel*>(QStringLiteral("runSummary"));
        QVERIFY(summary);
        QVERIFY2(summary->text().contains(QStringLiteral("'superpoint' is not one whose memory rules")),
                 qPrintable(summary->text()));
    }

    // A new checkpoint starts from its own default context (its trained 2048 here, under llama.cpp's
    // 4096), not from the context set for the previous one (the demo's 512 stayed, issue 33).
    void contextStartsFromTheCheckpoint()
    {
        ViewContext context;
        const std::string path =
            qstest::fixture(QStringLiteral("real/python-gen-worker/stories260K.gguf")).toStdString();
        const auto first = qs::openCheckpoint(path);
        context.setCheckpoint(first, CheckpointSnapshot::fromCheckpoint(*first));
        BudgetView view(&context);
        QVERIFY(view.run());
        QCOMPARE(view.run()->nCtx, uint64_t(2048));
        view.setContext(512);
        QCOMPARE(view.run()->nCtx, uint64_t(512));
        const auto second = qs::openCheckpoint(path);
        context.setCheckpoint(second, CheckpointSnapshot::fromCheckpoint(*second));
        QVERIFY(view.run());
        QCOMPARE(view.run()->nCtx, uint64_t(2048));
    }

    // The export draws the per-device chart of a running model above the table's chart.
    void exportHasTheDeviceChart()
    {
        ViewContext context;
        const auto ckpt = qs::openCheckpoint(
            qstest::fixture(QStringLiteral("real/python-gen-worker/stories260K.gguf")).toStdString());
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(*ckpt));
        BudgetView view(&context);
        view.resize(1200, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.run());
        QCustomPlot* device = nullptr;
        for (QCustomPlot* plot : view.findChildren<QCustomPlot*>())
            if (plot != view.plot())
                device = plot;
        QVERIFY(device && device->isVisible());
        const int chart = std::max(view.plot()->height(), view.plot()->minimumHeight());
        QCOMPARE(view.exportSize().height(), chart + device->height());
        // The caption says what the charts price, not the weight selected elsewhere.
        const QString caption = view.exportCaption();
        QVERIFY2(caption.contains(QStringLiteral("stories260K.gguf")) && caption.contains(QStringLiteral("parameters"))
                     && caption.contains(QStringLiteral("2048 tokens")),
                 qPrintable(caption));
        QVERIFY(view.setArchitecture(QString()));
        QCOMPARE(view.exportSize().height(), std::max(view.plot()->height(), view.plot()->minimumHeight()));
    }

    // With the German catalogue, what core says about running a model reads in German: a
    // checkpoint whose config lacks a field the budget needs, an architecture it does not know,
    // and llama.cpp's notes (the context rounded to whole cells), which the summary shows.
    void runningSpeaksGerman()
    {
        const qstest::GermanScope german;
        QVERIFY2(german.installed(), qPrintable(qstest::germanCatalogue()));
        ViewContext context;
        BudgetView view(&context);
        const QLabel* summary = view.findChild<QLabel*>(QStringLiteral("runSummary"));
        QVERIFY(summary);
        const auto gptq =
            qs::openCheckpoint(qstest::fixture(QStringLiteral("safetensors/gptq-w3-g32-asym")).toStdString());
        context.setCheckpoint(gptq, CheckpointSnapshot::fromCheckpoint(*gptq));
        QVERIFY2(summary->text().contains(
                     QStringLiteral("config.json: num_hidden_layers fehlt (für das Speicherbudget nötig)")),
                 qPrintable(summary->text()));
        const auto other =
            qs::openCheckpoint(qstest::fixture(QStringLiteral("real/ggml-superpoint/superpoint.gguf")).toStdString());
        context.setCheckpoint(other, CheckpointSnapshot::fromCheckpoint(*other));
        QVERIFY2(
            summary->text().contains(QStringLiteral("gehört nicht zu denen, deren Speicherregeln Quantscope kennt")),
            qPrintable(summary->text()));
        view.setMemoryGiB(64);
        QVERIFY(view.setArchitecture(QStringLiteral("llama-3-8b")));
        view.setContext(1000);
        QVERIFY2(view.run(), qPrintable(summary->text()));
        QVERIFY2(summary->text().contains(QStringLiteral("Hinweis: llama.cpp rundet den Kontext 1000 auf 1024 Zellen")),
                 qPrintable(summary->text()));
        QVERIFY2(!summary->text().contains(QStringLiteral("rounds")), qPrintable(summary->text()));
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
        ViewContext context;
        context.setTheme(Theme::fromPalette(dark ? darkPalette() : lightPalette()));
        BudgetView view(&context);
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage image = view.grab().toImage();
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
    }
};

QTEST_MAIN(TestBudgetView)
#include "tst_budgetview.moc"
