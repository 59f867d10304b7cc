// quantscope-cli diff A B [--weight NAME] [--tolerance T] [--json]: every weight of A against
// the weight of B with the same name (Hugging Face <-> GGUF names for llama-family archs,
// q/k permutation undone), as dequantized float32 matrices, worst first. The tolerance is
// on max |a - b| per weight (core's automaticTolerance without --tolerance); exit 1 when a weight
// exceeds it (or a NaN/Inf difference, or a shape mismatch), 2 on bad input.
#include "commands.h"
#include "base/counttext.h"

#include "analysis/diff.h"
#include "base/localpath.h"
#include "base/platform.h"
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>

namespace qscli {

namespace {

QJsonArray namesJson(const std::vector<std::string>& names)
{
    QJsonArray a;
    for (const std::string& n : names)
        a.append(QString::fromStdString(n));
    return a;
}

std::string dimsText(const std::vector<uint64_t>& s)
{
    std::string t;
    for (size_t i = 0; i < s.size(); ++i)
        t += (i ? "x" : "") + std::to_string(s[i]);
    return t;
}

QJsonObject weightJson(const qs::WeightDiff& d)
{
    return QJsonObject{
        {QStringLiteral("name_a"), QString::fromStdString(d.nameA)},
        {QStringLiteral("name_b"), QString::fromStdString(d.nameB)},
        {QStringLiteral("format_a"), QString::fromStdString(d.formatA)},
        {QStringLiteral("format_b"), QString::fromStdString(d.formatB)},
        {QStringLiteral("shape"), shapeJson(d.shape)},
        {QStringLiteral("count"), qint64(d.count)},
        {QStringLiteral("differing"), qint64(d.differing)},
        {QStringLiteral("non_finite"), qint64(d.nonFinite)},
        {QStringLiteral("max_abs"), d.maxAbs},
        {QStringLiteral("max_at"), QJsonArray{qint64(d.maxRowA), qint64(d.maxCol)}},
        {QStringLiteral("max_at_b"), QJsonArray{qint64(d.maxRowB), qint64(d.maxCol)}},
        {QStringLiteral("rmse"), d.rmse},
        {QStringLiteral("mean_abs"), d.meanAbs},
        {QStringLiteral("mean_signed"), d.meanSigned},
        {QStringLiteral("sqnr_db"), finiteOrNull(d.sqnrDb)},
        {QStringLiteral("relative_error"), finiteOrNull(d.relativeError)},
        {QStringLiteral("cosine"), d.cosine},
        {QStringLiteral("max_abs_b"), d.maxAbsB},
        {QStringLiteral("tolerance"), d.tolerance},
        {QStringLiteral("pass"), d.pass},
        {QStringLiteral("note"), QString::fromStdString(d.note)},
    };
}

} // namespace

int runDiff(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Compare two checkpoints weight by weight through their dequantized float32 matrices. Weights are matched by "
        "name, also between Hugging Face and GGUF names (llama-family archs; llama.cpp's q/k row permutation and "
        "Gemma's norm +1 are undone). B is the reference for SQNR and relative error. A weight fails when max |a - b| "
        "exceeds its tolerance or a difference is NaN/Inf; exit 1 when any weight fails or two matched weights have "
        "different shapes. Without --tolerance a quantized weight against a float one may differ by one code step "
        "(2 max|b| / (2^bits - 1)), two quantized or two float weights not at all. Weights on one side only are "
        "listed."));
    parser.addPositionalArgument(
        QStringLiteral("A"), QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"));
    parser.addPositionalArgument(QStringLiteral("B"), QStringLiteral("checkpoint file or folder (the reference)"));
    const QCommandLineOption weightOpt(QStringLiteral("weight"),
                                       QStringLiteral("only this weight (either side's name)"), QStringLiteral("NAME"));
    const QCommandLineOption tolOpt(
        QStringLiteral("tolerance"),
        QStringLiteral("largest allowed max |a - b| per weight (default: automatic, one code step between a quantized "
                       "and a float weight, else 0)"),
        QStringLiteral("T"));
    const QCommandLineOption jsonOpt(QStringLiteral("json"), QStringLiteral("machine-readable output"));
    parser.addOptions({weightOpt, tolOpt, jsonOpt});
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    bool tolOk = !parser.isSet(tolOpt);
    const double tolerance = tolOk ? 0.0 : parser.value(tolOpt).toDouble(&tolOk);
    if (pos.size() != 2 || !tolOk || !(tolerance >= 0) || !std::isfinite(tolerance)) {
        return usageError(args);
    }
    const auto a = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(0)));
    const auto b = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(1)));
    qscli::stateRemoteFetch(*a);
    qscli::stateRemoteFetch(*b);

    qs::DiffOptions opt;
    opt.weight = parser.value(weightOpt).toStdString();
    if (parser.isSet(tolOpt))
        opt.tolerance = tolerance;
    opt.path = qs::bestSimdPath();
    const bool progress = qs::platform::stderrIsTerminal();
    int shown = -1;
    if (progress)
        opt.progress.report = [&shown](uint64_t done, uint64_t total, const std::string& w) {
            const int pct = total ? int(done * 100 / total) : 100;
            if (pct == shown)
                return;
            shown = pct;
            std::fprintf(stderr, "\r[%3d%%] %s\033[K", pct, w.c_str());
        };
    const qs::DiffResult r = qs::diffCheckpoints(*a, *b, opt);
    if (progress)
        std::fprintf(stderr, "\r\033[K");
    const bool passed = r.passed();

    if (parser.isSet(jsonOpt)) {
        QJsonArray weights, mismatches, skipped;
        for (const qs::WeightDiff& d : r.weights)
            weights.append(weightJson(d));
        for (const qs::ShapeMismatch& m : r.shapeMismatches)
            mismatches.append(QJsonObject{{QStringLiteral("name_a"), QString::fromStdString(m.nameA)},
                                          {QStringLiteral("name_b"), QString::fromStdString(m.nameB)},
                                          {QStringLiteral("shape_a"), shapeJson(m.shapeA)},
                                          {QStringLiteral("shape_b"), shapeJson(m.shapeB)}});
        for (const qs::SkippedPair& s : r.skipped)
            skipped.append(QJsonObject{{QStringLiteral("name_a"), QString::fromStdString(s.nameA)},
                                       {QStringLiteral("name_b"), QString::fromStdString(s.nameB)},
                                       {QStringLiteral("reason"), QString::fromStdString(s.reason)}});
        std::printf(
            "%s",
            QJsonDocument(QJsonObject{{QStringLiteral("a"), QString::fromStdString(a->path)},
                                      {QStringLiteral("b"), QString::fromStdString(b->path)},
                                      {QStringLiteral("tolerance"),
                                       opt.tolerance ? QJsonValue(tolerance) : QJsonValue(QStringLiteral("auto"))},
                                      {QStringLiteral("passed"), passed},
                                      {QStringLiteral("weights"), weights},
                                      {QStringLiteral("only_in_a"), namesJson(r.onlyInA)},
                                      {QStringLiteral("only_in_b"), namesJson(r.onlyInB)},
                                      {QStringLiteral("shape_mismatches"), mismatches},
                                      {QStringLiteral("skipped"), skipped},
                                      {QStringLiteral("warnings"), namesJson(r.warnings)}})
                .toJson()
                .constData());
        return passed ? 0 : 1;
    }

    std::printf("A: %s\nB: %s (reference)\n", a->path.c_str(), b->path.c_str());
    size_t failed = 0;
    for (const qs::WeightDiff& d : r.weights) {
        failed += !d.pass;
        const std::string name = d.nameA == d.nameB ? d.nameA : d.nameA + " <-> " + d.nameB;
        // Each side's own row when they differ (a GGUF q/k weight llama.cpp permuted).
        const std::string at = "(" + std::to_string(d.maxRowA) + ", " + std::to_string(d.maxCol) + ")"
            + (d.maxRowA == d.maxRowB
                   ? std::string()
                   : " in A, (" + std::to_string(d.maxRowB) + ", " + std::to_string(d.maxCol) + ") in B");
        std::printf("%-4s %s [%s] %s vs %s: max|a-b| %.6g (tolerance %.6g) at %s, rmse %.6g, rel %.4g, cos %.8f, "
                    "sqnr %.2f dB, %llu of %llu differ%s%s%s\n",
                    d.pass ? "ok" : "FAIL", name.c_str(), dimsText(d.shape).c_str(), d.formatA.c_str(),
                    d.formatB.c_str(), d.maxAbs, d.tolerance, at.c_str(), d.rmse, d.relativeError, d.cosine, d.sqnrDb,
                    static_cast<unsigned long long>(d.differing), static_cast<unsigned long long>(d.count),
                    d.nonFinite ? (", " + std::to_string(d.nonFinite) + " NaN/Inf").c_str() : "",
                    d.note.empty() ? "" : "; ", d.note.c_str());
    }
    for (const qs::ShapeMismatch& m : r.shapeMismatches)
        std::printf("SHAPE %s [%s] vs %s [%s]\n", m.nameA.c_str(), dimsText(m.shapeA).c_str(), m.nameB.c_str(),
                    dimsText(m.shapeB).c_str());
    for (const qs::SkippedPair& s : r.skipped)
        std::printf("skipped %s: %s\n", s.nameA.c_str(), s.reason.c_str());
    for (const std::string& w : r.warnings)
        std::printf("warning: %s\n", w.c_str());
    for (const std::string& n : r.onlyInA)
        std::printf("only in A: %s\n", n.c_str());
    for (const std::string& n : r.onlyInB)
        std::printf("only in B: %s\n", n.c_str());
    const std::string within = opt.tolerance ? "within tolerance " + QString::number(tolerance).toStdString()
                                             : std::string("within their automatic tolerance");
    std::printf("%zu of %s %s (max |a - b|), %s, %zu only in A, %zu only in B, %zu skipped\n",
                r.weights.size() - failed, qs::counted(r.weights.size(), "weight", "weights").c_str(), within.c_str(),
                qs::counted(r.shapeMismatches.size(), "shape mismatch", "shape mismatches").c_str(), r.onlyInA.size(),
                r.onlyInB.size(), r.skipped.size());
    return passed ? 0 : 1;
}

} // namespace qscli
