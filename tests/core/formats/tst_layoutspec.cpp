// LayoutSpec: shape formulas equal what the packers write, and locate() names exactly the
// bits that hold each code, scale and zero (checked on every element of packed probes).
#include "formats/layoutspec.h"
#include "base/bitstream.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"

#include <QTest>

#include <cstring>
#include <map>
#include <random>

using namespace qs;

namespace {

uint32_t readPieces(const std::vector<uint8_t>& bytes, uint32_t wordBits, const BitPiece* pieces, int count)
{
    uint32_t v = 0;
    int offset = 0;
    for (int i = 0; i < count; ++i) {
        const uint64_t bit = pieces[i].word * wordBits + pieces[i].bit;
        if ((bit + pieces[i].width + 7) / 8 > bytes.size())
            return 0xFFFFFFFFu;
        v |= bitstream::readField(bytes.data(), bit, pieces[i].width) << offset;
        offset += pieces[i].width;
    }
    return v;
}

} // namespace

class TestLayoutSpec : public QObject {
    Q_OBJECT
private slots:
    void registry()
    {
        for (const char* id : {"gptq-v1", "gptq-v2", "gptq-planar", "awq-gemm", "awq-gemv", "awq-gemv-fast",
                               "gptq-marlin", "awq-marlin"}) {
            const LayoutSpec* s = findLayoutSpec(id);
            QVERIFY2(s, id);
            QCOMPARE(s->id, std::string(id));
            QVERIFY(!s->tensors.empty());
            QVERIFY(!s->formula.empty());
            QVERIFY(s->locate);
            QVERIFY(!s->bitWidths.empty());
        }
        QVERIFY(!findLayoutSpec("no-such-format"));
        QCOMPARE(findLayoutSpec("awq-gemm")->slotOrder, (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
        QCOMPARE(findLayoutSpec("gptq-v1")->zeroPoint, ZeroPointKind::StoredMinusOne);
        QVERIFY(findLayoutSpec("gptq-v1")->straddles);
        LayoutParams p{256, 128, 3, 32};
        QCOMPARE(findLayoutSpec("gptq-v1")->tensors[0].shape(p), (std::vector<uint64_t>{24, 128}));
        QCOMPARE(findLayoutSpec("gptq-v1")->tensors[1].shape(p), (std::vector<uint64_t>{8, 12}));
    }

    void locate_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::addColumn<int>("groupSize");
        for (int b : {2, 3, 4, 8}) {
            QTest::addRow("gptq-v1-b%d", b) << QStringLiteral("gptq-v1") << b << 128 << 64 << 32;
            QTest::addRow("gptq-v2-b%d-odd", b) << QStringLiteral("gptq-v2") << b << 72 << 40 << 24;
        }
        for (int b = 2; b <= 8; ++b)
            QTest::addRow("gptq-planar-b%d", b) << QStringLiteral("gptq-planar") << b << 64 << 64 << 32;
        QTest::addRow("awq-gemm") << QStringLiteral("awq-gemm") << 4 << 96 << 48 << 32;
        QTest::addRow("awq-gemv-g32") << QStringLiteral("awq-gemv") << 4 << 256 << 8 << 32;
        QTest::addRow("awq-gemv-g128") << QStringLiteral("awq-gemv") << 4 << 256 << 8 << 128;
        QTest::addRow("awq-gemv-fast") << QStringLiteral("awq-gemv-fast") << 4 << 128 << 16 << 64;
        QTest::addRow("gptq-marlin-b4") << QStringLiteral("gptq-marlin") << 4 << 64 << 128 << 32;
        QTest::addRow("gptq-marlin-b8-perchannel") << QStringLiteral("gptq-marlin") << 8 << 64 << 64 << 64;
        QTest::addRow("awq-marlin-b4") << QStringLiteral("awq-marlin") << 4 << 32 << 64 << 16;
    }
    void locate()
    {
        QFETCH(QString, id);
        QFETCH(int, bits);
        QFETCH(int, K);
        QFETCH(int, N);
        QFETCH(int, groupSize);
        const LayoutSpec* spec = findLayoutSpec(id.toStdString());
        QVERIFY(spec);
        const LayoutParams lp{uint64_t(K), uint64_t(N), bits, uint64_t(groupSize)};
        const uint64_t G = lp.groups();
        std::mt19937 rng(uint32_t(K * N + bits));
        const uint32_t maxq = (1u << bits) - 1;
        std::vector<uint8_t> codes(lp.N * lp.K);
        for (auto& c : codes)
            c = uint8_t(rng() & maxq);
        std::vector<int32_t> zeros(G * lp.N);
        for (auto& z : zeros)
            z = 1 + int32_t(rng() % maxq);
        std::vector<uint16_t> scales(G * lp.N);
        for (size_t i = 0; i < scales.size(); ++i)
            scales[i] = floatToHalf(float(i + 1) / 64.f);

        PackedOutput po;
        const bool v1 = id == QLatin1String("gptq-v1");
        if (id.startsWith(QLatin1String("gptq-v")) || id == QLatin1String("gptq-planar"))
            po = packGptq(codes, zeros, scales, bits, lp.K, lp.N, G, v1, id == QLatin1String("gptq-planar"));
        else if (id == QLatin1String("awq-gemm"))
            po = packAwqGemm(codes, zeros, scales, lp.K, lp.N, lp.groupSize);
        else if (id == QLatin1String("awq-gemv"))
            po = packAwqGemv(codes, zeros, scales, lp.K, lp.N, lp.groupSize);
        else if (id == QLatin1String("awq-gemv-fast"))
            po = packAwqGemvFast(codes, scales, scales, lp.K, lp.N, lp.groupSize);
        else
            po = packMarlin(codes, scales, bits, lp.K, lp.N, G);

        // Shape formulas evaluate to the packed shapes.
        std::map<std::string, const PackedTensor*> byRole;
        const bool marlinGptq = id == QLatin1String("gptq-marlin");
        byRole[marlinGptq ? "B" : "qweight"] = &po.qweight;
        byRole[marlinGptq ? "s" : "scales"] = &po.scales;
        if (!po.qzeros.bytes.empty())
            byRole["qzeros"] = &po.qzeros;
        for (const LayoutTensor& t : spec->tensors) {
            const auto it = byRole.find(t.role);
            if (it == byRole.end()) {
                QVERIFY2(t.optional, t.role.c_str());
                continue;
            }
            QCOMPARE(t.shape(lp), it->second->shape);
        }
        // Every element: the named bits hold its code, the named scale is its scale.
        for (uint64_t n = 0; n < lp.N; ++n)
            for (uint64_t k = 0; k < lp.K; ++k) {
                const ElementLocation e = spec->locate(lp, n, k);
                const PackedTensor* t = byRole.at(std::string(e.tensor));
                const uint32_t code = readPieces(t->bytes, e.wordBits, e.pieces, e.pieceCount);
                if (code != codes[n * lp.K + k])
                    QFAIL(qPrintable(QStringLiteral("(%1, %2): bits say %3, packed %4")
                                         .arg(n)
                                         .arg(k)
                                         .arg(code)
                                         .arg(codes[n * lp.K + k])));
                QCOMPARE(e.group, k / lp.effectiveGroupSize());
                uint16_t s;
                std::memcpy(&s, byRole.at(std::string(e.scaleTensor))->bytes.data() + 2 * e.scaleIndex, 2);
                QCOMPARE(s, scales[e.group * lp.N + n]);
                if (!e.zeroTensor.empty() && e.zeroPieceCount && id != QLatin1String("awq-gemv-fast")) {
                    const uint32_t z =
                        readPieces(byRole.at(std::string(e.zeroTensor))->bytes, 32, e.zeroPieces, e.zeroPieceCount);
                    QCOMPARE(int32_t(z), zeros[e.group * lp.N + n] - (v1 ? 1 : 0));
                }
                if (e.pieceCount == 2 && id != QLatin1String("gptq-planar"))
                    QVERIFY(spec->straddles);
            }
    }
};

QTEST_GUILESS_MAIN(TestLayoutSpec)
#include "tst_layoutspec.moc"
