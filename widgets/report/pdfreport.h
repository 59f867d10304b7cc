#pragma once
// The PDF report, laid out page by page before anything is painted: every figure whole on one
// page at its aspect ratio (scaled down only to fit the page), with its caption under it; text
// and tables at the page's width (a table running onto the next page repeats its header row);
// headings kept with what follows them; the page number in a footer band no piece enters.
// QTextDocument::print split tall figures across pages, stretched them and drew the page number
// over them, and laid tables out at half the page.
#include "report/report.h"

#include <QImage>
#include <QRectF>

#include <vector>

class QPagedPaintDevice;
class QPdfWriter;

namespace qsw {

struct PdfPiece {
    enum class Kind { Text, Table, Figure, Caption, PageNumber };
    Kind kind = Kind::Text;
    int page = 0; // from 0
    QRectF rect; // on its page, in the device's pixels
    size_t figure = 0; // Figure: its index in the Document
};

struct PdfLayout {
    QRectF body; // where pieces go on every page; the footer band lies below it
    int pages = 0;
    std::vector<PdfPiece> pieces;
};

// The report's page: A4 portrait, 15 mm margins, 300 dpi.
void setReportPage(QPdfWriter& writer);
// The layout `doc` gets on `device` (a QPdfWriter with setReportPage's page) with
// `figures` (one image per doc.figures, rendered at `figureScale` times their natural size).
PdfLayout pdfReportLayout(const qs::report::Document& doc, const std::vector<QImage>& figures, double figureScale,
                          QPagedPaintDevice& device);
// Lays `doc` out as pdfReportLayout does and paints it onto `device`.
void paintPdfReport(const qs::report::Document& doc, const std::vector<QImage>& figures, double figureScale,
                    QPagedPaintDevice& device);

} // namespace qsw
