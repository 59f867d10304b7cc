// quantscope-cli verify PATH [--json]: structural checks of every quantized weight; exit 1
// when a finding is an error (warnings are printed and do not fail).
#include "commands.h"
#include "base/counttext.h"

#include "analysis/verify.h"
#include "base/localpath.h"
#include "container/checkpoint.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <utility>

namespace qscli {

int runVerify(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Check every quantized weight: repacking the decoded fields reproduces the stored words, shapes and g_idx "
        "agree "
        "with the layout, zero points fit the declared convention, the config describes the tensors, recorded input "
        "permutations are present; and scan every weight, float ones included, for NaN and Inf values, scales, zeros "
        "and "
        "absmax, all-zero weights, rows, groups and blocks, and zero scales, naming the first few places. Exit 1 when "
        "a "
        "finding is an error; warnings (upstream quirks such as the GPTQ v1 zero-0 spill, zero rows) do not fail."));
    parser.addPositionalArgument(
        QStringLiteral("PATH"),
        QStringLiteral("checkpoint file or folder, an http(s) URL or hf://ORG/REPO[@REV][/FILE]"));
    const QCommandLineOption jsonOpt(QStringLiteral("json"), QStringLiteral("machine-readable output"));
    parser.addOption(jsonOpt);
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 1) {
        return usageError(args);
    }
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.at(0)));
    qscli::stateRemoteFetch(*ckpt);
    const qs::VerifyReport r = qs::verifyCheckpoint(*ckpt);
    if (parser.isSet(jsonOpt)) {
        QJsonArray findings, checked, unchecked;
        // A place's coordinates that apply; row, col, group and block of the first place on the
        // finding itself, all of them under "places".
        const auto placeFields = [](QJsonObject& o, const qs::FindingPlace& p) {
            for (const auto& [key, value] :
                 {std::pair{"row", p.row}, {"col", p.col}, {"group", p.group}, {"block", p.block}})
                if (value >= 0)
                    o.insert(QLatin1String(key), qint64(value));
        };
        for (const qs::VerifyFinding& f : r.findings) {
            QJsonObject o{
                {QStringLiteral("weight"), QString::fromStdString(f.weight)},
                {QStringLiteral("kind"), QString::fromStdString(f.check)},
                {QStringLiteral("check"), QString::fromStdString(f.check)},
                {QStringLiteral("message"), QString::fromStdString(f.message.text())},
                {QStringLiteral("severity"), f.warning ? QStringLiteral("warning") : QStringLiteral("error")}};
            if (f.count)
                o.insert(QStringLiteral("count"), qint64(f.count));
            if (!f.places.empty()) {
                placeFields(o, f.places.front());
                QJsonArray places;
                for (const qs::FindingPlace& p : f.places) {
                    QJsonObject at;
                    placeFields(at, p);
                    places.append(at);
                }
                o.insert(QStringLiteral("places"), places);
            }
            findings.append(o);
        }
        for (const std::string& s : r.checked)
            checked.append(QString::fromStdString(s));
        for (const std::string& s : r.unchecked)
            unchecked.append(QString::fromStdString(s));
        std::printf("%s",
                    QJsonDocument(QJsonObject{{QStringLiteral("findings"), findings},
                                              {QStringLiteral("checked"), checked},
                                              {QStringLiteral("unchecked"), unchecked}})
                        .toJson()
                        .constData());
    } else {
        for (const qs::VerifyFinding& f : r.findings)
            std::printf("%s: %s%s: %s\n", f.weight.c_str(), f.warning ? "warning: " : "", f.check.c_str(),
                        f.message.text().c_str());
        for (const std::string& s : r.unchecked)
            std::printf("not checked: %s\n", s.c_str());
        std::printf("%s checked, %s, %s\n", qs::counted(r.checked.size(), "weight", "weights").c_str(),
                    qs::counted(r.errors(), "error", "errors").c_str(),
                    qs::counted(r.findings.size() - r.errors(), "warning", "warnings").c_str());
    }
    return r.errors() == 0 ? 0 : 1;
}

} // namespace qscli
