#pragma once
// The report's data figures, drawn by the views' own QCustomPlot builders
// (figures/scaleheatmap, figures/errorhistogram) on an offscreen plot and replayed as vector
// commands. QCustomPlot is a widget: call these on the GUI thread only.
#include "report/report.h"
#include "theme.h"

#include <QRectF>
#include <QSizeF>

class QPainter;

namespace qsw {

QSizeF dataFigureSize(const qs::report::Figure& figure);
// A ScaleHeatmap or ErrorHistogram figure, aspect kept and centred in `target`.
void paintDataFigure(QPainter& painter, const QRectF& target, const qs::report::Figure& figure, const Theme& theme);

} // namespace qsw
