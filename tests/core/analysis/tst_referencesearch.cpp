// The float reference beside a quantized checkpoint (analysis/referencesearch.h): the fixture's
// ref.safetensors is found, for the model file and for its folder, and pairs every quantized weight; a folder without
// one finds nothing; the checkpoint's own files, other files and what does not open are no reference; a cancelled
// search opens nothing; maxLooked bounds the candidates opened.
#include "analysis/referencesearch.h"
#include "container/checkpoint.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace qs;

namespace {

QString model(const QString& dir)
{
    return qstest::fixture(QStringLiteral("safetensors/%1/model.safetensors").arg(dir));
}

size_t quantizedWeights(const Checkpoint& ckpt)
{
    size_t n = 0;
    for (const LogicalWeight& w : ckpt.weights)
        if (const FormatInfo* f = findFormat(w.format); f && f->quantized)
            ++n;
    return n;
}

// The fixture's model (and its configs) alone in a temporary folder.
bool copyModel(const QTemporaryDir& tmp, const QString& dir)
{
    bool ok = QFile::copy(model(dir), tmp.filePath(QStringLiteral("model.safetensors")));
    for (const char* name : {"config.json", "quantize_config.json"})
        QFile::copy(qstest::fixture(QStringLiteral("safetensors/%1/%2").arg(dir, QLatin1String(name))),
                    tmp.filePath(QLatin1String(name)));
    return ok;
}

} // namespace

class TestReferenceSearch : public QObject {
    Q_OBJECT
private slots:
    void findsTheFloatCheckpointBeside()
    {
        const auto ckpt = openCheckpoint(model(QStringLiteral("gptq-w4-g32-asym")).toStdString());
        const ReferenceSearch r = findFloatReferenceBeside(*ckpt);
        QCOMPARE(QFileInfo(QString::fromStdString(r.path)).fileName(), QStringLiteral("ref.safetensors"));
        QCOMPARE(r.pairs, quantizedWeights(*ckpt));
        QVERIFY(r.pairs > 0);
        const auto ref = openCheckpoint(r.path);
        QCOMPARE(floatReferencePairs(*ckpt, *ref), r.pairs);
        QCOMPARE(floatReferencePairs(*ref, *ckpt), size_t(0)); // the float side has no quantized weights
    }

    // Opened as a folder, the reference is one of the folder's own files, left out of the
    // checkpoint (the GUI offered it for model.safetensors, not for its folder).
    void findsTheFloatCheckpointInsideItsFolder()
    {
        const QString folder = QFileInfo(model(QStringLiteral("gptq-w4-g32-asym"))).absolutePath();
        const auto ckpt = openCheckpoint(folder.toStdString());
        const ReferenceSearch r = findFloatReferenceBeside(*ckpt);
        QCOMPARE(QFileInfo(QString::fromStdString(r.path)).fileName(), QStringLiteral("ref.safetensors"));
        QCOMPARE(QFileInfo(QString::fromStdString(r.path)).absolutePath(), folder);
        QCOMPARE(r.pairs, quantizedWeights(*ckpt));
    }

    void findsNothingAlone()
    {
        QTemporaryDir tmp;
        QVERIFY(copyModel(tmp, QStringLiteral("gptq-w4-g32-asym")));
        // Neither other files nor a broken checkpoint count.
        QFile junk(tmp.filePath(QStringLiteral("broken.safetensors")));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not a checkpoint");
        junk.close();
        const auto ckpt = openCheckpoint(tmp.filePath(QStringLiteral("model.safetensors")).toStdString());
        const ReferenceSearch r = findFloatReferenceBeside(*ckpt);
        QVERIFY(r.path.empty());
        QCOMPARE(r.pairs, size_t(0));
        QCOMPARE(r.looked, size_t(1)); // broken.safetensors; its own model file is not a candidate
    }

    void cancelledAndBounded()
    {
        const auto ckpt = openCheckpoint(model(QStringLiteral("gptq-w4-g32-asym")).toStdString());
        const std::atomic<bool> cancelled{true};
        const ReferenceSearch r = findFloatReferenceBeside(*ckpt, &cancelled);
        QVERIFY(r.path.empty());
        QCOMPARE(r.looked, size_t(0));
        QCOMPARE(findFloatReferenceBeside(*ckpt, nullptr, 0).looked, size_t(0));
    }
};

QTEST_MAIN(TestReferenceSearch)
#include "tst_referencesearch.moc"
