#include "errorview.h"

#include "figures/errorhistogram.h"
#include "figures/plottheme.h"
#include "jobrunner.h"
#include "messagestack.h"
#include "numbers.h"
#include "tablecsv.h"
#include "viewcontext.h"

#include "analysis/imatrix.h"
#include "analysis/referencesearch.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/family.h"
#include "formats/formatid.h"
#include "formats/kernel.h"
#include "formats/opencheckpoint.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace qsw {

namespace {

const QString kErrorJob = QStringLiteral("error");

// The Range boxes' decimals follow the magnitude of the range: four significant digits (an error
// of a 4-bit weight is around 1e-3, of an 8-bit one 1e-5), more when a value given (--range)
// needs them to stand exactly. `outward`: the values come from the errors themselves and round
// away from zero, so the range still holds every error.
void fitErrorRangeBoxes(QDoubleSpinBox* lowBox, QDoubleSpinBox* highBox, double lo, double hi, bool outward)
{
    const double magnitude = std::max(std::fabs(lo), std::fabs(hi));
    int decimals = magnitude > 0 ? std::clamp(3 - int(std::floor(std::log10(magnitude))), 1, 9) : 4;
    const auto exactAt = [](double v, int d) {
        const double scaled = v * std::pow(10.0, d);
        return std::fabs(scaled - std::round(scaled)) <= 1e-6 * std::max(1.0, std::fabs(scaled));
    };
    if (!outward)
        while (decimals < 9 && !(exactAt(lo, decimals) && exactAt(hi, decimals)))
            ++decimals;
    const double unit = std::pow(10.0, decimals);
    for (QDoubleSpinBox* box : {lowBox, highBox}) {
        const QSignalBlocker block(box);
        box->setDecimals(decimals);
        box->setSingleStep(10 / unit);
    }
    const QSignalBlocker a(lowBox), b(highBox);
    lowBox->setValue(outward ? std::floor(lo * unit) / unit : lo);
    highBox->setValue(outward ? std::ceil(hi * unit) / unit : hi);
}
const QString kOpenJob = QStringLiteral("error-reference");
const QString kSearchJob = QStringLiteral("error-search");

// An "as" target whose bits and group size the user may set: the affine rules.
bool affineTarget(const qs::RequantizeSpec& spec)
{
    const qs::FormatInfo* f = qs::resolveFormatId(spec.format);
    return f && qs::requantizerTakesShape(*f);
}

} // namespace

ErrorView::ErrorView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
{
    m_targets = {{tr("the weight's own format"), {}}};
    for (const qs::RequantizePreset& p : qs::requantizePresets())
        m_targets.push_back({QCoreApplication::translate("qs::RequantizePreset", p.label), p.spec, p.forFloat});

    createControls();
    layOut();
    connectControls();
    updateRequantizeControls();
    showMessage(tr("Select a weight to see its error."));
}

void ErrorView::createControls()
{
    m_caption = new QLabel(this);
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reference = new QComboBox(this);
    m_reference->addItem(tr("Requantize the same weights"));
    m_reference->setToolTip(tr("Reference: the weight as stored, requantized to a format (what that format would cost "
                               "on these weights), or the float tensor of the same name in another checkpoint"));
    m_browse = new QPushButton(tr("Reference…"), this);
    m_browse->setToolTip(tr("Open an fp16/bf16/f32 checkpoint to compare against"));
    m_target = new QComboBox(this);
    for (const Target& t : m_targets)
        m_target->addItem(t.label);
    m_bins = new QSpinBox(this);
    m_bins->setRange(4, 4096);
    m_bins->setValue(64);
    m_bins->setPrefix(tr("bins: "));
    m_log = new QCheckBox(tr("Log scale"), this);
    m_targetBits = new QSpinBox(this);
    m_targetBits->setRange(2, 8);
    m_targetBits->setPrefix(tr("bits: "));
    m_targetBits->setToolTip(tr("Code width of the affine target"));
    m_targetGroup = new QSpinBox(this);
    m_targetGroup->setRange(0, 1 << 20);
    m_targetGroup->setSpecialValueText(tr("group: row"));
    m_targetGroup->setPrefix(tr("group: "));
    m_targetGroup->setToolTip(tr("Columns per group of the affine target (row: one group per row)"));
    m_rangeOn = new QCheckBox(tr("Range"), this);
    m_rangeOn->setToolTip(tr("Bin the signed error over [low, high] instead of ±max|error| (the CLI's --range); "
                             "errors outside are counted below and above"));
    m_rangeLo = new QDoubleSpinBox(this);
    m_rangeHi = new QDoubleSpinBox(this);
    m_rangeLo->setObjectName(QStringLiteral("rangeLow"));
    m_rangeHi->setObjectName(QStringLiteral("rangeHigh"));
    for (QDoubleSpinBox* box : {m_rangeLo, m_rangeHi}) {
        box->setRange(-1e6, 1e6);
        box->setEnabled(false);
    }
    fitErrorRangeBoxes(m_rangeLo, m_rangeHi, 0, 0, false);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setObjectName(QStringLiteral("hint"));
    m_useFound = new QPushButton(this);
    m_useFound->hide();
}

void ErrorView::layOut()
{
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Reference:"), this));
    controls->addWidget(m_reference);
    controls->addWidget(m_browse);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("as"), this));
    controls->addWidget(m_target);
    controls->addWidget(m_targetBits);
    controls->addWidget(m_targetGroup);
    controls->addStretch(1);
    // The histogram's own settings on a row of their own: the view stays narrow.
    auto* histogramControls = new QHBoxLayout;
    histogramControls->addWidget(m_bins);
    histogramControls->addWidget(m_log);
    histogramControls->addSpacing(12);
    histogramControls->addWidget(m_rangeOn);
    histogramControls->addWidget(m_rangeLo);
    histogramControls->addWidget(m_rangeHi);
    histogramControls->addStretch(1);
    auto* hintRow = new QHBoxLayout;
    hintRow->addWidget(m_hint, 1);
    hintRow->addWidget(m_useFound);

    m_histogram = new QCustomPlot(this);
    m_groups = new QCustomPlot(this);
    m_plots = new QSplitter(Qt::Vertical, this);
    m_groupNote = new QLabel(this);
    m_groupNote->setWordWrap(true);
    m_groupNote->setAlignment(Qt::AlignCenter);
    m_groupNote->hide();
    m_plots->addWidget(m_histogram);
    m_plots->addWidget(m_groups);
    m_plots->addWidget(m_groupNote);
    m_plots->setStretchFactor(0, 3);
    m_plots->setStretchFactor(1, 2);
    // QCustomPlot replots on every resize: a plot squeezed to zero height (the group chart
    // while hidden) paints into a null pixmap and prints QPainter::begin warnings.
    m_histogram->setMinimumHeight(160);
    m_groups->setMinimumHeight(120);
    m_groups->setToolTip(tr("Click a group to select its first element"));
    m_histogram->setToolTip(tr("Wheel: zoom the error axis · drag: pan · double-click: the whole range"));
    m_plots->setChildrenCollapsible(false);
    m_stats = new QLabel(this);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stats->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_stats->setMinimumWidth(260);
    auto* results = new QWidget(this);
    auto* resultsLayout = new QHBoxLayout(results);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->addWidget(m_plots, 1);
    resultsLayout->addWidget(m_stats);
    m_stack = new MessageStack(results, this);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_caption);
    layout->addLayout(controls);
    layout->addLayout(histogramControls);
    layout->addLayout(hintRow);
    layout->addWidget(m_stack, 1);
}

void ErrorView::connectControls()
{
    connect(m_reference, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_target->setEnabled(i == 0);
        recompute();
    });
    connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
        updateRequantizeControls();
        recompute();
    });
    for (QSpinBox* box : {m_targetBits, m_targetGroup})
        connect(box, &QSpinBox::valueChanged, this, [this] { recompute(); });
    connect(m_rangeOn, &QCheckBox::toggled, this, [this](bool on) {
        m_rangeLo->setEnabled(on);
        m_rangeHi->setEnabled(on);
        // Start from the range on screen.
        if (on && m_result && m_rangeHi->value() <= m_rangeLo->value())
            fitErrorRangeBoxes(m_rangeLo, m_rangeHi, m_result->error.signedError.lo, m_result->error.signedError.hi,
                               true);
        recompute();
    });
    for (QDoubleSpinBox* box : {m_rangeLo, m_rangeHi})
        connect(box, &QDoubleSpinBox::valueChanged, this, [this] {
            if (m_rangeOn->isChecked())
                recompute();
        });
    connect(m_histogram, &QCustomPlot::mouseDoubleClick, this, [this] { redraw(); });
    connect(m_useFound, &QPushButton::clicked, this, &ErrorView::useFoundReference);
    connect(m_bins, &QSpinBox::valueChanged, this, [this] { recompute(); });
    connect(m_log, &QCheckBox::toggled, this, [this] { redraw(); });
    connect(m_browse, &QPushButton::clicked, this, &ErrorView::chooseReferenceFile);
    connect(context(), &ViewContext::checkpointChanged, this, [this] {
        m_cache.clear();
        m_dirty = true;
        m_found.clear();
        m_searched = false;
        context()->jobs()->cancel(kSearchJob);
        updateHint();
    });
    connect(context(), &ViewContext::referenceChanged, this, &ErrorView::updateReferenceChoice);
    connect(context(), &ViewContext::imatrixChanged, this, [this] {
        m_dirty = true;
        if (isVisible())
            recompute();
    });
    connect(context(), &ViewContext::weightChanged, this, [this] {
        m_dirty = true;
        if (isVisible())
            recompute();
    });
    connect(context(), &ViewContext::themeChanged, this, [this] { redraw(); });
    connect(context(), &ViewContext::selectedChanged, this, [this] { updateGroupMarker(); });
    connect(m_groups, &QCustomPlot::mousePress, this, &ErrorView::clickGroup);
    connect(context()->jobs(), &JobRunner::failed, this, [this](const QString& key, const QString& message) {
        if (key == kErrorJob || key == kOpenJob)
            showMessage(message);
    });
    m_stack->button()->setText(tr("&Compute again"));
    m_stack->button()->setObjectName(QStringLiteral("computeAgain"));
    connect(m_stack->button(), &QPushButton::clicked, this, [this] { recompute(); });
    connect(context()->jobs(), &JobRunner::cancelled, this, [this](const QString& key) {
        if (key == kErrorJob) {
            m_dirty = true;
            m_stack->showMessage(tr("Cancelled."), true);
        }
    });
}

QString ErrorView::message() const
{
    return m_stack->message();
}

QString ErrorView::caption() const
{
    return m_caption->text();
}

QString ErrorView::statisticsText() const
{
    return m_stats->text();
}

void ErrorView::setBins(int bins)
{
    m_bins->setValue(bins);
}

void ErrorView::setLogScale(bool on)
{
    m_log->setChecked(on);
}

void ErrorView::setRequantizeTarget(int index)
{
    m_target->setCurrentIndex(index);
}

void ErrorView::setRange(double lo, double hi)
{
    fitErrorRangeBoxes(m_rangeLo, m_rangeHi, lo, hi, false);
    if (m_rangeOn->isChecked() == (hi > lo))
        recompute();
    else
        m_rangeOn->setChecked(hi > lo);
}

void ErrorView::setRequantizeBits(int bits)
{
    m_targetBits->setValue(bits);
}

void ErrorView::setRequantizeGroupSize(int groupSize)
{
    m_targetGroup->setValue(groupSize);
}

QString ErrorView::hintText() const
{
    return m_hint->text();
}

QString ErrorView::groupNote() const
{
    return m_groupNote->isHidden() ? QString() : m_groupNote->text();
}

void ErrorView::updateRequantizeControls()
{
    // Bits and group size follow the chosen preset; the user may set any.
    const Target& t = m_targets[size_t(std::max(0, m_target->currentIndex()))];
    const bool affine = !t.spec.format.empty() && affineTarget(t.spec);
    const QSignalBlocker a(m_targetBits), b(m_targetGroup);
    m_targetBits->setVisible(affine);
    m_targetGroup->setVisible(affine);
    if (affine) {
        m_targetBits->setValue(t.spec.bits);
        m_targetGroup->setValue(int(std::min<uint64_t>(t.spec.groupSize, uint64_t(m_targetGroup->maximum()))));
    }
}

void ErrorView::updateHint()
{
    // What the comparison on screen is, and how to get the real error.
    const qs::LogicalWeight* w = context()->logicalWeight();
    const qs::FormatInfo* info = w ? qs::findFormat(w->format) : nullptr;
    const bool quantized = info && info->quantized;
    const bool requantizing = m_reference->currentIndex() == 0;
    QString text;
    if (w && quantized && requantizing) {
        if (m_target->currentIndex() != 0)
            text = tr("This is what %1 would add on top of the stored, already quantized values, not the error "
                      "against the original weights.")
                       .arg(m_target->currentText());
        else if (info->affineCodes && (w->symmetric || w->actOrder))
            text = ownFormatCannotReproduce(*w);
        else
            text = tr("Requantizing a quantized weight to its own format shows whether its codes are reproduced "
                      "(error 0 when they are), not what quantization cost.");
        text += QLatin1Char(' ');
        text += m_found.isEmpty()
            ? tr("A float reference of the same model (“Reference…”) gives the real error.")
            : tr("A float checkpoint of the same model sits beside it: %1.").arg(QFileInfo(m_found).fileName());
    }
    m_hint->setText(text);
    m_hint->setVisible(!text.isEmpty());
    m_useFound->setVisible(!text.isEmpty() && !m_found.isEmpty());
    m_useFound->setText(tr("Use %1 as reference").arg(QFileInfo(m_found).fileName()));
}

QString ErrorView::ownFormatCannotReproduce(const qs::LogicalWeight& w)
{
    // Requantizing runs the round-to-nearest quantizer on the dequantized values; two of the
    // stored weight's own choices are not in them.
    QStringList why;
    if (w.symmetric)
        why << tr("a symmetric scale is 2·max|w| / (2^b − 1) of the original weights, whose largest |w| lies "
                  "between two levels; the dequantized values' largest is a level (%1 or %2 steps), so the "
                  "requantizer finds another scale and rounds every value anew")
                   .arg(1 << (w.bits - 1))
                   .arg((1 << (w.bits - 1)) - 1);
    if (w.actOrder)
        why << tr("its groups follow g_idx (act-order), the requantizer's are columns k / %1").arg(w.groupSize);
    return tr("Requantizing this weight to its own format cannot reproduce its codes: %1. The error shown is that "
              "of quantizing twice, not a fault of the file, nor what quantization cost.")
        .arg(why.join(QStringLiteral("; ")));
}

void ErrorView::searchReferences()
{
    const auto ckpt = context()->checkpoint();
    if (m_searched || !ckpt || context()->reference())
        return;
    m_searched = true;
    QPointer<ErrorView> self(this);
    context()->jobs()->start(
        kSearchJob,
        tr("Looking for a float reference beside %1").arg(QFileInfo(QString::fromStdString(ckpt->path)).fileName()),
        [ckpt, self](JobControl& control) -> JobRunner::Continuation {
            const QString found =
                QString::fromStdString(qs::findFloatReferenceBeside(*ckpt, &control.cancelFlag()).path);
            return [self, ckpt, found] {
                if (!self || self->context()->checkpoint() != ckpt)
                    return;
                self->m_found = found;
                self->updateHint();
            };
        });
}

void ErrorView::useFoundReference()
{
    if (!m_found.isEmpty())
        openReference(m_found);
}

void ErrorView::addReference(std::shared_ptr<const qs::Checkpoint> reference)
{
    context()->setReference(std::move(reference));
}

void ErrorView::updateReferenceChoice()
{
    // The combo lists the session's reference after "requantize"; a new one is chosen.
    const auto ref = context()->reference();
    const QSignalBlocker block(m_reference);
    while (m_reference->count() > 1)
        m_reference->removeItem(1);
    if (ref) {
        const QString path = QString::fromStdString(ref->path);
        m_reference->addItem(QFileInfo(path).fileName(), path);
        m_reference->setItemData(1, path, Qt::ToolTipRole);
        m_reference->setCurrentIndex(1);
    } else {
        m_reference->setCurrentIndex(0);
    }
    m_target->setEnabled(m_reference->currentIndex() == 0);
    m_dirty = true;
    if (isVisible())
        recompute();
}

void ErrorView::chooseReferenceFile()
{
    // A float reference usually sits beside the checkpoint.
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open a reference checkpoint"), context()->checkpointFolder(),
                                     tr("Checkpoints (*.safetensors *.gguf);;All files (*)"));
    if (!path.isEmpty())
        openReference(path);
}

void ErrorView::openReference(const QString& path)
{
    QPointer<ErrorView> self(this);
    const std::string file = path.toStdString();
    context()->jobs()->start(
        kOpenJob, tr("Opening %1").arg(QFileInfo(path).fileName()),
        [file, self](JobControl&) -> JobRunner::Continuation {
            auto ref = qs::openCheckpoint(file);
            return [self, ref] {
                if (self)
                    self->addReference(ref);
            };
        },
        JobRunner::Kind::Io);
}

void ErrorView::showEvent(QShowEvent* event)
{
    AnalysisView::showEvent(event);
    if (m_dirty)
        recompute();
}

void ErrorView::showMessage(const QString& text)
{
    m_stack->showMessage(text);
}

std::optional<qs::RequantizeSpec> ErrorView::requantizeSpec(const qs::LogicalWeight& w, QString* label,
                                                            QString* why) const
{
    const int index = std::max(0, m_target->currentIndex());
    const Target& t = m_targets[size_t(index)];
    if (!t.spec.format.empty()) {
        if (!affineTarget(t.spec)
            || (m_targetBits->value() == t.spec.bits && uint64_t(m_targetGroup->value()) == t.spec.groupSize)) {
            *label = t.label;
            return t.spec;
        }
        qs::RequantizeSpec spec = t.spec;
        spec.bits = m_targetBits->value();
        spec.groupSize = uint64_t(m_targetGroup->value());
        *label = spec.groupSize > 0
            ? tr("%1, %2-bit g%3").arg(QString::fromStdString(spec.format)).arg(spec.bits).arg(spec.groupSize)
            : tr("%1, %2-bit per row").arg(QString::fromStdString(spec.format)).arg(spec.bits);
        return spec;
    }
    const std::string& f = w.format;
    const qs::FormatInfo* info = qs::findFormat(f);
    if (!info || !info->quantized) {
        // A float weight has no format of its own to requantize to: show what a common
        // 4-bit format would cost on it.
        const auto common =
            std::find_if(m_targets.begin(), m_targets.end(), [](const Target& c) { return c.forFloat; });
        *label = tr("%1 (the weight is %2)").arg(common->label, QString::fromStdString(f));
        return common->spec;
    }
    *label = tr("its own format, %1").arg(QString::fromStdString(f));
    const uint64_t group = w.groupSize > 0 ? uint64_t(w.groupSize) : w.inFeatures();
    if (std::optional<qs::RequantizeSpec> own = qs::ownRequantizeSpec(*info, w.bits, group, w.symmetric))
        return own;
    *why = tr("%1 is stored as %2, which cannot be requantized to itself here: choose a format under \"as\" or "
              "open a float reference.")
               .arg(shownText(QString::fromStdString(w.name)), QString::fromStdString(f));
    return std::nullopt;
}

QString ErrorView::cacheKey() const
{
    const QString range =
        m_rangeOn->isChecked() ? QStringLiteral("|%1,%2").arg(m_rangeLo->value()).arg(m_rangeHi->value()) : QString();
    const QString target = !m_targetBits->isHidden() ? QStringLiteral("%1:%2/%3")
                                                           .arg(m_target->currentIndex())
                                                           .arg(m_targetBits->value())
                                                           .arg(m_targetGroup->value())
                                                     : QString::number(m_target->currentIndex());
    return QStringLiteral("%1|%2|%3|%4")
               .arg(context()->weight())
               .arg(m_reference->currentIndex() == 0 ? QStringLiteral("requant:%1").arg(target)
                                                     : m_reference->currentData().toString())
               .arg(m_bins->value())
               .arg(quintptr(context()->imatrix().get()))
        + range;
}

void ErrorView::recompute()
{
    m_dirty = false;
    const auto ckpt = context()->checkpoint();
    const qs::LogicalWeight* w = context()->logicalWeight();
    context()->jobs()->cancel(kErrorJob);
    m_result.reset();
    m_weight = -1;
    updateHint();
    if (const qs::FormatInfo* info = w ? qs::findFormat(w->format) : nullptr; info && info->quantized)
        searchReferences();
    if (!ckpt || !w) {
        m_caption->clear();
        showMessage(tr("Select a weight to see its error."));
        return;
    }
    Job job;
    job.key = cacheKey();
    job.weight = context()->weight();
    if (auto it = m_cache.find(job.key); it != m_cache.end()) {
        showResult(it->second.first, it->second.second);
        return;
    }
    qs::StatsOptions opt;
    opt.bins = m_bins->value();
    if (m_rangeOn->isChecked() && m_rangeHi->value() > m_rangeLo->value()) {
        opt.rangeLo = m_rangeLo->value();
        opt.rangeHi = m_rangeHi->value();
    }
    opt.path = qs::bestSimdPath();
    // With an imatrix that fits the weight, the importance-weighted error beside the plain one;
    // the jobs hold the imatrix the importance points into.
    const std::shared_ptr<const qs::Imatrix> imatrix = context()->imatrix();
    if (imatrix) {
        const qs::ImatrixWeightMatch m = qs::matchImatrixWeight(*imatrix, *ckpt, *w);
        if (m.fits())
            opt.importance = &m.entry->importance;
        else
            job.importanceNote = QString::fromStdString(m.problem);
    }
    const int index = job.weight;
    const QString name = shownText(QString::fromStdString(w->name));
    // The weight being computed, not the one shown before, until its result replaces it.
    m_caption->setText(QStringLiteral("<b>%1</b> · %2").arg(name.toHtmlEscaped(), QString::fromStdString(w->format)));
    QPointer<ErrorView> self(this);
    auto finish = [self](const Job& job, std::shared_ptr<const qs::WeightComparison> r) -> JobRunner::Continuation {
        return [self, job, r] {
            if (!self)
                return;
            self->m_cache[job.key] = {job, r};
            if (self->context()->weight() == job.weight && self->cacheKey() == job.key)
                self->showResult(job, r);
        };
    };
    auto progress = [](JobControl& control) {
        return [&control](uint64_t done, uint64_t total, const std::string&) {
            control.setProgress(total ? double(done) / double(total) : 0.0);
        };
    };
    if (m_reference->currentIndex() == 0) {
        QString why;
        const std::optional<qs::RequantizeSpec> s = requantizeSpec(*w, &job.reference, &why);
        if (!s) {
            showMessage(why);
            return;
        }
        job.reference = tr("itself requantized to %1").arg(job.reference);
        job.targetGroup = s->groupSize;
        showMessage(tr("Requantizing %1 and comparing…").arg(name));
        context()->jobs()->start(kErrorJob, tr("Error of %1").arg(name),
                                 [ckpt, imatrix, index, opt, spec = *s, job, finish,
                                  progress](JobControl& control) mutable -> JobRunner::Continuation {
                                     opt.progress.cancel = &control.cancelFlag();
                                     opt.progress.report = progress(control);
                                     auto r = std::make_shared<const qs::WeightComparison>(
                                         qs::compareRequantized(*ckpt, ckpt->weights.at(size_t(index)), spec, opt));
                                     return finish(job, r);
                                 });
        return;
    }
    const auto ref = context()->reference();
    if (!ref) {
        showMessage(tr("Open a reference checkpoint with “Reference…”."));
        return;
    }
    // Paired as the Diff view and the CLI pair weights (Hugging Face <-> GGUF included).
    const qs::ReferenceMatch match = qs::findReference(*ckpt, *w, *ref);
    if (!match.found()) {
        m_caption->setText(
            QStringLiteral("<b>%1</b> · %2").arg(name.toHtmlEscaped(), QString::fromStdString(w->format)));
        showMessage(QString::fromStdString(match.problem));
        return;
    }
    job.reference =
        tr("%1 in %2")
            .arg(shownText(QString::fromUtf8(match.tensor->name.data(), qsizetype(match.tensor->name.size()))),
                 m_reference->currentText());
    if (!match.note.empty())
        job.reference += QStringLiteral(" (%1)").arg(QString::fromStdString(match.note));
    showMessage(tr("Comparing %1 with %2…").arg(name, QString::fromStdString(ref->path)));
    // The match points into ckpt and ref, which the job keeps alive.
    context()->jobs()->start(kErrorJob, tr("Error of %1").arg(name),
                             [ckpt, ref, imatrix, index, match, opt, job, finish,
                              progress](JobControl& control) mutable -> JobRunner::Continuation {
                                 opt.progress.cancel = &control.cancelFlag();
                                 opt.progress.report = progress(control);
                                 const qs::LogicalWeight& weight = ckpt->weights.at(size_t(index));
                                 auto r = std::make_shared<const qs::WeightComparison>(
                                     qs::compareWeight(*ckpt, weight, *ref, match, opt));
                                 return finish(job, r);
                             });
}

void ErrorView::showResult(const Job& job, std::shared_ptr<const qs::WeightComparison> result)
{
    m_result = std::move(result);
    m_weight = job.weight;
    m_shown = job;
    m_groupSize = m_result->error.groupSize;
    const qs::WeightComparison& r = *m_result;
    const qs::ErrorStats& e = r.error;
    m_caption->setText(tr("<b>%1</b> [%2 × %3] against %4. Error = dequantized − reference.")
                           .arg(shownText(QString::fromStdString(r.weight)).toHtmlEscaped())
                           .arg(r.shape.size() > 0 ? r.shape[0] : 0)
                           .arg(r.shape.size() > 1 ? r.shape[1] : 0)
                           .arg(job.reference.toHtmlEscaped()));
    const QString muted = context()->theme().mutedText.name();
    auto head = [&](const QString& k) {
        return QStringLiteral("<tr><td colspan='2' style='padding-top:8px'><b>%1</b></td></tr>").arg(k.toHtmlEscaped());
    };
    auto row = [&](const QString& k, const QString& v) {
        return QStringLiteral("<tr><td style='color:%3'>%1</td><td align='right'>%2</td></tr>")
            .arg(k.toHtmlEscaped(), v, muted);
    };
    QString t = QStringLiteral("<table cellspacing='3'>");
    t += head(tr("Weight error"));
    t += row(tr("elements"), localCount(e.count));
    if (e.nonFinite > 0 && r.shape.size() > 1 && r.shape[1] > 0)
        t += row(tr("NaN or Inf"),
                 QStringLiteral("<span style='color:%1'>%2</span>")
                     .arg(context()->theme().warning.name(),
                          tr("%1 left out of every figure; the first at (%2, %3)")
                              .arg(localCount(e.nonFinite))
                              .arg(e.firstNonFinite / r.shape[1])
                              .arg(e.firstNonFinite % r.shape[1])
                              .toHtmlEscaped()));
    t += row(tr("RMSE"), localNumber(e.rmse, 'g', 5));
    t += row(tr("mean |error|"), localNumber(e.meanAbs, 'g', 5));
    t += row(tr("max |error|"), localNumber(e.maxAbs, 'g', 5));
    t += row(tr("mean signed error"), localNumber(e.meanSigned, 'g', 5));
    t += row(tr("SQNR"), std::isinf(e.sqnrDb) ? tr("∞ (exact)") : tr("%1 dB").arg(localNumber(e.sqnrDb, 'f', 2)));
    if (e.weighted) {
        t += head(tr("Importance-weighted (imatrix)"));
        t += row(tr("weighted MSE"), localNumber(e.weightedMse, 'g', 5));
        t += row(tr("plain MSE"), localNumber(e.rmse * e.rmse, 'g', 5));
        t += row(tr("weighted sum"), localNumber(e.weightedSumSq, 'g', 5));
        t += row(tr("relative to the weights"), localNumber(e.weightedRelative, 'g', 5));
    } else if (!job.importanceNote.isEmpty()) {
        t += head(tr("Importance-weighted (imatrix)"));
        t += QStringLiteral("<tr><td colspan='2' style='color:%1'>%2</td></tr>")
                 .arg(muted, job.importanceNote.toHtmlEscaped());
    }
    t += head(e.percentilesExact ? tr("Percentiles of |error|") : tr("Percentiles of |error| (sampled)"));
    t += row(tr("p50"), localNumber(e.p50, 'g', 5));
    t += row(tr("p95"), localNumber(e.p95, 'g', 5));
    t += row(tr("p99"), localNumber(e.p99, 'g', 5));
    t += row(tr("p99.9"), localNumber(e.p999, 'g', 5));
    t += head(tr("Output y = W x"));
    t += row(tr("relative error"), localNumber(r.output.relativeError, 'g', 5));
    t += row(tr("cosine"), localNumber(r.output.cosine, 'f', 6));
    t += row(tr("activations"), tr("%1 tokens, outlier channels").arg(localCount(r.output.tokens)));
    if (!e.groups.empty()) {
        t += head(tr("Groups"));
        t +=
            row(tr("groups"),
                e.columnGroup.empty() ? tr("%n of %1 columns each", nullptr, int(e.groups.size())).arg(m_groupSize)
                                      : tr("%n, columns assigned by g_idx (act-order)", nullptr, int(e.groups.size())));
        const auto worst =
            std::max_element(e.groups.begin(), e.groups.end(),
                             [](const qs::GroupError& a, const qs::GroupError& b) { return a.rmse < b.rmse; });
        t += row(tr("worst group (RMSE)"), tr("%1: %2").arg(worst->group).arg(localNumber(worst->rmse, 'g', 5)));
    }
    if (e.signedError.below + e.signedError.above > 0 || m_rangeOn->isChecked()) {
        t += head(tr("Histogram range"));
        t += row(tr("range"),
                 tr("%1 … %2").arg(localNumber(e.signedError.lo, 'g', 5), localNumber(e.signedError.hi, 'g', 5)));
        t += row(tr("outside"),
                 tr("%1 below, %2 above").arg(localCount(e.signedError.below), localCount(e.signedError.above)));
    }
    t += QStringLiteral("</table>");
    m_stats->setText(t);
    m_stack->showContent();
    redraw();
}

void ErrorView::redraw()
{
    if (!m_result)
        return;
    const Theme& theme = context()->theme();
    ErrorHistogramOptions opt;
    opt.logScale = m_log->isChecked();
    opt.title = tr("Signed error, %1 bins").arg(m_result->error.signedError.counts.size());
    m_bars = buildErrorHistogram(m_histogram, m_result->error.signedError, opt, theme);
    // Zoom and pan along the error axis only: the counts keep their scale.
    m_histogram->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_bars->keyAxis()->axisRect()->setRangeZoom(Qt::Horizontal);
    m_bars->keyAxis()->axisRect()->setRangeDrag(Qt::Horizontal);
    m_histogram->replot();
    const bool grouped = !m_result->error.groups.empty();
    m_groups->setVisible(grouped);
    // A target whose groups do not fit the weight: say so where the chart would be.
    const uint64_t K = m_result->shape.size() > 1 ? m_result->shape[1] : 0;
    const bool unfit = !grouped && m_shown.targetGroup > 0 && K > 0 && m_shown.targetGroup >= K;
    m_groupNote->setText(unfit ? tr("No per-group chart: the target's groups of %1 columns %2 K = %3 of this weight, "
                                    "so each row is one group.")
                                     .arg(m_shown.targetGroup)
                                     .arg(m_shown.targetGroup > K ? tr("do not fit in") : tr("span all"))
                                     .arg(K)
                               : QString());
    m_groupNote->setVisible(unfit);
    m_groupMarker = nullptr;
    if (grouped) {
        QCPBars* bars = buildGroupErrorChart(m_groups, m_result->error.groups,
                                             m_result->error.columnGroup.empty()
                                                 ? tr("Error per group of %1 columns").arg(m_groupSize)
                                                 : tr("Error per group (act-order: columns by g_idx)"),
                                             theme);
        // Groups are whole numbers: no ticks between them; few groups read better as points.
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        bars->keyAxis()->setTicker(ticker);
        if (m_result->error.groups.size() <= 64)
            for (int i = 0; i < m_groups->graphCount(); ++i) {
                m_groups->graph(i)->setLineStyle(QCPGraph::lsNone);
                m_groups->graph(i)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 7));
            }
        // Headroom so the legend in the top right corner covers no group's max.
        bars->valueAxis()->setRange(0, bars->valueAxis()->range().upper * 1.3);
        m_groupMarker = new QCPItemRect(m_groups);
        m_groupMarker->setClipAxisRect(bars->keyAxis()->axisRect());
        m_groupMarker->topLeft->setAxes(bars->keyAxis(), bars->valueAxis());
        m_groupMarker->bottomRight->setAxes(bars->keyAxis(), bars->valueAxis());
        m_groupMarker->setPen(QPen(theme.text, 1.5, Qt::DashLine));
        m_groupMarker->setBrush(Qt::NoBrush);
        updateGroupMarker();
        m_groups->replot();
    }
}

void ErrorView::updateGroupMarker()
{
    if (!m_groupMarker || !m_result)
        return;
    const ElementRef sel = context()->selected();
    const std::optional<uint64_t> group = sel.weight == m_weight ? groupOfColumn(sel.col) : std::nullopt;
    const bool on = group.has_value();
    m_groupMarker->setVisible(on);
    if (on) {
        const double g = double(*group);
        const QCPRange y = m_groupMarker->topLeft->valueAxis()->range();
        m_groupMarker->topLeft->setCoords(g - 0.5, y.upper);
        m_groupMarker->bottomRight->setCoords(g + 0.5, y.lower);
    }
    if (m_groups->isVisible())
        m_groups->replot(QCustomPlot::rpQueuedReplot);
}

ElementRef ErrorView::groupElementAt(const QPointF& pixel) const
{
    if (!m_result || m_groupSize == 0 || !m_groupMarker || m_stack->showsMessage())
        return {};
    QCPAxis* x = m_groupMarker->topLeft->keyAxis();
    if (!x->axisRect()->rect().contains(pixel.toPoint()))
        return {};
    const double g = std::floor(x->pixelToCoord(pixel.x()) + 0.5);
    if (g < 0 || g >= double(m_result->error.groups.size()))
        return {};
    // A group spans every row: select its first element (act-order: its lowest column).
    const std::vector<int32_t>& columnGroup = m_result->error.columnGroup;
    if (columnGroup.empty())
        return {m_weight, 0, int64_t(uint64_t(g) * m_groupSize)};
    const auto first = std::find(columnGroup.begin(), columnGroup.end(), int32_t(g));
    return first == columnGroup.end() ? ElementRef{} : ElementRef{m_weight, 0, int64_t(first - columnGroup.begin())};
}

std::optional<uint64_t> ErrorView::groupOfColumn(int64_t col) const
{
    if (!m_result || m_groupSize == 0 || col < 0)
        return std::nullopt;
    const std::vector<int32_t>& columnGroup = m_result->error.columnGroup;
    const uint64_t g = columnGroup.empty()   ? uint64_t(col) / m_groupSize
        : uint64_t(col) < columnGroup.size() ? uint64_t(columnGroup[size_t(col)])
                                             : m_result->error.groups.size();
    return g < m_result->error.groups.size() ? std::optional<uint64_t>(g) : std::nullopt;
}

void ErrorView::clickGroup(QMouseEvent* event)
{
    const ElementRef e = groupElementAt(event->position());
    if (e.isValid())
        context()->setSelected(e);
}

QString ErrorView::exportCaption() const
{
    QString text = AnalysisView::exportCaption();
    if (m_result && !text.isEmpty())
        text += tr(" · signed error against %1").arg(m_shown.reference);
    return text;
}

QString ErrorView::tableCsv() const
{
    if (!m_result || m_stack->showsMessage())
        return {};
    // Machine-readable: C-locale numbers, one quantity per line, as the CLI's JSON names them.
    const qs::ErrorStats& e = m_result->error;
    QString csv = csvLine(
        {QStringLiteral("weight"), QStringLiteral("reference"), QStringLiteral("quantity"), QStringLiteral("value")});
    const QString weight = QString::fromStdString(m_result->weight);
    auto add = [&](const char* quantity, double v) {
        csv += csvLine({weight, m_shown.reference, QLatin1String(quantity), QString::number(v, 'g', 17)});
    };
    add("elements", double(e.count));
    if (e.nonFinite > 0 && m_result->shape.size() > 1 && m_result->shape[1] > 0) {
        add("non_finite", double(e.nonFinite));
        add("first_non_finite_row", double(e.firstNonFinite / m_result->shape[1]));
        add("first_non_finite_column", double(e.firstNonFinite % m_result->shape[1]));
    }
    add("rmse", e.rmse);
    add("mean_abs", e.meanAbs);
    add("max_abs", e.maxAbs);
    add("mean_signed", e.meanSigned);
    add("sqnr_db", e.sqnrDb);
    add("p50", e.p50);
    add("p95", e.p95);
    add("p99", e.p99);
    add("p99.9", e.p999);
    add("output_relative_error", m_result->output.relativeError);
    add("output_cosine", m_result->output.cosine);
    add("tokens", double(m_result->output.tokens));
    add("histogram_lo", e.signedError.lo);
    add("histogram_hi", e.signedError.hi);
    add("below_range", double(e.signedError.below));
    add("above_range", double(e.signedError.above));
    for (const qs::GroupError& g : e.groups) {
        const QString group = QStringLiteral("group %1").arg(g.group);
        csv += csvLine({weight, m_shown.reference, group + QStringLiteral(" rmse"), QString::number(g.rmse, 'g', 17)});
        csv += csvLine(
            {weight, m_shown.reference, group + QStringLiteral(" max_abs"), QString::number(g.maxAbs, 'g', 17)});
    }
    return csv;
}

void ErrorView::renderExport(QPainter& painter, const QRect& target)
{
    if (m_stack->showsMessage() || !m_result) {
        AnalysisView::renderExport(painter, target);
        return;
    }
    // The statistics table on the right, as on screen; the plots fill the rest.
    QTextDocument table;
    table.setDefaultFont(font());
    table.setHtml(m_stats->text());
    table.setTextWidth(std::max(260, m_stats->width()));
    const int tableWidth = std::min(int(std::ceil(table.idealWidth())) + 16, target.width() / 2);
    const QRect plots(target.topLeft(), QSize(target.width() - tableWidth, target.height()));
    painter.fillRect(QRect(plots.right() + 1, target.top(), target.right() - plots.right(), target.height()),
                     context()->theme().background);
    painter.save();
    painter.translate(plots.right() + 12, target.top() + 8);
    QAbstractTextDocumentLayout::PaintContext paint;
    paint.palette.setColor(QPalette::Text, context()->theme().text);
    table.documentLayout()->draw(&painter, paint);
    painter.restore();
    const bool lower = m_groups->isVisible() || !m_groupNote->isHidden();
    const int top = lower ? plots.height() * 3 / 5 : plots.height();
    paintPlot(m_histogram, painter, QRect(plots.topLeft(), QSize(plots.width(), top)));
    const QRect below(plots.left(), plots.top() + top, plots.width(), plots.height() - top);
    if (m_groups->isVisible()) {
        paintPlot(m_groups, painter, below);
    } else if (!m_groupNote->isHidden()) {
        painter.setPen(context()->theme().mutedText);
        painter.drawText(below.adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, m_groupNote->text());
    }
}

} // namespace qsw
