// Block-scaled floats: every reference weight of the gpt-oss MXFP4 and ModelOpt NVFP4 / FP8 fixtures
// bit-exact through the normal open / detect / dequantize path on every SIMD path; code 8's zero sign,
// MXFP4's scale bytes 0, 254 and 255 and tails on hand-made weights; detection (ModelOpt FP8 against
// compressed-tensors FP8 both ways, modules_to_not_convert, config cross-checks) and bad input.
#include "kernel_probes.h"
#include "kernel_testutil.h"
#include "analysis/verify.h"
#include "formats/dequant.h"
#include "formats/findings.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

using namespace qs;

namespace {

std::string fixtureDir(const char* folder)
{
    return qstest::fixture(QStringLiteral("new-formats/") + QLatin1String(folder)).toStdString();
}

void writeText(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

void copyFile(const std::string& from, const QString& to)
{
    QVERIFY(QFile::copy(QString::fromStdString(from), to));
}

bool hasNote(const LogicalWeight& w, const std::string& part)
{
    for (const Message& m : w.notes)
        if (m.text().find(part) != std::string::npos)
            return true;
    return false;
}

// One gpt-oss style expert projection: blocks [E, N, K/32, 16] and scales [E, N, K/32].
std::vector<qsk::T> mxfp4Tensors(const std::string& name, uint64_t E, uint64_t N, uint64_t K,
                                 const std::vector<uint8_t>& blocks, const std::vector<uint8_t>& scales)
{
    return {{name + "_blocks", DType::U8, {E, N, K / 32, 16}, blocks},
            {name + "_scales", DType::U8, {E, N, K / 32}, scales}};
}

} // namespace

class TestBlockFloat : public QObject {
    Q_OBJECT
private slots:
    // Every "<module>.weight" of ref.safetensors, through openCheckpoint's detection and
    // dequantizeWeight, bit for bit on every path.
    void fixtures_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("weights");
        QTest::addColumn<int>("path");
        for (SimdPath p : qsk::simdPaths()) {
            QTest::addRow("gpt-oss-mxfp4 %s", simdPathName(p).data()) << "gpt-oss-mxfp4"
                                                                      << "hf-mxfp4" << 4 << int(p);
            QTest::addRow("modelopt-nvfp4 %s", simdPathName(p).data()) << "modelopt-nvfp4"
                                                                       << "modelopt-nvfp4" << 3 << int(p);
            QTest::addRow("modelopt-fp8 %s", simdPathName(p).data()) << "modelopt-fp8"
                                                                     << "modelopt-fp8" << 3 << int(p);
        }
    }
    void fixtures()
    {
        QFETCH(QString, folder);
        QFETCH(QString, format);
        QFETCH(int, weights);
        QFETCH(int, path);
        const std::string dir = fixtureDir(qPrintable(folder));
        const auto ck = openCheckpoint(dir);
        const auto ref = qsk::openFile(dir + "/ref.safetensors");
        int checked = 0;
        for (const TensorEntry& r : ref->tensors) {
            const std::string_view name = r.name;
            if (!name.ends_with(".weight"))
                continue;
            const std::string module(name.substr(0, name.size() - 7));
            const LogicalWeight* w = ck->findWeight(module);
            QVERIFY2(w, module.c_str());
            QCOMPARE(w->format, format.toStdString());
            QCOMPARE(std::vector<uint64_t>(w->shape.begin(), w->shape.end()),
                     std::vector<uint64_t>(r.shape.begin(), r.shape.end()));
            const auto ours = dequantizeWeight(*ck, *w, SimdPath(path));
            QSK_COMPARE_BITS(ours, qsk::floats(*ref, std::string(name)), DType::F32);
            ++checked;
        }
        QCOMPARE(checked, weights);
    }

    // The edge layer of the MXFP4 fixture holds every scale byte 0..254: subnormal, +-inf and -0.0
    // values, compared by their bits (QSK_COMPARE_BITS compares zeros' signs too).
    void mxfp4EdgeValues()
    {
        const auto ck = openCheckpoint(fixtureDir("gpt-oss-mxfp4"));
        const LogicalWeight* w = ck->findWeight("model.layers.1.mlp.experts.gate_up_proj");
        QVERIFY(w);
        const auto ours = dequantizeWeight(*ck, *w, SimdPath::Scalar);
        uint64_t inf = 0, negZero = 0, subnormal = 0;
        for (float v : ours) {
            inf += std::isinf(v);
            negZero += std::bit_cast<uint32_t>(v) == 0x80000000u;
            subnormal += std::fpclassify(v) == FP_SUBNORMAL;
        }
        QCOMPARE(inf, uint64_t(69)); // PROVENANCE.md's count for this projection
        QVERIFY(negZero > 0);
        QVERIFY(subnormal > 0);
    }

    // Code 8 is -0.0 for MXFP4 (FP4_VALUES) and +0.0 for ModelOpt NVFP4 (e2m1_values); MXFP4's
    // scale 255 is ldexp(v, 128): +-inf, and NaN for a zero code; NVFP4's K = 24 leaves a vector
    // tail, and rows of two blocks take the element-wise scale decoding.
    void handMade_data()
    {
        QTest::addColumn<int>("path");
        for (SimdPath p : qsk::simdPaths())
            QTest::addRow("%s", simdPathName(p).data()) << int(p);
    }
    void handMade()
    {
        QFETCH(int, path);
        QTemporaryDir tmp;
        const uint64_t N = 3, Kmx = 64, Knv = 24;
        std::vector<uint8_t> blocks(N * Kmx / 2), mxScales(N * Kmx / 32), nv(N * Knv / 2), nvScales(N * 2);
        for (size_t i = 0; i < blocks.size(); ++i)
            blocks[i] = uint8_t(i * 73 + 5);
        blocks[0] = 0x88; // two code-8 zeros
        for (size_t i = 0; i < mxScales.size(); ++i)
            mxScales[i] = uint8_t(std::array<int, 6>{0, 1, 127, 254, 255, 130}[i]);
        for (size_t i = 0; i < nv.size(); ++i)
            nv[i] = uint8_t(i * 29 + 3);
        nv[0] = 0x08;
        for (size_t i = 0; i < nvScales.size(); ++i)
            nvScales[i] = uint8_t(0x30 + 7 * i); // E4M3 0.25 ..., no NaN
        const float global = 0.0009765625f * 1.3f;
        std::vector<qsk::T> ts = mxfp4Tensors("m.experts.down_proj", 1, N, Kmx, blocks, mxScales);
        ts.push_back({"q.weight", DType::U8, {N, Knv / 2}, nv});
        ts.push_back({"q.weight_scale", DType::F8_E4M3, {N, 2}, nvScales});
        ts.push_back({"q.weight_scale_2", DType::F32, {}, qsk::bytesOf(std::vector<float>{global})});
        qsk::write(tmp.path(), "model.safetensors", ts);
        const auto ck = openCheckpoint(tmp.path().toStdString());
        const LogicalWeight* mx = ck->findWeight("m.experts.down_proj");
        const LogicalWeight* q = ck->findWeight("q");
        QVERIFY(mx && q);
        QCOMPARE(mx->format, std::string("hf-mxfp4"));
        QCOMPARE(q->format, std::string("modelopt-nvfp4"));
        QVERIFY(hasNote(*mx, "detected from member names"));
        QVERIFY(hasNote(*q, "no ModelOpt config"));

        static constexpr float e2m1[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
        const auto value = [](unsigned c) { return (c & 8) ? -e2m1[c & 7] : e2m1[c & 7]; };
        std::vector<float> expectMx(N * Kmx), expectNv(N * Knv);
        for (uint64_t n = 0; n < N; ++n)
            for (uint64_t k = 0; k < Kmx; ++k) {
                const unsigned c = (blocks[(n * Kmx + k) / 2] >> (4 * (k % 2))) & 15;
                const uint8_t e = mxScales[n * 2 + k / 32];
                expectMx[n * Kmx + k] =
                    e == 255 ? value(c) * std::numeric_limits<float>::infinity() : std::ldexp(value(c), int(e) - 127);
            }
        for (uint64_t n = 0; n < N; ++n)
            for (uint64_t k = 0; k < Knv; ++k) {
                const unsigned c = (nv[(n * Knv + k) / 2] >> (4 * (k % 2))) & 15;
                const float block = qsk::mul32(f8e4m3ToF32(nvScales[n * 2 + k / 16]), global);
                expectNv[n * Knv + k] = qsk::mul32(c == 8 ? 0.0f : value(c), block);
            }
        const auto ours = dequantizeWeight(*ck, *mx, SimdPath(path));
        QSK_COMPARE_BITS(ours, expectMx, DType::F32);
        QCOMPARE(std::bit_cast<uint32_t>(ours[0]), 0x80000000u); // code 8 at scale 2^-127
        for (uint64_t k = 0; k < 32; ++k) // row 2, block 0: scale 255
            QVERIFY(!std::isfinite(ours[2 * Kmx + k]));
        const auto oursNv = dequantizeWeight(*ck, *q, SimdPath(path));
        QSK_COMPARE_BITS(oursNv, expectNv, DType::F32);
        QCOMPARE(std::bit_cast<uint32_t>(oursNv[0]), 0u); // code 8 is +0.0
    }

    // Every scale byte through the vector scale decoders (rows of 256 blocks): E8M0 0..255 and
    // E4M3 0..255 (NaN codes and subnormals included), each path bit for bit with the scalar
    // reference, NaN payloads too, and with values computed here.
    void everyScaleByte_data()
    {
        QTest::addColumn<int>("path");
        for (SimdPath p : qsk::simdPaths())
            QTest::addRow("%s", simdPathName(p).data()) << int(p);
    }
    void everyScaleByte()
    {
        QFETCH(int, path);
        QTemporaryDir tmp;
        std::vector<uint8_t> bytes(256), blocks(256 * 16), codes(16 * 256 / 2);
        for (size_t i = 0; i < 256; ++i)
            bytes[i] = uint8_t(i * 167 + 13); // a permutation of 0..255
        for (size_t i = 0; i < blocks.size(); ++i)
            blocks[i] = uint8_t(i * 89 + 7);
        for (size_t i = 0; i < codes.size(); ++i)
            codes[i] = uint8_t(i * 53 + 1);
        std::vector<qsk::T> ts = mxfp4Tensors("m.down_proj", 1, 1, 32 * 256, blocks, bytes);
        ts.push_back({"q.weight", DType::U8, {1, 16 * 256 / 2}, codes});
        ts.push_back({"q.weight_scale", DType::F8_E4M3, {1, 256}, bytes});
        ts.push_back({"q.weight_scale_2", DType::F32, {}, qsk::bytesOf(std::vector<float>{0x1.8p-11f})});
        qsk::write(tmp.path(), "model.safetensors", ts);
        const auto ck = openCheckpoint(tmp.path().toStdString());
        for (const char* name : {"m.down_proj", "q"}) {
            const LogicalWeight* w = ck->findWeight(name);
            QVERIFY2(w && canDequantize(w->format), name);
            const auto ref = dequantizeWeight(*ck, *w, SimdPath::Scalar);
            const auto ours = dequantizeWeight(*ck, *w, SimdPath(path));
            QVERIFY2(std::memcmp(ref.data(), ours.data(), ref.size() * sizeof(float)) == 0, name);
            std::vector<float> expect(ref.size());
            const bool mx = w->format == "hf-mxfp4";
            static constexpr float e2m1[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
            for (size_t k = 0; k < expect.size(); ++k) {
                const unsigned c = ((mx ? blocks : codes)[k / 2] >> (4 * (k % 2))) & 15;
                const float v = (c & 8) && (mx || c != 8) ? -e2m1[c & 7] : e2m1[c & 7];
                const uint8_t b = bytes[k / (mx ? 32 : 16)];
                expect[k] = mx ? (b == 255 ? v * std::numeric_limits<float>::infinity() : std::ldexp(v, int(b) - 127))
                               : qsk::mul32(v, qsk::mul32(f8e4m3ToF32(b), 0x1.8p-11f));
            }
            QSK_COMPARE_BITS(ours, expect, DType::F32);
        }
    }

    // ModelOpt FP8 detects as ModelOpt from config.json or hf_quant_config.json; the same tensors
    // without a ModelOpt config, and a compressed-tensors FP8 checkpoint, as compressed-tensors FP8.
    void fp8DetectionBothWays()
    {
        const std::string src = fixtureDir("modelopt-fp8");
        const char* q = "model.layers.0.self_attn.q_proj";
        {
            const auto ck = openCheckpoint(src);
            const LogicalWeight* w = ck->findWeight(q);
            QVERIFY(w);
            QCOMPARE(w->format, std::string("modelopt-fp8"));
            QVERIFY(w->member("input_scale") >= 0); // listed, not used for the weight
            QVERIFY(w->notes.empty());
        }
        QTemporaryDir onlyHf, none, ct;
        copyFile(src + "/model.safetensors", onlyHf.path() + "/model.safetensors");
        copyFile(src + "/hf_quant_config.json", onlyHf.path() + "/hf_quant_config.json");
        copyFile(src + "/model.safetensors", none.path() + "/model.safetensors");
        {
            const auto ck = openCheckpoint(onlyHf.path().toStdString());
            QCOMPARE(ck->findWeight(q)->format, std::string("modelopt-fp8"));
        }
        {
            const auto ck = openCheckpoint(none.path().toStdString());
            QCOMPARE(ck->findWeight(q)->format, std::string("compressed-tensors-fp8"));
        }
        copyFile(src + "/model.safetensors", ct.path() + "/model.safetensors");
        writeText(ct.path() + "/config.json",
                  R"({"quantization_config": {"quant_method": "compressed-tensors", "format": "float-quantized",
                      "config_groups": {"group_0": {"targets": ["Linear"],
                      "weights": {"num_bits": 8, "type": "float", "strategy": "tensor"}}}}})");
        {
            const auto ck = openCheckpoint(ct.path().toStdString());
            QCOMPARE(ck->findWeight(q)->format, std::string("compressed-tensors-fp8"));
        }
    }

    // quant_algo of config.json and hf_quant_config.json disagreeing, or naming the other
    // algorithm than the tensors hold: notes on the weight.
    void modeloptConfigDisagrees()
    {
        const std::string src = fixtureDir("modelopt-nvfp4");
        QTemporaryDir tmp;
        copyFile(src + "/model.safetensors", tmp.path() + "/model.safetensors");
        copyFile(src + "/config.json", tmp.path() + "/config.json");
        writeText(tmp.path() + "/hf_quant_config.json",
                  R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8", "group_size": 32}})");
        const auto ck = openCheckpoint(tmp.path().toStdString());
        const LogicalWeight* w = ck->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(w);
        QCOMPARE(w->format, std::string("modelopt-nvfp4"));
        QVERIFY(hasNote(*w, "hf_quant_config.json says quant_algo FP8"));
        QVERIFY(hasNote(*w, "the tensors are NVFP4"));
        QVERIFY(hasNote(*w, "group_size 32"));
    }

    // transformers' modules_to_not_convert (regular expressions from the start of the name) keeps
    // a module's blocks plain; the config's expert and hidden sizes are cross-checked.
    void mxfp4Config()
    {
        QTemporaryDir tmp;
        const uint64_t E = 2, N = 4, K = 64;
        std::vector<qsk::T> ts =
            mxfp4Tensors("model.layers.0.mlp.experts.down_proj", E, N, K, std::vector<uint8_t>(E * N * K / 2, 0x21),
                         std::vector<uint8_t>(E * N * K / 32, 127));
        for (auto& t :
             mxfp4Tensors("model.layers.1.mlp.experts.down_proj", E, N, K, std::vector<uint8_t>(E * N * K / 2, 0x21),
                          std::vector<uint8_t>(E * N * K / 32, 127)))
            ts.push_back(t);
        qsk::write(tmp.path(), "model.safetensors", ts);
        writeText(tmp.path() + "/config.json",
                  R"({"num_local_experts": 3, "hidden_size": 4, "intermediate_size": 64,
                      "quantization_config": {"quant_method": "mxfp4",
                      "modules_to_not_convert": ["model.layers.1.*experts"]}})");
        const auto ck = openCheckpoint(tmp.path().toStdString());
        const LogicalWeight* w = ck->findWeight("model.layers.0.mlp.experts.down_proj");
        QVERIFY(w);
        QCOMPARE(w->format, std::string("hf-mxfp4"));
        QVERIFY(hasNote(*w, "num_local_experts = 3"));
        QVERIFY(!hasNote(*w, "hidden_size"));
        const LogicalWeight* kept = ck->findWeight("model.layers.1.mlp.experts.down_proj_blocks");
        QVERIFY(kept);
        QCOMPARE(kept->format, std::string("u8"));
    }

    // Bad input: shapes that do not fit are refused with a note naming the tensors (nothing is
    // decoded), a global scale of two values is an error naming it, NaN scale bytes are verify findings.
    void badInput()
    {
        QTemporaryDir tmp;
        std::vector<qsk::T> ts{
            {"a.down_proj_blocks", DType::U8, {2, 4, 2, 16}, std::vector<uint8_t>(256, 0x11)},
            {"a.down_proj_scales", DType::U8, {2, 4, 3}, std::vector<uint8_t>(24, 127)},
            {"b.weight", DType::U8, {4, 8}, std::vector<uint8_t>(32, 0x11)},
            {"b.weight_scale", DType::F16, {4, 1}, std::vector<uint8_t>(8, 0)},
            {"b.weight_scale_2", DType::F32, {}, qsk::bytesOf(std::vector<float>{1.0f})},
            {"c.weight", DType::U8, {4, 16}, std::vector<uint8_t>(64, 0x11)},
            {"c.weight_scale",
             DType::F8_E4M3,
             {4, 2},
             std::vector<uint8_t>{0x7F, 0xFF, 0x30, 0xB0, 0x30, 0x30, 0x30, 0x30}},
            {"c.weight_scale_2", DType::F32, {}, qsk::bytesOf(std::vector<float>{-1.0f})},
            {"e.weight", DType::U8, {4, 16}, std::vector<uint8_t>(64, 0x11)},
            {"e.weight_scale", DType::F8_E4M3, {4, 2}, std::vector<uint8_t>(8, 0x30)},
            {"e.weight_scale_2", DType::F32, {2}, qsk::bytesOf(std::vector<float>{1.0f, 1.0f})},
            {"d.gate_up_proj_blocks", DType::U8, {1, 2, 1, 16}, std::vector<uint8_t>(32, 0x77)},
            {"d.gate_up_proj_scales", DType::U8, {1, 2, 1}, std::vector<uint8_t>{255, 254}},
        };
        qsk::write(tmp.path(), "model.safetensors", ts);
        const auto ck = openCheckpoint(tmp.path().toStdString());
        const LogicalWeight* a = ck->findWeight("a.down_proj");
        QVERIFY(a);
        QVERIFY(a->shape.empty());
        QVERIFY(hasNote(*a, "down_proj_scales [2, 4, 3]"));
        QVERIFY(!whyNotDecoded(*a).empty());
        const LogicalWeight* b = ck->findWeight("b");
        QVERIFY(b && b->shape.empty());
        QVERIFY(hasNote(*b, "weight_scale F16 [4, 1] is not F8_E4M3"));
        const LogicalWeight* e = ck->findWeight("e");
        QVERIFY(e);
        try {
            dequantizeWeight(*ck, *e, SimdPath::Scalar);
            QFAIL("a two-value weight_scale_2 was taken");
        } catch (const Error& err) {
            QVERIFY2(std::string(err.what()).find("e.weight_scale_2") != std::string::npos, err.what());
        }
        const VerifyReport rep = verifyCheckpoint(*ck);
        const auto found = [&](const std::string& weight, const std::string& part) {
            for (const VerifyFinding& f : rep.findings)
                if (f.weight == weight && f.message.text().find(part) != std::string::npos)
                    return true;
            return false;
        };
        QVERIFY(found("e", "e.weight_scale_2"));
        QVERIFY(found("c", "1 of 1 weight_scale_2 values are not finite and positive"));
        QVERIFY(found("c", "2 of 8 FP8 block scales are NaN or Inf"));
        QVERIFY(found("c", "1 of 8 FP8 block scales are negative"));
        QVERIFY(found("d.gate_up_proj", "1 of 2 block scales are 0xFF"));
        QVERIFY(found("d.gate_up_proj", "1 blocks with scale 254"));
    }
};

QTEST_GUILESS_MAIN(TestBlockFloat)
#include "tst_blockfloat.moc"
