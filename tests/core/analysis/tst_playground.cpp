// The playground's numbers: the same codes, scales, zeros and packed words as calling
// quantizeAffine and packAffine directly; levels, edges, counts and errors that agree with
// those codes; packed-word fields that read back the codes bit by bit, in the layout's slots.
#include "analysis/playground.h"
#include "base/error.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"

#include <QTest>

#include <cmath>
#include <numeric>

using namespace qs;

namespace {

struct Case {
    AffineTarget target;
    int bits;
    uint64_t groupSize;
    bool symmetric;
    float clip;
    uint64_t length;
};

AffineOptions affineOptionsFor(const PlaygroundOptions& o, uint64_t cols)
{
    AffineOptions a;
    a.bits = o.bits;
    a.granularity = o.groupSize == 0 ? AffineGranularity::Channel : AffineGranularity::Group;
    a.groupSize = o.groupSize == 0 ? cols : o.groupSize;
    a.symmetric = o.symmetric;
    a.clipRatio = o.clipRatio;
    a.rule = playgroundRule(o.target);
    a.codeScale = o.scaleType;
    return a;
}

uint32_t bitsOf(uint32_t word, int bit, int width)
{
    return width == 32 ? word : (word >> bit) & ((1u << width) - 1);
}

} // namespace

Q_DECLARE_METATYPE(qs::AffineTarget)
Q_DECLARE_METATYPE(qs::SampleDistribution)

class TestPlayground : public QObject {
    Q_OBJECT
private slots:
    void samplesAreReproducible_data();
    void samplesAreReproducible();
    void matchesQuantizeAndPack_data();
    void matchesQuantizeAndPack();
    void wordsReadBackCodes_data();
    void wordsReadBackCodes();
    void awqSlotOrder();
    void gptq3Straddles();
    void wordsNumberedAsStored();
    void clippingCounts();
    void exactRowHasInfiniteSqnr();
    void unpackableTargetKeepsCodes();
    void refusesBadInput();
    void targetNamesAreFormatIds_data();
    void targetNamesAreFormatIds();
};

void TestPlayground::samplesAreReproducible_data()
{
    QTest::addColumn<qs::SampleDistribution>("dist");
    QTest::addRow("normal") << SampleDistribution::Normal;
    QTest::addRow("outliers") << SampleDistribution::NormalOutliers;
    QTest::addRow("uniform") << SampleDistribution::Uniform;
    QTest::addRow("laplace") << SampleDistribution::Laplace;
}

void TestPlayground::samplesAreReproducible()
{
    QFETCH(qs::SampleDistribution, dist);
    const std::vector<float> a = playgroundSamples(dist, 2, 20000, 7);
    QCOMPARE(a.size(), size_t(40000));
    QVERIFY(a == playgroundSamples(dist, 2, 20000, 7));
    QVERIFY(a != playgroundSamples(dist, 2, 20000, 8));
    double sum = 0, sq = 0, absMax = 0;
    for (float v : a) {
        sum += v;
        sq += double(v) * v;
        absMax = std::max(absMax, double(std::fabs(v)));
    }
    const double mean = sum / a.size(), sd = std::sqrt(sq / a.size() - mean * mean);
    QVERIFY2(std::fabs(mean) < 0.001, qPrintable(QString::number(mean)));
    if (dist == SampleDistribution::NormalOutliers) {
        QVERIFY(sd > 0.03);         // 1 in 64 values at 6..12 sigma
        QVERIFY(absMax > 6 * 0.02);
        QVERIFY(absMax <= 12 * 0.02 + 1e-6);
    } else {
        QVERIFY2(std::fabs(sd - 0.02) < 0.001, qPrintable(QString::number(sd)));
    }
    if (dist == SampleDistribution::Uniform)
        QVERIFY(absMax <= std::sqrt(3.0) * 0.02 + 1e-6);
}

void TestPlayground::matchesQuantizeAndPack_data()
{
    QTest::addColumn<qs::AffineTarget>("target");
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("groupSize");
    QTest::addColumn<bool>("symmetric");
    QTest::addColumn<double>("clip");
    QTest::addRow("gptq-v1 4 g32 asym") << AffineTarget::GptqV1 << 4 << 32 << false << 1.0;
    QTest::addRow("gptq-v2 3 g64 sym") << AffineTarget::GptqV2 << 3 << 64 << true << 1.0;
    QTest::addRow("gptq-v2 2 row clip") << AffineTarget::GptqV2 << 2 << 0 << false << 0.8;
    QTest::addRow("gptq-v1 8 g128") << AffineTarget::GptqV1 << 8 << 128 << false << 1.0;
    QTest::addRow("awq 4 g64 asym") << AffineTarget::AwqGemm << 4 << 64 << false << 1.0;
    QTest::addRow("awq 4 g32 clip") << AffineTarget::AwqGemm << 4 << 32 << false << 0.7;
    QTest::addRow("ct 4 g32 sym") << AffineTarget::CompressedTensors << 4 << 32 << true << 1.0;
    QTest::addRow("ct 6 g64 asym") << AffineTarget::CompressedTensors << 6 << 64 << false << 0.9;
    QTest::addRow("mlx 4 g64") << AffineTarget::Mlx << 4 << 64 << false << 1.0;
    QTest::addRow("mlx 5 g32") << AffineTarget::Mlx << 5 << 32 << false << 1.0;
}

void TestPlayground::matchesQuantizeAndPack()
{
    QFETCH(qs::AffineTarget, target);
    QFETCH(int, bits);
    QFETCH(int, groupSize);
    QFETCH(bool, symmetric);
    QFETCH(double, clip);
    const uint64_t rows = playgroundBlockRows(target), cols = 256;
    const std::vector<float> w = playgroundSamples(SampleDistribution::NormalOutliers, rows, cols, 11);
    PlaygroundOptions o;
    o.target = target;
    o.bits = bits;
    o.groupSize = uint64_t(groupSize);
    o.symmetric = symmetric;
    o.clipRatio = float(clip);
    const PlaygroundResult r = runPlayground(w, rows, cols, o);
    QVERIFY2(r.packError.empty(), r.packError.c_str());

    const AffineQuantized q = quantizeAffine(w.data(), rows, cols, affineOptionsFor(o, cols));
    QVERIFY(r.quantized.codes == q.codes);
    QVERIFY(r.quantized.scales == q.scales);
    QVERIFY(r.quantized.zeros == q.zeros);
    QVERIFY(r.dequantized == dequantizeAffine(q));
    const std::vector<StoredTensor> packed = packAffine(q, target, DType::F16);
    QCOMPARE(r.stored.size(), packed.size());
    for (size_t i = 0; i < packed.size(); ++i) {
        QCOMPARE(r.stored[i].suffix, packed[i].suffix);
        QVERIFY(r.stored[i].shape == packed[i].shape);
        QVERIFY(r.stored[i].bytes == packed[i].bytes);
    }

    // Groups: levels hold every dequantized value, counts and histograms agree with the codes.
    const uint64_t gs = groupSize == 0 ? cols : uint64_t(groupSize);
    QCOMPARE(r.groups.size(), size_t((cols + gs - 1) / gs));
    double noise = 0;
    for (size_t g = 0; g < r.groups.size(); ++g) {
        const PlaygroundGroup& grp = r.groups[g];
        QCOMPARE(grp.begin, g * gs);
        QCOMPARE(grp.levels.size(), size_t(1) << bits);
        QCOMPARE(grp.edges.size(), grp.levels.size() - 1);
        QVERIFY(std::is_sorted(grp.edges.begin(), grp.edges.end()));
        QCOMPARE(grp.scale, q.scales[g * rows]);
        std::vector<uint64_t> counts(grp.levels.size(), 0);
        for (uint64_t k = grp.begin; k < grp.end; ++k) {
            ++counts[q.codes[k]];
            QCOMPARE(grp.levels[q.codes[k]], r.dequantized[k]);
            QVERIFY(grp.histLow <= w[k] && w[k] <= grp.histHigh);
        }
        QVERIFY(counts == grp.codeCounts);
        std::vector<uint64_t> fromHist(grp.levels.size(), 0);
        for (int b = 0; b < grp.bins; ++b)
            for (size_t c = 0; c < grp.levels.size(); ++c) fromHist[c] += grp.histogram[size_t(b) * grp.levels.size() + c];
        QVERIFY(fromHist == grp.codeCounts);
        // Round to nearest: no value lies further than half a step from its level unless clamped.
        for (uint64_t k = grp.begin; k < grp.end; ++k) {
            const bool clamped = w[k] < grp.lowLevel - 0.5f * grp.step || w[k] > grp.highLevel + 0.5f * grp.step;
            if (!clamped)
                QVERIFY(std::fabs(r.error[k]) <= 0.5 * grp.step * (1 + 1e-5));
        }
    }
    for (uint64_t k = 0; k < cols; ++k) {
        QCOMPARE(r.error[k], r.dequantized[k] - w[k]);
        noise += double(r.error[k]) * r.error[k];
    }
    QCOMPARE(r.rmse, std::sqrt(noise / cols));
}

void TestPlayground::wordsReadBackCodes_data()
{
    matchesQuantizeAndPack_data();
}

void TestPlayground::wordsReadBackCodes()
{
    QFETCH(qs::AffineTarget, target);
    QFETCH(int, bits);
    QFETCH(int, groupSize);
    QFETCH(bool, symmetric);
    QFETCH(double, clip);
    const uint64_t rows = playgroundBlockRows(target), cols = 256;
    PlaygroundOptions o;
    o.target = target;
    o.bits = bits;
    o.groupSize = uint64_t(groupSize);
    o.symmetric = symmetric;
    o.clipRatio = float(clip);
    const PlaygroundResult r = runPlayground(playgroundSamples(SampleDistribution::Laplace, rows, cols, 3), rows, cols, o);
    QVERIFY(r.hasLayout);
    const std::vector<PlaygroundWord> words = playgroundWords(r, 40, 104, 1000);
    QVERIFY(!words.empty());
    // Every focus-row column of the range appears, and its pieces put together give its code.
    std::vector<uint32_t> assembled(cols, 0);
    std::vector<int> seenBits(cols, 0);
    uint64_t previous = 0;
    for (const PlaygroundWord& word : words) {
        QVERIFY(word.index >= previous);
        previous = word.index;
        int usedBits = 0;
        for (const PlaygroundField& f : word.fields) {
            QCOMPARE(f.code, r.quantized.codes[f.row * cols + f.col]);
            usedBits += f.width;
            if (f.row != 0)
                continue;
            // Pieces come low bits first, in ascending words.
            assembled[f.col] |= bitsOf(word.value, f.bit, f.width) << seenBits[f.col];
            seenBits[f.col] += f.width;
        }
        QVERIFY(usedBits <= 32);
    }
    for (uint64_t k = 40; k < 104; ++k) {
        QCOMPARE(seenBits[k], bits);
        QCOMPARE(assembled[k], uint32_t(r.quantized.codes[k]));
    }
    QCOMPARE(playgroundWords(r, 40, 104, 3).size(), size_t(3));
}

void TestPlayground::awqSlotOrder()
{
    PlaygroundOptions o;
    o.target = AffineTarget::AwqGemm;
    o.groupSize = 64;
    const PlaygroundResult r = runPlayground(playgroundSamples(SampleDistribution::Normal, 8, 128, 5), 8, 128, o);
    const std::vector<PlaygroundWord> words = playgroundWords(r, 5, 6, 10);
    QCOMPARE(words.size(), size_t(1));
    QCOMPARE(words[0].index, uint64_t(5)); // qweight [K, N/8]: column k is word k
    QCOMPARE(words[0].fields.size(), size_t(8));
    // AutoAWQ order: nibble s holds output row {0, 2, 4, 6, 1, 3, 5, 7}[s].
    const uint64_t order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (int s = 0; s < 8; ++s) {
        QCOMPARE(int(words[0].fields[s].bit), 4 * s);
        QCOMPARE(words[0].fields[s].row, order[s]);
        QCOMPARE(words[0].fields[s].col, uint64_t(5));
    }
}

// Row 37 of a 4096 x 64 GPTQ weight: its words are named as in the weight's qweight
// [K/8, N] (word = (k / 8) * N + n), as the Bit map and Slot order name them, not 0, 1, ...
void TestPlayground::wordsNumberedAsStored()
{
    PlaygroundOptions o;
    o.target = AffineTarget::GptqV1;
    o.groupSize = 32;
    const PlaygroundResult r = runPlayground(playgroundSamples(SampleDistribution::Normal, 1, 64, 7), 1, 64, o);
    std::vector<PlaygroundWord> words = playgroundWords(r, 8, 24, 10);
    QCOMPARE(words.size(), size_t(2));
    QCOMPARE(words[0].index, uint64_t(1));
    const uint64_t N = 4096, row = 37;
    numberAsStored(words, r, N, row);
    const LayoutSpec* spec = findLayoutSpec("gptq-v1");
    const LayoutParams p{64, N, 4, 32};
    for (const PlaygroundWord& w : words)
        for (const PlaygroundField& f : w.fields)
            QCOMPARE(w.index, spec->locate(p, row, f.col).pieces[f.piece].word);
    QCOMPARE(words[0].index, 1 * N + row);
    // A block that does not fit the weight keeps the playground's own numbers.
    std::vector<PlaygroundWord> own = playgroundWords(r, 8, 24, 10);
    numberAsStored(own, r, N, N);
    QCOMPARE(own[0].index, uint64_t(1));
}

void TestPlayground::gptq3Straddles()
{
    PlaygroundOptions o;
    o.target = AffineTarget::GptqV2;
    o.bits = 3;
    o.groupSize = 32;
    const PlaygroundResult r = runPlayground(playgroundSamples(SampleDistribution::Uniform, 1, 64, 2), 1, 64, o);
    // Code 10 covers stream bits 30..32: bits 30, 31 of word 0 and bit 0 of word 1.
    const std::vector<PlaygroundWord> words = playgroundWords(r, 10, 11, 10);
    QCOMPARE(words.size(), size_t(2));
    QCOMPARE(words[0].fields.back().col, uint64_t(10));
    QCOMPARE(int(words[0].fields.back().bit), 30);
    QCOMPARE(int(words[0].fields.back().width), 2);
    QCOMPARE(words[0].fields.back().pieces, 2);
    QCOMPARE(words[1].fields.front().col, uint64_t(10));
    QCOMPARE(int(words[1].fields.front().width), 1);
    QCOMPARE(words[1].fields.front().piece, 1);
    const uint32_t code = ((words[0].value >> 30) & 3u) | ((words[1].value & 1u) << 2);
    QCOMPARE(code, uint32_t(r.quantized.codes[10]));
}

void TestPlayground::clippingCounts()
{
    const std::vector<float> w = playgroundSamples(SampleDistribution::NormalOutliers, 1, 512, 9);
    PlaygroundOptions o;
    o.target = AffineTarget::GptqV2;
    o.groupSize = 0;
    const PlaygroundResult full = runPlayground(w, 1, 512, o);
    QCOMPARE(full.groups.size(), size_t(1));
    QCOMPARE(full.groups[0].clippedLow + full.groups[0].clippedHigh, uint64_t(0));
    o.clipRatio = 0.5f;
    const PlaygroundResult clipped = runPlayground(w, 1, 512, o);
    const PlaygroundGroup& g = clipped.groups[0];
    uint64_t beyond = 0;
    for (float v : w) beyond += v < g.lowLevel - 0.5f * g.step || v > g.highLevel + 0.5f * g.step;
    QVERIFY(beyond > 0);
    QCOMPARE(g.clippedLow + g.clippedHigh, beyond);
    QCOMPARE(g.codeCounts.front() >= g.clippedLow, true);
    // Clipping the outliers trades a larger max error for a finer grid.
    QVERIFY(g.step < full.groups[0].step);
    QVERIFY(clipped.maxAbs > full.maxAbs);
}

void TestPlayground::exactRowHasInfiniteSqnr()
{
    // Values on a 4-bit grid of step 1/8 including 0: GPTQ reproduces them exactly.
    std::vector<float> w(16);
    for (int i = 0; i < 16; ++i) w[size_t(i)] = float(i - 5) / 8.0f;
    PlaygroundOptions o;
    o.target = AffineTarget::GptqV2;
    o.groupSize = 16;
    const PlaygroundResult r = runPlayground(w, 1, 16, o);
    QCOMPARE(r.maxAbs, 0.0);
    QVERIFY(std::isinf(r.sqnrDb) && r.sqnrDb > 0);
    QCOMPARE(r.groups[0].zero, 5.0f);
    QCOMPARE(r.groups[0].scale, 0.125f);
}

void TestPlayground::unpackableTargetKeepsCodes()
{
    PlaygroundOptions o;
    o.target = AffineTarget::AwqGemm;
    o.bits = 3;
    o.groupSize = 32;
    const PlaygroundResult r = runPlayground(playgroundSamples(SampleDistribution::Normal, 8, 64, 1), 8, 64, o);
    QVERIFY(!r.packError.empty());
    QVERIFY(r.stored.empty());
    QVERIFY(!r.hasLayout);
    QCOMPARE(r.quantized.codes.size(), size_t(8 * 64));
    QVERIFY(playgroundWords(r, 0, 64, 10).empty());
}

void TestPlayground::refusesBadInput()
{
    PlaygroundOptions o;
    QVERIFY_THROWS_EXCEPTION(qs::Error, runPlayground({1, 2, 3}, 1, 4, o));
    QVERIFY_THROWS_EXCEPTION(qs::Error, runPlayground({}, 0, 0, o));
    QVERIFY_THROWS_EXCEPTION(qs::Error, runPlayground({1, NAN, 3, 4}, 1, 4, o));
    QVERIFY_THROWS_EXCEPTION(qs::Error, playgroundSamples(SampleDistribution::Normal, uint64_t(1) << 40, 1 << 20, 1));
    o.target = AffineTarget::Mlx;
    o.groupSize = 3; // must divide K
    QVERIFY_THROWS_EXCEPTION(qs::Error, runPlayground({1, 2, 3, 4}, 1, 4, o));
}

// affineTargetName is the format id every consumer looks the target up by (the
// playground's layout spec, the quantizer's messages): "mlx-affine", not "mlx".
void TestPlayground::targetNamesAreFormatIds_data()
{
    QTest::addColumn<int>("target");
    QTest::addColumn<QString>("id");
    QTest::addRow("gptq-v1") << int(AffineTarget::GptqV1) << QStringLiteral("gptq-v1");
    QTest::addRow("gptq-v2") << int(AffineTarget::GptqV2) << QStringLiteral("gptq-v2");
    QTest::addRow("awq") << int(AffineTarget::AwqGemm) << QStringLiteral("awq-gemm");
    QTest::addRow("ct") << int(AffineTarget::CompressedTensors) << QStringLiteral("compressed-tensors");
    QTest::addRow("mlx") << int(AffineTarget::Mlx) << QStringLiteral("mlx-affine");
}

void TestPlayground::targetNamesAreFormatIds()
{
    QFETCH(int, target);
    QFETCH(QString, id);
    const std::string_view name = affineTargetName(AffineTarget(target));
    QCOMPARE(QString::fromLatin1(name.data(), qsizetype(name.size())), id);
    QVERIFY(findFormat(name) != nullptr);
    QVERIFY(findLayoutSpec(name) != nullptr);
}

QTEST_GUILESS_MAIN(TestPlayground)
#include "tst_playground.moc"
