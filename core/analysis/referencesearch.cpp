#include "analysis/referencesearch.h"

#include "analysis/namemap.h"
#include "container/checkpoint.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>

namespace qs {

size_t floatReferencePairs(const Checkpoint& ckpt, const Checkpoint& other)
{
    size_t n = 0;
    for (const WeightPair& p : matchWeights(ckpt, other).pairs) {
        const FormatInfo* a = findFormat(p.a->format);
        const FormatInfo* b = findFormat(p.b->format);
        n += a && a->quantized && b && b->storage == StorageKind::Float;
    }
    return n;
}

ReferenceSearch findFloatReferenceBeside(const Checkpoint& ckpt, const std::atomic<bool>* cancel, size_t maxLooked)
{
    const QFileInfo self(QString::fromStdString(ckpt.path));
    QSet<QString> own{self.canonicalFilePath()};
    for (const std::string& f : ckpt.sources())
        own.insert(QFileInfo(QString::fromStdString(f)).canonicalFilePath());
    // A folder's own files first (its ref.safetensors, left out of the checkpoint), then what
    // sits beside the folder or file.
    QFileInfoList candidates;
    if (self.isDir())
        candidates = QDir(self.absoluteFilePath()).entryInfoList(QDir::Files, QDir::Name);
    const QDir beside = self.isDir() ? QDir(self.absoluteFilePath() + QStringLiteral("/..")) : self.absoluteDir();
    candidates += beside.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    ReferenceSearch best;
    for (const QFileInfo& e : candidates) {
        if ((cancel && cancel->load()) || best.looked >= maxLooked)
            break;
        const QString suffix = e.suffix().toLower();
        if (own.contains(e.canonicalFilePath())
            || (e.isFile() && suffix != QLatin1String("gguf") && suffix != QLatin1String("safetensors")))
            continue;
        ++best.looked;
        try {
            const auto other = openCheckpoint(e.absoluteFilePath().toStdString());
            if (const size_t n = floatReferencePairs(ckpt, *other); n > best.pairs) {
                best.pairs = n;
                best.path = e.absoluteFilePath().toStdString();
            }
        } catch (const std::exception&) {
            // Not a checkpoint, or one that does not open: not a reference.
        }
    }
    return best;
}

} // namespace qs
