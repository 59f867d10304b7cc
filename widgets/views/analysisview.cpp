#include "analysisview.h"

#include "viewcontext.h"

#include "base/atomicfile.h"
#include "base/error.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace qsw {

AnalysisView::AnalysisView(ViewContext* context, QWidget* parent) : QWidget(parent), m_context(context) {}

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

QString exportFilter()
{
    return AnalysisView::tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)");
}

bool exportView(AnalysisView* view, const QString& path, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QSize size = view->exportSize().expandedTo(QSize(1, 1));
    const QRect target(QPoint(0, 0), size);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (suffix == QLatin1String("png")) {
        // Twice the logical size: sharp on high-DPI screens and in slides.
        QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(2.0);
        image.fill(view->palette().color(QPalette::Window));
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            view->renderExport(painter, target);
        }
        if (!image.save(&buffer, "PNG")) {
            *error = AnalysisView::tr("%1: cannot encode PNG").arg(path);
            return false;
        }
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(target);
        svg.setTitle(view->title());
        svg.setDescription(AnalysisView::tr("Exported from Quantscope"));
        QPainter painter(&svg);
        view->renderExport(painter, target);
    } else if (suffix == QLatin1String("pdf")) {
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
        view->renderExport(painter, target);
    } else {
        *error = AnalysisView::tr("%1: unknown export format \"%2\" (use .png, .svg or .pdf)").arg(path, suffix);
        return false;
    }
    try {
        qs::writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
    } catch (const qs::Error& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

} // namespace qsw
