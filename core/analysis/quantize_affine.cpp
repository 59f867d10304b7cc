#include "analysis/quantize_affine.h"

#include "error.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

namespace qs {
namespace {

// torch.round and std::rint both round half to even (the default rounding mode).
inline float rne(float v) { return std::nearbyint(v); }
inline float clampf(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

struct Range {
    float min = INFINITY;
    float max = -INFINITY;
    float absMax = 0;
    void add(float v)
    {
        min = std::min(min, v);
        max = std::max(max, v);
        absMax = std::max(absMax, std::fabs(v));
    }
};

// One group's parameters in the rule's own terms, and how it maps a weight to a code.
struct Params {
    float scale = 0;
    float zero = 0; // unsigned code units; the bias for Mlx
    float qmin = 0, qmax = 0;   // code range the rounding is clamped to (signed for CT and AWQ sym)
    float offset = 0;           // added after clamping to reach unsigned codes
    bool ctOrder = false;       // compressed-tensors adds the zero point before clamping and rounding
    bool mlx = false;
};

Params gptqParams(Range r, const AffineOptions& o)
{
    const float maxq = float((1 << o.bits) - 1);
    float xmin = std::min(r.min, 0.0f), xmax = std::max(r.max, 0.0f);
    if (o.symmetric) {
        xmax = std::max(std::fabs(xmin), xmax);
        if (xmin < 0) xmin = -xmax;
    }
    if (xmin == 0 && xmax == 0) {
        xmin = -1;
        xmax = 1;
    }
    if (o.clipRatio != 1.0f) {
        xmin = o.clipRatio * xmin;
        xmax = o.clipRatio * xmax;
    }
    Params p;
    p.scale = (xmax - xmin) / maxq;
    p.zero = o.symmetric ? (maxq + 1) / 2 : rne(-xmin / p.scale);
    p.qmin = 0;
    p.qmax = maxq;
    return p;
}

Params awqParams(Range r, const AffineOptions& o)
{
    Params p;
    if (o.symmetric) {
        const float maxInt = float((1 << (o.bits - 1)) - 1);
        const float amax = std::max(r.absMax * o.clipRatio, 1e-5f);
        p.scale = amax / maxInt;
        p.qmin = -maxInt - 1;
        p.qmax = maxInt;
        p.offset = maxInt + 1;
        p.zero = maxInt + 1;
        return p;
    }
    const float maxInt = float((1 << o.bits) - 1);
    const float mx = r.max * o.clipRatio, mn = r.min * o.clipRatio;
    p.scale = std::max(mx - mn, 1e-5f) / maxInt;
    p.zero = clampf(-rne(mn / p.scale), 0, maxInt);
    p.qmin = 0;
    p.qmax = maxInt;
    return p;
}

Params ctParams(Range r, const AffineOptions& o)
{
    const float qmax = float((1 << (o.bits - 1)) - 1), qmin = -qmax - 1;
    const float bitRange = qmax - qmin;
    const float mn = std::min(r.min, 0.0f) * o.clipRatio, mx = std::max(r.max, 0.0f) * o.clipRatio;
    Params p;
    p.ctOrder = true;
    p.qmin = qmin;
    p.qmax = qmax;
    p.offset = -qmin;
    if (o.symmetric) {
        const float maxPos = std::max(std::fabs(mn), std::fabs(mx));
        p.scale = std::max(maxPos / float(double(bitRange) / 2), FLT_EPSILON);
        p.zero = 0;
    } else {
        p.scale = std::max((mx - mn) / bitRange, FLT_EPSILON);
        p.zero = rne(clampf(qmin - mn / p.scale, qmin, qmax));
    }
    return p;
}

Params mlxParams(Range r, const AffineOptions& o)
{
    const float nBins = float((1 << o.bits) - 1);
    const float mn = r.min * o.clipRatio, mx = r.max * o.clipRatio;
    const bool mask = std::fabs(mn) > std::fabs(mx);
    float scale = std::max((mx - mn) / nBins, 1e-7f);
    scale = mask ? scale : -scale;
    const float edge = mask ? mn : mx;
    const float q0 = std::rint(edge / scale);
    float bias = 0;
    if (q0 != 0) {
        scale = edge / q0;
        bias = edge;
    }
    Params p;
    p.mlx = true;
    p.scale = scale;
    p.zero = bias;
    p.qmin = 0;
    p.qmax = nBins;
    return p;
}

Params paramsFor(Range r, const AffineOptions& o)
{
    switch (o.rule) {
    case AffineRule::Gptq: return gptqParams(r, o);
    case AffineRule::Awq: return awqParams(r, o);
    case AffineRule::CompressedTensors: return ctParams(r, o);
    case AffineRule::Mlx: return mlxParams(r, o);
    }
    return {};
}

inline uint8_t codeOf(float x, const Params& p, AffineRule rule)
{
    float q;
    if (p.mlx) {
        q = clampf(std::rint((x - p.zero) / p.scale), p.qmin, p.qmax);
    } else if (p.ctOrder) {
        // compressed-tensors: x / s, + zero point, clamp, then round; zero kept signed here.
        const float zp = p.zero;
        q = rne(clampf(x / p.scale + zp, p.qmin, p.qmax)) + p.offset;
    } else if (rule == AffineRule::Awq && p.offset != 0) {
        q = clampf(rne(x / p.scale), p.qmin, p.qmax) + p.offset;
    } else {
        q = clampf(rne(x / p.scale) + p.zero, p.qmin, p.qmax);
    }
    return uint8_t(q);
}

// The zero point stored in [G, N]: unsigned code units (compressed-tensors' signed zp + 2^(b-1)).
inline float storedZero(const Params& p)
{
    return p.ctOrder ? p.zero + p.offset : p.zero;
}

} // namespace

std::string_view affineRuleName(AffineRule r)
{
    switch (r) {
    case AffineRule::Gptq: return "gptq";
    case AffineRule::Awq: return "awq";
    case AffineRule::CompressedTensors: return "compressed-tensors";
    case AffineRule::Mlx: return "mlx";
    }
    return "?";
}

AffineQuantized quantizeAffine(const float* w, uint64_t rows, uint64_t cols, const AffineOptions& opt, bool parallel)
{
    if (opt.bits < 2 || opt.bits > 8)
        throw Error("quantize: bits must be 2..8, got " + std::to_string(opt.bits));
    if (!(opt.clipRatio > 0.0f && opt.clipRatio <= 1.0f))
        throw Error("quantize: clipping ratio must be in (0, 1]");
    if (opt.granularity == AffineGranularity::Group && opt.groupSize == 0)
        throw Error("quantize: group size must be positive");
    uint64_t total = 0;
    if (__builtin_mul_overflow(rows, cols, &total) || total > (uint64_t(1) << 40))
        throw Error("quantize: weight of " + std::to_string(rows) + " x " + std::to_string(cols) + " is too large");

    AffineQuantized q;
    q.rows = rows;
    q.cols = cols;
    q.bits = opt.bits;
    q.rule = opt.rule;
    q.groupSize = opt.granularity == AffineGranularity::Group ? std::min(opt.groupSize, std::max<uint64_t>(cols, 1))
                                                              : std::max<uint64_t>(cols, 1);
    if (opt.rule == AffineRule::Mlx && cols % q.groupSize != 0)
        throw Error("quantize: MLX needs the group size (" + std::to_string(q.groupSize) + ") to divide K ("
                    + std::to_string(cols) + ")");
    q.groups = cols == 0 ? 0 : (cols + q.groupSize - 1) / q.groupSize;
    q.codes.resize(total);
    q.scales.resize(q.groups * rows);
    q.zeros.resize(q.groups * rows);

    Params tensorParams;
    if (opt.granularity == AffineGranularity::Tensor) {
        Range r;
        for (uint64_t i = 0; i < total; ++i) r.add(w[i]);
        tensorParams = paramsFor(r, opt);
    }
    const int64_t n = int64_t(rows);
#pragma omp parallel for schedule(static) if (parallel && total > 65536)
    for (int64_t row = 0; row < n; ++row) {
        const float* x = w + uint64_t(row) * cols;
        uint8_t* c = q.codes.data() + uint64_t(row) * cols;
        for (uint64_t g = 0; g < q.groups; ++g) {
            const uint64_t k0 = g * q.groupSize, k1 = std::min(cols, k0 + q.groupSize);
            Params p = tensorParams;
            if (opt.granularity != AffineGranularity::Tensor) {
                Range r;
                for (uint64_t k = k0; k < k1; ++k) r.add(x[k]);
                p = paramsFor(r, opt);
            }
            for (uint64_t k = k0; k < k1; ++k) c[k] = codeOf(x[k], p, opt.rule);
            q.scales[g * rows + uint64_t(row)] = p.scale;
            q.zeros[g * rows + uint64_t(row)] = storedZero(p);
        }
    }
    return q;
}

std::vector<float> dequantizeAffine(const AffineQuantized& q)
{
    std::vector<float> out(q.codes.size());
    for (uint64_t n = 0; n < q.rows; ++n) {
        for (uint64_t k = 0; k < q.cols; ++k) {
            const uint64_t gi = q.group(k) * q.rows + n;
            const float code = float(q.codes[n * q.cols + k]);
            out[n * q.cols + k] = q.rule == AffineRule::Mlx ? code * q.scales[gi] + q.zeros[gi]
                                                            : q.scales[gi] * (code - q.zeros[gi]);
        }
    }
    return out;
}

} // namespace qs
