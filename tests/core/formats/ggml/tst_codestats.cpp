// weightHistograms in the code domain (formats/ggml/codestats.h): each covered GGUF type's value
// table and codes rebuild the reference dequantization bit for bit; the value histograms,
// min, max and count equal a scan of the dequantized weight, on the fixtures, on random
// blocks and on adversarial ones (d = 0, -0, NaN, Inf, subnormal, largest; all-max codes and
// scale bytes), on every SIMD path; mean and RMS agree with a long double sum within the
// running-sum error bound; the AVX2 and AVX-512 tallies give the scalar tally's bits.
#include "formats/ggml/codestats.h"
#include "analysis/stats.h"
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "formats/dequant.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_codes.h"
#include "formats/kernel.h"

#include "kernel_testutil.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace qs;

namespace {

struct CoveredType {
    const char* name;
    int type;
    std::vector<uint32_t> halfFields; // byte offsets of the block's f16 scales
};

const std::vector<CoveredType>& coveredTypes()
{
    static const std::vector<CoveredType> t{
        {"q4_0", GgmlQ4_0, {0}},     {"q4_1", GgmlQ4_1, {0, 2}},  {"q4_k", GgmlQ4_K, {0, 2}},
        {"iq4_nl", GgmlIQ4_NL, {0}}, {"iq4_xs", GgmlIQ4_XS, {0}},
    };
    return t;
}

// Random blocks, then the adversarial ones: each f16 scale set in turn to 0, -0, NaN, +-Inf,
// the smallest subnormal and the largest finite half; every byte 0xFF; every byte 0 but the
// scales; random bytes with each scale d at a random value.
std::vector<uint8_t> adversarialBlocks(const CoveredType& ct, uint64_t randomBlocks, uint32_t seed)
{
    const GgmlTypeInfo& info = *ggmlTypeTraits(ct.type);
    std::mt19937 rng(seed);
    std::vector<uint8_t> out;
    const auto block = [&] {
        std::vector<uint8_t> b(info.blockBytes);
        for (uint8_t& x : b)
            x = uint8_t(rng());
        // Realistic scales most of the time: a small positive half.
        for (uint32_t off : ct.halfFields) {
            const uint16_t h = uint16_t(0x1800 + rng() % 0x0C00);
            b[off] = uint8_t(h);
            b[off + 1] = uint8_t(h >> 8);
        }
        return b;
    };
    for (uint64_t i = 0; i < randomBlocks; ++i) {
        const std::vector<uint8_t> b = block();
        out.insert(out.end(), b.begin(), b.end());
    }
    for (uint16_t special : {0x0000, 0x8000, 0x7E00, 0x7C00, 0xFC00, 0x0001, 0x7BFF, 0xFBFF})
        for (uint32_t off : ct.halfFields) {
            std::vector<uint8_t> b = block();
            b[off] = uint8_t(special);
            b[off + 1] = uint8_t(special >> 8);
            out.insert(out.end(), b.begin(), b.end());
        }
    out.insert(out.end(), info.blockBytes, uint8_t(0xFF));
    std::vector<uint8_t> zero = block();
    for (size_t i = 0; i < zero.size(); ++i)
        if (std::find(ct.halfFields.begin(), ct.halfFields.end(), uint32_t(i)) == ct.halfFields.end()
            && std::find(ct.halfFields.begin(), ct.halfFields.end(), uint32_t(i - 1)) == ct.halfFields.end())
            zero[i] = 0;
    out.insert(out.end(), zero.begin(), zero.end());
    return out;
}

// Random blocks whose f16 scales are any finite half (any exponent, either sign): the tally's
// products then span far more than a double's 53 bits, so that adding them in another order
// shows in the sums' bits.
std::vector<uint8_t> wideScaleBlocks(const CoveredType& ct, uint64_t n, uint32_t seed)
{
    const GgmlTypeInfo& info = *ggmlTypeTraits(ct.type);
    std::mt19937 rng(seed);
    std::vector<uint8_t> out(n * info.blockBytes);
    for (uint8_t& x : out)
        x = uint8_t(rng());
    for (uint64_t b = 0; b < n; ++b)
        for (uint32_t off : ct.halfFields) {
            uint16_t h = uint16_t(rng());
            if ((h & 0x7C00) == 0x7C00)
                h &= 0xBFFF; // Inf or NaN: exponent 15 instead
            out[b * info.blockBytes + off] = uint8_t(h);
            out[b * info.blockBytes + off + 1] = uint8_t(h >> 8);
        }
    return out;
}

// What weightHistograms must give, from the dequantized weight alone.
struct Expected {
    double lo = 0, hi = 0;
    std::vector<uint64_t> bins;
    uint64_t below = 0, above = 0;
    long double sum = 0, sumSq = 0, sumAbs = 0;
    uint64_t finite = 0, nan = 0, posInf = 0, negInf = 0;
};

Expected expectedFrom(const std::vector<float>& q, const StatsOptions& opt)
{
    Expected e;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (float v : q)
        if (std::isfinite(v)) {
            lo = std::min(lo, double(v));
            hi = std::max(hi, double(v));
            e.sum += (long double)v;
            e.sumSq += (long double)v * (long double)v;
            e.sumAbs += std::fabs((long double)v);
            ++e.finite;
        } else {
            ++(v != v ? e.nan : v > 0 ? e.posInf : e.negInf);
        }
    if (lo <= hi) {
        e.lo = lo;
        e.hi = hi;
    }
    e.bins.assign(size_t(opt.bins), 0);
    const bool ranged = opt.rangeHi > opt.rangeLo;
    const double rlo = ranged ? opt.rangeLo : e.lo, rhi = ranged ? opt.rangeHi : e.hi;
    for (float v : q) {
        if (ranged) {
            const double x = v;
            if (x < rlo)
                ++e.below;
            else if (x > rhi)
                ++e.above;
            else if (x == x)
                ++e.bins[std::min<size_t>(size_t(opt.bins) - 1, size_t((x - rlo) * (double(opt.bins) / (rhi - rlo))))];
            continue;
        }
        if (!std::isfinite(v))
            continue;
        // The default range bins each value's bfloat16 truncation.
        const float t = std::bit_cast<float>(std::bit_cast<uint32_t>(v) & 0xFFFF0000u);
        if (!std::isfinite(t))
            continue;
        size_t bin = size_t(opt.bins) / 2;
        if (rhi > rlo) {
            const double pos = (double(t) - rlo) / (rhi - rlo) * double(opt.bins);
            bin = pos <= 0 ? 0 : std::min<size_t>(size_t(opt.bins) - 1, size_t(pos));
        }
        ++e.bins[bin];
    }
    return e;
}

void checkAgainstScan(const Checkpoint& ckpt, const LogicalWeight& w, const StatsOptions& opt)
{
    const std::vector<float> q = dequantizeWeight(ckpt, w, SimdPath::Scalar);
    const Expected e = expectedFrom(q, opt);
    const WeightHistograms h = weightHistograms(ckpt, w, opt);
    QCOMPARE(h.count, uint64_t(q.size()));
    QVERIFY2(h.minValue == e.lo, qPrintable(QString::number(h.minValue) + " vs " + QString::number(e.lo)));
    QVERIFY2(h.maxValue == e.hi, qPrintable(QString::number(h.maxValue) + " vs " + QString::number(e.hi)));
    if (opt.rangeHi <= opt.rangeLo) {
        QCOMPARE(h.values.lo, e.lo);
        QCOMPARE(h.values.hi, e.hi);
    }
    QCOMPARE(h.values.counts, e.bins);
    QCOMPARE(h.values.below, e.below);
    QCOMPARE(h.values.above, e.above);
    // The tally's sums: every product count * value exact, count * value^2 rounded once,
    // each lane a running sum over at most `count` terms, then the lane tree and the chunks:
    // |error| <= (count + 64) u sum|x| (u = 2^-53; 64 covers the trees and the product's
    // rounding), and one more rounding for the division (and half the relative error of
    // sumSq, plus its roundings, for the square root).
    // NaN and the infinities are counted apart; mean and RMS are those of the finite values.
    QCOMPARE(h.nanCount, e.nan);
    QCOMPARE(h.posInfCount, e.posInf);
    QCOMPARE(h.negInfCount, e.negInf);
    const double u = std::ldexp(1.0, -53), n = double(e.finite);
    if (e.lo <= e.hi && n > 0) {
        const long double mean = e.sum / (long double)n;
        const double meanBound = (n + 64) * u * double(e.sumAbs) / n + 2 * u * std::fabs(double(mean));
        QVERIFY2(std::fabs((long double)h.meanValue - mean) <= meanBound,
                 qPrintable(QString("mean %1 vs %2").arg(h.meanValue, 0, 'g', 17).arg(double(mean), 0, 'g', 17)));
        const long double rms = std::sqrt(e.sumSq / (long double)n);
        const double rmsBound = double(rms) * ((n + 70) * u / 2 + 4 * u);
        QVERIFY2(std::fabs((long double)h.rmsValue - rms) <= rmsBound,
                 qPrintable(QString("rms %1 vs %2").arg(h.rmsValue, 0, 'g', 17).arg(double(rms), 0, 'g', 17)));
    }
}

QList<SimdPath> paths()
{
    QList<SimdPath> p;
    for (SimdPath s : qsk::simdPaths())
        p << s;
    return p;
}

} // namespace

Q_DECLARE_METATYPE(qs::SimdPath)

class TestCodeStats : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_random; // a GGUF of random and adversarial blocks of every covered type

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_random = (m_dir.path() + "/random.gguf").toStdString();
        std::vector<std::vector<uint8_t>> data;
        std::vector<GgufTensor> tensors;
        uint32_t seed = 1;
        for (const CoveredType& ct : coveredTypes()) {
            const GgmlTypeInfo& info = *ggmlTypeTraits(ct.type);
            // Rows of 3 blocks (odd shapes: 7 rows of 96 or 768 weights) plus the adversarial
            // blocks, padded to whole rows with random ones.
            std::vector<uint8_t> b = adversarialBlocks(ct, 21, seed++);
            uint64_t blocks = b.size() / info.blockBytes;
            const std::vector<uint8_t> pad = adversarialBlocks(ct, 3, seed++);
            while (blocks % 3) {
                b.insert(b.end(), pad.begin(), pad.begin() + info.blockBytes);
                ++blocks;
            }
            data.push_back(std::move(b));
            tensors.push_back({std::string("adv.") + ct.name, ct.type, {3 * info.blockWeights, blocks / 3}, {}});
        }
        for (size_t i = 0; i < tensors.size(); ++i)
            tensors[i].data = data[i];
        MetaValue arch;
        arch.value = std::string("fixture");
        writeGguf(m_random, {{"general.architecture", arch}}, tensors);
    }

    void blockCodesRebuildReference_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("tensor");
        const QString fixture = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
        for (const CoveredType& ct : coveredTypes()) {
            for (const char* prefix : {"synthetic.", "synthetic4096.", "real."})
                QTest::addRow("%s%s", prefix, ct.name) << fixture << QString(prefix) + ct.name;
            QTest::addRow("adversarial %s", ct.name) << QString::fromStdString(m_random) << QString("adv.") + ct.name;
        }
    }
    void blockCodesRebuildReference()
    {
        QFETCH(QString, file);
        QFETCH(QString, tensor);
        const auto ckpt = openCheckpoint(file.toStdString());
        const TensorEntry* t = ckpt->find(tensor.toStdString());
        QVERIFY(t);
        GgmlCodeShape shape;
        QVERIFY(ggmlCodeShape(t->ggmlType, shape));
        const GgmlTypeInfo& info = *ggmlTypeTraits(t->ggmlType);
        QCOMPARE(uint64_t(shape.groupWeights) * shape.groups, uint64_t(info.blockWeights));
        const auto bytes = ckpt->bytes(*t);
        const uint64_t blocks = bytes.size() / info.blockBytes;
        QVERIFY(blocks > 0);
        std::vector<float> ref(blocks * info.blockWeights);
        dequantizeGgmlRowsRef(t->ggmlType, bytes.data(), blocks, info.blockWeights, ref.data());
        std::vector<float> values(size_t(shape.groups) * shape.codes);
        std::vector<uint8_t> codes(info.blockWeights);
        for (uint64_t b = 0; b < blocks; ++b) {
            ggmlBlockCodes(t->ggmlType, bytes.data() + b * info.blockBytes, values.data(), codes.data());
            for (uint32_t e = 0; e < info.blockWeights; ++e) {
                QVERIFY(codes[e] < shape.codes);
                const float v = values[size_t(e / shape.groupWeights) * shape.codes + codes[e]];
                const uint32_t got = std::bit_cast<uint32_t>(v),
                               want = std::bit_cast<uint32_t>(ref[b * info.blockWeights + e]);
                if (got != want)
                    QFAIL(qPrintable(
                        QString("block %1 element %2: %3 vs %4").arg(b).arg(e).arg(got, 8, 16).arg(want, 8, 16)));
            }
        }
    }

    void histogramsMatchScan_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("weight");
        QTest::addColumn<SimdPath>("path");
        QTest::addColumn<bool>("ranged");
        const QString fixture = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf"));
        for (SimdPath p : paths())
            for (bool ranged : {false, true})
                for (const CoveredType& ct : coveredTypes()) {
                    const std::string pn(simdPathName(p));
                    const char* rn = ranged ? "range" : "default";
                    for (const char* prefix : {"synthetic.", "synthetic4096.", "real."})
                        QTest::addRow("%s%s %s %s", prefix, ct.name, pn.c_str(), rn)
                            << fixture << QString(prefix) + ct.name << p << ranged;
                    QTest::addRow("adversarial %s %s %s", ct.name, pn.c_str(), rn)
                        << QString::fromStdString(m_random) << QString("adv.") + ct.name << p << ranged;
                }
    }
    void histogramsMatchScan()
    {
        QFETCH(QString, file);
        QFETCH(QString, weight);
        QFETCH(SimdPath, path);
        QFETCH(bool, ranged);
        const auto ckpt = openCheckpoint(file.toStdString());
        const LogicalWeight* w = ckpt->findWeight(weight.toStdString());
        QVERIFY(w);
        StatsOptions opt;
        opt.bins = 37;
        opt.path = path;
        opt.rowChunk = 3;
        if (ranged) {
            opt.rangeLo = -0.05;
            opt.rangeHi = 0.04;
        }
        checkAgainstScan(*ckpt, *w, opt);
        opt.rowChunk = 0;
        opt.bins = 5;
        checkAgainstScan(*ckpt, *w, opt);
    }

    void tallyPathsAgree_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<SimdPath>("path");
        for (SimdPath p : paths())
            for (int i = 0; i < int(coveredTypes().size()); ++i)
                QTest::addRow("%s %s", coveredTypes()[size_t(i)].name, std::string(simdPathName(p)).c_str()) << i << p;
    }
    void tallyPathsAgree()
    {
        QFETCH(int, index);
        QFETCH(SimdPath, path);
        const CoveredType& ct = coveredTypes()[size_t(index)];
        std::vector<uint8_t> b = adversarialBlocks(ct, 400, 99);
        const std::vector<uint8_t> wide = wideScaleBlocks(ct, 200, 5);
        b.insert(b.end(), wide.begin(), wide.end());
        const uint64_t blocks = b.size() / ggmlTypeTraits(ct.type)->blockBytes;
        std::vector<uint32_t> s(kKeyCount * kKeySplit, 0), a(s.size(), 0);
        CodeTally ts, ta;
        tallyGgmlBlocks(ct.type, b.data(), blocks, ts, s.data(), nullptr, nullptr);
        // In two calls (an odd block count first), the tally carried from one to the next.
        tallyGgmlBlocks(ct.type, b.data(), 7, ta, a.data(), nullptr, nullptr, path);
        tallyGgmlBlocks(ct.type, b.data() + 7 * ggmlTypeTraits(ct.type)->blockBytes, blocks - 7, ta, a.data(), nullptr,
                        nullptr, path);
        QCOMPARE(std::memcmp(&ts, &ta, sizeof ts), 0);
        // Per key, the copies folded (which copy a count lands in is the path's choice).
        for (uint64_t key = 0; key < kKeyCount; ++key) {
            uint64_t fs = 0, fa = 0;
            for (uint64_t c = 0; c < kKeySplit; ++c) {
                fs += s[key * kKeySplit + c];
                fa += a[key * kKeySplit + c];
            }
            if (fs != fa)
                QFAIL(qPrintable(QString("key %1: %2 vs %3").arg(key).arg(fs).arg(fa)));
        }
        QVERIFY(ts.lo <= ts.hi);
    }

    void threadsDoNotChangeFigures()
    {
        const auto ckpt = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        for (const CoveredType& ct : coveredTypes()) {
            const LogicalWeight* w = ckpt->findWeight(std::string("real.") + ct.name);
            QVERIFY(w);
            for (SimdPath p : paths()) {
                StatsOptions opt;
                opt.rowChunk = 7;
                opt.path = p;
                opt.threads = 1;
                const WeightHistograms one = weightHistograms(*ckpt, *w, opt);
                opt.threads = 2;
                const WeightHistograms two = weightHistograms(*ckpt, *w, opt);
                QCOMPARE(std::memcmp(&one.meanValue, &two.meanValue, 8), 0);
                QCOMPARE(std::memcmp(&one.rmsValue, &two.rmsValue, 8), 0);
                QCOMPARE(std::memcmp(&one.minValue, &two.minValue, 8), 0);
                QCOMPARE(one.values.counts, two.values.counts);
                QCOMPARE(one.scales.counts, two.scales.counts);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCodeStats)
#include "tst_codestats.moc"
