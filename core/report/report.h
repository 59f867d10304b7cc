#pragma once
// Layout spec reports (issue 6) as a content model: sections of paragraphs, fact lists,
// tables and figure references, built from a LayoutSpec (never per-format text) and, for a
// checkpoint, from detection, stats, verify and budget. Rendering (HTML, Markdown, PDF and
// the figures themselves) lives in widgets/report; this part needs Qt6::Core only.
#include "analysis/stats.h"
#include "base/error.h"
#include "base/progress.h"
#include "container/checkpoint.h"
#include "formats/layoutspec.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace qs::report {

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

enum class FigureKind {
    SlotOrder, // logical elements -> bit fields (spec + params)
    Block, // one word or block as a bit map with its fields (spec + params)
    ScaleHeatmap, // values [rows x cols] = scales [groups x out_features]
    ErrorHistogram, // histogram of the signed error (or of the values without a reference)
};

struct Figure {
    FigureKind kind = FigureKind::SlotOrder;
    std::string caption;
    std::string stem; // file-name stem, unique within a document: "fig3-slots-gptq-v1"
    std::string formatId;
    LayoutParams params;
    uint64_t rows = 0, cols = 0; // ScaleHeatmap
    std::vector<float> values; // ScaleHeatmap, row-major
    // ScaleHeatmap: the grid before mean-pooling, and source rows/cols per cell.
    uint64_t sourceRows = 0, sourceCols = 0, rowStep = 1, colStep = 1;
    Histogram histogram; // ErrorHistogram
    std::string axisLabel; // ErrorHistogram: what was binned; ScaleHeatmap: the group axis when not "group"
};

struct Block {
    enum class Kind { Paragraph, Facts, Table, Figure, Code };
    Kind kind = Kind::Paragraph;
    std::string text; // Paragraph, Code
    std::vector<std::pair<std::string, std::string>> facts; // Facts: label, value
    Table table;
    size_t figure = 0; // index into Document::figures
    // A Table block's verdict column: rows whose cell in this column is "fail" are marked.
    int verdictColumn = -1;
};

struct Section {
    int level = 1; // 1 = chapter, 2 = section
    std::string title;
    std::vector<Block> blocks;
};

inline Block paragraph(std::string text)
{
    Block b;
    b.text = std::move(text);
    return b;
}
inline Block factsBlock()
{
    Block b;
    b.kind = Block::Kind::Facts;
    return b;
}
inline Block tableBlock(std::vector<std::string> header)
{
    Block b;
    b.kind = Block::Kind::Table;
    b.table.header = std::move(header);
    return b;
}
inline Block figureBlock(size_t figure)
{
    Block b;
    b.kind = Block::Kind::Figure;
    b.figure = figure;
    return b;
}
inline Section section(int level, std::string title)
{
    Section s;
    s.level = level;
    s.title = std::move(title);
    return s;
}
inline Figure figure(FigureKind kind, std::string caption)
{
    Figure f;
    f.kind = kind;
    f.caption = std::move(caption);
    return f;
}

// A weight the report could not read: its shape refused at detection, or its bytes refused by
// the kernel. Listed with the reason; the report goes on with the others.
struct RefusedWeight {
    std::string weight;
    std::string why;
};

struct Document {
    std::string title;
    std::string subtitle;
    std::vector<Section> sections;
    std::vector<Figure> figures;
    std::vector<std::string> inputs; // the checkpoints it was made from: never written over
    std::vector<RefusedWeight> refused; // checkpoint reports: also in their "Refused weights" section
};

// ---- Seed probes against our packer and reader, run at report time. ----
struct ProbeResult {
    std::string probe; // patterned, random, allmax
    std::string check; // what was compared
    bool pass = false;
    std::string detail;
};
struct ProbeRun {
    LayoutParams params; // the (small) shape the probes ran at
    std::vector<ProbeResult> results;
    std::string skipped; // non-empty: why no probe applies (plain float types)
};
// The probe shape for `spec` near the requested bits and group size.
LayoutParams probeParams(const LayoutSpec& spec, const LayoutParams& requested);
ProbeRun runProbes(const LayoutSpec& spec, const LayoutParams& requested);

// ---- Effective bits per weight from the spec's own tensor shapes. ----
struct BitsPart {
    std::string role; // tensor role, or block field name
    std::string kind; // data, scales, zeros, indices, other
    uint64_t bytes = 0; // for the whole [N, K] weight
    double bitsPerWeight = 0;
};
struct BitsBreakdown {
    std::vector<BitsPart> parts;
    uint64_t bytes = 0;
    double bitsPerWeight = 0;
    std::string budgetId; // matching budget.h format, or empty
    double budgetBits = -1; // budgetBitsPerWeight of that format at the same [N, K]
};
// `withOptional` counts optional tensors too (g_idx for act-order); bias never counts.
BitsBreakdown bitsBreakdown(const LayoutSpec& spec, const LayoutParams& p, bool withOptional);

// Default parameters for a format: its first bit width, group 128 when it has groups,
// K = N = 4096 (rounded to what the format needs).
LayoutParams defaultParams(const LayoutSpec& spec);
// Throws qs::Error when K or N is outside 1 .. 2^31 or the spec refuses the params
// (formats/layoutsize.h: layoutRefusal).
void checkParams(const LayoutSpec& spec, const LayoutParams& p);

// A checkpoint's weight of the chapter's format, evaluated at its parameters.
struct StoredWeight {
    const Checkpoint* ckpt = nullptr;
    const LogicalWeight* weight = nullptr;
};
// Appends the format's chapter (and its two figures) to `doc`. With `stored`, the chapter also
// checks the spec's tensors against the bytes that weight stores, "agrees" or "DISAGREES" a tensor.
void appendFormatChapter(Document& doc, const LayoutSpec& spec, const LayoutParams& p, const Progress& control,
                         const StoredWeight* stored = nullptr);
Document formatReport(const LayoutSpec& spec, const LayoutParams& p, const Progress& control = {});

struct CheckpointOptions {
    std::string weight; // only this weight (name or member); empty = all
    std::shared_ptr<const Checkpoint> ref; // float reference for error statistics
    std::string refPath;
    int figureWeights = 2; // heatmap + histogram for this many largest weights
    uint64_t budgetParams = 7000000000ull; // parameter count of the budget table
};
Document checkpointReport(const Checkpoint& ckpt, const CheckpointOptions& opt, const Progress& control = {});

} // namespace qs::report
