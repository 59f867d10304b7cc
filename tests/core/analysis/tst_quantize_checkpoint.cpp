// Whole-checkpoint quantization: the output reopens as the target format, its stored tensors
// equal what the in-memory quantizers and packers make of the same weights, its dequantization
// equals the in-memory quantizer's values bit for bit, the config is the upstream tool's, and
// GGUF output from the fixture sources equals ggml's own bytes.
#include "formats/affine/quantize_affine.h"
#include "formats/bnb/quantize_bnb.h"
#include "analysis/quantize_checkpoint.h"
#include "formats/ggml/quantize_ggml.h"
#include "analysis/verify.h"
#include "container/checkpoint.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "formats/dequant.h"
#include "base/half.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>

using namespace qs;

namespace {

const char* kDown = "model.layers.0.mlp.down_proj";
const char* kQ = "model.layers.0.self_attn.q_proj";

std::vector<float> fixtureFloats(const char* name)
{
    const auto c = openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
    const TensorEntry* t = c->find(name);
    std::vector<float> v(t->elementCount());
    std::memcpy(v.data(), c->bytes(*t).data(), v.size() * 4);
    return v;
}

// A small llama-like safetensors folder of F32 weights taken from the fixture sources.
QString writeSource(const QTemporaryDir& dir)
{
    static const std::vector<float> down = fixtureFloats("synthetic.W_128x256");
    static const std::vector<float> q = fixtureFloats("stories260K.layers.0.wq");
    static std::vector<float> embed(32 * 64), norm(64, 1.0f);
    for (size_t i = 0; i < embed.size(); ++i)
        embed[i] = float(int(i % 17) - 8) / 64.0f;
    const auto span = [](const std::vector<float>& v) {
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
    };
    const QString src = dir.filePath(QStringLiteral("src"));
    QDir().mkpath(src);
    writeSafetensors((src + QStringLiteral("/model.safetensors")).toStdString(),
                     {{std::string(kDown) + ".weight", DType::F32, {128, 256}, span(down)},
                      {std::string(kQ) + ".weight", DType::F32, {64, 64}, span(q)},
                      {"model.embed_tokens.weight", DType::F32, {32, 64}, span(embed)},
                      {"model.norm.weight", DType::F32, {64}, span(norm)}});
    QFile cfg(src + QStringLiteral("/config.json"));
    cfg.open(QIODevice::WriteOnly);
    cfg.write(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "float32"})");
    return src;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b, QString* why)
{
    if (a.size() != b.size()) {
        *why = QStringLiteral("size %1 vs %2").arg(a.size()).arg(b.size());
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) {
            *why =
                QStringLiteral("element %1: %2 vs %3").arg(i).arg(double(a[i]), 0, 'g', 9).arg(double(b[i]), 0, 'g', 9);
            return false;
        }
    return true;
}

float roundTo(float v, DType t)
{
    return t == DType::F16 ? halfToFloat(floatToHalf(v)) : t == DType::BF16 ? bf16ToFloat(floatToBf16(v)) : v;
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TestQuantizeCheckpoint : public QObject {
    Q_OBJECT
private slots:
    void affine_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("sym");
        QTest::addRow("gptq-v1 w4 g32 sym") << "gptq-v1" << 4 << 32 << 1;
        QTest::addRow("gptq-v2 w4 g64 asym") << "gptq-v2" << 4 << 64 << 0;
        QTest::addRow("gptq-v2 w3 channel asym") << "gptq-v2" << 3 << -1 << 0;
        QTest::addRow("gptq-v1 w8 g32 sym") << "gptq-v1" << 8 << 32 << 1;
        QTest::addRow("awq-gemm g32") << "awq-gemm" << 4 << 32 << 0;
        QTest::addRow("ct w4 g32 asym") << "compressed-tensors" << 4 << 32 << 0;
        QTest::addRow("ct w8 channel sym") << "compressed-tensors" << 8 << -1 << 1;
        QTest::addRow("ct w3 g64 sym") << "compressed-tensors" << 3 << 64 << 1;
        QTest::addRow("mlx w4 g64") << "mlx-affine" << 4 << 64 << -1;
        QTest::addRow("mlx w6 g32") << "mlx-affine" << 6 << 32 << -1;
    }
    void affine()
    {
        QFETCH(QString, format);
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(int, sym);
        QTemporaryDir tmp;
        const auto src = openCheckpoint(writeSource(tmp).toStdString());
        QuantizeCheckpointOptions o;
        o.format = format.toStdString();
        o.bits = bits;
        o.groupSize = group;
        o.symmetric = sym;
        size_t calls = 0;
        o.progress.report = [&](size_t done, size_t total, const std::string&) {
            ++calls;
            QVERIFY(done <= total);
        };
        const std::string out = tmp.filePath(QStringLiteral("out")).toStdString();
        const QuantizeCheckpointResult r = quantizeCheckpoint(*src, out, o);
        QCOMPARE(r.quantized.size(), size_t(2));
        QCOMPARE(calls, size_t(2));
        const auto dst = openCheckpoint(out);
        QVERIFY(dst->find("model.embed_tokens.weight") && dst->find("model.norm.weight"));
        for (const char* mod : {kDown, kQ}) {
            const LogicalWeight* w = dst->findWeight(mod);
            QVERIFY2(w, mod);
            for (const Message& n : w->notes)
                qInfo("%s: %s", mod, n.text().c_str());
            QCOMPARE(QString::fromStdString(w->format), format);
            QCOMPARE(w->bits, bits);
            // The in-memory quantizer on the same floats.
            const LogicalWeight* sw = src->findWeight(std::string(mod) + ".weight");
            const std::vector<float> x = dequantizeWeight(*src, *sw, SimdPath::Scalar);
            AffineOptions ao;
            ao.bits = bits;
            ao.symmetric = sym == 1 || (sym < 0 && format == QLatin1String("compressed-tensors"));
            ao.rule = format.startsWith(QLatin1String("gptq")) ? AffineRule::Gptq
                : format == QLatin1String("awq-gemm")          ? AffineRule::Awq
                : format == QLatin1String("mlx-affine")        ? AffineRule::Mlx
                                                               : AffineRule::CompressedTensors;
            ao.granularity = group < 0 ? AffineGranularity::Channel : AffineGranularity::Group;
            ao.groupSize = group < 0 ? sw->inFeatures() : uint64_t(group);
            AffineQuantized q = quantizeAffine(x.data(), sw->outFeatures(), sw->inFeatures(), ao);
            const AffineTarget target = format == QLatin1String("gptq-v1") ? AffineTarget::GptqV1
                : format == QLatin1String("gptq-v2")                       ? AffineTarget::GptqV2
                : format == QLatin1String("awq-gemm")                      ? AffineTarget::AwqGemm
                : format == QLatin1String("mlx-affine")                    ? AffineTarget::Mlx
                                                                           : AffineTarget::CompressedTensors;
            const DType st = ao.rule == AffineRule::Gptq || ao.rule == AffineRule::Awq ? DType::F16 : DType::F32;
            for (const StoredTensor& s : packAffine(q, target, st)) {
                const TensorEntry* t = dst->find(std::string(mod) + "." + s.suffix);
                QVERIFY2(t, s.suffix.c_str());
                QCOMPARE(t->dtype, s.dtype);
                QCOMPARE(t->shape, s.shape);
                const auto b = dst->bytes(*t);
                QVERIFY2(std::equal(b.begin(), b.end(), s.bytes.begin(), s.bytes.end()), s.suffix.c_str());
            }
            for (float& s : q.scales)
                s = roundTo(s, st);
            QString why;
            QVERIFY2(sameBits(dequantizeWeight(*dst, *w, bestSimdPath()), dequantizeAffine(q), &why), qPrintable(why));
        }
        // Every written weight passes verify.
        const VerifyReport vr = verifyCheckpoint(*dst);
        for (const VerifyFinding& f : vr.findings)
            qInfo("%s %s: %s", f.weight.c_str(), f.check.c_str(), f.message.text().c_str());
        QVERIFY(vr.errors() == 0);
    }

    void configs()
    {
        QTemporaryDir tmp;
        const auto src = openCheckpoint(writeSource(tmp).toStdString());
        QuantizeCheckpointOptions o;
        o.format = "gptq-v2";
        o.groupSize = 64;
        const QString gptq = tmp.filePath(QStringLiteral("gptq"));
        quantizeCheckpoint(*src, gptq.toStdString(), o);
        const QJsonObject qc = readJson(gptq + QStringLiteral("/quantize_config.json"));
        QCOMPARE(qc.value(QStringLiteral("checkpoint_format")).toString(), QStringLiteral("gptq_v2"));
        QCOMPARE(qc.value(QStringLiteral("group_size")).toInt(), 64);
        QCOMPARE(qc.value(QStringLiteral("sym")).toBool(true), false);
        QCOMPARE(qc.value(QStringLiteral("quant_method")).toString(), QStringLiteral("gptq"));
        // The modules left in float, as GPTQModel and vLLM read them: `dynamic` negative matches.
        const QJsonObject dynamic = qc.value(QStringLiteral("dynamic")).toObject();
        QVERIFY2(dynamic.contains(QStringLiteral("-:model\\.embed_tokens$")),
                 QJsonDocument(dynamic).toJson(QJsonDocument::Compact).constData());
        QVERIFY(dynamic.value(QStringLiteral("-:model\\.embed_tokens$")).toObject().isEmpty());
        const QJsonObject cfg = readJson(gptq + QStringLiteral("/config.json"));
        QCOMPARE(cfg.value(QStringLiteral("quantization_config")).toObject(), qc);
        QCOMPARE(cfg.value(QStringLiteral("model_type")).toString(), QStringLiteral("llama"));

        o.format = "awq";
        o.groupSize = 32;
        const QString awq = tmp.filePath(QStringLiteral("awq"));
        quantizeCheckpoint(*src, awq.toStdString(), o);
        const QJsonObject aq = readJson(awq + QStringLiteral("/quant_config.json"));
        QCOMPARE(aq.value(QStringLiteral("w_bit")).toInt(), 4);
        QCOMPARE(aq.value(QStringLiteral("q_group_size")).toInt(), 32);
        QCOMPARE(aq.value(QStringLiteral("version")).toString(), QStringLiteral("gemm"));
        const QJsonObject ac =
            readJson(awq + QStringLiteral("/config.json")).value(QStringLiteral("quantization_config")).toObject();
        QCOMPARE(ac.value(QStringLiteral("modules_to_not_convert")).toArray().first().toString(),
                 QStringLiteral("model.embed_tokens"));

        o.format = "mlx";
        o.groupSize = 0;
        const QString mlx = tmp.filePath(QStringLiteral("mlx"));
        quantizeCheckpoint(*src, mlx.toStdString(), o);
        const QJsonObject mq =
            readJson(mlx + QStringLiteral("/config.json")).value(QStringLiteral("quantization")).toObject();
        QCOMPARE(mq.value(QStringLiteral("group_size")).toInt(), 64);
        QCOMPARE(mq.value(QStringLiteral("bits")).toInt(), 4);
    }

    void bnb_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<bool>("nested");
        QTest::addRow("nf4") << "bnb-nf4" << false;
        QTest::addRow("nf4 nested") << "bnb-nf4" << true;
        QTest::addRow("fp4 nested") << "bnb-fp4" << true;
    }
    void bnb()
    {
        QFETCH(QString, format);
        QFETCH(bool, nested);
        QTemporaryDir tmp;
        const auto src = openCheckpoint(writeSource(tmp).toStdString());
        QuantizeCheckpointOptions o;
        o.format = format.toStdString();
        o.doubleQuant = nested;
        o.weights = {kDown};
        const std::string out = tmp.filePath(QStringLiteral("out")).toStdString();
        quantizeCheckpoint(*src, out, o);
        const auto dst = openCheckpoint(out);
        const LogicalWeight* w = dst->findWeight(kDown);
        QVERIFY(w);
        QCOMPARE(QString::fromStdString(w->format), format);
        QCOMPARE(w->shape, (std::vector<uint64_t>{128, 256}));
        QCOMPARE(QString::fromStdString(dst->findWeight(std::string(kQ) + ".weight")->format), QStringLiteral("f32"));
        const std::vector<float> x =
            dequantizeWeight(*src, *src->findWeight(std::string(kDown) + ".weight"), SimdPath::Scalar);
        const Bnb4Type type = format == QLatin1String("bnb-nf4") ? Bnb4Type::Nf4 : Bnb4Type::Fp4;
        const Bnb4Quantized q = quantizeBnb4(x.data(), x.size(), type, 64, nested);
        const auto packed = dst->bytes(*dst->find(std::string(kDown) + ".weight"));
        QVERIFY(std::equal(packed.begin(), packed.end(), q.packed.begin(), q.packed.end()));
        QString why;
        QVERIFY2(sameBits(dequantizeWeight(*dst, *w, bestSimdPath()), dequantizeBnb4(q, type), &why), qPrintable(why));
        const TensorEntry* state =
            dst->find(std::string(kDown) + ".weight.quant_state.bitsandbytes__" + format.mid(4).toStdString());
        QVERIFY(state);
        const auto sb = dst->bytes(*state);
        const QJsonObject js =
            QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char*>(sb.data()), qsizetype(sb.size())))
                .object();
        QCOMPARE(js.value(QStringLiteral("dtype")).toString(), QStringLiteral("float32"));
        QCOMPARE(js.contains(QStringLiteral("nested_offset")), nested);
        if (nested)
            QCOMPARE(float(js.value(QStringLiteral("nested_offset")).toDouble()), q.nestedOffset);
    }

    // GGUF output from the ggml fixture's float sources equals the bytes ggml itself wrote.
    void gguf_data()
    {
        QTest::addColumn<QString>("type");
        for (const char* t : {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"})
            QTest::addRow("%s", t) << QString::fromLatin1(t);
    }
    void gguf()
    {
        QFETCH(QString, type);
        QTemporaryDir tmp;
        const auto src = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.ref.gguf")).toStdString());
        QuantizeCheckpointOptions o;
        o.format = type.toStdString();
        o.weights = {"source.synthetic", "source.synthetic4096"};
        const std::string out = tmp.filePath(QStringLiteral("out.gguf")).toStdString();
        quantizeCheckpoint(*src, out, o);
        const auto dst = openCheckpoint(out);
        const auto ggml = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        for (const char* s : {"synthetic", "synthetic4096"}) {
            const LogicalWeight* w = dst->findWeight(std::string("source.") + s);
            QVERIFY(w);
            QCOMPARE(QString::fromStdString(w->format), QStringLiteral("gguf-") + type);
            const auto mine = dst->bytes(*dst->find(std::string("source.") + s));
            const auto ref = ggml->bytes(*ggml->find(std::string(s) + "." + type.toStdString()));
            QVERIFY(std::equal(mine.begin(), mine.end(), ref.begin(), ref.end()));
        }
        const MetaValue* ft = dst->meta("general.file_type");
        QVERIFY(ft);
        QCOMPARE(std::get<uint64_t>(ft->value),
                 uint64_t(llamaFileType(
                     dst->tensors[size_t(dst->findWeight("source.synthetic")->members[0].second)].ggmlType)));
        QVERIFY(dst->meta("general.architecture"));
        QVERIFY(dst->meta("general.quantization_version"));
        QCOMPARE(dst->tensors.size(), src->tensors.size());
    }

    // GGUF output: the weights kept in float (K not whole blocks) are reported first, when the
    // layout is made, then each quantized weight in tensor order, out of one fixed total; a
    // cancel between weights leaves no file.
    void progressAndCancelGguf()
    {
        QTemporaryDir tmp;
        const auto src =
            openCheckpoint(qstest::fixture(QStringLiteral("real/python-gen-worker/stories260K.gguf")).toStdString());
        const std::string out = tmp.filePath(QStringLiteral("out.gguf")).toStdString();
        QuantizeCheckpointOptions o;
        o.format = "gguf-q4_0";
        std::vector<std::string> names;
        size_t total = 0;
        o.progress.report = [&](size_t done, size_t t, const std::string& name) {
            QCOMPARE(done, names.size() + 1);
            total = t;
            names.push_back(name);
        };
        const QuantizeCheckpointResult r = quantizeCheckpoint(*src, out, o);
        QCOMPARE(names.size(), total);
        QCOMPARE(r.notes.size(), size_t(5));
        std::vector<std::string> expect;
        for (int b = 0; b < 5; ++b)
            expect.push_back("blk." + std::to_string(b) + ".ffn_down.weight");
        expect.insert(expect.end(), r.quantized.begin(), r.quantized.end());
        QCOMPARE(names, expect);

        std::atomic<bool> cancel{false};
        o.progress.cancel = &cancel;
        o.progress.report = [&](size_t done, size_t, const std::string&) { cancel = done == 8; };
        const std::string cancelled = tmp.filePath(QStringLiteral("cancelled.gguf")).toStdString();
        QVERIFY_THROWS_EXCEPTION(Cancelled, quantizeCheckpoint(*src, cancelled, o));
        QVERIFY(!QFile::exists(QString::fromStdString(cancelled)));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("out.gguf")});
    }

    // The targets are the formats whose traits say so; ids and aliases through the one parser.
    void targets()
    {
        QCOMPARE(
            quantizeTargets(),
            (std::vector<std::string>{"gptq-v1", "gptq-v2", "awq-gemm", "bnb-nf4", "bnb-fp4", "compressed-tensors",
                                      "mlx-affine", "gguf-q4_0", "gguf-q4_1", "gguf-q5_0", "gguf-q5_1", "gguf-q8_0",
                                      "gguf-q2_k", "gguf-q3_k", "gguf-q4_k", "gguf-q5_k", "gguf-q6_k"}));
        QCOMPARE(parseQuantizeTarget("gptq").id, std::string("gptq-v1"));
        QCOMPARE(parseQuantizeTarget("AWQ").id, std::string("awq-gemm"));
        QCOMPARE(parseQuantizeTarget("mlx").id, std::string("mlx-affine"));
        QCOMPARE(parseQuantizeTarget("nf4").id, std::string("bnb-nf4"));
        QCOMPARE(parseQuantizeTarget("fp4").id, std::string("bnb-fp4"));
        QCOMPARE(parseQuantizeTarget(" q4_k ").id, std::string("gguf-q4_k"));
        try {
            parseQuantizeTarget("gguf-iq4_xs");
            QFAIL("no quantizer writes IQ4_XS");
        } catch (const Error& e) {
            QVERIFY2(
                std::string(e.what()).rfind("--format: quantize cannot produce 'gguf-iq4_xs'; targets: gptq-v1, ", 0)
                    == 0,
                e.what());
        }
    }

    void refusals()
    {
        QTemporaryDir tmp;
        const auto src = openCheckpoint(writeSource(tmp).toStdString());
        const std::string out = tmp.filePath(QStringLiteral("bad")).toStdString();
        QuantizeCheckpointOptions o;
        o.format = "awq-gemm";
        o.bits = 3;
        QVERIFY_THROWS_EXCEPTION(Error, quantizeCheckpoint(*src, out, o));
        o.format = "gguf-q4_0"; // HF names are not GGUF names
        o.bits = 0;
        QVERIFY_THROWS_EXCEPTION(Error, quantizeCheckpoint(*src, out, o));
        o.format = "gptq-v1";
        o.weights = {"model.missing"};
        QVERIFY_THROWS_EXCEPTION(Error, quantizeCheckpoint(*src, out, o));
        o.format = "exl3";
        QVERIFY_THROWS_EXCEPTION(Error, quantizeCheckpoint(*src, out, o));
        std::atomic<bool> cancel{true};
        o.format = "gptq-v2";
        o.weights.clear();
        o.progress.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, quantizeCheckpoint(*src, out, o));
        QVERIFY(!QFile::exists(QString::fromStdString(out)));
    }
};

QTEST_GUILESS_MAIN(TestQuantizeCheckpoint)
#include "tst_quantize_checkpoint.moc"
