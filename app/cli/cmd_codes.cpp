// quantscope-cli codes PATH WEIGHT -o DIR [--force]: the logical integer codes and the
// per-group parameters as the reader uses them, for debugging a converter. DIR must lie
// outside PATH.
#include "commands.h"

#include "base/error.h"
#include "base/localpath.h"
#include "base/outputpath.h"
#include "container/checkpoint.h"
#include "container/npy.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>

#include <cstdio>

namespace qscli {

int runCodes(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Write a weight's logical codes (uint8 [out, in]), scales, zeros and g_idx as .npy files."));
    parser.addPositionalArgument(
        QStringLiteral("PATH"),
        QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"));
    parser.addPositionalArgument(QStringLiteral("WEIGHT"),
                                 QStringLiteral("logical weight name or any member tensor name"));
    const QCommandLineOption outOpt({QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("output folder"),
                                    QStringLiteral("DIR"));
    const QCommandLineOption forceOpt(QStringLiteral("force"), forceHelp());
    parser.addOptions({outOpt, forceOpt});
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 2 || !parser.isSet(outOpt)) {
        return usageError(args);
    }
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(0)));
    const std::string dir = qs::encodeLocalBytes(parser.value(outOpt));
    qs::checkOutputPath(dir, ckpt->sources(), qs::OutputKind::Folder);
    const qs::LogicalWeight* w = ckpt->findWeight(pos.at(1).toStdString());
    if (!w) {
        std::fprintf(stderr, "quantscope-cli codes: %s: no weight or member tensor named '%s'\n", ckpt->path.c_str(),
                     qPrintable(pos.at(1)));
        return 2;
    }
    const qs::WeightCodes c = qs::extractCodes(*ckpt, *w);
    printLeftAlone(dir, qs::writeIntoFolder(dir, parser.isSet(forceOpt), [&] {
                       qs::npy::write(dir + "/codes.npy", "|u1", {c.rows, c.cols}, c.codes);
                       qs::npy::write(dir + "/scales.npy", "<f4", {c.groups, c.rows}, c.scales);
                       if (!c.zeros.empty())
                           qs::npy::write(dir + "/zeros.npy", "<i4", {c.groups, c.rows}, c.zeros);
                       if (!c.biases.empty())
                           qs::npy::write(dir + "/biases.npy", "<f4", {c.groups, c.rows}, c.biases);
                       qs::npy::write(dir + "/g_idx.npy", "<i4", {c.cols}, c.gIdx);
                   }));
    return 0;
}

} // namespace qscli
