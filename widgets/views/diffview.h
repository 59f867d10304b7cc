#pragma once
// Diff (issue 5, view 6): the open checkpoint (A) against a second one (B), opened with
// "Open B...", dropped on the view or given as `quantscope A --diff B`. Weights pair by name
// (Hugging Face <-> GGUF included: core's matchWeights); A's and B's weights are listed side
// by side and follow the browser's selection; the selected pair's |a - b| is a decimated
// heatmap (core's diffMap; a click selects the element); the whole-checkpoint comparison
// (core's diffCheckpoints, streamed, a job with progress and cancel) is a list worst first,
// rows over the tolerance marked. Every figure comes from core/analysis/diff.h.
#include "analysisview.h"

#include "analysis/diff.h"
#include "snapshot.h"
#include "theme.h"
#include "viewcontext.h"

#include <QAbstractTableModel>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QHBoxLayout;
class QMouseEvent;
class QPushButton;
class QTreeView;

namespace qs {
class Checkpoint;
}

namespace qsw {

class WeightTreeModel;

// A thin model over one read-only comparison: the compared pairs in core's order (over the
// tolerance first, then by relative error, largest first), then the shape mismatches, the
// skipped pairs and the weights only in A or only in B. A new tolerance re-marks and
// re-orders the pairs by core's rule without comparing again.
class DiffListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameA, NameB, Rmse, MaxAbs, Sqnr, Status, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, KindRole };
    enum class Kind { Pair, ShapeMismatch, Skipped, OnlyInA, OnlyInB };
    struct Row {
        Kind kind = Kind::Pair;
        std::string nameA, nameB;
        const qs::WeightDiff* diff = nullptr; // Pair only
        QString detail; // shapes or the reason a pair was skipped
        std::string csvDetail; // the same in English, for CSV
        bool over = false; // max |a - b| over the tolerance (the pair's own below 0), or a non-finite difference
    };

    explicit DiffListModel(QObject* parent = nullptr);
    // `orderA`: A's weight names -> their index in A (ties in core's order keep A's order).
    void setResult(std::shared_ptr<const qs::DiffResult> result, std::unordered_map<std::string, int> orderA,
                   double tolerance);
    void setTolerance(double tolerance);
    void setTheme(const Theme& theme);
    std::shared_ptr<const qs::DiffResult> result() const { return m_result; }
    const Row* rowAt(int row) const;
    int rowOfA(const std::string& nameA) const; // -1 when absent
    int rowOfB(const std::string& nameB) const;
    int overCount() const; // pairs over the tolerance (shape mismatches are counted apart)

public: // QAbstractItemModel API
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    std::shared_ptr<const qs::DiffResult> m_result;
    std::unordered_map<std::string, int> m_orderA;
    double m_tolerance = -1; // below 0: each pair's automatic tolerance
    std::vector<Row> m_rows;
    Theme m_theme;
};

class DiffView : public AnalysisView {
    Q_OBJECT
public:
    explicit DiffView(ViewContext* context, QWidget* parent = nullptr);

    QSize exportSize() const override;
    void renderExport(QPainter& painter, const QRect& target) override;
    QString tableCsv() const override;
    QString exportCaption() const override;
    QString exportProblem() const override;

    // Opens `path` as B in the background (it becomes the session's comparison, ViewContext), pairs its weights with
    // A's and compares them all.
    Q_INVOKABLE void openComparison(const QString& path);
    // The whole-checkpoint comparison as a job with progress and cancel.
    void compareAll();
    void cancelComparison();
    // A tolerance below 0 (kAutomaticTolerance): each pair's automatic one (qs::automaticTolerance).
    void setTolerance(double tolerance);
    static constexpr double kAutomaticTolerance = -1;

    // For tests.
    std::shared_ptr<const qs::Checkpoint> other() const { return m_b; }
    DiffListModel* model() const { return m_model; }
    QTreeView* list() const { return m_table; }
    // core's warnings on the compared weights (DiffResult::warnings), one item each.
    QListWidget* warningList() const { return m_warningList; }
    QTreeView* listA() const { return m_listA; }
    QTreeView* listB() const { return m_listB; }
    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap() const { return m_colorMap; }
    std::shared_ptr<const qs::DiffMap> map() const { return m_map; }
    QString statusText() const;
    // The element of A a heatmap position points at, as a click selects it.
    ElementRef elementAt(const QPointF& pixel) const;
    // What hovering there tells: row, col, a, b and |a - b| (and the cell's max when the map is
    // decimated); empty off the map.
    QString hoverText(const QPointF& pixel) const;
    // Index into B's weights of the selected weight's match; -1 for none.
    int matchedB() const;

    static const QString kOpenJob, kCompareJob, kMapJob;
    // The heatmap's resolution: at most this many cells each way.
    static constexpr uint64_t kMapRows = 256, kMapCols = 512;
    // The heatmap's cells (its axis rect) are never less tall than this, in logical pixels.
    static constexpr int kMapMinHeight = 220;

protected:
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // The constructor's parts: the bar above, the heatmap, the warnings and the list of pairs,
    // the signals.
    QHBoxLayout* createBar();
    void createMap();
    void createTables();
    void connectControls();
    struct Opened {
        std::shared_ptr<const qs::Checkpoint> a, b;
        std::shared_ptr<const CheckpointSnapshot> snapshotB;
        std::shared_ptr<const qs::WeightMatch> match;
    };
    void openDialog();
    // Forgets B (the session's comparison was closed or went with the old A).
    void showCheckpoint(); // the context's checkpoint as A, paired with B when one is kept
    void closeB();
    static QString openHint();
    void startMatch(const QString& path, std::shared_ptr<const qs::Checkpoint> b);
    void setOpened(const Opened& opened);
    void updateWeight();
    void showResult(std::shared_ptr<const qs::DiffResult> result);
    void updateWarnings();
    void setMap(int weightA, std::shared_ptr<const qs::DiffMap> map);
    void redrawMap();
    void updateMarker();
    void applyTheme();
    void setStatus(const QString& text, bool error = false);
    void selectInList(QTreeView* view, const QModelIndex& index);
    void listAActivated(const QModelIndex& index);
    void listBActivated(const QModelIndex& index);
    void tableActivated(const QModelIndex& index);
    void clickMap(QMouseEvent* event);
    void hoverMap(QMouseEvent* event);
    const qs::WeightPair* pairOfA(int weightA) const;
    int indexInA(const qs::LogicalWeight* w) const;
    int indexInB(const qs::LogicalWeight* w) const;
    std::unordered_map<std::string, int> orderA() const;

    QPushButton* m_open;
    QLabel* m_bName;
    QDoubleSpinBox* m_tolerance;
    QPushButton* m_compare;
    QPushButton* m_closeB;
    QLabel* m_status;
    QLabel* m_titleA;
    QLabel* m_titleB;
    QTreeView* m_listA;
    QTreeView* m_listB;
    WeightTreeModel* m_modelA;
    WeightTreeModel* m_modelB;
    QLabel* m_mapCaption;
    QCustomPlot* m_plot;
    QCPColorMap* m_colorMap;
    QCPColorScale* m_colorScale;
    QCPItemRect* m_marker;
    QWidget* m_warnings;
    QLabel* m_warningTitle;
    QListWidget* m_warningList;
    QTreeView* m_table;
    DiffListModel* m_model;

    std::shared_ptr<const qs::Checkpoint> m_b;
    std::shared_ptr<const qs::Checkpoint> m_matchedA; // the A that m_match pairs
    std::shared_ptr<const qs::WeightMatch> m_match;
    std::shared_ptr<const qs::DiffMap> m_map;
    int m_mapWeight = -1; // A's weight the map shows
    bool m_statusIsError = false;
};

} // namespace qsw
