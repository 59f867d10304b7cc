#include "scalesview.h"

#include "figures/plottheme.h"
#include "jobrunner.h"
#include "messagestack.h"
#include "numbers.h"
#include "qtext.h"
#include "viewcontext.h"

#include "container/checkpoint.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QToolTip>
#include <QVBoxLayout>

namespace qsw {

namespace {

const QString kScalesJob = QStringLiteral("scales");

} // namespace

ScalesView::ScalesView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
{
    m_caption = new QLabel(this);
    m_caption->setObjectName(QStringLiteral("caption"));
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_field = new QComboBox(this);
    m_field->addItem(tr("Scales"), int(ScaleField::Scales));
    m_field->addItem(tr("Zeros / minimums"), int(ScaleField::Zeros));
    m_field->setToolTip(tr("Which per-group parameter the heatmap shows"));
    m_reduce = new QComboBox(this);
    m_reduce->addItem(tr("Cell: max |value|"), int(qs::CellReduce::MaxAbs));
    m_reduce->addItem(tr("Cell: min"), int(qs::CellReduce::Min));
    m_reduce->addItem(tr("Cell: max"), int(qs::CellReduce::Max));
    m_reduce->setToolTip(
        tr("When the weight has more groups or rows than the plot has cells, each cell reduces the block it covers"));
    m_level = new QComboBox(this);
    m_level->addItem(tr("GGUF: block scales (d, dmin)"), int(qs::GgufScaleLevel::Block));
    m_level->addItem(tr("GGUF: sub-block scales (d × sc, dmin × m)"), int(qs::GgufScaleLevel::SubBlock));
    m_level->setToolTip(tr("k-quants store a super-block scale d and small integer scales per sub-block"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_field);
    controls->addWidget(m_reduce);
    controls->addWidget(m_level);
    controls->addStretch(1);

    m_plot = new QCustomPlot(this);
    m_plot->setMouseTracking(true);
    m_stack = new MessageStack(m_plot, this);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_caption);
    layout->addLayout(controls);
    layout->addWidget(m_stack, 1);

    connect(m_field, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(m_reduce, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(m_level, &QComboBox::currentIndexChanged, this, [this] { reload(); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &ScalesView::hover);
    connect(m_plot, &QCustomPlot::mousePress, this, &ScalesView::click);
    connect(context, &ViewContext::checkpointChanged, this, [this] {
        m_cache.clear();
        m_dirty = true;
    });
    connect(context, &ViewContext::weightChanged, this, [this] {
        m_dirty = true;
        if (isVisible())
            reload();
    });
    connect(context, &ViewContext::themeChanged, this, [this] { rebuild(); });
    connect(context, &ViewContext::selectedChanged, this, [this] { updateSelection(); });
    connect(context->jobs(), &JobRunner::failed, this, [this](const QString& key, const QString& message) {
        if (key == kScalesJob)
            showMessage(message);
    });
    showMessage(tr("Select a quantized weight to see its scales."));
}

QString ScalesView::message() const
{
    return m_stack->message();
}

void ScalesView::setField(ScaleField field)
{
    m_field->setCurrentIndex(m_field->findData(int(field)));
}

qs::GgufScaleLevel ScalesView::level() const
{
    return qs::GgufScaleLevel(m_level->currentData().toInt());
}

void ScalesView::showEvent(QShowEvent* event)
{
    AnalysisView::showEvent(event);
    if (m_dirty)
        reload();
    else
        m_plot->replot(); // changes made while hidden were not drawn
}

void ScalesView::showMessage(const QString& text)
{
    m_stack->showMessage(text);
}

void ScalesView::reload()
{
    m_dirty = false;
    m_scales.reset();
    m_weight = context()->weight();
    const auto ckpt = context()->checkpoint();
    const qs::LogicalWeight* w = context()->logicalWeight();
    context()->jobs()->cancel(kScalesJob);
    if (!ckpt || !w) {
        m_caption->clear();
        showMessage(tr("Select a quantized weight to see its scales."));
        return;
    }
    m_level->setVisible(qs::hasGgufSubBlockScales(*ckpt, *w));
    if (!qs::hasGroupScales(*ckpt, *w)) {
        m_caption->setText(
            tr("<b>%1</b> · %2")
                .arg(shownText(QString::fromStdString(w->name)).toHtmlEscaped(), QString::fromStdString(w->format)));
        showMessage(tr("%1 is stored as %2: a float weight has no scales or zeros. Each element is its own value; "
                       "see the bit map for its encoding.")
                        .arg(shownText(QString::fromStdString(w->name)), QString::fromStdString(w->format)));
        return;
    }
    const int index = m_weight;
    const qs::GgufScaleLevel lvl = m_level->isVisibleTo(this) ? level() : qs::GgufScaleLevel::Block;
    const auto key = std::make_pair(index, int(lvl));
    if (auto it = m_cache.find(key); it != m_cache.end()) {
        showScales(index, it->second);
        return;
    }
    showMessage(tr("Reading the scales of %1…").arg(shownText(QString::fromStdString(w->name))));
    QPointer<ScalesView> self(this);
    context()->jobs()->start(kScalesJob, tr("Reading scales of %1").arg(shownText(QString::fromStdString(w->name))),
                             [ckpt, index, lvl, self](JobControl& control) -> JobRunner::Continuation {
                                 auto s = std::make_shared<const qs::GroupScales>(qs::groupScales(
                                     *ckpt, ckpt->weights.at(size_t(index)), lvl, &control.cancelFlag()));
                                 return [self, index, lvl, s] {
                                     if (!self)
                                         return;
                                     self->m_cache[{index, int(lvl)}] = s;
                                     if (self->context()->weight() == index)
                                         self->showScales(index, s);
                                 };
                             });
}

void ScalesView::showScales(int weight, std::shared_ptr<const qs::GroupScales> scales)
{
    m_weight = weight;
    m_scales = std::move(scales);
    const qs::GroupScales& s = *m_scales;
    const bool zeros = !s.zeros.empty();
    m_field->setEnabled(zeros);
    if (!zeros)
        setField(ScaleField::Scales);
    QString per = s.gIdx.empty()
        ? tr("one per %1 input columns").arg(s.groupSize)
        : tr("one per group of %1 input columns, columns assigned by g_idx (act-order)").arg(s.groupSize);
    QString shown = tr("Showing %1 (%2)").arg(qtext(s.scaleMeaning).toHtmlEscaped(), per);
    if (zeros)
        shown += tr(" and %1").arg(qtext(s.zeroMeaning).toHtmlEscaped());
    m_captionText =
        (tr("<b>%1</b> · %2 · %3 rows × %4 groups<br>%5.")
             .arg(shownText(QString::fromStdString(s.weight)).toHtmlEscaped(), QString::fromStdString(s.format))
             .arg(s.rows)
             .arg(s.groups)
             .arg(shown));
    rebuild();
}

void ScalesView::rebuild()
{
    if (!m_scales)
        return;
    ScaleHeatmapOptions opt;
    opt.field = ScaleField(m_field->currentData().toInt());
    opt.reduce = qs::CellReduce(m_reduce->currentData().toInt());
    m_heatmap = buildScaleHeatmap(m_plot, *m_scales, opt, context()->theme());
    m_marker = new QCPItemRect(m_plot);
    m_marker->setClipAxisRect(m_heatmap.map->keyAxis()->axisRect());
    m_marker->topLeft->setAxes(m_heatmap.map->keyAxis(), m_heatmap.map->valueAxis());
    m_marker->bottomRight->setAxes(m_heatmap.map->keyAxis(), m_heatmap.map->valueAxis());
    m_marker->setPen(QPen(context()->theme().accent, 2));
    m_marker->setVisible(false);
    const qs::DecimatedGrid& g = m_heatmap.grid;
    m_reduce->setEnabled(g.rowStep > 1 || g.colStep > 1);
    QString caption = m_captionText;
    if (g.rowStep > 1 || g.colStep > 1)
        caption += tr(" Decimated: each cell covers %1 × %2.")
                       .arg(tr("%Ln group(s)", nullptr, int(g.rowStep)), tr("%Ln row(s)", nullptr, int(g.colStep)));
    m_caption->setText(caption);
    m_stack->showContent();
    updateSelection();
    if (m_plot->isVisible())
        m_plot->replot();
}

void ScalesView::updateSelection()
{
    if (!m_marker || !m_scales)
        return;
    const ElementRef sel = context()->selected();
    const qs::GroupScales& s = *m_scales;
    const bool on = sel.isValid() && sel.weight == m_weight && uint64_t(sel.row) < s.rows && sel.col >= 0
        && uint64_t(sel.col) < s.cols && s.groupSize;
    m_marker->setVisible(on);
    if (on) {
        const uint64_t g = s.gIdx.empty() ? uint64_t(sel.col) / s.groupSize : uint64_t(s.gIdx[size_t(sel.col)]);
        // Outline the decimated cell that holds the element.
        const qs::DecimatedGrid& d = m_heatmap.grid;
        const double g0 = double(g / d.rowStep * d.rowStep), r0 = double(uint64_t(sel.row) / d.colStep * d.colStep);
        m_marker->topLeft->setCoords(g0 - 0.5, r0 - 0.5);
        m_marker->bottomRight->setCoords(g0 + double(d.rowStep) - 0.5, r0 + double(d.colStep) - 0.5);
    }
    if (m_plot->isVisible())
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool ScalesView::cellAt(const QPointF& pixel, uint64_t* group, uint64_t* row) const
{
    if (!m_scales || !m_heatmap.map || m_stack->showsMessage())
        return false;
    QCPAxisRect* rect = m_heatmap.map->keyAxis()->axisRect();
    if (!rect->rect().contains(pixel.toPoint()))
        return false;
    const double x = m_heatmap.map->keyAxis()->pixelToCoord(pixel.x());
    const double y = m_heatmap.map->valueAxis()->pixelToCoord(pixel.y());
    const double g = std::floor(x + 0.5), r = std::floor(y + 0.5);
    if (g < 0 || r < 0 || g >= double(m_scales->groups) || r >= double(m_scales->rows))
        return false;
    *group = uint64_t(g);
    *row = uint64_t(r);
    return true;
}

ElementRef ScalesView::elementAt(const QPointF& pixel) const
{
    uint64_t g = 0, r = 0;
    if (!cellAt(pixel, &g, &r))
        return {};
    const uint64_t col = m_scales->firstColumn(g);
    return {m_weight, int64_t(r), col < m_scales->cols ? int64_t(col) : -1};
}

void ScalesView::hover(QMouseEvent* event)
{
    uint64_t g = 0, r = 0;
    if (!cellAt(event->position(), &g, &r)) {
        QToolTip::hideText();
        return;
    }
    const qs::GroupScales& s = *m_scales;
    QString text = tr("group %1, row %2\nscale %3").arg(g).arg(r).arg(localNumber(s.scaleAt(g, r)));
    if (!s.zeros.empty())
        text += tr("\n%1 %2").arg(qtext(s.zeroMeaning), localNumber(s.zeroAt(g, r)));
    const uint64_t col = s.firstColumn(g);
    if (col < s.cols)
        text += tr("\nfirst column %1").arg(col);
    const qs::DecimatedGrid& d = m_heatmap.grid;
    if (d.rowStep > 1 || d.colStep > 1) {
        const float cell = d.cells[(g / d.rowStep) * d.cols + r / d.colStep];
        text += tr("\ncell (%1 × %2): %3")
                    .arg(tr("%Ln group(s)", nullptr, int(d.rowStep)), tr("%Ln row(s)", nullptr, int(d.colStep)),
                         localNumber(cell));
    }
    QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    context()->setHovered(elementAt(event->position()));
}

void ScalesView::click(QMouseEvent* event)
{
    const ElementRef e = elementAt(event->position());
    if (!e.isValid())
        return;
    context()->setSelected(e);
    context()->requestView(QStringLiteral("bitmap"));
}

QString ScalesView::exportCaption() const
{
    // Which quantity: scales or zeros, and for GGUF the block level.
    QString text = AnalysisView::exportCaption();
    if (!text.isEmpty() && m_scales && !m_stack->showsMessage())
        text += tr(" · %1").arg(m_level->isVisible() ? tr("%1, %2").arg(m_field->currentText(), m_level->currentText())
                                                     : m_field->currentText());
    return text;
}

void ScalesView::renderExport(QPainter& painter, const QRect& target)
{
    if (!m_stack->showsMessage())
        paintPlot(m_plot, painter, target);
    else
        AnalysisView::renderExport(painter, target);
}

} // namespace qsw
