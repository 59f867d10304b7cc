#pragma once
// MLX affine quantization (spec B.8): unsigned b-bit codes (b = 2, 3, 4, 5, 6, 8) as one
// LSB-first bitstream per row along K in uint32 words; per group of g columns a scale and a
// bias; w = q * scale + bias with both operations rounded to the scale dtype, as the MLX
// CPU path does (its half types compute in f32 and round back after every operation).
// Scales may be negative; NaN/Inf/subnormal scales and biases flow through unchanged
// (MLX does no checks and, on CPU, no flush-to-zero).
#include "formats/findings.h"
#include "formats/kernelutil.h"
#include "formats/kernel.h"
#include "formats/scalegrid.h"

#include <cstdint>
#include <span>

namespace qs {

struct MlxAffine {
    int bits = 4;
    uint64_t rows = 0, cols = 0; // rows = product of all leading dims
    uint64_t groupSize = 64, groups = 0;
    uint64_t wordsPerRow = 0;
    std::span<const uint8_t> packed; // uint32 [rows, wordsPerRow]
    FloatView scales, biases; // [rows, groups]
    DType dtype = DType::F32; // the dtype the arithmetic rounds to

    unsigned code(uint64_t n, uint64_t k) const
    {
        const uint8_t* row = packed.data() + 4 * n * wordsPerRow;
        const uint64_t bit = k * static_cast<uint64_t>(bits);
        const uint64_t byte = bit / 8;
        // Two bytes always cover a code of <= 8 bits; the second exists unless it is past the row.
        unsigned v = row[byte];
        if (byte + 1 < 4 * wordsPerRow)
            v |= static_cast<unsigned>(row[byte + 1]) << 8;
        return (v >> (bit % 8)) & ((1u << bits) - 1);
    }
};
MlxAffine mlxState(const WeightData& w);

using MlxRowsFn = void (*)(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out);
void mlxRowsScalar(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out);
void mlxRowsAvx2(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out);
// 2-, 3-, 4- and 8-bit codes in groups of whole 16-code vectors; the rest through mlxRowsAvx2.
void mlxRowsAvx512(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out);
// Affine 2/3/4/6/8-bit rows (arm64).
void mlxRowsNeon(const MlxAffine& s, uint64_t r0, uint64_t r1, float* out);

void dequantMlxRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

// verify's checks of MLX affine weights (mlx_verify.cpp) and their group scales (mlx_scales.cpp).
void verifyMlxWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales mlxGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                           const std::atomic<bool>* cancel);

class LayoutRegistry;
struct FamilyTargets;
// The row's layouts (layoutspec_mlx.cpp) and what the family writes (mlx_targets.cpp).
void registerMlxLayouts(LayoutRegistry& r);
const FamilyTargets& mlxTargets();

namespace detect {
class Context;
struct Group;
class QuantConfig;
// Detection (mlx_detect.cpp), reached through the family row (formats/family.h), and the
// config.json "quantization" entries it reads.
bool mlxGroup(Context& cx, const Group& group);
void mlxReadConfig(const Checkpoint& ckpt, QuantConfig& cfg);
} // namespace detect

} // namespace qs
