#include "analysisview.h"

#include "viewcontext.h"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
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
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = AnalysisView::tr("%1: %2").arg(path, file.errorString());
        return false;
    }
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
        if (!image.save(&file, "PNG")) {
            *error = AnalysisView::tr("%1: cannot encode PNG").arg(path);
            file.cancelWriting();
            return false;
        }
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(size);
        svg.setViewBox(target);
        svg.setTitle(view->title());
        svg.setDescription(AnalysisView::tr("Exported from Quantscope"));
        QPainter painter(&svg);
        view->renderExport(painter, target);
    } else if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(&file);
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
        file.cancelWriting();
        return false;
    }
    if (!file.commit()) {
        *error = AnalysisView::tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace qsw
