#pragma once
// The group-scale heatmap: a QCPColorMap of a weight's scales (or zeros) with the group on
// the x axis and the output row on the y axis (row 0 at the top, as the matrix is written),
// and a colour scale with units. Huge grids are decimated by core's decimateGrid (each cell
// the max |value|, the min or the max of the groups x rows it covers), so the colour range
// is the true range of what is drawn. A grid that fits is drawn value for value (signed). Used by the scales view and
// by reports.
#include "analysis/groupscales.h"
#include "theme.h"

#include <QString>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;

namespace qsw {

enum class ScaleField { Scales, Zeros };

struct ScaleHeatmapOptions {
    ScaleField field = ScaleField::Scales;
    qs::CellReduce reduce = qs::CellReduce::MaxAbs; // only when the grid needs decimating

    uint64_t maxGroupCells = 512; // x
    uint64_t maxRowCells = 1024; // y
    QString title; // drawn above the map when not empty
};

struct ScaleHeatmap {
    QCPColorMap* map = nullptr;
    QCPColorScale* colorScale = nullptr;
    qs::DecimatedGrid grid; // what the map shows: [group cells, row cells]
};

// Clears `plot` and fills it. Throws nothing; a field the weight does not have (zeros of a
// symmetric bnb weight) gives an empty map.
ScaleHeatmap buildScaleHeatmap(QCustomPlot* plot, const qs::GroupScales& scales, const ScaleHeatmapOptions& options,
                               const Theme& theme);

// What buildGridHeatmap writes around a grid: the source extent (groups along x, output rows
// along y, before decimation) and the axis and colour-scale labels.
struct GridHeatmapLabels {
    uint64_t groups = 0, rows = 0;
    QString xLabel; // default "group"
    QString colourLabel; // what the colours mean
    QString title;
};

// Clears `plot` and draws an already reduced grid [group cells, row cells] (cell i covers
// source groups [i*rowStep, (i+1)*rowStep)); the core of buildScaleHeatmap, and what reports
// use for their pooled grids.
ScaleHeatmap buildGridHeatmap(QCustomPlot* plot, qs::DecimatedGrid grid, const GridHeatmapLabels& labels,
                              const Theme& theme);

// "scale (weight units)", "zero point (code units)" ...: the colour scale's label; with
// `decimated`, what each cell reduces to ("max |scale (weight units)| per cell").
QString scaleFieldLabel(const qs::GroupScales& scales, ScaleField field, qs::CellReduce reduce, bool decimated);

} // namespace qsw
