// compressed-tensors pack-quantized: every fixture weight bit-exact on both paths; 3-bit
// (10 codes per word), 2/5/6-bit, unpacked (pre-PR-#296) zero points, odd dimensions, act-order
// g_idx and half scales on hand-made checkpoints packed by our own packer, with the seed probes.
#include "kernel_probes.h"
#include "kernel_testutil.h"
#include "formats/dequant.h"
#include "base/bitstream.h"
#include "base/half.h"
#include "formats/compressed_tensors/ct.h"
#include "formats/opencheckpoint.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>
#include <iterator>
#include <limits>

using namespace qs;

namespace {

// pack_to_int32 along the last dim: code j of a row at bits (j % pf) * b of word j / pf.
std::vector<int32_t> packLastDim(const std::vector<unsigned>& u, uint64_t rows, uint64_t cols, int b)
{
    const uint64_t pf = 32 / b, words = (cols + pf - 1) / pf;
    std::vector<uint32_t> w(rows * words, 0);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            w[r * words + c / pf] |= u[r * cols + c] << (b * (c % pf));
    return std::vector<int32_t>(w.begin(), w.end());
}

// Zero points packed along dim 0 ([N, G] -> [ceil(N/pf), G]).
std::vector<int32_t> packDim0(const std::vector<unsigned>& u, uint64_t rows, uint64_t cols, int b)
{
    const uint64_t pf = 32 / b, prow = (rows + pf - 1) / pf;
    std::vector<uint32_t> w(prow * cols, 0);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            w[(r / pf) * cols + c] |= u[r * cols + c] << (b * (r % pf));
    return std::vector<int32_t>(w.begin(), w.end());
}

} // namespace

class TestCompressedTensors : public QObject {
    Q_OBJECT
private slots:
    void fixtures_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("module");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("path");
        struct V {
            const char* name;
            int bits;
            int group;
            std::vector<const char*> modules;
        };
        const std::vector<V> vs{
            {"ct-pack-w4a16-channel-asym",
             4,
             0,
             {"model.layers.0.mlp.down_proj", "model.layers.0.mlp.gate_proj", "model.layers.0.self_attn.q_proj"}},
            {"ct-pack-w4a16-g128-sym", 4, 128, {"model.layers.0.mlp.down_proj"}},
            {"ct-pack-w4a16-g32-asym", 4, 32, {"model.layers.0.mlp.down_proj", "model.layers.0.self_attn.q_proj"}},
            {"ct-pack-w8a16-channel-sym",
             8,
             0,
             {"model.layers.0.mlp.down_proj", "model.layers.0.mlp.gate_proj", "model.layers.0.self_attn.q_proj"}},
        };
        for (const auto& v : vs)
            for (const char* m : v.modules)
                for (SimdPath p : qsk::simdPaths())
                    QTest::addRow("%s %s %s", v.name, m, simdPathName(p).data())
                        << v.name << m << v.bits << v.group << int(p);
    }
    void fixtures()
    {
        QFETCH(QString, variant);
        QFETCH(QString, module);
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(int, path);
        const auto ck = qsk::openFixture(variant, "model.safetensors");
        const auto ref = qsk::openFixture(variant, "ref.safetensors");
        const std::string m = module.toStdString();
        std::vector<std::pair<std::string, std::string>> roles{{"weight_packed", m + ".weight_packed"},
                                                               {"weight_scale", m + ".weight_scale"},
                                                               {"weight_shape", m + ".weight_shape"}};
        if (ck->find(m + ".weight_zero_point"))
            roles.emplace_back("weight_zero_point", m + ".weight_zero_point");
        const LogicalWeight w =
            qsk::weight(*ck, m, "compressed-tensors", ref->find(m + ".weight")->shape, roles, bits, group);
        const auto ours = qsk::run(dequantCtRows, *ck, w, SimdPath(path));
        QSK_COMPARE_BITS(ours, qsk::floats(*ref, m + ".weight"), DType::F32);
    }

    void handMade_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group"); // 0 = channel
        QTest::addColumn<int>("zp"); // 0 none, 1 packed, 2 unpacked I8
        QTest::addColumn<bool>("actorder");
        QTest::addColumn<int>("scaleType");
        QTest::addColumn<int>("probe");
        QTest::addColumn<int>("cols");
        QTest::addColumn<bool>("special"); // Inf, NaN, subnormal and -0 scales
        const std::vector<std::tuple<int, int, int, bool, DType>> cases{
            {3, 0, 1, false, DType::F32},  {3, 16, 2, false, DType::F16}, {4, 16, 1, false, DType::BF16},
            {4, 8, 1, true, DType::F32},   {8, 0, 2, false, DType::F32},  {8, 16, 1, false, DType::F16},
            {2, 16, 1, false, DType::F32}, {5, 0, 1, false, DType::F32},  {6, 16, 0, false, DType::F32},
            {4, 0, 0, false, DType::F16},
        };
        for (const auto& [b, g, zp, act, st] : cases)
            for (auto p : {qsk::Probe::Patterned, qsk::Probe::Random, qsk::Probe::AllMax})
                QTest::addRow("w%d g%d zp%d%s %s %s", b, g, zp, act ? " actorder" : "", dtypeName(st).data(),
                              qsk::probeName(p))
                    << b << g << zp << act << int(st) << int(p) << 48 << false;
        // More than 16 groups a row (the AVX-512 path reads a row's zero points 16 at a time), a
        // short last group, special scales.
        for (auto p : {qsk::Probe::Patterned, qsk::Probe::Random}) {
            QTest::addRow("w4 g16 zp1 K320 special %s", qsk::probeName(p))
                << 4 << 16 << 1 << false << int(DType::BF16) << int(p) << 320 << true;
            QTest::addRow("w8 g16 zp1 K320 special %s", qsk::probeName(p))
                << 8 << 16 << 1 << false << int(DType::F16) << int(p) << 320 << true;
            QTest::addRow("w4 g32 zp1 K48 %s", qsk::probeName(p))
                << 4 << 32 << 1 << false << int(DType::F32) << int(p) << 48 << false;
            QTest::addRow("w4 channel zp1 K56 special %s", qsk::probeName(p))
                << 4 << 0 << 1 << false << int(DType::F32) << int(p) << 56 << true;
        }
    }
    void handMade()
    {
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(int, zp);
        QFETCH(bool, actorder);
        QFETCH(int, scaleType);
        QFETCH(int, probe);
        QFETCH(int, cols);
        QFETCH(bool, special);
        // Odd N (zero points pad the last packed row) and K = 48 (not a multiple of 10 or 6: padded words).
        const uint64_t N = 11, K = uint64_t(cols), G = group ? (K + group - 1) / group : 1;
        const DType st = DType(scaleType);
        const auto q = qsk::probeCodes(qsk::Probe(probe), N, K, bits, 11);
        const auto zq = qsk::probeCodes(qsk::Probe::Random, N, G, bits, 5);
        std::vector<float> scales(N * G);
        for (uint64_t i = 0; i < scales.size(); ++i)
            scales[i] = qs::roundToDtype((i % 3 == 1 ? -1.0f : 1.0f) * 0.0037f * static_cast<float>(i + 1), st);
        if (special)
            for (uint64_t i = 0; i < scales.size(); i += 5)
                scales[i] = qs::roundToDtype(std::array{std::numeric_limits<float>::infinity(),
                                                        std::numeric_limits<float>::quiet_NaN(), std::ldexp(1.0f, -130),
                                                        -0.0f, -std::numeric_limits<float>::infinity()}[i / 5 % 5],
                                             st);
        std::vector<int32_t> gidx(K);
        for (uint64_t k = 0; k < K; ++k)
            gidx[k] = actorder ? static_cast<int32_t>((k * 5 + 3) % G) : static_cast<int32_t>(group ? k / group : 0);
        const std::vector<int64_t> shape{static_cast<int64_t>(N), static_cast<int64_t>(K)};
        std::vector<qsk::T> ts{
            {"m.weight_packed",
             DType::I32,
             {N, (K + 32 / bits - 1) / (32 / bits)},
             qsk::bytesOf(packLastDim(q, N, K, bits))},
            {"m.weight_shape", DType::I64, {2}, qsk::bytesOf(shape)},
            {"m.weight_scale", st, {N, G}, st == DType::F32 ? qsk::bytesOf(scales) : qsk::halfBytes(scales, st)}};
        std::vector<std::pair<std::string, std::string>> roles{{"weight_packed", "m.weight_packed"},
                                                               {"weight_scale", "m.weight_scale"},
                                                               {"weight_shape", "m.weight_shape"}};
        const int half = 1 << (bits - 1);
        if (zp == 1) {
            ts.push_back({"m.weight_zero_point",
                          DType::I32,
                          {(N + 32 / bits - 1) / (32 / bits), G},
                          qsk::bytesOf(packDim0(zq, N, G, bits))});
        } else if (zp == 2) {
            std::vector<int8_t> z;
            for (unsigned v : zq)
                z.push_back(static_cast<int8_t>(static_cast<int>(v) - half));
            ts.push_back({"m.weight_zero_point", DType::I8, {N, G}, qsk::bytesOf(z)});
        }
        if (zp)
            roles.emplace_back("weight_zero_point", "m.weight_zero_point");
        if (actorder) {
            ts.push_back({"m.weight_g_idx", DType::I32, {K}, qsk::bytesOf(gidx)});
            roles.emplace_back("weight_g_idx", "m.weight_g_idx");
        }
        // Each packed row is the generic oracle's natural slot layout in 32-bit words.
        const auto packedRows = packLastDim(q, N, K, bits);
        const uint64_t wpr = (K + 32 / bits - 1) / (32 / bits);
        for (uint64_t n = 0; n < N; ++n) {
            const std::vector<uint8_t> row(q.begin() + n * K, q.begin() + (n + 1) * K);
            const auto oracle = bitstream::packSlots(row, bits, 32);
            QVERIFY(oracle.size() == wpr * 4
                    && std::memcmp(oracle.data(), packedRows.data() + n * wpr, oracle.size()) == 0);
        }
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "ct.safetensors", ts));
        const LogicalWeight w = qsk::weight(*ck, "m", "compressed-tensors", {N, K}, roles, bits, actorder ? 0 : group);
        std::vector<float> expect(N * K);
        for (uint64_t n = 0; n < N; ++n)
            for (uint64_t k = 0; k < K; ++k) {
                const uint64_t g = static_cast<uint64_t>(gidx[k]);
                const int z = zp ? static_cast<int>(zq[n * G + g]) - half : 0;
                expect[n * K + k] =
                    qsk::mul32(static_cast<float>(static_cast<int>(q[n * K + k]) - half - z), scales[n * G + g]);
            }
        const auto scalar = qsk::run(dequantCtRows, *ck, w, SimdPath::Scalar);
        QSK_COMPARE_BITS(scalar, expect, DType::F32);
        for (SimdPath path : qsk::simdPaths()) {
            if (path == SimdPath::Scalar)
                continue;
            QSK_COMPARE_BITS(qsk::run(dequantCtRows, *ck, w, path), expect, DType::F32);
            const auto part = qsk::run(dequantCtRows, *ck, w, path, 4, 9);
            QVERIFY(std::memcmp(part.data(), scalar.data() + 4 * K, part.size() * 4) == 0);
        }
    }

    void badInput()
    {
        QTemporaryDir tmp;
        const std::vector<int64_t> shape{4, 64};
        const auto ck =
            qsk::openFile(qsk::write(tmp.path(), "bad.safetensors",
                                     {{"m.weight_packed", DType::I32, {4, 7}, std::vector<uint8_t>(4 * 7 * 4)},
                                      {"m.weight_shape", DType::I64, {2}, qsk::bytesOf(shape)},
                                      {"m.weight_scale", DType::F32, {4, 1}, std::vector<uint8_t>(16)}}));
        const LogicalWeight w = qsk::weight(*ck, "m", "compressed-tensors", {4, 64},
                                            {{"weight_packed", "m.weight_packed"},
                                             {"weight_scale", "m.weight_scale"},
                                             {"weight_shape", "m.weight_shape"}},
                                            4);
        try {
            qsk::run(dequantCtRows, *ck, w, SimdPath::Scalar);
            QFAIL("a [4, 7] weight_packed for K = 64 was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("weight_packed") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("'m'") != std::string::npos, e.what());
        }
    }

    // A config saying num_bits 0 (or more than a word holds) with no weight_shape beside the
    // packed codes: detection assumes 4 bits per code for K instead of dividing by zero.
    void nonsenseBitsWithoutShape_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addRow("0") << 0;
        QTest::addRow("-3") << -3;
        QTest::addRow("33") << 33;
    }
    void nonsenseBitsWithoutShape()
    {
        QFETCH(int, bits);
        QTemporaryDir tmp;
        qsk::write(tmp.path(), "model.safetensors",
                   {{"m.weight_packed", DType::I32, {4, 2}, std::vector<uint8_t>(4 * 2 * 4)},
                    {"m.weight_scale", DType::F16, {4, 1}, std::vector<uint8_t>(8)}});
        QFile cfg(tmp.filePath(QStringLiteral("config.json")));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write(
            QStringLiteral(R"({"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": %1, "type": "int"}}}}})")
                .arg(bits)
                .toUtf8());
        cfg.close();
        const auto ck = openCheckpoint(tmp.path().toStdString());
        const LogicalWeight* w = ck->findWeight("m");
        QVERIFY(w);
        QCOMPARE(w->format, std::string("compressed-tensors"));
        QCOMPARE(w->shape, (std::vector<uint64_t>{4, 16})); // 2 words of 8 four-bit codes
    }

    // The whole chain: openCheckpoint (reader, configs, detection) -> dispatcher -> kernel.
    void throughDetection_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("path");
        for (const char* v : {"ct-pack-w4a16-channel-asym", "ct-pack-w4a16-g128-sym", "ct-pack-w4a16-g32-asym",
                              "ct-pack-w8a16-channel-sym"})
            for (SimdPath p : qsk::simdPaths())
                QTest::addRow("%s %s", v, simdPathName(p).data()) << v << int(p);
    }
    void throughDetection()
    {
        QFETCH(QString, variant);
        QFETCH(int, path);
        const QString dir = qstest::fixture(QStringLiteral("safetensors/") + variant);
        const auto ck = openCheckpoint(
            (dir + QStringLiteral("/model.safetensors")).toStdString()); // ref.safetensors beside it repeats the names
        const auto ref = qsk::openFixture(variant, "ref.safetensors");
        int checked = 0;
        for (const TensorEntry& r : ref->tensors) {
            const std::string module(r.name.substr(0, r.name.size() - 7)); // strip ".weight"
            const LogicalWeight* w = ck->findWeight(module);
            QVERIFY2(w, module.c_str());
            QCOMPARE(w->format, std::string("compressed-tensors"));
            const auto ours = dequantizeWeight(*ck, *w, SimdPath(path));
            QSK_COMPARE_BITS(ours, qsk::floats(*ref, std::string(r.name)), DType::F32);
            ++checked;
        }
        QVERIFY(checked > 0);
    }

    // int-quantized (I8 codes, optional unpacked zero points) and float-quantized (F8 codes).
    void unpackedForms_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("group");
        QTest::addColumn<bool>("zp");
        QTest::addColumn<bool>("specialScales");
        QTest::addColumn<bool>("hugeScales"); // F32 scales of 2^120 and beyond, with subnormal ones
        QTest::addRow("int8 channel zp") << int(DType::I8) << 0 << true << false << false;
        QTest::addRow("int8 g16") << int(DType::I8) << 16 << false << false << false;
        QTest::addRow("fp8 e4m3 channel") << int(DType::F8_E4M3) << 0 << false << false << false;
        QTest::addRow("fp8 e5m2 g8") << int(DType::F8_E5M2) << 8 << false << false << false;
        // The vector FP8 paths: 16-wide groups, groups with a tail, NaN / Inf / subnormal scales,
        // scales whose 2^8 multiple overflows (the AVX-512 E4M3 path folds 2^8 into the scale
        // only where that is exact).
        QTest::addRow("fp8 e4m3 g16") << int(DType::F8_E4M3) << 16 << false << false << false;
        QTest::addRow("fp8 e5m2 g24") << int(DType::F8_E5M2) << 24 << false << false << false;
        QTest::addRow("fp8 e4m3 g16 special scales") << int(DType::F8_E4M3) << 16 << false << true << false;
        QTest::addRow("fp8 e5m2 channel special scales") << int(DType::F8_E5M2) << 0 << false << true << false;
        QTest::addRow("fp8 e4m3 g16 huge scales") << int(DType::F8_E4M3) << 16 << false << false << true;
        QTest::addRow("fp8 e4m3 channel huge scales") << int(DType::F8_E4M3) << 0 << false << false << true;
    }
    void unpackedForms()
    {
        QFETCH(int, dtype);
        QFETCH(int, group);
        QFETCH(bool, zp);
        QFETCH(bool, specialScales);
        QFETCH(bool, hugeScales);
        const DType t = DType(dtype);
        const uint64_t N = 7, K = 48, G = group ? K / group : 1;
        std::vector<uint8_t> q(N * K);
        for (uint64_t i = 0; i < q.size(); ++i)
            q[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
        q[0] = 0x80; // int8 -128; fp8 -0
        q[1] = 0x7F; // int8 127; e4m3 NaN, e5m2 NaN
        std::vector<float> scales(N * G);
        for (uint64_t i = 0; i < scales.size(); ++i)
            scales[i] = qs::roundToDtype(0.011f * static_cast<float>(i + 1) * (i % 2 ? -1.0f : 1.0f), DType::F16);
        if (specialScales) {
            const uint16_t specials[] = {0x7E00, 0xFE01, 0x7C00, 0xFC00, 0x0001, 0x8000};
            for (uint64_t i = 0; i < scales.size(); ++i)
                if (i % 2 == 0)
                    scales[i] = halfToFloat(specials[i / 2 % std::size(specials)]);
        }
        if (hugeScales) {
            const float huge[] = {0x1p120f, -0x1.fffffep127f, 0x1p-149f, 0x1.8p125f, -0x1p-140f, 0x1.fffffep119f};
            for (uint64_t i = 0; i < scales.size(); ++i)
                scales[i] = huge[i % std::size(huge)];
        }
        std::vector<int8_t> z(N * G);
        for (uint64_t i = 0; i < z.size(); ++i)
            z[i] = static_cast<int8_t>(static_cast<int>(i * 29 % 256) - 128);
        std::vector<qsk::T> ts{{"m.weight", t, {N, K}, q},
                               hugeScales
                                   ? qsk::T{"m.weight_scale", DType::F32, {N, G}, qsk::bytesOf(scales)}
                                   : qsk::T{"m.weight_scale", DType::F16, {N, G}, qsk::halfBytes(scales, DType::F16)}};
        std::vector<std::pair<std::string, std::string>> roles{{"weight", "m.weight"},
                                                               {"weight_scale", "m.weight_scale"}};
        if (zp) {
            ts.push_back({"m.weight_zero_point", DType::I8, {N, G}, qsk::bytesOf(z)});
            roles.emplace_back("weight_zero_point", "m.weight_zero_point");
        }
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "ct.safetensors", ts));
        const std::string fmt = t == DType::I8 ? "compressed-tensors-int" : "compressed-tensors-fp8";
        const LogicalWeight w = qsk::weight(*ck, "m", fmt, {N, K}, roles, 8, group ? group : int64_t(K));
        std::vector<float> expect(N * K);
        const FloatView f8(q, t == DType::I8 ? DType::F8_E4M3 : t, "q");
        for (uint64_t n = 0; n < N; ++n)
            for (uint64_t k = 0; k < K; ++k) {
                const uint64_t g = group ? k / group : 0;
                const float v = t == DType::I8
                    ? static_cast<float>(static_cast<int8_t>(q[n * K + k]) - (zp ? z[n * G + g] : 0))
                    : f8.at(n * K + k);
                expect[n * K + k] = qsk::mul32(v, scales[n * G + g]);
            }
        for (SimdPath p : qsk::simdPaths())
            QSK_COMPARE_BITS(qsk::run(dequantCtRows, *ck, w, p), expect, DType::F32);
    }
};

QTEST_GUILESS_MAIN(TestCompressedTensors)
#include "tst_compressed_tensors.moc"
