#include "wordfigure.h"

#include "figurepainter.h"

#include "base/intmath.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace qsw {

namespace {

constexpr double kByteW = 44, kByteH = 28, kFieldLine = 20, kBitW = 28, kBitH = 40;
constexpr int kBytesPerRow = 16;

// A named context lupdate can see (a free Text::tr() wrapper hid these strings from it).
class WordText {
    Q_DECLARE_TR_FUNCTIONS(WordFigure)
};

} // namespace

WordFigure::WordFigure(const qs::LayoutSpec& spec, const qs::LayoutParams& params)
    : m_spec(spec)
    , m_params(params)
    , m_diagram(SlotDiagram::build(spec, params))
    , m_blockBytes(m_diagram.blockBytes)
{
}

QSizeF WordFigure::naturalSize() const
{
    if (isBlock()) {
        const int rows = int(qs::ceilDiv(m_blockBytes, kBytesPerRow));
        return {2 * kFigureMargin + kBytesPerRow * kByteW + 60,
                kFigureMargin + kFigureTitle + rows * (kByteH + 4) + 10 + double(m_spec.blockFields.size()) * kFieldLine
                    + kFigureMargin};
    }
    const int wordBits = m_diagram.wordBits;
    const size_t inWord =
        std::count_if(m_diagram.elements.begin(), m_diagram.elements.end(), [&](const SlotDiagram::Element& e) {
            return !m_diagram.words.empty()
                && std::any_of(e.pieces.begin(), e.pieces.end(),
                               [&](const qs::BitPiece& p) { return p.word == m_diagram.words.front(); });
        });
    return {std::max(640.0, 2 * kFigureMargin + wordBits * kBitW),
            kFigureMargin + kFigureTitle + 18 + kBitH + 24 + double(inWord + 1) * kFieldLine + kFigureMargin};
}

void WordFigure::paint(QPainter& painter, const QRectF& target, const Theme& theme) const
{
    const QSizeF size = naturalSize();
    beginFigure(painter, target, size, theme.background);
    QFont bold = painter.font();
    bold.setBold(true);
    bold.setPixelSize(16);
    painter.setFont(bold);
    painter.setPen(theme.text);
    painter.drawText(QPointF(kFigureMargin, kFigureMargin + 14), QString::fromStdString(m_spec.name));
    QFont base = painter.font();
    base.setBold(false);
    base.setPixelSize(12);
    painter.setFont(base);
    painter.setPen(theme.mutedText);
    if (isBlock())
        painter.drawText(
            QPointF(kFigureMargin, kFigureMargin + 34),
            WordText::tr("One block: %1 bytes, fields in byte order, bit ticks within each byte").arg(m_blockBytes));
    else
        painter.drawText(QPointF(kFigureMargin, kFigureMargin + 34),
                         WordText::tr("One %1-bit word of %2, the most significant bit on the left")
                             .arg(m_diagram.wordBits)
                             .arg(m_diagram.tensor));
    if (isBlock())
        paintBlock(painter, theme);
    else
        paintWord(painter, theme);
    painter.restore();
}

void WordFigure::paintBlock(QPainter& painter, const Theme& theme) const
{
    QFont base = painter.font();
    QFont small = base;
    small.setPixelSize(9);
    QFont label = base;
    label.setPixelSize(11);
    label.setBold(true);
    const double top = kFigureMargin + kFigureTitle;
    const auto fieldOf = [&](uint32_t byte) {
        for (size_t i = 0; i < m_spec.blockFields.size(); ++i)
            if (byte >= m_spec.blockFields[i].byteOffset
                && byte < m_spec.blockFields[i].byteOffset + m_spec.blockFields[i].byteSize)
                return int(i);
        return -1;
    };
    for (uint32_t b = 0; b < m_blockBytes; ++b) {
        const int row = int(b / kBytesPerRow), col = int(b % kBytesPerRow);
        const QRectF r(kFigureMargin + 44 + col * kByteW, top + row * (kByteH + 4), kByteW, kByteH);
        const int f = fieldOf(b);
        const QColor c = f >= 0 ? theme.fieldColor(f) : theme.alternate;
        painter.fillRect(r, c);
        painter.setPen(QPen(textOn(c), 0.4));
        for (int t = 1; t < 8; ++t)
            painter.drawLine(QPointF(r.left() + t * kByteW / 8, r.bottom() - 5),
                             QPointF(r.left() + t * kByteW / 8, r.bottom()));
        painter.setPen(QPen(theme.background, 1));
        painter.drawRect(r);
        const bool fieldStart = f >= 0 && (b == m_spec.blockFields[size_t(f)].byteOffset || col == 0);
        painter.setPen(textOn(c));
        if (fieldStart) {
            painter.setFont(label);
            painter.drawText(r.adjusted(3, 1, 40, 0), Qt::AlignLeft | Qt::AlignTop,
                             QString::fromStdString(m_spec.blockFields[size_t(f)].name));
        }
        if (col == 0) {
            painter.setFont(small);
            painter.setPen(theme.mutedText);
            painter.drawText(QRectF(kFigureMargin, r.top(), 40, kByteH), Qt::AlignRight | Qt::AlignVCenter,
                             QStringLiteral("+%1").arg(b));
        }
    }
    // Field boundaries as heavier separators.
    for (const qs::BlockField& f : m_spec.blockFields) {
        const uint32_t b = f.byteOffset;
        const QRectF r(kFigureMargin + 44 + int(b % kBytesPerRow) * kByteW, top + int(b / kBytesPerRow) * (kByteH + 4),
                       kByteW, kByteH);
        painter.setPen(QPen(theme.text, 2));
        painter.drawLine(r.topLeft(), r.bottomLeft());
    }
    const int rows = int(qs::ceilDiv(m_blockBytes, kBytesPerRow));
    double y = top + rows * (kByteH + 4) + 10;
    painter.setFont(base);
    const QFontMetricsF fm(base);
    for (size_t i = 0; i < m_spec.blockFields.size(); ++i) {
        const qs::BlockField& f = m_spec.blockFields[i];
        painter.fillRect(QRectF(kFigureMargin, y + 4, 12, 12), theme.fieldColor(int(i)));
        painter.setPen(theme.text);
        const QString text = WordText::tr("%1  @%2, %3 bytes, %4: %5")
                                 .arg(QString::fromStdString(f.name))
                                 .arg(f.byteOffset)
                                 .arg(f.byteSize)
                                 .arg(QString::fromStdString(f.kind), QString::fromStdString(f.meaning));
        painter.drawText(QPointF(kFigureMargin + 18, y + 14),
                         fm.elidedText(text, Qt::ElideRight, kBytesPerRow * kByteW + 20));
        y += kFieldLine;
    }
}

void WordFigure::paintWord(QPainter& painter, const Theme& theme) const
{
    if (m_diagram.words.empty()) {
        painter.setPen(theme.error);
        painter.drawText(QPointF(kFigureMargin, kFigureMargin + kFigureTitle + 20), m_diagram.error);
        return;
    }
    const uint64_t word = m_diagram.words.front();
    const int wb = m_diagram.wordBits;
    QFont base = painter.font();
    QFont small = base;
    small.setPixelSize(10);
    const double top = kFigureMargin + kFigureTitle + 18;
    painter.setFont(small);
    // MSB on the left, as every view draws a word.
    auto bitX = [&](int b) { return kFigureMargin + (wb - 1 - b) * kBitW; };
    for (int b = 0; b < wb; ++b) {
        painter.setPen(theme.mutedText);
        painter.drawText(QRectF(bitX(b), top - 16, kBitW, 14), Qt::AlignCenter, QString::number(b));
        const QRectF r(bitX(b), top, kBitW, kBitH);
        const int owner = m_diagram.elementAt(word, b);
        if (owner >= 0) {
            painter.fillRect(r, theme.elementColor(m_diagram.elements[size_t(owner)].colour));
        } else {
            painter.fillRect(r, theme.alternate);
            painter.fillRect(r, QBrush(theme.mutedText, Qt::BDiagPattern));
        }
        painter.setPen(QPen(theme.mutedText, 0.5));
        painter.drawRect(r);
    }
    std::vector<int> inWord;
    for (size_t i = 0; i < m_diagram.elements.size(); ++i)
        for (const qs::BitPiece& pc : m_diagram.elements[i].pieces)
            if (pc.word == word) {
                const QRectF r(bitX(pc.bit + pc.width - 1), top, pc.width * kBitW, kBitH);
                const QColor c = theme.elementColor(m_diagram.elements[i].colour);
                painter.setPen(QPen(theme.text, 1.5));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(r);
                painter.setFont(base);
                painter.setPen(textOn(c));
                if (QFontMetricsF(base).horizontalAdvance(m_diagram.elements[i].label) + 4 <= r.width())
                    painter.drawText(r, Qt::AlignCenter, m_diagram.elements[i].label);
                inWord.push_back(int(i));
            }
    painter.setPen(QPen(theme.text, 2));
    painter.drawRect(QRectF(kFigureMargin, top, wb * kBitW, kBitH));
    painter.setFont(base);
    double y = top + kBitH + 24;
    painter.setPen(theme.text);
    painter.drawText(QPointF(kFigureMargin, y), WordText::tr("%1 word %2 holds:").arg(m_diagram.tensor).arg(word));
    for (int i : inWord) {
        const auto& el = m_diagram.elements[size_t(i)];
        y += kFieldLine;
        painter.fillRect(QRectF(kFigureMargin, y - 11, 12, 12), theme.elementColor(el.colour));
        QStringList parts;
        for (const qs::BitPiece& pc : el.pieces)
            parts << WordText::tr("word %1 bits %2..%3").arg(pc.word).arg(pc.bit).arg(pc.bit + pc.width - 1);
        painter.setPen(theme.text);
        painter.drawText(QPointF(kFigureMargin + 18, y),
                         WordText::tr("element (n %1, k %2)%3: %4")
                             .arg(el.row)
                             .arg(el.col)
                             .arg(el.slot >= 0 ? WordText::tr(", slot %1").arg(el.slot) : QString())
                             .arg(parts.join(QStringLiteral(" + "))));
    }
}

} // namespace qsw
