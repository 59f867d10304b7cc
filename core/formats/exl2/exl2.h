#pragma once
// ExLlamaV2's EXL2 linear layers as its converter stores them (exllamav2 0.2.7,
// conversion/adaptivegptq.py pack) and its loader decodes them (ext.py make_q_matrix, the
// QMatrix constructor and reconstruct kernel of exllamav2_ext/cuda/q_matrix.cu).
//
// q_weight I32 [packed rows, N] holds the codes of the K stored rows (the act-order permuted
// input channels) in groups, each with its own width b in {8, 6, 5, 4, 3, 2}, widest first
// (q_groups I16 [2 * groups]: b and the group's first packed row). Within a group every column
// is one LSB-first bit stream: stored row i of the group is bits [i*b, (i+1)*b), so 3-, 5- and
// 6-bit codes cross words (the kernel's shuffle only reorders bits for its own reads). A group's
// scale per output column is the 4-bit field n % 8 of q_scale I32 [groups, N/8] word n / 8,
// stored as s - 1; q_scale_max F16 [groups] is divided by 256 in f16 when loaded (small values
// become subnormal). Logical input channel k is stored row q_invperm[k] (the kernel writes
// stored row j to row q_perm[j], q_perm = argsort(q_invperm) when not stored). In f16:
//   scale = f16((s)^2 * f16(q_scale_max / 256)),  W[n][k] = f16((q - 2^(b-1)) * scale)
// (q - 2^(b-1) and s^2 are exact in f16; each product rounds once to nearest even, __hmul).
#include "formats/findings.h"
#include "formats/kernel.h"
#include "formats/kernelutil.h"
#include "formats/scalegrid.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qs {

struct Exl2Group {
    int bits = 0;
    uint64_t firstPacked = 0; // its first row of q_weight
    uint64_t firstRow = 0, rows = 0; // its stored rows
};

// Where one stored row's codes sit: the q_weight row holding its first bit, that bit, the width.
struct Exl2Place {
    uint32_t packed = 0;
    uint8_t shift = 0;
    uint8_t bits = 0;
    uint32_t group = 0;
};

struct Exl2 {
    uint64_t rows = 0, cols = 0; // logical [N, K]
    const uint8_t* qweight = nullptr; // I32 [packed rows, N]
    const uint8_t* qscale = nullptr; // I32 [groups, N / 8]
    std::vector<Exl2Group> groups;
    std::vector<float> scaleMax; // per group: f16(q_scale_max / 256), as the loader holds it
    std::vector<uint32_t> storedRow; // per logical input channel k: its stored row
    std::vector<Exl2Place> column; // per logical input channel k: place(storedRow[k])

    Exl2Place place(uint64_t stored) const;
    unsigned code(const Exl2Place& p, uint64_t n) const
    {
        uint64_t v = loadLE<uint32_t>(qweight + 4 * (p.packed * rows + n));
        if (p.shift + p.bits > 32)
            v |= uint64_t(loadLE<uint32_t>(qweight + 4 * ((p.packed + 1) * rows + n))) << 32;
        return unsigned(v >> p.shift) & ((1u << p.bits) - 1);
    }
    // The stored 4-bit scale field (s - 1) of group g, output column n.
    unsigned scaleCode(uint64_t g, uint64_t n) const
    {
        return (loadLE<uint32_t>(qscale + 4 * (g * (rows / 8) + n / 8)) >> (4 * (n % 8))) & 15u;
    }
    float scale(uint64_t g, uint64_t n) const;
    float value(const Exl2Place& p, uint64_t n) const;
};
// Throws qs::Error naming the weight and tensor on anything the loader could not read.
Exl2 exl2State(const WeightData& w);
// The row groups {bits, rows} that q_groups gives for `packedRows` rows of q_weight and K
// input channels, checked as exl2State does; throws qs::Error naming `what`.
std::vector<Exl2Group> exl2Groups(std::span<const int64_t> qGroups, uint64_t packedRows, uint64_t K,
                                  const std::string& what);

// Logical rows [r0, r1) into out.
using Exl2RowsFn = void (*)(const Exl2& s, uint64_t r0, uint64_t r1, float* out);
void exl2RowsScalar(const Exl2& s, uint64_t r0, uint64_t r1, float* out);
void exl2RowsAvx2(const Exl2& s, uint64_t r0, uint64_t r1, float* out);
void exl2RowsAvx512(const Exl2& s, uint64_t r0, uint64_t r1, float* out);

void dequantExl2Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path);

// Verify's checks (exl2_verify.cpp), the group scales (exl2_scales.cpp).
void verifyExl2Weight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep);
GroupScales exl2GroupScales(const Checkpoint& ckpt, const LogicalWeight& w, GgufScaleLevel,
                            const std::atomic<bool>* cancel);

class LayoutRegistry;
// The row's layout (layoutspec_exl2.cpp).
void registerExl2Layouts(LayoutRegistry& r);

namespace detect {
class Context;
struct Group;
// Detection (exl2_detect.cpp), reached through the family row (formats/family.h).
bool exl2Group(Context& cx, const Group& group);
} // namespace detect

} // namespace qs
