#pragma once
// The report's data figures painted with QPainter from core's numbers: a scale heatmap
// [groups x out_features] with its colour scale, and a histogram with axes. Vector-friendly.
#include "report/report.h"
#include "theme.h"

#include <QRectF>
#include <QSizeF>

class QPainter;

namespace qsw {

QSizeF dataFigureSize(const qs::report::Figure& figure);
void paintScaleHeatmap(QPainter& painter, const QRectF& target, const qs::report::Figure& figure, const Theme& theme);
void paintHistogram(QPainter& painter, const QRectF& target, const qs::report::Figure& figure, const Theme& theme);

} // namespace qsw
