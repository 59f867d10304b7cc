#include "bitmapcanvas.h"

#include "base/intmath.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/wordmap.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <climits>

namespace qsw {

namespace {

constexpr int kWordGap = 6;
constexpr int kStoredRowGap = 3;
constexpr size_t kCacheLimit = 1 << 15; // words kept; far more than a screen holds

int clampToInt(uint64_t v)
{
    return v > uint64_t(INT_MAX) ? INT_MAX : int(v);
}

} // namespace

BitMapCanvas::BitMapCanvas(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setFrameShape(QFrame::NoFrame);
    verticalScrollBar()->setSingleStep(1);
    setFocusPolicy(Qt::StrongFocus); // arrow keys move the selection
    // Wide enough to number every bit of a word in the header ("31" .. "0") at this font.
    m_cell = std::clamp(fontMetrics().horizontalAdvance(QStringLiteral("00")) + 4, 12, 40);
}

int BitMapCanvas::bitLabelStep() const
{
    const int label = fontMetrics().horizontalAdvance(QStringLiteral("00"));
    return m_cell >= label + 2 ? 1 : m_cell * 4 >= label ? 4 : 8;
}

int BitMapCanvas::bitDigitMinCell() const
{
    return std::max(fontMetrics().horizontalAdvance(QLatin1Char('0')) + 4, fontMetrics().capHeight() + 5);
}

std::vector<BitLabel> BitMapCanvas::bitLabels() const
{
    std::vector<BitLabel> out;
    if (!m_map || !m_stored)
        return out;
    const QFontMetrics fm = fontMetrics();
    const int W = int(m_map->wordBits()), step = bitLabelStep(), gutter = gutterWidth();
    const int right = m_figureWidth > 0 ? m_figureWidth : viewport()->width();
    for (uint64_t k = 0; k < m_wordsPerRow; ++k) {
        const int x0 = gutter + int(k) * wordWidth() - firstColPixels();
        int lastRight = INT_MIN;
        // MSB first (left to right); the word's ends always qualify, the rest every `step`.
        for (int b = W - 1; b >= 0; --b) {
            if (b % step != 0 && b != W - 1)
                continue;
            const QString text = QString::number(b);
            const int w = fm.horizontalAdvance(text);
            const int cx = x0 + (W - 1 - b) * m_cell + m_cell / 2;
            // Centred on its cell, moved inside its word where the cell is narrower than the number.
            const int left = std::clamp(cx - w / 2, x0, x0 + W * m_cell - w);
            const QRect r(left, 0, w, headerHeight());
            if (r.left() < lastRight + 3 || r.left() < gutter || r.right() >= right)
                continue; // would touch its neighbour, or be cut off by the gutter or the edge
            out.push_back({r, b});
            lastRight = r.right();
        }
    }
    return out;
}

std::optional<uint64_t> BitMapCanvas::wordValue(uint64_t word) const
{
    if (!m_map || word >= m_words || m_map->wordBits() > 64)
        return std::nullopt;
    const qs::BitPiece whole{word, 0, uint8_t(m_map->wordBits())};
    try {
        return qs::readPieces(m_codeBytes, std::span(&whole, 1), m_map->wordBits(), m_weight->name);
    } catch (const qs::Error&) {
        return std::nullopt; // the tensor's last word is cut short
    }
}

BitMapCanvas::~BitMapCanvas() = default;

void BitMapCanvas::setLayout(std::shared_ptr<const qs::Checkpoint> checkpoint, const qs::LogicalWeight* weight,
                             std::shared_ptr<const qs::WordMap> map)
{
    m_checkpoint = std::move(checkpoint);
    m_weight = weight;
    m_map = std::move(map);
    m_cache.clear();
    m_computedWords = 0;
    m_codeBytes = {};
    m_fileOffset = 0;
    m_words = 0;
    m_blockBytes = 0;
    m_hovered.reset();
    m_selected.reset();
    if (m_map && m_weight && m_checkpoint) {
        const qs::LayoutParams& p = m_map->params();
        const qs::ElementLocation first = m_map->spec().locate(p, 0, 0);
        m_codeBits = 0;
        for (uint8_t i = 0; i < first.pieceCount; ++i)
            m_codeBits += first.pieces[i].width;
        const int member = m_weight->member(first.tensor);
        if (member >= 0 && size_t(member) < m_checkpoint->tensors.size()) {
            m_codeBytes = m_checkpoint->bytes(m_checkpoint->tensors[size_t(member)]);
            m_fileOffset = m_checkpoint->tensors[size_t(member)].offset;
        }
        // Every word of the stored tensor, padding included.
        m_words = qs::ceilDiv(uint64_t(m_codeBytes.size()) * 8, m_map->wordBits());
        m_blockBytes = qs::blockBytesOf(m_map->spec());
    }
    updateGeometry();
    viewport()->update();
}

void BitMapCanvas::setTheme(const Theme& theme)
{
    m_theme = theme;
    viewport()->update();
}

void BitMapCanvas::setStoredOrder(bool stored)
{
    if (stored == m_stored)
        return;
    m_stored = stored;
    updateGeometry();
    if (m_selected)
        scrollToElement(m_selected->first, m_selected->second);
    viewport()->update();
}

void BitMapCanvas::setCellSize(int pixels)
{
    pixels = std::clamp(pixels, 3, 40);
    if (pixels == m_cell)
        return;
    const uint64_t firstWord = firstRow() * m_wordsPerRow;
    m_cell = pixels;
    updateGeometry();
    if (m_selected)
        scrollToElement(m_selected->first, m_selected->second);
    else if (m_stored)
        scrollToWord(firstWord);
    viewport()->update();
    emit cellSizeChanged(m_cell);
}

void BitMapCanvas::setHovered(std::optional<std::pair<uint64_t, uint64_t>> element)
{
    if (element == m_hovered)
        return;
    m_hovered = element;
    viewport()->update();
}

void BitMapCanvas::setSelected(std::optional<std::pair<uint64_t, uint64_t>> element)
{
    m_selected = element;
    if (element)
        scrollToElement(element->first, element->second);
    viewport()->update();
}

std::pair<QString, QString> BitMapCanvas::gutterLabels(uint64_t row) const
{
    const uint64_t word = row * m_wordsPerRow;
    const uint64_t byte = m_map ? word * m_map->wordBits() / 8 : 0;
    // Offsets in the file, as a hex editor shows them (ImHex, Okteta), not in the tensor.
    const QString offset = QStringLiteral("0x%1").arg(m_fileOffset + byte, 0, 16);
    if (m_blockBytes > 0 && byte % m_blockBytes == 0)
        return {tr("block %1").arg(byte / m_blockBytes), offset};
    return {QString::number(word), offset};
}

int BitMapCanvas::gutterWidth() const
{
    // As wide as the largest word index (or block number) and file offset need.
    const uint64_t bytes = m_map ? m_words * m_map->wordBits() / 8 : 0;
    const QString widest = QStringLiteral("%1  0x%2").arg(tr("block %1").arg(m_words)).arg(m_fileOffset + bytes, 0, 16);
    const QString label = m_stored ? tr("word  ·  bit") : tr("row %1").arg(m_map ? m_map->params().N : 0);
    return std::max(fontMetrics().horizontalAdvance(widest), fontMetrics().horizontalAdvance(label)) + 16;
}

int BitMapCanvas::headerHeight() const
{
    return fontMetrics().height() + 8;
}

int BitMapCanvas::wordWidth() const
{
    return m_map ? int(m_map->wordBits()) * m_cell + kWordGap : 0;
}

int BitMapCanvas::rowHeight() const
{
    return m_stored ? m_cell + kStoredRowGap : m_cell;
}

uint64_t BitMapCanvas::rowCount() const
{
    if (!m_map)
        return 0;
    if (!m_stored)
        return m_map->params().N;
    return qs::ceilDiv(m_words, m_wordsPerRow);
}

uint64_t BitMapCanvas::firstRow() const
{
    return uint64_t(std::max(0, verticalScrollBar()->value()));
}

int BitMapCanvas::firstColPixels() const
{
    return horizontalScrollBar()->value();
}

void BitMapCanvas::updateGeometry()
{
    if (!m_map) {
        verticalScrollBar()->setRange(0, 0);
        horizontalScrollBar()->setRange(0, 0);
        return;
    }
    const int avail = std::max(1, viewport()->width() - gutterWidth());
    const uint64_t fit = uint64_t(std::max(1, avail / wordWidth()));
    if (m_blockBytes > 0 && (m_blockBytes * 8) % m_map->wordBits() == 0) {
        // GGUF: a row is a block, or an equal part of one, so every row starts at a block edge
        // or at the same offset inside its block.
        const uint64_t perBlock = m_blockBytes * 8 / m_map->wordBits();
        m_wordsPerRow = 1;
        for (uint64_t d = std::min(perBlock, fit); d >= 1; --d)
            if (perBlock % d == 0) {
                m_wordsPerRow = d;
                break;
            }
    } else {
        m_wordsPerRow = 1;
        while (m_wordsPerRow * 2 <= std::min<uint64_t>(fit, 16))
            m_wordsPerRow *= 2;
    }
    const int visibleRows = std::max(1, (viewport()->height() - headerHeight()) / rowHeight());
    const uint64_t rows = rowCount();
    verticalScrollBar()->setRange(0, clampToInt(rows > uint64_t(visibleRows) ? rows - uint64_t(visibleRows) + 1 : 0));
    verticalScrollBar()->setPageStep(visibleRows);
    const uint64_t contentWidth =
        m_stored ? m_wordsPerRow * uint64_t(wordWidth()) : m_map->params().K * uint64_t(m_cell);
    const int viewWidth = std::max(1, viewport()->width() - gutterWidth());
    horizontalScrollBar()->setRange(
        0, clampToInt(contentWidth > uint64_t(viewWidth) ? contentWidth - uint64_t(viewWidth) : 0));
    horizontalScrollBar()->setPageStep(viewWidth);
    horizontalScrollBar()->setSingleStep(std::max(1, m_cell));
}

void BitMapCanvas::scrollToWord(uint64_t word)
{
    if (!m_map || !m_stored)
        return;
    const uint64_t row = word / m_wordsPerRow;
    const uint64_t first = firstRow();
    const uint64_t page = uint64_t(std::max(1, verticalScrollBar()->pageStep()));
    if (row < first || row >= first + page - 1)
        verticalScrollBar()->setValue(clampToInt(row > page / 3 ? row - page / 3 : 0));
}

void BitMapCanvas::scrollToElement(uint64_t row, uint64_t col)
{
    if (!m_map || row >= m_map->params().N || col >= m_map->params().K)
        return;
    if (m_stored) {
        const qs::ElementLocation e = m_map->spec().locate(m_map->params(), row, col);
        if (e.pieceCount > 0)
            scrollToWord(e.pieces[0].word);
        return;
    }
    const uint64_t first = firstRow();
    const uint64_t page = uint64_t(std::max(1, verticalScrollBar()->pageStep()));
    if (row < first || row >= first + page - 1)
        verticalScrollBar()->setValue(clampToInt(row > page / 3 ? row - page / 3 : 0));
    const int viewWidth = std::max(1, viewport()->width() - gutterWidth());
    const uint64_t x = col * uint64_t(m_cell);
    const uint64_t left = uint64_t(firstColPixels());
    if (x < left || x + uint64_t(m_cell) > left + uint64_t(viewWidth))
        horizontalScrollBar()->setValue(clampToInt(x > uint64_t(viewWidth) / 3 ? x - uint64_t(viewWidth) / 3 : 0));
}

const std::vector<BitMapCanvas::Piece>& BitMapCanvas::piecesOf(uint64_t word) const
{
    const auto it = m_cache.find(word);
    if (it != m_cache.end())
        return it->second;
    if (m_cache.size() >= kCacheLimit)
        m_cache.clear();
    std::vector<Piece> pieces;
    for (const qs::WordPiece& wp : m_map->piecesIn(word))
        pieces.push_back({wp.row, wp.col, wp.bit, wp.width, wp.piece, wp.pieceCount, codeOf(wp.row, wp.col)});
    ++m_computedWords;
    return m_cache.emplace(word, std::move(pieces)).first->second;
}

uint64_t BitMapCanvas::codeOf(uint64_t row, uint64_t col) const
{
    const qs::ElementLocation e = m_map->spec().locate(m_map->params(), row, col);
    try {
        return qs::readPieces(m_codeBytes, std::span(e.pieces, e.pieceCount), e.wordBits, m_weight->name);
    } catch (const qs::Error&) {
        return 0; // a truncated tensor: the bits that exist are drawn, the rest as code 0
    }
}

QColor BitMapCanvas::colorOf(uint64_t row, uint64_t col, uint64_t code) const
{
    const double maxCode = m_codeBits >= 64 ? 18446744073709551615.0 : double((uint64_t(1) << m_codeBits) - 1);
    return m_theme.elementColor(int(m_map->tileIndex(row, col)), maxCode > 0 ? double(code) / maxCode : 0);
}

int BitMapCanvas::fieldIndexAt(uint64_t word, int bit) const
{
    return m_blockBytes == 0 ? -1 : qs::blockFieldAt(m_map->spec(), (word * m_map->wordBits() + uint64_t(bit)) / 8);
}

QString BitMapCanvas::fieldAt(uint64_t word, int bit) const
{
    const int f = fieldIndexAt(word, bit);
    return f < 0 ? QString() : QString::fromStdString(m_map->spec().blockFields[size_t(f)].name);
}

std::optional<std::pair<uint64_t, uint64_t>> BitMapCanvas::blockElementOf(uint64_t word) const
{
    if (m_blockBytes == 0 || (m_blockBytes * 8) % m_map->wordBits() != 0)
        return std::nullopt;
    const uint64_t perBlock = m_blockBytes * 8 / m_map->wordBits();
    const uint64_t first = word / perBlock * perBlock;
    for (uint64_t w = first; w < first + perBlock && w < m_words; ++w)
        if (const auto& pieces = piecesOf(w); !pieces.empty())
            return std::pair(pieces.front().row, pieces.front().col);
    return std::nullopt;
}

std::optional<QPoint> BitMapCanvas::bitCenter(uint64_t word, int bit) const
{
    if (!m_map || !m_stored || word >= m_words || bit < 0 || bit >= int(m_map->wordBits()))
        return std::nullopt;
    const uint64_t row = word / m_wordsPerRow;
    const uint64_t first = firstRow();
    if (row < first)
        return std::nullopt;
    const uint64_t dy = (row - first) * uint64_t(rowHeight());
    if (dy > uint64_t(viewport()->height()))
        return std::nullopt;
    const int y = headerHeight() + int(dy) + m_cell / 2;
    const int x = gutterWidth() + int(word % m_wordsPerRow) * wordWidth() - firstColPixels()
        + (int(m_map->wordBits()) - 1 - bit) * m_cell + m_cell / 2;
    if (y >= viewport()->height() || x < gutterWidth() || x >= viewport()->width())
        return std::nullopt;
    return QPoint(x, y);
}

std::optional<QPoint> BitMapCanvas::cellCenter(uint64_t row, uint64_t col) const
{
    if (!m_map || m_stored || row >= m_map->params().N || col >= m_map->params().K)
        return std::nullopt;
    const uint64_t first = firstRow();
    if (row < first || (row - first) * uint64_t(m_cell) > uint64_t(viewport()->height()))
        return std::nullopt;
    const int y = headerHeight() + int(row - first) * m_cell + m_cell / 2;
    const int64_t x = int64_t(gutterWidth()) + int64_t(col) * m_cell - firstColPixels() + m_cell / 2;
    if (y >= viewport()->height() || x < gutterWidth() || x >= viewport()->width())
        return std::nullopt;
    return QPoint(int(x), y);
}

std::optional<BitMapHit> BitMapCanvas::hitTest(QPoint pos) const
{
    if (!m_map || pos.x() < gutterWidth() || pos.y() < headerHeight())
        return std::nullopt;
    const uint64_t row = firstRow() + uint64_t((pos.y() - headerHeight()) / rowHeight());
    const int64_t x = int64_t(pos.x() - gutterWidth()) + firstColPixels();
    BitMapHit hit;
    if (!m_stored) {
        const uint64_t col = uint64_t(x / m_cell);
        if (row >= m_map->params().N || col >= m_map->params().K)
            return std::nullopt;
        hit.isElement = true;
        hit.row = row;
        hit.col = col;
        return hit;
    }
    if ((pos.y() - headerHeight()) % rowHeight() >= m_cell)
        return std::nullopt; // the gap between rows
    const uint64_t k = uint64_t(x / wordWidth());
    const int inWord = int(x % wordWidth());
    if (k >= m_wordsPerRow || inWord >= int(m_map->wordBits()) * m_cell)
        return std::nullopt;
    hit.word = row * m_wordsPerRow + k;
    if (hit.word >= m_words)
        return std::nullopt;
    hit.bit = int(m_map->wordBits()) - 1 - inWord / m_cell;
    for (const Piece& p : piecesOf(hit.word))
        if (hit.bit >= p.bit && hit.bit < p.bit + p.width) {
            hit.isElement = true;
            hit.row = p.row;
            hit.col = p.col;
        }
    hit.field = fieldAt(hit.word, hit.bit);
    if (!hit.field.isEmpty())
        hit.blockElement = blockElementOf(hit.word);
    return hit;
}

void BitMapCanvas::outlineElement(QPainter& p, uint64_t row, uint64_t col, const QColor& color, int width,
                                  const QRect& area)
{
    p.setPen(QPen(color, width));
    p.setBrush(Qt::NoBrush);
    if (!m_stored) {
        if (const auto c = cellCenter(row, col))
            p.drawRect(QRect(*c - QPoint(m_cell / 2, m_cell / 2), QSize(m_cell, m_cell)).translated(area.topLeft()));
        return;
    }
    const qs::ElementLocation e = m_map->spec().locate(m_map->params(), row, col);
    for (uint8_t i = 0; i < e.pieceCount; ++i) {
        const qs::BitPiece& piece = e.pieces[i];
        const auto hi = bitCenter(piece.word, piece.bit + piece.width - 1);
        const auto lo = bitCenter(piece.word, piece.bit);
        if (!hi || !lo)
            continue;
        const QRect r(QPoint(hi->x() - m_cell / 2, hi->y() - m_cell / 2),
                      QPoint(lo->x() + (m_cell + 1) / 2 - 1, lo->y() + (m_cell + 1) / 2 - 1));
        p.drawRect(r.adjusted(-1, -1, 1, 1).translated(area.topLeft()));
    }
}

void BitMapCanvas::paintContent(QPainter& p, const QRect& area)
{
    p.save();
    p.setClipRect(area);
    p.fillRect(area, m_theme.background);
    if (!m_map) {
        p.restore();
        return;
    }
    const int gutter = gutterWidth(), header = headerHeight(), rh = rowHeight();
    const int visibleRows = (area.height() - header) / rh + 1;
    const uint64_t first = firstRow();
    const int scrollX = firstColPixels();
    const int ax = area.left(), ay = area.top();

    // Cells.
    p.save();
    p.setClipRect(QRect(ax + gutter, ay + header, area.width() - gutter, area.height() - header));
    if (m_stored) {
        const int W = int(m_map->wordBits());
        for (int r = 0; r < visibleRows; ++r) {
            const uint64_t row = first + uint64_t(r);
            if (row >= rowCount())
                break;
            const int y = ay + header + r * rh;
            for (uint64_t k = 0; k < m_wordsPerRow; ++k) {
                const uint64_t word = row * m_wordsPerRow + k;
                if (word >= m_words)
                    break;
                const int x0 = ax + gutter + int(k) * wordWidth() - scrollX;
                if (x0 <= area.right() && x0 + W * m_cell >= ax + gutter)
                    paintStoredWord(p, word, x0, y);
            }
        }
    } else {
        paintLogicalCells(p, area, visibleRows);
    }
    if (m_selected)
        outlineElement(p, m_selected->first, m_selected->second, m_theme.text, 3, area);
    if (m_hovered)
        outlineElement(p, m_hovered->first, m_hovered->second, m_theme.accent, 2, area);
    p.restore();
    paintHeader(p, area);
    paintGutter(p, area, visibleRows);
    p.fillRect(QRect(ax, ay, gutter, header), m_theme.alternate);
    p.setPen(m_theme.mutedText);
    p.drawText(QRect(ax + 6, ay, gutter - 12, header), Qt::AlignLeft | Qt::AlignVCenter,
               m_stored ? tr("word  ·  bit") : tr("out \\ in"));
    p.restore();
}

// One stored word at (x0, y): its bits' colours, split-code notches, digits, edges and field names.
void BitMapCanvas::paintStoredWord(QPainter& p, uint64_t word, int x0, int y)
{
    const int W = int(m_map->wordBits());
    const QFontMetrics fm = p.fontMetrics();
    const QColor grid = mix(m_theme.background, m_theme.text, 0.18);
    const QColor unused = mix(m_theme.background, m_theme.mutedText, 0.25);
    const bool digits = m_cell >= bitDigitMinCell();
    std::vector<QColor> fills(static_cast<size_t>(W));
    // Bits no element uses: block metadata (scales, mins) or padding.
    for (int b = 0; b < W; ++b) {
        const QRect cell(x0 + (W - 1 - b) * m_cell, y, m_cell, m_cell);
        const int field = fieldIndexAt(word, b);
        fills[size_t(b)] = field < 0 ? unused : m_theme.fieldColor(field);
        p.fillRect(cell, fills[size_t(b)]);
    }
    const auto& pieces = piecesOf(word);
    for (const Piece& piece : pieces) {
        const QRect r(x0 + (W - piece.bit - piece.width) * m_cell, y, piece.width * m_cell, m_cell);
        const QColor fill = colorOf(piece.row, piece.col, piece.code);
        p.fillRect(r, fill);
        for (int b = piece.bit; b < piece.bit + piece.width && b < W; ++b)
            fills[size_t(b)] = fill;
        if (piece.pieceCount > 1 && m_cell >= 6) {
            // A split code: a notch on the edge where it continues elsewhere.
            const QColor mark = m_theme.text;
            const int notch = std::max(2, m_cell / 3);
            const bool continuesAbove = piece.piece + 1 < piece.pieceCount; // higher bits elsewhere
            const int nx = continuesAbove ? r.left() : r.right() - notch + 1;
            QPolygon tri;
            if (continuesAbove)
                tri << QPoint(nx, r.top()) << QPoint(nx + notch, r.top()) << QPoint(nx, r.top() + notch);
            else
                tri << QPoint(nx + notch, r.top()) << QPoint(nx + notch, r.top() + notch) << QPoint(nx, r.top());
            p.setPen(Qt::NoPen);
            p.setBrush(mark);
            p.drawPolygon(tri);
        }
    }
    if (digits) {
        // Each bit's value, on whatever colour its cell has.
        if (const auto value = wordValue(word))
            for (int b = 0; b < W; ++b) {
                p.setPen(textOn(fills[size_t(b)]));
                p.drawText(QRect(x0 + (W - 1 - b) * m_cell, y, m_cell, m_cell), Qt::AlignCenter,
                           ((*value >> b) & 1) ? QStringLiteral("1") : QStringLiteral("0"));
            }
    }
    if (m_cell >= 6) {
        // Element edges, and byte edges as slightly stronger ticks.
        p.setPen(QPen(m_theme.background, 1));
        for (const Piece& piece : pieces) {
            const int xl = x0 + (W - piece.bit - piece.width) * m_cell;
            p.drawLine(xl, y, xl, y + m_cell - 1);
        }
        p.setPen(QPen(grid, 1));
        for (int b = 8; b < W; b += 8) {
            const int xb = x0 + (W - b) * m_cell;
            p.drawLine(xb, y + m_cell, xb, y + m_cell + kStoredRowGap - 1);
        }
    }
    // GGUF: field names where a field starts inside this word and there is room
    // (the bits' own digits take the room when they are shown).
    if (m_blockBytes > 0 && m_cell >= 10 && !digits) {
        p.setPen(m_theme.text);
        for (int b = 0; b < W; b += 8) {
            const uint64_t byte = (word * uint64_t(W) + uint64_t(b)) / 8;
            for (const qs::BlockField& f : m_map->spec().blockFields) {
                if (byte % m_blockBytes != f.byteOffset || !piecesOf(word).empty())
                    continue;
                const QRect r(x0 + (W - b - 8) * m_cell, y, 8 * m_cell, m_cell);
                p.drawText(r.adjusted(2, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                           fm.elidedText(QString::fromStdString(f.name), Qt::ElideRight, r.width() - 2));
            }
        }
    }
}

// The logical matrix: one cell per element, coloured by its tile and code.
void BitMapCanvas::paintLogicalCells(QPainter& p, const QRect& area, int visibleRows)
{
    const int gutter = gutterWidth(), header = headerHeight(), rh = rowHeight();
    const uint64_t first = firstRow();
    const int scrollX = firstColPixels();
    const int ax = area.left(), ay = area.top();
    const qs::LayoutParams& lp = m_map->params();
    const uint64_t c0 = uint64_t(scrollX / m_cell);
    const int cols = (area.width() - gutter) / m_cell + 2;
    for (int r = 0; r < visibleRows; ++r) {
        const uint64_t row = first + uint64_t(r);
        if (row >= lp.N)
            break;
        const int y = ay + header + r * rh;
        for (int c = 0; c < cols; ++c) {
            const uint64_t col = c0 + uint64_t(c);
            if (col >= lp.K)
                break;
            const int x = ax + gutter + int(int64_t(col) * m_cell - scrollX);
            const QRect cell(x, y, m_cell, m_cell);
            p.fillRect(m_cell >= 6 ? cell.adjusted(0, 0, -1, -1) : cell, colorOf(row, col, codeOf(row, col)));
        }
    }
}

// Bit numbers (stored) or column indices (logical) above the cells.
void BitMapCanvas::paintHeader(QPainter& p, const QRect& area)
{
    const QFontMetrics fm = p.fontMetrics();
    const int gutter = gutterWidth(), header = headerHeight();
    const int scrollX = firstColPixels();
    const int ax = area.left(), ay = area.top();
    p.fillRect(QRect(ax, ay, area.width(), header), m_theme.alternate);
    p.setPen(m_theme.mutedText);
    p.save();
    p.setClipRect(QRect(ax + gutter, ay, area.width() - gutter, header));
    if (m_stored) {
        for (const BitLabel& label : bitLabels())
            p.drawText(label.rect.translated(ax, ay), Qt::AlignCenter, QString::number(label.bit));
    } else {
        const int label = fm.horizontalAdvance(QStringLiteral("000000")) + 6;
        const int every = std::max(1, (label + m_cell - 1) / m_cell);
        int step = 1;
        while (step < every)
            step *= 2;
        const uint64_t c0 = uint64_t(scrollX / m_cell) / uint64_t(step) * uint64_t(step);
        for (uint64_t col = c0; col < m_map->params().K; col += uint64_t(step)) {
            const int x = ax + gutter + int(int64_t(col) * m_cell - scrollX);
            if (x > area.right())
                break;
            p.drawLine(x, ay + header - 4, x, ay + header - 1);
            p.drawText(QRect(x + 2, ay, label, header - 2), Qt::AlignLeft | Qt::AlignVCenter, QString::number(col));
        }
    }
    p.restore();
}

// Word index and file offset (stored), row index (logical), left of the cells.
void BitMapCanvas::paintGutter(QPainter& p, const QRect& area, int visibleRows)
{
    const QFontMetrics fm = p.fontMetrics();
    const int gutter = gutterWidth(), header = headerHeight(), rh = rowHeight();
    const uint64_t first = firstRow();
    const int ax = area.left(), ay = area.top();
    p.fillRect(QRect(ax, ay + header, gutter, area.height() - header), m_theme.alternate);
    p.save();
    p.setClipRect(QRect(ax, ay + header, gutter, area.height() - header));
    const int labelEvery = std::max(1, (fm.height() + rh - 1) / rh);
    for (int r = 0; r < visibleRows; ++r) {
        const uint64_t row = first + uint64_t(r);
        if (row >= rowCount())
            break;
        if (row % uint64_t(labelEvery) != 0)
            continue;
        const QRect line(ax + 6, ay + header + r * rh + m_cell / 2 - fm.height() / 2, gutter - 12, fm.height());
        if (m_stored) {
            const auto [index, offset] = gutterLabels(row);
            p.setPen(m_theme.text);
            p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, index);
            p.setPen(m_theme.mutedText);
            p.drawText(line, Qt::AlignRight | Qt::AlignVCenter, offset);
        } else {
            p.setPen(m_theme.text);
            p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, tr("row %1").arg(row));
        }
    }
    p.restore();
}

QSize BitMapCanvas::figureSize(uint64_t rows) const
{
    if (!m_map)
        return {};
    const uint64_t cells = m_stored ? m_wordsPerRow * uint64_t(wordWidth()) : m_map->params().K * uint64_t(m_cell);
    return QSize(clampToInt(uint64_t(gutterWidth()) + cells),
                 clampToInt(uint64_t(headerHeight()) + std::min(rows, rowCount()) * uint64_t(rowHeight())));
}

void BitMapCanvas::paintFigure(QPainter& painter, const QRect& area, uint64_t first)
{
    // paintContent draws from the scroll position: put it at `first` and the left edge for the
    // figure, and back afterwards without a repaint or a scroll signal.
    QScrollBar* vertical = verticalScrollBar();
    QScrollBar* horizontal = horizontalScrollBar();
    const QSignalBlocker blockV(vertical), blockH(horizontal);
    const int v = vertical->value(), h = horizontal->value();
    const int range = vertical->maximum();
    vertical->setMaximum(std::max(range, clampToInt(first)));
    vertical->setValue(clampToInt(first));
    horizontal->setValue(0);
    m_figureWidth = area.width(); // the header numbers every bit the figure shows, not only those in view
    paintContent(painter, area);
    m_figureWidth = 0;
    vertical->setValue(v);
    vertical->setMaximum(range);
    horizontal->setValue(h);
}

uint64_t BitMapCanvas::shownRows() const
{
    return uint64_t(std::max(1, (viewport()->height() - headerHeight()) / rowHeight()));
}

void BitMapCanvas::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    paintContent(p, viewport()->rect());
}

void BitMapCanvas::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateGeometry();
}

void BitMapCanvas::scrollContentsBy(int, int)
{
    viewport()->update();
}

void BitMapCanvas::mouseMoveEvent(QMouseEvent* event)
{
    emit hoveredAt(hitTest(event->position().toPoint()));
}

void BitMapCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    if (const auto hit = hitTest(event->position().toPoint()))
        emit clickedAt(*hit);
}

void BitMapCanvas::leaveEvent(QEvent* event)
{
    QAbstractScrollArea::leaveEvent(event);
    emit hoveredAt(std::nullopt);
}

QString BitMapCanvas::hexOfRow(uint64_t row) const
{
    if (!m_map)
        return {};
    const uint64_t rowBytes = m_wordsPerRow * m_map->wordBits() / 8, first = row * rowBytes;
    if (rowBytes == 0 || first >= m_codeBytes.size())
        return {};
    // As a hex editor copies a line: the file offset, then the bytes in stored order.
    QString line = QStringLiteral("%1 ").arg(m_fileOffset + first, 8, 16, QLatin1Char('0'));
    for (uint64_t i = first; i < std::min<uint64_t>(first + rowBytes, m_codeBytes.size()); ++i)
        line += QStringLiteral(" %1").arg(m_codeBytes[i], 2, 16, QLatin1Char('0'));
    return line;
}

void BitMapCanvas::copySelectedRow() const
{
    uint64_t row = firstRow();
    if (m_selected && m_stored) {
        const qs::ElementLocation e = m_map->spec().locate(m_map->params(), m_selected->first, m_selected->second);
        if (e.pieceCount > 0)
            row = e.pieces[0].word / m_wordsPerRow;
    }
    if (const QString hex = hexOfRow(row); !hex.isEmpty())
        QGuiApplication::clipboard()->setText(hex);
}

void BitMapCanvas::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::Copy)) {
        copySelectedRow();
        event->accept();
        return;
    }
    switch (event->key()) {
    case Qt::Key_Left: emit stepSelection(0, -1); break;
    case Qt::Key_Right: emit stepSelection(0, 1); break;
    case Qt::Key_Up: emit stepSelection(-1, 0); break;
    case Qt::Key_Down: emit stepSelection(1, 0); break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
    }
    event->accept();
}

void BitMapCanvas::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        setCellSize(m_cell + (event->angleDelta().y() > 0 ? 2 : -2));
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

} // namespace qsw
