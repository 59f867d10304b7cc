// The EXL2 layout (exl2.h): row groups of their own code width along K, each column of a group
// one LSB-first bit stream in q_weight [packed rows, N]. A weight's groups are LayoutParams::
// rowGroups; without them (the report, the budget table) every group is `groupSize` rows at `bits`.
#include "formats/exl2/exl2.h"

#include "formats/layoutspec_util.h"

#include <algorithm>

namespace qs {

namespace {

using layout::tensor;

// The row groups the parameters describe: the weight's own, else groupSize rows at `bits`.
std::vector<RowGroup> exl2RowGroups(const LayoutParams& p)
{
    if (!p.rowGroups.empty())
        return p.rowGroups;
    const uint64_t rows = std::max<uint64_t>(p.effectiveGroupSize(), 1);
    std::vector<RowGroup> out;
    for (uint64_t first = 0; first < p.K; first += rows)
        out.push_back({p.bits, rows, first, first / rows * ceilDiv(rows * uint64_t(p.bits), 32)});
    return out;
}

uint64_t exl2PackedRows(const LayoutParams& p)
{
    if (p.rowGroups.empty())
        return ceilDiv(p.K, std::max<uint64_t>(p.effectiveGroupSize(), 1))
            * ceilDiv(std::max<uint64_t>(p.effectiveGroupSize(), 1) * uint64_t(p.bits), 32);
    const RowGroup& last = p.rowGroups.back();
    return last.firstWord + ceilDiv(last.rows * uint64_t(last.bits), 32);
}

uint64_t exl2GroupCount(const LayoutParams& p)
{
    return p.rowGroups.empty() ? ceilDiv(p.K, std::max<uint64_t>(p.effectiveGroupSize(), 1)) : p.rowGroups.size();
}

ElementLocation exl2Locate(const LayoutParams& p, uint64_t row, uint64_t col)
{
    // `col` is the stored row (the permuted input channel: q_invperm maps the model's to it).
    RowGroup uniform;
    const RowGroup* grp = &uniform;
    uint64_t g = 0;
    if (p.rowGroups.empty()) {
        const uint64_t rows = std::max<uint64_t>(p.effectiveGroupSize(), 1);
        g = col / rows;
        uniform = {p.bits, rows, g * rows, g * ceilDiv(rows * uint64_t(p.bits), 32)};
    } else {
        grp = &rowGroupOf(p.rowGroups, col);
        g = uint64_t(grp - p.rowGroups.data());
    }
    const int bits = grp->bits;
    if (bits < 1 || bits > 32) // a weight whose q_groups could not be read
        return {};
    const uint64_t bit = (col - grp->firstRow) * uint64_t(bits), word = grp->firstWord + bit / 32;
    const uint8_t shift = uint8_t(bit % 32);
    ElementLocation e;
    e.tensor = "q_weight";
    e.wordBits = 32;
    e.group = g;
    if (shift + bits <= 32) {
        e.pieceCount = 1;
        e.pieces[0] = {word * p.N + row, shift, uint8_t(bits)};
    } else {
        e.pieceCount = 2;
        e.pieces[0] = {word * p.N + row, shift, uint8_t(32 - shift)};
        e.pieces[1] = {(word + 1) * p.N + row, 0, uint8_t(bits - (32 - shift))};
    }
    e.slot = 32 % bits == 0 ? int(bit % 32 / uint64_t(bits)) : -1;
    return e;
}

LayoutSpec exl2Spec()
{
    LayoutSpec s;
    s.id = "exl2";
    s.name = "ExLlamaV2 EXL2";
    s.bitWidths = {2, 3, 4, 5, 6, 8};
    s.wordBits = 32;
    s.packAxis = PackAxis::In;
    s.straddles = true; // 3, 5 and 6 bits
    s.signedness = CodeSignedness::Offset;
    s.zeroPoint = ZeroPointKind::Implicit;
    s.transposed = true;
    s.formula = "W[n][k] = f16((q - 2^(b-1)) * f16((q_scale[g][n] + 1)^2 * f16(q_scale_max[g] / 256))), q the code "
                "of stored row q_invperm[k], b and g its group's width and number";
    s.exactness = "q - 2^(b-1) and (s + 1)^2 are exact in f16; q_scale_max / 256, the scale and the weight each "
                  "round once to f16, nearest even (exllamav2's loader and reconstruct kernel, __hmul)";
    const auto packedShape = [](const LayoutParams& p) { return std::vector<uint64_t>{exl2PackedRows(p), p.N}; };
    s.tensors = {
        tensor("q_weight", "I32", "[sum over groups of rows * b / 32, N]", packedShape,
               "codes: per group and column an LSB-first stream of its stored rows"),
        tensor(
            "q_scale", "I32", "[groups, N/8]",
            [](const LayoutParams& p) {
                return std::vector<uint64_t>{exl2GroupCount(p), p.N / 8};
            },
            "4-bit scale s - 1 per group and column, column n at bits 4 * (n % 8) of word n / 8"),
        tensor(
            "q_scale_max", "F16", "[groups]",
            [](const LayoutParams& p) { return std::vector<uint64_t>{exl2GroupCount(p)}; },
            "the group's scale unit times 256"),
        tensor(
            "q_groups", "I16", "[2 * groups]",
            [](const LayoutParams& p) { return std::vector<uint64_t>{2 * exl2GroupCount(p)}; },
            "(bits, first packed row) per group, widest first"),
        tensor(
            "q_invperm", "I32", "[K]", [](const LayoutParams& p) { return std::vector<uint64_t>{p.K}; },
            "the stored row of each input channel (act-order)"),
        tensor(
            "q_perm", "I32", "[K]", [](const LayoutParams& p) { return std::vector<uint64_t>{p.K}; },
            "its inverse; the loader computes it when absent", true),
        tensor(
            "q_group_map", "I16", "[2 * K]", [](const LayoutParams& p) { return std::vector<uint64_t>{2 * p.K}; },
            "the loader's (group, rows left) per row; ignored when stored", true),
    };
    s.padding = "K, N and every group's rows must be multiples of 32, 8 and 32";
    s.refuses = [](const LayoutParams& p) -> std::string {
        if (p.N % 8)
            return "N must be a multiple of 8 (q_scale packs 8 columns a word)";
        uint64_t rows = 0;
        for (const RowGroup& g : exl2RowGroups(p)) {
            if (g.rows % 32)
                return "every group must span a multiple of 32 rows";
            rows += g.rows;
        }
        return rows == p.K ? std::string() : "the groups must cover K";
    };
    s.notes = {
        "groups run widest first (8, 6, 5, 4, 3, 2 bits), as the reconstruct kernel reads them; a weight's own "
        "groups are its row_groups parameter",
        "locate() and the bit map count input channels in stored order: the model's channel k is stored row "
        "q_invperm[k]",
        "the loader's shuffle (q_matrix.cu shuffle_kernel, quant/qdq_*.cuh) only reorders bits for its own reads; "
        "the file holds the plain streams",
    };
    s.locate = exl2Locate;
    return s;
}

} // namespace

void registerExl2Layouts(LayoutRegistry& r)
{
    r.add(exl2Spec());
}

} // namespace qs
