#include "errorhistogram.h"

#include "plottheme.h"

#include <qcustomplot.h>

#include <QCoreApplication>

#include <cmath>

namespace qsw {

// The figures are free functions: their strings get a context of their own.
class ErrorHistogramText {
    Q_DECLARE_TR_FUNCTIONS(qsw::ErrorHistogram)
};

namespace {

QCPAxisRect* resetPlot(QCustomPlot* plot, const QString& title)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->plotLayout()->clear();
    auto* rect = new QCPAxisRect(plot);
    int row = 0;
    if (!title.isEmpty())
        plot->plotLayout()->addElement(row++, 0,
                                       new QCPTextElement(plot, title, QFont(plot->font().family(), 11, QFont::Bold)));
    plot->plotLayout()->addElement(row, 0, rect);
    return rect;
}

} // namespace

QCPBars* buildErrorHistogram(QCustomPlot* plot, const qs::Histogram& h, const ErrorHistogramOptions& options,
                             const Theme& theme)
{
    QCPAxisRect* rect = resetPlot(plot, options.title);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    auto* bars = new QCPBars(x, y);
    const int n = int(h.counts.size());
    // An empty range (every error the same, e.g. all 0): one bar standing at that value.
    const bool point = !(h.hi > h.lo);
    const double width = n > 0 && !point ? (h.hi - h.lo) / n : 1.0;
    QVector<double> keys(n), values(n);
    double top = 1;
    for (int i = 0; i < n; ++i) {
        keys[i] = point ? h.lo : h.lo + (i + 0.5) * width;
        values[i] = double(h.counts[size_t(i)]);
        top = std::max(top, values[i]);
    }
    bars->setData(keys, values, true);
    bars->setWidth(width);
    bars->setWidthType(QCPBars::wtPlotCoords);
    bars->setPen(QPen(theme.accent.darker(theme.dark ? 100 : 130), 1));
    bars->setBrush(withAlpha(theme.accent, 170));
    bars->setName(ErrorHistogramText::tr("elements"));

    x->setLabel(options.xLabel.isEmpty() ? ErrorHistogramText::tr("signed error (dequantized − reference)")
                                         : options.xLabel);
    y->setLabel(options.logScale ? ErrorHistogramText::tr("elements (log)") : ErrorHistogramText::tr("elements"));
    if (point) {
        // Wide enough to see, narrow against the axis: the bar marks the value, not a bin.
        const double half = h.lo != 0 ? std::fabs(h.lo) : 1.0;
        bars->setWidth(half / 10);
        x->setRange(h.lo - half, h.lo + half);
    } else {
        x->setRange(h.lo - width, h.hi + width);
    }
    if (options.logScale) {
        y->setScaleType(QCPAxis::stLogarithmic);
        y->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        y->setNumberFormat(QStringLiteral("eb"));
        y->setNumberPrecision(0);
        // A bar spans base to base + count: a base far below the axis (empty bins stay
        // hidden) puts each top at its count, a count of 1 on the 1 line.
        bars->setBaseValue(1e-9);
        y->setRange(0.5, top * 2);
    } else {
        y->setRange(0, top * 1.08);
    }
    applyPlotTheme(plot, theme);
    return bars;
}

QCPBars* buildGroupErrorChart(QCustomPlot* plot, const std::vector<qs::GroupError>& groups, const QString& title,
                              const Theme& theme)
{
    QCPAxisRect* rect = resetPlot(plot, title);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    auto* bars = new QCPBars(x, y);
    auto* line = new QCPGraph(x, y);
    QVector<double> keys, rmse, maxAbs;
    double top = 0;
    for (const qs::GroupError& g : groups) {
        keys << double(g.group);
        rmse << g.rmse;
        maxAbs << g.maxAbs;
        top = std::max(top, g.maxAbs);
    }
    bars->setData(keys, rmse, true);
    bars->setWidth(0.8);
    bars->setPen(Qt::NoPen);
    bars->setBrush(withAlpha(theme.accent, 190));
    bars->setName(ErrorHistogramText::tr("RMSE"));
    line->setData(keys, maxAbs, true);
    line->setPen(QPen(theme.warning, 1.5));
    line->setLineStyle(QCPGraph::lsStepCenter);
    line->setName(ErrorHistogramText::tr("max |error|"));
    x->setLabel(ErrorHistogramText::tr("group (storage order)"));
    y->setLabel(ErrorHistogramText::tr("error"));
    x->setRange(-1, double(std::max<size_t>(groups.size(), 1)));
    y->setRange(0, top > 0 ? top * 1.1 : 1.0);
    // Clearing the layout deleted the default legend; this one lives in the new axis rect.
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    legend->setLayer(QStringLiteral("legend"));
    bars->addToLegend(legend);
    line->addToLegend(legend);
    applyPlotTheme(plot, theme);
    legend->setBrush(theme.background);
    legend->setBorderPen(QPen(theme.mutedText));
    legend->setTextColor(theme.text);
    return bars;
}

} // namespace qsw
