#pragma once
// The prologue every painted figure shares: map its natural size into a target rectangle
// (aspect kept, centred), antialiased, on the theme's background.
#include <QColor>
#include <QRectF>
#include <QSizeF>

class QPainter;

namespace qsw {

// Saves the painter, then translates and scales it so (0, 0)-`natural` lands centred in
// `target`, and fills that area with `background`. Pair it with painter.restore().
void beginFigure(QPainter& painter, const QRectF& target, const QSizeF& natural, const QColor& background);

} // namespace qsw
