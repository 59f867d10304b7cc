#include "formats/plain/floats.h"

#include "formats/kernelutil.h"

#include <bit>
#include <cmath>
#include <limits>

namespace qs {

float roundToDtype(float f, DType t)
{
    if (t == DType::F16)
        return halfToFloat(floatToHalf(f));
    if (t == DType::BF16)
        return bf16ToFloat(floatToBf16(f));
    return f;
}

namespace {

// sign * (implicit + m / 2^mbits) * 2^(e - bias), subnormal when e == 0.
float minifloat(uint8_t v, int ebits, int mbits, int bias)
{
    const int s = v >> (ebits + mbits);
    const int e = (v >> mbits) & ((1 << ebits) - 1);
    const int m = v & ((1 << mbits) - 1);
    const float mag = e == 0 ? std::ldexp(static_cast<float>(m), 1 - bias - mbits)
                             : std::ldexp(static_cast<float>(m + (1 << mbits)), e - bias - mbits);
    return s ? -mag : mag;
}

} // namespace

float f8e4m3ToF32(uint8_t v)
{
    if ((v & 0x7F) == 0x7F)
        return (v & 0x80) ? -std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::quiet_NaN();
    return minifloat(v, 4, 3, 7);
}

float f8e5m2ToF32(uint8_t v)
{
    // E5M2 is the top byte of an f16: the conversion is exact and keeps inf/NaN.
    return halfToFloat(static_cast<uint16_t>(v << 8));
}

float f8e4m3fnuzToF32(uint8_t v)
{
    if (v == 0x80)
        return std::numeric_limits<float>::quiet_NaN();
    return minifloat(v, 4, 3, 8);
}

float f8e5m2fnuzToF32(uint8_t v)
{
    if (v == 0x80)
        return std::numeric_limits<float>::quiet_NaN();
    return minifloat(v, 5, 2, 16);
}

float f8e8m0ToF32(uint8_t v)
{
    if (v == 0xFF)
        return std::numeric_limits<float>::quiet_NaN();
    return std::ldexp(1.0f, static_cast<int>(v) - 127);
}

FloatView::FloatView(std::span<const uint8_t> bytes, DType dtype, const std::string& what)
    : m_data(bytes.data())
    , m_dtype(dtype)
{
    const unsigned bits = dtypeBits(dtype);
    if (!dtypeIsFloat(dtype) || bits < 8 || dtype == DType::C64)
        throw Error(what + ": dtype " + std::string(dtypeName(dtype)) + " is not a decodable float type");
    m_count = bytes.size() / (bits / 8);
}

float FloatView::at(uint64_t i) const
{
    switch (m_dtype) {
    case DType::F32: return loadLE<float>(m_data + 4 * i);
    case DType::F16: return halfToFloat(loadLE<uint16_t>(m_data + 2 * i));
    case DType::BF16: return bf16ToFloat(loadLE<uint16_t>(m_data + 2 * i));
    case DType::F64: return static_cast<float>(loadLE<double>(m_data + 8 * i));
    case DType::F8_E4M3: return f8e4m3ToF32(m_data[i]);
    case DType::F8_E5M2: return f8e5m2ToF32(m_data[i]);
    case DType::F8_E4M3FNUZ: return f8e4m3fnuzToF32(m_data[i]);
    case DType::F8_E5M2FNUZ: return f8e5m2fnuzToF32(m_data[i]);
    case DType::F8_E8M0: return f8e8m0ToF32(m_data[i]);
    default: return std::numeric_limits<float>::quiet_NaN(); // rejected by the constructor
    }
}

void FloatView::read(uint64_t first, uint64_t count, float* out) const
{
    switch (m_dtype) {
    case DType::F32: std::memcpy(out, m_data + 4 * first, 4 * count); return;
    case DType::F16:
        for (uint64_t j = 0; j < count; ++j)
            out[j] = halfToFloat(loadLE<uint16_t>(m_data + 2 * (first + j)));
        return;
    case DType::BF16:
        for (uint64_t j = 0; j < count; ++j)
            out[j] = bf16ToFloat(loadLE<uint16_t>(m_data + 2 * (first + j)));
        return;
    default:
        for (uint64_t j = 0; j < count; ++j)
            out[j] = at(first + j);
    }
}

bool dtypeIsInteger(DType t)
{
    switch (t) {
    case DType::U8:
    case DType::I8:
    case DType::U16:
    case DType::I16:
    case DType::U32:
    case DType::I32:
    case DType::U64:
    case DType::I64: return true;
    default: return false;
    }
}

int64_t readInt(std::span<const uint8_t> b, DType t, uint64_t i)
{
    const uint8_t* p = b.data();
    switch (t) {
    case DType::U8: return p[i];
    case DType::I8: return static_cast<int8_t>(p[i]);
    case DType::U16: return loadLE<uint16_t>(p + 2 * i);
    case DType::I16: return loadLE<int16_t>(p + 2 * i);
    case DType::U32: return loadLE<uint32_t>(p + 4 * i);
    case DType::I32: return loadLE<int32_t>(p + 4 * i);
    case DType::U64: return static_cast<int64_t>(loadLE<uint64_t>(p + 8 * i));
    case DType::I64: return loadLE<int64_t>(p + 8 * i);
    default: return 0;
    }
}

void failWeight(const LogicalWeight& w, const std::string& what)
{
    throw Error("weight '" + w.name + "' (" + w.format + "): " + what);
}

// ---------------------------------------------------------------------------------------
// Plain float tensors: the stored values converted exactly to f32 (F64 rounds RNE, as
// torch's .float() does).

namespace {

const TensorEntry& floatEntry(const WeightData& w)
{
    if (w.has("weight"))
        return w.entry("weight");
    if (w.weight.members.size() == 1)
        return w.ckpt.tensors.at(w.weight.members.front().second);
    failWeight(w.weight, "no 'weight' tensor");
}

} // namespace

FloatTensor floatTensor(const WeightData& w)
{
    const TensorEntry& e = floatEntry(w);
    const std::string what = "weight '" + w.weight.name + "' tensor '" + std::string(e.name) + "'";
    const unsigned bits = dtypeBits(e.dtype);
    if (!dtypeIsFloat(e.dtype) || bits < 8 || e.dtype == DType::C64)
        throw Error(what + ": dtype " + std::string(dtypeName(e.dtype)) + " is not decodable (raw bytes only)");
    FloatTensor t;
    t.dtype = e.dtype;
    t.bytes = w.ckpt.bytes(e);
    t.rows = w.weight.outFeatures();
    t.cols = w.weight.inFeatures();
    const uint64_t n = checkedMul(t.rows, t.cols, what);
    if (n != e.elementCount() || checkedMul(n, bits / 8, what) != t.bytes.size())
        throw Error(what + ": " + std::to_string(t.bytes.size()) + " bytes do not hold the logical shape "
                    + std::to_string(t.rows) + " x " + std::to_string(t.cols));
    return t;
}

void floatElementsScalar(const FloatTensor& t, uint64_t e0, uint64_t n, float* out)
{
    const FloatView v(t.bytes, t.dtype, "float tensor");
    for (uint64_t i = 0; i < n; ++i)
        out[i] = v.at(e0 + i);
}

namespace {

// The fast path for 8-bit floats: a 256-entry table built from the scalar decoder.
struct F8Table {
    float v[256];
    explicit F8Table(float (*dec)(uint8_t))
    {
        for (int i = 0; i < 256; ++i)
            v[i] = dec(static_cast<uint8_t>(i));
    }
};

const float* f8Table(DType t)
{
    static const F8Table e4m3(f8e4m3ToF32), e5m2(f8e5m2ToF32), e4m3fnuz(f8e4m3fnuzToF32), e5m2fnuz(f8e5m2fnuzToF32),
        e8m0(f8e8m0ToF32);
    switch (t) {
    case DType::F8_E4M3: return e4m3.v;
    case DType::F8_E5M2: return e5m2.v;
    case DType::F8_E4M3FNUZ: return e4m3fnuz.v;
    case DType::F8_E5M2FNUZ: return e5m2fnuz.v;
    case DType::F8_E8M0: return e8m0.v;
    default: return nullptr;
    }
}

// The dtypes the SIMD kernels of `path` convert; the rest take the tables and loops below.
bool simdDtype(DType d, SimdPath path)
{
    if (path == SimdPath::Neon)
        return d == DType::F16 || d == DType::BF16 || d == DType::F32;
    return d == DType::F16 || d == DType::BF16 || d == DType::F32 || d == DType::F8_E4M3 || d == DType::F8_E5M2;
}

void f8TableElements(const FloatTensor& t, uint64_t e0, uint64_t n, float* out)
{
    const float* lut = f8Table(t.dtype);
    const uint8_t* p = t.bytes.data();
    for (uint64_t i = 0; i < n; ++i)
        out[i] = lut[p[e0 + i]];
}

// The fast path's kernel for t's dtype: the SIMD kernel where `path` has one for it, else the
// 8-bit floats' table, else the scalar loop; nullptr on the scalar path.
FloatElementsFn floatElementsFast(DType dtype, SimdPath path)
{
    if (path == SimdPath::Scalar)
        return nullptr;
    const auto kernel = simdKernel(path,
                                   SimdKernels<FloatElementsFn>{QS_X86(floatElementsAvx512), QS_X86(floatElementsAvx2),
                                                                QS_NEON(floatElementsNeon)});
    if (kernel && simdDtype(dtype, path))
        return kernel;
    return f8Table(dtype) ? f8TableElements : floatElementsScalar;
}

} // namespace

void dequantFloatRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    const TensorEntry& e = floatEntry(w);
    dispatchRows<FloatTensor, RowSpan::Elements>(w, rowBegin, rowEnd, out, floatTensor, floatElementsScalar,
                                                 floatElementsFast(e.dtype, path));
}

} // namespace qs
