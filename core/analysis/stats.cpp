#include "analysis/stats.h"

#include "error.h"
#include "kernels/dequant.h"
#include "kernels/half.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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

void addToHistogram(Histogram& h, double v)
{
    const size_t n = h.counts.size();
    if (!std::isfinite(v))
        return; // NaN/Inf values are counted by verify, not binned
    if (n == 0 || !(h.hi > h.lo)) {
        if (n)
            ++h.counts[n / 2]; // degenerate range: every value is the same
        return;
    }
    double pos = (v - h.lo) / (h.hi - h.lo) * double(n);
    size_t bin = pos <= 0 ? 0 : std::min(n - 1, size_t(pos));
    ++h.counts[bin];
}

uint64_t chunkRows(const StatsOptions& opt, uint64_t K)
{
    if (opt.rowChunk)
        return opt.rowChunk;
    return std::max<uint64_t>(1, (uint64_t(1) << 18) / std::max<uint64_t>(K, 1));
}

// Rows [r0, r1) of a plain float tensor laid out [N, K].
void readFloatRows(const Checkpoint& ckpt, const TensorEntry& t, uint64_t K, uint64_t r0, uint64_t r1, float* out)
{
    const std::span<const uint8_t> b = ckpt.bytes(t);
    const uint64_t n = (r1 - r0) * K, first = r0 * K;
    if (t.dtype == DType::F32) {
        std::memcpy(out, b.data() + first * 4, n * 4);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, b.data() + (first + i) * 2, 2);
        out[i] = t.dtype == DType::F16 ? halfToFloat(h) : bf16ToFloat(h);
    }
}

double percentile(std::vector<float>& v, double p)
{
    if (v.empty())
        return 0;
    // Nearest rank: the smallest value with at least p of the values <= it.
    size_t rank = size_t(std::ceil(p * double(v.size())));
    rank = std::clamp<size_t>(rank, 1, v.size()) - 1;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(rank), v.end());
    return v[rank];
}

} // namespace

const TensorEntry* findReference(const Checkpoint& ref, const LogicalWeight& weight)
{
    if (const TensorEntry* t = ref.find(weight.name + ".weight"))
        return t;
    return ref.find(weight.name);
}

std::vector<float> defaultActivations(uint64_t tokens, uint64_t K, uint64_t seed, int outlierChannels)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(tokens * K);
    for (float& v : x)
        v = normal(rng);
    for (int i = 0; i < outlierChannels && K > 0; ++i) {
        const uint64_t c = rng() % K;
        for (uint64_t t = 0; t < tokens; ++t)
            x[t * K + c] *= 20.0f;
    }
    return x;
}

WeightComparison compareWeight(const Checkpoint& ckpt, const LogicalWeight& weight, const Checkpoint& ref,
                               const TensorEntry& refTensor, const StatsOptions& opt)
{
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    const std::string where = ckpt.path + " " + weight.name + " vs " + ref.path + " " + refTensor.name;
    if (refTensor.dtype != DType::F32 && refTensor.dtype != DType::F16 && refTensor.dtype != DType::BF16)
        throw Error(where + ": the reference must be F32, F16 or BF16, is " + refTensor.typeName);
    if (refTensor.elementCount() != N * K || (refTensor.shape.size() >= 2 && refTensor.shape.back() != K))
        throw Error(where + ": reference has " + std::to_string(refTensor.elementCount()) + " elements, the weight is [" +
                    std::to_string(N) + ", " + std::to_string(K) + "]");
    if (opt.bins <= 0 || opt.bins > 100000)
        throw Error(where + ": bins must be 1..100000");

    WeightComparison res;
    res.weight = weight.name;
    res.reference = refTensor.name;
    res.shape = {N, K};

    std::vector<float> x;
    uint64_t T = 0;
    if (opt.activations) {
        if (K == 0 || opt.activations->size() % K != 0 || opt.activations->empty())
            throw Error(where + ": activations hold " + std::to_string(opt.activations->size()) +
                        " values, not a multiple of K = " + std::to_string(K));
        x = *opt.activations;
        T = x.size() / K;
    } else {
        T = opt.tokens;
        x = defaultActivations(T, K, opt.seed, opt.outlierChannels);
    }
    using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const MatD X = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                       x.data(), Eigen::Index(T), Eigen::Index(K))
                       .cast<double>();

    const uint64_t total = N * K;
    const uint64_t stride = total > kExactPercentileLimit ? (total + kExactPercentileLimit - 1) / kExactPercentileLimit : 1;
    std::vector<float> kept;
    kept.reserve(size_t(std::min(total, kExactPercentileLimit)));

    const uint64_t gs = weight.groupSize > 0 && uint64_t(weight.groupSize) < K ? uint64_t(weight.groupSize) : 0;
    const uint64_t nGroups = gs ? (K + gs - 1) / gs : 0;
    std::vector<double> gSq(nGroups, 0.0), gMax(nGroups, 0.0);

    double sumSq = 0, sumAbs = 0, sumSigned = 0, refSq = 0, maxAbs = 0;
    double yDiffSq = 0, yRefSq = 0, yQSq = 0, yDot = 0;
    const uint64_t chunk = chunkRows(opt, K);
    std::vector<float> q(size_t(std::min(chunk, std::max<uint64_t>(N, 1)) * K)), r(q.size());
    for (uint64_t r0 = 0; r0 < N; r0 += chunk) {
        const uint64_t r1 = std::min(N, r0 + chunk);
        dequantizeRows(ckpt, weight, r0, r1, q.data(), opt.path);
        readFloatRows(ref, refTensor, K, r0, r1, r.data());
        const uint64_t n = (r1 - r0) * K;
        for (uint64_t i = 0; i < n; ++i) {
            const double e = double(q[i]) - double(r[i]);
            const double a = std::fabs(e);
            sumSq += e * e;
            sumAbs += a;
            sumSigned += e;
            refSq += double(r[i]) * double(r[i]);
            maxAbs = std::max(maxAbs, a);
            if (gs) {
                const uint64_t g = (i % K) / gs;
                gSq[g] += e * e;
                gMax[g] = std::max(gMax[g], a);
            }
            if ((r0 * K + i) % stride == 0)
                kept.push_back(float(e));
        }
        const auto rows = Eigen::Index(r1 - r0);
        using MatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        const MatD Wq = Eigen::Map<const MatF>(q.data(), rows, Eigen::Index(K)).cast<double>();
        const MatD Wr = Eigen::Map<const MatF>(r.data(), rows, Eigen::Index(K)).cast<double>();
        const MatD Yq = X * Wq.transpose();
        const MatD Yr = X * Wr.transpose();
        yDiffSq += (Yq - Yr).squaredNorm();
        yRefSq += Yr.squaredNorm();
        yQSq += Yq.squaredNorm();
        yDot += Yq.cwiseProduct(Yr).sum();
    }

    ErrorStats& s = res.error;
    s.count = total;
    if (total) {
        s.rmse = std::sqrt(sumSq / double(total));
        s.meanAbs = sumAbs / double(total);
        s.meanSigned = sumSigned / double(total);
    }
    s.maxAbs = maxAbs;
    s.sqnrDb = sumSq == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(refSq / sumSq);
    s.percentilesExact = stride == 1;
    s.signedError.lo = -maxAbs;
    s.signedError.hi = maxAbs;
    s.signedError.counts.assign(size_t(opt.bins), 0);
    for (float& e : kept) {
        addToHistogram(s.signedError, e);
        e = std::fabs(e);
    }
    s.p50 = percentile(kept, 0.50);
    s.p95 = percentile(kept, 0.95);
    s.p99 = percentile(kept, 0.99);
    s.p999 = percentile(kept, 0.999);
    for (uint64_t g = 0; g < nGroups; ++g) {
        const uint64_t cols = std::min(gs, K - g * gs);
        s.groups.push_back({g, std::sqrt(gSq[g] / double(cols * N)), gMax[g]});
    }

    res.output.tokens = T;
    res.output.relativeError = yRefSq > 0 ? std::sqrt(yDiffSq / yRefSq) : (yDiffSq > 0 ? 1.0 : 0.0);
    res.output.cosine = yQSq > 0 && yRefSq > 0 ? yDot / (std::sqrt(yQSq) * std::sqrt(yRefSq)) : (yDiffSq == 0 ? 1.0 : 0.0);
    return res;
}

WeightHistograms weightHistograms(const Checkpoint& ckpt, const LogicalWeight& weight, const StatsOptions& opt)
{
    if (opt.bins <= 0 || opt.bins > 100000)
        throw Error(ckpt.path + " " + weight.name + ": bins must be 1..100000");
    const uint64_t N = weight.outFeatures(), K = weight.inFeatures();
    WeightHistograms h;
    h.weight = weight.name;
    h.bits = weight.bits;
    const uint64_t chunk = chunkRows(opt, K);
    std::vector<float> q(size_t(std::min(chunk, std::max<uint64_t>(N, 1)) * K));
    // Two passes: the range first, so the bins are fixed without keeping the values.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0, sumSq = 0;
    for (uint64_t r0 = 0; r0 < N; r0 += chunk) {
        const uint64_t r1 = std::min(N, r0 + chunk);
        dequantizeRows(ckpt, weight, r0, r1, q.data(), opt.path);
        for (uint64_t i = 0; i < (r1 - r0) * K; ++i) {
            lo = std::min(lo, double(q[i]));
            hi = std::max(hi, double(q[i]));
            sum += q[i];
            sumSq += double(q[i]) * double(q[i]);
        }
    }
    const uint64_t total = N * K;
    if (total) {
        h.minValue = lo;
        h.maxValue = hi;
        h.meanValue = sum / double(total);
        h.rmsValue = std::sqrt(sumSq / double(total));
    }
    h.values.lo = h.minValue;
    h.values.hi = h.maxValue;
    h.values.counts.assign(size_t(opt.bins), 0);
    for (uint64_t r0 = 0; r0 < N; r0 += chunk) {
        const uint64_t r1 = std::min(N, r0 + chunk);
        dequantizeRows(ckpt, weight, r0, r1, q.data(), opt.path);
        for (uint64_t i = 0; i < (r1 - r0) * K; ++i)
            addToHistogram(h.values, q[i]);
    }
    WeightCodes c;
    try {
        c = extractCodes(ckpt, weight);
    } catch (const Error&) {
        return h; // a format without integer codes: the value histogram is all there is
    }
    if (c.rows * c.cols != c.codes.size() || h.bits <= 0 || h.bits > 8)
        return h;
    h.codes.assign(size_t(1) << h.bits, 0);
    for (uint8_t v : c.codes)
        if (v < h.codes.size())
            ++h.codes[v];
    if (!c.scales.empty()) {
        const auto [mn, mx] = std::minmax_element(c.scales.begin(), c.scales.end());
        h.scales.lo = *mn;
        h.scales.hi = *mx;
        h.scales.counts.assign(size_t(opt.bins), 0);
        for (float s : c.scales)
            addToHistogram(h.scales, s);
    }
    return h;
}

} // namespace qs
