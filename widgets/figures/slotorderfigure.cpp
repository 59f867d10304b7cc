#include "slotorderfigure.h"

#include "figurepainter.h"

#include "base/error.h"
#include "formats/wordmap.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <numeric>

namespace qsw {

namespace {

constexpr double kBox = 34, kCurves = 120, kStrip = 30, kBelow = 40, kLegendLine = 18;
constexpr size_t kMaxElements = 32;
constexpr double kWordGap = 6, kJumpGap = 26; // between neighbouring words, and where indices jump

// A named context lupdate can see (a free Text::tr() wrapper hid these strings from it).
class SlotText {
    Q_DECLARE_TR_FUNCTIONS(SlotOrderFigure)
};

QString elementLabel(qs::PackAxis axis, uint64_t row, uint64_t col)
{
    switch (axis) {
    case qs::PackAxis::Out: return QStringLiteral("n%1").arg(row);
    case qs::PackAxis::Tile: return QStringLiteral("n%1,k%2").arg(row).arg(col);
    case qs::PackAxis::Block: return row ? QStringLiteral("%1,%2").arg(row).arg(col) : QString::number(col);
    default: return row ? QStringLiteral("n%1,k%2").arg(row).arg(col) : QStringLiteral("k%1").arg(col);
    }
}

} // namespace

SlotDiagram SlotDiagram::build(const qs::LayoutSpec& spec, const qs::LayoutParams& p)
{
    SlotDiagram d;
    if (!spec.locate || p.K == 0 || p.N == 0) {
        d.error = SlotText::tr("no layout to draw");
        return d;
    }
    std::vector<std::pair<uint64_t, uint64_t>> cands;
    const uint64_t kCap = std::min<uint64_t>(p.K, 256), nCap = std::min<uint64_t>(p.N, 128);
    switch (spec.packAxis) {
    case qs::PackAxis::Out:
        for (uint64_t r = 0; r < nCap; ++r)
            cands.push_back({r, 0});
        break;
    case qs::PackAxis::Tile:
        for (uint64_t r = 0; r < std::min<uint64_t>(p.N, 64); ++r)
            for (uint64_t c = 0; c < std::min<uint64_t>(p.K, 64); ++c)
                cands.push_back({r, c});
        break;
    default:
        for (uint64_t c = 0; c < kCap; ++c)
            cands.push_back({0, c});
    }
    std::vector<qs::ElementLocation> locs;
    locs.reserve(cands.size());
    for (const auto& [r, c] : cands)
        locs.push_back(spec.locate(p, r, c));
    const qs::ElementLocation& first = locs.front();
    d.tensor = QString::fromUtf8(first.tensor.data(), qsizetype(first.tensor.size()));
    d.wordBits = int(first.wordBits);

    d.blockBytes = qs::blockBytesOf(spec);
    // A block up to this many bits is drawn whole (Q4_0 to Q8_0); a larger one in part.
    constexpr uint32_t kWholeBlockBits = 384;
    const bool wholeBlock = spec.packAxis == qs::PackAxis::Block && d.blockBytes > 0
        && d.blockBytes * 8 <= kWholeBlockBits && (d.blockBytes * 8) % uint32_t(d.wordBits) == 0;
    size_t maxWords = 1;
    switch (spec.packAxis) {
    case qs::PackAxis::In:
    case qs::PackAxis::Out:
        maxWords = spec.straddles  ? size_t(p.bits / std::gcd(p.bits, d.wordBits))
            : first.pieceCount > 1 ? size_t(p.bits)
                                   : 1;
        break;
    case qs::PackAxis::Block: maxWords = size_t(std::clamp(192 / d.wordBits, 2, 12)); break;
    case qs::PackAxis::None: maxWords = 4; break;
    case qs::PackAxis::Tile: maxWords = 1; break;
    }
    std::vector<uint64_t> shown; // first appearance order
    if (wholeBlock) {
        for (uint64_t w = 0; w < d.blockBytes * 8 / uint32_t(d.wordBits); ++w)
            shown.push_back(w);
    } else {
        for (const auto& l : locs)
            for (int i = 0; i < l.pieceCount && shown.size() < maxWords; ++i)
                if (std::find(shown.begin(), shown.end(), l.pieces[i].word) == shown.end())
                    shown.push_back(l.pieces[i].word);
    }
    for (size_t i = 0; i < locs.size() && d.elements.size() < kMaxElements; ++i) {
        const auto& l = locs[i];
        bool inside = l.pieceCount > 0;
        for (int j = 0; j < l.pieceCount; ++j)
            inside = inside && std::find(shown.begin(), shown.end(), l.pieces[j].word) != shown.end();
        if (!inside)
            continue;
        Element e;
        e.row = cands[i].first;
        e.col = cands[i].second;
        e.label = elementLabel(spec.packAxis, e.row, e.col);
        e.slot = l.slot;
        e.colour = int(d.elements.size());
        e.pieces.assign(l.pieces, l.pieces + l.pieceCount);
        d.elements.push_back(std::move(e));
        for (int j = 0; j < l.pieceCount; ++j)
            d.words.push_back(l.pieces[j].word);
    }
    if (wholeBlock)
        d.words = shown; // the field bytes too, not only the words holding codes
    std::sort(d.words.begin(), d.words.end());
    d.words.erase(std::unique(d.words.begin(), d.words.end()), d.words.end());
    if (d.elements.empty()) {
        d.error = SlotText::tr("no element fits the diagram");
        return d;
    }
    // Colour by tile index, as the Bit map does; the order of appearance where no tile is found.
    try {
        const qs::WordMap map(spec, p);
        for (Element& e : d.elements)
            e.colour = int(map.tileIndex(e.row, e.col));
    } catch (const qs::Error&) {
    }
    if (spec.packAxis == qs::PackAxis::Block && !wholeBlock && d.blockBytes > 0) {
        // Elements of block 0 are those whose bits all lie in its words.
        const uint64_t blockWords = uint64_t(d.blockBytes) * 8 / uint64_t(d.wordBits);
        size_t inBlock = 0;
        for (const auto& l : locs)
            inBlock += l.pieceCount > 0 && std::all_of(l.pieces, l.pieces + l.pieceCount, [&](const qs::BitPiece& pc) {
                           return pc.word < blockWords;
                       });
        QStringList runs; // "0–11, 16–27"
        for (size_t i = 0; i < d.elements.size();) {
            size_t j = i;
            while (j + 1 < d.elements.size() && d.elements[j + 1].col == d.elements[j].col + 1)
                ++j;
            runs << (i == j ? QString::number(d.elements[i].col)
                            : QStringLiteral("%1–%2").arg(d.elements[i].col).arg(d.elements[j].col));
            i = j + 1;
        }
        d.elided = SlotText::tr("Shows elements %1 of the block's %2 and the %3 of its %4 bytes that hold them.")
                       .arg(runs.join(QStringLiteral(", ")))
                       .arg(inBlock)
                       .arg(d.words.size() * size_t(d.wordBits) / 8)
                       .arg(d.blockBytes);
    }
    return d;
}

int SlotDiagram::fieldAt(const qs::LayoutSpec& spec, uint64_t word, int bit) const
{
    return qs::blockFieldAt(spec, (word * uint64_t(wordBits) + uint64_t(bit)) / 8);
}

int SlotDiagram::elementAt(uint64_t word, int bit) const
{
    for (size_t i = 0; i < elements.size(); ++i)
        for (const qs::BitPiece& pc : elements[i].pieces)
            if (pc.word == word && bit >= pc.bit && bit < pc.bit + pc.width)
                return int(i);
    return -1;
}

double SlotOrderFigure::stripWidth() const
{
    double w = double(m_diagram.words.size() * size_t(m_diagram.wordBits)) * m_cell;
    for (size_t i = 1; i < m_diagram.words.size(); ++i)
        w += m_diagram.words[i] == m_diagram.words[i - 1] + 1 ? kWordGap : kJumpGap;
    return w;
}

std::vector<double> SlotOrderFigure::wordLefts() const
{
    // Centred in the figure; a narrow gap between neighbouring words, a wide one with an
    // ellipsis where the indices jump.
    std::vector<double> out;
    double x = kFigureMargin + std::max(0.0, (naturalSize().width() - 2 * kFigureMargin - stripWidth()) / 2);
    for (size_t i = 0; i < m_diagram.words.size(); ++i) {
        if (i)
            x += m_diagram.words[i] == m_diagram.words[i - 1] + 1 ? kWordGap : kJumpGap;
        out.push_back(x);
        x += m_diagram.wordBits * m_cell;
    }
    return out;
}

QRectF SlotOrderFigure::bitRect(uint64_t word, int bit) const
{
    const auto it = std::lower_bound(m_diagram.words.begin(), m_diagram.words.end(), word);
    if (it == m_diagram.words.end() || *it != word || bit < 0 || bit >= m_diagram.wordBits)
        return {};
    // MSB on the left, as the Bit map and hex dumps draw a word.
    const double left = wordLefts()[size_t(it - m_diagram.words.begin())] + (m_diagram.wordBits - 1 - bit) * m_cell;
    return {left, kFigureMargin + kFigureTitle + kBox + kCurves, m_cell, kStrip};
}

SlotOrderFigure::SlotOrderFigure(const qs::LayoutSpec& spec, const qs::LayoutParams& params)
    : m_spec(spec)
    , m_params(params)
    , m_diagram(SlotDiagram::build(spec, params))
{
    const double cells = double(std::max<size_t>(1, m_diagram.words.size()) * size_t(m_diagram.wordBits));
    m_cell = std::clamp(1000.0 / cells, 7.0, 26.0);
}

QSizeF SlotOrderFigure::naturalSize() const
{
    const double w = std::max(760.0, stripWidth() + 2 * kFigureMargin);
    return {w, kFigureMargin + kFigureTitle + kBox + kCurves + kStrip + kBelow + legendHeight(w) + kFigureMargin};
}

QFont SlotOrderFigure::baseFont()
{
    QFont base;
    base.setPixelSize(12);
    return base;
}

QString SlotOrderFigure::slotOrderText() const
{
    if (m_spec.slotOrder.empty())
        return SlotText::tr("natural");
    QStringList l;
    for (int s : m_spec.slotOrder)
        l << QString::number(s);
    return l.join(QStringLiteral(", "));
}

QStringList SlotOrderFigure::legendLines() const
{
    const QString axis = m_spec.packAxis == qs::PackAxis::Out ? SlotText::tr("n = output row")
        : m_spec.packAxis == qs::PackAxis::Block              ? SlotText::tr("element index within the block")
                                                              : SlotText::tr("k = input column, n = output row");
    QStringList lines{
        SlotText::tr("Top: logical elements (%1), colour by element. Bottom: bits of the stored %2 words, "
                     "the most significant bit on the left.")
            .arg(axis, m_diagram.tensor)};
    if (!m_diagram.elided.isEmpty())
        lines << m_diagram.elided;
    if (std::any_of(m_diagram.elements.begin(), m_diagram.elements.end(),
                    [](const SlotDiagram::Element& el) { return el.pieces.size() > 1; }))
        lines << SlotText::tr(
            "Elements with pieces ₀ ₁ are split across words or bit planes: piece ₀ holds the low bits.");
    if (!m_spec.slotOrder.empty())
        lines << SlotText::tr("Slot s holds the word's element order[s]: %1.").arg(slotOrderText());
    return lines;
}

// Each legend line wraps within the figure's width (a line longer than it was cut off).
double SlotOrderFigure::legendHeight(double width) const
{
    const QFontMetricsF fm(baseFont());
    double h = 0;
    for (const QString& line : legendLines())
        h += std::max(kLegendLine,
                      fm.boundingRect(QRectF(0, 0, width - 2 * kFigureMargin, 1e6), Qt::TextWordWrap, line).height());
    return std::max(h, 4 * kLegendLine);
}

void SlotOrderFigure::paint(QPainter& painter, const QRectF& target, const Theme& theme) const
{
    const QSizeF size = naturalSize();
    beginFigure(painter, target, size, theme.background);
    const QFont base = baseFont();
    QFont bold = base;
    bold.setBold(true);
    bold.setPixelSize(16);
    QFont small = base;
    small.setPixelSize(10);
    painter.setFont(bold);
    painter.setPen(theme.text);
    painter.drawText(QPointF(kFigureMargin, kFigureMargin + 14), QString::fromStdString(m_spec.name));
    painter.setFont(base);
    painter.setPen(theme.mutedText);
    painter.drawText(QPointF(kFigureMargin, kFigureMargin + 34),
                     SlotText::tr("%1 · b = %2 · pack axis %3 · %4-bit words · slot order %5")
                         .arg(QString::fromStdString(m_spec.id))
                         .arg(m_params.bits)
                         .arg(QString::fromUtf8(qs::packAxisName(m_spec.packAxis).data()))
                         .arg(m_diagram.wordBits)
                         .arg(slotOrderText()));
    if (!m_diagram.error.isEmpty()) {
        painter.setPen(theme.error);
        painter.drawText(QPointF(kFigureMargin, kFigureMargin + kFigureTitle + 20), m_diagram.error);
        painter.restore();
        return;
    }
    paintStrip(painter, theme, base, small);
    paintElements(painter, theme, base, small);

    painter.setFont(base);
    painter.setPen(theme.mutedText);
    double y = kFigureMargin + kFigureTitle + kBox + kCurves + kStrip + kBelow + kLegendLine - 13;
    for (const QString& line : legendLines()) {
        QRectF box;
        painter.drawText(QRectF(kFigureMargin, y, size.width() - 2 * kFigureMargin, 1e6), Qt::TextWordWrap, line, &box);
        y += std::max(kLegendLine, box.height());
    }
    painter.restore();
}

void SlotOrderFigure::paintStrip(QPainter& painter, const Theme& theme, const QFont& base, const QFont& small) const
{
    const double stripY = kFigureMargin + kFigureTitle + kBox + kCurves;
    const std::vector<double> wordX = wordLefts();
    painter.setPen(theme.mutedText);
    for (size_t i = 1; i < m_diagram.words.size(); ++i)
        if (m_diagram.words[i] != m_diagram.words[i - 1] + 1)
            painter.drawText(QRectF(wordX[i] - kJumpGap, stripY, kJumpGap, kStrip), Qt::AlignCenter,
                             QStringLiteral("…"));
    const int W = m_diagram.wordBits;
    auto cellX = [&](uint64_t word, int bit) { return bitRect(word, bit).left(); };

    // Cells: owner's colour; a block field's tint, named once per run; hatched when neither.
    const int n = int(m_diagram.elements.size());
    const QFontMetricsF fm(base);
    for (size_t i = 0; i < m_diagram.words.size(); ++i) {
        int runField = -1;
        double runRight = 0;
        for (int b = 0; b <= W; ++b) {
            const int owner = b < W ? m_diagram.elementAt(m_diagram.words[i], b) : -1;
            const int field = b < W && owner < 0 ? m_diagram.fieldAt(m_spec, m_diagram.words[i], b) : -1;
            if (runField >= 0 && field != runField) {
                // A field's run ends (b - 1 was its highest bit here): its name, if it fits.
                const QRectF run(cellX(m_diagram.words[i], b - 1), stripY, runRight - cellX(m_diagram.words[i], b - 1),
                                 kStrip);
                const QString name = QString::fromStdString(m_spec.blockFields[size_t(runField)].name);
                painter.setFont(small);
                if (QFontMetricsF(small).horizontalAdvance(name) + 2 <= run.width()) {
                    painter.setPen(textOn(theme.fieldColor(runField)));
                    painter.drawText(run, Qt::AlignCenter, name);
                }
            }
            if (b == W)
                break;
            const QRectF cell(cellX(m_diagram.words[i], b), stripY, m_cell, kStrip);
            if (field != runField && field >= 0)
                runRight = cell.right();
            runField = field;
            if (owner >= 0) {
                painter.fillRect(cell, theme.elementColor(m_diagram.elements[size_t(owner)].colour));
            } else if (field >= 0) {
                painter.fillRect(cell, theme.fieldColor(field));
            } else {
                painter.fillRect(cell, theme.alternate);
                painter.fillRect(cell, QBrush(theme.mutedText, Qt::BDiagPattern));
            }
            painter.setPen(QPen(theme.mutedText, 0.5));
            painter.drawRect(cell);
        }
    }

    // Pieces: outlined, labelled when they are wide enough.
    for (int e = 0; e < n; ++e) {
        const auto& el = m_diagram.elements[size_t(e)];
        const QColor c = theme.elementColor(el.colour);
        for (size_t pi = 0; pi < el.pieces.size(); ++pi) {
            const qs::BitPiece& pc = el.pieces[pi];
            const QRectF r(cellX(pc.word, pc.bit + pc.width - 1), stripY, pc.width * m_cell, kStrip);
            painter.setPen(QPen(theme.text, 1.2));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(r);
            QString label = el.label;
            if (el.pieces.size() > 1)
                label += pi == 0 ? QStringLiteral("₀") : pi == 1 ? QStringLiteral("₁") : QStringLiteral("₂");
            painter.setFont(fm.horizontalAdvance(label) + 4 <= r.width() ? base : small);
            if (QFontMetricsF(painter.font()).horizontalAdvance(label) + 2 <= r.width()) {
                painter.setPen(textOn(c));
                painter.drawText(r, Qt::AlignCenter, label);
            }
        }
    }
    // Word borders, bit numbers and word labels.
    painter.setFont(small);
    for (size_t i = 0; i < m_diagram.words.size(); ++i) {
        const QRectF wr(wordX[i], stripY, m_diagram.wordBits * m_cell, kStrip);
        painter.setPen(QPen(theme.text, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(wr);
        painter.setPen(theme.mutedText);
        const int step = m_cell >= 14 ? 4 : 8;
        for (int b = 0; b < W; ++b)
            if (b % step == 0 || b == W - 1)
                painter.drawText(QRectF(cellX(m_diagram.words[i], b) - 6, stripY + kStrip + 1, m_cell + 12, 12),
                                 Qt::AlignHCenter | Qt::AlignTop, QString::number(b));
        painter.setPen(theme.text);
        // The stored word index, as every view numbers words; the bare number where the name does not fit.
        QString name = SlotText::tr("%1 word %2").arg(m_diagram.tensor).arg(m_diagram.words[i]);
        if (QFontMetricsF(small).horizontalAdvance(name) > wr.width())
            name = QString::number(m_diagram.words[i]);
        painter.drawText(QRectF(wr.left(), stripY + kStrip + 14, wr.width(), 14), Qt::AlignHCenter | Qt::AlignTop,
                         name);
    }
}

void SlotOrderFigure::paintElements(QPainter& painter, const Theme& theme, const QFont& base, const QFont& small) const
{
    const double stripY = kFigureMargin + kFigureTitle + kBox + kCurves;
    const std::vector<double> wordX = wordLefts();
    const double stripWidth = this->stripWidth();
    const double stripLeft = wordX.empty() ? kFigureMargin : wordX.front();
    const int n = int(m_diagram.elements.size());
    const QFontMetricsF fm(base);
    auto cellX = [&](uint64_t word, int bit) { return bitRect(word, bit).left(); };
    // Elements on top, curves to each piece.
    const double topY = kFigureMargin + kFigureTitle;
    const double span = std::max(stripWidth, 600.0);
    const double left = stripLeft - (span - stripWidth) / 2;
    const double slotW = span / std::max(1, n);
    const double boxW = std::min(slotW - 4, 60.0);
    // Boxes in the order their (first, low) pieces sit along the strip, so curves do not cross:
    // with the MSB on the left a word's elements read right to left.
    std::vector<int> byPlace(static_cast<size_t>(n));
    std::iota(byPlace.begin(), byPlace.end(), 0);
    std::stable_sort(byPlace.begin(), byPlace.end(), [&](int a, int b) {
        const qs::BitPiece& pa = m_diagram.elements[size_t(a)].pieces.front();
        const qs::BitPiece& pb = m_diagram.elements[size_t(b)].pieces.front();
        return cellX(pa.word, pa.bit) < cellX(pb.word, pb.bit);
    });
    for (int place = 0; place < n; ++place) {
        const auto& el = m_diagram.elements[size_t(byPlace[size_t(place)])];
        const QColor c = theme.elementColor(el.colour);
        const double cx = left + slotW * (place + 0.5);
        const QRectF box(cx - boxW / 2, topY + 12, boxW, kBox - 12);
        for (const qs::BitPiece& pc : el.pieces) {
            const double px = cellX(pc.word, pc.bit + pc.width - 1) + pc.width * m_cell / 2;
            QPainterPath path(QPointF(cx, box.bottom()));
            const double mid = box.bottom() + kCurves / 2;
            path.cubicTo(QPointF(cx, mid), QPointF(px, mid), QPointF(px, stripY));
            painter.setPen(QPen(c.darker(theme.dark ? 100 : 135), 1.6));
            painter.setBrush(Qt::NoBrush);
            painter.drawPath(path);
        }
        painter.setPen(QPen(theme.text, 1));
        painter.setBrush(c);
        painter.drawRoundedRect(box, 4, 4);
        QString label = el.label;
        painter.setFont(fm.horizontalAdvance(label) + 4 <= box.width() ? base : small);
        painter.setPen(textOn(c));
        painter.drawText(box, Qt::AlignCenter, label);
        if (el.slot >= 0 && boxW >= 22) {
            painter.setFont(small);
            painter.setPen(theme.mutedText);
            painter.drawText(QRectF(box.left() - 4, topY - 1, box.width() + 8, 12), Qt::AlignHCenter | Qt::AlignTop,
                             SlotText::tr("slot %1").arg(el.slot));
        }
    }
}

} // namespace qsw
