// Plain float weights: every F8 code against hand-worked values, all 65536 F16 / BF16
// patterns, F32 identity, F64 rounding, 3-D shapes, scalar vs AVX2 on every dtype.
#include "kernel_testutil.h"
#include "formats/plain/floats.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace qs;

namespace {

std::vector<uint8_t> allBytes()
{
    std::vector<uint8_t> b(256);
    for (int i = 0; i < 256; ++i)
        b[i] = static_cast<uint8_t>(i);
    return b;
}

uint32_t bits(float f)
{
    return std::bit_cast<uint32_t>(f);
}

} // namespace

class TestFloats : public QObject {
    Q_OBJECT
private slots:
    void f8HandWorked()
    {
        // float8_e4m3fn: bias 7, no inf, S.1111.111 = NaN, max 448.
        QCOMPARE(f8e4m3ToF32(0x38), 1.0f);
        QCOMPARE(f8e4m3ToF32(0x7E), 448.0f);
        QCOMPARE(f8e4m3ToF32(0xFE), -448.0f);
        QCOMPARE(f8e4m3ToF32(0x08), std::ldexp(1.0f, -6)); // smallest normal
        QCOMPARE(f8e4m3ToF32(0x01), std::ldexp(1.0f, -9)); // smallest subnormal
        QCOMPARE(f8e4m3ToF32(0x07), 7 * std::ldexp(1.0f, -9));
        QCOMPARE(f8e4m3ToF32(0x78), 256.0f); // e = 15 is a normal exponent
        QVERIFY(std::isnan(f8e4m3ToF32(0x7F)) && std::isnan(f8e4m3ToF32(0xFF)));
        QCOMPARE(bits(f8e4m3ToF32(0x80)), 0x80000000u);
        // float8_e5m2: bias 15, IEEE inf / NaN, max 57344.
        QCOMPARE(f8e5m2ToF32(0x3C), 1.0f);
        QCOMPARE(f8e5m2ToF32(0x7B), 57344.0f);
        QCOMPARE(f8e5m2ToF32(0x01), std::ldexp(1.0f, -16));
        QVERIFY(std::isinf(f8e5m2ToF32(0x7C)) && f8e5m2ToF32(0xFC) < 0);
        QVERIFY(std::isnan(f8e5m2ToF32(0x7D)));
        // fnuz: bias +1, 0x80 the only NaN, no inf.
        QCOMPARE(f8e4m3fnuzToF32(0x40), 1.0f);
        QCOMPARE(f8e4m3fnuzToF32(0x7F), 240.0f);
        QCOMPARE(f8e4m3fnuzToF32(0x01), std::ldexp(1.0f, -10));
        QVERIFY(std::isnan(f8e4m3fnuzToF32(0x80)));
        QCOMPARE(f8e5m2fnuzToF32(0x40), 1.0f);
        QCOMPARE(f8e5m2fnuzToF32(0x7F), 57344.0f);
        QVERIFY(std::isnan(f8e5m2fnuzToF32(0x80)));
        // e8m0: 2^(e-127), 0xFF NaN.
        QCOMPARE(f8e8m0ToF32(127), 1.0f);
        QCOMPARE(f8e8m0ToF32(0), std::ldexp(1.0f, -127));
        QCOMPARE(f8e8m0ToF32(254), std::ldexp(1.0f, 127));
        QVERIFY(std::isnan(f8e8m0ToF32(255)));
    }

    void tensors_data()
    {
        QTest::addColumn<int>("dtype");
        for (DType t : {DType::F8_E4M3, DType::F8_E5M2, DType::F8_E4M3FNUZ, DType::F8_E5M2FNUZ, DType::F8_E8M0,
                        DType::F16, DType::BF16, DType::F32, DType::F64})
            QTest::addRow("%s", dtypeName(t).data()) << int(t);
    }
    void tensors()
    {
        QFETCH(int, dtype);
        const DType t = DType(dtype);
        std::vector<uint8_t> data;
        std::vector<float> expect;
        if (dtypeBits(t) == 8) {
            data = allBytes();
            for (int i = 0; i < 256; ++i)
                expect.push_back(FloatView(data, t, "x").at(i));
        } else if (t == DType::F16 || t == DType::BF16) {
            std::vector<uint16_t> h(65536);
            for (uint32_t i = 0; i < 65536; ++i) {
                h[i] = static_cast<uint16_t>(i);
                expect.push_back(t == DType::F16 ? halfToFloat(h[i]) : bf16ToFloat(h[i]));
            }
            data = qsk::bytesOf(h);
        } else if (t == DType::F32) {
            std::vector<float> f{0.0f, -0.0f, 1e-45f, 3.4e38f, -1.5f, INFINITY, 1.0f / 3.0f, 7.0f};
            expect = f;
            data = qsk::bytesOf(f);
        } else {
            // F64 -> f32 rounds to nearest even (torch .float()); 1 + 2^-24 is a tie that goes to 1.
            const std::vector<double> d{
                1.0 + std::ldexp(1.0, -24), 1.0 + 3 * std::ldexp(1.0, -24), 1e300, -1e-300, 0.1, -2.5, 1e-40, 65504.0};
            expect = {1.0f, 1.0f + std::ldexp(1.0f, -22), INFINITY, -0.0f, 0.1f, -2.5f, 1e-40f, 65504.0f};
            data = qsk::bytesOf(d);
        }
        if (t == DType::F32 || t == DType::F64) { // 16 values: two rows per half of the 3-D shape
            const size_t m = expect.size();
            for (size_t i = 0; i < m; ++i)
                expect.push_back(-expect[i]);
            const size_t eb = data.size();
            data.resize(2 * eb);
            std::memcpy(data.data() + eb, data.data(), eb);
            for (size_t i = 0; i < m; ++i) // flip the sign bit (the last byte's top bit, little-endian)
                data[eb + (i + 1) * (eb / m) - 1] ^= 0x80;
        }
        const uint64_t n = expect.size(), rows = n / 8;
        QTemporaryDir tmp;
        const auto ck =
            qsk::openFile(qsk::write(tmp.path(), "f.safetensors", {{"x.weight", t, {2, rows / 2, 8}, data}}));
        const LogicalWeight w =
            qsk::weight(*ck, "x.weight", std::string(dtypeName(t)), {2, rows / 2, 8}, {{"weight", "x.weight"}});
        for (SimdPath p : qsk::simdPaths()) {
            const auto ours = qsk::run(dequantFloatRows, *ck, w, p);
            QSK_COMPARE_BITS(ours, expect, DType::F32);
            const auto part = qsk::run(dequantFloatRows, *ck, w, p, 1, rows - 1);
            QCOMPARE(part.size(), ours.size() - 16);
            // memcmp with a null pointer is undefined even for zero bytes (two-row dtypes).
            QVERIFY(part.empty() || std::memcmp(part.data(), ours.data() + 8, part.size() * 4) == 0);
        }
    }

    void notDecodable()
    {
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(
            qsk::write(tmp.path(), "f4.safetensors", {{"x.weight", DType::F4, {4, 8}, std::vector<uint8_t>(16)}}));
        const LogicalWeight w = qsk::weight(*ck, "x.weight", "f4", {4, 8}, {{"weight", "x.weight"}});
        try {
            qsk::run(dequantFloatRows, *ck, w, SimdPath::Scalar);
            QFAIL("F4 was decoded");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("x.weight") != std::string::npos, e.what());
        }
        LogicalWeight wrong = w;
        wrong.shape = {5, 8};
        QVERIFY_THROWS_EXCEPTION(Error, qsk::run(dequantFloatRows, *ck, wrong, SimdPath::Scalar));
    }
};

QTEST_GUILESS_MAIN(TestFloats)
#include "tst_floats.moc"
