#pragma once
// compressed-tensors "pack-quantized" (spec B.7): signed int codes stored unsigned
// (q + 2^(b-1)), pf = floor(32/b) codes per int32 word along K, natural slot order, the top
// 32 - pf*b bits unused (3-bit: 10 per word, not a bitstream). Zero points packed the same
// way along N (dim 0, padded), or unpacked signed I8 [N, G] in files before PR #296.
#include "formats/findings.h"
#include "formats/kernelutil.h"
#include "formats/kernel.h"
#include "formats/scalegrid.h"

#include <cstdint>
#include <span>

namespace qs {

struct CtPacked {
    // pack-quantized (weight_packed), or the unpacked int-quantized / float-quantized
    // forms that share the scale / zero-point / g_idx rules: weight I8 or F8 [N, K].
    enum class Source { Packed, Int8, Fp8 } source = Source::Packed;
    DType fp8Dtype = DType::F8_E4M3;
    int bits = 4;
    unsigned pf = 8; // codes per word
    uint64_t rows = 0, cols = 0;
    uint64_t wordsPerRow = 0;
    std::span<const uint8_t> packed; // int32 [N, wordsPerRow]
    FloatView scale;
    uint64_t groups = 1; // scale columns G (1: channel; tensor strategy: one scale)
    bool tensorScale = false;
    uint64_t groupSize = 0; // columns per group when there is no g_idx
    enum class Zp { None, Packed, Unpacked } zpKind = Zp::None;
    std::span<const uint8_t> zp;
    DType zpDtype = DType::I32;
    std::span<const uint8_t> gidx; // I32 / I64 [K], act-order groups
    DType gidxDtype = DType::I32;

    int code(uint64_t n, uint64_t k) const // signed q (Packed, Int8)
    {
        if (source == Source::Int8)
            return static_cast<int8_t>(packed[n * cols + k]);
        const uint32_t word = loadLE<uint32_t>(packed.data() + 4 * (n * wordsPerRow + k / pf));
        return static_cast<int>((word >> (bits * (k % pf))) & ((1u << bits) - 1)) - (1 << (bits - 1));
    }
    float fp8At(uint64_t n, uint64_t k) const // the stored value (Fp8), before the scale
    {
        const uint8_t v = packed[n * cols + k];
        return fp8Dtype == DType::F8_E4M3 ? f8e4m3ToF32(v) : f8e5m2ToF32(v);
    }
    uint64_t group(uint64_t k) const
    {
        return gidx.empty() ? (groupSize ? k / groupSize : 0) : static_cast<uint64_t>(readInt(gidx, gidxDtype, k));
    }
    float scaleAt(uint64_t n, uint64_t g) const { return tensorScale ? scale.at(0) : scale.at(n * groups + g); }
    int zeroAt(uint64_t n, uint64_t g) const;
};
CtPacked ctPackedState(const WeightData& w);

// Rows [r0, r1): (q - zp) * scale in f32 (FP8: fp8 value * scale), exact before the reference's one rounding to the
// scale dtype ((q - zp) is exact in any float dtype for b <= 8).
using CtRowsFn = void (*)(const CtPacked& s, uint64_t r0, uint64_t r1, float* out);
void ctRowsScalar(const CtPacked& s, uint64_t r0, uint64_t r1, float* out);
// 2/4/8-bit packed, int8 and FP8 rows with contiguous groups; the rest through ctRowsScalar.
void ctRowsAvx2(const CtPacked& s, uint64_t r0, uint64_t r1, float* out);
// 4/8-bit packed, int8 and FP8 rows with contiguous groups; the rest through ctRowsAvx2.
void ctRowsAvx512(const CtPacked& s, uint64_t r0, uint64_t r1, float* out);

// DequantRowsFn for compressed-tensors, compressed-tensors-int and compressed-tensors-fp8.
void dequantCtRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

// verify's checks of the integer formats (ct_verify.cpp) and their group scales (ct_scales.cpp).
void verifyCtWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales ctGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                          const std::atomic<bool>* cancel);

class LayoutRegistry;
struct FamilyTargets;
// The row's layouts (layoutspec_ct.cpp) and what the family writes (ct_targets.cpp).
void registerCompressedTensorsLayouts(LayoutRegistry& r);
const FamilyTargets& compressedTensorsTargets();

namespace detect {
class Context;
struct Group;
class QuantConfig;
// Detection (ct_detect.cpp), reached through the family row (formats/family.h), and the
// config's config_groups and ignore list it reads.
bool compressedTensorsGroup(Context& cx, const Group& group);
void ctReadConfig(const Checkpoint& ckpt, QuantConfig& cfg);
} // namespace detect

} // namespace qs
