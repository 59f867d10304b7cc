#include "formats/blockfloat/blockfloat.h"

#include "base/shapetext.h"
#include "formats/ggml/ggml_tables.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace qs {

const float* e2m1Values(bool negativeZero)
{
    // ggml's FP4 table holds the E2M1 values doubled (kvalues_fp4): halving is exact.
    static const auto tables = [] {
        std::array<std::array<float, 16>, 2> t{};
        for (int c = 0; c < 16; ++c)
            t[0][size_t(c)] = t[1][size_t(c)] = float(ggml::kValuesFp4[c]) * 0.5f;
        t[1][8] = -0.0f;
        return t;
    }();
    return tables[negativeZero ? 1 : 0].data();
}

float mxfp4Scale(uint8_t e)
{
    // The OCP spec calls 0xFF NaN; transformers and gpt-oss compute ldexp(v, 128) = v * pow(2, 128) in
    // float32, which is v * inf.
    return e == 0xFF ? std::numeric_limits<float>::infinity() : f8e8m0ToF32(e);
}

float Fp4Blocks::blockScale(uint64_t n, uint64_t b) const
{
    const uint8_t s = scales[n * blocksPerRow + b];
    return scaleKind == Scale::E8M0 ? mxfp4Scale(s) : f8e4m3ToF32(s) * global;
}

void Fp4Blocks::rowScales(uint64_t n, float* out) const
{
    for (uint64_t b = 0; b < blocksPerRow; ++b)
        out[b] = blockScale(n, b);
}

Fp4Blocks mxfp4State(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string what = "weight '" + lw.name + "'";
    const TensorEntry& bl = w.entry("blocks");
    const TensorEntry& sc = w.entry("scales");
    if (bl.dtype != DType::U8 || sc.dtype != DType::U8)
        failWeight(lw,
                   "blocks '" + std::string(bl.name) + "' and scales '" + std::string(sc.name) + "' must be U8, not "
                       + std::string(dtypeName(bl.dtype)) + " and " + std::string(dtypeName(sc.dtype)));
    if (bl.shape.size() < 3 || bl.shape.back() != 16)
        failWeight(lw,
                   "blocks '" + std::string(bl.name) + "' is " + shapeText(bl.shape) + ", expected [..., N, K/32, 16]");
    if (sc.shape.size() + 1 != bl.shape.size() || !std::equal(sc.shape.begin(), sc.shape.end(), bl.shape.begin()))
        failWeight(lw,
                   "scales '" + std::string(sc.name) + "' is " + shapeText(sc.shape) + ", blocks " + shapeText(bl.shape)
                       + " need their shape without the last dim");
    Fp4Blocks s;
    s.scaleKind = Fp4Blocks::Scale::E8M0;
    s.blockSize = 32;
    s.rows = 1;
    for (size_t i = 0; i + 2 < bl.shape.size(); ++i)
        s.rows = checkedMul(s.rows, bl.shape[i], what);
    s.blocksPerRow = bl.shape[bl.shape.size() - 2];
    s.cols = checkedMul(s.blocksPerRow, 32, what);
    s.rowBytes = checkedMul(s.blocksPerRow, 16, what);
    if (lw.outFeatures() != s.rows || lw.inFeatures() != s.cols)
        failWeight(lw, "detected shape " + shapeText(lw.shape) + " disagrees with blocks " + shapeText(bl.shape));
    s.codes = w.ckpt.bytes(bl);
    s.scales = w.ckpt.bytes(sc);
    if (s.codes.size() != checkedMul(s.rows, s.rowBytes, what)
        || s.scales.size() != checkedMul(s.rows, s.blocksPerRow, what))
        failWeight(lw, "blocks or scales bytes do not match their shapes");
    s.values = e2m1Values(true);
    return s;
}

Fp4Blocks nvfp4State(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string what = "weight '" + lw.name + "'";
    const TensorEntry& q = w.entry("weight");
    const TensorEntry& sc = w.entry("weight_scale");
    const TensorEntry& g = w.entry("weight_scale_2");
    Fp4Blocks s;
    s.scaleKind = Fp4Blocks::Scale::E4M3TimesGlobal;
    s.blockSize = 16;
    s.rows = lw.outFeatures();
    s.cols = lw.inFeatures();
    s.rowBytes = ceilDiv(s.cols, 2);
    s.blocksPerRow = ceilDiv(s.cols, 16);
    if (q.dtype != DType::U8 || q.shape.size() != 2 || q.shape[0] != s.rows || q.shape[1] != s.rowBytes)
        failWeight(lw,
                   "weight '" + std::string(q.name) + "' is " + std::string(dtypeName(q.dtype)) + " "
                       + shapeText(q.shape) + ", expected U8 [" + std::to_string(s.rows) + ", "
                       + std::to_string(s.rowBytes) + "] for " + shapeText(lw.shape));
    if (sc.dtype != DType::F8_E4M3 || sc.shape.size() != 2 || sc.shape[0] != s.rows || sc.shape[1] != s.blocksPerRow)
        failWeight(lw,
                   "weight_scale '" + std::string(sc.name) + "' is " + std::string(dtypeName(sc.dtype)) + " "
                       + shapeText(sc.shape) + ", expected F8_E4M3 [" + std::to_string(s.rows) + ", "
                       + std::to_string(s.blocksPerRow) + "] (one scale per 16)");
    const FloatView global(w.ckpt.bytes(g), g.dtype, what + " tensor '" + std::string(g.name) + "'");
    if (global.size() != 1)
        failWeight(lw,
                   "weight_scale_2 '" + std::string(g.name) + "' holds " + std::to_string(global.size())
                       + " values, expected one");
    s.global = global.at(0);
    s.codes = w.ckpt.bytes(q);
    s.scales = w.ckpt.bytes(sc);
    if (s.codes.size() != checkedMul(s.rows, s.rowBytes, what)
        || s.scales.size() != checkedMul(s.rows, s.blocksPerRow, what))
        failWeight(lw, "weight or weight_scale bytes do not match their shapes");
    s.values = e2m1Values(false);
    return s;
}

void fp4RowsScalar(const Fp4Blocks& s, uint64_t r0, uint64_t r1, float* out)
{
    std::vector<float> scales(s.blocksPerRow);
    for (uint64_t n = r0; n < r1; ++n) {
        s.rowScales(n, scales.data());
        float* o = out + (n - r0) * s.cols;
        for (uint64_t k = 0; k < s.cols; ++k)
            o[k] = s.values[s.code(n, k)] * scales[k / s.blockSize];
    }
}

void dequantMxfp4Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<Fp4Blocks, RowSpan::Rows>(
        w, rowBegin, rowEnd, out, mxfp4State, fp4RowsScalar,
        simdKernel(path, SimdKernels<Fp4RowsFn>{QS_X86(fp4RowsAvx512), QS_X86(fp4RowsAvx2)}));
}

void dequantNvfp4Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<Fp4Blocks, RowSpan::Rows>(
        w, rowBegin, rowEnd, out, nvfp4State, fp4RowsScalar,
        simdKernel(path, SimdKernels<Fp4RowsFn>{QS_X86(fp4RowsAvx512), QS_X86(fp4RowsAvx2)}));
}

} // namespace qs
