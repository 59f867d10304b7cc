#pragma once
// AQLM (Vahe1994/AQLM inference_lib, as transformers saves aqlm.QuantizedLinear): an [N, K]
// weight cut into code groups of out_group x in_group elements (og rows, ig columns); each group
// stores one index per codebook, codes [N/og, K/ig, M] (int8 up to 8 bits, int16 up to 16: the
// index is the stored integer modulo 2^bits, so indices >= 2^(bits-1) are stored negative);
// codebooks [M, 2^bits, og, ig]; scales [N/og, 1, 1, 1], one per output group.
//   W[n][k] = dtype(dtype(sum over m = 0 .. M-1 of codebooks[m][idx_m][n % og][k % ig]) * scales[n / og])
// The sum is torch's embedding_bag(mode="sum"): float32, codebook 0 first, from +0.0 (so a
// codebook -0.0 becomes +0.0), rounded once to the codebooks' dtype; then the scale product,
// rounded once (aqlm.utils._dequantize_weight).
#include "formats/findings.h"
#include "formats/kernel.h"
#include "formats/kernelutil.h"
#include "formats/scalegrid.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <string>

namespace qs {

struct Aqlm {
    uint64_t rows = 0, cols = 0; // logical [N, K]
    uint64_t outGroups = 0, inGroups = 0; // N / og, K / ig
    uint32_t outGroup = 1, inGroup = 8; // og, ig
    uint32_t codebooks = 1; // M
    int bits = 8; // index bits: each codebook holds 2^bits entries
    DType codeType = DType::I8;
    DType dtype = DType::F16; // of the codebooks and the scales: what the sum and the product round to
    std::span<const uint8_t> codes; // [outGroups, inGroups, M], signed integers
    std::span<const uint8_t> book; // [M, 2^bits, og, ig]
    FloatView scales; // [outGroups]

    // The index of codebook m for group (g, i): the stored integer modulo 2^bits (aqlmState has
    // checked that every stored code lies in [-2^(bits-1), 2^bits)).
    uint32_t index(uint64_t g, uint64_t i, uint32_t m) const
    {
        const uint64_t e = (g * inGroups + i) * codebooks + m;
        uint32_t v;
        switch (codeType) {
        case DType::I8: v = codes[e]; break;
        case DType::I16: v = loadLE<uint16_t>(codes.data() + 2 * e); break;
        default: v = loadLE<uint32_t>(codes.data() + 4 * e); break;
        }
        return v & ((uint32_t(1) << bits) - 1);
    }
    // Element offset in `book` of entry `idx` of codebook m, row r of the group (its ig values follow).
    uint64_t entry(uint32_t m, uint32_t idx, uint32_t r) const
    {
        return ((uint64_t(m) << bits | idx) * outGroup + r) * inGroup;
    }
};
// Parses and checks the tensors (shapes, dtypes, every code in range); throws naming the weight
// and tensor.
Aqlm aqlmState(const WeightData& w);

// Logical rows [r0, r1) into out ((r1 - r0) * cols floats).
using AqlmRowsFn = void (*)(const Aqlm& s, uint64_t r0, uint64_t r1, float* out);
void aqlmRowsScalar(const Aqlm& s, uint64_t r0, uint64_t r1, float* out);
// F16 codebooks with in_group a multiple of 4; anything else through aqlmRowsScalar.
void aqlmRowsAvx2(const Aqlm& s, uint64_t r0, uint64_t r1, float* out);
void aqlmRowsAvx512(const Aqlm& s, uint64_t r0, uint64_t r1, float* out);

void dequantAqlmRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

// verify's checks (aqlm_verify.cpp) and the per-output-group scales (aqlm_scales.cpp).
void verifyAqlmWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales aqlmGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                            const std::atomic<bool>* cancel);

class LayoutRegistry;
struct LayoutParams;
// The row's layout (layoutspec_aqlm.cpp) and the locate() parameters beyond K, N, bits and
// in_group (the group size): codebooks and out_group, from the detected weight.
void registerAqlmLayouts(LayoutRegistry& r);
void aqlmLayoutParams(const LogicalWeight& w, LayoutParams& p);

struct FamilyTargets;
// The budget table's rows (aqlm_targets.cpp).
const FamilyTargets& aqlmTargets();

namespace detect {
class Context;
struct Group;
class QuantConfig;
// Detection (aqlm_detect.cpp), reached through the family row (formats/family.h).
bool aqlmGroup(Context& cx, const Group& group);
void aqlmReadConfig(const Checkpoint& ckpt, QuantConfig& config);
} // namespace detect

} // namespace qs
