// The bit-map view on the offscreen platform: a pixel maps to the element locate() puts
// there, for GPTQ-4, GPTQ-3 (both pieces of a straddling code), AWQ, Q4_0 and Q6_K, in stored
// and logical order; hovering reaches the context and selection from another view scrolls
// to the element; a 10-million-word tensor paints only what is visible; screenshots are
// not blank; the default cell is wide enough to number every bit.
#include "views/bitmapcanvas.h"
#include "views/bitmapview.h"
#include "snapshot.h"
#include "testsupport.h"
#include "viewcontext.h"
#include "numbers.h"

#include "container/checkpoint.h"
#include "container/gguf.h"
#include "formats/layoutspec.h"
#include "formats/wordmap.h"
#include "formats/ggml/ggml.h"
#include "formats/opencheckpoint.h"

#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSpinBox>
#include <QWheelEvent>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

using namespace qsw;

namespace {

struct Fixture {
    std::shared_ptr<const qs::Checkpoint> ckpt;
    ViewContext context;
    BitMapView* view = nullptr;
    int weight = -1;

    Fixture(const std::string& path, const QString& weightName)
    {
        ckpt = qs::openCheckpoint(path);
        const auto snap = CheckpointSnapshot::fromCheckpoint(*ckpt);
        context.setCheckpoint(ckpt, snap);
        weight = weightName.isEmpty() ? 0 : snap->findWeight(weightName);
        view = new BitMapView(&context);
        view->resize(1400, 900);
        view->show();
        context.setWeight(weight);
    }
    ~Fixture() { delete view; }
    const qs::LogicalWeight& logical() const { return ckpt->weights.at(size_t(weight)); }
};

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return colours.size();
}

} // namespace

class TestBitMapView : public QObject {
    Q_OBJECT
private slots:
    void hitTesting_data();
    void hitTesting();
    void linkedSelectionScrolls();
    void toggleAndScreenshots();
    void formatWithoutSpec();
    void tenMillionWords();
    void defaultCellNumbersEveryBit();
    void cellsShowTheirBits();
    void panelShowsStoredWord();
    void decodedBlockFields_data();
    void decodedBlockFields();
    void fieldHoverDecodesTheBlock();
    void arrowKeysMoveSelection();
    void ctrlWheelUpdatesCellBox();
    void bitLabelsNeverCollide_data();
    void bitLabelsNeverCollide();
    void zoomKeepsSelectionInView();
    void goToSaysWhatIsWrong();
    void gutterShowsFileOffsets_data();
    void gutterShowsFileOffsets();
    void exportIsTheWholeFigure();
};

// Cells large enough carry their bit's 0 or 1: the inside of a cell is not one flat colour.
void TestBitMapView::cellsShowTheirBits()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym")).toStdString(), QString());
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    auto inkInside = [&](int bit) {
        const QImage shot = canvas->viewport()->grab().toImage();
        const QPoint c = *canvas->bitCenter(0, bit);
        const int h = canvas->cellSize() / 2 - 2;
        QSet<QRgb> colours;
        for (int y = c.y() - h; y <= c.y() + h; ++y)
            for (int x = c.x() - h; x <= c.x() + h; ++x)
                colours.insert(shot.pixel(x, y));
        return colours.size();
    };
    canvas->setCellSize(std::max(canvas->bitDigitMinCell(), 16));
    QVERIFY(inkInside(0) > 1 && inkInside(31) > 1);
    canvas->setCellSize(canvas->bitDigitMinCell() - 1); // too small for a digit: flat cells
    QCOMPARE(inkInside(5), 1);
}

// The side panel shows the stored word of the element in hex and binary.
void TestBitMapView::panelShowsStoredWord()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym")).toStdString(), QString());
    const qs::LayoutParams p = qs::layoutParams(f.logical());
    const qs::ElementLocation loc = qs::findLayoutSpec(f.logical().format)->locate(p, 3, 9);
    f.context.setSelected({f.weight, 3, 9});
    const auto value = f.view->canvas()->wordValue(loc.pieces[0].word);
    QVERIFY(value);
    const QString text = f.view->detailsText();
    QVERIFY2(text.contains(QStringLiteral("0x%1").arg(*value, 8, 16, QLatin1Char('0'))), qPrintable(text));
    QString binary = QStringLiteral("%1").arg(*value, 32, 2, QLatin1Char('0'));
    QString shown = text;
    shown.remove(QChar(0x2009)).remove(QChar(0x2002)).remove(QLatin1Char(' '));
    QVERIFY(shown.contains(binary));
    // The code's own bits sit in that word where locate() says.
    const uint64_t code = (*value >> loc.pieces[0].bit) & ((1u << loc.pieces[0].width) - 1);
    QVERIFY(text.contains(QStringLiteral("%1  (0b").arg(code)));
}

void TestBitMapView::decodedBlockFields_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("weight");
    QTest::addColumn<QStringList>("labels");
    const QString gguf = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
    QTest::addRow("q4_k") << gguf << "real.q4_k"
                          << QStringList{"Block scale d", "Block min dmin", "Sub-block 1 scale", "Sub-block 1 min"};
    QTest::addRow("q6_k") << gguf << "real.q6_k" << QStringList{"Block scale d", "Sub-block 2 scale"};
    QTest::addRow("iq2_xxs") << gguf << "real.iq2_xxs"
                             << QStringList{"Block scale d", "Grid index (byte 2)", "Sign index (bit 2)"};
    QTest::addRow("iq3_s") << gguf << "real.iq3_s" << QStringList{"Grid index", "Sign bit"};
    QTest::addRow("bnb nested") << qstest::fixture(QStringLiteral("safetensors/bnb-nf4-doublequant/model.safetensors"))
                                << QString()
                                << QStringList{"Absmax", "Absmax code", "Absmax scale 0 (second level)",
                                               "Absmax offset"};
}

// An element's block fields are shown decoded, with the values core's blockValues returns.
void TestBitMapView::decodedBlockFields()
{
    QFETCH(QString, path);
    QFETCH(QString, weight);
    QFETCH(QStringList, labels);
    Fixture f(path.toStdString(), weight);
    QVERIFY(f.weight >= 0);
    const uint64_t row = 1, col = 42;
    f.context.setSelected({f.weight, int64_t(row), int64_t(col)});
    const QString text = f.view->detailsText();
    for (const QString& label : labels)
        QVERIFY2(text.contains(label), qPrintable(label + QStringLiteral(" in ") + text));
    const qs::BlockValues b = qs::blockValues(*f.ckpt, f.logical(), row, col, false);
    QVERIFY(b.hasBlock);
    QVERIFY(text.contains(QStringLiteral("Block %1,").arg(b.block)));
    for (const qs::BlockValue& v : b.values)
        if (v.kind == qs::BlockValueKind::Scale || v.kind == qs::BlockValueKind::Absmax
            || v.kind == qs::BlockValueKind::AbsmaxCode || v.kind == qs::BlockValueKind::AbsmaxScale
            || v.kind == qs::BlockValueKind::AbsmaxOffset)
            QVERIFY2(text.contains(localNumber(v.value, 'g', 7)), qPrintable(text));
        else if (v.hasEffective)
            QVERIFY2(text.contains(localNumber(v.effective, 'g', 7)), qPrintable(text));
}

// Hovering a bit of Q4_K's packed scales decodes every sub-block's scale and min.
void TestBitMapView::fieldHoverDecodesTheBlock()
{
    Fixture f(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString(), QStringLiteral("real.q4_k"));
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    const uint64_t word = 4 * 8 / 8; // byte 4 of block 0: the first byte of `scales`, one-byte words
    canvas->scrollToWord(word);
    const auto point = canvas->bitCenter(word, 0);
    QVERIFY(point);
    const auto hit = canvas->hitTest(*point);
    QVERIFY(hit && !hit->isElement);
    QCOMPARE(hit->field, QStringLiteral("scales"));
    QVERIFY(hit->blockElement);
    QTest::mouseMove(canvas->viewport(), *point);
    QTRY_VERIFY(f.view->detailsText().contains(QLatin1String("Sub-block 7 scale")));
    const QString text = f.view->detailsText();
    QVERIFY(text.contains(QLatin1String("Sub-block 0 min")));
    QVERIFY(!text.contains(QLatin1String("Block scale d"))); // only the hovered field
}

void TestBitMapView::arrowKeysMoveSelection()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w3-g32-asym")).toStdString(), QString());
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    const qs::LayoutParams p = qs::layoutParams(f.logical());
    f.context.setSelected({f.weight, 2, 3});
    QTest::keyClick(canvas, Qt::Key_Right);
    QCOMPARE(f.context.selected(), (ElementRef{f.weight, 2, 4}));
    QTest::keyClick(canvas, Qt::Key_Down);
    QCOMPARE(f.context.selected(), (ElementRef{f.weight, 3, 4}));
    QTest::keyClick(canvas, Qt::Key_Up);
    QTest::keyClick(canvas, Qt::Key_Left);
    QCOMPARE(f.context.selected(), (ElementRef{f.weight, 2, 3}));
    f.context.setSelected({f.weight, int64_t(p.N - 1), 0});
    QTest::keyClick(canvas, Qt::Key_Left); // stays inside the matrix
    QTest::keyClick(canvas, Qt::Key_Down);
    QCOMPARE(f.context.selected(), (ElementRef{f.weight, int64_t(p.N - 1), 0}));
    // The selection followed to a word off screen is scrolled to.
    f.context.setSelected({f.weight, int64_t(p.N - 2), int64_t(p.K - 1)});
    QTest::keyClick(canvas, Qt::Key_Down);
    const qs::ElementLocation loc = qs::findLayoutSpec(f.logical().format)->locate(p, p.N - 1, p.K - 1);
    QVERIFY(canvas->bitCenter(loc.pieces[0].word, loc.pieces[0].bit));
}

void TestBitMapView::ctrlWheelUpdatesCellBox()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym")).toStdString(), QString());
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    auto* box = f.view->findChild<QSpinBox*>();
    QVERIFY(box);
    const int before = canvas->cellSize();
    QCOMPARE(box->value(), before);
    const QPointF at(canvas->viewport()->width() / 2.0, canvas->viewport()->height() / 2.0);
    QWheelEvent wheel(at, canvas->viewport()->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas->viewport(), &wheel);
    QVERIFY(canvas->cellSize() < before);
    QCOMPARE(box->value(), canvas->cellSize());
}

void TestBitMapView::bitLabelsNeverCollide_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("weight");
    QTest::addRow("32-bit words") << qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym")) << QString();
    QTest::addRow("one-byte words") << qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"))
                                    << QStringLiteral("real.q4_0");
}

// At every cell size the header's numbers stay apart, inside their word and inside the view.
void TestBitMapView::bitLabelsNeverCollide()
{
    QFETCH(QString, path);
    QFETCH(QString, weight);
    Fixture f(path.toStdString(), weight);
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    const int W = int(qs::findLayoutSpec(f.logical().format)->wordBits);
    for (int cell = 3; cell <= 40; ++cell) {
        canvas->setCellSize(cell);
        const std::vector<BitLabel> labels = canvas->bitLabels();
        QVERIFY2(!labels.empty(), qPrintable(QString::number(cell)));
        bool msb = false;
        for (size_t i = 0; i < labels.size(); ++i) {
            const QRect r = labels[i].rect;
            QVERIFY(r.left() >= 0 && r.right() < canvas->viewport()->width());
            QVERIFY(r.width() >= canvas->fontMetrics().horizontalAdvance(QString::number(labels[i].bit)));
            if (i > 0)
                QVERIFY2(
                    labels[i - 1].rect.right() < r.left(),
                    qPrintable(
                        QStringLiteral("cell %1: %2 touches %3").arg(cell).arg(labels[i - 1].bit).arg(labels[i].bit)));
            msb = msb || labels[i].bit == W - 1;
        }
        QVERIFY(msb);
    }
}

void TestBitMapView::zoomKeepsSelectionInView()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w3-g32-asym")).toStdString(), QString());
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    const qs::LayoutParams p = qs::layoutParams(f.logical());
    const uint64_t row = p.N / 2, col = p.K - 3;
    const qs::ElementLocation loc = qs::findLayoutSpec(f.logical().format)->locate(p, row, col);
    f.context.setSelected({f.weight, int64_t(row), int64_t(col)});
    for (int cell : {40, 3, 24}) {
        canvas->setCellSize(cell);
        QVERIFY2(canvas->bitCenter(loc.pieces[0].word, loc.pieces[0].bit), qPrintable(QString::number(cell)));
    }
    f.view->setStoredOrder(false);
    for (int cell : {3, 40, 12}) {
        canvas->setCellSize(cell);
        QVERIFY2(canvas->cellCenter(row, col), qPrintable(QString::number(cell)));
    }
}

void TestBitMapView::goToSaysWhatIsWrong()
{
    Fixture f(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString(), QStringLiteral("real.q4_0"));
    const qs::LayoutParams p = qs::layoutParams(f.logical());
    auto* box = f.view->findChild<QLineEdit*>(QStringLiteral("goTo"));
    auto* message = f.view->findChild<QLabel*>(QStringLiteral("goToMessage"));
    QVERIFY(box && message);
    QVERIFY(!f.view->goTo(QStringLiteral("nonsense")));
    QVERIFY(f.view->goToProblem().contains(QLatin1String("nonsense")));
    QCOMPARE(message->text(), f.view->goToProblem());
    QVERIFY(!f.view->goTo(QStringLiteral("%1, 0").arg(p.N)));
    QVERIFY(f.view->goToProblem().contains(QStringLiteral("Row %1").arg(p.N)));
    QVERIFY(f.view->goToProblem().contains(QString::number(p.N - 1)));
    QVERIFY(!f.view->goTo(QStringLiteral("0, %1").arg(p.K)));
    QVERIFY(f.view->goToProblem().contains(QStringLiteral("Column %1").arg(p.K)));
    const uint64_t words = f.view->canvas()->wordCount();
    QVERIFY(!f.view->goTo(QString::number(words)));
    QVERIFY(f.view->goToProblem().contains(QString::number(words - 1)));
    QVERIFY(f.view->goTo(QStringLiteral("1, 2")));
    QVERIFY(f.view->goToProblem().isEmpty());
    // A new weight clears the box and its complaint.
    box->setText(QStringLiteral("bad text"));
    QVERIFY(!f.view->goTo(box->text()));
    f.context.setWeight(CheckpointSnapshot::fromCheckpoint(*f.ckpt)->findWeight(QStringLiteral("real.q4_k")));
    QVERIFY(box->text().isEmpty());
    QVERIFY(message->text().isEmpty());
}

// The gutter names each row's offset in the file, as a hex editor does, not in the tensor
// (issue 33): the code tensor's offset plus the row's bytes.
void TestBitMapView::gutterShowsFileOffsets_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("weight");
    QTest::addColumn<QString>("tensor");
    QTest::addRow("gguf q4_k") << "gguf/ggml-types.gguf"
                               << "real.q4_k"
                               << "real.q4_k";
    QTest::addRow("gptq") << "safetensors/gptq-w4-g32-asym"
                          << ""
                          << "qweight";
}
void TestBitMapView::gutterShowsFileOffsets()
{
    QFETCH(QString, path);
    QFETCH(QString, weight);
    QFETCH(QString, tensor);
    Fixture f(qstest::fixture(path).toStdString(), weight);
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    const qs::TensorEntry* codes = nullptr;
    for (const auto& [role, index] : f.logical().members)
        if (role == tensor.toStdString() || f.ckpt->tensors[index].name == tensor.toStdString())
            codes = &f.ckpt->tensors[index];
    QVERIFY(codes && codes->offset > 0);
    BitMapCanvas* canvas = f.view->canvas();
    for (uint64_t row : {uint64_t(0), uint64_t(1), uint64_t(7)}) {
        const uint64_t bytes = row * canvas->wordsPerRow() * canvas->wordMap()->wordBits() / 8;
        QCOMPARE(canvas->gutterLabels(row).second, QStringLiteral("0x%1").arg(codes->offset + bytes, 0, 16));
    }
    // Ctrl+C copies the selected element's row as a hex editor's line: file offset, then bytes.
    const qs::ElementLocation e = canvas->wordMap()->spec().locate(canvas->wordMap()->params(), 3, 5);
    QVERIFY(e.pieceCount > 0);
    const uint64_t row = e.pieces[0].word / canvas->wordsPerRow();
    const uint64_t rowBytes = canvas->wordsPerRow() * canvas->wordMap()->wordBits() / 8;
    const std::span<const uint8_t> stored = f.ckpt->bytes(*codes);
    QVERIFY(stored.size() >= (row + 1) * rowBytes);
    QString want = QStringLiteral("%1 ").arg(codes->offset + row * rowBytes, 8, 16, QLatin1Char('0'));
    for (uint64_t i = row * rowBytes; i < (row + 1) * rowBytes; ++i)
        want += QStringLiteral(" %1").arg(stored[i], 2, 16, QLatin1Char('0'));
    QGuiApplication::clipboard()->clear();
    canvas->setSelected(std::pair<uint64_t, uint64_t>{3, 5});
    QTest::keySequence(canvas, QKeySequence::Copy);
    QCOMPARE(QGuiApplication::clipboard()->text(), want);
}

// At the default zoom the header numbers each bit (31, 30, ... 0), not every fourth, and a
// whole 32-bit word still fits the view at 1400 pixels.
void TestBitMapView::defaultCellNumbersEveryBit()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym")).toStdString(), QString());
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    QVERIFY(canvas->storedOrder());
    const int twoDigits = canvas->fontMetrics().horizontalAdvance(QStringLiteral("00"));
    QCOMPARE_GE(canvas->cellSize(), twoDigits + 2);
    QCOMPARE(canvas->bitLabelStep(), 1);
    QCOMPARE_GE(canvas->viewport()->width(), 32 * canvas->cellSize());
    canvas->setCellSize(6);
    QCOMPARE(canvas->bitLabelStep(), twoDigits <= 24 ? 4 : 8);
}

void TestBitMapView::hitTesting_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("weight");
    const QString st = QStringLiteral("safetensors/");
    QTest::addRow("gptq-4") << qstest::fixture(st + QStringLiteral("gptq-w4-g32-asym")) << QString();
    QTest::addRow("gptq-3") << qstest::fixture(st + QStringLiteral("gptq-w3-g32-asym")) << QString();
    QTest::addRow("awq") << qstest::fixture(st + QStringLiteral("awq-gemm-w4-g32")) << QString();
    QTest::addRow("q4_0") << qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")) << QStringLiteral("real.q4_0");
    QTest::addRow("q6_k") << qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")) << QStringLiteral("real.q6_k");
}

void TestBitMapView::hitTesting()
{
    QFETCH(QString, path);
    QFETCH(QString, weight);
    Fixture f(path.toStdString(), weight);
    QVERIFY(f.weight >= 0);
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    const qs::LayoutSpec* spec = qs::findLayoutSpec(f.logical().format);
    QVERIFY(spec);
    BitMapCanvas* canvas = f.view->canvas();
    QVERIFY(canvas->hasLayout());
    QVERIFY(f.view->messageText().isEmpty());
    const qs::LayoutParams p = qs::layoutParams(f.logical());

    // Corners, the middle, neighbours in both directions, and for GPTQ-3 the codes that
    // straddle (3 * col crosses a multiple of 32 at col 10 and 21).
    std::vector<std::pair<uint64_t, uint64_t>> elements = {
        {0, 0}, {0, 1}, {1, 0}, {7, 9}, {p.N / 2, p.K / 3}, {p.N - 1, p.K - 1}, {3, 10}, {5, 21}, {p.N - 1, 42}};
    int straddles = 0;
    for (const auto& [row, col] : elements) {
        const qs::ElementLocation loc = spec->locate(p, row, col);
        QVERIFY(loc.pieceCount > 0);
        straddles += loc.pieceCount > 1;
        for (uint8_t i = 0; i < loc.pieceCount; ++i) {
            const qs::BitPiece& piece = loc.pieces[i];
            canvas->scrollToWord(piece.word);
            for (int bit : {int(piece.bit), int(piece.bit + piece.width - 1)}) {
                const auto point = canvas->bitCenter(piece.word, bit);
                QVERIFY2(point, qPrintable(QStringLiteral("word %1 bit %2 not on screen").arg(piece.word).arg(bit)));
                const auto hit = canvas->hitTest(*point);
                QVERIFY(hit && hit->isElement);
                QCOMPARE(hit->word, piece.word);
                QCOMPARE(hit->bit, bit);
                QCOMPARE(hit->row, row);
                QCOMPARE(hit->col, col);
                // The mouse reaches the shared context.
                QTest::mouseMove(canvas->viewport(), *point);
                QTRY_COMPARE(f.context.hovered(), (ElementRef{f.weight, int64_t(row), int64_t(col)}));
            }
        }
        QVERIFY(f.view->detailsText().contains(QStringLiteral("(%1, %2)").arg(row).arg(col)));
    }
    if (QTest::currentDataTag() == QByteArray("gptq-3"))
        QVERIFY(straddles >= 2);

    // Logical order: the cell of (row, col) is that element.
    f.view->setStoredOrder(false);
    QVERIFY(!canvas->storedOrder());
    for (const auto& [row, col] : elements) {
        canvas->scrollToElement(row, col);
        const auto point = canvas->cellCenter(row, col);
        QVERIFY(point);
        const auto hit = canvas->hitTest(*point);
        QVERIFY(hit && hit->isElement);
        QCOMPARE(hit->row, row);
        QCOMPARE(hit->col, col);
    }
}

void TestBitMapView::linkedSelectionScrolls()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w3-g32-asym")).toStdString(), QString());
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    const qs::LayoutSpec* spec = qs::findLayoutSpec(f.logical().format);
    const qs::LayoutParams p = qs::layoutParams(f.logical());
    BitMapCanvas* canvas = f.view->canvas();
    // Another view (a heatmap click) selects the last row's element 200: the map scrolls to it.
    const uint64_t row = p.N - 1, col = std::min<uint64_t>(200, p.K - 1);
    const qs::ElementLocation loc = spec->locate(p, row, col);
    QVERIFY(!canvas->bitCenter(loc.pieces[0].word, loc.pieces[0].bit));
    f.context.setSelected({f.weight, int64_t(row), int64_t(col)});
    const auto point = canvas->bitCenter(loc.pieces[0].word, loc.pieces[0].bit);
    QVERIFY(point);
    QCOMPARE(canvas->hitTest(*point)->col, col);
    // A hover from elsewhere is named in the details panel with its code and value.
    f.context.setHovered({f.weight, 2, 3});
    QVERIFY(f.view->detailsText().contains(QStringLiteral("(2, 3)")));
    QVERIFY(f.view->detailsText().contains(f.view->tr("Value")));
    // Go to: a word index and an element.
    QVERIFY(f.view->goTo(QStringLiteral("5, 7")));
    QCOMPARE(f.context.selected(), (ElementRef{f.weight, 5, 7}));
    QVERIFY(f.view->goTo(QString::number(canvas->wordCount() - 1)));
    QVERIFY(!f.view->goTo(QString::number(canvas->wordCount())));
    QVERIFY(!f.view->goTo(QStringLiteral("nonsense")));
}

void TestBitMapView::toggleAndScreenshots()
{
    for (bool dark : {false, true}) {
        Fixture f(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString(), QStringLiteral("real.q4_k"));
        f.context.setTheme(Theme::fromPalette(dark ? darkPalette() : lightPalette()));
        QVERIFY(QTest::qWaitForWindowExposed(f.view));
        auto* order = f.view->findChild<QComboBox*>();
        QVERIFY(order);
        for (int index : {0, 1}) {
            order->setCurrentIndex(index);
            QCOMPARE(f.view->canvas()->storedOrder(), index == 0);
            const QImage shot = f.view->grab().toImage();
            QVERIFY2(distinctColours(shot) > 40, qPrintable(QStringLiteral("%1 colours").arg(distinctColours(shot))));
        }
    }
}

// An export is the figure alone, whole: in a view too narrow for one word (bit 0 cut off on
// screen) it still draws bit 0 where the canvas draws it when there is room, with no tool row,
// panel or scroll bar (it was a grab of the widget, issue 33); its caption names the words drawn.
// With no weight there is nothing to export.
void TestBitMapView::exportIsTheWholeFigure()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym")).toStdString(), QString());
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    canvas->setCellSize(std::max(canvas->bitDigitMinCell(), 16));
    const std::optional<QPoint> bit0 = canvas->bitCenter(0, 0);
    QVERIFY(bit0);
    const QImage wide = canvas->viewport()->grab().toImage();
    const QRgb onScreen = wide.pixel(*bit0);
    const std::vector<BitLabel> labels = canvas->bitLabels();
    const auto label0 = std::find_if(labels.begin(), labels.end(), [](const BitLabel& l) { return l.bit == 0; });
    QVERIFY(label0 != labels.end() && label0->rect.left() < bit0->x() + canvas->cellSize());

    f.view->resize(420, 700);
    QTRY_VERIFY(!canvas->bitCenter(0, 0)); // cut off on screen
    const QSize size = f.view->exportSize();
    QVERIFY(size.width() > bit0->x() && size.height() > bit0->y());
    QImage figure(size, QImage::Format_ARGB32_Premultiplied);
    figure.fill(Qt::transparent);
    {
        QPainter painter(&figure);
        f.view->renderExport(painter, QRect(QPoint(0, 0), size));
    }
    QCOMPARE(figure.pixel(*bit0), onScreen);
    // Its header numbers bit 0 as the wide view does (the labels past the viewport were dropped).
    QCOMPARE(figure.copy(label0->rect).convertToFormat(QImage::Format_RGB32),
             wide.copy(label0->rect).convertToFormat(QImage::Format_RGB32));
    // 4096 words, one per row, are too tall for one figure: the rows in view, named in the caption.
    const QString caption = f.view->exportCaption();
    QVERIFY2(caption.contains(QStringLiteral("words 0–")) && caption.contains(QStringLiteral(" of 4096")),
             qPrintable(caption));
    QCOMPARE(canvas->wordCount(), uint64_t(4096));

    QTemporaryDir dir;
    QString error;
    QVERIFY2(exportView(f.view, dir.filePath(QStringLiteral("bitmap.png")), &error), qPrintable(error));
    f.context.setWeight(-1);
    QVERIFY(!exportView(f.view, dir.filePath(QStringLiteral("none.png")), &error));
    QVERIFY2(error.contains(f.view->messageText()), qPrintable(error));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("none.png"))));
}

void TestBitMapView::formatWithoutSpec()
{
    Fixture f(qstest::fixture(QStringLiteral("safetensors/bnb-nf4/model.safetensors")).toStdString(), QString());
    const std::string format = f.logical().format;
    if (qs::findLayoutSpec(format)) {
        QVERIFY(f.view->messageText().isEmpty());
        QVERIFY(f.view->canvas()->hasLayout());
    } else {
        QVERIFY(f.view->messageText().contains(QString::fromStdString(format)));
        QVERIFY(!f.view->canvas()->hasLayout());
    }
}

// A Q4_0 tensor of 4352 x 4096 (10,027,008 one-byte words) in a sparse GGUF: scrolling to
// its end computes only the words on screen, and the last bit there is the last element's.
void TestBitMapView::tenMillionWords()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("big.gguf")).toStdString();
    const uint64_t K = 4096, N = 4352;
    const std::vector<qs::GgufTensor> tensors = {{"blk.0.ffn_down.weight", qs::GgmlQ4_0, {K, N}, {}}};
    const qs::GgufLayout layout = qs::layoutGguf(path, {}, tensors);
    {
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(reinterpret_cast<const char*>(layout.head.data()), qint64(layout.head.size())),
                 qint64(layout.head.size()));
        QVERIFY(file.resize(qint64(layout.fileSize)));
    }
    Fixture f(path, QStringLiteral("blk.0.ffn_down.weight"));
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    BitMapCanvas* canvas = f.view->canvas();
    QCOMPARE(canvas->wordCount(), N * (K / 32) * 18);
    QVERIFY(canvas->wordCount() > 10'000'000);
    const qs::LayoutSpec* spec = qs::findLayoutSpec(f.logical().format);
    const qs::ElementLocation last = spec->locate(qs::layoutParams(f.logical()), N - 1, K - 1);
    for (uint64_t word : {canvas->wordCount() / 2, canvas->wordCount() - 1, uint64_t(0), last.pieces[0].word}) {
        canvas->scrollToWord(word);
        const QImage shot = f.view->grab().toImage();
        QVERIFY(!shot.isNull());
    }
    QVERIFY2(canvas->computedWords() < 20000, qPrintable(QString::number(canvas->computedWords())));
    const auto point = canvas->bitCenter(last.pieces[0].word, last.pieces[0].bit);
    QVERIFY(point);
    const auto hit = canvas->hitTest(*point);
    QVERIFY(hit && hit->isElement);
    QCOMPARE(hit->row, N - 1);
    QCOMPARE(hit->col, K - 1);
}

QTEST_MAIN(TestBitMapView)
#include "tst_bitmapview.moc"
