// Report rendering: every registered spec's two figures paint something (not blank) in the
// report theme; a cancelled or failed write leaves no file; HTML is well-formed XML.
#include "formats/layoutspec.h"
#include "report/report.h"
#include "report/reportwriter.h"

#include <QDir>
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
