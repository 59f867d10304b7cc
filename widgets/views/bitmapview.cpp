#include "bitmapview.h"

#include "messagestack.h"
#include "numbers.h"
#include "qtext.h"
#include "jobrunner.h"
#include "viewcontext.h"

#include "container/checkpoint.h"
#include "base/error.h"
#include "container/logicalweight.h"
#include "formats/wordmap.h"
#include "formats/dequant.h"
#include "formats/detect.h"
#include "formats/kernel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace qsw {

namespace {

QString bitRange(const qs::BitPiece& p)
{
    return p.width == 1 ? QString::number(p.bit) : QStringLiteral("%1..%2").arg(p.bit + p.width - 1).arg(p.bit);
}

// A decoded value with the 7 significant digits a float's bits need to be told apart.
QString valueText(double v)
{
    return localNumber(v, 'g', 7);
}

// One label/value row of the side panel's table.
QString panelRow(const QString& muted, const QString& label, const QString& value)
{
    return QStringLiteral("<tr><td style='color:%1; padding-right:10px'>%2</td><td><tt>%3</tt></td></tr>")
        .arg(muted, label.toHtmlEscaped(), value.toHtmlEscaped());
}

// `bits` low bits of v, MSB first, in groups of 4 (bytes apart by a wider gap, so a row wraps there).
QString binaryText(uint64_t v, int bits)
{
    QString out;
    for (int b = bits - 1; b >= 0; --b) {
        out += QLatin1Char((v >> b) & 1 ? '1' : '0');
        if (b > 0 && b % 8 == 0)
            out += QStringLiteral("  ");
        else if (b > 0 && b % 4 == 0)
            out += QChar(0x2009); // thin space
    }
    return out;
}

} // namespace

BitMapView::BitMapView(ViewContext* ctx, QWidget* parent)
    : AnalysisView(ctx, parent)
    , m_canvas(new BitMapCanvas(this))
    , m_stack(new MessageStack(m_canvas, this))
    , m_details(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_order(new QComboBox(this))
    , m_zoom(new QSpinBox(this))
    , m_goTo(new QLineEdit(this))
{
    m_canvas->setObjectName(QStringLiteral("bitmapCanvas"));
    m_order->addItem(tr("As stored"));
    m_order->addItem(tr("Bytes (hex)"));
    m_order->addItem(tr("Logical matrix"));
    m_order->setToolTip(tr("Stored words bit by bit, the stored bytes as a hex editor shows them, or the logical "
                           "[out, in] matrix as a heatmap of codes"));
    m_zoom->setRange(3, 40);
    m_zoom->setValue(m_canvas->cellSize());
    m_zoom->setSuffix(tr(" px"));
    m_zoom->setToolTip(tr("Cell size (Ctrl+wheel)"));
    m_goTo->setPlaceholderText(tr("Go to word or row, col"));
    m_goTo->setClearButtonEnabled(true);
    m_goTo->setMinimumWidth(180);
    m_goTo->setMaximumWidth(260);
    m_goTo->setObjectName(QStringLiteral("goTo"));
    m_goToMessage = new QLabel(this);
    m_goToMessage->setObjectName(QStringLiteral("goToMessage"));

    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(8, 6, 8, 6);
    tools->addWidget(new QLabel(tr("Order:"), this));
    tools->addWidget(m_order);
    tools->addSpacing(12);
    tools->addWidget(new QLabel(tr("Cell:"), this));
    tools->addWidget(m_zoom);
    tools->addSpacing(12);
    tools->addWidget(m_goTo, 1);
    // Takes the rest of the row, never widens the view; the tooltip holds a text cut short.
    m_goToMessage->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    tools->addWidget(m_goToMessage, 2);
    m_summary->setContentsMargins(8, 0, 8, 6);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    m_stack->label()->setObjectName(QStringLiteral("bitmapMessage"));

    m_details->setObjectName(QStringLiteral("bitmapDetails"));
    m_details->setTextFormat(Qt::RichText);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setWordWrap(true);
    m_details->setMargin(10);
    m_details->setAutoFillBackground(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_body = new QBoxLayout(QBoxLayout::LeftToRight);
    m_body->setContentsMargins(0, 0, 0, 0);
    m_body->setSpacing(0);
    m_body->addWidget(m_stack, 1);
    m_body->addWidget(m_details);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(tools);
    layout->addWidget(m_summary);
    layout->addLayout(m_body, 1);

    connect(m_order, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_canvas->setMode(i == 0 ? BitMapMode::Bits : i == 1 ? BitMapMode::Bytes : BitMapMode::Logical);
        m_zoom->setEnabled(i != 1); // the hex text has the font's size
        showElement(context()->hovered().isValid() ? context()->hovered() : context()->selected());
    });
    connect(m_zoom, &QSpinBox::valueChanged, m_canvas, &BitMapCanvas::setCellSize);
    connect(m_canvas, &BitMapCanvas::cellSizeChanged, m_zoom, &QSpinBox::setValue); // Ctrl+wheel
    connect(m_canvas, &BitMapCanvas::stepSelection, this, &BitMapView::stepSelection);
    connect(m_goTo, &QLineEdit::returnPressed, this, [this] { goTo(m_goTo->text()); });
    connect(m_goTo, &QLineEdit::textEdited, this, [this] { setGoToProblem({}); });
    connect(m_canvas, &BitMapCanvas::hoveredAt, this, &BitMapView::onHovered);
    connect(m_canvas, &BitMapCanvas::clickedAt, this, &BitMapView::onClicked);
    connect(context(), &ViewContext::weightChanged, this, &BitMapView::rebuild);
    connect(context(), &ViewContext::checkpointChanged, this, &BitMapView::rebuild);
    connect(context(), &ViewContext::themeChanged, this, &BitMapView::applyTheme);
    connect(context(), &ViewContext::hoveredChanged, this, [this](const ElementRef& e) {
        const bool mine = e.isValid() && e.weight == context()->weight();
        m_canvas->setHovered(mine ? std::optional(std::pair(uint64_t(e.row), uint64_t(std::max<int64_t>(e.col, 0))))
                                  : std::nullopt);
        showElement(mine ? e : context()->selected());
    });
    connect(context(), &ViewContext::selectedChanged, this, [this](const ElementRef& e) {
        const bool mine = e.isValid() && e.weight == context()->weight();
        m_canvas->setSelected(mine ? std::optional(std::pair(uint64_t(e.row), uint64_t(std::max<int64_t>(e.col, 0))))
                                   : std::nullopt);
        if (!context()->hovered().isValid())
            showElement(e);
    });
    applyTheme();
    rebuild();
}

BitMapView::~BitMapView() = default;

void BitMapView::resizeEvent(QResizeEvent* event)
{
    AnalysisView::resizeEvent(event);
    // Beside the map when there is room for both, below it otherwise.
    const bool wide = width() >= 960;
    m_body->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    if (wide) {
        m_details->setMinimumHeight(0);
        m_details->setMaximumHeight(QWIDGETSIZE_MAX);
        m_details->setFixedWidth(280);
    } else {
        m_details->setMinimumWidth(0);
        m_details->setMaximumWidth(QWIDGETSIZE_MAX);
        m_details->setFixedHeight(230);
    }
}

void BitMapView::applyTheme()
{
    const Theme& t = context()->theme();
    m_canvas->setTheme(t);
    QPalette pal = m_details->palette();
    pal.setColor(QPalette::Window, t.alternate);
    pal.setColor(QPalette::WindowText, t.text);
    m_details->setPalette(pal);
    m_stack->label()->setStyleSheet(QStringLiteral("color: %1").arg(t.mutedText.name()));
    showElement(context()->hovered().isValid() ? context()->hovered() : context()->selected());
}

void BitMapView::setStoredOrder(bool stored)
{
    setMode(stored ? BitMapMode::Bits : BitMapMode::Logical);
}

void BitMapView::setMode(BitMapMode mode)
{
    m_order->setCurrentIndex(mode == BitMapMode::Bits ? 0 : mode == BitMapMode::Bytes ? 1 : 2);
}

void BitMapView::rebuild()
{
    // The go-to text and its complaint were about the previous weight.
    m_goTo->clear();
    setGoToProblem({});
    m_map.reset();
    m_cachedRow = ~uint64_t(0);
    m_rowValues.clear();
    m_hasHit = false;
    const qs::LogicalWeight* w = context()->logicalWeight();
    QString problem;
    if (!w) {
        problem = tr("Select a weight in the tensor browser.");
    } else if (const qs::Message* refused = qs::refusedShape(*w)) {
        problem = tr("%1 is not drawn: %2").arg(QString::fromStdString(w->name), qtext(*refused));
    } else if (const qs::LayoutSpec* spec = qs::findLayoutSpec(w->format); !spec) {
        problem = tr("No layout spec for %1: its bits cannot be drawn yet.").arg(QString::fromStdString(w->format));
    } else {
        try {
            m_map = std::make_shared<const qs::WordMap>(*spec, qs::layoutParams(*w));
        } catch (const qs::Error& e) {
            problem = tr("Cannot map the words of %1: %2")
                          .arg(shownText(QString::fromStdString(w->name)), QString::fromUtf8(e.what()));
        }
    }
    // A remote weight's bytes come in off the GUI thread first (a job, with progress and cancel);
    // the canvas reads them from the cache afterwards.
    const std::shared_ptr<const qs::Checkpoint> ckpt = context()->checkpoint();
    uint64_t missing = 0;
    if (m_map && ckpt)
        for (const auto& [role, idx] : w->members)
            missing += ckpt->missingBytes(ckpt->tensors.at(idx));
    if (missing > 0) {
        m_canvas->setLayout(nullptr, nullptr, nullptr);
        m_map.reset();
        problem = tr("Fetching %1 of %2 from the server…").arg(localBytes(missing), QString::fromStdString(w->name));
        QPointer<BitMapView> self(this);
        const int index = context()->weight();
        context()->jobs()->start(
            QStringLiteral("bitmap-fetch"), tr("Fetching %1").arg(QString::fromStdString(w->name)),
            [ckpt, index, self](JobControl&) -> JobRunner::Continuation {
                for (const auto& [role, idx] : ckpt->weights.at(size_t(index)).members)
                    ckpt->bytes(ckpt->tensors.at(idx));
                return [self, ckpt, index] {
                    if (self && self->context()->checkpoint() == ckpt && self->context()->weight() == index)
                        self->rebuild();
                };
            },
            JobRunner::Kind::Io);
    }
    m_canvas->setLayout(ckpt, m_map ? w : nullptr, m_map);
    if (!m_map) {
        m_stack->showMessage(problem);
        m_summary->clear();
        m_details->setText(QString());
        return;
    }
    m_stack->showContent();
    const qs::LayoutParams& p = m_map->params();
    const QString tile = m_map->tileRows() == 0 ? tr("%Ln element(s)", nullptr, int(m_map->tileCols()))
                                                : tr("%1 × %2").arg(m_map->tileRows()).arg(m_map->tileCols());
    m_summary->setText(tr("%1 · %2-bit words · %3 words · [%4, %5] · repeats every %6")
                           .arg(QString::fromStdString(m_map->spec().name))
                           .arg(m_map->wordBits())
                           .arg(localCount(m_canvas->wordCount()))
                           .arg(p.N)
                           .arg(p.K)
                           .arg(tile));
    showElement(context()->selected());
}

bool BitMapView::goTo(const QString& text)
{
    if (!m_map) {
        setGoToProblem(tr("No weight with a layout is shown."));
        return false;
    }
    const QRegularExpression element(QStringLiteral("^\\s*(\\d+)\\s*[, ]\\s*(\\d+)\\s*$"));
    const QRegularExpression word(QStringLiteral("^\\s*(\\d+)\\s*$"));
    const qs::LayoutParams& p = m_map->params();
    if (const auto m = element.match(text); m.hasMatch()) {
        bool okRow = false, okCol = false;
        const qulonglong row = m.captured(1).toULongLong(&okRow), col = m.captured(2).toULongLong(&okCol);
        if (!okRow || row >= p.N) {
            setGoToProblem(tr("Row %1 is outside 0–%2.").arg(m.captured(1)).arg(p.N - 1));
            return false;
        }
        if (!okCol || col >= p.K) {
            setGoToProblem(tr("Column %1 is outside 0–%2.").arg(m.captured(2)).arg(p.K - 1));
            return false;
        }
        setGoToProblem({});
        context()->setSelected({context()->weight(), int64_t(row), int64_t(col)});
        return true;
    }
    if (const auto m = word.match(text); m.hasMatch()) {
        bool ok = false;
        const qulonglong w = m.captured(1).toULongLong(&ok);
        if (!ok || w >= m_canvas->wordCount()) {
            setGoToProblem(tr("Word %1 is past the last word, %2.").arg(m.captured(1)).arg(m_canvas->wordCount() - 1));
            return false;
        }
        setGoToProblem({});
        if (m_canvas->mode() == BitMapMode::Logical)
            setStoredOrder(true);
        m_canvas->scrollToWord(w);
        const auto pieces = m_map->piecesIn(w);
        if (!pieces.empty())
            context()->setSelected({context()->weight(), int64_t(pieces.front().row), int64_t(pieces.front().col)});
        return true;
    }
    setGoToProblem(tr("“%1” is neither a word index (“1234”) nor an element (“row, col”).").arg(text.trimmed()));
    return false;
}

QString BitMapView::goToProblem() const
{
    return m_goToMessage->text();
}

void BitMapView::setGoToProblem(const QString& problem)
{
    m_goToMessage->setText(problem);
    m_goToMessage->setToolTip(problem);
    const QString colour = QStringLiteral("color: %1").arg(context()->theme().error.name());
    m_goToMessage->setStyleSheet(colour);
    m_goTo->setStyleSheet(problem.isEmpty() ? QString() : colour);
}

void BitMapView::stepSelection(int rows, int cols)
{
    if (!m_map)
        return;
    const qs::LayoutParams& p = m_map->params();
    const ElementRef e = context()->selected();
    if (!e.isValid() || e.weight != context()->weight()) {
        context()->setSelected({context()->weight(), 0, 0});
        return;
    }
    const int64_t row = std::clamp<int64_t>(e.row + rows, 0, int64_t(p.N) - 1);
    const int64_t col = std::clamp<int64_t>(std::max<int64_t>(e.col, 0) + cols, 0, int64_t(p.K) - 1);
    context()->setSelected({context()->weight(), row, col});
}

void BitMapView::onHovered(std::optional<BitMapHit> hit)
{
    m_hasHit = hit.has_value();
    if (hit)
        m_lastHit = *hit;
    if (hit && hit->isElement) {
        context()->setHovered({context()->weight(), int64_t(hit->row), int64_t(hit->col)});
        return;
    }
    context()->setHovered({});
    // A metadata or padding bit is described; off the map the selection is shown again.
    showElement(hit ? ElementRef{} : context()->selected());
}

void BitMapView::onClicked(const BitMapHit& hit)
{
    if (hit.isElement)
        context()->setSelected({context()->weight(), int64_t(hit.row), int64_t(hit.col)});
}

QString BitMapView::detailsText() const
{
    return m_details->text();
}

QString BitMapView::messageText() const
{
    return m_stack->message();
}

void BitMapView::showElement(const ElementRef& element)
{
    if (!m_map)
        return;
    const Theme& t = context()->theme();
    const QString muted = t.mutedText.name();
    QString html;
    auto line = [&](const QString& label, const QString& value) { html += panelRow(muted, label, value); };
    const bool hitHere = m_hasHit && m_canvas->mode() != BitMapMode::Logical;
    if (!element.isValid() || element.weight != context()->weight()) {
        if (hitHere) {
            html += QStringLiteral("<table>");
            line(tr("Word"), QString::number(m_lastHit.word));
            line(tr("Bit"), QString::number(m_lastHit.bit));
            const uint64_t byte = m_lastHit.word * m_map->wordBits() / 8 + uint64_t(m_lastHit.bit) / 8;
            line(tr("Byte offset"), QStringLiteral("0x%1").arg(byte, 0, 16));
            line(tr("File offset"), QStringLiteral("0x%1").arg(m_canvas->fileOffset() + byte, 0, 16));
            if (!m_lastHit.field.isEmpty())
                line(tr("Block field"), m_lastHit.field);
            else
                line(tr("Holds"), tr("padding (no element)"));
            html += wordLines(m_lastHit.word);
            if (!m_lastHit.field.isEmpty() && m_lastHit.blockElement)
                html +=
                    blockLines(m_lastHit.blockElement->first, m_lastHit.blockElement->second, true, m_lastHit.field);
            html += QStringLiteral("</table>");
            if (!m_lastHit.field.isEmpty())
                for (const qs::BlockField& f : m_map->spec().blockFields)
                    if (QString::fromStdString(f.name) == m_lastHit.field)
                        html += QStringLiteral("<p style='color:%1'>%2: %3</p>")
                                    .arg(muted, QString::fromStdString(f.kind).toHtmlEscaped(),
                                         QString::fromStdString(f.meaning).toHtmlEscaped());
        } else if (m_canvas->mode() == BitMapMode::Bytes) {
            html = QStringLiteral("<p style='color:%1'>%2</p>")
                       .arg(muted,
                            tr("The code tensor's bytes as a hex editor shows them: file offsets, 16 bytes a "
                               "row, their characters, and the block fields or a word's slots tinted behind "
                               "the hex (the legend below names them; the Fields column names a row's "
                               "fields). Click a byte to select its element, drag to select bytes; Ctrl+C "
                               "copies the selection as hex, Ctrl+Shift+C as hex-editor lines. The selection's "
                               "row is shown in binary below.")
                                .toHtmlEscaped());
        } else if (m_canvas->mode() == BitMapMode::Logical) {
            html = QStringLiteral("<p style='color:%1'>%2</p>")
                       .arg(muted,
                            tr("The logical [out, in] matrix, one cell per element, coloured by its stored "
                               "code on the scale below. Hover a cell for its code and value; click to select "
                               "it.")
                                .toHtmlEscaped());
        } else {
            html = QStringLiteral("<p style='color:%1'>%2</p>")
                       .arg(muted,
                            tr("Hover a bit to see which element it belongs to; click to select it. "
                               "Hue: the element's place in the layout's repeating tile. "
                               "Lightness: its code (dark = low). "
                               "A notch marks a code split over two words. "
                               "Arrow keys move the selection; Ctrl+wheel zooms; Ctrl+C copies the selected "
                               "row as hex with its file offset.")
                                .toHtmlEscaped());
        }
        m_details->setText(html);
        return;
    }
    const uint64_t row = uint64_t(element.row), col = uint64_t(std::max<int64_t>(element.col, 0));
    const qs::LayoutParams& p = m_map->params();
    if (row >= p.N || col >= p.K)
        return;
    const qs::LayoutSpec& spec = m_map->spec();
    const qs::ElementLocation loc = spec.locate(p, row, col);
    html += QStringLiteral("<p><b>%1</b></p><table>").arg(tr("Element (%1, %2)").arg(row).arg(col).toHtmlEscaped());
    line(tr("Row (out)"), QString::number(row));
    line(tr("Column (in)"), QString::number(col));
    for (uint8_t i = 0; i < loc.pieceCount; ++i)
        line(loc.pieceCount > 1 ? tr("Word (piece %1)").arg(i + 1) : tr("Word"),
             tr("%1, bits %2").arg(loc.pieces[i].word).arg(bitRange(loc.pieces[i])));
    if (loc.pieceCount > 1)
        line(tr("Split"), tr("%1 pieces, low bits first").arg(loc.pieceCount));
    if (loc.slot >= 0)
        line(tr("Slot"), QString::number(loc.slot));
    const qs::LogicalWeight* w = context()->logicalWeight();
    try {
        const qs::ElementValues v = qs::elementValues(*context()->checkpoint(), *w, spec, p, row, col);
        int width = 0;
        for (uint8_t i = 0; i < loc.pieceCount; ++i)
            width += loc.pieces[i].width;
        line(tr("Code"),
             QStringLiteral("%1  (0b%2)").arg(v.code).arg(v.code, std::min(width, 64), 2, QLatin1Char('0')));
        line(tr("Group"), QString::number(v.group));
        if (v.hasScale)
            line(tr("Scale"), valueText(v.scale));
        if (v.hasZero) {
            const QString label = v.zeroKind == qs::ZeroPointKind::FloatBias ? tr("Bias")
                : v.zeroKind == qs::ZeroPointKind::BlockMin                  ? tr("Block min")
                                                                             : tr("Zero");
            line(label, valueText(v.zero));
        }
    } catch (const std::exception& e) {
        line(tr("Code"), QString::fromUtf8(e.what()));
    }
    if (row != m_cachedRow) {
        m_cachedRow = row;
        m_rowError.clear();
        m_rowValues.assign(p.K, 0.f);
        try {
            qs::dequantizeRows(*context()->checkpoint(), *w, row, row + 1, m_rowValues.data(), qs::bestSimdPath());
        } catch (const std::exception& e) {
            m_rowValues.clear();
            m_rowError = QString::fromUtf8(e.what());
        }
    }
    line(tr("Value"), m_rowValues.size() == p.K ? valueText(m_rowValues[col]) : m_rowError);
    for (uint8_t i = 0; i < loc.pieceCount; ++i)
        if (i == 0 || loc.pieces[i].word != loc.pieces[i - 1].word)
            html += wordLines(loc.pieces[i].word);
    html += blockLines(row, col, false, {});
    html += QStringLiteral("</table>");
    html +=
        QStringLiteral("<p style='color:%1'>%2</p>").arg(muted, QString::fromStdString(spec.formula).toHtmlEscaped());
    m_details->setText(html);
}

QString BitMapView::wordLines(uint64_t word) const
{
    const auto value = m_canvas->wordValue(word);
    if (!value)
        return {};
    const QString muted = context()->theme().mutedText.name();
    const int bits = int(m_map->wordBits());
    return panelRow(muted, tr("Word %1 (hex)").arg(word),
                    QStringLiteral("0x%1").arg(*value, bits / 4, 16, QLatin1Char('0')))
        + panelRow(muted, tr("Word %1 (binary)").arg(word), binaryText(*value, bits));
}

QString BitMapView::blockLines(uint64_t row, uint64_t col, bool wholeBlock, const QString& onlyField) const
{
    const QString muted = context()->theme().mutedText.name();
    qs::BlockValues b;
    try {
        b = qs::blockValues(*context()->checkpoint(), *context()->logicalWeight(), row, col, wholeBlock);
    } catch (const std::exception& e) {
        return panelRow(muted, tr("Block"), QString::fromUtf8(e.what()));
    }
    if (!b.hasBlock)
        return {};
    QString html =
        QStringLiteral("<tr><td colspan=2 style='padding-top:6px'><b>%1</b></td></tr>")
            .arg(tr("Block %1, from element (%2, %3)").arg(b.block).arg(b.firstRow).arg(b.firstCol).toHtmlEscaped());
    for (const qs::BlockValue& v : b.values) {
        const QString field = QString::fromStdString(v.field);
        if (!onlyField.isEmpty() && field != onlyField)
            continue;
        QString label, text;
        const QString raw = QStringLiteral("0x%1").arg(v.raw, (v.rawBits + 3) / 4, 16, QLatin1Char('0'));
        switch (v.kind) {
        case qs::BlockValueKind::Scale: label = tr("Block scale %1").arg(field); break;
        case qs::BlockValueKind::Min: label = tr("Block min %1").arg(field); break;
        case qs::BlockValueKind::Sum: label = tr("Block sum %1").arg(field); break;
        case qs::BlockValueKind::Absmax: label = tr("Absmax"); break;
        case qs::BlockValueKind::SubScale: label = tr("Sub-block %1 scale").arg(v.index); break;
        case qs::BlockValueKind::SubMin: label = tr("Sub-block %1 min").arg(v.index); break;
        case qs::BlockValueKind::GridIndex: label = tr("Grid index (byte %1)").arg(v.lane); break;
        case qs::BlockValueKind::SignIndex: label = tr("Sign index (bit %1)").arg(v.lane); break;
        case qs::BlockValueKind::Sign: label = tr("Sign bit"); break;
        case qs::BlockValueKind::Delta: label = tr("Delta bit"); break;
        case qs::BlockValueKind::AbsmaxCode: label = tr("Absmax code"); break;
        case qs::BlockValueKind::AbsmaxScale: label = tr("Absmax scale %1 (second level)").arg(v.index); break;
        case qs::BlockValueKind::AbsmaxOffset: label = tr("Absmax offset"); break;
        }
        switch (v.kind) {
        case qs::BlockValueKind::Scale:
        case qs::BlockValueKind::Min:
        case qs::BlockValueKind::Sum:
        case qs::BlockValueKind::Absmax:
        case qs::BlockValueKind::AbsmaxScale:
        case qs::BlockValueKind::AbsmaxOffset: text = QStringLiteral("%1  (%2)").arg(valueText(v.value), raw); break;
        case qs::BlockValueKind::AbsmaxCode: // the code and its entry of the 8-bit dynamic map
            text = QStringLiteral("%1 → %2").arg(v.raw).arg(valueText(v.value));
            break;
        case qs::BlockValueKind::SubScale:
        case qs::BlockValueKind::SubMin:
            // The stored integer, and the float the kernel multiplies by (d x sc, dmin x m).
            text = v.hasEffective ? QStringLiteral("%1 → %2").arg(localNumber(v.value, 'g', 4), valueText(v.effective))
                                  : localNumber(v.value, 'g', 4);
            text += QStringLiteral("  (0b%1)").arg(binaryText(v.raw, v.rawBits));
            break;
        case qs::BlockValueKind::SignIndex:
            text = QStringLiteral("%1 → 0b%2").arg(v.raw).arg(binaryText(uint64_t(v.value), 8));
            break;
        default: text = QString::number(v.raw); break;
        }
        html += panelRow(muted, label, text);
    }
    return html;
}

namespace {

// A figure is drawn whole up to this size (logical pixels); a wider one is scaled to this width, a
// taller one drawn from the rows in view.
constexpr int kMaxFigureSide = 4096;

} // namespace

std::pair<uint64_t, uint64_t> BitMapView::exportRows() const
{
    const uint64_t total = m_canvas->totalRows();
    if (m_canvas->figureSize(total).height() <= kMaxFigureSide)
        return {0, total};
    const uint64_t first = m_canvas->firstShownRow();
    return {first, std::min(m_canvas->shownRows(), total - std::min(first, total))};
}

QSize BitMapView::exportSize() const
{
    const QSize figure = m_canvas->figureSize(exportRows().second);
    if (figure.width() <= kMaxFigureSide)
        return figure;
    return QSize(kMaxFigureSide, std::max(1, int(int64_t(figure.height()) * kMaxFigureSide / figure.width())));
}

void BitMapView::renderExport(QPainter& painter, const QRect& target)
{
    const auto [first, rows] = exportRows();
    const QSize figure = m_canvas->figureSize(rows);
    if (figure.isEmpty())
        return;
    painter.save();
    painter.translate(target.topLeft());
    painter.scale(double(target.width()) / figure.width(), double(target.height()) / figure.height());
    m_canvas->paintFigure(painter, QRect(QPoint(0, 0), figure), first);
    painter.restore();
}

QString BitMapView::exportCaption() const
{
    QString text = AnalysisView::exportCaption();
    if (text.isEmpty() || !m_map)
        return text;
    const auto [first, rows] = exportRows();
    if (m_canvas->storedOrder()) {
        const uint64_t perRow = m_canvas->wordsPerRow();
        const uint64_t last = std::min(m_canvas->wordCount(), (first + rows) * perRow);
        return text
            + tr(" · stored words, most significant bit left: words %1–%2 of %3")
                  .arg(first * perRow)
                  .arg(last - 1)
                  .arg(m_canvas->wordCount());
    }
    if (m_canvas->mode() == BitMapMode::Bytes) {
        const uint64_t perRow = BitMapCanvas::kBytesPerRow;
        const uint64_t last = std::min(m_canvas->byteCount(), (first + rows) * perRow);
        return text
            + tr(" · stored bytes, 16 a row: file offsets 0x%1–0x%2 (bytes %3–%4 of %5)")
                  .arg(m_canvas->fileOffset() + first * perRow, 0, 16)
                  .arg(m_canvas->fileOffset() + last - 1, 0, 16)
                  .arg(first * perRow)
                  .arg(last - 1)
                  .arg(m_canvas->byteCount());
    }
    return text
        + tr(" · logical matrix, one code per cell: rows %1–%2 of %3, every column")
              .arg(first)
              .arg(first + rows - 1)
              .arg(m_canvas->totalRows());
}

QString BitMapView::exportProblem() const
{
    return m_map ? QString() : messageText();
}

} // namespace qsw
