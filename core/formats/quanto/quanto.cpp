#include "formats/quanto/quanto.h"

#include "base/intmath.h"

#include <string>

namespace qs {

std::string_view quantoFormatId(Quanto::Kind kind, int bits)
{
    switch (kind) {
    case Quanto::Kind::QInt8: return "quanto-qint8";
    case Quanto::Kind::QFloat8: return "quanto-qfloat8";
    case Quanto::Kind::QBits: break;
    }
    return bits == 2 ? "quanto-qint2" : "quanto-qint4";
}

float Quanto::value(uint64_t r, uint64_t c) const
{
    const unsigned q = code(r, c);
    switch (kind) {
    case Kind::QInt8: return float(int8_t(q));
    case Kind::QFloat8:
        return dataType == DType::F8_E5M2    ? f8e5m2ToF32(uint8_t(q))
            : dataType == DType::F8_E4M3FNUZ ? f8e4m3fnuzToF32(uint8_t(q))
                                             : f8e4m3ToF32(uint8_t(q));
    case Kind::QBits: break;
    }
    return float(q);
}

Quanto quantoState(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string what = "weight '" + lw.name + "'";
    Quanto s;
    const bool packed = w.has("weight._data._data");
    const TensorEntry& d = w.entry(packed ? "weight._data._data" : "weight._data");
    const TensorEntry& sc = w.entry("weight._scale");
    s.dataType = d.dtype;
    if (packed) {
        s.kind = Quanto::Kind::QBits;
        if (d.dtype != DType::U8)
            failWeight(lw, "'" + std::string(d.name) + "' is " + std::string(dtypeName(d.dtype)) + ", expected U8");
    } else if (d.dtype == DType::I8) {
        s.kind = Quanto::Kind::QInt8;
        s.bits = 8;
    } else if (d.dtype == DType::F8_E4M3 || d.dtype == DType::F8_E5M2 || d.dtype == DType::F8_E4M3FNUZ) {
        s.kind = Quanto::Kind::QFloat8;
        s.bits = 8;
    } else {
        failWeight(lw,
                   "'" + std::string(d.name) + "' is " + std::string(dtypeName(d.dtype))
                       + ", expected I8 or a float8 dtype");
    }
    if (d.shape.empty() || d.shape[0] == 0)
        failWeight(lw, "'" + std::string(d.name) + "' holds no rows");
    s.data = w.ckpt.bytes(d);
    s.dtype = sc.dtype;
    if (sc.dtype != DType::F32 && sc.dtype != DType::F16 && sc.dtype != DType::BF16)
        failWeight(lw,
                   "'" + std::string(sc.name) + "' is " + std::string(dtypeName(sc.dtype))
                       + ", expected F32, F16 or BF16");
    s.scale = FloatView(w.ckpt.bytes(sc), sc.dtype, what + " tensor '" + std::string(sc.name) + "'");
    s.viewRows = s.scale.size();
    if (s.viewRows == 0)
        failWeight(lw, "'" + std::string(sc.name) + "' is empty");

    uint64_t total = 0;
    if (s.kind == Quanto::Kind::QBits) {
        // The packed first axis holds ceil(R / parts) rows; the others are the view's.
        s.packedRows = d.shape[0];
        s.viewCols = 1;
        for (size_t i = 1; i < d.shape.size(); ++i)
            s.viewCols = checkedMul(s.viewCols, d.shape[i], what);
        s.bits = lw.bits;
        if (s.bits != 2 && s.bits != 4)
            failWeight(lw, std::to_string(s.bits) + " bits: quanto packs 2 or 4");
        s.parts = 8 / unsigned(s.bits);
        if (ceilDiv(s.viewRows, s.parts) != s.packedRows)
            failWeight(lw,
                       "'" + std::string(d.name) + "' holds " + std::to_string(s.packedRows) + " packed rows; the "
                           + std::to_string(s.viewRows) + " scales need "
                           + std::to_string(ceilDiv(s.viewRows, s.parts)));
        total = checkedMul(s.viewRows, s.viewCols, what);
        if (s.data.size() != checkedMul(s.packedRows, s.viewCols, what))
            failWeight(lw, "'" + std::string(d.name) + "' bytes do not match its shape");
        if (!w.has("weight._shift"))
            failWeight(lw, "the weight._shift member is missing");
        const TensorEntry& sh = w.entry("weight._shift");
        if (dtypeIsInteger(sh.dtype)) {
            s.intShift = w.ckpt.bytes(sh);
            s.intShiftType = sh.dtype;
            if (sh.elementCount() != s.viewRows)
                failWeight(lw,
                           "'" + std::string(sh.name) + "' holds " + std::to_string(sh.elementCount())
                               + " values, the scales " + std::to_string(s.viewRows));
        } else {
            s.shift = FloatView(w.ckpt.bytes(sh), sh.dtype, what + " tensor '" + std::string(sh.name) + "'");
            if (s.shift.size() != s.viewRows)
                failWeight(lw,
                           "'" + std::string(sh.name) + "' holds " + std::to_string(s.shift.size())
                               + " values, the scales " + std::to_string(s.viewRows));
        }
    } else {
        total = 1;
        for (uint64_t dim : d.shape)
            total = checkedMul(total, dim, what);
        if (s.data.size() != total)
            failWeight(lw, "'" + std::string(d.name) + "' bytes do not match its shape");
        // One scale per output row (axis 0), or one for the whole tensor.
        if (s.viewRows != 1 && s.viewRows != d.shape[0])
            failWeight(lw,
                       "'" + std::string(sc.name) + "' holds " + std::to_string(s.viewRows) + " scales; the rows need "
                           + std::to_string(d.shape[0]) + " (or 1)");
        s.viewCols = total / s.viewRows;
    }
    if (total == 0)
        failWeight(lw, "'" + std::string(d.name) + "' holds no weights");
    // The logical shape is the view's or, when a bias gave the output rows, the ungrouped one:
    // the same elements in the same order either way.
    s.rows = lw.outFeatures();
    s.cols = lw.inFeatures();
    if (lw.shape.empty() || checkedMul(s.rows, s.cols, what) != total)
        failWeight(lw, "the detected shape does not hold the " + std::to_string(total) + " stored weights");
    return s;
}

void quantoElementsScalar(const Quanto& s, uint64_t e0, uint64_t n, float* out)
{
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t e = e0 + i, r = e / s.viewCols, c = e % s.viewCols;
        out[i] = s.kind == Quanto::Kind::QBits ? s.qbitsValue(r, s.code(r, c))
                                               : roundToDtype(s.value(r, c) * s.scale.at(r), s.dtype);
    }
}

void dequantQuantoRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<Quanto, RowSpan::Elements>(
        w, rowBegin, rowEnd, out, quantoState, quantoElementsScalar,
        simdKernel(path, SimdKernels<QuantoElementsFn>{QS_X86(quantoElementsAvx512), QS_X86(quantoElementsAvx2)}));
}

} // namespace qs
