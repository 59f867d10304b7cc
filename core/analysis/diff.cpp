#include "analysis/diff.h"

#include "analysis/diffscan.h"
#include "analysis/namemap.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "base/progress.h"
#include "formats/detect.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "base/shapetext.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace qs {

namespace {

// Rows per chunk, whole permutation head blocks: about 1 MiB of floats in whole kernel blocks
// (dequantChunkRows), or about `elements` floats when given (tests).
uint64_t diffChunkRows(const WeightPair& p, uint64_t N, uint64_t K, uint64_t elements)
{
    uint64_t align = 1;
    for (const SideTransform* t : {&p.ta, &p.tb})
        if (t->permuteHeads)
            align = std::lcm(align, N / t->permuteHeads);
    uint64_t rows = dequantChunkRows(K, uint64_t(1) << 18, align);
    if (elements)
        rows = ceilDiv(std::max<uint64_t>(1, elements / std::max<uint64_t>(K, 1)), align) * align;
    return std::min(rows, std::max<uint64_t>(N, 1));
}

// Runs body(chunkIndex, r0, r1, bufA, bufB) over the row chunks of a pair on an OpenMP team,
// each thread with its own buffers; exceptions are carried out of the team, cancel is
// polled before each chunk (Cancelled thrown), and progress is reported from the calling thread.
template <typename Body>
void forEachDiffChunk(const Checkpoint& a, const Checkpoint& b, const WeightPair& p, const DiffOptions& opt,
                      uint64_t progressBase, uint64_t progressTotal, Body&& body)
{
    const uint64_t N = p.a->outFeatures(), K = p.a->inFeatures();
    const uint64_t rows = diffChunkRows(p, N, K, opt.chunkElements);
    const uint64_t chunks = ceilDiv(N, rows);
    struct Buffers {
        std::vector<float> a, b, tmp;
    };
    std::atomic<uint64_t> done{0};
    const bool finished = runChunks<Buffers>(
        chunks, opt.threads, opt.progress.cancel,
        [&](uint64_t c, Buffers& buf) {
            const uint64_t r0 = c * rows, r1 = std::min(N, r0 + rows);
            const size_t n = size_t((r1 - r0) * K);
            buf.a.resize(n);
            buf.b.resize(n);
            buf.tmp.resize(n);
            loadMatchedRows(a, *p.a, p.ta, r0, r1, buf.a.data(), buf.tmp.data(), opt.path);
            loadMatchedRows(b, *p.b, p.tb, r0, r1, buf.b.data(), buf.tmp.data(), opt.path);
            body(c, r0, r1, buf.a.data(), buf.b.data());
            done += n;
        },
        [&] { opt.progress(progressBase + done.load(), progressTotal, p.a->name); });
    if (!finished)
        throw Cancelled();
    opt.progress(progressBase + done.load(), progressTotal, p.a->name);
}

WeightDiff diffPair(const Checkpoint& a, const Checkpoint& b, const WeightPair& p, const DiffOptions& opt,
                    uint64_t progressBase, uint64_t progressTotal)
{
    const uint64_t N = p.a->outFeatures(), K = p.a->inFeatures();
    if (N != p.b->outFeatures() || K != p.b->inFeatures())
        throw Error(ErrorContext{a.path, p.a->name},
                    "shapes differ: " + shapeText(p.a->shape) + " vs " + b.path + " weight '" + p.b->name + "' "
                        + shapeText(p.b->shape));
    const uint64_t rows = diffChunkRows(p, N, K, opt.chunkElements);
    std::vector<DiffSums> parts(size_t(ceilDiv(N, rows)));
    forEachDiffChunk(a, b, p, opt, progressBase, progressTotal,
                     [&](uint64_t c, uint64_t r0, uint64_t r1, const float* x, const float* y) {
                         const uint64_t n = (r1 - r0) * K;
                         DiffLanes lanes;
                         scanDiff(x, y, n, r0 * K, lanes, opt.path);
                         parts[c] = mergeLanes(lanes);
                     });
    DiffSums t;
    for (const DiffSums& s : parts) { // chunk order: the same sums for any thread count
        t.sumSq += s.sumSq;
        t.sumAbs += s.sumAbs;
        t.sumSigned += s.sumSigned;
        t.aSq += s.aSq;
        t.bSq += s.bSq;
        t.dot += s.dot;
        t.nonFinite += s.nonFinite;
        t.differing += s.differing;
        t.maxAbsB = std::max(t.maxAbsB, s.maxAbsB);
        if (s.maxAbs > t.maxAbs) {
            t.maxAbs = s.maxAbs;
            t.maxAt = s.maxAt;
        }
    }
    WeightDiff d;
    d.nameA = p.a->name;
    d.nameB = p.b->name;
    d.formatA = p.a->format;
    d.formatB = p.b->format;
    d.shape = {N, K};
    d.note = p.note;
    d.count = N * K;
    const double n = d.count ? double(d.count) : 1.0;
    d.rmse = std::sqrt(t.sumSq / n);
    d.meanAbs = t.sumAbs / n;
    d.meanSigned = t.sumSigned / n;
    d.maxAbs = t.maxAbs;
    d.maxRowA = storedRow(p.ta, K ? t.maxAt / K : 0, N);
    d.maxRowB = storedRow(p.tb, K ? t.maxAt / K : 0, N);
    d.maxCol = K ? t.maxAt % K : 0;
    const double inf = std::numeric_limits<double>::infinity();
    d.sqnrDb = t.sumSq == 0 ? inf : 10.0 * std::log10(t.bSq / t.sumSq);
    d.relativeError = t.bSq > 0 ? std::sqrt(t.sumSq / t.bSq) : (t.sumSq > 0 ? inf : 0.0);
    d.cosine = t.aSq > 0 && t.bSq > 0 ? t.dot / (std::sqrt(t.aSq) * std::sqrt(t.bSq)) : (t.aSq == t.bSq ? 1.0 : 0.0);
    d.nonFinite = t.nonFinite;
    d.differing = t.differing;
    d.maxAbsB = t.maxAbsB;
    d.tolerance = opt.tolerance ? *opt.tolerance : automaticTolerance(*p.a, *p.b, d.maxAbsB);
    d.pass = d.nonFinite == 0 && d.maxAbs <= d.tolerance;
    return d;
}

} // namespace

double automaticTolerance(const LogicalWeight& a, const LogicalWeight& b, double maxAbsB)
{
    const FormatInfo* fa = findFormat(a.format);
    const FormatInfo* fb = findFormat(b.format);
    const bool qa = fa && fa->quantized, qb = fb && fb->quantized;
    if (qa == qb)
        return 0;
    const LogicalWeight& q = qa ? a : b;
    const int bits = q.bits > 0 ? q.bits : (qa ? fa : fb)->bits;
    if (bits <= 0 || bits > 16)
        return 0;
    return 2.0 * maxAbsB / double((uint32_t(1) << bits) - 1);
}

bool DiffResult::passed() const
{
    if (!shapeMismatches.empty())
        return false;
    return std::all_of(weights.begin(), weights.end(), [](const WeightDiff& w) { return w.pass; });
}

WeightDiff diffWeights(const Checkpoint& a, const Checkpoint& b, const WeightPair& pair, const DiffOptions& opt)
{
    return diffPair(a, b, pair, opt, 0, pair.a->elementCount());
}

DiffResult diffCheckpoints(const Checkpoint& a, const Checkpoint& b, const DiffOptions& opt)
{
    WeightMatch m = matchWeights(a, b, opt.weight);
    if (!opt.weight.empty() && m.pairs.empty() && m.onlyInA.empty() && m.onlyInB.empty() && m.shapeMismatches.empty()
        && m.skipped.empty())
        throw Error(a.path + ", " + b.path + ": no weight named '" + opt.weight + "' in either checkpoint");
    if (m.pairs.empty() && m.shapeMismatches.empty() && m.skipped.empty())
        throw Error(a.path + ", " + b.path + ": no weight " + (opt.weight.empty() ? "" : "named '" + opt.weight + "' ")
                    + "is in both checkpoints, nothing to compare. A has " + namingHint(a) + "; B has " + namingHint(b)
                    + ". Names pair when equal (\".weight\" ignored) or, between a GGUF and a Hugging Face checkpoint, "
                      "through llama.cpp's tensor names");
    if (m.pairs.empty() && m.shapeMismatches.empty()) {
        std::string why;
        for (size_t i = 0; i < m.skipped.size() && i < 3; ++i)
            why += (i ? "; " : "") + m.skipped[i].nameA + ": " + m.skipped[i].reason;
        if (m.skipped.size() > 3)
            why += "; and " + std::to_string(m.skipped.size() - 3) + " more";
        throw Error(a.path + ", " + b.path + ": nothing compared: every pair of weights was skipped (" + why + ")");
    }
    DiffResult r;
    r.onlyInA = std::move(m.onlyInA);
    r.onlyInB = std::move(m.onlyInB);
    r.shapeMismatches = std::move(m.shapeMismatches);
    r.skipped = std::move(m.skipped);
    uint64_t total = 0, done = 0;
    for (const WeightPair& p : m.pairs)
        total += p.a->elementCount();
    for (const WeightPair& p : m.pairs)
        for (const auto& [c, w] : {std::pair{&a, p.a}, std::pair{&b, p.b}})
            for (const Message& note : w->notes)
                if (note.startsWith(kZeroConventionNote))
                    r.warnings.push_back(c->path + ": " + w->name + ": " + note.text());
    for (const WeightPair& p : m.pairs) {
        WeightDiff d = diffPair(a, b, p, opt, done, total);
        done += p.a->elementCount();
        r.weights.push_back(std::move(d));
    }
    std::stable_sort(r.weights.begin(), r.weights.end(), [](const WeightDiff& x, const WeightDiff& y) {
        if (x.pass != y.pass)
            return !x.pass;
        if (x.nonFinite != y.nonFinite)
            return x.nonFinite > y.nonFinite;
        return x.relativeError > y.relativeError;
    });
    return r;
}

DiffMap diffMap(const Checkpoint& a, const Checkpoint& b, const WeightPair& p, uint64_t maxRows, uint64_t maxCols,
                const DiffOptions& opt)
{
    const uint64_t N = p.a->outFeatures(), K = p.a->inFeatures();
    if (N != p.b->outFeatures() || K != p.b->inFeatures())
        throw Error(ErrorContext{a.path, p.a->name},
                    "shapes differ: " + shapeText(p.a->shape) + " vs " + b.path + " weight '" + p.b->name + "' "
                        + shapeText(p.b->shape));
    if (maxRows == 0 || maxCols == 0 || maxRows > 16384 || maxCols > 16384)
        throw Error(ErrorContext{a.path, p.a->name}, "the difference map must be 1..16384 cells each way");
    DiffMap m;
    m.rows = N;
    m.cols = K;
    m.rowsPerCell = std::max<uint64_t>(1, ceilDiv(N, maxRows));
    m.colsPerCell = std::max<uint64_t>(1, ceilDiv(K, maxCols));
    m.cellRows = ceilDiv(N, m.rowsPerCell);
    m.cellCols = ceilDiv(K, m.colsPerCell);
    const size_t cells = size_t(m.cellRows * m.cellCols);
    m.cells.assign(cells, 0.0f);
    std::vector<std::vector<float>> perThread(
        size_t(std::max(1, opt.threads > 0 ? opt.threads : omp_get_max_threads())));
    forEachDiffChunk(a, b, p, opt, 0, N * K, [&](uint64_t, uint64_t r0, uint64_t r1, const float* x, const float* y) {
        std::vector<float>& c = perThread[size_t(omp_get_thread_num()) % perThread.size()];
        if (c.empty())
            c.assign(cells, 0.0f);
        for (uint64_t r = r0; r < r1; ++r) {
            float* row = c.data() + (storedRow(p.ta, r, N) / m.rowsPerCell) * m.cellCols;
            const float* xr = x + (r - r0) * K;
            const float* yr = y + (r - r0) * K;
            for (uint64_t k = 0; k < K; ++k) {
                float d = std::fabs(xr[k] - yr[k]);
                if (std::isnan(d))
                    d = xr[k] == yr[k] ? 0.0f : std::numeric_limits<float>::infinity();
                float& cell = row[k / m.colsPerCell];
                cell = std::max(cell, d);
            }
        }
    });
    for (const std::vector<float>& c : perThread)
        for (size_t i = 0; i < c.size(); ++i)
            m.cells[i] = std::max(m.cells[i], c[i]);
    for (float v : m.cells)
        m.maxAbs = std::max(m.maxAbs, v);
    return m;
}

DiffValues diffValuesAt(const Checkpoint& a, const Checkpoint& b, const WeightPair& p, uint64_t row, uint64_t col,
                        SimdPath path)
{
    const uint64_t N = p.a->outFeatures(), K = p.a->inFeatures();
    if (row >= N || col >= K || N != p.b->outFeatures() || K != p.b->inFeatures())
        throw Error(ErrorContext{a.path, p.a->name},
                    "element (" + std::to_string(row) + ", " + std::to_string(col) + ") is outside "
                        + shapeText(p.a->shape) + " or B's shape differs");
    // Rows load in blocks that both sides' permutations keep whole (a permutation moves rows
    // only within a head).
    const uint64_t blockA = p.ta.permuteHeads ? N / p.ta.permuteHeads : 1;
    const uint64_t blockB = p.tb.permuteHeads ? N / p.tb.permuteHeads : 1;
    const uint64_t block = std::lcm(blockA, blockB);
    const uint64_t r0 = row / block * block, r1 = std::min(N, r0 + block);
    uint64_t h = r0; // the Hugging Face row A stores at `row`
    while (h < r1 && storedRow(p.ta, h, N) != row)
        ++h;
    if (h == r1)
        throw Error(ErrorContext{a.path, p.a->name}, "row " + std::to_string(row) + " is not in its head block");
    const size_t n = size_t((r1 - r0) * K);
    std::vector<float> x(n), y(n), tmp(n);
    loadMatchedRows(a, *p.a, p.ta, r0, r1, x.data(), tmp.data(), path);
    loadMatchedRows(b, *p.b, p.tb, r0, r1, y.data(), tmp.data(), path);
    const size_t at = size_t((h - r0) * K + col);
    return {x[at], y[at]};
}

} // namespace qs
