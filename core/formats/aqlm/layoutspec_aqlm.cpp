// Layout spec of AQLM (formats/aqlm/aqlm.h). LayoutParams: bits = index bits per codebook,
// groupSize = in_group (0: 8), codebooks = M, outGroupSize = out_group. Element (n, k) belongs to
// code group (n / og, k / ig); its code word for codebook m is codes[n / og][k / ig][m], whose
// low `bits` bits are the index (the og x ig elements of a group share those bits). locate()
// names codebooks 0..2 as the element's pieces, codebook m's index in piece m.
#include "formats/layoutspec_util.h"
#include "formats/aqlm/aqlm.h"

#include "container/checkpoint.h"

#include <algorithm>
#include <cstdlib>

namespace qs {

namespace {

using layout::tensor;

uint64_t aqlmInGroupOf(const LayoutParams& p)
{
    return p.groupSize ? p.groupSize : 8;
}

uint64_t aqlmOutGroupOf(const LayoutParams& p)
{
    return p.outGroupSize ? p.outGroupSize : 1;
}

uint64_t aqlmCodebooksOf(const LayoutParams& p)
{
    return p.codebooks > 0 ? uint64_t(p.codebooks) : 1;
}

LayoutSpec aqlm()
{
    LayoutSpec s;
    s.id = "aqlm";
    s.name = "AQLM additive codebooks (aqlm inference_lib, transformers serialization)";
    s.bitWidths = {8, 16, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15};
    s.wordBits = 8;
    s.packAxis = PackAxis::In;
    s.signedness = CodeSignedness::Unsigned;
    s.zeroPoint = ZeroPointKind::None;
    s.formula = "W[n][k] = f16(f16(sum over m of codebooks[m][codes[n/og][k/ig][m] mod 2^b][n%og][k%ig]) "
                "* scales[n/og])";
    s.exactness = "the codebook sum in float32 from +0.0, codebook 0 first (torch embedding_bag), rounded once to the "
                  "codebooks' dtype; the scale product rounded once";
    s.tensors = {
        tensor(
            "codes", "I8",
            "[N/og, K/ig, M] I8 for b <= 8; [N/og, K/ig, M] I16 for b <= 16, counted here as [N/og, K/ig, 2M] bytes",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{ceilDiv(p.N, aqlmOutGroupOf(p)), ceilDiv(p.K, aqlmInGroupOf(p)),
                                             aqlmCodebooksOf(p) * (p.bits <= 8 ? 1 : 2)};
            },
            "per code group, one index per codebook; indices >= 2^(b-1) stored negative (two's complement)"),
        tensor(
            "codebooks", "F16", "[M, 2^b, og, ig]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{aqlmCodebooksOf(p), uint64_t(1) << std::clamp(p.bits, 1, 16),
                                             aqlmOutGroupOf(p), aqlmInGroupOf(p)};
            },
            "learned og x ig vectors, summed over the M codebooks"),
        tensor(
            "scales", "F16", "[N/og, 1, 1, 1]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{ceilDiv(p.N, aqlmOutGroupOf(p)), 1, 1, 1};
            },
            "one multiplier per output group (og rows)"),
    };
    s.padding = "none: out_group must divide N and in_group K";
    s.refuses = [](const LayoutParams& p) -> std::string {
        if (p.K % aqlmInGroupOf(p))
            return "in_group_size " + std::to_string(aqlmInGroupOf(p)) + " must divide K";
        if (p.N % aqlmOutGroupOf(p))
            return "out_group_size " + std::to_string(aqlmOutGroupOf(p)) + " must divide N";
        return {};
    };
    s.notes = {
        "the index width b is the codebooks' length (aqlm reads it from codebooks.shape[1]); codes are stored "
        "modulo 2^b, so -1 names entry 2^b - 1",
        "the og x ig elements of a code group share each code word: the bit map shows every element of the group "
        "on the same bits",
        "locate() names the code words of codebooks 0, 1 and 2 (pieces 0..2); with more codebooks the rest are "
        "not shown",
        "bits per weight: M * b / (og * ig) for the codes, plus M * 2^b * og * ig * 16 / (N * K) for the "
        "codebooks and 16 / (og * K) for the scales"};
    s.locate = [](const LayoutParams& p, uint64_t row, uint64_t col) {
        const uint64_t og = aqlmOutGroupOf(p), ig = aqlmInGroupOf(p), M = aqlmCodebooksOf(p);
        const uint64_t g = row / og, first = (g * ceilDiv(p.K, ig) + col / ig) * M;
        ElementLocation e;
        e.tensor = "codes";
        e.wordBits = p.bits <= 8 ? 8 : 16;
        e.pieceCount = uint8_t(std::min<uint64_t>(M, 3));
        for (uint8_t m = 0; m < e.pieceCount; ++m)
            e.pieces[m] = {first + m, 0, uint8_t(p.bits)};
        e.group = 0;
        e.scaleTensor = "scales";
        e.scaleIndex = g;
        return e;
    };
    return s;
}

} // namespace

void registerAqlmLayouts(LayoutRegistry& r)
{
    r.add(aqlm());
}

void aqlmLayoutParams(const LogicalWeight& w, LayoutParams& p)
{
    const auto param = [&](const char* key) -> uint64_t {
        const auto it = w.params.find(key);
        return it == w.params.end() ? 1 : std::strtoull(it->second.c_str(), nullptr, 10);
    };
    p.codebooks = int(std::clamp<uint64_t>(param("num_codebooks"), 1, 64));
    p.outGroupSize = std::max<uint64_t>(param("out_group_size"), 1);
}

} // namespace qs
