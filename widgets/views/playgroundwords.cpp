#include "playgroundwords.h"

#include <QFontDatabase>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace qsw {

namespace {

constexpr int kMargin = 8;
constexpr int kGutter = 118;
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

PlaygroundWords::Geometry PlaygroundWords::layoutIn(const QRect& rect) const
{
    const QFontMetrics fm(font());
    Geometry g;
    g.firstTop = rect.top() + kMargin + titleHeight(fm, !m_content.note.isEmpty()) + kHeader;
    g.cellsLeft = rect.left() + kMargin + kGutter;
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
    return {kGutter + 32 * 22 + 2 * kMargin,
            titleHeight(fm, !m_content.note.isEmpty()) + kHeader + rows * (kCellHeight + kLabelHeight + kRowGap)
                + kMargin};
}

QSize PlaygroundWords::minimumSizeHint() const
{
    // Every word: in a scroll area, the words scroll rather than being cut off.
    // At least the narrowest cells layoutIn draws (10 px).
    return {kGutter + 32 * 10 + 2 * kMargin, std::max(120, sizeHint().height())};
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

// The word `w` at `position` of the line at `y`: its bits in their elements' colours, each
// field outlined and labelled, a code running on into the next word named in the gutter.
void PlaygroundWords::paintWord(QPainter& p, size_t w, int position, int y, const Geometry& g, int left,
                                const QFont& small) const
{
    const QFontMetrics fm(font());
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

    p.setFont(small);
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
    // Field outlines and labels.
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
        p.setPen(focus || f.field >= 0 ? m_theme.text : m_theme.mutedText);
        const QString label = fieldLabel(f);
        const QRectF labelBox(box.left(), y + kCellHeight, box.width(), kLabelHeight);
        if (fm.horizontalAdvance(label) * 0.8 <= labelBox.width() + 2)
            p.drawText(labelBox, Qt::AlignCenter, label);
        // A code that runs on into the next word: named in the gutter, where it fits.
        if (f.pieces > 1 && f.piece + 1 < f.pieces)
            for (size_t n = w + 1; n < m_content.words.size(); ++n) {
                const auto& next = m_content.words[n].fields;
                if (std::any_of(next.begin(), next.end(), [&](const qs::PlaygroundField& o) {
                        return o.field < 0 && o.row == f.row && o.col == f.col && o.piece == f.piece + 1;
                    })) {
                    p.setPen(m_theme.text);
                    p.drawText(QRect(left, y + kCellHeight, kGutter - 4, kLabelHeight),
                               Qt::AlignLeft | Qt::AlignVCenter,
                               tr("k%1 → word %2").arg(f.col).arg(m_content.words[n].index));
                    break;
                }
            }
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
    int y = rect.top() + kMargin;
    const int left = rect.left() + kMargin;
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(m_theme.text);
    p.drawText(QRect(left, y, rect.width() - 2 * kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(m_content.title, Qt::ElideRight, rect.width() - 2 * kMargin));
    p.setFont(font);
    if (!m_content.note.isEmpty()) {
        p.setPen(m_theme.mutedText);
        p.drawText(QRect(left, y + fm.height(), rect.width() - 2 * kMargin, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(m_content.note, Qt::ElideRight, rect.width() - 2 * kMargin));
    }
    const Geometry g = layoutIn(rect);
    y = g.firstTop - kHeader;
    const double cell = g.cell;
    const int W = std::clamp(m_content.wordBits, 1, 32);
    // Bit b of the word at `position` in its line: words left to right, each MSB left.
    auto cellX = [&](int position, int bit) { return g.cellsLeft + (position * W + W - 1 - bit) * cell; };

    QFont small = font;
    small.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.8));
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSizeF(font.pointSizeF());

    // Bit numbers above the first line.
    p.setFont(small);
    p.setPen(m_theme.mutedText);
    if (W == 32)
        for (int bit : {31, 24, 16, 8, 0})
            p.drawText(QRectF(cellX(0, bit), y, cell, kHeader), Qt::AlignCenter, QString::number(bit));
    else
        for (int position = 0; position < 32 / W; ++position)
            for (int bit : {W - 1, 0})
                p.drawText(QRectF(cellX(position, bit), y, cell, kHeader), Qt::AlignCenter, QString::number(bit));
    y += kHeader;

    const auto all = lines();
    for (size_t l = 0; l < all.size(); ++l) {
        const std::vector<size_t>& line = all[l];
        if (y + kCellHeight > rect.bottom()) {
            // A smaller canvas (an export) than the words need: say what is left out.
            size_t remaining = 0;
            for (size_t m = l; m < all.size(); ++m)
                remaining += all[m].size();
            p.setFont(font);
            p.setPen(m_theme.mutedText);
            p.drawText(QRect(rect.left() + kMargin, y - kRowGap, rect.width() - 2 * kMargin, fm.height()),
                       Qt::AlignLeft | Qt::AlignVCenter, tr("… %n more word(s)", nullptr, int(remaining)));
            break;
        }
        const qs::PlaygroundWord& first = m_content.words[line.front()];
        p.setFont(font);
        p.setPen(m_theme.mutedText);
        p.drawText(QRect(left, y - 2, kGutter, kCellHeight / 2 + 4), Qt::AlignLeft | Qt::AlignVCenter,
                   W == 32 ? tr("word %1").arg(first.index) : tr("byte %1").arg(first.index));
        p.setFont(mono);
        p.setPen(m_theme.text);
        QString hex;
        if (W == 32) {
            hex = QStringLiteral("0x%1")
                      .arg(first.value, 8, 16, QLatin1Char('0'))
                      .toUpper()
                      .replace(QLatin1String("0X"), QLatin1String("0x"));
        } else {
            QStringList bytes;
            for (size_t i : line)
                bytes
                    << QStringLiteral("%1").arg(m_content.words[i].value, (W + 3) / 4, 16, QLatin1Char('0')).toUpper();
            hex = bytes.join(QLatin1Char(' '));
        }
        p.drawText(QRect(left, y + kCellHeight / 2 - 2, kGutter, kCellHeight / 2 + 6), Qt::AlignLeft | Qt::AlignVCenter,
                   hex);

        for (size_t position = 0; position < line.size(); ++position)
            paintWord(p, line[position], int(position), y, g, left, small);
        y += g.pitch;
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
