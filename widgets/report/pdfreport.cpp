#include "pdfreport.h"

#include "qtext.h"
#include "report/reportwriter.h"

#include <QAbstractTextDocumentLayout>
#include <QPagedPaintDevice>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QTextBlock>
#include <QTextDocument>

#include <algorithm>
#include <memory>

namespace qsw {

namespace {

using namespace qs::report;

constexpr double kFontPoints = 9;

// One thing to place: a text block (a heading, paragraph, list of facts or table), or a figure
// with its caption.
struct Item {
    PdfPiece::Kind kind = PdfPiece::Kind::Text;
    bool heading = false;
    std::shared_ptr<QTextDocument> text; // Text, Table; a figure's caption
    size_t figure = 0;
    QSizeF figureSize; // Figure: as placed
};

// A piece and what paints it: a text document from `offset` down, or a figure's image.
struct Placed {
    PdfPiece piece;
    std::shared_ptr<QTextDocument> text;
    double offset = 0;
};

Item textItem(PdfPiece::Kind kind, bool heading, std::shared_ptr<QTextDocument> text)
{
    Item item;
    item.kind = kind;
    item.heading = heading;
    item.text = std::move(text);
    return item;
}

PdfPiece piece(PdfPiece::Kind kind, int page, const QRectF& rect, size_t figure = 0)
{
    PdfPiece p;
    p.kind = kind;
    p.page = page;
    p.rect = rect;
    p.figure = figure;
    return p;
}

std::shared_ptr<QTextDocument> textDocument(const QString& html, QPagedPaintDevice& device, double width)
{
    auto doc = std::make_shared<QTextDocument>();
    QFont font = doc->defaultFont();
    font.setPointSizeF(kFontPoints);
    doc->setDefaultFont(font);
    doc->setDocumentMargin(0);
    doc->setHtml(html);
    doc->documentLayout()->setPaintDevice(&device);
    doc->setTextWidth(width);
    return doc;
}

class Pager {
public:
    Pager(QPagedPaintDevice& device, const std::vector<QImage>& figures, double figureScale)
        : m_device(device)
        , m_figures(figures)
        , m_scale(figureScale)
    {
        m_line = QFontMetricsF(font(), &device).lineSpacing();
        m_gap = m_line * 0.6;
        m_footer = m_line * 2.5;
        m_layout.body = QRectF(0, 0, device.width(), std::max(1.0, device.height() - m_footer));
    }

    QFont font() const
    {
        QFont f;
        f.setPointSizeF(kFontPoints);
        return f;
    }

    std::vector<Item> items(const Document& doc)
    {
        std::vector<Item> out;
        QString title = QStringLiteral("<h1>%1</h1>").arg(qtext(doc.title).toHtmlEscaped());
        if (!doc.subtitle.empty())
            title += QStringLiteral("<p><i>%1</i></p>").arg(qtext(doc.subtitle).toHtmlEscaped());
        out.push_back(textItem(PdfPiece::Kind::Text, true, text(title)));
        for (const Section& s : doc.sections) {
            out.push_back(textItem(PdfPiece::Kind::Text, true,
                                   text(QStringLiteral("<h%1>%2</h%1>")
                                            .arg(std::clamp(s.level + 1, 2, 4))
                                            .arg(qtext(s.title).toHtmlEscaped()))));
            for (const Block& b : s.blocks) {
                if (b.kind != Block::Kind::Figure) {
                    const bool table = b.kind == Block::Kind::Table || b.kind == Block::Kind::Facts;
                    out.push_back(textItem(table ? PdfPiece::Kind::Table : PdfPiece::Kind::Text, false,
                                           text(reportBlockHtml(b))));
                    continue;
                }
                if (b.figure >= doc.figures.size() || b.figure >= m_figures.size())
                    continue;
                Item f = textItem(PdfPiece::Kind::Figure, false,
                                  text(QStringLiteral("<p><i>Figure %1. %2</i></p>")
                                           .arg(b.figure + 1)
                                           .arg(qtext(doc.figures[b.figure].caption).toHtmlEscaped())));
                f.figure = b.figure;
                f.figureSize = figureSize(m_figures[b.figure], f.text->size().height());
                out.push_back(std::move(f));
            }
        }
        return out;
    }

    void place(const std::vector<Item>& items)
    {
        for (size_t i = 0; i < items.size(); ++i) {
            const Item& item = items[i];
            if (item.heading && i + 1 < items.size()) {
                // A heading stays with what follows it: all of it when that moves whole to a new page
                // (it fits one), else its first lines.
                const double following = height(items[i + 1]);
                const double next = following <= m_layout.body.height() ? following : 4 * m_line;
                if (m_y > 0 && height(item) + next > room())
                    newPage();
            }
            if (item.kind == PdfPiece::Kind::Figure)
                placeFigure(item);
            else
                placeText(item);
        }
        m_layout.pages = m_page + 1;
        for (int p = 0; p < m_layout.pages; ++p) {
            Placed number;
            number.piece =
                piece(PdfPiece::Kind::PageNumber, p,
                      QRectF(0, m_layout.body.bottom() + m_footer - 1.5 * m_line, m_layout.body.width(), m_line));
            m_placed.push_back(std::move(number));
        }
        for (const Placed& p : m_placed)
            m_layout.pieces.push_back(p.piece);
    }

    const PdfLayout& layout() const { return m_layout; }
    const std::vector<Placed>& placed() const { return m_placed; }

private:
    std::shared_ptr<QTextDocument> text(const QString& html)
    {
        return textDocument(html, m_device, m_layout.body.width());
    }

    // A figure's size on the page: its natural size (the image's over the scale it was rendered
    // at, in the device's pixels), no wider than the page and, with its caption, no taller.
    QSizeF figureSize(const QImage& image, double captionHeight) const
    {
        const double perPixel = m_device.logicalDpiX() / 96.0 / m_scale;
        QSizeF size(image.width() * perPixel, image.height() * perPixel);
        if (size.isEmpty())
            return {};
        const double maxHeight = m_layout.body.height() - captionHeight - m_gap;
        size = size.scaled(QSizeF(std::min(size.width(), m_layout.body.width()), std::min(size.height(), maxHeight)),
                           Qt::KeepAspectRatio);
        return size;
    }

    double height(const Item& item) const
    {
        const double text = item.text ? item.text->size().height() : 0;
        return item.kind == PdfPiece::Kind::Figure ? item.figureSize.height() + text : text;
    }

    double room() const { return m_layout.body.height() - m_y; }

    void newPage()
    {
        ++m_page;
        m_y = 0;
    }

    void add(PdfPiece::Kind kind, const QSizeF& size, std::shared_ptr<QTextDocument> text, double offset = 0,
             size_t figure = 0)
    {
        Placed p;
        p.piece = piece(kind, m_page, QRectF(QPointF(0, m_y), size), figure);
        p.text = std::move(text);
        p.offset = offset;
        m_placed.push_back(std::move(p));
        m_y += size.height() + m_gap;
    }

    void placeFigure(const Item& item)
    {
        if (height(item) > room())
            newPage();
        add(PdfPiece::Kind::Figure, item.figureSize, nullptr, 0, item.figure);
        m_y -= m_gap; // the caption right under its figure
        add(PdfPiece::Kind::Caption, QSizeF(m_layout.body.width(), item.text->size().height()), item.text);
    }

    void placeText(const Item& item)
    {
        const double width = m_layout.body.width();
        const double h = item.text->size().height();
        if (h <= room()) {
            add(item.kind, QSizeF(width, h), item.text);
            return;
        }
        if (h <= m_layout.body.height()) {
            newPage();
            add(item.kind, QSizeF(width, h), item.text);
            return;
        }
        // Taller than a page: the document's own pagination, which moves a line or table row
        // that would cross a page's end onto the next page and repeats a table's header row.
        if (m_y > 0)
            newPage();
        const double page = m_layout.body.height();
        item.text->setPageSize(QSizeF(width, page));
        const int pages = item.text->pageCount();
        const QRectF last = item.text->documentLayout()->blockBoundingRect(item.text->lastBlock());
        for (int p = 0; p < pages; ++p) {
            if (p > 0)
                newPage();
            const double used = p + 1 < pages ? page : std::clamp(last.bottom() - p * page, 0.0, page);
            add(item.kind, QSizeF(width, used), item.text, p * page);
        }
    }

    QPagedPaintDevice& m_device;
    const std::vector<QImage>& m_figures;
    double m_scale;
    double m_line = 0, m_gap = 0, m_footer = 0;
    double m_y = 0;
    int m_page = 0;
    PdfLayout m_layout;
    std::vector<Placed> m_placed;
};

} // namespace

void setReportPage(QPdfWriter& writer)
{
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(15, 15, 15, 15),
                                     QPageLayout::Millimeter));
    writer.setResolution(300);
}

PdfLayout pdfReportLayout(const Document& doc, const std::vector<QImage>& figures, double figureScale,
                          QPagedPaintDevice& device)
{
    Pager pager(device, figures, figureScale);
    pager.place(pager.items(doc));
    return pager.layout();
}

void paintPdfReport(const Document& doc, const std::vector<QImage>& figures, double figureScale,
                    QPagedPaintDevice& device)
{
    Pager pager(device, figures, figureScale);
    pager.place(pager.items(doc));
    QPainter painter(&device);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    QFont number = pager.font();
    number.setPointSizeF(kFontPoints - 1);
    for (int page = 0; page < pager.layout().pages; ++page) {
        if (page > 0)
            device.newPage();
        for (const Placed& p : pager.placed()) {
            if (p.piece.page != page)
                continue;
            switch (p.piece.kind) {
            case PdfPiece::Kind::Figure: painter.drawImage(p.piece.rect, figures.at(p.piece.figure)); break;
            case PdfPiece::Kind::PageNumber:
                painter.setFont(number);
                painter.setPen(QColor(0x55, 0x55, 0x55));
                painter.drawText(p.piece.rect, Qt::AlignHCenter | Qt::AlignVCenter, QString::number(page + 1));
                break;
            default: {
                painter.save();
                painter.translate(p.piece.rect.topLeft() - QPointF(0, p.offset));
                QAbstractTextDocumentLayout::PaintContext context;
                context.clip = QRectF(0, p.offset, p.piece.rect.width(), p.piece.rect.height());
                painter.setClipRect(context.clip);
                p.text->documentLayout()->draw(&painter, context);
                painter.restore();
            }
            }
        }
    }
}

} // namespace qsw
