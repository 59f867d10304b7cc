#pragma once
// Recipe (issue 18): which weight got which type. A grid of layers (rows) by tensor roles
// (columns: attention, feed-forward, experts, then the rest; the tensors outside the blocks in
// a last row), each cell coloured by its stored type (the Theme's format colour, lighter for
// fewer bits) with its bits per weight; hover tells the tensor, its type and why it differs
// from the nominal type; a click selects the weight in every view. Below, the bits per weight
// of each layer. "Compare with..." (or `quantscope A --diff B`) opens a second checkpoint:
// the cells whose type differs are outlined and the chart shows both. Every figure comes
// from core/analysis/recipe.h.
#include "analysisview.h"

#include "analysis/recipe.h"
#include "theme.h"

#include <QColor>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCustomPlot;
class QLabel;
class QPushButton;

namespace qsw {

// The grid's geometry and contents, computed from core's summaries (no painting).
struct RecipeGridModel {
    struct Cell {
        int tensor = -1;       // index into summary.tensors (and the checkpoint's weights)
        bool differs = false;  // B stores another type, or lacks the tensor
        QString labelB;        // B's type when it differs ("" when B lacks it)
    };
    std::vector<QString> roles;  // columns
    std::vector<int> layers;     // rows: block indices, then -1 for the tensors outside the blocks
    std::vector<std::vector<Cell>> cells; // [row][column]
    std::map<std::string, QColor> colours; // type label -> colour
    std::vector<std::string> legend;       // type labels, fewest bits first

    static RecipeGridModel build(const qs::Checkpoint& ckpt, const qs::RecipeSummary& a,
                                 const qs::RecipeComparison* comparison, const Theme& theme);
};

class RecipeGrid;

class RecipeView : public AnalysisView {
    Q_OBJECT
public:
    explicit RecipeView(ViewContext* context, QWidget* parent = nullptr);
    ~RecipeView() override;

    QString viewName() const override { return QStringLiteral("recipe"); }
    QString title() const override { return tr("Recipe"); }
    void renderExport(QPainter& painter, const QRect& target) override;

    // Opens `path` as the second checkpoint in the background and compares the recipes.
    Q_INVOKABLE void openComparison(const QString& path);
    void clearComparison();

    // For tests.
    const qs::RecipeSummary* summary() const { return m_summary ? &*m_summary : nullptr; }
    const qs::RecipeComparison* comparison() const { return m_comparison.get(); }
    const RecipeGridModel& grid() const;
    QWidget* gridWidget() const;
    // Where cell (row, column) of the grid lies in gridWidget()'s coordinates.
    QRect gridCellRect(int row, int column) const;
    QCustomPlot* plot() const { return m_plot; }
    QString summaryText() const;

    static const QString kCompareJob;

private:
    void rebuild();
    void redrawChart();
    void openDialog();

    QLabel* m_summaryLabel;
    QPushButton* m_open;
    QPushButton* m_clear;
    RecipeGrid* m_grid;
    QCustomPlot* m_plot;
    std::optional<qs::RecipeSummary> m_summary;
    std::shared_ptr<const qs::RecipeComparison> m_comparison;
};

} // namespace qsw
