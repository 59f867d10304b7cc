// bitsandbytes NF4/FP4 quantization: packed bytes and absmax (plain and nested) equal the
// fixtures made by bitsandbytes from the f16-rounded source weights.
#include "formats/bnb/quantize_bnb.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "base/half.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

std::vector<float> sourceF16(const char* name)
{
    static const auto src =
        qs::openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
    const qs::TensorEntry* t = src->find(name);
    if (!t)
        return {};
    const auto b = src->bytes(*t);
    std::vector<float> x(b.size() / 4);
    std::memcpy(x.data(), b.data(), x.size() * 4);
    for (float& f : x)
        f = qs::halfToFloat(qs::floatToHalf(f)); // bnb quantized the float16 weight
    return x;
}

} // namespace

class TestQuantizeBnb : public QObject {
    Q_OBJECT
private slots:
    void matchesFixture_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("source");
        const std::pair<const char*, const char*> mods[] = {
            {"model.layers.0.mlp.down_proj", "synthetic.W_128x256"},
            {"model.layers.0.self_attn.q_proj", "stories260K.layers.0.wq"},
            {"model.layers.0.mlp.gate_proj", "stories260K.layers.0.w1"}};
        for (const char* v : {"bnb-nf4", "bnb-fp4", "bnb-nf4-doublequant", "bnb-fp4-doublequant"})
            for (const auto& [mod, src] : mods)
                QTest::addRow("%s %s", v, mod)
                    << QString::fromLatin1(v) << QString::fromLatin1(mod) << QString::fromLatin1(src);
    }
    void matchesFixture()
    {
        QFETCH(QString, variant);
        QFETCH(QString, module);
        QFETCH(QString, source);
        const auto ck = qs::openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/") + variant + QStringLiteral("/model.safetensors"))
                .toStdString());
        const bool nested = variant.contains(QStringLiteral("doublequant"));
        const bool nf4 = variant.contains(QStringLiteral("nf4"));
        const std::string w = module.toStdString() + ".weight";
        const std::vector<float> x = sourceF16(source.toLatin1().constData());
        QVERIFY(!x.empty());

        const qs::Bnb4Type type = nf4 ? qs::Bnb4Type::Nf4 : qs::Bnb4Type::Fp4;
        const qs::Bnb4Quantized q = qs::quantizeBnb4(x.data(), x.size(), type, 64, nested);
        const auto packed = ck->bytes(*ck->find(w));
        QCOMPARE(uint64_t(packed.size()), uint64_t(q.packed.size()));
        QVERIFY(std::memcmp(packed.data(), q.packed.data(), packed.size()) == 0);

        const auto quantMap = ck->bytes(*ck->find(w + ".quant_map"));
        QVERIFY(std::memcmp(quantMap.data(), qs::bnb4CodeTable(type).data(), 64) == 0);
        const auto absmax = ck->bytes(*ck->find(w + ".absmax"));
        if (!nested) {
            QCOMPARE(uint64_t(absmax.size()), uint64_t(q.absmax.size() * 4));
            QVERIFY(std::memcmp(absmax.data(), q.absmax.data(), absmax.size()) == 0);
            return;
        }
        QCOMPARE(uint64_t(absmax.size()), uint64_t(q.absmaxCodes.size()));
        QVERIFY(std::memcmp(absmax.data(), q.absmaxCodes.data(), absmax.size()) == 0);
        const auto nestedAbsmax = ck->bytes(*ck->find(w + ".nested_absmax"));
        QCOMPARE(uint64_t(nestedAbsmax.size()), uint64_t(q.nestedAbsmax.size() * 4));
        QVERIFY(std::memcmp(nestedAbsmax.data(), q.nestedAbsmax.data(), nestedAbsmax.size()) == 0);
        const auto map = ck->bytes(*ck->find(w + ".nested_quant_map"));
        QVERIFY(std::memcmp(map.data(), qs::bnbDynamicMap().data(), 1024) == 0);
        const auto state = ck->bytes(*ck->find(w + ".quant_state.bitsandbytes__" + (nf4 ? "nf4" : "fp4")));
        const QJsonObject js =
            QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char*>(state.data()), qsizetype(state.size())))
                .object();
        QCOMPARE(q.nestedOffset, float(js.value(QStringLiteral("nested_offset")).toDouble()));
    }

    void parallelEqualsSerial()
    {
        std::vector<float> x(64 * 300 + 37); // odd length: a short last block and a padded nibble
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = std::sin(float(i) * 0.37f) * float(1 + i % 7);
        for (qs::Bnb4Type t : {qs::Bnb4Type::Nf4, qs::Bnb4Type::Fp4}) {
            const auto a = qs::quantizeBnb4(x.data(), x.size(), t, 64, true, std::nullopt, false);
            const auto b = qs::quantizeBnb4(x.data(), x.size(), t, 64, true, std::nullopt, true);
            QVERIFY(a.packed == b.packed);
            QVERIFY(a.absmaxCodes == b.absmaxCodes);
            QCOMPARE(a.packed.size(), (x.size() + 1) / 2);
            QCOMPARE(a.absmax.size(), (x.size() + 63) / 64);
        }
    }

    void nearestCodesAndFp4Zeros()
    {
        // One block: absmax 1, so the scaled value is the weight itself.
        std::vector<float> x = {1.0f, -1.0f, 0.001f, -0.001f, 0.5f, 0.0f, 0.3f, -0.7f};
        const auto nf = qs::quantizeBnb4(x.data(), x.size(), qs::Bnb4Type::Nf4, 64);
        QCOMPARE(nf.absmax[0], 1.0f);
        // NF4: 1.0 -> 15, -1.0 -> 0, +-0.001 -> 7 (0.0), 0.5 -> 12 (0.4407 is nearer than 0.5626),
        // 0.0 -> 7, 0.3 -> 11 (0.3379), -0.7 -> 1 (-0.6962).
        const uint8_t nfWant[4] = {0xF0, 0x77, 0xC7, 0xB1};
        QVERIFY(std::memcmp(nf.packed.data(), nfWant, 4) == 0);
        // FP4: 1.0 -> 3, -1.0 -> 11, +0.001 -> 8 and -0.001 -> 0 (bnb's zero split), 0.5 -> 5,
        // 0.0 -> 0, 0.3 -> 4 (1/3), -0.7 -> 10 (-2/3).
        const auto fp = qs::quantizeBnb4(x.data(), x.size(), qs::Bnb4Type::Fp4, 64);
        const uint8_t fpWant[4] = {0x3B, 0x80, 0x50, 0x4A};
        QVERIFY(std::memcmp(fp.packed.data(), fpWant, 4) == 0);
        const std::vector<float> back = qs::dequantizeBnb4(fp, qs::Bnb4Type::Fp4);
        QCOMPARE(back[0], 1.0f);
        QCOMPARE(back[4], 0.5f);
    }

    void rejectsBadBlockSize()
    {
        const std::vector<float> x(10, 1.0f);
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeBnb4(x.data(), x.size(), qs::Bnb4Type::Nf4, 48));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeBnb4(x.data(), x.size(), qs::Bnb4Type::Nf4, 0));
    }
};

QTEST_GUILESS_MAIN(TestQuantizeBnb)
#include "tst_quantize_bnb.moc"
