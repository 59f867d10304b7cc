#include "formats/torchao/torchao.h"

#include "base/intmath.h"
#include "base/shapetext.h"

#include <string>

namespace qs {

float Torchao::code(uint8_t q) const
{
    switch (codeType) {
    case DType::I8: return static_cast<float>(static_cast<int8_t>(q));
    case DType::F8_E4M3: return f8e4m3ToF32(q);
    case DType::F8_E5M2: return f8e5m2ToF32(q);
    case DType::F8_E4M3FNUZ: return f8e4m3fnuzToF32(q);
    default: return f8e5m2fnuzToF32(q); // the state admits no other code type
    }
}

uint64_t Torchao::scaleIndex(uint64_t row, uint64_t col) const
{
    uint64_t index = (col / block.back()) * scaleStride.back();
    for (size_t d = dims.size() - 1; d-- > 0;) {
        index += (row % dims[d]) / block[d] * scaleStride[d];
        row /= dims[d];
    }
    return index;
}

Torchao torchaoState(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const TensorEntry& q = w.entry("qdata");
    const TensorEntry& sc = w.entry("scale");
    Torchao s;
    s.codeType = q.dtype;
    if (q.dtype != DType::I8 && q.dtype != DType::F8_E4M3 && q.dtype != DType::F8_E5M2 && q.dtype != DType::F8_E4M3FNUZ
        && q.dtype != DType::F8_E5M2FNUZ)
        failWeight(lw, "'" + std::string(q.name) + "' is " + std::string(dtypeName(q.dtype)) + ", not int8 or float8");
    if (q.shape.empty() || q.shape != lw.shape)
        failWeight(lw,
                   "'" + std::string(q.name) + "' is " + shapeText(q.shape) + ", the weight " + shapeText(lw.shape));
    s.dims = q.shape;
    s.cols = q.shape.back();
    s.rows = lw.outFeatures();
    s.qdata = w.bytes("qdata");
    if (s.qdata.size() != checkedMul(s.rows, s.cols, "weight '" + lw.name + "'"))
        failWeight(
            lw, "'" + std::string(q.name) + "' holds " + std::to_string(s.qdata.size()) + " bytes, not one a weight");
    s.scale = FloatView(w.bytes("scale"), sc.dtype, "weight '" + lw.name + "' tensor '" + std::string(sc.name) + "'");
    // One scale for everything, or one a block: the scale's dims divide qdata's
    // (_maybe_expand_scale_to_tensor_shape; dequantize_affine's block_size says the same).
    const bool perTensor = sc.elementCount() == 1;
    if (!perTensor && sc.shape.size() != q.shape.size())
        failWeight(lw,
                   "scale '" + std::string(sc.name) + "' " + shapeText(sc.shape) + " does not tile qdata "
                       + shapeText(q.shape));
    s.block.resize(q.shape.size());
    s.scaleStride.resize(q.shape.size());
    uint64_t stride = 1;
    for (size_t d = q.shape.size(); d-- > 0;) {
        const uint64_t n = perTensor ? 1 : sc.shape[d];
        if (n == 0 || q.shape[d] % n != 0)
            failWeight(lw,
                       "scale '" + std::string(sc.name) + "' " + shapeText(sc.shape) + " does not tile qdata "
                           + shapeText(q.shape));
        s.block[d] = q.shape[d] / n;
        s.scaleStride[d] = perTensor ? 0 : stride;
        stride *= n;
    }
    if (s.scale.size() != (perTensor ? 1 : stride))
        failWeight(lw, "scale '" + std::string(sc.name) + "' holds " + std::to_string(s.scale.size()) + " values");
    const auto dt = lw.params.find("dtype");
    const std::string dtype = dt == lw.params.end() ? "float32" : dt->second;
    s.dtype = dtype == "bfloat16" ? DType::BF16 : dtype == "float16" ? DType::F16 : DType::F32;
    if (s.dtype == DType::F32 && dtype != "float32")
        failWeight(lw, "dtype '" + dtype + "' is not float32, float16 or bfloat16");
    return s;
}

void torchaoRowsScalar(const Torchao& s, uint64_t r0, uint64_t r1, float* out)
{
    for (uint64_t r = r0; r < r1; ++r) {
        const uint8_t* q = s.qdata.data() + r * s.cols;
        const uint64_t base = s.scaleIndex(r, 0), bk = s.block.back(), step = s.scaleStride.back();
        for (uint64_t c = 0; c < s.cols; ++c)
            *out++ = roundToDtype(s.code(q[c]) * s.scale.at(base + c / bk * step), s.dtype);
    }
}

void dequantTorchaoRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath)
{
    using RowsFn = void (*)(const Torchao&, uint64_t, uint64_t, float*);
    dispatchRows<Torchao, RowSpan::Rows>(w, rowBegin, rowEnd, out, torchaoState, torchaoRowsScalar, RowsFn(nullptr));
}

} // namespace qs
