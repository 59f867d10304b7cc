// A checkpoint's report: what detection found and why, the per-weight table (with error
// statistics against a reference), verify's findings, the memory budget, scale heatmaps and
// error histograms of the largest weights, and the chapter of every format it uses.
#include "report/report.h"
#include "base/counttext.h"

#include "analysis/budget.h"
#include "analysis/groupscales.h"
#include "analysis/stats.h"
#include "analysis/verify.h"
#include "base/error.h"
#include "formats/detect.h"
#include "formats/formatid.h"
#include "formats/dequant.h"
#include "formats/wordmap.h"
#include "report/specmath.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace qs::report {

namespace {

std::string bytesText(double b)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        ++u;
    }
    return num(b, u ? 4 : 10) + " " + units[u];
}

bool isQuantized(const LogicalWeight& w)
{
    const FormatInfo* f = findFormat(w.format);
    return f && f->quantized;
}

// Reduces a [rows x cols] map to at most maxRows x maxCols cells of max |value|, as the Scales
// view does (the report's mean per cell hid the outlier groups the view shows).
void decimate(Figure& f, const std::vector<float>& v, uint64_t rows, uint64_t cols, uint64_t maxRows, uint64_t maxCols)
{
    DecimatedGrid d = decimateGrid(v, rows, cols, maxRows, maxCols, CellReduce::MaxAbs);
    f.rows = d.rows;
    f.cols = d.cols;
    f.sourceRows = rows;
    f.sourceCols = cols;
    f.rowStep = d.rowStep;
    f.colStep = d.colStep;
    f.values = std::move(d.cells);
}

// The weights of each format, formats in the order they first appear.
struct WeightsByFormat {
    std::map<std::string, std::vector<const LogicalWeight*>> weights;
    std::vector<std::string> order;
};

WeightsByFormat weightsByFormat(const std::vector<const LogicalWeight*>& weights)
{
    WeightsByFormat out;
    for (const LogicalWeight* w : weights) {
        if (!out.weights.count(w->format))
            out.order.push_back(w->format);
        out.weights[w->format].push_back(w);
    }
    return out;
}

// The report's progress: one step per weight in the table, in verify and per figure weight.
struct ReportProgress {
    const Progress& control;
    size_t steps = 1;
    size_t step = 0;
    void report() { control(++step, steps); }
    void next()
    {
        control.check();
        report();
    }
};

Section overviewSection(const Checkpoint& ckpt, const CheckpointOptions& opt)
{
    Section overview = section(1, "Checkpoint");
    Block facts = factsBlock();
    facts.facts = {
        {"Path", ckpt.path},
        {"Container",
         std::string(containerName(ckpt.container))
             + (ckpt.ggufVersion ? " v" + std::to_string(ckpt.ggufVersion) : std::string())},
        {"Files", std::to_string(ckpt.files.size())},
        {"Stored tensors", std::to_string(ckpt.tensors.size())},
        {"Logical weights",
         std::to_string(ckpt.weights.size()) + (opt.weight.empty() ? "" : " (report covers " + opt.weight + ")")}};
    if (!ckpt.quantizeConfigFile.empty())
        facts.facts.push_back({"Quantization config", ckpt.quantizeConfigFile});
    if (opt.ref)
        facts.facts.push_back({"Reference", opt.refPath.empty() ? opt.ref->path : opt.refPath});
    overview.blocks.push_back(facts);
    for (const Message& n : ckpt.notes)
        overview.blocks.push_back(paragraph("Note: " + n.text()));
    return overview;
}

// Detection: one entry per format (evidence of its first weight) with the recorded version and
// convention parameters.
Section detectionSection(const WeightsByFormat& byFormat)
{
    Section detection = section(2, "Detection");
    for (const std::string& f : byFormat.order) {
        const auto& ws = byFormat.weights.at(f);
        const FormatInfo* info = findFormat(f);
        Block b = factsBlock();
        b.facts.push_back({"Format", f + (info ? " - " + info->description : std::string())});
        b.facts.push_back({"Weights", std::to_string(ws.size()) + " (first: " + ws.front()->name + ")"});
        for (const Message& e : ws.front()->evidence)
            b.facts.push_back({"Evidence", e.text()});
        for (const auto& [k, v] : ws.front()->params)
            b.facts.push_back({"Recorded " + k, v});
        for (const Message& n : ws.front()->notes)
            b.facts.push_back({"Note", n.text()});
        detection.blocks.push_back(b);
    }
    return detection;
}

// Per-weight table, with error statistics when a reference is given (their histograms kept for
// the figures).
Section weightsSection(const Checkpoint& ckpt, const CheckpointOptions& opt,
                       const std::vector<const LogicalWeight*>& weights, const StatsOptions& so,
                       std::map<const LogicalWeight*, Histogram>& errorHist, ReportProgress& progress)
{
    Section table = section(2, "Weights");
    Block wt = tableBlock({});
    wt.table.header = {"weight", "format", "shape", "bits", "group", "bpw", "bytes"};
    if (opt.ref)
        for (const char* h : {"RMSE", "max |err|", "SQNR dB"})
            wt.table.header.push_back(h);
    for (const LogicalWeight* w : weights) {
        progress.next();
        std::vector<std::string> row = {w->name,
                                        w->format,
                                        shapeText(w->shape),
                                        std::to_string(w->bits),
                                        w->groupSize > 0 ? std::to_string(w->groupSize) : "-",
                                        num(w->bitsPerWeight(), 5),
                                        bytesText(double(w->storedBytes))};
        if (opt.ref) {
            const ReferenceMatch rm =
                isQuantized(*w) && canDequantize(w->format) ? findReference(ckpt, *w, *opt.ref) : ReferenceMatch{};
            if (rm.found()) {
                try {
                    const WeightComparison c = compareWeight(ckpt, *w, *opt.ref, rm, so);
                    row.push_back(num(c.error.rmse));
                    row.push_back(num(c.error.maxAbs));
                    row.push_back(num(c.error.sqnrDb));
                    errorHist[w] = c.error.signedError;
                } catch (const Error& e) {
                    row.insert(row.end(), {"error", e.what(), ""});
                }
            } else if (rm.reference) { // paired, but not comparable (shape, format, head count)
                row.insert(row.end(), {"error", rm.problem, ""});
            } else {
                row.insert(row.end(), {"-", "-", "-"});
            }
        }
        wt.table.rows.push_back(std::move(row));
    }
    table.blocks.push_back(wt);
    return table;
}

Section verifySection(const Checkpoint& ckpt, const std::vector<const LogicalWeight*>& weights,
                      ReportProgress& progress)
{
    Section verify = section(2, "Verify findings");
    VerifyReport vr;
    HealthOptions health;
    health.progress.cancel = progress.control.cancel; // the health scan stops between row chunks
    for (const LogicalWeight* w : weights) {
        progress.next();
        verifyWeight(ckpt, *w, vr, health);
    }
    verify.blocks.push_back(paragraph(counted(vr.checked.size(), "weight", "weights") + " checked, "
                                      + std::to_string(vr.unchecked.size()) + " of formats verify does not cover, "
                                      + counted(vr.findings.size(), "finding", "findings") + "."));
    if (!vr.findings.empty()) {
        Block fb = tableBlock({});
        fb.table.header = {"weight", "check", "finding"};
        for (const VerifyFinding& f : vr.findings)
            fb.table.rows.push_back({f.weight, f.check, f.message.text()});
        verify.blocks.push_back(fb);
    }
    return verify;
}

// Budget: what this checkpoint stores per format, then the same parameter count in common formats.
Section budgetSection(const WeightsByFormat& byFormat)
{
    Section budget = section(2, "Memory budget");
    Block used = tableBlock({});
    used.table.header = {"format", "weights", "parameters", "stored bytes", "bits per weight"};
    uint64_t params = 0;
    for (const std::string& f : byFormat.order) {
        uint64_t el = 0, by = 0;
        for (const LogicalWeight* w : byFormat.weights.at(f)) {
            el += w->elementCount();
            by += w->storedBytes;
        }
        params += el;
        used.table.rows.push_back({f, std::to_string(byFormat.weights.at(f).size()), std::to_string(el),
                                   bytesText(double(by)), num(el ? double(by) * 8.0 / double(el) : 0.0, 5)});
    }
    budget.blocks.push_back(used);
    if (params) {
        budget.blocks.push_back(paragraph("The same " + std::to_string(params)
                                          + " parameters in other formats (each weight "
                                            "costed as in a 4096 x 4096 layer):"));
        Block other = tableBlock({});
        other.table.header = {"format", "bits per weight", "memory"};
        for (const BudgetRow& r : budgetTable(params))
            if (r.format.preset >= BudgetPreset::Headline)
                other.table.rows.push_back({r.format.id, num(r.bitsPerWeight, 5), bytesText(r.bytes)});
        budget.blocks.push_back(other);
    }
    return budget;
}

// Figures for the largest quantized weights: their scales and error (or value) histograms.
void appendLargestWeights(Document& doc, const Checkpoint& ckpt, const CheckpointOptions& opt,
                          const std::vector<const LogicalWeight*>& weights, const StatsOptions& so,
                          const std::map<const LogicalWeight*, Histogram>& errorHist, ReportProgress& progress)
{
    std::vector<const LogicalWeight*> largest;
    for (const LogicalWeight* w : weights)
        if (isQuantized(*w) && canDequantize(w->format))
            largest.push_back(w);
    std::stable_sort(largest.begin(), largest.end(), [](const LogicalWeight* a, const LogicalWeight* b) {
        return a->elementCount() > b->elementCount();
    });
    largest.resize(std::min(largest.size(), size_t(std::max(0, opt.figureWeights))));
    Section figs = section(2, "Largest weights");
    for (const LogicalWeight* w : largest) {
        progress.control.check();
        try {
            const WeightCodes codes = extractCodes(ckpt, *w);
            if (!codes.scales.empty() && codes.groups) {
                Figure f = figure(FigureKind::ScaleHeatmap,
                                  "Scales of " + w->name + " [" + counted(codes.groups, "group", "groups") + " x "
                                      + std::to_string(codes.rows) + " out_features]");
                // Act-order: group g is the stored group g_idx names, as every view calls it.
                if (codes.actOrder())
                    f.axisLabel = "group (act-order: columns by g_idx)";
                decimate(f, codes.scales, codes.groups, codes.rows, 256, 512);
                f.stem = "fig" + std::to_string(doc.figures.size() + 1) + "-scales";
                figs.blocks.push_back(figureBlock(doc.figures.size()));
                doc.figures.push_back(std::move(f));
            }
        } catch (const Error& e) {
            figs.blocks.push_back(paragraph(w->name + ": no scale heatmap (" + e.what() + ")"));
        }
        Figure h = figure(FigureKind::ErrorHistogram, {});
        if (const auto it = errorHist.find(w); it != errorHist.end()) {
            h.histogram = it->second;
            h.axisLabel = "signed error (dequantized - reference)";
            h.caption = "Error histogram of " + w->name;
        } else {
            // A weight whose bytes the kernel refuses is reported as refused; the others go on.
            WeightHistograms values;
            try {
                values = weightHistograms(ckpt, *w, so);
            } catch (const Cancelled&) {
                throw;
            } catch (const Error& e) {
                figs.blocks.push_back(paragraph(w->name + ": refused (" + e.what() + ")"));
                doc.refused.push_back({w->name, e.what()});
                progress.report();
                continue;
            }
            h.histogram = values.values;
            h.axisLabel = "dequantized value";
            h.caption =
                "Value histogram of " + w->name + (opt.ref ? " (no reference tensor)" : " (no reference given)");
            if (values.nonFinite()) // not binned: a histogram alone would hide them
                h.caption += "; not shown: " + std::to_string(values.nanCount) + " NaN, "
                    + std::to_string(values.posInfCount) + " +Inf, " + std::to_string(values.negInfCount) + " -Inf";
        }
        h.stem = "fig" + std::to_string(doc.figures.size() + 1) + "-hist";
        figs.blocks.push_back(figureBlock(doc.figures.size()));
        doc.figures.push_back(std::move(h));
        progress.report();
    }
    if (!figs.blocks.empty())
        doc.sections.push_back(std::move(figs));
}

// The chapter of every format with a layout spec, at its largest weight's shape, its spec
// checked against the bytes that weight stores.
void appendFormatChapters(Document& doc, const Checkpoint& ckpt, const WeightsByFormat& byFormat,
                          const Progress& control)
{
    for (const std::string& f : byFormat.order) {
        control.check();
        const LayoutSpec* spec = findLayoutSpec(f);
        if (!spec)
            continue;
        const LogicalWeight* big =
            *std::max_element(byFormat.weights.at(f).begin(), byFormat.weights.at(f).end(),
                              [](auto* a, auto* b) { return a->elementCount() < b->elementCount(); });
        try {
            const StoredWeight stored{&ckpt, big};
            appendFormatChapter(doc, *spec, layoutParams(*big), control, &stored);
        } catch (const Cancelled&) {
            throw;
        } catch (const Error& e) {
            Section none = section(1, "Format " + f);
            none.blocks.push_back(paragraph(std::string("No chapter: ") + e.what()));
            doc.sections.push_back(std::move(none));
        }
    }
}

} // namespace

Document checkpointReport(const Checkpoint& ckpt, const CheckpointOptions& opt, const Progress& control)
{
    Document doc;
    doc.title = "Checkpoint report";
    doc.subtitle = ckpt.path;
    doc.inputs = ckpt.sources();
    if (opt.ref)
        for (const std::string& s : opt.ref->sources())
            doc.inputs.push_back(s);
    control(0, 1);

    std::vector<const LogicalWeight*> weights;
    if (!opt.weight.empty()) {
        const LogicalWeight* w = ckpt.findWeight(opt.weight);
        if (!w)
            throw Error(ErrorContext{ckpt.path}, "no weight '" + opt.weight + "'");
        weights.push_back(w);
    } else {
        for (const LogicalWeight& w : ckpt.weights)
            weights.push_back(&w);
    }

    doc.sections.push_back(overviewSection(ckpt, opt));
    const WeightsByFormat byFormat = weightsByFormat(weights);
    doc.sections.push_back(detectionSection(byFormat));
    control.check();

    StatsOptions so;
    so.bins = 48;
    so.path = bestSimdPath();
    std::map<const LogicalWeight*, Histogram> errorHist;
    ReportProgress progress{control, weights.size() * 2 + 4};
    doc.sections.push_back(weightsSection(ckpt, opt, weights, so, errorHist, progress));
    doc.sections.push_back(verifySection(ckpt, weights, progress));
    doc.sections.push_back(budgetSection(byFormat));
    control.check();
    // Shapes detection refused are never decoded: listed with the note that says why.
    for (const LogicalWeight* w : weights)
        if (const Message* why = refusedShape(*w))
            doc.refused.push_back({w->name, why->text()});
    appendLargestWeights(doc, ckpt, opt, weights, so, errorHist, progress);
    appendFormatChapters(doc, ckpt, byFormat, control);
    if (!doc.refused.empty()) {
        // After the weights table: what the rest of the report leaves out, and why.
        Section refused = section(2, "Refused weights");
        refused.blocks.push_back(paragraph(counted(doc.refused.size(), "weight was", "weights were")
                                           + " refused and left out of the figures and statistics; the others are "
                                             "reported."));
        Block table = tableBlock({"weight", "why"});
        for (const RefusedWeight& r : doc.refused)
            table.table.rows.push_back({r.weight, r.why});
        refused.blocks.push_back(std::move(table));
        const auto at = std::find_if(doc.sections.begin(), doc.sections.end(),
                                     [](const Section& s) { return s.title == "Weights"; });
        doc.sections.insert(at == doc.sections.end() ? at : at + 1, std::move(refused));
    }
    control(1, 1);
    return doc;
}

} // namespace qs::report
