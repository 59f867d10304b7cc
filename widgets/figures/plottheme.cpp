#include "plottheme.h"

#include <QPicture>

namespace qsw {

namespace {

void styleAxis(QCPAxis* axis, const Theme& theme)
{
    const QPen line(theme.mutedText, 1);
    axis->setBasePen(line);
    axis->setTickPen(line);
    axis->setSubTickPen(line);
    axis->setTickLabelColor(theme.text);
    axis->setLabelColor(theme.text);
    axis->grid()->setPen(QPen(plotGridColor(theme), 1, Qt::DotLine));
    axis->grid()->setSubGridPen(Qt::NoPen);
    axis->grid()->setZeroLinePen(QPen(theme.mutedText, 1));
}

} // namespace

QColor plotGridColor(const Theme& theme)
{
    return mix(theme.text, theme.background, 0.82);
}

void applyPlotTheme(QCustomPlot* plot, const Theme& theme)
{
    plot->setBackground(theme.background);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(theme.background);
        for (QCPAxis* axis : rect->axes())
            styleAxis(axis, theme);
    }
    if (plot->legend) {
        plot->legend->setBrush(theme.background);
        plot->legend->setBorderPen(QPen(theme.mutedText));
        plot->legend->setTextColor(theme.text);
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(theme.text);
}

void paintPlot(QCustomPlot* plot, QPainter& painter, const QRect& target)
{
    QPicture picture;
    {
        QCPPainter recorder(&picture);
        plot->toPainter(&recorder, target.width(), target.height());
    }
    painter.drawPicture(target.topLeft(), picture);
}

QCPColorGradient sequentialGradient()
{
    // viridis at nine evenly spaced points (matplotlib's _viridis_data).
    static const QRgb stops[] = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                                 0x28ae80, 0x5ec962, 0xaddc30, 0xfde725};
    QCPColorGradient g;
    g.clearColorStops();
    const int n = int(std::size(stops));
    for (int i = 0; i < n; ++i)
        g.setColorStopAt(double(i) / (n - 1), QColor(stops[i]));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setNanHandling(QCPColorGradient::nhTransparent);
    g.setLevelCount(256);
    return g;
}

} // namespace qsw
