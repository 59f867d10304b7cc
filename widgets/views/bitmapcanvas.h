#pragma once
// The drawing surface of the bit-map view: stored words as rows of bit cells (MSB left, as
// every view draws a word), or the logical [out, in] matrix as cells, coloured by element with
// Theme::elementColor (hue by position in the layout's repeating tile, lightness by code);
// block fields by Theme::fieldColor. Cells large enough show their bit. Virtualised: only the
// visible rows are computed and painted, so a tensor of ten million words scrolls like a small one.
#include "theme.h"

#include "formats/layoutspec.h"

#include <QAbstractScrollArea>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace qs {
class Checkpoint;
class WordMap;
struct LogicalWeight;
struct WordPiece;
} // namespace qs

namespace qsw {

// What lies under a point: an element's piece, or a non-code bit of a block field.
struct BitMapHit {
    bool isElement = false;
    uint64_t row = 0, col = 0; // the element (isElement)
    uint64_t word = 0; // stored order: the word under the point
    int bit = -1; // stored order: the bit under the point
    QString field; // GGUF: the block field holding that bit
    // Stored order in a block format: an element of the bit's block (its first coded one),
    // for the block's decoded fields.
    std::optional<std::pair<uint64_t, uint64_t>> blockElement;
};

// A bit number drawn in the header, in viewport coordinates.
struct BitLabel {
    QRect rect;
    int bit = 0;
};

class BitMapCanvas : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit BitMapCanvas(QWidget* parent = nullptr);
    ~BitMapCanvas() override;

    // `map` and `spec` describe `weight` of `checkpoint`; a null map clears the canvas.
    void setLayout(std::shared_ptr<const qs::Checkpoint> checkpoint, const qs::LogicalWeight* weight,
                   std::shared_ptr<const qs::WordMap> map);
    void setTheme(const Theme& theme);
    bool hasLayout() const { return bool(m_map); }

    bool storedOrder() const { return m_stored; }
    void setStoredOrder(bool stored);
    int cellSize() const { return m_cell; }
    void setCellSize(int pixels); // clamped to 3..40; keeps the selection in view
    // Cells at least this large show their bit's 0 or 1.
    int bitDigitMinCell() const;
    // The header numbers every this many bits (1, 4 or 8): every bit once a cell is as wide
    // as a two-digit number, which the default cell size is.
    int bitLabelStep() const;
    // The header's bit numbers as painted: none overlaps another or reaches past its word
    // or the visible header.
    std::vector<BitLabel> bitLabels() const;
    // The stored word's value (wordBits <= 64); nullopt past the tensor's bytes.
    std::optional<uint64_t> wordValue(uint64_t word) const;

    // Linked elements: hovered (thin outline) and selected (thick outline) pieces.
    void setHovered(std::optional<std::pair<uint64_t, uint64_t>> element);
    void setSelected(std::optional<std::pair<uint64_t, uint64_t>> element);
    std::optional<std::pair<uint64_t, uint64_t>> hovered() const { return m_hovered; }

    const qs::WordMap* wordMap() const { return m_map.get(); }
    uint64_t wordCount() const { return m_words; }
    uint64_t wordsPerRow() const { return m_wordsPerRow; }
    void scrollToWord(uint64_t word);
    void scrollToElement(uint64_t row, uint64_t col); // its first piece (stored) or its cell
    // The centre of a bit cell (stored order) or an element cell (logical order) in viewport
    // coordinates; nullopt when it is not on screen.
    std::optional<QPoint> bitCenter(uint64_t word, int bit) const;
    std::optional<QPoint> cellCenter(uint64_t row, uint64_t col) const;
    std::optional<BitMapHit> hitTest(QPoint viewportPos) const;
    // Words whose pieces have been computed since the layout was set (virtualisation check).
    uint64_t computedWords() const { return m_computedWords; }
    // Paints the visible part into `painter` (export and paintEvent).
    void paintContent(QPainter& painter, const QRect& area);
    // The export's figure: `rows` whole rows from row `first` (stored order: every word of a row, bit 0
    // included; logical order: every column), with header and gutter, as if scrolled to the left edge.
    QSize figureSize(uint64_t rows) const;
    void paintFigure(QPainter& painter, const QRect& area, uint64_t first);
    // Rows (of words, or of the matrix) in all, the first one shown and how many the viewport shows.
    uint64_t totalRows() const { return rowCount(); }
    uint64_t firstShownRow() const { return firstRow(); }
    uint64_t shownRows() const;
    // The gutter's labels of stored row `row`: its first word's index (the block's number where
    // a block starts) and its offset in the file, in hex.
    std::pair<QString, QString> gutterLabels(uint64_t row) const;
    // Stored row `row` as a hex editor's line: its file offset and its bytes in hex; what
    // Ctrl+C copies for the row holding the selected element (the first row shown without one).
    QString hexOfRow(uint64_t row) const;
    void copySelectedRow() const;

signals:
    void hoveredAt(std::optional<BitMapHit> hit);
    void clickedAt(BitMapHit hit);
    // An arrow key: move the selection by this many rows and columns.
    void stepSelection(int rows, int cols);
    // The cell size changed (Ctrl+wheel or setCellSize).
    void cellSizeChanged(int pixels);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    struct Piece {
        uint64_t row, col;
        uint8_t bit, width, piece, pieceCount;
        uint64_t code;
    };
    const std::vector<Piece>& piecesOf(uint64_t word) const;
    uint64_t codeOf(uint64_t row, uint64_t col) const;
    QColor colorOf(uint64_t row, uint64_t col, uint64_t code) const;
    int fieldIndexAt(uint64_t word, int bit) const; // index into the spec's blockFields, -1 for none
    QString fieldAt(uint64_t word, int bit) const;
    std::optional<std::pair<uint64_t, uint64_t>> blockElementOf(uint64_t word) const;
    void updateGeometry();
    int gutterWidth() const;
    int headerHeight() const;
    int wordWidth() const;
    int rowHeight() const;
    uint64_t rowCount() const;
    uint64_t firstRow() const;
    int firstColPixels() const;
    void outlineElement(QPainter& p, uint64_t row, uint64_t col, const QColor& color, int width, const QRect& area);
    void paintStoredWord(QPainter& p, uint64_t word, int x0, int y);
    void paintLogicalCells(QPainter& p, const QRect& area, int visibleRows);
    void paintHeader(QPainter& p, const QRect& area);
    void paintGutter(QPainter& p, const QRect& area, int visibleRows);

    std::shared_ptr<const qs::Checkpoint> m_checkpoint;
    const qs::LogicalWeight* m_weight = nullptr;
    std::shared_ptr<const qs::WordMap> m_map;
    std::span<const uint8_t> m_codeBytes;
    uint64_t m_fileOffset = 0; // of m_codeBytes in its file
    uint64_t m_words = 0;
    uint64_t m_blockBytes = 0; // GGUF block size (rows start at block edges), 0 otherwise
    uint64_t m_wordsPerRow = 1;
    int m_codeBits = 4;
    bool m_stored = true;
    int m_cell = 12;
    Theme m_theme;
    std::optional<std::pair<uint64_t, uint64_t>> m_hovered, m_selected;
    mutable std::unordered_map<uint64_t, std::vector<Piece>> m_cache;
    mutable uint64_t m_computedWords = 0;
    int m_figureWidth = 0; // while paintFigure paints: the figure's width, which the header labels fill
};

} // namespace qsw
