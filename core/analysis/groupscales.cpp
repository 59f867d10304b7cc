#include "analysis/groupscales.h"

#include "base/intmath.h"
#include "formats/family.h"
#include "formats/scalegrid_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qs {

namespace {

// The family row of the weight's format and the row's reader for it; `read` is nullptr when
// the format stores no per-group parameters.
struct ScalesReader {
    const FamilyRow* row = nullptr;
    GroupScalesFn read = nullptr;
};

ScalesReader scalesReaderOf(const LogicalWeight& w)
{
    ScalesReader r;
    const FormatInfo* f = findFormat(w.format);
    r.row = f ? familyRow(f->family) : nullptr;
    if (r.row && r.row->groupScales)
        r.read = r.row->groupScales(*f);
    return r;
}

} // namespace

bool hasGroupScales(const Checkpoint& ckpt, const LogicalWeight& weight)
{
    const ScalesReader r = scalesReaderOf(weight);
    return r.read && (!r.row->groupScalesApply || r.row->groupScalesApply(ckpt, weight));
}

bool hasGgufSubBlockScales(const Checkpoint& ckpt, const LogicalWeight& weight)
{
    const FamilyRow* row = familyRowOf(weight.format);
    return row && row->subBlockScales && row->subBlockScales(ckpt, weight);
}

GroupScales groupScales(const Checkpoint& ckpt, const LogicalWeight& weight, GgufScaleLevel level,
                        const std::atomic<bool>* cancel)
{
    const ScalesReader r = scalesReaderOf(weight);
    if (!r.read)
        failScales(ckpt, weight, "format '" + weight.format + "' has no per-group scales");
    GroupScales s = r.read(ckpt, weight, level, cancel);
    s.weight = weight.name;
    s.format = weight.format;
    return s;
}

DecimatedGrid decimateGrid(const std::vector<float>& grid, uint64_t rows, uint64_t cols, uint64_t maxRows,
                           uint64_t maxCols, CellReduce reduce)
{
    DecimatedGrid d;
    if (rows == 0 || cols == 0 || maxRows == 0 || maxCols == 0 || grid.size() / cols < rows)
        return d;
    d.rowStep = ceilDiv(rows, maxRows);
    d.colStep = ceilDiv(cols, maxCols);
    d.rows = ceilDiv(rows, d.rowStep);
    d.cols = ceilDiv(cols, d.colStep);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    d.cells.assign(d.rows * d.cols, nan);
    for (uint64_t r = 0; r < rows; ++r) {
        const float* src = grid.data() + r * cols;
        float* out = d.cells.data() + (r / d.rowStep) * d.cols;
        for (uint64_t c = 0; c < cols; ++c) {
            float v = src[c];
            if (!std::isfinite(v)) {
                if (d.nonFinite++ == 0) {
                    d.firstNonFiniteRow = r;
                    d.firstNonFiniteCol = c;
                }
                if (d.coversNonFinite.empty())
                    d.coversNonFinite.assign(d.cells.size(), false);
                d.coversNonFinite[(r / d.rowStep) * d.cols + c / d.colStep] = true;
                continue;
            }
            if (reduce == CellReduce::MaxAbs)
                v = std::fabs(v);
            float& cell = out[c / d.colStep];
            if (std::isnan(cell) || (reduce == CellReduce::Min ? v < cell : v > cell))
                cell = v;
        }
    }
    bool any = false;
    for (float v : d.cells) {
        if (std::isnan(v))
            continue;
        d.lo = any ? std::min(d.lo, v) : v;
        d.hi = any ? std::max(d.hi, v) : v;
        any = true;
    }
    return d;
}

} // namespace qs
