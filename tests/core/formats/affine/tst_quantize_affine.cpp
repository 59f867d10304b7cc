// Affine round-to-nearest: each rule reproduces its upstream tool on the fixtures
// (compressed-tensors and AutoAWQ fully; AutoGPTQ where GPTQ itself is plain RTN: the first
// group's scales and zeros and the first input column), plus hand arithmetic.
#include "formats/affine/quantize_affine.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "base/half.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

struct Module {
    const char* name;
    const char* source;
    uint64_t n, k;
};
constexpr Module kModules[] = {
    {"model.layers.0.mlp.down_proj", "synthetic.W_128x256", 128, 256},
    {"model.layers.0.self_attn.q_proj", "stories260K.layers.0.wq", 64, 64},
    {"model.layers.0.mlp.gate_proj", "stories260K.layers.0.w1", 172, 64},
};

std::vector<float> source(const char* name, bool roundToF16)
{
    static const auto src =
        qs::openCheckpoint(qstest::fixture(QStringLiteral("safetensors/sources.safetensors")).toStdString());
    const auto b = src->bytes(*src->find(name));
    std::vector<float> x(b.size() / 4);
    std::memcpy(x.data(), b.data(), x.size() * 4);
    if (roundToF16)
        for (float& f : x)
            f = qs::halfToFloat(qs::floatToHalf(f));
    return x;
}

template <typename T>
std::vector<T> tensor(const qs::Checkpoint& ck, const std::string& name)
{
    const qs::TensorEntry* t = ck.find(name);
    if (!t)
        return {};
    const auto b = ck.bytes(*t);
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    return v;
}

std::shared_ptr<const qs::Checkpoint> variant(const QString& v)
{
    return qs::openCheckpoint(
        qstest::fixture(QStringLiteral("safetensors/") + v + QStringLiteral("/model.safetensors")).toStdString());
}

} // namespace

class TestQuantizeAffine : public QObject {
    Q_OBJECT
private slots:
    void compressedTensors_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addColumn<bool>("sym");
        QTest::addColumn<int>("module");
        const struct {
            const char* v;
            int bits, group;
            bool sym;
        } vs[] = {{"ct-pack-w4a16-channel-asym", 4, 0, false},
                  {"ct-pack-w4a16-g128-sym", 4, 128, true},
                  {"ct-pack-w4a16-g32-asym", 4, 32, false},
                  {"ct-pack-w8a16-channel-sym", 8, 0, true}};
        for (const auto& v : vs)
            for (int m = 0; m < 3; ++m)
                if (v.group == 0 || (v.group == 32 && m < 2) || (v.group == 128 && m == 0))
                    QTest::addRow("%s %s", v.v, kModules[m].name)
                        << QString::fromLatin1(v.v) << v.bits << v.group << v.sym << m;
    }
    void compressedTensors()
    {
        QFETCH(QString, variant);
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(bool, sym);
        QFETCH(int, module);
        const Module& m = kModules[module];
        const auto ck = ::variant(variant);
        const std::string pre = std::string(m.name) + ".";
        const auto packed = tensor<uint32_t>(*ck, pre + "weight_packed");
        QVERIFY(!packed.empty());
        const std::vector<float> x = source(m.source, false); // compressed-tensors ran on float32
        qs::AffineOptions o;
        o.bits = bits;
        o.granularity = group ? qs::AffineGranularity::Group : qs::AffineGranularity::Channel;
        o.groupSize = uint64_t(group);
        o.symmetric = sym;
        o.rule = qs::AffineRule::CompressedTensors;
        const qs::AffineQuantized q = qs::quantizeAffine(x.data(), m.n, m.k, o);

        const uint64_t pf = 32 / uint64_t(bits), words = (m.k + pf - 1) / pf, mask = (1u << bits) - 1;
        size_t bad = 0;
        for (uint64_t n = 0; n < m.n; ++n)
            for (uint64_t k = 0; k < m.k; ++k)
                bad += ((packed[n * words + k / pf] >> (uint64_t(bits) * (k % pf))) & mask) != q.codes[n * m.k + k];
        QCOMPARE(bad, size_t(0));
        const auto scale = tensor<float>(*ck, pre + "weight_scale"); // [N, G]
        QCOMPARE(uint64_t(scale.size()), m.n * q.groups);
        for (uint64_t n = 0; n < m.n; ++n)
            for (uint64_t g = 0; g < q.groups; ++g)
                QCOMPARE(scale[n * q.groups + g], q.scales[g * m.n + n]);
        const auto zp = tensor<uint32_t>(*ck, pre + "weight_zero_point"); // packed along N
        QCOMPARE(zp.empty(), sym);
        for (uint64_t n = 0; n < m.n && !sym; ++n)
            for (uint64_t g = 0; g < q.groups; ++g)
                QCOMPARE(float((zp[(n / pf) * q.groups + g] >> (uint64_t(bits) * (n % pf))) & mask),
                         q.zeros[g * m.n + n]);

        // Packed as compressed-tensors stores it: every tensor byte for byte.
        const auto packedOut = qs::packAffine(q, qs::AffineTarget::CompressedTensors, qs::DType::F32);
        QCOMPARE(packedOut.size(), size_t(sym ? 3 : 4));
        for (const qs::StoredTensor& t : packedOut) {
            const qs::TensorEntry* e = ck->find(pre + t.suffix);
            QVERIFY2(e, t.suffix.c_str());
            QCOMPARE(t.shape, e->shape);
            QCOMPARE(t.dtype, e->dtype);
            const auto want = ck->bytes(*e);
            QVERIFY2(t.bytes.size() == want.size() && std::memcmp(t.bytes.data(), want.data(), want.size()) == 0,
                     t.suffix.c_str());
        }
    }

    void awq_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("module");
        // The fixtures hold the modules whose K the group divides, gate_proj (K = 64) only
        // per channel: down_proj for g128, down_proj and q_proj for g32.
        for (int g : {128, 32})
            for (int m = 0; m < (g == 32 ? 2 : 1); ++m)
                QTest::addRow("awq g%d %s", g, kModules[m].name) << QStringLiteral("awq-gemm-w4-g%1").arg(g) << g << m;
    }
    void awq()
    {
        QFETCH(QString, variant);
        QFETCH(int, group);
        QFETCH(int, module);
        const Module& m = kModules[module];
        const auto ck = ::variant(variant);
        const std::string pre = std::string(m.name) + ".";
        const auto qweight = tensor<uint32_t>(*ck, pre + "qweight"); // [K, N/8], AWQ order
        QVERIFY(!qweight.empty());
        const std::vector<float> x = source(m.source, true);
        qs::AffineOptions o;
        o.bits = 4;
        o.groupSize = uint64_t(group);
        o.rule = qs::AffineRule::Awq;
        const qs::AffineQuantized q = qs::quantizeAffine(x.data(), m.n, m.k, o);
        static const int kSlot[8] = {0, 4, 1, 5, 2, 6, 3, 7}; // AWQ_REVERSE_ORDER
        size_t bad = 0;
        for (uint64_t k = 0; k < m.k; ++k)
            for (uint64_t n = 0; n < m.n; ++n)
                bad += ((qweight[k * (m.n / 8) + n / 8] >> (4 * kSlot[n % 8])) & 15) != q.codes[n * m.k + k];
        QCOMPARE(bad, size_t(0));
        const auto scales = tensor<uint16_t>(*ck, pre + "scales"); // f16 [G, N]
        const auto qzeros = tensor<uint32_t>(*ck, pre + "qzeros");
        QCOMPARE(uint64_t(scales.size()), q.groups * m.n);
        for (uint64_t i = 0; i < scales.size(); ++i)
            QCOMPARE(scales[i], qs::floatToHalf(q.scales[i]));
        for (uint64_t g = 0; g < q.groups; ++g)
            for (uint64_t n = 0; n < m.n; ++n)
                QCOMPARE(float((qzeros[g * (m.n / 8) + n / 8] >> (4 * kSlot[n % 8])) & 15), q.zeros[g * m.n + n]);

        // Through the AWQ GEMM packer: the fixture's tensors byte for byte.
        for (const qs::StoredTensor& t : qs::packAffine(q, qs::AffineTarget::AwqGemm)) {
            const qs::TensorEntry* e = ck->find(pre + t.suffix);
            QVERIFY2(e, t.suffix.c_str());
            QCOMPARE(t.shape, e->shape);
            const auto want = ck->bytes(*e);
            QVERIFY2(t.bytes.size() == want.size() && std::memcmp(t.bytes.data(), want.data(), want.size()) == 0,
                     t.suffix.c_str());
        }
    }

    void gptqFirstGroup_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addColumn<bool>("sym");
        QTest::addColumn<int>("module");
        const struct {
            const char* v;
            int bits, group;
            bool sym;
        } vs[] = {{"gptq-w2-g32-asym", 2, 32, false}, {"gptq-w3-g128-sym", 3, 128, true},
                  {"gptq-w3-g32-asym", 3, 32, false}, {"gptq-w4-g128-sym", 4, 128, true},
                  {"gptq-w4-g32-asym", 4, 32, false}, {"gptq-w8-g128-sym", 8, 128, true}};
        for (const auto& v : vs)
            for (int m = 0; m < (v.group == 32 ? 2 : 1); ++m)
                QTest::addRow("%s %s", v.v, kModules[m].name)
                    << QString::fromLatin1(v.v) << v.bits << v.group << v.sym << m;
    }
    void gptqFirstGroup()
    {
        // GPTQ computes the first group's scale and zero from the untouched weights and
        // quantizes column 0 before any error feedback: there it is exactly RTN.
        QFETCH(QString, variant);
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(bool, sym);
        QFETCH(int, module);
        const Module& m = kModules[module];
        const auto ck = ::variant(variant);
        const std::string pre = std::string(m.name) + ".";
        const auto qweight = tensor<uint32_t>(*ck, pre + "qweight");
        QVERIFY(!qweight.empty());
        const std::vector<float> x = source(m.source, true); // GPTQ ran on the fp16 layer
        qs::AffineOptions o;
        o.bits = bits;
        o.groupSize = uint64_t(group);
        o.symmetric = sym;
        o.rule = qs::AffineRule::Gptq;
        const qs::AffineQuantized q = qs::quantizeAffine(x.data(), m.n, m.k, o);
        const uint32_t mask = (1u << bits) - 1;

        const auto scales = tensor<uint16_t>(*ck, pre + "scales");
        for (uint64_t n = 0; n < m.n; ++n)
            QCOMPARE(scales[n], qs::floatToHalf(q.scales[n]));
        for (uint64_t n = 0; n < m.n; ++n)
            QCOMPARE(qweight[n] & mask, uint32_t(q.codes[n * m.k]));
        // Row 0 of qzeros as AutoGPTQ's v1 pack() writes it: z - 1 as uint32 OR-ed in at its
        // bit offset, so a zero of 0 floods the higher fields of its word (the upstream quirk).
        const uint64_t zwords = m.n * uint64_t(bits) / 32;
        std::vector<uint32_t> want(zwords, 0);
        for (uint64_t n = 0; n < m.n; ++n) {
            const uint32_t v = uint32_t(int32_t(q.zeros[n]) - 1);
            const uint64_t bit = n * uint64_t(bits), w = bit / 32, sh = bit % 32;
            want[w] |= v << sh;
            if (sh + uint64_t(bits) > 32)
                want[w + 1] |= (v >> (32 - sh)) & ((1u << (sh + uint64_t(bits) - 32)) - 1);
        }
        const auto qzeros = tensor<uint32_t>(*ck, pre + "qzeros");
        for (uint64_t w = 0; w < zwords; ++w)
            QCOMPARE(qzeros[w], want[w]);
    }

    void gptqPacking()
    {
        // Symmetric 4-bit: every zero is 8, so v1 words are 0x77777777 and v2 0x88888888 (spec B.1.1).
        std::vector<float> w(16 * 64);
        for (size_t i = 0; i < w.size(); ++i)
            w[i] = std::sin(float(i)) * 0.05f;
        qs::AffineOptions o;
        o.bits = 4;
        o.groupSize = 32;
        o.symmetric = true;
        const qs::AffineQuantized q = qs::quantizeAffine(w.data(), 64, 16, o);
        const auto v1 = qs::packAffine(q, qs::AffineTarget::GptqV1);
        const auto v2 = qs::packAffine(q, qs::AffineTarget::GptqV2);
        QCOMPARE(v1.size(), size_t(4));
        QCOMPARE(v1[0].suffix, std::string("qweight"));
        QCOMPARE(v1[0].shape, (std::vector<uint64_t>{2, 64}));
        QCOMPARE(v1[1].shape, (std::vector<uint64_t>{1, 8}));
        uint32_t word1, word2;
        std::memcpy(&word1, v1[1].bytes.data(), 4);
        std::memcpy(&word2, v2[1].bytes.data(), 4);
        QCOMPARE(word1, 0x77777777u);
        QCOMPARE(word2, 0x88888888u);
        QCOMPARE(v1[3].suffix, std::string("g_idx"));
        // Codes come back out of qweight: code (n, k) is field k of column n.
        uint32_t col0;
        std::memcpy(&col0, v1[0].bytes.data(), 4);
        for (uint64_t k = 0; k < 8; ++k)
            QCOMPARE((col0 >> (4 * k)) & 15u, uint32_t(q.codes[k]));
        // Asymmetric with a zero of 0 (all weights >= 0): v1 cannot hold it, v2 can.
        std::vector<float> pos(64 * 32);
        for (size_t i = 0; i < pos.size(); ++i)
            pos[i] = float(i % 17);
        o.symmetric = false;
        const qs::AffineQuantized a = qs::quantizeAffine(pos.data(), 64, 32, o);
        QCOMPARE(a.zeros[0], 0.0f);
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::packAffine(a, qs::AffineTarget::GptqV1));
        QCOMPARE(qs::packAffine(a, qs::AffineTarget::GptqV2).size(), size_t(4));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::packAffine(a, qs::AffineTarget::Mlx));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::packAffine(a, qs::AffineTarget::CompressedTensors));
    }

    void mlxPacking()
    {
        std::vector<float> w(8 * 64);
        for (size_t i = 0; i < w.size(); ++i)
            w[i] = std::cos(float(i) * 0.7f);
        qs::AffineOptions o;
        o.bits = 3;
        o.groupSize = 32;
        o.rule = qs::AffineRule::Mlx;
        const qs::AffineQuantized q = qs::quantizeAffine(w.data(), 8, 64, o);
        const auto t = qs::packAffine(q, qs::AffineTarget::Mlx, qs::DType::BF16);
        QCOMPARE(t.size(), size_t(3));
        QCOMPARE(t[0].shape, (std::vector<uint64_t>{8, 6})); // 64 * 3 / 32 words per row
        QCOMPARE(t[1].shape, (std::vector<uint64_t>{8, 2}));
        QCOMPARE(t[2].suffix, std::string("biases"));
        // Row 1's bitstream starts at word 6: code k at bits [3k, 3k + 3).
        for (uint64_t k = 0; k < 64; ++k) {
            const uint64_t bit = 6 * 32 + 3 * k;
            uint32_t v = 0;
            for (int i = 0; i < 2; ++i)
                v |= uint32_t(t[0].bytes[bit / 8 + uint64_t(i)]) << (8 * i);
            QCOMPARE((v >> (bit % 8)) & 7u, uint32_t(q.codes[64 + k]));
        }
        uint16_t s0;
        std::memcpy(&s0, t[1].bytes.data() + 2, 2); // [N, G]: row 0, group 1
        QCOMPARE(s0, qs::floatToBf16(q.scales[1 * 8 + 0]));
    }

    void gptqHandArithmetic()
    {
        // Row [-1, 0, 0.5, 3] asym 2-bit: xmin -1, xmax 3, scale 4/3, zero round(0.75) = 1;
        // codes: round(-0.75)+1 = 0, 0+1 = 1, round(0.375)+1 = 1, round(2.25)+1 = 3.
        const float x[4] = {-1.0f, 0.0f, 0.5f, 3.0f};
        qs::AffineOptions o;
        o.bits = 2;
        o.granularity = qs::AffineGranularity::Channel;
        o.rule = qs::AffineRule::Gptq;
        auto q = qs::quantizeAffine(x, 1, 4, o);
        QCOMPARE(q.scales[0], 4.0f / 3.0f);
        QCOMPARE(q.zeros[0], 1.0f);
        QCOMPARE(q.codes, (std::vector<uint8_t>{0, 1, 1, 3}));
        // Symmetric: xmax = 3, xmin = -3, scale 2, zero (3+1)/2 = 2; round(-0.5) = -0 -> 2,
        // round(0.25) = 0 -> 2, 1.5 -> 2 (half to even) -> 4 clamped to 3.
        o.symmetric = true;
        q = qs::quantizeAffine(x, 1, 4, o);
        QCOMPARE(q.scales[0], 2.0f);
        QCOMPARE(q.zeros[0], 2.0f);
        QCOMPARE(q.codes, (std::vector<uint8_t>{2, 2, 2, 3}));
        const std::vector<float> back = qs::dequantizeAffine(q);
        QCOMPARE(back, (std::vector<float>{0.0f, 0.0f, 0.0f, 2.0f}));
    }

    void groupsTensorAndClipping()
    {
        // 2 rows x 6 columns, groups of 4: the last group of each row is short (2 columns).
        const float x[12] = {0, 1, 2, 3, 10, 20, /**/ -4, 0, 4, 8, -1, 1};
        qs::AffineOptions o;
        o.bits = 4;
        o.groupSize = 4;
        o.rule = qs::AffineRule::Gptq;
        auto q = qs::quantizeAffine(x, 2, 6, o);
        QCOMPARE(q.groups, uint64_t(2));
        QCOMPARE(q.scales.size(), size_t(4));
        QCOMPARE(q.scales[0], 3.0f / 15.0f); // group 0, row 0: [0, 3]
        QCOMPARE(q.scales[1], 12.0f / 15.0f); // group 0, row 1: [-4, 8]
        QCOMPARE(q.scales[2], 20.0f / 15.0f); // group 1, row 0: [0, 20]
        QCOMPARE(q.scales[3], 2.0f / 15.0f); // group 1, row 1: [-1, 1]
        QCOMPARE(q.codes[5], uint8_t(15));
        // Per tensor: one range [-4, 20] for everything, repeated per row.
        o.granularity = qs::AffineGranularity::Tensor;
        q = qs::quantizeAffine(x, 2, 6, o);
        QCOMPARE(q.groups, uint64_t(1));
        QCOMPARE(q.scales[0], 24.0f / 15.0f);
        QCOMPARE(q.scales[1], 24.0f / 15.0f);
        QCOMPARE(q.zeros[0], std::nearbyint(4.0f / (24.0f / 15.0f)));
        // Clipping at 0.5 halves the range: 20 saturates at code 15.
        o.clipRatio = 0.5f;
        q = qs::quantizeAffine(x, 2, 6, o);
        QCOMPARE(q.scales[0], 12.0f / 15.0f);
        QCOMPARE(q.codes[5], uint8_t(15)); // 20 / 0.8 + 2 = 27, clamped
    }

    void mlxEdgeIsExact()
    {
        // Group [-1, 0.5, 2, 3] 2-bit: |min| < |max| so the scale is negative and the edge is
        // max: scale = -(4/3), q0 = rint(3 / -1.333) = -2, scale = 3 / -2 = -1.5, bias 3.
        const float x[4] = {-1.0f, 0.5f, 2.0f, 3.0f};
        qs::AffineOptions o;
        o.bits = 2;
        o.groupSize = 4;
        o.rule = qs::AffineRule::Mlx;
        const auto q = qs::quantizeAffine(x, 1, 4, o);
        QCOMPARE(q.scales[0], -1.5f);
        QCOMPARE(q.zeros[0], 3.0f);
        // (x - 3) / -1.5: 2.667 -> 3, 1.667 -> 2, 0.667 -> 1, 0 -> 0.
        QCOMPARE(q.codes, (std::vector<uint8_t>{3, 2, 1, 0}));
        QCOMPARE(qs::dequantizeAffine(q)[3], 3.0f); // the edge comes back exactly
        o.groupSize = 3;
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
    }

    void rejectsBadOptions()
    {
        const float x[4] = {1, 2, 3, 4};
        qs::AffineOptions o;
        o.bits = 0;
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
        o.bits = 1; // compressed-tensors' signed grid needs two bits
        o.rule = qs::AffineRule::CompressedTensors;
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
        o.rule = qs::AffineRule::Gptq;
        o.groupIndex = {0, 5, 0, 0}; // out of range
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
        o.groupIndex = {0, 1}; // wrong length
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
        o.groupIndex.clear();
        o.bits = 9;
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
        o.bits = 4;
        o.clipRatio = 0.0f;
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
        o.clipRatio = 1.0f;
        o.groupSize = 0;
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, 1, 4, o));
        o.groupSize = 4;
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeAffine(x, ~0ull, ~0ull, o));
    }

    void actOrderAndStoredScale()
    {
        // Columns 0 and 2 in group 1, 1 and 3 in group 0; scales rounded to f16 before coding.
        const float x[4] = {8.0f, 0.1f, -8.0f, -0.1f};
        qs::AffineOptions o;
        o.bits = 4;
        o.groupSize = 2;
        o.symmetric = true;
        o.rule = qs::AffineRule::CompressedTensors;
        o.codeScale = qs::DType::F16;
        o.groupIndex = {1, 0, 1, 0};
        const auto q = qs::quantizeAffine(x, 1, 4, o);
        QCOMPARE(q.groups, uint64_t(2));
        QCOMPARE(q.scales[1], qs::halfToFloat(qs::floatToHalf(16.0f / 15.0f)));
        QCOMPARE(q.scales[0], qs::halfToFloat(qs::floatToHalf(0.2f / 15.0f)));
        QCOMPARE(q.zeros[0], 8.0f);
        QCOMPARE(q.codes, (std::vector<uint8_t>{15, 15, 0, 1})); // 0.1 / 0.013336 = 7.498 -> 7 + 8
        const auto gptq = qs::packAffine(q, qs::AffineTarget::GptqV2);
        QCOMPARE(gptq[3].bytes, (std::vector<uint8_t>{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::packAffine(q, qs::AffineTarget::CompressedTensors));
    }

    void parallelEqualsSerial()
    {
        std::vector<float> x(300 * 512);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = std::cos(float(i) * 0.013f) * float(1 + i % 5);
        for (qs::AffineRule r :
             {qs::AffineRule::Gptq, qs::AffineRule::Awq, qs::AffineRule::CompressedTensors, qs::AffineRule::Mlx}) {
            qs::AffineOptions o;
            o.bits = 3;
            o.groupSize = 64;
            o.rule = r;
            const auto a = qs::quantizeAffine(x.data(), 300, 512, o, false);
            const auto b = qs::quantizeAffine(x.data(), 300, 512, o, true);
            QVERIFY(a.codes == b.codes);
            QVERIFY(a.scales == b.scales);
            QVERIFY(a.zeros == b.zeros);
        }
    }
};

QTEST_GUILESS_MAIN(TestQuantizeAffine)
#include "tst_quantize_affine.moc"
