// quantscope-cli report --format ID [--bits B] [--group-size G] [--k K --n N] -o OUT
// quantscope-cli report PATH [--weight NAME] [--ref REF] -o OUT
// A layout specification written by the tool: .html (self-contained), .md (PNG figures
// beside it) or .pdf, by the extension of OUT. Exit 1 when a seed probe fails or a weight is
// refused (the report lists it with the reason and covers the others).
#include "commands.h"
#include "base/counttext.h"

#include "base/error.h"
#include "base/localpath.h"
#include "base/platform.h"
#include "container/checkpoint.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"
#include "formats/opencheckpoint.h"
#include "report/report.h"
#include "report/reportwriter.h"

#include <QCommandLineParser>
#include <QApplication>

#include <cstdio>
#include <cstdlib>

namespace qscli {

std::unique_ptr<QCoreApplication> makeGuiApplication(int& argc, char** argv)
{
    // Figures and PDF text need fonts, and the data figures are QCustomPlot widgets, hence a
    // QApplication; headless by default.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return std::make_unique<QApplication>(argc, argv);
}

namespace {

bool anyProbeFailed(const qs::report::Document& doc)
{
    for (const auto& s : doc.sections)
        for (const auto& b : s.blocks)
            if (b.verdictColumn >= 0)
                for (const auto& row : b.table.rows)
                    if (size_t(b.verdictColumn) < row.size() && row[size_t(b.verdictColumn)] == "fail")
                        return true;
    return false;
}

} // namespace

int runReport(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Write a layout specification for a format, or a report for a checkpoint. OUT ends in .html "
                       "(self-contained), .md (PNG figures beside it) or .pdf."));
    parser.addPositionalArgument(
        QStringLiteral("PATH"),
        QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"),
        QStringLiteral("[PATH]"));
    // The ids a layout specification models (the formats detection only names have none).
    const QCommandLineOption formatOpt(QStringLiteral("format"),
                                       QString::fromStdString("format id: " +
                                                              [] {
                                                                  std::string s;
                                                                  for (const qs::LayoutSpec& spec :
                                                                       qs::layoutRegistry().all())
                                                                      if (spec.locate)
                                                                          s += (s.empty() ? "" : ", ") + spec.id;
                                                                  return s;
                                                              }()),
                                       QStringLiteral("ID"));
    const QCommandLineOption bitsOpt(QStringLiteral("bits"), QStringLiteral("code width"), QStringLiteral("B"));
    const QCommandLineOption groupOpt(QStringLiteral("group-size"), QStringLiteral("group size (0 = per channel)"),
                                      QStringLiteral("G"));
    const QCommandLineOption kOpt(QStringLiteral("k"), QStringLiteral("in_features (default 4096)"),
                                  QStringLiteral("K"));
    const QCommandLineOption nOpt(QStringLiteral("n"), QStringLiteral("out_features (default 4096)"),
                                  QStringLiteral("N"));
    const QCommandLineOption weightOpt(QStringLiteral("weight"), QStringLiteral("only this weight"),
                                       QStringLiteral("NAME"));
    const QCommandLineOption refOpt(QStringLiteral("ref"),
                                    QStringLiteral("float reference checkpoint for error statistics"),
                                    QStringLiteral("REF"));
    const QCommandLineOption outOpt({QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("output file (.html, .md, .pdf)"), QStringLiteral("OUT"));
    parser.addOptions({formatOpt, bitsOpt, groupOpt, kOpt, nOpt, weightOpt, refOpt, outOpt});
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    const bool byFormat = parser.isSet(formatOpt);
    if (!parser.isSet(outOpt) || byFormat == (pos.size() == 1) || pos.size() > 1
        || (byFormat && (parser.isSet(weightOpt) || parser.isSet(refOpt)))
        || (!byFormat
            && (parser.isSet(bitsOpt) || parser.isSet(groupOpt) || parser.isSet(kOpt) || parser.isSet(nOpt)))) {
        return usageError(args);
    }
    const QString out = parser.value(outOpt);
    if (!qsw::reportFormatFor(out)) {
        std::fprintf(stderr, "quantscope-cli report: %s: use .html, .md or .pdf\n", qPrintable(out));
        return 2;
    }
    auto number = [&](const QCommandLineOption& o, uint64_t fallback, uint64_t max) {
        if (!parser.isSet(o))
            return fallback;
        bool ok = false;
        const qulonglong v = parser.value(o).toULongLong(&ok);
        if (!ok || v > max)
            throw qs::Error("--" + o.names().front().toStdString() + ": not a number up to " + std::to_string(max)
                            + ": " + parser.value(o).toStdString());
        return uint64_t(v);
    };

    const bool progress = qs::platform::stderrIsTerminal();
    qs::Progress control;
    if (progress)
        control.report = [](uint64_t done, uint64_t total, const std::string&) {
            std::fprintf(stderr, "\rreport: %3d%%", int(100 * done / total));
        };
    qs::report::Document doc;
    if (byFormat) {
        const qs::FormatInfo& info = qs::parseFormatId(parser.value(formatOpt).toStdString());
        const qs::LayoutSpec* spec = qs::findLayoutSpec(info.id);
        if (!spec)
            throw qs::Error("--format: " + info.id + " has no layout specification");
        qs::LayoutParams p = qs::report::defaultParams(*spec);
        p.bits = int(number(bitsOpt, uint64_t(p.bits), 64));
        p.groupSize = number(groupOpt, p.groupSize, uint64_t(1) << 31);
        p.K = number(kOpt, p.K, uint64_t(1) << 31);
        p.N = number(nOpt, p.N, uint64_t(1) << 31);
        doc = qs::report::formatReport(*spec, p, control);
    } else {
        const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.front()));
        qscli::stateRemoteFetch(*ckpt);
        qs::report::CheckpointOptions o;
        o.weight = parser.value(weightOpt).toStdString();
        if (parser.isSet(refOpt)) {
            o.refPath = qs::encodeLocalBytes(parser.value(refOpt));
            o.ref = qs::openCheckpoint(o.refPath);
        }
        doc = qs::report::checkpointReport(*ckpt, o, control);
    }
    qsw::writeReport(doc, out, control);
    if (progress)
        std::fprintf(stderr, "\r");
    std::printf("wrote %s (%s, %s)\n", qPrintable(out), qs::counted(doc.sections.size(), "section", "sections").c_str(),
                qs::counted(doc.figures.size(), "figure", "figures").c_str());
    for (const qs::report::RefusedWeight& r : doc.refused)
        std::fprintf(stderr, "quantscope-cli report: %s refused: %s\n", r.weight.c_str(), r.why.c_str());
    const bool probeFailed = anyProbeFailed(doc);
    if (probeFailed)
        std::fprintf(stderr, "quantscope-cli report: a seed probe failed (see the report)\n");
    return probeFailed || !doc.refused.empty() ? 1 : 0;
}

} // namespace qscli
