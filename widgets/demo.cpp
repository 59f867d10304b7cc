#include "demo.h"

#include "base/atomicfile.h"
#include "base/error.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QFile>
#include <QStandardPaths>

namespace qsw {

namespace {

const QString kDemoRoot = QStringLiteral(":/demo");

} // namespace

QString extractDemoCheckpoint()
{
    QDirIterator it(kDemoRoot, QDir::Files, QDirIterator::Subdirectories);
    QStringList files;
    while (it.hasNext())
        files << it.next();
    if (files.isEmpty())
        qs::fail("demo checkpoint", "this build carries no embedded demo checkpoint");

    QString base = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    if (base.isEmpty())
        base = QDir::tempPath() + QStringLiteral("/quantscope");
    const QString dir = base + QStringLiteral("/demo-") + QCoreApplication::applicationVersion();
    for (const QString& src : files) {
        const QString rel = src.mid(kDemoRoot.size() + 1);
        const QString dst = dir + QLatin1Char('/') + rel;
        QFile in(src);
        if (!in.open(QIODevice::ReadOnly))
            qs::fail(src.toStdString(), "cannot read the embedded file");
        const QByteArray bytes = in.readAll();
        {
            QFile existing(dst);
            if (existing.open(QIODevice::ReadOnly) && existing.size() == bytes.size() && existing.readAll() == bytes)
                continue;
        }
        if (!QDir().mkpath(QFileInfo(dst).absolutePath()))
            qs::fail(dst.toStdString(), "cannot create the folder for the demo checkpoint");
        qs::writeFileAtomically(dst.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
    }
    return dir;
}

} // namespace qsw
