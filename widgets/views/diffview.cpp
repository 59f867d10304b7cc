#include "diffview.h"
#include "namecolumns.h"

#include "tablecsv.h"

#include "figures/plottheme.h"
#include "jobrunner.h"
#include "numbers.h"
#include "qtext.h"
#include "weighttreemodel.h"

#include "base/error.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "container/logicalweight.h"
#include "formats/detect.h"
#include "formats/kernel.h"
#include "formats/opencheckpoint.h"

#include <qcustomplot.h>

#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <iterator>

namespace qsw {

const QString DiffView::kOpenJob = QStringLiteral("diff-open");
const QString DiffView::kCompareJob = QStringLiteral("diff-all");
const QString DiffView::kMapJob = QStringLiteral("diff-map");

namespace {

bool acceptsPath(const QMimeData* mime)
{
    if (!mime->hasUrls() || mime->urls().size() != 1 || !mime->urls().front().isLocalFile())
        return false;
    const QFileInfo info(mime->urls().front().toLocalFile());
    return info.isDir() || info.suffix().compare(QStringLiteral("gguf"), Qt::CaseInsensitive) == 0
        || info.suffix().compare(QStringLiteral("safetensors"), Qt::CaseInsensitive) == 0;
}

QTreeView* makeWeightList(QWidget* parent, WeightTreeModel* model, const QString& name)
{
    auto* view = new QTreeView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setUniformRowHeights(true);
    view->setAlternatingRowColors(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Name, format and shape are what pairing is about; the browser has the rest.
    for (int c = WeightTreeModel::BitsColumn; c < WeightTreeModel::ColumnCount; ++c)
        view->setColumnHidden(c, true);
    keepNamesReadable(view, {WeightTreeModel::NameColumn});
    return view;
}

// The widgets one above the other without margins, the last taking the spare height.
QWidget* column(QWidget* parent, std::initializer_list<QWidget*> widgets, int spacing = 2)
{
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(spacing);
    for (QWidget* w : widgets)
        layout->addWidget(w, w == *std::prev(widgets.end()) ? 1 : 0);
    return box;
}

} // namespace

// ---- DiffListModel ----

DiffListModel::DiffListModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void DiffListModel::setResult(std::shared_ptr<const qs::DiffResult> result, std::unordered_map<std::string, int> orderA,
                              double tolerance)
{
    beginResetModel();
    m_result = std::move(result);
    m_orderA = std::move(orderA);
    m_tolerance = tolerance;
    rebuild();
    endResetModel();
}

void DiffListModel::setTolerance(double tolerance)
{
    if (tolerance == m_tolerance)
        return;
    beginResetModel();
    m_tolerance = tolerance;
    rebuild();
    endResetModel();
}

void DiffListModel::setTheme(const Theme& theme)
{
    m_theme = theme;
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

void DiffListModel::rebuild()
{
    m_rows.clear();
    if (!m_result)
        return;
    const qs::DiffResult& r = *m_result;
    for (const qs::WeightDiff& d : r.weights)
        m_rows.push_back({Kind::Pair,
                          d.nameA,
                          d.nameB,
                          &d,
                          {},
                          {},
                          d.nonFinite > 0 || d.maxAbs > (m_tolerance < 0 ? d.tolerance : m_tolerance)});
    auto posA = [this](const std::string& name) {
        const auto it = m_orderA.find(name);
        return it == m_orderA.end() ? INT32_MAX : it->second;
    };
    // core's order (diffCheckpoints): failing first, then more non-finite, then larger
    // relative error; its stable sort keeps A's order among ties.
    std::sort(m_rows.begin(), m_rows.end(), [&](const Row& x, const Row& y) {
        if (x.over != y.over)
            return x.over;
        if (x.diff->nonFinite != y.diff->nonFinite)
            return x.diff->nonFinite > y.diff->nonFinite;
        if (x.diff->relativeError != y.diff->relativeError)
            return x.diff->relativeError > y.diff->relativeError;
        return posA(x.nameA) < posA(y.nameA);
    });
    for (const qs::ShapeMismatch& s : r.shapeMismatches)
        m_rows.push_back({Kind::ShapeMismatch, s.nameA, s.nameB, nullptr,
                          tr("%1 vs %2").arg(qtext(qs::shapeText(s.shapeA)), qtext(qs::shapeText(s.shapeB))),
                          qs::shapeText(s.shapeA) + " vs " + qs::shapeText(s.shapeB), true});
    for (const qs::SkippedPair& s : r.skipped)
        m_rows.push_back({Kind::Skipped, s.nameA, s.nameB, nullptr, qtext(s.reason), s.reason, false});
    for (const std::string& name : r.onlyInA)
        m_rows.push_back({Kind::OnlyInA, name, {}, nullptr, {}, {}, false});
    for (const std::string& name : r.onlyInB)
        m_rows.push_back({Kind::OnlyInB, {}, name, nullptr, {}, {}, false});
}

const DiffListModel::Row* DiffListModel::rowAt(int row) const
{
    return row >= 0 && size_t(row) < m_rows.size() ? &m_rows[size_t(row)] : nullptr;
}

int DiffListModel::rowOfA(const std::string& nameA) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (!nameA.empty() && m_rows[i].nameA == nameA)
            return int(i);
    return -1;
}

int DiffListModel::rowOfB(const std::string& nameB) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (!nameB.empty() && m_rows[i].nameB == nameB)
            return int(i);
    return -1;
}

int DiffListModel::overCount() const
{
    return int(
        std::count_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return r.kind == Kind::Pair && r.over; }));
}

int DiffListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DiffListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffListModel::data(const QModelIndex& index, int role) const
{
    const Row* r = index.isValid() && index.model() == this ? rowAt(index.row()) : nullptr;
    if (!r)
        return {};
    const qs::WeightDiff* d = r->diff;
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case NameA: return r->nameA.empty() ? QStringLiteral("—") : shownText(qtext(r->nameA));
        case NameB: return r->nameB.empty() ? QStringLiteral("—") : shownText(qtext(r->nameB));
        case Rmse: return d ? localNumber(d->rmse, 'g', 4) : QString();
        case MaxAbs: return d ? localNumber(d->maxAbs, 'g', 4) : QString();
        case Sqnr: return d ? localNumber(d->sqnrDb, 'g', 4) : QString();
        case Status:
            switch (r->kind) {
            case Kind::ShapeMismatch: return tr("shape mismatch %1").arg(r->detail);
            case Kind::Skipped: return tr("skipped: %1").arg(r->detail);
            case Kind::OnlyInA: return tr("only in A");
            case Kind::OnlyInB: return tr("only in B");
            case Kind::Pair:
                if (d->nonFinite)
                    return tr("%1 non-finite").arg(d->nonFinite);
                if (d->differing == 0)
                    return tr("identical");
                return r->over ? tr("over tolerance") : tr("within tolerance");
            }
        }
        return {};
    }
    if (role == CsvRole) {
        switch (column) {
        case NameA: return qtext(r->nameA);
        case NameB: return qtext(r->nameB);
        case Rmse: return d ? csvNumber(d->rmse) : QString();
        case MaxAbs: return d ? csvNumber(d->maxAbs) : QString();
        case Sqnr: return d ? csvNumber(d->sqnrDb) : QString();
        case Status:
            // A stable word, then what it is about: "shape mismatch: [4, 8] vs [8, 4]", "non-finite: 3".
            switch (r->kind) {
            case Kind::ShapeMismatch: return QStringLiteral("shape mismatch: ") + qtext(r->csvDetail);
            case Kind::Skipped: return QStringLiteral("skipped: ") + qtext(r->csvDetail);
            case Kind::OnlyInA: return QStringLiteral("only in A");
            case Kind::OnlyInB: return QStringLiteral("only in B");
            case Kind::Pair:
                return d->nonFinite     ? QStringLiteral("non-finite: ") + csvCount(d->nonFinite)
                    : d->differing == 0 ? QStringLiteral("identical")
                    : r->over           ? QStringLiteral("over tolerance")
                                        : QStringLiteral("within tolerance");
            }
        }
        return {};
    }
    if (role == SortRole) {
        if (d && column == Rmse)
            return d->rmse;
        if (d && column == MaxAbs)
            return d->maxAbs;
        if (d && column == Sqnr)
            return d->sqnrDb;
        return data(index, Qt::DisplayRole);
    }
    if (role == KindRole)
        return int(r->kind);
    if (role == Qt::ForegroundRole) {
        if (r->over && column == Status)
            return m_theme.error;
        if (r->kind == Kind::Pair && d->differing == 0 && column == Status)
            return m_theme.ok;
        if (r->kind != Kind::Pair)
            return m_theme.mutedText;
        return {};
    }
    if (role == Qt::FontRole && r->over) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole && column >= Rmse && column <= Sqnr)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && d) {
        QString tip =
            tr("%1 (%2) vs %3 (%4), shape %5\nmean |a − b| %6, relative error %7, cosine %8\n%9 of %10 elements differ")
                .arg(shownText(qtext(d->nameA)), qtext(d->formatA), shownText(qtext(d->nameB)), qtext(d->formatB),
                     qtext(qs::shapeText(d->shape)), localNumber(d->meanAbs, 'g', 4),
                     localNumber(d->relativeError, 'g', 4), localNumber(d->cosine, 'f', 6))
                .arg(localCount(d->differing), localCount(d->count));
        if (d->differing)
            tip += QLatin1Char('\n')
                + (d->maxRowA == d->maxRowB
                       ? tr("largest difference at row %1, column %2").arg(d->maxRowA).arg(d->maxCol)
                       : tr("largest difference at row %1, column %2 of A (row %3 of B)")
                             .arg(d->maxRowA)
                             .arg(d->maxCol)
                             .arg(d->maxRowB));
        if (!d->note.empty())
            tip += QLatin1Char('\n') + qtext(d->note);
        return tip;
    }
    if (role == Qt::ToolTipRole && !r->detail.isEmpty())
        return r->detail;
    return {};
}

QVariant DiffListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == CsvRole) {
        static const char* const names[] = {"name_a", "name_b", "rmse", "max_abs", "sqnr_db", "status"};
        return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameA: return tr("Weight in A");
    case NameB: return tr("Weight in B");
    case Rmse: return tr("RMSE");
    case MaxAbs: return tr("max |a − b|");
    case Sqnr: return tr("SQNR dB");
    case Status: return tr("Status");
    }
    return {};
}

// ---- DiffView ----

DiffView::DiffView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
{
    setAcceptDrops(true);

    QHBoxLayout* bar = createBar();

    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_modelA = new WeightTreeModel(this);
    m_modelB = new WeightTreeModel(this);
    m_listA = makeWeightList(this, m_modelA, QStringLiteral("weightsA"));
    m_listB = makeWeightList(this, m_modelB, QStringLiteral("weightsB"));
    m_titleA = new QLabel(this);
    m_titleB = new QLabel(this);
    auto* lists = new QSplitter(Qt::Horizontal, this);
    lists->addWidget(column(this, {m_titleA, m_listA}));
    lists->addWidget(column(this, {m_titleB, m_listB}));

    createMap();
    createTables();

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(lists);
    split->addWidget(column(this, {m_mapCaption, m_plot}));
    split->addWidget(column(this, {m_warnings, m_table}, 4));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 4);
    split->setStretchFactor(2, 3);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connectControls();
    m_modelA->setSnapshot(context->snapshot());
    expandLayers(m_listA);
    setStatus(openHint());
    applyTheme();
    updateWeight();
}

QHBoxLayout* DiffView::createBar()
{
    m_open = new QPushButton(tr("Open B…"), this);
    m_open->setToolTip(
        tr("Open a second checkpoint (file or folder) to compare with this one; or drop it on this view"));
    m_bName = new QLabel(this);
    m_bName->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_bName->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_tolerance = new QDoubleSpinBox(this);
    m_tolerance->setDecimals(6);
    // Below 0: core's automatic tolerance per pair, as quantscope-cli diff judges without --tolerance.
    m_tolerance->setRange(-1, 1e6);
    m_tolerance->setSingleStep(0.001);
    m_tolerance->setPrefix(tr("tolerance: "));
    m_tolerance->setSpecialValueText(tr("tolerance: automatic"));
    m_tolerance->setValue(kAutomaticTolerance);
    m_tolerance->setToolTip(
        tr("A pair is over its tolerance when its max |a − b| exceeds it (or a difference is not finite). Automatic: "
           "one code step, 2 max|b| / (2^bits − 1), where a quantized weight meets a float one, else 0, as "
           "quantscope-cli diff judges without --tolerance"));
    m_compare = new QPushButton(tr("Compare again"), this);
    m_compare->setEnabled(false);
    m_closeB = new QPushButton(tr("Close B"), this);
    m_closeB->setObjectName(QStringLiteral("closeB"));
    m_closeB->setToolTip(tr("Close checkpoint B and unmap its files"));
    m_closeB->setEnabled(false);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_open);
    bar->addWidget(m_closeB);
    bar->addWidget(m_bName, 1);
    bar->addWidget(m_tolerance);
    bar->addWidget(m_compare);
    return bar;
}

void DiffView::createMap()
{
    m_mapCaption = new QLabel(this);
    m_mapCaption->setWordWrap(true);
    m_plot = new QCustomPlot(this);
    // The map's cells at least kMapMinHeight tall, with room for the axes' ticks and titles below
    // them: at 160 px in all the cells were some 90 px, unreadable.
    m_plot->setMinimumHeight(kMapMinHeight + 5 * fontMetrics().lineSpacing());
    m_plot->setMouseTracking(true);
    m_colorMap = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_colorScale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_colorScale);
    m_colorMap->setColorScale(m_colorScale);
    m_colorMap->setInterpolate(false);
    m_colorMap->setGradient(sequentialGradient());
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_colorScale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_plot->yAxis->setRangeReversed(true); // row 0 on top, as the matrix is written
    m_plot->xAxis->setLabel(tr("input column"));
    m_plot->yAxis->setLabel(tr("output row"));
    m_colorScale->axis()->setLabel(tr("|a − b| (max per cell)"));
    m_marker = new QCPItemRect(m_plot);
    m_marker->setVisible(false);
}

// The warnings above the list of pairs, and the list.
void DiffView::createTables()
{
    // core's warnings (GPTQ zero conventions mixed, ...) sit above the list they qualify.
    m_warningTitle = new QLabel(this);
    m_warningList = new QListWidget(this);
    m_warningList->setObjectName(QStringLiteral("diffWarnings"));
    m_warningList->setWordWrap(true);
    m_warningList->setSelectionMode(QAbstractItemView::NoSelection);
    m_warningList->setMaximumHeight(5 * fontMetrics().lineSpacing() + 8);
    m_warnings = column(this, {m_warningTitle, m_warningList});
    m_warnings->setVisible(false);

    m_model = new DiffListModel(this);
    m_table = new QTreeView(this);
    m_table->setObjectName(QStringLiteral("diffList"));
    m_table->setModel(m_model);
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int c = DiffListModel::Rmse; c < DiffListModel::ColumnCount; ++c)
        m_table->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    keepNamesReadable(m_table, {DiffListModel::NameA, DiffListModel::NameB});
}

void DiffView::connectControls()
{
    connect(m_model, &QAbstractItemModel::modelReset, this, &DiffView::updateWarnings);
    connect(m_open, &QPushButton::clicked, this, &DiffView::openDialog);
    connect(m_compare, &QPushButton::clicked, this, &DiffView::compareAll);
    connect(m_tolerance, &QDoubleSpinBox::valueChanged, this, [this](double t) {
        m_model->setTolerance(t);
        updateWeight();
        if (m_model->result())
            showResult(m_model->result());
    });
    connect(m_listA, &QTreeView::clicked, this, &DiffView::listAActivated);
    connect(m_listA, &QTreeView::activated, this, &DiffView::listAActivated);
    connect(m_listB, &QTreeView::clicked, this, &DiffView::listBActivated);
    connect(m_listB, &QTreeView::activated, this, &DiffView::listBActivated);
    connect(m_table, &QTreeView::clicked, this, &DiffView::tableActivated);
    connect(m_table, &QTreeView::activated, this, &DiffView::tableActivated);
    connect(m_plot, &QCustomPlot::mousePress, this, &DiffView::clickMap);
    connect(m_plot, &QCustomPlot::mouseMove, this, &DiffView::hoverMap);
    connect(m_closeB, &QPushButton::clicked, this, [this] { context()->setComparison(nullptr); });
    connect(context(), &ViewContext::checkpointChanged, this, [this] {
        // The old A's rows and pairs go at once; the new A's list (a million rows lay out in
        // seconds) and its pairing with B wait until the view is in front.
        m_modelA->setSnapshot(nullptr);
        m_match.reset();
        m_matchedA.reset();
        m_model->setResult(nullptr, {}, m_tolerance->value());
        setMap(-1, nullptr);
        whenInFront([this] { showCheckpoint(); });
    });
    connect(context(), &ViewContext::comparisonChanged, this, [this] {
        const auto b = context()->comparison();
        if (!b)
            closeB();
        else if (b != m_b)
            startMatch(qtext(b->path), b);
    });
    connect(context(), &ViewContext::weightChanged, this, [this] { updateWeight(); });
    connect(context(), &ViewContext::selectedChanged, this, [this] { updateMarker(); });
    connect(context(), &ViewContext::themeChanged, this, [this] { applyTheme(); });
    connect(context()->jobs(), &JobRunner::failed, this, [this](const QString& key, const QString& message) {
        if (key == kOpenJob || key == kCompareJob || key == kMapJob)
            setStatus(message, true);
    });
    connect(context()->jobs(), &JobRunner::cancelled, this, [this](const QString& key) {
        if (key == kCompareJob)
            setStatus(tr("Comparison cancelled. Press “Compare again” to restart it."));
    });
}

QString DiffView::openHint()
{
    return tr("Open a second checkpoint (B) to compare it with this one weight by weight: “Open B…”, drop it here, "
              "or start with quantscope A --diff B.");
}

void DiffView::showCheckpoint()
{
    m_modelA->setSnapshot(context()->snapshot());
    expandLayers(m_listA);
    // B kept for the new A: pair it again; else it went with the old A.
    const auto b = context()->comparison();
    if (b && context()->checkpoint())
        startMatch(qtext(b->path), b);
    else
        closeB();
    updateWeight();
}

void DiffView::closeB()
{
    const bool had = m_b || context()->jobs()->isRunning(kOpenJob);
    for (const QString& key : {kOpenJob, kCompareJob, kMapJob})
        context()->jobs()->cancel(key);
    // Drop every reference to B so that its files are unmapped.
    m_b.reset();
    m_match.reset();
    m_matchedA.reset();
    m_modelB->setSnapshot(nullptr);
    m_model->setResult(nullptr, {}, m_tolerance->value());
    setMap(-1, nullptr);
    m_compare->setEnabled(false);
    m_closeB->setEnabled(false);
    m_bName->clear();
    if (had)
        setStatus(openHint());
    updateWeight();
}

QString DiffView::statusText() const
{
    return m_status->text();
}

void DiffView::setStatus(const QString& text, bool error)
{
    m_statusIsError = error;
    m_status->setText(shownText(text, kMaxShownMessage));
    QPalette p = m_status->palette();
    p.setColor(QPalette::WindowText, error ? context()->theme().error : context()->theme().text);
    m_status->setPalette(p);
}

void DiffView::setTolerance(double tolerance)
{
    m_tolerance->setValue(tolerance);
}

void DiffView::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open checkpoint B"), context()->checkpointFolder(),
                                                      tr("Checkpoints (*.gguf *.safetensors);;All files (*)"));
    if (!path.isEmpty())
        openComparison(path);
}

void DiffView::showEvent(QShowEvent* event)
{
    AnalysisView::showEvent(event);
    // Changes made while hidden (a theme, a closed B) were not drawn: the plot kept the old
    // picture, axes and colours.
    m_plot->replot();
    updateWeight();
}

void DiffView::dragEnterEvent(QDragEnterEvent* event)
{
    if (acceptsPath(event->mimeData()))
        event->acceptProposedAction();
}

void DiffView::dropEvent(QDropEvent* event)
{
    if (!acceptsPath(event->mimeData()))
        return;
    event->acceptProposedAction();
    openComparison(event->mimeData()->urls().front().toLocalFile());
}

void DiffView::openComparison(const QString& path)
{
    startMatch(path, nullptr);
}

void DiffView::startMatch(const QString& path, std::shared_ptr<const qs::Checkpoint> b)
{
    const auto a = context()->checkpoint();
    if (!a) {
        setStatus(tr("Open a checkpoint (A) first."), true);
        return;
    }
    context()->jobs()->cancel(kCompareJob);
    setStatus(b ? tr("Pairing the weights of %1…").arg(QFileInfo(path).fileName())
                : tr("Opening %1…").arg(QFileInfo(path).fileName()));
    QPointer<DiffView> self(this);
    const std::string file = path.toStdString();
    context()->jobs()->start(
        kOpenJob, tr("Opening %1 as B").arg(QFileInfo(path).fileName()),
        [a, b, file, self](JobControl&) -> JobRunner::Continuation {
            Opened o;
            o.a = a;
            o.b = b ? b : qs::openCheckpoint(file);
            o.snapshotB = CheckpointSnapshot::fromCheckpoint(o.b);
            o.match = std::make_shared<const qs::WeightMatch>(qs::matchWeights(*a, *o.b));
            return [self, o] {
                if (self)
                    self->setOpened(o);
            };
        },
        JobRunner::Kind::Io);
}

void DiffView::setOpened(const Opened& o)
{
    if (o.a != context()->checkpoint())
        return; // A changed meanwhile; its own match is on its way
    m_b = o.b;
    m_matchedA = o.a;
    m_match = o.match;
    m_closeB->setEnabled(true);
    context()->setComparison(m_b);
    m_modelB->setSnapshot(o.snapshotB);
    expandLayers(m_listB);
    m_model->setResult(nullptr, {}, m_tolerance->value());
    m_compare->setEnabled(true);
    // The name alone (the whole path in the tooltip): a long path widened the view past a
    // 1280 px window.
    m_bName->setText(tr("B: <b>%1</b>").arg(QFileInfo(qtext(m_b->path)).fileName().toHtmlEscaped()));
    m_bName->setToolTip(QDir::toNativeSeparators(qtext(m_b->path)));
    setMap(-1, nullptr);
    updateWeight();
    compareAll();
}

std::unordered_map<std::string, int> DiffView::orderA() const
{
    std::unordered_map<std::string, int> order;
    if (m_matchedA)
        for (size_t i = 0; i < m_matchedA->weights.size(); ++i)
            order.emplace(m_matchedA->weights[i].name, int(i));
    return order;
}

void DiffView::compareAll()
{
    const auto a = m_matchedA, b = m_b;
    if (!a || !b || a != context()->checkpoint())
        return;
    setStatus(tr("Comparing every weight of A with its match in B…"));
    QPointer<DiffView> self(this);
    context()->jobs()->start(
        kCompareJob,
        tr("Comparing %1 with %2").arg(QFileInfo(qtext(a->path)).fileName(), QFileInfo(qtext(b->path)).fileName()),
        [a, b, self](JobControl& control) -> JobRunner::Continuation {
            // Each pair keeps its automatic tolerance; a tolerance set in the box re-marks the list.
            qs::DiffOptions opt;
            opt.path = qs::bestSimdPath();
            opt.progress.cancel = &control.cancelFlag();
            opt.progress.report = [&control](uint64_t done, uint64_t total, const std::string&) {
                control.setProgress(total ? double(done) / double(total) : 1.0);
            };
            auto result = std::make_shared<const qs::DiffResult>(qs::diffCheckpoints(*a, *b, opt));
            return [self, a, result] {
                if (self && self->m_matchedA == a)
                    self->showResult(result);
            };
        });
}

void DiffView::cancelComparison()
{
    context()->jobs()->cancel(kCompareJob);
}

void DiffView::showResult(std::shared_ptr<const qs::DiffResult> result)
{
    if (result != m_model->result())
        m_model->setResult(result, orderA(), m_tolerance->value());
    const qs::DiffResult& r = *result;
    int identical = 0;
    for (const qs::WeightDiff& d : r.weights)
        identical += d.differing == 0 && d.nonFinite == 0;
    const int over = m_model->overCount();
    // Counts that name a noun take its plural form: "1 pair compared", never "1 pairs".
    setStatus(tr("%n pair(s) compared", nullptr, int(r.weights.size()))
                  + tr(": %1 identical, %2 over the tolerance").arg(identical).arg(over) + QStringLiteral(" · ")
                  + tr("%n shape mismatch(es)", nullptr, int(r.shapeMismatches.size()))
                  + tr(" · %1 skipped · %2 only in A · %3 only in B")
                        .arg(r.skipped.size())
                        .arg(r.onlyInA.size())
                        .arg(r.onlyInB.size()),
              over > 0 || !r.shapeMismatches.empty());
    updateWeight();
}

void DiffView::updateWarnings()
{
    m_warningList->clear();
    const auto result = m_model->result();
    QStringList seen; // a checkpoint against itself repeats each note
    for (const std::string& warning : result ? result->warnings : std::vector<std::string>{}) {
        const QString raw = qtext(warning);
        if (seen.contains(raw))
            continue;
        seen << raw;
        // core writes "<file>: <weight>: <note>"; the file is A's or B's path.
        QString file, rest = raw;
        for (const auto& c : {m_matchedA, m_b})
            if (c && raw.startsWith(qtext(c->path) + QStringLiteral(": "))) {
                file = QFileInfo(qtext(c->path)).fileName();
                rest = raw.mid(qtext(c->path).size() + 2);
                break;
            }
        const QString zeroNote = QStringLiteral(": ") + QString::fromLatin1(qs::kZeroConventionNote);
        const qsizetype at = rest.indexOf(zeroNote);
        QString text;
        if (at > 0)
            text =
                tr("%1 · %2: the zero points mix GPTQ v1 (z − 1) and v2 (z) conventions, so some groups may read one "
                   "zero step off and the figures of this weight are in doubt.")
                    .arg(file, rest.left(at));
        else
            text = file.isEmpty() ? raw : QStringLiteral("%1 · %2").arg(file, rest);
        auto* item = new QListWidgetItem(text, m_warningList);
        item->setToolTip(raw); // core's detail: how many fields are which
    }
    m_warningTitle->setText(tr("<b>%n warning(s)</b> about the compared weights:", nullptr, m_warningList->count()));
    m_warnings->setVisible(m_warningList->count() > 0);
}

int DiffView::indexInA(const qs::LogicalWeight* w) const
{
    if (!w || !m_matchedA || m_matchedA->weights.empty())
        return -1;
    const qs::LogicalWeight* first = m_matchedA->weights.data();
    return w >= first && w < first + m_matchedA->weights.size() ? int(w - first) : -1;
}

int DiffView::indexInB(const qs::LogicalWeight* w) const
{
    if (!w || !m_b || m_b->weights.empty())
        return -1;
    const qs::LogicalWeight* first = m_b->weights.data();
    return w >= first && w < first + m_b->weights.size() ? int(w - first) : -1;
}

const qs::WeightPair* DiffView::pairOfA(int weightA) const
{
    if (!m_match || m_matchedA != context()->checkpoint() || weightA < 0)
        return nullptr;
    for (const qs::WeightPair& p : m_match->pairs)
        if (indexInA(p.a) == weightA)
            return &p;
    return nullptr;
}

int DiffView::matchedB() const
{
    const qs::WeightPair* p = pairOfA(context()->weight());
    return p ? indexInB(p->b) : -1;
}

void DiffView::selectInList(QTreeView* view, const QModelIndex& index)
{
    const QSignalBlocker block(view->selectionModel());
    if (!index.isValid()) {
        view->clearSelection();
        view->setCurrentIndex({});
    } else {
        view->setCurrentIndex(index);
        view->scrollTo(index);
    }
    view->viewport()->update();
}

void DiffView::updateWeight()
{
    const int weight = context()->weight();
    const auto a = context()->checkpoint();
    const qs::LogicalWeight* w = context()->logicalWeight();
    m_titleA->setText(a ? tr("A: %1").arg(QFileInfo(qtext(a->path)).fileName().toHtmlEscaped()) : tr("A"));
    m_titleB->setText(m_b ? tr("B: %1").arg(QFileInfo(qtext(m_b->path)).fileName().toHtmlEscaped())
                          : tr("B: not open"));
    selectInList(m_listA, weight >= 0 ? m_modelA->indexOfWeight(weight) : QModelIndex());
    const qs::WeightPair* pair = pairOfA(weight);
    const int b = pair ? indexInB(pair->b) : -1;
    selectInList(m_listB, b >= 0 ? m_modelB->indexOfWeight(b) : QModelIndex());
    const int row = w ? m_model->rowOfA(w->name) : -1;
    selectInList(m_table, row >= 0 ? m_model->index(row, 0) : QModelIndex());

    if (!pair) {
        context()->jobs()->cancel(kMapJob);
        setMap(weight, nullptr);
        QString why;
        if (!m_b)
            why = tr("Open a checkpoint B to see the difference of each weight as a heatmap.");
        else if (!w)
            why = tr("Select a weight.");
        else if (!m_match)
            why = tr("Pairing the weights…");
        else if (const DiffListModel::Row* r = m_model->rowAt(row); r && r->kind != DiffListModel::Kind::Pair)
            why = tr("%1: %2").arg(shownText(qtext(w->name)),
                                   m_model->data(m_model->index(row, DiffListModel::Status)).toString());
        else
            why = tr("%1 has no match in B.").arg(shownText(qtext(w->name)));
        m_mapCaption->setText(why.toHtmlEscaped());
        return;
    }
    if (m_map && m_mapWeight == weight)
        return;
    // The heatmap is computed for what is on screen: a hidden view computes it when shown.
    if (!isVisible()) {
        context()->jobs()->cancel(kMapJob);
        setMap(-1, nullptr);
        return;
    }
    const auto bCkpt = m_b;
    const auto match = m_match;
    const size_t index = size_t(pair - match->pairs.data());
    m_mapCaption->setText(tr("Computing the difference of %1…").arg(shownText(qtext(pair->a->name)).toHtmlEscaped()));
    QPointer<DiffView> self(this);
    context()->jobs()->start(kMapJob, tr("Difference map of %1").arg(qtext(pair->a->name)),
                             [a, bCkpt, match, index, weight, self](JobControl& control) -> JobRunner::Continuation {
                                 qs::DiffOptions opt;
                                 opt.path = qs::bestSimdPath();
                                 opt.progress.cancel = &control.cancelFlag();
                                 opt.progress.report = [&control](uint64_t done, uint64_t total, const std::string&) {
                                     control.setProgress(total ? double(done) / double(total) : 1.0);
                                 };
                                 auto map = std::make_shared<const qs::DiffMap>(
                                     qs::diffMap(*a, *bCkpt, match->pairs[index], kMapRows, kMapCols, opt));
                                 return [self, weight, map] {
                                     if (self && self->context()->weight() == weight)
                                         self->setMap(weight, map);
                                 };
                             });
}

void DiffView::setMap(int weightA, std::shared_ptr<const qs::DiffMap> map)
{
    m_map = std::move(map);
    m_mapWeight = m_map ? weightA : -1;
    redrawMap();
}

void DiffView::applyTheme()
{
    const Theme& t = context()->theme();
    m_model->setTheme(t);
    m_modelA->setTheme(t);
    m_modelB->setTheme(t);
    applyPlotTheme(m_plot, t);
    QCPAxis* axis = m_colorScale->axis();
    axis->setBasePen(QPen(t.mutedText));
    axis->setTickPen(QPen(t.mutedText));
    axis->setSubTickPen(QPen(t.mutedText));
    axis->setTickLabelColor(t.text);
    axis->setLabelColor(t.text);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->yAxis->grid()->setVisible(false);
    m_marker->setPen(QPen(t.accent, 2));
    QPalette warning = m_warnings->palette();
    warning.setColor(QPalette::WindowText, t.warning);
    warning.setColor(QPalette::Text, t.warning);
    m_warnings->setPalette(warning);
    m_warningList->setPalette(warning);
    m_warningTitle->setPalette(warning);
    setStatus(m_status->text(), m_statusIsError);
    if (isVisible())
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void DiffView::redrawMap()
{
    if (!m_map || m_map->cellRows == 0 || m_map->cellCols == 0) {
        m_colorMap->data()->clear();
        m_colorMap->setVisible(false);
        m_colorScale->setVisible(false);
        m_marker->setVisible(false);
        // No empty frame with the previous weight's axes: the caption says why there is no map.
        m_plot->setVisible(false);
        return;
    }
    m_plot->setVisible(true);
    const qs::DiffMap& d = *m_map;
    // Cell (i, j) covers rows [i * rowsPerCell, ...) and columns [j * colsPerCell, ...): the
    // map spans element coordinates. A single cell along an axis is doubled, because
    // QCustomPlot gives one cell no extent.
    const int nx = int(std::max<uint64_t>(d.cellCols, 2)), ny = int(std::max<uint64_t>(d.cellRows, 2));
    auto range = [](uint64_t cells, uint64_t per, uint64_t total) {
        if (cells == 1)
            return QCPRange(0.25 * double(total) - 0.5, 0.75 * double(total) - 0.5);
        return QCPRange(0.5 * double(per) - 0.5, (double(cells) - 0.5) * double(per) - 0.5);
    };
    // NaN or infinite differences (diffMap's +inf) take the top colour.
    float top = 0;
    for (float v : d.cells)
        if (std::isfinite(v))
            top = std::max(top, v);
    m_colorMap->data()->setSize(nx, ny);
    m_colorMap->data()->setRange(range(d.cellCols, d.colsPerCell, d.cols), range(d.cellRows, d.rowsPerCell, d.rows));
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            const uint64_t i = std::min<uint64_t>(uint64_t(y), d.cellRows - 1),
                           j = std::min<uint64_t>(uint64_t(x), d.cellCols - 1);
            const float v = d.cells[size_t(i * d.cellCols + j)];
            m_colorMap->data()->setCell(x, y, std::isfinite(v) ? double(v) : double(top));
        }
    m_colorMap->setDataRange(QCPRange(0, top > 0 ? double(top) : 1.0));
    m_colorMap->setVisible(true);
    m_colorScale->setVisible(true);
    m_plot->xAxis->setRange(-0.5, double(d.cols) - 0.5);
    m_plot->yAxis->setRange(-0.5, double(d.rows) - 0.5);
    const qs::LogicalWeight* w = context()->logicalWeight();
    const QString name = w ? shownText(qtext(w->name)).toHtmlEscaped() : QString();
    QString caption = d.maxAbs == 0
        ? tr("<b>%1</b>: A and B are identical.").arg(name)
        : tr("<b>%1</b>: |a − b| per element, max %2.").arg(name, localNumber(d.maxAbs, 'g', 4));
    if (d.rowsPerCell > 1 || d.colsPerCell > 1)
        caption +=
            tr(" Decimated: each cell is the max over %1 × %2.")
                .arg(tr("%Ln row(s)", nullptr, int(d.rowsPerCell)), tr("%Ln column(s)", nullptr, int(d.colsPerCell)));
    caption += tr(" Click selects the element.");
    m_mapCaption->setText(caption);
    updateMarker();
    if (m_plot->isVisible())
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void DiffView::updateMarker()
{
    const ElementRef sel = context()->selected();
    const bool on = m_map && sel.weight == m_mapWeight && sel.row >= 0 && sel.col >= 0
        && uint64_t(sel.row) < m_map->rows && uint64_t(sel.col) < m_map->cols;
    m_marker->setVisible(on);
    if (on) {
        // Outline the cell that holds the element.
        const uint64_t r0 = uint64_t(sel.row) / m_map->rowsPerCell * m_map->rowsPerCell;
        const uint64_t c0 = uint64_t(sel.col) / m_map->colsPerCell * m_map->colsPerCell;
        m_marker->topLeft->setCoords(double(c0) - 0.5, double(r0) - 0.5);
        m_marker->bottomRight->setCoords(double(c0 + m_map->colsPerCell) - 0.5, double(r0 + m_map->rowsPerCell) - 0.5);
    }
    if (m_plot->isVisible())
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

ElementRef DiffView::elementAt(const QPointF& pixel) const
{
    if (!m_map || !m_colorMap->visible() || !m_plot->axisRect()->rect().contains(pixel.toPoint()))
        return {};
    const double col = std::floor(m_plot->xAxis->pixelToCoord(pixel.x()) + 0.5);
    const double row = std::floor(m_plot->yAxis->pixelToCoord(pixel.y()) + 0.5);
    if (col < 0 || row < 0 || col >= double(m_map->cols) || row >= double(m_map->rows))
        return {};
    return {m_mapWeight, int64_t(row), int64_t(col)};
}

QString DiffView::hoverText(const QPointF& pixel) const
{
    const ElementRef e = elementAt(pixel);
    const qs::WeightPair* pair = pairOfA(m_mapWeight);
    if (!e.isValid() || e.col < 0 || !pair || !m_b)
        return {};
    qs::DiffValues v;
    try {
        v = qs::diffValuesAt(*m_matchedA, *m_b, *pair, uint64_t(e.row), uint64_t(e.col), qs::bestSimdPath());
    } catch (const qs::Error& error) {
        return qtext(error.what());
    }
    QString text = tr("row %1, col %2\na %3\nb %4\n|a − b| %5")
                       .arg(localCount(uint64_t(e.row)), localCount(uint64_t(e.col)), localNumber(v.a),
                            localNumber(v.b), localNumber(std::fabs(double(v.a) - double(v.b))));
    const qs::DiffMap& d = *m_map;
    if (d.rowsPerCell > 1 || d.colsPerCell > 1) {
        const float cell =
            d.cells[size_t(uint64_t(e.row) / d.rowsPerCell * d.cellCols + uint64_t(e.col) / d.colsPerCell)];
        text += tr("\ncell (%1 × %2): max %3")
                    .arg(tr("%Ln row(s)", nullptr, int(d.rowsPerCell)),
                         tr("%Ln column(s)", nullptr, int(d.colsPerCell)), localNumber(cell));
    }
    return text;
}

void DiffView::hoverMap(QMouseEvent* event)
{
    const QString text = hoverText(event->position());
    if (text.isEmpty()) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    context()->setHovered(elementAt(event->position()));
}

void DiffView::clickMap(QMouseEvent* event)
{
    const ElementRef e = elementAt(event->position());
    if (e.isValid())
        context()->setSelected(e);
}

void DiffView::listAActivated(const QModelIndex& index)
{
    const int weight = index.data(WeightTreeModel::WeightIndexRole).toInt();
    if (index.isValid() && weight >= 0 && weight != context()->weight())
        context()->requestWeight(weight);
}

void DiffView::listBActivated(const QModelIndex& index)
{
    const int weightB = index.data(WeightTreeModel::WeightIndexRole).toInt();
    if (!index.isValid() || weightB < 0 || !m_match)
        return;
    for (const qs::WeightPair& p : m_match->pairs)
        if (indexInB(p.b) == weightB) {
            const int weightA = indexInA(p.a);
            if (weightA >= 0 && weightA != context()->weight())
                context()->requestWeight(weightA);
            return;
        }
    m_mapCaption->setText(
        tr("%1 has no match in A.").arg(index.data(WeightTreeModel::FullNameRole).toString().toHtmlEscaped()));
}

void DiffView::tableActivated(const QModelIndex& index)
{
    const DiffListModel::Row* r = m_model->rowAt(index.row());
    if (!r)
        return;
    if (!r->nameA.empty() && m_matchedA) {
        if (const qs::LogicalWeight* w = m_matchedA->findWeight(r->nameA); w && indexInA(w) != context()->weight())
            context()->requestWeight(indexInA(w));
        return;
    }
    if (m_b)
        if (const qs::LogicalWeight* w = m_b->findWeight(r->nameB)) {
            selectInList(m_listB, m_modelB->indexOfWeight(indexInB(w)));
            m_mapCaption->setText(tr("%1 is only in B.").arg(shownText(qtext(r->nameB)).toHtmlEscaped()));
        }
}

QString DiffView::exportCaption() const
{
    QString text = AnalysisView::exportCaption();
    if (const auto b = context()->comparison(); b && !text.isEmpty())
        text += tr(" · against B = %1").arg(QFileInfo(QString::fromStdString(b->path)).fileName());
    return text;
}

QString DiffView::exportProblem() const
{
    if (!context()->checkpoint() || !context()->comparison())
        return tr("the Diff view compares nothing yet. %1").arg(openHint());
    return {};
}

QString DiffView::tableCsv() const
{
    return m_model->rowCount() > 0 ? modelCsv(*m_table->model()) : QString();
}

QSize DiffView::exportSize() const
{
    if (!m_map || !m_colorMap->visible())
        return AnalysisView::exportSize();
    // The whole matrix at its aspect ratio (cells about square), as wide as the plot on screen.
    const QRect cells = m_plot->axisRect()->rect();
    const double aspect = double(m_map->rows) / double(std::max<uint64_t>(m_map->cols, 1));
    const int height = std::clamp(int(cells.width() * aspect), kMapMinHeight, std::max(kMapMinHeight, cells.width()));
    return QSize(m_plot->width(), height + m_plot->height() - cells.height());
}

void DiffView::renderExport(QPainter& painter, const QRect& target)
{
    if (m_map && m_colorMap->visible())
        paintPlot(m_plot, painter, target);
    else
        AnalysisView::renderExport(painter, target);
}

} // namespace qsw
