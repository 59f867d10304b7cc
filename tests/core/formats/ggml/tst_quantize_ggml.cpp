// ggml reference quantizers: our bytes equal ggml's on the fixture sources, serial and
// parallel paths agree, and the closed-form rules of spec 2.8 hold on hand-made blocks.
#include "formats/ggml/quantize_ggml.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "base/half.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace {

std::shared_ptr<const qs::Checkpoint> load(const char* rel)
{
    return qs::openCheckpoint(qstest::fixture(QString::fromLatin1(rel)).toStdString());
}

struct Type {
    const char* suffix;
    int id;
    bool k; // 256-weight blocks: the "real" source comes as [64 x 256]
};
constexpr Type kTypes[] = {
    {"f32", 0, false},  {"f16", 1, false},  {"bf16", 30, false}, {"q4_0", 2, false}, {"q4_1", 3, false},
    {"q5_0", 6, false}, {"q5_1", 7, false}, {"q8_0", 8, false},  {"q2_k", 10, true}, {"q3_k", 11, true},
    {"q4_k", 12, true}, {"q5_k", 13, true}, {"q6_k", 14, true},
};

// Rows that take every branch of the scale searches, a different kind per 16 weights so that
// neighbouring sub-blocks (the lanes of the SIMD searches) disagree: normal weights, flat and
// zero runs, one outlier, all positive or all negative (the min clamp), values on a grid (ties),
// magnitudes near the 1e-15 cut-off, subnormals, huge values, -0, infinities and NaNs.
std::vector<float> adversarialRows(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.f, 1.f);
    std::vector<float> x(n);
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t g = 0; g < n; g += 16) {
        const unsigned kind = rng() % 14;
        const float scale = std::ldexp(1.f, int(rng() % 40) - 20);
        for (size_t i = g; i < std::min(n, g + 16); ++i) {
            const float r = normal(rng);
            switch (kind) {
            case 0: x[i] = r * scale; break;
            case 1: x[i] = 0.f; break;
            case 2: x[i] = 0.37f * scale; break;
            case 3: x[i] = i == g + rng() % 16 ? 1000.f * scale : r * scale * 0.01f; break;
            case 4: x[i] = std::fabs(r) * scale + scale; break;
            case 5: x[i] = -std::fabs(r) * scale; break;
            case 6: x[i] = float(int(rng() % 17) - 8) * 0.5f * scale; break;
            case 7: x[i] = r * 1e-15f; break;
            case 8: x[i] = r * 1e-40f; break;
            case 9: x[i] = r * 1e30f; break;
            case 10: x[i] = (rng() & 1) ? -0.f : 0.f; break;
            case 11: x[i] = rng() % 8 == 0 ? ((rng() & 1) ? inf : -inf) : r; break;
            case 12: x[i] = rng() % 8 == 0 ? nan : r; break;
            default: x[i] = float(int(rng() % 3) - 1) * scale; break;
            }
        }
    }
    return x;
}

float halfAt(const std::vector<uint8_t>& b, size_t off)
{
    return qs::halfToFloat(uint16_t(b[off] | (b[off + 1] << 8)));
}

} // namespace

class TestQuantizeGgml : public QObject {
    Q_OBJECT
private slots:
    void matchesGgml_data()
    {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("type");
        for (const char* src : {"synthetic", "synthetic4096", "real"})
            for (const Type& t : kTypes) {
                const QString tensor = QStringLiteral("%1.%2").arg(QLatin1String(src), QLatin1String(t.suffix));
                QString source = QStringLiteral("source.") + QLatin1String(src);
                if (t.k && QLatin1String(src) == QLatin1String("real"))
                    source += QStringLiteral("_256");
                QTest::addRow("%s", qPrintable(tensor)) << tensor << source << t.id;
            }
    }
    void matchesGgml()
    {
        QFETCH(QString, tensor);
        QFETCH(QString, source);
        QFETCH(int, type);
        static const auto quant = load("gguf/ggml-types.gguf");
        static const auto ref = load("gguf/ggml-types.ref.gguf");
        const qs::TensorEntry* src = ref->find(source.toStdString());
        const qs::TensorEntry* want = quant->find(tensor.toStdString());
        QVERIFY(src && want);
        QCOMPARE(src->shape.size(), size_t(2));
        const uint64_t rows = src->shape[0], cols = src->shape[1];
        const auto srcBytes = ref->bytes(*src);
        QCOMPARE(uint64_t(srcBytes.size()), rows * cols * 4);
        std::vector<float> x(rows * cols);
        std::memcpy(x.data(), srcBytes.data(), srcBytes.size());

        const std::vector<uint8_t> serial = qs::quantizeGgml(type, x.data(), rows, cols, false);
        const auto expected = quant->bytes(*want);
        QCOMPARE(uint64_t(serial.size()), uint64_t(expected.size()));
        QCOMPARE(qs::ggmlQuantizedBytes(type, rows, cols), uint64_t(expected.size()));
        size_t firstBad = serial.size();
        for (size_t i = 0; i < serial.size() && firstBad == serial.size(); ++i)
            if (serial[i] != expected[i])
                firstBad = i;
        QCOMPARE(firstBad, serial.size());
        QVERIFY(qs::quantizeGgml(type, x.data(), rows, cols, true) == serial);
    }

    // Every SIMD path this CPU has writes the scalar path's bytes, type by type.
    void simdPathsMatchScalar_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("path");
        for (const qs::SimdPath p : qs::cpuSimdPaths())
            if (p != qs::SimdPath::Scalar)
                for (const int t : qs::ggmlQuantizableTypes())
                    QTest::addRow("%s type %d", qs::simdPathName(p).data(), t) << t << int(p);
        if (qs::cpuSimdPaths().size() == 1)
            QSKIP("this CPU has no SIMD path: only the scalar quantizers run");
    }
    void simdPathsMatchScalar()
    {
        QFETCH(int, type);
        QFETCH(int, path);
        // 1027 weights per row for the element types: a tail after the last 8-wide step.
        const uint64_t rows = 24, cols = qs::ggmlQuantBlockWeights(type) == 1 ? 1027 : 1024;
        for (uint32_t seed = 1; seed <= 8; ++seed) {
            std::vector<float> x = adversarialRows(rows * cols, seed);
            if (seed == 8) // every exponent: ties, overflow, subnormals, every NaN payload class
                for (size_t i = 0; i < x.size(); ++i)
                    x[i] = std::bit_cast<float>(uint32_t(0x33000000u + uint32_t(i) * 0x00FFF001u));
            // An input NaN's payload reaches the codes through nearest_int, and where two NaNs meet
            // x86 returns the first operand while compilers take + and * as commutative: which
            // payload wins is not defined even between two builds of ggml. Block types get
            // infinities (whose NaNs all carry the one default payload) but no input NaN.
            if (qs::ggmlQuantBlockWeights(type) > 1)
                for (float& v : x)
                    if (std::isnan(v))
                        v = 1.5f;
            std::vector<uint8_t> scalar(qs::ggmlQuantizedBytes(type, rows, cols)), fast(scalar.size());
            qs::quantizeGgmlInto(type, x.data(), rows, cols, scalar.data(), false, qs::SimdPath::Scalar);
            qs::quantizeGgmlInto(type, x.data(), rows, cols, fast.data(), true, qs::SimdPath(path));
            size_t firstBad = 0;
            while (firstBad < scalar.size() && scalar[firstBad] == fast[firstBad])
                ++firstBad;
            if (firstBad != scalar.size())
                qWarning("seed %u: first differing byte %zu of %zu", seed, firstBad, scalar.size());
            QCOMPARE(firstBad, scalar.size());
        }
    }

    void q4_0PutsTheExtremeOnCodeZero()
    {
        // max |x| = -4 (negative): d = -4 / -8 = 0.5, the extreme maps to code 0 (-8 * d = -4).
        std::vector<float> x(32, 0.0f);
        x[0] = -4.0f;
        x[1] = 3.5f;
        x[16] = 1.2f; // 1.2 / 0.5 + 8.5 = 10.9 -> 10
        x[17] = 0.25f; // tie at 0.5 + 8.5 = 9.0 -> 9
        const auto b = qs::quantizeGgml(2, x.data(), 1, 32);
        QCOMPARE(b.size(), size_t(18));
        QCOMPARE(halfAt(b, 0), 0.5f);
        QCOMPARE(b[2] & 0xF, 0); // x[0]
        QCOMPARE(b[3] & 0xF, 15); // x[1]: 3.5/0.5 + 8.5 = 15.5 -> min(15, 15)
        QCOMPARE(b[2] >> 4, 10); // x[16]
        QCOMPARE(b[3] >> 4, 9); // x[17]
        QCOMPARE(b[4] & 0xF, 8); // zeros -> 8
    }

    void q8_0RoundsHalfAwayFromZero()
    {
        std::vector<float> x(32, 0.0f);
        x[0] = 127.0f; // d = 1
        x[1] = 2.5f;
        x[2] = -2.5f;
        x[3] = -127.0f;
        const auto b = qs::quantizeGgml(8, x.data(), 1, 32);
        QCOMPARE(halfAt(b, 0), 1.0f);
        QCOMPARE(int8_t(b[2]), int8_t(127));
        QCOMPARE(int8_t(b[3]), int8_t(3));
        QCOMPARE(int8_t(b[4]), int8_t(-3));
        QCOMPARE(int8_t(b[5]), int8_t(-127));
    }

    void q4_1UsesMinAndRange()
    {
        std::vector<float> x(32);
        for (int i = 0; i < 32; ++i)
            x[size_t(i)] = -1.0f + float(i % 16) * 0.25f; // min -1, max 2.75
        const auto b = qs::quantizeGgml(3, x.data(), 1, 32);
        QCOMPARE(halfAt(b, 0), 0.25f); // 3.75 / 15
        QCOMPARE(halfAt(b, 2), -1.0f);
        for (int j = 0; j < 16; ++j) {
            QCOMPARE(b[size_t(4 + j)] & 0xF, j);
            QCOMPARE(b[size_t(4 + j)] >> 4, j);
        }
    }

    void zeroBlocksGiveZeroBytes_data()
    {
        QTest::addColumn<int>("type");
        for (int t : {2, 6, 8, 10, 11, 12, 13, 14})
            QTest::addRow("type %d", t) << t;
    }
    void zeroBlocksGiveZeroBytes()
    {
        QFETCH(int, type);
        const std::vector<float> x(256, 0.0f);
        const auto b = qs::quantizeGgml(type, x.data(), 1, 256);
        // Every scale is zero, so every weight decodes to zero; check the scale fields.
        if (type == 2 || type == 6 || type == 8) {
            const uint32_t bs = qs::ggmlQuantBlockBytes(type);
            for (size_t blk = 0; blk < 8; ++blk)
                QCOMPARE(halfAt(b, blk * bs), 0.0f);
        } else if (type == 14) {
            for (uint8_t v : b)
                QCOMPARE(v, uint8_t(0));
        } else {
            const size_t dOff = type == 10 ? 80 : type == 11 ? 108 : 0;
            QCOMPARE(halfAt(b, dOff), 0.0f);
        }
    }

    void rejectsBadShapes()
    {
        const std::vector<float> x(300, 1.0f);
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeGgml(12, x.data(), 1, 300)); // not a multiple of 256
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeGgml(2, x.data(), 1, 33));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::quantizeGgml(16, x.data(), 1, 256)); // IQ2_XXS: no reference quantizer
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::ggmlQuantizedBytes(2, ~0ull, 1ull << 40));
        QVERIFY(!qs::ggmlCanQuantize(99));
        QCOMPARE(qs::ggmlQuantizableTypes().size(), size_t(13));
    }
};

QTEST_GUILESS_MAIN(TestQuantizeGgml)
#include "tst_quantize_ggml.moc"
