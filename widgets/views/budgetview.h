#pragma once
// Budget (issue 5, view 5): effective bits per weight of every format (core's budgetTable),
// the memory a model of a chosen parameter count needs in each, the user's RAM/VRAM as a
// budget line with the formats that fit highlighted, and the open checkpoint's actual bits
// per weight marked.
#include "analysisview.h"

#include "figures/budgetchart.h"

#include <optional>

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QMouseEvent;

namespace qsw {

class BudgetView : public AnalysisView {
    Q_OBJECT
public:
    explicit BudgetView(ViewContext* context, QWidget* parent = nullptr);
    ~BudgetView() override;

    QString viewName() const override { return QStringLiteral("budget"); }
    QString title() const override { return tr("Budget"); }
    void renderExport(QPainter& painter, const QRect& target) override;

    // For tests.
    QCustomPlot* plot() const { return m_plot; }
    const BudgetChart& chart() const { return m_chart; }
    uint64_t params() const { return m_params; }
    double memoryGiB() const;
    void setParams(uint64_t params);
    void setMemoryGiB(double gib);
    // "All", "Common" or a family name, as the filter combo lists them.
    void setFamilyFilter(int index);

    // "7B", "1.5b", "350M", "70e9", "13000000000": a positive count, or nullopt.
    static std::optional<uint64_t> parseParamCount(const QString& text);
    // The machine's physical memory in GiB (0 when unknown).
    static double machineMemoryGiB();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void checkpointChanged();
    void paramsEdited();
    void rebuild();
    void hover(QMouseEvent* event);

    QComboBox* m_paramsBox;
    QComboBox* m_family;
    QDoubleSpinBox* m_memory;
    QLabel* m_summary;
    QLabel* m_paramsError;
    QCustomPlot* m_plot;
    BudgetChart m_chart;
    uint64_t m_params = 7000000000ull;
    uint64_t m_checkpointParams = 0;
    double m_checkpointBpw = 0;
};

} // namespace qsw
