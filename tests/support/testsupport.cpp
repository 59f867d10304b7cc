#include "testsupport.h"

#include <QDir>
#include <QProcess>
#include <QtGlobal>

#include <sys/resource.h>

#include <cstring>
#include <fstream>

namespace qstest {

QString sharedDir()
{
    const QByteArray env = qgetenv("QS_SHARED_DIR");
    return QDir::cleanPath(env.isEmpty() ? QStringLiteral(QS_DEFAULT_SHARED_DIR) : QString::fromLocal8Bit(env));
}

QString fixture(const QString& relative)
{
    return sharedDir() + QStringLiteral("/fixtures/") + relative;
}

CliResult runCli(const QStringList& args, int timeoutMs)
{
    QProcess p;
    p.start(QStringLiteral(QS_CLI_PATH), args);
    CliResult r;
    if (!p.waitForStarted())
        return r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.crashed = true;
    }
    r.crashed = r.crashed || p.exitStatus() == QProcess::CrashExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

long statusKiB(const char* field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const size_t n = std::strlen(field);
    while (std::getline(in, line))
        if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
            return std::stol(line.substr(n + 1));
    return -1;
}

void resetPeakRss()
{
    std::ofstream("/proc/self/clear_refs") << "5";
}

long childrenPeakRssKiB()
{
    rusage ru{};
    return getrusage(RUSAGE_CHILDREN, &ru) == 0 ? ru.ru_maxrss : -1;
}

} // namespace qstest
