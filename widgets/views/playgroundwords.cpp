#include "playgroundwords.h"

#include <QFontDatabase>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace qsw {

namespace {

constexpr int kMargin = 8;
constexpr int kMinGutter = 118;
constexpr int kMaxGutter = 240;
constexpr int kCellHeight = 22;
constexpr int kLabelHeight = 16;
constexpr int kRowGap = 8;
constexpr int kHeader = 16;

int titleHeight(const QFontMetrics& fm, bool note)
{
    return fm.height() * (note ? 2 : 1) + 6;
}

} // namespace

PlaygroundWords::PlaygroundWords(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(true);
}

QFont PlaygroundWords::labelFont(Label::Kind kind) const
{
    QFont f = font();
    if (kind == Label::WordName || kind == Label::More)
        return f;
    if (kind == Label::WordHex) {
        QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        mono.setPointSizeF(f.pointSizeF());
        return mono;
    }
    f.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.8));
    return f;
}

QString PlaygroundWords::lineName(const std::vector<size_t>& line) const
{
    const uint64_t index = m_content.words[line.front()].index;
    return m_content.wordBits == 32 ? tr("word %1").arg(index) : tr("byte %1").arg(index);
}

QString PlaygroundWords::lineHex(const std::vector<size_t>& line) const
{
    const int W = std::clamp(m_content.wordBits, 1, 32);
    if (W == 32)
        return QStringLiteral("0x%1")
            .arg(m_content.words[line.front()].value, 8, 16, QLatin1Char('0'))
            .toUpper()
            .replace(QLatin1String("0X"), QLatin1String("0x"));
    QStringList bytes;
    for (size_t i : line)
        bytes << QStringLiteral("%1").arg(m_content.words[i].value, (W + 3) / 4, 16, QLatin1Char('0')).toUpper();
    return bytes.join(QLatin1Char(' '));
}

// Where the codes that run on past this line's words continue, or else whose later pieces the
// line holds. One note a line: a byte of a k-quant's low bits holds two codes and a line four
// such bytes, whose high bits lie in other bytes (Q6_K's qh, Q3_K's hmask, Q5_K's qh); a note
// per code stood eight deep in one place.
QString PlaygroundWords::lineContinuation(const std::vector<size_t>& line) const
{
    const bool words = m_content.wordBits == 32;
    std::vector<std::pair<uint64_t, uint64_t>> goesOn; // (column, word the next piece is in)
    for (size_t w : line)
        for (const qs::PlaygroundField& f : m_content.words[w].fields) {
            if (f.field >= 0 || f.pieces <= 1 || f.piece + 1 >= f.pieces)
                continue;
            for (size_t n = w + 1; n < m_content.words.size(); ++n) {
                const auto& next = m_content.words[n].fields;
                if (std::any_of(next.begin(), next.end(), [&](const qs::PlaygroundField& o) {
                        return o.field < 0 && o.row == f.row && o.col == f.col && o.piece == f.piece + 1;
                    })) {
                    goesOn.emplace_back(f.col, m_content.words[n].index);
                    break;
                }
            }
        }
    if (goesOn.empty()) {
        // A line of the codes' later pieces (qh, hmask): whose they are, as their cells are
        // mostly too narrow for a label of their own.
        uint64_t first = UINT64_MAX, last = 0;
        for (size_t w : line)
            for (const qs::PlaygroundField& f : m_content.words[w].fields)
                if (f.field < 0 && f.piece > 0) {
                    first = std::min(first, f.col);
                    last = std::max(last, f.col);
                }
        if (first == UINT64_MAX)
            return {};
        return first == last ? tr("·hi of k%1").arg(first) : tr("·hi of k%1–k%2").arg(first).arg(last);
    }
    if (goesOn.size() == 1)
        return words ? tr("k%1 → word %2").arg(goesOn[0].first).arg(goesOn[0].second)
                     : tr("k%1 → byte %2").arg(goesOn[0].first).arg(goesOn[0].second);
    uint64_t first = goesOn[0].second, last = first;
    for (const auto& g : goesOn) {
        first = std::min(first, g.second);
        last = std::max(last, g.second);
    }
    if (first == last)
        return words ? tr("·hi → word %1").arg(first) : tr("·hi → byte %1").arg(first);
    return words ? tr("·hi → words %1–%2").arg(first).arg(last) : tr("·hi → bytes %1–%2").arg(first).arg(last);
}

// Wide enough for every line's name, hex and note, within bounds: the cells take the rest.
int PlaygroundWords::gutterWidth() const
{
    const QFontMetrics name(labelFont(Label::WordName)), hex(labelFont(Label::WordHex)),
        note(labelFont(Label::Continuation));
    int wide = 0;
    for (const std::vector<size_t>& line : lines())
        wide = std::max({wide, name.horizontalAdvance(lineName(line)), hex.horizontalAdvance(lineHex(line)),
                         note.horizontalAdvance(lineContinuation(line))});
    return std::clamp(wide + 6, kMinGutter, kMaxGutter);
}

PlaygroundWords::Geometry PlaygroundWords::layoutIn(const QRect& rect) const
{
    const QFontMetrics fm(font());
    Geometry g;
    g.firstTop = rect.top() + kMargin + titleHeight(fm, !m_content.note.isEmpty()) + kHeader;
    // The gutter gives way to the narrowest cells (a note is elided then) rather than widen the
    // window: at 1280x720 the wider gutter made the Playground push the window to 1310 px.
    g.gutter = std::clamp(rect.width() - 2 * kMargin - 32 * 10, kMinGutter, gutterWidth());
    g.cellsLeft = rect.left() + kMargin + g.gutter;
    g.cell = std::clamp((rect.right() - kMargin - g.cellsLeft) / 32.0, 10.0, 34.0);
    g.pitch = kCellHeight + kLabelHeight + kRowGap;
    return g;
}

std::vector<std::vector<size_t>> PlaygroundWords::lines() const
{
    const size_t perLine = size_t(32 / std::clamp(m_content.wordBits, 1, 32));
    std::vector<std::vector<size_t>> out;
    for (size_t i = 0; i < m_content.words.size(); ++i) {
        if (out.empty() || out.back().size() == perLine || m_content.words[i].index != m_content.words[i - 1].index + 1)
            out.emplace_back();
        out.back().push_back(i);
    }
    return out;
}

std::optional<std::pair<uint64_t, uint64_t>> PlaygroundWords::fieldAt(const QPoint& pos) const
{
    const Geometry g = layoutIn(rect());
    if (pos.y() < g.firstTop || pos.x() < g.cellsLeft || g.pitch <= 0)
        return std::nullopt;
    const auto all = lines();
    const size_t line = size_t((pos.y() - g.firstTop) / g.pitch);
    const int top = g.firstTop + int(line) * g.pitch;
    if (line >= all.size() || pos.y() >= top + kCellHeight || top + kCellHeight > rect().bottom())
        return std::nullopt;
    const int W = std::clamp(m_content.wordBits, 1, 32);
    const int cellIndex = int(std::floor((pos.x() - g.cellsLeft) / g.cell));
    const size_t position = size_t(cellIndex / W);
    if (cellIndex >= 32 || position >= all[line].size())
        return std::nullopt;
    const int bit = W - 1 - cellIndex % W;
    for (const qs::PlaygroundField& f : m_content.words[all[line][position]].fields)
        if (f.field < 0 && bit >= f.bit && bit < f.bit + f.width)
            return std::pair(f.row, f.col);
    return std::nullopt;
}

void PlaygroundWords::setHighlighted(std::optional<std::pair<uint64_t, uint64_t>> element)
{
    if (element == m_highlighted)
        return;
    m_highlighted = element;
    update();
}

void PlaygroundWords::mouseMoveEvent(QMouseEvent* event)
{
    const auto hit = fieldAt(event->position().toPoint());
    if (hit != m_lastHover) {
        m_lastHover = hit;
        emit hoveredField(hit ? qint64(hit->first) : -1, hit ? qint64(hit->second) : -1);
    }
    QWidget::mouseMoveEvent(event);
}

void PlaygroundWords::leaveEvent(QEvent* event)
{
    if (m_lastHover) {
        m_lastHover.reset();
        emit hoveredField(-1, -1);
    }
    QWidget::leaveEvent(event);
}

void PlaygroundWords::setContent(Content content)
{
    m_content = std::move(content);
    updateGeometry();
    update();
}

void PlaygroundWords::setTheme(const Theme& theme)
{
    m_theme = theme;
    update();
}

QSize PlaygroundWords::sizeHint() const
{
    const QFontMetrics fm(font());
    const int rows = int(std::max<size_t>(lines().size(), 1));
    return {gutterWidth() + 32 * 22 + 2 * kMargin,
            titleHeight(fm, !m_content.note.isEmpty()) + kHeader + rows * (kCellHeight + kLabelHeight + kRowGap)
                + kMargin};
}

QSize PlaygroundWords::minimumSizeHint() const
{
    // Every word: in a scroll area, the words scroll rather than being cut off.
    // At least the narrowest cells layoutIn draws (10 px).
    return {kMinGutter + 32 * 10 + 2 * kMargin, std::max(120, sizeHint().height())};
}

QString PlaygroundWords::fieldLabel(const qs::PlaygroundField& f) const
{
    if (f.field >= 0)
        return f.field < int(m_content.fieldNames.size()) ? m_content.fieldNames[size_t(f.field)] : QString();
    QString text =
        m_content.packsRows && f.row < m_content.rowNames.size() ? m_content.rowNames[f.row] : tr("k%1").arg(f.col);
    if (f.pieces > 1)
        text += f.piece == 0 ? tr("·lo") : tr("·hi");
    return text;
}

std::vector<PlaygroundWords::Label> PlaygroundWords::labels(const QRect& rect) const
{
    std::vector<Label> out;
    const Geometry g = layoutIn(rect);
    const double cell = g.cell;
    const int W = std::clamp(m_content.wordBits, 1, 32);
    const int left = rect.left() + kMargin;
    // Bit b of the word at `position` in its line: words left to right, each MSB left.
    auto cellX = [&](int position, int bit) { return g.cellsLeft + (position * W + W - 1 - bit) * cell; };
    const QFontMetrics smallMetrics(labelFont(Label::Field));

    // Bit numbers above the first line, each centred on its cell.
    int y = g.firstTop - kHeader;
    auto bitNumber = [&](int position, int bit) {
        const QString text = QString::number(bit);
        const double wide = std::max(cell, double(smallMetrics.horizontalAdvance(text)));
        out.push_back({Label::BitNumber, QRectF(cellX(position, bit) + (cell - wide) / 2, y, wide, kHeader), text});
    };
    if (W == 32)
        for (int bit : {31, 24, 16, 8, 0})
            bitNumber(0, bit);
    else
        for (int position = 0; position < 32 / W; ++position)
            for (int bit : {W - 1, 0})
                bitNumber(position, bit);
    y += kHeader;

    const auto all = lines();
    for (size_t l = 0; l < all.size(); ++l) {
        const std::vector<size_t>& line = all[l];
        if (y + kCellHeight > rect.bottom()) {
            // A smaller canvas (an export) than the words need: say what is left out.
            size_t remaining = 0;
            for (size_t m = l; m < all.size(); ++m)
                remaining += all[m].size();
            out.push_back({Label::More,
                           QRectF(left, y - kRowGap, rect.width() - 2 * kMargin, QFontMetrics(font()).height()),
                           tr("… %n more word(s)", nullptr, int(remaining))});
            break;
        }
        // The gutter: the first word's name over the hex, the note under them.
        out.push_back({Label::WordName, QRectF(left, y, g.gutter, kCellHeight / 2), lineName(line)});
        out.push_back({Label::WordHex, QRectF(left, y + kCellHeight / 2, g.gutter, kCellHeight / 2), lineHex(line)});
        if (const QString note = lineContinuation(line); !note.isEmpty())
            out.push_back({Label::Continuation, QRectF(left, y + kCellHeight, g.gutter - 4, kLabelHeight),
                           smallMetrics.elidedText(note, Qt::ElideRight, g.gutter - 4)});
        // A field's label under its cells, where it fits.
        for (size_t position = 0; position < line.size(); ++position)
            for (const qs::PlaygroundField& f : m_content.words[line[position]].fields) {
                const int hi = std::min(f.bit + f.width - 1, W - 1);
                const QRectF box(cellX(int(position), hi), y + kCellHeight, cell * (hi - f.bit + 1), kLabelHeight);
                const QString text = fieldLabel(f);
                const bool focus =
                    f.field < 0 && f.row == 0 && f.col >= m_content.focusBegin && f.col < m_content.focusEnd;
                if (!text.isEmpty() && smallMetrics.horizontalAdvance(text) <= box.width())
                    out.push_back({Label::Field, box, text, focus || f.field >= 0});
            }
        y += g.pitch;
    }
    return out;
}

// The word `w` at `position` of the line at `y`: its bits in their elements' colours, each
// field outlined.
void PlaygroundWords::paintWord(QPainter& p, size_t w, int position, int y, const Geometry& g) const
{
    const double cell = g.cell;
    const int W = std::clamp(m_content.wordBits, 1, 32);
    const double maxCode = double((1 << m_content.bits) - 1);
    auto cellX = [&](int pos, int bit) { return g.cellsLeft + (pos * W + W - 1 - bit) * cell; };
    const int pos = position;
    const qs::PlaygroundWord& word = m_content.words[w];
    // Which field owns each bit.
    int owner[32];
    std::fill(std::begin(owner), std::end(owner), -1);
    for (size_t i = 0; i < word.fields.size(); ++i)
        for (int b = word.fields[i].bit; b < word.fields[i].bit + word.fields[i].width && b < W; ++b)
            owner[b] = int(i);

    p.setFont(labelFont(Label::Field));
    for (int bit = W - 1; bit >= 0; --bit) {
        const QRectF r(cellX(pos, bit), y, cell, kCellHeight);
        QColor fill = m_theme.alternate;
        if (owner[bit] >= 0) {
            const qs::PlaygroundField& f = word.fields[size_t(owner[bit])];
            if (f.field >= 0) {
                fill = m_theme.fieldColor(f.field);
            } else {
                const int hue = m_content.packsRows ? int(f.row)
                    : f.tile >= 0                   ? int(f.tile)
                    : f.slot >= 0                   ? f.slot
                                                    : int(f.col % 32);
                fill = m_theme.elementColor(hue, maxCode > 0 ? f.code / maxCode : 0);
            }
        }
        p.fillRect(r, fill);
        p.setPen(QPen(m_theme.background, 1));
        p.drawRect(r);
        p.setPen(owner[bit] < 0 ? m_theme.mutedText : (fill.lightness() > 140 ? QColor(Qt::black) : QColor(Qt::white)));
        p.drawText(r, Qt::AlignCenter, QString::number((word.value >> bit) & 1u));
    }
    // Field outlines.
    for (const qs::PlaygroundField& f : word.fields) {
        const int hi = std::min(f.bit + f.width - 1, W - 1);
        const QRectF box(cellX(pos, hi), y, cell * (hi - f.bit + 1), kCellHeight);
        const bool focus = f.field < 0 && f.row == 0 && f.col >= m_content.focusBegin && f.col < m_content.focusEnd;
        const bool lit =
            f.field < 0 && m_highlighted && m_highlighted->first == f.row && m_highlighted->second == f.col;
        p.setPen(lit ? QPen(m_theme.accent, 3.0)
                     : QPen(focus && m_content.packsRows ? m_theme.accent : m_theme.text,
                            focus && m_content.packsRows ? 2.0 : 1.0));
        p.setBrush(Qt::NoBrush);
        p.drawRect(box);
    }
    if (position > 0) {
        // Word edges inside a line.
        p.setPen(QPen(m_theme.text, 2));
        p.drawLine(QPointF(cellX(pos, W - 1), y), QPointF(cellX(pos, W - 1), y + kCellHeight));
    }
}

void PlaygroundWords::paint(QPainter& p, const QRect& rect) const
{
    p.save();
    p.fillRect(rect, m_theme.background);
    QFont font = this->font();
    p.setFont(font);
    const QFontMetrics fm(font);
    const int left = rect.left() + kMargin;
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(m_theme.text);
    const int top = rect.top() + kMargin;
    p.drawText(QRect(left, top, rect.width() - 2 * kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(m_content.title, Qt::ElideRight, rect.width() - 2 * kMargin));
    p.setFont(font);
    if (!m_content.note.isEmpty()) {
        p.setPen(m_theme.mutedText);
        p.drawText(QRect(left, top + fm.height(), rect.width() - 2 * kMargin, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(m_content.note, Qt::ElideRight, rect.width() - 2 * kMargin));
    }
    const Geometry g = layoutIn(rect);
    const auto all = lines();
    int y = g.firstTop;
    for (const std::vector<size_t>& line : all) {
        if (y + kCellHeight > rect.bottom())
            break;
        for (size_t position = 0; position < line.size(); ++position)
            paintWord(p, line[position], int(position), y, g);
        y += g.pitch;
    }
    for (const Label& label : labels(rect)) {
        p.setFont(labelFont(label.kind));
        const bool muted = label.kind == Label::BitNumber || label.kind == Label::WordName || label.kind == Label::More
            || (label.kind == Label::Field && !label.strong);
        p.setPen(muted ? m_theme.mutedText : m_theme.text);
        const Qt::Alignment align = label.kind == Label::Field || label.kind == Label::BitNumber
            ? Qt::AlignCenter
            : Qt::AlignLeft | Qt::AlignVCenter;
        p.drawText(label.box, align, label.text);
    }
    p.restore();
}

void PlaygroundWords::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    paint(p, rect());
}

} // namespace qsw
