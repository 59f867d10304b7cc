// Slot order view: follows the selected weight (GPTQ-3 straddles, AWQ's interleave in the
// demo checkpoint), browses any spec (Q4_0's split halves), fits the tab, zooms, exports as PNG/SVG/PDF,
// and paints something in light and dark.
#include "figures/slotorderfigure.h"
#include "mainwindow.h"
#include "viewcontext.h"
#include "views/analysisview.h"
#include "views/slotorderview.h"
#include "figures/wordfigure.h"

#include "formats/wordmap.h"
#include "testsupport.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

using namespace qsw;

namespace {

int colourCount(const QImage& image)
{
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

const SlotDiagram::Element* element(const SlotDiagram& d, uint64_t row, uint64_t col)
{
    for (const auto& e : d.elements)
        if (e.row == row && e.col == col)
            return &e;
    return nullptr;
}

} // namespace

class TestSlotOrderView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        qstest::sandboxSettings(m_dir.path());
        m_window = std::make_unique<MainWindow>(MainWindow::Options{false});
        m_window->resize(1600, 1000);
        m_window->show();
        m_window->openDemo();
        QTRY_VERIFY_WITH_TIMEOUT(!m_window->isLoading() && m_window->snapshot(), 60000);
        QVERIFY(m_window->showView(QStringLiteral("slots")));
        m_view = m_window->findChild<SlotOrderView*>(QStringLiteral("slots"));
        QVERIFY(m_view);
    }

    void followsGptq3Weight()
    {
        QVERIFY(m_window->selectWeight(QStringLiteral("model.layers.1.mlp.down_proj")));
        QVERIFY(m_view->spec());
        QCOMPARE(QString::fromStdString(m_view->spec()->id), QStringLiteral("gptq-v1"));
        QCOMPARE(m_view->params().bits, 3);
        const SlotDiagram d = SlotDiagram::build(*m_view->spec(), m_view->params());
        // safetensors-quant.md B.1: 32 three-bit codes fill 3 words of a column; k = 10 keeps
        // bits 30..31 of the first word and bit 0 of the next; k = 21 bit 31, then bits 0..1.
        QCOMPARE(d.words.size(), size_t(3));
        QCOMPARE(d.elements.size(), size_t(32));
        const auto* k10 = element(d, 0, 10);
        QVERIFY(k10);
        QCOMPARE(k10->pieces.size(), size_t(2));
        QCOMPARE(int(k10->pieces[0].bit), 30);
        QCOMPARE(int(k10->pieces[0].width), 2);
        QCOMPARE(int(k10->pieces[1].bit), 0);
        QCOMPARE(int(k10->pieces[1].width), 1);
        QCOMPARE(k10->pieces[1].word, d.words[1]);
        const auto* k21 = element(d, 0, 21);
        QVERIFY(k21 && k21->pieces.size() == 2 && k21->pieces[0].width == 1 && k21->pieces[1].width == 2);
    }

    void followsAwqWeight()
    {
        QVERIFY(m_window->selectWeight(QStringLiteral("model.layers.2.mlp.down_proj")));
        QCOMPARE(QString::fromStdString(m_view->spec()->id), QStringLiteral("awq-gemm"));
        const SlotDiagram d = SlotDiagram::build(*m_view->spec(), m_view->params());
        // B.2.1: column 8c + j sits in slot AWQ_REVERSE_ORDER[j] = 0, 4, 1, 5, 2, 6, 3, 7.
        QCOMPARE(d.words.size(), size_t(1));
        const int want[8] = {0, 4, 1, 5, 2, 6, 3, 7};
        QCOMPARE(d.elements.size(), size_t(8));
        for (int j = 0; j < 8; ++j) {
            QCOMPARE(d.elements[size_t(j)].row, uint64_t(j));
            QCOMPARE(d.elements[size_t(j)].slot, want[j]);
            QCOMPARE(int(d.elements[size_t(j)].pieces.at(0).bit), 4 * want[j]);
        }
    }

    // The diagrams open fitted to the tab (they opened at 65%, most of the tab empty), and
    // follow its size until the zoom slider takes over.
    void fitsTheViewByDefault_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addRow("gptq-v1") << "gptq-v1";
        QTest::addRow("awq-gemm") << "awq-gemm";
        QTest::addRow("gguf-q6_k") << "gguf-q6_k";
        QTest::addRow("bnb-nf4") << "bnb-nf4";
    }
    void fitsTheViewByDefault()
    {
        QFETCH(QString, format);
        QVERIFY(m_view->fitsToView());
        QVERIFY(m_view->showFormat(format));
        auto* scroll = m_view->findChild<QScrollArea*>();
        // The note above may rewrap and resize the viewport: the fit follows.
        QTRY_VERIFY(scroll->widget()->width() >= scroll->viewport()->width() * 0.95
                    || scroll->widget()->height() >= scroll->viewport()->height() * 0.95);
        const QSize viewport = scroll->viewport()->size(), canvas = scroll->widget()->size();
        const double covered =
            double(canvas.width()) * canvas.height() / (double(viewport.width()) * viewport.height());
        // Wide diagrams (NF4's 64-bit words) cannot fill a 4:3 tab; they fill its width.
        QVERIFY2(covered >= 0.5,
                 qPrintable(QStringLiteral("%1x%2 in %3x%4")
                                .arg(canvas.width())
                                .arg(canvas.height())
                                .arg(viewport.width())
                                .arg(viewport.height())));
        QVERIFY2(canvas.width() <= viewport.width() && canvas.height() <= viewport.height(),
                 qPrintable(QStringLiteral("%1x%2 in %3x%4")
                                .arg(canvas.width())
                                .arg(canvas.height())
                                .arg(viewport.width())
                                .arg(viewport.height())));
        QVERIFY(scroll->horizontalScrollBar()->maximum() == 0 && scroll->verticalScrollBar()->maximum() == 0);
    }

    void refitsWhenResized()
    {
        QVERIFY(m_view->fitsToView());
        auto* scroll = m_view->findChild<QScrollArea*>();
        const QSize before = scroll->widget()->size();
        m_window->resize(1200, 800);
        QTRY_VERIFY(scroll->widget()->width() < before.width() || scroll->widget()->height() < before.height());
        QVERIFY(scroll->widget()->width() <= scroll->viewport()->width());
        QVERIFY(scroll->widget()->height() <= scroll->viewport()->height());
        m_window->resize(1600, 1000);
        QTRY_VERIFY(scroll->widget()->width() >= scroll->viewport()->width() * 0.95
                    || scroll->widget()->height() >= scroll->viewport()->height() * 0.95);
    }

    void browsesQ40SplitHalves()
    {
        QVERIFY(m_view->showFormat(QStringLiteral("gguf-q4_0")));
        QCOMPARE(QString::fromStdString(m_view->spec()->id), QStringLiteral("gguf-q4_0"));
        const SlotDiagram d = SlotDiagram::build(*m_view->spec(), m_view->params());
        // gguf.md: qs[j] holds element j in its low nibble and element j + 16 in its high one.
        const auto* e0 = element(d, 0, 0);
        const auto* e16 = element(d, 0, 16);
        QVERIFY(e0 && e16);
        const uint64_t bit0 = e0->pieces[0].word * uint64_t(d.wordBits) + e0->pieces[0].bit;
        const uint64_t bit16 = e16->pieces[0].word * uint64_t(d.wordBits) + e16->pieces[0].bit;
        QCOMPARE(bit0, uint64_t(2 * 8)); // after the f16 d
        QCOMPARE(bit16, bit0 + 4);
        QVERIFY(!m_view->showFormat(QStringLiteral("no-such-format")));
    }

    // The whole Q4_0 block: d and all 32 codes (it drew elements 0-11 and 16-27); a Q6_K block
    // is too large to draw whole, and the figure says what it leaves out.
    void drawsWholeSmallBlocks()
    {
        QVERIFY(m_view->showFormat(QStringLiteral("gguf-q4_0")));
        const SlotDiagram d = SlotDiagram::build(*m_view->spec(), m_view->params());
        QCOMPARE(d.elements.size(), size_t(32));
        for (uint64_t c = 0; c < 32; ++c)
            QVERIFY2(element(d, 0, c), qPrintable(QString::number(c)));
        QCOMPARE(d.words.size(), size_t(18)); // 18 one-byte words: d, then qs[0..15]
        QVERIFY(d.elided.isEmpty());
        QCOMPARE(d.fieldAt(*m_view->spec(), 0, 3), 0); // the f16 d
        QVERIFY(m_view->showFormat(QStringLiteral("gguf-q6_k")));
        const SlotDiagram big = SlotDiagram::build(*m_view->spec(), m_view->params());
        QVERIFY(big.elided.contains(QLatin1String("256")));
        QVERIFY(big.elided.contains(QLatin1String("210")));
    }

    // One convention with the Bit map: bit 31 on the left of a word, and an element's colour is
    // Theme::elementColor of its tile index (the Bit map's), in both figures.
    void msbLeftAndSharedColours()
    {
        QVERIFY(m_window->selectWeight(QStringLiteral("model.layers.1.mlp.down_proj"))); // GPTQ 3-bit
        const SlotOrderFigure fig(*m_view->spec(), m_view->params());
        const SlotDiagram& d = fig.diagram();
        const qs::WordMap map(*m_view->spec(), m_view->params());
        for (const SlotDiagram::Element& e : d.elements)
            QCOMPARE(uint64_t(e.colour), map.tileIndex(e.row, e.col));
        const uint64_t word = d.words.front();
        QVERIFY(fig.bitRect(word, 31).left() < fig.bitRect(word, 0).left());
        const Theme theme = Theme::fromPalette(lightPalette());
        QImage image(fig.naturalSize().toSize(), QImage::Format_ARGB32);
        QPainter painter(&image);
        fig.paint(painter, QRectF(QPointF(0, 0), fig.naturalSize()), theme);
        painter.end();
        for (int bit : {31, 0}) {
            const int owner = d.elementAt(word, bit);
            QVERIFY(owner >= 0);
            const QRectF cell = fig.bitRect(word, bit);
            // Off the centre, where a piece's label may stand.
            const QColor seen = image.pixelColor(QPoint(int(cell.center().x()), int(cell.top() + 3)));
            QCOMPARE(seen.rgb(), theme.elementColor(d.elements[size_t(owner)].colour).rgb());
        }
    }

    // Everything the figure draws stands inside its natural size: the legend wraps within the
    // width (its first line was cut at "lef" in German, issue 33).
    void legendStaysInsideTheFigure()
    {
        QVERIFY(m_window->selectWeight(QStringLiteral("model.layers.0.mlp.down_proj")));
        const qstest::GermanScope german;
        QVERIFY(german.installed());
        const SlotOrderFigure fig(*m_view->spec(), m_view->params());
        const QSize natural = fig.naturalSize().toSize();
        QImage image(natural + QSize(800, 200), QImage::Format_ARGB32);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        fig.paint(painter, QRectF(QPointF(0, 0), fig.naturalSize()), Theme::fromPalette(lightPalette()));
        painter.end();
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                if ((x > natural.width() || y > natural.height()) && qAlpha(image.pixel(x, y)) != 0)
                    QFAIL(qPrintable(QStringLiteral("drawn at (%1, %2), outside the figure's %3 x %4")
                                         .arg(x)
                                         .arg(y)
                                         .arg(natural.width())
                                         .arg(natural.height())));
    }

    void zoomResizesCanvas()
    {
        QVERIFY(m_view->showFormat(QStringLiteral("awq-gemm")));
        auto* canvas = m_view->findChild<QScrollArea*>()->widget();
        m_view->setZoom(1.0);
        QVERIFY(!m_view->fitsToView()); // the slider took over
        const QSize one = canvas->size();
        m_view->setZoom(2.0);
        QCOMPARE(canvas->width(), 2 * one.width());
        m_view->setZoom(1.0);
    }

    void exportsAndPaints_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::addColumn<QByteArray>("magic");
        QTest::addRow("png") << "png" << QByteArray("\x89PNG");
        QTest::addRow("svg") << "svg" << QByteArray("<?xml");
        QTest::addRow("pdf") << "pdf" << QByteArray("%PDF");
    }
    void exportsAndPaints()
    {
        QFETCH(QString, suffix);
        QFETCH(QByteArray, magic);
        QVERIFY(m_view->showFormat(QStringLiteral("gguf-q6_k")));
        const QString path = m_dir.filePath(QStringLiteral("slots.") + suffix);
        QString error;
        QVERIFY2(exportView(m_view, path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(8).startsWith(magic));
        if (suffix == QLatin1String("png"))
            QVERIFY(colourCount(QImage(path)) > 8);
    }

    void lightAndDarkNotBlank()
    {
        for (ThemeMode mode : {ThemeMode::Light, ThemeMode::Dark}) {
            m_window->setThemeMode(mode);
            QVERIFY(m_window->selectWeight(QStringLiteral("model.layers.1.mlp.down_proj")));
            const QImage shot = m_view->grab().toImage();
            QVERIFY(colourCount(shot) > 8);
        }
        m_window->setThemeMode(ThemeMode::Light);
    }

    void plainWeightExplains()
    {
        QVERIFY(m_window->selectWeight(QStringLiteral("model.norm.weight")));
        auto* note = m_view->findChild<QLabel*>(QStringLiteral("note"));
        QVERIFY(note && note->text().contains(QLatin1String("f16")));
        QVERIFY(m_view->spec()); // still shows the last format
    }

    void cleanupTestCase() { m_window.reset(); }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    SlotOrderView* m_view = nullptr;
};

QTEST_MAIN(TestSlotOrderView)
#include "tst_slotorderview.moc"
