// quantscope-cli quantize PATH WEIGHT|--all --format ID [--bits B] [--group-size G] [--sym|--asym]
// [--clip R] [--double-quant] -o OUT [--force]: float weights to a real checkpoint of the target
// format. OUT must lie outside PATH.
#include "commands.h"
#include "base/counttext.h"

#include "analysis/quantize_checkpoint.h"
#include "base/localpath.h"
#include "base/platform.h"
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>

#include <cstdio>

namespace qscli {

int runQuantize(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Quantize F32/F16/BF16 weights into a checkpoint other tools load: a folder (model.safetensors, config.json "
        "with the quantization config, quantize_config.json for GPTQ) or a .gguf file. Other tensors are copied."));
    parser.addPositionalArgument(
        QStringLiteral("PATH"),
        QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"));
    parser.addPositionalArgument(QStringLiteral("WEIGHT"), QStringLiteral("weights to quantize (or --all)"),
                                 QStringLiteral("[WEIGHT...]"));
    const QCommandLineOption allOpt(
        QStringLiteral("all"), QStringLiteral("every float weight matrix (safetensors: not embeddings or lm_head)"));
    const QCommandLineOption formatOpt(QStringLiteral("format"),
                                       QString::fromStdString("target: " +
                                                              [] {
                                                                  std::string s;
                                                                  for (const std::string& t : qs::quantizeTargets())
                                                                      s += (s.empty() ? "" : ", ") + t;
                                                                  return s;
                                                              }()),
                                       QStringLiteral("ID"));
    const QCommandLineOption bitsOpt(QStringLiteral("bits"), QStringLiteral("code width (affine targets, default 4)"),
                                     QStringLiteral("B"));
    const QCommandLineOption groupOpt(QStringLiteral("group-size"),
                                      QStringLiteral("weights per scale along K; -1 per channel (bnb: block size)"),
                                      QStringLiteral("G"));
    const QCommandLineOption symOpt(QStringLiteral("sym"), QStringLiteral("symmetric (no zero point)"));
    const QCommandLineOption asymOpt(QStringLiteral("asym"), QStringLiteral("asymmetric (zero point)"));
    const QCommandLineOption clipOpt(QStringLiteral("clip"), QStringLiteral("clipping ratio in (0, 1]"),
                                     QStringLiteral("R"));
    const QCommandLineOption dqOpt(QStringLiteral("double-quant"), QStringLiteral("bitsandbytes nested absmax"));
    const QCommandLineOption outOpt({QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("output folder (safetensors) or .gguf file"), QStringLiteral("OUT"));
    const QCommandLineOption forceOpt(QStringLiteral("force"), forceHelp());
    parser.addOptions({allOpt, formatOpt, bitsOpt, groupOpt, symOpt, asymOpt, clipOpt, dqOpt, outOpt, forceOpt});
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    const bool all = parser.isSet(allOpt);
    if (pos.isEmpty() || !parser.isSet(formatOpt) || !parser.isSet(outOpt) || (pos.size() == 1) == !all
        || (parser.isSet(symOpt) && parser.isSet(asymOpt))) {
        return usageError(args);
    }
    qs::QuantizeCheckpointOptions opt;
    opt.format = parser.value(formatOpt).toStdString();
    // 0 is the options' "the target's default" inside: typed, it is out of range like any other.
    bool ok = true;
    if (parser.isSet(bitsOpt)) {
        opt.bits = parser.value(bitsOpt).toInt(&ok);
        if (!ok || opt.bits < 1) {
            std::fprintf(stderr, "quantscope-cli quantize: --bits %s: a code width is a whole number from 1 up\n",
                         qPrintable(parser.value(bitsOpt)));
            return 2;
        }
    }
    if (parser.isSet(groupOpt)) {
        opt.groupSize = parser.value(groupOpt).toLongLong(&ok);
        if (!ok || (opt.groupSize < 1 && opt.groupSize != -1)) {
            std::fprintf(stderr,
                         "quantscope-cli quantize: --group-size %s: a group size is a whole number from 1 up, "
                         "or -1 (per channel)\n",
                         qPrintable(parser.value(groupOpt)));
            return 2;
        }
    }
    if (parser.isSet(clipOpt)) {
        opt.clipRatio = parser.value(clipOpt).toFloat(&ok);
        if (!ok || !(opt.clipRatio > 0 && opt.clipRatio <= 1)) {
            std::fprintf(stderr, "quantscope-cli quantize: --clip %s: the clipping ratio is in (0, 1]\n",
                         qPrintable(parser.value(clipOpt)));
            return 2;
        }
    }
    opt.symmetric = parser.isSet(symOpt) ? 1 : parser.isSet(asymOpt) ? 0 : -1;
    opt.doubleQuant = parser.isSet(dqOpt);
    opt.force = parser.isSet(forceOpt);
    for (qsizetype i = 1; i < pos.size(); ++i)
        opt.weights.push_back(pos.at(i).toStdString());
    if (qs::platform::stderrIsTerminal())
        opt.progress.report = [](size_t done, size_t total, const std::string& name) {
            std::fprintf(stderr, "\r[%zu/%zu] %s\033[K", done, total, name.c_str());
            if (done == total)
                std::fprintf(stderr, "\n");
        };
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(0)));
    const qs::QuantizeCheckpointResult r =
        qs::quantizeCheckpoint(*ckpt, qs::encodeLocalBytes(parser.value(outOpt)), opt);
    for (const std::string& n : r.notes)
        std::fprintf(stderr, "note: %s\n", n.c_str());
    printLeftAlone(r.output, r.leftAlone);
    std::printf("%s: %s quantized to %s, %s copied\n", r.output.c_str(),
                qs::counted(r.quantized.size(), "weight", "weights").c_str(),
                qs::parseQuantizeTarget(opt.format).id.c_str(),
                qs::counted(r.copied.size(), "tensor", "tensors").c_str());
    return 0;
}

} // namespace qscli
