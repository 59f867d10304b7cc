// The seed probes (patterned (7*row + 3*col) mod 2^b, random, all-max) run at report time:
// codes are placed through LayoutSpec::locate() (the oracle placement), and checked against
// the family's own packer and readers (FamilyRow::packProbe: GPTQ/AWQ/Marlin packers, the ggml
// block map, the scalar vs fast dequantizers). A report therefore states what the code does
// today, not what it did.
#include "report/report.h"

#include "base/error.h"
#include "base/intmath.h"
#include "container/ggmltype.h"
#include "formats/family.h"
#include "formats/probecheck.h"
#include "report/specmath.h"

#include <algorithm>
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
            q[r * cols + c] = uint8_t(p == Probe::Patterned    ? (7 * r + 3 * c) % (uint64_t(max) + 1)
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
    return pc.word < (uint64_t(1) << 40) && ceilDiv(first + pc.width, 8) <= bytes;
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
        if (a.pieces[i].word != b.pieces[i].word || a.pieces[i].bit != b.pieces[i].bit
            || a.pieces[i].width != b.pieces[i].width)
            return false;
    return true;
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
        throw Error("report: " + spec.id + ": locate() names tensor '" + std::string(first.tensor)
                    + "' the spec does not list");
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
                layoutProblem = probeCell(r, c) + " lies in another tensor or has another width";
                break;
            }
            for (int i = 0; i < loc.pieceCount && layoutProblem.empty(); ++i) {
                if (!inBounds(loc.pieces[i], wordBits, bytes)) {
                    layoutProblem = probeCell(r, c) + " lies outside the " + codeTensor->role + " tensor";
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
                            layoutProblem = probeCell(r, c) + " overlaps " + probeCell(other / p.K, other % p.K);
                            break;
                        }
                        writer[e] = writer[other];
                    }
                }
            }
            shared += writer[e] != e;
        }
    ProbeResult layout{"layout",
                       "every element's " + std::to_string(width) + " bits lie in " + codeTensor->role + " ("
                           + std::to_string(bytes) + " bytes) and no two elements overlap",
                       layoutProblem.empty(), layoutProblem};
    if (layout.pass && shared)
        layout.detail =
            std::to_string(shared) + " elements share an index with another element (codebook or trit byte)";
    run.results.push_back(layout);
    if (!layout.pass)
        return run;

    const GgmlTypeInfo* ggml = ggmlTypeOfSpec(spec);
    const SimdPath fast = bestSimdPath();
    const FamilyRow* row = familyRowOf(spec.id);
    const PackProbeFn packProbe = row ? row->packProbe : nullptr;
    for (Probe probe : {Probe::Patterned, Probe::Random, Probe::AllMax}) {
        const std::string name = probeName(probe);
        std::vector<uint8_t> codes = probeCodes(probe, p.N, p.K, codeBits);
        for (uint64_t e = 0; e < codes.size(); ++e)
            codes[e] = codes[writer[e]]; // shared bits hold one value

        // Oracle placement, on a background of 0x3C bytes (f16 scales of about 1.06) so the
        // ggml dequantizers of the family probe see finite, non-zero scales.
        std::vector<uint8_t> placed(bytes, ggml ? uint8_t(0x3C) : uint8_t(0));
        for (uint64_t e = 0; e < codes.size(); ++e)
            writePieces(placed, wordBits, locs[e].pieces, locs[e].pieceCount, codes[e]);
        std::string bad;
        for (uint64_t e = 0; e < codes.size() && bad.empty(); ++e)
            if (readPieces(placed, wordBits, locs[e].pieces, locs[e].pieceCount) != codes[e])
                bad = probeCell(e / p.K, e % p.K);
        run.results.push_back({name, "codes placed by locate() read back", bad.empty(), bad});

        if (packProbe)
            for (ProbeCheck& c : packProbe({spec, p, codes, placed, codeTensor->role, codeBits, fast}))
                run.results.push_back({name, std::move(c.check), c.pass, std::move(c.detail)});
    }
    return run;
}

} // namespace qs::report
