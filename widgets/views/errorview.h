#pragma once
// Error (issue 5, view 4): the signed error of the selected weight against a reference, as
// core's histogram (counts unchanged), with the statistics table (RMSE, mean/max |error|,
// SQNR, percentiles, y = Wx relative error and cosine), a log-scale toggle, a bins spin box
// and the per-group RMSE chart (a click selects the group's first element in the context).
// The reference is the weight requantized (default) or a float tensor of a checkpoint opened
// with "Reference..." (off the GUI thread). Runs as a background job; results are cached.
// A quantized checkpoint's first sight says what requantizing it shows, and offers a float
// checkpoint of the same model found beside it (core's findFloatReferenceBeside, names paired
// by matchWeights). The histogram takes the CLI's range and zooms along the error axis
// (wheel, drag; double-click resets).
// With the Recipe view's importance matrix (ViewContext) the importance-weighted MSE stands
// beside the plain one.
#include "analysisview.h"

#include "analysis/stats.h"
#include "viewcontext.h"

#include <map>
#include <optional>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QCustomPlot;
class QCPBars;
class QCPItemRect;
class QMouseEvent;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;

namespace qsw {

class MessageStack;

class ErrorView : public AnalysisView {
    Q_OBJECT
public:
    explicit ErrorView(ViewContext* context, QWidget* parent = nullptr);

    void renderExport(QPainter& painter, const QRect& target) override;
    QString exportCaption() const override;
    QString tableCsv() const override;

    // For tests.
    QCustomPlot* histogramPlot() const { return m_histogram; }
    QCPBars* histogramBars() const { return m_bars; }
    std::shared_ptr<const qs::WeightComparison> result() const { return m_result; }
    QString message() const;
    QString caption() const; // the line above the plots: the weight and what it is compared with
    QString statisticsText() const;
    void setBins(int bins);
    void setLogScale(bool on);
    // Index into the requantize targets (0 = the weight's own format).
    void setRequantizeTarget(int index);
    // Makes an opened float checkpoint the session's reference (ViewContext::setReference)
    // and selects it.
    void addReference(std::shared_ptr<const qs::Checkpoint> reference);
    // The histogram range (the CLI's --range LO,HI); lo >= hi: the default ±max|error|.
    void setRange(double lo, double hi);
    // Bits and group size of an affine "as" target (any, not only the presets').
    void setRequantizeBits(int bits);
    void setRequantizeGroupSize(int groupSize);
    // What the view says about the comparison (requantize vs reference) under the caption.
    QString hintText() const;
    // A float checkpoint of the same model found beside the open one (empty: none found yet);
    // useFoundReference() opens it as the session's reference.
    QString foundReference() const { return m_found; }
    void useFoundReference();
    // Why the per-group chart is not drawn (the target's groups do not fit K); empty when drawn.
    QString groupNote() const;
    // For tests: the per-group chart, the group size its groups span (0 when ungrouped) and
    // the element a click at `pixel` on it selects.
    QCustomPlot* groupPlot() const { return m_groups; }
    uint64_t groupSize() const { return m_groupSize; }
    ElementRef groupElementAt(const QPointF& pixel) const;
    // The group of the chart that input column `col` belongs to (act-order: g_idx[col], as the
    // Bit map and Scales name it); nullopt when the chart has no such group.
    std::optional<uint64_t> groupOfColumn(int64_t col) const;
    // Why requantizing `w` to its own format (round to nearest on its dequantized values) cannot
    // give its stored codes back: a symmetric range, act-order groups.
    static QString ownFormatCannotReproduce(const qs::LogicalWeight& w);

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Target {
        QString label;
        qs::RequantizeSpec spec; // format empty: the weight's own format
        bool forFloat = false; // the format a float weight is costed in
    };
    struct Job {
        QString key;
        int weight = -1;
        QString reference; // for the caption
        QString importanceNote; // why the open imatrix does not weigh this weight's error
        uint64_t targetGroup = 0; // the requantize target's group size (0: none)
    };
    void chooseReferenceFile();
    void openReference(const QString& path);
    void searchReferences();
    void updateHint();
    void updateRequantizeControls();
    void updateReferenceChoice();
    void recompute();
    void showResult(const Job& job, std::shared_ptr<const qs::WeightComparison> result);
    void updateGroupMarker();
    void clickGroup(QMouseEvent* event);
    void showMessage(const QString& text);
    void redraw();
    std::optional<qs::RequantizeSpec> requantizeSpec(const qs::LogicalWeight& w, QString* label, QString* why) const;
    QString cacheKey() const;

    QLabel* m_caption;
    QComboBox* m_reference;
    QPushButton* m_browse;
    QComboBox* m_target;
    QSpinBox* m_bins;
    QCheckBox* m_log;
    QCheckBox* m_rangeOn;
    QDoubleSpinBox* m_rangeLo;
    QDoubleSpinBox* m_rangeHi;
    QSpinBox* m_targetBits;
    QSpinBox* m_targetGroup;
    QLabel* m_hint;
    QPushButton* m_useFound;
    QLabel* m_groupNote;
    MessageStack* m_stack;
    QSplitter* m_plots;
    QCustomPlot* m_histogram;
    QCustomPlot* m_groups;
    QLabel* m_stats;
    QCPBars* m_bars = nullptr;
    QCPItemRect* m_groupMarker = nullptr;
    int m_weight = -1; // the weight m_result belongs to
    uint64_t m_groupSize = 0; // columns per group of m_result's groups
    std::vector<Target> m_targets;
    std::shared_ptr<const qs::WeightComparison> m_result;
    std::map<QString, std::pair<Job, std::shared_ptr<const qs::WeightComparison>>> m_cache;
    bool m_dirty = true;
    Job m_shown; // the job m_result came from
    QString m_found; // a float reference found beside the checkpoint
    bool m_searched = false; // the search ran for this checkpoint
};

} // namespace qsw
