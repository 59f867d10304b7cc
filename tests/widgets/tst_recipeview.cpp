// The Recipe view on llama-quantize's own Q4_K_M output: one cell per weight in a layers x roles
// grid coloured by stored type, the per-layer chart equal to core's summary, a click selects the
// weight, and a second checkpoint outlines exactly the cells core's comparison lists; an
// importance matrix (a legacy .dat written here) fills the panel beside the grid tensor by
// tensor, and the selected weight's channel plot holds its importance.
#include "analysis/recipe.h"
#include "container/checkpoint.h"
#include "demo.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"
#include "jobrunner.h"
#include "snapshot.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "views/recipeview.h"

#include <qcustomplot.h>

#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace qsw;

namespace {

QString mix(const char* name)
{
    return qstest::fixture(
        QStringLiteral("real/generated-llama-quantize/stories260K-mix-%1.gguf").arg(QLatin1String(name)));
}

int differingCells(const RecipeGridModel& g)
{
    int n = 0;
    for (const auto& row : g.cells)
        for (const auto& c : row)
            n += c.differs;
    return n;
}

void putI32(std::string& out, int32_t v)
{
    out.append(reinterpret_cast<const char*>(&v), 4);
}

} // namespace

class TestRecipeView : public QObject {
    Q_OBJECT
private slots:
    // Behind another tab, opening a checkpoint summarizes nothing and lets the previous one go;
    // the summary is made when the tab comes to the front (issue 33: no heavy job for a view
    // nobody looks at; issue 29: a million-weight recipe was built at every open).
    void summarizesOnlyInFront()
    {
        ViewContext context;
        QTabWidget tabs;
        auto* other = new QWidget;
        tabs.addTab(other, QStringLiteral("other"));
        auto* view = new RecipeView(&context);
        tabs.addTab(view, QStringLiteral("recipe"));
        tabs.resize(1200, 800);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        tabs.setCurrentWidget(view);
        auto a = qs::openCheckpoint(mix("Q4_K_M").toStdString());
        context.setCheckpoint(a, CheckpointSnapshot::fromCheckpoint(*a));
        QVERIFY(view->summary());

        tabs.setCurrentWidget(other);
        const std::weak_ptr<const qs::Checkpoint> old = a;
        a.reset();
        const auto b = qs::openCheckpoint(mix("Q5_K_M").toStdString());
        context.setCheckpoint(b, CheckpointSnapshot::fromCheckpoint(*b));
        QVERIFY(!view->summary());
        QVERIFY(!context.jobs()->isRunning(RecipeView::kSummaryJob));
        QVERIFY2(old.expired(), "the view behind the tab still holds the previous checkpoint");

        tabs.setCurrentWidget(view);
        QVERIFY(view->summary());
        QVERIFY(view->summaryText().contains(QStringLiteral("MOSTLY_Q5_K_M")));
    }

    void gridChartClickAndComparison()
    {
        ViewContext context;
        RecipeView view(&context);
        view.resize(1200, 800);
        const auto a = qs::openCheckpoint(mix("Q4_K_M").toStdString());
        context.setCheckpoint(a, CheckpointSnapshot::fromCheckpoint(*a));
        QVERIFY(view.summary());
        QVERIFY(view.summaryText().contains(QStringLiteral("MOSTLY_Q4_K_M")));

        // 5 blocks and the tensors outside them; every weight in exactly one cell.
        const RecipeGridModel& g = view.grid();
        QCOMPARE(g.layers, (std::vector<int>{0, 1, 2, 3, 4, -1}));
        QCOMPARE(g.roles.front(), QStringLiteral("attn_q"));
        int filled = 0;
        for (size_t r = 0; r < g.cells.size(); ++r)
            for (size_t c = 0; c < g.cells[r].size(); ++c)
                if (const int t = g.cells[r][c].tensor; t >= 0) {
                    ++filled;
                    QCOMPARE(view.summary()->tensors[size_t(t)].layer, g.layers[r]);
                    QCOMPARE(QString::fromStdString(view.summary()->tensors[size_t(t)].role), g.roles[c]);
                }
        QCOMPARE(filled, 48);
        QCOMPARE(g.legend.size(), size_t(4)); // Q5_0, Q8_0, F16, F32
        QVERIFY(g.colours.at("Q5_0") != g.colours.at("Q8_0"));

        // The chart: one bar per layer, core's bits per weight.
        auto* bars = qobject_cast<QCPBars*>(view.plot()->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), 6);
        for (int i = 0; i < 6; ++i)
            QCOMPARE(bars->data()->at(i)->value, view.summary()->layers[size_t(i)].bitsPerWeight());

        // A click on blk.2's attn_v selects that weight.
        QSignalSpy spy(&context, &ViewContext::weightRequested);
        const int col = int(std::find(g.roles.begin(), g.roles.end(), QStringLiteral("attn_v")) - g.roles.begin());
        QTest::mouseClick(view.gridWidget(), Qt::LeftButton, {}, view.gridCellRect(2, col).center());
        QCOMPARE(spy.count(), 1);
        const int w = spy.front().front().toInt();
        QCOMPARE(a->weights[size_t(w)].name, std::string("blk.2.attn_v.weight"));

        // Against Q5_K_M: the outlined cells are core's differing rows, and the chart has B's bars.
        view.openComparison(mix("Q5_K_M"));
        QVERIFY(context.jobs()->waitForIdle(30000));
        QVERIFY(view.comparison());
        QCOMPARE(differingCells(view.grid()), int(view.comparison()->differing.size()));
        QVERIFY(differingCells(view.grid()) > 0);
        QCOMPARE(view.plot()->plottableCount(), 3); // A, B and the nominal line
        auto* barsB = qobject_cast<QCPBars*>(view.plot()->plottable(1));
        QVERIFY(barsB);
        for (int i = 0; i < 6; ++i)
            QCOMPARE(barsB->data()->at(i)->value, view.comparison()->layers[size_t(i)].bitsB);
        view.clearComparison();
        QCOMPARE(differingCells(view.grid()), 0);
    }

    // The demo's config.json holds one per-module entry (GPTQModel's dynamic) per quantized layer;
    // the layers' f16 norms fall under those entries' prefixes but are never quantized: kept float,
    // not counted among the quantized weights (they were: "27 quantized weights" of 21).
    void normsAreNotQuantizedWeights()
    {
        const auto demo = qs::openCheckpoint(extractDemoCheckpoint().toStdString());
        const qs::RecipeSummary s = qs::summarizeRecipe(*demo);
        uint64_t quantized = 0;
        for (const qs::LogicalWeight& w : demo->weights)
            quantized += qs::findFormat(w.format) && qs::findFormat(w.format)->quantized;
        QVERIFY(quantized > 0);
        QCOMPARE(s.quantizable, quantized);
        for (const qs::RecipeTensor& t : s.tensors)
            if (t.name.find("norm") != std::string::npos)
                QVERIFY2(t.verdict.kind == qs::RecipeKind::KeptFloat, t.name.c_str());
    }

    // A GPTQ type label ("gptq-v1 4-bit g32") stands whole in its cell: the columns take the
    // longest label's width (it was clipped at both ends in a fixed 74 px column).
    void gridLabelsFitTheirCells()
    {
        ViewContext context;
        RecipeView view(&context);
        view.resize(1200, 800);
        const auto a =
            qs::openCheckpoint(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym")).toStdString());
        context.setCheckpoint(a, CheckpointSnapshot::fromCheckpoint(*a));
        QVERIFY(view.summary());
        const RecipeGridModel& g = view.grid();
        const QFontMetrics fm(view.gridCellFont());
        int filled = 0, longest = 0;
        for (size_t r = 0; r < g.cells.size(); ++r)
            for (size_t c = 0; c < g.cells[r].size(); ++c)
                if (const int t = g.cells[r][c].tensor; t >= 0) {
                    ++filled;
                    const QString label = QString::fromStdString(view.summary()->tensors[size_t(t)].label);
                    longest = std::max(longest, fm.horizontalAdvance(label));
                    QCOMPARE(view.gridCellText(int(r), int(c)).section(QLatin1Char('\n'), 0, 0), label);
                    QVERIFY2(fm.horizontalAdvance(label) < view.gridCellRect(int(r), int(c)).width(),
                             qPrintable(label));
                }
        QVERIFY(filled > 0);
        QVERIFY2(longest > 74, qPrintable(QString::number(longest))); // wider than the old fixed column
    }

    // Column labels stand whole (ggml-types.gguf's "synthetic.q4_0" was cut to "synthetic.q4_"):
    // wrapped after '.' or '_' in a column as wide as the longest part, the header as tall as the
    // longest label needs, each line inside its column, and the tooltip names the column in full.
    void columnLabelsAreWhole()
    {
        ViewContext context;
        RecipeView view(&context);
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto a = qs::openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        context.setCheckpoint(a, CheckpointSnapshot::fromCheckpoint(*a));
        QVERIFY(view.summary());
        const RecipeGridModel& g = view.grid();
        QVERIFY2(g.roles.size() > 40, qPrintable(QString::number(g.roles.size())));
        const QFontMetrics fm(view.gridCellFont());
        int most = 0;
        for (int c = 0; c < int(g.roles.size()); ++c) {
            const QStringList lines = view.gridHeaderLines(c);
            const QRect header = view.gridHeaderRect(c);
            QCOMPARE(lines.join(QString()), g.roles[size_t(c)]);
            for (const QString& line : lines)
                QVERIFY2(fm.horizontalAdvance(line) <= header.width(), qPrintable(line));
            QVERIFY2(int(lines.size()) * fm.lineSpacing() <= header.height(), qPrintable(g.roles[size_t(c)]));
            QVERIFY(header.bottom() < view.gridCellRect(0, c).top());
            QCOMPARE(view.gridToolTip(header.center()), g.roles[size_t(c)]);
            most = std::max(most, int(lines.size()));
        }
        QVERIFY2(most >= 2, qPrintable(QString::number(most)));
        // The grid scrolls: its width is every column's, not squeezed into the view.
        QVERIFY(view.gridWidget()->width() >= view.gridCellRect(0, int(g.roles.size()) - 1).right());
    }

    void importancePanel()
    {
        QTemporaryDir dir;
        std::string dat;
        putI32(dat, 2);
        const std::vector<std::pair<std::string, int32_t>> entries{{"blk.1.attn_q.weight", 64},
                                                                   {"blk.1.attn_k.weight", 16}};
        for (const auto& [name, n] : entries) {
            putI32(dat, int32_t(name.size()));
            dat += name;
            putI32(dat, 2);
            putI32(dat, n);
            for (int32_t i = 0; i < n; ++i) {
                const float v = float(i);
                dat.append(reinterpret_cast<const char*>(&v), 4);
            }
        }
        const QString path = dir.filePath(QStringLiteral("imatrix.dat"));
        std::ofstream(path.toStdString(), std::ios::binary).write(dat.data(), std::streamsize(dat.size()));

        ViewContext context;
        RecipeView view(&context);
        view.resize(1400, 800);
        const auto a = qs::openCheckpoint(mix("Q4_K_M").toStdString());
        context.setCheckpoint(a, CheckpointSnapshot::fromCheckpoint(*a));
        view.openImatrix(path);
        QVERIFY(context.jobs()->waitForIdle(30000));
        QVERIFY(context.imatrix());
        const qs::ImatrixMatch* m = view.imatrixMatch();
        QVERIFY(m);
        QCOMPARE(m->fitting(), size_t(1));
        QCOMPARE(m->mismatched(), size_t(1));
        QVERIFY(view.importanceText().contains(QStringLiteral("Fits 1 of")));
        // One table row per matrix weight, the misfit named with its problem.
        QCOMPARE(view.importanceTable()->rowCount(), int(m->weights.size()));
        bool sawK = false;
        for (int r = 0; r < view.importanceTable()->rowCount(); ++r)
            if (view.importanceTable()->item(r, 0)->text() == QStringLiteral("blk.1.attn_k.weight")) {
                sawK = true;
                QVERIFY(view.importanceTable()->item(r, 4)->text().contains(QStringLiteral("has 16 channels")));
            }
        QVERIFY(sawK);
        // Selecting blk.1.attn_q plots its 64 channels: the stored values over ncall 2.
        int weight = -1;
        for (size_t i = 0; i < a->weights.size(); ++i)
            if (a->weights[i].name == "blk.1.attn_q.weight")
                weight = int(i);
        QVERIFY(weight >= 0);
        context.setWeight(weight);
        auto* bars = qobject_cast<QCPBars*>(view.channelPlot()->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), 64);
        for (int i = 0; i < 64; ++i)
            QCOMPARE(bars->data()->at(i)->value, double(float(i) / 2.0f));
    }

    // A checkpoint of 120,000 tiny weights, each a layer of its own (issue 29): the summary is
    // made by a job, not on the GUI thread (a megabyte name in it froze the GUI for minutes), and
    // the grid holds its first kMaxRows layers, the label saying how many are left out.
    void manyWeightsSummarizedInTheBackground()
    {
        constexpr size_t kWeights = RecipeGridModel::kMaxRows + 20000;
        auto ckpt = std::make_shared<qs::Checkpoint>();
        ckpt->path = "/nowhere/many.gguf";
        ckpt->container = qs::Container::Gguf;
        ckpt->tensors.resize(kWeights);
        ckpt->weights.resize(kWeights);
        for (size_t i = 0; i < kWeights; ++i) {
            qs::TensorEntry& t = ckpt->tensors[i];
            t.name = ckpt->keepName("blk." + std::to_string(i) + ".ffn_down.weight");
            t.typeName = "F32";
            t.shape = {8};
            t.offset = i * 32;
            t.nbytes = 32;
            qs::LogicalWeight& w = ckpt->weights[i];
            w.name = t.name;
            w.format = "f32";
            w.bits = 32;
            w.shape = {8};
            w.members = {{"weight", i}};
            w.storedBytes = 32;
        }
        ckpt->buildIndex();
        ViewContext context;
        RecipeView view(&context);
        view.resize(1200, 800);
        view.show();
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(std::shared_ptr<const qs::Checkpoint>(ckpt)));
        QVERIFY(!view.summary());
        QVERIFY2(view.summaryText().contains(QLatin1String("Summarizing")), qPrintable(view.summaryText()));
        QVERIFY(context.jobs()->waitForIdle(120000));
        QVERIFY(view.summary());
        QCOMPARE(view.summary()->tensors.size(), kWeights);
        QCOMPARE(view.grid().layers.size(), RecipeGridModel::kMaxRows);
        QCOMPARE(view.grid().hiddenLayers, kWeights - RecipeGridModel::kMaxRows);
        QCOMPARE(view.grid().roles.size(), size_t(1));
        QVERIFY2(view.summaryText().contains(QLocale().toString(qlonglong(kWeights))), qPrintable(view.summaryText()));
        QVERIFY(!view.grab().isNull());
    }
};

QTEST_MAIN(TestRecipeView)
#include "tst_recipeview.moc"
