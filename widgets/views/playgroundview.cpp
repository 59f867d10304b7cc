#include "playgroundview.h"

#include "jobrunner.h"
#include "numbers.h"
#include "playgroundwords.h"
#include "viewcontext.h"

#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/layoutspec.h"
#include "formats/dequant.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPicture>
#include <QPointer>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace qsw {

namespace {

const QString kJobKey = QStringLiteral("playground");
// The format box's data of block format i (playgroundBlockFormats()); affine targets are 0..4.
constexpr int kBlockData = 100;
// Enough for every word of a group at 2 bits and group 256 (16) or 8 bits group 256 (64); a
// block format shows the group's bytes (at most one a code) and up to this many field bytes.
constexpr int kMaxWords = 64;

void stylePlot(QCustomPlot* plot, const Theme& t)
{
    plot->setBackground(t.background);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(t.background);
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(t.mutedText));
            axis->setTickPen(QPen(t.mutedText));
            axis->setSubTickPen(QPen(t.mutedText));
            axis->setTickLabelColor(t.text);
            axis->setLabelColor(t.text);
            axis->grid()->setPen(QPen(t.plotGrid, 1, Qt::DotLine));
            axis->grid()->setZeroLinePen(QPen(t.plotGrid));
        }
    }
    if (plot->legend) { // null once the default layout is cleared
        plot->legend->setBrush(t.background);
        plot->legend->setTextColor(t.text);
        plot->legend->setBorderPen(QPen(t.plotGrid));
    }
}

QCPColorGradient codeGradient(const Theme& t, int codes)
{
    QCPColorGradient g;
    g.clearColorStops();
    for (int i = 0; i <= 8; ++i)
        g.setColorStopAt(i / 8.0, t.codeColor(i / 8.0));
    g.setLevelCount(std::max(2, codes));
    return g;
}

// A vertical line over the whole axis rect at x.
QCPItemStraightLine* vline(QCustomPlot* plot, QCPAxisRect* rect, double x, const QPen& pen)
{
    auto* line = new QCPItemStraightLine(plot);
    line->setClipAxisRect(rect);
    for (QCPItemPosition* p : {line->point1, line->point2})
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(pen);
    return line;
}

// Ticks at codes only: none above the highest code, in the band that holds the labels.
class CodeTicker : public QCPAxisTicker {
public:
    explicit CodeTicker(int highest)
        : m_highest(highest)
    {
    }

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override
    {
        QVector<double> ticks = QCPAxisTicker::createTickVector(tickStep, range);
        ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [this](double t) { return t > m_highest + 1e-9; }),
                    ticks.end());
        return ticks;
    }

private:
    int m_highest;
};

QCPItemText* label(QCustomPlot* plot, QCPAxisRect* rect, double x, double y, const QString& text, Qt::Alignment align,
                   const QColor& color)
{
    auto* item = new QCPItemText(plot);
    item->setClipAxisRect(rect);
    item->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    item->position->setCoords(x, y);
    item->setPositionAlignment(align);
    item->setText(text);
    item->setColor(color);
    item->setPadding(QMargins(3, 1, 3, 1));
    return item;
}

} // namespace

PlaygroundView::PlaygroundView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
{
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(80);
    connect(m_debounce, &QTimer::timeout, this, &PlaygroundView::recompute);
    buildControls();
    connect(context, &ViewContext::weightChanged, this, [this] { updateWeight(); });
    connect(context, &ViewContext::checkpointChanged, this, [this] { updateWeight(); });
    connect(context, &ViewContext::themeChanged, this, [this] { applyTheme(); });
    connect(context, &ViewContext::hoveredChanged, this, &PlaygroundView::showLinkedHover);
    connect(context, &ViewContext::selectedChanged, this, &PlaygroundView::followSelection);
    connect(m_words, &PlaygroundWords::hoveredField, this, [this](qint64 row, qint64 col) { hoverElement(row, col); });
    connect(m_row_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const double k = m_errorRect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
        const bool inside = m_codesRect->rect().united(m_errorRect->rect()).contains(event->position().toPoint());
        hoverElement(inside && m_result && k > -0.5 ? 0 : -1, inside ? qint64(std::floor(k + 0.5)) : -1);
    });
    m_row_plot->installEventFilter(this);
    connect(context->jobs(), &JobRunner::failed, this, [this](const QString& key, const QString& message) {
        if (key == kJobKey)
            showError(message);
    });
    applyTheme();
    updateWeight();
}

// The context (and its job runner) may already be gone: the main window creates it before
// the views and deletes it first. Results of a running job find no view (QPointer) and drop.
PlaygroundView::~PlaygroundView() = default;

bool PlaygroundView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_row_plot && event->type() == QEvent::Leave)
        hoverElement(-1, -1);
    return AnalysisView::eventFilter(watched, event);
}

ElementRef PlaygroundView::weightElement(qint64 blockRow, qint64 col) const
{
    if (!m_result || blockRow < 0 || col < 0 || uint64_t(blockRow) >= m_result->rows || uint64_t(col) >= m_result->cols
        || m_shownWeight < 0 || m_shownWeight != context()->weight() || m_shownWeightRows == 0)
        return {};
    return {m_shownWeight, int64_t((m_shownBlockStart + uint64_t(blockRow)) % m_shownWeightRows),
            int64_t(weightColumn(uint64_t(col)))};
}

uint64_t PlaygroundView::weightColumn(uint64_t position) const
{
    return position < m_shownColumns.size() ? m_shownColumns[position] : position;
}

std::optional<uint64_t> PlaygroundView::positionOf(uint64_t column) const
{
    if (m_shownColumns.empty())
        return column;
    const auto it = std::find(m_shownColumns.begin(), m_shownColumns.end(), column);
    return it == m_shownColumns.end() ? std::nullopt : std::optional<uint64_t>(uint64_t(it - m_shownColumns.begin()));
}

void PlaygroundView::followSelection(const ElementRef& element)
{
    if (!element.isValid() || element.weight != context()->weight() || element.row < 0
        || m_source->currentData().toInt() != int(Source::WeightRow))
        return;
    // The group holding the element's column: the stored group (g_idx) where the row is shown in
    // g_idx order, as the Bit map and Scales name it.
    if (m_result && element.col >= 0 && m_shownWeight == element.weight)
        if (const std::optional<uint64_t> position = positionOf(uint64_t(element.col)))
            for (size_t g = 0; g < m_result->groups.size(); ++g)
                if (*position >= m_result->groups[g].begin && *position < m_result->groups[g].end)
                    setInspectedGroup(int(g));
    setRow(int(element.row));
}

void PlaygroundView::hoverElement(qint64 blockRow, qint64 col)
{
    const bool valid =
        m_result && blockRow >= 0 && col >= 0 && uint64_t(blockRow) < m_result->rows && uint64_t(col) < m_result->cols;
    m_words->setHighlighted(valid ? std::optional(std::pair(uint64_t(blockRow), uint64_t(col))) : std::nullopt);
    // Only a row of a real weight names an element the other views know.
    const ElementRef element = valid ? weightElement(blockRow, col) : ElementRef{};
    if (element.isValid() || m_ownHover.isValid()) {
        m_ownHover = element;
        context()->setHovered(element);
    }
}

void PlaygroundView::showLinkedHover(const ElementRef& element)
{
    if (m_ownHover.isValid() && element == m_ownHover)
        return; // our own hover, already highlighted
    m_ownHover = {};
    // Another view hovers an element of the rows shown here: outline its field.
    std::optional<std::pair<uint64_t, uint64_t>> lit;
    if (m_result && element.isValid() && element.weight == m_shownWeight && m_shownWeightRows > 0 && element.col >= 0)
        for (uint64_t i = 0; i < m_result->rows; ++i)
            if ((m_shownBlockStart + i) % m_shownWeightRows == uint64_t(element.row)) {
                if (const std::optional<uint64_t> position = positionOf(uint64_t(element.col)))
                    lit = std::pair(i, *position);
                break;
            }
    m_words->setHighlighted(lit);
}

void PlaygroundView::buildControls()
{
    m_building = true;
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(6, 6, 6, 6);
    outer->setSpacing(6);

    auto* controls = new QGridLayout;
    controls->setHorizontalSpacing(8);
    controls->setVerticalSpacing(4);
    auto addPair = [&](int row, int col, QLabel* lbl, QWidget* w) {
        lbl->setBuddy(w);
        controls->addWidget(lbl, row, col, Qt::AlignRight);
        controls->addWidget(w, row, col + 1);
    };

    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("source"));
    m_source->addItem(tr("Row of the selected weight"), int(Source::WeightRow));
    m_source->addItem(tr("Normal"), int(Source::Normal));
    m_source->addItem(tr("Normal with outliers"), int(Source::NormalOutliers));
    m_source->addItem(tr("Uniform"), int(Source::Uniform));
    m_source->addItem(tr("Laplace"), int(Source::Laplace));
    addPair(0, 0, new QLabel(tr("&Source:"), this), m_source);

    m_row = new QSpinBox(this);
    m_row->setObjectName(QStringLiteral("row"));
    m_row->setRange(0, 0);
    m_rowLabel = new QLabel(tr("&Row:"), this);
    addPair(0, 2, m_rowLabel, m_row);

    m_seed = new QSpinBox(this);
    m_seed->setObjectName(QStringLiteral("seed"));
    m_seed->setRange(0, 999999);
    m_seed->setValue(1);
    m_seedLabel = new QLabel(tr("S&eed:"), this);
    addPair(0, 4, m_seedLabel, m_seed);

    m_length = new QSpinBox(this);
    m_length->setObjectName(QStringLiteral("length"));
    m_length->setRange(8, 1 << 20);
    m_length->setSingleStep(64);
    m_length->setValue(256);
    m_lengthLabel = new QLabel(tr("&Length:"), this);
    addPair(0, 6, m_lengthLabel, m_length);

    m_target = new QComboBox(this);
    m_target->setObjectName(QStringLiteral("format"));
    m_affineFormats = qs::playgroundAffineFormats();
    for (size_t i = 0; i < m_affineFormats.size(); ++i)
        m_target->addItem(QCoreApplication::translate("qs::PlaygroundFormat", m_affineFormats[i].label), int(i));
    m_blockFormats = qs::playgroundBlockFormats();
    for (size_t i = 0; i < m_blockFormats.size(); ++i) {
        const qs::LayoutSpec* spec = qs::findLayoutSpec(m_blockFormats[i].format->id);
        m_target->addItem(QString::fromStdString(spec ? spec->name : m_blockFormats[i].format->id),
                          kBlockData + int(i));
    }
    addPair(1, 0, new QLabel(tr("&Format:"), this), m_target);

    m_bits = new QSpinBox(this);
    m_bits->setObjectName(QStringLiteral("bits"));
    m_bits->setRange(2, 8);
    m_bits->setValue(4);
    addPair(1, 2, new QLabel(tr("&Bits:"), this), m_bits);

    m_groupSize = new QComboBox(this);
    m_groupSize->setObjectName(QStringLiteral("groupSize"));
    for (int g : {16, 32, 64, 128, 256})
        m_groupSize->addItem(QString::number(g), g);
    m_groupSize->addItem(tr("whole row"), 0);
    m_groupSize->setCurrentIndex(1);
    m_groupSizeLabel = new QLabel(tr("&Group size:"), this);
    addPair(1, 4, m_groupSizeLabel, m_groupSize);
    // A block format's own block size and nested scales stand where the affine group size
    // and symmetry would.
    m_blocksize = new QComboBox(this);
    m_blocksize->setObjectName(QStringLiteral("blocksize"));
    m_blocksizeLabel = new QLabel(tr("Bl&ock size:"), this);
    addPair(1, 4, m_blocksizeLabel, m_blocksize);

    m_symmetric = new QCheckBox(tr("S&ymmetric"), this);
    m_symmetric->setObjectName(QStringLiteral("symmetric"));
    controls->addWidget(m_symmetric, 1, 6, 1, 2);
    m_nested = new QCheckBox(tr("&Nested absmax"), this);
    m_nested->setObjectName(QStringLiteral("nested"));
    m_nested->setToolTip(tr("Double quantization: each block's absmax stored as an 8-bit code, with a "
                            "second-level scale per 256 blocks and an offset (their mean)"));
    controls->addWidget(m_nested, 1, 6, 1, 2);

    auto* clipBox = new QHBoxLayout;
    m_clip = new QSlider(Qt::Horizontal, this);
    m_clip->setObjectName(QStringLiteral("clip"));
    m_clip->setRange(5, 100);
    m_clip->setValue(100);
    m_clip->setMinimumWidth(120);
    m_clipValue = new QLabel(this);
    m_clipValue->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("0.000")));
    clipBox->addWidget(m_clip);
    clipBox->addWidget(m_clipValue);
    auto* clipLabel = new QLabel(tr("&Clipping:"), this);
    clipLabel->setBuddy(m_clip);
    controls->addWidget(clipLabel, 1, 8, Qt::AlignRight);
    controls->addLayout(clipBox, 1, 9);

    m_group = new QSpinBox(this);
    m_group->setObjectName(QStringLiteral("inspectedGroup"));
    m_group->setRange(0, 0);
    m_groupLabel = new QLabel(tr("&Inspect group:"), this);
    addPair(0, 8, m_groupLabel, m_group);
    controls->setColumnStretch(10, 1);
    outer->addLayout(controls);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    outer->addWidget(m_summary);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->hide();
    outer->addWidget(m_error);

    outer->addLayout(buildPlots(), 1);

    connectControls();
    m_clipValue->setText(localNumber(1.0, 'f', 2));
    updateBlockControls();
    m_building = false;
    updateSourceControls();
}

// The affine map, the buckets, the row plot and the packed words, two by two.
QGridLayout* PlaygroundView::buildPlots()
{
    auto* grid = new QGridLayout;
    grid->setSpacing(6);
    m_map = new QCustomPlot(this);
    m_map->setObjectName(QStringLiteral("affineMap"));
    m_buckets = new QCustomPlot(this);
    m_buckets->setObjectName(QStringLiteral("buckets"));
    m_row_plot = new QCustomPlot(this);
    m_row_plot->setObjectName(QStringLiteral("rowPlot"));
    m_row_plot->plotLayout()->clear();
    m_codesRect = new QCPAxisRect(m_row_plot);
    m_errorRect = new QCPAxisRect(m_row_plot);
    QFont titleFont = font();
    titleFont.setBold(true);
    m_mapTitle = new QCPTextElement(m_map, QString(), titleFont);
    m_bucketsTitle = new QCPTextElement(m_buckets, QString(), titleFont);
    m_rowTitle = new QCPTextElement(m_row_plot, QString(), titleFont);
    for (auto [plot, title] : {std::pair{m_map, m_mapTitle}, std::pair{m_buckets, m_bucketsTitle}}) {
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, title);
    }
    m_row_plot->plotLayout()->addElement(0, 0, m_rowTitle);
    m_row_plot->plotLayout()->addElement(1, 0, m_codesRect);
    m_row_plot->plotLayout()->addElement(2, 0, m_errorRect);
    m_row_plot->plotLayout()->setRowStretchFactor(0, 0.01);
    m_row_plot->plotLayout()->setRowStretchFactor(1, 0.22);
    m_row_plot->plotLayout()->setRowStretchFactor(2, 0.77);
    auto* margins = new QCPMarginGroup(m_row_plot);
    m_codesRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_errorRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_words = new PlaygroundWords(this);
    m_words->setObjectName(QStringLiteral("words"));
    for (QCustomPlot* plot : {m_map, m_buckets, m_row_plot})
        plot->setMinimumSize(200, 160);
    grid->addWidget(m_map, 0, 0);
    grid->addWidget(m_buckets, 0, 1);
    grid->addWidget(m_row_plot, 1, 0);
    auto* wordsArea = new QScrollArea(this);
    wordsArea->setWidget(m_words);
    wordsArea->setWidgetResizable(true);
    wordsArea->setFrameShape(QFrame::NoFrame);
    wordsArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // the cells narrow instead
    m_wordsArea = wordsArea;
    grid->addWidget(wordsArea, 1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    return grid;
}

// Every setting recomputes; the group box and a click on the row plot only redraw.
void PlaygroundView::connectControls()
{
    // Clicking the row plot inspects the group under the mouse.
    connect(m_row_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (!m_result || m_result->quantized.groupSize == 0)
            return;
        const double k = m_errorRect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
        if (k >= 0 && k < double(m_result->cols))
            m_group->setValue(int(uint64_t(k) / m_result->quantized.groupSize));
    });

    connect(m_source, &QComboBox::currentIndexChanged, this, [this] {
        updateSourceControls();
        scheduleRecompute();
    });
    for (QSpinBox* spin : {m_row, m_seed, m_length, m_bits})
        connect(spin, &QSpinBox::valueChanged, this, &PlaygroundView::scheduleRecompute);
    connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
        // A format of one code width (AWQ GEMM: 4 bits) fixes the bits; a block format has its
        // own bits, blocks and scales.
        const qs::PlaygroundAffineFormat* affine = affineChoice();
        const qs::LayoutSpec* spec = affine ? qs::findLayoutSpec(affine->format->id) : nullptr;
        const bool fixed = spec && spec->bitWidths.size() == 1;
        const qs::FormatInfo* block = blockFormat();
        if (fixed)
            m_bits->setValue(spec->bitWidths.front());
        else if (block)
            m_bits->setValue(block->bits);
        m_bits->setEnabled(!fixed && !block);
        for (QWidget* w : std::initializer_list<QWidget*>{m_groupSize, m_symmetric, m_clip})
            w->setEnabled(!block);
        updateBlockControls();
        scheduleRecompute();
    });
    connect(m_blocksize, &QComboBox::currentIndexChanged, this, &PlaygroundView::scheduleRecompute);
    connect(m_nested, &QCheckBox::toggled, this, &PlaygroundView::scheduleRecompute);
    connect(m_groupSize, &QComboBox::currentIndexChanged, this, &PlaygroundView::scheduleRecompute);
    connect(m_symmetric, &QCheckBox::toggled, this, &PlaygroundView::scheduleRecompute);
    connect(m_clip, &QSlider::valueChanged, this, [this](int v) {
        m_clipValue->setText(localNumber(v / 100.0, 'f', 2));
        scheduleRecompute();
    });
    connect(m_group, &QSpinBox::valueChanged, this, [this](int group) {
        m_wantedGroup = group;
        redraw();
    });
}

const qs::PlaygroundBlockFormat* PlaygroundView::blockChoice() const
{
    const int i = m_target->currentData().toInt() - kBlockData;
    return i >= 0 && size_t(i) < m_blockFormats.size() ? &m_blockFormats[size_t(i)] : nullptr;
}

void PlaygroundView::updateBlockControls()
{
    const qs::PlaygroundBlockFormat* block = blockChoice();
    const bool sizes = block && !block->blocksizes.empty(), nested = block && block->nestedOf;
    if (sizes) {
        // Keep the size across formats that offer it; else the format's default.
        const int wanted = m_blocksize->count() ? m_blocksize->currentData().toInt() : int(block->blockWeights);
        const bool building = m_building;
        m_building = true;
        m_blocksize->clear();
        for (uint32_t size : block->blocksizes)
            m_blocksize->addItem(QString::number(size), int(size));
        const int index = m_blocksize->findData(wanted);
        m_blocksize->setCurrentIndex(index >= 0 ? index : m_blocksize->findData(int(block->blockWeights)));
        m_building = building;
    }
    m_groupSizeLabel->setVisible(!sizes);
    m_groupSize->setVisible(!sizes);
    m_blocksizeLabel->setVisible(sizes);
    m_blocksize->setVisible(sizes);
    m_symmetric->setVisible(!nested);
    m_nested->setVisible(nested);
}

void PlaygroundView::setSource(Source source)
{
    m_source->setCurrentIndex(m_source->findData(int(source)));
}

void PlaygroundView::setRow(int row)
{
    m_row->setValue(row);
}

void PlaygroundView::setSeed(int seed)
{
    m_seed->setValue(seed);
}

void PlaygroundView::setLength(int length)
{
    m_length->setValue(length);
}

void PlaygroundView::setTarget(const qs::FormatInfo& format)
{
    for (size_t i = 0; i < m_affineFormats.size(); ++i)
        if (m_affineFormats[i].format == &format)
            m_target->setCurrentIndex(m_target->findData(int(i)));
}

const qs::PlaygroundAffineFormat* PlaygroundView::affineChoice() const
{
    const int i = m_target->currentData().toInt();
    return i >= 0 && size_t(i) < m_affineFormats.size() ? &m_affineFormats[size_t(i)] : nullptr;
}

void PlaygroundView::setBlockFormat(const qs::FormatInfo* format)
{
    for (size_t i = 0; i < m_blockFormats.size(); ++i)
        if (m_blockFormats[i].format == format)
            m_target->setCurrentIndex(m_target->findData(kBlockData + int(i)));
}

const qs::FormatInfo* PlaygroundView::blockFormat() const
{
    const int i = m_target->currentData().toInt() - kBlockData;
    return i >= 0 && size_t(i) < m_blockFormats.size() ? m_blockFormats[size_t(i)].format : nullptr;
}

void PlaygroundView::setBits(int bits)
{
    m_bits->setValue(bits);
}

void PlaygroundView::setGroupSize(int groupSize)
{
    int index = m_groupSize->findData(groupSize);
    if (index < 0) {
        m_groupSize->addItem(QString::number(groupSize), groupSize);
        index = m_groupSize->count() - 1;
    }
    m_groupSize->setCurrentIndex(index);
}

void PlaygroundView::setSymmetric(bool symmetric)
{
    m_symmetric->setChecked(symmetric);
}

void PlaygroundView::setBlocksize(int blocksize)
{
    if (const int index = m_blocksize->findData(blocksize); index >= 0)
        m_blocksize->setCurrentIndex(index);
}

void PlaygroundView::setNested(bool nested)
{
    m_nested->setChecked(nested);
}

void PlaygroundView::setClipRatio(double ratio)
{
    m_clip->setValue(int(std::lround(ratio * 100)));
}

void PlaygroundView::setInspectedGroup(int group)
{
    m_wantedGroup = group;
    m_group->setValue(group);
}

int PlaygroundView::inspectedGroup() const
{
    return m_group->value();
}

QString PlaygroundView::errorText() const
{
    return m_error->isVisible() || !m_error->isHidden() ? m_error->text() : QString();
}

void PlaygroundView::updateSourceControls()
{
    const bool weight = m_source->currentData().toInt() == int(Source::WeightRow);
    m_row->setVisible(weight);
    m_rowLabel->setVisible(weight);
    for (QWidget* w : std::initializer_list<QWidget*>{m_seed, m_seedLabel, m_length, m_lengthLabel})
        w->setVisible(!weight);
}

void PlaygroundView::updateWeight()
{
    const qs::LogicalWeight* w = context()->logicalWeight();
    const int rows = w ? int(std::min<uint64_t>(w->outFeatures(), uint64_t(INT32_MAX))) : 0;
    m_row->setRange(0, std::max(0, rows - 1));
    if (context()->weight() != m_codesWeight) {
        m_codes.reset();
        m_codesWeight = -1;
    }
    if (m_source->currentData().toInt() == int(Source::WeightRow)) {
        if (context()->weight() != m_matchedWeight)
            matchWeight();
        scheduleRecompute();
    }
}

void PlaygroundView::matchWeight()
{
    // A new weight opens in its own format, bits, group size and symmetry, where a target
    // writes it; other affine formats (Marlin, GEMV, HQQ) keep the target but take the rest.
    m_matchedWeight = context()->weight();
    const qs::LogicalWeight* w = context()->logicalWeight();
    const qs::FormatInfo* info = w ? qs::findFormat(w->format) : nullptr;
    if (const qs::PlaygroundBlockFormat* own = info ? qs::playgroundBlockFormatOf(*info) : nullptr) {
        const bool building = m_building;
        m_building = true;
        setBlockFormat(info);
        setBlocksize(int(w->groupSize));
        if (own->nestedOf)
            m_nested->setChecked(own->nestedOf(*w));
        m_building = building;
        return;
    }
    if (!info || !info->affineCodes)
        return;
    const bool building = m_building;
    m_building = true; // one recompute for all of it
    if (qs::playgroundAffineFormatOf(*info))
        setTarget(*info);
    if (w->bits >= m_bits->minimum() && w->bits <= m_bits->maximum())
        m_bits->setValue(w->bits);
    setGroupSize(w->groupSize > 0 && uint64_t(w->groupSize) < w->inFeatures() ? int(w->groupSize) : 0);
    m_symmetric->setChecked(w->symmetric);
    m_building = building;
}

bool PlaygroundView::matchesWeight() const
{
    const qs::LogicalWeight* w = context()->logicalWeight();
    const qs::FormatInfo* info = w ? qs::findFormat(w->format) : nullptr;
    if (!info || m_source->currentData().toInt() != int(Source::WeightRow))
        return false;
    if (const qs::PlaygroundBlockFormat* own = qs::playgroundBlockFormatOf(*info)) {
        const qs::PlaygroundOptions o = options();
        return blockFormat() == info && w->groupSize == int64_t(o.blocksize ? o.blocksize : own->blockWeights)
            && (!own->nestedOf || own->nestedOf(*w) == o.nested);
    }
    if (!info->integerCodes)
        return false;
    const qs::PlaygroundOptions o = options();
    const uint64_t group = w->groupSize > 0 && uint64_t(w->groupSize) < w->inFeatures() ? uint64_t(w->groupSize) : 0;
    return qs::playgroundAffineFormatOf(*info) && o.affine == info && o.bits == w->bits && o.groupSize == group
        && o.symmetric == w->symmetric && o.clipRatio == 1.0f;
}

bool PlaygroundView::hasPendingWork() const
{
    return m_debounce->isActive();
}

void PlaygroundView::scheduleRecompute()
{
    if (m_building)
        return;
    // Work only for what is on screen: a hidden playground recomputes when it is shown.
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    m_debounce->start();
}

qs::PlaygroundOptions PlaygroundView::options() const
{
    qs::PlaygroundOptions o;
    o.block = blockFormat();
    if (!o.block)
        o.affine = affineChoice()->format;
    if (const qs::PlaygroundBlockFormat* block = blockChoice()) {
        o.blocksize = block->blocksizes.empty() ? 0 : uint32_t(m_blocksize->currentData().toInt());
        o.nested = block->nestedOf && m_nested->isChecked();
    }
    o.bits = m_bits->value();
    o.groupSize = uint64_t(m_groupSize->currentData().toInt());
    o.symmetric = m_symmetric->isChecked();
    o.clipRatio = float(m_clip->value() / 100.0);
    return o;
}

void PlaygroundView::recompute()
{
    m_debounce->stop();
    m_stale = false;
    const qs::PlaygroundOptions opt = options();
    const uint64_t blockRows = opt.block ? 1 : qs::playgroundAffineFormatOf(*opt.affine)->blockRows;
    const auto source = Source(m_source->currentData().toInt());
    QPointer<PlaygroundView> self(this);
    // Where the result's rows came from travels with it: the row box may change meanwhile.
    auto deliver = [self](std::shared_ptr<const qs::PlaygroundResult> r, int weight = -1, uint64_t blockStart = 0,
                          uint64_t weightRows = 0) {
        return [self, r, weight, blockStart, weightRows] {
            if (!self)
                return;
            self->m_shownWeight = weight;
            self->m_shownBlockStart = blockStart;
            self->m_shownWeightRows = weightRows;
            self->m_shownColumns.clear();
            self->setResult(r);
        };
    };

    if (source == Source::WeightRow) {
        const auto ckpt = context()->checkpoint();
        const qs::LogicalWeight* w = context()->logicalWeight();
        if (!ckpt || !w) {
            showError(tr("Select a weight in the browser, or pick a synthetic source."));
            return;
        }
        if (!qs::canDequantize(w->format)) {
            showError(tr("%1: no dequantizer for format %2; pick another weight or a synthetic source.")
                          .arg(shownText(QString::fromStdString(w->name)), QString::fromStdString(w->format)));
            return;
        }
        const uint64_t n = w->outFeatures(), k = w->inFeatures(), first = uint64_t(m_row->value());
        // A weight without rows or columns has no row (the block's rows wrap modulo n); a row
        // longer than the synthetic sources may be is not quantized here either.
        if (n == 0 || k == 0) {
            showError(tr("%1 has %2 rows of %3 values: there is no row to quantize; pick another weight or a synthetic "
                         "source.")
                          .arg(QString::fromStdString(w->name))
                          .arg(n)
                          .arg(k));
            return;
        }
        if (k > kMaxRowValues / blockRows) {
            showError(tr("%1: a row of %2 values is more than the playground quantizes (%3); pick a synthetic source.")
                          .arg(QString::fromStdString(w->name))
                          .arg(k)
                          .arg(kMaxRowValues / blockRows));
            return;
        }
        const size_t index = size_t(context()->weight());
        m_blockStart = first;
        m_blockRowsOfWeight = n;
        const bool check = matchesWeight();
        std::shared_ptr<const qs::WeightCodes> codes = m_codesWeight == int(index) ? m_codes : nullptr;
        context()->jobs()->start(
            kJobKey, tr("Playground on %1, row %2").arg(shownText(QString::fromStdString(w->name))).arg(first),
            [ckpt, index, n, k, first, blockRows, opt, check, codes,
             self](JobControl&) mutable -> JobRunner::Continuation {
                const qs::LogicalWeight& weight = ckpt->weights[index];
                if (check && !opt.block && !codes)
                    codes = std::make_shared<const qs::WeightCodes>(qs::extractCodes(*ckpt, weight));
                // Act-order at its own settings: the row in g_idx order (stable), so that the groups
                // quantized here are the stored ones.
                std::vector<uint64_t> columns;
                if (codes && weight.actOrder && codes->gIdx.size() == k) {
                    columns.resize(k);
                    std::iota(columns.begin(), columns.end(), uint64_t(0));
                    std::stable_sort(columns.begin(), columns.end(),
                                     [&](uint64_t a, uint64_t b) { return codes->gIdx[a] < codes->gIdx[b]; });
                }
                const auto column = [&](uint64_t i) { return columns.empty() ? i : columns[i]; };
                std::vector<float> values(blockRows * k);
                std::vector<float> natural(k);
                // The block's row 0 is the chosen row; AWQ's 8-row block wraps at the end.
                for (uint64_t i = 0; i < blockRows; ++i) {
                    const uint64_t r = (first + i) % n;
                    qs::dequantizeRows(*ckpt, weight, r, r + 1, natural.data(), qs::bestSimdPath());
                    for (uint64_t j = 0; j < k; ++j)
                        values[i * k + j] = natural[column(j)];
                }
                auto result = std::make_shared<const qs::PlaygroundResult>(
                    qs::runPlayground(std::move(values), blockRows, k, opt));
                // With the weight's own settings: do its codes (and scales) come back?
                CodeCheck codeCheck;
                if (check && opt.block) {
                    codeCheck.matched = qs::playgroundStoredMatches(*ckpt, weight, first, *result);
                    codeCheck.total = k;
                } else if (check) {
                    const qs::AffineQuantized& q = result->quantized;
                    if (codes->codes.size() >= (first + 1) * k && q.codes.size() >= k) {
                        codeCheck.total = k;
                        codeCheck.matched = 0;
                        for (uint64_t j = 0; j < k; ++j)
                            codeCheck.matched += q.codes[j] == codes->codes[first * k + column(j)];
                    }
                    if (codes->groups == q.groups && codes->rows > first
                        && codes->scales.size() >= codes->groups * codes->rows)
                        for (uint64_t g = 0; g < q.groups; ++g) {
                            codeCheck.storedScales.push_back(codes->scales[g * codes->rows + first]);
                            codeCheck.scalesMatched += codeCheck.storedScales.back() == q.scales[g * q.rows];
                        }
                }
                return [self, result, index, first, n, codeCheck, codes, columns] {
                    if (!self)
                        return;
                    self->m_shownWeight = int(index);
                    self->m_shownBlockStart = first;
                    self->m_shownWeightRows = n;
                    self->m_shownColumns = columns;
                    if (codes && self->context()->weight() == int(index)) {
                        self->m_codes = codes;
                        self->m_codesWeight = int(index);
                    }
                    self->m_codeCheck = codeCheck;
                    self->setResult(result);
                };
            });
        return;
    }

    const qs::SampleDistribution dist = source == Source::Normal ? qs::SampleDistribution::Normal
        : source == Source::NormalOutliers                       ? qs::SampleDistribution::NormalOutliers
        : source == Source::Uniform                              ? qs::SampleDistribution::Uniform
                                                                 : qs::SampleDistribution::Laplace;
    const uint64_t length = uint64_t(m_length->value()), seed = uint64_t(m_seed->value());
    m_codeCheck = {};
    auto work = [dist, length, seed, blockRows, opt, deliver](JobControl&) -> JobRunner::Continuation {
        return deliver(std::make_shared<const qs::PlaygroundResult>(
            qs::runPlayground(qs::playgroundSamples(dist, blockRows, length, seed), blockRows, length, opt)));
    };
    if (blockRows * length > kSyncLimit) {
        context()->jobs()->start(kJobKey, tr("Quantizing %1 synthetic values").arg(blockRows * length), work);
        return;
    }
    context()->jobs()->cancel(kJobKey); // a slower, older request must not overwrite this one
    try {
        JobControl control;
        work(control)();
    } catch (const std::exception& e) {
        showError(QString::fromStdString(e.what()));
    }
}

void PlaygroundView::showError(const QString& message)
{
    m_result.reset();
    m_error->setText(shownText(message, kMaxShownMessage));
    m_error->show();
    redraw();
    emit resultChanged();
}

void PlaygroundView::setResult(std::shared_ptr<const qs::PlaygroundResult> result)
{
    m_result = std::move(result);
    m_error->hide();
    m_error->clear();
    const int groups = int(m_result->groups.size());
    m_group->blockSignals(true);
    m_group->setRange(0, std::max(0, groups - 1));
    m_group->setValue(std::min(m_wantedGroup, groups - 1));
    m_group->blockSignals(false);
    redraw();
    emit resultChanged();
}

void PlaygroundView::applyTheme()
{
    const Theme& t = context()->theme();
    QPalette errorPalette = m_error->palette();
    errorPalette.setColor(QPalette::WindowText, t.error);
    m_error->setPalette(errorPalette);
    m_words->setTheme(t);
    redraw();
}

QString PlaygroundView::rowName(uint64_t blockRow) const
{
    if (m_source->currentData().toInt() == int(Source::WeightRow) && m_blockRowsOfWeight > 0)
        return tr("n%1").arg((m_blockStart + blockRow) % m_blockRowsOfWeight);
    return tr("n%1").arg(blockRow);
}

void PlaygroundView::redraw()
{
    const Theme& t = context()->theme();
    for (QCustomPlot* plot : {m_map, m_buckets, m_row_plot}) {
        plot->clearPlottables();
        plot->clearItems();
        stylePlot(plot, t);
    }
    for (QCPTextElement* title : {m_mapTitle, m_bucketsTitle, m_rowTitle}) {
        title->setTextColor(t.text);
        title->setText(QString());
    }
    if (!m_result || m_result->groups.empty()) {
        m_summary->clear();
        m_words->setContent({});
        replotVisible();
        return;
    }
    const size_t g = size_t(std::clamp(m_group->value(), 0, int(m_result->groups.size()) - 1));
    // The box steps through what shares one level table: groups, blocks or k-quant sub-blocks.
    m_groupLabel->setText(!m_result->options.block                ? tr("&Inspect group:")
                              : m_result->groups[g].subBlock >= 0 ? tr("&Inspect sub-block:")
                                                                  : tr("&Inspect block:"));
    drawMap(m_result->groups[g]);
    drawBuckets(m_result->groups[g]);
    drawRow();
    updateWords();
    updateSummary();
    replotVisible();
}

void PlaygroundView::replotVisible()
{
    // A plot that was never shown has no paint buffer yet; showEvent draws it.
    if (isVisible())
        for (QCustomPlot* plot : {m_map, m_buckets, m_row_plot})
            plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlaygroundView::showEvent(QShowEvent* event)
{
    AnalysisView::showEvent(event);
    if (m_stale)
        recompute();
    replotVisible();
}

void PlaygroundView::drawMap(const qs::PlaygroundGroup& grp)
{
    const Theme& t = context()->theme();
    const qs::PlaygroundResult& r = *m_result;
    const int codes = int(grp.levels.size());
    const bool mlx = r.rule == qs::AffineRule::Mlx;
    QCPAxis* x = m_map->xAxis;
    QCPAxis* y = m_map->yAxis;
    x->setLabel(tr("weight value w"));
    y->setLabel(tr("code q"));
    x->setRange(grp.histLow, grp.histHigh);
    // Two's complement codes (Q8_0) stand on the axis at their signed value, so the levels rise.
    auto codeY = [&](int c) { return r.signedCodes && c >= codes / 2 ? c - codes : c; };
    const int yLow = r.signedCodes ? -codes / 2 : 0, yHigh = r.signedCodes ? codes / 2 - 1 : codes - 1;
    // A band above the top code holds the min and max labels, which stood over the staircase.
    const double labelBand = std::max(1.2, 0.08 * codes), yTop = yHigh + 0.6 + labelBand;
    y->setRange(yLow - 0.6, yTop);
    auto ticker = QSharedPointer<CodeTicker>::create(yHigh); // no code number in the label band
    ticker->setTickCount(std::min(codes, 9));
    y->setTicker(ticker);

    // Beyond the outer levels by more than half a step every value lands on an end code.
    const double lowClamp = grp.lowLevel - 0.5 * grp.step, highClamp = grp.highLevel + 0.5 * grp.step;
    auto clampedBand = [&](double from, double to) {
        if (to <= from)
            return;
        auto* rect = new QCPItemRect(m_map);
        rect->topLeft->setCoords(from, yHigh + 1);
        rect->bottomRight->setCoords(to, yLow - 1);
        rect->setPen(Qt::NoPen);
        rect->setBrush(t.clipped);
    };
    clampedBand(grp.histLow, lowClamp);
    clampedBand(highClamp, grp.histHigh);
    if (grp.clippedLow)
        label(m_map, m_map->axisRect(), lowClamp, yHigh + 0.4, tr("%n clamped", nullptr, int(grp.clippedLow)),
              Qt::AlignRight | Qt::AlignTop, t.error);
    if (grp.clippedHigh)
        label(m_map, m_map->axisRect(), highClamp, yLow, tr("%n clamped", nullptr, int(grp.clippedHigh)),
              Qt::AlignLeft | Qt::AlignBottom, t.error);

    // Bucket edges (skipped at 7-8 bits, where they would fill the plot).
    if (codes <= 64)
        for (float e : grp.edges)
            vline(m_map, m_map->axisRect(), e, QPen(t.plotGrid, 1, Qt::SolidLine));

    // The staircase q(w): each code from its lower edge to its upper edge.
    std::vector<std::pair<float, int>> byLevel;
    for (int c = 0; c < codes; ++c)
        byLevel.emplace_back(grp.levels[size_t(c)], c);
    std::sort(byLevel.begin(), byLevel.end());
    auto* stairs = new QCPCurve(x, y);
    double from = grp.histLow;
    int tIndex = 0;
    for (size_t i = 0; i < byLevel.size(); ++i) {
        const double to = i + 1 < byLevel.size() ? double(grp.edges[i]) : grp.histHigh;
        stairs->addData(tIndex++, from, codeY(byLevel[i].second));
        stairs->addData(tIndex++, to, codeY(byLevel[i].second));
        from = to;
    }
    stairs->setPen(QPen(t.text, 1.5));

    auto* levels = m_map->addGraph(x, y);
    levels->setLineStyle(QCPGraph::lsNone);
    QVector<double> lx, ly;
    for (int c = 0; c < codes; ++c) {
        lx << grp.levels[size_t(c)];
        ly << codeY(c);
    }
    levels->setData(lx, ly, false);
    levels->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, t.accent, t.accent, codes <= 32 ? 6 : 3));

    // The data range and where w = 0 lands.
    for (double v : {double(grp.min), double(grp.max)})
        vline(m_map, m_map->axisRect(), v, QPen(t.warning, 1, Qt::DashLine));
    label(m_map, m_map->axisRect(), grp.min, yTop, tr("min"), Qt::AlignLeft | Qt::AlignTop, t.warning);
    label(m_map, m_map->axisRect(), grp.max, yTop, tr("max"), Qt::AlignRight | Qt::AlignTop, t.warning);
    if (r.options.block) {
        // A block format: its levels come from the block's fields, named in the title.
        m_mapTitle->setText(tr("Levels · %1 · %2").arg(groupName(grp), blockFieldsText(grp, false)));
        auto* formula = label(m_map, m_map->axisRect(), grp.histHigh, yLow, QString::fromStdString(r.blocks.formula),
                              Qt::AlignRight | Qt::AlignBottom, t.text);
        formula->setBrush(t.background);
        formula->setPen(QPen(t.plotGrid));
        m_map->legend->setVisible(false);
        return;
    }
    const double zeroCode = mlx ? (grp.scale != 0 ? -grp.zero / grp.scale : 0) : grp.zero;
    auto* zeroLine = new QCPItemStraightLine(m_map);
    zeroLine->point1->setCoords(0, zeroCode);
    zeroLine->point2->setCoords(1, zeroCode);
    zeroLine->setPen(QPen(t.accent, 1, Qt::DashLine));

    m_mapTitle->setText(mlx ? tr("Affine map · group %1 · s = %2 · b = %3")
                                  .arg(m_group->value())
                                  .arg(localNumber(grp.scale, 'g', 4), localNumber(grp.zero, 'g', 4))
                            : tr("Affine map · group %1 · s = %2 · z = %3")
                                  .arg(m_group->value())
                                  .arg(localNumber(grp.scale, 'g', 4), localNumber(grp.zero, 'g', 4)));
    auto* formula = label(m_map, m_map->axisRect(), grp.histHigh, 0,
                          mlx ? tr("q = clamp(round((w − b) / s)),  ŵ = s·q + b")
                              : tr("q = clamp(round(w / s) + z),  ŵ = s·(q − z)"),
                          Qt::AlignRight | Qt::AlignBottom, t.text);
    formula->setBrush(t.background);
    formula->setPen(QPen(t.plotGrid));
    label(m_map, m_map->axisRect(), 0, zeroCode,
          mlx ? tr("w = 0 → q = %1").arg(localNumber(zeroCode, 'g', 4))
              : tr("zero z = %1").arg(localNumber(zeroCode, 'g', 4)),
          Qt::AlignLeft | Qt::AlignBottom, t.accent);
    m_map->legend->setVisible(false);
}

void PlaygroundView::drawBuckets(const qs::PlaygroundGroup& grp)
{
    const Theme& t = context()->theme();
    const int codes = int(grp.levels.size());
    QCPAxis* x = m_buckets->xAxis;
    QCPAxis* y = m_buckets->yAxis;
    x->setLabel(tr("weight value w"));
    y->setLabel(tr("values"));
    m_bucketsTitle->setText(
        tr("Buckets · %1 · %2 values · colour = code").arg(groupName(grp)).arg(grp.end - grp.begin));
    x->setRange(grp.histLow, grp.histHigh);
    m_buckets->legend->setVisible(false);

    const double width = (grp.histHigh - grp.histLow) / grp.bins;
    QCPBars* below = nullptr;
    double top = 1;
    std::vector<double> stack(size_t(grp.bins), 0.0);
    for (int c = 0; c < codes; ++c) {
        if (grp.codeCounts[size_t(c)] == 0)
            continue;
        QVector<double> keys, values;
        for (int b = 0; b < grp.bins; ++b) {
            const uint32_t n = grp.histogram[size_t(b) * size_t(codes) + size_t(c)];
            if (n == 0)
                continue;
            keys << grp.histLow + (b + 0.5) * width;
            values << n;
            stack[size_t(b)] += n;
            top = std::max(top, stack[size_t(b)]);
        }
        auto* bars = new QCPBars(x, y);
        bars->setWidth(width);
        bars->setStackingGap(0);
        bars->setData(keys, values, true);
        const QColor color = t.codeColor(codes > 1 ? double(c) / (codes - 1) : 0);
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(t.dark ? 80 : 130), 0.5));
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
    y->setRange(0, top * 1.12);
    if (codes <= 64)
        for (float e : grp.edges)
            vline(m_buckets, m_buckets->axisRect(), e, QPen(t.plotGrid, 1, Qt::SolidLine));
    // Each level's code under the plot's top edge, where it is readable.
    if (codes <= 16)
        for (int c = 0; c < codes; ++c)
            label(m_buckets, m_buckets->axisRect(), grp.levels[size_t(c)], top * 1.1, QString::number(c),
                  Qt::AlignHCenter | Qt::AlignTop, t.mutedText);
}

void PlaygroundView::drawRow()
{
    const Theme& t = context()->theme();
    const qs::PlaygroundResult& r = *m_result;
    const int codes = 1 << r.options.bits;
    const double K = double(r.cols);
    const size_t g = size_t(std::clamp(m_group->value(), 0, int(r.groups.size()) - 1));

    QCPAxis* cx = m_codesRect->axis(QCPAxis::atBottom);
    QCPAxis* cy = m_codesRect->axis(QCPAxis::atLeft);
    cx->setRange(-0.5, K - 0.5);
    cx->setTickLabels(false);
    cy->setRange(-0.5, 0.5);
    cy->setTicks(false);
    cy->setLabel(tr("codes"));
    auto* strip = new QCPColorMap(cx, cy);
    // Two identical cell rows: QCustomPlot draws a one-cell-high map with zero height.
    strip->data()->setSize(int(r.cols), 2);
    strip->data()->setRange(QCPRange(0, K - 1), QCPRange(-0.25, 0.25));
    for (uint64_t k = 0; k < r.cols; ++k)
        for (int row = 0; row < 2; ++row) // two's complement codes by their signed value
            strip->data()->setCell(int(k), row,
                                   r.signedCodes ? (r.quantized.codes[k] + codes / 2) % codes : r.quantized.codes[k]);
    strip->setGradient(codeGradient(t, codes));
    strip->setDataRange(QCPRange(0, codes - 1));
    strip->setInterpolate(false);

    QCPAxis* ex = m_errorRect->axis(QCPAxis::atBottom);
    QCPAxis* ey = m_errorRect->axis(QCPAxis::atLeft);
    ex->setRange(-0.5, K - 0.5);
    ex->setLabel(m_shownColumns.empty() ? tr("element k of the row")
                                        : tr("position k of the row in g_idx order (act-order)"));
    m_rowTitle->setText(tr("Codes and error along the row"));
    ey->setLabel(tr("error ŵ − w"));
    // ±half a step per group: round to nearest stays inside; clamped values do not.
    auto* upper = new QCPGraph(ex, ey);
    auto* lower = new QCPGraph(ex, ey);
    for (const qs::PlaygroundGroup& grp : r.groups) {
        for (double k : {double(grp.begin) - 0.5, double(grp.end) - 0.5}) {
            upper->addData(k, 0.5 * grp.step);
            lower->addData(k, -0.5 * grp.step);
        }
    }
    for (QCPGraph* band : {upper, lower}) {
        band->setLineStyle(QCPGraph::lsStepLeft);
        band->setPen(QPen(t.plotGrid, 1));
    }
    QColor bandFill = t.accent;
    bandFill.setAlpha(28);
    upper->setBrush(bandFill);
    upper->setChannelFillGraph(lower);

    auto* err = new QCPGraph(ex, ey);
    QVector<double> keys(int(r.cols)), values(int(r.cols));
    double maxAbs = 0;
    for (uint64_t k = 0; k < r.cols; ++k) {
        keys[int(k)] = double(k);
        values[int(k)] = r.error[k];
        maxAbs = std::max(maxAbs, std::fabs(double(r.error[k])));
    }
    err->setData(keys, values, true);
    err->setLineStyle(r.cols <= 2048 ? QCPGraph::lsImpulse : QCPGraph::lsLine);
    err->setPen(QPen(t.error, r.cols <= 512 ? 1.5 : 1));
    const double span = std::max(maxAbs, 0.5 * double(r.groups[g].step)) * 1.15;
    ey->setRange(-(span > 0 ? span : 1), span > 0 ? span : 1);

    // The inspected group, outlined on both strips.
    for (QCPAxisRect* rect : {m_codesRect, m_errorRect}) {
        auto* box = new QCPItemRect(m_row_plot);
        box->setClipAxisRect(rect);
        for (QCPItemPosition* p : {box->topLeft, box->bottomRight})
            p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        const QCPRange yr = rect->axis(QCPAxis::atLeft)->range();
        box->topLeft->setCoords(double(r.groups[g].begin) - 0.5, yr.upper);
        box->bottomRight->setCoords(double(r.groups[g].end) - 0.5, yr.lower);
        box->setPen(QPen(t.accent, 2));
        box->setBrush(Qt::NoBrush);
    }
    if (r.groups.size() <= 64)
        for (const qs::PlaygroundGroup& grp : r.groups)
            if (grp.begin > 0)
                vline(m_row_plot, m_errorRect, double(grp.begin) - 0.5, QPen(t.plotGrid, 1, Qt::DashLine));
}

void PlaygroundView::updateWords()
{
    const qs::PlaygroundResult& r = *m_result;
    const size_t g = size_t(std::clamp(m_group->value(), 0, int(r.groups.size()) - 1));
    const qs::PlaygroundGroup& grp = r.groups[g];
    PlaygroundWords::Content c;
    c.bits = r.options.bits;
    c.packsRows = r.rows > 1;
    for (uint64_t i = 0; i < r.rows; ++i)
        c.rowNames.push_back(rowName(i));
    c.focusBegin = grp.begin;
    c.focusEnd = grp.end;
    if (r.options.block) {
        const qs::LayoutSpec* spec = qs::findLayoutSpec(r.options.block->id);
        c.wordBits = qs::playgroundWordBits(r);
        if (spec)
            for (const qs::BlockField& f : spec->blockFields)
                c.fieldNames.push_back(QString::fromStdString(f.name));
        // Every byte of the group: at most one a code, and the block's field bytes.
        c.words = qs::playgroundWords(r, grp.begin, grp.end, size_t(grp.end - grp.begin) + kMaxWords);
        if (m_shownWeight >= 0)
            qs::numberAsStored(c.words, r, m_shownWeightRows, m_shownBlockStart);
        const QString name = spec ? QString::fromStdString(spec->name) : QString::fromStdString(r.options.block->id);
        if (c.words.empty()) {
            c.title = tr("Packed bytes");
            c.note = tr("no layout spec for %1").arg(name);
        } else {
            c.title = tr("Bytes %1–%2 of %3 holding %4 · %5")
                          .arg(c.words.front().index)
                          .arg(c.words.back().index)
                          .arg(QString::fromStdString(r.codeTensor), groupName(grp), name);
            c.note = spec && !spec->blockFields.empty()
                ? tr("block fields in their colours, then the codes; MSB left, as in the Bit map")
                : tr("two codes a byte, element 2i in the high nibble; MSB left, as in the Bit map");
        }
        m_words->setContent(std::move(c));
        return;
    }
    const QString format = QString::fromStdString(r.options.affine->id);
    if (!r.packError.empty()) {
        c.title = tr("Packed words: %1 cannot store this").arg(format);
        c.note = QString::fromStdString(r.packError);
    } else if (!r.hasLayout) {
        c.title = tr("Packed words");
        c.note = tr("no layout spec for %1").arg(format);
    } else {
        // A stored row at its own settings: the words as the file holds them (the codes check in the
        // summary says whether this packing reproduces them).
        const bool stored = m_codeCheck.matched >= 0 && m_shownWeight >= 0 && m_shownWeight == context()->weight();
        QString storedError;
        if (stored) {
            std::vector<uint64_t> columns;
            for (uint64_t p = grp.begin; p < grp.end; ++p)
                columns.push_back(weightColumn(p));
            try {
                c.words = qs::playgroundStoredWords(*context()->checkpoint(), *context()->logicalWeight(),
                                                    m_shownBlockStart, r.rows, columns, kMaxWords);
            } catch (const qs::Error& e) {
                storedError = QString::fromStdString(e.what());
            }
            // Fields name positions of the row shown, as the plots do.
            for (qs::PlaygroundWord& word : c.words)
                for (qs::PlaygroundField& f : word.fields)
                    f.col = positionOf(f.col).value_or(f.col);
        } else {
            c.words = qs::playgroundWords(r, grp.begin, grp.end, kMaxWords);
            if (m_shownWeight >= 0) // the weight's own word numbers, as the Bit map shows them
                qs::numberAsStored(c.words, r, m_shownWeightRows, m_shownBlockStart);
        }
        const qs::LayoutSpec* spec = qs::findLayoutSpec(r.options.affine->id);
        const QString first = c.words.empty() ? QString() : QString::number(c.words.front().index);
        const QString last = c.words.empty() ? QString() : QString::number(c.words.back().index);
        c.title = (stored ? tr("Stored words %1–%2 of %3 holding group %4 · %5")
                          : tr("Packed words %1–%2 of %3 holding group %4 · %5"))
                      .arg(first, last, QString::fromStdString(r.codeTensor))
                      .arg(g)
                      .arg(spec ? QString::fromStdString(spec->name) : format);
        if (spec && spec->packAxis == qs::PackAxis::Out) // AWQ GEMM
            c.note = tr("AWQ packs column k of 8 output rows per word, nibbles in order n0 n2 n4 n6 n1 n3 n5 n7; "
                        "the chosen row is outlined");
        else if (32 % r.options.bits != 0 && spec && spec->straddles)
            c.note = tr("%1-bit codes form one LSB-first bit stream: a code can straddle two words (·lo, ·hi)")
                         .arg(r.options.bits);
        else if (32 % r.options.bits != 0)
            c.note =
                tr("%1 codes per word, the top %2 bits stay zero").arg(32 / r.options.bits).arg(32 % r.options.bits);
        else
            c.note = tr("%1 codes per word, element k in slot k mod %1").arg(32 / r.options.bits);
        if (stored)
            c.note = !storedError.isEmpty() ? storedError
                : m_shownColumns.empty()    ? tr("as the file holds them; %1").arg(c.note)
                                            : tr("as the file holds them; k is the position in g_idx order");
    }
    m_words->setContent(std::move(c));
}

void PlaygroundView::updateSummary()
{
    const qs::PlaygroundResult& r = *m_result;
    const size_t g = size_t(std::clamp(m_group->value(), 0, int(r.groups.size()) - 1));
    const qs::PlaygroundGroup& grp = r.groups[g];
    const bool mlx = r.rule == qs::AffineRule::Mlx;
    const QString muted = context()->theme().mutedText.name();
    QString text = r.options.block
        ? tr("<b>%1</b> (k %2–%3): values [%4, %5] · levels [%6, %7] · clamped %8")
                .arg(groupName(grp))
                .arg(grp.begin)
                .arg(grp.end - 1)
                .arg(localNumber(grp.min, 'g', 4), localNumber(grp.max, 'g', 4), localNumber(grp.lowLevel, 'g', 4),
                     localNumber(grp.highLevel, 'g', 4))
                .arg(grp.clippedLow + grp.clippedHigh)
            + QStringLiteral("<br>") + blockFieldsText(grp, true)
        : tr("<b>Group %1</b> (k %2–%3): values [%4, %5] · levels [%6, %7] · scale %8 · %9 %10 · clamped %11")
              .arg(g)
              .arg(grp.begin)
              .arg(grp.end - 1)
              .arg(localNumber(grp.min, 'g', 4), localNumber(grp.max, 'g', 4), localNumber(grp.lowLevel, 'g', 4),
                   localNumber(grp.highLevel, 'g', 4),
                   g < m_codeCheck.storedScales.size()
                       ? tr("%1 (stored %2)")
                             .arg(localNumber(grp.scale, 'g', 5), localNumber(m_codeCheck.storedScales[g], 'g', 5))
                       : localNumber(grp.scale, 'g', 4),
                   mlx ? tr("bias") : tr("zero"), localNumber(grp.zero, 'g', 4))
              .arg(grp.clippedLow + grp.clippedHigh);
    text += QStringLiteral(" &nbsp;<span style='color:%1'>|</span>&nbsp; ").arg(muted);
    const int groups = int(r.groups.size());
    const QString grouping = !r.options.block ? tr("%n group(s) of %1", nullptr, groups).arg(r.quantized.groupSize)
        : grp.subBlock >= 0                   ? tr("%n sub-block(s) of %1", nullptr, groups).arg(r.quantized.groupSize)
                                              : tr("%n block(s) of %1", nullptr, groups).arg(r.quantized.groupSize);
    text +=
        tr("<b>Row</b>: RMSE %1 · max error %2 · SQNR %3 dB · %4")
            .arg(localNumber(r.rmse, 'g', 4), localNumber(r.maxAbs, 'g', 4), localNumber(r.sqnrDb, 'g', 4), grouping);
    if (m_source->currentData().toInt() == int(Source::WeightRow)) {
        text += QStringLiteral("<br>");
        const qs::LogicalWeight* w = context()->logicalWeight();
        const CodeCheck& check = m_codeCheck;
        const uint64_t scales = check.storedScales.size();
        const bool codesBack = check.matched >= 0 && uint64_t(check.matched) == check.total;
        const bool scalesBack = check.scalesMatched == scales;
        if (check.matched >= 0 && codesBack && scalesBack)
            text += scales > 0 ? tr("<b>Codes</b>: all %1 codes and %n scale(s) reproduce the stored ones of this row",
                                    nullptr, int(scales))
                                     .arg(check.total)
                               : tr("<b>Codes</b>: all %1 reproduce the stored codes of this row").arg(check.total);
        else if (check.matched >= 0) {
            text += scales > 0
                ? tr("<b>Codes</b>: %1 of %2 codes and %3 of %n scale(s) reproduce the stored ones of this row",
                     nullptr, int(scales))
                      .arg(check.matched)
                      .arg(check.total)
                      .arg(check.scalesMatched)
                : tr("<b>Codes</b>: %1 of %2 reproduce the stored codes of this row")
                      .arg(check.matched)
                      .arg(check.total);
            // Why, from what differs: the range rounding chose, or the codes under the same range.
            if (!scalesBack && w && w->symmetric)
                text += tr(": a symmetric scale is 2·max|w| / (2^b − 1) of the original weights, whose largest |w| "
                           "lies between two levels; rounding the stored values again starts from a level and finds "
                           "another scale");
            else if (!scalesBack)
                text += tr(": the stored weight's quantizer chose another range (clipping, a search for the scale)");
            else
                text += tr(": with the same scales, the stored weight's quantizer rounded the others differently "
                           "(error feedback, as GPTQ's)");
        } else if (w)
            text += tr("<b>Codes</b>: not compared with the stored ones: these settings are not the weight's own (%1, "
                       "%2 bits, %3, %4)")
                        .arg(QString::fromStdString(w->format))
                        .arg(w->bits)
                        .arg(w->groupSize > 0 ? tr("group %1").arg(w->groupSize) : tr("whole row"),
                             w->symmetric ? tr("symmetric") : tr("asymmetric"));
    }
    m_summary->setText(text);
}

QString PlaygroundView::settingsCaption() const
{
    if (!m_result)
        return tr("Quantization playground");
    const qs::PlaygroundOptions& o = m_result->options;
    const QString source = m_source->currentData().toInt() == int(Source::WeightRow)
        ? tr("row %1 of %2")
              .arg(m_row->value())
              .arg(context()->weightRow() ? shownText(context()->weightRow()->name) : QString())
        : tr("%1, seed %2, %3 values").arg(m_source->currentText()).arg(m_seed->value()).arg(m_length->value());
    if (o.block)
        return o.blocksize ? tr("%1 · blocks of %2%3 · %4")
                                 .arg(m_target->currentText())
                                 .arg(o.blocksize)
                                 .arg(o.nested ? tr(", nested absmax") : QString(), source)
                           : tr("%1 · %2").arg(m_target->currentText(), source);
    const QString group = o.groupSize == 0 ? tr("whole row") : tr("group %1").arg(o.groupSize);
    return tr("%1 · %2 bits · %3 · %4 · clipping %5 · %6")
        .arg(m_target->currentText())
        .arg(o.bits)
        .arg(group, o.symmetric ? tr("symmetric") : tr("asymmetric"), localNumber(o.clipRatio, 'f', 2), source);
}

QString PlaygroundView::groupName(const qs::PlaygroundGroup& grp) const
{
    if (!m_result || !m_result->options.block)
        return tr("group %1").arg(grp.begin / std::max<uint64_t>(1, m_result ? m_result->quantized.groupSize : 1));
    if (grp.subBlock >= 0)
        return tr("sub-block %1 of block %2").arg(grp.subBlock).arg(grp.block);
    return tr("block %1").arg(grp.block);
}

QString PlaygroundView::blockFieldsText(const qs::PlaygroundGroup& grp, bool rich) const
{
    // The block's fields as core decodes them (qs::BlockValues, what the Bit map's panel shows):
    // the block's own, the group's sub-block scale and min, and with `rich` every sub-block's.
    if (!m_result || grp.block >= m_result->blocks.blocks.size())
        return {};
    const std::vector<qs::BlockValue>& values = m_result->blocks.blocks[size_t(grp.block)].values;
    QStringList parts;
    QStringList scales, mins;
    for (const qs::BlockValue& v : values) {
        const QString field = QString::fromStdString(v.field);
        switch (v.kind) {
        case qs::BlockValueKind::SubScale:
        case qs::BlockValueKind::SubMin: {
            const bool scale = v.kind == qs::BlockValueKind::SubScale;
            (scale ? scales : mins) << QString::number(qint64(v.value));
            if (v.index == grp.subBlock)
                parts << (rich ? (scale ? tr("sub-block scale %1 (× d = %2)") : tr("sub-block min %1 (× dmin = %2)"))
                                     .arg(qint64(v.value))
                                     .arg(localNumber(v.effective, 'g', 4))
                               : (scale ? tr("d·sc = %1") : tr("dmin·m = %1")).arg(localNumber(v.effective, 'g', 4)));
            break;
        }
        // bitsandbytes nested absmax: the code, its map entry, the second-level scale, the offset.
        case qs::BlockValueKind::AbsmaxCode:
            parts << tr("code %1 → %2").arg(v.raw).arg(localNumber(v.value, 'g', 5));
            break;
        case qs::BlockValueKind::AbsmaxScale: // the summary's, not the plot title's
            if (rich)
                parts << tr("second-level scale %1 = %2").arg(v.index).arg(localNumber(v.value, 'g', 5));
            break;
        case qs::BlockValueKind::AbsmaxOffset:
            if (rich)
                parts << tr("offset = %1").arg(localNumber(v.value, 'g', 5));
            break;
        default:
            // The plot's title names the sub-block's own factors only; the summary every field.
            if (rich || grp.subBlock < 0)
                parts << tr("%1 = %2").arg(field, localNumber(v.value, 'g', 5));
            break;
        }
    }
    QString text = parts.join(QStringLiteral(" · "));
    if (rich) {
        text = tr("<b>Block %1</b>: %2").arg(grp.block).arg(text.toHtmlEscaped());
        if (!scales.isEmpty())
            text += QStringLiteral(" · ") + tr("sub-block scales %1").arg(scales.join(QLatin1Char(' ')));
        if (!mins.isEmpty())
            text += QStringLiteral(" · ") + tr("mins %1").arg(mins.join(QLatin1Char(' ')));
    }
    return text;
}

QSize PlaygroundView::exportSize() const
{
    return size().expandedTo(QSize(1200, 800));
}

void PlaygroundView::renderExport(QPainter& painter, const QRect& target)
{
    // Vector export: the settings as a caption, the summary, each plot through QCustomPlot's
    // own painter (recorded in a QPicture) and the words through their paint routine, each
    // at its place in the view scaled to the target.
    const Theme& t = context()->theme();
    painter.save();
    painter.fillRect(target, t.background);
    const QSize source = size();
    painter.translate(target.topLeft());
    if (source.width() > 0 && source.height() > 0 && source != target.size())
        painter.scale(double(target.width()) / source.width(), double(target.height()) / source.height());
    const int top = m_summary->geometry().top();
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(t.text);
    painter.drawText(QRect(8, 0, source.width() - 16, top), Qt::AlignLeft | Qt::AlignVCenter, settingsCaption());
    painter.setFont(font());
    painter.save();
    painter.translate(m_summary->geometry().topLeft());
    m_summary->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.restore();
    if (m_error->isVisible()) {
        painter.setPen(t.error);
        painter.drawText(m_error->geometry(), Qt::AlignLeft | Qt::TextWordWrap, m_error->text());
    }
    for (QCustomPlot* plot : {m_map, m_buckets, m_row_plot}) {
        QPicture picture;
        {
            QCPPainter qp(&picture);
            plot->toPainter(&qp, plot->width(), plot->height());
        }
        painter.drawPicture(plot->geometry().topLeft(), picture);
    }
    m_words->paint(painter, m_wordsArea->geometry());
    painter.restore();
}

} // namespace qsw
