// bitsandbytes NF4 / FP4 (plain and nested absmax) and LLM.int8: every fixture weight
// bit-exact (f16 rounding of our f32) on both paths, hand-made checkpoints with values
// worked out from the formulas, the seed probes and scalar-vs-AVX2 agreement.
#include "kernel_probes.h"
#include "kernel_testutil.h"
#include "base/error.h"
#include "formats/dequant.h"
#include "base/bitstream.h"
#include "formats/bnb/bnb.h"
#include "formats/opencheckpoint.h"
#include "formats/wordmap.h"

#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <limits>

using namespace qs;

namespace {

const char* kModules[] = {"model.layers.0.mlp.down_proj", "model.layers.0.mlp.gate_proj",
                          "model.layers.0.self_attn.q_proj"};

LogicalWeight bnbWeight(const Checkpoint& ck, const std::string& m, bool fp4, bool nested, std::vector<uint64_t> shape)
{
    std::vector<std::pair<std::string, std::string>> roles{
        {"weight", m + ".weight"},
        {"absmax", m + ".weight.absmax"},
        {"quant_map", m + ".weight.quant_map"},
        {"quant_state", m + ".weight.quant_state.bitsandbytes__" + (fp4 ? "fp4" : "nf4")}};
    if (nested) {
        roles.emplace_back("nested_absmax", m + ".weight.nested_absmax");
        roles.emplace_back("nested_quant_map", m + ".weight.nested_quant_map");
    }
    return qsk::weight(ck, m, fp4 ? "bnb-fp4" : "bnb-nf4", std::move(shape), roles, 4, 64);
}

// Packs flat codes as bitsandbytes does: element 2i in the high nibble of byte i.
std::vector<uint8_t> packBnb(const std::vector<unsigned>& q)
{
    std::vector<uint8_t> b((q.size() + 1) / 2, 0);
    for (size_t e = 0; e < q.size(); ++e)
        b[e / 2] |= static_cast<uint8_t>((e & 1) ? q[e] : q[e] << 4);
    return b;
}

std::vector<uint8_t> jsonBytes(const std::string& s)
{
    return std::vector<uint8_t>(s.begin(), s.end());
}

} // namespace

class TestBnb : public QObject {
    Q_OBJECT
private slots:
    void fixtures_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("module");
        QTest::addColumn<int>("path");
        for (const char* v : {"bnb-nf4", "bnb-fp4", "bnb-nf4-doublequant", "bnb-fp4-doublequant"})
            for (const char* m : kModules)
                for (SimdPath p : qsk::simdPaths())
                    QTest::addRow("%s %s %s", v, m, simdPathName(p).data()) << v << m << int(p);
    }
    void fixtures()
    {
        QFETCH(QString, variant);
        QFETCH(QString, module);
        QFETCH(int, path);
        const auto ck = qsk::openFixture(variant, "model.safetensors");
        const auto ref = qsk::openFixture(variant, "ref.safetensors");
        const std::string m = module.toStdString();
        const TensorEntry* r = ref->find(m + ".weight");
        QVERIFY(r);
        const bool fp4 = variant.contains(QStringLiteral("fp4"));
        const LogicalWeight w = bnbWeight(*ck, m, fp4, variant.contains(QStringLiteral("double")), r->shape);
        const auto ours = qsk::run(dequantBnb4Rows, *ck, w, SimdPath(path));
        const auto expect = qsk::floats(*ref, m + ".weight");
        QSK_COMPARE_BITS(ours, expect, DType::F16);
        // The stored quant_map is the table the kernels hard-code (upstream ignores the stored one).
        const auto map = qsk::floats(*ck, m + ".weight.quant_map");
        for (int i = 0; i < 16; ++i)
            QCOMPARE(std::bit_cast<uint32_t>(map[i]), std::bit_cast<uint32_t>((fp4 ? kBnbFp4 : kBnbNf4)[i]));
        // A row sub-range gives the same bits as the whole.
        const uint64_t K = r->shape[1];
        const auto part = qsk::run(dequantBnb4Rows, *ck, w, SimdPath(path), 3, 7);
        QVERIFY(std::memcmp(part.data(), ours.data() + 3 * K, part.size() * 4) == 0);
    }

    // Hand-made: odd element count (last low nibble is padding), a short last block, a
    // nested absmax with an offset, special absmax values (and nested map entries); every code
    // through the probes. Block sizes: 64 (the kernels' whole-block loop), 32 and 128, 24 and 33
    // (vectors and bytes across blocks); nested block sizes below, at and beyond 16 blocks.
    void probes_data()
    {
        QTest::addColumn<bool>("fp4");
        QTest::addColumn<bool>("nested");
        QTest::addColumn<int>("probe");
        QTest::addColumn<int>("bs");
        QTest::addColumn<int>("nbs");
        for (bool fp4 : {false, true})
            for (bool nested : {false, true})
                for (auto p : {qsk::Probe::Patterned, qsk::Probe::Random, qsk::Probe::AllMax})
                    for (auto [bs, nbs] : {std::pair{64, 8}, {32, 20}, {128, 3}, {24, 16}, {33, 17}})
                        QTest::addRow("%s %s %s bs %d/%d", fp4 ? "fp4" : "nf4", nested ? "nested" : "plain",
                                      qsk::probeName(p), bs, nbs)
                            << fp4 << nested << int(p) << bs << nbs;
    }
    void probes()
    {
        QFETCH(bool, fp4);
        QFETCH(bool, nested);
        QFETCH(int, probe);
        QFETCH(int, bs);
        QFETCH(int, nbs);
        const uint64_t N = 13, K = 77, n = N * K, nb = (n + bs - 1) / bs; // 1001 codes
        const auto q = qsk::probeCodes(qsk::Probe(probe), N, K, 4);
        std::vector<float> absmax(nb);
        std::vector<uint8_t> codes(nb);
        std::vector<float> nmap(256), nabs((nb + nbs - 1) / nbs);
        const float offset = 0.1f;
        for (int i = 0; i < 256; ++i)
            nmap[i] = static_cast<float>(i - 128) / 127.0f;
        for (size_t j = 0; j < nabs.size(); ++j)
            nabs[j] = j % 2 ? -3.0f : 0.5f;
        // The codes of blocks 1, 2, 3 and 4 (b * 37 + 5 below): Inf, NaN, a subnormal, -0.
        nmap[42] = std::numeric_limits<float>::infinity();
        nmap[79] = std::numeric_limits<float>::quiet_NaN();
        nmap[116] = 1e-39f;
        nmap[153] = -0.0f;
        for (uint64_t b = 0; b < nb; ++b) {
            absmax[b] = 0.01f * static_cast<float>(b + 1);
            codes[b] = static_cast<uint8_t>(b * 37 + 5);
        }
        absmax[3] = std::numeric_limits<float>::infinity(); // inf * 0-code gives NaN, as torch does
        absmax[5] = 1e-40f; // subnormal: kept, no flush to zero
        absmax[7] = -2.0f;
        std::vector<qsk::T> ts{
            {"m.weight", DType::U8, {(n + 1) / 2, 1}, packBnb(q)},
            {"m.weight.quant_map",
             DType::F32,
             {16},
             qsk::bytesOf(std::vector<float>(fp4 ? kBnbFp4 : kBnbNf4, (fp4 ? kBnbFp4 : kBnbNf4) + 16))}};
        std::string js = std::string("{\"quant_type\": \"") + (fp4 ? "fp4" : "nf4")
            + "\", \"blocksize\": " + std::to_string(bs) + ", \"dtype\": \"float16\", \"shape\": [13, 77]";
        if (nested) {
            js += ", \"nested_blocksize\": " + std::to_string(nbs)
                + ", \"nested_dtype\": \"float32\", \"nested_offset\": 0.1";
            ts.push_back({"m.weight.absmax", DType::U8, {nb}, codes});
            ts.push_back({"m.weight.nested_absmax", DType::F32, {nabs.size()}, qsk::bytesOf(nabs)});
            ts.push_back({"m.weight.nested_quant_map", DType::F32, {256}, qsk::bytesOf(nmap)});
        } else {
            ts.push_back({"m.weight.absmax", DType::F32, {nb}, qsk::bytesOf(absmax)});
        }
        js += "}";
        ts.push_back({std::string("m.weight.quant_state.bitsandbytes__") + (fp4 ? "fp4" : "nf4"),
                      DType::U8,
                      {js.size()},
                      jsonBytes(js)});
        // Our packer is the generic oracle's slot layout with order {1, 0} in 8-bit words.
        const std::vector<uint8_t> q8(q.begin(), q.end());
        const int order[] = {1, 0};
        QVERIFY(bitstream::packSlots(q8, 4, 8, order) == packBnb(q));
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "bnb.safetensors", ts));
        const LogicalWeight w = bnbWeight(*ck, "m", fp4, nested, {N, K});
        const auto scalar = qsk::run(dequantBnb4Rows, *ck, w, SimdPath::Scalar);
        const float* table = fp4 ? kBnbFp4 : kBnbNf4;
        std::vector<float> expect(n);
        for (uint64_t e = 0; e < n; ++e) {
            const uint64_t b = e / bs;
            const float a = nested ? qsk::add32(qsk::mul32(nmap[codes[b]], nabs[b / nbs]), offset) : absmax[b];
            expect[e] = qsk::mul32(table[q[e]], a);
        }
        QSK_COMPARE_BITS(scalar, expect, DType::F32);
        for (SimdPath path : qsk::simdPaths()) {
            if (path == SimdPath::Scalar)
                continue;
            const auto fast = qsk::run(dequantBnb4Rows, *ck, w, path);
            QSK_COMPARE_BITS(fast, scalar, DType::F32);
            for (uint64_t r0 = 0; r0 < N; r0 += 3) { // odd row starts: element offsets not 32-aligned
                const auto part = qsk::run(dequantBnb4Rows, *ck, w, path, r0, std::min(N, r0 + 2));
                QVERIFY(std::memcmp(part.data(), scalar.data() + r0 * K, part.size() * 4) == 0);
            }
        }
    }

    void int8_data()
    {
        QTest::addColumn<int>("path");
        for (SimdPath p : qsk::simdPaths())
            QTest::addRow("%s", simdPathName(p).data()) << int(p);
    }
    void int8()
    {
        QFETCH(int, path);
        const uint64_t N = 5, K = 19;
        std::vector<int8_t> q(N * K);
        for (uint64_t i = 0; i < q.size(); ++i)
            q[i] = static_cast<int8_t>(static_cast<int>((i * 53) % 256) - 128);
        q[0] = -128;
        q[1] = 127;
        const std::vector<float> scb{127.0f, -0.5f, std::numeric_limits<float>::infinity(), 1e-39f, 3.3f};
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "int8.safetensors",
                                                 {{"m.weight", DType::I8, {N, K}, qsk::bytesOf(q)},
                                                  {"m.SCB", DType::F32, {N}, qsk::bytesOf(scb)},
                                                  {"m.weight_format", DType::U8, {}, {0}}}));
        const LogicalWeight w =
            qsk::weight(*ck, "m", "bnb-int8", {N, K}, {{"weight", "m.weight"}, {"SCB", "m.SCB"}}, 8);
        const auto ours = qsk::run(dequantBnbInt8Rows, *ck, w, SimdPath(path));
        // Hand-worked: q = 127, SCB = 127 -> 16129 * fl32(1/127) = 126.99999953 -> f32 127.
        QCOMPARE(ours[1], 127.0f);
        // q = -128, SCB = 127: -16256 * fl32(1/127) = -127.99999952 -> f32 -128.
        QCOMPARE(ours[0], -128.0f);
        std::vector<float> expect(N * K);
        const float inv127 = static_cast<float>(1.0 / 127.0);
        for (uint64_t r = 0; r < N; ++r)
            for (uint64_t k = 0; k < K; ++k)
                expect[r * K + k] = qsk::mul32(qsk::mul32(static_cast<float>(q[r * K + k]), scb[r]), inv127);
        QSK_COMPARE_BITS(ours, expect, DType::F32);
    }

    void badInput()
    {
        QTemporaryDir tmp;
        const std::string js =
            "{\"quant_type\": \"nf4\", \"blocksize\": 64, \"dtype\": \"float16\", \"shape\": [4, 64]}";
        const auto ck = qsk::openFile(
            qsk::write(tmp.path(), "bad.safetensors",
                       {{"m.weight", DType::U8, {128, 1}, std::vector<uint8_t>(128)},
                        {"m.weight.absmax", DType::F32, {3}, qsk::bytesOf(std::vector<float>{1, 2, 3})},
                        {"m.weight.quant_map", DType::F32, {16}, qsk::bytesOf(std::vector<float>(16))},
                        {"m.weight.quant_state.bitsandbytes__nf4", DType::U8, {js.size()}, jsonBytes(js)}}));
        const LogicalWeight w = bnbWeight(*ck, "m", false, false, {4, 64});
        try {
            qsk::run(dequantBnb4Rows, *ck, w, SimdPath::Scalar);
            QFAIL("absmax with 3 of 4 blocks was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("'m'") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("absmax") != std::string::npos, e.what());
        }
        LogicalWeight big = w;
        big.shape = {4, 65};
        QVERIFY_THROWS_EXCEPTION(Error, qsk::run(dequantBnb4Rows, *ck, big, SimdPath::Scalar));
    }

    // The whole chain: openCheckpoint (reader, configs, detection) -> dispatcher -> kernel.
    void throughDetection_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("path");
        for (const char* v : {"bnb-nf4", "bnb-fp4", "bnb-nf4-doublequant", "bnb-fp4-doublequant"})
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
            QCOMPARE(w->format, std::string(variant.contains(QStringLiteral("fp4")) ? "bnb-fp4" : "bnb-nf4"));
            const auto ours = dequantizeWeight(*ck, *w, SimdPath(path));
            QSK_COMPARE_BITS(ours, qsk::floats(*ref, std::string(r.name)), DType::F16);
            ++checked;
        }
        QVERIFY(checked > 0);
    }

    // The bit map's absmax (blockValues, nested codes decoded) is the one the kernel multiplies by.
    void blockValuesAbsmax_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : {"bnb-nf4", "bnb-fp4", "bnb-nf4-doublequant", "bnb-fp4-doublequant"})
            QTest::addRow("%s", v) << v;
    }
    void blockValuesAbsmax()
    {
        QFETCH(QString, variant);
        const auto ck = openCheckpoint(
            (qstest::fixture(QStringLiteral("safetensors/") + variant) + QStringLiteral("/model.safetensors"))
                .toStdString());
        const LogicalWeight& w = ck->weights.at(0);
        const Bnb4 state = bnb4State(WeightData{*ck, w});
        const LayoutSpec* spec = findLayoutSpec(w.format);
        QVERIFY(spec);
        const LayoutParams p = layoutParams(w);
        std::vector<float> row(p.K);
        for (uint64_t n : {uint64_t(0), p.N - 1}) {
            bnb4ElementsScalar(state, n * p.K, p.K, row.data());
            for (uint64_t k = 0; k < p.K; k += 7) {
                const BlockValues b = blockValues(*ck, w, n, k, false);
                QVERIFY(b.hasBlock);
                QCOMPARE(b.block, (n * p.K + k) / state.blocksize);
                // Nested: also the u8 code with its map entry, the second-level scale and the offset.
                QCOMPARE(b.values.size(), size_t(state.nested ? 4 : 1));
                if (state.nested) {
                    const uint8_t c = state.absmaxCodes[b.block];
                    QCOMPARE(int(b.values[1].kind), int(BlockValueKind::AbsmaxCode));
                    QCOMPARE(b.values[1].raw, uint64_t(c));
                    QCOMPARE(b.values[1].value, double(state.nestedMap.at(c)));
                    QCOMPARE(int(b.values[2].kind), int(BlockValueKind::AbsmaxScale));
                    QCOMPARE(b.values[2].index, int(b.block / state.nestedBlocksize));
                    QCOMPARE(b.values[2].value, double(state.nestedAbsmax.at(b.block / state.nestedBlocksize)));
                    QCOMPARE(int(b.values[3].kind), int(BlockValueKind::AbsmaxOffset));
                    QCOMPARE(b.values[3].value, double(state.nestedOffset));
                }
                const BlockValue& v = b.values[0];
                QCOMPARE(int(v.kind), int(BlockValueKind::Absmax));
                QCOMPARE(int(v.rawBits), state.nested ? 8 : int(dtypeBits(state.absmax.dtype())));
                const uint64_t code = elementValues(*ck, w, *spec, p, n, k).code;
                const float want = state.table()[code] * float(v.value);
                QCOMPARE(std::bit_cast<uint32_t>(row[k]), std::bit_cast<uint32_t>(want));
            }
        }
        QVERIFY_THROWS_EXCEPTION(Error, blockValues(*ck, w, p.N, 0, false));
    }
};

QTEST_GUILESS_MAIN(TestBnb)
#include "tst_bnb.moc"
