// verify: the upstream fixtures verify clean except the v1 zero-0 spill that upstream really
// wrote (gptq-w2-g32-asym and gptq-w3-g32-asym down_proj), and checkpoints broken on purpose
// by this test (bytes patched in a copy) are caught by the right check.
#include "analysis/quantize_checkpoint.h"
#include "analysis/repack.h"
#include "analysis/diff.h"
#include "analysis/healthscan.h"
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "formats/detect.h"
#include "base/bitstream.h"
#include "base/half.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

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

// Copies `file` and the configs of `srcDir` into `dir`, then lets `patch` change the bytes of
// tensor `tensor` in the copy. Returns the copied file's path.
QString patchedCopy(const QTemporaryDir& dir, const QString& srcDir, const QString& file, const std::string& tensor,
                    const std::function<void(std::vector<uint8_t>&)>& patch)
{
    const QDir src(srcDir);
    for (const QString& f : src.entryList({QStringLiteral("*.json"), file}, QDir::Files))
        QFile::copy(src.filePath(f), dir.filePath(f));
    const QString path = dir.filePath(file);
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    uint64_t offset = 0, nbytes = 0;
    {
        const auto c = openCheckpoint(path.toStdString());
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
    return path;
}

QString brokenCopy(const QTemporaryDir& dir, const QString& variant, const std::string& tensor,
                   const std::function<void(std::vector<uint8_t>&)>& patch)
{
    const QString p = patchedCopy(dir, variantDir(variant), QStringLiteral("model.safetensors"), tensor, patch);
    return p.isEmpty() ? p : dir.path();
}

// Rewrites the checkpoint in `srcDir` into `dstDir` (configs copied) after `edit` changes its tensors.
struct OwnedTensor {
    std::string name;
    DType dtype;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> bytes;
};
void rewrite(const QString& srcDir, const QString& dstDir,
             const std::function<void(const Checkpoint&, std::vector<OwnedTensor>&)>& edit)
{
    const auto c = openCheckpoint(srcDir.toStdString());
    std::vector<OwnedTensor> ts;
    for (const TensorEntry& t : c->tensors) {
        const auto b = c->bytes(t);
        ts.push_back({std::string(t.name), t.dtype, t.shape, {b.begin(), b.end()}});
    }
    edit(*c, ts);
    QDir().mkpath(dstDir);
    std::vector<SafetensorsTensor> out;
    for (const OwnedTensor& t : ts)
        out.push_back({t.name, t.dtype, t.shape, t.bytes});
    writeSafetensors((dstDir + QStringLiteral("/model.safetensors")).toStdString(), out);
    const QDir src(srcDir);
    for (const QString& f : src.entryList({QStringLiteral("*.json")}, QDir::Files))
        QFile::copy(src.filePath(f), dstDir + QLatin1Char('/') + f);
}

// A float source (the fixtures' stories260K wq as q_proj, F32) quantized to `format`.
QString quantized(const QTemporaryDir& dir, const char* format, int bits, int group)
{
    const auto s = openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
    const TensorEntry* wq = s->find("stories260K.layers.0.wq");
    const QString src = dir.filePath(QStringLiteral("float"));
    QDir().mkpath(src);
    writeSafetensors((src + QStringLiteral("/model.safetensors")).toStdString(),
                     {{"model.layers.0.self_attn.q_proj.weight", DType::F32, wq->shape, s->bytes(*wq)}});
    QuantizeCheckpointOptions o;
    o.format = format;
    o.bits = bits;
    o.groupSize = group;
    const QString out = dir.filePath(QStringLiteral("q"));
    quantizeCheckpoint(*openCheckpoint(src.toStdString()), out.toStdString(), o);
    return out;
}

void setNanF32(std::vector<uint8_t>& b)
{
    const uint32_t nan = 0x7FC00000u;
    std::memcpy(b.data(), &nan, 4);
}

// Sets elements of a float tensor (F32, F16 or BF16, as the copy of `file` in `srcDir` stores
// it) in a copy: (index, value) pairs.
QString valuesPatched(const QTemporaryDir& dir, const QString& srcDir, const QString& file, const std::string& tensor,
                      const std::vector<std::pair<uint64_t, float>>& values)
{
    DType type;
    {
        const auto c = openCheckpoint(QDir(srcDir).filePath(file).toStdString());
        const TensorEntry* t = c->find(tensor);
        if (!t)
            return {};
        type = t->dtype;
    }
    return patchedCopy(dir, srcDir, file, tensor, [&](std::vector<uint8_t>& b) {
        for (const auto& [i, v] : values) {
            if (type == DType::F32) {
                std::memcpy(b.data() + 4 * i, &v, 4);
            } else {
                const uint16_t h = type == DType::BF16 ? floatToBf16(v) : floatToHalf(v);
                std::memcpy(b.data() + 2 * i, &h, 2);
            }
        }
    });
}

const VerifyFinding* findingOf(const VerifyReport& r, const std::string& weight, const std::string& kind)
{
    for (const VerifyFinding& f : r.findings)
        if (f.check == kind && f.weight == weight)
            return &f;
    return nullptr;
}

// Rewrites quantization_config.<key> in config.json and quantize_config.json (where present) of `dir`.
void setConfig(const QString& dir, const QString& key, const QJsonValue& value)
{
    for (const QString& name : {QStringLiteral("config.json"), QStringLiteral("quantize_config.json")}) {
        QFile f(QDir(dir).filePath(name));
        if (!f.exists())
            continue;
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        if (name == QLatin1String("config.json")) {
            QJsonObject q = o.value(QStringLiteral("quantization_config")).toObject();
            q.insert(key, value);
            o.insert(QStringLiteral("quantization_config"), q);
        } else {
            o.insert(key, value);
        }
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(o).toJson());
    }
}

} // namespace

class TestVerify : public QObject {
    Q_OBJECT
private slots:
    void fixtures_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("spills"); // weights with the v1 zero-0 spill (a warning)
        const QDir root(qstest::fixture(QStringLiteral("safetensors")));
        for (const QString& d : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            QTest::addRow("%s", qPrintable(d))
                << root.filePath(d) + QStringLiteral("/model.safetensors")
                << ((d == QLatin1String("gptq-w2-g32-asym") || d == QLatin1String("gptq-w3-g32-asym")) ? 1 : 0);
        QTest::addRow("ggml-types.gguf") << qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")) << 0;
    }
    void fixtures()
    {
        QFETCH(QString, path);
        QFETCH(int, spills);
        const auto c = openCheckpoint(path.toStdString());
        const VerifyReport r = verifyCheckpoint(*c);
        QVERIFY(!r.checked.empty());
        QVERIFY(r.unchecked.empty());
        for (const VerifyFinding& f : r.findings)
            qInfo("%s %s%s: %s", f.weight.c_str(), f.check.c_str(), f.warning ? " (warning)" : "",
                  f.message.text().c_str());
        QCOMPARE(r.errors(), size_t(0));
        size_t spillWarnings = 0;
        for (const VerifyFinding& f : r.findings)
            spillWarnings += f.check == "v1-zero-spill" && f.warning && f.weight == "model.layers.0.mlp.down_proj";
        QCOMPARE(spillWarnings, size_t(spills));
    }

    // "0 weights checked, 0 errors" must never pass as an all-clear (issue 14).
    void strayMembersAreFindings()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("bad-qzeros"));
        const std::string qzeros = "model.layers.0.mlp.down_proj.qzeros";
        rewrite(variantDir(QStringLiteral("gptq-w4-g128-sym")), dir,
                [&](const Checkpoint&, std::vector<OwnedTensor>& ts) {
                    for (OwnedTensor& t : ts)
                        if (t.name == qzeros) // the same words as one column: not the [groups, N / 8] GPTQ stores
                            t.shape = {t.shape[0] * t.shape[1], 1};
                });
        const auto c = openCheckpoint(dir.toStdString());
        const VerifyReport r = verifyCheckpoint(*c);
        for (const VerifyFinding& f : r.findings)
            qInfo("%s %s: %s", f.weight.c_str(), f.check.c_str(), f.message.text().c_str());
        QVERIFY(hasCheck(r, qzeros, "stray-member"));
        QVERIFY(hasCheck(r, "model.layers.0.mlp.down_proj.qweight", "stray-member"));
        QVERIFY(r.errors() >= 2);
        for (const VerifyFinding& f : r.findings)
            if (f.check == "stray-member")
                QVERIFY2(f.message.text().find("tensor " + f.weight + ":") == 0, f.message.text().c_str());
    }

    void nothingCheckedIsAFinding()
    {
        const std::string path = qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString();
        const VerifyReport r = verifyCheckpoint(*openCheckpoint(path));
        QVERIFY(r.checked.empty());
        QCOMPARE(r.errors(), size_t(1));
        QVERIFY(hasCheck(r, path, "nothing-checked"));
        QVERIFY2(r.findings.back().message.text().find("holds tensors (3) but no quantized weight")
                     != std::string::npos,
                 r.findings.back().message.text().c_str());
    }

    // A tensor that no detected weight claims is reported, not silently skipped.
    void unmatchedTensorIsAFinding()
    {
        std::shared_ptr<Checkpoint> c = Checkpoint::read(variantDir(QStringLiteral("gptq-w4-g128-sym")).toStdString());
        c->weights = detectWeights(*c);
        QVERIFY(verifyCheckpoint(*c).errors() == 0);
        const LogicalWeight dropped = c->weights.back();
        c->weights.pop_back();
        const VerifyReport r = verifyCheckpoint(*c);
        for (const VerifyFinding& f : r.findings)
            qInfo("%s %s: %s", f.weight.c_str(), f.check.c_str(), f.message.text().c_str());
        // The fixture holds one weight: with it gone, nothing was checked either.
        QCOMPARE(r.errors(), dropped.members.size() + 1);
        QVERIFY(hasCheck(r, c->path, "nothing-checked"));
        for (const auto& [role, index] : dropped.members)
            QVERIFY(hasCheck(r, std::string(c->tensors[index].name), "unmatched"));
    }

    void broken_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("what");
        QTest::addColumn<QString>("check");
        QTest::addRow("zero off by one") << "gptq-w4-g128-sym"
                                         << "model.layers.0.mlp.down_proj.qzeros" << 0 << "zero-convention";
        QTest::addRow("sign-extended top slot") << "gptq-w4-g128-sym"
                                                << "model.layers.0.mlp.down_proj.qzeros" << 1 << "v1-zero-spill";
        QTest::addRow("g_idx out of range") << "gptq-w4-g32-sym-actorder"
                                            << "model.layers.0.mlp.down_proj.g_idx" << 3 << "shape";
        QTest::addRow("g_idx overfull group") << "gptq-w4-g32-sym-actorder"
                                              << "model.layers.0.mlp.down_proj.g_idx" << 4 << "g_idx";
        QTest::addRow("NaN scale") << "awq-gemm-w4-g32"
                                   << "model.layers.0.mlp.down_proj.scales" << 5 << "nonfinite-scale";
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
        const auto c = openCheckpoint((dir + QStringLiteral("/model.safetensors")).toStdString());
        const VerifyReport r = verifyCheckpoint(*c);
        for (const VerifyFinding& f : r.findings)
            qInfo("%s %s: %s", f.weight.c_str(), f.check.c_str(), f.message.text().c_str());
        const std::string weight = tensor.section(QLatin1Char('.'), 0, -2).toStdString();
        QVERIFY2(hasCheck(r, weight, check.toStdString()), qPrintable(check));
    }

    // Seed failures on checkpoints this test writes, each caught by the named check.
    void made_data()
    {
        QTest::addColumn<int>("what");
        QTest::addColumn<QString>("check");
        QTest::addRow("wrong axis: GPTQ qweight packed along N") << 0 << "config";
        QTest::addRow("nonzero padding: CT 3-bit top bits") << 1 << "qweight-roundtrip";
        QTest::addRow("NaN scale: MLX") << 2 << "nonfinite-scale";
        QTest::addRow("NaN scale: GGUF Q4_0 d") << 3 << "nonfinite-scale";
        QTest::addRow("NaN absmax: bnb FP4") << 4 << "nonfinite-absmax";
        QTest::addRow("dropped act-order permutation") << 5 << "input-perm";
        QTest::addRow("bnb NF4 quant_map altered") << 6 << "quant_map";
    }
    void made()
    {
        QFETCH(int, what);
        QFETCH(QString, check);
        QTemporaryDir tmp, tmp2;
        QVERIFY(tmp.isValid() && tmp2.isValid());
        QString path;
        const std::string down = "model.layers.0.mlp.down_proj";
        switch (what) {
        case 0:
            path = tmp.filePath(QStringLiteral("axis"));
            rewrite(variantDir(QStringLiteral("gptq-w4-g128-sym")), path,
                    [&](const Checkpoint& c, std::vector<OwnedTensor>& ts) {
                        const WeightCodes m = readLogicalMatrix(c, *c.findWeight(down));
                        for (OwnedTensor& t : ts)
                            if (t.name == down + ".qweight") {
                                t.bytes.clear();
                                for (uint64_t k = 0; k < m.cols; ++k) {
                                    std::vector<uint8_t> row(m.rows);
                                    for (uint64_t n = 0; n < m.rows; ++n)
                                        row[n] = m.codes[n * m.cols + k];
                                    const auto w = bitstream::packSlots(row, 4, 32);
                                    t.bytes.insert(t.bytes.end(), w.begin(), w.end());
                                }
                                t.shape = {m.cols, m.rows / 8};
                            }
                    });
            break;
        case 1:
            path = patchedCopy(tmp2, quantized(tmp, "compressed-tensors", 3, 32), QStringLiteral("model.safetensors"),
                               "model.layers.0.self_attn.q_proj.weight_packed",
                               [](std::vector<uint8_t>& b) { b[3] |= 0xC0; });
            break;
        case 2:
            path = patchedCopy(tmp2, quantized(tmp, "mlx-affine", 4, 64), QStringLiteral("model.safetensors"),
                               "model.layers.0.self_attn.q_proj.scales", setNanF32);
            break;
        case 3:
            path = patchedCopy(tmp, qstest::fixture(QStringLiteral("gguf")), QStringLiteral("ggml-types.gguf"),
                               "synthetic.q4_0", [](std::vector<uint8_t>& b) {
                                   b[0] = 0x00;
                                   b[1] = 0x7E;
                               });
            break;
        case 4:
            path = patchedCopy(tmp, variantDir(QStringLiteral("bnb-fp4")), QStringLiteral("model.safetensors"),
                               down + ".weight.absmax", setNanF32);
            break;
        case 5: {
            RepackOptions o;
            o.to = "awq-gemm";
            const QString awq = tmp.filePath(QStringLiteral("awq"));
            repackCheckpoint(*openCheckpoint((variantDir(QStringLiteral("gptq-w4-g128-asym-actorder"))).toStdString()),
                             awq.toStdString(), o);
            QCOMPARE(verifyCheckpoint(*openCheckpoint(awq.toStdString())).errors(), size_t(0));
            path = tmp.filePath(QStringLiteral("dropped"));
            rewrite(awq, path, [&](const Checkpoint&, std::vector<OwnedTensor>& ts) {
                std::erase_if(ts, [&](const OwnedTensor& t) { return t.name == down + ".input_perm"; });
            });
            break;
        }
        case 6:
            path = patchedCopy(tmp, variantDir(QStringLiteral("bnb-nf4")), QStringLiteral("model.safetensors"),
                               down + ".weight.quant_map", [](std::vector<uint8_t>& b) { b[12] ^= 1; });
            break;
        }
        QVERIFY(!path.isEmpty());
        const auto c = openCheckpoint(path.toStdString());
        const VerifyReport r = verifyCheckpoint(*c);
        for (const VerifyFinding& f : r.findings)
            qInfo("%s %s%s: %s", f.weight.c_str(), f.check.c_str(), f.warning ? " (warning)" : "",
                  f.message.text().c_str());
        bool found = false;
        for (const VerifyFinding& f : r.findings)
            found |= f.check == check.toStdString() && !f.warning;
        QVERIFY2(found, qPrintable(check));
    }

    // The health scan (analysis/healthscan.h): hand-made broken checkpoints, each caught as its
    // kind with its severity, count and first place (-1: not compared).
    void health_data()
    {
        QTest::addColumn<int>("what");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("warning");
        QTest::addColumn<qint64>("count"); // 0: not counted
        QTest::addColumn<qint64>("row");
        QTest::addColumn<qint64>("col");
        QTest::addColumn<qint64>("group");
        QTest::addColumn<qint64>("block");
        QTest::addRow("NaN and Inf values: float weight")
            << 0 << "nonfinite-value" << false << 2ll << 1ll << 7ll << -1ll << -1ll;
        QTest::addRow("all-zero float matrix") << 1 << "zero-weight" << true << 0ll << -1ll << -1ll << -1ll << -1ll;
        QTest::addRow("all-zero row: float weight") << 2 << "zero-row" << true << 1ll << 5ll << -1ll << -1ll << -1ll;
        QTest::addRow("NaN scale: GPTQ act-order")
            << 3 << "nonfinite-scale" << false << 1ll << 5ll << -1ll << 3ll << -1ll;
        QTest::addRow("zero scale zeroes its group: GPTQ act-order")
            << 4 << "zero-scale" << true << 1ll << 5ll << -1ll << 3ll << -1ll;
        QTest::addRow("NaN zero: MLX bias") << 5 << "nonfinite-zero" << false << 1ll << 2ll << 0ll << 0ll << -1ll;
        QTest::addRow("NaN absmax: bnb FP4") << 6 << "nonfinite-absmax" << false << 1ll << 2ll << 64ll << -1ll << 9ll;
        QTest::addRow("NaN weight_scale: compressed-tensors")
            << 7 << "nonfinite-scale" << false << 1ll << 2ll << 32ll << 1ll << -1ll;
        QTest::addRow("all-zero block: GGUF Q4_0 codes 8")
            << 8 << "zero-block" << true << 1ll << 1ll << 64ll << -1ll << 10ll;
        QTest::addRow("zero scale: GGUF Q4_0 d = 0") << 9 << "zero-scale" << true << 1ll << 1ll << 64ll << -1ll << 10ll;
        QTest::addRow("all-zero row: GGUF Q4_0") << 10 << "zero-row" << true << 2ll << 1ll << -1ll << -1ll << -1ll;
        QTest::addRow("all-zero quantized weight: GGUF Q4_0")
            << 11 << "zero-weight" << false << 0ll << -1ll << -1ll << -1ll << -1ll;
        QTest::addRow("NaN block scale: GGUF Q4_0 d")
            << 12 << "nonfinite-scale" << false << 1ll << 1ll << 64ll << -1ll << 10ll;
        QTest::addRow("NaN values from a NaN d: GGUF Q4_0")
            << 12 << "nonfinite-value" << false << 32ll << 1ll << 64ll << -1ll << -1ll;
        QTest::addRow("config group_size disagrees: GPTQ")
            << 13 << "config-group-size" << false << 0ll << -1ll << -1ll << -1ll << -1ll;
        QTest::addRow("GPTQ v2 zeros labelled gptq")
            << 14 << "zero-convention" << false << 0ll << -1ll << -1ll << -1ll << -1ll;
        QTest::addRow("config sym true on asymmetric zeros: GPTQ")
            << 15 << "config-zero" << false << 0ll << -1ll << -1ll << -1ll << -1ll;
    }
    void health()
    {
        QFETCH(int, what);
        QFETCH(QString, kind);
        QFETCH(bool, warning);
        QFETCH(qint64, count);
        QFETCH(qint64, row);
        QFETCH(qint64, col);
        QFETCH(qint64, group);
        QFETCH(qint64, block);
        QTemporaryDir tmp, tmp2;
        QVERIFY(tmp.isValid() && tmp2.isValid());
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        const std::string down = "model.layers.0.mlp.down_proj", q = "model.layers.0.self_attn.q_proj";
        const QString gguf = qstest::fixture(QStringLiteral("gguf")), ggufFile = QStringLiteral("ggml-types.gguf");
        // GGUF synthetic.q4_0 is [34, 256]: 8 blocks of 18 bytes (f16 d, 16 code bytes) per row.
        const auto q4Blocks = [&](uint64_t first, uint64_t last, const std::function<void(uint8_t*)>& edit) {
            return patchedCopy(tmp, gguf, ggufFile, "synthetic.q4_0", [&](std::vector<uint8_t>& b) {
                for (uint64_t i = first; i < last; ++i)
                    edit(b.data() + 18 * i);
            });
        };
        QString path;
        std::string weight;
        switch (what) {
        case 0:
        case 1:
        case 2: {
            std::vector<float> v(8 * 16);
            for (size_t i = 0; i < v.size(); ++i)
                v[i] = what == 1 ? 0.0f : float(i + 1);
            if (what == 0) {
                v[3 * 16 + 5] = nan;
                v[1 * 16 + 7] = -inf;
            }
            if (what == 2)
                std::fill(v.begin() + 5 * 16, v.begin() + 6 * 16, -0.0f);
            path = tmp.filePath(QStringLiteral("float.safetensors"));
            std::vector<uint8_t> bytes(v.size() * 4);
            std::memcpy(bytes.data(), v.data(), bytes.size());
            writeSafetensors(path.toStdString(), {{"m.weight", DType::F32, {8, 16}, bytes}});
            weight = "m.weight";
            break;
        }
        case 3:
        case 4:
            path = valuesPatched(tmp, variantDir(QStringLiteral("gptq-w4-g32-sym-actorder")),
                                 QStringLiteral("model.safetensors"), down + ".scales",
                                 {{3 * 128 + 5, what == 3 ? nan : 0.0f}});
            weight = down;
            break;
        case 5:
            path = valuesPatched(tmp2, quantized(tmp, "mlx-affine", 4, 64), QStringLiteral("model.safetensors"),
                                 q + ".biases", {{2, nan}});
            weight = q;
            break;
        case 6:
            path = valuesPatched(tmp, variantDir(QStringLiteral("bnb-fp4")), QStringLiteral("model.safetensors"),
                                 down + ".weight.absmax", {{9, nan}});
            weight = down;
            break;
        case 7: // weight_scale [64, 2]: (row 2, group 1) at 2 * 2 + 1
            path = valuesPatched(tmp2, quantized(tmp, "compressed-tensors", 4, 32), QStringLiteral("model.safetensors"),
                                 q + ".weight_scale", {{5, nan}});
            weight = q;
            break;
        case 8: path = q4Blocks(10, 11, [](uint8_t* b) { std::memset(b + 2, 0x88, 16); }); break;
        case 9: path = q4Blocks(10, 11, [](uint8_t* b) { b[0] = b[1] = 0; }); break;
        case 10: path = q4Blocks(8, 16, [](uint8_t* b) { std::memset(b, 0, 18); }); break;
        case 11: path = q4Blocks(0, 34 * 8, [](uint8_t* b) { std::memset(b, 0, 18); }); break;
        case 12:
            path = q4Blocks(10, 11, [](uint8_t* b) {
                b[0] = 0x00;
                b[1] = 0x7E;
            });
            break;
        case 13:
        case 15: {
            const QDir src(
                variantDir(what == 13 ? QStringLiteral("gptq-w4-g128-sym") : QStringLiteral("gptq-w4-g32-asym")));
            for (const QString& f : src.entryList(QDir::Files))
                QVERIFY(QFile::copy(src.filePath(f), tmp.filePath(f)));
            if (what == 13)
                setConfig(tmp.path(), QStringLiteral("group_size"), 64);
            else
                setConfig(tmp.path(), QStringLiteral("sym"), true);
            path = tmp.path();
            weight = down;
            break;
        }
        case 14: {
            const auto s =
                openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
            const TensorEntry* wq = s->find("stories260K.layers.0.wq");
            const QString src = tmp.filePath(QStringLiteral("float"));
            QDir().mkpath(src);
            writeSafetensors((src + QStringLiteral("/model.safetensors")).toStdString(),
                             {{q + ".weight", DType::F32, wq->shape, s->bytes(*wq)}});
            QuantizeCheckpointOptions o;
            o.format = "gptq-v2";
            o.bits = 4;
            o.groupSize = 32;
            o.symmetric = 1;
            path = tmp2.path() + QStringLiteral("/v2");
            quantizeCheckpoint(*openCheckpoint(src.toStdString()), path.toStdString(), o);
            setConfig(path, QStringLiteral("checkpoint_format"), QStringLiteral("gptq"));
            weight = q;
            break;
        }
        }
        if (weight.empty())
            weight = "synthetic.q4_0";
        QVERIFY(!path.isEmpty());
        const auto c = openCheckpoint(path.toStdString());
        const VerifyReport r = verifyCheckpoint(*c);
        for (const VerifyFinding& f : r.findings)
            if (f.weight == weight)
                qInfo("%s %s%s: %s", f.weight.c_str(), f.check.c_str(), f.warning ? " (warning)" : "",
                      f.message.text().c_str());
        const VerifyFinding* f = findingOf(r, weight, kind.toStdString());
        QVERIFY2(f, qPrintable(kind));
        QCOMPARE(f->warning, warning);
        QCOMPARE(qint64(f->count), count);
        if (row >= 0 || col >= 0 || group >= 0 || block >= 0) {
            QVERIFY(!f->places.empty());
            const FindingPlace& p = f->places.front();
            QCOMPARE(qint64(p.row), row);
            if (col >= 0)
                QCOMPARE(qint64(p.col), col);
            QCOMPARE(qint64(p.group), group);
            QCOMPARE(qint64(p.block), block);
        }
    }

    // The scan stops at a cancel between row chunks with Cancelled, and reports nothing then.
    void healthCancel()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("big.safetensors"));
        std::vector<float> v(4096 * 64, 1.0f);
        v.back() = std::numeric_limits<float>::quiet_NaN();
        std::vector<uint8_t> bytes(v.size() * 4);
        std::memcpy(bytes.data(), v.data(), bytes.size());
        writeSafetensors(path.toStdString(), {{"m.weight", DType::F32, {4096, 64}, bytes}});
        const auto c = openCheckpoint(path.toStdString());
        std::atomic<bool> cancel{false};
        uint64_t scanned = 0;
        HealthOptions o;
        o.progress.cancel = &cancel;
        o.threads = 1;
        o.rowChunk = 16;
        o.progress.report = [&](uint64_t done, uint64_t total, const std::string& weight) {
            QCOMPARE(total, uint64_t(v.size()));
            QCOMPARE(weight, std::string("m.weight"));
            scanned = done;
            cancel = true;
        };
        VerifyReport r;
        QVERIFY_THROWS_EXCEPTION(Cancelled, scanWeightHealth(*c, c->weights.front(), r, o));
        QCOMPARE(scanned, uint64_t(16 * 64)); // one chunk of the 256
        QVERIFY(r.findings.empty());
        o.progress.cancel = nullptr;
        o.progress.report = [&](uint64_t done, uint64_t, const std::string&) { scanned = done; };
        scanned = 0;
        scanWeightHealth(*c, c->weights.front(), r, o);
        QCOMPARE(scanned, uint64_t(v.size()));
        QCOMPARE(r.findings.size(), size_t(1));
        QCOMPARE(r.findings.front().places.front(), (FindingPlace{4095, 63}));
    }
    // A cancelled verify throws Cancelled, as stats, diff, quantize and repack do, wherever the
    // cancel comes: between weights, in a scan's row chunks or in an act-order weight's scale
    // read (which ran first and swallowed it). Never a partial report, and never a finding.
    void verifyCancel_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("reports"); // progress reports before the cancel is set
        for (const char* d : {"gptq-w4-g32-sym-actorder", "gptq-w4-g32-asym", "bnb-nf4"})
            for (const int n : {0, 1, 2})
                QTest::addRow("%s after %d", d, n) << variantDir(QLatin1String(d)) << n;
    }
    void verifyCancel()
    {
        QFETCH(QString, path);
        QFETCH(int, reports);
        const auto c = openCheckpoint(path.toStdString());
        QVERIFY(c->weights.size() > 1);
        std::atomic<bool> cancel{reports == 0};
        int heard = 0;
        uint64_t last = 0, all = 0;
        Progress progress;
        progress.cancel = &cancel;
        progress.report = [&](uint64_t done, uint64_t total, const std::string& weight) {
            QVERIFY(done >= last && done <= total);
            QVERIFY(!weight.empty());
            last = done;
            all = total;
            if (++heard == reports)
                cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(Cancelled, verifyCheckpoint(*c, progress));
        // A cancel set in a scan's last progress report stops the run at the next weight.
        QVERIFY(heard >= reports);
        QVERIFY(reports == 0 || last < all);
        // Not cancelled, the same progress runs to the end.
        cancel = false;
        heard = -1000;
        last = 0;
        const VerifyReport r = verifyCheckpoint(*c, progress);
        QCOMPARE(last, all);
        QVERIFY(!r.checked.empty());
    }
    // One act-order weight whose scale grid is read before its values: a cancel there is
    // Cancelled out of verifyWeight, and the weight gets no finding for it.
    void verifyWeightCancelInScaleRead()
    {
        const auto c = openCheckpoint(variantDir(QStringLiteral("gptq-w4-g32-sym-actorder")).toStdString());
        const auto w =
            std::find_if(c->weights.begin(), c->weights.end(), [](const LogicalWeight& x) { return x.actOrder; });
        QVERIFY(w != c->weights.end());
        std::atomic<bool> cancel{true};
        HealthOptions health;
        health.progress.cancel = &cancel;
        VerifyReport r;
        QVERIFY_THROWS_EXCEPTION(Cancelled, verifyWeight(*c, *w, r, health));
        for (const VerifyFinding& f : r.findings)
            QVERIFY2(f.message.text().find("cancel") == std::string::npos, f.message.text().c_str());
    }
    // A symmetric GPTQ checkpoint whose writer mixed the zero conventions (v1 stores z - 1 = 7,
    // v2 stores z = 8 for 4 bits): within one weight (half the fields each way) and across
    // weights (one weight all 7, the other all 8). Detection reads each weight on its own, so
    // it records a note, and verify and diff report it as a warning.
    void mixedZeroConventions_data()
    {
        QTest::addColumn<bool>("acrossWeights");
        QTest::addRow("within a weight") << false;
        QTest::addRow("across weights") << true;
    }
    void mixedZeroConventions()
    {
        QFETCH(bool, acrossWeights);
        QTemporaryDir dir;
        const auto s = openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
        const TensorEntry* wq = s->find("stories260K.layers.0.wq");
        const QString src = dir.filePath(QStringLiteral("float"));
        QDir().mkpath(src);
        writeSafetensors((src + QStringLiteral("/model.safetensors")).toStdString(),
                         {{"model.layers.0.self_attn.q_proj.weight", DType::F32, wq->shape, s->bytes(*wq)}});
        QuantizeCheckpointOptions o;
        o.format = "gptq-v2";
        o.bits = 4;
        o.groupSize = 32;
        o.symmetric = 1;
        const QString sym = dir.filePath(QStringLiteral("sym"));
        quantizeCheckpoint(*openCheckpoint(src.toStdString()), sym.toStdString(), o);
        {
            const auto c = openCheckpoint(sym.toStdString());
            QCOMPARE(c->weights.front().format, std::string("gptq-v2"));
            QVERIFY(!c->weights.front().params.count("zero_convention"));
            QVERIFY(verifyCheckpoint(*c).findings.empty());
        }
        const QString mixed = dir.filePath(QStringLiteral("mixed"));
        const std::string q = "model.layers.0.self_attn.q_proj", k = "model.layers.0.self_attn.k_proj";
        rewrite(sym, mixed, [&](const Checkpoint&, std::vector<OwnedTensor>& ts) {
            const size_t n = ts.size();
            for (size_t i = 0; i < n; ++i) {
                if (ts[i].name != q + ".qzeros")
                    continue;
                if (!acrossWeights) {
                    for (size_t b = 0; b < ts[i].bytes.size(); b += 2)
                        ts[i].bytes[b] = 0x77; // two fields of 7 in every other byte
                    continue;
                }
                for (size_t j = 0; j < n; ++j)
                    if (ts[j].name.rfind(q + ".", 0) == 0) {
                        OwnedTensor t = ts[j];
                        t.name = k + ts[j].name.substr(q.size());
                        if (t.name == k + ".qzeros")
                            std::fill(t.bytes.begin(), t.bytes.end(), uint8_t(0x77));
                        ts.push_back(std::move(t));
                    }
            }
        });
        const auto c = openCheckpoint(mixed.toStdString());
        QCOMPARE(c->weights.size(), size_t(acrossWeights ? 2 : 1));
        for (const LogicalWeight& w : c->weights) {
            QCOMPARE(w.params.count("zero_convention"), size_t(1));
            QVERIFY(std::any_of(w.notes.begin(), w.notes.end(),
                                [](const Message& n) { return n.text().rfind(kZeroConventionNote, 0) == 0; }));
        }
        if (acrossWeights) {
            QCOMPARE(c->findWeight(q)->format, std::string("gptq-v2"));
            QCOMPARE(c->findWeight(k)->format, std::string("gptq-v1"));
        }
        const VerifyReport r = verifyCheckpoint(*c);
        for (const LogicalWeight& w : c->weights) {
            QVERIFY(hasCheck(r, w.name, "zero-convention-mixed"));
            for (const VerifyFinding& f : r.findings)
                if (f.check == "zero-convention-mixed")
                    QVERIFY(f.warning);
        }
        DiffOptions d;
        const DiffResult dr = diffCheckpoints(*c, *c, d);
        QCOMPARE(dr.warnings.size(), 2 * c->weights.size());
        QVERIFY(dr.passed());
    }
};

QTEST_GUILESS_MAIN(TestVerify)
#include "tst_verify.moc"
