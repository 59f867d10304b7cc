// quantscope-cli stats PATH [WEIGHT] [--ref REF | --requantize ID [--bits B] [--group-size G]
// [--sym]] [--activations X.npy] [--imatrix FILE] [--json] [--bins N] [--range LO,HI]
// [--approximate]: error of each weight against a float reference (matched by name) or against
// its own requantization (with an imatrix also weighted by its importance), or value/code/scale
// histograms without one (exact, or with --approximate from a sample of rows). Weights stream a
// row slice at a time.
#include "commands.h"
#include "base/counttext.h"

#include "analysis/imatrix.h"
#include "analysis/stats.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/localpath.h"
#include "base/platform.h"
#include "container/checkpoint.h"
#include "container/npy.h"
#include "formats/dequant.h"
#include "formats/family.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

namespace qscli {

namespace {

QJsonObject histogramJson(const qs::Histogram& h)
{
    QJsonArray counts;
    for (uint64_t c : h.counts)
        counts.append(qint64(c));
    return QJsonObject{{QStringLiteral("lo"), h.lo},
                       {QStringLiteral("hi"), h.hi},
                       {QStringLiteral("counts"), counts},
                       {QStringLiteral("below"), qint64(h.below)},
                       {QStringLiteral("above"), qint64(h.above)}};
}

// JSON has no infinity: an exact match reports sqnr_db null.
QJsonObject comparisonJson(const qs::WeightComparison& c)
{
    const qs::ErrorStats& e = c.error;
    QJsonArray groups;
    for (const qs::GroupError& g : e.groups)
        groups.append(QJsonObject{{QStringLiteral("group"), qint64(g.group)},
                                  {QStringLiteral("rmse"), g.rmse},
                                  {QStringLiteral("max_abs"), g.maxAbs}});
    QJsonObject o{
        {QStringLiteral("weight"), QString::fromStdString(c.weight)},
        {QStringLiteral("reference"), QString::fromStdString(c.reference)},
        {QStringLiteral("shape"), QJsonArray{qint64(c.shape.at(0)), qint64(c.shape.at(1))}},
        {QStringLiteral("count"), qint64(e.count)},
        {QStringLiteral("rmse"), e.rmse},
        {QStringLiteral("mean_abs"), e.meanAbs},
        {QStringLiteral("mean_signed"), e.meanSigned},
        {QStringLiteral("max_abs"), e.maxAbs},
        {QStringLiteral("sqnr_db"), finiteOrNull(e.sqnrDb)},
        {QStringLiteral("percentiles_abs"),
         QJsonObject{{QStringLiteral("p50"), e.p50},
                     {QStringLiteral("p95"), e.p95},
                     {QStringLiteral("p99"), e.p99},
                     {QStringLiteral("p99_9"), e.p999},
                     {QStringLiteral("exact"), e.percentilesExact}}},
        {QStringLiteral("signed_error_histogram"), histogramJson(e.signedError)},
        {QStringLiteral("groups"), groups},
        {QStringLiteral("output"),
         QJsonObject{{QStringLiteral("tokens"), qint64(c.output.tokens)},
                     {QStringLiteral("relative_error"), c.output.relativeError},
                     {QStringLiteral("cosine"), c.output.cosine}}},
    };
    if (e.nonFinite) // left out of every figure above; the first one's place
        o.insert(QStringLiteral("non_finite"),
                 QJsonObject{
                     {QStringLiteral("count"), qint64(e.nonFinite)},
                     {QStringLiteral("first"),
                      QJsonArray{qint64(e.firstNonFinite / c.shape.at(1)), qint64(e.firstNonFinite % c.shape.at(1))}}});
    if (!c.note.empty()) // how the pair was matched: "q/k row permutation undone (32 heads)", ...
        o.insert(QStringLiteral("note"), QString::fromStdString(c.note));
    if (e.weighted)
        o.insert(QStringLiteral("importance_weighted"),
                 QJsonObject{{QStringLiteral("sum_sq"), e.weightedSumSq},
                             {QStringLiteral("mse"), e.weightedMse},
                             {QStringLiteral("plain_mse"), e.rmse * e.rmse},
                             {QStringLiteral("relative"), e.weightedRelative}});
    return o;
}

// With --approximate every weight says whether its figures were sampled, and how; without
// it the output is as it always was.
QJsonObject histogramsJson(const qs::WeightHistograms& h, bool approximate)
{
    // min, max, mean and rms are of the `finite` values; null where there is none.
    const auto over = [](bool any, double v) { return any ? QJsonValue(v) : QJsonValue(QJsonValue::Null); };
    QJsonObject o{{QStringLiteral("weight"), QString::fromStdString(h.weight)},
                  {QStringLiteral("count"), qint64(h.count)},
                  {QStringLiteral("finite"), qint64(h.finite())},
                  {QStringLiteral("non_finite"),
                   QJsonObject{{QStringLiteral("nan"), qint64(h.nanCount)},
                               {QStringLiteral("pos_inf"), qint64(h.posInfCount)},
                               {QStringLiteral("neg_inf"), qint64(h.negInfCount)}}},
                  {QStringLiteral("min"), over(h.hasFinite, h.minValue)},
                  {QStringLiteral("max"), over(h.hasFinite, h.maxValue)},
                  {QStringLiteral("mean"), over(h.finite() > 0, h.meanValue)},
                  {QStringLiteral("rms"), over(h.finite() > 0, h.rmsValue)},
                  {QStringLiteral("values"), histogramJson(h.values)}};
    if (!h.codes.empty()) {
        QJsonArray codes;
        for (uint64_t c : h.codes)
            codes.append(qint64(c));
        o.insert(QStringLiteral("codes"), codes);
    }
    if (!h.scales.counts.empty())
        o.insert(QStringLiteral("scales"), histogramJson(h.scales));
    if (approximate) {
        o.insert(QStringLiteral("approximate"), h.sampleEvery > 0);
        if (h.sampleEvery)
            o.insert(QStringLiteral("sampling"),
                     QJsonObject{{QStringLiteral("rows_one_in"), qint64(h.sampleEvery)},
                                 {QStringLiteral("sampled"), qint64(h.sampled)}});
    }
    return o;
}

// A histogram as text, one line a bin ("[lo, hi)", the count, a bar scaled to the largest
// bin; the last bin includes hi), then what fell outside a chosen range.
void printHistogram(const char* title, const qs::Histogram& h)
{
    const size_t n = h.counts.size();
    std::printf("  %s, %zu bins:\n", title, n);
    const uint64_t most = n ? *std::max_element(h.counts.begin(), h.counts.end()) : 0;
    const double width = n ? (h.hi - h.lo) / double(n) : 0;
    for (size_t i = 0; i < n; ++i) {
        const double a = h.lo + width * double(i), b = i + 1 == n ? h.hi : h.lo + width * double(i + 1);
        const int bar = most ? int(qs::ceilDiv(h.counts[i] * 40, most)) : 0;
        std::printf("    [%11.4g, %11.4g%c %10llu%s%s\n", a, b, i + 1 == n ? ']' : ')',
                    static_cast<unsigned long long>(h.counts[i]), bar ? " " : "",
                    std::string(size_t(bar), '#').c_str());
    }
    if (h.below || h.above)
        std::printf("    below %llu, above %llu\n", static_cast<unsigned long long>(h.below),
                    static_cast<unsigned long long>(h.above));
}

// "W: min .. max .. mean .. rms .." of the finite values; with NaN or Inf among them, how many
// and over which elements the figures are.
void printValueLine(const qs::WeightHistograms& h, const std::string& sampling)
{
    std::string nonFinite;
    for (const auto& [n, what] :
         {std::pair{h.nanCount, "NaN"}, std::pair{h.posInfCount, "+Inf"}, std::pair{h.negInfCount, "-Inf"}})
        if (n)
            nonFinite += (nonFinite.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    if (!h.hasFinite) {
        std::printf("%s: no finite value: %s%s\n", h.weight.c_str(), nonFinite.c_str(), sampling.c_str());
        return;
    }
    std::printf("%s: min %.6g max %.6g mean %.6g rms %.6g", h.weight.c_str(), h.minValue, h.maxValue, h.meanValue,
                h.rmsValue);
    if (!nonFinite.empty())
        std::printf(" of the %llu finite values; non-finite: %s", static_cast<unsigned long long>(h.finite()),
                    nonFinite.c_str());
    std::printf("%s\n", sampling.c_str());
}

void printComparison(const qs::WeightComparison& c, bool json, bool histogram, QJsonArray& out)
{
    if (json) {
        out.append(comparisonJson(c));
        return;
    }
    const qs::ErrorStats& e = c.error;
    const std::string reference = c.note.empty() ? c.reference : c.reference + " (" + c.note + ")";
    std::printf("%s vs %s: rmse %.6g mean|e| %.6g max|e| %.6g sqnr %.2f dB | p50 %.3g p95 %.3g p99 %.3g p99.9 %.3g%s"
                " | y=Wx rel %.4g cos %.6f\n",
                c.weight.c_str(), reference.c_str(), e.rmse, e.meanAbs, e.maxAbs, e.sqnrDb, e.p50, e.p95, e.p99, e.p999,
                e.percentilesExact ? "" : " (sampled)", c.output.relativeError, c.output.cosine);
    if (e.nonFinite)
        std::printf("  %llu NaN or Inf %s left out of these figures, the first at (%llu, %llu)\n",
                    static_cast<unsigned long long>(e.nonFinite), e.nonFinite == 1 ? "element" : "elements",
                    static_cast<unsigned long long>(e.firstNonFinite / c.shape.at(1)),
                    static_cast<unsigned long long>(e.firstNonFinite % c.shape.at(1)));
    if (e.weighted)
        std::printf("  importance-weighted: mse %.6g (plain %.6g) sum %.6g relative %.6g\n", e.weightedMse,
                    e.rmse * e.rmse, e.weightedSumSq, e.weightedRelative);
    if (histogram)
        printHistogram("signed error (dequantized - reference)", e.signedError);
}

std::vector<float> readActivations(const std::string& path, uint64_t K)
{
    const qs::npy::Array a = qs::npy::read(path);
    if (a.shape.empty() || a.shape.back() != K)
        throw qs::Error(qs::ErrorContext{path}, "activations must be [tokens, " + std::to_string(K) + "]");
    std::vector<float> x(a.count());
    if (a.descr == "<f4") {
        std::memcpy(x.data(), a.data.data(), x.size() * 4);
    } else if (a.descr == "<f8") {
        for (size_t i = 0; i < x.size(); ++i) {
            double d;
            std::memcpy(&d, a.data.data() + i * 8, 8);
            x[i] = float(d);
        }
    } else {
        throw qs::Error(qs::ErrorContext{path}, "activations must be float32 or float64, not " + a.descr);
    }
    return x;
}

// The options of stats, as --help lists them.
struct StatsCli {
    QCommandLineOption ref{QStringLiteral("ref"), QStringLiteral("float reference checkpoint"), QStringLiteral("REF")};
    QCommandLineOption act{QStringLiteral("activations"),
                           QStringLiteral("activations [tokens, in] .npy (default: seeded normal with outliers)"),
                           QStringLiteral("X.npy")};
    QCommandLineOption json{QStringLiteral("json"), QStringLiteral("machine-readable output")};
    QCommandLineOption bins{QStringLiteral("bins"), QStringLiteral("histogram bins (default 32)"), QStringLiteral("N"),
                            QStringLiteral("32")};
    QCommandLineOption range{QStringLiteral("range"),
                             QStringLiteral("histogram range (signed error with a reference, values without); "
                                            "outside values are counted as below/above"),
                             QStringLiteral("LO,HI")};
    QCommandLineOption requant{QStringLiteral("requantize"),
                               QStringLiteral("reference = each weight as stored; candidate = it quantized to ID "
                                              "(gguf-q4_0..gguf-q8_0, gguf-q2_k..gguf-q6_k, gptq, awq, bnb-nf4, "
                                              "bnb-fp4) and dequantized"),
                               QStringLiteral("ID")};
    QCommandLineOption bits{QStringLiteral("bits"), QStringLiteral("--requantize gptq/awq: code bits (default 4)"),
                            QStringLiteral("B"), QStringLiteral("4")};
    QCommandLineOption group{QStringLiteral("group-size"),
                             QStringLiteral("--requantize gptq/awq: group size (default 128)"), QStringLiteral("G"),
                             QStringLiteral("128")};
    QCommandLineOption sym{QStringLiteral("sym"), QStringLiteral("--requantize gptq/awq: symmetric")};
    QCommandLineOption imatrix{QStringLiteral("imatrix"),
                               QStringLiteral("llama-imatrix output (GGUF or legacy .dat): with --ref or "
                                              "--requantize, also the importance-weighted error"),
                               QStringLiteral("FILE")};
    QCommandLineOption approx{
        QStringLiteral("approximate"),
        QStringLiteral("without --ref or --requantize: mean, RMS and histograms from one run of rows in %1 (weights "
                       "under %2 elements read whole; min and max exact), several times faster; the output says so")
            .arg(qs::kApproximateSampleEvery)
            .arg(qs::kApproximateMinElements)};

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription(QStringLiteral("Error of each weight against a float reference (--ref, "
                                                        "matched by name), or value/code/scale histograms."));
        parser.addPositionalArgument(
            QStringLiteral("PATH"),
            QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"));
        parser.addPositionalArgument(QStringLiteral("WEIGHT"), QStringLiteral("only this weight (optional)"),
                                     QStringLiteral("[WEIGHT]"));
        parser.addOptions({ref, act, json, bins, range, requant, bits, group, sym, imatrix, approx});
    }
};

// The histogram and requantization parameters of the command line, checked; nullopt after
// printing a usage error.
std::optional<qs::StatsOptions> statsOptionsOf(const QCommandLineParser& parser, const StatsCli& o,
                                               const QStringList& args, qs::RequantizeSpec& spec)
{
    const QStringList pos = parser.positionalArguments();
    bool binsOk = false, bitsOk = false, groupOk = false, rangeOk = true;
    const int bins = parser.value(o.bins).toInt(&binsOk);
    const int bits = parser.value(o.bits).toInt(&bitsOk);
    const qulonglong groupSize = parser.value(o.group).toULongLong(&groupOk);
    double lo = 0, hi = 0;
    if (parser.isSet(o.range)) {
        const QStringList r = parser.value(o.range).split(QLatin1Char(','));
        bool a = false, b = false;
        if (r.size() == 2) {
            lo = r.at(0).toDouble(&a);
            hi = r.at(1).toDouble(&b);
        }
        rangeOk = a && b && std::isfinite(lo) && std::isfinite(hi) && hi > lo;
    }
    const bool requantize = parser.isSet(o.requant);
    if (pos.isEmpty() || pos.size() > 2 || !binsOk || bins < 1 || bins > 100000 || !rangeOk || !bitsOk || !groupOk
        || (requantize && parser.isSet(o.ref)) || (parser.isSet(o.imatrix) && !requantize && !parser.isSet(o.ref))
        || (parser.isSet(o.approx) && (requantize || parser.isSet(o.ref)))) {
        usageError(args);
        return std::nullopt;
    }
    // --bits, --group-size and --sym shape an affine requantization; anywhere else they would be
    // ignored without a word. (An unknown --requantize ID is refused by the comparison.)
    const qs::FormatInfo* target =
        requantize ? qs::resolveFormatId(parser.value(o.requant).trimmed().toLower().toStdString()) : nullptr;
    if (!requantize || target) {
        const bool affine = target && qs::requantizerTakesShape(*target);
        for (const QCommandLineOption* option : {&o.bits, &o.group, &o.sym})
            if (parser.isSet(*option) && !affine) {
                std::fprintf(stderr,
                             "quantscope-cli stats: --%s applies to --requantize with an affine target (gptq, awq)%s\n",
                             qPrintable(option->names().constFirst()),
                             target ? qPrintable(QStringLiteral(", not ") + QString::fromStdString(target->id)) : "");
                return std::nullopt;
            }
    }
    if (parser.isSet(o.bits) && (bits < 2 || bits > 8)) {
        std::fprintf(stderr, "quantscope-cli stats: --bits %s: an affine requantization has 2 .. 8 bits\n",
                     qPrintable(parser.value(o.bits)));
        return std::nullopt;
    }
    if (parser.isSet(o.group) && groupSize == 0) {
        std::fprintf(stderr, "quantscope-cli stats: --group-size 0: a group size is a whole number from 1 up\n");
        return std::nullopt;
    }
    qs::StatsOptions opt;
    opt.bins = bins;
    opt.rangeLo = lo;
    opt.rangeHi = hi;
    opt.path = qs::bestSimdPath();
    if (parser.isSet(o.approx))
        opt.sampleEvery = qs::kApproximateSampleEvery;
    spec.format = parser.value(o.requant).trimmed().toLower().toStdString();
    spec.bits = bits;
    spec.groupSize = groupSize;
    spec.symmetric = parser.isSet(o.sym);
    return opt;
}

// The weights to report: the one named, else the quantized ones; with --requantize, or when
// the checkpoint holds none (a float checkpoint, alone or against its float reference), every
// matrix that can be dequantized (norms and other vectors left out). Empty after printing an
// error (no weight of that name).
std::vector<const qs::LogicalWeight*> weightsToReport(const qs::Checkpoint& ckpt, const QStringList& pos,
                                                      bool requantize)
{
    std::vector<const qs::LogicalWeight*> todo;
    if (pos.size() == 2) {
        if (const qs::LogicalWeight* w = ckpt.findWeight(pos.at(1).toStdString()))
            todo.push_back(w);
        else
            std::fprintf(stderr, "quantscope-cli stats: %s: no weight or member tensor named '%s'\n", ckpt.path.c_str(),
                         qPrintable(pos.at(1)));
        return todo;
    }
    const auto pick = [&](bool quantizedOnly) {
        for (const qs::LogicalWeight& w : ckpt.weights) {
            const qs::FormatInfo* f = qs::findFormat(w.format);
            if (qs::canDequantize(w.format) && f && (quantizedOnly ? f->quantized : w.shape.size() >= 2))
                todo.push_back(&w);
        }
    };
    pick(!requantize);
    if (todo.empty() && !requantize) {
        pick(false);
        if (!todo.empty())
            std::fprintf(stderr,
                         "quantscope-cli stats: note: %s holds no quantized weight: reporting its float "
                         "matrices (%zu)\n",
                         ckpt.path.c_str(), todo.size());
    }
    if (todo.empty()) {
        // Why a weight that looks like one is left out (a refused shape, no dequantizer).
        std::string why;
        for (const qs::LogicalWeight& w : ckpt.weights)
            if (const std::string reason = qs::whyNotDecoded(w); !reason.empty() && w.shape.size() != 1) {
                why = "; " + w.name + ": " + reason;
                break;
            }
        throw qs::Error(ckpt.path
                        + ": nothing to report: no quantized weight and no float matrix that can be "
                          "decoded ("
                        + qs::counted(ckpt.weights.size(), "weight", "weights") + ", "
                        + qs::counted(ckpt.tensors.size(), "tensor", "tensors") + ")" + why);
    }
    return todo;
}

void printHistograms(const qs::WeightHistograms& h, bool histogram)
{
    std::string sampling;
    if (h.sampleEvery)
        sampling = " (approximate: rows sampled 1 in " + std::to_string(h.sampleEvery) + ", "
            + std::to_string(h.sampled) + " of " + std::to_string(h.count) + " elements)";
    printValueLine(h, sampling);
    if (histogram)
        printHistogram(h.sampleEvery ? "values (sampled)" : "values", h.values);
    if (!h.codes.empty()) {
        std::printf("  codes:");
        for (uint64_t c : h.codes)
            std::printf(" %llu", static_cast<unsigned long long>(c));
        std::printf("\n");
    }
    if (!h.scales.counts.empty())
        std::printf("  scales: %.6g .. %.6g (%llu)\n", h.scales.lo, h.scales.hi,
                    static_cast<unsigned long long>(h.scales.total()));
}

} // namespace

int runStats(const QStringList& args)
{
    QCommandLineParser parser;
    const StatsCli o;
    o.addTo(parser);
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    qs::RequantizeSpec spec;
    std::optional<qs::StatsOptions> options = statsOptionsOf(parser, o, args, spec);
    if (!options)
        return 2;
    qs::StatsOptions& opt = *options;
    const QStringList pos = parser.positionalArguments();
    const bool requantize = parser.isSet(o.requant), approximate = parser.isSet(o.approx);
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(0)));
    if (pos.size() == 1)
        qscli::stateRemoteFetch(*ckpt);
    const std::vector<const qs::LogicalWeight*> todo = weightsToReport(*ckpt, pos, requantize);
    if (todo.empty())
        return 2;
    std::shared_ptr<const qs::Checkpoint> ref;
    if (parser.isSet(o.ref))
        ref = qs::openCheckpoint(qs::encodeLocalBytes(parser.value(o.ref)));
    // The weights the imatrix does not fit are compared unweighted, each named on stderr.
    std::optional<qs::Imatrix> imatrix;
    qs::ImatrixMatch imatrixMatch;
    if (parser.isSet(o.imatrix)) {
        imatrix = qs::readImatrix(qs::encodeLocalBytes(parser.value(o.imatrix)));
        imatrixMatch = qs::matchImatrix(*imatrix, *ckpt);
    }
    const auto importanceOf = [&](const qs::LogicalWeight& w) -> const std::vector<float>* {
        if (!imatrix)
            return nullptr;
        const qs::ImatrixWeightMatch* m = imatrixMatch.find(w.name);
        if (m && m->fits())
            return &m->entry->importance;
        std::fprintf(stderr, "quantscope-cli stats: %s %s: unweighted: %s\n", imatrix->path.c_str(), w.name.c_str(),
                     m ? m->problem.c_str() : "not a matrix");
        return nullptr;
    };
    // Progress over the elements of every weight, from the core's per-chunk callback.
    uint64_t all = 0, before = 0;
    for (const qs::LogicalWeight* w : todo)
        all += w->elementCount();
    int shown = -1;
    if (qs::platform::stderrIsTerminal())
        opt.progress.report = [&](uint64_t done, uint64_t, const std::string& name) {
            const int pct = all ? int((before + done) * 100 / all) : 100;
            if (pct != shown) {
                shown = pct;
                std::fprintf(stderr, "\r[%3d%%] %s\033[K", pct, name.c_str());
            }
        };
    const bool json = parser.isSet(o.json);
    // The text output is a line per weight; asking for bins or a range adds the histogram.
    const bool histogram = parser.isSet(o.bins) || parser.isSet(o.range);
    // A comparison with the activations of --activations and the weight's importance.
    const auto compare = [&](const qs::LogicalWeight& w, const auto& run) {
        std::vector<float> x;
        if (parser.isSet(o.act)) {
            x = readActivations(qs::encodeLocalBytes(parser.value(o.act)), w.inFeatures());
            opt.activations = &x;
        }
        opt.importance = importanceOf(w);
        const qs::WeightComparison c = run();
        opt.activations = nullptr;
        return c;
    };
    QJsonArray out;
    int skipped = 0;
    for (size_t i = 0; i < todo.size(); ++i) {
        const qs::LogicalWeight& w = *todo[i];
        if (i)
            before += todo[i - 1]->elementCount();
        if (const std::string why = qs::whyNotDecoded(w); !why.empty())
            throw qs::Error(ckpt->path + " " + w.name + ": " + why);
        if (requantize) {
            printComparison(compare(w, [&] { return qs::compareRequantized(*ckpt, w, spec, opt); }), json, histogram,
                            out);
        } else if (!ref) {
            const qs::WeightHistograms h = qs::weightHistograms(*ckpt, w, opt);
            if (json)
                out.append(histogramsJson(h, approximate));
            else
                printHistograms(h, histogram);
        } else {
            // Paired as diff pairs weights: Hugging Face <-> GGUF names, q/k permutation undone.
            const qs::ReferenceMatch match = qs::findReference(*ckpt, w, *ref);
            if (!match.found()) {
                std::fprintf(stderr, "quantscope-cli stats: %s\n", match.problem.c_str());
                ++skipped;
                continue;
            }
            printComparison(compare(w, [&] { return qs::compareWeight(*ckpt, w, *ref, match, opt); }), json, histogram,
                            out);
        }
    }
    if (shown >= 0)
        std::fprintf(stderr, "\r\033[K");
    if (ref && size_t(skipped) == todo.size())
        throw qs::Error(qs::ErrorContext{ckpt->path},
                        "nothing compared: none of its " + qs::counted(todo.size(), "weight", "weights")
                            + " has a match in " + ref->path);
    if (json)
        std::printf("%s", QJsonDocument(QJsonObject{{QStringLiteral("weights"), out}}).toJson().constData());
    return skipped ? 2 : 0;
}

} // namespace qscli
