// A format's chapter, generated from its LayoutSpec: every sentence below is filled from the
// spec's fields (or from the kernels and budget it shares), so no format has its own text.
#include "report/report.h"
#include "base/counttext.h"

#include "analysis/budget.h"
#include "base/error.h"
#include "base/intmath.h"
#include "report/specmath.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace qs::report {

namespace {

std::string withThousands(uint64_t v)
{
    std::string s = std::to_string(v), out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (i && (s.size() - i) % 3 == 0)
            out += ',';
        out += s[i];
    }
    return out;
}

std::string packAxisText(PackAxis a)
{
    switch (a) {
    case PackAxis::None: return "none: one element per stored value";
    case PackAxis::In: return "in (K): codes of consecutive input channels share a word";
    case PackAxis::Out: return "out (N): codes of consecutive output rows share a word";
    case PackAxis::Tile: return "tile: a fixed tile permutation decides each code's word and slot";
    case PackAxis::Block: return "block: fixed-size blocks along K, each with its own struct";
    }
    return "?";
}

std::string zeroPointText(ZeroPointKind z)
{
    switch (z) {
    case ZeroPointKind::None: return "none (symmetric)";
    case ZeroPointKind::Stored: return "stored z: the zero field holds the zero point itself";
    case ZeroPointKind::StoredMinusOne: return "stored z-1: the zero field holds the zero point minus one";
    case ZeroPointKind::Implicit: return "implicit 2^(b-1): no zero tensor";
    case ZeroPointKind::FloatBias: return "float bias: a float added after scaling (-s*z)";
    case ZeroPointKind::BlockMin: return "block min: d * q + m with a per-block minimum";
    }
    return "?";
}

std::string signednessText(CodeSignedness s)
{
    switch (s) {
    case CodeSignedness::Unsigned: return "unsigned 0 .. 2^b-1";
    case CodeSignedness::Offset: return "offset: stored q + 2^(b-1) for a signed q";
    case CodeSignedness::TwosComplement: return "two's complement";
    case CodeSignedness::Float: return "the stored value is a float or a table index";
    }
    return "?";
}

std::string kindOfRole(const LayoutSpec& spec, const std::string& role, const std::string& codeTensor)
{
    if (role == codeTensor)
        return "data";
    if (role.find("g_idx") != std::string::npos || role.find("perm") != std::string::npos)
        return "indices";
    if (role.find("zero") != std::string::npos || role.find("bias") != std::string::npos)
        return spec.zeroPoint == ZeroPointKind::FloatBias ? "zeros (float bias)" : "zeros";
    if (role == "s" || role.find("scale") != std::string::npos || role.find("absmax") != std::string::npos)
        return "scales";
    return "other";
}

std::string kindOfField(const BlockField& f)
{
    const std::string& k = f.kind;
    if (k.find("min") != std::string::npos)
        return "mins";
    if (k.find("scale") != std::string::npos || k.find("sum") != std::string::npos)
        return "scales";
    return "data";
}

std::string locationText(const ElementLocation& e)
{
    std::string out;
    for (int i = 0; i < e.pieceCount; ++i) {
        if (i)
            out += " + ";
        out += "word " + std::to_string(e.pieces[i].word) + " bits " + std::to_string(e.pieces[i].bit) + ".."
            + std::to_string(e.pieces[i].bit + e.pieces[i].width - 1);
    }
    return out;
}

} // namespace

BitsBreakdown bitsBreakdown(const LayoutSpec& spec, const LayoutParams& p, bool withOptional)
{
    BitsBreakdown b;
    const double weights = double(p.N) * double(p.K);
    const GgmlTypeInfo* g = ggmlTypeOfSpec(spec);
    if (g && !spec.blockFields.empty()) {
        const uint64_t blocks = p.N * (p.K / g->blockWeights);
        for (const BlockField& f : spec.blockFields)
            b.parts.push_back({f.name, kindOfField(f), uint64_t(f.byteSize) * blocks, 0});
    } else {
        const std::string code = spec.locate ? std::string(spec.locate(p, 0, 0).tensor) : std::string();
        for (const LayoutTensor& t : spec.tensors) {
            if (t.role == "bias" || (t.optional && !withOptional) || !sizedByParams(t))
                continue;
            b.parts.push_back({t.role, kindOfRole(spec, t.role, code), tensorBytes(spec, t, p), 0});
        }
    }
    for (BitsPart& part : b.parts) {
        part.bitsPerWeight = double(part.bytes) * 8.0 / weights;
        b.bytes += part.bytes;
    }
    b.bitsPerWeight = double(b.bytes) * 8.0 / weights;
    if (const BudgetFormat* f = reportedBudgetFormat(spec, p)) {
        b.budgetId = f->id;
        try {
            b.budgetBits = budgetBitsPerWeight(*f, p.N, p.K);
        } catch (const Error&) {
            b.budgetBits = -1;
        }
    }
    return b;
}

LayoutParams defaultParams(const LayoutSpec& spec)
{
    LayoutParams p;
    p.K = 4096;
    p.N = 4096;
    p.bits = spec.bitWidths.empty() ? 4 : spec.bitWidths.front();
    p.groupSize = spec.container == LayoutContainer::Gguf ? 0 : 128;
    return p;
}

void checkParams(const LayoutSpec& spec, const LayoutParams& p)
{
    const std::string where = "report: " + spec.id + ": ";
    if (p.K == 0 || p.N == 0 || p.K > (uint64_t(1) << 31) || p.N > (uint64_t(1) << 31))
        throw Error(where + "K and N must be between 1 and 2^31");
    if (const std::string why = layoutRefusal(spec, p); !why.empty())
        throw Error(where + why);
}

namespace {

// The chapter's first section: the format's facts and the parameters its numbers are evaluated at.
Section formatFactsSection(const LayoutSpec& spec, const LayoutParams& p)
{
    const bool gguf = spec.container == LayoutContainer::Gguf;
    const GgmlTypeInfo* g = ggmlTypeOfSpec(spec);
    Section s;
    s.level = 1;
    s.title = "Format " + spec.id + ": " + spec.name;

    Block facts = factsBlock();
    facts.facts = {
        {"Format id", spec.id},
        {"Container", gguf ? "GGUF" : "safetensors"},
        {"Word",
         g && g->blockWeights > 1
             ? "blocks of " + std::to_string(g->blockBytes) + " bytes for " + std::to_string(g->blockWeights)
                 + " weights, addressed as little-endian " + std::to_string(spec.wordBits) + "-bit words"
             : "little-endian " + std::to_string(spec.wordBits) + "-bit words"},
        {"Code width",
         counted(uint64_t(p.bits), "bit", "bits") +
             [&] {
                 std::string list;
                 for (int b : spec.bitWidths)
                     list += (list.empty() ? "" : ", ") + std::to_string(b);
                 return list.empty() ? std::string() : " (supported: " + list + ")";
             }()},
        {"Pack axis", packAxisText(spec.packAxis)},
        {"Codes straddle words",
         spec.straddles ? "yes: LSB-first stream, a code crossing a word edge keeps its low bits in the first word"
                        : "no"},
    };
    if (!spec.slotOrder.empty()) {
        std::string order;
        for (size_t i = 0; i < spec.slotOrder.size(); ++i)
            order += (i ? ", " : "") + std::to_string(spec.slotOrder[i]);
        facts.facts.push_back({"Slot order", order + " (slot s, from bit 0 up, holds the word's element order[s])"});
    } else {
        facts.facts.push_back({"Slot order", "natural: element i of a word sits at bits [i*b, i*b + b)"});
    }
    facts.facts.push_back({"Code values", signednessText(spec.signedness)});
    facts.facts.push_back({"Zero point", zeroPointText(spec.zeroPoint)});
    if (!spec.formula.empty())
        facts.facts.push_back({"Value", spec.formula});
    if (!spec.exactness.empty())
        facts.facts.push_back({"Exactness", spec.exactness});
    s.blocks.push_back(facts);

    Block params = factsBlock();
    params.facts = {{"K (in_features)", withThousands(p.K)},
                    {"N (out_features)", withThousands(p.N)},
                    {"bits b", std::to_string(p.bits)}};
    if (!gguf)
        params.facts.push_back(
            {"group size g",
             p.groupSize == 0 || p.groupSize >= p.K ? "per channel (g = K)" : std::to_string(p.groupSize)});
    if (!gguf)
        params.facts.push_back({"groups G", std::to_string(p.groups())});
    s.blocks.push_back(paragraph("The numbers below are evaluated at:"));
    s.blocks.push_back(params);
    return s;
}

// The spec's size model against the bytes a checkpoint stores: each member of `w` (whose
// parameters `p` are) beside what the spec's tensor of that role holds at them, in the stored
// dtype (a spec names one dtype where a format takes several: F16 or BF16 scales).
void appendStoredCheck(Section& s, const LayoutSpec& spec, const LayoutParams& p, const StoredWeight& stored)
{
    const LogicalWeight& w = *stored.weight;
    // No verdict column: a disagreement is the file's or the spec's (a variant its size model
    // does not cover), not a failure of our code as a probe's is, and the exit status stays 0.
    Block tt = tableBlock({});
    tt.table.header = {"tensor", "stored as", "dtype", "stored bytes", "spec bytes", "result"};
    uint64_t storedSum = 0, specSum = 0, compared = 0;
    bool agree = true;
    for (const auto& [role, idx] : w.members) {
        const TensorEntry& te = stored.ckpt->tensors[idx];
        const LayoutTensor* t = findTensor(spec, role);
        std::vector<std::string> row = {role, std::string(te.name), std::string(dtypeName(te.dtype)),
                                        withThousands(te.nbytes)};
        if (!t || !sizedByParams(*t)) {
            row.insert(row.end(), {"-", t && t->ownLength ? "its own length" : "not in the spec"});
        } else {
            // A block tensor counts whole blocks of the spec's type, whatever dtype holds them.
            const bool ownDtype = t->dtype != "block" && te.dtype != DType::Ggml && dtypeBits(te.dtype) != 0;
            const uint64_t bytes = tensorBytes(spec, *t, p, ownDtype ? dtypeName(te.dtype) : std::string_view());
            row.insert(row.end(), {withThousands(bytes), bytes == te.nbytes ? "agrees" : "DISAGREES"});
            agree = agree && bytes == te.nbytes;
            storedSum += te.nbytes;
            specSum += bytes;
            ++compared;
        }
        tt.table.rows.push_back(std::move(row));
    }
    s.blocks.push_back(paragraph("The spec's tensors against the bytes " + w.name + " " + shapeText(w.shape)
                                 + " stores (the largest weight of this format; the numbers above are at its "
                                   "parameters):"));
    s.blocks.push_back(tt);
    // A check that compared nothing is not a pass.
    s.blocks.push_back(paragraph(compared == 0 ? std::string("The spec models none of these tensors: nothing checked.")
                                               : "Stored " + withThousands(storedSum) + " bytes; the spec gives "
                                         + withThousands(specSum) + (agree ? " (agrees)." : " (DISAGREES).")));
}

// Every stored tensor at the parameters, the block fields and the padding; with `stored`, the
// spec's tensors against the bytes that weight stores.
Section storedTensorsSection(const LayoutSpec& spec, const LayoutParams& p, const StoredWeight* stored)
{
    Section tensors = section(2, "Stored tensors");
    Block tt = tableBlock({});
    tt.table.header = {"tensor", "dtype", "shape (formula)", "shape", "bytes", "meaning"};
    for (const LayoutTensor& t : spec.tensors)
        tt.table.rows.push_back({t.role + (t.optional ? " (optional)" : ""), t.dtype, t.shapeFormula,
                                 sizedByParams(t) ? shapeText(t.shape(p)) : "-",
                                 sizedByParams(t) ? withThousands(tensorBytes(spec, t, p)) : "-", t.meaning});
    tensors.blocks.push_back(tt);
    if (!spec.blockFields.empty()) {
        tensors.blocks.push_back(paragraph("Block fields, in byte order:"));
        Block bf = tableBlock({});
        bf.table.header = {"field", "offset", "bytes", "kind", "meaning"};
        for (const BlockField& f : spec.blockFields)
            bf.table.rows.push_back(
                {f.name, std::to_string(f.byteOffset), std::to_string(f.byteSize), f.kind, f.meaning});
        tensors.blocks.push_back(bf);
    }
    tensors.blocks.push_back(
        paragraph("Padding: " + (spec.padding.empty() ? std::string("none") : spec.padding) + "."));
    if (stored)
        appendStoredCheck(tensors, spec, p, *stored);
    return tensors;
}

// The slot-order and block figures and locate() for sample elements.
void appendLayoutSection(Document& doc, const LayoutSpec& spec, const LayoutParams& p)
{
    const GgmlTypeInfo* g = ggmlTypeOfSpec(spec);
    // Figures, then a few element locations as text (the figures' facts, searchable).
    Section layout = section(2, "Where each element lives");
    const size_t slotFig = doc.figures.size();
    Figure order = figure(
        FigureKind::SlotOrder,
        "Slot order of " + spec.id + " (b = " + std::to_string(p.bits)
            + "): logical elements (top) and the bits that hold them (bottom), most significant bit on the left, as in "
              "the Bit map");
    order.stem = "fig" + std::to_string(slotFig + 1) + "-slots-" + spec.id;
    order.formatId = spec.id;
    order.params = p;
    Figure block = figure(FigureKind::Block,
                          (g && g->blockWeights > 1 ? "One block of " : "One word of ") + spec.id + " with its fields");
    block.stem = "fig" + std::to_string(slotFig + 2) + "-block-" + spec.id;
    block.formatId = spec.id;
    block.params = p;
    doc.figures.push_back(std::move(order));
    doc.figures.push_back(std::move(block));
    layout.blocks.push_back(figureBlock(slotFig));
    layout.blocks.push_back(figureBlock(slotFig + 1));
    Block loc = tableBlock({});
    loc.table.header = {"element (row, col)", "tensor", "bits", "slot", "group", "scale index"};
    std::vector<std::pair<uint64_t, uint64_t>> samples;
    for (uint64_t i = 0; i < 8; ++i) {
        const uint64_t r = spec.packAxis == PackAxis::Out ? i : 0, c = spec.packAxis == PackAxis::Out ? 0 : i;
        if (r < p.N && c < p.K)
            samples.push_back({r, c});
    }
    samples.push_back({std::min<uint64_t>(1, p.N - 1), std::min<uint64_t>(1, p.K - 1)});
    samples.push_back({p.N - 1, p.K - 1});
    for (const auto& [r, c] : samples) {
        const ElementLocation e = spec.locate(p, r, c);
        loc.table.rows.push_back(
            {"(" + std::to_string(r) + ", " + std::to_string(c) + ")", std::string(e.tensor), locationText(e),
             e.slot >= 0 ? std::to_string(e.slot) : "-", std::to_string(e.group),
             e.scaleTensor.empty() ? "-" : std::string(e.scaleTensor) + "[" + std::to_string(e.scaleIndex) + "]"});
    }
    layout.blocks.push_back(paragraph("locate() for sample elements (word indices are flat, in words of the tensor):"));
    layout.blocks.push_back(loc);
    doc.sections.push_back(std::move(layout));
}

// The bytes per tensor (or block field) as bits per weight, and the budget table's count beside it.
Section bitsSection(const LayoutSpec& spec, const LayoutParams& p)
{
    const GgmlTypeInfo* g = ggmlTypeOfSpec(spec);
    Section bits = section(2, "Effective bits per weight");
    const BitsBreakdown bd = bitsBreakdown(spec, p, false);
    Block bt = tableBlock({});
    bt.table.header = {g && !spec.blockFields.empty() ? "block field" : "tensor", "kind", "bytes", "bits per weight"};
    for (const BitsPart& part : bd.parts)
        bt.table.rows.push_back({part.role, part.kind, withThousands(part.bytes), num(part.bitsPerWeight, 8)});
    bt.table.rows.push_back({"total", "", withThousands(bd.bytes), num(bd.bitsPerWeight, 8)});
    bits.blocks.push_back(bt);
    std::string sum;
    for (const BitsPart& part : bd.parts)
        sum += (sum.empty() ? "" : " + ") + num(part.bitsPerWeight, 8) + " " + part.kind;
    bits.blocks.push_back(paragraph("bits per weight = stored bytes * 8 / (N * K) = " + withThousands(bd.bytes)
                                    + " * 8 / (" + withThousands(p.N) + " * " + withThousands(p.K) + ") = " + sum
                                    + " = " + num(bd.bitsPerWeight, 8) + "."));
    const BitsBreakdown all = bitsBreakdown(spec, p, true);
    if (all.bytes != bd.bytes)
        bits.blocks.push_back(paragraph("With the optional tensors (e.g. act-order g_idx): " + num(all.bitsPerWeight, 8)
                                        + " bits per weight."));
    // The budget table counts the same spec tensors (formats/layoutsize.h): its figure is named,
    // not offered as a check.
    if (!bd.budgetId.empty() && bd.budgetBits >= 0)
        bits.blocks.push_back(paragraph("The budget table's format " + bd.budgetId + " gives " + num(bd.budgetBits, 8)
                                        + " bits per weight at the same shape, from the same tensors."));
    return bits;
}

// The seed probes run at report time.
Section probesSection(const LayoutSpec& spec, const LayoutParams& p)
{
    const bool gguf = spec.container == LayoutContainer::Gguf;
    Section probes = section(2, "Seed probes");
    const ProbeRun run = runProbes(spec, p);
    if (!run.skipped.empty()) {
        probes.blocks.push_back(paragraph("No probes: " + run.skipped + "."));
    } else {
        const LayoutParams& q = run.params;
        probes.blocks.push_back(
            paragraph("Run at report time on a [" + std::to_string(q.N) + ", " + std::to_string(q.K) + "] weight (b = "
                      + std::to_string(q.bits) + (gguf ? "" : ", g = " + std::to_string(q.effectiveGroupSize()))
                      + "): patterned codes (7*row + 3*col) mod 2^b, random codes and all-max codes, placed by "
                        "locate(); each row names what they were compared against (our packer, our reader, "
                        "the scalar and fast dequantizers, where the format has them)."));
        Block pt = tableBlock({});
        pt.verdictColumn = 2;
        pt.table.header = {"probe", "check", "result", "detail"};
        for (const ProbeResult& r : run.results)
            pt.table.rows.push_back({r.probe, r.check, r.pass ? "pass" : "fail", r.detail});
        probes.blocks.push_back(pt);
    }
    return probes;
}

} // namespace

void appendFormatChapter(Document& doc, const LayoutSpec& spec, const LayoutParams& p, const Progress& control,
                         const StoredWeight* stored)
{
    checkParams(spec, p);
    doc.sections.push_back(formatFactsSection(spec, p));
    doc.sections.push_back(storedTensorsSection(spec, p, stored));
    control.check();

    if (!spec.locate) {
        Section none = section(2, "Layout");
        none.blocks.push_back(
            paragraph("Format detection only names this format; its element layout is not modelled, so there are no "
                      "figures, bit budget or probes."));
        doc.sections.push_back(std::move(none));
        return;
    }
    appendLayoutSection(doc, spec, p);
    doc.sections.push_back(bitsSection(spec, p));
    control.check();
    doc.sections.push_back(probesSection(spec, p));

    if (!spec.notes.empty()) {
        Section notes = section(2, "Notes");
        for (const std::string& n : spec.notes)
            notes.blocks.push_back(paragraph(n));
        doc.sections.push_back(std::move(notes));
    }
}

Document formatReport(const LayoutSpec& spec, const LayoutParams& p, const Progress& control)
{
    Document doc;
    doc.title = "Layout specification: " + spec.id;
    doc.subtitle = spec.name;
    control(0, 1);
    appendFormatChapter(doc, spec, p, control);
    control(1, 1);
    return doc;
}

} // namespace qs::report
