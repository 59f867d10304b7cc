// Report rendering: every registered spec's two figures paint something (not blank) in the
// report theme; a cancelled or failed write leaves no file; HTML is well-formed XML; the
// figures say what they draw (most significant bit left; max |scale| per heatmap cell, as the
// Scales view reduces it).
#include "analysis/groupscales.h"
#include "analysis/quantize_checkpoint.h"
#include "container/safetensors.h"
#include "formats/codes.h"
#include "formats/dequant.h"
#include "formats/layoutspec.h"
#include "formats/opencheckpoint.h"
#include "report/report.h"
#include "report/pdfreport.h"
#include "report/reportwriter.h"

#include <QBuffer>
#include <QDir>
#include <QPdfWriter>
#include <QSet>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <atomic>

using namespace qsw;
using namespace qs::report;

namespace {

int colourCount(const QImage& image)
{
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

} // namespace

class TestReportWriter : public QObject {
    Q_OBJECT
private slots:
    void everySpecFigureNotBlank()
    {
        const Theme theme = reportTheme();
        int specs = 0;
        for (const qs::LayoutSpec& s : qs::layoutRegistry().all()) {
            if (!s.locate || s.packAxis == qs::PackAxis::None)
                continue;
            ++specs;
            for (FigureKind kind : {FigureKind::SlotOrder, FigureKind::Block}) {
                Figure f = figure(kind, s.id);
                f.formatId = s.id;
                f.params = defaultParams(s);
                const QImage img = renderFigure(f, theme, 1.0);
                QVERIFY2(!img.isNull() && colourCount(img) > 6,
                         (s.id + (kind == FigureKind::SlotOrder ? " slots" : " block")).c_str());
            }
        }
        QVERIFY(specs >= 20);
    }

    // The slot-order figure draws the most significant bit on the left, and its caption says so
    // (it said "bit 0 on the left", issue 33). A checkpoint report's scale heatmap reduces each
    // cell to max |scale| as the Scales view does (it took the mean, which hid outlier rows).
    void figuresSayWhatTheyDraw()
    {
        const qs::LayoutSpec* spec = qs::findLayoutSpec("gptq-v1");
        QVERIFY(spec);
        const Document spec_doc = formatReport(*spec, defaultParams(*spec));
        bool sawSlots = false;
        for (const Figure& f : spec_doc.figures)
            if (f.kind == FigureKind::SlotOrder) {
                sawSlots = true;
                QVERIFY2(f.caption.find("most significant bit on the left") != std::string::npos
                             && f.caption.find("bit 0 on the left") == std::string::npos,
                         f.caption.c_str());
            }
        QVERIFY(sawSlots);

        // 1024 rows (two heatmap rows a cell) of 64 columns, every third row ten times louder.
        QTemporaryDir dir;
        std::vector<float> values(1024 * 64);
        uint32_t state = 7;
        for (size_t i = 0; i < values.size(); ++i) {
            state = state * 1664525u + 1013904223u;
            values[i] = float(int(state >> 8) - (1 << 23)) / float(1 << 23) * ((i / 64) % 3 == 0 ? 0.5f : 0.05f);
        }
        const std::string source = dir.filePath(QStringLiteral("f32.safetensors")).toStdString();
        qs::writeSafetensors(source,
                             {{"model.layers.0.mlp.down_proj.weight",
                               qs::DType::F32,
                               {1024, 64},
                               {reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4}}});
        qs::QuantizeCheckpointOptions o;
        o.format = "gptq";
        o.groupSize = 32;
        const std::string out = dir.filePath(QStringLiteral("gptq")).toStdString();
        qs::quantizeCheckpoint(*qs::openCheckpoint(source), out, o);
        const auto ckpt = qs::openCheckpoint(out);
        const qs::LogicalWeight& w = ckpt->weights.at(0);
        const qs::WeightCodes codes = qs::extractCodes(*ckpt, w);
        const qs::DecimatedGrid want =
            qs::decimateGrid(codes.scales, codes.groups, codes.rows, 256, 512, qs::CellReduce::MaxAbs);
        QVERIFY(want.colStep > 1);
        const Document doc = checkpointReport(*ckpt, {});
        const Figure* heatmap = nullptr;
        for (const Figure& f : doc.figures)
            if (f.kind == FigureKind::ScaleHeatmap)
                heatmap = &f;
        QVERIFY(heatmap);
        QCOMPARE(heatmap->rows, want.rows);
        QCOMPARE(heatmap->cols, want.cols);
        QCOMPARE(heatmap->colStep, want.colStep);
        QCOMPARE(heatmap->values, want.cells);
    }

    // The PDF's pages: a figure taller than a page and one wider are each whole on one page at
    // their aspect ratio, with the caption under them; tables and text run the page's width; a
    // table longer than a page runs onto the next; the page number sits below every piece of its
    // page. (QTextDocument::print split and stretched figures, drew the number over them and set
    // tables at half the page, issue 33.)
    void pdfPagesKeepFiguresWhole()
    {
        Document doc;
        doc.title = "Checkpoint report";
        doc.subtitle = "/a/path/to/model";
        const std::vector<QImage> images{QImage(500, 4000, QImage::Format_RGB32),
                                         QImage(5000, 600, QImage::Format_RGB32)};
        for (size_t i = 0; i < images.size(); ++i) {
            doc.figures.push_back(figure(FigureKind::ScaleHeatmap, "a figure"));
            doc.figures.back().stem = "fig" + std::to_string(i);
        }
        Section s = section(1, "Weights");
        s.blocks.push_back(paragraph(std::string(600, 'x') + " words"));
        s.blocks.push_back(figureBlock(0));
        Block table = tableBlock({"weight", "format", "shape", "bits"});
        for (int i = 0; i < 150; ++i)
            table.table.rows.push_back(
                {"model.layers." + std::to_string(i) + ".mlp.down_proj", "gptq-v1", "[4096, 11008]", "4"});
        s.blocks.push_back(table);
        s.blocks.push_back(figureBlock(1));
        doc.sections.push_back(s);

        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter writer(&buffer);
        setReportPage(writer);
        const PdfLayout layout = pdfReportLayout(doc, images, 2.5, writer);
        QVERIFY(layout.pages >= 4);
        QCOMPARE(layout.body.width(), double(writer.width()));
        int figures = 0, tablePages = 0, numbers = 0;
        for (const PdfPiece& p : layout.pieces) {
            switch (p.kind) {
            case PdfPiece::Kind::Figure: {
                ++figures;
                QVERIFY(layout.body.adjusted(-0.5, -0.5, 0.5, 0.5).contains(p.rect));
                const QImage& image = images.at(p.figure);
                const double aspect = double(image.width()) / image.height();
                QVERIFY2(std::abs(p.rect.width() / p.rect.height() - aspect) < 0.01 * aspect,
                         qPrintable(QStringLiteral("%1 x %2").arg(p.rect.width()).arg(p.rect.height())));
                break;
            }
            case PdfPiece::Kind::Table:
                ++tablePages;
                QCOMPARE(p.rect.width(), layout.body.width());
                QVERIFY(layout.body.adjusted(-0.5, -0.5, 0.5, 0.5).contains(p.rect));
                break;
            case PdfPiece::Kind::PageNumber:
                ++numbers;
                QVERIFY(p.rect.top() >= layout.body.bottom());
                QVERIFY(p.rect.bottom() <= writer.height());
                break;
            default: QVERIFY(layout.body.adjusted(-0.5, -0.5, 0.5, 0.5).contains(p.rect)); break;
            }
        }
        QCOMPARE(figures, 2);
        QVERIFY(tablePages >= 2);
        QCOMPARE(numbers, layout.pages);
        // No two pieces of a page overlap, and a caption follows its figure on the same page.
        for (size_t i = 0; i < layout.pieces.size(); ++i)
            for (size_t j = i + 1; j < layout.pieces.size(); ++j) {
                const PdfPiece &a = layout.pieces[i], &b = layout.pieces[j];
                if (a.page == b.page)
                    QVERIFY(!a.rect.intersected(b.rect).isValid() || a.rect.intersected(b.rect).height() < 1);
            }
        for (size_t i = 0; i + 1 < layout.pieces.size(); ++i)
            if (layout.pieces[i].kind == PdfPiece::Kind::Figure) {
                QCOMPARE(layout.pieces[i + 1].kind, PdfPiece::Kind::Caption);
                QCOMPARE(layout.pieces[i + 1].page, layout.pieces[i].page);
            }
    }

    // A heading never stands alone at the foot of a page: a figure fills most of the first page,
    // and the next section's heading moves to the second page with its table.
    void pdfHeadingStaysWithItsTable()
    {
        Document doc;
        doc.title = "Report";
        doc.figures.push_back(figure(FigureKind::ScaleHeatmap, "a tall figure"));
        const std::vector<QImage> images{QImage(1600, 2000, QImage::Format_RGB32)};
        Section first = section(1, "Scales");
        first.blocks.push_back(figureBlock(0));
        doc.sections.push_back(first);
        Section second = section(1, "Stored tensors");
        Block table = tableBlock({"tensor", "dtype", "shape"});
        for (int i = 0; i < 10; ++i)
            table.table.rows.push_back({"qweight", "I32", "[32, 128]"});
        second.blocks.push_back(table);
        doc.sections.push_back(second);
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter writer(&buffer);
        setReportPage(writer);
        const PdfLayout layout = pdfReportLayout(doc, images, 2.5, writer);
        QCOMPARE(layout.pages, 2);
        const auto placed = std::find_if(layout.pieces.begin(), layout.pieces.end(),
                                         [](const PdfPiece& p) { return p.kind == PdfPiece::Kind::Table; });
        QVERIFY(placed != layout.pieces.end() && placed != layout.pieces.begin());
        QCOMPARE(placed->page, 1);
        QCOMPARE((placed - 1)->kind, PdfPiece::Kind::Text); // the heading, right above it
        QCOMPARE((placed - 1)->page, 1);
    }

    void htmlIsXml()
    {
        const Document doc = formatReport(*qs::findLayoutSpec("gptq-v2"), {128, 64, 4, 32});
        const QString html = reportHtml(
            doc, [](size_t i) { return QStringLiteral("fig%1.png").arg(i); }, 600);
        QXmlStreamReader xml(html);
        int tables = 0;
        while (!xml.atEnd()) {
            xml.readNext();
            tables += xml.isStartElement() && xml.name() == QLatin1String("table");
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(tables >= 5);
    }

    void cancelledWriteLeavesNoFile_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("html") << "r.html";
        QTest::addRow("md") << "r.md";
        QTest::addRow("pdf") << "r.pdf";
    }
    void cancelledWriteLeavesNoFile()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const Document doc = formatReport(*qs::findLayoutSpec("awq-gemm"), {256, 64, 4, 64});
        std::atomic<bool> cancel{false};
        qs::Progress c;
        c.cancel = &cancel;
        int calls = 0;
        c.report = [&](uint64_t, uint64_t, const std::string&) {
            if (++calls == 2)
                cancel = true; // after the first figure
        };
        QVERIFY_THROWS_EXCEPTION(qs::Cancelled, writeReport(doc, dir.filePath(name), c));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
        // The same document writes fine without the cancel.
        writeReport(doc, dir.filePath(name));
        QVERIFY(QFileInfo(dir.filePath(name)).size() > 1000);
    }
};

QTEST_MAIN(TestReportWriter)
#include "tst_reportwriter.moc"
