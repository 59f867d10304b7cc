// The playground's numbers: the same codes, scales, zeros and packed words as calling
// quantizeAffine and packAffine directly; levels, edges, counts and errors that agree with
// those codes; packed-word fields that read back the codes bit by bit, in the layout's slots.
// Block formats (GGUF Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and every k-quant, bnb NF4): bytes identical to ggml's and
// bitsandbytes' own quantizers, values identical to their dequantizers, the block's fields and
// bytes, and the stored codes of a GGUF weight compared as the view does.
#include "analysis/playground.h"
#include "base/error.h"
#include "base/half.h"
#include "container/checkpoint.h"
#include "formats/affine/quantize_affine.h"
#include "formats/bnb/quantize_bnb.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/quantize_ggml.h"
#include "formats/layoutspec.h"
#include "formats/opencheckpoint.h"
#include "formats/wordmap.h"
#include "kernel_testutil.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

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

const FormatInfo* affineFormat(AffineTarget t)
{
    return findFormat(affineTargetName(t));
}

uint64_t blockRowsOf(AffineTarget t)
{
    return playgroundAffineFormatOf(*affineFormat(t))->blockRows;
}

AffineOptions affineOptionsFor(const PlaygroundOptions& o, uint64_t cols)
{
    AffineOptions a;
    a.bits = o.bits;
    a.granularity = o.groupSize == 0 ? AffineGranularity::Channel : AffineGranularity::Group;
    a.groupSize = o.groupSize == 0 ? cols : o.groupSize;
    a.symmetric = o.symmetric;
    a.clipRatio = o.clipRatio;
    a.rule = playgroundAffineFormatOf(*o.affine)->rule;
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
    void blockFormatsMatchTheirQuantizers_data();
    void blockFormatsMatchTheirQuantizers();
    void blockWordsHoldFieldsAndCodes();
    void blockStoredCodesOfAWeight();
    void bnbBlocksizesAndNested_data();
    void bnbBlocksizesAndNested();
    void blockFormatRefusesPartialBlocks();
    void targetNamesAreFormatIds_data();
    void targetNamesAreFormatIds();
    void affineFormatsFromTheRows();
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
        QVERIFY(sd > 0.03); // 1 in 64 values at 6..12 sigma
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
    const uint64_t rows = blockRowsOf(target), cols = 256;
    const std::vector<float> w = playgroundSamples(SampleDistribution::NormalOutliers, rows, cols, 11);
    PlaygroundOptions o;
    o.affine = affineFormat(target);
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
            for (size_t c = 0; c < grp.levels.size(); ++c)
                fromHist[c] += grp.histogram[size_t(b) * grp.levels.size() + c];
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
    const uint64_t rows = blockRowsOf(target), cols = 256;
    PlaygroundOptions o;
    o.affine = affineFormat(target);
    o.bits = bits;
    o.groupSize = uint64_t(groupSize);
    o.symmetric = symmetric;
    o.clipRatio = float(clip);
    const PlaygroundResult r =
        runPlayground(playgroundSamples(SampleDistribution::Laplace, rows, cols, 3), rows, cols, o);
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
    o.affine = affineFormat(AffineTarget::AwqGemm);
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
    o.affine = affineFormat(AffineTarget::GptqV1);
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
    o.affine = affineFormat(AffineTarget::GptqV2);
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
    o.affine = affineFormat(AffineTarget::GptqV2);
    o.groupSize = 0;
    const PlaygroundResult full = runPlayground(w, 1, 512, o);
    QCOMPARE(full.groups.size(), size_t(1));
    QCOMPARE(full.groups[0].clippedLow + full.groups[0].clippedHigh, uint64_t(0));
    o.clipRatio = 0.5f;
    const PlaygroundResult clipped = runPlayground(w, 1, 512, o);
    const PlaygroundGroup& g = clipped.groups[0];
    uint64_t beyond = 0;
    for (float v : w)
        beyond += v < g.lowLevel - 0.5f * g.step || v > g.highLevel + 0.5f * g.step;
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
    for (int i = 0; i < 16; ++i)
        w[size_t(i)] = float(i - 5) / 8.0f;
    PlaygroundOptions o;
    o.affine = affineFormat(AffineTarget::GptqV2);
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
    o.affine = affineFormat(AffineTarget::AwqGemm);
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
    o.affine = affineFormat(AffineTarget::Mlx);
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

// The Playground's affine formats come from the family rows, each with its tool's rounding
// rule and the rows one of its words spans.
void TestPlayground::affineFormatsFromTheRows()
{
    const std::vector<PlaygroundAffineFormat> formats = playgroundAffineFormats();
    const std::vector<std::tuple<std::string, AffineRule, uint64_t>> want = {
        {"gptq-v1", AffineRule::Gptq, 1},
        {"gptq-v2", AffineRule::Gptq, 1},
        {"awq-gemm", AffineRule::Awq, 8},
        {"compressed-tensors", AffineRule::CompressedTensors, 1},
        {"mlx-affine", AffineRule::Mlx, 1}};
    QCOMPARE(formats.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        const auto& [id, rule, rows] = want[i];
        QVERIFY(formats[i].format && formats[i].run && *formats[i].label);
        QCOMPARE(formats[i].format->id, id);
        QCOMPARE(int(formats[i].rule), int(rule));
        QCOMPARE(formats[i].blockRows, rows);
        QCOMPARE(playgroundAffineFormatOf(*formats[i].format)->format, formats[i].format);
    }
    QVERIFY(!playgroundAffineFormatOf(*findFormat("gptq-marlin")));
    // Without a format named, GPTQ v1 (the menu's first).
    PlaygroundOptions o;
    o.bits = 4;
    o.groupSize = 32;
    const PlaygroundResult r = runPlayground(playgroundSamples(SampleDistribution::Normal, 1, 64, 1), 1, 64, o);
    QCOMPARE(r.options.affine, findFormat("gptq-v1"));
    QCOMPARE(r.codeTensor, std::string("qweight"));
}

void TestPlayground::blockFormatsMatchTheirQuantizers_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("ggmlType"); // -1: bitsandbytes NF4
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("groupSize"); // elements per level table
    QTest::addColumn<int>("dOffset"); // of the block's f16 d
    QTest::addRow("q4_0") << "gguf-q4_0" << int(GgmlQ4_0) << 4 << 32 << 0;
    QTest::addRow("q4_1") << "gguf-q4_1" << int(GgmlQ4_1) << 4 << 32 << 0;
    QTest::addRow("q5_0") << "gguf-q5_0" << int(GgmlQ5_0) << 5 << 32 << 0;
    QTest::addRow("q5_1") << "gguf-q5_1" << int(GgmlQ5_1) << 5 << 32 << 0;
    QTest::addRow("q8_0") << "gguf-q8_0" << int(GgmlQ8_0) << 8 << 32 << 0;
    // Every k-quant (issue 33: the Playground offered Q4_K alone); a level table per sub-block.
    QTest::addRow("q2_k") << "gguf-q2_k" << int(GgmlQ2_K) << 2 << 16 << 80;
    QTest::addRow("q3_k") << "gguf-q3_k" << int(GgmlQ3_K) << 3 << 16 << 108;
    QTest::addRow("q4_k") << "gguf-q4_k" << int(GgmlQ4_K) << 4 << 32 << 0;
    QTest::addRow("q5_k") << "gguf-q5_k" << int(GgmlQ5_K) << 5 << 32 << 0;
    QTest::addRow("q6_k") << "gguf-q6_k" << int(GgmlQ6_K) << 6 << 16 << 208;
    QTest::addRow("nf4") << "bnb-nf4" << -1 << 4 << 64 << 0;
}

// The Playground's block formats are the registry's, their bytes byte-identical to the
// format's own quantizer (quantize_row_*_ref; bitsandbytes on the f16 weight), their values
// to its dequantizer, and every value the level of its code in its group.
void TestPlayground::blockFormatsMatchTheirQuantizers()
{
    QFETCH(QString, id);
    QFETCH(int, ggmlType);
    QFETCH(int, bits);
    QFETCH(int, groupSize);
    QFETCH(int, dOffset);
    const FormatInfo* format = findFormat(id.toStdString());
    QVERIFY(format);
    QVERIFY(playgroundBlockFormatOf(*format));
    const uint64_t K = 512;
    const std::vector<float> x = playgroundSamples(SampleDistribution::NormalOutliers, 1, K, 7);
    PlaygroundOptions o;
    o.block = format;
    o.bits = 2; // ignored: the format's own
    const PlaygroundResult r = runPlayground(x, 1, K, o);
    QVERIFY(r.packError.empty());
    QVERIFY(r.hasLayout);
    QCOMPARE(r.codeTensor, std::string("weight"));
    QCOMPARE(r.quantized.bits, bits);
    QCOMPARE(r.quantized.groupSize, uint64_t(groupSize));
    QCOMPARE(r.groups.size(), size_t(K / uint64_t(groupSize)));
    const StoredTensor* weight = nullptr;
    for (const StoredTensor& t : r.stored)
        if (t.suffix == "weight")
            weight = &t;
    QVERIFY(weight);

    std::vector<float> expect(K);
    if (ggmlType >= 0) {
        QCOMPARE(weight->bytes, quantizeGgml(ggmlType, x.data(), 1, K, false));
        dequantizeGgmlRowsRef(ggmlType, weight->bytes.data(), 1, K, expect.data());
        QCOMPARE(r.blocks.blockWeights, ggmlQuantBlockWeights(ggmlType));
        // Each block's d as its bytes hold it.
        for (size_t b = 0; b < r.blocks.blocks.size(); ++b) {
            const auto& v = r.blocks.blocks[b].values;
            const auto d =
                std::find_if(v.begin(), v.end(), [](const BlockValue& f) { return f.kind == BlockValueKind::Scale; });
            QVERIFY(d != v.end());
            QCOMPARE(d->value, double(halfAt(weight->bytes.data() + b * ggmlQuantBlockBytes(ggmlType) + dOffset)));
        }
        if (ggmlType == GgmlQ4_K) { // 8 sub-block scales and mins per block, with d x sc
            const auto& v = r.blocks.blocks[0].values;
            QCOMPARE(std::count_if(v.begin(), v.end(),
                                   [](const BlockValue& f) { return f.kind == BlockValueKind::SubScale; }),
                     8);
            QCOMPARE(
                std::count_if(v.begin(), v.end(), [](const BlockValue& f) { return f.kind == BlockValueKind::SubMin; }),
                8);
            QCOMPARE(r.groups[3].subBlock, 3);
            QCOMPARE(r.groups[9].block, uint64_t(1));
        }
    } else {
        std::vector<float> f16(x);
        for (float& v : f16)
            v = halfToFloat(floatToHalf(v));
        const Bnb4Quantized q = quantizeBnb4(f16.data(), K, Bnb4Type::Nf4, 64, false, std::nullopt, false);
        QCOMPARE(weight->bytes, q.packed);
        expect = dequantizeBnb4(q, Bnb4Type::Nf4);
        QCOMPARE(r.blocks.blocks.size(), q.absmax.size());
        for (size_t b = 0; b < q.absmax.size(); ++b)
            QCOMPARE(r.blocks.blocks[b].values.at(0).value, double(q.absmax[b]));
    }
    QCOMPARE(r.dequantized, expect);
    for (uint64_t k = 0; k < K; ++k) {
        const uint64_t g = k / uint64_t(groupSize);
        QCOMPARE(r.groups[g].levels[r.quantized.codes[k]], expect[k]);
        QCOMPARE(r.error[k], expect[k] - x[k]);
    }
    QCOMPARE(r.signedCodes, ggmlType == GgmlQ8_0);
}

// The words of a block format: the block's field bytes (d, dmin, scales) in their field, then
// the bytes of the inspected group's codes; every element piece reads back its code.
void TestPlayground::blockWordsHoldFieldsAndCodes()
{
    const uint64_t K = 512;
    const std::vector<float> x = playgroundSamples(SampleDistribution::Normal, 1, K, 3);
    for (const char* id : {"gguf-q4_0", "gguf-q4_k", "gguf-q8_0", "bnb-nf4"}) {
        PlaygroundOptions o;
        o.block = findFormat(id);
        const PlaygroundResult r = runPlayground(x, 1, K, o);
        QCOMPARE(playgroundWordBits(r), 8);
        const PlaygroundGroup& grp = r.groups[1];
        const std::vector<PlaygroundWord> words = playgroundWords(r, grp.begin, grp.end, 1000);
        const LayoutSpec* spec = findLayoutSpec(id);
        QVERIFY(spec);
        const uint32_t blockBytes = blockBytesOf(*spec);
        size_t fieldWords = 0;
        std::set<uint64_t> cols;
        for (const PlaygroundWord& w : words) {
            QCOMPARE(w.value, uint32_t(r.stored[0].bytes[size_t(w.index)]));
            bool field = false;
            for (const PlaygroundField& f : w.fields) {
                if (f.field >= 0) {
                    QCOMPARE(f.field, blockFieldAt(*spec, w.index));
                    field = true;
                    continue;
                }
                QCOMPARE(uint8_t((w.value >> f.bit) & ((1u << f.width) - 1)), f.code);
                QCOMPARE(f.code, r.quantized.codes[f.col]);
                QVERIFY(f.tile >= 0);
                if (f.col >= grp.begin && f.col < grp.end)
                    cols.insert(f.col);
            }
            fieldWords += field;
        }
        QCOMPARE(cols.size(), size_t(grp.end - grp.begin)); // every code of the group
        const std::string which(id);
        if (which == "gguf-q4_0") { // group 1 = block 1: d, then 16 bytes of nibbles
            QCOMPARE(words.size(), size_t(18));
            QCOMPARE(words.front().index, uint64_t(blockBytes));
            QCOMPARE(fieldWords, size_t(2));
        } else if (which == "gguf-q4_k") { // d, dmin, 12 scale bytes, then 32 bytes of sub-blocks 0 and 1
            QCOMPARE(fieldWords, size_t(16));
            QCOMPARE(words.size(), size_t(48));
        } else if (which == "gguf-q8_0") {
            QCOMPARE(words.size(), size_t(34));
        } else {
            QCOMPARE(blockBytes, 0u);
            QCOMPARE(fieldWords, size_t(0));
            QCOMPARE(words.size(), size_t(32)); // 64 codes, two a byte
            QCOMPARE(words.front().index, uint64_t(32));
        }
        // Row 5 of a weight of 8 rows: the same bytes five rows further on.
        std::vector<PlaygroundWord> renumbered = words;
        numberAsStored(renumbered, r, 8, 5);
        const uint64_t rowBytes = r.stored[0].bytes.size();
        for (size_t i = 0; i < words.size(); ++i)
            QCOMPARE(renumbered[i].index, words[i].index + 5 * rowBytes);
    }
}

void TestPlayground::bnbBlocksizesAndNested_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("blocksize");
    QTest::addColumn<bool>("nested");
    for (const char* id : {"bnb-nf4", "bnb-fp4"})
        for (int bs : {32, 64, 128, 256, 512, 1024, 2048, 4096})
            for (bool nested : {false, true})
                QTest::addRow("%s-%d%s", id, bs, nested ? "-nested" : "") << id << bs << nested;
}

// bitsandbytes 4-bit at every blocksize bnb takes, plain and nested: the Playground's tensors are
// what quantizeBnb4 writes, its codes, levels and decoded block fields (absmax; nested: the u8
// code, its map entry, the second-level scale, the offset) what a checkpoint of those tensors
// reads back through the dequantizer (every SIMD path) and the Bit map's blockValues, bit for bit.
void TestPlayground::bnbBlocksizesAndNested()
{
    QFETCH(QString, id);
    QFETCH(int, blocksize);
    QFETCH(bool, nested);
    const FormatInfo* format = findFormat(id.toStdString());
    const PlaygroundBlockFormat* own = format ? playgroundBlockFormatOf(*format) : nullptr;
    QVERIFY(own && own->nestedOf);
    QVERIFY(std::count(own->blocksizes.begin(), own->blocksizes.end(), uint32_t(blocksize)) == 1);
    const uint64_t K = 16384; // 512 blocks of 32: two second-level blocks of 256 codes
    const std::vector<float> x = playgroundSamples(SampleDistribution::NormalOutliers, 1, K, 11);
    PlaygroundOptions o;
    o.block = format;
    o.blocksize = uint32_t(blocksize);
    o.nested = nested;
    const PlaygroundResult r = runPlayground(x, 1, K, o);
    QCOMPARE(r.blocks.blockWeights, uint32_t(blocksize));
    QCOMPARE(r.quantized.groupSize, uint64_t(blocksize));
    QCOMPARE(r.groups.size(), size_t(K / uint64_t(blocksize)));
    QCOMPARE(r.groups.back().block, uint64_t(K / uint64_t(blocksize) - 1));

    std::vector<float> f16(x);
    for (float& v : f16)
        v = halfToFloat(floatToHalf(v));
    const Bnb4Type type = id == QLatin1String("bnb-fp4") ? Bnb4Type::Fp4 : Bnb4Type::Nf4;
    const Bnb4Quantized q = quantizeBnb4(f16.data(), K, type, uint32_t(blocksize), nested, std::nullopt, false);
    std::map<std::string, const StoredTensor*> stored;
    for (const StoredTensor& t : r.stored)
        stored[t.suffix] = &t;
    QCOMPARE(stored.at("weight")->bytes, q.packed);
    for (uint64_t k = 0; k < K; ++k)
        QCOMPARE(r.quantized.codes[k], uint8_t((k & 1) ? q.packed[k / 2] & 0xF : q.packed[k / 2] >> 4));
    QCOMPARE(stored.at("weight.absmax")->bytes, nested ? q.absmaxCodes : qsk::bytesOf(q.absmax));
    QCOMPARE(stored.count("weight.nested_absmax"), size_t(nested));
    if (nested)
        QCOMPARE(stored.at("weight.nested_absmax")->bytes, qsk::bytesOf(q.nestedAbsmax));
    const std::vector<float> expect = dequantizeBnb4(q, type);
    QCOMPARE(r.dequantized, expect);
    const uint64_t blocks = K / uint64_t(blocksize);
    QCOMPARE(r.blocks.blocks.size(), size_t(blocks));
    for (uint64_t b = 0; b < blocks; ++b) {
        const std::vector<BlockValue>& v = r.blocks.blocks[b].values;
        QCOMPARE(v.size(), size_t(nested ? 4 : 1));
        QCOMPARE(int(v[0].kind), int(BlockValueKind::Absmax));
        QCOMPARE(v[0].value, double(q.absmax[b]));
        if (nested) {
            QCOMPARE(int(v[1].kind), int(BlockValueKind::AbsmaxCode));
            QCOMPARE(v[1].raw, uint64_t(q.absmaxCodes[b]));
            QCOMPARE(v[1].value, double(bnbDynamicMap()[q.absmaxCodes[b]]));
            QCOMPARE(int(v[2].kind), int(BlockValueKind::AbsmaxScale));
            QCOMPARE(v[2].index, int(b / 256));
            QCOMPARE(v[2].value, double(q.nestedAbsmax[b / 256]));
            QCOMPARE(int(v[3].kind), int(BlockValueKind::AbsmaxOffset));
            QCOMPARE(v[3].value, double(q.nestedOffset));
        }
        for (int c = 0; c < 16; ++c)
            QCOMPARE(r.blocks.levels[size_t(b * 16 + uint64_t(c))], bnb4CodeTable(type)[size_t(c)] * q.absmax[b]);
    }

    // The same tensors as a checkpoint: the reader's weight, its dequantizer and its block fields.
    QTemporaryDir dir;
    std::vector<SafetensorsTensor> st;
    for (const StoredTensor& t : r.stored)
        st.push_back({"m." + t.suffix, t.dtype, t.shape, std::span<const uint8_t>(t.bytes)});
    const std::string path = dir.filePath(QStringLiteral("model.safetensors")).toStdString();
    writeSafetensors(path, st);
    const auto ckpt = openCheckpoint(path);
    const LogicalWeight* w = ckpt->findWeight("m.weight");
    QVERIFY(w);
    QCOMPARE(w->format, id.toStdString());
    QCOMPARE(w->groupSize, int64_t(blocksize));
    QCOMPARE(own->nestedOf(*w), nested);
    QCOMPARE(playgroundStoredMatches(*ckpt, *w, 0, r), int64_t(K));
    for (const SimdPath path : qsk::simdPaths()) {
        std::vector<float> row(K);
        dequantizeRows(*ckpt, *w, 0, 1, row.data(), path);
        QVERIFY(std::memcmp(row.data(), r.dequantized.data(), K * sizeof(float)) == 0);
    }
    for (uint64_t b = 0; b < blocks; b += std::max<uint64_t>(1, blocks / 7)) {
        const BlockValues read = blockValues(*ckpt, *w, 0, b * uint64_t(blocksize) + 1, false);
        QCOMPARE(read.block, b);
        QCOMPARE(read.values.size(), r.blocks.blocks[b].values.size());
        for (size_t i = 0; i < read.values.size(); ++i) {
            QCOMPARE(int(read.values[i].kind), int(r.blocks.blocks[b].values[i].kind));
            QCOMPARE(read.values[i].raw, r.blocks.blocks[b].values[i].raw);
            QCOMPARE(read.values[i].value, r.blocks.blocks[b].values[i].value);
        }
    }
}

// A stored GGUF weight's own codes compared with the Playground's from its dequantized row:
// the count the view shows, and -1 for another format.
void TestPlayground::blockStoredCodesOfAWeight()
{
    const auto ckpt = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
    int tested = 0;
    for (const LogicalWeight& w : ckpt->weights) {
        const FormatInfo* f = findFormat(w.format);
        if (!f || !playgroundBlockFormatOf(*f))
            continue;
        const uint64_t K = w.inFeatures(), row = w.outFeatures() - 1;
        std::vector<float> values(K);
        dequantizeRows(*ckpt, w, row, row + 1, values.data(), SimdPath::Scalar);
        PlaygroundOptions o;
        o.block = f;
        const PlaygroundResult r = runPlayground(values, 1, K, o);
        const int64_t matched = playgroundStoredMatches(*ckpt, w, row, r);
        const LayoutSpec* spec = findLayoutSpec(w.format);
        const auto bytes = ckpt->bytes(ckpt->tensors[size_t(w.member("weight"))]);
        int64_t same = 0;
        for (uint64_t k = 0; k < K; ++k) {
            const ElementLocation e = spec->locate(layoutParams(w), row, k);
            same += readPieces(bytes, std::span(e.pieces, e.pieceCount), e.wordBits, w.name) == r.quantized.codes[k];
        }
        QCOMPARE(matched, same);
        // Q4_0, Q4_1 and Q8_0 blocks come back whole from their values (one d, one m per block);
        // Q4_K's scale search may settle elsewhere (the fixture's synthetic blocks: 41 of 256).
        if (r.blocks.groupSize == r.blocks.blockWeights)
            QCOMPARE(matched, int64_t(K));
        PlaygroundOptions other;
        other.block = findFormat(w.format == "gguf-q8_0" ? "gguf-q4_0" : "gguf-q8_0");
        QCOMPARE(playgroundStoredMatches(*ckpt, w, row, runPlayground(values, 1, K, other)), int64_t(-1));
        ++tested;
    }
    QVERIFY(tested >= 3);
}

void TestPlayground::blockFormatRefusesPartialBlocks()
{
    PlaygroundOptions o;
    o.block = findFormat("gguf-q4_k");
    try {
        runPlayground(playgroundSamples(SampleDistribution::Normal, 1, 96, 1), 1, 96, o);
        QFAIL("96 values are no whole Q4_K block");
    } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find("gguf-q4_k") != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestPlayground)
#include "tst_playground.moc"
