// The scales view: the heatmap holds exactly the scales extractCodes reads (cell by cell),
// a decimated map holds each block's max |scale|, float weights get a message, a click
// selects the group's first element and asks for the bit map, and the view is not blank.
#include "analysis/groupscales.h"
#include "container/checkpoint.h"
#include "figures/scaleheatmap.h"
#include "jobrunner.h"
#include "formats/dequant.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "views/scalesview.h"
#include "formats/opencheckpoint.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace qsw;

namespace {

std::shared_ptr<const qs::Checkpoint> openFixture(const QString& rel)
{
    return qs::openCheckpoint(qstest::fixture(rel).toStdString());
}

int weightIndex(const qs::Checkpoint& c, const std::string& format)
{
    for (size_t i = 0; i < c.weights.size(); ++i)
        if (c.weights[i].format == format)
            return int(i);
    return -1;
}

struct Fixture {
    ViewContext context;
    ScalesView view{&context};
    std::shared_ptr<const qs::Checkpoint> ckpt;

    bool open(const QString& rel, int weight) { return openPath(qstest::fixture(rel), weight); }
    bool openPath(const QString& path, int weight)
    {
        ckpt = qs::openCheckpoint(path.toStdString());
        context.setCheckpoint(ckpt, CheckpointSnapshot::fromCheckpoint(*ckpt));
        view.resize(900, 700);
        view.show();
        if (!QTest::qWaitForWindowExposed(&view))
            return false;
        context.setWeight(weight >= 0 ? weight : 0);
        return context.jobs()->waitForIdle(20000);
    }
};

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

class TestScalesView : public QObject {
    Q_OBJECT
private slots:
    void heatmapEqualsExtractCodes_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("format");
        QTest::addRow("gptq act-order") << "safetensors/gptq-w4-g32-sym-actorder/model.safetensors"
                                        << "gptq-v1";
        QTest::addRow("gptq asym") << "safetensors/gptq-w3-g32-asym/model.safetensors"
                                   << "gptq-v1";
        QTest::addRow("awq") << "safetensors/awq-gemm-w4-g32/model.safetensors"
                             << "awq-gemm";
    }
    void heatmapEqualsExtractCodes()
    {
        QFETCH(QString, path);
        QFETCH(QString, format);
        Fixture f;
        const auto ckpt = openFixture(path);
        const int index = weightIndex(*ckpt, format.toStdString());
        // Detection naming the fixture otherwise is a regression, not a reason to skip.
        QVERIFY2(index >= 0, qPrintable(QStringLiteral("%1: no weight detected as %2").arg(path, format)));
        QVERIFY(f.open(path, index));
        QVERIFY2(f.view.scales(), qPrintable(f.view.message()));
        const qs::WeightCodes c = qs::extractCodes(*f.ckpt, f.ckpt->weights[size_t(index)]);
        for (ScaleField field : {ScaleField::Scales, ScaleField::Zeros}) {
            f.view.setField(field);
            const ScaleHeatmap& h = f.view.heatmap();
            QVERIFY(h.map);
            QCOMPARE(uint64_t(h.map->data()->keySize()), c.groups);
            QCOMPARE(uint64_t(h.map->data()->valueSize()), c.rows);
            for (uint64_t g = 0; g < c.groups; ++g)
                for (uint64_t n = 0; n < c.rows; ++n) {
                    const double want = field == ScaleField::Scales ? double(c.scales[g * c.rows + n])
                                                                    : double(c.zeros[g * c.rows + n]);
                    QCOMPARE(h.map->data()->cell(int(g), int(n)), want);
                }
        }
    }

    // A NaN scale is a cell of the theme's error colour with a legend naming its place; it
    // was a blank cell that nothing explained (issue 33).
    void nonFiniteScalesAreDrawnAndNamed()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString path = qstest::copyWithNanScale(tmp.path(), QStringLiteral("gptq-w4-g128-sym"), 1, 5);
        QVERIFY(!path.isEmpty());
        Fixture f;
        const Theme theme = Theme::fromPalette(lightPalette());
        f.context.setTheme(theme);
        QVERIFY(f.openPath(path, 0));
        QVERIFY2(f.view.scales(), qPrintable(f.view.message()));
        const ScaleHeatmap& h = f.view.heatmap();
        QCOMPARE(h.grid.nonFinite, uint64_t(1));
        QCOMPARE(h.grid.firstNonFiniteRow, uint64_t(1));
        QCOMPARE(h.grid.firstNonFiniteCol, uint64_t(5));
        QCustomPlot* plot = h.map->parentPlot();
        QCPTextElement* legend = nullptr;
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
            if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i));
                t && t->objectName() == QLatin1String("nonFiniteLegend"))
                legend = t;
        QVERIFY(legend);
        QVERIFY2(legend->text().contains(QLatin1String("group 1, row 5")), qPrintable(legend->text()));
        QCOMPARE(legend->textColor(), theme.error);
        plot->replot();
        const QImage image = plot->toPixmap(plot->width(), plot->height(), 1.0).toImage();
        const QPoint cell(int(h.map->keyAxis()->coordToPixel(1.0)), int(h.map->valueAxis()->coordToPixel(5.0)));
        QCOMPARE(QColor(image.pixel(cell)), theme.error);
    }

    // Each cell of a decimated map is the max |scale| (or min, max) of the block it covers.
    void decimatedCellsReduceTheirBlock_data()
    {
        QTest::addColumn<int>("reduce");
        QTest::addRow("maxabs") << int(qs::CellReduce::MaxAbs);
        QTest::addRow("min") << int(qs::CellReduce::Min);
        QTest::addRow("max") << int(qs::CellReduce::Max);
    }
    void decimatedCellsReduceTheirBlock()
    {
        QFETCH(int, reduce);
        const auto ckpt = openFixture(QStringLiteral("gguf/ggml-types.gguf"));
        const qs::LogicalWeight* w = ckpt->findWeight("synthetic.q4_k");
        QVERIFY(w);
        const qs::GroupScales s = qs::groupScales(*ckpt, *w, qs::GgufScaleLevel::SubBlock);
        QCustomPlot plot;
        ScaleHeatmapOptions opt;
        opt.reduce = qs::CellReduce(reduce);
        opt.maxGroupCells = 3; // 8 sub-blocks -> cells of 3
        opt.maxRowCells = 5; // 34 rows -> cells of 7
        const ScaleHeatmap h = buildScaleHeatmap(&plot, s, opt, Theme::fromPalette(lightPalette()));
        QCOMPARE(h.grid.rowStep, uint64_t(3));
        QCOMPARE(h.grid.colStep, uint64_t(7));
        QCOMPARE(h.map->data()->keySize(), 3);
        QCOMPARE(h.map->data()->valueSize(), 5);
        double lo = INFINITY, hi = -INFINITY;
        for (uint64_t i = 0; i < 3; ++i)
            for (uint64_t j = 0; j < 5; ++j) {
                double want = NAN;
                for (uint64_t g = i * 3; g < std::min<uint64_t>(s.groups, i * 3 + 3); ++g)
                    for (uint64_t n = j * 7; n < std::min<uint64_t>(s.rows, j * 7 + 7); ++n) {
                        double v = s.scaleAt(g, n);
                        if (opt.reduce == qs::CellReduce::MaxAbs)
                            v = std::fabs(v);
                        if (std::isnan(want) || (opt.reduce == qs::CellReduce::Min ? v < want : v > want))
                            want = v;
                    }
                QCOMPARE(h.map->data()->cell(int(i), int(j)), want);
                lo = std::min(lo, want);
                hi = std::max(hi, want);
            }
        // The colour range is the range of what is drawn.
        QCOMPARE(h.map->dataRange().lower, lo);
        QCOMPARE(h.map->dataRange().upper, hi);
    }

    // With the German catalogue, what the grids hold reads in German in the caption and on the
    // colour scale (core names it as a qs::Message): GPTQ's scale and zero point, a k-quant's
    // block minimum.
    void meaningsSpeakGerman()
    {
        const qstest::GermanScope german;
        QVERIFY2(german.installed(), qPrintable(qstest::germanCatalogue()));
        Fixture f;
        QVERIFY(f.open(QStringLiteral("safetensors/gptq-w3-g32-asym"), 0));
        QVERIFY(f.view.scales());
        const auto* label = f.view.findChild<QLabel*>(QStringLiteral("caption"));
        QVERIFY(label);
        const QString caption = label->text();
        QVERIFY2(caption.contains(QStringLiteral("Skala"))
                     && caption.contains(QStringLiteral("Nullpunkt (in Code-Einheiten)")),
                 qPrintable(caption));
        QVERIFY2(!caption.contains(QStringLiteral("zero point")), qPrintable(caption));
        QCOMPARE(scaleFieldLabel(*f.view.scales(), ScaleField::Scales, qs::CellReduce::MaxAbs, false),
                 QStringLiteral("Skala (Gewichtseinheiten)"));
        Fixture k;
        const auto ckpt = openFixture(QStringLiteral("gguf/ggml-types.gguf"));
        QVERIFY(k.open(QStringLiteral("gguf/ggml-types.gguf"), weightIndex(*ckpt, "gguf-q4_k")));
        QVERIFY(k.view.scales());
        QCOMPARE(scaleFieldLabel(*k.view.scales(), ScaleField::Zeros, qs::CellReduce::MaxAbs, false),
                 QStringLiteral("Q4_K-Blockminimum dmin"));
    }

    void floatWeightShowsMessage()
    {
        Fixture f;
        const QString path = QStringLiteral("safetensors/sources.safetensors");
        QVERIFY(f.open(path, 0));
        QVERIFY(!f.view.scales());
        QVERIFY(f.view.message().contains(QStringLiteral("float weight")));
    }

    void clickSelectsGroupAndOpensBitmap()
    {
        Fixture f;
        const QString path = QStringLiteral("safetensors/gptq-w4-g32-sym-actorder/model.safetensors");
        const auto ckpt = openFixture(path);
        QVERIFY(f.open(path, weightIndex(*ckpt, "gptq-v1")));
        QVERIFY(f.view.scales());
        QCustomPlot* plot = f.view.plot();
        plot->replot();
        QSignalSpy requested(&f.context, &ViewContext::viewRequested);
        const uint64_t g = 2, n = 5;
        const QPoint at(int(f.view.heatmap().map->keyAxis()->coordToPixel(double(g))),
                        int(f.view.heatmap().map->valueAxis()->coordToPixel(double(n))));
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.at(0).at(0).toString(), QStringLiteral("bitmap"));
        const ElementRef sel = f.context.selected();
        QCOMPARE(sel.weight, f.context.weight());
        QCOMPARE(sel.row, int64_t(n));
        // Act-order: the first input column whose g_idx is that group.
        const qs::WeightCodes c = qs::extractCodes(*f.ckpt, f.ckpt->weights[size_t(f.context.weight())]);
        QVERIFY(sel.col >= 0);
        QCOMPARE(uint64_t(c.gIdx[size_t(sel.col)]), g);
        for (int64_t k = 0; k < sel.col; ++k)
            QVERIFY(uint64_t(c.gIdx[size_t(k)]) != g);
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
        Fixture f;
        f.context.setTheme(Theme::fromPalette(dark ? darkPalette() : lightPalette()));
        const QString path = QStringLiteral("gguf/ggml-types.gguf");
        const auto ckpt = openFixture(path);
        QVERIFY(f.open(path, ckpt->findWeight("synthetic.q6_k") - ckpt->weights.data()));
        QVERIFY(f.view.scales());
        const QImage image = f.view.grab().toImage();
        QVERIFY(distinctColours(image) > 40);
    }
};

QTEST_MAIN(TestScalesView)
#include "tst_scalesview.moc"
