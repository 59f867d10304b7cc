// MLX affine (2, 3, 4, 5, 6, 8 bits, several group sizes, negative scales, F16/BF16/F32,
// 3-D expert weights) and HQQ (1, 2, 3, 4, 5, 8 bits, axis 0 and 1, F16/BF16/F32) on
// hand-made checkpoints packed by our own packers, expected values from the formulas,
// with the seed probes and scalar-vs-AVX2 agreement.
#include "kernel_probes.h"
#include "kernel_testutil.h"
#include "base/bitstream.h"
#include "formats/hqq/hqq.h"
#include "formats/mlx/mlx.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

using namespace qs;

namespace {

// MLX: one LSB-first bitstream per row, code k at bits [b*k, b*k + b) of the row's uint32 words.
std::vector<uint32_t> packMlx(const std::vector<unsigned>& q, uint64_t rows, uint64_t cols, int b)
{
    const uint64_t words = cols * b / 32;
    std::vector<uint32_t> w(rows * words, 0);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            for (int i = 0; i < b; ++i) {
                const uint64_t bit = c * b + i;
                if ((q[r * cols + c] >> i) & 1u)
                    w[r * words + bit / 32] |= 1u << (bit % 32);
            }
    return w;
}

std::vector<uint8_t> floatBytes(const std::vector<float>& v, DType t)
{
    return t == DType::F32 ? qsk::bytesOf(v) : qsk::halfBytes(v, t);
}

std::vector<uint8_t> str(const std::string& s)
{
    return std::vector<uint8_t>(s.begin(), s.end());
}

} // namespace

class TestMlxHqq : public QObject {
    Q_OBJECT
private slots:
    void mlxHandWorked()
    {
        // One row, 8 codes of 4 bits, group 8, F16: q = 3, s = f16(0.1) = 0.0999755859375:
        // q*s = 0.2999267578125 is an exact f16 tie (1228.5 ulps of 2^-12) -> even 0.2998046875;
        // + bias 0.5 -> 0.7998046875 (exact in f16). q = 15, s < 0 checks negative scales.
        QTemporaryDir tmp;
        const std::vector<unsigned> q{3, 15, 0, 1, 2, 4, 8, 3};
        const auto ck =
            qsk::openFile(qsk::write(tmp.path(), "m.safetensors",
                                     {{"m.weight", DType::U32, {1, 1}, qsk::bytesOf(packMlx(q, 1, 8, 4))},
                                      {"m.scales", DType::F16, {1, 1}, qsk::halfBytes({0.1f}, DType::F16)},
                                      {"m.biases", DType::F16, {1, 1}, qsk::halfBytes({0.5f}, DType::F16)}}));
        const LogicalWeight w =
            qsk::weight(*ck, "m", "mlx-affine", {1, 8},
                        {{"weight", "m.weight"}, {"scales", "m.scales"}, {"biases", "m.biases"}}, 4, 8);
        for (SimdPath p : qsk::simdPaths()) {
            const auto out = qsk::run(dequantMlxRows, *ck, w, p);
            QCOMPARE(out[0], 0.7998046875f);
            QCOMPARE(out[2], 0.5f);
        }
    }

    void mlx_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("probe");
        for (int b : {2, 3, 4, 5, 6, 8})
            for (int g : {32, 20, 64, 160}) // 64, MLX's default, takes the AVX-512 path's unrolled group loop
                for (DType t : {DType::F16, DType::BF16, DType::F32})
                    for (auto p : {qsk::Probe::Patterned, qsk::Probe::Random, qsk::Probe::AllMax})
                        QTest::addRow("b%d g%d %s %s", b, g, dtypeName(t).data(), qsk::probeName(p))
                            << b << g << int(t) << int(p);
    }
    void mlx()
    {
        QFETCH(int, bits);
        QFETCH(int, group);
        QFETCH(int, dtype);
        QFETCH(int, probe);
        const DType t = DType(dtype);
        const uint64_t E = 2, N = 5, K = 320, G = K / group, rows = E * N; // 3-D: [experts, N, K]
        const auto q = qsk::probeCodes(qsk::Probe(probe), rows, K, bits, 3);
        std::vector<float> s(rows * G), b(rows * G);
        for (uint64_t i = 0; i < s.size(); ++i) {
            s[i] = roundToDtype((i % 2 ? -1.0f : 1.0f) * 0.013f * static_cast<float>(i % 7 + 1), t);
            b[i] = roundToDtype(0.37f - 0.11f * static_cast<float>(i % 5), t);
        }
        s[1] = 1e-6f; // an f16 subnormal scale
        s[1] = roundToDtype(s[1], t);
        // Inf and -0 scales, NaN and -Inf biases: they flow through both roundings.
        s[3] = std::numeric_limits<float>::infinity();
        b[4] = std::numeric_limits<float>::quiet_NaN();
        s[6] = -0.0f;
        b[7] = -std::numeric_limits<float>::infinity();
        // Each packed row is the generic oracle's stream layout in 32-bit words.
        const auto packed = packMlx(q, rows, K, bits);
        for (uint64_t r = 0; r < rows; ++r) {
            const std::vector<uint8_t> row(q.begin() + r * K, q.begin() + (r + 1) * K);
            const auto oracle = bitstream::packStream(row, bits, 32);
            QVERIFY(oracle.size() == K * bits / 8
                    && std::memcmp(oracle.data(), packed.data() + r * K * bits / 32, oracle.size()) == 0);
        }
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "m.safetensors",
                                                 {{"m.weight", DType::U32, {E, N, K * bits / 32}, qsk::bytesOf(packed)},
                                                  {"m.scales", t, {E, N, G}, floatBytes(s, t)},
                                                  {"m.biases", t, {E, N, G}, floatBytes(b, t)}}));
        const LogicalWeight w =
            qsk::weight(*ck, "m", "mlx-affine", {E, N, K},
                        {{"weight", "m.weight"}, {"scales", "m.scales"}, {"biases", "m.biases"}}, bits, group);
        std::vector<float> expect(rows * K);
        for (uint64_t r = 0; r < rows; ++r)
            for (uint64_t k = 0; k < K; ++k) {
                const uint64_t g = r * G + k / group;
                const float qs_ = roundToDtype(qsk::mul32(static_cast<float>(q[r * K + k]), s[g]), t);
                expect[r * K + k] = roundToDtype(qsk::add32(qs_, b[g]), t);
            }
        const auto scalar = qsk::run(dequantMlxRows, *ck, w, SimdPath::Scalar);
        QSK_COMPARE_BITS(scalar, expect, DType::F32);
        for (SimdPath path : qsk::simdPaths()) {
            if (path == SimdPath::Scalar)
                continue;
            QSK_COMPARE_BITS(qsk::run(dequantMlxRows, *ck, w, path), expect, DType::F32);
            const auto part = qsk::run(dequantMlxRows, *ck, w, path, 3, 8);
            QVERIFY(std::memcmp(part.data(), scalar.data() + 3 * K, part.size() * 4) == 0);
        }
        // Without the detected K, bits and group size from the config fix the shape.
        LogicalWeight noShape = w;
        noShape.shape.clear();
        const MlxAffine st = mlxState(WeightData{*ck, noShape});
        QCOMPARE(st.cols, K);
        QCOMPARE(st.rows, rows);
        QCOMPARE(st.groupSize, uint64_t(group));
    }

    void mlxBad()
    {
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "m.safetensors",
                                                 {{"m.weight", DType::U32, {2, 7}, std::vector<uint8_t>(56)},
                                                  {"m.scales", DType::F16, {2, 2}, std::vector<uint8_t>(8)},
                                                  {"m.biases", DType::F16, {2, 2}, std::vector<uint8_t>(8)}}));
        // 7 words = 224 bits: K = 32 would be 7 bits, which MLX does not have.
        const LogicalWeight w = qsk::weight(*ck, "m", "mlx-affine", {2, 32},
                                            {{"weight", "m.weight"}, {"scales", "m.scales"}, {"biases", "m.biases"}});
        try {
            qsk::run(dequantMlxRows, *ck, w, SimdPath::Scalar);
            QFAIL("7-bit MLX accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("7 bits") != std::string::npos, e.what());
        }
    }

    void hqq_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("axis");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("probe");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("group");
        QTest::addColumn<bool>("special"); // Inf, NaN, subnormal and -0 among the scales and zeros
        for (int b : {1, 2, 3, 4, 5, 8})
            for (int axis : {1, 0})
                for (DType t : {DType::F16, DType::BF16, DType::F32})
                    for (auto p : {qsk::Probe::Patterned, qsk::Probe::Random, qsk::Probe::AllMax})
                        QTest::addRow("b%d axis%d %s %s", b, axis, dtypeName(t).data(), qsk::probeName(p))
                            << b << axis << int(t) << int(p) << 12 << (axis == 1 ? 20 : 24) << false;
        // [8, 40] in groups of 16: view rows start inside logical rows, so a row range starts
        // inside a view row.
        for (int b : {2, 3, 4, 5, 8})
            for (DType t : {DType::F16, DType::BF16, DType::F32})
                QTest::addRow("b%d axis1 g16 %s", b, dtypeName(t).data())
                    << b << 1 << int(t) << int(qsk::Probe::Random) << 8 << 16 << false;
        // [80, 40] in groups of 16: 200 view rows, more than one batch of scale rows of the
        // AVX-512 path inside one part; special values.
        for (int b : {1, 2, 3, 4, 8})
            for (DType t : {DType::F16, DType::BF16, DType::F32})
                QTest::addRow("b%d axis1 g16 N80 special %s", b, dtypeName(t).data())
                    << b << 1 << int(t) << int(qsk::Probe::Random) << 80 << 16 << true;
        // Groups of 64 (HQQ's default): the AVX-512 path's loop with the view row's four vectors fixed.
        for (int b : {2, 3, 4})
            for (DType t : {DType::F16, DType::BF16, DType::F32}) {
                QTest::addRow("b%d axis1 g64 %s", b, dtypeName(t).data())
                    << b << 1 << int(t) << int(qsk::Probe::Random) << 32 << 64 << false;
                if (b != 2)
                    QTest::addRow("b%d axis1 g64 N80 special %s", b, dtypeName(t).data())
                        << b << 1 << int(t) << int(qsk::Probe::Random) << 80 << 64 << true;
            }
    }
    void hqq()
    {
        QFETCH(int, bits);
        QFETCH(int, axis);
        QFETCH(int, dtype);
        QFETCH(int, probe);
        QFETCH(int, rows);
        QFETCH(int, group);
        QFETCH(bool, special);
        const DType t = DType(dtype);
        // [N, K] = [12, 40]: 480 weights, view [24, 20] (axis 1, group 20; axis 0, group 24).
        // 24 rows split in 2, 4 and 8 parts; 3-bit pads them to 30 (tenths of 3 rows).
        const uint64_t N = uint64_t(rows), K = 40, g = uint64_t(group), total = N * K;
        const uint64_t R = axis == 1 ? total / g : g, C = total / R;
        const auto q = qsk::probeCodes(qsk::Probe(probe), R, C, bits, 9); // codes of the view
        const unsigned parts = bits == 4 ? 2 : bits == 2 ? 4 : bits == 1 ? 8 : bits == 3 ? 10 : 1;
        const uint64_t step = parts == 10 ? (R + 9) / 10 : R / parts;
        std::vector<uint8_t> wq;
        if (parts == 10) {
            std::vector<int32_t> w(step * C, 0);
            for (uint64_t r = 0; r < R; ++r)
                for (uint64_t c = 0; c < C; ++c)
                    w[(r % step) * C + c] |= static_cast<int32_t>(q[r * C + c] << (27 - 3 * (r / step)));
            wq = qsk::bytesOf(w);
        } else {
            wq.assign(step * C, 0);
            const unsigned b = 8 / parts;
            for (uint64_t r = 0; r < R; ++r)
                for (uint64_t c = 0; c < C; ++c)
                    wq[(r % step) * C + c] |= static_cast<uint8_t>(q[r * C + c] << (8 - b * (r / step + 1)));
        }
        const uint64_t M = axis == 1 ? R : C;
        std::vector<float> s(M), z(M);
        for (uint64_t i = 0; i < M; ++i) {
            s[i] = roundToDtype((i % 3 == 2 ? -1.0f : 1.0f) * 0.0071f * static_cast<float>(i + 1), t);
            z[i] = roundToDtype(static_cast<float>((1 << bits) - 1) * 0.5f + 0.173f * static_cast<float>(i % 4), t);
        }
        if (special) {
            const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
            const float sub = t == DType::F16 ? std::ldexp(1.0f, -20) : std::ldexp(1.0f, -130);
            const float sv[] = {inf, nan, sub, -0.0f, -inf, 1.0f}, zv[] = {nan, 0.5f, -inf, sub, 1.0f, inf, -0.0f};
            for (uint64_t i = 0; i < M; i += 3) {
                s[i] = roundToDtype(sv[i / 3 % 6], t);
                z[i + 1 < M ? i + 1 : i] = roundToDtype(zv[i / 3 % 7], t);
            }
        }
        const std::vector<int64_t> shape{static_cast<int64_t>(N), static_cast<int64_t>(K)};
        const std::string cd = t == DType::F16 ? "torch.float16"
            : t == DType::BF16                 ? "torch.bfloat16"
                                               : "torch.float32";
        const std::string packing = std::to_string(bits) + (bits == 3 ? "bit_32" : "bit_u8");
        const std::vector<uint64_t> metaShape = axis == 1 ? std::vector<uint64_t>{M, 1} : std::vector<uint64_t>{1, M};
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(
            qsk::write(tmp.path(), "h.safetensors",
                       {{"m.W_q", parts == 10 ? DType::I32 : DType::U8, {step, C}, wq},
                        {"m.scale", t, metaShape, floatBytes(s, t)},
                        {"m.zero", t, metaShape, floatBytes(z, t)},
                        {"m.shape", DType::I64, {2}, qsk::bytesOf(shape)},
                        {"m.nbits", DType::I32, {}, qsk::bytesOf(std::vector<int32_t>{bits})},
                        {"m.group_size", DType::I32, {}, qsk::bytesOf(std::vector<int32_t>{static_cast<int32_t>(g)})},
                        {"m.axis", DType::I32, {}, qsk::bytesOf(std::vector<int32_t>{axis})},
                        {"m.packing", DType::U8, {packing.size()}, str(packing)},
                        {"m.compute_dtype", DType::U8, {cd.size()}, str(cd)}}));
        const LogicalWeight w = qsk::weight(*ck, "m", "hqq", {N, K},
                                            {{"W_q", "m.W_q"},
                                             {"scale", "m.scale"},
                                             {"zero", "m.zero"},
                                             {"shape", "m.shape"},
                                             {"nbits", "m.nbits"},
                                             {"group_size", "m.group_size"},
                                             {"axis", "m.axis"},
                                             {"packing", "m.packing"},
                                             {"compute_dtype", "m.compute_dtype"}});
        std::vector<float> expect(total);
        for (uint64_t e = 0; e < total; ++e) {
            const uint64_t r = e / C, c = e % C, m = axis == 1 ? r : c;
            // q - z as one f32 subtraction (a NaN zero comes through with its sign, as subss gives it).
            const float d = roundToDtype(static_cast<float>(static_cast<double>(q[e]) - static_cast<double>(z[m])), t);
            expect[e] = roundToDtype(qsk::mul32(d, s[m]), t);
        }
        const auto scalar = qsk::run(dequantHqqRows, *ck, w, SimdPath::Scalar);
        QSK_COMPARE_BITS(scalar, expect, DType::F32);
        for (SimdPath path : qsk::simdPaths()) {
            if (path == SimdPath::Scalar)
                continue;
            QSK_COMPARE_BITS(qsk::run(dequantHqqRows, *ck, w, path), expect, DType::F32);
            const uint64_t r0 = N / 3 + 1; // 5 of 12; 3 of 8, inside a view row of 16
            const auto part = qsk::run(dequantHqqRows, *ck, w, path, r0, N - 1);
            QVERIFY(std::memcmp(part.data(), scalar.data() + r0 * K, part.size() * 4) == 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestMlxHqq)
#include "tst_mlx_hqq.moc"
