#include "testsupport.h"

#include <QDir>
#include <QProcess>
#include <QtGlobal>

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

} // namespace qstest
