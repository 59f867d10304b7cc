// quantscope-cli recipe PATH [--json] / recipe A B [--json]: which weight got which type, per
// type and per layer, against the nominal type, with the fallbacks and what they cost; or two
// recipes side by side. --imatrix FILE adds the importance matrix: how its entries fit the
// weights, tensor by tensor, the importance per tensor and, with --ref REF or --requantize ID,
// the weights ranked by importance-weighted error (where more bits would help most).
#include "commands.h"
#include "base/counttext.h"
#include "jsonstream.h"

#include "analysis/imatrix.h"
#include "analysis/recipe.h"
#include "base/localpath.h"
#include "base/simd.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <string>

namespace qscli {
namespace {

QString qstr(const std::string& s)
{
    return QString::fromStdString(s);
}

std::string layerText(int layer)
{
    return layer < 0 ? "-" : std::to_string(layer);
}

QJsonObject recipeSummaryJson(const qs::RecipeSummary& s)
{
    QJsonObject root;
    root[QStringLiteral("path")] = qstr(s.path);
    if (s.hasNominal) {
        QJsonObject n;
        n[QStringLiteral("name")] = qstr(s.nominal.name.text());
        n[QStringLiteral("source")] = qstr(s.nominal.source.text());
        n[QStringLiteral("format")] = s.nominal.format ? QJsonValue(qstr(s.nominal.format->id)) : QJsonValue();
        n[QStringLiteral("bits")] = s.nominal.bits;
        n[QStringLiteral("group_size")] = static_cast<qint64>(s.nominal.groupSize);
        n[QStringLiteral("bpw")] = s.nominal.bitsPerWeight;
        root[QStringLiteral("nominal")] = n;
    } else {
        root[QStringLiteral("nominal")] = QJsonValue();
    }
    QJsonArray types;
    for (const auto& t : s.types)
        types.append(QJsonObject{{QStringLiteral("type"), qstr(t.label)},
                                 {QStringLiteral("tensors"), static_cast<qint64>(t.tensors)},
                                 {QStringLiteral("elements"), static_cast<qint64>(t.elements)},
                                 {QStringLiteral("bytes"), static_cast<qint64>(t.bytes)},
                                 {QStringLiteral("share"), t.share},
                                 {QStringLiteral("bpw"), t.bitsPerWeight()}});
    root[QStringLiteral("types")] = types;
    QJsonArray layers;
    for (const auto& l : s.layers)
        layers.append(QJsonObject{{QStringLiteral("layer"), l.layer},
                                  {QStringLiteral("elements"), static_cast<qint64>(l.elements)},
                                  {QStringLiteral("bytes"), static_cast<qint64>(l.bytes)},
                                  {QStringLiteral("bpw"), l.bitsPerWeight()}});
    root[QStringLiteral("layers")] = layers;
    QJsonArray tensors;
    for (const auto& t : s.tensors) {
        QJsonObject o{{QStringLiteral("name"), qstr(t.name)},
                      {QStringLiteral("layer"), t.layer},
                      {QStringLiteral("role"), qstr(t.role)},
                      {QStringLiteral("type"), qstr(t.label)},
                      {QStringLiteral("elements"), static_cast<qint64>(t.elements)},
                      {QStringLiteral("bytes"), static_cast<qint64>(t.bytes)},
                      {QStringLiteral("bpw"), t.bitsPerWeight()},
                      {QStringLiteral("kind"), QString::fromLatin1(qs::recipeKindName(t.verdict.kind))},
                      {QStringLiteral("extra_bits"), t.extraBits}};
        if (!t.verdict.reason.empty())
            o[QStringLiteral("reason")] = qstr(t.verdict.reason);
        tensors.append(o);
    }
    root[QStringLiteral("tensors")] = tensors;
    QJsonObject totals{{QStringLiteral("weights"), static_cast<qint64>(s.tensors.size())},
                       {QStringLiteral("elements"), static_cast<qint64>(s.elements)},
                       {QStringLiteral("bytes"), static_cast<qint64>(s.bytes)},
                       {QStringLiteral("bpw"), s.bitsPerWeight()},
                       {QStringLiteral("quantized_weights"), static_cast<qint64>(s.quantizable)},
                       {QStringLiteral("quantized_bpw"), s.quantizableBitsPerWeight()},
                       {QStringLiteral("fallbacks"), static_cast<qint64>(s.count(qs::RecipeKind::Fallback))},
                       {QStringLiteral("fallback_extra_bits"), s.extraBits(qs::RecipeKind::Fallback)}};
    root[QStringLiteral("totals")] = totals;
    return root;
}

std::string recipeSummaryText(const qs::RecipeSummary& s)
{
    std::string out = "Path:       " + s.path + "\n";
    for (const auto& line : qs::recipeOverview(s))
        out += line.text() + "\n";
    out += "\nTypes (" + std::to_string(s.types.size()) + ")\n";
    TextTable types({"TYPE", "TENSORS", "PARAMS", "BYTES", "SHARE", "BPW"}, {false, true, true, true, true, true});
    for (const auto& t : s.types)
        types.add({t.label, std::to_string(t.tensors), std::to_string(t.elements), std::to_string(t.bytes),
                   fixedText(100.0 * t.share, 1) + "%", fixedText(t.bitsPerWeight(), 2)});
    out += types.render();
    out += "\nLayers (" + std::to_string(s.layers.size()) + ")\n";
    TextTable layers({"LAYER", "PARAMS", "BYTES", "BPW"}, {false, true, true, true});
    for (const auto& l : s.layers)
        layers.add({l.layer < 0 ? "other" : std::to_string(l.layer), std::to_string(l.elements),
                    std::to_string(l.bytes), fixedText(l.bitsPerWeight(), 2)});
    out += layers.render();
    if (!s.hasNominal)
        return out;
    const size_t differing = s.tensors.size() - s.count(qs::RecipeKind::Nominal);
    out += "\nNot stored as " + (s.nominal.format ? s.nominal.format->id : s.nominal.name.text()) + " ("
        + std::to_string(differing) + ")\n";
    TextTable diff({"NAME", "TYPE", "KIND", "BPW", "EXTRA BYTES", "REASON"}, {false, false, false, true, true, false});
    for (const auto& t : s.tensors)
        if (t.verdict.kind != qs::RecipeKind::Nominal)
            diff.add({t.name, t.label, qs::recipeKindName(t.verdict.kind), fixedText(t.bitsPerWeight(), 2),
                      fixedText(t.extraBits / 8.0, 0), t.verdict.reason});
    out += diff.render();
    return out;
}

QJsonObject nominalJson(const qs::RecipeSummary& s)
{
    QJsonObject n;
    n[QStringLiteral("name")] = qstr(s.nominal.name.text());
    n[QStringLiteral("source")] = qstr(s.nominal.source.text());
    n[QStringLiteral("format")] = s.nominal.format ? QJsonValue(qstr(s.nominal.format->id)) : QJsonValue();
    n[QStringLiteral("bits")] = s.nominal.bits;
    n[QStringLiteral("group_size")] = static_cast<qint64>(s.nominal.groupSize);
    n[QStringLiteral("bpw")] = s.nominal.bitsPerWeight;
    return n;
}

// recipeSummaryJson's document written as it is made (a checkpoint of a million weights has a
// million tensor rows and as many layers): the same text, member by member in key order.
void printRecipeSummaryJson(std::FILE* f, const qs::RecipeSummary& s)
{
    JsonStream json(f);
    json.arrayMember("layers", s.layers.size(), [&](size_t i, JsonWriter& j) {
        const qs::RecipeLayerRow& l = s.layers[i];
        j.beginObject();
        j.key("bpw").number(l.bitsPerWeight());
        j.key("bytes").number(static_cast<int64_t>(l.bytes));
        j.key("elements").number(static_cast<int64_t>(l.elements));
        j.key("layer").number(int64_t(l.layer));
        j.endObject();
    });
    json.member("nominal", s.hasNominal ? QJsonValue(nominalJson(s)) : QJsonValue());
    json.member("path", qstr(s.path));
    json.arrayMember("tensors", s.tensors.size(), [&](size_t i, JsonWriter& j) {
        const qs::RecipeTensor& t = s.tensors[i];
        j.beginObject();
        j.key("bpw").number(t.bitsPerWeight());
        j.key("bytes").number(static_cast<int64_t>(t.bytes));
        j.key("elements").number(static_cast<int64_t>(t.elements));
        j.key("extra_bits").number(t.extraBits);
        j.key("kind").string(qs::recipeKindName(t.verdict.kind));
        j.key("layer").number(int64_t(t.layer));
        j.key("name").string(t.name);
        if (!t.verdict.reason.empty())
            j.key("reason").string(t.verdict.reason);
        j.key("role").string(t.role);
        j.key("type").string(t.label);
        j.endObject();
    });
    QJsonObject totals{{QStringLiteral("weights"), static_cast<qint64>(s.tensors.size())},
                       {QStringLiteral("elements"), static_cast<qint64>(s.elements)},
                       {QStringLiteral("bytes"), static_cast<qint64>(s.bytes)},
                       {QStringLiteral("bpw"), s.bitsPerWeight()},
                       {QStringLiteral("quantized_weights"), static_cast<qint64>(s.quantizable)},
                       {QStringLiteral("quantized_bpw"), s.quantizableBitsPerWeight()},
                       {QStringLiteral("fallbacks"), static_cast<qint64>(s.count(qs::RecipeKind::Fallback))},
                       {QStringLiteral("fallback_extra_bits"), s.extraBits(qs::RecipeKind::Fallback)}};
    json.member("totals", totals);
    json.arrayMember("types", s.types.size(), [&](size_t i, JsonWriter& j) {
        const qs::RecipeTypeRow& t = s.types[i];
        j.beginObject();
        j.key("bpw").number(t.bitsPerWeight());
        j.key("bytes").number(static_cast<int64_t>(t.bytes));
        j.key("elements").number(static_cast<int64_t>(t.elements));
        j.key("share").number(t.share);
        j.key("tensors").number(static_cast<int64_t>(t.tensors));
        j.key("type").string(t.label);
        j.endObject();
    });
    json.finish();
}

// recipeSummaryText written as it is made.
void printRecipeSummaryText(std::FILE* f, const qs::RecipeSummary& s)
{
    const auto put = [f](const std::string& text) { std::fwrite(text.data(), 1, text.size(), f); };
    std::string out = "Path:       " + s.path + "\n";
    for (const auto& line : qs::recipeOverview(s))
        out += line.text() + "\n";
    out += "\nTypes (" + std::to_string(s.types.size()) + ")\n";
    put(out);
    printTable(f, {"TYPE", "TENSORS", "PARAMS", "BYTES", "SHARE", "BPW"}, {false, true, true, true, true, true},
               s.types.size(), [&](size_t i) {
                   const qs::RecipeTypeRow& t = s.types[i];
                   return std::vector<std::string>{t.label,
                                                   std::to_string(t.tensors),
                                                   std::to_string(t.elements),
                                                   std::to_string(t.bytes),
                                                   fixedText(100.0 * t.share, 1) + "%",
                                                   fixedText(t.bitsPerWeight(), 2)};
               });
    put("\nLayers (" + std::to_string(s.layers.size()) + ")\n");
    printTable(f, {"LAYER", "PARAMS", "BYTES", "BPW"}, {false, true, true, true}, s.layers.size(), [&](size_t i) {
        const qs::RecipeLayerRow& l = s.layers[i];
        return std::vector<std::string>{l.layer < 0 ? "other" : std::to_string(l.layer), std::to_string(l.elements),
                                        std::to_string(l.bytes), fixedText(l.bitsPerWeight(), 2)};
    });
    if (!s.hasNominal)
        return;
    std::vector<size_t> differing;
    for (size_t i = 0; i < s.tensors.size(); ++i)
        if (s.tensors[i].verdict.kind != qs::RecipeKind::Nominal)
            differing.push_back(i);
    put("\nNot stored as " + (s.nominal.format ? s.nominal.format->id : s.nominal.name.text()) + " ("
        + std::to_string(s.tensors.size() - s.count(qs::RecipeKind::Nominal)) + ")\n");
    printTable(f, {"NAME", "TYPE", "KIND", "BPW", "EXTRA BYTES", "REASON"}, {false, false, false, true, true, false},
               differing.size(), [&](size_t i) {
                   const qs::RecipeTensor& t = s.tensors[differing[i]];
                   return std::vector<std::string>{t.name,
                                                   t.label,
                                                   qs::recipeKindName(t.verdict.kind),
                                                   fixedText(t.bitsPerWeight(), 2),
                                                   fixedText(t.extraBits / 8.0, 0),
                                                   t.verdict.reason};
               });
}

QJsonObject comparisonJson(const qs::RecipeComparison& c)
{
    QJsonObject root{{QStringLiteral("a"), recipeSummaryJson(c.a)}, {QStringLiteral("b"), recipeSummaryJson(c.b)}};
    QJsonArray rows;
    for (const auto& r : c.differing)
        rows.append(
            QJsonObject{{QStringLiteral("layer"), r.layer},
                        {QStringLiteral("role"), qstr(r.role)},
                        {QStringLiteral("name_a"), r.nameA.empty() ? QJsonValue() : QJsonValue(qstr(r.nameA))},
                        {QStringLiteral("name_b"), r.nameB.empty() ? QJsonValue() : QJsonValue(qstr(r.nameB))},
                        {QStringLiteral("type_a"), r.labelA.empty() ? QJsonValue() : QJsonValue(qstr(r.labelA))},
                        {QStringLiteral("type_b"), r.labelB.empty() ? QJsonValue() : QJsonValue(qstr(r.labelB))},
                        {QStringLiteral("bpw_a"), r.bitsA},
                        {QStringLiteral("bpw_b"), r.bitsB}});
    root[QStringLiteral("differing")] = rows;
    root[QStringLiteral("matched")] = static_cast<qint64>(c.matched);
    QJsonArray layers;
    for (const auto& l : c.layers)
        layers.append(QJsonObject{{QStringLiteral("layer"), l.layer},
                                  {QStringLiteral("bpw_a"), l.bitsA},
                                  {QStringLiteral("bpw_b"), l.bitsB}});
    root[QStringLiteral("layers")] = layers;
    return root;
}

std::string comparisonText(const qs::RecipeComparison& c)
{
    std::string out;
    for (const auto* s : {&c.a, &c.b}) {
        out += std::string(s == &c.a ? "A" : "B") + ": " + s->path + "\n";
        for (const auto& line : qs::recipeOverview(*s))
            out += "   " + line.text() + "\n";
    }
    out += "\nTotals: A " + fixedText(c.a.bitsPerWeight(), 2) + " bits per weight (" + std::to_string(c.a.bytes)
        + " bytes), B " + fixedText(c.b.bitsPerWeight(), 2) + " (" + std::to_string(c.b.bytes) + " bytes)\n";
    out += "\nLayers\n";
    TextTable layers({"LAYER", "BPW A", "BPW B", "B - A"}, {false, true, true, true});
    for (const auto& l : c.layers)
        layers.add({l.layer < 0 ? "other" : std::to_string(l.layer), fixedText(l.bitsA, 2), fixedText(l.bitsB, 2),
                    fixedText(l.bitsB - l.bitsA, 2)});
    out += layers.render();
    out += "\nDiffering tensors (" + std::to_string(c.differing.size()) + "; "
        + qs::counted(c.matched, "weight", "weights") + " on both sides)\n";
    TextTable rows({"LAYER", "ROLE", "TYPE A", "TYPE B", "BPW A", "BPW B"}, {true, false, false, false, true, true});
    for (const auto& r : c.differing)
        rows.add({layerText(r.layer), r.role, r.labelA.empty() ? "(absent)" : r.labelA,
                  r.labelB.empty() ? "(absent)" : r.labelB, fixedText(r.bitsA, 2), fixedText(r.bitsB, 2)});
    out += rows.render();
    return out;
}

struct ImatrixSection {
    qs::Imatrix imatrix;
    qs::ImatrixMatch match;
    bool ranked = false;
    std::string rankedAgainst; // "REF" or "requantized to ID"
    qs::ImportanceRanking ranking;
};

QJsonObject imatrixJson(const ImatrixSection& s)
{
    const qs::Imatrix& im = s.imatrix;
    QJsonArray datasets;
    for (const auto& d : im.datasets)
        datasets.append(qstr(d));
    QJsonArray weights;
    for (const auto& m : s.match.weights) {
        QJsonObject o{{QStringLiteral("name"), qstr(m.weight->name)},
                      {QStringLiteral("entry"), m.entry ? QJsonValue(qstr(m.entry->name)) : QJsonValue()},
                      {QStringLiteral("fits"), m.fits()}};
        if (!m.problem.empty())
            o[QStringLiteral("problem")] = qstr(m.problem);
        if (m.fits()) {
            const qs::ImportanceSummary sum = qs::summarizeImportance(*m.entry);
            o[QStringLiteral("channels")] = static_cast<qint64>(m.entry->columns);
            o[QStringLiteral("matrices")] = static_cast<qint64>(m.entry->matrices);
            o[QStringLiteral("mean")] = sum.mean;
            o[QStringLiteral("max")] = sum.max;
            o[QStringLiteral("min")] = sum.min;
        }
        weights.append(o);
    }
    QJsonArray unused;
    for (const auto& n : s.match.unusedEntries)
        unused.append(qstr(n));
    QJsonObject root{{QStringLiteral("path"), qstr(im.path)},
                     {QStringLiteral("format"), QString::fromLatin1(qs::imatrixFormatName(im.format))},
                     {QStringLiteral("datasets"), datasets},
                     {QStringLiteral("chunk_count"), static_cast<qint64>(im.chunkCount)},
                     {QStringLiteral("chunk_size"), static_cast<qint64>(im.chunkSize)},
                     {QStringLiteral("entries"), static_cast<qint64>(im.entries.size())},
                     {QStringLiteral("weights"), weights},
                     {QStringLiteral("unused_entries"), unused}};
    if (s.ranked) {
        QJsonArray rows;
        for (const auto& r : s.ranking.rows)
            rows.append(QJsonObject{{QStringLiteral("name"), qstr(r.weight)},
                                    {QStringLiteral("format"), qstr(r.format)},
                                    {QStringLiteral("elements"), static_cast<qint64>(r.elements)},
                                    {QStringLiteral("bpw"), r.bitsPerWeight},
                                    {QStringLiteral("mse"), r.mse},
                                    {QStringLiteral("weighted_sum_sq"), r.weightedSumSq},
                                    {QStringLiteral("share"), r.share}});
        QJsonArray skipped;
        for (const auto& k : s.ranking.skipped)
            skipped.append(qstr(k));
        root[QStringLiteral("ranking")] = QJsonObject{{QStringLiteral("against"), qstr(s.rankedAgainst)},
                                                      {QStringLiteral("rows"), rows},
                                                      {QStringLiteral("skipped"), skipped}};
    }
    return root;
}

std::string imatrixText(const ImatrixSection& s)
{
    const qs::Imatrix& im = s.imatrix;
    std::string out = "\nImportance matrix: " + im.path + " (" + std::string(qs::imatrixFormatName(im.format)) + ", "
        + qs::counted(im.entries.size(), "entry", "entries");
    if (im.chunkCount)
        out += ", " + qs::counted(im.chunkCount, "chunk", "chunks")
            + (im.chunkSize ? " of " + qs::counted(im.chunkSize, "token", "tokens") : std::string());
    for (size_t i = 0; i < im.datasets.size(); ++i)
        out += (i ? ", " : "; dataset ") + im.datasets[i];
    out += ")\n";
    out += "Fits " + std::to_string(s.match.fitting()) + " of " + std::to_string(s.match.weights.size())
        + " matrix weights; " + std::to_string(s.match.mismatched()) + " with lengths that differ, "
        + std::to_string(s.match.unusedEntries.size()) + " entries for no weight\n";
    const size_t notFitting = s.match.weights.size() - s.match.fitting();
    if (notFitting || !s.match.unusedEntries.empty()) {
        out += "\nNot matched (" + std::to_string(notFitting + s.match.unusedEntries.size()) + ")\n";
        TextTable t({"NAME", "PROBLEM"}, {false, false});
        for (const auto& m : s.match.weights)
            if (!m.fits())
                t.add({m.weight->name, m.problem});
        for (const auto& n : s.match.unusedEntries)
            t.add({n, "an imatrix entry for no weight of the checkpoint"});
        out += t.render();
    }
    out += "\nImportance per tensor (mean x^2 per input channel)\n";
    TextTable imp({"NAME", "CHANNELS", "MEAN", "MAX", "MIN", "MAX/MEAN"}, {false, true, true, true, true, true});
    for (const auto& m : s.match.weights)
        if (m.fits()) {
            const qs::ImportanceSummary sum = qs::summarizeImportance(*m.entry);
            imp.add({m.weight->name, std::to_string(m.entry->importance.size()), sciText(sum.mean), sciText(sum.max),
                     sciText(sum.min), sum.mean > 0 ? fixedText(sum.max / sum.mean, 1) : "-"});
        }
    out += imp.render();
    if (!s.ranked)
        return out;
    out += "\nWhere more bits would help most: importance-weighted squared error, against " + s.rankedAgainst + "\n";
    TextTable rank({"RANK", "NAME", "FORMAT", "BPW", "MSE", "WEIGHTED", "SHARE"},
                   {true, false, false, true, true, true, true});
    for (size_t i = 0; i < s.ranking.rows.size(); ++i) {
        const auto& r = s.ranking.rows[i];
        rank.add({std::to_string(i + 1), r.weight, r.format, fixedText(r.bitsPerWeight, 2), sciText(r.mse),
                  sciText(r.weightedSumSq), fixedText(100.0 * r.share, 1) + "%"});
    }
    out += rank.render();
    for (const auto& k : s.ranking.skipped)
        out += "  not ranked: " + k + "\n";
    return out;
}

} // namespace

int runRecipe(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Show a checkpoint's quantization recipe: the stored types per type and per layer, the nominal type "
        "(general.file_type, the quantization config) and every weight stored otherwise, with the reason "
        "(fallback, the mix, a per-module override) and the bits it costs. With two checkpoints, the two "
        "recipes side by side."));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("Print JSON (schema in the README) instead of tables."));
    const QCommandLineOption imatrixOpt(QStringLiteral("imatrix"),
                                        QStringLiteral("llama-imatrix output (GGUF or legacy .dat): how it fits, the "
                                                       "importance per tensor"),
                                        QStringLiteral("FILE"));
    const QCommandLineOption refOpt(QStringLiteral("ref"),
                                    QStringLiteral("with --imatrix: rank the weights by importance-weighted error "
                                                   "against this float reference"),
                                    QStringLiteral("REF"));
    const QCommandLineOption requantOpt(
        QStringLiteral("requantize"),
        QStringLiteral("with --imatrix: rank by the error of requantizing each weight to ID"), QStringLiteral("ID"));
    parser.addOption(json);
    parser.addOptions({imatrixOpt, refOpt, requantOpt});
    parser.addPositionalArgument(QStringLiteral("PATH"), QStringLiteral("A checkpoint (file or folder)."));
    parser.addPositionalArgument(QStringLiteral("[B]"), QStringLiteral("A second checkpoint to compare with."));
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    if (pos.isEmpty() || pos.size() > 2)
        return usageError(args, pos.isEmpty() ? "missing PATH" : "at most two checkpoints");
    const bool withImatrix = parser.isSet(imatrixOpt);
    if ((withImatrix && pos.size() != 1) || (!withImatrix && (parser.isSet(refOpt) || parser.isSet(requantOpt)))
        || (parser.isSet(refOpt) && parser.isSet(requantOpt)))
        return usageError(
            args, "--imatrix takes one checkpoint, --ref and --requantize need --imatrix and exclude each other");
    std::string out;
    const auto a = qs::openCheckpoint(qs::encodeLocalBytes(pos[0]));
    if (pos.size() == 1) {
        const qs::RecipeSummary s = qs::summarizeRecipe(*a);
        if (!withImatrix) {
            if (parser.isSet(json))
                printRecipeSummaryJson(stdout, s);
            else
                printRecipeSummaryText(stdout, s);
        } else {
            ImatrixSection im{qs::readImatrix(qs::encodeLocalBytes(parser.value(imatrixOpt))), {}, false, {}, {}};
            im.match = qs::matchImatrix(im.imatrix, *a);
            qs::StatsOptions opt;
            opt.path = qs::bestSimdPath();
            if (parser.isSet(refOpt)) {
                const auto ref = qs::openCheckpoint(qs::encodeLocalBytes(parser.value(refOpt)));
                im.ranking = qs::rankByImportance(*a, im.match, ref.get(), nullptr, opt);
                im.ranked = true;
                im.rankedAgainst = ref->path;
            } else if (parser.isSet(requantOpt)) {
                qs::RequantizeSpec spec;
                spec.format = parser.value(requantOpt).trimmed().toLower().toStdString();
                im.ranking = qs::rankByImportance(*a, im.match, nullptr, &spec, opt);
                im.ranked = true;
                im.rankedAgainst = "each weight requantized to " + spec.format;
            }
            if (parser.isSet(json)) {
                QJsonObject root = recipeSummaryJson(s);
                root[QStringLiteral("imatrix")] = imatrixJson(im);
                out = QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();
            } else {
                out = recipeSummaryText(s) + imatrixText(im);
            }
        }
    } else {
        const auto b = qs::openCheckpoint(qs::encodeLocalBytes(pos[1]));
        const qs::RecipeComparison c = qs::compareRecipes(*a, *b);
        out = parser.isSet(json) ? QJsonDocument(comparisonJson(c)).toJson(QJsonDocument::Indented).toStdString()
                                 : comparisonText(c);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

} // namespace qscli
