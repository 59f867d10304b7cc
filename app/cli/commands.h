#pragma once
// Each subcommand of quantscope-cli: parses its own arguments (args[0] is the command
// name) and returns the process exit code: 0 ok, 1 failed check, 2 bad input or usage.
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonValue>
#include <QStringList>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qscli {

int runInspect(const QStringList& args);
int runDequant(const QStringList& args);
int runCodes(const QStringList& args);
int runBudget(const QStringList& args);
int runStats(const QStringList& args);
int runVerify(const QStringList& args);
int runDiff(const QStringList& args);
int runQuantize(const QStringList& args);
int runRepack(const QStringList& args);
int runReport(const QStringList& args);
// The help of --force, shared by the commands that write a folder.
QString forceHelp();
// "note: left alone in OUT ..." on stderr when a forced write kept files it did not write.
void printLeftAlone(const std::string& out, const std::vector<std::string>& names);
// A tensor shape as a JSON array of integers.
QJsonArray shapeJson(const std::vector<uint64_t>& shape);
// A JSON number, or null for NaN and the infinities (JSON has no spelling for them).
inline QJsonValue finiteOrNull(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}
// The application object of `report` (fonts for figures and PDF; offscreen unless set).
std::unique_ptr<QCoreApplication> makeGuiApplication(int& argc, char** argv);

} // namespace qscli
