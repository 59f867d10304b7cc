// Cancelling the open of a local checkpoint (issue 30): the GGUF and safetensors readers poll the
// thread's cancel flag (base/cancel.h, set by the GUI's JobRunner) between records, and detection
// between tensors, so Cancel stops a listing of many tensors instead of running it to its end
// (before, only a remote fetch stopped). Files generated as tst_resource_bounds generates them;
// a flag set before the read shows the poll without timing anything.
#include "base/cancel.h"
#include "base/progress.h"
#include "container/checkpoint.h"
#include "testsupport.h"
#include "container/safetensors.h"
#include "formats/detect.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr int kTensors = 20000;

// A GGUF v3 file of `n` F32 tensors of one element each, 32-byte aligned.
QByteArray manyTensorGguf(int n)
{
    qstest::Bytes g;
    g.gguf(uint64_t(n), 1);
    g.str("general.architecture").put<uint32_t>(8).str("llama");
    for (int i = 0; i < n; ++i)
        g.str("blk." + QByteArray::number(i) + ".w")
            .put<uint32_t>(1)
            .put<uint64_t>(1)
            .put<uint32_t>(0)
            .put<uint64_t>(uint64_t(i) * 32);
    g.b.append(QByteArray((32 - g.b.size() % 32) % 32, '\0'));
    g.b.append(QByteArray(qsizetype(n) * 32, '\0'));
    return g.b;
}

bool cancelledWhile(const std::function<void()>& f)
{
    const std::atomic<bool> cancel{true};
    const qs::CancelScope scope(&cancel);
    try {
        f();
    } catch (const qs::Cancelled&) {
        return true;
    }
    return false;
}

} // namespace

class TestCancelOpen : public QObject {
    Q_OBJECT
private slots:
    void gguf()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString path = tmp.filePath(QStringLiteral("many.gguf"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(manyTensorGguf(kTensors));
        f.close();
        // Uncancelled, it opens: what the cancel stops is a real listing.
        const auto ckpt = qs::Checkpoint::read(path.toStdString());
        QCOMPARE(ckpt->tensors.size(), size_t(kTensors));
        QVERIFY(cancelledWhile([&] { qs::Checkpoint::read(path.toStdString()); }));
        QVERIFY(cancelledWhile([&] { qs::detectWeights(*ckpt); }));
    }

    void safetensors()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = tmp.filePath(QStringLiteral("many.safetensors")).toStdString();
        const std::vector<uint8_t> zero(4, 0);
        std::vector<qs::SafetensorsTensor> tensors;
        for (int i = 0; i < kTensors; ++i)
            tensors.push_back({"model.layers." + std::to_string(i) + ".w.weight", qs::DType::F32, {1}, zero});
        qs::writeSafetensors(path, tensors);
        const auto ckpt = qs::Checkpoint::read(path);
        QCOMPARE(ckpt->tensors.size(), size_t(kTensors));
        QVERIFY(cancelledWhile([&] { qs::Checkpoint::read(path); }));
        // Named .gguf, the read is retried as safetensors to explain the magic: still a cancel.
        const std::string misnamed = path + ".gguf";
        QVERIFY(QFile::copy(QString::fromStdString(path), QString::fromStdString(misnamed)));
        QVERIFY(cancelledWhile([&] { qs::Checkpoint::read(misnamed); }));
        QVERIFY(cancelledWhile([&] { qs::detectWeights(*ckpt); }));
    }
};

QTEST_GUILESS_MAIN(TestCancelOpen)
#include "tst_cancel_open.moc"
