#pragma once
// Verify: the structural checks of quantscope-cli verify (core's verifyCheckpoint) on the
// open checkpoint, run in the background when the view is first shown or on "Refresh",
// with progress and cancel. The findings are kept per checkpoint: switching views, coming back
// or reloading the same unchanged files shows them again without checking; another checkpoint
// clears them. With no findings the table says in one line what was checked. Each finding names its weight: a click
// selects the weight in every view (and the finding's first place as the selected element, where it has one), a
// double-click opens that place in the Bit map (values, rows, groups, blocks) or the Scales view
// (scales, zeros, absmax); selecting a weight elsewhere selects its first finding here. Errors and
// warnings in the theme's colours; quantized weights no check covers are listed too.
#include "analysisview.h"

#include "formats/findings.h"

#include <QStringList>

#include <memory>

class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace qs {
class Checkpoint;
}

namespace qsw {

class VerifyView : public AnalysisView {
    Q_OBJECT
public:
    explicit VerifyView(ViewContext* context, QWidget* parent = nullptr);

    QString tableCsv() const override;

    // Runs the checks on the open checkpoint (the job kJob).
    void run();

    enum Column { SeverityColumn, WeightColumn, CheckColumn, PlaceColumn, MessageColumn, ColumnCount };
    // The item's weight: an index of the checkpoint's weights, -1 for none.
    static constexpr int WeightIndexRole = Qt::UserRole + 1;
    // The finding's first place as the element to select, {row, col} (col -1: the whole row);
    // absent for findings without a place. The view that shows it: "bitmap" or "scales".
    static constexpr int PlaceRole = Qt::UserRole + 2;
    static constexpr int PlaceViewRole = Qt::UserRole + 3;
    static constexpr int NoteRole = Qt::UserRole + 4; // on the severity column: a note, not an error

    // For tests.
    const qs::VerifyReport* report() const { return m_report.get(); }
    QTreeWidget* list() const { return m_list; }
    QString summaryText() const;

    static const QString kJob;

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showReport(std::shared_ptr<const qs::VerifyReport> report);
    void applyTheme();
    void followWeight();
    // Selects the item's weight and place; `open`: brings the view that shows the place to the front.
    void activated(QTreeWidgetItem* item, bool open);

    QPushButton* m_run;
    QLabel* m_summary;
    QTreeWidget* m_list;
    std::shared_ptr<const qs::Checkpoint> m_checked; // the checkpoint m_report is of
    std::shared_ptr<const qs::VerifyReport> m_report;
    QStringList m_checkedStamps; // the files (name, size, time) m_report was checked on
};

} // namespace qsw
