#include "recipeview.h"

#include "figures/plottheme.h"
#include "jobrunner.h"
#include "numbers.h"
#include "qtext.h"
#include "tablecsv.h"
#include "viewcontext.h"

#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QFontMetrics>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTextLayout>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <set>
#include <unordered_map>

namespace qsw {

const QString RecipeView::kCompareJob = QStringLiteral("recipe-compare");
const QString RecipeView::kImatrixJob = QStringLiteral("recipe-imatrix");
const QString RecipeView::kSummaryJob = QStringLiteral("recipe-summary");

namespace {

// Columns in this order first; other roles follow in the order the checkpoint lists them.
const char* const kRoleOrder[] = {"attn_q",      "attn_k",        "attn_v",    "attn_qkv",     "attn_output",
                                  "ffn_gate",    "ffn_up",        "ffn_down",  "ffn_gate_inp", "ffn_gate_exps",
                                  "ffn_up_exps", "ffn_down_exps", "attn_norm", "ffn_norm"};

QString recipeLayerName(int layer)
{
    return layer < 0 ? RecipeView::tr("other") : QString::number(layer);
}

QString recipeBits(double bpw)
{
    return localNumber(bpw, 'f', 2);
}

// A column label ("attn_output", "synthetic4096.iq2_xxs") in lines of at most `width` pixels:
// broken after '.' and '_' where that suffices, anywhere in a name that is wider still.
QStringList recipeLabelLines(const QString& label, const QFont& font, int width)
{
    QString breakable;
    for (const QChar c : label) {
        breakable += c;
        if (c == QLatin1Char('.') || c == QLatin1Char('_'))
            breakable += QChar(0x200b); // zero-width space: a break opportunity
    }
    QTextLayout layout(breakable, font);
    QTextOption option(Qt::AlignHCenter);
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    QStringList lines;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        lines << breakable.mid(line.textStart(), line.textLength()).remove(QChar(0x200b));
    }
    layout.endLayout();
    return lines;
}

// A plot that a splitter has not sized yet (its tab never shown) has no paint buffer and
// warns when drawn; it replots itself when it gets its size.
void replotIfSized(QCustomPlot* plot)
{
    if (!plot->size().isEmpty())
        plot->replot();
}

} // namespace

RecipeGridModel RecipeGridModel::build(const qs::Checkpoint& ckpt, const qs::RecipeSummary& a,
                                       const qs::RecipeComparison* comparison, const Theme& theme)
{
    RecipeGridModel g;
    // Columns: the roles in kRoleOrder that occur, then the others in the order met; each
    // found through a hash map (a search of the list per tensor was quadratic in the roles).
    std::unordered_map<std::string, size_t> roleIndex;
    std::vector<std::string> roles;
    std::vector<size_t> roleTensors;
    std::unordered_map<std::string, size_t> present;
    for (const qs::RecipeTensor& t : a.tensors)
        ++present[t.role];
    for (const char* r : kRoleOrder)
        if (present.count(r) && roleIndex.emplace(r, roles.size()).second) {
            roles.push_back(r);
            roleTensors.push_back(present[r]);
        }
    for (const qs::RecipeTensor& t : a.tensors)
        if (roleIndex.emplace(t.role, roles.size()).second) {
            roles.push_back(t.role);
            roleTensors.push_back(present[t.role]);
        }
    // Rows: the summary's layers, the first kMaxRows of them (the tensors outside the blocks,
    // layer -1, stay last).
    std::vector<int> layers;
    for (const qs::RecipeLayerRow& l : a.layers)
        layers.push_back(l.layer);
    if (layers.size() > kMaxRows) {
        const bool other = layers.back() < 0;
        g.hiddenLayers = layers.size() - kMaxRows;
        layers.resize(kMaxRows - (other ? 1 : 0));
        if (other)
            layers.push_back(-1);
    }
    // Columns within the bounds: the roles holding the most tensors, in their order.
    const size_t fit = std::min(kMaxColumns, std::max<size_t>(1, kMaxCells / std::max<size_t>(1, layers.size())));
    std::vector<bool> keep(roles.size(), true);
    if (roles.size() > fit) {
        std::vector<size_t> byCount(roles.size());
        for (size_t i = 0; i < byCount.size(); ++i)
            byCount[i] = i;
        std::stable_sort(byCount.begin(), byCount.end(),
                         [&](size_t x, size_t y) { return roleTensors[x] > roleTensors[y]; });
        for (size_t k = fit; k < byCount.size(); ++k)
            keep[byCount[k]] = false;
        g.hiddenRoles = roles.size() - fit;
    }
    std::vector<int> column(roles.size(), -1);
    for (size_t i = 0; i < roles.size(); ++i)
        if (keep[i]) {
            column[i] = int(g.roles.size());
            g.roles.push_back(QString::fromStdString(roles[i]));
        }
    std::unordered_map<int, size_t> rowOf;
    for (size_t r = 0; r < layers.size(); ++r)
        rowOf.emplace(layers[r], r);
    g.layers = layers;
    g.cells.assign(g.layers.size(), std::vector<Cell>(g.roles.size()));
    std::map<std::pair<int, std::string>, const qs::RecipeComparison::Row*> differing;
    if (comparison)
        for (const auto& r : comparison->differing)
            if (!r.nameA.empty())
                differing[{r.layer, r.role}] = &r;
    for (size_t i = 0; i < a.tensors.size(); ++i) {
        const qs::RecipeTensor& t = a.tensors[i];
        const auto row = rowOf.find(t.layer);
        const int col = column[roleIndex.at(t.role)];
        if (row == rowOf.end() || col < 0 || g.cells[row->second][size_t(col)].tensor >= 0)
            continue; // a layer or role left out; a second tensor of the same role (a bias): the weight keeps the cell
        Cell& c = g.cells[row->second][size_t(col)];
        c.tensor = int(i);
        if (const auto it = differing.find({t.layer, t.role}); it != differing.end()) {
            c.differs = true;
            c.labelB = QString::fromStdString(it->second->labelB);
        }
    }
    // Colour: the format's role colour, lighter for fewer bits per weight.
    std::map<std::string, std::pair<double, QString>> types; // label -> (bpw, format id)
    for (size_t i = 0; i < a.tensors.size() && i < ckpt.weights.size(); ++i)
        types.emplace(a.tensors[i].label,
                      std::make_pair(a.tensors[i].bitsPerWeight(), QString::fromStdString(ckpt.weights[i].format)));
    for (const auto& [label, v] : types)
        g.legend.push_back(label);
    std::sort(g.legend.begin(), g.legend.end(),
              [&](const std::string& x, const std::string& y) { return types[x].first < types[y].first; });
    for (size_t k = 0; k < g.legend.size(); ++k) {
        const QColor base = theme.formatColor(types[g.legend[k]].second);
        const double f = g.legend.size() > 1 ? double(k) / double(g.legend.size() - 1) : 0.5;
        // Lightness 0.78 (fewest bits) to 0.34 (most), the role's hue and saturation kept.
        g.colours[g.legend[k]] = QColor::fromHslF(base.hslHueF() < 0 ? 0 : base.hslHueF(),
                                                  std::max(0.25f, base.hslSaturationF()), float(0.78 - 0.44 * f));
    }
    return g;
}

// The grid itself: painted cells, a tooltip per cell, a click selects the weight.
class RecipeGrid : public QWidget {
public:
    RecipeGrid(ViewContext* context, QWidget* parent)
        : QWidget(parent)
        , m_context(context)
    {
        setMouseTracking(true);
        setObjectName(QStringLiteral("recipeGrid"));
    }

    void setContents(RecipeGridModel model, const qs::RecipeSummary* summary)
    {
        m_model = std::move(model);
        m_summary = summary;
        m_anyDiffers = std::any_of(m_model.cells.begin(), m_model.cells.end(), [](const auto& row) {
            return std::any_of(row.begin(), row.end(), [](const RecipeGridModel::Cell& c) { return c.differs; });
        });
        m_hover = {-1, -1};
        // Columns as wide as the longest type label ("gptq-v1 4-bit g32"), within bounds; a
        // longer one elides in its cell and stands whole in the tooltip.
        const QFontMetrics fm(cellFont());
        m_cellWidth = kMinCellWidth;
        for (size_t k = 0; k < m_model.legend.size() && k < kMaxLegend; ++k)
            m_cellWidth = std::max(m_cellWidth,
                                   fm.horizontalAdvance(shownText(QString::fromStdString(m_model.legend[k]), kMaxLabel))
                                       + 2 * kCellPadding + 2);
        // A column label's longest part between breaks ("synthetic4096.") fits on one line too.
        for (const QString& role : m_model.roles)
            for (const QString& part :
                 roleLabel(role).replace(QLatin1Char('_'), QLatin1Char('.')).split(QLatin1Char('.')))
                m_cellWidth =
                    std::max(m_cellWidth, fm.horizontalAdvance(part + QLatin1Char('.')) + 2 * kCellPadding + 2);
        m_cellWidth = std::min(m_cellWidth, kMaxCellWidth);
        // Column labels wrap in as many lines as the longest needs (the header grows to hold
        // them all, up to kMaxHeaderLines; beyond that the last line elides and the tooltip
        // has the whole name).
        m_headerLines = 2;
        for (const QString& role : m_model.roles)
            m_headerLines =
                std::max<int>(m_headerLines, int(recipeLabelLines(roleLabel(role), cellFont(), labelWidth()).size()));
        m_headerLines = std::min(m_headerLines, kMaxHeaderLines);
        updateGeometry();
        resize(sizeHint());
        update();
    }
    const RecipeGridModel& model() const { return m_model; }

    // The cells' font, a little smaller than the widget's.
    QFont cellFont() const
    {
        QFont small = font();
        small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
        return small;
    }
    // What cell (row, col) shows: its type label, elided to the cell, over its bits per weight.
    QString cellText(int row, int col) const
    {
        const RecipeGridModel::Cell& cell = m_model.cells[size_t(row)][size_t(col)];
        if (cell.tensor < 0)
            return {};
        const qs::RecipeTensor& t = m_summary->tensors[size_t(cell.tensor)];
        const QString label = QFontMetrics(cellFont())
                                  .elidedText(shownText(QString::fromStdString(t.label), kMaxLabel), Qt::ElideMiddle,
                                              m_cellWidth - 2 - 2 * kCellPadding);
        return label + QLatin1Char('\n') + recipeBits(t.bitsPerWeight());
    }
    // Column `col`'s label as the header draws it, line by line.
    QStringList headerLines(int col) const
    {
        QStringList lines = recipeLabelLines(roleLabel(m_model.roles[size_t(col)]), cellFont(), labelWidth());
        if (lines.size() > m_headerLines) {
            const QString rest = QStringList(lines.mid(m_headerLines - 1)).join(QString());
            lines = lines.mid(0, m_headerLines - 1);
            lines << QFontMetrics(cellFont()).elidedText(rest, Qt::ElideRight, labelWidth());
        }
        return lines;
    }
    QRect headerRect(int col) const
    {
        return {kHeaderWidth + col * m_cellWidth, 0, m_cellWidth - 2, headerHeight() - 2};
    }
    // What the tooltip says at widget position p: a cell's tensor, or a column label in full.
    QString toolTipAt(const QPoint& p) const
    {
        for (int col = 0; col < int(m_model.roles.size()); ++col)
            if (headerRect(col).contains(p))
                return shownText(m_model.roles[size_t(col)], kMaxTip);
        const auto cell = cellAt(p);
        const RecipeGridModel::Cell* c =
            cell.first >= 0 ? &m_model.cells[size_t(cell.first)][size_t(cell.second)] : nullptr;
        if (!c || c->tensor < 0)
            return {};
        const qs::RecipeTensor& t = m_summary->tensors[size_t(c->tensor)];
        QString tip = QStringLiteral("<b>%1</b><br>%2, %3 bits per weight, %4 parameters<br>%5")
                          .arg(shownText(QString::fromStdString(t.name), kMaxTip).toHtmlEscaped(),
                               shownText(QString::fromStdString(t.label), kMaxTip), recipeBits(t.bitsPerWeight()),
                               localCount(t.elements), QString::fromLatin1(qs::recipeKindName(t.verdict.kind)));
        if (!t.verdict.reason.empty())
            tip += QStringLiteral(": ") + shownText(QString::fromStdString(t.verdict.reason), kMaxTip).toHtmlEscaped();
        if (t.extraBits != 0)
            tip += RecipeView::tr("<br>%1 bytes against the nominal type").arg(localNumber(t.extraBits / 8.0, 'f', 0));
        if (c->differs)
            tip += RecipeView::tr("<br>B: %1").arg(c->labelB.isEmpty() ? RecipeView::tr("absent") : c->labelB);
        return tip;
    }

    QSize sizeHint() const override
    {
        return {kHeaderWidth + int(m_model.roles.size()) * m_cellWidth + 8,
                headerHeight() + int(m_model.layers.size()) * kCellHeight + kLegendHeight};
    }

    // The cell under a widget position: (row, column), or (-1, -1).
    std::pair<int, int> cellAt(const QPoint& p) const
    {
        const int col = (p.x() - kHeaderWidth) / m_cellWidth, row = (p.y() - headerHeight()) / kCellHeight;
        if (p.x() < kHeaderWidth || p.y() < headerHeight() || col >= int(m_model.roles.size())
            || row >= int(m_model.layers.size()))
            return {-1, -1};
        return {row, col};
    }
    QRect cellRect(int row, int col) const
    {
        return {kHeaderWidth + col * m_cellWidth, headerHeight() + row * kCellHeight, m_cellWidth - 2, kCellHeight - 2};
    }

    // Paints what lies in `area` (the whole grid when it is empty): a grid of a hundred thousand
    // rows is painted a screenful at a time.
    void paintGrid(QPainter& p, const QRect& area = {}) const
    {
        const Theme& theme = m_context->theme();
        const QRect all(QPoint(0, 0), sizeHint());
        const QRect shown = area.isEmpty() ? all : area.intersected(all);
        p.fillRect(shown, theme.background);
        p.setFont(cellFont());
        p.setPen(theme.mutedText);
        const int columns = int(m_model.roles.size()), rows = int(m_model.layers.size());
        const int firstCol = std::clamp((shown.left() - kHeaderWidth) / m_cellWidth, 0, columns);
        const int endCol = std::clamp((shown.right() - kHeaderWidth) / m_cellWidth + 1, 0, columns);
        const int firstRow = std::clamp((shown.top() - headerHeight()) / kCellHeight, 0, rows);
        const int endRow = std::clamp((shown.bottom() - headerHeight()) / kCellHeight + 1, 0, rows);
        if (shown.top() < headerHeight())
            for (int c = firstCol; c < endCol; ++c)
                p.drawText(headerRect(c), Qt::AlignHCenter | Qt::AlignBottom, headerLines(c).join(QLatin1Char('\n')));
        if (shown.left() < kHeaderWidth)
            for (int r = firstRow; r < endRow; ++r)
                p.drawText(QRect(0, headerHeight() + r * kCellHeight, kHeaderWidth - 6, kCellHeight),
                           Qt::AlignRight | Qt::AlignVCenter,
                           m_model.layers[size_t(r)] < 0 ? RecipeView::tr("other")
                                                         : RecipeView::tr("blk %1").arg(m_model.layers[size_t(r)]));
        const int selected = m_context->weight();
        for (size_t r = size_t(firstRow); r < size_t(endRow); ++r)
            for (size_t c = size_t(firstCol); c < size_t(endCol); ++c) {
                const RecipeGridModel::Cell& cell = m_model.cells[r][c];
                const QRect rect = cellRect(int(r), int(c));
                if (cell.tensor < 0) {
                    p.fillRect(rect, theme.alternate);
                    continue;
                }
                const qs::RecipeTensor& t = m_summary->tensors[size_t(cell.tensor)];
                const QColor fill = m_model.colours.at(t.label);
                p.fillRect(rect, fill);
                p.setPen(fill.lightnessF() > 0.55 ? QColor(Qt::black) : QColor(Qt::white));
                p.drawText(rect, Qt::AlignCenter, cellText(int(r), int(c)));
                QPen outline(Qt::NoPen);
                if (cell.differs)
                    outline = QPen(theme.warning, 3);
                if (cell.tensor == selected || (int(r) == m_hover.first && int(c) == m_hover.second))
                    outline = QPen(theme.accent, cell.tensor == selected ? 3 : 2);
                if (outline.style() != Qt::NoPen) {
                    p.setPen(outline);
                    p.setBrush(Qt::NoBrush);
                    p.drawRect(rect.adjusted(1, 1, -1, -1));
                }
            }
        // The legend: one swatch per stored type, fewest bits first.
        int x = kHeaderWidth;
        const int y = headerHeight() + int(m_model.layers.size()) * kCellHeight + 8;
        if (y + kLegendHeight < shown.top())
            return;
        for (size_t k = 0; k < m_model.legend.size() && k < kMaxLegend; ++k) {
            const std::string& label = m_model.legend[k];
            p.fillRect(QRect(x, y, 14, 14), m_model.colours.at(label));
            p.setPen(theme.text);
            const QString text = shownText(QString::fromStdString(label), kMaxLabel);
            p.drawText(QPoint(x + 18, y + 12), text);
            x += 30 + p.fontMetrics().horizontalAdvance(text);
        }
        if (m_anyDiffers) {
            p.setPen(QPen(theme.warning, 3));
            p.drawRect(QRect(x, y, 14, 14));
            p.setPen(theme.text);
            p.drawText(QPoint(x + 18, y + 12), RecipeView::tr("differs in B"));
        }
    }

protected:
    void paintEvent(QPaintEvent* e) override
    {
        QPainter p(this);
        paintGrid(p, e->rect());
    }
    void mouseMoveEvent(QMouseEvent* e) override
    {
        const auto cell = cellAt(e->position().toPoint());
        if (cell != m_hover) {
            m_hover = cell;
            update();
        }
        const QString tip = toolTipAt(e->position().toPoint());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(), tip, this);
    }
    void leaveEvent(QEvent*) override
    {
        m_hover = {-1, -1};
        update();
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        const auto cell = cellAt(e->position().toPoint());
        if (cell.first < 0 || e->button() != Qt::LeftButton)
            return;
        const int tensor = m_model.cells[size_t(cell.first)][size_t(cell.second)].tensor;
        if (tensor >= 0)
            m_context->requestWeight(tensor);
    }

private:
    // A role as its column label shows it: a name of a megabyte is not laid out as text.
    static QString roleLabel(const QString& role) { return shownText(role, kMaxLabel); }
    int labelWidth() const { return m_cellWidth - 2 - 2 * kCellPadding; }
    int headerHeight() const { return m_headerLines * QFontMetrics(cellFont()).lineSpacing() + 4; }

    static constexpr int kHeaderWidth = 64, kCellHeight = 34, kLegendHeight = 32, kMaxHeaderLines = 5;
    static constexpr int kMinCellWidth = 74, kMaxCellWidth = 180, kCellPadding = 3;
    static constexpr int kMaxLabel = 120, kMaxTip = 2000;
    static constexpr size_t kMaxLegend = 64;
    int m_cellWidth = kMinCellWidth;
    bool m_anyDiffers = false;
    int m_headerLines = 2;
    ViewContext* m_context;
    RecipeGridModel m_model;
    const qs::RecipeSummary* m_summary = nullptr;
    std::pair<int, int> m_hover{-1, -1};
};

RecipeView::RecipeView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
    , m_summaryLabel(new QLabel(this))
    , m_open(new QPushButton(tr("Compare with…"), this))
    , m_clear(new QPushButton(tr("Clear"), this))
    , m_openImatrix(new QPushButton(tr("Importance matrix…"), this))
    , m_grid(new RecipeGrid(context, this))
    , m_plot(new QCustomPlot(this))
    , m_importancePanel(new QWidget(this))
    , m_importanceLabel(new QLabel(m_importancePanel))
    , m_importanceTable(new QTableWidget(m_importancePanel))
    , m_channelPlot(new QCustomPlot(m_importancePanel))
{
    m_summaryLabel->setObjectName(QStringLiteral("recipeSummary"));
    m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summaryLabel->setWordWrap(true);
    m_plot->setObjectName(QStringLiteral("recipeChart"));
    m_plot->setMinimumHeight(160);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_grid);
    scroll->setWidgetResizable(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_summaryLabel, 1);
    buttons->addWidget(m_open, 0, Qt::AlignTop);
    buttons->addWidget(m_clear, 0, Qt::AlignTop);
    buttons->addWidget(m_openImatrix, 0, Qt::AlignTop);
    // Beside the grid: the importance matrix, per tensor (table) and per input channel (plot).
    m_importanceLabel->setObjectName(QStringLiteral("importanceSummary"));
    m_importanceLabel->setWordWrap(true);
    m_importanceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_importanceTable->setObjectName(QStringLiteral("importanceTable"));
    m_importanceTable->setColumnCount(5);
    m_importanceTable->setHorizontalHeaderLabels(
        {tr("Weight"), tr("Channels"), tr("Mean"), tr("Max / mean"), tr("Imatrix")});
    m_importanceTable->verticalHeader()->hide();
    m_importanceTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_importanceTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_importanceTable->horizontalHeader()->setStretchLastSection(true);
    m_importanceTable->setWordWrap(false);
    m_channelPlot->setObjectName(QStringLiteral("importanceChannels"));
    // Never laid out at zero width beside the grid: a zero-sized plot warns on every replot.
    m_channelPlot->setMinimumSize(200, 150);
    auto* panelLayout = new QVBoxLayout(m_importancePanel);
    panelLayout->setContentsMargins(0, 0, 0, 0);
    panelLayout->addWidget(m_importanceLabel);
    panelLayout->addWidget(m_importanceTable, 3);
    panelLayout->addWidget(m_channelPlot, 2);
    m_importancePanel->hide();
    auto* beside = new QSplitter(Qt::Horizontal, this);
    beside->addWidget(scroll);
    beside->addWidget(m_importancePanel);
    beside->setStretchFactor(0, 3);
    beside->setStretchFactor(1, 2);
    beside->setSizes({600, 400});
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(beside);
    split->addWidget(m_plot);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    m_clear->setEnabled(false);
    connect(m_open, &QPushButton::clicked, this, &RecipeView::openDialog);
    connect(m_clear, &QPushButton::clicked, this, &RecipeView::clearComparison);
    connect(m_openImatrix, &QPushButton::clicked, this, &RecipeView::openImatrixDialog);
    connect(m_importanceTable, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (const QTableWidgetItem* item = m_importanceTable->item(row, 0))
            this->context()->requestWeight(item->data(Qt::UserRole).toInt());
    });
    connect(context, &ViewContext::checkpointChanged, this, [this] {
        m_comparison.reset();
        m_clear->setEnabled(false);
        rebuildInFront();
        rebuildImportance();
    });
    connect(context, &ViewContext::themeChanged, this, [this] {
        rebuildInFront();
        redrawChannels();
    });
    connect(context, &ViewContext::weightChanged, m_grid, qOverload<>(&QWidget::update));
    connect(context, &ViewContext::weightChanged, this, &RecipeView::redrawChannels);
    connect(context, &ViewContext::imatrixChanged, this, &RecipeView::rebuildImportance);
    rebuildInFront();
    rebuildImportance();
}

RecipeView::~RecipeView() = default;

const RecipeGridModel& RecipeView::grid() const
{
    return m_grid->model();
}

QWidget* RecipeView::gridWidget() const
{
    return m_grid;
}

QRect RecipeView::gridCellRect(int row, int column) const
{
    return m_grid->cellRect(row, column);
}

QString RecipeView::gridCellText(int row, int column) const
{
    return m_grid->cellText(row, column);
}

QFont RecipeView::gridCellFont() const
{
    return m_grid->cellFont();
}

QStringList RecipeView::gridHeaderLines(int column) const
{
    return m_grid->headerLines(column);
}

QRect RecipeView::gridHeaderRect(int column) const
{
    return m_grid->headerRect(column);
}

QString RecipeView::gridToolTip(const QPoint& pos) const
{
    return m_grid->toolTipAt(pos);
}

QString RecipeView::summaryText() const
{
    return m_summaryLabel->text();
}

void RecipeView::openDialog()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Compare the recipe with"), context()->checkpointFolder(),
                                     tr("Checkpoints (*.gguf *.safetensors);;All files (*)"));
    if (!path.isEmpty())
        openComparison(path);
}

void RecipeView::openComparison(const QString& path)
{
    const auto a = context()->checkpoint();
    if (!a)
        return;
    m_summaryLabel->setText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    QPointer<RecipeView> self(this);
    const std::string file = path.toStdString();
    context()->jobs()->start(kCompareJob, tr("Comparing the recipe with %1").arg(QFileInfo(path).fileName()),
                             [a, file, self](JobControl&) -> JobRunner::Continuation {
                                 const auto b = qs::openCheckpoint(file);
                                 auto c = std::make_shared<const qs::RecipeComparison>(qs::compareRecipes(*a, *b));
                                 return [self, a, c] {
                                     if (!self || a != self->context()->checkpoint())
                                         return;
                                     self->m_comparison = c;
                                     self->m_clear->setEnabled(true);
                                     self->rebuild();
                                 };
                             });
}

void RecipeView::openImatrixDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open an importance matrix"), {},
                                                      tr("Importance matrices (*.gguf *.dat);;All files (*)"));
    if (!path.isEmpty())
        openImatrix(path);
}

void RecipeView::openImatrix(const QString& path)
{
    m_importanceLabel->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    m_importancePanel->show();
    QPointer<RecipeView> self(this);
    const std::string file = path.toStdString();
    context()->jobs()->start(kImatrixJob, tr("Reading the importance matrix %1").arg(QFileInfo(path).fileName()),
                             [file, self](JobControl&) -> JobRunner::Continuation {
                                 auto im = std::make_shared<const qs::Imatrix>(qs::readImatrix(file));
                                 return [self, im] {
                                     if (self)
                                         self->context()->setImatrix(im);
                                 };
                             });
}

QString RecipeView::importanceText() const
{
    return m_importanceLabel->text();
}

void RecipeView::rebuildImportance()
{
    const auto ckpt = context()->checkpoint();
    const auto im = context()->imatrix();
    m_imatrixMatch.reset();
    m_matchedImatrix = im;
    m_matchedCheckpoint = ckpt;
    m_importanceTable->setRowCount(0);
    if (!ckpt || !im) {
        m_importancePanel->setVisible(false);
        redrawChannels();
        return;
    }
    m_importancePanel->setVisible(true);
    m_imatrixMatch = qs::matchImatrix(*im, *ckpt);
    const qs::ImatrixMatch& m = *m_imatrixMatch;
    QStringList lines;
    lines << tr("Importance matrix %1 (%2, %n entries)", nullptr, int(im->entries.size()))
                 .arg(QFileInfo(QString::fromStdString(im->path)).fileName(),
                      QString::fromLatin1(qs::imatrixFormatName(im->format)));
    lines << tr("Fits %1 of %2 matrix weights; %3 with other lengths, %4 entries for no weight")
                 .arg(m.fitting())
                 .arg(m.weights.size())
                 .arg(m.mismatched())
                 .arg(m.unusedEntries.size());
    m_importanceLabel->setText(lines.join(QLatin1Char('\n')));
    m_importanceTable->setRowCount(int(m.weights.size()));
    for (size_t i = 0; i < m.weights.size(); ++i) {
        const qs::ImatrixWeightMatch& w = m.weights[i];
        auto* name = new QTableWidgetItem(QString::fromStdString(w.weight->name));
        name->setData(Qt::UserRole, int(w.weight - ckpt->weights.data()));
        m_importanceTable->setItem(int(i), 0, name);
        if (w.fits()) {
            const qs::ImportanceSummary sum = qs::summarizeImportance(*w.entry);
            m_importanceTable->setItem(int(i), 1, new QTableWidgetItem(localCount(w.entry->importance.size())));
            m_importanceTable->setItem(int(i), 2, new QTableWidgetItem(localNumber(sum.mean, 'g', 4)));
            m_importanceTable->setItem(
                int(i), 3,
                new QTableWidgetItem(sum.mean > 0 ? localNumber(sum.max / sum.mean, 'f', 1) : QStringLiteral("–")));
            m_importanceTable->setItem(int(i), 4, new QTableWidgetItem(tr("fits")));
        } else {
            auto* why = new QTableWidgetItem(QString::fromStdString(w.problem));
            why->setForeground(context()->theme().warning);
            why->setToolTip(why->text());
            m_importanceTable->setItem(int(i), 4, why);
        }
    }
    m_importanceTable->resizeColumnsToContents();
    redrawChannels();
}

void RecipeView::redrawChannels()
{
    m_channelPlot->clearPlottables();
    const Theme& theme = context()->theme();
    applyPlotTheme(m_channelPlot, theme);
    const qs::LogicalWeight* w = context()->logicalWeight();
    const bool current = m_matchedCheckpoint == context()->checkpoint() && m_matchedImatrix == context()->imatrix();
    const qs::ImatrixWeightMatch* m = m_imatrixMatch && current && w ? m_imatrixMatch->find(w->name) : nullptr;
    m_channelPlot->xAxis->setLabel(tr("input channel"));
    m_channelPlot->yAxis->setLabel(tr("importance: mean x²"));
    if (m && m->fits()) {
        auto* bars = new QCPBars(m_channelPlot->xAxis, m_channelPlot->yAxis);
        bars->setName(shownText(QString::fromStdString(w->name)));
        bars->setPen(Qt::NoPen);
        bars->setBrush(theme.blockFormat);
        bars->setWidth(1.0);
        const std::vector<float>& v = m->entry->importance;
        for (size_t k = 0; k < v.size(); ++k)
            bars->addData(double(k), double(v[k]));
        m_channelPlot->rescaleAxes();
        m_channelPlot->xAxis->setRange(-0.5, double(v.size()) - 0.5);
        m_channelPlot->yAxis->setRange(0, m_channelPlot->yAxis->range().upper * 1.1);
        m_channelPlot->legend->setVisible(true);
    } else {
        m_channelPlot->legend->setVisible(false);
    }
    applyPlotTheme(m_channelPlot, theme);
    replotIfSized(m_channelPlot);
}

void RecipeView::clearComparison()
{
    m_comparison.reset();
    m_clear->setEnabled(false);
    rebuild();
}

// What rebuild() makes, on the spot or in a job: the summary, the grid and the label's lines.
struct RecipeView::Built {
    std::shared_ptr<const qs::Checkpoint> checkpoint;
    std::shared_ptr<const qs::RecipeComparison> comparison;
    qs::RecipeSummary summary;
    RecipeGridModel grid;
    QStringList lines;
};

void RecipeView::rebuildInFront()
{
    // What is shown belongs to the checkpoint that was open: it goes now, with its memory.
    context()->jobs()->cancel(kSummaryJob);
    showNothing(context()->checkpoint() ? QString() : tr("Open a checkpoint to see its quantization recipe."));
    whenInFront([this] { rebuild(); });
}

void RecipeView::showNothing(const QString& text)
{
    m_summary.reset();
    m_gridNotes.clear();
    m_summaryLabel->setText(text);
    m_grid->setContents({}, nullptr);
    redrawChart();
}

void RecipeView::rebuild()
{
    const auto ckpt = context()->checkpoint();
    context()->jobs()->cancel(kSummaryJob);
    if (!ckpt) {
        showNothing(tr("Open a checkpoint to see its quantization recipe."));
        return;
    }
    auto make = [ckpt, comparison = m_comparison, theme = context()->theme()] {
        Built b;
        b.checkpoint = ckpt;
        b.comparison = comparison;
        // The comparison's own summary of A when there is one: the same figures, computed once.
        b.summary = comparison ? comparison->a : qs::summarizeRecipe(*ckpt);
        for (const qs::Message& l : qs::recipeOverview(b.summary))
            b.lines << qtext(l).simplified();
        if (comparison) {
            b.lines << tr("B: %1").arg(QString::fromStdString(comparison->b.path));
            for (const qs::Message& l : qs::recipeOverview(comparison->b))
                b.lines << QStringLiteral("   ") + qtext(l).simplified();
            b.lines << tr("%n tensor(s) differ in type (outlined), %1 on both sides", nullptr,
                          int(comparison->differing.size()))
                           .arg(comparison->matched);
        }
        b.grid = RecipeGridModel::build(*ckpt, b.summary, comparison.get(), theme);
        return b;
    };
    if (ckpt->weights.size() <= kInlineWeights) {
        apply(make());
        return;
    }
    // Summarizing a million weights takes seconds: in the background, the view saying so.
    showNothing(
        tr("Summarizing the recipe of %n weight(s)…", nullptr, int(std::min<size_t>(ckpt->weights.size(), INT_MAX))));
    QPointer<RecipeView> self(this);
    context()->jobs()->start(kSummaryJob, tr("Summarizing the recipe"),
                             [make, self](JobControl&) -> JobRunner::Continuation {
                                 auto built = std::make_shared<Built>(make());
                                 return [self, built] {
                                     if (self && built->checkpoint == self->context()->checkpoint()
                                         && built->comparison == self->m_comparison)
                                         self->apply(std::move(*built));
                                 };
                             });
}

void RecipeView::apply(Built built)
{
    m_summary = std::move(built.summary);
    m_gridNotes.clear();
    if (built.grid.hiddenLayers)
        m_gridNotes << tr("The grid shows the first %1 of %2 layers.")
                           .arg(localCount(uint64_t(built.grid.layers.size())),
                                localCount(uint64_t(built.grid.layers.size() + built.grid.hiddenLayers)));
    if (built.grid.hiddenRoles)
        m_gridNotes << tr("The grid shows the %1 roles with the most tensors of %2.")
                           .arg(localCount(uint64_t(built.grid.roles.size())),
                                localCount(uint64_t(built.grid.roles.size() + built.grid.hiddenRoles)));
    m_summaryLabel->setText((built.lines + m_gridNotes).join(QLatin1Char('\n')));
    m_grid->setContents(std::move(built.grid), &*m_summary);
    redrawChart();
}

void RecipeView::redrawChart()
{
    m_plot->clearPlottables();
    const Theme& theme = context()->theme();
    applyPlotTheme(m_plot, theme);
    if (!m_summary) {
        replotIfSized(m_plot);
        return;
    }
    const size_t layerCount = m_comparison ? m_comparison->layers.size() : m_summary->layers.size();
    if (layerCount > kChartBars) {
        redrawManyLayers();
        return;
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    auto* a = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    a->setName(tr("A: bits per weight"));
    a->setPen(Qt::NoPen);
    a->setBrush(theme.blockFormat);
    QCPBars* b = nullptr;
    if (m_comparison) {
        b = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        b->setName(tr("B: bits per weight"));
        b->setPen(Qt::NoPen);
        b->setBrush(theme.warning);
        a->setWidth(0.4);
        b->setWidth(0.4);
        for (size_t i = 0; i < m_comparison->layers.size(); ++i) {
            const auto& l = m_comparison->layers[i];
            a->addData(double(i) - 0.2, l.bitsA);
            b->addData(double(i) + 0.2, l.bitsB);
            ticker->addTick(double(i), recipeLayerName(l.layer));
        }
    } else {
        a->setWidth(0.7);
        for (size_t i = 0; i < m_summary->layers.size(); ++i) {
            a->addData(double(i), m_summary->layers[i].bitsPerWeight());
            ticker->addTick(double(i), recipeLayerName(m_summary->layers[i].layer));
        }
    }
    if (m_summary->hasNominal && m_summary->nominal.bitsPerWeight > 0) {
        auto* nominal = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
        nominal->setName(tr("nominal %1").arg(qtext(m_summary->nominal.name)));
        nominal->setPen(QPen(theme.text, 1, Qt::DashLine));
        const double n = double(m_comparison ? m_comparison->layers.size() : m_summary->layers.size());
        nominal->addData(-0.5, m_summary->nominal.bitsPerWeight);
        nominal->addData(n - 0.5, m_summary->nominal.bitsPerWeight);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setLabel(tr("layer"));
    m_plot->yAxis->setLabel(tr("bits per weight"));
    m_plot->rescaleAxes();
    m_plot->xAxis->setRange(m_plot->xAxis->range().lower - 0.6, m_plot->xAxis->range().upper + 0.6);
    m_plot->yAxis->setRange(0, m_plot->yAxis->range().upper * 1.45); // room for the legend above the bars
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    applyPlotTheme(m_plot, theme);
    replotIfSized(m_plot);
}

// More layers than bars and labels can be told apart (a file of a million tiny tensors, each
// its own layer): a line per side over the block indices, which QCustomPlot draws a pixel
// column at a time, and the axis' own numbers; the tensors outside the blocks are left out.
void RecipeView::redrawManyLayers()
{
    const Theme& theme = context()->theme();
    const auto line = [&](const QString& name, const QColor& colour) {
        auto* g = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
        g->setName(name);
        g->setPen(QPen(colour, 1));
        g->setAdaptiveSampling(true);
        return g;
    };
    QCPGraph* a = line(tr("A: bits per weight"), theme.blockFormat);
    QCPGraph* b = m_comparison ? line(tr("B: bits per weight"), theme.warning) : nullptr;
    QVector<double> x, ya, yb;
    if (m_comparison) {
        for (const auto& l : m_comparison->layers)
            if (l.layer >= 0) {
                x << double(l.layer);
                ya << l.bitsA;
                yb << l.bitsB;
            }
    } else {
        for (const auto& l : m_summary->layers)
            if (l.layer >= 0) {
                x << double(l.layer);
                ya << l.bitsPerWeight();
            }
    }
    a->setData(x, ya, true);
    if (b)
        b->setData(x, yb, true);
    if (m_summary->hasNominal && m_summary->nominal.bitsPerWeight > 0 && !x.isEmpty()) {
        auto* nominal = line(tr("nominal %1").arg(qtext(m_summary->nominal.name)), theme.text);
        nominal->setPen(QPen(theme.text, 1, Qt::DashLine));
        nominal->addData(x.front(), m_summary->nominal.bitsPerWeight);
        nominal->addData(x.back(), m_summary->nominal.bitsPerWeight);
    }
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    m_plot->xAxis->setLabel(tr("layer"));
    m_plot->yAxis->setLabel(tr("bits per weight"));
    m_plot->rescaleAxes();
    m_plot->yAxis->setRange(0, m_plot->yAxis->range().upper * 1.45);
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    applyPlotTheme(m_plot, theme);
    replotIfSized(m_plot);
}

QString RecipeView::tableCsv() const
{
    if (!m_summary || m_summary->tensors.empty())
        return {};
    // One line a weight, the fields the CLI's `recipe --json` gives each tensor.
    QString csv =
        csvLine({QStringLiteral("name"), QStringLiteral("layer"), QStringLiteral("role"), QStringLiteral("type"),
                 QStringLiteral("elements"), QStringLiteral("bytes"), QStringLiteral("bpw"), QStringLiteral("kind"),
                 QStringLiteral("extra_bits"), QStringLiteral("reason")});
    for (const qs::RecipeTensor& t : m_summary->tensors)
        csv += csvLine({qtext(t.name), t.layer >= 0 ? QString::number(t.layer) : QString(), qtext(t.role),
                        qtext(t.label), csvCount(t.elements), csvCount(t.bytes), csvNumber(t.bitsPerWeight()),
                        QString::fromLatin1(qs::recipeKindName(t.verdict.kind)), csvNumber(t.extraBits),
                        qtext(t.verdict.reason)});
    return csv;
}

void RecipeView::renderExport(QPainter& painter, const QRect& target)
{
    // The grid above, the chart below, each scaled into its share of the target.
    const QSize gridSize = m_grid->sizeHint();
    const int gridHeight = int(target.height() * 0.6);
    painter.save();
    painter.translate(target.topLeft());
    const double s =
        std::min(1.0, std::min(double(target.width()) / gridSize.width(), double(gridHeight) / gridSize.height()));
    painter.scale(s, s);
    m_grid->paintGrid(painter);
    painter.restore();
    paintPlot(m_plot, painter,
              QRect(target.left(), target.top() + gridHeight, target.width(), target.height() - gridHeight));
}

} // namespace qsw
