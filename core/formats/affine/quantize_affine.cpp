#include "formats/affine/quantize_affine.h"

#include "base/error.h"
#include "base/intmath.h"
#include "base/parallel.h"
#include "base/bitstream.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace qs {
namespace {

// torch.round and std::rint both round half to even (the default rounding mode).
inline float rne(float v)
{
    return std::nearbyint(v);
}
inline float clampf(float v, float lo, float hi)
{
    return std::min(std::max(v, lo), hi);
}

// The scale as the file will hold it when the options ask for that (see codeScale).
float storeScale(float v, DType t)
{
    if (t == DType::F32)
        return v;
    const uint16_t bits = t == DType::BF16 ? floatToBf16(v) : floatToHalf(v);
    const float r = t == DType::BF16 ? bf16ToFloat(bits) : halfToFloat(bits);
    if (r != 0.0f || v == 0.0f)
        return r;
    const float tiny = t == DType::BF16 ? bf16ToFloat(1) : halfToFloat(1);
    return v < 0 ? -tiny : tiny;
}

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
    float qmin = 0, qmax = 0; // code range the rounding is clamped to (signed for CT and AWQ sym)
    float offset = 0; // added after clamping to reach unsigned codes
    bool ctOrder = false; // compressed-tensors adds the zero point before clamping and rounding
    bool mlx = false;
};

Params gptqParams(Range r, const AffineOptions& o)
{
    const float maxq = float((1 << o.bits) - 1);
    float xmin = std::min(r.min, 0.0f), xmax = std::max(r.max, 0.0f);
    if (o.symmetric) {
        xmax = std::max(std::fabs(xmin), xmax);
        if (xmin < 0)
            xmin = -xmax;
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
    p.scale = storeScale((xmax - xmin) / maxq, o.codeScale);
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
        p.scale = storeScale(amax / maxInt, o.codeScale);
        p.qmin = -maxInt - 1;
        p.qmax = maxInt;
        p.offset = maxInt + 1;
        p.zero = maxInt + 1;
        return p;
    }
    const float maxInt = float((1 << o.bits) - 1);
    const float mx = r.max * o.clipRatio, mn = r.min * o.clipRatio;
    p.scale = storeScale(std::max(mx - mn, 1e-5f) / maxInt, o.codeScale);
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
        p.scale = storeScale(std::max(maxPos / float(double(bitRange) / 2), FLT_EPSILON), o.codeScale);
        p.zero = 0;
    } else {
        p.scale = storeScale(std::max((mx - mn) / bitRange, FLT_EPSILON), o.codeScale);
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
    p.scale = storeScale(scale, o.codeScale);
    p.zero = o.codeScale == DType::F32 ? bias : storeScale(bias, o.codeScale);
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

// A rounded code or zero as an integer. A NaN (a NaN or Inf weight in the group makes its scale,
// zero and codes NaN) becomes 0 and a value past int32 saturates: converting either to an integer
// type is undefined. Every finite value in range converts as before.
inline int32_t codeInt(float v)
{
    if (!(v == v))
        return 0;
    if (v >= 2147483648.0f)
        return INT32_MAX;
    if (v < -2147483648.0f)
        return INT32_MIN;
    return int32_t(v);
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
    return uint8_t(codeInt(q)); // in [0, 255] once clamped, unless NaN
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
    const bool signedGrid = opt.rule == AffineRule::CompressedTensors || (opt.rule == AffineRule::Awq && opt.symmetric);
    if (opt.bits < (signedGrid ? 2 : 1) || opt.bits > 8)
        throw Error("quantize: bits must be " + std::string(signedGrid ? "2" : "1") + "..8 for "
                    + std::string(affineRuleName(opt.rule)) + ", got " + std::to_string(opt.bits));
    if (!(opt.clipRatio > 0.0f && opt.clipRatio <= 1.0f))
        throw Error("quantize: clipping ratio must be in (0, 1]");
    if (opt.granularity == AffineGranularity::Group && opt.groupSize == 0)
        throw Error("quantize: group size must be positive");
    if (opt.codeScale != DType::F32 && opt.codeScale != DType::F16 && opt.codeScale != DType::BF16)
        throw Error("quantize: the code scale type must be F32, F16 or BF16");
    uint64_t total = 0;
    if (__builtin_mul_overflow(rows, cols, &total) || total > (uint64_t(1) << 40))
        throw Error("quantize: weight of " + std::to_string(rows) + " x " + std::to_string(cols) + " is too large");

    AffineQuantized q;
    q.rows = rows;
    q.cols = cols;
    q.bits = opt.bits;
    q.rule = opt.rule;
    q.symmetric = opt.symmetric;
    q.groupSize = opt.granularity == AffineGranularity::Group ? std::min(opt.groupSize, std::max<uint64_t>(cols, 1))
                                                              : std::max<uint64_t>(cols, 1);
    if (opt.rule == AffineRule::Mlx && cols % q.groupSize != 0)
        throw Error("quantize: MLX needs the group size (" + std::to_string(q.groupSize) + ") to divide K ("
                    + std::to_string(cols) + ")");
    q.groups = cols == 0 ? 0 : ceilDiv(cols, q.groupSize);
    if (!opt.groupIndex.empty()) {
        if (opt.granularity != AffineGranularity::Group || opt.rule == AffineRule::Mlx)
            throw Error("quantize: a group index needs per-group quantization and an integer-zero rule");
        if (opt.groupIndex.size() != cols)
            throw Error("quantize: the group index has " + std::to_string(opt.groupIndex.size())
                        + " entries for K = " + std::to_string(cols));
        int64_t maxGroup = -1;
        for (int32_t g : opt.groupIndex) {
            if (g < 0 || uint64_t(g) >= cols)
                throw Error("quantize: group index entry " + std::to_string(g) + " is out of range");
            maxGroup = std::max<int64_t>(maxGroup, g);
        }
        q.groups = uint64_t(maxGroup + 1);
        q.groupIndex = opt.groupIndex;
    }
    q.codes.resize(total);
    q.scales.resize(q.groups * rows);
    q.zeros.resize(q.groups * rows);

    Params tensorParams;
    if (opt.granularity == AffineGranularity::Tensor) {
        Range r;
        for (uint64_t i = 0; i < total; ++i)
            r.add(w[i]);
        tensorParams = paramsFor(r, opt);
    }
    parallelFor(rows, parallel && total > 65536, [&](uint64_t row) {
        const float* x = w + row * cols;
        uint8_t* c = q.codes.data() + row * cols;
        std::vector<Params> params(q.groups, tensorParams);
        if (opt.granularity != AffineGranularity::Tensor) {
            std::vector<Range> ranges(q.groups);
            for (uint64_t k = 0; k < cols; ++k)
                ranges[q.group(k)].add(x[k]);
            for (uint64_t g = 0; g < q.groups; ++g)
                params[g] = paramsFor(ranges[g], opt);
        }
        for (uint64_t k = 0; k < cols; ++k)
            c[k] = codeOf(x[k], params[q.group(k)], opt.rule);
        for (uint64_t g = 0; g < q.groups; ++g) {
            q.scales[g * rows + row] = params[g].scale;
            q.zeros[g * rows + row] = storedZero(params[g]);
        }
    });
    return q;
}

std::vector<float> dequantizeAffine(const AffineQuantized& q)
{
    std::vector<float> out(q.codes.size());
    for (uint64_t n = 0; n < q.rows; ++n) {
        for (uint64_t k = 0; k < q.cols; ++k) {
            const uint64_t gi = q.group(k) * q.rows + n;
            const float code = float(q.codes[n * q.cols + k]);
            out[n * q.cols + k] =
                q.rule == AffineRule::Mlx ? code * q.scales[gi] + q.zeros[gi] : q.scales[gi] * (code - q.zeros[gi]);
        }
    }
    return out;
}

std::string_view affineTargetName(AffineTarget t)
{
    switch (t) {
    case AffineTarget::GptqV1: return "gptq-v1";
    case AffineTarget::GptqV2: return "gptq-v2";
    case AffineTarget::AwqGemm: return "awq-gemm";
    case AffineTarget::CompressedTensors: return "compressed-tensors";
    case AffineTarget::Mlx: return "mlx-affine";
    }
    return "?";
}

namespace {

template <typename T>
StoredTensor stored(std::string suffix, DType dtype, std::vector<uint64_t> shape, const std::vector<T>& values)
{
    StoredTensor t{std::move(suffix), dtype, std::move(shape), {}};
    t.bytes.resize(values.size() * sizeof(T));
    if (!values.empty())
        std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

StoredTensor fromPacked(std::string suffix, DType dtype, PackedTensor&& p)
{
    return StoredTensor{std::move(suffix), dtype, std::move(p.shape), std::move(p.bytes)};
}

// Scales [G][N] (or transposed to [N][G]) in the stored float type.
StoredTensor floats(std::string suffix, const std::vector<float>& gn, uint64_t groups, uint64_t n, DType type,
                    bool transpose)
{
    std::vector<float> order(gn.size());
    for (uint64_t g = 0; g < groups; ++g)
        for (uint64_t r = 0; r < n; ++r)
            order[transpose ? r * groups + g : g * n + r] = gn[g * n + r];
    const std::vector<uint64_t> shape = transpose ? std::vector<uint64_t>{n, groups} : std::vector<uint64_t>{groups, n};
    if (type == DType::F32)
        return stored(std::move(suffix), type, shape, order);
    std::vector<uint16_t> half(order.size());
    for (size_t i = 0; i < order.size(); ++i)
        half[i] = type == DType::BF16 ? floatToBf16(order[i]) : floatToHalf(order[i]);
    return stored(std::move(suffix), type, shape, half);
}

std::vector<uint16_t> halfBits(const std::vector<float>& v, DType type)
{
    if (type != DType::F16 && type != DType::BF16)
        throw Error("pack: GPTQ and AWQ scales are F16 or BF16");
    std::vector<uint16_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i)
        out[i] = type == DType::BF16 ? floatToBf16(v[i]) : floatToHalf(v[i]);
    return out;
}

std::vector<int32_t> integerZeros(const AffineQuantized& q)
{
    std::vector<int32_t> z(q.zeros.size());
    for (size_t i = 0; i < z.size(); ++i)
        z[i] = codeInt(q.zeros[i]);
    return z;
}

} // namespace

std::vector<StoredTensor> packAffine(const AffineQuantized& q, AffineTarget target, DType scaleType)
{
    if (scaleType != DType::F16 && scaleType != DType::BF16 && scaleType != DType::F32)
        throw Error("pack: scales must be F16, BF16 or F32");
    if ((target == AffineTarget::Mlx) != (q.rule == AffineRule::Mlx))
        throw Error(
            "pack: MLX stores a float bias, the other targets an integer zero; requantize with the matching rule");
    if (target == AffineTarget::CompressedTensors && q.rule != AffineRule::CompressedTensors)
        throw Error("pack: compressed-tensors needs its own rule (signed codes, zero point in range)");
    const uint64_t N = q.rows, K = q.cols, G = q.groups, b = uint64_t(q.bits);
    bool trivialIndex = true;
    for (uint64_t k = 0; k < q.groupIndex.size(); ++k)
        trivialIndex &= q.group(k) == k / q.groupSize;
    if (!trivialIndex && target != AffineTarget::GptqV1 && target != AffineTarget::GptqV2)
        throw Error(std::string("pack: ") + std::string(affineTargetName(target))
                    + " has no g_idx; an act-order quantization needs GPTQ");
    std::vector<StoredTensor> out;
    try {
        switch (target) {
        case AffineTarget::GptqV1:
        case AffineTarget::GptqV2: {
            PackedOutput p = packGptq(q.codes, integerZeros(q), halfBits(q.scales, scaleType), q.bits, K, N, G,
                                      target == AffineTarget::GptqV1, false);
            std::vector<int32_t> gIdx(K);
            for (uint64_t k = 0; k < K; ++k)
                gIdx[k] = int32_t(q.group(k));
            out.push_back(fromPacked("qweight", DType::I32, std::move(p.qweight)));
            out.push_back(fromPacked("qzeros", DType::I32, std::move(p.qzeros)));
            out.push_back(fromPacked("scales", scaleType, std::move(p.scales)));
            out.push_back(stored("g_idx", DType::I32, {K}, gIdx));
            break;
        }
        case AffineTarget::AwqGemm: {
            if (q.bits != 4 || K % q.groupSize != 0)
                throw Error("pack: AWQ GEMM holds 4-bit codes in whole groups (the group size must divide K)");
            PackedOutput p = packAwqGemm(q.codes, integerZeros(q), halfBits(q.scales, scaleType), K, N, q.groupSize);
            out.push_back(fromPacked("qweight", DType::I32, std::move(p.qweight)));
            out.push_back(fromPacked("qzeros", DType::I32, std::move(p.qzeros)));
            out.push_back(fromPacked("scales", scaleType, std::move(p.scales)));
            break;
        }
        case AffineTarget::CompressedTensors: {
            // floor(32/b) codes per int32 along K (natural slots, unused top bits zero);
            // zero points (already offset by 2^(b-1)) packed the same way along N.
            const uint64_t pf = 32 / b, words = ceilDiv(K, pf);
            std::vector<uint8_t> packed;
            packed.reserve(N * words * 4);
            for (uint64_t n = 0; n < N; ++n) {
                const std::span<const uint8_t> row(q.codes.data() + n * K, K);
                const std::vector<uint8_t> w = bitstream::packSlots(row, q.bits, 32);
                packed.insert(packed.end(), w.begin(), w.end());
            }
            out.push_back(StoredTensor{"weight_packed", DType::I32, {N, words}, std::move(packed)});
            out.push_back(floats("weight_scale", q.scales, G, N, scaleType, true));
            if (!q.symmetric) {
                const uint64_t zw = ceilDiv(N, pf);
                std::vector<uint32_t> zp(zw * G, 0);
                for (uint64_t g = 0; g < G; ++g) {
                    std::vector<uint8_t> col(N);
                    for (uint64_t n = 0; n < N; ++n)
                        col[n] = uint8_t(codeInt(q.zeros[g * N + n]));
                    const std::vector<uint8_t> w = bitstream::packSlots(col, q.bits, 32);
                    for (uint64_t i = 0; i < zw; ++i)
                        std::memcpy(&zp[i * G + g], w.data() + i * 4, 4);
                }
                out.push_back(stored("weight_zero_point", DType::I32, {zw, G}, zp));
            }
            out.push_back(stored("weight_shape", DType::I64, {2}, std::vector<int64_t>{int64_t(N), int64_t(K)}));
            break;
        }
        case AffineTarget::Mlx: {
            if (K * b % 32 != 0)
                throw Error("pack: MLX needs K * bits to be a multiple of 32");
            std::vector<uint8_t> packed;
            packed.reserve(N * K * b / 8);
            for (uint64_t n = 0; n < N; ++n) {
                const std::span<const uint8_t> row(q.codes.data() + n * K, K);
                const std::vector<uint8_t> w = bitstream::packStream(row, q.bits, 32);
                packed.insert(packed.end(), w.begin(), w.end());
            }
            out.push_back(StoredTensor{"weight", DType::U32, {N, K * b / 32}, std::move(packed)});
            out.push_back(floats("scales", q.scales, G, N, scaleType, true));
            out.push_back(floats("biases", q.zeros, G, N, scaleType, true));
            break;
        }
        }
    } catch (const std::invalid_argument& e) {
        throw Error(std::string(affineTargetName(target)) + ": " + e.what());
    }
    return out;
}

} // namespace qs
