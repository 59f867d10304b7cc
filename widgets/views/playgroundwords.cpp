#include "playgroundwords.h"

#include <QFontDatabase>
#include <QPainter>

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

PlaygroundWords::PlaygroundWords(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
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
    const int rows = int(std::max<size_t>(m_content.words.size(), 1));
    return {kGutter + 32 * 22 + 2 * kMargin,
            titleHeight(fm, !m_content.note.isEmpty()) + kHeader + rows * (kCellHeight + kLabelHeight + kRowGap) + kMargin};
}

QSize PlaygroundWords::minimumSizeHint() const
{
    return {kGutter + 32 * 12 + 2 * kMargin, 120};
}

QString PlaygroundWords::fieldLabel(const qs::PlaygroundField& f) const
{
    QString text = m_content.packsRows && f.row < m_content.rowNames.size() ? m_content.rowNames[f.row]
                                                                             : tr("k%1").arg(f.col);
    if (f.pieces > 1)
        text += f.piece == 0 ? tr("·lo") : tr("·hi");
    return text;
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
        p.drawText(QRect(left, y + fm.height(), rect.width() - 2 * kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(m_content.note, Qt::ElideRight, rect.width() - 2 * kMargin));
    }
    y += titleHeight(fm, !m_content.note.isEmpty());

    const int cellsLeft = left + kGutter;
    const double cell = std::clamp((rect.right() - kMargin - cellsLeft) / 32.0, 10.0, 34.0);
    auto cellX = [&](int bit) { return cellsLeft + (31 - bit) * cell; };

    QFont small = font;
    small.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.8));
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSizeF(font.pointSizeF());

    // Bit numbers above the first word.
    p.setFont(small);
    p.setPen(m_theme.mutedText);
    for (int bit : {31, 24, 16, 8, 0})
        p.drawText(QRectF(cellX(bit), y, cell, kHeader), Qt::AlignCenter, QString::number(bit));
    y += kHeader;

    const double maxCode = double((1 << m_content.bits) - 1);
    for (const qs::PlaygroundWord& word : m_content.words) {
        if (y + kCellHeight > rect.bottom())
            break;
        p.setFont(font);
        p.setPen(m_theme.mutedText);
        p.drawText(QRect(left, y - 2, kGutter, kCellHeight / 2 + 4), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("word %1").arg(word.index));
        p.setFont(mono);
        p.setPen(m_theme.text);
        p.drawText(QRect(left, y + kCellHeight / 2 - 2, kGutter, kCellHeight / 2 + 6), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("0x%1").arg(word.value, 8, 16, QLatin1Char('0')).toUpper().replace(QLatin1String("0X"),
                                                                                                         QLatin1String("0x")));

        // Which field owns each bit.
        int owner[32];
        std::fill(std::begin(owner), std::end(owner), -1);
        for (size_t i = 0; i < word.fields.size(); ++i)
            for (int b = word.fields[i].bit; b < word.fields[i].bit + word.fields[i].width && b < 32; ++b) owner[b] = int(i);

        p.setFont(small);
        for (int bit = 31; bit >= 0; --bit) {
            const QRectF r(cellX(bit), y, cell, kCellHeight);
            QColor fill = m_theme.alternate;
            if (owner[bit] >= 0) {
                const qs::PlaygroundField& f = word.fields[size_t(owner[bit])];
                const int hue = m_content.packsRows ? int(f.row) : (f.slot >= 0 ? f.slot : int(f.col % 32));
                fill = m_theme.slotColor(hue, maxCode > 0 ? f.code / maxCode : 0);
            }
            p.fillRect(r, fill);
            p.setPen(QPen(m_theme.background, 1));
            p.drawRect(r);
            p.setPen(owner[bit] < 0 ? m_theme.mutedText : (fill.lightness() > 140 ? QColor(Qt::black) : QColor(Qt::white)));
            p.drawText(r, Qt::AlignCenter, QString::number((word.value >> bit) & 1u));
        }
        // Field outlines and labels.
        for (const qs::PlaygroundField& f : word.fields) {
            const int hi = std::min(f.bit + f.width - 1, 31);
            const QRectF box(cellX(hi), y, cell * (hi - f.bit + 1), kCellHeight);
            const bool focus = f.row == 0 && f.col >= m_content.focusBegin && f.col < m_content.focusEnd;
            p.setPen(QPen(focus && m_content.packsRows ? m_theme.accent : m_theme.text, focus && m_content.packsRows ? 2.0 : 1.0));
            p.setBrush(Qt::NoBrush);
            p.drawRect(box);
            p.setPen(focus ? m_theme.text : m_theme.mutedText);
            const QString label = fieldLabel(f);
            const QRectF labelBox(box.left(), y + kCellHeight, box.width(), kLabelHeight);
            if (fm.horizontalAdvance(label) * 0.8 <= labelBox.width() + 2)
                p.drawText(labelBox, Qt::AlignCenter, label);
        }
        y += kCellHeight + kLabelHeight + kRowGap;
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
