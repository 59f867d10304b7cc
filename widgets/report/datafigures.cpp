#include "datafigures.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace qsw {

namespace {

constexpr double kW = 900, kH = 420, kLeft = 70, kRight = 90, kTop = 40, kBottom = 50;

QString tr(const char* s)
{
    return QCoreApplication::translate("DataFigures", s);
}

// Viridis-like ramp: readable in print and for common colour-vision deficiencies.
QColor ramp(double t)
{
    static const QColor stops[] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140), QColor(94, 201, 98), QColor(253, 231, 37)};
    t = std::clamp(t, 0.0, 1.0) * 4;
    const int i = std::min(3, int(t));
    const double f = t - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f), float(a.greenF() + (b.greenF() - a.greenF()) * f),
                            float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

QString fmt(double v)
{
    return QString::number(v, 'g', 4);
}

void begin(QPainter& painter, const QRectF& target, const Theme& theme)
{
    painter.save();
    const double s = std::min(target.width() / kW, target.height() / kH);
    painter.translate(target.topLeft() + QPointF((target.width() - kW * s) / 2, (target.height() - kH * s) / 2));
    painter.scale(s, s);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(QRectF(0, 0, kW, kH), theme.background);
    QFont f = painter.font();
    f.setPixelSize(12);
    painter.setFont(f);
}

void title(QPainter& painter, const qs::report::Figure& figure, const Theme& theme)
{
    QFont f = painter.font();
    f.setBold(true);
    f.setPixelSize(14);
    painter.setFont(f);
    painter.setPen(theme.text);
    painter.drawText(QRectF(kLeft, 8, kW - kLeft - kRight, 24), Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(f).elidedText(QString::fromStdString(figure.caption), Qt::ElideMiddle, kW - kLeft - kRight));
    f.setBold(false);
    f.setPixelSize(12);
    painter.setFont(f);
}

} // namespace

QSizeF dataFigureSize(const qs::report::Figure&)
{
    return {kW, kH};
}

void paintScaleHeatmap(QPainter& painter, const QRectF& target, const qs::report::Figure& figure, const Theme& theme)
{
    begin(painter, target, theme);
    title(painter, figure, theme);
    const QRectF plot(kLeft, kTop, kW - kLeft - kRight, kH - kTop - kBottom);
    float lo = 0, hi = 0;
    if (!figure.values.empty()) {
        const auto [a, b] = std::minmax_element(figure.values.begin(), figure.values.end());
        lo = *a;
        hi = *b;
    }
    const double span = hi > lo ? double(hi) - lo : 1.0;
    const double cw = plot.width() / double(std::max<uint64_t>(1, figure.cols)), ch = plot.height() / double(std::max<uint64_t>(1, figure.rows));
    for (uint64_t r = 0; r < figure.rows; ++r)
        for (uint64_t c = 0; c < figure.cols; ++c)
            painter.fillRect(QRectF(plot.left() + double(c) * cw, plot.top() + double(r) * ch, cw + 0.5, ch + 0.5),
                             ramp((double(figure.values[r * figure.cols + c]) - lo) / span));
    painter.setPen(QPen(theme.text, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(plot);
    painter.setPen(theme.mutedText);
    painter.drawText(QRectF(plot.left(), plot.bottom() + 6, plot.width(), 18), Qt::AlignHCenter, tr("out_features (n)"));
    painter.save();
    painter.translate(plot.left() - 28, plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-plot.height() / 2, -10, plot.height(), 18), Qt::AlignHCenter, tr("group"));
    painter.restore();
    // Colour scale.
    const QRectF bar(plot.right() + 16, plot.top(), 16, plot.height());
    for (int i = 0; i < 100; ++i)
        painter.fillRect(QRectF(bar.left(), bar.bottom() - (i + 1) * bar.height() / 100, bar.width(), bar.height() / 100 + 0.5), ramp(i / 99.0));
    painter.setPen(theme.text);
    painter.drawRect(bar);
    painter.drawText(QPointF(bar.right() + 4, bar.top() + 10), fmt(hi));
    painter.drawText(QPointF(bar.right() + 4, bar.bottom()), fmt(lo));
    painter.restore();
}

void paintHistogram(QPainter& painter, const QRectF& target, const qs::report::Figure& figure, const Theme& theme)
{
    begin(painter, target, theme);
    title(painter, figure, theme);
    const QRectF plot(kLeft, kTop, kW - kLeft - kRight + 60, kH - kTop - kBottom);
    const auto& counts = figure.histogram.counts;
    const uint64_t top = counts.empty() ? 1 : std::max<uint64_t>(1, *std::max_element(counts.begin(), counts.end()));
    const double bw = plot.width() / double(std::max<size_t>(1, counts.size()));
    for (size_t i = 0; i < counts.size(); ++i) {
        const double h = plot.height() * double(counts[i]) / double(top);
        const QRectF bar(plot.left() + double(i) * bw + 1, plot.bottom() - h, std::max(1.0, bw - 2), h);
        painter.fillRect(bar, theme.accent);
    }
    painter.setPen(QPen(theme.text, 1));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    painter.setPen(theme.mutedText);
    painter.drawText(QRectF(plot.left() - 40, plot.bottom() + 4, 80, 16), Qt::AlignHCenter, fmt(figure.histogram.lo));
    painter.drawText(QRectF(plot.right() - 40, plot.bottom() + 4, 80, 16), Qt::AlignHCenter, fmt(figure.histogram.hi));
    painter.drawText(QRectF(plot.left(), plot.bottom() + 20, plot.width(), 18), Qt::AlignHCenter, QString::fromStdString(figure.axisLabel));
    painter.drawText(QRectF(0, plot.top() - 4, kLeft - 6, 16), Qt::AlignRight, QString::number(top));
    painter.drawText(QRectF(0, plot.bottom() - 12, kLeft - 6, 16), Qt::AlignRight, QStringLiteral("0"));
    painter.restore();
}

} // namespace qsw
