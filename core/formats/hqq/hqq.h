#pragma once
// HQQ (mobiusml/hqq as transformers serializes it; spec B.9). The [N, K] weight is viewed as
// [N*K/g, g] (axis 1) or [g, N*K/g] (axis 0); packing splits the FIRST dimension of that view
// into halves / quarters / eighths (4, 2, 1 bit, in u8) or tenths (3 bit, in int32 at shifts
// 27, 24, ..., 0, rows padded to a multiple of 10); 5, 6 and 8 bits are stored unpacked.
// W = ((Q - zero) * scale) in the compute dtype: two roundings, as torch does for half types.
// Scale and zero are used as stored (HQQ keeps the scale already inverted); NaN/Inf/subnormal
// values pass through (torch CPU does not flush denormals).
#include "formats/kernelutil.h"
#include "formats/kernel.h"

#include <cstdint>
#include <span>
#include <string>

namespace qs {

struct Hqq {
    int bits = 4;
    int axis = 1;
    uint64_t rows = 0, cols = 0; // logical [N, K]
    uint64_t viewRows = 0, viewCols = 0; // the 2-D view that was packed
    uint64_t step = 0; // packed rows: viewRows / parts (3-bit: ceil(viewRows / 10))
    unsigned parts = 1; // 1, 2, 4, 8 or 10
    std::span<const uint8_t> wq;
    FloatView scale, zero; // per view row (axis 1) or per view column (axis 0)
    DType dtype = DType::F16; // compute dtype

    unsigned code(uint64_t r, uint64_t c) const
    {
        const uint64_t part = r / step, i = (r % step) * viewCols + c;
        switch (parts) {
        case 1: return wq[i];
        case 10: return (loadLE<uint32_t>(wq.data() + 4 * i) >> (27 - 3 * part)) & 7u;
        default: {
            const unsigned b = 8 / parts;
            return (wq[i] >> (8 - b * (part + 1))) & ((1u << b) - 1);
        }
        }
    }
    float scaleFor(uint64_t r, uint64_t c) const { return scale.at(axis == 1 ? r : c); }
    float zeroFor(uint64_t r, uint64_t c) const { return zero.at(axis == 1 ? r : c); }
};
Hqq hqqState(const WeightData& w);

// Flat logical elements [e0, e0 + n).
using HqqElementsFn = void (*)(const Hqq& s, uint64_t e0, uint64_t n, float* out);
void hqqElementsScalar(const Hqq& s, uint64_t e0, uint64_t n, float* out);
void hqqElementsAvx2(const Hqq& s, uint64_t e0, uint64_t n, float* out);
// Axis 1 at every width; axis 0 through hqqElementsAvx2.
void hqqElementsAvx512(const Hqq& s, uint64_t e0, uint64_t n, float* out);

void dequantHqqRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

class LayoutRegistry;
// The row's layouts (layoutspec_hqq.cpp).
void registerHqqLayouts(LayoutRegistry& r);

namespace detect {
class Context;
struct Group;
// Detection (hqq_detect.cpp), reached through the family row (formats/family.h).
bool hqqGroup(Context& cx, const Group& group);
} // namespace detect

} // namespace qs
