// GPTQ / AWQ / Marlin kernels: hand-made layouts packed by the oracle-based packers,
// checked value by value against s * (q - z) worked out from the logical arrays, for the
// scalar reference and the AVX2 path (bit for bit); the upstream fixtures in fixtures_*.
#include "container/checkpoint.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/gptq/gptq.h"
#include "formats/layoutspec.h"
#include "base/half.h"
#include "base/error.h"

#include "kernel_testutil.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <cmath>
#include <random>
#include <vector>

using namespace qs;

namespace {

struct Logical {
    int bits = 4;
    uint64_t K = 0, N = 0, groups = 0, groupSize = 0;
    std::vector<uint8_t> codes; // [N][K]
    std::vector<int32_t> zeros; // [G][N]
    std::vector<uint16_t> scales; // [G][N] f16 bits
    std::vector<int32_t> gIdx; // [K] (empty: k / groupSize)
};

// The shape and the three packed tensors of a GPTQ-style weight; kind and conventions are the caller's.
PackedLinear linearOf(const Logical& l, const PackedOutput& po)
{
    PackedLinear p;
    p.K = l.K;
    p.N = l.N;
    p.groupSize = l.groupSize;
    p.groups = l.groups;
    p.qweight = po.qweight.bytes;
    p.qzeros = po.qzeros.bytes;
    p.scales = po.scales.bytes;
    return p;
}

Logical makeLogical(int bits, uint64_t K, uint64_t N, uint64_t groupSize, uint32_t seed, bool actOrder = false,
                    int32_t zeroLow = 0)
{
    std::mt19937 rng(seed);
    Logical l;
    l.bits = bits;
    l.K = K;
    l.N = N;
    l.groupSize = groupSize;
    l.groups = (K + groupSize - 1) / groupSize;
    const uint32_t maxq = (1u << bits) - 1;
    l.codes.resize(K * N);
    for (auto& c : l.codes)
        c = uint8_t(rng() & maxq);
    l.zeros.resize(l.groups * N);
    for (auto& z : l.zeros)
        z = zeroLow + int32_t(rng() % (maxq + 1 - uint32_t(zeroLow)));
    l.scales.resize(l.groups * N);
    for (auto& s : l.scales)
        s = floatToHalf(std::ldexp(float(rng() % 2048) / 2048.f + 0.5f, -int(rng() % 12)) * ((rng() & 1) ? -1.f : 1.f));
    if (actOrder) {
        // A random permutation grouped in consecutive runs of groupSize, as desc_act makes.
        std::vector<int32_t> perm(K);
        for (uint64_t k = 0; k < K; ++k)
            perm[k] = int32_t(k);
        std::shuffle(perm.begin(), perm.end(), rng);
        l.gIdx.resize(K);
        for (uint64_t i = 0; i < K; ++i)
            l.gIdx[size_t(perm[i])] = int32_t(i / groupSize);
    }
    return l;
}

// The g_idx patterns of the act-order rows: none, a random permutation in runs of groupSize
// (desc_act), arange // groupSize (desc_act=False), and non-decreasing runs of uneven lengths
// (1 up to several vectors, some groups skipped), as a repack may leave them.
enum class GIdx { None, ActOrder, Arange, Uneven };

void setGIdx(Logical& l, GIdx kind, uint32_t seed)
{
    if (kind == GIdx::None || kind == GIdx::ActOrder)
        return;
    l.gIdx.resize(l.K);
    std::mt19937 rng(seed);
    static constexpr uint64_t lengths[] = {1, 3, 5, 8, 13, 16, 29, 40, 64};
    uint64_t g = 0, left = lengths[rng() % 9];
    for (uint64_t k = 0; k < l.K; ++k) {
        if (kind == GIdx::Arange) {
            l.gIdx[k] = int32_t(k / l.groupSize);
            continue;
        }
        if (left == 0) {
            g = std::min(l.groups - 1, g + 1 + rng() % 2);
            left = lengths[rng() % 9];
        }
        --left;
        l.gIdx[k] = int32_t(g);
    }
}

float expected(const Logical& l, uint64_t n, uint64_t k, int zeroShift = 0)
{
    const uint64_t g = l.gIdx.empty() ? k / l.groupSize : uint64_t(l.gIdx[k]);
    return halfToFloat(l.scales[g * l.N + n]) * float(int32_t(l.codes[n * l.K + k]) - l.zeros[g * l.N + n] + zeroShift);
}

std::span<const uint8_t> bytesOf(const std::vector<int32_t>& v)
{
    return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4};
}

// Both paths, every element, against `want(n, k)`; also a few unaligned row ranges.
template <typename F>
void checkAll(const PackedLinear& p, F want)
{
    p.validate();
    std::vector<float> ref(p.N * p.K), fast(p.N * p.K);
    dequantPackedRows(p, 0, p.N, ref.data(), SimdPath::Scalar);
    for (uint64_t n = 0; n < p.N; ++n)
        for (uint64_t k = 0; k < p.K; ++k) {
            const float w = want(n, k);
            const float got = ref[n * p.K + k];
            if (std::bit_cast<uint32_t>(got) != std::bit_cast<uint32_t>(w) && !(std::isnan(got) && std::isnan(w)))
                QFAIL(qPrintable(QStringLiteral("scalar (%1, %2): got %3 want %4").arg(n).arg(k).arg(got).arg(w)));
        }
    if (!hasAvx2(cpuSimdPath()))
        return;
    const uint64_t ranges[][2] = {{0, p.N}, {1, p.N}, {3, std::min<uint64_t>(p.N, 21)}, {p.N / 2, p.N}};
    for (SimdPath path : cpuSimdPaths()) {
        if (path == SimdPath::Scalar)
            continue;
        for (const auto& r : ranges) {
            if (r[0] >= r[1])
                continue;
            dequantPackedRows(p, r[0], r[1], fast.data(), path);
            for (uint64_t i = 0; i < (r[1] - r[0]) * p.K; ++i)
                if (std::bit_cast<uint32_t>(fast[i]) != std::bit_cast<uint32_t>(ref[r[0] * p.K + i]))
                    QFAIL(qPrintable(QStringLiteral("%4 rows %1..%2, element %3 differs")
                                         .arg(r[0])
                                         .arg(r[1])
                                         .arg(i)
                                         .arg(QString::fromLatin1(simdPathName(path)))));
        }
    }
}

} // namespace

class TestGptqAwq : public QObject {
    Q_OBJECT
private slots:
    void gptq_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::addColumn<int>("groupSize");
        QTest::addColumn<bool>("v1");
        QTest::addColumn<bool>("planar");
        QTest::addColumn<int>("gIdxKind"); // GIdx
        for (int bits : {2, 3, 4, 8})
            for (bool v1 : {true, false}) {
                const char* v = v1 ? "v1" : "v2";
                QTest::addRow("b%d-%s-g32", bits, v) << bits << 256 << 72 << 32 << v1 << false << int(GIdx::None);
                QTest::addRow("b%d-%s-g64-actorder", bits, v)
                    << bits << 192 << 40 << 64 << v1 << false << int(GIdx::ActOrder);
                QTest::addRow("b%d-%s-g64-gidx-arange", bits, v)
                    << bits << 192 << 40 << 64 << v1 << false << int(GIdx::Arange);
                QTest::addRow("b%d-%s-g32-gidx-uneven", bits, v)
                    << bits << 320 << 40 << 32 << v1 << false << int(GIdx::Uneven);
                QTest::addRow("b%d-%s-perchannel", bits, v)
                    << bits << 128 << 32 << 128 << v1 << false << int(GIdx::None);
                // Runs long enough for the AVX2 slot kernel's paired spans (two of 16 rows of
                // words), a last partial span; runs starting in the middle of a 2-bit word.
                if (bits != 3) {
                    QTest::addRow("b%d-%s-perchannel-K1032", bits, v)
                        << bits << 1032 << 40 << 1032 << v1 << false << int(GIdx::None);
                    QTest::addRow("b%d-%s-g520-gidx-arange", bits, v)
                        << bits << 1040 << 40 << 520 << v1 << false << int(GIdx::Arange);
                }
            }
        // Odd sizes: K not a multiple of the pack factor (last word zero-padded), N not of 8;
        // groups that are not whole vectors.
        QTest::addRow("b4-v2-K40-N12") << 4 << 40 << 12 << 8 << false << false << int(GIdx::None);
        QTest::addRow("b2-v2-K20-N7") << 2 << 20 << 7 << 5 << false << false << int(GIdx::None);
        QTest::addRow("b8-v2-K36-N9-g12") << 8 << 36 << 9 << 12 << false << false << int(GIdx::None);
        QTest::addRow("b4-v1-K100-N24-g12") << 4 << 100 << 24 << 12 << true << false << int(GIdx::None);
        QTest::addRow("b4-v2-K100-N24-g12-gidx-uneven") << 4 << 100 << 24 << 12 << false << false << int(GIdx::Uneven);
        QTest::addRow("b3-v2-K64-N32-g20") << 3 << 64 << 32 << 20 << false << false << int(GIdx::None);
        // Groups of whole 16-code vectors with a K tail past the last whole vector (the AVX-512
        // blocks' column tail), 16-row blocks plus a remainder.
        QTest::addRow("b4-v2-K200-N40-g16") << 4 << 200 << 40 << 16 << false << false << int(GIdx::None);
        QTest::addRow("b8-v1-K72-N40-g16") << 8 << 72 << 40 << 16 << true << false << int(GIdx::None);
        for (int bits : {2, 3, 4, 5, 6, 7, 8})
            QTest::addRow("planar-b%d", bits)
                << bits << 128 << 64 << 32 << false << true << int(bits == 5 ? GIdx::ActOrder : GIdx::None);
        for (int bits : {3, 5})
            QTest::addRow("planar-b%d-gidx-uneven", bits)
                << bits << 256 << 32 << 32 << false << true << int(GIdx::Uneven);
        // Groups that are not whole 16-code vectors (the AVX-512 kernel's groups per k, not per vector).
        for (int bits : {6, 7})
            QTest::addRow("planar-b%d-g24", bits) << bits << 96 << 64 << 24 << false << true << int(GIdx::None);
    }
    void gptq()
    {
        QFETCH(int, bits);
        QFETCH(int, K);
        QFETCH(int, N);
        QFETCH(int, groupSize);
        QFETCH(bool, v1);
        QFETCH(bool, planar);
        QFETCH(int, gIdxKind);
        const GIdx gIdx = GIdx(gIdxKind);
        Logical l = makeLogical(bits, uint64_t(K), uint64_t(N), uint64_t(groupSize), uint32_t(bits * 1000 + K + N),
                                gIdx == GIdx::ActOrder, v1 ? 1 : 0);
        setGIdx(l, gIdx, uint32_t(bits + K));
        const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, bits, l.K, l.N, l.groups, v1, planar);
        QCOMPARE(po.qweight.shape, (std::vector<uint64_t>{(l.K * uint64_t(bits) + 31) / 32, l.N}));
        QCOMPARE(po.qzeros.shape, (std::vector<uint64_t>{l.groups, (l.N * uint64_t(bits) + 31) / 32}));
        PackedLinear p = linearOf(l, po);
        p.kind = planar ? PackedKind::GptqPlanar : PackedKind::Gptq;
        p.bits = bits;
        p.zeros = v1 ? ZeroConvention::StoredMinusOne : ZeroConvention::Stored;
        p.gIdx = bytesOf(l.gIdx);
        // Runs as the kernels find them per call, then as the cached weight state holds them.
        checkAll(p, [&](uint64_t n, uint64_t k) { return expected(l, n, k); });
        p.indexGroupRuns();
        QCOMPARE(p.runs.empty(), gIdx == GIdx::ActOrder);
        checkAll(p, [&](uint64_t n, uint64_t k) { return expected(l, n, k); });
    }

    void groupRuns()
    {
        PackedLinear p;
        p.K = 10;
        p.groupSize = 4;
        p.groups = 5;
        auto runs = [&](std::vector<int32_t> g) {
            p.gIdx = g.empty() ? std::span<const uint8_t>() : bytesOf(g);
            std::vector<uint64_t> flat;
            for (const auto& r : p.groupRuns())
                flat.insert(flat.end(), {r.k0, r.k1, r.group});
            return flat;
        };
        QCOMPARE(runs({}), (std::vector<uint64_t>{0, 4, 0, 4, 8, 1, 8, 10, 2}));
        QCOMPARE(runs({0, 0, 0, 2, 2, 3, 3, 3, 3, 4}), (std::vector<uint64_t>{0, 3, 0, 3, 5, 2, 5, 9, 3, 9, 10, 4}));
        QCOMPARE(runs({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), (std::vector<uint64_t>{0, 10, 1}));
        QVERIFY(runs({0, 0, 1, 1, 0, 2, 2, 3, 3, 4}).empty()); // decreases once: not monotonic
    }

    void gptqBf16Scales_data()
    {
        QTest::addColumn<int>("bits");
        for (int bits : {2, 3, 4, 8})
            QTest::addRow("b%d", bits) << bits;
    }
    // BF16 scales (the same 16-bit patterns read as bfloat16) through both paths, v1 zeros.
    void gptqBf16Scales()
    {
        QFETCH(int, bits);
        const Logical l = makeLogical(bits, 256, 40, 64, uint32_t(77 + bits), false, 1);
        const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, bits, l.K, l.N, l.groups, true, false);
        PackedLinear p = linearOf(l, po);
        p.kind = PackedKind::Gptq;
        p.bits = bits;
        p.zeros = ZeroConvention::StoredMinusOne;
        p.scaleType = ScaleType::BF16;
        checkAll(p, [&](uint64_t n, uint64_t k) {
            const uint64_t g = k / l.groupSize;
            return bf16ToFloat(l.scales[g * l.N + n]) * float(int32_t(l.codes[n * l.K + k]) - l.zeros[g * l.N + n]);
        });
    }

    void gptqThreeBitWordsAreOneStream()
    {
        // B.1: codes 10 and 21 straddle words; the 96-bit stream holds code j at bits 3j.
        std::vector<uint8_t> codes(32);
        for (int j = 0; j < 32; ++j)
            codes[size_t(j)] = uint8_t((7 * j + 3) & 7);
        const Logical l{3, 32, 1, 1, 32, codes, {4}, {floatToHalf(1.f)}, {}};
        const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, 3, 32, 1, 1, false, false);
        uint32_t w[3];
        std::memcpy(w, po.qweight.bytes.data(), 12);
        // AutoGPTQ's own statement of the layout, word by word.
        uint32_t want[3] = {0, 0, 0};
        for (int j = 0; j < 10; ++j)
            want[0] |= uint32_t(codes[size_t(j)]) << (3 * j);
        want[0] |= uint32_t(codes[10]) << 30;
        want[1] |= (uint32_t(codes[10]) >> 2) & 1;
        for (int j = 11; j < 21; ++j)
            want[1] |= uint32_t(codes[size_t(j)]) << (3 * (j - 11) + 1);
        want[1] |= uint32_t(codes[21]) << 31;
        want[2] |= (uint32_t(codes[21]) >> 1) & 3;
        for (int j = 22; j < 32; ++j)
            want[2] |= uint32_t(codes[size_t(j)]) << (3 * (j - 22) + 2);
        QCOMPARE(w[0], want[0]);
        QCOMPARE(w[1], want[1]);
        QCOMPARE(w[2], want[2]);
    }

    void v1ZeroRules_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("rule");
        QTest::addColumn<int>("zero"); // what the reader makes of an all-ones field
        QTest::addRow("b4-reference-wraps") << 4 << int(V1ZeroRule::Reference) << 0;
        QTest::addRow("b2-reference-wraps") << 2 << int(V1ZeroRule::Reference) << 0;
        QTest::addRow("b8-reference-wraps") << 8 << int(V1ZeroRule::Reference) << 0;
        QTest::addRow("b3-reference-no-mask") << 3 << int(V1ZeroRule::Reference) << 8;
        QTest::addRow("b4-no-wrap") << 4 << int(V1ZeroRule::NoWrap) << 16;
        QTest::addRow("b3-wrap") << 3 << int(V1ZeroRule::Wrap) << 0;
    }
    void v1ZeroRules()
    {
        QFETCH(int, bits);
        QFETCH(int, rule);
        QFETCH(int, zero);
        // v1 zero 0 packed as AutoGPTQ does: 0xFFFFFFFF << shift spills into every higher
        // field of the word. Column 1's true zero is 0, so columns 1..end read all-ones.
        const uint64_t N = 32, K = 32;
        std::vector<uint32_t> qz(uint64_t(bits), 0);
        for (uint64_t n = 0; n < N; ++n) {
            const uint64_t bit = n * uint64_t(bits);
            const uint32_t stored = n == 1 ? 0xFFFFFFFFu : 2u; // z - 1
            qz[bit / 32] |= stored << (bit % 32);
            if (bit % 32 + uint64_t(bits) > 32 && n != 1)
                qz[bit / 32 + 1] |= stored >> (32 - bit % 32);
        }
        std::vector<uint32_t> qw(K * uint64_t(bits) / 32 * N, 0);
        std::vector<uint16_t> sc(N, floatToHalf(1.f));
        PackedLinear p;
        p.kind = PackedKind::Gptq;
        p.bits = bits;
        p.K = K;
        p.N = N;
        p.groupSize = K;
        p.groups = 1;
        p.zeros = ZeroConvention::StoredMinusOne;
        p.v1Rule = V1ZeroRule(rule);
        p.qweight = {reinterpret_cast<const uint8_t*>(qw.data()), qw.size() * 4};
        p.qzeros = {reinterpret_cast<const uint8_t*>(qz.data()), qz.size() * 4};
        p.scales = {reinterpret_cast<const uint8_t*>(sc.data()), sc.size() * 2};
        p.validate();
        QCOMPARE(p.zeroAt(0, 0), 3);
        QCOMPARE(p.zeroAt(0, 1), zero);
        QCOMPARE(p.zeroAt(0, uint64_t(32 / bits - 1)), zero); // spilled: last field of word 0
        checkAll(p, [&](uint64_t n, uint64_t) { return float(-p.zeroAt(0, n)); });
    }

    void awqGemm_data()
    {
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::addColumn<int>("groupSize");
        QTest::addRow("g128") << 256 << 128 << 128;
        QTest::addRow("g32") << 64 << 72 << 32;
        QTest::addRow("odd-K") << 100 << 24 << 20;
        QTest::addRow("g16-K200") << 200 << 40 << 16;
    }
    void awqGemm()
    {
        QFETCH(int, K);
        QFETCH(int, N);
        QFETCH(int, groupSize);
        const Logical l = makeLogical(4, uint64_t(K), uint64_t(N), uint64_t(groupSize), uint32_t(K * N));
        const PackedOutput po = packAwqGemm(l.codes, l.zeros, l.scales, l.K, l.N, l.groupSize);
        // The AWQ order: column 8c + j sits at shift 0,16,4,20,8,24,12,28.
        uint32_t w0;
        std::memcpy(&w0, po.qweight.bytes.data(), 4);
        static constexpr int shifts[8] = {0, 16, 4, 20, 8, 24, 12, 28};
        for (int j = 0; j < 8; ++j)
            QCOMPARE((w0 >> shifts[j]) & 0xF, uint32_t(l.codes[size_t(j) * l.K]));
        PackedLinear p = linearOf(l, po);
        p.kind = PackedKind::AwqGemm;
        checkAll(p, [&](uint64_t n, uint64_t k) { return expected(l, n, k); });
    }

    // verify's round trip without the oracle over every element (GPTQ's stream, AWQ-GEMM)
    // gives the oracle's words: with clean padding, and with every bit outside a field set in
    // qweight and qzeros (the finding then names the same first word and value).
    void roundTripByFieldBits_data()
    {
        QTest::addColumn<bool>("awq");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::addColumn<int>("groupSize");
        for (int bits : {2, 3, 4, 8})
            QTest::addRow("gptq-b%d-K256-N72", bits) << false << bits << 256 << 72 << 32;
        QTest::addRow("gptq-b4-K40-N12") << false << 4 << 40 << 12 << 8;
        QTest::addRow("gptq-b2-K20-N7") << false << 2 << 20 << 7 << 5;
        QTest::addRow("gptq-b8-K36-N9") << false << 8 << 36 << 9 << 12;
        QTest::addRow("gptq-b3-K40-N12") << false << 3 << 40 << 12 << 8;
        QTest::addRow("gptq-b3-K64-N32") << false << 3 << 64 << 32 << 20;
        QTest::addRow("awq-K100-N24") << true << 4 << 100 << 24 << 20;
        QTest::addRow("awq-K256-N128") << true << 4 << 256 << 128 << 128;
    }
    void roundTripByFieldBits()
    {
        QFETCH(bool, awq);
        QFETCH(int, bits);
        QFETCH(int, K);
        QFETCH(int, N);
        QFETCH(int, groupSize);
        const Logical l = makeLogical(bits, uint64_t(K), uint64_t(N), uint64_t(groupSize), uint32_t(K * N + bits));
        PackedOutput po = awq ? packAwqGemm(l.codes, l.zeros, l.scales, l.K, l.N, l.groupSize)
                              : packGptq(l.codes, l.zeros, l.scales, bits, l.K, l.N, l.groups, false, false);
        const std::vector<uint8_t> cleanQ = po.qweight.bytes, cleanZ = po.qzeros.bytes;
        for (const bool padded : {false, true}) {
            if (padded) {
                // Every bit the oracle leaves zero when it packs all-ones codes and zeros.
                Logical ones = l;
                std::fill(ones.codes.begin(), ones.codes.end(), uint8_t((1u << bits) - 1));
                std::fill(ones.zeros.begin(), ones.zeros.end(), int32_t((1u << bits) - 1));
                const PackedOutput full = awq
                    ? packAwqGemm(ones.codes, ones.zeros, ones.scales, l.K, l.N, l.groupSize)
                    : packGptq(ones.codes, ones.zeros, ones.scales, bits, l.K, l.N, l.groups, false, false);
                for (size_t i = 0; i < cleanQ.size(); ++i)
                    po.qweight.bytes[i] = uint8_t(cleanQ[i] | ~full.qweight.bytes[i]);
                for (size_t i = 0; i < cleanZ.size(); ++i)
                    po.qzeros.bytes[i] = uint8_t(cleanZ[i] | ~full.qzeros.bytes[i]);
            }
            PackedLinear p = linearOf(l, po);
            p.kind = awq ? PackedKind::AwqGemm : PackedKind::Gptq;
            p.bits = bits;
            p.zeros = ZeroConvention::Stored;
            const Repacked oracle = repackedWords(p, l.zeros, true), fast = repackedWords(p, l.zeros, false);
            QCOMPARE(fast.qweight, oracle.qweight);
            QCOMPARE(fast.qzeros, oracle.qzeros);
            QCOMPARE(fast.scales, oracle.scales);
            QCOMPARE(oracle.qweight, cleanQ);
            QCOMPARE(oracle.qzeros, cleanZ);
            const bool anyPadding = po.qweight.bytes != cleanQ || po.qzeros.bytes != cleanZ;
            if (!awq) { // verify's check on the same words: a finding exactly when a padding bit is set
                QTemporaryDir tmp;
                QVERIFY(tmp.isValid());
                const std::string path =
                    qsk::write(tmp.path(), "m.safetensors",
                               std::vector<qsk::T>{{"m.qweight", DType::I32, po.qweight.shape, po.qweight.bytes},
                                                   {"m.qzeros", DType::I32, po.qzeros.shape, po.qzeros.bytes},
                                                   {"m.scales", DType::F16, po.scales.shape, po.scales.bytes}});
                const auto ck = qsk::openFile(path);
                const LogicalWeight w =
                    qsk::weight(*ck, "m", "gptq-v2", {l.N, l.K},
                                {{"qweight", "m.qweight"}, {"qzeros", "m.qzeros"}, {"scales", "m.scales"}}, bits,
                                int64_t(groupSize));
                VerifyReport rep;
                verifyPackedWeight(*ck, w, rep);
                const auto found = [&](const char* check) {
                    return std::any_of(rep.findings.begin(), rep.findings.end(),
                                       [&](const VerifyFinding& f) { return f.check == check; });
                };
                QCOMPARE(found("qweight-roundtrip"), po.qweight.bytes != cleanQ);
                QCOMPARE(found("qzeros-roundtrip"), po.qzeros.bytes != cleanZ);
            }
            // AWQ-GEMM's words are eight 4-bit fields each: nothing outside a field.
            QCOMPARE(anyPadding,
                     padded && !awq && (uint64_t(K) * uint64_t(bits) % 32 || uint64_t(N) * uint64_t(bits) % 32));
        }
    }

    void awqGemv_data()
    {
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("groupSize");
        QTest::addColumn<int>("zeroWords");
        QTest::addColumn<bool>("bf16");
        QTest::addRow("g128") << 512 << 128 << 1 << false;
        QTest::addRow("g64") << 512 << 64 << 2 << false;
        QTest::addRow("g32") << 512 << 32 << 4 << false;
        // 20 and 35 groups: the AVX-512 path reads a row's scales and zeros 16 groups at a time,
        // so a full run and a tail; special scales; F16 and BF16.
        QTest::addRow("g128-20groups") << 2560 << 128 << 3 << false;
        QTest::addRow("g32-35groups-bf16") << 1120 << 32 << 8 << true;
    }
    void awqGemv()
    {
        QFETCH(int, K);
        QFETCH(int, groupSize);
        QFETCH(int, zeroWords);
        QFETCH(bool, bf16);
        Logical l = makeLogical(4, uint64_t(K), 24, uint64_t(groupSize), uint32_t(groupSize + K));
        QCOMPARE(awqGemvZeroWords(l.K, l.groupSize), uint64_t(zeroWords));
        const uint16_t special[2][5] = {{0x7E00, 0x7C00, 0x0001, 0x83FF, 0xFC00}, // NaN, +Inf, subnormals, -Inf
                                        {0x7FC0, 0x7F80, 0x0001, 0x807F, 0xFF80}}; // the same in BF16
        for (uint64_t g = 0; g < l.groups; ++g)
            for (int i = 0; i < 5; ++i)
                l.scales[g * l.N + (2 * g + uint64_t(i)) % l.N] = special[bf16][i];
        const PackedOutput po = packAwqGemv(l.codes, l.zeros, l.scales, l.K, l.N, l.groupSize);
        PackedLinear p = linearOf(l, po);
        p.kind = PackedKind::AwqGemv;
        p.zeroWords = po.qzeros.shape[1];
        p.scaleRows = po.scales.shape[1];
        p.scaleType = bf16 ? ScaleType::BF16 : ScaleType::F16;
        checkAll(p, [&](uint64_t n, uint64_t k) {
            const uint64_t g = k / l.groupSize;
            const uint16_t s = l.scales[g * l.N + n];
            return (bf16 ? bf16ToFloat(s) : halfToFloat(s))
                * float(int32_t(l.codes[n * l.K + k]) - l.zeros[g * l.N + n]);
        });
    }

    void awqGemvFast()
    {
        QCOMPARE(gemvFastChannel(0), uint64_t(0));
        QCOMPARE(gemvFastChannel(1), uint64_t(8));
        QCOMPARE(gemvFastChannel(2), uint64_t(16));
        QCOMPARE(gemvFastChannel(3), uint64_t(24));
        QCOMPARE(gemvFastChannel(4), uint64_t(1));
        QCOMPARE(gemvFastChannel(37), uint64_t(32 + 8 + 1));
        for (uint64_t k = 0; k < 256; ++k)
            QCOMPARE(gemvFastChannel(gemvFastPosition(k)), k);
        Logical l = makeLogical(4, 256, 16, 64, 99);
        std::vector<uint16_t> biases(l.groups * l.N);
        for (size_t i = 0; i < biases.size(); ++i)
            biases[i] = floatToHalf(-halfToFloat(l.scales[i]) * float(l.zeros[i]));
        const PackedOutput po = packAwqGemvFast(l.codes, biases, l.scales, l.K, l.N, l.groupSize);
        PackedLinear p = linearOf(l, po);
        p.kind = PackedKind::AwqGemvFast;
        p.zeros = ZeroConvention::FloatBias;
        p.scaleRows = po.scales.shape[0];
        bool inexact = false;
        checkAll(p, [&](uint64_t n, uint64_t k) {
            // fp16 q*s, then fp16 + bias; worked out in double, which holds both exactly.
            const uint64_t g = k / l.groupSize;
            const float prod =
                halfToFloat(floatToHalf(float(l.codes[n * l.K + k]) * halfToFloat(l.scales[g * l.N + n])));
            const double sum = double(prod) + double(halfToFloat(biases[g * l.N + n]));
            // Sums of these magnitudes are exact in float, so one rounding to half is right.
            inexact |= double(float(sum)) != sum;
            return halfToFloat(floatToHalf(float(sum)));
        });
        QVERIFY(!inexact);
    }

    void marlinMatchesClosedForm_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addRow("4-bit") << 4;
        QTest::addRow("8-bit") << 8;
    }
    void marlinMatchesClosedForm()
    {
        // Forward closed form of B.4 (word, slot) -> (k, n); marlinLocate must invert it.
        QFETCH(int, bits);
        const uint64_t K = 32, N = 128, perRow = N * uint64_t(bits) / 2;
        std::vector<bool> seen(K * N, false);
        for (uint64_t kt = 0; kt < K / 16; ++kt)
            for (uint64_t w = 0; w < perRow; ++w)
                for (int s = 0; s < 32 / bits; ++s) {
                    uint64_t i, j, block, r;
                    if (bits == 4) {
                        const uint64_t c = w >> 7, t = w & 127;
                        i = t >> 2;
                        j = t & 3;
                        static constexpr int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
                        const uint64_t e = uint64_t(order[s]);
                        block = e >> 2;
                        r = e & 3;
                        j += 4 * c;
                    } else {
                        const uint64_t c = w >> 8, t = w & 255;
                        i = t >> 3;
                        j = ((t >> 1) & 3) + 4 * c;
                        block = t & 1;
                        static constexpr int order[4] = {0, 2, 1, 3};
                        r = uint64_t(order[s]);
                    }
                    const uint64_t k = 16 * kt + 2 * (i % 4) + (r & 1) + 8 * (r >> 1);
                    const uint64_t n = 16 * j + (i >> 2) + 8 * block;
                    const MarlinPos pos = marlinLocate(k, n, bits, N);
                    QCOMPARE(pos.word, kt * perRow + w);
                    QCOMPARE(pos.slot, s);
                    QVERIFY(!seen[k * N + n]);
                    seen[k * N + n] = true;
                }
        // Scale permutation: 8x8 transpose in chunks of 64.
        QCOMPARE(marlinScaleIndex(0, 1, 128, 2), uint64_t(8));
        QCOMPARE(marlinScaleIndex(0, 8, 128, 2), uint64_t(1));
        // Per-channel: new[8i + m] = old[2i + off[m]], off = 0,1,8,9,16,17,24,25.
        QCOMPARE(marlinScaleIndex(0, 9, 128, 1), uint64_t(3));
        QCOMPARE(marlinScaleIndex(0, 2, 128, 1), uint64_t(8));
        QCOMPARE(marlinScaleIndex(0, 25, 128, 1), uint64_t(7));
    }

    void marlin_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("groupSize");
        QTest::addColumn<bool>("bf16");
        QTest::addRow("4-bit-g128") << 4 << 128 << false;
        QTest::addRow("4-bit-perchannel") << 4 << 256 << false;
        QTest::addRow("8-bit-g64") << 8 << 64 << false;
        // Groups shorter than the AVX-512 kernel's four-tile spans, or not dividing them.
        QTest::addRow("4-bit-g32") << 4 << 32 << false;
        QTest::addRow("4-bit-g48") << 4 << 48 << false;
        QTest::addRow("8-bit-g16") << 8 << 16 << false;
        // BF16 scales with NaN, Inf and subnormals, in both of Marlin's scale orders.
        QTest::addRow("4-bit-g64-bf16") << 4 << 64 << true;
        QTest::addRow("8-bit-perchannel-bf16") << 8 << 256 << true;
    }
    void marlin()
    {
        QFETCH(int, bits);
        QFETCH(int, groupSize);
        QFETCH(bool, bf16);
        Logical l = makeLogical(bits, 256, 128, uint64_t(groupSize), uint32_t(bits + groupSize));
        if (bf16)
            for (uint64_t g = 0; g < l.groups; ++g)
                for (int i = 0; i < 4; ++i)
                    l.scales[g * l.N + (5 * g + 7 * uint64_t(i)) % l.N] =
                        std::array<uint16_t, 4>{0x7FC0, 0xFF80, 0x0001, 0x807F}[size_t(i)];
        std::fill(l.zeros.begin(), l.zeros.end(), 1 << (bits - 1));
        const PackedOutput po = packMarlin(l.codes, l.scales, bits, l.K, l.N, l.groups);
        PackedLinear p;
        p.kind = PackedKind::Marlin;
        p.zeros = ZeroConvention::Implicit;
        p.bits = bits;
        p.K = l.K;
        p.N = l.N;
        p.groupSize = l.groupSize;
        p.groups = l.groups;
        p.qweight = po.qweight.bytes;
        p.scales = po.scales.bytes;
        p.scaleType = bf16 ? ScaleType::BF16 : ScaleType::F16;
        checkAll(p, [&](uint64_t n, uint64_t k) {
            const uint16_t s = l.scales[k / l.groupSize * l.N + n];
            return (bf16 ? bf16ToFloat(s) : halfToFloat(s)) * float(int32_t(l.codes[n * l.K + k]) - (1 << (bits - 1)));
        });
    }

    void specialScales_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<bool>("bf16");
        QTest::addColumn<int>("gIdxKind"); // GIdx
        for (int bits : {2, 3, 4, 8})
            for (bool bf16 : {false, true})
                for (GIdx g : {GIdx::None, GIdx::ActOrder, GIdx::Uneven})
                    QTest::addRow("b%d-%s-%s", bits, bf16 ? "bf16" : "f16",
                                  g == GIdx::None           ? "groups"
                                      : g == GIdx::ActOrder ? "actorder"
                                                            : "uneven")
                        << bits << bf16 << int(g);
    }
    void specialScales()
    {
        // NaN, Inf and subnormal scales: s * (q - z) in float32, as torch computes it; groups of
        // 24 (runs that end inside a vector), a column tail past the last whole vector, a 16-row
        // block and a remainder.
        QFETCH(int, bits);
        QFETCH(bool, bf16);
        QFETCH(int, gIdxKind);
        const GIdx gi = GIdx(gIdxKind);
        Logical l = makeLogical(bits, 72, 40, 24, uint32_t(5 + bits), gi == GIdx::ActOrder);
        setGIdx(l, gi, uint32_t(bits));
        const uint16_t special[2][5] = {{0x7E00, 0x7C00, 0x0001, 0x83FF, 0xFC00}, // NaN, +Inf, subnormals, -Inf
                                        {0x7FC0, 0x7F80, 0x0001, 0x807F, 0xFF80}}; // the same in BF16
        for (uint64_t g = 0; g < l.groups; ++g)
            for (int i = 0; i < 5; ++i)
                l.scales[g * l.N + uint64_t(3 * g) + uint64_t(i)] = special[bf16][i];
        const auto groupOf = [&](uint64_t k) { return l.gIdx.empty() ? k / l.groupSize : uint64_t(l.gIdx[k]); };
        uint64_t k0 = 0;
        while (groupOf(k0) != 0)
            ++k0;
        l.codes[4 * l.K + k0] = uint8_t(l.zeros[4]); // -Inf * 0 = NaN
        const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, bits, l.K, l.N, l.groups, false, false);
        PackedLinear p = linearOf(l, po);
        p.bits = bits;
        p.scaleType = bf16 ? ScaleType::BF16 : ScaleType::F16;
        p.gIdx = bytesOf(l.gIdx);
        checkAll(p, [&](uint64_t n, uint64_t k) {
            const uint64_t g = groupOf(k);
            const uint16_t s = l.scales[g * l.N + n];
            return (bf16 ? bf16ToFloat(s) : halfToFloat(s))
                * float(int32_t(l.codes[n * l.K + k]) - l.zeros[g * l.N + n]);
        });
        QVERIFY(std::isnan(p.valueAt(0, k0)));
        QVERIFY(std::isnan(p.valueAt(4, k0)));
        const float tiny = bf16 ? std::ldexp(1.f, -133) : std::ldexp(1.f, -24);
        QCOMPARE(p.valueAt(2, k0), tiny * float(int(l.codes[2 * l.K + k0]) - l.zeros[2]));
    }

    // A permuted g_idx (desc_act): the AVX-512 kernel's per-lane group lookup in banks of 32
    // groups (one, two or four banks; a bank's two registers), and 129 groups, past it; codes of
    // every width, v1 zeros, 16-row blocks and a remainder, a column tail.
    void actOrderPermuted_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("groups");
        for (int bits : {2, 3, 4, 8})
            for (int groups : {5, 20, 32, 33, 64, 65, 86, 128, 129})
                QTest::addRow("b%d-%dgroups", bits, groups) << bits << groups;
    }
    void actOrderPermuted()
    {
        QFETCH(int, bits);
        QFETCH(int, groups);
        const Logical l = makeLogical(bits, uint64_t(8 * groups), 40, 8, uint32_t(bits * 1000 + groups), true, 1);
        const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, bits, l.K, l.N, l.groups, true, false);
        PackedLinear p = linearOf(l, po);
        p.bits = bits;
        p.zeros = ZeroConvention::StoredMinusOne;
        p.gIdx = bytesOf(l.gIdx);
        checkAll(p, [&](uint64_t n, uint64_t k) { return expected(l, n, k); });
    }

    // The families' parsed-state cache keys on the checkpoint object's serial: a new checkpoint
    // over the same memory, its g_idx rewritten in place (the same names, shapes and addresses,
    // the old object gone and the new one most likely where it was) gets its own state, on
    // every path. A key of the checkpoint's address and the members' places alone would hand
    // it the first one's: g_idx = k / group size, dropped as trivial when parsed, so the second
    // one's permutation would go unread.
    void stateCacheFollowsCheckpoints()
    {
        constexpr uint64_t K = 256, N = 32, G = 32;
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const auto fileOf = [&](const Logical& l) {
            const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, 4, K, N, l.groups, true, false);
            const std::string path =
                qsk::write(tmp.path(), "m.safetensors",
                           std::vector<qsk::T>{{"m.qweight", DType::I32, po.qweight.shape, po.qweight.bytes},
                                               {"m.qzeros", DType::I32, po.qzeros.shape, po.qzeros.bytes},
                                               {"m.scales", DType::F16, po.scales.shape, po.scales.bytes},
                                               {"m.g_idx",
                                                DType::I32,
                                                {K},
                                                std::vector<uint8_t>(bytesOf(l.gIdx).begin(), bytesOf(l.gIdx).end())}});
            QFile f(QString::fromStdString(path));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        Logical a = makeLogical(4, K, N, G, 7, true, 1), b = a;
        setGIdx(a, GIdx::Arange, 0);
        QVERIFY(a.gIdx != b.gIdx);
        QByteArray memory = fileOf(a);
        const QByteArray second = fileOf(b);
        QCOMPARE(second.size(), memory.size());
        for (SimdPath path : cpuSimdPaths()) {
            memory = fileOf(a);
            const uint8_t* at = reinterpret_cast<const uint8_t*>(memory.constData());
            for (const Logical* l : {&a, &b}) {
                if (l == &b)
                    std::memcpy(memory.data(), second.constData(), size_t(second.size()));
                QCOMPARE(reinterpret_cast<const uint8_t*>(memory.constData()), at);
                const auto ck = Checkpoint::readMemory({{"m.safetensors", {at, size_t(memory.size())}}});
                const LogicalWeight w = qsk::weight(
                    *ck, "m", "gptq-v1", {N, K},
                    {{"qweight", "m.qweight"}, {"qzeros", "m.qzeros"}, {"scales", "m.scales"}, {"g_idx", "m.g_idx"}}, 4,
                    int64_t(G));
                std::vector<float> out(N * K);
                dequantizeRows(*ck, w, 0, N, out.data(), path);
                for (uint64_t n = 0; n < N; ++n)
                    for (uint64_t k = 0; k < K; ++k)
                        if (std::bit_cast<uint32_t>(out[n * K + k]) != std::bit_cast<uint32_t>(expected(*l, n, k)))
                            QFAIL(qPrintable(QStringLiteral("%1, checkpoint %2: (%3, %4) differs")
                                                 .arg(QLatin1String(simdPathName(path)))
                                                 .arg(l == &a ? 1 : 2)
                                                 .arg(n)
                                                 .arg(k)));
            }
        }
    }

    // Each layout the AVX-512 path has a kernel for takes it: one that fell back to AVX2 would
    // pass the agreement tests unnoticed (the speed is the point). An act-order permutation
    // of more than 128 groups stays with the AVX2 path.
    void avx512KernelsPresent()
    {
        if (cpuSimdPath() != SimdPath::Avx512)
            QSKIP("this CPU has no AVX-512 path");
#if QS_ARCH_X86
        for (int bits : {2, 3, 4, 8})
            for (bool actOrder : {false, true}) {
                Logical l = makeLogical(bits, 256, 40, 32, 77, actOrder);
                const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, bits, l.K, l.N, l.groups, false, false);
                PackedLinear p = linearOf(l, po);
                p.bits = bits;
                p.gIdx = bytesOf(l.gIdx);
                p.validate();
                std::vector<float> out(p.N * p.K);
                QVERIFY2(avx512::dequantPackedRows(p, 0, p.N, out.data()),
                         qPrintable(QStringLiteral("GPTQ-%1%2").arg(bits).arg(actOrder ? " act-order" : "")));
            }
        for (int bits : {3, 5, 6, 7}) {
            const Logical l = makeLogical(bits, 128, 32, 32, 80);
            const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, bits, l.K, l.N, l.groups, false, true);
            PackedLinear p = linearOf(l, po);
            p.kind = PackedKind::GptqPlanar;
            p.bits = bits;
            p.validate();
            std::vector<float> out(p.N * p.K);
            QVERIFY2(avx512::dequantPackedRows(p, 0, p.N, out.data()),
                     qPrintable(QStringLiteral("planar GPTQ-%1").arg(bits)));
        }
        {
            // A permuted g_idx over more than 128 groups stays with the AVX2 path.
            const Logical l = makeLogical(4, 129 * 16, 16, 16, 79, true);
            const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, 4, l.K, l.N, l.groups, false, false);
            PackedLinear p = linearOf(l, po);
            p.gIdx = bytesOf(l.gIdx);
            p.validate();
            std::vector<float> out(p.N * p.K);
            QVERIFY(!avx512::dequantPackedRows(p, 0, p.N, out.data()));
        }
        {
            const Logical l = makeLogical(4, 256, 40, 32, 78);
            const PackedOutput po = packAwqGemm(l.codes, l.zeros, l.scales, l.K, l.N, l.groupSize);
            PackedLinear p = linearOf(l, po);
            p.kind = PackedKind::AwqGemm;
            p.validate();
            std::vector<float> out(p.N * p.K);
            QVERIFY2(avx512::dequantPackedRows(p, 0, p.N, out.data()), "AWQ GEMM");
        }
        Logical l = makeLogical(4, 256, 16, 64, 99);
        std::vector<uint16_t> biases(l.groups * l.N, floatToHalf(-0.5f));
        const PackedOutput po = packAwqGemvFast(l.codes, biases, l.scales, l.K, l.N, l.groupSize);
        PackedLinear p = linearOf(l, po);
        p.kind = PackedKind::AwqGemvFast;
        p.zeros = ZeroConvention::FloatBias;
        p.scaleRows = po.scales.shape[0];
        p.validate();
        std::vector<float> out(p.N * p.K);
        QVERIFY2(avx512::dequantPackedRows(p, 0, p.N, out.data()), "GEMV_FAST");
#endif
    }

    // Every GPTQ and AWQ fixture weight, through the dispatcher, for both paths: our float32
    // rounds (RNE) to the upstream fp16 bits stored in ref.safetensors.
    void fixtures_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("module");
        const QDir root(qstest::fixture(QStringLiteral("safetensors")));
        const QStringList dirs =
            root.entryList({QStringLiteral("gptq-*"), QStringLiteral("awq-*")}, QDir::Dirs, QDir::Name);
        QVERIFY(dirs.size() >= 10);
        for (const QString& d : dirs) {
            const auto ckpt = openCheckpoint(root.filePath(d + QStringLiteral("/model.safetensors")).toStdString());
            for (const TensorEntry& t : ckpt->tensors) {
                const QString name = QString::fromStdString(std::string(t.name));
                if (name.endsWith(QLatin1String(".qweight"))) {
                    const QString module = name.chopped(8);
                    QTest::addRow("%s/%s", qPrintable(d), qPrintable(module.section(QLatin1Char('.'), -1)))
                        << d << module;
                }
            }
        }
    }
    void fixtures()
    {
        QFETCH(QString, dir);
        QFETCH(QString, module);
        const QString path = qstest::fixture(QStringLiteral("safetensors/") + dir);
        const auto ckpt = openCheckpoint(path.toStdString());
        const auto ref = openCheckpoint((path + QStringLiteral("/ref.safetensors")).toStdString());
        const TensorEntry* want = ref->find((module + QStringLiteral(".weight")).toStdString());
        QVERIFY(want);
        QCOMPARE(want->shape.size(), size_t(2));

        // The logical weight as detection describes it, built here from the config.
        QJsonObject q = ckpt->config.value(QStringLiteral("quantization_config")).toObject();
        QVERIFY(!q.isEmpty());
        LogicalWeight w;
        w.name = module.toStdString();
        const bool awq = q.value(QStringLiteral("quant_method")).toString() == QLatin1String("awq");
        w.format = awq ? "awq-gemm" : "gptq-v1";
        w.bits = q.value(QStringLiteral("bits")).toInt();
        w.groupSize = q.value(QStringLiteral("group_size")).toInt();
        w.shape = want->shape;
        for (const char* role : {"qweight", "qzeros", "scales", "g_idx"}) {
            const int i = ckpt->indexOf(w.name + "." + role);
            if (i >= 0)
                w.members.emplace_back(role, size_t(i));
        }
        const uint64_t N = want->shape[0], K = want->shape[1];
        std::vector<float> refValues(N * K);
        std::memcpy(refValues.data(), ref->bytes(*want).data(), refValues.size() * 4);

        std::vector<float> scalar(N * K), fast(N * K);
        dequantizeRows(*ckpt, w, 0, N, scalar.data(), SimdPath::Scalar);
        for (SimdPath path : cpuSimdPaths()) {
            dequantizeRows(*ckpt, w, 0, N, fast.data(), path);
            for (uint64_t i = 0; i < N * K; ++i) {
                const uint16_t wantBits = floatToHalf(refValues[i]);
                QCOMPARE(halfToFloat(wantBits), refValues[i]); // the reference really is fp16
                if (floatToHalf(scalar[i]) != wantBits)
                    QFAIL(qPrintable(QStringLiteral("scalar (%1, %2): %3, reference %4")
                                         .arg(i / K)
                                         .arg(i % K)
                                         .arg(scalar[i])
                                         .arg(refValues[i])));
                if (std::bit_cast<uint32_t>(fast[i]) != std::bit_cast<uint32_t>(scalar[i]))
                    QFAIL(qPrintable(QStringLiteral("fast (%1, %2): %3, scalar %4")
                                         .arg(i / K)
                                         .arg(i % K)
                                         .arg(fast[i])
                                         .arg(scalar[i])));
            }
            // And through the whole-weight helper (OpenMP over row chunks).
            const std::vector<float> whole = dequantizeWeight(*ckpt, w, path, 2);
            QVERIFY(std::memcmp(whole.data(), fast.data(), whole.size() * 4) == 0);
        }
    }

    void rejectsBadLayouts()
    {
        const Logical l = makeLogical(4, 64, 16, 32, 3, true);
        const PackedOutput po = packGptq(l.codes, l.zeros, l.scales, 4, l.K, l.N, l.groups, false, false);
        PackedLinear p = linearOf(l, po);
        p.validate();
        p.qweight = p.qweight.first(p.qweight.size() - 4);
        QVERIFY_THROWS_EXCEPTION(Error, p.validate());
        p.qweight = po.qweight.bytes;
        std::vector<int32_t> g = l.gIdx;
        g[7] = 2; // only groups 0 and 1 exist
        p.gIdx = bytesOf(g);
        QVERIFY_THROWS_EXCEPTION(Error, p.validate());
        g[7] = -1;
        QVERIFY_THROWS_EXCEPTION(Error, p.validate());
        p.gIdx = {};
        p.groups = 3;
        QVERIFY_THROWS_EXCEPTION(Error, p.validate());
        p.groups = 2;
        p.K = ~0ull / 2;
        QVERIFY_THROWS_EXCEPTION(Error, p.validate());
        // v1 cannot store a zero of 0.
        Logical z = l;
        z.zeros[0] = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 packGptq(z.codes, z.zeros, z.scales, 4, z.K, z.N, z.groups, true, false));
    }

    // The kernel's variant and zero convention come from each format's registered LayoutSpec:
    // every format stored for the packed kernel has one it understands.
    void layoutsFromSpecs()
    {
        const std::pair<const char*, PackedLayout> expected[] = {
            {"gptq-v1", {PackedKind::Gptq, ZeroConvention::StoredMinusOne}},
            {"gptq-v2", {PackedKind::Gptq, ZeroConvention::Stored}},
            {"gptq-planar", {PackedKind::GptqPlanar, ZeroConvention::Stored}},
            {"awq-gemm", {PackedKind::AwqGemm, ZeroConvention::Stored}},
            {"awq-gemv", {PackedKind::AwqGemv, ZeroConvention::Stored}},
            {"awq-gemv-fast", {PackedKind::AwqGemvFast, ZeroConvention::FloatBias}},
            {"gptq-marlin", {PackedKind::Marlin, ZeroConvention::Implicit}},
            {"awq-marlin", {PackedKind::Marlin, ZeroConvention::Implicit}},
        };
        for (const auto& [id, want] : expected) {
            const LayoutSpec* spec = findLayoutSpec(id);
            QVERIFY(spec);
            const std::optional<PackedLayout> got = packedLayoutOf(*spec);
            QVERIFY2(got && got->kind == want.kind && got->zeros == want.zeros, id);
        }
        for (const FormatInfo& f : formatInfos())
            if (f.storage == StorageKind::PackedLinear) {
                const LayoutSpec* spec = findLayoutSpec(f.id);
                QVERIFY2(spec && packedLayoutOf(*spec), f.id.c_str());
            }
        // A spec whose slot order the kernel does not read is declined, not read in AWQ order.
        LayoutSpec shuffled = *findLayoutSpec("awq-gemm");
        std::reverse(shuffled.slotOrder.begin(), shuffled.slotOrder.end());
        QVERIFY(!packedLayoutOf(shuffled));
    }
};

QTEST_GUILESS_MAIN(TestGptqAwq)
#include "tst_gptq_awq.moc"
