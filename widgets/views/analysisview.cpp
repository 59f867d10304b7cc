#include "analysisview.h"

#include "outputfile.h"
#include "viewcontext.h"
#include "viewregistry.h"

#include "container/checkpoint.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QStackedWidget>
#include <QSvgGenerator>

namespace qsw {

AnalysisView::AnalysisView(ViewContext* context, QWidget* parent)
    : QWidget(parent)
    , m_context(context)
{
}

void AnalysisView::whenInFront(std::function<void()> work)
{
    m_waiting = nullptr;
    if (inFront())
        work();
    else
        m_waiting = std::move(work);
}

bool AnalysisView::inFront() const
{
    // A QTabWidget keeps its pages in a QStackedWidget; a view on its own (tests, exports) is in front.
    for (const QWidget* w = this; w->parentWidget(); w = w->parentWidget())
        if (const auto* stack = qobject_cast<const QStackedWidget*>(w->parentWidget());
            stack && stack->currentWidget() != w)
            return false;
    return true;
}

void AnalysisView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_waiting)
        std::exchange(m_waiting, nullptr)();
}

void AnalysisView::renderExport(QPainter& painter, const QRect& target)
{
    painter.save();
    painter.translate(target.topLeft());
    const QSize source = size();
    if (source.width() > 0 && source.height() > 0)
        painter.scale(double(target.width()) / source.width(), double(target.height()) / source.height());
    render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
    painter.restore();
}

QString AnalysisView::viewName() const
{
    const ViewRow* row = viewRowOf(metaObject());
    return row ? QLatin1String(row->name) : QString();
}

QString AnalysisView::title() const
{
    const ViewRow* row = viewRowOf(metaObject());
    return row ? viewTitle(*row) : QString();
}

QString AnalysisView::exportCaption() const
{
    const auto ckpt = m_context->checkpoint();
    if (!ckpt)
        return {};
    QString text = tr("%1 · %2").arg(title(), QFileInfo(QString::fromStdString(ckpt->path)).fileName());
    if (const WeightRow* w = m_context->weightRow())
        text += tr(" · %1 (%2)").arg(shownText(w->name), w->format);
    return text;
}

std::vector<std::string> AnalysisView::exportInputs() const
{
    return m_context->inputs();
}

namespace {

constexpr int kCaptionMargin = 8;

// The caption's band above the view: its height at `width` (0 without a caption).
int captionHeight(const AnalysisView* view, const QString& caption, int width)
{
    if (caption.isEmpty())
        return 0;
    const QRect box =
        view->fontMetrics().boundingRect(QRect(0, 0, width - 2 * kCaptionMargin, 100000), Qt::TextWordWrap, caption);
    return box.height() + 2 * kCaptionMargin;
}

// The caption, then the view below it.
void paintExport(AnalysisView* view, QPainter& painter, const QSize& size, const QString& caption, int band)
{
    if (band > 0) {
        painter.fillRect(QRect(0, 0, size.width(), band), view->palette().color(QPalette::Window));
        painter.setFont(view->font());
        painter.setPen(view->palette().color(QPalette::WindowText));
        painter.drawText(
            QRect(kCaptionMargin, kCaptionMargin, size.width() - 2 * kCaptionMargin, band - 2 * kCaptionMargin),
            Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, caption);
    }
    view->renderExport(painter, QRect(0, band, size.width(), size.height() - band));
}

} // namespace

QString exportFilter()
{
    return AnalysisView::tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)");
}

bool exportView(AnalysisView* view, const QString& path, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") && suffix != QLatin1String("pdf")) {
        *error = AnalysisView::tr("%1: unknown export format \"%2\" (use .png, .svg or .pdf)").arg(path, suffix);
        return false;
    }
    if (const QString problem = view->exportProblem(); !problem.isEmpty()) {
        *error = AnalysisView::tr("%1: not written: %2").arg(path, problem);
        return false;
    }
    const QSize viewSize = view->exportSize().expandedTo(QSize(1, 1));
    const QString caption = view->exportCaption();
    const int band = captionHeight(view, caption, viewSize.width());
    const QSize size(viewSize.width(), viewSize.height() + band);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!checkOutputFile(path, view->exportInputs(), error))
        return false;
    if (suffix == QLatin1String("png")) {
        // Twice the logical size: sharp on high-DPI screens and in slides.
        QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(2.0);
        image.fill(view->palette().color(QPalette::Window));
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            paintExport(view, painter, size, caption, band);
        }
        if (!image.save(&buffer, "PNG")) {
            *error = AnalysisView::tr("%1: cannot encode PNG").arg(path);
            return false;
        }
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        // At the generator's default 72 dpi, widgets and plots (laid out at the screen's
        // logical dpi) paint at 72/96 of their size into the full-size view box.
        svg.setResolution(view->logicalDpiX());
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(view->title());
        svg.setDescription(caption.isEmpty() ? AnalysisView::tr("Exported from Quantscope") : caption);
        QPainter painter(&svg);
        paintExport(view, painter, size, caption, band);
    } else {
        QPdfWriter pdf(&buffer);
        pdf.setTitle(view->title());
        pdf.setCreator(QStringLiteral("Quantscope"));
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter(&pdf);
        // Points and our 96-dpi pixels differ; fill the page.
        const QRect page = painter.viewport();
        painter.scale(double(page.width()) / size.width(), double(page.height()) / size.height());
        paintExport(view, painter, size, caption, band);
    }
    return writeOutputFile(path, view->exportInputs(), bytes, error);
}

} // namespace qsw
