// The embedded demo checkpoint: it extracts, opens, and every quantized weight decodes
// through the project's dequantizer to weights of the size it was made from (std 0.02
// with outliers); act-order groups hold exactly group-size channels each.
#include "container/checkpoint.h"
#include "demo.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"

#include <QStandardPaths>
#include <QtTest>

#include <cmath>
#include <map>

class TestDemo : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void extractsOnceAndOpens();
    void quantizedWeightsDecode();

private:
    std::shared_ptr<const qs::Checkpoint> m_ckpt;
};

void TestDemo::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setApplicationVersion(QStringLiteral("test"));
}

void TestDemo::extractsOnceAndOpens()
{
    const QString dir = qsw::extractDemoCheckpoint();
    QVERIFY(QFileInfo(dir + QStringLiteral("/model.safetensors")).isFile());
    QVERIFY(QFileInfo(dir + QStringLiteral("/config.json")).isFile());
    const auto stamp = QFileInfo(dir + QStringLiteral("/model.safetensors")).lastModified();
    // A second extraction finds identical files and leaves them alone.
    QCOMPARE(qsw::extractDemoCheckpoint(), dir);
    QCOMPARE(QFileInfo(dir + QStringLiteral("/model.safetensors")).lastModified(), stamp);
    m_ckpt = qs::openCheckpoint(dir.toStdString());
    QCOMPARE(m_ckpt->weights.size(), size_t(38));
}

void TestDemo::quantizedWeightsDecode()
{
    QVERIFY(m_ckpt);
    int quantized = 0;
    for (const auto& w : m_ckpt->weights) {
        if (w.format != "gptq-v1" && w.format != "awq-gemm")
            continue;
        ++quantized;
        const std::vector<float> v = qs::dequantizeWeight(*m_ckpt, w, qs::SimdPath::Scalar, 1);
        QCOMPARE(v.size(), size_t(w.elementCount()));
        double sum2 = 0, maxAbs = 0;
        for (float x : v) {
            QVERIFY(std::isfinite(x));
            sum2 += double(x) * x;
            maxAbs = std::max(maxAbs, double(std::fabs(x)));
        }
        const double rms = std::sqrt(sum2 / double(v.size()));
        QVERIFY2(rms > 0.015 && rms < 0.035,
                 qPrintable(QStringLiteral("%1: rms %2").arg(QString::fromStdString(w.name)).arg(rms)));
        QVERIFY2(maxAbs > 0.1 && maxAbs < 1.0,
                 qPrintable(QStringLiteral("%1: max %2").arg(QString::fromStdString(w.name)).arg(maxAbs)));

        const qs::WeightCodes codes = qs::extractCodes(*m_ckpt, w);
        if (w.actOrder) {
            std::map<int32_t, int> members;
            for (int32_t g : codes.gIdx)
                ++members[g];
            QCOMPARE(uint64_t(members.size()), codes.groups);
            for (const auto& [g, count] : members)
                QCOMPARE(int64_t(count), w.groupSize);
        }
    }
    QCOMPARE(quantized, 21);
}

QTEST_MAIN(TestDemo)
#include "tst_demo.moc"
