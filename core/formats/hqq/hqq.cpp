#include "formats/hqq/hqq.h"
#include "base/intmath.h"
#include "formats/statecache.h"

#include <string>

namespace qs {

namespace {

// A scalar stored as a member tensor (HQQ's encoded state dict), else a detection param.
bool intValue(const WeightData& w, const std::string& role, int64_t& v)
{
    if (w.has(role)) {
        const TensorEntry& e = w.entry(role);
        if (!dtypeIsInteger(e.dtype) || e.elementCount() < 1)
            failWeight(w.weight, "'" + std::string(e.name) + "' is not an integer scalar");
        v = readInt(w.ckpt.bytes(e), e.dtype, 0);
        return true;
    }
    const auto it = w.weight.params.find(role);
    if (it == w.weight.params.end())
        return false;
    try {
        v = std::stoll(it->second);
    } catch (const std::exception&) {
        failWeight(w.weight, "parameter " + role + " = '" + it->second + "' is not an integer");
    }
    return true;
}

std::string stringValue(const WeightData& w, const std::string& role)
{
    if (w.has(role)) {
        const auto b = w.bytes(role);
        if (b.size() > 256)
            failWeight(w.weight, "'" + role + "' is longer than 256 characters");
        return std::string(b.begin(), b.end()); // U8 character codes
    }
    const auto it = w.weight.params.find(role);
    return it == w.weight.params.end() ? std::string() : it->second;
}

} // namespace

Hqq hqqState(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    const std::string what = "weight '" + lw.name + "'";
    Hqq s;
    int64_t v = 0;
    s.bits = intValue(w, "nbits", v) ? static_cast<int>(v) : lw.bits;
    if (s.bits != 1 && s.bits != 2 && s.bits != 3 && s.bits != 4 && s.bits != 5 && s.bits != 6 && s.bits != 8)
        failWeight(lw, "nbits " + std::to_string(s.bits) + " is not 1, 2, 3, 4, 5, 6 or 8");
    const int64_t g = intValue(w, "group_size", v) ? v : lw.groupSize;
    s.axis = intValue(w, "axis", v) ? static_cast<int>(v) : 1;
    if (s.axis != 0 && s.axis != 1)
        failWeight(lw, "axis " + std::to_string(s.axis) + " is not 0 or 1");

    if (w.has("shape")) {
        const TensorEntry& e = w.entry("shape");
        if (!dtypeIsInteger(e.dtype) || e.elementCount() != 2)
            failWeight(lw, "shape '" + std::string(e.name) + "' is not an integer [2] tensor");
        const auto b = w.ckpt.bytes(e);
        const int64_t n = readInt(b, e.dtype, 0), k = readInt(b, e.dtype, 1);
        if (n <= 0 || k <= 0)
            failWeight(lw, "shape holds " + std::to_string(n) + " x " + std::to_string(k));
        s.rows = static_cast<uint64_t>(n);
        s.cols = static_cast<uint64_t>(k);
    } else {
        s.rows = lw.outFeatures();
        s.cols = lw.inFeatures();
    }
    const uint64_t total = checkedMul(s.rows, s.cols, what);
    if (g <= 0 || total % static_cast<uint64_t>(g))
        failWeight(lw,
                   "group size " + std::to_string(g) + " does not divide the " + std::to_string(total) + " weights");
    s.viewRows = s.axis == 1 ? total / static_cast<uint64_t>(g) : static_cast<uint64_t>(g);
    s.viewCols = total / s.viewRows;

    const std::string packing = stringValue(w, "packing");
    s.parts = s.bits == 4 ? 2 : s.bits == 2 ? 4 : s.bits == 1 ? 8 : s.bits == 3 ? 10 : 1;
    if (!packing.empty() && packing != std::to_string(s.bits) + (s.bits == 3 ? "bit_32" : "bit_u8"))
        failWeight(lw, "packing '" + packing + "' does not match nbits " + std::to_string(s.bits));
    if (s.parts == 10) {
        s.step = ceilDiv(s.viewRows, 10);
    } else {
        if (s.viewRows % s.parts)
            failWeight(lw,
                       std::to_string(s.viewRows) + " rows cannot be split in " + std::to_string(s.parts) + " parts");
        s.step = s.viewRows / s.parts;
    }
    s.wq = w.bytes("W_q");
    const uint64_t need = checkedMul(checkedMul(s.step, s.viewCols, what), s.parts == 10 ? 4 : 1, what);
    if (s.wq.size() != need)
        failWeight(lw,
                   "W_q holds " + std::to_string(s.wq.size()) + " bytes, the packing needs " + std::to_string(need));

    const TensorEntry& sc = w.entry("scale");
    const TensorEntry& z = w.entry("zero");
    s.scale = FloatView(w.ckpt.bytes(sc), sc.dtype, what + " tensor '" + std::string(sc.name) + "'");
    s.zero = FloatView(w.ckpt.bytes(z), z.dtype, what + " tensor '" + std::string(z.name) + "'");
    const uint64_t nmeta = s.axis == 1 ? s.viewRows : s.viewCols;
    if (s.scale.size() != nmeta || s.zero.size() != nmeta)
        failWeight(lw, "scale and zero need " + std::to_string(nmeta) + " values each");

    const std::string cd = stringValue(w, "compute_dtype");
    if (cd == "torch.float16" || cd == "float16")
        s.dtype = DType::F16;
    else if (cd == "torch.bfloat16" || cd == "bfloat16")
        s.dtype = DType::BF16;
    else if (cd == "torch.float32" || cd == "float32")
        s.dtype = DType::F32;
    else if (cd.empty())
        s.dtype = sc.dtype;
    else
        failWeight(lw, "compute_dtype '" + cd + "' is not float16, bfloat16 or float32");
    return s;
}

void hqqElementsScalar(const Hqq& s, uint64_t e0, uint64_t n, float* out)
{
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t e = e0 + i, r = e / s.viewCols, c = e % s.viewCols;
        const float d = roundToDtype(static_cast<float>(s.code(r, c)) - s.zeroFor(r, c), s.dtype);
        out[i] = roundToDtype(d * s.scaleFor(r, c), s.dtype);
    }
}

void dequantHqqRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<Hqq, RowSpan::Elements>(
        w, rowBegin, rowEnd, out, hqqState, hqqElementsScalar,
        simdKernel(path, SimdKernels<HqqElementsFn>{QS_X86(hqqElementsAvx512), QS_X86(hqqElementsAvx2)}));
}

} // namespace qs
