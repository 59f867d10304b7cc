// verify: the upstream fixtures verify clean except the v1 zero-0 spill that upstream really
// wrote (gptq-w2-g32-asym and gptq-w3-g32-asym down_proj), and checkpoints broken on purpose
// by this test (bytes patched in a copy) are caught by the right check.
#include "analysis/verify.h"
#include "container/checkpoint.h"

#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <functional>

using namespace qs;

namespace {

QString variantDir(const QString& v)
{
    return qstest::fixture(QStringLiteral("safetensors/") + v);
}

bool hasCheck(const VerifyReport& r, const std::string& weight, const std::string& check)
{
    for (const VerifyFinding& f : r.findings)
        if (f.check == check && f.weight == weight)
            return true;
    return false;
}

// Copies the variant's model.safetensors and configs into `dir`, then lets `patch` change
// the bytes of tensor `tensor` in the copy.
QString brokenCopy(const QTemporaryDir& dir, const QString& variant, const std::string& tensor,
                   const std::function<void(std::vector<uint8_t>&)>& patch)
{
    const QDir src(variantDir(variant));
    for (const QString& f : src.entryList({QStringLiteral("*.json"), QStringLiteral("model.safetensors")}, QDir::Files))
        QFile::copy(src.filePath(f), dir.filePath(f));
    const QString path = dir.filePath(QStringLiteral("model.safetensors"));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    uint64_t offset = 0, nbytes = 0;
    {
        const auto c = Checkpoint::open(path.toStdString());
        const TensorEntry* t = c->find(tensor);
        if (!t)
            return {};
        offset = t->offset;
        nbytes = t->nbytes;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite) || !f.seek(qint64(offset)))
        return {};
    const QByteArray old = f.read(qint64(nbytes));
    std::vector<uint8_t> bytes(old.begin(), old.end());
    patch(bytes);
    f.seek(qint64(offset));
    f.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size()));
    return dir.path();
}

} // namespace

class TestVerify : public QObject {
    Q_OBJECT
private slots:
    void fixtures_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("spills"); // weights with the v1 zero-0 spill
        const QDir root(qstest::fixture(QStringLiteral("safetensors")));
        for (const QString& d : root.entryList({QStringLiteral("gptq-*"), QStringLiteral("awq-gemm-*")}, QDir::Dirs, QDir::Name))
            QTest::addRow("%s", qPrintable(d)) << d << ((d == QLatin1String("gptq-w2-g32-asym") || d == QLatin1String("gptq-w3-g32-asym")) ? 1 : 0);
    }
    void fixtures()
    {
        QFETCH(QString, variant);
        QFETCH(int, spills);
        const auto c = Checkpoint::open((variantDir(variant) + QStringLiteral("/model.safetensors")).toStdString());
        const VerifyReport r = verifyCheckpoint(*c);
        QCOMPARE(r.checked.size(), size_t(variant.contains(QLatin1String("g32")) ? 2 : 1));
        QVERIFY(r.unchecked.empty());
        for (const VerifyFinding& f : r.findings)
            qInfo("%s %s: %s", f.weight.c_str(), f.check.c_str(), f.message.c_str());
        QCOMPARE(r.findings.size(), size_t(spills));
        if (spills)
            QVERIFY(hasCheck(r, "model.layers.0.mlp.down_proj", "v1-zero-spill"));
    }

    void broken_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("what");
        QTest::addColumn<QString>("check");
        QTest::addRow("zero off by one") << "gptq-w4-g128-sym" << "model.layers.0.mlp.down_proj.qzeros" << 0 << "zero-convention";
        QTest::addRow("sign-extended top slot") << "gptq-w4-g128-sym" << "model.layers.0.mlp.down_proj.qzeros" << 1 << "v1-zero-spill";
        QTest::addRow("g_idx out of range") << "gptq-w4-g32-sym-actorder" << "model.layers.0.mlp.down_proj.g_idx" << 3 << "shape";
        QTest::addRow("g_idx overfull group") << "gptq-w4-g32-sym-actorder" << "model.layers.0.mlp.down_proj.g_idx" << 4 << "g_idx";
        QTest::addRow("NaN scale") << "awq-gemm-w4-g32" << "model.layers.0.mlp.down_proj.scales" << 5 << "scale";
    }
    void broken()
    {
        QFETCH(QString, variant);
        QFETCH(QString, tensor);
        QFETCH(int, what);
        QFETCH(QString, check);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dir = brokenCopy(tmp, variant, tensor.toStdString(), [what](std::vector<uint8_t>& b) {
            uint32_t w;
            switch (what) {
            case 0: // every v1 field 7 becomes 8: a v2 checkpoint declared v1
                for (uint8_t& x : b)
                    x = uint8_t(((x & 0x0F) == 7 ? 8 : (x & 0x0F)) | (((x >> 4) == 7 ? 8 : (x >> 4)) << 4));
                break;
            case 1: // z = 0 stored as -1 sign-extended over the top of the first word
                w = 0xFFFF7777u;
                std::memcpy(b.data(), &w, 4);
                break;
            case 3: // g_idx[0] = 1000
                w = 1000;
                std::memcpy(b.data(), &w, 4);
                break;
            case 4: { // g_idx[0] := g_idx of a channel in another group: that group gets 33 channels
                int32_t g0, gOther = -1;
                std::memcpy(&g0, b.data(), 4);
                for (size_t k = 1; k * 4 < b.size() && gOther < 0; ++k) {
                    int32_t g;
                    std::memcpy(&g, b.data() + 4 * k, 4);
                    if (g != g0)
                        gOther = g;
                }
                std::memcpy(b.data(), &gOther, 4);
                break;
            }
            case 5: { // scales[0] = NaN (f16)
                const uint16_t h = 0x7E00;
                std::memcpy(b.data(), &h, 2);
                break;
            }
            }
        });
        QVERIFY(!dir.isEmpty());
        const auto c = Checkpoint::open((dir + QStringLiteral("/model.safetensors")).toStdString());
        const VerifyReport r = verifyCheckpoint(*c);
        for (const VerifyFinding& f : r.findings)
            qInfo("%s %s: %s", f.weight.c_str(), f.check.c_str(), f.message.c_str());
        const std::string weight = tensor.section(QLatin1Char('.'), 0, -2).toStdString();
        QVERIFY2(hasCheck(r, weight, check.toStdString()), qPrintable(check));
    }
};

QTEST_GUILESS_MAIN(TestVerify)
#include "tst_verify.moc"
