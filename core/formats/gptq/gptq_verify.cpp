// verify's checks of GPTQ, AWQ and Marlin weights: shapes, scales, g_idx, the stored words
// against the oracle packers, and the zero-point conventions (v1 z - 1, v2 z).
#include "formats/gptq/gptq.h"

#include "base/bitstream.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/half.h"
#include "formats/verify_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace qs {

namespace {

uint16_t packedScaleBits(float v, ScaleType t)
{
    return t == ScaleType::BF16 ? floatToBf16(v) : floatToHalf(v);
}

// The scales' signs and the groups g_idx assigns (non-finite scales are the health scan's,
// analysis/healthscan.h, with their places).
void checkPackedGroups(const FindingSink& add, const LogicalWeight& w, const PackedLinear& p)
{
    const uint64_t N = p.N, K = p.K, G = p.groups;
    uint64_t nonPositive = 0;
    for (uint64_t g = 0; g < G; ++g)
        for (uint64_t n = 0; n < N; ++n) {
            const float s = p.scaleAt(g, n);
            nonPositive += std::isfinite(s) && s <= 0.0f;
        }
    if (nonPositive)
        add("scale",
            Message(
                QT_TRANSLATE_NOOP("qs::Message",
                                  "%1 of %2 scales are zero or negative (GPTQ/AWQ quantizers give positive scales)"),
                {std::to_string(nonPositive), std::to_string(G * N)}));
    if (!p.gIdx.empty())
        checkGroups(add, K, G, p.groupSize, [&](uint64_t k) { return p.groupOf(k); });
    if (w.descAct && !w.actOrder && G > 1)
        add("g_idx",
            Message(QT_TRANSLATE_NOOP(
                "qs::Message",
                "desc_act is true but g_idx is sequential: static groups, or the act-order permutation was dropped")),
            true);
}

// The zero fields as stored (v1: z - 1), so the zeros round trip is independent of the v1
// rule; empty when the layout stores none.
std::vector<int32_t> storedZeroFields(const PackedLinear& p)
{
    const int b = p.bits;
    const uint64_t N = p.N, G = p.groups;
    std::vector<int32_t> raw;
    if (p.zeros == ZeroConvention::StoredMinusOne || p.zeros == ZeroConvention::Stored) {
        raw.resize(G * N);
        const uint64_t rowBytes = 4 * ceilDiv(N * uint64_t(b), 32);
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n)
                raw[g * N + n] = p.kind == PackedKind::Gptq
                    ? int32_t(bitstream::readField(p.qzeros.data() + g * rowBytes, n * uint64_t(b), b))
                    : p.zeroAt(g, n);
    }
    return raw;
}

// The field bits of the layouts whose fields lie alike in every column (GPTQ's stream along K,
// AWQ-GEMM's words of eight 4-bit slots): the oracle's packing of all-ones codes, for one
// column's words along K (qweight word i: q[(i / qRepeat) % q words]) and one group's row of
// zeros (qzeros word i: z[i % z words]).
struct FieldMasks {
    std::vector<uint8_t> q, z;
    uint64_t qRepeat = 1;
};

// Nothing for the other layouts, or when the sizes are not the packer's (the oracle then says
// how they differ).
std::optional<FieldMasks> fieldMasks(const PackedLinear& p)
{
    const bool gptq = p.kind == PackedKind::Gptq;
    if (!gptq && p.kind != PackedKind::AwqGemm)
        return std::nullopt;
    const int b = p.bits;
    const uint64_t N = p.N, K = p.K, G = p.groups;
    const auto allOnes = [](uint64_t count, int bits) {
        return std::vector<uint8_t>(count, uint8_t((1u << bits) - 1));
    };
    FieldMasks m;
    m.q = gptq ? bitstream::packStream(allOnes(K, b), b, 32) : bitstream::packSlots(allOnes(8, 4), 4, 32);
    m.z = gptq ? bitstream::packStream(allOnes(N, b), b, 32) : bitstream::packSlots(allOnes(8, 4), 4, 32);
    m.qRepeat = gptq ? N : 1;
    const uint64_t qBytes = gptq ? m.q.size() * N : K * (N / 8) * 4;
    const uint64_t zBytes = gptq ? m.z.size() * G : G * (N / 8) * 4;
    if ((!gptq && N % 8) || p.qweight.size() != qBytes
        || (p.zeros != ZeroConvention::Implicit && p.qzeros.size() != zBytes))
        return std::nullopt;
    return m;
}

// f(i, m) for each word i whose mask m has a bit outside every field (a GPTQ stream's last
// row, say); word i's mask is mask[(i / repeat) % mask words].
template <typename F>
void forEachPaddedWord(uint64_t bytes, const std::vector<uint8_t>& mask, uint64_t repeat, F&& f)
{
    const uint64_t maskWords = mask.size() / 4, words = bytes / 4;
    for (uint64_t mw = 0; mw < maskWords; ++mw) {
        uint32_t m;
        std::memcpy(&m, mask.data() + 4 * mw, 4);
        if (m != ~0u)
            for (uint64_t start = mw * repeat; start < words; start += maskWords * repeat)
                for (uint64_t i = start; i < std::min(words, start + repeat); ++i)
                    f(i, m);
    }
}

// The stored words with every bit outside a field cleared.
std::vector<uint8_t> fieldBitsOnly(std::span<const uint8_t> stored, const std::vector<uint8_t>& mask, uint64_t repeat)
{
    std::vector<uint8_t> out(stored.begin(), stored.end());
    forEachPaddedWord(out.size(), mask, repeat, [&](uint64_t i, uint32_t m) {
        uint32_t w;
        std::memcpy(&w, out.data() + 4 * i, 4);
        w &= m;
        std::memcpy(out.data() + 4 * i, &w, 4);
    });
    return out;
}

bool paddingClear(std::span<const uint8_t> stored, const std::vector<uint8_t>& mask, uint64_t repeat)
{
    bool clear = true;
    forEachPaddedWord(stored.size(), mask, repeat, [&](uint64_t i, uint32_t m) {
        uint32_t w;
        std::memcpy(&w, stored.data() + 4 * i, 4);
        clear = clear && !(w & ~m);
    });
    return clear;
}

} // namespace

Repacked repackedWords(const PackedLinear& p, std::span<const int32_t> raw, bool oracle)
{
    if (const std::optional<FieldMasks> m = oracle ? std::nullopt : fieldMasks(p)) {
        Repacked r;
        r.qweight = fieldBitsOnly(p.qweight, m->q, m->qRepeat);
        if (p.zeros != ZeroConvention::Implicit)
            r.qzeros = fieldBitsOnly(p.qzeros, m->z, 1);
        return r;
    }
    const int b = p.bits;
    const uint64_t N = p.N, K = p.K, G = p.groups;
    std::vector<uint8_t> codes(N * K);
    for (uint64_t n = 0; n < N; ++n)
        for (uint64_t k = 0; k < K; ++k)
            codes[n * K + k] = uint8_t(p.codeAt(n, k));
    std::vector<uint16_t> scaleBits(G * N, 0);
    const bool halfScales = p.scaleType != ScaleType::F32;
    if (halfScales)
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n)
                scaleBits[g * N + n] = packedScaleBits(p.scaleAt(g, n), p.scaleType);
    PackedOutput out;
    bool compareScales = halfScales; // the layouts that pad or permute scales
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
    case PackedKind::AwqGemv: out = packAwqGemv(codes, raw, scaleBits, K, N, p.groupSize); break;
    case PackedKind::AwqGemvFast: {
        std::vector<uint16_t> biases(G * N);
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n)
                biases[g * N + n] = floatToHalf(p.biasAt(g, n));
        out = packAwqGemvFast(codes, biases, scaleBits, K, N, p.groupSize);
        break;
    }
    case PackedKind::Marlin: out = packMarlin(codes, scaleBits, b, K, N, G); break;
    }
    Repacked r;
    r.qweight = std::move(out.qweight.bytes);
    if (p.zeros != ZeroConvention::Implicit)
        r.qzeros = std::move(out.qzeros.bytes);
    if (compareScales)
        r.scales = std::move(out.scales.bytes);
    return r;
}

namespace {

// verify's round trip: the stored words against their repacking (codes, zeros, and the scales
// of the layouts that pad or permute them); false when the decoded fields cannot be repacked
// (said).
bool checkPackedRoundTrip(const FindingSink& add, const PackedLinear& p, const std::vector<int32_t>& raw)
{
    // Nothing set outside a field: the repacking is the stored words, found without a copy.
    if (const std::optional<FieldMasks> m = fieldMasks(p); m && paddingClear(p.qweight, m->q, m->qRepeat)
        && (p.zeros == ZeroConvention::Implicit || paddingClear(p.qzeros, m->z, 1)))
        return true;
    Repacked out;
    try {
        out = repackedWords(p, raw, false);
    } catch (const std::exception& e) {
        add("qweight-roundtrip",
            Message(QT_TRANSLATE_NOOP("qs::Message", "the decoded fields cannot be repacked: %1"), {e.what()}));
        return false;
    }
    checkRoundTrip(
        add, "qweight-roundtrip", p.qweight, out.qweight,
        QT_TRANSLATE_NOOP("qs::Message",
                          "stored codes differ from their repacking (nonzero padding or sign-extended fields?): %1"));
    if (p.zeros != ZeroConvention::Implicit)
        checkRoundTrip(add, "qzeros-roundtrip", p.qzeros, out.qzeros,
                       QT_TRANSLATE_NOOP(
                           "qs::Message",
                           "stored zeros differ from their repacking (nonzero padding or sign-extended fields?): %1"));
    if (!out.scales.empty())
        checkRoundTrip(add, "scales-roundtrip", p.scales, out.scales,
                       QT_TRANSLATE_NOOP("qs::Message",
                                         "stored scales (padding, order) differ from their repacking (nonzero padding "
                                         "or sign-extended fields?): %1"),
                       2);

    return true;
}

// The zero-point conventions: v1's -1 spill, the v1/v2 label against the zeros, symmetric zeros.
void checkZeroConventions(const FindingSink& add, const LogicalWeight& w, const PackedLinear& p,
                          const std::vector<int32_t>& raw)
{
    const int b = p.bits;
    const uint32_t maxq = (1u << b) - 1u;
    const uint64_t N = p.N, G = p.groups;
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
            add("v1-zero-spill",
                Message(QT_TRANSLATE_NOOP(
                            "qs::Message",
                            "%1 zero fields hold 2^b-1: a v1 checkpoint stores z-1, so these are "
                            "z = 0 written as -1 (upstream then ORs ones into the higher fields of the word)"),
                        {std::to_string(spill)}),
                broken == 0 && !w.symmetric);
        if (broken)
            add("v1-zero-spill",
                Message(QT_TRANSLATE_NOOP("qs::Message",
                                          "%1 fields of 2^b-1 are followed by other values in the same word: "
                                          "not the upstream -1 spill, a corrupt or sign-extended field"),
                        {std::to_string(broken)}));
    }
    // Detection trusts the zeros of a symmetric GPTQ weight over the label; a disagreement is the
    // v1/v2 off by one (a v2 checkpoint labelled v1 or the reverse).
    if (const auto it = w.params.find("checkpoint_format");
        it != w.params.end() && w.symmetric && (w.format == "gptq-v1" || w.format == "gptq-v2")) {
        const bool labelV2 = it->second == "gptq_v2";
        if (labelV2 != (w.format == "gptq-v2"))
            add("zero-convention",
                Message(QT_TRANSLATE_NOOP("qs::Message",
                                          "checkpoint_format says %1 but the symmetric zero fields are those of "
                                          "%2: off by one, the v1/v2 convention is mixed"),
                        {it->second, w.format}));
    }
    if (w.symmetric && !raw.empty()) {
        // Symmetric GPTQ/AWQ use z = 2^(b-1); the field is that minus one in v1, itself in v2.
        const int32_t mid = int32_t(1u << (b - 1));
        const int32_t expect = p.zeros == ZeroConvention::StoredMinusOne ? mid - 1 : mid;
        const int32_t other = p.zeros == ZeroConvention::StoredMinusOne ? mid : mid - 1;
        const uint64_t off = uint64_t(std::count(raw.begin(), raw.end(), other));
        const uint64_t ok = uint64_t(std::count(raw.begin(), raw.end(), expect));
        if (off > 0 && off >= ok)
            add("zero-convention",
                Message(QT_TRANSLATE_NOOP("qs::Message",
                                          "%1 of %2 zero fields are %3, expected %4 for a symmetric %5 "
                                          "checkpoint: off by one, the v1/v2 convention looks mixed"),
                        {std::to_string(off), std::to_string(raw.size()), std::to_string(other), std::to_string(expect),
                         w.format}));
        else if (ok != raw.size())
            add("zero-convention",
                Message(QT_TRANSLATE_NOOP("qs::Message", "%1 zero fields of a symmetric checkpoint are not %2"),
                        {std::to_string(raw.size() - ok), std::to_string(expect)}));
    }
}

} // namespace

void verifyPackedWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    const FindingSink add{w, rep};
    const WeightData wd{ckpt, w};
    PackedLinear p;
    try {
        p = describePacked(wd); // validates every size, shape and g_idx entry
    } catch (const Error& e) {
        add("shape", e.what());
        return;
    }
    checkSpecShapes(add, ckpt, w, p.K, p.N, p.bits, p.groupSize);
    checkPackedGroups(add, w, p);
    const std::vector<int32_t> raw = storedZeroFields(p);
    if (!checkPackedRoundTrip(add, p, raw))
        return;
    checkZeroConventions(add, w, p, raw);
}

} // namespace qs
