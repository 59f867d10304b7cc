#include "reportwriter.h"

#include "figures/slotorderfigure.h"
#include "figures/wordfigure.h"
#include "report/pdfreport.h"
#include "qtext.h"
#include "report/datafigures.h"

#include "base/atomicfile.h"
#include "base/outputpath.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QThread>

#include <cmath>
#include <memory>

namespace qsw {

namespace {

using namespace qs::report;

// PDF figures are rendered at this many pixels per logical pixel: sharp in print.
constexpr double kPdfFigureScale = 2.5;

QString htmlText(const std::string& s)
{
    return qtext(s).toHtmlEscaped();
}

const qs::LayoutSpec& specOf(const Figure& f)
{
    const qs::LayoutSpec* s = qs::findLayoutSpec(f.formatId);
    if (!s)
        throw qs::Error("report: figure " + f.stem + ": unknown format " + f.formatId);
    return *s;
}

QByteArray png(const QImage& image)
{
    QByteArray bytes;
    QBuffer buf(&bytes);
    buf.open(QIODevice::WriteOnly);
    image.save(&buf, "PNG");
    return bytes;
}

[[noreturn]] void failWrite(const QString& path, const QString& what)
{
    throw qs::Error(path.toStdString() + ": " + what.toStdString());
}

void writeBytes(const QString& path, const QByteArray& bytes)
{
    qs::writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
}

QString mdCell(const std::string& s)
{
    QString t = qtext(s);
    t.replace(QLatin1Char('|'), QStringLiteral("\\|"));
    t.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return t;
}

} // namespace

std::optional<ReportFormat> reportFormatFor(const QString& path)
{
    const QString s = QFileInfo(path).suffix().toLower();
    if (s == QLatin1String("html") || s == QLatin1String("htm"))
        return ReportFormat::Html;
    if (s == QLatin1String("md") || s == QLatin1String("markdown"))
        return ReportFormat::Markdown;
    if (s == QLatin1String("pdf"))
        return ReportFormat::Pdf;
    return std::nullopt;
}

Theme reportTheme()
{
    return Theme::fromPalette(lightPalette());
}

QSizeF figureSize(const Figure& f)
{
    switch (f.kind) {
    case FigureKind::SlotOrder: return SlotOrderFigure(specOf(f), f.params).naturalSize();
    case FigureKind::Block: return WordFigure(specOf(f), f.params).naturalSize();
    default: return dataFigureSize(f);
    }
}

void paintFigure(QPainter& painter, const QRectF& target, const Figure& f, const Theme& theme)
{
    switch (f.kind) {
    case FigureKind::SlotOrder: SlotOrderFigure(specOf(f), f.params).paint(painter, target, theme); break;
    case FigureKind::Block: WordFigure(specOf(f), f.params).paint(painter, target, theme); break;
    case FigureKind::ScaleHeatmap:
    case FigureKind::ErrorHistogram: paintDataFigure(painter, target, f, theme); break;
    }
}

QImage renderFigure(const Figure& f, const Theme& theme, double scale)
{
    const QSizeF size = figureSize(f);
    QImage image((size * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(theme.background);
    QPainter painter(&image);
    paintFigure(painter, QRectF(QPointF(0, 0), size * scale), f, theme);
    return image;
}

QString reportBlockHtml(const Block& b)
{
    QString h;
    switch (b.kind) {
    case Block::Kind::Paragraph: h += QStringLiteral("<p>%1</p>\n").arg(htmlText(b.text)); break;
    case Block::Kind::Code: h += QStringLiteral("<pre>%1</pre>\n").arg(htmlText(b.text)); break;
    case Block::Kind::Facts:
        // A two-column table renders the same in browsers and QTextDocument.
        h +=
            QStringLiteral("<table class=\"facts\" width=\"100%\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n");
        for (const auto& [label, value] : b.facts)
            h += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(htmlText(label), htmlText(value));
        h += QStringLiteral("</table>\n");
        break;
    case Block::Kind::Table: {
        // The header row in <thead>: a PDF repeats it on every page the table runs onto.
        h += QStringLiteral("<table width=\"100%\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n<thead><tr>");
        for (const std::string& c : b.table.header)
            h += QStringLiteral("<th>%1</th>").arg(htmlText(c));
        h += QStringLiteral("</tr></thead>\n");
        for (const auto& row : b.table.rows) {
            h += QStringLiteral("<tr>");
            for (size_t i = 0; i < row.size(); ++i) {
                if (int(i) == b.verdictColumn)
                    h += row[i] == "fail"
                        ? QStringLiteral("<td class=\"fail\"><font color=\"#c0392b\"><b>%1</b></font></td>")
                              .arg(htmlText(row[i]))
                        : QStringLiteral("<td class=\"pass\"><font color=\"#388b42\">%1</font></td>")
                              .arg(htmlText(row[i]));
                else
                    h += QStringLiteral("<td>%1</td>").arg(htmlText(row[i]));
            }
            h += QStringLiteral("</tr>\n");
        }
        h += QStringLiteral("</table>\n");
        break;
    }
    case Block::Kind::Figure: break;
    }
    return h;
}

QString reportHtml(const Document& doc, const std::function<QString(size_t)>& imageSource, int imageWidth)
{
    QString h;
    h += QStringLiteral("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta "
                        "charset=\"utf-8\"/>\n");
    h += QStringLiteral("<title>%1</title>\n").arg(htmlText(doc.title));
    h += QStringLiteral(
        "<style>\nbody { font-family: sans-serif; max-width: 72em; margin: 2em auto; color: #1b1b1b; }\n"
        "table { border-collapse: collapse; margin: 0.5em 0 1em 0; }\n"
        "th, td { border: 1px solid #b8b8b8; padding: 3px 7px; text-align: left; vertical-align: top; }\n"
        "th { background: #eeeeee; }\n.fail { color: #c0392b; font-weight: bold; }\n.pass { color: #388b42; }\n"
        "figure { margin: 1em 0; } figcaption { color: #555555; font-size: 90%; }\n"
        "code, pre { font-family: monospace; }\n</style>\n</head>\n<body>\n");
    h += QStringLiteral("<h1>%1</h1>\n").arg(htmlText(doc.title));
    if (!doc.subtitle.empty())
        h += QStringLiteral("<p><em>%1</em></p>\n").arg(htmlText(doc.subtitle));
    for (const Section& s : doc.sections) {
        const int level = std::clamp(s.level + 1, 2, 4);
        h += QStringLiteral("<h%1>%2</h%1>\n").arg(level).arg(htmlText(s.title));
        for (const Block& b : s.blocks) {
            switch (b.kind) {
            case Block::Kind::Paragraph:
            case Block::Kind::Code:
            case Block::Kind::Facts:
            case Block::Kind::Table: h += reportBlockHtml(b); break;
            case Block::Kind::Figure: {
                const Figure& f = doc.figures.at(b.figure);
                h += QStringLiteral("<figure><p><img src=\"%1\" width=\"%2\" alt=\"%3\"/></p><figcaption><p>Figure %4. "
                                    "%3</p></figcaption></figure>\n")
                         .arg(imageSource(b.figure).toHtmlEscaped())
                         .arg(imageWidth)
                         .arg(htmlText(f.caption))
                         .arg(b.figure + 1);
                break;
            }
            }
        }
    }
    h += QStringLiteral("</body>\n</html>\n");
    return h;
}

QString reportMarkdown(const Document& doc, const QString& figurePrefix)
{
    QString m;
    m += QStringLiteral("# %1\n\n").arg(qtext(doc.title));
    if (!doc.subtitle.empty())
        m += QStringLiteral("*%1*\n\n").arg(qtext(doc.subtitle));
    for (const Section& s : doc.sections) {
        m += QString(std::clamp(s.level + 1, 2, 4), QLatin1Char('#')) + QLatin1Char(' ') + qtext(s.title)
            + QStringLiteral("\n\n");
        for (const Block& b : s.blocks) {
            switch (b.kind) {
            case Block::Kind::Paragraph: m += qtext(b.text) + QStringLiteral("\n\n"); break;
            case Block::Kind::Code: m += QStringLiteral("```\n%1\n```\n\n").arg(qtext(b.text)); break;
            case Block::Kind::Facts:
                for (const auto& [label, value] : b.facts)
                    m += QStringLiteral("- **%1:** %2\n").arg(qtext(label), qtext(value));
                m += QLatin1Char('\n');
                break;
            case Block::Kind::Table: {
                QStringList head, rule;
                for (const std::string& c : b.table.header) {
                    head << mdCell(c);
                    rule << QStringLiteral("---");
                }
                m += QStringLiteral("| %1 |\n| %2 |\n")
                         .arg(head.join(QStringLiteral(" | ")), rule.join(QStringLiteral(" | ")));
                for (const auto& row : b.table.rows) {
                    QStringList cells;
                    for (size_t i = 0; i < row.size(); ++i)
                        cells << (int(i) == b.verdictColumn && row[i] == "fail" ? QStringLiteral("**FAIL**")
                                                                                : mdCell(row[i]));
                    m += QStringLiteral("| %1 |\n").arg(cells.join(QStringLiteral(" | ")));
                }
                m += QLatin1Char('\n');
                break;
            }
            case Block::Kind::Figure: {
                const Figure& f = doc.figures.at(b.figure);
                m += QStringLiteral("![Figure %1. %2](%3%4.png)\n\n*Figure %1. %2*\n\n")
                         .arg(b.figure + 1)
                         .arg(qtext(f.caption), figurePrefix, qtext(f.stem));
                break;
            }
            }
        }
    }
    return m;
}

std::vector<QImage> renderReportFigures(const Document& doc, ReportFormat format, const qs::Progress& control)
{
    // Data figures draw through a QCustomPlot, a widget.
    if (QThread::currentThread() != QCoreApplication::instance()->thread())
        throw qs::Error("report: figures are rendered on the GUI thread");
    const Theme theme = reportTheme();
    std::vector<QImage> images;
    for (size_t i = 0; i < doc.figures.size(); ++i) {
        control.check();
        images.push_back(renderFigure(doc.figures[i], theme, format == ReportFormat::Pdf ? kPdfFigureScale : 2.0));
        control(i + 1, doc.figures.size());
    }
    control.check();
    return images;
}

void writeReport(const Document& doc, const QString& path, const qs::Progress& control)
{
    const auto format = reportFormatFor(path);
    if (!format)
        failWrite(path, QStringLiteral("unknown report format (use .html, .md or .pdf)"));
    qs::checkOutputPath(path.toStdString(), doc.inputs, qs::OutputKind::File); // before the slow part
    // Figures first: the slow part, with progress and cancel between them.
    qs::Progress figures = control; // the first 80 %
    figures.report = [&control](uint64_t done, uint64_t total, const std::string&) { control(4 * done, 5 * total); };
    const std::vector<QImage> images = renderReportFigures(doc, *format, figures);
    writeReport(doc, path, images, control);
}

void writeReport(const Document& doc, const QString& path, const std::vector<QImage>& images,
                 const qs::Progress& control)
{
    const auto format = reportFormatFor(path);
    if (!format)
        failWrite(path, QStringLiteral("unknown report format (use .html, .md or .pdf)"));
    if (images.size() != doc.figures.size())
        failWrite(path, QStringLiteral("%1 figures rendered for %2").arg(images.size()).arg(doc.figures.size()));
    qs::checkOutputPath(path.toStdString(), doc.inputs, qs::OutputKind::File);
    control.check();

    if (*format == ReportFormat::Html) {
        const QString html = reportHtml(
            doc,
            [&](size_t i) {
                return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png(images.at(i)).toBase64());
            },
            900);
        control.check();
        writeBytes(path, html.toUtf8());
    } else if (*format == ReportFormat::Markdown) {
        const QFileInfo info(path);
        const QString prefix = info.completeBaseName() + QLatin1Char('-');
        std::vector<QString> written;
        try {
            for (size_t i = 0; i < images.size(); ++i) {
                control.check();
                const QString fig = info.absolutePath() + QLatin1Char('/') + prefix + qtext(doc.figures[i].stem)
                    + QStringLiteral(".png");
                qs::checkOutputPath(fig.toStdString(), doc.inputs, qs::OutputKind::File);
                const QByteArray bytes = png(images[i]);
                if (bytes.isEmpty())
                    failWrite(fig, QStringLiteral("cannot encode PNG"));
                writeBytes(fig, bytes);
                written.push_back(fig);
            }
            const QByteArray markdown = reportMarkdown(doc, prefix).toUtf8();
            control.check();
            writeBytes(path, markdown);
        } catch (...) {
            for (const QString& f : written)
                QFile::remove(f);
            throw;
        }
    } else {
        QByteArray pdf;
        {
            QBuffer buffer(&pdf);
            buffer.open(QIODevice::WriteOnly);
            QPdfWriter writer(&buffer);
            writer.setTitle(qtext(doc.title));
            writer.setCreator(QStringLiteral("Quantscope"));
            setReportPage(writer);
            paintPdfReport(doc, images, kPdfFigureScale, writer);
        }
        control.check();
        writeBytes(path, pdf);
    }
    control(1, 1);
}

} // namespace qsw
