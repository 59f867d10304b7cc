#include "analysis/stats.h"

#include "analysis/groupscales.h"
#include "analysis/valuescan.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "base/progress.h"
#include "base/shapetext.h"
#include "formats/dequant.h"
#include "formats/family.h"
#include "formats/formatid.h"

#include <Eigen/Dense>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

namespace qs {

uint64_t Histogram::total() const
{
    uint64_t t = 0;
    for (uint64_t c : counts)
        t += c;
    return t;
}

namespace {

// The bin of v in h (finite v); h.counts.size() when the range is degenerate.
size_t binOf(const Histogram& h, double v)
{
    const size_t n = h.counts.size();
    if (!(h.hi > h.lo))
        return n / 2; // degenerate range: every value is the same
    const double pos = (v - h.lo) / (h.hi - h.lo) * double(n);
    return pos <= 0 ? 0 : std::min(n - 1, size_t(pos));
}

void addToHistogram(Histogram& h, double v, uint64_t count = 1)
{
    if (!std::isfinite(v) || h.counts.empty())
        return; // NaN/Inf values are counted by verify, not binned
    h.counts[binOf(h, v)] += count;
}

RangeBins rangeBins(const StatsOptions& opt)
{
    if (opt.rangeHi > opt.rangeLo && std::isfinite(opt.rangeLo) && std::isfinite(opt.rangeHi))
        return RangeBins::over(opt.rangeLo, opt.rangeHi, size_t(opt.bins));
    return {};
}

// counts = bins + below + above, as RangeBins::add fills them.
// `bins` bins over [min, max] of the finite values that each(visit) passes as visit(value,
// count); every value is then binned as addToHistogram does ([0, 0] when none is finite).
template <typename Each>
Histogram finiteSpanHistogram(int bins, const Each& each)
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    each([&](float v, uint64_t) {
        if (std::isfinite(v)) {
            lo = std::min(lo, double(v));
            hi = std::max(hi, double(v));
        }
    });
    Histogram h;
    h.lo = lo <= hi ? lo : 0;
    h.hi = lo <= hi ? hi : 0;
    h.counts.assign(size_t(bins), 0);
    each([&](float v, uint64_t count) { addToHistogram(h, v, count); });
    return h;
}

Histogram fromRange(const RangeBins& r, const std::vector<uint64_t>& counts)
{
    Histogram h;
    h.lo = r.lo;
    h.hi = r.hi;
    h.counts.assign(counts.begin(), counts.begin() + std::ptrdiff_t(r.n));
    h.below = counts[r.n];
    h.above = counts[r.n + 1];
    return h;
}

void checkBins(const StatsOptions& opt)
{
    if (opt.bins <= 0 || opt.bins > 100000)
        throw Error("bins must be 1..100000");
}

// Default chunks of about 1 MiB of floats, whole kernel blocks (dequantChunkRows) and `align`;
// opt.rowChunk (tests) exactly, rounded up to `align` only.
uint64_t statsChunkRows(const StatsOptions& opt, uint64_t K, uint64_t align = 1)
{
    if (!opt.rowChunk)
        return dequantChunkRows(K, uint64_t(1) << 18, align);
    return ceilDiv(opt.rowChunk, align) * align;
}

float bitsFloat(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Exact nearest-rank percentiles (the smallest value with at least p of the values <= it)
// of the finite |e| of the kept errors, without sorting them: the coarse histogram (12-bit
// keys of |e|, counted in the streaming pass while each chunk is in cache) names the key
// holding each rank; one pass over the kept errors gathers the values of those few keys
// (and bins the default-range signed histogram, which needs the final maxAbs), and a
// selection (nth_element) over each gathered set gives the value. Inf and NaN take no rank.
struct RankTarget {
    uint32_t key = 0;
    std::vector<size_t> which; // indices into the percentile list
    std::vector<uint64_t> rankInKey;
    std::vector<float> values; // the |e| of the kept errors under this key
};

std::vector<RankTarget> rankTargets(const std::vector<uint64_t>& coarse, const std::vector<double>& ps, uint64_t finite)
{
    std::vector<RankTarget> targets;
    if (finite == 0)
        return targets;
    for (size_t i = 0; i < ps.size(); ++i) {
        uint64_t rank = uint64_t(std::ceil(ps[i] * double(finite)));
        rank = std::clamp<uint64_t>(rank, 1, finite) - 1;
        uint32_t k = 0;
        while (rank >= coarse[k]) // ends below kCoarseNonFinite: rank < the finite count
            rank -= coarse[k++];
        auto t = std::find_if(targets.begin(), targets.end(), [&](const RankTarget& x) { return x.key == k; });
        if (t == targets.end()) {
            targets.push_back({k, {}, {}, {}});
            t = targets.end() - 1;
        }
        t->which.push_back(i);
        t->rankInKey.push_back(rank);
    }
    return targets;
}

struct Scratch {
    std::vector<float> a, b, c, tmp;
};

// Runs body(chunk, r0, r1, scratch) over row chunks of `rows` on an OpenMP team: exceptions
// carried out, cancel polled before each chunk (Cancelled thrown), progress reported from the
// calling thread.
template <typename Body>
void forEachStatsChunk(uint64_t N, uint64_t K, uint64_t rows, const StatsOptions& opt, const std::string& name,
                       Body&& body)
{
    const uint64_t chunks = N ? (N + rows - 1) / rows : 0;
    std::atomic<uint64_t> done{0};
    const bool finished = runChunks<Scratch>(
        chunks, opt.threads, opt.progress.cancel,
        [&](uint64_t c, Scratch& s) {
            const uint64_t r0 = c * rows, r1 = std::min(N, r0 + rows);
            body(c, r0, r1, s);
            done += (r1 - r0) * K;
        },
        [&] { opt.progress(done.load(), N * K, name); });
    if (!finished)
        throw Cancelled();
    opt.progress(done.load(), N * K, name);
}

std::vector<float> activationsFor(const StatsOptions& opt, uint64_t K, uint64_t& T)
{
    if (opt.activations) {
        if (K == 0 || opt.activations->size() % K != 0 || opt.activations->empty())
            throw Error("activations hold " + std::to_string(opt.activations->size())
                        + " values, not a multiple of K = " + std::to_string(K));
        T = opt.activations->size() / K;
        return *opt.activations;
    }
    T = opt.tokens;
    return defaultActivations(T, K, opt.seed, opt.outlierChannels);
}

struct ErrorPartial {
    double sumSq = 0, sumAbs = 0, sumSigned = 0, refSq = 0, maxAbs = 0;
    uint64_t nonFinite = 0, firstNonFinite = 0; // elements left out; the flat index of the first
    double yDiffSq = 0, yRefSq = 0, yQSq = 0, yDot = 0;
    double wSq = 0, wRefSq = 0; // importance-weighted error^2 and reference^2
    std::vector<double> gSq, gMax;
    std::vector<uint64_t> gLeft; // elements of each group left out (non-finite)
};

bool finitePair(float q, float r)
{
    return std::isfinite(q) && std::isfinite(r);
}

// scanError's sums over the elements where both values are finite, for a span where one is not
// (one NaN would make every figure NaN); counts the others into `p`, `at` being the span's
// flat index.
ErrorSums finiteErrorSums(const float* q, const float* r, uint64_t n, uint64_t at, ErrorPartial& p)
{
    ErrorSums e;
    for (uint64_t i = 0; i < n; ++i) {
        if (!finitePair(q[i], r[i])) {
            if (p.nonFinite++ == 0)
                p.firstNonFinite = at + i;
            continue;
        }
        const double d = double(q[i]) - double(r[i]);
        e.sumSq += d * d;
        e.sumAbs += std::fabs(d);
        e.sumSigned += d;
        e.refSq += double(r[i]) * double(r[i]);
        e.maxAbs = std::max(e.maxAbs, std::fabs(d));
    }
    return e;
}

// Loads rows [r0, r1) of the candidate into q and of the reference into r (each
// (r1 - r0) * K floats, sized by the caller).
using RowLoader = std::function<void(uint64_t r0, uint64_t r1, float* q, float* r, Scratch& s)>;

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// What compareStreams' passes share, set up before the first chunk: the shape, the activations,
// the kept errors, the importance and the groups.
struct ErrorStream {
    uint64_t N = 0, K = 0, total = 0;
    uint64_t T = 0; // activation tokens
    MatD X; // the activations [T, K]
    // The signed errors float(e) at multiples of stride; every slot is written unless cancelled.
    uint64_t stride = 1, keptCount = 0;
    float* kept = nullptr;
    const std::vector<float>* imp = nullptr;
    uint64_t rowsPerMatrix = 0;
    uint64_t gs = 0; // the group size; 0: no groups
    bool byIndex = false; // act-order: columnGroup names each column's group
    const std::vector<int32_t>* columnGroup = nullptr;
    uint64_t nGroups = 0;
    std::vector<uint64_t> groupColumns; // act-order: columns per group
    RangeBins range;
    int team = 1;
};

// The checks and the set-up of compareStreams (its arguments), in the order it throws.
ErrorStream planErrorStream(uint64_t N, uint64_t K, uint64_t groupSize, const StatsOptions& opt,
                            const std::vector<int32_t>& columnGroup)
{
    checkBins(opt);
    ErrorStream es;
    es.N = N;
    es.K = K;
    const std::vector<float> x = activationsFor(opt, K, es.T);
    es.X = Eigen::Map<const MatF>(x.data(), Eigen::Index(es.T), Eigen::Index(K)).cast<double>();

    es.total = N * K;
    es.stride = es.total > kExactPercentileLimit ? (es.total + kExactPercentileLimit - 1) / kExactPercentileLimit : 1;
    // Kept by the calling thread from one weight to the next: a fresh 64 MiB every weight
    // spends more on page faults than the scan spends on the errors.
    es.keptCount = (es.total + es.stride - 1) / es.stride;
    static thread_local std::vector<float> keptStore;
    if (keptStore.size() < es.keptCount)
        keptStore.resize(size_t(es.keptCount));
    es.kept = keptStore.data();
    es.imp = opt.importance;
    const std::vector<float>* imp = es.imp;
    const uint64_t matrices = imp && K ? imp->size() / K : 0;
    if (imp && (K == 0 || imp->empty() || imp->size() % K != 0 || N % matrices != 0))
        throw Error("the importance holds " + std::to_string(imp->size()) + " values, not K = " + std::to_string(K)
                    + " per matrix of the " + std::to_string(N) + " rows");
    es.rowsPerMatrix = matrices ? N / matrices : 0;
    es.gs = groupSize > 0 && groupSize < K ? groupSize : 0;
    es.byIndex = es.gs && columnGroup.size() == K;
    es.columnGroup = &columnGroup;
    es.nGroups = es.gs ? (K + es.gs - 1) / es.gs : 0;
    if (es.byIndex) {
        for (const int32_t g : columnGroup)
            if (g < 0)
                throw Error("g_idx holds the negative group " + std::to_string(g));
            else
                es.nGroups = std::max(es.nGroups, uint64_t(g) + 1);
        es.groupColumns.assign(size_t(es.nGroups), 0);
        for (const int32_t g : columnGroup)
            ++es.groupColumns[size_t(g)];
    }
    es.range = rangeBins(opt);
    es.team = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    return es;
}

// The error sums of rows [r0, r1) (q and r from row r0) into `p`: each span (a group's columns of
// a row, or the row) summed by the lane scan, the spans added in order; the errors to `err`.
void spanErrorSums(const ErrorStream& es, SimdPath path, const float* q, const float* r, uint64_t r0, uint64_t r1,
                   float* err, ErrorPartial& p)
{
    const uint64_t K = es.K, gs = es.gs, first = r0 * K;
    double sumSq = 0, sumAbs = 0, sumSigned = 0, refSq = 0, maxAbs = 0;
    const uint64_t span = gs ? gs : K;
    for (uint64_t row = 0; row < r1 - r0; ++row)
        for (uint64_t k0 = 0; k0 < K; k0 += span) {
            const uint64_t at = row * K + k0, len = std::min(K, k0 + span) - k0;
            ErrorSums e = scanError(q + at, r + at, len, err + at, path);
            if (!std::isfinite(e.sumAbs) || !std::isfinite(e.refSq)) {
                const uint64_t before = p.nonFinite;
                e = finiteErrorSums(q + at, r + at, len, first + at, p);
                if (gs && !es.byIndex)
                    p.gLeft[k0 / gs] += p.nonFinite - before;
            }
            sumSq += e.sumSq;
            sumAbs += e.sumAbs;
            sumSigned += e.sumSigned;
            refSq += e.refSq;
            maxAbs = std::max(maxAbs, e.maxAbs);
            if (gs && !es.byIndex) {
                p.gSq[k0 / gs] += e.sumSq;
                p.gMax[k0 / gs] = std::max(p.gMax[k0 / gs], e.maxAbs);
            }
        }
    p.sumSq = sumSq;
    p.sumAbs = sumAbs;
    p.sumSigned = sumSigned;
    p.refSq = refSq;
    p.maxAbs = maxAbs;
}

// Act-order: a group's columns lie anywhere in the row, so each error goes to g_idx's group.
void actOrderGroupErrors(const ErrorStream& es, const float* q, const float* r, uint64_t rows, ErrorPartial& p)
{
    const uint64_t K = es.K;
    for (uint64_t row = 0; row < rows; ++row)
        for (uint64_t k = 0; k < K; ++k) {
            const size_t g = size_t((*es.columnGroup)[size_t(k)]);
            if (!finitePair(q[row * K + k], r[row * K + k])) {
                ++p.gLeft[g];
                continue;
            }
            const double e = std::fabs(double(q[row * K + k]) - double(r[row * K + k]));
            p.gSq[g] += e * e;
            p.gMax[g] = std::max(p.gMax[g], e);
        }
}

// The importance-weighted error^2 and reference^2 of rows [r0, r1) into `p`.
void importanceErrors(const ErrorStream& es, const float* q, const float* r, uint64_t r0, uint64_t r1, ErrorPartial& p)
{
    const uint64_t K = es.K;
    for (uint64_t row = 0; row < r1 - r0; ++row) {
        const float* w = es.imp->data() + (r0 + row) / es.rowsPerMatrix * K;
        double wSq = 0, wRefSq = 0;
        for (uint64_t k = 0; k < K; ++k) {
            if (!finitePair(q[row * K + k], r[row * K + k]))
                continue;
            const double e = double(q[row * K + k]) - double(r[row * K + k]);
            wSq += double(w[k]) * e * e;
            wRefSq += double(w[k]) * double(r[row * K + k]) * double(r[row * K + k]);
        }
        p.wSq += wSq;
        p.wRefSq += wRefSq;
    }
}

// The output figures y = X W^T of `rows` rows (q and r) into `p`.
void outputErrors(const ErrorStream& es, const float* q, const float* r, uint64_t rows, ErrorPartial& p)
{
    const auto nr = Eigen::Index(rows);
    MatD Wq = Eigen::Map<const MatF>(q, nr, Eigen::Index(es.K)).cast<double>();
    MatD Wr = Eigen::Map<const MatF>(r, nr, Eigen::Index(es.K)).cast<double>();
    if (p.nonFinite) // the output over the finite elements: the others count as 0 on both sides
        for (Eigen::Index i = 0; i < Wq.size(); ++i)
            if (!finitePair(q[i], r[i]))
                Wq.data()[i] = Wr.data()[i] = 0;
    const MatD Yq = es.X * Wq.transpose();
    const MatD Yr = es.X * Wr.transpose();
    p.yDiffSq = (Yq - Yr).squaredNorm();
    p.yRefSq = Yr.squaredNorm();
    p.yQSq = Yq.squaredNorm();
    p.yDot = Yq.cwiseProduct(Yr).sum();
}

// The first pass over rows [r0, r1): their sums into `p`, their errors into the kept slots, the
// coarse |error| keys of the kept ones into `coarse` and the caller's range bins into `ranged`.
void firstPassChunk(const ErrorStream& es, const StatsOptions& opt, const RowLoader& load, uint64_t r0, uint64_t r1,
                    Scratch& s, ErrorPartial& p, std::vector<uint32_t>& coarse, std::vector<uint64_t>& ranged)
{
    const uint64_t K = es.K, n = (r1 - r0) * K, first = r0 * K;
    if (coarse.empty())
        coarse.assign(kCoarseKeys * kKeySplit, 0);
    if (es.range.on() && ranged.empty())
        ranged.assign(es.range.n + 2, 0);
    s.a.resize(size_t(n));
    s.b.resize(size_t(n));
    load(r0, r1, s.a.data(), s.b.data(), s);
    const float* q = s.a.data();
    const float* r = s.b.data();
    // Unsampled, the errors go straight to their kept slots.
    float* err = es.kept + first;
    if (es.stride > 1) {
        s.c.resize(size_t(n));
        err = s.c.data();
    }
    p.nonFinite = 0;
    p.gSq.assign(size_t(es.nGroups), 0.0);
    p.gMax.assign(size_t(es.nGroups), 0.0);
    p.gLeft.assign(size_t(es.nGroups), 0);
    spanErrorSums(es, opt.path, q, r, r0, r1, err, p);
    if (es.byIndex)
        actOrderGroupErrors(es, q, r, r1 - r0, p);
    if (es.imp)
        importanceErrors(es, q, r, r0, r1, p);
    float* keptHere = err;
    uint64_t keptN = n;
    if (es.stride > 1) {
        const uint64_t g0 = (first + es.stride - 1) / es.stride * es.stride;
        keptHere = es.kept + g0 / es.stride;
        keptN = 0;
        for (uint64_t g = g0; g < first + n; g += es.stride)
            keptHere[keptN++] = err[g - first];
    }
    countCoarse(keptHere, keptN, coarse.data(), opt.path);
    if (es.range.on())
        for (uint64_t i = 0; i < n; ++i)
            es.range.add(ranged.data(), double(q[i]) - double(r[i]));
    outputErrors(es, q, r, r1 - r0, p);
}

// The chunks' sums, added in chunk order: the same sums for any thread count.
ErrorPartial mergeErrorPartials(const std::vector<ErrorPartial>& parts, uint64_t nGroups)
{
    ErrorPartial t;
    t.gSq.assign(size_t(nGroups), 0.0);
    t.gMax.assign(size_t(nGroups), 0.0);
    t.gLeft.assign(size_t(nGroups), 0);
    for (const ErrorPartial& p : parts) {
        t.sumSq += p.sumSq;
        t.sumAbs += p.sumAbs;
        t.sumSigned += p.sumSigned;
        t.refSq += p.refSq;
        t.maxAbs = std::max(t.maxAbs, p.maxAbs);
        t.yDiffSq += p.yDiffSq;
        t.yRefSq += p.yRefSq;
        t.yQSq += p.yQSq;
        t.yDot += p.yDot;
        t.wSq += p.wSq;
        t.wRefSq += p.wRefSq;
        if (p.nonFinite && t.nonFinite == 0)
            t.firstNonFinite = p.firstNonFinite;
        t.nonFinite += p.nonFinite;
        for (uint64_t g = 0; g < nGroups; ++g) {
            t.gSq[g] += p.gSq[g];
            t.gMax[g] = std::max(t.gMax[g], p.gMax[g]);
            t.gLeft[g] += p.gLeft[g];
        }
    }
    return t;
}

// The figures of the merged sums `t`: rmse, mean, max, SQNR and the weighted ones.
void setErrorSums(ErrorStats& s, const ErrorStream& es, const ErrorPartial& t)
{
    const uint64_t total = es.total;
    s.count = total;
    s.nonFinite = t.nonFinite;
    s.firstNonFinite = t.firstNonFinite;
    if (const uint64_t finiteCount = total - t.nonFinite) {
        s.rmse = std::sqrt(t.sumSq / double(finiteCount));
        s.meanAbs = t.sumAbs / double(finiteCount);
        s.meanSigned = t.sumSigned / double(finiteCount);
    }
    s.maxAbs = t.maxAbs;
    s.sqnrDb = t.sumSq == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(t.refSq / t.sumSq);
    s.percentilesExact = es.stride == 1;
    if (es.imp) {
        s.weighted = true;
        s.weightedSumSq = t.wSq;
        s.weightedMse = total > t.nonFinite ? t.wSq / double(total - t.nonFinite) : 0;
        s.weightedRelative = t.wRefSq > 0 ? t.wSq / t.wRefSq : 0;
    }
}

// The percentiles' rank targets from the threads' coarse key counts.
std::vector<RankTarget> percentileTargets(const std::vector<std::vector<uint32_t>>& coarse)
{
    std::vector<uint64_t> keyCounts(kCoarseKeys, 0);
    for (const std::vector<uint32_t>& cc : coarse)
        for (size_t i = 0; i < cc.size(); ++i)
            keyCounts[i / kKeySplit] += cc[i];
    uint64_t finite = 0;
    for (uint32_t k = 0; k < kCoarseNonFinite; ++k)
        finite += keyCounts[k];
    const std::vector<double> ps{0.50, 0.95, 0.99, 0.999};
    return rankTargets(keyCounts, ps, finite);
}

// The signed error histogram's range: the caller's, binned already (`ranged`, per thread), or
// [-maxAbs, maxAbs], over the largest finite |e| when an error is infinite, with empty bins.
void errorHistogramRange(Histogram& h, const ErrorStream& es, const ErrorPartial& t,
                         const std::vector<std::vector<uint64_t>>& ranged, int bins)
{
    if (es.range.on()) {
        std::vector<uint64_t> merged(es.range.n + 2, 0);
        for (const std::vector<uint64_t>& f : ranged)
            for (size_t i = 0; i < f.size(); ++i)
                merged[i] += f[i];
        h = fromRange(es.range, merged);
        return;
    }
    double hi = t.maxAbs;
    if (!std::isfinite(hi) || t.nonFinite) {
        hi = 0;
        for (uint64_t i = 0; i < es.keptCount; ++i)
            if (std::isfinite(es.kept[i]))
                hi = std::max(hi, double(std::fabs(es.kept[i])));
    }
    h.lo = -hi;
    h.hi = hi;
    h.counts.assign(size_t(bins), 0);
}

// The default range's bins as the caller's range bins them (RangeBins::bin: an error of 0 in the
// bin that holds 0); a degenerate range puts every error in the middle bin, as binOf does.
struct ErrorBinner {
    ErrorBinner(const Histogram& h, int bins)
        : spread(h.hi > h.lo)
        , over(spread ? RangeBins::over(h.lo, h.hi, size_t(bins)) : RangeBins{})
        , mid(size_t(bins) / 2)
    {
    }
    size_t operator()(double e) const { return spread ? over.bin(e) : mid; }
    bool spread;
    RangeBins over;
    size_t mid;
};

// A sampled weight's default-range histogram: every error binned in a second pass over the
// rows, its progress the second half of the weight's.
void binAllErrors(Histogram& h, const ErrorStream& es, const StatsOptions& opt, uint64_t rows, const std::string& name,
                  const RowLoader& load, const ErrorBinner& errorBin)
{
    std::vector<std::vector<uint64_t>> perThread(static_cast<size_t>(es.team));
    StatsOptions secondOpt = opt;
    if (opt.progress.report)
        secondOpt.progress.report = [&opt, total = es.total](uint64_t done, uint64_t all, const std::string& w) {
            opt.progress(total / 2 + done / 2, all, w);
        };
    forEachStatsChunk(es.N, es.K, rows, secondOpt, name, [&](uint64_t, uint64_t r0, uint64_t r1, Scratch& sc) {
        const uint64_t n = (r1 - r0) * es.K;
        std::vector<uint64_t>& c = perThread[size_t(omp_get_thread_num())];
        if (c.empty())
            c.assign(size_t(opt.bins), 0);
        sc.a.resize(size_t(n));
        sc.b.resize(size_t(n));
        load(r0, r1, sc.a.data(), sc.b.data(), sc);
        for (uint64_t i = 0; i < n; ++i) {
            const float e = float(double(sc.a[i]) - double(sc.b[i])); // as scanError keeps it
            if (std::isfinite(e))
                ++c[errorBin(e)];
        }
    });
    for (const std::vector<uint64_t>& c : perThread)
        for (size_t i = 0; i < c.size(); ++i)
            h.counts[i] += c[i];
}

// One parallel pass over the kept errors: the values under the rank keys, selected into the
// percentiles, and the default-range histogram when `binHere` (the kept errors are every error).
void rankKeptErrors(ErrorStats& s, const ErrorStream& es, std::vector<RankTarget>& targets, bool binHere, int bins,
                    const ErrorBinner& errorBin)
{
    std::array<uint8_t, kCoarseKeys> targetOf{}; // 1 + the target index; 0: none
    for (size_t i = 0; i < targets.size(); ++i)
        targetOf[targets[i].key] = uint8_t(i + 1);
    const uint64_t block = uint64_t(1) << 16, blocks = (es.keptCount + block - 1) / block;
    std::vector<std::vector<uint64_t>> binned(static_cast<size_t>(es.team));
    std::vector<std::vector<std::vector<float>>> gathered(static_cast<size_t>(es.team));
    // The gathered values are only ranked (nth_element), so the order blocks run in is free.
    runChunks(blocks, es.team, nullptr, [&](uint64_t bi, NoChunkState&) {
        const size_t th = size_t(omp_get_thread_num());
        std::vector<uint64_t>& h = binned[th];
        std::vector<std::vector<float>>& g = gathered[th];
        if (binHere && h.empty())
            h.assign(size_t(bins), 0);
        if (g.empty())
            g.resize(targets.size());
        const uint64_t i1 = std::min(es.keptCount, (bi + 1) * block);
        for (uint64_t i = bi * block; i < i1; ++i) {
            const float e = es.kept[i];
            uint32_t u;
            std::memcpy(&u, &e, 4);
            if (const uint8_t tg = targetOf[coarseKey(u)])
                g[tg - 1].push_back(bitsFloat(u & 0x7FFFFFFFu));
            if (binHere && std::isfinite(e))
                ++h[errorBin(e)];
        }
    });
    if (binHere)
        for (const std::vector<uint64_t>& h : binned)
            for (size_t i = 0; i < h.size(); ++i)
                s.signedError.counts[i] += h[i];
    double pv[4] = {0, 0, 0, 0};
    for (size_t ti = 0; ti < targets.size(); ++ti) {
        RankTarget& tg = targets[ti];
        for (std::vector<std::vector<float>>& g : gathered)
            if (ti < g.size()) {
                tg.values.insert(tg.values.end(), g[ti].begin(), g[ti].end());
                std::vector<float>().swap(g[ti]);
            }
        for (size_t j = 0; j < tg.which.size(); ++j) {
            const auto nth = tg.values.begin() + std::ptrdiff_t(tg.rankInKey[j]);
            std::nth_element(tg.values.begin(), nth, tg.values.end());
            pv[tg.which[j]] = *nth;
        }
    }
    s.p50 = pv[0];
    s.p95 = pv[1];
    s.p99 = pv[2];
    s.p999 = pv[3];
}

// Each group's RMS and max |error| over its finite elements.
void setGroupErrors(ErrorStats& s, const ErrorStream& es, const ErrorPartial& t)
{
    s.groupSize = es.nGroups ? es.gs : 0;
    if (es.byIndex)
        s.columnGroup = *es.columnGroup;
    for (uint64_t g = 0; g < es.nGroups; ++g) {
        const uint64_t cols = es.byIndex ? es.groupColumns[size_t(g)] : std::min(es.gs, es.K - g * es.gs);
        const uint64_t counted = cols * es.N - t.gLeft[g];
        s.groups.push_back({g, counted ? std::sqrt(t.gSq[g] / double(counted)) : 0.0, t.gMax[g]});
    }
}

// The error figures of candidate against reference, streamed in chunks of `rows` rows.
// `columnGroup` (act-order): the group of each input column, g_idx; empty: column k in group k / groupSize.
// The options' and the weight's errors name `at`, the candidate; the loader's name their own.
WeightComparison compareStreams(const ErrorContext& at, uint64_t N, uint64_t K, uint64_t groupSize, uint64_t rows,
                                const StatsOptions& opt, const std::string& name, const RowLoader& load,
                                const std::vector<int32_t>& columnGroup = {})
{
    const ErrorStream es = withContext(at, [&] { return planErrorStream(N, K, groupSize, opt, columnGroup); });
    WeightComparison res;
    res.shape = {N, K};
    std::vector<ErrorPartial> parts(size_t(N ? (N + rows - 1) / rows : 0));
    // Per thread (integer counts: the merge order does not matter): the coarse |error| keys of
    // the kept errors, and the caller's bins + below + above.
    std::vector<std::vector<uint32_t>> coarse(static_cast<size_t>(es.team));
    std::vector<std::vector<uint64_t>> ranged(static_cast<size_t>(es.team));

    // A sampled weight's default-range histogram needs the final max |error| before any error
    // is binned and the sample does not hold every error: a second pass bins them all. Its
    // progress is the second half of the weight's.
    const bool secondPass = es.stride > 1 && !es.range.on();
    StatsOptions firstOpt = opt;
    if (secondPass && opt.progress.report)
        firstOpt.progress.report = [&opt](uint64_t done, uint64_t all, const std::string& w) {
            opt.progress(done / 2, all, w);
        };
    forEachStatsChunk(N, K, rows, firstOpt, name, [&](uint64_t c, uint64_t r0, uint64_t r1, Scratch& s) {
        const size_t t = size_t(omp_get_thread_num());
        firstPassChunk(es, opt, load, r0, r1, s, parts[c], coarse[t], ranged[t]);
    });
    const ErrorPartial t = mergeErrorPartials(parts, es.nGroups);
    ErrorStats& s = res.error;
    setErrorSums(s, es, t);
    std::vector<RankTarget> targets = percentileTargets(coarse);
    errorHistogramRange(s.signedError, es, t, ranged, opt.bins);
    const ErrorBinner errorBin(s.signedError, opt.bins);
    if (secondPass)
        binAllErrors(s.signedError, es, opt, rows, name, load, errorBin);
    rankKeptErrors(s, es, targets, !es.range.on() && !secondPass, opt.bins, errorBin);
    setGroupErrors(s, es, t);
    res.output.tokens = es.T;
    res.output.relativeError = t.yRefSq > 0 ? std::sqrt(t.yDiffSq / t.yRefSq) : (t.yDiffSq > 0 ? 1.0 : 0.0);
    res.output.cosine =
        t.yQSq > 0 && t.yRefSq > 0 ? t.yDot / (std::sqrt(t.yQSq) * std::sqrt(t.yRefSq)) : (t.yDiffSq == 0 ? 1.0 : 0.0);
    return res;
}

// The family row's requantizer of a format; nullptr when it has none.
RequantizeFn requantizerOf(const FormatInfo& format)
{
    const FamilyRow* row = familyRow(format.family);
    return row && row->requantize ? row->requantize(format) : nullptr;
}

// What has a reference quantizer here, for the refusal.
std::string requantizableIds()
{
    std::string list;
    for (const FormatInfo& f : formatInfos())
        if (requantizerOf(f))
            list += (list.empty() ? "" : ", ") + f.id;
    return list;
}

} // namespace

ReferenceMatch findReference(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref)
{
    ReferenceMatch r;
    const WeightMatch m = matchWeights(ckpt, ref, weight.name);
    for (const WeightPair& p : m.pairs)
        if (p.a == &weight) {
            r.reference = p.b;
            r.weightSide = p.ta;
            r.referenceSide = p.tb;
            r.note = p.note;
            if (p.b->members.size() == 1)
                r.tensor = &ref.tensors.at(p.b->members.front().second);
            else
                r.problem = ref.path + " " + p.b->name + ": the reference is " + p.b->format + ", not a float tensor";
            return r;
        }
    for (const ShapeMismatch& s : m.shapeMismatches)
        if (s.nameA == weight.name) {
            r.problem = ref.path + " " + s.nameB + ": the reference is " + shapeText(s.shapeB) + ", the weight "
                + shapeText(s.shapeA);
            return r;
        }
    for (const SkippedPair& s : m.skipped)
        if (s.nameA == weight.name) {
            r.problem = ref.path + " " + s.nameB + ": " + s.reason;
            return r;
        }
    const std::string arch = checkpointArchitecture(ckpt.container == Container::Gguf ? ckpt : ref);
    std::string also = weight.name;
    for (const std::string& other : {hfToGguf(weight.name, arch), ggufToHf(weight.name, arch)})
        if (!other.empty())
            also = other;
    r.problem = ref.path + ": no reference tensor for " + weight.name
        + (also != weight.name && (ckpt.container == Container::Gguf) != (ref.container == Container::Gguf)
               ? " or " + also
               : std::string())
        + "; it has " + namingHint(ref);
    return r;
}

std::vector<float> defaultActivations(uint64_t tokens, uint64_t K, uint64_t seed, int outlierChannels)
{
    // tokens * K wrapped for a K near 2^62 (a shape from a file): 4096 floats, then the outlier
    // channels were scaled past them.
    const std::optional<uint64_t> n = mulChecked(tokens, K);
    if (!n || *n > kMaxActivationValues)
        throw Error("default activations [" + std::to_string(tokens) + ", " + std::to_string(K) + "] are more than "
                    + std::to_string(kMaxActivationValues) + " values");
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(*n);
    for (float& v : x)
        v = normal(rng);
    for (int i = 0; i < outlierChannels && K > 0; ++i) {
        const uint64_t c = rng() % K;
        for (uint64_t t = 0; t < tokens; ++t)
            x[t * K + c] *= 20.0f;
    }
    return x;
}

namespace {

// The group of each input column of an act-order weight (its g_idx, as the dequantizer applies
// it); empty for any other weight, whose groups are k / groupSize.
std::vector<int32_t> actOrderGroups(const Checkpoint& ckpt, const LogicalWeight& weight)
{
    if (!weight.actOrder || !hasGroupScales(ckpt, weight))
        return {};
    return groupScales(ckpt, weight).gIdx;
}

// "the reference REF tensor 'NAME'", what the reference checks' errors say beside the weight's
// context.
std::string referenceText(const Checkpoint& ref, const TensorEntry& tensor)
{
    return "the reference " + ref.path + " tensor '" + std::string(tensor.name) + "'";
}

} // namespace

WeightComparison compareWeight(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref,
                               const TensorEntry& refTensor, const StatsOptions& opt)
{
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    const ErrorContext at{ckpt.path, weight.name};
    const std::string reference = referenceText(ref, refTensor);
    const std::optional<DType> refType = plainFloatType(refTensor);
    if (!refType)
        throw Error(at, reference + " must be F32, F16 or BF16, is " + std::string(refTensor.typeName));
    if (refTensor.elementCount() != N * K || (refTensor.shape.size() >= 2 && refTensor.shape.back() != K))
        throw Error(at,
                    reference + " has " + std::to_string(refTensor.elementCount()) + " elements, the weight is ["
                        + std::to_string(N) + ", " + std::to_string(K) + "]");
    if (ref.bytes(refTensor).size() / (*refType == DType::F32 ? 4 : 2) < N * K)
        throw Error(at, reference + " holds fewer bytes than its " + std::to_string(N * K) + " elements need");
    const uint64_t gs = weight.groupSize > 0 ? uint64_t(weight.groupSize) : 0;
    WeightComparison res = compareStreams(
        at, N, K, gs, statsChunkRows(opt, K), opt, weight.name,
        [&](uint64_t r0, uint64_t r1, float* q, float* r, Scratch&) {
            dequantizeRows(ckpt, weight, r0, r1, q, opt.path);
            readFloatRows(ref, refTensor, *refType, K, r0, r1, r, opt.path);
        },
        actOrderGroups(ckpt, weight));
    res.weight = weight.name;
    res.reference = refTensor.name;
    return res;
}

WeightComparison compareWeight(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref,
                               const ReferenceMatch& match, const StatsOptions& opt)
{
    const ErrorContext at{ckpt.path, weight.name};
    if (!match.found())
        throw Error(at, match.problem.empty() ? "no reference" : match.problem);
    const LogicalWeight& rw = *match.reference;
    const TensorEntry& refTensor = *match.tensor;
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    const std::string reference = referenceText(ref, refTensor);
    if (!plainFloatType(refTensor))
        throw Error(at, reference + " must be F32, F16 or BF16, is " + std::string(refTensor.typeName));
    if (rw.outFeatures() != N || rw.inFeatures() != K)
        throw Error(at, reference + " is " + shapeText(rw.shape) + ", the weight " + shapeText(weight.shape));
    // Chunks of whole permutation head blocks on a permuted side.
    uint64_t align = 1;
    for (const SideTransform* t : {&match.weightSide, &match.referenceSide})
        if (t->permuteHeads)
            align = std::lcm(align, N / t->permuteHeads);
    const uint64_t gs = weight.groupSize > 0 ? uint64_t(weight.groupSize) : 0;
    WeightComparison res = compareStreams(
        at, N, K, gs, statsChunkRows(opt, K, align), opt, weight.name,
        [&](uint64_t r0, uint64_t r1, float* q, float* r, Scratch& s) {
            s.tmp.resize(size_t((r1 - r0) * K));
            loadMatchedRows(ckpt, weight, match.weightSide, r0, r1, q, s.tmp.data(), opt.path);
            loadMatchedRows(ref, rw, match.referenceSide, r0, r1, r, s.tmp.data(), opt.path);
        },
        actOrderGroups(ckpt, weight));
    res.weight = weight.name;
    res.reference = refTensor.name;
    res.note = match.note;
    return res;
}

WeightComparison compareRequantized(const Checkpoint& ckpt, const LogicalWeight& weight, const RequantizeSpec& spec,
                                    const StatsOptions& opt)
{
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    // dequantizeRows' errors name the checkpoint and the weight; the quantizers' name neither.
    const ErrorContext here{ckpt.path, weight.name};
    // The format's family row gives the reference quantizer that reproduces it.
    const FormatInfo* format = resolveFormatId(spec.format);
    const RequantizeFn requantizer = format ? requantizerOf(*format) : nullptr;
    if (!requantizer)
        throw Error(here, "cannot requantize to '" + spec.format + "' (" + requantizableIds() + ")");
    const Requantizer rq = withContext(here, [&] { return requantizer(*format, spec, K); });
    WeightComparison res = compareStreams(here, N, K, rq.groupSize, statsChunkRows(opt, K, rq.rowAlign), opt,
                                          weight.name, [&](uint64_t r0, uint64_t r1, float* q, float* r, Scratch&) {
                                              dequantizeRows(ckpt, weight, r0, r1, r, opt.path);
                                              withContext(here, [&] { rq.roundTrip(r, r1 - r0, K, q, opt.path); });
                                          });
    res.weight = weight.name;
    res.reference = weight.name + " (as stored)";
    return res;
}

namespace {

// The keys of the non-finite floats (valueKey): exponent all ones, negative [0, kNegInfKey],
// positive [kPosInfKey, 0xFFFF]. An infinity shares its key with the NaNs whose payload is in the
// low 16 bits only (an f16 NaN's can be), so a weight with either key is read once more to tell
// them apart.
constexpr uint32_t kNegInfKey = 0x007Fu, kPosInfKey = 0xFF80u;

template <typename EachRange>
void countNonFiniteValues(const Checkpoint& ckpt, const LogicalWeight& weight, const StatsOptions& opt, uint64_t rows,
                          const EachRange& eachRange, const std::vector<uint64_t>& keys, WeightHistograms& h)
{
    uint64_t nonFinite = 0;
    for (uint32_t k = 0; k <= kNegInfKey; ++k)
        nonFinite += keys[k];
    for (uint32_t k = kPosInfKey; k < kKeyCount; ++k)
        nonFinite += keys[k];
    h.nanCount = nonFinite;
    if (!keys[kNegInfKey] && !keys[kPosInfKey])
        return;
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    std::vector<std::array<uint64_t, 2>> infinities(size_t((N + rows - 1) / rows), {0, 0});
    StatsOptions quiet = opt;
    quiet.progress.report = nullptr;
    forEachStatsChunk(N, K, rows, quiet, weight.name, [&](uint64_t c, uint64_t r0, uint64_t r1, Scratch& s) {
        eachRange(r0, r1, [&](uint64_t a, uint64_t b) {
            s.a.resize(size_t((b - a) * K));
            dequantizeRows(ckpt, weight, a, b, s.a.data(), opt.path);
            for (float x : s.a)
                if (std::isinf(x))
                    ++infinities[c][x < 0];
        });
    });
    for (const auto& [pos, neg] : infinities) {
        h.posInfCount += pos;
        h.negInfCount += neg;
    }
    h.nanCount -= h.posInfCount + h.negInfCount;
}

} // namespace

namespace {

// Approximate: of every `every` runs of `unit` rows (whole kernel blocks, a few thousand
// values, so the kernels' per-call cost stays small) one is read, the j-th period's at
// offset frac(j * golden ratio) * every: spread evenly, and in no fixed phase a periodic
// row structure (heads, experts, interleaved projections) could alias with. every == 0: exact.
struct RowSample {
    uint64_t unit, every, period;
    RowSample(uint64_t N, uint64_t K, uint64_t align, uint64_t sampleEvery)
        : unit(ceilDiv(ceilDiv(4096, std::max<uint64_t>(K, 1)), align) * align)
        , every(sampleEvery > 1 && N * K >= kApproximateMinElements ? sampleEvery : 0)
        , period(unit * every)
    {
    }
    // The rows of [r0, r1) the figures count, as ranges passed to f(a, b).
    template <typename F>
    void each(uint64_t r0, uint64_t r1, const F& f) const
    {
        if (!every) {
            f(r0, r1);
            return;
        }
        for (uint64_t j = r0 / period; j * period < r1; ++j) {
            const uint64_t phase = (((j + 1) * 0x9E3779B97F4A7C15ull) >> 32) * every >> 32;
            const uint64_t a = std::max(r0, j * period + phase * unit),
                           b = std::min(r1, j * period + (phase + 1) * unit);
            if (a < b)
                f(a, b);
        }
    }
};

// One row chunk's value figures.
struct ValuePart {
    double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
    double sum = 0, sumSq = 0;
    uint32_t loBits = 0xFFFFFFFFu, hiBits = 0; // the code domain's or minMaxValues' extremes (orderedBits)
};

// The chunks' figures in chunk order; min and max from the ordered bits when `fromBits` (the
// code domain's and a sampled scan's extremes).
ValuePart mergeParts(const std::vector<ValuePart>& parts, bool fromBits)
{
    ValuePart t;
    for (const ValuePart& p : parts) {
        t.lo = std::min(t.lo, p.lo);
        t.hi = std::max(t.hi, p.hi);
        t.loBits = std::min(t.loBits, p.loBits);
        t.hiBits = std::max(t.hiBits, p.hiBits);
        t.sum += p.sum;
        t.sumSq += p.sumSq;
    }
    if (fromBits && t.loBits <= t.hiBits) {
        t.lo = bitsFloat(unorderedBits(t.loBits));
        t.hi = bitsFloat(unorderedBits(t.hiBits));
    }
    return t;
}

// The value histogram: the caller's range's bins merged over the threads, else the bfloat16
// keys' counts binned over [h.minValue, h.maxValue].
Histogram valueHistogram(const WeightHistograms& h, const RangeBins& range,
                         const std::vector<std::vector<uint64_t>>& ranged, const std::vector<uint64_t>& keyTotals,
                         int bins)
{
    if (range.on()) {
        std::vector<uint64_t> merged(range.n + 2, 0);
        for (const std::vector<uint64_t>& f : ranged)
            for (size_t i = 0; i < f.size(); ++i)
                merged[i] += f[i];
        return fromRange(range, merged);
    }
    Histogram values;
    values.lo = h.minValue;
    values.hi = h.maxValue;
    values.counts.assign(size_t(bins), 0);
    for (uint32_t key = 0; key < 65536; ++key) {
        if (!keyTotals[key])
            continue;
        // The key's value truncated to bfloat16 (NaN and Inf are not binned).
        const uint32_t top = (key & 0x8000u) ? (key & 0x7FFFu) : (~key & 0xFFFFu);
        addToHistogram(values, bitsFloat(top << 16), keyTotals[key]);
    }
    return values;
}

} // namespace

WeightHistograms weightHistograms(const Checkpoint& ckpt, const LogicalWeight& weight, const StatsOptions& opt)
{
    withContext(ErrorContext{ckpt.path, weight.name}, [&] { checkBins(opt); });
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    WeightHistograms h;
    h.weight = weight.name;
    h.bits = weight.bits;
    h.count = N * K;

    const int team = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    // The family's code-domain steps: integer codes, stored scales, values tallied from codes.
    const FamilyRow* row = familyRowOf(weight.format);
    const std::unique_ptr<WeightTally> tally = row && row->weightTally ? row->weightTally(ckpt, weight, team) : nullptr;
    const bool codes = tally && tally->codeBits() > 0;
    const bool scales = tally && tally->hasScales();
    const bool codeDomain = tally && tally->talliesValues();

    const uint64_t align = tally ? tally->rowAlign() : 1;
    const RowSample sample(N, K, align, opt.sampleEvery);
    const uint64_t every = sample.every;
    const auto eachRange = [&sample](uint64_t r0, uint64_t r1, const auto& f) { sample.each(r0, r1, f); };
    uint64_t countedRows = N;
    if (every) {
        countedRows = 0;
        eachRange(0, N, [&](uint64_t a, uint64_t b) { countedRows += b - a; });
        h.sampleEvery = every;
    }
    h.sampled = countedRows * K;

    const RangeBins range = rangeBins(opt);
    const uint64_t rows = statsChunkRows(opt, K);
    // About 8 Ki floats (32 KiB: read back from L1 by the scan), a multiple of 8 values; for
    // packed layouts whole kernel blocks.
    const uint64_t sliceAlign = align > 1 ? align : 8 / std::gcd<uint64_t>(K ? K : 8, 8);
    const uint64_t sliceRows =
        std::min(rows, std::max(sliceAlign, (uint64_t(1) << 13) / std::max<uint64_t>(K, 1) / sliceAlign * sliceAlign));
    std::vector<ValuePart> parts(size_t(N ? (N + rows - 1) / rows : 0));
    // Per thread: the bfloat16-bucket histogram (65536 keys), the caller's bins + below +
    // above when a range is given, and the code counts.
    std::vector<std::optional<KeyCounts>> fine(static_cast<size_t>(team));
    std::vector<std::vector<uint64_t>> ranged(static_cast<size_t>(team)), codeCounts(static_cast<size_t>(team));
    forEachStatsChunk(N, K, rows, opt, weight.name, [&](uint64_t c, uint64_t r0, uint64_t r1, Scratch& s) {
        const size_t t = size_t(omp_get_thread_num());
        if (!fine[t])
            fine[t].emplace();
        KeyCounts& keys = *fine[t];
        if (range.on() && ranged[t].empty())
            ranged[t].assign(range.n + 2, 0);
        ValuePart& p = parts[c];
        if (every) {
            // Sampling would miss the outliers users look for: every row is dequantized for its
            // extremes, a fraction of the cost of the counting it skips; the sampled rows are
            // scanned from the same floats. The whole chunk in one call: per row, the dispatch
            // cost about as much as a k-quant's kernel.
            s.b.resize(size_t((r1 - r0) * K));
            dequantizeRows(ckpt, weight, r0, r1, s.b.data(), opt.path);
            minMaxValues(s.b.data(), (r1 - r0) * K, p.loBits, p.hiBits, opt.path);
        }
        if (codeDomain) {
            CodeTally values;
            eachRange(r0, r1, [&](uint64_t a, uint64_t b) {
                for (uint64_t s0 = a; s0 < b; s0 += sliceRows) {
                    const uint64_t s1 = std::min(b, s0 + sliceRows);
                    keys.makeRoom((s1 - s0) * K);
                    tally->tallyValues(s0, s1, values, keys.split.data(), range.on() ? &range : nullptr,
                                       range.on() ? ranged[t].data() : nullptr, opt.path);
                }
            });
            p.sum = values.total();
            p.sumSq = values.totalSq();
            p.loBits = std::min(p.loBits, values.lo);
            p.hiBits = std::max(p.hiBits, values.hi);
        } else {
            // Dequantized a slice at a time and scanned while the slice is in cache. Every slice
            // but the last holds a multiple of 8 values, so each value keeps its lane (i % 8 over
            // the chunk) and the figures are those of one scan over the whole chunk.
            if (!every)
                s.a.resize(size_t(std::min(r1 - r0, sliceRows) * K));
            ValueLanes lanes;
            eachRange(r0, r1, [&](uint64_t a, uint64_t b) {
                for (uint64_t s0 = a; s0 < b; s0 += sliceRows) {
                    const uint64_t s1 = std::min(b, s0 + sliceRows), n = (s1 - s0) * K;
                    const float* v = every ? s.b.data() + (s0 - r0) * K : s.a.data();
                    if (!every)
                        dequantizeRows(ckpt, weight, s0, s1, s.a.data(), opt.path);
                    keys.makeRoom(n);
                    scanValues(v, n, lanes, keys.split.data(), opt.path);
                    if (range.on())
                        for (uint64_t i = 0; i < n; ++i)
                            range.add(ranged[t].data(), v[i]);
                }
            });
            float lo = 0, hi = 0;
            lanes.combine(p.sum, p.sumSq, lo, hi);
            p.lo = lo;
            p.hi = hi;
        }
        eachRange(r0, r1, [&](uint64_t a, uint64_t b) {
            if (codes) {
                std::vector<uint64_t>& cc = codeCounts[t];
                if (cc.empty())
                    cc.assign(size_t(1) << tally->codeBits(), 0);
                tally->countCodes(a, b, cc);
            }
            if (scales)
                tally->addScales(a, b, int(t));
        });
    });
    const ValuePart all = mergeParts(parts, codeDomain || every);
    const double lo = all.lo, hi = all.hi, sum = all.sum, sumSq = all.sumSq;
    // Every value has its key counted, NaN and Inf included (the range too counts keys).
    std::vector<uint64_t> keyTotals(kKeyCount, 0);
    for (std::optional<KeyCounts>& f : fine)
        if (f) {
            f->flush();
            for (size_t i = 0; i < kKeyCount; ++i)
                keyTotals[i] += f->totals[i];
        }
    countNonFiniteValues(ckpt, weight, opt, rows, eachRange, keyTotals, h);
    if (h.count && lo <= hi) {
        h.hasFinite = true;
        h.minValue = lo;
        h.maxValue = hi;
    }
    if (h.finite()) {
        h.meanValue = sum / double(h.finite());
        h.rmsValue = std::sqrt(sumSq / double(h.finite()));
    }
    h.values = valueHistogram(h, range, ranged, keyTotals, opt.bins);
    if (codes) {
        h.codes.assign(size_t(1) << tally->codeBits(), 0);
        for (const std::vector<uint64_t>& cc : codeCounts)
            for (size_t i = 0; i < cc.size(); ++i)
                h.codes[i] += cc[i];
    }
    if (scales)
        h.scales = finiteSpanHistogram(opt.bins, [&](const auto& visit) {
            tally->visitScales([&](uint64_t a, uint64_t b, const auto& f) { eachRange(a, b, f); }, visit);
        });
    return h;
}

} // namespace qs
