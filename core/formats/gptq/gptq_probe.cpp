// The report's seed probes for GPTQ, AWQ and Marlin: our packer writes the bytes the spec's
// locate() describes, PackedLinear reads every code back, and its scalar and fast
// dequantizers agree.
#include "formats/gptq/gptq.h"

#include "base/error.h"
#include "base/half.h"

namespace qs {

namespace {

// The packers' output and the reader over it.
struct PackedProbe {
    PackedOutput out;
    PackedLinear linear;
};

PackedProbe packProbeCodes(const LayoutSpec& spec, const LayoutParams& p, const std::vector<uint8_t>& codes)
{
    const uint64_t G = p.groups();
    const uint32_t maxq = (1u << p.bits) - 1;
    std::vector<int32_t> zeros(G * p.N);
    std::vector<uint16_t> scales(G * p.N);
    for (uint64_t i = 0; i < zeros.size(); ++i) {
        zeros[i] = 1 + int32_t((7 * i) % maxq); // >= 1: GPTQ v1 cannot store a zero of 0
        scales[i] = floatToHalf(float(i % 97 + 1) / 64.f);
    }
    PackedProbe r;
    PackedLinear& l = r.linear;
    l.bits = p.bits;
    l.K = p.K;
    l.N = p.N;
    l.groupSize = p.effectiveGroupSize();
    l.groups = G;
    l.name = "probe " + spec.id;
    const std::string& id = spec.id;
    if (id == "gptq-v1" || id == "gptq-v2" || id == "gptq-planar") {
        r.out = packGptq(codes, zeros, scales, p.bits, p.K, p.N, G, id == "gptq-v1", id == "gptq-planar");
        l.kind = id == "gptq-planar" ? PackedKind::GptqPlanar : PackedKind::Gptq;
        l.zeros = id == "gptq-v1" ? ZeroConvention::StoredMinusOne : ZeroConvention::Stored;
    } else if (id == "awq-gemm") {
        r.out = packAwqGemm(codes, zeros, scales, p.K, p.N, l.groupSize);
        l.kind = PackedKind::AwqGemm;
    } else if (id == "awq-gemv") {
        r.out = packAwqGemv(codes, zeros, scales, p.K, p.N, l.groupSize);
        l.kind = PackedKind::AwqGemv;
        l.zeroWords = r.out.qzeros.shape.at(1);
        l.scaleRows = r.out.scales.shape.at(1);
    } else if (id == "awq-gemv-fast") {
        r.out = packAwqGemvFast(codes, scales, scales, p.K, p.N, l.groupSize);
        l.kind = PackedKind::AwqGemvFast;
        l.zeros = ZeroConvention::FloatBias;
        l.scaleRows = r.out.scales.shape.at(0);
    } else if (id == "gptq-marlin" || id == "awq-marlin") {
        r.out = packMarlin(codes, scales, p.bits, p.K, p.N, G);
        l.kind = PackedKind::Marlin;
        l.zeros = ZeroConvention::Implicit;
    } else {
        throw Error("report: no packer for " + id);
    }
    l.qweight = r.out.qweight.bytes;
    l.qzeros = r.out.qzeros.bytes;
    l.scales = r.out.scales.bytes;
    l.validate();
    return r;
}

} // namespace

std::vector<ProbeCheck> packedProbe(const ProbeInput& in)
{
    const LayoutParams& p = in.params;
    const std::vector<uint8_t>& codes = in.codes;
    std::vector<ProbeCheck> out;
    const PackedProbe pk = packProbeCodes(in.spec, p, codes);
    const bool same = pk.out.qweight.bytes == in.placed;
    out.push_back({"our packer writes the bytes the spec describes", same,
                   same ? "" : "packed " + std::string(in.codeRole) + " differs from the spec's placement"});
    std::string bad;
    for (uint64_t e = 0; e < codes.size() && bad.empty(); ++e)
        if (pk.linear.codeAt(e / p.K, e % p.K) != codes[e])
            bad = probeCell(e / p.K, e % p.K) + ": reader says " + std::to_string(pk.linear.codeAt(e / p.K, e % p.K))
                + ", packed " + std::to_string(codes[e]);
    out.push_back({"our reader returns every code", bad.empty(), bad});
    std::vector<float> ref(p.N * p.K), fst(p.N * p.K);
    dequantPackedRowsRef(pk.linear, 0, p.N, ref.data());
    dequantPackedRows(pk.linear, 0, p.N, fst.data(), in.fast);
    out.push_back(probeBitExact(ref, fst, in.fast));
    return out;
}

} // namespace qs
