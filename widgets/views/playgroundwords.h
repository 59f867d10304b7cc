#pragma once
// The playground's packed words: each stored word as a row of 32 bit cells (bit 31 on the
// left), coloured by the element that owns the bits (hue by element, lightness by code),
// with the word's index and hex value and a label under every field. Padding bits are grey.
// Narrower words (a block format's bytes) stand side by side in stored order, four to a line,
// each MSB left, as the Bit map draws them; a block field's bytes take Theme::fieldColor.
// Hovering a field reports its element; a highlighted element is outlined. Every text stands in
// a box of its own (labels()): a field's label only where it fits under its cells, and one note
// per line in the gutter saying where the rest of its split codes lies.
#include "analysis/playground.h"
#include "theme.h"

#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

namespace qsw {

class PlaygroundWords : public QWidget {
    Q_OBJECT
public:
    struct Content {
        QString title; // what the words are
        QString note; // slot order, straddling, or why nothing is shown
        std::vector<qs::PlaygroundWord> words;
        int bits = 4;
        bool packsRows = false; // fields belong to several output rows (AWQ)
        std::vector<QString> rowNames; // label of each block row
        uint64_t focusBegin = 0, focusEnd = 0; // focus-row columns outlined
        int wordBits = 32; // 32, or 8 for a block format's bytes
        std::vector<QString> fieldNames; // the block fields' names (PlaygroundField::field)
    };

    explicit PlaygroundWords(QWidget* parent = nullptr);
    void setContent(Content content);
    void setTheme(const Theme& theme);
    const Content& content() const { return m_content; }

    // Paints into `rect`; used by paintEvent and by vector export.
    void paint(QPainter& painter, const QRect& rect) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    // A text the words draw: its box (in the rect given to labels()) and what it says.
    struct Label {
        enum Kind { BitNumber, WordName, WordHex, Field, Continuation, More };
        Kind kind;
        QRectF box;
        QString text;
        bool strong = false; // a field label in the text colour (focus row, block field), else muted
    };
    // Every text paint() draws into `rect` but the title and note, in drawing order; each fits
    // its box (measured in the font it is drawn in, font()), and no two boxes overlap.
    std::vector<Label> labels(const QRect& rect) const;
    QFont labelFont(Label::Kind kind) const;

    // The field under `pos` (widget coordinates) as (block row, column); none over padding,
    // labels or empty space.
    std::optional<std::pair<uint64_t, uint64_t>> fieldAt(const QPoint& pos) const;
    // The element whose fields get a thick outline (linked hover).
    void setHighlighted(std::optional<std::pair<uint64_t, uint64_t>> element);
    std::optional<std::pair<uint64_t, uint64_t>> highlighted() const { return m_highlighted; }

signals:
    // The mouse moved onto a field (row, col) or off every field (-1, -1).
    void hoveredField(qint64 row, qint64 col);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    // Where the words sit inside `rect`, shared by paint and fieldAt.
    struct Geometry {
        int firstTop = 0; // top of the first word's cells
        int gutter = 0; // width of the gutter left of the cells: word names, hex, notes
        int cellsLeft = 0; // x of bit 31
        double cell = 0; // width of one bit cell
        int pitch = 0; // from one word's top to the next
    };
    Geometry layoutIn(const QRect& rect) const;
    // The words of each line (consecutive words, 32 bits a line), by index into content().words.
    std::vector<std::vector<size_t>> lines() const;
    // The gutter's texts of a line: the first word's name, the hex, where its split codes go on
    // (or whose later pieces it holds).
    QString lineName(const std::vector<size_t>& line) const;
    QString lineHex(const std::vector<size_t>& line) const;
    QString lineContinuation(const std::vector<size_t>& line) const;
    int gutterWidth() const;
    QString fieldLabel(const qs::PlaygroundField& f) const;
    void paintWord(QPainter& p, size_t w, int position, int y, const Geometry& g) const;

    Content m_content;
    Theme m_theme;
    std::optional<std::pair<uint64_t, uint64_t>> m_highlighted;
    std::optional<std::pair<uint64_t, uint64_t>> m_lastHover;
};

} // namespace qsw
