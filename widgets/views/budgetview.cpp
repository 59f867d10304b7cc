#include "budgetview.h"

#include "base/platform.h"
#include "figures/plottheme.h"
#include "qtext.h"
#include "viewcontext.h"

#include "base/error.h"
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/family.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

namespace qsw {

namespace {

enum Filter { FilterCommon, FilterAll, FilterFirstFamily };

// "7B", "1.5B", "623.7K" ("623,7K" in German): the notation parseParamCount reads back.
QString countText(uint64_t n)
{
    const double v = double(n);
    const QLocale locale;
    if (v >= 1e9)
        return locale.toString(v / 1e9, 'g', 4) + QLatin1Char('B');
    if (v >= 1e6)
        return locale.toString(v / 1e6, 'g', 4) + QLatin1Char('M');
    if (v >= 1e3)
        return locale.toString(v / 1e3, 'g', 4) + QLatin1Char('K');
    return QString::number(n);
}

// The context slider runs over log2(tokens) in 1/kSliderSteps steps, 256 .. the cap.
constexpr int kSliderSteps = 8;
constexpr uint64_t kMinContext = 256;
constexpr uint64_t kNoCap = uint64_t(1) << 20;

uint64_t contextCap(const std::optional<qs::ModelArch>& arch)
{
    return arch && arch->contextLength ? std::max<uint64_t>(arch->contextLength, kMinContext) : kNoCap;
}

} // namespace

BudgetView::BudgetView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
{
    m_paramsBox = new QComboBox(this);
    m_paramsBox->setEditable(true);
    m_paramsBox->setInsertPolicy(QComboBox::NoInsert);
    m_paramsBox->setMinimumContentsLength(22);
    m_paramsBox->setToolTip(tr("Parameter count: a preset or a number such as 8B, 1.5B, 350M or 70e9"));
    m_paramsError = new QLabel(this);
    m_family = new QComboBox(this);
    m_family->setObjectName(QStringLiteral("familyFilter"));
    m_family->addItem(tr("Common formats"));
    m_family->addItem(tr("All formats"));
    // One entry per family name the table's rows carry, in table order; the data is the
    // untranslated name the filter compares.
    for (const qs::BudgetFormat& f : qs::budgetFormats())
        if (const QString name = QString::fromUtf8(qs::familyDisplayName(*f.info)); m_family->findData(name) < 0)
            m_family->addItem(familyName(*f.info), name);
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

    // Running the model.
    m_arch = new QComboBox(this);
    m_arch->setMinimumContentsLength(16);
    m_arch->setToolTip(
        tr("The architecture the KV cache and buffers are computed for: the open checkpoint's or a published one"));
    m_arch->addItem(tr("weights only"), QString());
    for (const std::string& name : qs::archPresetNames())
        m_arch->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_weightsAs = new QComboBox(this);
    m_weightsAs->setToolTip(tr("The format the weights of the device bars are priced in"));
    for (const qs::BudgetFormat& f : qs::budgetFormats())
        if (f.preset != qs::BudgetPreset::None) {
            m_weightsAs->addItem(QString::fromStdString(f.id), QString::fromStdString(f.id));
            if (f.preset == qs::BudgetPreset::Default)
                m_weightsAs->setCurrentIndex(m_weightsAs->count() - 1);
        }
    m_contextSlider = new QSlider(Qt::Horizontal, this);
    m_contextSlider->setMinimumWidth(100);
    m_contextSlider->setToolTip(tr("Context length (llama.cpp -c), on a log scale"));
    m_context = new QSpinBox(this);
    m_context->setRange(1, int(kNoCap));
    m_context->setSingleStep(256);
    m_context->setSuffix(tr(" tokens"));
    m_context->setToolTip(tr("Context length (llama.cpp -c), shared by the sequences"));
    m_cacheK = new QComboBox(this);
    m_cacheV = new QComboBox(this);
    for (int t : qs::kvCacheTypes())
        for (QComboBox* box : {m_cacheK, m_cacheV})
            box->addItem(QString::fromStdString(qs::kvCacheTypeName(t)), t);
    m_cacheK->setToolTip(tr("K cache type (llama.cpp -ctk)"));
    m_cacheV->setToolTip(tr("V cache type (llama.cpp -ctv)"));
    for (QComboBox* box : {m_cacheK, m_cacheV})
        box->setCurrentIndex(box->findData(int(qs::GgmlF16)));
    m_parallel = new QSpinBox(this);
    m_parallel->setRange(1, 256);
    m_parallel->setToolTip(tr("Parallel sequences (llama.cpp -np)"));
    m_gpuLayers = new QSpinBox(this);
    m_gpuLayers->setRange(0, 1000);
    m_gpuLayers->setToolTip(
        tr("Layers on the GPU (llama.cpp -ngl): the last blocks; blocks + 1 adds the output layer"));
    m_gpuMemory = new QDoubleSpinBox(this);
    m_gpuMemory->setRange(0, 100000);
    m_gpuMemory->setDecimals(1);
    m_gpuMemory->setSuffix(tr(" GiB"));
    m_gpuMemory->setSpecialValueText(tr("no GPU"));
    m_gpuMemory->setToolTip(tr("GPU memory; the memory budget above is the system's RAM"));
    m_swaFull = new QCheckBox(tr("full-size SWA"), this);
    m_swaFull->setToolTip(
        tr("Size sliding-window layers like the others (llama.cpp --swa-full; the library default, not the tools')"));

    // Three short rows: one long row would widen the view past what the window gives it.
    auto* runControls = new QHBoxLayout;
    runControls->addWidget(new QLabel(tr("Running:"), this));
    runControls->addWidget(m_arch);
    runControls->addWidget(new QLabel(tr("weights as"), this));
    runControls->addWidget(m_weightsAs);
    runControls->addStretch(1);
    auto* contextControls = new QHBoxLayout;
    contextControls->addWidget(new QLabel(tr("Context:"), this));
    contextControls->addWidget(m_contextSlider, 1);
    contextControls->addWidget(m_context);
    contextControls->addSpacing(12);
    contextControls->addWidget(new QLabel(tr("K/V cache:"), this));
    contextControls->addWidget(m_cacheK);
    contextControls->addWidget(m_cacheV);
    contextControls->addWidget(m_swaFull);
    auto* deviceControls = new QHBoxLayout;
    deviceControls->addWidget(new QLabel(tr("Sequences:"), this));
    deviceControls->addWidget(m_parallel);
    deviceControls->addSpacing(12);
    deviceControls->addWidget(new QLabel(tr("GPU layers:"), this));
    deviceControls->addWidget(m_gpuLayers);
    deviceControls->addSpacing(12);
    deviceControls->addWidget(new QLabel(tr("GPU memory:"), this));
    deviceControls->addWidget(m_gpuMemory);
    deviceControls->addStretch(1);
    buildPlots();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(runControls);
    layout->addLayout(contextControls);
    layout->addLayout(deviceControls);
    layout->addWidget(m_runSummary);
    layout->addWidget(m_devicePlot);
    layout->addWidget(m_summary);
    layout->addWidget(m_plotScroll, 1);

    connectControls();
    connect(context, &ViewContext::checkpointChanged, this, &BudgetView::checkpointChanged);
    connect(context, &ViewContext::themeChanged, this, [this] { rebuild(); });
    checkpointChanged();
}

// The run's summary and device plot, the table's summary and its scrolling chart.
void BudgetView::buildPlots()
{
    m_runSummary = new QLabel(this);
    m_runSummary->setObjectName(QStringLiteral("runSummary"));
    m_runSummary->setWordWrap(true);
    m_runSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_devicePlot = new QCustomPlot(this);
    m_devicePlot->setMinimumHeight(150);
    m_devicePlot->setMaximumHeight(190);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_plot = new QCustomPlot(this);
    m_plot->setMouseTracking(true);
    // QCustomPlot replots on every resize, hidden or not: a zero-height plot (the wrapped
    // summary taking a narrow hidden tab's height) printed QPainter::begin warnings.
    m_plot->setMinimumHeight(160);
    // "All formats" lists some 75 bars: each keeps a label's height and the plot scrolls.
    m_plotScroll = new QScrollArea(this);
    m_plotScroll->setObjectName(QStringLiteral("budgetScroll"));
    m_plotScroll->setWidgetResizable(true);
    m_plotScroll->setFrameShape(QFrame::NoFrame);
    m_plotScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_plotScroll->setWidget(m_plot);
}

// Every control rebuilds the figures; the context field and its slider follow each other.
void BudgetView::connectControls()
{
    connect(m_paramsBox, &QComboBox::activated, this, [this] { paramsEdited(); });
    connect(m_paramsBox->lineEdit(), &QLineEdit::editingFinished, this, [this] { paramsEdited(); });
    connect(m_memory, &QDoubleSpinBox::valueChanged, this, [this] { rebuild(); });
    connect(m_family, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &BudgetView::hover);
    connect(m_arch, &QComboBox::currentIndexChanged, this, [this] { architectureChanged(); });
    connect(m_contextSlider, &QSlider::valueChanged, this, &BudgetView::contextSliderMoved);
    connect(m_context, &QSpinBox::valueChanged, this, [this](int tokens) {
        // The slider follows the field without echoing back.
        m_contextSlider->blockSignals(true);
        m_contextSlider->setValue(
            int(std::lround(std::log2(std::max<double>(tokens, kMinContext) / kMinContext) * kSliderSteps)));
        m_contextSlider->blockSignals(false);
        rebuild();
    });
    for (QComboBox* box : {m_cacheK, m_cacheV, m_weightsAs})
        connect(box, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    for (QSpinBox* box : {m_parallel, m_gpuLayers})
        connect(box, &QSpinBox::valueChanged, this, [this] { rebuild(); });
    connect(m_gpuMemory, &QDoubleSpinBox::valueChanged, this, [this](double gib) {
        // A GPU appearing takes every layer, as llama.cpp's tools do by default.
        if (gib > 0 && m_gpuLayers->value() == 0) {
            m_gpuLayers->blockSignals(true);
            m_gpuLayers->setValue(m_gpuLayers->maximum());
            m_gpuLayers->blockSignals(false);
        }
        rebuild();
    });
    connect(m_swaFull, &QCheckBox::toggled, this, [this] { rebuild(); });
}

BudgetView::~BudgetView()
{
    // ~QWidget hides the window, and the focus-out makes the line edit emit editingFinished
    // and the combo box emit activated into a half-destroyed view (UBSan).
    m_paramsBox->lineEdit()->disconnect(this);
    m_paramsBox->disconnect(this);
}

bool BudgetView::setArchitecture(const QString& name)
{
    const int i = m_arch->findData(name);
    if (i < 0)
        return false;
    m_arch->setCurrentIndex(i);
    return true;
}

void BudgetView::setContext(uint64_t tokens)
{
    m_context->setValue(int(std::min<uint64_t>(tokens, uint64_t(m_context->maximum()))));
}

void BudgetView::setCacheTypes(int typeK, int typeV)
{
    m_cacheK->setCurrentIndex(m_cacheK->findData(typeK));
    m_cacheV->setCurrentIndex(m_cacheV->findData(typeV));
}

void BudgetView::setGpuLayers(int layers)
{
    m_gpuLayers->setValue(layers);
}

void BudgetView::setGpuMemoryGiB(double gib)
{
    m_gpuMemory->setValue(gib);
}

std::optional<uint64_t> BudgetView::parseParamCount(const QString& text)
{
    QString s = text.trimmed();
    // A preset's label "7B (this checkpoint)" parses by its first word.
    s = s.section(QLatin1Char(' '), 0, 0);
    double mult = 1;
    if (!s.isEmpty()) {
        const QChar last = s.back().toUpper();
        const double m = last == QLatin1Char('K')                  ? 1e3
            : last == QLatin1Char('M')                             ? 1e6
            : last == QLatin1Char('B') || last == QLatin1Char('G') ? 1e9
            : last == QLatin1Char('T')                             ? 1e12
                                                                   : 0;
        if (m != 0) {
            mult = m;
            s.chop(1);
        }
    }
    // The UI's notation first (what countText shows), then the C locale's ("1.5B" typed in German).
    bool ok = false;
    double v = QLocale().toDouble(s, &ok);
    if (!ok)
        v = QLocale::c().toDouble(s, &ok);
    v *= mult;
    if (!ok || !(v >= 1) || v > 1e16)
        return std::nullopt;
    return uint64_t(std::llround(v));
}

double BudgetView::machineMemoryGiB()
{
    return double(qs::platform::physicalMemoryBytes()) / qs::kBytesPerGiB;
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
    // (Summed with the snapshot, off the GUI thread.)
    if (const auto snap = context()->snapshot()) {
        m_checkpointParams = snap->parameters;
        if (m_checkpointParams)
            m_checkpointBpw = double(snap->storedBytes) * 8 / double(m_checkpointParams);
    }
    // The checkpoint's architecture, when the budget knows its memory rules.
    m_checkpointArch.reset();
    m_checkpointArchError.clear();
    if (const auto ckpt = context()->checkpoint()) {
        try {
            m_checkpointArch = qs::modelArchOf(*ckpt);
            m_checkpointWeights = qs::weightSplitOf(*ckpt, *m_checkpointArch);
        } catch (const qs::Error& e) {
            m_checkpointArchError = qtext(e);
        }
    }
    m_arch->blockSignals(true);
    if (m_arch->itemData(1).toString() == QLatin1String("checkpoint"))
        m_arch->removeItem(1);
    if (m_checkpointArch)
        m_arch->insertItem(1, tr("this checkpoint (%1)").arg(QString::fromStdString(m_checkpointArch->arch)),
                           QStringLiteral("checkpoint"));
    m_arch->setCurrentIndex(m_checkpointArch ? 1 : 0);
    m_arch->blockSignals(false);
    m_weightsAs->blockSignals(true);
    if (m_weightsAs->count() && m_weightsAs->itemData(0).toString().isEmpty()) // the previous checkpoint's "stored"
        m_weightsAs->removeItem(0);
    if (m_checkpointArch) {
        m_weightsAs->insertItem(0, tr("stored"), QString());
        m_weightsAs->setCurrentIndex(0);
    }
    m_weightsAs->blockSignals(false);

    m_paramsBox->blockSignals(true);
    m_paramsBox->clear();
    if (m_checkpointParams)
        m_paramsBox->addItem(tr("%1 (this checkpoint)").arg(countText(m_checkpointParams)),
                             QVariant::fromValue(m_checkpointParams));
    for (uint64_t p : qs::budgetDefaultParamCounts())
        m_paramsBox->addItem(countText(p), QVariant::fromValue(p));
    m_paramsBox->setCurrentIndex(0);
    m_paramsBox->blockSignals(false);
    m_params = m_paramsBox->currentData().value<uint64_t>();
    m_newCheckpoint = true;
    architectureChanged();
}

std::optional<qs::ModelArch> BudgetView::currentArch() const
{
    const QString name = m_arch->currentData().toString();
    if (name.isEmpty())
        return std::nullopt;
    if (name == QLatin1String("checkpoint"))
        return m_checkpointArch;
    return qs::archPreset(name.toStdString());
}

void BudgetView::architectureChanged()
{
    const bool newCheckpoint = std::exchange(m_newCheckpoint, false);
    const std::optional<qs::ModelArch> arch = currentArch();
    const bool running = arch.has_value();
    for (QWidget* w : std::initializer_list<QWidget*>{m_weightsAs, m_contextSlider, m_context, m_cacheK, m_cacheV,
                                                      m_swaFull, m_parallel, m_gpuLayers, m_gpuMemory})
        w->setEnabled(running);
    m_devicePlot->setVisible(running);
    if (running) {
        const uint64_t cap = contextCap(arch);
        for (QWidget* w : std::initializer_list<QWidget*>{m_context, m_contextSlider, m_gpuLayers})
            w->blockSignals(true);
        m_context->setMaximum(int(cap));
        m_contextSlider->setRange(0, int(std::ceil(std::log2(double(cap) / kMinContext) * kSliderSteps)));
        m_gpuLayers->setMaximum(int(arch->layers) + 1);
        for (QWidget* w : std::initializer_list<QWidget*>{m_context, m_contextSlider, m_gpuLayers})
            w->blockSignals(false);
        // A published architecture brings its parameter count to the formats table.
        if (arch->params) {
            m_params = arch->params;
            m_paramsBox->setEditText(countText(m_params));
        }
        // A new checkpoint starts from its own default context (llama.cpp's 4096, or less when it was
        // trained on less), not from what was set for the previous one.
        if (newCheckpoint || uint64_t(m_context->value()) > cap
            || m_context->value() < int(std::min<uint64_t>(cap, kMinContext)))
            m_context->setValue(int(std::min<uint64_t>(cap, 4096)));
    }
    rebuild();
}

void BudgetView::contextSliderMoved(int position)
{
    const uint64_t cap = contextCap(currentArch());
    const double tokens = double(kMinContext) * std::exp2(double(position) / kSliderSteps);
    // Multiples of 256 (llama.cpp pads to them), the cap itself at the right end.
    const uint64_t ctx = std::min<uint64_t>(cap, uint64_t(std::llround(tokens / 256.0)) * 256);
    m_context->setValue(int(std::max<uint64_t>(ctx, std::min(cap, kMinContext))));
}

std::vector<double> BudgetView::deviceMemory() const
{
    std::vector<double> memory{m_memory->value()};
    if (m_gpuMemory->value() > 0)
        memory.push_back(m_gpuMemory->value());
    return memory;
}

void BudgetView::rebuildRun()
{
    m_run.reset();
    m_maxContext.reset();
    m_runError.clear();
    const std::optional<qs::ModelArch> arch = currentArch();
    if (!arch) {
        m_runSummary->setText(m_checkpointArchError.isEmpty()
                                  ? tr("Choose an architecture to add the KV cache and buffers of running the model.")
                                  : tr("Running this checkpoint: %1").arg(m_checkpointArchError.toHtmlEscaped()));
        return;
    }
    qs::RunOptions o;
    o.context = uint64_t(m_context->value());
    o.parallel = uint32_t(m_parallel->value());
    o.typeK = m_cacheK->currentData().toInt();
    o.typeV = m_cacheV->currentData().toInt();
    o.swaFull = m_swaFull->isChecked();
    const std::vector<double> memory = deviceMemory();
    o.gpuLayers = memory.size() > 1 ? m_gpuLayers->value() : 0;
    qs::WeightSplit weights;
    const QString format = m_weightsAs->currentData().toString();
    const uint64_t params = arch->params ? arch->params : m_checkpointParams;
    if (format.isEmpty() && m_arch->currentData().toString() == QLatin1String("checkpoint")) {
        weights = m_checkpointWeights;
    } else {
        const qs::BudgetFormat* f =
            (format.isEmpty() ? &qs::publishedWeightsFormat() : qs::budgetFormat(format.toStdString()));
        weights = qs::weightSplitOfParams(*arch, params, f ? qs::budgetBitsPerWeight(*f, 4096, 4096) : 16.0);
    }
    m_runNotes = arch->notes;
    try {
        m_run = qs::runBudget(*arch, weights, o, memory);
        m_maxContext = qs::maxContext(*arch, weights, o, memory);
    } catch (const qs::Error& e) {
        m_run.reset();
        m_runError = qtext(e);
    }
    m_runSummary->setText(runSummary());
    if (m_run) {
        m_deviceChart = buildDeviceChart(m_devicePlot, *m_run, context()->theme());
        if (m_devicePlot->isVisible())
            m_devicePlot->replot();
    }
}

QString BudgetView::runSummary() const
{
    if (!m_runError.isEmpty())
        return tr("<span style='color:%1'>%2</span>").arg(context()->theme().error.name(), m_runError.toHtmlEscaped());
    if (!m_run)
        return {};
    const qs::RunBudget& r = *m_run;
    const double gib = qs::kBytesPerGiB;
    QString text = tr("At %L1 tokens (%L2 cells): KV cache <b>%3</b> (%L4 bytes a token)")
                       .arg(r.options.context)
                       .arg(r.nCtx)
                       .arg(memoryText(double(r.kvCacheBytes) / gib))
                       .arg(r.kvBytesPerToken);
    if (r.recurrentBytes)
        text += tr(", recurrent state %1").arg(memoryText(double(r.recurrentBytes) / gib));
    text += tr(", output buffer %1, compute buffer about %2 (an estimate); total <b>%3</b>.")
                .arg(memoryText(double(r.outputBytes) / gib), memoryText(double(r.computeEstimate) / gib),
                     memoryText(double(r.totalBytes()) / gib));
    if (m_maxContext)
        text += tr(" Largest context that fits: <b>%L1 tokens</b>.").arg(*m_maxContext);
    else
        text += tr(" <span style='color:%1'>Not even %L2 tokens fit.</span>")
                    .arg(context()->theme().warning.name())
                    .arg(kMinContext);
    // What llama.cpp does differently from the plain sums (the architecture's notes, then the run's).
    std::vector<qs::Message> notes = m_runNotes;
    notes.insert(notes.end(), r.notes.begin(), r.notes.end());
    for (const qs::Message& n : notes)
        text += tr("<br>Note: %1").arg(qtext(n).toHtmlEscaped());
    return text;
}

void BudgetView::paramsEdited()
{
    const int i = m_paramsBox->findText(m_paramsBox->currentText());
    std::optional<uint64_t> p = i >= 0 ? std::optional<uint64_t>(m_paramsBox->itemData(i).value<uint64_t>())
                                       : parseParamCount(m_paramsBox->currentText());
    if (!p) {
        m_paramsError->setText(
            tr("<span style='color:%1'>not a parameter count</span>").arg(context()->theme().error.name()));
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
    rebuildRun();
    double budget = 0;
    for (double m : deviceMemory())
        budget += m;
    std::vector<qs::BudgetRow> all = qs::budgetTable(m_params, budget);
    // With a run: each format's total at the chosen context (KV cache and buffers added).
    const uint64_t overhead = m_run ? m_run->totalBytes() - m_run->weightsBytes : 0;
    for (qs::BudgetRow& r : all) {
        r.bytes += double(overhead);
        r.gb = r.bytes / qs::kBytesPerGB;
        r.gib = r.bytes / qs::kBytesPerGiB;
        r.fits = r.gib <= budget;
    }
    std::vector<qs::BudgetRow> rows;
    const int filter = m_family->currentIndex();
    for (const qs::BudgetRow& r : all) {
        const bool keep = filter == FilterAll || (filter == FilterCommon && r.format.preset != qs::BudgetPreset::None)
            || (filter >= FilterFirstFamily
                && m_family->currentData().toString() == QString::fromUtf8(qs::familyDisplayName(*r.format.info)));
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
    if (m_run) {
        opt.memoryWhat = tr("weights + KV cache + buffers at %L1 tokens").arg(m_run->options.context);
        opt.extraGiB = double(overhead) / qs::kBytesPerGiB;
    }
    m_chart = buildBudgetChart(m_plot, std::move(rows), opt, context()->theme());
    m_plot->setMinimumHeight(std::max(160, budgetChartHeight(m_plot, int(m_chart.rows.size()))));
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
    if (m_run)
        text += tr(" Bits per weight are amortised over a 4096 × 4096 layer; memory counts the weights, the KV cache "
                   "and the buffers at the chosen context, against RAM plus GPU memory.");
    else
        text += tr(" Bits per weight are amortised over a 4096 × 4096 layer; memory counts weights only (no KV cache "
                   "or activations).");
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
    m_devicePlot->replot();
}

QSize BudgetView::exportSize() const
{
    // The per-device chart of the run (when a model runs) above the whole table chart, also the
    // part scrolled out of sight.
    return QSize(m_plot->width(), std::max(m_plot->height(), m_plot->minimumHeight()) + deviceExportHeight());
}

int BudgetView::deviceExportHeight() const
{
    return m_devicePlot->isVisibleTo(this) ? std::max(m_devicePlot->height(), m_devicePlot->minimumHeight()) : 0;
}

QString BudgetView::exportCaption() const
{
    // The view and checkpoint (the selected weight plays no part), then what the charts price.
    const auto ckpt = context()->checkpoint();
    QString text =
        ckpt ? tr("%1 · %2").arg(title(), QFileInfo(QString::fromStdString(ckpt->path)).fileName()) : title();
    text += tr(" · %1 parameters, memory budget %2").arg(countText(m_params), memoryText(m_memory->value()));
    if (m_run)
        text += tr(" · running %1 at %2 tokens").arg(m_arch->currentText()).arg(m_context->value());
    return text;
}

void BudgetView::renderExport(QPainter& painter, const QRect& target)
{
    const int device = deviceExportHeight();
    if (device > 0)
        paintPlot(m_devicePlot, painter, QRect(target.topLeft(), QSize(target.width(), device)));
    paintPlot(m_plot, painter, target.adjusted(0, device, 0, 0));
}

} // namespace qsw
