#include "datafigures.h"

#include "figures/errorhistogram.h"
#include "figures/figurepainter.h"
#include "figures/plottheme.h"
#include "figures/scaleheatmap.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace qsw {

namespace {

constexpr int kWidth = 900, kHeight = 420;

void buildHeatmap(QCustomPlot* plot, const qs::report::Figure& f, const Theme& theme)
{
    // The core reduced [groups, out_features] to max |scale| per cell, as the Scales view does;
    // the builder draws such a grid as is.
    qs::DecimatedGrid grid;
    grid.rows = f.rows;
    grid.cols = f.cols;
    grid.rowStep = std::max<uint64_t>(1, f.rowStep);
    grid.colStep = std::max<uint64_t>(1, f.colStep);
    grid.cells = f.values;
    bool any = false;
    for (float v : grid.cells)
        if (std::isfinite(v)) {
            grid.lo = any ? std::min(grid.lo, v) : v;
            grid.hi = any ? std::max(grid.hi, v) : v;
            any = true;
        }
    GridHeatmapLabels labels;
    labels.title = QString::fromStdString(f.caption);
    labels.groups = f.sourceRows ? f.sourceRows : f.rows;
    labels.xLabel = QString::fromStdString(f.axisLabel); // act-order: its groups are g_idx's
    labels.rows = f.sourceCols ? f.sourceCols : f.cols;
    labels.colourLabel = grid.rowStep > 1 || grid.colStep > 1
        ? QCoreApplication::translate("qsw::DataFigures", "max |scale| per cell")
        : QCoreApplication::translate("qsw::DataFigures", "scale");
    buildGridHeatmap(plot, std::move(grid), labels, theme);
}

void buildHistogram(QCustomPlot* plot, const qs::report::Figure& f, const Theme& theme)
{
    ErrorHistogramOptions options;
    options.title = QString::fromStdString(f.caption);
    options.xLabel = QString::fromStdString(f.axisLabel);
    buildErrorHistogram(plot, f.histogram, options, theme);
}

} // namespace

QSizeF dataFigureSize(const qs::report::Figure&)
{
    return {kWidth, kHeight};
}

void paintDataFigure(QPainter& painter, const QRectF& target, const qs::report::Figure& figure, const Theme& theme)
{
    QCustomPlot plot;
    plot.resize(kWidth, kHeight);
    if (figure.kind == qs::report::FigureKind::ScaleHeatmap)
        buildHeatmap(&plot, figure, theme);
    else
        buildHistogram(&plot, figure, theme);
    // Laid out at the natural size and scaled as vectors, so text keeps its proportions.
    beginFigure(painter, target, dataFigureSize(figure), theme.background);
    paintPlot(&plot, painter, QRect(0, 0, kWidth, kHeight));
    painter.restore();
}

} // namespace qsw
