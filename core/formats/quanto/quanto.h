#pragma once
// optimum-quanto weights (huggingface/optimum-quanto, tensor/weights/): a QModule's frozen
// weight saved as its inner tensors. Every kind keeps one scale per row of a 2-D view [R, C]
// of the weight (axis 0); the logical weight is that view read in row-major order.
//  - qint2 / qint4 (WeightQBitsTensor): `weight._data._data` U8 [ceil(R / p), C], p = 8 / bits,
//    the PackedTensor packing along the FIRST axis: byte row i holds view rows i, i + P, i + 2P
//    ... (P packed rows) from bit 0 up; `weight._scale` and `weight._shift` [R, 1] in the model
//    dtype. A weight with more than 128 inputs is grouped: the view is [N*K/g, g] (g = 128, 96,
//    64 or 32), which upstream's ungroup() turns back into [N, K] by a plain reshape.
//    w = scale * q - shift, both operations rounded to the scale dtype (QBitsDequantizer); a
//    shift stored as an integer (quantize_weight(zeropoint=True)) gives w = scale * (q - shift).
//  - qint8 (WeightQBytesTensor): `weight._data` I8 [N, K], w = scale * q, one rounding.
//  - qfloat8: `weight._data` F8 (E4M3FN, E5M2 or E4M3FNUZ) [N, K], w = scale * f8 (the f8 value
//    is exact in the scale dtype), one rounding.
// A per-tensor scale ([] or one value) makes the view a single row.
#include "formats/findings.h"
#include "formats/kernel.h"
#include "formats/kernelutil.h"
#include "formats/scalegrid.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace qs {

struct Quanto {
    enum class Kind : uint8_t { QBits, QInt8, QFloat8 } kind = Kind::QBits;
    int bits = 4; // 2, 4 (QBits) or 8
    DType dataType = DType::U8; // I8, an F8 dtype, or U8 (QBits)
    uint64_t rows = 0, cols = 0; // the logical [N, K] (leading dims folded into N)
    uint64_t viewRows = 0, viewCols = 0; // [R, C]: one scale (and shift) per view row
    uint64_t packedRows = 0; // QBits: ceil(R / parts)
    unsigned parts = 1; // QBits: codes per byte, 8 / bits
    std::span<const uint8_t> data;
    FloatView scale, shift; // [R]; shift for QBits with a float shift
    std::span<const uint8_t> intShift; // [R] integer shifts (zeropoint=True), else empty
    DType intShiftType = DType::U8;
    DType dtype = DType::F32; // the scale's: the arithmetic rounds to it

    // The stored code of view element (r, c): QBits unsigned 0..2^bits-1; QInt8 the signed
    // byte; QFloat8 the raw byte.
    unsigned code(uint64_t r, uint64_t c) const
    {
        if (kind != Kind::QBits)
            return data[r * viewCols + c];
        const uint64_t part = r / packedRows;
        return (data[(r - part * packedRows) * viewCols + c] >> (unsigned(bits) * part)) & ((1u << bits) - 1);
    }
    // The integer shift of view row r as upstream subtracts it (both cast to int8).
    int shiftInt(uint64_t r) const { return int(int8_t(readInt(intShift, intShiftType, r))); }
    // The stored value before the scale: the code, or the float8 value.
    float value(uint64_t r, uint64_t c) const;
    // The weight a qint2/qint4 code q of view row r dequantizes to (the kernels' tables).
    float qbitsValue(uint64_t r, unsigned q) const
    {
        if (!intShift.empty()) // int8(q) - int8(shift) in int8, as upstream casts both first
            return roundToDtype(float(int8_t(int(q) - shiftInt(r))) * scale.at(r), dtype);
        return roundToDtype(roundToDtype(float(q) * scale.at(r), dtype) - shift.at(r), dtype);
    }
};
// Parses and checks a weight's members against each other (throws naming the weight).
Quanto quantoState(const WeightData& w);

// The format id of a kind and width: "quanto-qint4", "quanto-qfloat8" ...
std::string_view quantoFormatId(Quanto::Kind kind, int bits);

// Flat logical elements [e0, e0 + n).
using QuantoElementsFn = void (*)(const Quanto& s, uint64_t e0, uint64_t n, float* out);
void quantoElementsScalar(const Quanto& s, uint64_t e0, uint64_t n, float* out);
void quantoElementsAvx2(const Quanto& s, uint64_t e0, uint64_t n, float* out);
void quantoElementsAvx512(const Quanto& s, uint64_t e0, uint64_t n, float* out);

void dequantQuantoRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

// verify's checks (quanto_verify.cpp) and the group scales grid (quanto_scales.cpp).
void verifyQuantoWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales quantoGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                              const std::atomic<bool>* cancel);

class LayoutRegistry;
struct FamilyTargets;
// The row's layouts (layoutspec_quanto.cpp) and its budget rows (quanto_targets.cpp).
void registerQuantoLayouts(LayoutRegistry& r);
const FamilyTargets& quantoTargets();

namespace detect {
class Context;
struct Group;
class QuantConfig;
// Detection (quanto_detect.cpp), reached through the family row (formats/family.h), and the
// quanto_qmap.json it cross-checks.
bool quantoGroup(Context& cx, const Group& group);
void quantoReadConfig(const Checkpoint& ckpt, QuantConfig& cfg);
} // namespace detect

} // namespace qs
