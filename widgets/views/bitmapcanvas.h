#pragma once
// The drawing surface of the bit-map view, in three modes: stored words as rows of bit cells
// (MSB left, as every view draws a word) coloured by element with Theme::elementColor (hue by
// position in the layout's repeating tile, lightness by code) and block fields by
// Theme::fieldColor; the code tensor's bytes as a hex editor shows them (16 per row, file
// offsets, hex, ASCII, block fields or a word's slots tinted behind the hex and named, the
// selected row in binary); or the logical [out, in] matrix as a heatmap of codes with its colour
// scale. Virtualised: only the visible rows are computed and painted, so a tensor of ten million
// words scrolls like a small one.
#include "theme.h"

#include "formats/layoutspec.h"

#include <QAbstractScrollArea>
#include <QFont>

#include <array>
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
    std::optional<uint64_t> byte; // bytes mode: the byte under the point, in the code tensor
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

enum class BitMapMode { Bits, Bytes, Logical };

// One entry of the bytes mode's legend: a block field's or a word slot's name and tint.
struct ByteLegendEntry {
    QString name;
    QColor color;
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

    BitMapMode mode() const { return m_mode; }
    void setMode(BitMapMode mode);
    bool storedOrder() const { return m_mode == BitMapMode::Bits; }
    void setStoredOrder(bool stored) { setMode(stored ? BitMapMode::Bits : BitMapMode::Logical); }
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
    uint64_t fileOffset() const { return m_fileOffset; } // of the code tensor's first byte
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
    // Row `row` (of the bits or bytes mode) as a hex editor's line: its file offset and its
    // bytes in hex; what Ctrl+C copies in bits mode for the row holding the selected element
    // (the first row shown without one).
    QString hexOfRow(uint64_t row) const;
    void copySelectedRow() const;

    // ---- Bytes mode ----
    static constexpr uint64_t kBytesPerRow = 16;
    uint64_t byteCount() const { return m_codeBytes.size(); }
    // The centre of byte `byte`'s hex digits in viewport coordinates; nullopt when not on screen.
    std::optional<QPoint> byteCenter(uint64_t byte) const;
    // The selected bytes, first and last: those of the selected element, or a range dragged
    // with the mouse; nullopt for none.
    std::optional<std::pair<uint64_t, uint64_t>> byteSelection() const { return m_byteSelection; }
    void setByteSelection(uint64_t first, uint64_t last);
    // The selected bytes in hex ("a5 3c"): what Ctrl+C copies in bytes mode.
    QString hexOfSelection() const;
    // The rows holding the selection as hex editor lines: what Ctrl+Shift+C copies.
    QString hexLinesOfSelection() const;
    // The names of the block fields (with the block number where a block starts) a bytes row
    // holds, in order, as its Fields column draws them.
    QStringList rowFieldLabels(uint64_t row) const;
    // The fields or slots of the bytes on screen with their tints, as the legend draws them.
    std::vector<ByteLegendEntry> byteLegend() const;
    // The heatmap colour of a code in logical order (the legend's scale).
    QColor codeHeatColor(uint64_t code) const;

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
    void mouseReleaseEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
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
    double maxCode() const;
    // Bytes mode: the Fields column of a row, each a name and its field index (-1: a block's number).
    std::vector<std::pair<QString, int>> fieldRuns(uint64_t row) const;
    int fieldIndexAt(uint64_t word, int bit) const; // index into the spec's blockFields, -1 for none
    QString fieldAt(uint64_t word, int bit) const;
    std::optional<std::pair<uint64_t, uint64_t>> blockElementOf(uint64_t word) const;
    void updateGeometry();
    int gutterWidth() const;
    int headerHeight() const;
    int footerHeight() const;
    uint64_t contentWidth() const; // of the cells (bits, bytes and their columns, or the matrix)
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
    // Bytes mode.
    int hexCharWidth() const;
    int hexX(int column) const; // left of column `column`'s hex digits, from the cells' left edge
    int asciiX() const;
    int fieldsX() const;
    // The fill of each bit of byte `byte` (LSB first): its field's or its code's slot tint.
    std::array<QColor, 8> byteFills(uint64_t byte) const;
    std::vector<std::pair<uint64_t, uint64_t>> pieceBytes(uint64_t row, uint64_t col) const; // first, last byte
    std::optional<std::pair<uint64_t, uint64_t>> elementBytes(uint64_t row, uint64_t col) const;
    void paintBytes(QPainter& p, const QRect& area, int visibleRows);
    void paintBytesFooter(QPainter& p, const QRect& area);
    void paintLogicalFooter(QPainter& p, const QRect& area);
    std::optional<uint64_t> byteAt(QPoint viewportPos, int* bitInByte) const;
    void copyToClipboard(const QString& text) const;

    std::shared_ptr<const qs::Checkpoint> m_checkpoint;
    const qs::LogicalWeight* m_weight = nullptr;
    std::shared_ptr<const qs::WordMap> m_map;
    std::span<const uint8_t> m_codeBytes;
    uint64_t m_fileOffset = 0; // of m_codeBytes in its file
    uint64_t m_words = 0;
    uint64_t m_blockBytes = 0; // GGUF block size (rows start at block edges), 0 otherwise
    uint64_t m_wordsPerRow = 1;
    int m_codeBits = 4;
    BitMapMode m_mode = BitMapMode::Bits;
    QFont m_hexFont;
    std::optional<std::pair<uint64_t, uint64_t>> m_byteSelection;
    std::optional<uint64_t> m_dragAnchor; // bytes mode: the byte a mouse drag started on
    int m_cell = 12;
    Theme m_theme;
    std::optional<std::pair<uint64_t, uint64_t>> m_hovered, m_selected;
    mutable std::unordered_map<uint64_t, std::vector<Piece>> m_cache;
    mutable uint64_t m_computedWords = 0;
    int m_figureWidth = 0; // while paintFigure paints: the figure's width, which the header labels fill
};

} // namespace qsw
