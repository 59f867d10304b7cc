#include "formats/mlx/mlx.h"

namespace qs {

MlxAffine mlxState(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string what = "weight '" + lw.name + "'";
    MlxAffine s;
    const TensorEntry& p = w.entry("weight");
    const TensorEntry& sc = w.entry("scales");
    const TensorEntry& bi = w.entry("biases");
    if (p.dtype != DType::U32 && p.dtype != DType::I32)
        failWeight(lw, "weight '" + std::string(p.name) + "' is " + std::string(dtypeName(p.dtype)) + ", expected U32");
    if (p.shape.size() < 2 || sc.shape.size() != p.shape.size() || bi.shape != sc.shape)
        failWeight(lw, "weight, scales and biases must have the same rank (>= 2) and scales == biases in shape");
    for (size_t i = 0; i + 1 < p.shape.size(); ++i)
        if (p.shape[i] != sc.shape[i])
            failWeight(lw, "weight and scales differ in their leading dimensions");
    s.rows = 1;
    for (size_t i = 0; i + 1 < p.shape.size(); ++i)
        s.rows = checkedMul(s.rows, p.shape[i], what);
    s.wordsPerRow = p.shape.back();
    s.groups = sc.shape.back();
    if (s.wordsPerRow == 0 || s.groups == 0)
        failWeight(lw, "empty weight or scales");

    // K, b and g: any two of them fix the third through the shapes (32 * words = b * K and
    // groups * g = K); the detected shape gives K, the config b and g.
    const uint64_t bitsTotal = checkedMul(s.wordsPerRow, 32, what);
    if (!lw.shape.empty()) {
        s.cols = lw.inFeatures();
        if (lw.outFeatures() != s.rows)
            failWeight(lw, "detected shape disagrees with weight '" + std::string(p.name) + "'");
        if (s.cols == 0 || bitsTotal % s.cols)
            failWeight(lw,
                       "K = " + std::to_string(s.cols) + " does not divide the row's " + std::to_string(bitsTotal)
                           + " bits");
        s.bits = static_cast<int>(bitsTotal / s.cols);
        if (lw.bits && lw.bits != s.bits)
            failWeight(lw,
                       "config says " + std::to_string(lw.bits) + " bits, the shapes say " + std::to_string(s.bits));
    } else {
        if (lw.bits <= 0)
            failWeight(lw, "neither K nor bits is known");
        s.bits = lw.bits;
        if (bitsTotal % static_cast<uint64_t>(s.bits))
            failWeight(lw,
                       std::to_string(s.bits) + "-bit codes do not fill " + std::to_string(s.wordsPerRow) + " words");
        s.cols = bitsTotal / static_cast<uint64_t>(s.bits);
    }
    if (s.bits != 2 && s.bits != 3 && s.bits != 4 && s.bits != 5 && s.bits != 6 && s.bits != 8)
        failWeight(lw, std::to_string(s.bits) + " bits: MLX affine has 2, 3, 4, 5, 6 or 8");
    if (s.cols % s.groups)
        failWeight(
            lw, "K = " + std::to_string(s.cols) + " is not a multiple of the " + std::to_string(s.groups) + " groups");
    s.groupSize = s.cols / s.groups;
    if (lw.groupSize && static_cast<uint64_t>(lw.groupSize) != s.groupSize)
        failWeight(lw,
                   "config says group size " + std::to_string(lw.groupSize) + ", the shapes say "
                       + std::to_string(s.groupSize));

    s.packed = w.ckpt.bytes(p);
    if (s.packed.size() != checkedMul(checkedMul(s.rows, s.wordsPerRow, what), 4, what))
        failWeight(lw, "weight bytes do not match its shape");
    s.scales = FloatView(w.ckpt.bytes(sc), sc.dtype, what + " tensor '" + std::string(sc.name) + "'");
    s.biases = FloatView(w.ckpt.bytes(bi), bi.dtype, what + " tensor '" + std::string(bi.name) + "'");
    const uint64_t ng = checkedMul(s.rows, s.groups, what);
    if (s.scales.size() != ng || s.biases.size() != ng)
        failWeight(lw, "scales or biases bytes do not match their shape");
    // MLX promotes mixed half types to f32.
    s.dtype = sc.dtype == bi.dtype ? sc.dtype : DType::F32;
    return s;
}

void mlxRowsScalar(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out)
{
    for (uint64_t n = r0; n < r1; ++n) {
        float* o = out + (n - r0) * s.cols;
        for (uint64_t k = 0; k < s.cols; ++k) {
            const uint64_t g = n * s.groups + k / s.groupSize;
            const float scale = s.scales.at(g), bias = s.biases.at(g);
            const float qs = roundToDtype(static_cast<float>(s.code(n, k)) * scale, s.dtype);
            o[k] = roundToDtype(qs + bias, s.dtype);
        }
    }
}

void dequantMlxRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<MlxAffine, RowSpan::Rows>(
        w, rowBegin, rowEnd, out, mlxState, mlxRowsScalar,
        simdKernel(path, SimdKernels<MlxRowsFn>{QS_X86(mlxRowsAvx512), QS_X86(mlxRowsAvx2), QS_NEON(mlxRowsNeon)}));
}

} // namespace qs
