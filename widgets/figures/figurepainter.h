#pragma once
// The prologue every painted figure shares: map its natural size into a target rectangle
// (aspect kept, centred), antialiased, on the theme's background.
#include <QColor>
#include <QRectF>
#include <QSizeF>

class QPainter;

namespace qsw {

// The margin around every painted figure and the height of its title block (name, subtitle).
constexpr double kFigureMargin = 20, kFigureTitle = 46;

// Saves the painter, then translates and scales it so (0, 0)-`natural` lands centred in
// `target`, and fills that area with `background`. Pair it with painter.restore().
void beginFigure(QPainter& painter, const QRectF& target, const QSizeF& natural, const QColor& background);

} // namespace qsw
