#include "formats/compressed_tensors/ct.h"
#include "formats/statecache.h"
#include "base/intmath.h"
#include "base/shapetext.h"

namespace qs {

int CtPacked::zeroAt(uint64_t n, uint64_t g) const
{
    switch (zpKind) {
    case Zp::None: return 0;
    case Zp::Unpacked: return static_cast<int>(readInt(zp, zpDtype, tensorScale ? 0 : n * groups + g));
    case Zp::Packed: {
        const uint32_t word = loadLE<uint32_t>(zp.data() + 4 * ((n / pf) * groups + g));
        return static_cast<int>((word >> (bits * (n % pf))) & ((1u << bits) - 1)) - (1 << (bits - 1));
    }
    }
    return 0;
}

CtPacked ctPackedState(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    CtPacked s;
    s.bits = lw.bits ? lw.bits : 4;
    if (s.bits < 1 || s.bits > 8)
        failWeight(lw, "num_bits " + std::to_string(s.bits) + " is not 1..8");
    s.pf = 32u / static_cast<unsigned>(s.bits);

    if (w.has("weight_shape")) {
        const TensorEntry& e = w.entry("weight_shape");
        const auto b = w.ckpt.bytes(e);
        if (!dtypeIsInteger(e.dtype) || e.elementCount() != 2)
            failWeight(lw, "weight_shape '" + std::string(e.name) + "' is not an integer [2] tensor");
        const int64_t n = readInt(b, e.dtype, 0), k = readInt(b, e.dtype, 1);
        if (n <= 0 || k <= 0)
            failWeight(lw, "weight_shape holds " + std::to_string(n) + " x " + std::to_string(k));
        s.rows = static_cast<uint64_t>(n);
        s.cols = static_cast<uint64_t>(k);
        if (lw.outFeatures() != s.rows || lw.inFeatures() != s.cols)
            failWeight(lw, "weight_shape disagrees with the detected shape " + shapeText(lw.shape));
    } else {
        s.rows = lw.outFeatures();
        s.cols = lw.inFeatures();
    }
    const std::string what = "weight '" + lw.name + "'";
    checkedMul(s.rows, s.cols, what);

    if (w.has("weight_packed")) {
        const TensorEntry& p = w.entry("weight_packed");
        s.wordsPerRow = ceilDiv(s.cols, s.pf);
        if (p.dtype != DType::I32 && p.dtype != DType::U32)
            failWeight(lw,
                       "weight_packed '" + std::string(p.name) + "' is " + std::string(dtypeName(p.dtype))
                           + ", expected I32");
        if (p.shape.size() != 2 || p.shape[0] != s.rows || p.shape[1] != s.wordsPerRow)
            failWeight(lw,
                       "weight_packed '" + std::string(p.name) + "' should be [" + std::to_string(s.rows) + ", "
                           + std::to_string(s.wordsPerRow) + "] for " + std::to_string(s.bits) + "-bit codes");
        s.packed = w.ckpt.bytes(p);
        if (s.packed.size() != checkedMul(checkedMul(s.rows, s.wordsPerRow, what), 4, what))
            failWeight(lw, "weight_packed bytes do not match its shape");
    } else {
        // int-quantized / naive-quantized (I8 codes) and float-quantized (F8): one element a byte.
        const TensorEntry& q = w.entry("weight");
        if (q.dtype == DType::I8) {
            s.source = CtPacked::Source::Int8;
            s.bits = 8;
        } else if (q.dtype == DType::F8_E4M3 || q.dtype == DType::F8_E5M2) {
            s.source = CtPacked::Source::Fp8;
            s.fp8Dtype = q.dtype;
        } else {
            failWeight(lw,
                       "weight '" + std::string(q.name) + "' is " + std::string(dtypeName(q.dtype))
                           + ", expected I8 or F8");
        }
        s.pf = 1;
        if (q.shape.size() != 2)
            failWeight(lw, "weight '" + std::string(q.name) + "' is not 2-D");
        if (w.has("weight_shape") && (q.shape[0] != s.rows || q.shape[1] != s.cols))
            failWeight(lw, "weight '" + std::string(q.name) + "' disagrees with weight_shape");
        s.rows = q.shape[0];
        s.cols = q.shape[1];
        if (lw.outFeatures() != s.rows || lw.inFeatures() != s.cols)
            failWeight(
                lw, "detected shape " + shapeText(lw.shape) + " disagrees with weight '" + std::string(q.name) + "'");
        s.packed = w.ckpt.bytes(q);
        if (s.packed.size() != checkedMul(s.rows, s.cols, what))
            failWeight(lw, "weight bytes do not match its shape");
    }

    const TensorEntry& sc = w.entry("weight_scale");
    s.scale = FloatView(w.ckpt.bytes(sc), sc.dtype, what + " tensor '" + std::string(sc.name) + "'");
    if (sc.elementCount() == 1 && (sc.shape.size() < 2 || s.rows != 1)) {
        s.tensorScale = true;
        s.groups = 1;
    } else if (sc.shape.size() == 2 && sc.shape[0] == s.rows && sc.shape[1] >= 1) {
        s.groups = sc.shape[1];
    } else {
        failWeight(lw,
                   "weight_scale '" + std::string(sc.name) + "' shape does not fit [" + std::to_string(s.rows)
                       + ", groups]");
    }
    if (s.scale.size() != (s.tensorScale ? 1 : s.rows * s.groups))
        failWeight(lw, "weight_scale bytes do not match its shape");

    if (w.has("weight_g_idx")) {
        const TensorEntry& g = w.entry("weight_g_idx");
        if (!dtypeIsInteger(g.dtype) || g.elementCount() != s.cols)
            failWeight(lw,
                       "weight_g_idx '" + std::string(g.name) + "' should be an integer [" + std::to_string(s.cols)
                           + "] tensor");
        s.gidx = w.ckpt.bytes(g);
        s.gidxDtype = g.dtype;
        for (uint64_t k = 0; k < s.cols; ++k) {
            const int64_t v = readInt(s.gidx, s.gidxDtype, k);
            if (v < 0 || static_cast<uint64_t>(v) >= s.groups)
                failWeight(lw,
                           "weight_g_idx[" + std::to_string(k) + "] = " + std::to_string(v) + " is not a group 0.."
                               + std::to_string(s.groups - 1));
        }
    } else if (s.groups > 1) {
        // G = ceil(K / g); the config's group_size when known, else the only size that fits.
        s.groupSize = lw.groupSize > 0 ? static_cast<uint64_t>(lw.groupSize) : ceilDiv(s.cols, s.groups);
        if (ceilDiv(s.cols, s.groupSize) != s.groups)
            failWeight(lw,
                       "weight_scale has " + std::to_string(s.groups) + " groups, K = " + std::to_string(s.cols)
                           + " with group size " + std::to_string(s.groupSize) + " needs "
                           + std::to_string(ceilDiv(s.cols, s.groupSize)));
    }

    if (w.has("weight_zero_point")) {
        const TensorEntry& z = w.entry("weight_zero_point");
        if (!dtypeIsInteger(z.dtype) || s.source == CtPacked::Source::Fp8)
            failWeight(lw,
                       "weight_zero_point '" + std::string(z.name) + "' is not an integer tensor for integer codes");
        s.zp = w.ckpt.bytes(z);
        s.zpDtype = z.dtype;
        const uint64_t packedRows = ceilDiv(s.rows, s.pf);
        const uint64_t count = z.elementCount();
        const uint64_t g = s.tensorScale ? 1 : s.groups;
        if (s.source == CtPacked::Source::Packed && (z.dtype == DType::I32 || z.dtype == DType::U32)
            && count == packedRows * g) {
            s.zpKind = CtPacked::Zp::Packed;
        } else if (count == (s.tensorScale ? 1 : s.rows * g)) {
            // Before compressed-tensors PR #296: one signed zero point per (row, group), unpacked.
            s.zpKind = CtPacked::Zp::Unpacked;
        } else {
            failWeight(lw,
                       "weight_zero_point '" + std::string(z.name) + "' holds " + std::to_string(count)
                           + " values: neither packed [" + std::to_string(packedRows) + ", " + std::to_string(g)
                           + "] nor unpacked [" + std::to_string(s.rows) + ", " + std::to_string(g) + "]");
        }
    }
    return s;
}

void ctRowsScalar(const CtPacked& s, uint64_t r0, uint64_t r1, float* out)
{
    for (uint64_t n = r0; n < r1; ++n) {
        float* o = out + (n - r0) * s.cols;
        for (uint64_t k = 0; k < s.cols; ++k) {
            const uint64_t g = s.group(k);
            // float-quantized: x_q.to(scale dtype) is exact for FP8 in F16/BF16/F32, then one multiply.
            const float v =
                s.source == CtPacked::Source::Fp8 ? s.fp8At(n, k) : static_cast<float>(s.code(n, k) - s.zeroAt(n, g));
            o[k] = v * s.scaleAt(n, g);
        }
    }
}

void dequantCtRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<CtPacked, RowSpan::Rows>(
        w, rowBegin, rowEnd, out, ctPackedState, ctRowsScalar,
        simdKernel(path, SimdKernels<CtRowsFn>{QS_X86(ctRowsAvx512), QS_X86(ctRowsAvx2)}));
}

} // namespace qs
