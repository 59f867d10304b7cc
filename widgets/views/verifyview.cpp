#include "verifyview.h"

#include "jobrunner.h"
#include "numbers.h"
#include "qtext.h"
#include "tablecsv.h"
#include "viewcontext.h"

#include "analysis/verify.h"
#include "container/checkpoint.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>

namespace qsw {

const QString VerifyView::kJob = QStringLiteral("verify");

namespace {

// What the checkpoint's files are on disk (name, size, modification time): a reload of the same
// unchanged files keeps the findings. Empty when a file is not on disk (nothing to compare).
QStringList fileStamps(const qs::Checkpoint& ckpt)
{
    QStringList stamps{qtext(ckpt.path)};
    for (const std::string& file : ckpt.files) {
        const QFileInfo info(qtext(file));
        if (!info.exists())
            return {};
        stamps << QStringLiteral("%1|%2|%3")
                      .arg(info.absoluteFilePath())
                      .arg(info.size())
                      .arg(info.lastModified().toMSecsSinceEpoch());
    }
    return ckpt.files.empty() ? QStringList() : stamps;
}

} // namespace

VerifyView::VerifyView(ViewContext* context, QWidget* parent)
    : AnalysisView(context, parent)
{
    m_run = new QPushButton(tr("&Refresh"), this);
    m_run->setObjectName(QStringLiteral("runChecks"));
    m_run->setToolTip(tr("Check every quantized weight again, as quantscope-cli verify does (the findings are kept "
                         "until then, also when the same unchanged file is reloaded)"));
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("findings"));
    m_list->setRootIsDecorated(false);
    m_list->setAlternatingRowColors(true);
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels({tr("Severity"), tr("Weight"), tr("Check"), tr("Where"), tr("Finding")});
    const char* const csvHeader[] = {"severity", "weight", "check", "where", "finding"};
    for (int c = 0; c < ColumnCount; ++c)
        m_list->headerItem()->setData(c, CsvRole, QString::fromLatin1(csvHeader[c]));
    m_list->header()->setStretchLastSection(true);
    m_list->setWordWrap(true); // a finding's message wraps in its row

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_run);
    bar->addWidget(m_summary, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_list, 1);

    connect(m_run, &QPushButton::clicked, this, &VerifyView::run);
    connect(m_list, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) { activated(item, false); });
    connect(m_list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { activated(item, true); });
    connect(context, &ViewContext::checkpointChanged, this, [this] {
        this->context()->jobs()->cancel(kJob);
        // The same files, unchanged (a reload): the findings stand, linked to the new weights.
        const auto ckpt = this->context()->checkpoint();
        if (ckpt && m_report && !m_checkedStamps.isEmpty() && fileStamps(*ckpt) == m_checkedStamps) {
            m_checked = ckpt;
            showReport(m_report);
            return;
        }
        showReport(nullptr);
        // The checks run for what is on screen: a hidden view runs them when shown.
        if (isVisible())
            run();
    });
    connect(context, &ViewContext::weightChanged, this, [this] { followWeight(); });
    connect(context, &ViewContext::themeChanged, this, [this] { applyTheme(); });
    connect(context->jobs(), &JobRunner::failed, this, [this](const QString& key, const QString& message) {
        if (key == kJob)
            m_summary->setText(message.toHtmlEscaped());
    });
    connect(context->jobs(), &JobRunner::cancelled, this, [this](const QString& key) {
        if (key == kJob)
            m_summary->setText(tr("Checks cancelled. Press “Refresh” to start them again."));
    });
    showReport(nullptr);
}

QString VerifyView::summaryText() const
{
    return m_summary->text();
}

void VerifyView::showEvent(QShowEvent* event)
{
    AnalysisView::showEvent(event);
    if (context()->checkpoint() && m_checked != context()->checkpoint() && !context()->jobs()->isRunning(kJob))
        run();
}

void VerifyView::run()
{
    const auto ckpt = context()->checkpoint();
    if (!ckpt)
        return;
    m_summary->setText(tr("Checking %n weight(s)…", nullptr, int(ckpt->weights.size())));
    QPointer<VerifyView> self(this);
    const QStringList stamps = fileStamps(*ckpt);
    context()->jobs()->start(kJob, tr("Verifying %1").arg(QFileInfo(qtext(ckpt->path)).fileName()),
                             [ckpt, self, stamps](JobControl& job) -> JobRunner::Continuation {
                                 // A cancelled check throws Cancelled, which the runner reports.
                                 qs::Progress progress;
                                 progress.cancel = &job.cancelFlag();
                                 progress.report = [&job](uint64_t done, uint64_t total, const std::string&) {
                                     job.setProgress(total ? double(done) / double(total) : 1.0);
                                 };
                                 auto report =
                                     std::make_shared<const qs::VerifyReport>(qs::verifyCheckpoint(*ckpt, progress));
                                 return [self, ckpt, report, stamps] {
                                     if (self && self->context()->checkpoint() == ckpt) {
                                         self->m_checked = ckpt;
                                         self->m_checkedStamps = stamps;
                                         self->showReport(report);
                                     }
                                 };
                             });
}

void VerifyView::showReport(std::shared_ptr<const qs::VerifyReport> report)
{
    m_report = std::move(report);
    if (!m_report) {
        m_checked.reset();
        m_checkedStamps.clear();
    }
    m_list->clear();
    m_run->setEnabled(context()->checkpoint() != nullptr);
    if (!m_report) {
        m_summary->setText(context()->checkpoint() ? tr("The checks run when this view is shown.")
                                                   : tr("Open a checkpoint to check its quantized weights."));
        return;
    }
    const auto snapshot = context()->snapshot();
    auto weightIndex = [&](const std::string& name) { return snapshot ? snapshot->findWeight(qtext(name)) : -1; };
    const qs::VerifyReport& r = *m_report;
    QList<QTreeWidgetItem*> items;
    // A place as the Where column shows it: its row and, where it has them, block, group or column.
    const auto placeText = [](const qs::FindingPlace& p) {
        if (p.block >= 0)
            return tr("row %1, block %2").arg(localCount(uint64_t(p.row)), localCount(uint64_t(p.block)));
        if (p.group >= 0)
            return tr("row %1, group %2").arg(localCount(uint64_t(p.row)), localCount(uint64_t(p.group)));
        if (p.col >= 0)
            return tr("row %1, column %2").arg(localCount(uint64_t(p.row)), localCount(uint64_t(p.col)));
        return tr("row %1").arg(localCount(uint64_t(p.row)));
    };
    // The same in English with plain numbers, for CSV.
    const auto csvPlace = [](const qs::FindingPlace& p) {
        QString text = QStringLiteral("row %1").arg(p.row);
        if (p.block >= 0)
            text += QStringLiteral(", block %1").arg(p.block);
        else if (p.group >= 0)
            text += QStringLiteral(", group %1").arg(p.group);
        else if (p.col >= 0)
            text += QStringLiteral(", column %1").arg(p.col);
        return text;
    };
    const auto setCsv = [](QTreeWidgetItem* item, const QStringList& fields) {
        for (int c = 0; c < fields.size(); ++c)
            item->setData(c, CsvRole, fields[c]);
    };
    // "Nothing was checked" is no pass, but no fault of the file either (a vocabulary GGUF):
    // a note, drawn muted.
    const auto isNote = [](const qs::VerifyFinding& f) { return f.check == "nothing-checked"; };
    for (const qs::VerifyFinding& f : r.findings) {
        const bool note = isNote(f);
        QString where;
        if (!f.places.empty()) {
            where = placeText(f.places.front());
            if (f.count > 1)
                where = tr("%1 (of %2)").arg(where, localCount(f.count));
        }
        const QString message = shownText(qtext(f.message), kMaxShownMessage);
        auto* item = new QTreeWidgetItem({note            ? tr("note")
                                              : f.warning ? tr("warning")
                                                          : tr("error"),
                                          shownText(qtext(f.weight)), qtext(f.check), where, message});
        item->setData(SeverityColumn, Qt::UserRole, f.warning);
        item->setData(SeverityColumn, NoteRole, note);
        QString csvWhere = f.places.empty() ? QString() : csvPlace(f.places.front());
        if (f.count > 1 && !f.places.empty())
            csvWhere += QStringLiteral(" (of %1)").arg(f.count);
        setCsv(item,
               {note            ? QStringLiteral("note")
                    : f.warning ? QStringLiteral("warning")
                                : QStringLiteral("error"),
                qtext(f.weight), qtext(f.check), csvWhere, qtext(f.message.text())});
        item->setData(WeightColumn, WeightIndexRole, weightIndex(f.weight));
        item->setToolTip(MessageColumn, message);
        if (!f.places.empty() && f.places.front().row >= 0) {
            const qs::FindingPlace& p = f.places.front();
            item->setData(PlaceColumn, PlaceRole, QVariantList{qlonglong(p.row), qlonglong(p.col)});
            // The stored scales, zeros and absmax have their own view; everything else is values.
            const bool scales = f.check == "nonfinite-scale" || f.check == "nonfinite-zero"
                || f.check == "nonfinite-absmax" || f.check == "zero-scale";
            item->setData(PlaceColumn, PlaceViewRole, scales ? QStringLiteral("scales") : QStringLiteral("bitmap"));
            QStringList all;
            for (const qs::FindingPlace& q : f.places)
                all << placeText(q);
            item->setToolTip(PlaceColumn,
                             tr("%1\nDouble-click to open it in the %2 view.")
                                 .arg(all.join(QLatin1Char('\n')), scales ? tr("Scales") : tr("Bit map")));
        }
        items << item;
    }
    for (const std::string& name : r.unchecked) {
        auto* item = new QTreeWidgetItem(
            {tr("not checked"), shownText(qtext(name)), QString(), QString(), tr("no check covers this format")});
        item->setData(WeightColumn, WeightIndexRole, weightIndex(name));
        setCsv(item,
               {QStringLiteral("not checked"), qtext(name), QString(), QString(),
                QStringLiteral("no check covers this format")});
        items << item;
    }
    if (items.isEmpty()) {
        // Nothing found: one line saying what was checked, so an empty table is not a question.
        std::map<std::string, int> formats;
        const auto ckpt = context()->checkpoint();
        for (const std::string& name : r.checked)
            if (const int w = weightIndex(name);
                ckpt && w >= 0 && size_t(w) < ckpt->weights.size()) // hashed: no search per name
                ++formats[ckpt->weights[size_t(w)].format];
        QStringList counts;
        for (const auto& [format, n] : formats)
            counts << tr("%1 × %2").arg(localCount(uint64_t(n)), qtext(format));
        auto* item = new QTreeWidgetItem(
            {tr("none"), QString(), QString(), QString(),
             r.checked.empty()
                 ? tr("No quantized weight to check: nothing found.")
                 : tr("Checked the layout, sizes, scales and codes of %n quantized weight(s) (%1): no errors, no "
                      "warnings.",
                      nullptr, int(r.checked.size()))
                       .arg(counts.join(QStringLiteral(", ")))});
        item->setData(WeightColumn, WeightIndexRole, -1);
        setCsv(item,
               {QStringLiteral("none"), QString(), QString(), QString(),
                QStringLiteral("%1 quantized weights checked: no errors, no warnings").arg(r.checked.size())});
        items << item;
    }
    m_list->addTopLevelItems(items);
    QSet<int> flagged; // the browser marks the weights with errors
    for (const qs::VerifyFinding& f : r.findings)
        if (const int w = weightIndex(f.weight); w >= 0 && !f.warning && !isNote(f))
            flagged.insert(w);
    context()->setFlaggedWeights(flagged);
    const size_t notes = size_t(std::count_if(r.findings.begin(), r.findings.end(), isNote));
    const size_t errors = r.errors() - notes, warnings = r.findings.size() - notes - errors;
    QString text;
    if (r.checked.empty() && errors == 0 && warnings == 0)
        text = tr("Nothing was checked, so this is not a pass: the note says why.");
    else
        text = tr("%n weight(s) checked: ", nullptr, int(r.checked.size()))
            + (errors == 0 && warnings == 0 ? tr("no findings.")
                                            : tr("%Ln error(s)", nullptr, int(errors)) + QStringLiteral(", ")
                       + tr("%Ln warning(s).", nullptr, int(warnings)));
    if (!r.unchecked.empty())
        text += tr(" %n quantized weight(s) not covered by any check.", nullptr, int(r.unchecked.size()));
    if (errors + warnings > 0 || !r.unchecked.empty())
        text += tr(" Click a finding to select its weight and place; double-click to open the place.");
    m_summary->setText(text);
    applyTheme();
    // With the icons in: they widen the severity column.
    for (int c = SeverityColumn; c < MessageColumn; ++c)
        m_list->resizeColumnToContents(c);
    followWeight();
}

QString VerifyView::tableCsv() const
{
    return m_report ? modelCsv(*m_list->model()) : QString();
}

void VerifyView::applyTheme()
{
    const Theme& t = context()->theme();
    const QIcon errorIcon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
    const QIcon warningIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    const QIcon noteIcon = style()->standardIcon(QStyle::SP_MessageBoxInformation);
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_list->topLevelItem(i);
        const bool unchecked = item->text(CheckColumn).isEmpty(); // or the nothing-found line
        const bool warning = item->data(SeverityColumn, Qt::UserRole).toBool();
        if (item->data(SeverityColumn, NoteRole).toBool()) {
            item->setIcon(SeverityColumn, noteIcon);
            item->setForeground(SeverityColumn, t.mutedText);
            continue;
        }
        if (unchecked) {
            item->setForeground(SeverityColumn, t.mutedText);
            continue;
        }
        item->setIcon(SeverityColumn, warning ? warningIcon : errorIcon);
        item->setForeground(SeverityColumn, warning ? t.warning : t.error);
    }
}

void VerifyView::followWeight()
{
    const int weight = context()->weight();
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_list->topLevelItem(i);
        if (weight >= 0 && item->data(WeightColumn, WeightIndexRole).toInt() == weight) {
            const QSignalBlocker block(m_list);
            m_list->setCurrentItem(item);
            m_list->scrollToItem(item);
            return;
        }
    }
    const QSignalBlocker block(m_list);
    m_list->clearSelection();
}

void VerifyView::activated(QTreeWidgetItem* item, bool open)
{
    const int weight = item ? item->data(WeightColumn, WeightIndexRole).toInt() : -1;
    if (weight >= 0 && weight != context()->weight())
        context()->requestWeight(weight);
    const QVariantList at = item ? item->data(PlaceColumn, PlaceRole).toList() : QVariantList();
    if (weight < 0 || context()->weight() != weight || at.size() != 2)
        return;
    context()->setSelected({weight, at[0].toLongLong(), at[1].toLongLong()});
    if (open)
        context()->requestView(item->data(PlaceColumn, PlaceViewRole).toString());
}

} // namespace qsw
