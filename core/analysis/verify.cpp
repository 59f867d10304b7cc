#include "analysis/verify.h"

#include "error.h"
#include "formats/formatid.h"
#include "kernels/bitstream.h"
#include "kernels/gptq.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace qs {

namespace {

bool equalBytes(std::span<const uint8_t> stored, const std::vector<uint8_t>& packed)
{
    return stored.size() == packed.size() && std::equal(stored.begin(), stored.end(), packed.begin());
}

// First differing 32-bit word, for the message.
std::string firstDiff(std::span<const uint8_t> stored, const std::vector<uint8_t>& packed)
{
    if (stored.size() != packed.size())
        return "size " + std::to_string(stored.size()) + " bytes, expected " + std::to_string(packed.size());
    for (size_t i = 0; i + 4 <= stored.size(); i += 4)
        if (std::memcmp(stored.data() + i, packed.data() + i, 4) != 0) {
            uint32_t a, b;
            std::memcpy(&a, stored.data() + i, 4);
            std::memcpy(&b, packed.data() + i, 4);
            char buf[96];
            std::snprintf(buf, sizeof buf, "word %zu is 0x%08x, repacked 0x%08x", i / 4, a, b);
            return buf;
        }
    return "trailing bytes differ";
}

void verifyPacked(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    auto add = [&](std::string check, std::string msg) { rep.findings.push_back({w.name, std::move(check), std::move(msg)}); };
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

    // Scales.
    uint64_t bad = 0;
    for (uint64_t g = 0; g < G; ++g)
        for (uint64_t n = 0; n < N; ++n)
            if (!std::isfinite(p.scaleAt(g, n)))
                ++bad;
    if (bad)
        add("scale", std::to_string(bad) + " of " + std::to_string(G * N) + " scales are NaN or Inf");

    // g_idx: each group holds at most groupSize channels (act-order permutes, never grows a group).
    if (!p.gIdx.empty()) {
        std::vector<uint64_t> count(G, 0);
        for (uint64_t k = 0; k < K; ++k)
            ++count[p.groupOf(k)];
        for (uint64_t g = 0; g < G; ++g)
            if (count[g] > p.groupSize) {
                add("g_idx", "group " + std::to_string(g) + " has " + std::to_string(count[g]) + " channels, group size is " +
                                 std::to_string(p.groupSize));
                break;
            }
    }

    // Codes: unpack every element, repack with the oracle packer, compare with the stored words.
    std::vector<uint8_t> codes(N * K);
    for (uint64_t n = 0; n < N; ++n)
        for (uint64_t k = 0; k < K; ++k)
            codes[n * K + k] = uint8_t(p.codeAt(n, k));
    // Raw zero fields as stored (v1: z - 1), so the zeros round trip is independent of the v1 rule.
    std::vector<int32_t> raw(G * N);
    std::vector<uint16_t> noScales(G * N, 0);
    if (p.kind == PackedKind::Gptq) {
        const uint64_t rowBytes = 4 * ((N * uint64_t(b) + 31) / 32);
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n)
                raw[g * N + n] = int32_t(bitstream::readField(p.qzeros.data() + g * rowBytes, n * uint64_t(b), b));
    } else {
        for (uint64_t g = 0; g < G; ++g)
            for (uint64_t n = 0; n < N; ++n)
                raw[g * N + n] = p.zeroAt(g, n);
    }
    const PackedOutput out = p.kind == PackedKind::Gptq ? packGptq(codes, raw, noScales, b, K, N, G, false, false)
                                                        : packAwqGemm(codes, raw, noScales, K, N, p.groupSize);
    if (!equalBytes(p.qweight, out.qweight.bytes))
        add("qweight-roundtrip", "stored codes differ from their repacking (nonzero padding?): " +
                                     firstDiff(p.qweight, out.qweight.bytes));
    if (!equalBytes(p.qzeros, out.qzeros.bytes))
        add("qzeros-roundtrip", "stored zeros differ from their repacking (sign-extended or nonzero padding bits): " +
                                    firstDiff(p.qzeros, out.qzeros.bytes));

    // Zero-point conventions.
    if (p.zeros == ZeroConvention::StoredMinusOne) {
        const uint64_t spill = uint64_t(std::count(raw.begin(), raw.end(), int32_t(maxq)));
        if (spill)
            add("v1-zero-spill", std::to_string(spill) + " zero fields hold 2^b-1: a v1 checkpoint stores z-1, so these are "
                                 "z = 0 written as -1 (upstream then ORs ones into the higher fields of the word)");
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
    if (w.symmetric) {
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

} // namespace

void verifyWeight(const Checkpoint& ckpt, const LogicalWeight& w, VerifyReport& rep)
{
    if (w.format == "gptq-v1" || w.format == "gptq-v2" || w.format == "awq-gemm") {
        verifyPacked(ckpt, w, rep);
        rep.checked.push_back(w.name);
        return;
    }
    const FormatInfo* f = findFormat(w.format);
    if (f && f->quantized)
        rep.unchecked.push_back(w.name + " (" + w.format + ")");
}

VerifyReport verifyCheckpoint(const Checkpoint& ckpt)
{
    VerifyReport rep;
    for (const LogicalWeight& w : ckpt.weights)
        verifyWeight(ckpt, w, rep);
    return rep;
}

} // namespace qs
