#include "budgetview.h"

#include "figures/plottheme.h"
#include "viewcontext.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <unistd.h>

namespace qsw {

namespace {

enum Filter { FilterCommon, FilterAll, FilterFirstFamily };

const qs::BudgetKind kFamilies[] = {qs::BudgetKind::Float, qs::BudgetKind::Gguf, qs::BudgetKind::Gptq,
                                    qs::BudgetKind::Awq,   qs::BudgetKind::Mlx,  qs::BudgetKind::CompressedTensors,
                                    qs::BudgetKind::Bnb4,  qs::BudgetKind::BnbInt8};

// "7B", "1.5B", "623.7K": the notation parseParamCount reads back (not localised).
QString countText(uint64_t n)
{
    const double v = double(n);
    if (v >= 1e9)
        return QString::number(v / 1e9, 'g', 4) + QLatin1Char('B');
    if (v >= 1e6)
        return QString::number(v / 1e6, 'g', 4) + QLatin1Char('M');
    if (v >= 1e3)
        return QString::number(v / 1e3, 'g', 4) + QLatin1Char('K');
    return QString::number(n);
}

} // namespace

BudgetView::BudgetView(ViewContext* context, QWidget* parent) : AnalysisView(context, parent)
{
    setObjectName(viewName());
    m_paramsBox = new QComboBox(this);
    m_paramsBox->setEditable(true);
    m_paramsBox->setInsertPolicy(QComboBox::NoInsert);
    m_paramsBox->setMinimumContentsLength(22);
    m_paramsBox->setToolTip(tr("Parameter count: a preset or a number such as 8B, 1.5B, 350M or 70e9"));
    m_paramsError = new QLabel(this);
    m_family = new QComboBox(this);
    m_family->addItem(tr("Common formats"));
    m_family->addItem(tr("All formats"));
    for (qs::BudgetKind k : kFamilies)
        m_family->addItem(budgetFamilyName(k));
    m_memory = new QDoubleSpinBox(this);
    m_memory->setRange(0.5, 1000000);
    m_memory->setDecimals(1);
    m_memory->setSuffix(tr(" GiB"));
    m_memory->setToolTip(tr("Your RAM or VRAM: the budget line"));
    const double ram = machineMemoryGiB();
    m_memory->setValue(ram > 0 ? std::round(ram * 10) / 10 : 16.0);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Model size:"), this));
    controls->addWidget(m_paramsBox);
    controls->addWidget(m_paramsError);
    controls->addSpacing(16);
    controls->addWidget(new QLabel(tr("Memory budget:"), this));
    controls->addWidget(m_memory);
    controls->addSpacing(16);
    controls->addWidget(new QLabel(tr("Formats:"), this));
    controls->addWidget(m_family);
    controls->addStretch(1);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_plot = new QCustomPlot(this);
    m_plot->setMouseTracking(true);
    // QCustomPlot replots on every resize, hidden or not: a zero-height plot (the wrapped
    // summary taking a narrow hidden tab's height) printed QPainter::begin warnings.
    m_plot->setMinimumHeight(160);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(m_plot, 1);

    connect(m_paramsBox, &QComboBox::activated, this, [this] { paramsEdited(); });
    connect(m_paramsBox->lineEdit(), &QLineEdit::editingFinished, this, [this] { paramsEdited(); });
    connect(m_memory, &QDoubleSpinBox::valueChanged, this, [this] { rebuild(); });
    connect(m_family, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &BudgetView::hover);
    connect(context, &ViewContext::checkpointChanged, this, &BudgetView::checkpointChanged);
    connect(context, &ViewContext::themeChanged, this, [this] { rebuild(); });
    checkpointChanged();
}

BudgetView::~BudgetView()
{
    // ~QWidget hides the window, and the focus-out makes the line edit emit editingFinished
    // into a half-destroyed view (UBSan).
    m_paramsBox->lineEdit()->disconnect(this);
}

std::optional<uint64_t> BudgetView::parseParamCount(const QString& text)
{
    QString s = text.trimmed();
    // A preset's label "7B (this checkpoint)" parses by its first word.
    s = s.section(QLatin1Char(' '), 0, 0);
    double mult = 1;
    if (!s.isEmpty()) {
        const QChar last = s.back().toUpper();
        const double m = last == QLatin1Char('K')   ? 1e3
                         : last == QLatin1Char('M') ? 1e6
                         : last == QLatin1Char('B') || last == QLatin1Char('G') ? 1e9
                         : last == QLatin1Char('T') ? 1e12
                                                    : 0;
        if (m != 0) {
            mult = m;
            s.chop(1);
        }
    }
    bool ok = false;
    const double v = QLocale::c().toDouble(s, &ok) * mult;
    if (!ok || !(v >= 1) || v > 1e16)
        return std::nullopt;
    return uint64_t(std::llround(v));
}

double BudgetView::machineMemoryGiB()
{
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    return double(pages) * double(page) / qs::kBytesPerGiB;
}

double BudgetView::memoryGiB() const
{
    return m_memory->value();
}

void BudgetView::setParams(uint64_t params)
{
    m_params = params;
    m_paramsBox->setEditText(countText(params));
    rebuild();
}

void BudgetView::setMemoryGiB(double gib)
{
    m_memory->setValue(gib);
}

void BudgetView::setFamilyFilter(int index)
{
    m_family->setCurrentIndex(index);
}

void BudgetView::checkpointChanged()
{
    // Parameters: every logical weight plus every tensor outside one (norms, embeddings).
    m_checkpointParams = 0;
    m_checkpointBpw = 0;
    if (const auto snap = context()->snapshot()) {
        uint64_t bytes = 0;
        for (const WeightRow& w : snap->weights)
            m_checkpointParams += w.elements;
        for (const TensorRow& t : snap->tensors) {
            bytes += t.bytes;
            if (t.weight < 0) {
                uint64_t e = 1;
                for (uint64_t d : t.shape)
                    e *= d;
                m_checkpointParams += e;
            }
        }
        if (m_checkpointParams)
            m_checkpointBpw = double(bytes) * 8 / double(m_checkpointParams);
    }
    m_paramsBox->blockSignals(true);
    m_paramsBox->clear();
    if (m_checkpointParams)
        m_paramsBox->addItem(tr("%1 (this checkpoint)").arg(countText(m_checkpointParams)), QVariant::fromValue(m_checkpointParams));
    for (uint64_t p : qs::budgetDefaultParamCounts())
        m_paramsBox->addItem(countText(p), QVariant::fromValue(p));
    m_paramsBox->setCurrentIndex(0);
    m_paramsBox->blockSignals(false);
    m_params = m_paramsBox->currentData().value<uint64_t>();
    rebuild();
}

void BudgetView::paramsEdited()
{
    const int i = m_paramsBox->findText(m_paramsBox->currentText());
    std::optional<uint64_t> p = i >= 0 ? std::optional<uint64_t>(m_paramsBox->itemData(i).value<uint64_t>())
                                       : parseParamCount(m_paramsBox->currentText());
    if (!p) {
        m_paramsError->setText(tr("<span style='color:%1'>not a parameter count</span>").arg(context()->theme().error.name()));
        return;
    }
    m_paramsError->clear();
    if (*p != m_params) {
        m_params = *p;
        rebuild();
    }
}

void BudgetView::rebuild()
{
    const double budget = m_memory->value();
    std::vector<qs::BudgetRow> all = qs::budgetTable(m_params, budget);
    std::vector<qs::BudgetRow> rows;
    const int filter = m_family->currentIndex();
    for (const qs::BudgetRow& r : all) {
        const bool keep = filter == FilterAll || (filter == FilterCommon && r.format.preset != qs::BudgetPreset::None) ||
                          (filter >= FilterFirstFamily && r.format.kind == kFamilies[filter - FilterFirstFamily]);
        if (keep)
            rows.push_back(r);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const qs::BudgetRow& a, const qs::BudgetRow& b) { return a.bitsPerWeight > b.bitsPerWeight; });
    BudgetChartOptions opt;
    opt.memoryGiB = budget;
    opt.params = m_params;
    opt.paramsText = countText(m_params);
    opt.currentBpw = m_checkpointBpw;
    opt.currentLabel = tr("this checkpoint");
    m_chart = buildBudgetChart(m_plot, std::move(rows), opt, context()->theme());
    int fit = 0;
    const qs::BudgetRow* best = nullptr;
    for (const qs::BudgetRow& r : m_chart.rows)
        if (r.fits.value_or(false)) {
            ++fit;
            if (!best || r.bitsPerWeight > best->bitsPerWeight)
                best = &r;
        }
    QString text = tr("%1 parameters in %2: %3 of %4 formats fit.")
                       .arg(countText(m_params), memoryText(budget))
                       .arg(fit)
                       .arg(m_chart.rows.size());
    if (best)
        text += tr(" The most precise that fits: <b>%1</b> (%L2 bpw, %3).")
                    .arg(QString::fromStdString(best->format.id))
                    .arg(best->bitsPerWeight, 0, 'f', 3)
                    .arg(memoryText(best->gib));
    text += tr(" Bits per weight are amortised over a 4096 × 4096 layer; memory counts weights only (no KV cache or activations).");
    m_summary->setText(text);
    if (m_plot->isVisible())
        m_plot->replot();
}

void BudgetView::hover(QMouseEvent* event)
{
    for (QCPAxisRect* rect : {m_chart.bitsRect, m_chart.memoryRect}) {
        if (!rect || !rect->rect().contains(event->position().toPoint()))
            continue;
        const double y = rect->axis(QCPAxis::atLeft)->pixelToCoord(event->position().y());
        const int i = int(std::floor(y + 0.5));
        if (i < 0 || i >= int(m_chart.rows.size()))
            break;
        const qs::BudgetRow& r = m_chart.rows[size_t(i)];
        QString text = tr("%1\n%L2 bits per weight: %3\n%4 (%L5 GB)")
                           .arg(QString::fromStdString(r.format.id))
                           .arg(r.bitsPerWeight, 0, 'f', 4)
                           .arg(QString::fromStdString(qs::budgetBreakdown(r.format, 4096, 4096)), memoryText(r.gib))
                           .arg(r.gb, 0, 'g', 4);
        if (r.fits)
            text += *r.fits ? tr("\nfits the budget") : tr("\ndoes not fit the budget");
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
        return;
    }
    QToolTip::hideText();
}

void BudgetView::showEvent(QShowEvent* event)
{
    AnalysisView::showEvent(event);
    m_plot->replot(); // changes made while hidden were not drawn
}

void BudgetView::renderExport(QPainter& painter, const QRect& target)
{
    paintPlot(m_plot, painter, target);
}

} // namespace qsw
