#include "figurepainter.h"

#include <QPainter>

#include <algorithm>

namespace qsw {

void beginFigure(QPainter& painter, const QRectF& target, const QSizeF& natural, const QColor& background)
{
    painter.save();
    const double scale = std::min(target.width() / natural.width(), target.height() / natural.height());
    painter.translate(
        target.topLeft()
        + QPointF((target.width() - natural.width() * scale) / 2, (target.height() - natural.height() * scale) / 2));
    painter.scale(scale, scale);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(QRectF(QPointF(0, 0), natural), background);
}

} // namespace qsw
