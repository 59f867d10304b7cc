#include "analysis/healthscan.h"

#include "analysis/groupscales.h"
#include "base/error.h"
#include "base/parallel.h"
#include "base/simd.h"
#include "formats/dequant.h"
#include "formats/formatid.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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

// Non-finite elements and whether any is nonzero (-0 counts as zero), by bits: a loop the
// compiler vectorizes, a fraction of the dequantization feeding it.
struct SpanScan {
    uint32_t nonFinite = 0;
    bool nonZero = false;
};
SpanScan scanSpan(const float* v, uint64_t n)
{
    uint32_t bad = 0, any = 0;
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t b;
        std::memcpy(&b, v + i, 4);
        bad += (b & 0x7F800000u) == 0x7F800000u;
        any |= b & 0x7FFFFFFFu;
    }
    return {bad, any != 0};
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

} // namespace

bool scanWeightHealth(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep, const HealthOptions& opt)
{
    const uint64_t N = w.outFeatures(), K = w.inFeatures();
    if (N == 0 || K == 0)
        return true;

    // The stored scales, zeros or absmax, where the family reads them (a grid it cannot read
    // leaves the value scan, which a bad scale reaches too).
    std::optional<GroupScales> grid;
    if (hasGroupScales(ckpt, w)) {
        try {
            grid = groupScales(ckpt, w, GgufScaleLevel::Block, opt.cancel);
        } catch (const Error&) {
        }
        if (opt.cancel && opt.cancel->load())
            return false;
        if (grid && (grid->rows != N || grid->cols != K || grid->groups == 0 || grid->groupSize == 0 ||
                     grid->scales.size() != grid->groups * N))
            grid.reset();
    }
    const bool actOrder = grid && !grid->gIdx.empty();
    const uint64_t G = grid ? grid->groups : 1;
    const uint64_t span = grid && !actOrder ? grid->groupSize : K;
    const auto place = [&](uint64_t n, uint64_t col, uint64_t g) {
        FindingPlace p{int64_t(n), int64_t(col)};
        if (grid && grid->blocks)
            p.block = int64_t(n * G + g);
        else if (grid)
            p.group = int64_t(g);
        return p;
    };

    // Act-order: each group's columns (a counting sort of g_idx), and the zero-scale cells by row.
    std::vector<uint32_t> groupCols;
    std::vector<uint64_t> groupStart;
    std::vector<std::pair<uint64_t, uint64_t>> zeroScaleCells; // (row, group)
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

    // The grid: non-finite scales, zeros or absmax.
    Places badScales, badZeros;
    if (grid) {
        for (uint64_t g = 0; g < G; ++g) {
            const uint64_t col = actOrder ? (groupStart[g] < groupStart[g + 1] ? groupCols[groupStart[g]] : K) : g * span;
            for (uint64_t n = 0; n < N; ++n) {
                const float s = grid->scaleAt(g, n);
                if (!std::isfinite(s))
                    badScales.add(place(n, col, g));
                else if (s == 0.0f && actOrder)
                    zeroScaleCells.emplace_back(n, g);
                if (!grid->zeros.empty() && !std::isfinite(grid->zeroAt(g, n)))
                    badZeros.add(place(n, col, g));
            }
        }
        std::sort(zeroScaleCells.begin(), zeroScaleCells.end());
    }

    // The values, chunk by chunk.
    const uint64_t rows = opt.rowChunk ? opt.rowChunk : dequantChunkRows(K, uint64_t(1) << 18);
    const uint64_t chunks = (N + rows - 1) / rows;
    const SimdPath path = bestSimdPath();
    Found found;
    std::mutex merging;
    std::atomic<uint64_t> done{0};
    uint64_t reported = 0;
    struct Scratch {
        std::vector<float> values;
    };
    const bool finished = runChunks<Scratch>(
        chunks, opt.threads, opt.cancel,
        [&](uint64_t c, Scratch& s) {
            const uint64_t r0 = c * rows, r1 = std::min(N, r0 + rows);
            s.values.resize((r1 - r0) * K);
            dequantizeRows(ckpt, w, r0, r1, s.values.data(), path);
            Found local;
            std::vector<uint64_t> zeroSpans;
            auto cell = std::lower_bound(zeroScaleCells.begin(), zeroScaleCells.end(), std::pair(r0, uint64_t(0)));
            for (uint64_t n = r0; n < r1; ++n) {
                const float* v = s.values.data() + (n - r0) * K;
                bool rowNonZero = false;
                zeroSpans.clear();
                for (uint64_t a = 0, g = 0; a < K; a += span, ++g) {
                    const uint64_t len = std::min(span, K - a);
                    const SpanScan r = scanSpan(v + a, len);
                    rowNonZero |= r.nonZero;
                    if (!r.nonZero && span < K)
                        zeroSpans.push_back(g);
                    if (r.nonFinite) {
                        local.nonFinite.count += r.nonFinite;
                        for (uint64_t k = a; k < a + len && local.nonFinite.wants({int64_t(n), int64_t(k)}); ++k)
                            if (!std::isfinite(v[k]))
                                local.nonFinite.keep({int64_t(n), int64_t(k)});
                    }
                }
                if (!rowNonZero) {
                    local.zeroRows.add({int64_t(n)});
                    for (; cell != zeroScaleCells.end() && cell->first == n; ++cell) {
                    }
                    continue;
                }
                for (const uint64_t g : zeroSpans)
                    (grid->scaleAt(g, n) == 0.0f ? local.zeroScale : local.zeroGroups).add(place(n, g * span, g));
                for (; cell != zeroScaleCells.end() && cell->first == n; ++cell) {
                    const uint64_t g = cell->second;
                    if (groupStart[g] < groupStart[g + 1] && allZero(v, groupCols, groupStart[g], groupStart[g + 1]))
                        local.zeroScale.add(place(n, groupCols[groupStart[g]], g));
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
            if (opt.progress) {
                const uint64_t now = done.load();
                opt.progress(now - reported);
                reported = now;
            }
        });
    if (!finished)
        return false;
    if (opt.progress && done.load() > reported)
        opt.progress(done.load() - reported);

    const auto add = [&](const char* kind, Message msg, const Places& p, bool warning) {
        rep.findings.push_back({w.name, kind, std::move(msg), warning, p.first, p.count});
    };
    const auto count = [](uint64_t n) { return std::to_string(n); };
    const bool blocks = grid && grid->blocks;
    constexpr auto row = &FindingPlace::row, col = &FindingPlace::col, grp = &FindingPlace::group, blk = &FindingPlace::block;
    if (found.nonFinite.count)
        add("nonfinite-value",
            {QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 values are NaN or Inf, the first at (row, column) %3"),
             {count(found.nonFinite.count), count(N * K), placesText(found.nonFinite, row, col)}},
            found.nonFinite, false);
    if (badScales.count) {
        const char* text = grid->absmax ? QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 block absmax values are NaN or Inf, the first at (row, block) %3")
                           : blocks     ? QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 block scales are NaN or Inf, the first at (row, block) %3")
                                        : QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 scales are NaN or Inf, the first at (row, group) %3");
        add(grid->absmax ? "nonfinite-absmax" : "nonfinite-scale",
            {text, {count(badScales.count), count(G * N), placesText(badScales, row, blocks ? blk : grp)}}, badScales, false);
    }
    if (badZeros.count)
        add("nonfinite-zero",
            {blocks ? QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 block minimums are NaN or Inf, the first at (row, block) %3")
                    : QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 zero points or biases are NaN or Inf, the first at (row, group) %3"),
             {count(badZeros.count), count(G * N), placesText(badZeros, row, blocks ? blk : grp)}},
            badZeros, false);
    if (found.zeroRows.count == N) {
        // A quantized matrix of zeros computes nothing (a dropped qweight reads as zeros): no
        // quantizer writes one for a trained layer. Float zeros are real: a LoRA B matrix before
        // training, a zero-initialized gate, a bias, the tensors of test files.
        const FormatInfo* f = findFormat(w.format);
        const bool matrix = w.shape.size() >= 2 && N > 1 && f && f->quantized;
        add("zero-weight",
            {matrix ? QT_TRANSLATE_NOOP("qs::Message", "all %1 values are zero: the layer computes nothing (a lost or never written tensor)")
                    : QT_TRANSLATE_NOOP("qs::Message", "all %1 values are zero"),
             {count(N * K)}},
            {}, !matrix);
        return true;
    }
    if (found.zeroRows.count)
        add("zero-row",
            {QT_TRANSLATE_NOOP("qs::Message", "%1 of %2 rows are all zero, the first %3"),
             {count(found.zeroRows.count), count(N), placesText(found.zeroRows, row, nullptr)}},
            found.zeroRows, true);
    if (found.zeroScale.count) {
        const char* text = grid->absmax ? QT_TRANSLATE_NOOP("qs::Message", "%1 block(s) with a zero absmax, which zeros all their values, the first at (row, block) %2")
                           : blocks     ? QT_TRANSLATE_NOOP("qs::Message", "%1 block(s) with a zero scale, which zeros all their values, the first at (row, block) %2")
                                        : QT_TRANSLATE_NOOP("qs::Message", "%1 group(s) with a zero scale, which zeros all their values, the first at (row, group) %2");
        add("zero-scale", {text, {count(found.zeroScale.count), placesText(found.zeroScale, row, blocks ? blk : grp)}}, found.zeroScale, true);
    }
    if (found.zeroGroups.count)
        add(blocks ? "zero-block" : "zero-group",
            {blocks ? QT_TRANSLATE_NOOP("qs::Message", "%1 all-zero block(s) of %2 values in rows that are not all zero, the first at (row, block) %3")
                    : QT_TRANSLATE_NOOP("qs::Message", "%1 all-zero group(s) of %2 columns in rows that are not all zero, the first at (row, group) %3"),
             {count(found.zeroGroups.count), count(span), placesText(found.zeroGroups, row, blocks ? blk : grp)}},
            found.zeroGroups, true);
    return true;
}

} // namespace qs
