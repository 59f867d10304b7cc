// quantscope-cli repack SRC --to ID -o DST [--force] [--no-verify] [--json]: convert every
// quantized weight through its logical codes (streamed to DST one weight at a time), then
// dequantize source and target and compare. DST must lie outside SRC.
#include "commands.h"
#include "base/counttext.h"

#include "analysis/repack.h"
#include "base/localpath.h"
#include "base/outputpath.h"
#include "base/platform.h"
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace qscli {

int runRepack(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Repack a quantized checkpoint into another layout through the logical codes, scales and zeros (never by "
        "reinterpreting words). Act-order weights going to a layout without g_idx get their input channels sorted into "
        "contiguous groups and a <module>.input_perm tensor. Then both are dequantized and compared."));
    parser.addPositionalArgument(
        QStringLiteral("SRC"),
        QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"));
    QString targets;
    for (const std::string& t : qs::repackTargets())
        targets += (targets.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(t);
    const QCommandLineOption toOpt(QStringLiteral("to"), QStringLiteral("target: ") + targets, QStringLiteral("ID"));
    const QCommandLineOption outOpt({QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("output folder (safetensors) or .gguf file"), QStringLiteral("DST"));
    const QCommandLineOption forceOpt(QStringLiteral("force"), forceHelp());
    const QCommandLineOption noVerifyOpt(QStringLiteral("no-verify"),
                                         QStringLiteral("skip the dequantize-and-compare step"));
    const QCommandLineOption jsonOpt(QStringLiteral("json"), QStringLiteral("machine-readable output"));
    parser.addOptions({toOpt, outOpt, forceOpt, noVerifyOpt, jsonOpt});
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 1 || !parser.isSet(toOpt) || !parser.isSet(outOpt)) {
        return usageError(args);
    }
    qs::RepackOptions opt;
    opt.to = parser.value(toOpt).toStdString();
    opt.verify = !parser.isSet(noVerifyOpt);
    opt.force = parser.isSet(forceOpt);
    if (qs::platform::stderrIsTerminal())
        opt.progress.report = [](size_t done, size_t total, const std::string& name) {
            std::fprintf(stderr, "\r[%zu/%zu] %s\033[K", done, total, name.c_str());
            if (done == total)
                std::fprintf(stderr, "\n");
        };
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(0)));
    const qs::RepackResult r = qs::repackCheckpoint(*ckpt, qs::encodeLocalBytes(parser.value(outOpt)), opt);
    const std::string to = qs::parseRepackTarget(opt.to).id;
    printLeftAlone(r.output, r.leftAlone);
    if (parser.isSet(jsonOpt)) {
        QJsonArray ws;
        for (const qs::RepackWeight& w : r.weights) {
            QJsonObject o{{QStringLiteral("name"), QString::fromStdString(w.name)},
                          {QStringLiteral("from"), QString::fromStdString(w.from)},
                          {QStringLiteral("permuted"), w.permuted},
                          {QStringLiteral("verified"), w.verified}};
            if (w.verified) {
                o.insert(QStringLiteral("exact"), w.exact);
                o.insert(QStringLiteral("mismatches"), qint64(w.mismatches));
                o.insert(QStringLiteral("max_abs_error"), w.maxAbsError);
                o.insert(QStringLiteral("rmse"), w.rmse);
            }
            if (!w.note.empty())
                o.insert(QStringLiteral("note"), QString::fromStdString(w.note));
            ws.append(o);
        }
        std::printf("%s",
                    QJsonDocument(QJsonObject{{QStringLiteral("output"), QString::fromStdString(r.output)},
                                              {QStringLiteral("to"), QString::fromStdString(to)},
                                              {QStringLiteral("weights"), ws},
                                              {QStringLiteral("copied"), qint64(r.copied.size())}})
                        .toJson()
                        .constData());
        return 0;
    }
    for (const qs::RepackWeight& w : r.weights) {
        std::printf("%s: %s -> %s%s", w.name.c_str(), w.from.c_str(), to.c_str(),
                    w.permuted ? " (input channels permuted)" : "");
        if (!w.verified)
            std::printf("\n");
        else if (w.exact)
            std::printf(": bit-identical\n");
        else
            std::printf(": %llu elements differ, max |error| %.6g, RMSE %.6g\n",
                        static_cast<unsigned long long>(w.mismatches), w.maxAbsError, w.rmse);
        if (!w.note.empty())
            std::printf("  note: %s\n", w.note.c_str());
    }
    std::printf("%s: %s repacked, %s copied\n", r.output.c_str(),
                qs::counted(r.weights.size(), "weight", "weights").c_str(),
                qs::counted(r.copied.size(), "tensor", "tensors").c_str());
    return 0;
}

} // namespace qscli
