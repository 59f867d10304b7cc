#pragma once
// Block-scaled FP4: gpt-oss MXFP4 (transformers' quant_method "mxfp4": the MoE experts'
// `<proj>_blocks` and `<proj>_scales`) and NVIDIA ModelOpt NVFP4 (quant_method "modelopt"). Both store
// two E2M1 codes a byte along K, element 2j in the LOW nibble, and one float scale per block:
//   MXFP4   blocks U8 [..., N, K/32, 16], scales U8 [..., N, K/32] (E8M0: 2^(e - 127));
//           w = E2M1(q) * 2^(e - 127), code 8 is -0.0 (transformers' and gpt-oss' FP4_VALUES);
//   NVFP4   weight U8 [N, K/2], weight_scale F8_E4M3 [N, K/16], weight_scale_2 F32 [] (a global
//           multiplier, the reciprocal of compressed-tensors' global-scale divisor);
//           w = E2M1(q) * (f32(weight_scale) * weight_scale_2), two f32 roundings as ModelOpt's
//           NVFP4QTensor.dequantize; code 8 is +0.0 (its e2m1_values table).
// ModelOpt FP8 (weight F8_E4M3 * per-tensor weight_scale) is compressed-tensors' float-quantized
// arithmetic: its rows are compressed_tensors' kernels (dequantCtRows).
#include "formats/findings.h"
#include "formats/kernelutil.h"
#include "formats/kernel.h"
#include "formats/scalegrid.h"

#include <cstdint>
#include <span>

namespace qs {

struct Fp4Blocks {
    enum class Scale { E8M0, E4M3TimesGlobal } scaleKind = Scale::E8M0;
    uint64_t rows = 0, cols = 0; // rows: every leading dim folded (MoE experts: E * out)
    uint64_t blockSize = 32; // codes per scale
    uint64_t blocksPerRow = 0; // ceil(cols / blockSize)
    uint64_t rowBytes = 0; // ceil(cols / 2)
    std::span<const uint8_t> codes; // [rows, rowBytes]
    std::span<const uint8_t> scales; // one byte per block: [rows, blocksPerRow]
    float global = 1.0f; // NVFP4's weight_scale_2
    const float* values = nullptr; // the 16 E2M1 values, code 8 as the tool decodes it

    unsigned code(uint64_t n, uint64_t k) const { return (codes[n * rowBytes + k / 2] >> (4 * (k % 2))) & 0xF; }
    float blockScale(uint64_t n, uint64_t b) const;
    // blockScale(n, b) for every block of row n into out[blocksPerRow].
    void rowScales(uint64_t n, float* out) const;
};

// The E2M1 values of ggml's FP4 table (halved): code 8 as +0.0 (`negativeZero` false) or -0.0.
const float* e2m1Values(bool negativeZero);
// 2^(e - 127) as transformers' torch.ldexp computes it: 255 gives +inf (2^128 overflows float32).
float mxfp4Scale(uint8_t e);

Fp4Blocks mxfp4State(const WeightData& w);
Fp4Blocks nvfp4State(const WeightData& w);

// Rows [r0, r1): values[code] * the block's scale, one f32 multiply.
using Fp4RowsFn = void (*)(const Fp4Blocks& s, uint64_t r0, uint64_t r1, float* out);
void fp4RowsScalar(const Fp4Blocks& s, uint64_t r0, uint64_t r1, float* out);
void fp4RowsAvx2(const Fp4Blocks& s, uint64_t r0, uint64_t r1, float* out);
void fp4RowsAvx512(const Fp4Blocks& s, uint64_t r0, uint64_t r1, float* out);

void dequantMxfp4Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);
void dequantNvfp4Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

// verify's checks (blockfloat_verify.cpp) and the block scales grid (blockfloat_scales.cpp).
void verifyMxfp4Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
void verifyNvfp4Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
void verifyModeloptFp8Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales fp4GroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                           const std::atomic<bool>* cancel);

class LayoutRegistry;
struct FamilyTargets;
// The row's layouts (layoutspec_blockfloat.cpp) and its budget rows (blockfloat_targets.cpp).
void registerBlockFloatLayouts(LayoutRegistry& r);
const FamilyTargets& blockFloatTargets();

namespace detect {
class Context;
struct Group;
class QuantConfig;
// Detection (blockfloat_detect.cpp), reached through the family row, and the config parts it
// reads: transformers' mxfp4 modules_to_not_convert (regular expressions matched from the
// start), ModelOpt's hf_quant_config.json.
bool blockFloatGroup(Context& cx, const Group& group);
void blockFloatReadConfig(const Checkpoint& ckpt, QuantConfig& cfg);
} // namespace detect

} // namespace qs
