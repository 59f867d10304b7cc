#pragma once
// bitsandbytes dequantization (spec B.5, B.6): 4-bit NF4 / FP4 with and without nested
// (double-quantized) absmax, and LLM.int8 with SCB. Output is the exact f32 the upstream
// default kernels compute before their final cast to the quant state's dtype.
#include "base/intmath.h"
#include "formats/findings.h"
#include "formats/kernelutil.h"
#include "formats/kernel.h"
#include "formats/scalegrid.h"

#include <cstdint>
#include <span>
#include <string>

namespace qs {

// Code tables of bitsandbytes (f32 bits): NF4, and bnb's own FP4 (not OCP E2M1).
extern const float kBnbNf4[16];
extern const float kBnbFp4[16];

// Everything needed to decode one 4-bit weight, parsed from its members and quant_state JSON.
struct Bnb4 {
    bool fp4 = false;
    uint64_t rows = 0, cols = 0; // original [N, K]
    uint64_t blocksize = 64;
    std::string dtype; // "float16", "bfloat16", "float32": the reference's output dtype
    std::span<const uint8_t> packed; // element 2i in the high nibble of byte i
    // Not nested: f32 absmax. Nested: u8 codes into nestedMap, scaled per nestedBlocksize.
    bool nested = false;
    FloatView absmax;
    std::span<const uint8_t> absmaxCodes;
    FloatView nestedAbsmax, nestedMap;
    uint64_t nestedBlocksize = 256;
    float nestedOffset = 0.0f;

    const float* table() const { return fp4 ? kBnbFp4 : kBnbNf4; }
    uint64_t blocks() const { return ceilDiv(rows * cols, blocksize); }
    // The block's absmax in f32: nested = fl32(fl32(map[u8] * nested_absmax[b / 256]) + offset).
    float blockAbsmax(uint64_t block) const;
};
Bnb4 bnb4State(const WeightData& w);
// blockAbsmax(b) for blocks [b0, b0 + count) into out, each table read once.
void bnb4BlockAbsmaxes(const Bnb4& s, uint64_t b0, uint64_t count, float* out);

// Flat elements [e0, e0 + n): code[q] * absmax[e / blocksize] in f32.
using Bnb4ElementsFn = void (*)(const Bnb4& s, uint64_t e0, uint64_t n, float* out);
void bnb4ElementsScalar(const Bnb4& s, uint64_t e0, uint64_t n, float* out);
void bnb4ElementsAvx2(const Bnb4& s, uint64_t e0, uint64_t n, float* out);
void bnb4ElementsAvx512(const Bnb4& s, uint64_t e0, uint64_t n, float* out);

struct BnbInt8 {
    uint64_t rows = 0, cols = 0;
    std::span<const uint8_t> q; // int8 [N, K]
    FloatView scb; // [N]
};
BnbInt8 bnbInt8State(const WeightData& w);
// Rows [r0, r1): fl32(fl32(q * SCB[n]) * fl32(1/127)), as the default int8_vectorwise_dequant.
using BnbInt8RowsFn = void (*)(const BnbInt8& s, uint64_t r0, uint64_t r1, float* out);
void bnbInt8RowsScalar(const BnbInt8& s, uint64_t r0, uint64_t r1, float* out);
void bnbInt8RowsAvx2(const BnbInt8& s, uint64_t r0, uint64_t r1, float* out);
void bnbInt8RowsAvx512(const BnbInt8& s, uint64_t r0, uint64_t r1, float* out);

// DequantRowsFn for bnb-nf4 / bnb-fp4 and bnb-int8.
void dequantBnb4Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);
void dequantBnbInt8Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

// verify's checks (bnb_verify.cpp) and the 4-bit block absmax grid (bnb_scales.cpp).
void verifyBnb4Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
void verifyBnbInt8Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales bnb4GroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                            const std::atomic<bool>* cancel);
// The block's absmax (FamilyRow::blockValues, formats/wordmap.h), nested codes decoded: the
// absmax the kernel multiplies by, and when nested its code with the code's map entry, the
// second-level scale and the offset. bnb4BlockFields: the same for block `block` of a state.
struct BlockValues;
BlockValues bnb4BlockValues(const Checkpoint& ckpt, const LogicalWeight& w, uint64_t row, uint64_t col,
                            bool wholeBlock);
BlockValues bnb4BlockFields(const Bnb4& b, uint64_t block);

class LayoutRegistry;
struct FamilyTargets;
// The row's layouts (layoutspec_bnb.cpp) and what the family writes (bnb_targets.cpp).
void registerBnbLayouts(LayoutRegistry& r);
const FamilyTargets& bnbTargets();

namespace detect {
class Context;
struct Group;
// Detection (bnb_detect.cpp), reached through the family row (formats/family.h).
bool bnbGroup(Context& cx, const Group& group);
} // namespace detect

} // namespace qs
