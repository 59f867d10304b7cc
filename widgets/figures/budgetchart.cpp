#include "budgetchart.h"

#include "plottheme.h"

#include <qcustomplot.h>

#include <QCoreApplication>

#include <algorithm>
#include <map>
#include <vector>

namespace qsw {

// The figures are free functions: their strings get a context of their own.
class BudgetChartText {
    Q_DECLARE_TR_FUNCTIONS(qsw::BudgetChart)
};

namespace {

QCPBars* makeBars(QCPAxisRect* rect, const QColor& colour, const QString& name)
{
    auto* bars = new QCPBars(rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atBottom));
    bars->setWidth(0.7);
    bars->setPen(QPen(colour.darker(115), 1));
    bars->setBrush(withAlpha(colour, 200));
    bars->setName(name);
    return bars;
}

QCPItemStraightLine* verticalLine(QCustomPlot* plot, QCPAxisRect* rect, double x, const QPen& pen)
{
    auto* line = new QCPItemStraightLine(plot);
    line->setClipAxisRect(rect);
    for (QCPItemPosition* p : {line->point1, line->point2})
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(pen);
    return line;
}

QCPItemText* lineLabel(QCustomPlot* plot, QCPAxisRect* rect, double x, const QString& text, const QColor& colour,
                       const QColor& background, Qt::Alignment side)
{
    auto* label = new QCPItemText(plot);
    label->setClipAxisRect(rect);
    label->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setAxisRect(rect);
    label->position->setCoords(x, 0);
    label->setPositionAlignment(side | Qt::AlignTop);
    label->setPadding(QMargins(4, 2, 4, 2));
    label->setText(text);
    label->setColor(colour);
    label->setBrush(withAlpha(background, 215));
    return label;
}

struct MemoryUnit {
    QString name;
    double perGiB; // units in one GiB: a power of two, so scaling is exact
};

MemoryUnit memoryUnitFor(double gib)
{
    if (gib >= 1024)
        return {BudgetChartText::tr("TiB"), 1.0 / 1024};
    if (gib >= 1)
        return {BudgetChartText::tr("GiB"), 1};
    if (gib * 1024 >= 1)
        return {BudgetChartText::tr("MiB"), 1024};
    return {BudgetChartText::tr("KiB"), 1024.0 * 1024};
}

// As many legend entries a row as the plot's width holds, re-laid before every replot (the
// plot is resized with its view and for exports): seven entries in one row (German: longer
// words) ran past the plot's right edge, where "this checkpoint" was cut off.
void wrapToWidth(QCustomPlot* plot, QCPLegend* legend)
{
    const int n = legend->itemCount();
    if (n == 0)
        return;
    const int room = plot->viewport().width() - legend->margins().left() - legend->margins().right() - 2;
    int wrap = n;
    for (; wrap > 1; --wrap) {
        // The widest entry of each column, as QCPLayoutGrid sizes its columns.
        std::vector<int> columns(size_t(wrap), 0);
        for (int i = 0; i < n; ++i)
            columns[size_t(i % wrap)] =
                std::max(columns[size_t(i % wrap)], legend->item(i)->minimumOuterSizeHint().width());
        int wide = legend->columnSpacing() * (wrap - 1);
        for (int c : columns)
            wide += c;
        if (wide <= room)
            break;
    }
    if (legend->wrap() != wrap)
        legend->setWrap(wrap);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

// A legend in one row (or as many as its entries need) in row `layoutRow` of the plot's layout.
QCPLegend* addLegendRow(QCustomPlot* plot, int layoutRow, const Theme& theme)
{
    auto* legend = new QCPLegend;
    plot->plotLayout()->insertRow(layoutRow);
    plot->plotLayout()->addElement(layoutRow, 0, legend);
    plot->plotLayout()->setRowStretchFactor(layoutRow, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setLayer(QStringLiteral("legend"));
    legend->setBrush(withAlpha(theme.background, 220));
    legend->setBorderPen(QPen(theme.mutedText));
    legend->setTextColor(theme.text);
    legend->setFont(QFont(plot->font().family(), 8));
    QObject::connect(plot, &QCustomPlot::beforeReplot, legend, [plot, legend] { wrapToWidth(plot, legend); });
    return legend;
}

} // namespace

QString memoryText(double gib)
{
    const MemoryUnit unit = memoryUnitFor(gib);
    const double v = gib * unit.perGiB;
    return BudgetChartText::tr("%L1 %2").arg(v, 0, 'f', v < 10 ? 2 : 1).arg(unit.name);
}

int budgetChartHeight(const QCustomPlot* plot, int rows)
{
    const QFontMetrics metrics(plot->font()); // the axes' label font
    // 1.4 lines per bar keeps a gap between the names; about eleven lines for the title,
    // the legend and the top and bottom axes with their labels.
    return int(std::ceil((1.4 * rows + 11) * metrics.height()));
}

namespace {

// The checkpoint's marker on both plots: the legend names it, the lines carry only the figures,
// so the labels stay short enough for the narrow plots. nullptr without a current bpw.
QCPGraph* addCheckpointMarker(QCustomPlot* plot, const BudgetChart& out, const BudgetChartOptions& options,
                              const Theme& theme)
{
    QCPAxis* bx = out.bitsRect->axis(QCPAxis::atBottom);
    QCPAxis* mx = out.memoryRect->axis(QCPAxis::atBottom);
    const double perGiB = out.memoryScale;
    // A marker label sits right of its line in the left part of the plot, else left of it
    // (a long label, German, would be clipped at the right edge).
    auto placeLabel = [](QCPItemText* label, QCPAxis* axis, double x) {
        const bool right = x > axis->range().lower + 0.4 * axis->range().size();
        label->position->setCoords(x, 1);
        label->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    };
    QCPGraph* marker = nullptr;
    if (options.currentBpw > 0) {
        const QPen pen(theme.accent, 2, Qt::DashDotLine);
        marker = new QCPGraph(out.bitsRect->axis(QCPAxis::atBottom), out.bitsRect->axis(QCPAxis::atLeft));
        marker->setPen(pen);
        marker->setName(options.currentLabel);
        verticalLine(plot, out.bitsRect, options.currentBpw, pen);
        auto* bitsLabel = lineLabel(plot, out.bitsRect, options.currentBpw,
                                    BudgetChartText::tr("%L1 bpw").arg(options.currentBpw, 0, 'f', 3), theme.accent,
                                    theme.background, Qt::AlignLeft);
        placeLabel(bitsLabel, bx, options.currentBpw);
        if (options.params) {
            const double gib = double(options.params) * options.currentBpw / 8 / qs::kBytesPerGiB + options.extraGiB;
            verticalLine(plot, out.memoryRect, gib * perGiB, pen);
            auto* label = lineLabel(plot, out.memoryRect, gib * perGiB, memoryText(gib), theme.accent, theme.background,
                                    Qt::AlignLeft);
            placeLabel(label, mx, gib * perGiB);
        }
    }
    return marker;
}

// A legend of the storage kinds, the memory colours and the marker, in one row above the plots.
void addBudgetLegend(QCustomPlot* plot, int layoutRow, const BudgetChart& out, const BudgetChartOptions& options,
                     QCPGraph* marker, const Theme& theme)
{
    QCPLegend* legend = addLegendRow(plot, layoutRow, theme);
    for (QCPBars* b : out.bitsBars)
        b->addToLegend(legend);
    // The memory bars' colours: "fits" / "does not fit" against a budget, else one colour.
    out.fits->addToLegend(legend);
    if (options.memoryGiB)
        out.over->addToLegend(legend);
    if (marker)
        marker->addToLegend(legend);
}

} // namespace

BudgetChart buildBudgetChart(QCustomPlot* plot, std::vector<qs::BudgetRow> rows, const BudgetChartOptions& options,
                             const Theme& theme)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->plotLayout()->clear();
    BudgetChart out;
    out.rows = std::move(rows);
    int layoutRow = 0;
    if (!options.title.isEmpty())
        plot->plotLayout()->addElement(
            layoutRow++, 0, new QCPTextElement(plot, options.title, QFont(plot->font().family(), 11, QFont::Bold)));
    auto* sub = new QCPLayoutGrid;
    plot->plotLayout()->addElement(layoutRow, 0, sub);
    out.bitsRect = new QCPAxisRect(plot);
    out.memoryRect = new QCPAxisRect(plot);
    sub->addElement(0, 0, out.bitsRect);
    sub->addElement(0, 1, out.memoryRect);
    sub->setColumnStretchFactors({1.0, 1.0});
    auto* margins = new QCPMarginGroup(plot);
    out.bitsRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    out.memoryRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    // Format names on the left axis of the bits plot, top to bottom.
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    const int n = int(out.rows.size());
    for (int i = 0; i < n; ++i)
        names->addTick(i, QString::fromStdString(out.rows[size_t(i)].format.id));
    for (QCPAxisRect* rect : {out.bitsRect, out.memoryRect}) {
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        y->setRangeReversed(true);
        y->setRange(-0.7, n - 0.3);
        y->grid()->setVisible(false);
        y->setTicker(names);
        y->setSubTicks(false);
        y->setTickLength(0, 2);
    }
    out.memoryRect->axis(QCPAxis::atLeft)->setTickLabels(false);

    // Bits per weight, one bar series per storage kind: the theme colours formats by kind
    // (float, integer codes, GGUF blocks, codebooks), so the legend names kinds, not families.
    std::map<QRgb, QCPBars*> kinds;
    double maxBits = 0, maxGiB = 0;
    for (int i = 0; i < n; ++i) {
        const qs::BudgetRow& r = out.rows[size_t(i)];
        const QColor colour = theme.formatColor(r.format.info->colour); // the stored format's role, not the row name
        QCPBars*& bars = kinds[colour.rgba()];
        if (!bars) {
            const QString name = colour == theme.codebookFormat ? BudgetChartText::tr("codebook (NF4, FP4, IQ)")
                : colour == theme.blockFormat                   ? BudgetChartText::tr("GGUF blocks")
                : colour == theme.integerFormat                 ? BudgetChartText::tr("integer codes + scales")
                                                                : BudgetChartText::tr("float");
            bars = makeBars(out.bitsRect, colour, name);
            out.bitsBars << bars;
        }
        bars->addData(i, r.bitsPerWeight);
        maxBits = std::max(maxBits, r.bitsPerWeight);
        maxGiB = std::max(maxGiB, r.gib);
    }
    QCPAxis* bx = out.bitsRect->axis(QCPAxis::atBottom);
    // Two lines each: the two charts' one-line titles ran into each other at 1600 px.
    bx->setLabel(BudgetChartText::tr("bits per weight\n(every scale, zero and index counted)"));
    bx->setRange(0, std::max(maxBits, options.currentBpw) * 1.08 + 0.01);

    // Memory, split by whether it fits, in the unit that suits the largest bar: a
    // 600K-parameter checkpoint in GiB would be bars of width zero.
    const MemoryUnit unit = memoryUnitFor(maxGiB);
    out.memoryScale = unit.perGiB;
    out.memoryUnit = unit.name;
    out.fits = makeBars(out.memoryRect, options.memoryGiB ? theme.ok : theme.accent,
                        options.memoryGiB ? BudgetChartText::tr("fits") : BudgetChartText::tr("memory"));
    // Red, not the warning ochre: that stood too close to the integer formats' brown beside it.
    out.over = makeBars(out.memoryRect, theme.error, BudgetChartText::tr("does not fit"));
    for (int i = 0; i < n; ++i) {
        const qs::BudgetRow& r = out.rows[size_t(i)];
        (r.fits.value_or(true) ? out.fits : out.over)->addData(i, r.gib * unit.perGiB);
    }
    QCPAxis* mx = out.memoryRect->axis(QCPAxis::atBottom);
    const QString what = options.memoryWhat.isEmpty() ? BudgetChartText::tr("weights only") : options.memoryWhat;
    QString axisLabel = options.params
        ? BudgetChartText::tr("%1 for %2 parameters\n(%3)").arg(unit.name, options.paramsText, what)
        : BudgetChartText::tr("%1\n(%2)").arg(unit.name, what);
    // A budget far beyond every bar stays off the axis (named in its label) so the bars
    // keep a readable length.
    const double barsTop = maxGiB * unit.perGiB;
    const double budget = options.memoryGiB ? *options.memoryGiB * unit.perGiB : 0;
    out.budgetOnAxis = options.memoryGiB && budget <= 3 * barsTop;
    if (options.memoryGiB && !out.budgetOnAxis)
        axisLabel += BudgetChartText::tr("\nbudget %1 off scale →").arg(memoryText(*options.memoryGiB));
    mx->setLabel(axisLabel);
    mx->setRange(0, std::max(barsTop, out.budgetOnAxis ? budget : 0.0) * 1.1 + 1e-9);
    // A tall chart ("All formats": some 75 bars) scrolls: the scales and what they measure
    // stand above the bars too, where the first screen shows them.
    for (QCPAxis* bottom : {bx, mx}) {
        QCPAxis* top = bottom->axisRect()->axis(QCPAxis::atTop);
        top->setVisible(true);
        top->setLabel(bottom->label());
        top->setRange(bottom->range());
        top->grid()->setVisible(false);
        QObject::connect(bottom, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), top,
                         qOverload<const QCPRange&>(&QCPAxis::setRange));
    }

    applyPlotTheme(plot, theme);
    if (out.budgetOnAxis) {
        verticalLine(plot, out.memoryRect, budget, QPen(theme.text, 1.5, Qt::DashLine));
        lineLabel(plot, out.memoryRect, budget, BudgetChartText::tr("budget %1").arg(memoryText(*options.memoryGiB)),
                  theme.text, theme.background, Qt::AlignRight);
    }
    QCPGraph* marker = addCheckpointMarker(plot, out, options, theme);
    addBudgetLegend(plot, layoutRow, out, options, marker, theme);
    return out;
}

DeviceChart buildDeviceChart(QCustomPlot* plot, const qs::RunBudget& run, const Theme& theme)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->plotLayout()->clear();
    auto* rect = new QCPAxisRect(plot);
    plot->plotLayout()->addElement(0, 0, rect);
    DeviceChart out;
    const int n = int(run.devices.size());
    // As in the formats chart: a memory far beyond every bar stays off the axis.
    double bars = 0, capacity = 0;
    for (const qs::DeviceBudget& d : run.devices) {
        bars = std::max(bars, double(d.total()));
        capacity = std::max(capacity, d.capacity ? double(*d.capacity) : 0.0);
    }
    out.capacitiesOnAxis = capacity <= 3 * bars;
    const double top = out.capacitiesOnAxis ? std::max(bars, capacity) : bars;
    const MemoryUnit unit = memoryUnitFor(top / qs::kBytesPerGiB);
    out.unit = unit.name;
    out.perGiB = unit.perGiB;
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    for (int i = 0; i < n; ++i)
        names->addTick(i, QString::fromStdString(run.devices[size_t(i)].name));
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setRangeReversed(true);
    y->setRange(-0.6, n - 0.4);
    y->grid()->setVisible(false);
    y->setTicker(names);
    y->setSubTicks(false);
    out.weights = makeBars(rect, theme.integerFormat, BudgetChartText::tr("weights"));
    out.cache = makeBars(rect, theme.accent, BudgetChartText::tr("KV cache and state"));
    out.buffers =
        makeBars(rect, theme.mutedText, BudgetChartText::tr("output and compute buffers (compute estimated)"));
    out.cache->moveAbove(out.weights);
    out.buffers->moveAbove(out.cache);
    auto scaled = [&](uint64_t bytes) { return double(bytes) / qs::kBytesPerGiB * unit.perGiB; };
    for (int i = 0; i < n; ++i) {
        const qs::DeviceBudget& d = run.devices[size_t(i)];
        out.weights->addData(i, scaled(d.weights));
        out.cache->addData(i, scaled(d.kvCache + d.recurrent));
        out.buffers->addData(i, scaled(d.output + d.compute));
    }
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QString label = BudgetChartText::tr("%1 per device at %2 tokens").arg(unit.name).arg(run.nCtx);
    if (!out.capacitiesOnAxis)
        label += BudgetChartText::tr("; memory %1 off scale →").arg(memoryText(capacity / qs::kBytesPerGiB));
    x->setLabel(label);
    x->setRange(0, scaled(uint64_t(top)) * 1.12 + 1e-9);
    applyPlotTheme(plot, theme);
    // The legend above the bars, as in the formats chart.
    QCPLegend* legend = addLegendRow(plot, 0, theme);
    for (QCPBars* b : {out.weights, out.cache, out.buffers})
        b->addToLegend(legend);
    // Each device's memory: a tick across its bar, in the warning colour when the bar passes it.
    for (int i = 0; i < n; ++i) {
        const qs::DeviceBudget& d = run.devices[size_t(i)];
        if (!d.capacity || !out.capacitiesOnAxis)
            continue;
        auto* tick = new QCPItemLine(plot);
        tick->setClipAxisRect(rect);
        for (QCPItemPosition* p : {tick->start, tick->end})
            p->setAxes(x, y);
        tick->start->setCoords(scaled(*d.capacity), i - 0.45);
        tick->end->setCoords(scaled(*d.capacity), i + 0.45);
        tick->setPen(QPen(d.fits() ? theme.text : theme.warning, 2.5));
    }
    return out;
}

} // namespace qsw
