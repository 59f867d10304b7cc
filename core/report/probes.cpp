// The seed probes (patterned (7*row + 3*col) mod 2^b, random, all-max) run at report time:
// codes are placed through LayoutSpec::locate() (the oracle placement), and checked against
// our packers (GPTQ/AWQ/Marlin) and our readers (the kernels' element view and the scalar vs
// fast dequantizers). A report therefore states what the code does today, not what it did.
#include "report/report.h"

#include "container/ggmltype.h"
#include "base/error.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"
#include "report/specmath.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

namespace qs::report {

namespace {

enum class Probe { Patterned, Random, AllMax };
const char* probeName(Probe p)
{
    return p == Probe::Patterned ? "patterned" : p == Probe::AllMax ? "allmax" : "random";
}

std::vector<uint8_t> probeCodes(Probe p, uint64_t rows, uint64_t cols, int bits)
{
    std::vector<uint8_t> q(rows * cols);
    const uint32_t max = (1u << bits) - 1;
    std::mt19937 rng(7);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            q[r * cols + c] = uint8_t(p == Probe::Patterned ? (7 * r + 3 * c) % (uint64_t(max) + 1)
                                          : p == Probe::AllMax ? max
                                                               : rng() & max);
    return q;
}

int pieceWidth(const BitPiece* pieces, int count)
{
    int w = 0;
    for (int i = 0; i < count; ++i)
        w += pieces[i].width;
    return w;
}

bool inBounds(const BitPiece& pc, uint32_t wordBits, size_t bytes)
{
    const uint64_t first = pc.word * wordBits + pc.bit;
    return pc.word < (uint64_t(1) << 40) && (first + pc.width + 7) / 8 <= bytes;
}

void writePieces(std::vector<uint8_t>& bytes, uint32_t wordBits, const BitPiece* pieces, int count, uint64_t value)
{
    int shift = 0;
    for (int i = 0; i < count; ++i) {
        const uint64_t first = pieces[i].word * wordBits + pieces[i].bit;
        for (uint32_t b = 0; b < pieces[i].width; ++b) {
            const uint64_t at = first + b;
            const uint8_t mask = uint8_t(1u << (at % 8));
            if ((value >> (shift + int(b))) & 1)
                bytes[at / 8] |= mask;
            else
                bytes[at / 8] &= uint8_t(~mask);
        }
        shift += pieces[i].width;
    }
}

uint64_t readPieces(const std::vector<uint8_t>& bytes, uint32_t wordBits, const BitPiece* pieces, int count)
{
    uint64_t v = 0;
    int shift = 0;
    for (int i = 0; i < count; ++i) {
        const uint64_t first = pieces[i].word * wordBits + pieces[i].bit;
        for (uint32_t b = 0; b < pieces[i].width; ++b) {
            const uint64_t at = first + b;
            v |= uint64_t((bytes[at / 8] >> (at % 8)) & 1) << (shift + int(b));
        }
        shift += pieces[i].width;
    }
    return v;
}

bool samePieces(const ElementLocation& a, const ElementLocation& b)
{
    if (a.pieceCount != b.pieceCount)
        return false;
    for (int i = 0; i < a.pieceCount; ++i)
        if (a.pieces[i].word != b.pieces[i].word || a.pieces[i].bit != b.pieces[i].bit || a.pieces[i].width != b.pieces[i].width)
            return false;
    return true;
}

std::string at(uint64_t r, uint64_t c)
{
    return "(" + std::to_string(r) + ", " + std::to_string(c) + ")";
}

bool gptqFamily(const std::string& id)
{
    return id.rfind("gptq-", 0) == 0 || id.rfind("awq-", 0) == 0;
}

// The packers' and readers' view for the GPTQ / AWQ / Marlin family.
struct PackedProbe {
    PackedOutput out;
    PackedLinear linear;
};

PackedProbe packFamily(const LayoutSpec& spec, const LayoutParams& p, const std::vector<uint8_t>& codes)
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

LayoutParams probeParams(const LayoutSpec& spec, const LayoutParams& requested)
{
    LayoutParams p;
    if (const GgmlTypeInfo* g = ggmlTypeOfSpec(spec)) {
        p.K = 2 * uint64_t(std::max<uint32_t>(g->blockWeights, 4));
        p.N = 3;
        p.bits = spec.bitWidths.empty() ? 8 : spec.bitWidths.front();
        return p;
    }
    const auto& bw = spec.bitWidths;
    p.bits = std::find(bw.begin(), bw.end(), requested.bits) != bw.end() ? requested.bits : bw.empty() ? 4 : bw.front();
    p.K = 256;
    p.N = 128;
    const uint64_t g = requested.groupSize;
    p.groupSize = g == 0 || g >= requested.K ? 0 : (g == 16 || g == 32 || g == 64 || g == 128) ? g : 64;
    return p;
}

ProbeRun runProbes(const LayoutSpec& spec, const LayoutParams& requested)
{
    ProbeRun run;
    const LayoutParams p = probeParams(spec, requested);
    run.params = p;
    if (!spec.locate) {
        run.skipped = "the layout is not modelled (detection only names this format)";
        return run;
    }
    if (spec.packAxis == PackAxis::None) {
        run.skipped = "plain element type: every element is a whole stored value, nothing is packed";
        return run;
    }
    const ElementLocation first = spec.locate(p, 0, 0);
    const LayoutTensor* codeTensor = findTensor(spec, first.tensor);
    if (!codeTensor || !codeTensor->shape)
        throw Error("report: " + spec.id + ": locate() names tensor '" + std::string(first.tensor) + "' the spec does not list");
    const size_t bytes = size_t(tensorBytes(spec, *codeTensor, p));
    const uint32_t wordBits = first.wordBits;
    const int width = pieceWidth(first.pieces, first.pieceCount);
    const int codeBits = std::min(width, 8);

    // Placement: every element's bits inside the tensor, elements own disjoint bits or share
    // exactly the same ones (codebook indices, trit bytes).
    std::vector<ElementLocation> locs(p.N * p.K);
    std::vector<uint32_t> owner(bytes * 8, 0);
    std::vector<uint64_t> writer(p.N * p.K); // element whose code the element's bits hold
    uint64_t shared = 0;
    std::string layoutProblem;
    for (uint64_t r = 0; r < p.N && layoutProblem.empty(); ++r)
        for (uint64_t c = 0; c < p.K && layoutProblem.empty(); ++c) {
            const uint64_t e = r * p.K + c;
            const ElementLocation& loc = locs[e] = spec.locate(p, r, c);
            writer[e] = e;
            if (loc.tensor != first.tensor || pieceWidth(loc.pieces, loc.pieceCount) != width) {
                layoutProblem = at(r, c) + " lies in another tensor or has another width";
                break;
            }
            for (int i = 0; i < loc.pieceCount && layoutProblem.empty(); ++i) {
                if (!inBounds(loc.pieces[i], wordBits, bytes)) {
                    layoutProblem = at(r, c) + " lies outside the " + codeTensor->role + " tensor";
                    break;
                }
                const uint64_t b0 = loc.pieces[i].word * wordBits + loc.pieces[i].bit;
                for (uint32_t b = 0; b < loc.pieces[i].width; ++b) {
                    uint32_t& o = owner[b0 + b];
                    if (o == 0) {
                        o = uint32_t(e + 1);
                    } else if (o != e + 1) {
                        const uint64_t other = o - 1;
                        if (!samePieces(locs[other], loc)) {
                            layoutProblem = at(r, c) + " overlaps " + at(other / p.K, other % p.K);
                            break;
                        }
                        writer[e] = writer[other];
                    }
                }
            }
            shared += writer[e] != e;
        }
    ProbeResult layout{"layout", "every element's " + std::to_string(width) + " bits lie in " + codeTensor->role
                                     + " (" + std::to_string(bytes) + " bytes) and no two elements overlap",
                       layoutProblem.empty(), layoutProblem};
    if (layout.pass && shared)
        layout.detail = std::to_string(shared) + " elements share an index with another element (codebook or trit byte)";
    run.results.push_back(layout);
    if (!layout.pass)
        return run;

    const GgmlTypeInfo* ggml = ggmlTypeOfSpec(spec);
    const SimdPath fast = bestSimdPath();
    for (Probe probe : {Probe::Patterned, Probe::Random, Probe::AllMax}) {
        const std::string name = probeName(probe);
        std::vector<uint8_t> codes = probeCodes(probe, p.N, p.K, codeBits);
        for (uint64_t e = 0; e < codes.size(); ++e)
            codes[e] = codes[writer[e]]; // shared bits hold one value

        // Oracle placement, on a background of 0x3C bytes (f16 scales of about 1.06) so the
        // dequantizers below see finite, non-zero scales.
        std::vector<uint8_t> placed(bytes, ggml ? uint8_t(0x3C) : uint8_t(0));
        for (uint64_t e = 0; e < codes.size(); ++e)
            writePieces(placed, wordBits, locs[e].pieces, locs[e].pieceCount, codes[e]);
        std::string bad;
        for (uint64_t e = 0; e < codes.size() && bad.empty(); ++e)
            if (readPieces(placed, wordBits, locs[e].pieces, locs[e].pieceCount) != codes[e])
                bad = at(e / p.K, e % p.K);
        run.results.push_back({name, "codes placed by locate() read back", bad.empty(), bad});

        if (gptqFamily(spec.id)) {
            const PackedProbe pk = packFamily(spec, p, codes);
            const bool same = pk.out.qweight.bytes == placed;
            run.results.push_back({name, "our packer writes the bytes the spec describes", same,
                                   same ? "" : "packed " + codeTensor->role + " differs from the spec's placement"});
            bad.clear();
            for (uint64_t e = 0; e < codes.size() && bad.empty(); ++e)
                if (pk.linear.codeAt(e / p.K, e % p.K) != codes[e])
                    bad = at(e / p.K, e % p.K) + ": reader says " + std::to_string(pk.linear.codeAt(e / p.K, e % p.K))
                        + ", packed " + std::to_string(codes[e]);
            run.results.push_back({name, "our reader returns every code", bad.empty(), bad});
            std::vector<float> ref(p.N * p.K), fst(p.N * p.K);
            dequantPackedRowsRef(pk.linear, 0, p.N, ref.data());
            dequantPackedRows(pk.linear, 0, p.N, fst.data(), fast);
            const bool eq = std::memcmp(ref.data(), fst.data(), ref.size() * sizeof(float)) == 0;
            run.results.push_back({name, std::string("scalar and ") + std::string(simdPathName(fast)) + " dequantizers agree bit for bit",
                                   eq, ""});
        } else if (ggml) {
            bad.clear();
            for (uint64_t e = 0; e < codes.size() && bad.empty(); ++e) {
                const uint64_t r = e / p.K, c = e % p.K;
                const GgmlElementLocation gl = ggmlLocateElement(ggml->id, uint32_t(c % ggml->blockWeights));
                if (gl.count == 0) {
                    bad = at(r, c) + ": no block-map entry";
                    break;
                }
                GgmlPieceRole role = gl.pieces[0].role;
                for (GgmlPieceRole want : {GgmlPieceRole::Value, GgmlPieceRole::Code, GgmlPieceRole::GridIndex, GgmlPieceRole::TritByte})
                    if (std::any_of(gl.view().begin(), gl.view().end(), [&](const GgmlBitPiece& x) { return x.role == want; })) {
                        role = want;
                        break;
                    }
                const uint64_t block = r * (p.K / ggml->blockWeights) + c / ggml->blockWeights;
                const uint64_t got = ggmlExtractBits(placed.data() + block * ggml->blockBytes, gl, role);
                if ((got & ((uint64_t(1) << codeBits) - 1)) != codes[e])
                    bad = at(r, c) + ": block map reads " + std::to_string(got) + ", placed " + std::to_string(codes[e]);
            }
            run.results.push_back({name, "the ggml block map reads every code", bad.empty(), bad});
            std::vector<float> ref(p.N * p.K), fst(p.N * p.K);
            dequantizeGgmlRowsRef(ggml->id, placed.data(), p.N, p.K, ref.data());
            dequantizeGgmlRows(ggml->id, placed.data(), p.N, p.K, fst.data(), fast);
            const bool eq = std::memcmp(ref.data(), fst.data(), ref.size() * sizeof(float)) == 0;
            run.results.push_back({name, std::string("scalar and ") + std::string(simdPathName(fast)) + " dequantizers agree bit for bit",
                                   eq, ""});
        }
    }
    return run;
}

} // namespace qs::report
