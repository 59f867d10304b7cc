// The same bits on every machine: every decodable weight of the fixtures (fixtures/gguf,
// fixtures/safetensors, and the files of fixtures/real that open) dequantized on the best path this
// CPU has, hashed (SHA-256 of the float32 bytes), against tests/data/fixture-digests.tsv, which the
// scalar path wrote on x86-64. The suite runs natively, under qemu on x86-64 CPUs without AVX-512
// or AVX, and on arm64 under qemu-aarch64 (.ci/run): a kernel or a compiler that gives other bits
// anywhere fails here, naming the weight.
//
// NaNs are hashed as one pattern: a NaN an operation makes (0 * inf) is negative on x86 and
// positive on arm64, both IEEE 754; NaNs read from the file keep their sign and payload through
// every path, which the kernel suites check bit for bit on each machine.
//
// After a deliberate change in what a fixture decodes to, write the file anew:
//   QS_WRITE_DIGESTS=tests/data/fixture-digests.tsv build/tests/tst_fixture_digests
#include "base/error.h"
#include "base/simd.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"
#include "testsupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>

#include <bit>
#include <cmath>
#include <map>

using namespace qs;

namespace {

const QString kDigestFile = QStringLiteral(QT_TESTCASE_SOURCEDIR "/data/fixture-digests.tsv");

// What the suite dequantizes, relative to the fixtures folder: the GGUF files, the safetensors
// folders and files, and every file of the real corpus (those that are refused are skipped).
QStringList checkpoints()
{
    const QString root = qstest::fixture(QString());
    QStringList list;
    for (const QString& sub : {QStringLiteral("gguf"), QStringLiteral("safetensors"), QStringLiteral("real")}) {
        QDirIterator it(root + sub, {QStringLiteral("*.gguf"), QStringLiteral("*.safetensors")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            // A safetensors folder is one checkpoint (its ref.safetensors is the upstream output).
            if (sub == QLatin1String("safetensors") && QFileInfo(path).dir() != QDir(root + sub)) {
                const QString folder = QDir(root).relativeFilePath(QFileInfo(path).path());
                if (!list.contains(folder))
                    list << folder;
                continue;
            }
            list << QDir(root).relativeFilePath(path);
        }
    }
    list.sort();
    return list;
}

QByteArray digest(std::vector<float> values)
{
    for (float& v : values)
        if (std::isnan(v))
            v = std::bit_cast<float>(0x7FC00000u);
    return QCryptographicHash::hash(
               QByteArrayView(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * 4)),
               QCryptographicHash::Sha256)
        .toHex();
}

// "checkpoint \t weight \t format" -> digest
using Digests = std::map<QString, QByteArray>;

Digests compute(SimdPath path, QStringList* refused)
{
    Digests d;
    for (const QString& rel : checkpoints()) {
        std::shared_ptr<const Checkpoint> ck;
        try {
            ck = openCheckpoint(qstest::fixture(rel).toStdString());
        } catch (const Error&) {
            *refused << rel;
            continue;
        }
        for (const LogicalWeight& w : ck->weights)
            if (canDequantize(w.format))
                d[rel + QLatin1Char('\t') + QString::fromStdString(w.name) + QLatin1Char('\t')
                  + QString::fromStdString(w.format)] = digest(dequantizeWeight(*ck, w, path, 1));
    }
    return d;
}

} // namespace

class TestFixtureDigests : public QObject {
    Q_OBJECT
private slots:
    void sameBitsAsRecorded()
    {
        qInfo("SIMD path: %s", simdSummary().c_str());
        QStringList refused;
        const Digests got = compute(bestSimdPath(), &refused);
        QVERIFY(got.size() > 100);
        const QByteArray write = qgetenv("QS_WRITE_DIGESTS");
        if (!write.isEmpty()) {
            // Written from the scalar reference, whatever the CPU.
            const Digests ref = compute(SimdPath::Scalar, &refused);
            QFile f(QString::fromLocal8Bit(write));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            for (const auto& [key, value] : ref)
                f.write(key.toUtf8() + '\t' + value + '\n');
            qInfo("wrote %zu digests to %s", ref.size(), write.constData());
        }
        QFile f(kDigestFile);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(kDigestFile));
        Digests want;
        for (const QByteArray& line : f.readAll().split('\n')) {
            const qsizetype tab = line.lastIndexOf('\t');
            if (tab > 0)
                want[QString::fromUtf8(line.left(tab))] = line.mid(tab + 1);
        }
        QStringList wrong;
        for (const auto& [key, value] : got) {
            const auto it = want.find(key);
            if (it == want.end())
                wrong << key + QStringLiteral(": not recorded (a new fixture or format? see this file's header)");
            else if (it->second != value)
                wrong << key + QStringLiteral(": other bits than recorded on the scalar path");
        }
        for (const auto& [key, value] : want)
            if (!got.count(key))
                wrong << key + QStringLiteral(": recorded, no longer decoded");
        QVERIFY2(wrong.isEmpty(),
                 qPrintable(QString::number(wrong.size()) + QStringLiteral(" weights:\n")
                            + wrong.mid(0, 30).join(QLatin1Char('\n'))));
        qInfo("%zu weights of %lld checkpoints have the recorded bits (%lld files refused, as tst_real_corpus expects)",
              got.size(), checkpoints().size(), refused.size());
    }
};

QTEST_GUILESS_MAIN(TestFixtureDigests)
#include "tst_fixture_digests.moc"
