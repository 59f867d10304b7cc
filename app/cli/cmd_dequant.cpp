// quantscope-cli dequant PATH WEIGHT -o OUT.npy [--dtype f32|f16] [--threads N]; OUT must lie outside PATH.
#include "commands.h"

#include "base/error.h"
#include "base/localpath.h"
#include "base/outputpath.h"
#include "container/checkpoint.h"
#include "container/npy.h"
#include "formats/dequant.h"
#include "formats/detect.h"
#include "formats/opencheckpoint.h"
#include "base/halfrow.h"

#include <QCommandLineParser>

#include <cstdio>
#include <memory>

namespace qscli {

namespace {

constexpr int kMaxThreads = 1024;

// Shared by dequant and codes: the weight by logical or member name, or a usage error.
const qs::LogicalWeight* findWeightOrExplain(const qs::Checkpoint& ckpt, const QString& name)
{
    const qs::LogicalWeight* w = ckpt.findWeight(name.toStdString());
    if (!w)
        std::fprintf(stderr, "quantscope-cli: %s: no weight or member tensor named '%s'\n", ckpt.path.c_str(),
                     qPrintable(name));
    return w;
}

// --dtype takes the output dtype's name in lower case ("f32", "f16").
QString dtypeOption(qs::DType t)
{
    return QString::fromLatin1(qs::dtypeName(t).data(), qsizetype(qs::dtypeName(t).size())).toLower();
}

} // namespace

int runDequant(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Dequantize one weight to a float .npy file, C order [out, in]."));
    parser.addPositionalArgument(
        QStringLiteral("PATH"),
        QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"));
    parser.addPositionalArgument(QStringLiteral("WEIGHT"),
                                 QStringLiteral("logical weight name or any member tensor name"));
    const QCommandLineOption outOpt({QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("output .npy file"),
                                    QStringLiteral("OUT"));
    const QCommandLineOption dtypeOpt(QStringLiteral("dtype"), QStringLiteral("f32 (default) or f16 (RNE)"),
                                      QStringLiteral("DTYPE"), dtypeOption(qs::DType::F32));
    const QCommandLineOption threadsOpt(QStringLiteral("threads"), QStringLiteral("worker threads (default: all)"),
                                        QStringLiteral("N"), QStringLiteral("0"));
    parser.addOption(outOpt);
    parser.addOption(dtypeOpt);
    parser.addOption(threadsOpt);
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    // The output element type, spelled as the dtype's name in lower case.
    const qs::DType dtype = parser.value(dtypeOpt) == dtypeOption(qs::DType::F16) ? qs::DType::F16 : qs::DType::F32;
    bool threadsOk = false;
    const int threads = parser.value(threadsOpt).toInt(&threadsOk);
    const QString dtypeText = parser.value(dtypeOpt);
    if (pos.size() != 2 || !parser.isSet(outOpt)
        || (dtypeText != dtypeOption(qs::DType::F32) && dtypeText != dtypeOption(qs::DType::F16))) {
        return usageError(args);
    }
    // OpenMP starts the team it is asked for: 100000 threads crashed it.
    if (!threadsOk || threads < 0 || threads > kMaxThreads) {
        std::fprintf(stderr, "quantscope-cli dequant: --threads %s: a whole number 0 (all cores) .. %d\n",
                     qPrintable(parser.value(threadsOpt)), kMaxThreads);
        return 2;
    }
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(0)));
    const std::string out = qs::encodeLocalBytes(parser.value(outOpt));
    qs::checkOutputPath(out, ckpt->sources(), qs::OutputKind::File);
    const qs::LogicalWeight* w = findWeightOrExplain(*ckpt, pos.at(1));
    if (!w)
        return 2;
    if (const qs::Message* refused = qs::refusedShape(*w)) {
        std::fprintf(stderr, "quantscope-cli dequant: %s: weight '%s': %s\n", ckpt->path.c_str(), w->name.c_str(),
                     refused->text().c_str());
        return 2;
    }
    if (!qs::canDequantize(w->format)) {
        std::fprintf(stderr, "quantscope-cli dequant: %s: weight '%s' has format '%s', which has no dequantizer\n",
                     ckpt->path.c_str(), w->name.c_str(), w->format.c_str());
        return 2;
    }
    // Buffers the kernels overwrite whole, not zeroed first: a single-threaded memset of a
    // 4096 x 11008 weight's floats took a quarter of the command, and the threads' own stores
    // then touch the pages.
    const uint64_t n = w->elementCount();
    const auto values = std::make_unique_for_overwrite<float[]>(n);
    qs::dequantizeWeight(*ckpt, *w, values.get(), qs::bestSimdPath(), threads);
    // A vector stays a vector (its shape as inspect shows it); matrices and stacks of them are [out, in].
    const std::vector<uint64_t> shape = w->shape.size() == 1 ? w->shape : qs::Shape{w->outFeatures(), w->inFeatures()};
    if (dtype == qs::DType::F16) {
        const auto half = std::make_unique_for_overwrite<uint16_t[]>(n);
        qs::floatToHalfRow(values.get(), half.get(), n, qs::bestSimdPath());
        qs::npy::write(out, "<f2", shape, {reinterpret_cast<const uint8_t*>(half.get()), n * 2});
    } else {
        qs::npy::write(out, "<f4", shape, {reinterpret_cast<const uint8_t*>(values.get()), n * 4});
    }
    return 0;
}

} // namespace qscli
