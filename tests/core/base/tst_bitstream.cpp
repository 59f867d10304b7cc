// The generic bit packer (the oracle) and the seed probes: patterned (7*row + 3*col) mod 2^b,
// random and all-max codes, packed by our packers, read back by our readers, for every
// width and every packable GPTQ / AWQ / Marlin layout.
#include "base/bitstream.h"
#include "formats/gptq/gptq.h"
#include "base/half.h"

#include <QTest>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

using namespace qs;

namespace {

enum Probe { Patterned, Random, AllMax };

std::vector<uint8_t> probeMatrix(Probe probe, uint64_t rows, uint64_t cols, int bits, uint32_t seed)
{
    std::vector<uint8_t> m(rows * cols);
    std::mt19937 rng(seed);
    const uint32_t maxq = (1u << bits) - 1;
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            m[r * cols + c] = uint8_t(probe == Patterned    ? (7 * r + 3 * c) & maxq
                                          : probe == Random ? rng() & maxq
                                                            : maxq);
    return m;
}

const char* probeName(Probe p)
{
    return p == Patterned ? "patterned" : p == Random ? "random" : "allmax";
}

} // namespace

class TestBitstream : public QObject {
    Q_OBJECT
private slots:
    void streamRoundTrip_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("wordBits");
        QTest::addColumn<int>("probe");
        for (int bits = 1; bits <= 8; ++bits)
            for (int wordBits : {8, 32})
                for (Probe p : {Patterned, Random, AllMax})
                    QTest::addRow("b%d-w%d-%s", bits, wordBits, probeName(p)) << bits << wordBits << int(p);
    }
    void streamRoundTrip()
    {
        QFETCH(int, bits);
        QFETCH(int, wordBits);
        QFETCH(int, probe);
        const std::vector<uint8_t> codes = probeMatrix(Probe(probe), 13, 37, bits, uint32_t(bits * 7 + wordBits));
        const std::vector<uint8_t> packed = bitstream::packStream(codes, bits, wordBits);
        QCOMPARE(packed.size(), bitstream::streamBytes(codes.size(), bits, wordBits));
        QCOMPARE(packed.size() % size_t(wordBits / 8), size_t(0));
        std::vector<uint8_t> back(codes.size());
        bitstream::unpackStream(packed, bits, back);
        QCOMPARE(back, codes);
        for (size_t i = 0; i < codes.size(); ++i)
            QCOMPARE(bitstream::readField(packed.data(), i * size_t(bits), bits), uint32_t(codes[i]));
        // Little-endian words: the 8-bit and 32-bit streams are the same bytes.
        const std::vector<uint8_t> bytewise = bitstream::packStream(codes, bits, 8);
        QVERIFY(std::equal(bytewise.begin(), bytewise.end(), packed.begin()));
        // Padding bits are zero; all-max fills exactly count*bits ones (no sign extension).
        const size_t used = codes.size() * size_t(bits);
        for (size_t b = used; b < packed.size() * 8; ++b)
            QCOMPARE((packed[b / 8] >> (b % 8)) & 1, 0);
        if (probe == AllMax)
            for (size_t b = 0; b < used; ++b)
                QCOMPARE((packed[b / 8] >> (b % 8)) & 1, 1);
    }

    void straddle()
    {
        // 3-bit code 10 spans bits 30..32: low two bits at the top of word 0, one in word 1.
        std::vector<uint8_t> codes(32, 0);
        codes[10] = 0b101;
        const std::vector<uint8_t> p = bitstream::packStream(codes, 3, 32);
        uint32_t w[3];
        std::memcpy(w, p.data(), 12);
        QCOMPARE(w[0], 0x40000000u);
        QCOMPARE(w[1], 0x00000001u);
        QCOMPARE(w[2], 0u);
        QCOMPARE(bitstream::readField(p.data(), 30, 3), 5u);
    }

    void slotLayout_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("wordBits");
        QTest::addColumn<QList<int>>("order");
        QTest::addColumn<int>("probe");
        for (Probe p : {Patterned, Random, AllMax}) {
            for (int bits = 1; bits <= 8; ++bits)
                for (int wordBits : {8, 32})
                    QTest::addRow("b%d-w%d-natural-%s", bits, wordBits, probeName(p))
                        << bits << wordBits << QList<int>{} << int(p);
            QTest::addRow("awq-order-%s", probeName(p)) << 4 << 32 << QList<int>{0, 2, 4, 6, 1, 3, 5, 7} << int(p);
            QTest::addRow("reversed-b8-%s", probeName(p)) << 8 << 32 << QList<int>{3, 2, 1, 0} << int(p);
        }
    }
    void slotLayout()
    {
        QFETCH(int, bits);
        QFETCH(int, wordBits);
        QFETCH(QList<int>, order);
        QFETCH(int, probe);
        const std::vector<uint8_t> codes = probeMatrix(Probe(probe), 7, 29, bits, uint32_t(bits));
        const std::vector<uint8_t> packed =
            bitstream::packSlots(codes, bits, wordBits, std::span<const int>(order.data(), size_t(order.size())));
        const int perWord = wordBits / bits;
        QCOMPARE(packed.size(), (codes.size() + size_t(perWord) - 1) / size_t(perWord) * size_t(wordBits / 8));
        std::vector<uint8_t> back(codes.size());
        bitstream::unpackSlots(packed, bits, wordBits, back, std::span<const int>(order.data(), size_t(order.size())));
        QCOMPARE(back, codes);
        // Slot s of word w holds code w*perWord + order[s]: check directly on the bits.
        for (size_t i = 0; i < codes.size(); ++i) {
            const size_t w = i / size_t(perWord), j = i % size_t(perWord);
            int slot = int(j);
            if (!order.empty())
                slot = int(std::find(order.begin(), order.end(), int(j)) - order.begin());
            QCOMPARE(bitstream::readField(packed.data(), w * size_t(wordBits) + size_t(slot * bits), bits),
                     uint32_t(codes[i]));
        }
    }

    void rejectsBadInput()
    {
        const std::vector<uint8_t> codes{1, 2, 16};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bitstream::packStream(codes, 4, 32));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bitstream::packStream(codes, 9, 32));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bitstream::packStream(codes, 0, 32));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bitstream::packStream(codes, 8, 16));
        const std::vector<int> notPerm{0, 0, 1, 2, 3, 4, 5, 6};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bitstream::packSlots(std::vector<uint8_t>{1}, 4, 32, notPerm));
        std::vector<uint8_t> out(9);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bitstream::unpackStream(std::vector<uint8_t>(4), 4, out));
    }

    // Every packable layout and width: the packer's words, read by the kernels' readers,
    // give back the probe matrix; and both dequant paths agree bit for bit.
    void formatProbes_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("probe");
        for (Probe p : {Patterned, Random, AllMax}) {
            for (int bits : {2, 3, 4, 8})
                QTest::addRow("gptq-b%d-%s", bits, probeName(p)) << QStringLiteral("gptq") << bits << int(p);
            for (int bits = 2; bits <= 8; ++bits)
                QTest::addRow("gptq-planar-b%d-%s", bits, probeName(p)) << QStringLiteral("planar") << bits << int(p);
            QTest::addRow("awq-gemm-%s", probeName(p)) << QStringLiteral("awq-gemm") << 4 << int(p);
            QTest::addRow("awq-gemv-%s", probeName(p)) << QStringLiteral("awq-gemv") << 4 << int(p);
            QTest::addRow("awq-gemv-fast-%s", probeName(p)) << QStringLiteral("awq-gemv-fast") << 4 << int(p);
            QTest::addRow("marlin-b4-%s", probeName(p)) << QStringLiteral("marlin") << 4 << int(p);
            QTest::addRow("marlin-b8-%s", probeName(p)) << QStringLiteral("marlin") << 8 << int(p);
        }
    }
    void formatProbes()
    {
        QFETCH(QString, layout);
        QFETCH(int, bits);
        QFETCH(int, probe);
        const uint64_t K = 128, N = 64, groupSize = 64, groups = 2;
        const std::vector<uint8_t> codes = probeMatrix(Probe(probe), N, K, bits, uint32_t(bits * 31));
        std::vector<int32_t> zeros(groups * N, 1);
        std::vector<uint16_t> scales(groups * N, floatToHalf(0.5f));
        PackedOutput po;
        PackedLinear p;
        p.bits = bits;
        p.K = K;
        p.N = N;
        p.groupSize = groupSize;
        p.groups = groups;
        if (layout == QLatin1String("gptq") || layout == QLatin1String("planar")) {
            const bool planar = layout == QLatin1String("planar");
            po = packGptq(codes, zeros, scales, bits, K, N, groups, false, planar);
            p.kind = planar ? PackedKind::GptqPlanar : PackedKind::Gptq;
            // Unplanar columns are exactly the oracle's stream of that row's codes.
            if (!planar)
                for (uint64_t n = 0; n < N; n += 13) {
                    std::vector<uint8_t> column;
                    for (uint64_t r = 0; r < po.qweight.shape[0]; ++r)
                        column.insert(column.end(), po.qweight.bytes.begin() + std::ptrdiff_t(4 * (r * N + n)),
                                      po.qweight.bytes.begin() + std::ptrdiff_t(4 * (r * N + n) + 4));
                    std::vector<uint8_t> back(K);
                    bitstream::unpackStream(column, bits, back);
                    QVERIFY(std::equal(back.begin(), back.end(), codes.begin() + std::ptrdiff_t(n * K)));
                }
        } else if (layout == QLatin1String("awq-gemm")) {
            po = packAwqGemm(codes, zeros, scales, K, N, groupSize);
            p.kind = PackedKind::AwqGemm;
        } else if (layout == QLatin1String("awq-gemv")) {
            po = packAwqGemv(codes, zeros, scales, K, N, groupSize);
            p.kind = PackedKind::AwqGemv;
            p.zeroWords = po.qzeros.shape[1];
            p.scaleRows = po.scales.shape[1];
        } else if (layout == QLatin1String("awq-gemv-fast")) {
            po = packAwqGemvFast(codes, scales, scales, K, N, groupSize);
            p.kind = PackedKind::AwqGemvFast;
            p.zeros = ZeroConvention::FloatBias;
            p.scaleRows = po.scales.shape[0];
        } else {
            po = packMarlin(codes, scales, bits, K, N, groups);
            p.kind = PackedKind::Marlin;
            p.zeros = ZeroConvention::Implicit;
        }
        p.qweight = po.qweight.bytes;
        p.qzeros = po.qzeros.bytes;
        p.scales = po.scales.bytes;
        p.validate();
        for (uint64_t n = 0; n < N; ++n)
            for (uint64_t k = 0; k < K; ++k)
                if (p.codeAt(n, k) != codes[n * K + k])
                    QFAIL(qPrintable(QStringLiteral("code (%1, %2): read %3, packed %4")
                                         .arg(n)
                                         .arg(k)
                                         .arg(p.codeAt(n, k))
                                         .arg(codes[n * K + k])));
        std::vector<float> a(N * K), b(N * K);
        dequantPackedRows(p, 0, N, a.data(), SimdPath::Scalar);
        for (SimdPath path : cpuSimdPaths()) {
            dequantPackedRows(p, 0, N, b.data(), path);
            QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestBitstream)
#include "tst_bitstream.moc"
