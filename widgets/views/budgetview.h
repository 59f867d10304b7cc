#pragma once
// Budget (issue 5, view 5): effective bits per weight of every format (core's budgetTable),
// the memory a model of a chosen parameter count needs in each, the user's RAM/VRAM as a
// budget line with the formats that fit highlighted, and the open checkpoint's actual bits
// per weight marked. With an architecture (the checkpoint's, or a published one) it adds the
// memory for running the model (issue 17, core's runBudget): context, cache types, sequences,
// GPU layers and GPU memory; stacked bars per device; the largest context that fits; and the
// formats' totals at the chosen context.
#include "analysisview.h"

#include "analysis/runbudget.h"
#include "figures/budgetchart.h"

#include <optional>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QMouseEvent;
class QScrollArea;
class QSlider;
class QSpinBox;

namespace qsw {

class BudgetView : public AnalysisView {
    Q_OBJECT
public:
    explicit BudgetView(ViewContext* context, QWidget* parent = nullptr);
    ~BudgetView() override;

    void renderExport(QPainter& painter, const QRect& target) override;
    QSize exportSize() const override;
    QString exportCaption() const override;

    // For tests.
    QCustomPlot* plot() const { return m_plot; }
    const BudgetChart& chart() const { return m_chart; }
    uint64_t params() const { return m_params; }
    double memoryGiB() const;
    void setParams(uint64_t params);
    void setMemoryGiB(double gib);
    // "All", "Common" or a family name, as the filter combo lists them.
    void setFamilyFilter(int index);
    // Running the model: "" (weights only), "checkpoint" or a preset name of core's archPreset.
    bool setArchitecture(const QString& name);
    void setContext(uint64_t tokens);
    void setCacheTypes(int typeK, int typeV); // ggml type ids
    void setGpuLayers(int layers);
    void setGpuMemoryGiB(double gib); // 0: no GPU
    const std::optional<qs::RunBudget>& run() const { return m_run; }
    std::optional<uint64_t> maxContext() const { return m_maxContext; }
    const DeviceChart& deviceChart() const { return m_deviceChart; }
    QString runSummary() const;

    // "7B", "1.5b", "350M", "70e9", "13000000000": a positive count, or nullopt.
    static std::optional<uint64_t> parseParamCount(const QString& text);
    // The machine's physical memory in GiB (0 when unknown).
    static double machineMemoryGiB();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void checkpointChanged();
    void paramsEdited();
    void buildPlots();
    void connectControls();
    void rebuild();
    void hover(QMouseEvent* event);
    void architectureChanged();
    void contextSliderMoved(int position);
    // The architecture and weights the run is priced with, when one is chosen.
    std::optional<qs::ModelArch> currentArch() const;
    std::vector<double> deviceMemory() const;
    void rebuildRun();
    // The per-device chart's height in an export, 0 when no model runs.
    int deviceExportHeight() const;

    QScrollArea* m_plotScroll;
    QComboBox* m_paramsBox;
    QComboBox* m_family;
    QDoubleSpinBox* m_memory;
    QLabel* m_summary;
    QLabel* m_paramsError;
    QCustomPlot* m_plot;
    BudgetChart m_chart;
    QComboBox* m_arch;
    QComboBox* m_weightsAs;
    QSlider* m_contextSlider;
    QSpinBox* m_context;
    QComboBox* m_cacheK;
    QComboBox* m_cacheV;
    QSpinBox* m_parallel;
    QSpinBox* m_gpuLayers;
    QDoubleSpinBox* m_gpuMemory;
    QCheckBox* m_swaFull;
    QLabel* m_runSummary;
    QCustomPlot* m_devicePlot;
    DeviceChart m_deviceChart;
    std::optional<qs::ModelArch> m_checkpointArch;
    QString m_checkpointArchError;
    bool m_newCheckpoint = false; // the next architectureChanged() starts the context from its default
    qs::WeightSplit m_checkpointWeights;
    std::optional<qs::RunBudget> m_run;
    std::optional<uint64_t> m_maxContext;
    QString m_runError;
    std::vector<qs::Message> m_runNotes; // the shown architecture's notes
    uint64_t m_params = 7000000000ull;
    uint64_t m_checkpointParams = 0;
    double m_checkpointBpw = 0;
};

} // namespace qsw
