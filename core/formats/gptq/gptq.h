#pragma once
// GPTQ, AWQ and Marlin: integer codes packed into int32 (int16 for GEMV_FAST) words, with
// per-group scales and zero points (spec safetensors-quant.md B.1, B.2, B.4, Part D).
// One description (PackedLinear) serves every variant; the scalar reference reads each
// element through codeAt/zeroAt/scaleAt, the plainest statement of the layout, and the
// AVX2 and AVX-512 paths must give the same float32 bits.
//
// Output: logical [N = out_features, K = in_features], float32 s * (q - z), the exact value
// before the reference libraries round to the scale dtype (F16/BF16 scales times a <= 9-bit
// integer are exact in float32). GEMV_FAST is the exception: its reference computes
// q*s + bias in fp16 with two roundings, so that is what we return (widened to float32).
#include "formats/findings.h"
#include "formats/kernel.h"
#include "formats/probecheck.h"
#include "formats/scalegrid.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace qs {

enum class PackedKind {
    Gptq, // qweight [K*b/32, N] LSB-first bitstream along K; qzeros [G, N*b/32] along N
    GptqPlanar, // GPTQModel gptq_p: split bit planes per 32 codes (B.1.6), zeros v2
    AwqGemm, // qweight [K, N/8] along N in AWQ slot order; qzeros [G, N/8]
    AwqGemv, // qweight [N, K/8] along K; qzeros [N, Zw] along groups; scales [N, 8*Zw]
    AwqGemvFast, // qweight I16 [N/4, K], 4 rows per int16; scales, biases F16 [8*Zw, N]
    Marlin, // B [K/16, N*b/2] in Marlin tiles; scales permuted [G, N]; zero 2^(b-1)
};

enum class ZeroConvention {
    StoredMinusOne, // GPTQ v1: the field holds z - 1
    Stored, // GPTQ v2, planar, AWQ GEMM/GEMV: the field holds z
    FloatBias, // AWQ GEMV_FAST: a float -s*z per (group, n)
    Implicit, // Marlin: z = 2^(b-1)
};

// What a v1 reader makes of a stored field f. The upstream readers disagree (spec B.1.1):
//  Reference: AutoGPTQ qlinear_cuda_old's torch path, which produced the fixtures:
//             (f + 1) & (2^b - 1) for 2/4/8 bits, f + 1 unmasked for 3 bits;
//  NoWrap:    f + 1 always (qlinear_cuda / exllama; a field 2^b - 1 gives z = 2^b);
//  Wrap:      (f + 1) & (2^b - 1) always.
enum class V1ZeroRule { Reference, NoWrap, Wrap };

enum class ScaleType { F16, BF16, F32 };

// AutoAWQ's GEMM pack order (AWQ_ORDER): slot s of a word holds column 8c + kAwqPackOrder[s].
// The awq-gemm LayoutSpec registers it as its slotOrder; the kernels read its inverse.
inline constexpr std::array<int, 8> kAwqPackOrder = {0, 2, 4, 6, 1, 3, 5, 7};
// The slot of column 8c + j (AWQ_REVERSE_ORDER).
inline constexpr std::array<int, 8> kAwqSlotOf = [] {
    std::array<int, 8> inv{};
    for (int s = 0; s < 8; ++s)
        inv[size_t(kAwqPackOrder[size_t(s)])] = s;
    return inv;
}();

struct PackedLinear {
    PackedKind kind = PackedKind::Gptq;
    int bits = 4;
    uint64_t K = 0; // in_features
    uint64_t N = 0; // out_features
    uint64_t groupSize = 0; // resolved: K for per-channel
    uint64_t groups = 0; // ceil(K / groupSize) (GPTQ with g_idx: the scales' row count)
    ZeroConvention zeros = ZeroConvention::Stored;
    V1ZeroRule v1Rule = V1ZeroRule::Reference;
    ScaleType scaleType = ScaleType::F16;
    uint64_t zeroWords = 0; // GEMV: words per qzeros row (Zw)
    uint64_t scaleRows = 0; // GEMV: scale columns per row; GEMV_FAST: scale rows (8*Zw)
    std::span<const uint8_t> qweight, qzeros, scales, gIdx; // gIdx empty: group = k / groupSize
    std::string name = "weight"; // for error messages: "<file>: <name>: ..."
    std::string file; // the file its tensors are in: its errors' context

    // Maximal runs of k in one group, when groups never decrease along k (no g_idx, or the
    // g_idx GPTQ writes for desc_act=False and a repack leaves): the kernels then read a
    // scale per run, not per element. Empty when g_idx is not monotonic. indexGroupRuns()
    // fills `runs` once per weight (describePacked calls it); kernels given a description
    // without it work the runs out per call.
    struct GroupRun {
        uint64_t k0, k1, group;
    };
    std::vector<GroupRun> runs;
    bool runsIndexed = false;
    std::vector<GroupRun> groupRuns() const;
    void indexGroupRuns();
    // The indexed runs, else the runs worked out into `local`.
    const std::vector<GroupRun>& groupRuns(std::vector<GroupRun>& local) const
    {
        if (runsIndexed)
            return runs;
        local = groupRuns();
        return local;
    }

    // Checks every size, shape rule and g_idx entry against the layout; throws qs::Error.
    void validate() const;

    // The logical view, element by element (the oracle). Indices must be in range.
    uint32_t codeAt(uint64_t n, uint64_t k) const; // stored code (Marlin: unsigned u)
    uint64_t groupOf(uint64_t k) const;
    int32_t zeroAt(uint64_t grp, uint64_t n) const; // the true integer zero the reader uses
    // The GPTQ stream layout's qzeros (PackedKind::Gptq): where field (grp, n) starts, in bits
    // (row grp is the LSB-first stream of the N fields, padded to whole int32 words). zeroAt
    // and the vector kernels' zero readers address the fields through it.
    uint64_t zeroFieldBit(uint64_t grp, uint64_t n) const;
    // StoredMinusOne: whether the v1 reader masks f + 1 to b bits (V1ZeroRule).
    bool v1ZeroWraps() const;
    float scaleAt(uint64_t grp, uint64_t n) const;
    float biasAt(uint64_t grp, uint64_t n) const; // GEMV_FAST only
    float valueAt(uint64_t n, uint64_t k) const;
};

// Rows [n0, n1) of the logical matrix into out[(n - n0) * K + k].
void dequantPackedRowsRef(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out);
void dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out, SimdPath path);

namespace avx2 {
// Handles whatever it can (aligned row blocks of the kinds it knows) and falls back to the
// reference for the rest.
void dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out);
} // namespace avx2

namespace avx512 {
// Marlin 4/8-bit, AWQ GEMV, GEMV_FAST and AWQ GEMM with groups of whole 16-code (GEMV_FAST:
// 32-channel) vectors, GPTQ 2/3/4/8-bit with groups in runs along k (any run lengths); false for
// what it leaves to the AVX2 path (act-order permutations, planar GPTQ, fewer than 16 rows).
bool dequantPackedRows(const PackedLinear& p, uint64_t n0, uint64_t n1, float* out);
} // namespace avx512

// Every stored code into codes[n * K + k] ([N][K]; Marlin: the unsigned u), as codeAt reads
// it one by one. Throws qs::Error when qweight is short.
void packedCodes(const PackedLinear& p, uint8_t* codes);

// Planar layout (B.1.6): plane widths per code width, low plane first.
std::vector<int> gptqPlanes(int bits);

// ---- Packers: logical codes -> stored tensors, through the generic bitstream oracle. ----
// codes: [N][K] row-major (logical, unsigned); zeros: true zeros [G][N]; scales: raw
// F16 bits [G][N]. Output tensors are little-endian bytes in the stored shapes.
struct PackedTensor {
    std::vector<uint8_t> bytes;
    std::vector<uint64_t> shape;
};
struct PackedOutput {
    PackedTensor qweight, qzeros, scales;
};
// GPTQ v1 stores z - 1 (throws when a zero is 0: v1 cannot hold it, spec B.3); v2 stores z.
PackedOutput packGptq(std::span<const uint8_t> codes, std::span<const int32_t> zeros, std::span<const uint16_t> scales,
                      int bits, uint64_t K, uint64_t N, uint64_t groups, bool v1, bool planar);
PackedOutput packAwqGemm(std::span<const uint8_t> codes, std::span<const int32_t> zeros,
                         std::span<const uint16_t> scales, uint64_t K, uint64_t N, uint64_t groupSize);
// The words verify's round trip compares the stored ones with: the oracle packers' words for
// the decoded fields (raw: the stored zero fields, v1 z - 1 as stored), qzeros empty where the
// layout stores none, scales only for the layouts that pad or permute them. `oracle` repacks
// every element; without it the layouts whose field bits are the same in every column (GPTQ's
// stream along K, AWQ-GEMM) keep the stored field bits and clear the rest, which is what the
// oracle gives (a field is read from and packed into the same bits) at memory speed.
struct Repacked {
    std::vector<uint8_t> qweight, qzeros, scales;
};
Repacked repackedWords(const PackedLinear& p, std::span<const int32_t> raw, bool oracle);
// Zw as AutoAWQ computes it for GEMV (B.2.2).
uint64_t awqGemvZeroWords(uint64_t K, uint64_t groupSize);
PackedOutput packAwqGemv(std::span<const uint8_t> codes, std::span<const int32_t> zeros,
                         std::span<const uint16_t> scales, uint64_t K, uint64_t N, uint64_t groupSize);
// GEMV_FAST: biases are raw F16 bits [G][N] (-s*z as stored); qzeros holds them.
PackedOutput packAwqGemvFast(std::span<const uint8_t> codes, std::span<const uint16_t> biases,
                             std::span<const uint16_t> scales, uint64_t K, uint64_t N, uint64_t groupSize);
// Marlin: codes are the unsigned stored u (q + 2^(b-1)), bits 4 or 8.
PackedOutput packMarlin(std::span<const uint8_t> codes, std::span<const uint16_t> scales, int bits, uint64_t K,
                        uint64_t N, uint64_t groups);

// Marlin's bijection (B.4): where logical (k, n) lives, word index within the [K/16, N*b/2]
// tensor and slot; and the stored position of scale (grp, n).
struct MarlinPos {
    uint64_t word;
    int slot;
};
MarlinPos marlinLocate(uint64_t k, uint64_t n, int bits, uint64_t N);
// Marlin's interleave within a word, as the slot of each position: the inverses of
// 0,2,4,6,1,3,5,7 (4-bit) and 0,2,1,3 (8-bit). The reference and the AVX2 path both read these.
inline constexpr int kMarlinSlotOf4[8] = {0, 4, 1, 5, 2, 6, 3, 7};
inline constexpr int kMarlinSlotOf8[4] = {0, 2, 1, 3};
uint64_t marlinScaleIndex(uint64_t grp, uint64_t n, uint64_t N, uint64_t groups);

// GEMV_FAST: storage position p in a row of 32-blocks -> input channel k (B.2.3) and back.
uint64_t gemvFastChannel(uint64_t p);
uint64_t gemvFastPosition(uint64_t k);

} // namespace qs

namespace qs {
struct LayoutSpec;
// The kernel variant and zero convention a registered LayoutSpec describes (its pack axis,
// word width, slot order, planes, storage orientation and zero point); nullopt for a layout
// the packed kernel does not read.
struct PackedLayout {
    PackedKind kind;
    ZeroConvention zeros;
};
std::optional<PackedLayout> packedLayoutOf(const LayoutSpec& spec);

// The description of a detected GPTQ / AWQ / Marlin weight (format ids gptq-v1, gptq-v2,
// gptq-planar, awq-gemm, awq-gemv, awq-gemv-fast, gptq-marlin, awq-marlin). Member roles:
// qweight (or B), qzeros, scales (or s), g_idx. The layout comes from the format's
// LayoutSpec (packedLayoutOf). LogicalWeight::params may carry "v1_zero_rule" =
// reference | no-wrap | wrap. Validated; throws qs::Error.
PackedLinear describePacked(const WeightData& w);
// DequantRowsFn for those formats.
void dequantPackedWeightRows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);
// verify's checks of those weights (gptq_verify.cpp) and their group scales (gptq_scales.cpp).
void verifyPackedWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales packedGroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel level,
                              const std::atomic<bool>* cancel);
// The report's seed probe checks of our packers and reader (gptq_probe.cpp).
std::vector<ProbeCheck> packedProbe(const ProbeInput& in);

class LayoutRegistry;
struct FamilyTargets;
// The row's layouts (layoutspec_gptq.cpp) and what the family writes (gptq_targets.cpp).
void registerGptqAwqLayouts(LayoutRegistry& r);
const FamilyTargets& gptqTargets();

namespace detect {
class Context;
struct Group;
class QuantConfig;
// Detection (gptq_detect.cpp), reached through the family row (formats/family.h).
bool gptqGroup(Context& cx, const Group& group);
// AutoGPTQ's __metadata__ keys and GPTQModel's `dynamic` rules (gptq_config.cpp).
void gptqReadConfig(const Checkpoint& ckpt, QuantConfig& cfg);
void gptqAcrossWeights(std::vector<LogicalWeight>& weights);
// Reads a g_idx member (GPTQ, compressed-tensors actorder): sets w.actOrder, with evidence
// and notes on entries that are no group index and on disagreement with desc_act.
void readGidx(Context& cx, LogicalWeight& w, int ig, uint64_t K, int64_t groupSize, uint64_t G);
} // namespace detect

} // namespace qs
