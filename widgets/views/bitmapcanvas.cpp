#include "bitmapcanvas.h"

#include "base/intmath.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/wordmap.h"

#include <QClipboard>
#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QMenu>
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
    m_hexFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_hexFont.setPointSizeF(font().pointSizeF());
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
    if (!m_map || m_mode != BitMapMode::Bits)
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
    m_byteSelection.reset();
    m_dragAnchor.reset();
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

void BitMapCanvas::setMode(BitMapMode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
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
    else if (m_mode == BitMapMode::Bits)
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
    // The element's bytes become the byte selection, unless a drag over the bytes chose it.
    if (!m_dragAnchor)
        m_byteSelection = element ? elementBytes(element->first, element->second) : std::nullopt;
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
    if (m_mode == BitMapMode::Bytes) {
        const QFontMetrics hex(m_hexFont);
        return std::max(hex.horizontalAdvance(QStringLiteral("%1").arg(m_fileOffset + bytes, 8, 16, QLatin1Char('0'))),
                        fontMetrics().horizontalAdvance(tr("Offset")))
            + 16;
    }
    const QString label =
        m_mode == BitMapMode::Bits ? tr("word  ·  bit") : tr("row %1").arg(m_map ? m_map->params().N : 0);
    return std::max(fontMetrics().horizontalAdvance(widest), fontMetrics().horizontalAdvance(label)) + 16;
}

int BitMapCanvas::footerHeight() const
{
    // Bytes: the legend and the selected row in binary (two lines); logical: the colour scale.
    const int line = QFontMetrics(m_hexFont).height() + 4;
    return !m_map || m_mode == BitMapMode::Bits ? 0 : m_mode == BitMapMode::Bytes ? 3 * line + 10 : line + 12;
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
    if (m_mode == BitMapMode::Bytes)
        return QFontMetrics(m_hexFont).height() + 4;
    return m_mode == BitMapMode::Bits ? m_cell + kStoredRowGap : m_cell;
}

uint64_t BitMapCanvas::rowCount() const
{
    if (!m_map)
        return 0;
    if (m_mode == BitMapMode::Logical)
        return m_map->params().N;
    if (m_mode == BitMapMode::Bytes)
        return qs::ceilDiv(uint64_t(m_codeBytes.size()), kBytesPerRow);
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

uint64_t BitMapCanvas::contentWidth() const
{
    return m_mode == BitMapMode::Bits ? m_wordsPerRow * uint64_t(wordWidth())
        : m_mode == BitMapMode::Bytes ? uint64_t(fieldsX() + 40 * hexCharWidth())
                                      : m_map->params().K * uint64_t(m_cell);
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
    const int visibleRows = std::max(1, (viewport()->height() - headerHeight() - footerHeight()) / rowHeight());
    const uint64_t rows = rowCount();
    verticalScrollBar()->setRange(0, clampToInt(rows > uint64_t(visibleRows) ? rows - uint64_t(visibleRows) + 1 : 0));
    verticalScrollBar()->setPageStep(visibleRows);
    const uint64_t contentWidth = this->contentWidth();
    const int viewWidth = std::max(1, viewport()->width() - gutterWidth());
    horizontalScrollBar()->setRange(
        0, clampToInt(contentWidth > uint64_t(viewWidth) ? contentWidth - uint64_t(viewWidth) : 0));
    horizontalScrollBar()->setPageStep(viewWidth);
    horizontalScrollBar()->setSingleStep(std::max(1, m_cell));
}

void BitMapCanvas::scrollToWord(uint64_t word)
{
    if (!m_map || m_mode == BitMapMode::Logical)
        return;
    const uint64_t row =
        m_mode == BitMapMode::Bytes ? word * m_map->wordBits() / 8 / kBytesPerRow : word / m_wordsPerRow;
    const uint64_t first = firstRow();
    const uint64_t page = uint64_t(std::max(1, verticalScrollBar()->pageStep()));
    if (row < first || row >= first + page - 1)
        verticalScrollBar()->setValue(clampToInt(row > page / 3 ? row - page / 3 : 0));
}

void BitMapCanvas::scrollToElement(uint64_t row, uint64_t col)
{
    if (!m_map || row >= m_map->params().N || col >= m_map->params().K)
        return;
    if (m_mode != BitMapMode::Logical) {
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

double BitMapCanvas::maxCode() const
{
    return m_codeBits >= 64 ? 18446744073709551615.0 : double((uint64_t(1) << m_codeBits) - 1);
}

QColor BitMapCanvas::colorOf(uint64_t row, uint64_t col, uint64_t code) const
{
    return m_theme.elementColor(int(m_map->tileIndex(row, col)), maxCode() > 0 ? double(code) / maxCode() : 0);
}

QColor BitMapCanvas::codeHeatColor(uint64_t code) const
{
    return m_theme.codeColor(maxCode() > 0 ? double(code) / maxCode() : 0);
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
    if (!m_map || m_mode != BitMapMode::Bits || word >= m_words || bit < 0 || bit >= int(m_map->wordBits()))
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
    if (!m_map || m_mode != BitMapMode::Logical || row >= m_map->params().N || col >= m_map->params().K)
        return std::nullopt;
    const uint64_t first = firstRow();
    if (row < first || (row - first) * uint64_t(m_cell) > uint64_t(viewport()->height()))
        return std::nullopt;
    const int y = headerHeight() + int(row - first) * m_cell + m_cell / 2;
    const int64_t x = int64_t(gutterWidth()) + int64_t(col) * m_cell - firstColPixels() + m_cell / 2;
    if (y >= viewport()->height() - footerHeight() || x < gutterWidth() || x >= viewport()->width())
        return std::nullopt;
    return QPoint(int(x), y);
}

std::optional<BitMapHit> BitMapCanvas::hitTest(QPoint pos) const
{
    if (!m_map || pos.x() < gutterWidth() || pos.y() < headerHeight()
        || pos.y() >= viewport()->height() - footerHeight())
        return std::nullopt;
    BitMapHit hit;
    if (m_mode == BitMapMode::Bytes) {
        int bitInByte = -1;
        const auto byte = byteAt(pos, &bitInByte);
        if (!byte)
            return std::nullopt;
        hit.byte = *byte;
        const qs::ByteContent content = qs::byteContent(*m_map, *byte);
        // The ASCII column names no bit: its byte's first code stands for it.
        if (bitInByte < 0)
            bitInByte = content.codes.empty() ? 0 : content.codes.front().bit;
        hit.word = *byte * 8 / m_map->wordBits();
        hit.bit = int(*byte * 8 % m_map->wordBits()) + bitInByte;
        for (const qs::ByteCode& code : content.codes)
            if (bitInByte >= code.bit && bitInByte < code.bit + code.width) {
                hit.isElement = true;
                hit.row = code.row;
                hit.col = code.col;
            }
        if (content.field >= 0) {
            hit.field = QString::fromStdString(m_map->spec().blockFields[size_t(content.field)].name);
            hit.blockElement = blockElementOf(hit.word);
        }
        return hit;
    }
    const uint64_t row = firstRow() + uint64_t((pos.y() - headerHeight()) / rowHeight());
    const int64_t x = int64_t(pos.x() - gutterWidth()) + firstColPixels();
    if (m_mode == BitMapMode::Logical) {
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
    if (m_mode == BitMapMode::Bytes) {
        for (const auto& [lo, hi] : pieceBytes(row, col))
            for (uint64_t b = lo; b <= hi; ++b)
                if (const auto c = byteCenter(b)) {
                    const int cw = hexCharWidth(), h = rowHeight();
                    p.drawRect(QRect(c->x() - 3 * cw / 2, c->y() - h / 2, 3 * cw, h - 1).translated(area.topLeft()));
                }
        return;
    }
    if (m_mode == BitMapMode::Logical) {
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
    const int footer = footerHeight();
    const int visibleRows = (area.height() - header - footer) / rh + 1;
    const uint64_t first = firstRow();
    const int scrollX = firstColPixels();
    const int ax = area.left(), ay = area.top();

    // Cells.
    p.save();
    p.setClipRect(QRect(ax + gutter, ay + header, area.width() - gutter, area.height() - header - footer));
    if (m_mode == BitMapMode::Bytes) {
        paintBytes(p, area, visibleRows);
    } else if (m_mode == BitMapMode::Bits) {
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
               m_mode == BitMapMode::Bits        ? tr("word  ·  bit")
                   : m_mode == BitMapMode::Bytes ? tr("Offset")
                                                 : tr("out \\ in"));
    if (m_mode == BitMapMode::Bytes)
        paintBytesFooter(p, area);
    else if (m_mode == BitMapMode::Logical)
        paintLogicalFooter(p, area);
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

// The logical matrix: one cell per element, a heatmap of its code.
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
            p.fillRect(m_cell >= 6 ? cell.adjusted(0, 0, -1, -1) : cell, codeHeatColor(codeOf(row, col)));
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
    if (m_mode == BitMapMode::Bytes) {
        // Column numbers over the hex digits, as a hex editor heads them.
        p.setFont(m_hexFont);
        const int x0 = ax + gutter - scrollX;
        for (int i = 0; i < int(kBytesPerRow); ++i)
            p.drawText(QRect(x0 + hexX(i), ay, 2 * hexCharWidth(), header), Qt::AlignCenter,
                       QStringLiteral("%1").arg(i, 2, 16, QLatin1Char('0')));
        p.setFont(font());
        p.drawText(QRect(x0 + asciiX(), ay, 16 * hexCharWidth(), header), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("ASCII"));
        p.drawText(QRect(x0 + fieldsX(), ay, 40 * hexCharWidth(), header), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("Fields"));
    } else if (m_mode == BitMapMode::Bits) {
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
    const int footer = footerHeight();
    p.fillRect(QRect(ax, ay + header, gutter, area.height() - header - footer), m_theme.alternate);
    p.save();
    p.setClipRect(QRect(ax, ay + header, gutter, area.height() - header - footer));
    if (m_mode == BitMapMode::Bytes) {
        p.setFont(m_hexFont);
        p.setPen(m_theme.mutedText);
        for (int r = 0; r < visibleRows; ++r) {
            const uint64_t row = first + uint64_t(r);
            if (row >= rowCount())
                break;
            p.drawText(QRect(ax + 6, ay + header + r * rh, gutter - 12, rh), Qt::AlignRight | Qt::AlignVCenter,
                       QStringLiteral("%1").arg(m_fileOffset + row * kBytesPerRow, 8, 16, QLatin1Char('0')));
        }
        p.restore();
        return;
    }
    const int labelEvery = std::max(1, (fm.height() + rh - 1) / rh);
    for (int r = 0; r < visibleRows; ++r) {
        const uint64_t row = first + uint64_t(r);
        if (row >= rowCount())
            break;
        if (row % uint64_t(labelEvery) != 0)
            continue;
        const QRect line(ax + 6, ay + header + r * rh + m_cell / 2 - fm.height() / 2, gutter - 12, fm.height());
        if (m_mode == BitMapMode::Bits) {
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

// ---- Bytes mode ----

int BitMapCanvas::hexCharWidth() const
{
    return QFontMetrics(m_hexFont).horizontalAdvance(QLatin1Char('0'));
}

int BitMapCanvas::hexX(int column) const
{
    // Three characters a byte, one more between the two halves of a row, as hex editors space them.
    const int cw = hexCharWidth();
    return cw + column * 3 * cw + (column >= int(kBytesPerRow) / 2 ? cw : 0);
}

int BitMapCanvas::asciiX() const
{
    return hexX(int(kBytesPerRow) - 1) + 4 * hexCharWidth();
}

int BitMapCanvas::fieldsX() const
{
    return asciiX() + (int(kBytesPerRow) + 2) * hexCharWidth();
}

std::array<QColor, 8> BitMapCanvas::byteFills(uint64_t byte) const
{
    std::array<QColor, 8> fills;
    fills.fill(mix(m_theme.background, m_theme.mutedText, 0.12)); // padding
    const qs::ByteContent content = qs::byteContent(*m_map, byte);
    if (content.field >= 0) {
        fills.fill(m_theme.byteColor(content.field));
        return fills;
    }
    for (const qs::ByteCode& code : content.codes)
        for (int b = code.bit; b < code.bit + code.width && b < 8; ++b)
            fills[size_t(b)] = m_theme.byteColor(code.place);
    return fills;
}

std::vector<std::pair<uint64_t, uint64_t>> BitMapCanvas::pieceBytes(uint64_t row, uint64_t col) const
{
    const qs::ElementLocation e = m_map->spec().locate(m_map->params(), row, col);
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (uint8_t i = 0; i < e.pieceCount; ++i) {
        const uint64_t first = e.pieces[i].word * e.wordBits + e.pieces[i].bit;
        out.emplace_back(first / 8, (first + e.pieces[i].width - 1) / 8);
    }
    return out;
}

std::optional<std::pair<uint64_t, uint64_t>> BitMapCanvas::elementBytes(uint64_t row, uint64_t col) const
{
    if (!m_map || row >= m_map->params().N || col >= m_map->params().K || m_codeBytes.empty())
        return std::nullopt;
    // The bytes of its pieces where they touch (a code straddling a word edge); a code whose
    // high bits lie apart (Q5_0's qh) selects the bytes of its low bits only, not the ones between.
    std::optional<std::pair<uint64_t, uint64_t>> out;
    for (const auto& [lo, hi] : pieceBytes(row, col))
        if (!out)
            out = std::pair(lo, hi);
        else if (lo <= out->second + 1 && hi + 1 >= out->first)
            out = std::pair(std::min(out->first, lo), std::max(out->second, hi));
    if (out && out->first >= m_codeBytes.size())
        return std::nullopt;
    if (out)
        out->second = std::min<uint64_t>(out->second, m_codeBytes.size() - 1);
    return out;
}

std::optional<QPoint> BitMapCanvas::byteCenter(uint64_t byte) const
{
    if (!m_map || m_mode != BitMapMode::Bytes || byte >= m_codeBytes.size())
        return std::nullopt;
    const uint64_t row = byte / kBytesPerRow, first = firstRow();
    if (row < first || (row - first) * uint64_t(rowHeight()) > uint64_t(viewport()->height()))
        return std::nullopt;
    const int y = headerHeight() + int(row - first) * rowHeight() + rowHeight() / 2;
    const int x = gutterWidth() - firstColPixels() + hexX(int(byte % kBytesPerRow)) + hexCharWidth();
    if (y >= viewport()->height() - footerHeight() || x < gutterWidth() || x >= viewport()->width())
        return std::nullopt;
    return QPoint(x, y);
}

std::optional<uint64_t> BitMapCanvas::byteAt(QPoint pos, int* bitInByte) const
{
    const uint64_t row = firstRow() + uint64_t((pos.y() - headerHeight()) / rowHeight());
    const int x = pos.x() - gutterWidth() + firstColPixels(), cw = hexCharWidth();
    *bitInByte = -1;
    std::optional<uint64_t> column;
    for (int i = 0; i < int(kBytesPerRow) && !column; ++i) {
        const int left = hexX(i) - cw / 2;
        if (x >= left && x < left + 3 * cw) {
            column = uint64_t(i);
            *bitInByte = 7 - (x - left) * 8 / (3 * cw); // MSB left, as the bits are drawn
        }
    }
    if (!column && x >= asciiX() && x < asciiX() + int(kBytesPerRow) * cw)
        column = uint64_t((x - asciiX()) / cw);
    if (!column || row * kBytesPerRow + *column >= m_codeBytes.size())
        return std::nullopt;
    return row * kBytesPerRow + *column;
}

void BitMapCanvas::setByteSelection(uint64_t first, uint64_t last)
{
    if (m_codeBytes.empty())
        return;
    last = std::min<uint64_t>(std::max(first, last), m_codeBytes.size() - 1);
    m_byteSelection = std::pair(std::min(first, last), last);
    viewport()->update();
}

QString BitMapCanvas::hexOfSelection() const
{
    if (!m_byteSelection)
        return {};
    QStringList bytes;
    for (uint64_t b = m_byteSelection->first; b <= m_byteSelection->second && b < m_codeBytes.size(); ++b)
        bytes << QStringLiteral("%1").arg(m_codeBytes[b], 2, 16, QLatin1Char('0'));
    return bytes.join(QLatin1Char(' '));
}

QString BitMapCanvas::hexLinesOfSelection() const
{
    if (!m_byteSelection || m_mode != BitMapMode::Bytes)
        return {};
    QStringList lines;
    for (uint64_t row = m_byteSelection->first / kBytesPerRow; row <= m_byteSelection->second / kBytesPerRow; ++row)
        lines << hexOfRow(row);
    return lines.join(QLatin1Char('\n'));
}

std::vector<std::pair<QString, int>> BitMapCanvas::fieldRuns(uint64_t row) const
{
    // Each field once per run of its bytes; a block's first byte is announced by its number.
    std::vector<std::pair<QString, int>> runs;
    if (m_map && m_blockBytes == 0) {
        // A packed format: the elements of each word the row holds, as (row, first–last col).
        const uint64_t wordBytes = std::max<uint64_t>(1, m_map->wordBits() / 8);
        for (uint64_t word = row * kBytesPerRow / wordBytes;
             word < (row + 1) * kBytesPerRow / wordBytes && word * wordBytes < m_codeBytes.size(); ++word) {
            const auto& pieces = piecesOf(word);
            if (pieces.empty())
                continue;
            const auto [lo, hi] = std::minmax_element(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
                return std::pair(a.row, a.col) < std::pair(b.row, b.col);
            });
            runs.emplace_back(lo->row == hi->row && lo->col != hi->col
                                  ? QStringLiteral("(%1, %2–%3)").arg(lo->row).arg(lo->col).arg(hi->col)
                                  : QStringLiteral("(%1, %2)").arg(lo->row).arg(lo->col),
                              -1);
        }
        return runs;
    }
    // A one-field block (a plain dtype's element) is named once a row, not once a block.
    const bool oneField = m_map && m_map->spec().blockFields.size() == 1;
    int lastField = -1;
    for (uint64_t i = 0; i < kBytesPerRow; ++i) {
        const uint64_t byte = row * kBytesPerRow + i;
        if (!m_map || byte >= m_codeBytes.size())
            break;
        const qs::ByteContent c = qs::byteContent(*m_map, byte);
        if (c.field < 0 || (c.field == lastField && (!c.fieldStart || oneField))) {
            lastField = c.field;
            continue;
        }
        const qs::BlockField& field = m_map->spec().blockFields[size_t(c.field)];
        if (c.fieldStart && field.byteOffset == 0 && !oneField)
            runs.emplace_back(tr("block %1").arg(c.block), -1);
        runs.emplace_back(QString::fromStdString(field.name), c.field);
        lastField = c.field;
    }
    return runs;
}

QStringList BitMapCanvas::rowFieldLabels(uint64_t row) const
{
    QStringList out;
    for (const auto& [name, field] : fieldRuns(row))
        out << name;
    return out;
}

std::vector<ByteLegendEntry> BitMapCanvas::byteLegend() const
{
    std::vector<ByteLegendEntry> out;
    if (!m_map)
        return out;
    if (m_blockBytes > 0) {
        for (size_t i = 0; i < m_map->spec().blockFields.size(); ++i)
            out.push_back({QString::fromStdString(m_map->spec().blockFields[i].name), m_theme.byteColor(int(i))});
        return out;
    }
    // A packed word: its codes by place (the slots), LSB first.
    const size_t places = m_map->piecesIn(0).size();
    for (size_t i = 0; i < places; ++i)
        out.push_back({tr("slot %1").arg(i), m_theme.byteColor(int(i))});
    return out;
}

void BitMapCanvas::paintBytes(QPainter& p, const QRect& area, int visibleRows)
{
    const int gutter = gutterWidth(), header = headerHeight(), rh = rowHeight(), cw = hexCharWidth();
    const int x0 = area.left() + gutter - firstColPixels();
    const uint64_t first = firstRow();
    const QColor selection = withAlpha(m_theme.accent, 110);
    const QFontMetrics uiMetrics = p.fontMetrics();
    p.setFont(m_hexFont);
    for (int r = 0; r < visibleRows; ++r) {
        const uint64_t row = first + uint64_t(r);
        if (row >= rowCount())
            break;
        const int y = area.top() + header + r * rh;
        for (int i = 0; i < int(kBytesPerRow); ++i) {
            const uint64_t byte = row * kBytesPerRow + uint64_t(i);
            if (byte >= m_codeBytes.size())
                break;
            const std::array<QColor, 8> fills = byteFills(byte);
            const int left = x0 + hexX(i) - cw / 2, width = 3 * cw;
            // Each bit's share of the cell, MSB left, so a code's nibble sits behind its hex digit.
            for (int b = 7; b >= 0; --b)
                p.fillRect(QRect(left + (7 - b) * width / 8, y, (8 - b) * width / 8 - (7 - b) * width / 8, rh - 1),
                           fills[size_t(b)]);
            const QRect ascii(x0 + asciiX() + i * cw, y, cw, rh - 1);
            p.fillRect(ascii, fills[7]);
            const bool selected = m_byteSelection && byte >= m_byteSelection->first && byte <= m_byteSelection->second;
            if (selected) {
                p.fillRect(QRect(left, y, width, rh - 1), selection);
                p.fillRect(ascii, selection);
            }
            const uint8_t value = m_codeBytes[byte];
            p.setPen(m_theme.text);
            p.drawText(QRect(x0 + hexX(i), y, 2 * cw, rh), Qt::AlignCenter,
                       QStringLiteral("%1").arg(value, 2, 16, QLatin1Char('0')));
            p.setPen(value >= 0x20 && value < 0x7f ? m_theme.text : m_theme.mutedText);
            p.drawText(ascii, Qt::AlignCenter,
                       value >= 0x20 && value < 0x7f ? QString(QChar(value)) : QStringLiteral("."));
        }
        // The Fields column: each field's name on its tint, a block's number where it starts.
        int x = x0 + fieldsX();
        p.setFont(font());
        for (const auto& [name, field] : fieldRuns(row)) {
            const int w = uiMetrics.horizontalAdvance(name) + 8;
            if (field >= 0)
                p.fillRect(QRect(x, y + 1, w, rh - 3), m_theme.byteColor(field));
            p.setPen(field >= 0 ? m_theme.text : m_theme.mutedText);
            p.drawText(QRect(x, y, w, rh), Qt::AlignCenter, name);
            x += w + cw / 2;
        }
        p.setFont(m_hexFont);
    }
    p.setFont(font());
}

void BitMapCanvas::paintBytesFooter(QPainter& p, const QRect& area)
{
    const int footer = footerHeight(), gutter = gutterWidth(), cw = hexCharWidth();
    const int line = QFontMetrics(m_hexFont).height() + 4;
    const int top = area.bottom() + 1 - footer;
    p.fillRect(QRect(area.left(), top, area.width(), footer), m_theme.alternate);
    p.setPen(mix(m_theme.background, m_theme.text, 0.25));
    p.drawLine(area.left(), top, area.right(), top);
    // The legend: what the tints behind the hex mean.
    int x = area.left() + gutter;
    const QFontMetrics fm = p.fontMetrics();
    p.setPen(m_theme.mutedText);
    p.drawText(QRect(area.left() + 6, top + 4, gutter - 12, line), Qt::AlignLeft | Qt::AlignVCenter, tr("Legend"));
    for (const ByteLegendEntry& entry : byteLegend()) {
        const int w = fm.horizontalAdvance(entry.name) + 10;
        p.fillRect(QRect(x, top + 5, w, line - 2), entry.color);
        p.setPen(m_theme.text);
        p.drawText(QRect(x, top + 4, w, line), Qt::AlignCenter, entry.name);
        x += w + 6;
    }
    // The selection's first row (the first row shown without one) in binary, 8 bytes a line.
    const uint64_t row = m_byteSelection ? m_byteSelection->first / kBytesPerRow : firstRow();
    p.setFont(m_hexFont);
    const QColor selection = withAlpha(m_theme.accent, 110);
    for (int half = 0; half < 2; ++half) {
        const int y = top + 6 + (half + 1) * line;
        const uint64_t firstByte = row * kBytesPerRow + uint64_t(half) * kBytesPerRow / 2;
        if (firstByte >= m_codeBytes.size())
            break;
        p.setPen(m_theme.mutedText);
        p.drawText(QRect(area.left() + 6, y, gutter - 12, line), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("%1").arg(m_fileOffset + firstByte, 8, 16, QLatin1Char('0')));
        for (int k = 0; k < int(kBytesPerRow) / 2; ++k) {
            const uint64_t byte = firstByte + uint64_t(k);
            if (byte >= m_codeBytes.size())
                break;
            const std::array<QColor, 8> fills = byteFills(byte);
            const bool selected = m_byteSelection && byte >= m_byteSelection->first && byte <= m_byteSelection->second;
            for (int b = 7; b >= 0; --b) {
                const QRect cell(area.left() + gutter + cw + k * 9 * cw + (7 - b) * cw, y, cw, line - 1);
                p.fillRect(cell, fills[size_t(b)]);
                if (selected)
                    p.fillRect(cell, selection);
                p.setPen(m_theme.text);
                p.drawText(cell, Qt::AlignCenter,
                           (m_codeBytes[byte] >> b) & 1 ? QStringLiteral("1") : QStringLiteral("0"));
            }
        }
    }
    p.setFont(font());
}

void BitMapCanvas::paintLogicalFooter(QPainter& p, const QRect& area)
{
    const int footer = footerHeight(), gutter = gutterWidth();
    const int top = area.bottom() + 1 - footer;
    p.fillRect(QRect(area.left(), top, area.width(), footer), m_theme.alternate);
    const QFontMetrics fm = p.fontMetrics();
    p.setPen(m_theme.mutedText);
    p.drawText(QRect(area.left() + 6, top, gutter - 12, footer), Qt::AlignLeft | Qt::AlignVCenter, tr("Code"));
    // The colour scale: code 0 on the left to the largest code on the right.
    const int barWidth = 256, x0 = area.left() + gutter + fm.horizontalAdvance(QStringLiteral("0")) + 12;
    const QRect bar(x0, top + 6, barWidth, footer - 12);
    for (int i = 0; i < barWidth; ++i)
        p.fillRect(QRect(bar.left() + i, bar.top(), 1, bar.height()), m_theme.codeColor(double(i) / (barWidth - 1)));
    p.setPen(m_theme.text);
    p.drawText(QRect(area.left() + gutter, top, x0 - area.left() - gutter - 6, footer),
               Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));
    p.drawText(QRect(bar.right() + 6, top, 200, footer), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 (largest code, %2 bits)").arg(QString::number(maxCode(), 'f', 0)).arg(m_codeBits));
}

QSize BitMapCanvas::figureSize(uint64_t rows) const
{
    if (!m_map)
        return {};
    // The bytes mode's legend and binary row, and the heatmap's colour scale, belong to the figure.
    return QSize(clampToInt(uint64_t(gutterWidth()) + contentWidth()),
                 clampToInt(uint64_t(headerHeight()) + std::min(rows, rowCount()) * uint64_t(rowHeight())
                            + uint64_t(footerHeight())));
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
    return uint64_t(std::max(1, (viewport()->height() - headerHeight() - footerHeight()) / rowHeight()));
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
    const auto hit = hitTest(event->position().toPoint());
    if (m_dragAnchor && hit && hit->byte && (event->buttons() & Qt::LeftButton)) {
        // A drag over the bytes selects the range, as in a hex editor.
        m_byteSelection = std::minmax(*m_dragAnchor, *hit->byte);
        viewport()->update();
    }
    emit hoveredAt(hit);
}

void BitMapCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const auto hit = hitTest(event->position().toPoint());
    if (!hit)
        return;
    if (hit->byte) {
        m_dragAnchor = hit->byte;
        m_byteSelection = std::pair(*hit->byte, *hit->byte);
        viewport()->update();
    }
    emit clickedAt(*hit);
}

void BitMapCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    QAbstractScrollArea::mouseReleaseEvent(event);
    m_dragAnchor.reset();
}

void BitMapCanvas::contextMenuEvent(QContextMenuEvent* event)
{
    if (m_mode != BitMapMode::Bytes || !m_byteSelection)
        return;
    QMenu menu(this);
    menu.addAction(tr("Copy as Hex"), this, [this] { copyToClipboard(hexOfSelection()); })
        ->setShortcut(QKeySequence::Copy);
    menu.addAction(tr("Copy as Hex-Editor Lines"), this, [this] { copyToClipboard(hexLinesOfSelection()); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    menu.exec(event->globalPos());
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
    const uint64_t rowBytes = m_mode == BitMapMode::Bytes ? kBytesPerRow : m_wordsPerRow * m_map->wordBits() / 8;
    const uint64_t first = row * rowBytes;
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
    if (m_selected && m_mode == BitMapMode::Bits) {
        const qs::ElementLocation e = m_map->spec().locate(m_map->params(), m_selected->first, m_selected->second);
        if (e.pieceCount > 0)
            row = e.pieces[0].word / m_wordsPerRow;
    }
    copyToClipboard(hexOfRow(row));
}

void BitMapCanvas::copyToClipboard(const QString& text) const
{
    if (!text.isEmpty())
        QGuiApplication::clipboard()->setText(text);
}

void BitMapCanvas::keyPressEvent(QKeyEvent* event)
{
    if (m_mode == BitMapMode::Bytes && event->key() == Qt::Key_C
        && event->modifiers() == (Qt::ControlModifier | Qt::ShiftModifier)) {
        copyToClipboard(hexLinesOfSelection());
        event->accept();
        return;
    }
    if (event->matches(QKeySequence::Copy)) {
        if (m_mode == BitMapMode::Bytes)
            copyToClipboard(hexOfSelection());
        else
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
