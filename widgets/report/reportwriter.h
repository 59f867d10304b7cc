#pragma once
// Renders a report Document: self-contained HTML (figures as base64 PNG, XHTML-compatible
// markup), Markdown with PNG figures beside it, or PDF laid out page by page (pdfreport.h).
// The extension picks the format. Writing is atomic (qs::AtomicFile): a failed or cancelled
// export leaves no file behind, and no path of the report's inputs is written over. Needs a QApplication: data figures
// are QCustomPlot widgets.
#include "report/report.h"
#include "theme.h"

#include <QImage>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

class QPainter;

namespace qsw {

enum class ReportFormat { Html, Markdown, Pdf };
// From the extension (.html/.htm, .md/.markdown, .pdf); nullopt otherwise.
std::optional<ReportFormat> reportFormatFor(const QString& path);

// The light, print-friendly theme reports use.
Theme reportTheme();

// Any report figure (slot order, block, heatmap, histogram): its natural size and painting.
QSizeF figureSize(const qs::report::Figure& figure);
void paintFigure(QPainter& painter, const QRectF& target, const qs::report::Figure& figure, const Theme& theme);
QImage renderFigure(const qs::report::Figure& figure, const Theme& theme, double scale = 2.0);

// A text block (paragraph, code, facts, table) as HTML; empty for a figure.
QString reportBlockHtml(const qs::report::Block& block);
// The markup the HTML file holds; `imageSource(i)` gives figure i's src attribute.
QString reportHtml(const qs::report::Document& doc, const std::function<QString(size_t)>& imageSource, int imageWidth);
QString reportMarkdown(const qs::report::Document& doc, const QString& figurePrefix);

// Every figure of `doc` as an image at the resolution `format` wants. The data figures draw
// through QCustomPlot (a widget), so this runs on the GUI thread (qs::Error otherwise).
std::vector<QImage> renderReportFigures(const qs::report::Document& doc, ReportFormat format,
                                        const qs::Progress& control = {});

// Throws qs::Error (naming the path) on failure and qs::Cancelled when cancelled.
// Renders the figures, then writes: GUI thread.
void writeReport(const qs::report::Document& doc, const QString& path, const qs::Progress& control = {});
// Writes with figures from renderReportFigures (one per doc.figures); safe on a worker thread.
void writeReport(const qs::report::Document& doc, const QString& path, const std::vector<QImage>& figures,
                 const qs::Progress& control = {});

} // namespace qsw
