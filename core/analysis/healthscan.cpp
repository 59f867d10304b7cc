#include "analysis/healthscan.h"

#include "analysis/groupscales.h"
#include "analysis/spanscan.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "base/progress.h"
#include "base/simd.h"
#include "formats/dequant.h"
#include "formats/formatid.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>

namespace qs {

namespace {

// A finding's count and its first kHealthPlaces places, merged from chunks in any order.
struct Places {
    uint64_t count = 0;
    std::vector<FindingPlace> first; // sorted

    bool wants(const FindingPlace& p) const { return first.size() < kHealthPlaces || p < first.back(); }
    void keep(const FindingPlace& p)
    {
        if (!wants(p))
            return;
        first.insert(std::upper_bound(first.begin(), first.end(), p), p);
        if (first.size() > kHealthPlaces)
            first.pop_back();
    }
    void add(const FindingPlace& p)
    {
        ++count;
        keep(p);
    }
    void merge(const Places& o)
    {
        count += o.count;
        for (const FindingPlace& p : o.first)
            keep(p);
    }
};

// "(5, 17), (9, 2)": the places' two coordinates the message template names.
std::string placesText(const Places& p, int64_t FindingPlace::*a, int64_t FindingPlace::*b)
{
    std::string s;
    for (const FindingPlace& x : p.first) {
        if (!s.empty())
            s += ", ";
        s += "(" + std::to_string(x.*a) + (b ? ", " + std::to_string(x.*b) : std::string()) + ")";
    }
    if (p.count > p.first.size())
        s += ", ...";
    return s;
}

bool allZero(const float* v, const std::vector<uint32_t>& cols, uint64_t begin, uint64_t end)
{
    for (uint64_t i = begin; i < end; ++i)
        if (v[cols[i]] != 0.0f)
            return false;
    return true;
}

struct Found {
    Places nonFinite, zeroRows, zeroGroups, zeroScale;
};

// The stored scales, zeros or absmax, where the family reads them, and what they show: the
// non-finite ones, and for act-order weights (whose groups are no spans of a row) each group's
// columns and the cells with a zero scale.
struct ScaleCheck {
    std::optional<GroupScales> grid;
    // Why the family's reader refused the grid (the findings say it: scales that cannot be read
    // are not scales that passed); empty when it read one.
    std::string refused;
    bool actOrder = false;
    std::vector<uint32_t> groupCols; // act-order: each group's columns (a counting sort of g_idx)
    std::vector<uint64_t> groupStart;
    std::vector<std::pair<uint64_t, uint64_t>> zeroScaleCells; // act-order: (row, group) with a zero scale
    Places badScales, badZeros;

    FindingPlace place(uint64_t n, uint64_t col, uint64_t g) const
    {
        FindingPlace p{int64_t(n), int64_t(col)};
        if (grid && grid->blocks)
            p.block = int64_t(n * grid->groups + g);
        else
            p.group = int64_t(g);
        return p;
    }

    // A grid the family cannot read leaves `grid` empty and says why in `refused`; a cancel
    // goes on to the caller.
    void read(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t N, uint64_t K, const HealthOptions& opt)
    {
        try {
            grid = groupScales(ckpt, w, GgufScaleLevel::Block, opt.progress.cancel);
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            refused = e.what();
        }
        if (grid
            && (grid->rows != N || grid->cols != K || grid->groups == 0 || grid->groupSize == 0
                || grid->scales.size() != grid->groups * N
                || (!grid->zeros.empty() && grid->zeros.size() != grid->scales.size()))) {
            refused = "the grid read is " + std::to_string(grid->rows) + " rows x " + std::to_string(grid->cols)
                + " columns in " + std::to_string(grid->groups) + " groups of " + std::to_string(grid->groupSize)
                + " with " + std::to_string(grid->scales.size()) + " scales and " + std::to_string(grid->zeros.size())
                + " zeros, not the weight's " + std::to_string(N) + " x " + std::to_string(K);
            grid.reset();
        }
        if (!grid)
            return;
        const uint64_t G = grid->groups;
        actOrder = !grid->gIdx.empty();
        if (actOrder) {
            groupStart.assign(G + 1, 0);
            for (const int32_t g : grid->gIdx)
                if (g >= 0 && uint64_t(g) < G)
                    ++groupStart[size_t(g) + 1];
            for (uint64_t g = 0; g < G; ++g)
                groupStart[g + 1] += groupStart[g];
            groupCols.resize(groupStart[G]);
            std::vector<uint64_t> fill(groupStart.begin(), groupStart.end() - 1);
            for (uint64_t k = 0; k < grid->gIdx.size(); ++k)
                if (const int32_t g = grid->gIdx[k]; g >= 0 && uint64_t(g) < G)
                    groupCols[fill[size_t(g)]++] = uint32_t(k);
        }
        for (uint64_t g = 0; g < G; ++g) {
            const uint64_t col =
                actOrder ? (groupStart[g] < groupStart[g + 1] ? groupCols[groupStart[g]] : K) : g * grid->groupSize;
            for (uint64_t n = 0; n < N; ++n) {
                const float sc = grid->scaleAt(g, n);
                if (!std::isfinite(sc))
                    badScales.add(place(n, col, g));
                else if (sc == 0.0f && actOrder)
                    zeroScaleCells.emplace_back(n, g);
                if (!grid->zeros.empty() && !std::isfinite(grid->zeroAt(g, n)))
                    badZeros.add(place(n, col, g));
            }
        }
        std::sort(zeroScaleCells.begin(), zeroScaleCells.end());
    }
};

// The values, chunk by chunk (row chunks of `rows`): spans of the grid's groups, or before it is
// read of the weight's group size. `progress`: report the elements scanned. Throws Cancelled.
void scanHealthValues(const Checkpoint& ckpt, const LogicalWeight& w, const HealthOptions& opt, const ScaleCheck& sc,
                      uint64_t rows, Found& found, bool progress)
{
    const uint64_t N = w.outFeatures(), K = w.inFeatures();
    const uint64_t chunks = ceilDiv(N, rows);
    const SimdPath path = bestSimdPath();
    struct Scratch {
        std::vector<float> values;
        std::vector<uint8_t> zero; // per span of a row: all zero
    };
    const uint64_t span = sc.grid ? (sc.actOrder ? K : sc.grid->groupSize)
                                  : (w.groupSize > 0 && uint64_t(w.groupSize) < K ? uint64_t(w.groupSize) : K);
    const uint64_t spans = ceilDiv(K, span);
    std::mutex merging;
    std::atomic<uint64_t> done{0};
    const bool finished = runChunks<Scratch>(
        chunks, opt.threads, opt.progress.cancel,
        [&](uint64_t c, Scratch& s) {
            const uint64_t r0 = c * rows, r1 = std::min(N, r0 + rows);
            s.values.resize((r1 - r0) * K);
            dequantizeRows(ckpt, w, r0, r1, s.values.data(), path);
            Found local;
            s.zero.resize(spans);
            auto cell =
                std::lower_bound(sc.zeroScaleCells.begin(), sc.zeroScaleCells.end(), std::pair(r0, uint64_t(0)));
            for (uint64_t n = r0; n < r1; ++n) {
                const float* v = s.values.data() + (n - r0) * K;
                if (const uint64_t bad = scanSpans(v, K, span, s.zero.data(), path)) {
                    local.nonFinite.count += bad;
                    for (uint64_t k = 0; k < K && local.nonFinite.wants({int64_t(n), int64_t(k)}); ++k)
                        if (!std::isfinite(v[k]))
                            local.nonFinite.keep({int64_t(n), int64_t(k)});
                }
                if (std::all_of(s.zero.begin(), s.zero.end(), [](uint8_t z) { return z != 0; })) {
                    local.zeroRows.add({int64_t(n)});
                    for (; cell != sc.zeroScaleCells.end() && cell->first == n; ++cell) { }
                    continue;
                }
                for (uint64_t g = 0; spans > 1 && g < spans; ++g)
                    if (s.zero[g])
                        (sc.grid && sc.grid->scaleAt(g, n) == 0.0f ? local.zeroScale : local.zeroGroups)
                            .add(sc.place(n, g * span, g));
                for (; cell != sc.zeroScaleCells.end() && cell->first == n; ++cell) {
                    const uint64_t g = cell->second;
                    if (sc.groupStart[g] < sc.groupStart[g + 1]
                        && allZero(v, sc.groupCols, sc.groupStart[g], sc.groupStart[g + 1]))
                        local.zeroScale.add(sc.place(n, sc.groupCols[sc.groupStart[g]], g));
                }
            }
            done += (r1 - r0) * K;
            const std::lock_guard lock(merging);
            found.nonFinite.merge(local.nonFinite);
            found.zeroRows.merge(local.zeroRows);
            found.zeroGroups.merge(local.zeroGroups);
            found.zeroScale.merge(local.zeroScale);
        },
        [&] {
            if (progress)
                opt.progress(done.load(), N * K, w.name);
        });
    if (!finished)
        throw Cancelled();
    if (progress)
        opt.progress(done.load(), N * K, w.name);
}

// The findings of a scanned weight, appended to `rep`.
void addHealthFindings(const LogicalWeight& w, VerifyReport& rep, const Found& found, const ScaleCheck& sc)
{
    const uint64_t N = w.outFeatures(), K = w.inFeatures();
    const std::optional<GroupScales>& grid = sc.grid;
    const Places &badScales = sc.badScales, &badZeros = sc.badZeros;
    const uint64_t G = grid ? grid->groups : 1;
    const uint64_t span = grid && !sc.actOrder
        ? grid->groupSize
        : (w.groupSize > 0 && uint64_t(w.groupSize) < K ? uint64_t(w.groupSize) : K);

    const auto add = [&](const char* kind, Message msg, const Places& p, bool warning) {
        rep.findings.push_back({w.name, kind, std::move(msg), warning, p.first, p.count});
    };
    const auto count = [](uint64_t n) { return std::to_string(n); };
    const bool blocks = grid && grid->blocks;
    constexpr auto row = &FindingPlace::row, col = &FindingPlace::col, grp = &FindingPlace::group,
                   blk = &FindingPlace::block;
    if (!sc.refused.empty())
        add("scales",
            {QT_TRANSLATE_NOOP("qs::Message", "the scales could not be read, so they were not checked: %1"),
             {sc.refused}},
            {}, false);
    if (found.nonFinite.count)
        add("nonfinite-value",
            {QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 values are NaN or Inf, the first at (row, column) %3"),
             {count(found.nonFinite.count), count(N * K), placesText(found.nonFinite, row, col)}},
            found.nonFinite, false);
    if (badScales.count) {
        const char* text = grid->absmax
            ? QT_TRANSLATE_NOOP("qs::Message",
                                "%1 of %2 block absmax values are NaN or Inf, the first at (row, block) %3")
            : blocks
            ? QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 block scales are NaN or Inf, the first at (row, block) %3")
            : QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 scales are NaN or Inf, the first at (row, group) %3");
        add(grid->absmax ? "nonfinite-absmax" : "nonfinite-scale",
            {text, {count(badScales.count), count(G * N), placesText(badScales, row, blocks ? blk : grp)}}, badScales,
            false);
    }
    if (badZeros.count)
        add("nonfinite-zero",
            {blocks ? QT_TRANSLATE_NOOP("qs::Message",
                                        "%1 of %2 block minimums are NaN or Inf, the first at (row, block) %3")
                    : QT_TRANSLATE_NOOP("qs::Message",
                                        "%1 of %2 zero points or biases are NaN or Inf, the first at (row, group) %3"),
             {count(badZeros.count), count(G * N), placesText(badZeros, row, blocks ? blk : grp)}},
            badZeros, false);
    if (found.zeroRows.count == N) {
        // A quantized matrix of zeros computes nothing (a dropped qweight reads as zeros): no
        // quantizer writes one for a trained layer. Float zeros are real: a LoRA B matrix before
        // training, a zero-initialized gate, a bias, the tensors of test files.
        const FormatInfo* f = findFormat(w.format);
        const bool matrix = w.shape.size() >= 2 && N > 1 && f && f->quantized;
        add("zero-weight",
            {matrix ? QT_TRANSLATE_NOOP(
                 "qs::Message", "all %1 values are zero: the layer computes nothing (a lost or never written tensor)")
                    : QT_TRANSLATE_NOOP("qs::Message", "all %1 values are zero"),
             {count(N * K)}},
            {}, !matrix);
        return;
    }
    if (found.zeroRows.count)
        add("zero-row",
            {QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 rows are all zero, the first %3"),
             {count(found.zeroRows.count), count(N), placesText(found.zeroRows, row, nullptr)}},
            found.zeroRows, true);
    if (found.zeroScale.count) {
        const char* text = grid->absmax
            ? QT_TRANSLATE_NOOP(
                "qs::Message",
                "%1 block(s) with a zero absmax, which zeros all their values, the first at (row, block) %2")
            : blocks ? QT_TRANSLATE_NOOP(
                  "qs::Message",
                  "%1 block(s) with a zero scale, which zeros all their values, the first at (row, block) %2")
                     : QT_TRANSLATE_NOOP(
                         "qs::Message",
                         "%1 group(s) with a zero scale, which zeros all their values, the first at (row, group) %2");
        add("zero-scale", {text, {count(found.zeroScale.count), placesText(found.zeroScale, row, blocks ? blk : grp)}},
            found.zeroScale, true);
    }
    if (found.zeroGroups.count)
        add(blocks ? "zero-block" : "zero-group",
            {blocks
                 ? QT_TRANSLATE_NOOP(
                     "qs::Message",
                     "%1 all-zero block(s) of %2 values in rows that are not all zero, the first at (row, block) %3")
                 : QT_TRANSLATE_NOOP(
                     "qs::Message",
                     "%1 all-zero group(s) of %2 columns in rows that are not all zero, the first at (row, group) %3"),
             {count(found.zeroGroups.count), count(span), placesText(found.zeroGroups, row, blocks ? blk : grp)}},
            found.zeroGroups, true);
}

} // namespace

void scanWeightHealth(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep, const HealthOptions& opt)
{
    const uint64_t N = w.outFeatures(), K = w.inFeatures();
    if (N == 0 || K == 0)
        return;

    // A non-finite scale makes non-finite values (NaN * x, Inf * 0) and a zero scale zero
    // values, so the grid is read only when the values show either; act-order weights, whose
    // groups are no spans of a row, read it first.
    ScaleCheck sc;
    const bool hasGrid = hasGroupScales(ckpt, w);
    if (hasGrid && w.actOrder)
        sc.read(ckpt, w, N, K, opt);
    const uint64_t rows = opt.rowChunk ? opt.rowChunk : dequantChunkRows(K, uint64_t(1) << 18);
    Found found;
    scanHealthValues(ckpt, w, opt, sc, rows, found, true);
    if (hasGrid && !sc.grid && sc.refused.empty() && (found.nonFinite.count || found.zeroGroups.count)) {
        sc.read(ckpt, w, N, K, opt);
        // The zero spans again, now as the grid's groups with their scales.
        if (sc.grid && found.zeroGroups.count) {
            found = {};
            scanHealthValues(ckpt, w, opt, sc, rows, found, false);
        }
    }
    addHealthFindings(w, rep, found, sc);
}

} // namespace qs
