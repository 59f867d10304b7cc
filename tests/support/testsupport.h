#pragma once
// Shared test helpers: where the fixtures are, temporary folders, running the CLI.
#include <QString>
#include <QStringList>

#include <string>

namespace qstest {

// ../shared (override with QS_SHARED_DIR); tests only read from it.
QString sharedDir();
QString fixture(const QString& relative); // sharedDir()/fixtures/<relative>

struct CliResult {
    int exitCode = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
};
// Runs quantscope-cli with `args`, at most `timeoutMs`.
CliResult runCli(const QStringList& args, int timeoutMs = 60000);

} // namespace qstest
