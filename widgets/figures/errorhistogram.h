#pragma once
// The signed-error histogram (bars of core's Histogram counts, nothing re-binned) and the
// per-group RMSE chart. Used by the error view and by reports.
#include "analysis/stats.h"
#include "theme.h"

#include <QString>

class QCustomPlot;
class QCPBars;
class QCPGraph;

namespace qsw {

struct ErrorHistogramOptions {
    bool logScale = false; // counts on a log axis (empty bins are not drawn)
    QString title; // drawn above the plot when not empty
    QString xLabel; // default: "signed error (dequantized − reference)"
};

// Clears `plot` and draws `histogram` as bars: bar i spans [lo + i*w, lo + (i+1)*w) with
// height counts[i]. Returns the bars (their data are the counts, in order).
QCPBars* buildErrorHistogram(QCustomPlot* plot, const qs::Histogram& histogram, const ErrorHistogramOptions& options,
                             const Theme& theme);

// Clears `plot` and draws RMSE (bars) and max |error| (line) per group.
QCPBars* buildGroupErrorChart(QCustomPlot* plot, const std::vector<qs::GroupError>& groups, const QString& title,
                              const Theme& theme);

} // namespace qsw
