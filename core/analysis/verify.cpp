#include "analysis/verify.h"

#include "formats/bnb/quantize_bnb.h"
#include "base/error.h"
#include "formats/detect.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"
#include "base/bitstream.h"
#include "formats/bnb/bnb.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/dequant.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"
#include "formats/mlx/mlx.h"
#include "base/shapetext.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string_view>

namespace qs {

size_t VerifyReport::errors() const
{
    return size_t(std::count_if(findings.begin(), findings.end(), [](const VerifyFinding& f) { return !f.warning; }));
}

namespace {

struct Sink {
    const LogicalWeight& w;
    VerifyReport& rep;
    void operator()(std::string check, std::string msg, bool warning = false) const
    {
        rep.findings.push_back({w.name, std::move(check), std::move(msg), warning});
    }
};

bool equalBytes(std::span<const uint8_t> stored, const std::vector<uint8_t>& packed)
{
    return stored.size() == packed.size() && std::equal(stored.begin(), stored.end(), packed.begin());
}

// First differing 32-bit word (or byte, for byte-sized data), for the message.
std::string firstDiff(std::span<const uint8_t> stored, const std::vector<uint8_t>& packed, size_t unit = 4)
{
    if (stored.size() != packed.size())
        return "size " + std::to_string(stored.size()) + " bytes, expected " + std::to_string(packed.size());
    for (size_t i = 0; i + unit <= stored.size(); i += unit)
        if (std::memcmp(stored.data() + i, packed.data() + i, unit) != 0) {
            uint32_t a = 0, b = 0;
            std::memcpy(&a, stored.data() + i, unit);
            std::memcpy(&b, packed.data() + i, unit);
            char buf[96];
            std::snprintf(buf, sizeof buf, "%s %zu is 0x%0*x, repacked 0x%0*x", unit == 4 ? "word" : "byte", i / unit,
                          int(2 * unit), a, int(2 * unit), b);
            return buf;
        }
    return "trailing bytes differ";
}

void roundTrip(const Sink& add, const char* check, std::span<const uint8_t> stored, const std::vector<uint8_t>& repacked,
               const std::string& what, size_t unit = 4)
{
    if (!equalBytes(stored, repacked))
        add(check, "stored " + what + " differ from their repacking (nonzero padding or sign-extended fields?): " +
                       firstDiff(stored, repacked, unit));
}

void countNonFinite(const Sink& add, uint64_t bad, uint64_t total, const std::string& what)
{
    if (bad)
        add("scale", std::to_string(bad) + " of " + std::to_string(total) + " " + what + " are NaN or Inf");
}

// Each group holds at most groupSize channels (act-order permutes, never grows a group).
void checkGroups(const Sink& add, uint64_t K, uint64_t G, uint64_t groupSize, const std::function<uint64_t(uint64_t)>& groupOf)
{
    std::vector<uint64_t> count(G, 0);
    for (uint64_t k = 0; k < K; ++k) {
        const uint64_t g = groupOf(k);
        if (g >= G) {
            add("g_idx", "g_idx[" + std::to_string(k) + "] = " + std::to_string(g) + " is not one of the " + std::to_string(G) +
                             " groups");
            return;
        }
        ++count[g];
    }
    for (uint64_t g = 0; g < G; ++g)
        if (count[g] > groupSize) {
            add("g_idx", "group " + std::to_string(g) + " has " + std::to_string(count[g]) + " channels, group size is " +
                             std::to_string(groupSize));
            return;
        }
}

// Stored member shapes against the format's LayoutSpec, where it describes them.
// `roles`: only these (the members whose shape has one form); empty: every member the spec lists.
void checkSpecShapes(const Sink& add, const Checkpoint& ckpt, const LogicalWeight& w, uint64_t K, uint64_t N, int bits,
                     uint64_t groupSize, std::initializer_list<std::string_view> roles = {})
{
    const LayoutSpec* spec = findLayoutSpec(w.format);
    if (!spec)
        return;
    const LayoutParams lp{K, N, bits, groupSize};
    for (const LayoutTensor& t : spec->tensors) {
        const int idx = w.member(t.role);
        if (idx < 0 || !t.shape || t.role == "bias" ||
            (roles.size() && std::find(roles.begin(), roles.end(), t.role) == roles.end()))
            continue;
        const std::vector<uint64_t> want = t.shape(lp);
        const std::vector<uint64_t>& got = ckpt.tensors[size_t(idx)].shape;
        if (got != want) {
            add("shape", t.role + " is " + shapeText(got) + ", the " + w.format + " layout gives " + t.shapeFormula + " = " + shapeText(want));
        }
    }
}

uint16_t halfBits(float v, ScaleType t) { return t == ScaleType::BF16 ? floatToBf16(v) : floatToHalf(v); }

void verifyPacked(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const Sink add{w, rep};
    const WeightData wd{ckpt, w};
    PackedLinear p;
    try {
        p = describePacked(wd); // validates every size, shape and g_idx entry
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    const int b = p.bits;
    const uint32_t maxq = (1u << b) - 1u;
    const uint64_t N = p.N, K = p.K, G = p.groups;
    checkSpecShapes(add, ckpt, w, K, N, b, p.groupSize);

    uint64_t bad = 0, nonPositive = 0;
    for (uint64_t g = 0; g < G; ++g)
        for (uint64_t n = 0; n < N; ++n) {
            const float s = p.scaleAt(g, n);
            bad += !std::isfinite(s);
            nonPositive += std::isfinite(s) && s <= 0.0f;
        }
    countNonFinite(add, bad, G * N, "scales");
    if (nonPositive)
        add("scale", std::to_string(nonPositive) + " of " + std::to_string(G * N) +
                         " scales are zero or negative (GPTQ/AWQ quantizers give positive scales)");
    if (!p.gIdx.empty())
        checkGroups(add, K, G, p.groupSize, [&](uint64_t k) { return p.groupOf(k); });
    if (w.descAct && !w.actOrder && G > 1)
        add("g_idx", "desc_act is true but g_idx is sequential: static groups, or the act-order permutation was dropped", true);

    // Codes: unpack every element, repack with the oracle packer, compare with the stored words.
    std::vector<uint8_t> codes(N * K);
    for (uint64_t n = 0; n < N; ++n)
        for (uint64_t k = 0; k < K; ++k)
            codes[n * K + k] = uint8_t(p.codeAt(n, k));
    // Raw zero fields as stored (v1: z - 1), so the zeros round trip is independent of the v1 rule.
    std::vector<int32_t> raw;
    if (p.zeros == ZeroConvention::StoredMinusOne || p.zeros == ZeroConvention::Stored) {
        raw.resize(G * N);
        const uint64_t rowBytes = 4 * ((N * uint64_t(b) + 31) / 32);
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n)
                raw[g * N + n] = p.kind == PackedKind::Gptq
                                     ? int32_t(bitstream::readField(p.qzeros.data() + g * rowBytes, n * uint64_t(b), b))
                                     : p.zeroAt(g, n);
    }
    std::vector<uint16_t> scaleBits(G * N, 0);
    const bool halfScales = p.scaleType != ScaleType::F32;
    if (halfScales)
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n)
                scaleBits[g * N + n] = halfBits(p.scaleAt(g, n), p.scaleType);
    PackedOutput out;
    bool compareScales = halfScales; // the layouts that pad or permute scales
    try {
        switch (p.kind) {
        case PackedKind::Gptq:
        case PackedKind::GptqPlanar:
            out = packGptq(codes, raw, scaleBits, b, K, N, G, false, p.kind == PackedKind::GptqPlanar);
            compareScales = false; // plain [G, N]: nothing to pad
            break;
        case PackedKind::AwqGemm:
            out = packAwqGemm(codes, raw, scaleBits, K, N, p.groupSize);
            compareScales = false;
            break;
        case PackedKind::AwqGemv:
            out = packAwqGemv(codes, raw, scaleBits, K, N, p.groupSize);
            break;
        case PackedKind::AwqGemvFast: {
            std::vector<uint16_t> biases(G * N);
            for (uint64_t g = 0; g < G; ++g)
                for (uint64_t n = 0; n < N; ++n)
                    biases[g * N + n] = floatToHalf(p.biasAt(g, n));
            out = packAwqGemvFast(codes, biases, scaleBits, K, N, p.groupSize);
            break;
        }
        case PackedKind::Marlin:
            out = packMarlin(codes, scaleBits, b, K, N, G);
            break;
        }
    } catch (const std::exception& e) {
        add("qweight-roundtrip", std::string("the decoded fields cannot be repacked: ") + e.what());
        return;
    }
    roundTrip(add, "qweight-roundtrip", p.qweight, out.qweight.bytes, "codes");
    if (p.zeros != ZeroConvention::Implicit)
        roundTrip(add, "qzeros-roundtrip", p.qzeros, out.qzeros.bytes, "zeros");
    if (compareScales)
        roundTrip(add, "scales-roundtrip", p.scales, out.scales.bytes, "scales (padding, order)", 2);

    // Zero-point conventions.
    if (p.zeros == ZeroConvention::StoredMinusOne) {
        // AutoGPTQ writes z = 0 as -1 OR-ed in after shifting: that field and every higher field of
        // its word are all ones. Upstream readers disagree on it (spec B.1.1): a warning. Fields of
        // 2^b-1 followed by other values in the same word are not what any writer makes: an error.
        const uint64_t perWord = 32 % b == 0 ? uint64_t(32 / b) : 0;
        uint64_t spill = 0, broken = 0;
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n) {
                if (raw[g * N + n] != int32_t(maxq))
                    continue;
                ++spill;
                if (perWord && n + 1 < N && (n + 1) % perWord != 0 && raw[g * N + n + 1] != int32_t(maxq))
                    ++broken;
            }
        if (spill)
            add("v1-zero-spill", std::to_string(spill) + " zero fields hold 2^b-1: a v1 checkpoint stores z-1, so these are "
                                 "z = 0 written as -1 (upstream then ORs ones into the higher fields of the word)",
                broken == 0 && !w.symmetric);
        if (broken)
            add("v1-zero-spill", std::to_string(broken) + " fields of 2^b-1 are followed by other values in the same word: "
                                 "not the upstream -1 spill, a corrupt or sign-extended field");
    }
    // Detection trusts the zeros of a symmetric GPTQ weight over the label; a disagreement is the
    // v1/v2 off by one (a v2 checkpoint labelled v1 or the reverse).
    if (const auto it = w.params.find("checkpoint_format"); it != w.params.end() && w.symmetric &&
                                                             (w.format == "gptq-v1" || w.format == "gptq-v2")) {
        const bool labelV2 = it->second == "gptq_v2";
        if (labelV2 != (w.format == "gptq-v2"))
            add("zero-convention", "checkpoint_format says " + it->second + " but the symmetric zero fields are those of " +
                                       w.format + ": off by one, the v1/v2 convention is mixed");
    }
    if (w.symmetric && !raw.empty()) {
        // Symmetric GPTQ/AWQ use z = 2^(b-1); the field is that minus one in v1, itself in v2.
        const int32_t mid = int32_t(1u << (b - 1));
        const int32_t expect = p.zeros == ZeroConvention::StoredMinusOne ? mid - 1 : mid;
        const int32_t other = p.zeros == ZeroConvention::StoredMinusOne ? mid : mid - 1;
        const uint64_t off = uint64_t(std::count(raw.begin(), raw.end(), other));
        const uint64_t ok = uint64_t(std::count(raw.begin(), raw.end(), expect));
        if (off > 0 && off >= ok)
            add("zero-convention", std::to_string(off) + " of " + std::to_string(raw.size()) + " zero fields are " +
                                       std::to_string(other) + ", expected " + std::to_string(expect) + " for a symmetric " +
                                       w.format + " checkpoint: off by one, the v1/v2 convention looks mixed");
        else if (ok != raw.size())
            add("zero-convention", std::to_string(raw.size() - ok) + " zero fields of a symmetric checkpoint are not " +
                                       std::to_string(expect));
    }
}

void verifyCt(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const Sink add{w, rep};
    CtPacked s;
    try {
        s = ctPackedState(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    const uint64_t N = s.rows, K = s.cols, G = s.tensorScale ? 1 : s.groups;
    if (s.source == CtPacked::Source::Packed)
        checkSpecShapes(add, ckpt, w, K, N, s.bits, s.groupSize, {"weight_packed", "weight_g_idx"});
    uint64_t bad = 0, nonPositive = 0;
    for (uint64_t i = 0; i < s.scale.size(); ++i) {
        const float v = s.scale.at(i);
        bad += !std::isfinite(v);
        nonPositive += std::isfinite(v) && v <= 0.0f;
    }
    countNonFinite(add, bad, s.scale.size(), "scales");
    if (nonPositive)
        add("scale", std::to_string(nonPositive) + " scales are zero or negative (compressed-tensors clamps scales to eps)");
    if (!s.gidx.empty())
        checkGroups(add, K, G, (K + G - 1) / G, [&](uint64_t k) { return s.group(k); });
    if (s.source == CtPacked::Source::Packed) {
        const int b = s.bits;
        const int off = 1 << (b - 1);
        std::vector<uint8_t> repacked;
        repacked.reserve(N * s.wordsPerRow * 4);
        std::vector<uint8_t> row(K);
        for (uint64_t n = 0; n < N; ++n) {
            for (uint64_t k = 0; k < K; ++k)
                row[k] = uint8_t(s.code(n, k) + off);
            const std::vector<uint8_t> words = bitstream::packSlots(row, b, 32);
            repacked.insert(repacked.end(), words.begin(), words.end());
        }
        roundTrip(add, "qweight-roundtrip", s.packed, repacked, "weight_packed words");
        if (s.zpKind == CtPacked::Zp::Packed) {
            const uint64_t zw = (N + s.pf - 1) / s.pf;
            std::vector<uint32_t> zp(zw * G, 0);
            std::vector<uint8_t> col(N);
            for (uint64_t g = 0; g < G; ++g) {
                for (uint64_t n = 0; n < N; ++n)
                    col[n] = uint8_t(s.zeroAt(n, g) + off);
                const std::vector<uint8_t> words = bitstream::packSlots(col, b, 32);
                for (uint64_t i = 0; i < zw; ++i)
                    std::memcpy(&zp[i * G + g], words.data() + i * 4, 4);
            }
            std::vector<uint8_t> zb(zp.size() * 4);
            std::memcpy(zb.data(), zp.data(), zb.size());
            roundTrip(add, "qzeros-roundtrip", s.zp, zb, "weight_zero_point words");
        }
    }
    // Zero points: a symmetric scheme stores none; an asymmetric one whose zeros are all 0 is the
    // symmetric data mislabelled (or the zero point was dropped).
    if (s.zpKind != CtPacked::Zp::None) {
        bool allZero = true;
        for (uint64_t n = 0; n < N && allZero; ++n)
            for (uint64_t g = 0; g < G && allZero; ++g)
                allZero = s.zeroAt(n, g) == 0;
        if (allZero && N * G > 1)
            add("zero-convention", "every zero point is 0: the weight is symmetric data stored as asymmetric", true);
    }
}

void verifyMlx(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const Sink add{w, rep};
    MlxAffine s;
    try {
        s = mlxState(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    if (w.shape.size() == 2)
        checkSpecShapes(add, ckpt, w, s.cols, s.rows, s.bits, s.groupSize, {"weight", "scales", "biases"});
    uint64_t bad = 0;
    for (uint64_t i = 0; i < s.scales.size(); ++i)
        bad += !std::isfinite(s.scales.at(i)) || !std::isfinite(s.biases.at(i));
    countNonFinite(add, bad, s.scales.size(), "scale/bias pairs");
    std::vector<uint8_t> repacked, row(s.cols);
    repacked.reserve(s.packed.size());
    for (uint64_t n = 0; n < s.rows; ++n) {
        for (uint64_t k = 0; k < s.cols; ++k)
            row[k] = uint8_t(s.code(n, k));
        std::vector<uint8_t> words = bitstream::packStream(row, s.bits, 32);
        words.resize(4 * s.wordsPerRow, 0);
        repacked.insert(repacked.end(), words.begin(), words.end());
    }
    roundTrip(add, "qweight-roundtrip", s.packed, repacked, "weight words");
    // MLX's quantizer makes the larger-magnitude group edge exact: bias is that edge, and the
    // other edge is bias + scale * (2^b - 1). A bias of 0 with a nonzero scale is a zero-edge group.
    uint64_t zeroScale = 0;
    for (uint64_t i = 0; i < s.scales.size(); ++i)
        zeroScale += s.scales.at(i) == 0.0f && s.biases.at(i) != 0.0f;
    if (zeroScale)
        add("scale", std::to_string(zeroScale) + " groups have a zero scale but a nonzero bias (MLX clamps |scale| to 1e-7)", true);
}

void verifyBnb4(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const Sink add{w, rep};
    Bnb4 s;
    try {
        s = bnb4State(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    const uint64_t n = s.rows * s.cols;
    if (w.member("weight") >= 0 && ckpt.tensors[size_t(w.member("weight"))].dtype == DType::U8)
        checkSpecShapes(add, ckpt, w, s.cols, s.rows, 4, s.blocksize, {"weight", "absmax", "quant_map", "nested_quant_map"});
    else
        checkSpecShapes(add, ckpt, w, s.cols, s.rows, 4, s.blocksize, {"absmax", "quant_map", "nested_quant_map"});
    // Nibble round trip: the only bits a repacking can change are the padding nibble of an odd count.
    std::vector<uint8_t> repacked((n + 1) / 2, 0);
    for (uint64_t e = 0; e < n; ++e) {
        const uint8_t q = (s.packed[e / 2] >> (e % 2 ? 0 : 4)) & 0x0F;
        repacked[e / 2] |= uint8_t(q << (e % 2 ? 0 : 4));
    }
    roundTrip(add, "qweight-roundtrip", s.packed.subspan(0, std::min<size_t>(s.packed.size(), repacked.size())), repacked,
              "4-bit codes", 1);
    uint64_t bad = 0, negative = 0;
    for (uint64_t b = 0; b < s.blocks(); ++b) {
        const float a = s.blockAbsmax(b);
        bad += !std::isfinite(a);
        negative += std::isfinite(a) && a < 0.0f;
    }
    countNonFinite(add, bad, s.blocks(), "block absmax values");
    if (negative)
        add("scale", std::to_string(negative) + " block absmax values are negative");
    if (!std::isfinite(s.nestedOffset))
        add("scale", "nested_offset is NaN or Inf");
    // The stored maps must be the tables bitsandbytes computes with (it ignores the stored ones).
    const auto mapCheck = [&](std::string_view role, const float* table, size_t count, const char* what) {
        const int idx = w.member(role);
        if (idx < 0)
            return;
        const TensorEntry& t = ckpt.tensors[size_t(idx)];
        try {
            const FloatView v(ckpt.bytes(t), t.dtype, t.name);
            if (v.size() != count) {
                add("shape", t.name + " holds " + std::to_string(v.size()) + " values, " + what + " has " + std::to_string(count));
                return;
            }
            for (size_t i = 0; i < count; ++i)
                if (!(v.at(i) == table[i])) {
                    add("quant_map", t.name + "[" + std::to_string(i) + "] is " + std::to_string(v.at(i)) + ", " + what +
                                         " says " + std::to_string(table[i]));
                    return;
                }
        } catch (const Error& e) {
            add("shape", e.what());
        }
    };
    mapCheck("quant_map", s.table(), 16, s.fp4 ? "bitsandbytes' FP4 table" : "bitsandbytes' NF4 table");
    if (s.nested)
        mapCheck("nested_quant_map", bnbDynamicMap().data(), 256, "the signed dynamic map");
}

void verifyBnbInt8(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const Sink add{w, rep};
    BnbInt8 s;
    try {
        s = bnbInt8State(WeightData{ckpt, w});
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    uint64_t bad = 0, negative = 0, minCodes = 0;
    for (uint64_t r = 0; r < s.rows; ++r) {
        const float v = s.scb.at(r);
        bad += !std::isfinite(v);
        negative += std::isfinite(v) && v < 0.0f;
    }
    for (uint8_t c : s.q)
        minCodes += c == 0x80;
    countNonFinite(add, bad, s.rows, "row absmax values (SCB)");
    if (negative)
        add("scale", std::to_string(negative) + " SCB values are negative");
    if (minCodes)
        add("codes", std::to_string(minCodes) + " codes are -128: LLM.int8 rounds x * 127 / absmax, so codes lie in -127..127");
}

void verifyGguf(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const Sink add{w, rep};
    const TensorEntry& t = ckpt.tensors[size_t(w.members.at(0).second)];
    const GgmlTypeInfo* info = ggmlTypeTraits(t.ggmlType);
    if (!info || !info->hasSize()) {
        add("shape", "ggml type " + t.typeName + " has no block geometry");
        return;
    }
    const uint64_t K = w.inFeatures(), N = w.outFeatures();
    if (K % info->blockWeights != 0) {
        add("shape", "ne0 = " + std::to_string(K) + " is not a multiple of the " + t.typeName + " block (" +
                         std::to_string(info->blockWeights) + ")");
        return;
    }
    const uint64_t blocks = N * (K / info->blockWeights);
    if (t.nbytes != blocks * info->blockBytes) {
        add("shape", "the tensor holds " + std::to_string(t.nbytes) + " bytes, " + std::to_string(blocks) + " blocks of " +
                         t.typeName + " need " + std::to_string(blocks * info->blockBytes));
        return;
    }
    // Every bit of a ggml block is a field (the block maps cover them all), so re-encoding the
    // decoded fields gives the same bytes by construction; what can be wrong is a scale.
    const auto fields = ggmlBlockFields(t.ggmlType);
    const uint8_t* data = ckpt.bytes(t).data();
    uint64_t bad = 0, scales = 0;
    for (const GgmlBlockField& f : fields) {
        const bool f16 = f.kind == GgmlFieldKind::F16Scale || f.kind == GgmlFieldKind::F16Min;
        if (!f16 && f.kind != GgmlFieldKind::F32Scale)
            continue;
        const uint32_t width = f16 ? 2 : 4;
        for (uint64_t b = 0; b < blocks; ++b)
            for (uint32_t o = 0; o + width <= f.size; o += width) {
                const uint8_t* p = data + b * info->blockBytes + f.offset + o;
                float v;
                if (f16) {
                    uint16_t h;
                    std::memcpy(&h, p, 2);
                    v = halfToFloat(h);
                } else {
                    std::memcpy(&v, p, 4);
                }
                bad += !std::isfinite(v);
                ++scales;
            }
    }
    countNonFinite(add, bad, scales, "block scales and mins");
    if (t.ggmlType == GgmlQ8_0) {
        // quantize_row_q8_0 rounds x * 127 / amax: -128 never comes out of ggml.
        uint64_t minCodes = 0;
        for (uint64_t b = 0; b < blocks; ++b)
            for (uint32_t i = 0; i < 32; ++i)
                minCodes += data[b * info->blockBytes + 2 + i] == 0x80;
        if (minCodes)
            add("codes", std::to_string(minCodes) + " Q8_0 codes are -128 (ggml writes -127..127)", true);
    }
}

// Formats without a packer here: the weight must dequantize (every size and index is validated
// on the way) to finite values wherever its scales are finite.
void verifyByDequant(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep, const std::string& why)
{
    const Sink add{w, rep};
    try {
        const std::vector<float> x = dequantizeWeight(ckpt, w, bestSimdPath(), 1);
        const uint64_t bad = uint64_t(std::count_if(x.begin(), x.end(), [](float v) { return !std::isfinite(v); }));
        if (bad)
            add("scale", std::to_string(bad) + " of " + std::to_string(x.size()) + " dequantized values are NaN or Inf");
    } catch (const Error& e) {
        add("shape", e.what());
    }
    rep.findings.push_back({w.name, "roundtrip-not-applicable", why, true});
}

} // namespace

void verifyWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    static constexpr std::string_view packed[] = {"gptq-v1",  "gptq-v2",  "gptq-planar",   "gptq-marlin",
                                                  "awq-gemm", "awq-gemv", "awq-gemv-fast", "awq-marlin"};
    const FormatInfo* f = findFormat(w.format);
    if (!f || !f->quantized) {
        if (w.format == "unknown")
            rep.unchecked.push_back(w.name + " (unknown)");
        return;
    }
    // Detection goes by the tensors; a config declaring another method, version or width means
    // the writer packed something other than what it labelled (a wrong axis, a wrong layout).
    for (const std::string& note : w.notes)
        for (const char* p : {"config says quant_method", "config says version", "config says bits", "config says num_bits"})
            if (note.rfind(p, 0) == 0)
                rep.findings.push_back({w.name, "config", note + ": the stored layout is not the one the config declares"});
    for (const std::string& note : w.notes)
        if (note.rfind(kZeroConventionNote, 0) == 0)
            rep.findings.push_back({w.name, "zero-convention-mixed", note, true});
    if (std::find(std::begin(packed), std::end(packed), w.format) != std::end(packed))
        verifyPacked(ckpt, w, rep);
    else if (w.format == "compressed-tensors" || w.format == "compressed-tensors-int")
        verifyCt(ckpt, w, rep);
    else if (w.format == "mlx-affine")
        verifyMlx(ckpt, w, rep);
    else if (w.format == "bnb-nf4" || w.format == "bnb-fp4")
        verifyBnb4(ckpt, w, rep);
    else if (w.format == "bnb-int8")
        verifyBnbInt8(ckpt, w, rep);
    else if (f->family == FormatFamily::Gguf)
        verifyGguf(ckpt, w, rep);
    else if (canDequantize(w.format))
        verifyByDequant(ckpt, w, rep,
                        w.format + ": codes are floats or table indices whose every bit pattern is valid (or the packing "
                                   "has no spare bits), so there is no round trip to compare; sizes and values checked");
    else {
        rep.unchecked.push_back(w.name + " (" + w.format + ": no decoder, nothing to check against)");
        return;
    }
    rep.checked.push_back(w.name);
}

namespace {

// Weights repacked from act-order into a layout without g_idx carry "<module>.input_perm", named in
// the config (safetensors) or in quantscope.input_permutations (GGUF). Without it, or with
// something that is not a permutation of K, the layer reads the wrong input channels.
void verifyInputPermutations(const Checkpoint& ckpt, VerifyReport& rep)
{
    std::vector<std::string> modules;
    const QJsonValue qc = ckpt.config.value(QStringLiteral("quantization_config"));
    for (const QJsonValue v : qc.toObject().value(QStringLiteral("input_permutations")).toObject().value(QStringLiteral("modules")).toArray())
        modules.push_back(v.toString().toStdString());
    if (const MetaValue* m = ckpt.meta("quantscope.input_permutations"); m && m->type == MetaValue::Type::Array)
        for (const MetaValue& v : std::get<std::vector<MetaValue>>(m->value))
            if (const auto* s = std::get_if<std::string>(&v.value); s && s->size() > 11)
                modules.push_back(s->substr(0, s->size() - 11)); // minus ".input_perm"
    for (const std::string& mod : modules) {
        const LogicalWeight* w = ckpt.findWeight(mod);
        if (!w)
            w = ckpt.findWeight(mod + ".weight");
        const TensorEntry* t = ckpt.find(mod + ".input_perm");
        const std::string who = w ? w->name : mod;
        if (!t) {
            rep.findings.push_back({who, "input-perm", "the config says the input channels were permuted, but " + mod +
                                                           ".input_perm is missing: the act-order permutation was dropped"});
            continue;
        }
        const uint64_t K = w ? w->inFeatures() : t->elementCount();
        bool ok = t->elementCount() == K && (t->dtype == DType::I32 || t->dtype == DType::I64 ||
                                             (t->dtype == DType::Ggml && t->ggmlType == GgmlI32));
        if (ok) {
            const auto b = ckpt.bytes(*t);
            std::vector<bool> seen(K, false);
            const size_t width = t->dtype == DType::I64 ? 8 : 4;
            for (uint64_t i = 0; i < K && ok; ++i) {
                int64_t v = 0;
                if (width == 8)
                    std::memcpy(&v, b.data() + 8 * i, 8);
                else {
                    int32_t v32;
                    std::memcpy(&v32, b.data() + 4 * i, 4);
                    v = v32;
                }
                ok = v >= 0 && uint64_t(v) < K && !seen[size_t(v)];
                if (ok)
                    seen[size_t(v)] = true;
            }
        }
        if (!ok)
            rep.findings.push_back({who, "input-perm", mod + ".input_perm is not a permutation of the " + std::to_string(K) +
                                                           " input channels"});
    }
}

} // namespace

VerifyReport verifyCheckpoint(const Checkpoint& ckpt)
{
    VerifyReport rep;
    for (const LogicalWeight& w : ckpt.weights)
        verifyWeight(ckpt, w, rep);
    verifyInputPermutations(ckpt, rep);
    return rep;
}

} // namespace qs
