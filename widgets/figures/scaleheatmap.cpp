#include "scaleheatmap.h"

#include "numbers.h"
#include "plottheme.h"
#include "qtext.h"

#include <qcustomplot.h>

#include <QCoreApplication>

#include <limits>

namespace qsw {

// The figures are free functions: their strings get a context of their own.
class ScaleHeatmapText {
    Q_DECLARE_TR_FUNCTIONS(qsw::ScaleHeatmap)
};

QString scaleFieldLabel(const qs::GroupScales& scales, ScaleField field, qs::CellReduce reduce, bool decimated)
{
    QString label = qtext(field == ScaleField::Scales ? scales.scaleMeaning : scales.zeroMeaning);
    if (field == ScaleField::Scales)
        label = ScaleHeatmapText::tr("%1 (weight units)").arg(label);
    if (!decimated)
        return label;
    switch (reduce) {
    case qs::CellReduce::MaxAbs: return ScaleHeatmapText::tr("max |%1| per cell").arg(label);
    case qs::CellReduce::Min: return ScaleHeatmapText::tr("min %1 per cell").arg(label);
    case qs::CellReduce::Max: return ScaleHeatmapText::tr("max %1 per cell").arg(label);
    }
    return label;
}

ScaleHeatmap buildScaleHeatmap(QCustomPlot* plot, const qs::GroupScales& scales, const ScaleHeatmapOptions& options,
                               const Theme& theme)
{
    const std::vector<float>& values = options.field == ScaleField::Scales ? scales.scales : scales.zeros;
    // The core grid is [groups, rows]: groups become x, rows y.
    const bool decimated = scales.groups > options.maxGroupCells || scales.rows > options.maxRowCells;
    GridHeatmapLabels labels;
    labels.title = options.title;
    labels.groups = scales.groups;
    labels.rows = scales.rows;
    labels.xLabel = scales.gIdx.empty() ? ScaleHeatmapText::tr("group (input columns / %1)").arg(scales.groupSize)
                                        : ScaleHeatmapText::tr("group (act-order: columns by g_idx)");
    labels.colourLabel = scaleFieldLabel(scales, options.field, options.reduce, decimated);
    return buildGridHeatmap(plot,
                            qs::decimateGrid(values, scales.groups, scales.rows, options.maxGroupCells,
                                             options.maxRowCells, decimated ? options.reduce : qs::CellReduce::Max),
                            labels, theme);
}

ScaleHeatmap buildGridHeatmap(QCustomPlot* plot, qs::DecimatedGrid grid, const GridHeatmapLabels& labels,
                              const Theme& theme)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->plotLayout()->clear();
    auto* rect = new QCPAxisRect(plot);
    int row = 0;
    if (!labels.title.isEmpty()) {
        plot->plotLayout()->addElement(
            row++, 0, new QCPTextElement(plot, labels.title, QFont(plot->font().family(), 11, QFont::Bold)));
    }
    plot->plotLayout()->addElement(row, 0, rect);
    rect->setupFullAxesBox(false);
    for (QCPAxis* a : rect->axes(QCPAxis::atTop | QCPAxis::atRight))
        a->setVisible(false);

    ScaleHeatmap out;
    out.grid = std::move(grid);
    const qs::DecimatedGrid& g = out.grid;

    out.map = new QCPColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    out.map->setInterpolate(false);
    out.map->setTightBoundary(false); // cells extend half a cell past their centres
    if (g.rows && g.cols) {
        // Cell i covers [i*step, (i+1)*step) and sits at its centre. QCPColorMap draws nothing
        // along an axis of one cell, so a single cell is stored twice, a quarter step apart.
        const uint64_t nx = std::max<uint64_t>(g.rows, 2), ny = std::max<uint64_t>(g.cols, 2);
        auto range = [](uint64_t cells, double step) {
            if (cells == 1)
                return QCPRange(step / 4 - 0.5, 3 * step / 4 - 0.5);
            return QCPRange(step / 2 - 0.5, (double(cells) - 0.5) * step - 0.5);
        };
        out.map->data()->setSize(int(nx), int(ny));
        out.map->data()->setRange(range(g.rows, double(g.rowStep)), range(g.cols, double(g.colStep)));
        for (uint64_t i = 0; i < nx; ++i)
            for (uint64_t j = 0; j < ny; ++j) {
                const uint64_t at = std::min(i, g.rows - 1) * g.cols + std::min(j, g.cols - 1);
                // A cell covering a NaN or Inf is drawn as one (the NaN colour), not as its finite neighbours.
                const bool broken = !g.coversNonFinite.empty() && g.coversNonFinite[at];
                out.map->data()->setCell(int(i), int(j),
                                         broken ? std::numeric_limits<double>::quiet_NaN() : double(g.cells[at]));
            }
    }

    out.colorScale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(row, 1, out.colorScale);
    out.colorScale->setType(QCPAxis::atRight);
    out.colorScale->setBarWidth(14);
    out.map->setColorScale(out.colorScale);
    QCPColorGradient gradient = sequentialGradient();
    gradient.setNanHandling(QCPColorGradient::nhNanColor); // a NaN or Inf scale is a cell of its own colour
    gradient.setNanColor(theme.error);
    out.map->setGradient(gradient);
    const double lo = g.lo, hi = g.hi > g.lo ? g.hi : g.lo + (g.lo == 0 ? 1.0 : std::fabs(g.lo) * 1e-3);
    out.map->setDataRange(QCPRange(lo, hi));
    out.colorScale->axis()->setLabel(labels.colourLabel);
    auto* margins = new QCPMarginGroup(plot);
    rect->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    out.colorScale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    QCPTextElement* legend = nullptr;
    if (g.nonFinite > 0) { // the legend of those cells, with the first one's place
        legend = new QCPTextElement(plot,
                                    ScaleHeatmapText::tr("■ NaN or Inf: %1 of %2 values; the first at group %3, row %4")
                                        .arg(localCount(g.nonFinite), localCount(labels.groups * labels.rows))
                                        .arg(g.firstNonFiniteRow)
                                        .arg(g.firstNonFiniteCol));
        legend->setObjectName(QStringLiteral("nonFiniteLegend"));
        plot->plotLayout()->addElement(row + 1, 0, legend);
    }

    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    x->setLabel(labels.xLabel.isEmpty() ? ScaleHeatmapText::tr("group") : labels.xLabel);
    y->setLabel(ScaleHeatmapText::tr("output row"));
    y->setRangeReversed(true);
    x->setRange(-0.5, double(std::max<uint64_t>(labels.groups, 1)) - 0.5);
    y->setRange(-0.5, double(std::max<uint64_t>(labels.rows, 1)) - 0.5);
    for (QCPAxis* axis : {x, y}) {
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1); // groups and rows are integers
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        axis->setTicker(ticker);
        axis->grid()->setVisible(false);
    }
    applyPlotTheme(plot, theme);
    out.colorScale->axis()->setBasePen(QPen(theme.mutedText));
    out.colorScale->axis()->setTickPen(QPen(theme.mutedText));
    out.colorScale->axis()->setSubTickPen(QPen(theme.mutedText));
    out.colorScale->axis()->setTickLabelColor(theme.text);
    out.colorScale->axis()->setLabelColor(theme.text);
    if (legend)
        legend->setTextColor(theme.error);
    return out;
}

} // namespace qsw
