#pragma once
// QCustomPlot ignores the palette (anchors.md): every plot of the views and reports is styled
// here from the Theme, so light and dark both read well and no view repeats the pens.
#include "theme.h"

#include <qcustomplot.h>

namespace qsw {

// Background, axes, ticks, labels, grid and legend of every axis rect of `plot`.
void applyPlotTheme(QCustomPlot* plot, const Theme& theme);
// Grid lines: a faint mix of text into background.
QColor plotGridColor(const Theme& theme);
// Paints `plot` into `target` as vector commands (a QPicture replayed), for SVG/PDF export.
void paintPlot(QCustomPlot* plot, QPainter& painter, const QRect& target);
// A perceptually uniform sequential map (viridis stops) for magnitudes such as scales.
QCPColorGradient sequentialGradient();

} // namespace qsw
