#pragma once
// Recipe (issue 18): which weight got which type. A grid of layers (rows) by tensor roles
// (columns: attention, feed-forward, experts, then the rest; the tensors outside the blocks in
// a last row), each cell coloured by its stored type (the Theme's format colour, lighter for
// fewer bits) with its bits per weight; hover tells the tensor, its type and why it differs
// from the nominal type; a click selects the weight in every view. Below, the bits per weight
// of each layer. "Compare with..." (or `quantscope A --diff B`) opens a second checkpoint:
// the cells whose type differs are outlined and the chart shows both. "Importance matrix..."
// (or `quantscope --imatrix FILE`) opens what llama-imatrix wrote (either format): beside the
// grid, each matrix weight's importance (mean, peak) and whether the imatrix fits it, and the
// selected weight's importance per input channel; the Error view then weighs its error too.
// Every figure comes from core/analysis/recipe.h and core/analysis/imatrix.h.
#include "analysisview.h"

#include "analysis/imatrix.h"
#include "analysis/recipe.h"
#include "theme.h"

#include <QColor>
#include <QFont>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace qsw {

// The grid's geometry and contents, computed from core's summaries (no painting).
struct RecipeGridModel {
    struct Cell {
        int tensor = -1; // index into summary.tensors (and the checkpoint's weights)
        bool differs = false; // B stores another type, or lacks the tensor
        QString labelB; // B's type when it differs ("" when B lacks it)
    };
    std::vector<QString> roles; // columns
    std::vector<int> layers; // rows: block indices, then -1 for the tensors outside the blocks
    std::vector<std::vector<Cell>> cells; // [row][column]
    std::map<std::string, QColor> colours; // type label -> colour
    std::vector<std::string> legend; // type labels, fewest bits first
    // Rows and columns left out: a grid of a million layers or a million roles (a file of tiny
    // tensors, each its own layer or role) shows its first kMaxRows rows and at most
    // kMaxColumns columns (the roles with the most tensors) within kMaxCells cells.
    size_t hiddenLayers = 0, hiddenRoles = 0;
    static constexpr size_t kMaxRows = 100000, kMaxColumns = 1000, kMaxCells = size_t(4) << 20;

    static RecipeGridModel build(const qs::Checkpoint& ckpt, const qs::RecipeSummary& a,
                                 const qs::RecipeComparison* comparison, const Theme& theme);
};

class RecipeGrid;

class RecipeView : public AnalysisView {
    Q_OBJECT
public:
    explicit RecipeView(ViewContext* context, QWidget* parent = nullptr);
    ~RecipeView() override;

    void renderExport(QPainter& painter, const QRect& target) override;
    QString tableCsv() const override;

    // Opens `path` as the second checkpoint in the background and compares the recipes.
    Q_INVOKABLE void openComparison(const QString& path);
    void clearComparison();
    // Reads `path` (GGUF or legacy .dat imatrix) in the background and shares it (ViewContext).
    Q_INVOKABLE void openImatrix(const QString& path);

    // For tests.
    const qs::RecipeSummary* summary() const { return m_summary ? &*m_summary : nullptr; }
    const qs::RecipeComparison* comparison() const { return m_comparison.get(); }
    const RecipeGridModel& grid() const;
    QWidget* gridWidget() const;
    // Where cell (row, column) of the grid lies in gridWidget()'s coordinates.
    QRect gridCellRect(int row, int column) const;
    // What that cell shows (its type label elided to the cell, its bits per weight), in which font.
    QString gridCellText(int row, int column) const;
    QFont gridCellFont() const;
    // Column `column`'s label as the header draws it (one entry a line), where it stands, and
    // the tooltip at a position of gridWidget() (a column label in full, a cell's tensor).
    QStringList gridHeaderLines(int column) const;
    QRect gridHeaderRect(int column) const;
    QString gridToolTip(const QPoint& pos) const;
    QCustomPlot* plot() const { return m_plot; }
    QString summaryText() const;
    const qs::ImatrixMatch* imatrixMatch() const { return m_imatrixMatch ? &*m_imatrixMatch : nullptr; }
    QTableWidget* importanceTable() const { return m_importanceTable; }
    QCustomPlot* channelPlot() const { return m_channelPlot; }
    QString importanceText() const;

    static const QString kCompareJob;
    static const QString kImatrixJob;
    static const QString kSummaryJob;
    // Checkpoints of up to this many weights are summarized on the spot; larger ones by a job
    // (kSummaryJob), the view saying so meanwhile.
    static constexpr size_t kInlineWeights = 4096;
    // Up to this many layers the chart has a bar and a label each; beyond, a line.
    static constexpr size_t kChartBars = 512;

private:
    struct Built;
    // Drops what is shown at once and rebuilds when the view is in front (AnalysisView::whenInFront).
    void rebuildInFront();
    void showNothing(const QString& text);
    void rebuild();
    void apply(Built built);
    void redrawChart();
    void redrawManyLayers();
    void openDialog();
    void openImatrixDialog();
    void rebuildImportance();
    void redrawChannels();

    QLabel* m_summaryLabel;
    QPushButton* m_open;
    QPushButton* m_clear;
    QPushButton* m_openImatrix;
    RecipeGrid* m_grid;
    QCustomPlot* m_plot;
    QWidget* m_importancePanel;
    QLabel* m_importanceLabel;
    QTableWidget* m_importanceTable;
    QCustomPlot* m_channelPlot;
    // The match points into this imatrix and checkpoint, held here so that a signal arriving
    // before rebuildImportance() never finds it dangling.
    std::optional<qs::ImatrixMatch> m_imatrixMatch;
    std::shared_ptr<const qs::Imatrix> m_matchedImatrix;
    std::shared_ptr<const qs::Checkpoint> m_matchedCheckpoint;
    std::optional<qs::RecipeSummary> m_summary;
    QStringList m_gridNotes; // what the grid leaves out
    std::shared_ptr<const qs::RecipeComparison> m_comparison;
};

} // namespace qsw
