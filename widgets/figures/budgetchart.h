#pragma once
// The memory-budget chart: effective bits per weight of each format (left, coloured by storage
// kind) and the memory a model of the chosen size needs in it (right, in KiB to TiB), with the
// user's RAM/VRAM as a budget line, formats that fit in the theme's ok colour and the others
// in its warning colour, and the open checkpoint's actual bits per weight marked. Rows come
// from core's budgetTable unchanged. Used by the budget view and by reports.
#include "analysis/budget.h"
#include "analysis/runbudget.h"
#include "theme.h"

#include <QString>
#include <QVector>

#include <optional>
#include <vector>

class QCustomPlot;
class QCPAxisRect;
class QCPBars;

namespace qsw {

struct BudgetChartOptions {
    std::optional<double> memoryGiB; // the budget line; rows' `fits` decide the colours
    double currentBpw = 0; // > 0: marked on both plots
    QString currentLabel; // "this checkpoint"
    uint64_t params = 0; // for the memory marker of the current checkpoint
    QString paramsText; // "7B": the memory axis label
    QString title;
    QString memoryWhat; // what the memory bars count; empty: the weights only
    double extraGiB = 0; // added to every bar (KV cache, buffers): the marker too
};

struct BudgetChart {
    std::vector<qs::BudgetRow> rows; // bar i (top to bottom) is rows[i]
    QVector<QCPBars*> bitsBars; // one per storage kind present (the format colours); keys are row indices
    QCPBars* fits = nullptr; // memory bars of rows that fit (or all, without a budget)
    QCPBars* over = nullptr; // memory bars of rows that do not fit
    QCPAxisRect* bitsRect = nullptr;
    QCPAxisRect* memoryRect = nullptr;
    // The memory axis's unit: a bar's value is gib * memoryScale (1024^k, exact).
    QString memoryUnit;
    double memoryScale = 1;
    bool budgetOnAxis = false; // false: the budget is far right of every bar, marked off scale
};

// The height `rows` bars need so that no two format names overlap (a label's line height
// per bar, plus the legend, title and axes): the plot's minimum height.
int budgetChartHeight(const QCustomPlot* plot, int rows);

// Clears `plot` and fills it with `rows` in the order given; the legend names the storage
// kinds, the memory colours (fits, does not fit) and the checkpoint's marker.
BudgetChart buildBudgetChart(QCustomPlot* plot, std::vector<qs::BudgetRow> rows, const BudgetChartOptions& options,
                             const Theme& theme);

// Memory per device for running the model (core's runBudget): one stacked bar per device,
// weights, KV cache and recurrent state, buffers (output and the compute estimate), with the
// device's memory marked. Returns the bars in that order.
struct DeviceChart {
    QCPBars* weights = nullptr;
    QCPBars* cache = nullptr;
    QCPBars* buffers = nullptr;
    QString unit;
    double perGiB = 1;
    bool capacitiesOnAxis = true; // false: a memory far beyond the bars is named in the label
};
DeviceChart buildDeviceChart(QCustomPlot* plot, const qs::RunBudget& run, const Theme& theme);

// "23.5 GiB", "584.2 KiB": a memory size in the unit that suits it.
QString memoryText(double gib);

} // namespace qsw
