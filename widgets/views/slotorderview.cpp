#include "slotorderview.h"

#include "figures/slotorderfigure.h"
#include "figures/wordfigure.h"
#include "report/report.h"
#include "viewcontext.h"

#include "container/logicalweight.h"
#include "formats/wordmap.h"

#include <cmath>

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

namespace qsw {

namespace {
constexpr double kGap = 16;
constexpr int kMinZoom = 25, kMaxZoom = 300; // percent
} // namespace

// Paints both figures, stacked, at the view's zoom.
class SlotOrderCanvas : public QWidget {
public:
    explicit SlotOrderCanvas(QWidget* parent)
        : QWidget(parent)
    {
    }

    void set(const qs::LayoutSpec* spec, const qs::LayoutParams& p, const Theme& theme, double zoom)
    {
        m_spec = spec;
        m_params = p;
        m_theme = theme;
        m_zoom = zoom;
        const QSizeF s = naturalSize();
        setFixedSize((s * m_zoom).toSize().expandedTo(QSize(1, 1)));
        QWidget::update();
    }
    QSizeF naturalSize() const { return naturalSize(m_spec, m_params); }
    static QSizeF naturalSize(const qs::LayoutSpec* spec, const qs::LayoutParams& p)
    {
        if (!spec)
            return {1, 1};
        const QSizeF a = SlotOrderFigure(*spec, p).naturalSize(), b = WordFigure(*spec, p).naturalSize();
        return {std::max(a.width(), b.width()), a.height() + kGap + b.height()};
    }
    void paintAll(QPainter& painter, const QRectF& target) const
    {
        painter.fillRect(target, m_theme.background);
        if (!m_spec)
            return;
        const SlotOrderFigure slotsFig(*m_spec, m_params);
        const WordFigure word(*m_spec, m_params);
        const QSizeF n = naturalSize();
        const double s = std::min(target.width() / n.width(), target.height() / n.height());
        const QSizeF a = slotsFig.naturalSize() * s, b = word.naturalSize() * s;
        slotsFig.paint(painter, QRectF(target.topLeft(), a), m_theme);
        word.paint(painter, QRectF(target.left(), target.top() + a.height() + kGap * s, b.width(), b.height()),
                   m_theme);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        paintAll(painter, QRectF(rect()));
    }

private:
    const qs::LayoutSpec* m_spec = nullptr;
    qs::LayoutParams m_params;
    Theme m_theme;
    double m_zoom = 1;
};

SlotOrderView::SlotOrderView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
{
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Format:"), this));
    m_format = new QComboBox(this);
    m_format->setObjectName(QStringLiteral("formatPicker"));
    for (const qs::LayoutSpec& s : qs::layoutRegistry().all())
        if (s.locate && s.packAxis != qs::PackAxis::None)
            m_format->addItem(
                QStringLiteral("%1 — %2").arg(QString::fromStdString(s.id), QString::fromStdString(s.name)),
                QString::fromStdString(s.id));
    m_format->setToolTip(tr("Any registered layout; follows the selected weight"));
    bar->addWidget(m_format, 1);
    bar->addWidget(new QLabel(tr("Bits:"), this));
    m_bits = new QComboBox(this);
    m_bits->setObjectName(QStringLiteral("bitsPicker"));
    bar->addWidget(m_bits);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Zoom:"), this));
    m_zoom = new QSlider(Qt::Horizontal, this);
    m_zoom->setRange(kMinZoom, kMaxZoom);
    m_zoom->setValue(100);
    m_zoom->setMinimumWidth(120);
    m_zoom->setMaximumWidth(200);
    m_zoom->setToolTip(tr("Zoom"));
    bar->addWidget(m_zoom);
    m_fit = new QToolButton(this);
    m_fit->setObjectName(QStringLiteral("fit"));
    m_fit->setText(tr("Fit"));
    m_fit->setToolTip(tr("Scale the diagrams to fill the view"));
    m_fit->setCheckable(true);
    m_fit->setChecked(true);
    bar->addWidget(m_fit);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("note"));
    m_note->setWordWrap(true);
    m_canvas = new SlotOrderCanvas(this);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_canvas);
    m_scroll->setAlignment(Qt::AlignCenter);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_note);
    layout->addWidget(m_scroll, 1);

    connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
        m_spec = qs::findLayoutSpec(m_format->currentData().toString().toStdString());
        m_params = m_spec ? qs::report::probeParams(*m_spec, qs::report::defaultParams(*m_spec)) : qs::LayoutParams{};
        if (m_spec && m_spec->container != qs::LayoutContainer::Gguf) {
            m_params.K = 4096;
            m_params.N = 4096;
            m_params.groupSize = 128;
        }
        m_note->setText(tr("Browsing %1 (not the selected weight's format).").arg(m_format->currentData().toString()));
        rebuildBits();
        refresh();
    });
    connect(m_bits, &QComboBox::currentIndexChanged, this, [this] {
        if (m_bits->currentIndex() >= 0)
            m_params.bits = m_bits->currentData().toInt();
        refresh();
    });
    connect(m_zoom, &QSlider::valueChanged, this, [this] {
        // Dragging the slider takes over from fitting.
        if (!m_fitting)
            m_fit->setChecked(false);
        refresh();
    });
    connect(m_fit, &QToolButton::toggled, this, [this] { refresh(); });
    m_scroll->viewport()->installEventFilter(this);
    connect(context, &ViewContext::weightChanged, this, &SlotOrderView::followWeight);
    connect(context, &ViewContext::checkpointChanged, this, &SlotOrderView::followWeight);
    connect(context, &ViewContext::themeChanged, this, [this] { refresh(); });
    followWeight();
}

void SlotOrderView::followWeight()
{
    const qs::LogicalWeight* w = context()->logicalWeight();
    const qs::LayoutSpec* spec = w ? qs::findLayoutSpec(w->format) : nullptr;
    if (!spec || !spec->locate || spec->packAxis == qs::PackAxis::None) {
        if (!m_spec && m_format->count()) {
            const QSignalBlocker block(m_format);
            m_format->setCurrentIndex(0);
            m_spec = qs::findLayoutSpec(m_format->currentData().toString().toStdString());
            m_params = qs::report::defaultParams(*m_spec);
            rebuildBits();
        }
        m_note->setText(w ? tr("%1 is %2: no packed layout. Pick a format to browse.")
                                .arg(shownText(QString::fromStdString(w->name)), QString::fromStdString(w->format))
                          : tr("Pick a format to browse its layout."));
        refresh();
        return;
    }
    {
        const QSignalBlocker block(m_format);
        m_format->setCurrentIndex(m_format->findData(QString::fromStdString(spec->id)));
    }
    m_spec = spec;
    m_params = qs::layoutParams(*w);
    if (std::find(spec->bitWidths.begin(), spec->bitWidths.end(), m_params.bits) == spec->bitWidths.end()
        && !spec->bitWidths.empty())
        m_params.bits = spec->bitWidths.front();
    m_note->setText(tr("%1: %2, [%3, %4], %5 bits%6")
                        .arg(shownText(QString::fromStdString(w->name)), QString::fromStdString(spec->name))
                        .arg(m_params.N)
                        .arg(m_params.K)
                        .arg(m_params.bits)
                        .arg(w->groupSize > 0 ? tr(", group %1").arg(w->groupSize) : QString()));
    rebuildBits();
    refresh();
}

void SlotOrderView::rebuildBits()
{
    const QSignalBlocker block(m_bits);
    m_bits->clear();
    if (!m_spec)
        return;
    for (int b : m_spec->bitWidths)
        m_bits->addItem(QString::number(b), b);
    m_bits->setCurrentIndex(m_bits->findData(m_params.bits));
    m_bits->setEnabled(m_spec->container != qs::LayoutContainer::Gguf && m_bits->count() > 1);
}

bool SlotOrderView::showFormat(const QString& id)
{
    const int i = m_format->findData(id);
    if (i < 0)
        return false;
    if (i == m_format->currentIndex())
        emit m_format->currentIndexChanged(i);
    else
        m_format->setCurrentIndex(i);
    return true;
}

double SlotOrderView::zoom() const
{
    return m_zoom->value() / 100.0;
}

void SlotOrderView::setZoom(double zoom)
{
    m_zoom->setValue(int(zoom * 100));
}

bool SlotOrderView::fitsToView() const
{
    return m_fit->isChecked();
}

bool SlotOrderView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize && m_fit->isChecked())
        refresh();
    return AnalysisView::eventFilter(watched, event);
}

void SlotOrderView::refresh()
{
    if (m_fit->isChecked()) {
        // A few pixels short of the viewport, so no scroll bar appears and shrinks it again.
        const QSizeF n = SlotOrderCanvas::naturalSize(m_spec, m_params);
        const QSize v = m_scroll->viewport()->size() - QSize(6, 6);
        if (v.width() > 0 && v.height() > 0 && n.width() > 1 && n.height() > 1) {
            const double fit = std::min(v.width() / n.width(), v.height() / n.height());
            m_fitting = true;
            m_zoom->setValue(std::clamp(int(std::floor(fit * 100)), kMinZoom, kMaxZoom));
            m_fitting = false;
        }
    }
    m_canvas->set(m_spec, m_params, context()->theme(), zoom());
}

QSize SlotOrderView::exportSize() const
{
    return m_canvas->naturalSize().toSize();
}

void SlotOrderView::renderExport(QPainter& painter, const QRect& target)
{
    m_canvas->paintAll(painter, QRectF(target));
}

} // namespace qsw
