// Per-group scale grids for the heatmap: equal to extractCodes for GPTQ/AWQ, consistent with
// the dequantizer for every other family (each dequantized value is scale x an integer code
// in range, less the minimum), and the min/max decimation on hand-made grids.
#include "analysis/groupscales.h"
#include "base/progress.h"
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/dequant.h"

#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QTest>

#include <cmath>

namespace {

// Fixture folders hold the model and its reference side by side: open the model file.
std::shared_ptr<const qs::Checkpoint> open(const QString& rel)
{
    if (rel.startsWith(QLatin1String("safetensors/")) && !rel.endsWith(QLatin1String(".safetensors")))
        return qs::openCheckpoint(qstest::fixture(rel + QStringLiteral("/model.safetensors")).toStdString());
    return qs::openCheckpoint(qstest::fixture(rel).toStdString());
}

// The first weight whose format is quantized (the fixtures hold one quantized linear each).
const qs::LogicalWeight* firstScaled(const qs::Checkpoint& c)
{
    for (const qs::LogicalWeight& w : c.weights)
        if (qs::hasGroupScales(c, w))
            return &w;
    return nullptr;
}

} // namespace

class TestGroupScales : public QObject {
    Q_OBJECT
private slots:
    void packedEqualsExtractCodes_data()
    {
        QTest::addColumn<QString>("dir");
        for (const char* d : {"gptq-w4-g32-sym-actorder", "gptq-w4-g128-asym-actorder", "gptq-w3-g32-asym",
                              "gptq-w2-g32-asym", "gptq-w8-g128-sym", "awq-gemm-w4-g32", "awq-gemm-w4-g128"})
            QTest::addRow("%s", d) << QString::fromLatin1(d);
    }
    void packedEqualsExtractCodes()
    {
        QFETCH(QString, dir);
        const auto ckpt = open(QStringLiteral("safetensors/") + dir);
        const qs::LogicalWeight* w = firstScaled(*ckpt);
        QVERIFY(w);
        const qs::GroupScales s = qs::groupScales(*ckpt, *w);
        const qs::WeightCodes c = qs::extractCodes(*ckpt, *w);
        QCOMPARE(s.rows, c.rows);
        QCOMPARE(s.cols, c.cols);
        QCOMPARE(s.groups, c.groups);
        QCOMPARE(s.scales.size(), c.scales.size());
        QCOMPARE(s.zeros.size(), c.zeros.size());
        for (size_t i = 0; i < c.scales.size(); ++i) {
            QCOMPARE(s.scales[i], c.scales[i]);
            QCOMPARE(s.zeros[i], float(c.zeros[i]));
        }
        // Act-order: g_idx as the reader uses it, and firstColumn finds the group's first column.
        const bool actOrder = dir.contains(QLatin1String("actorder"));
        QCOMPARE(s.gIdx.empty(), !actOrder);
        for (uint64_t g = 0; g < s.groups; ++g) {
            const uint64_t k = s.firstColumn(g);
            QVERIFY(k < s.cols);
            QCOMPARE(uint64_t(c.gIdx[k]), g);
            for (uint64_t j = 0; j < k; ++j)
                QVERIFY(uint64_t(c.gIdx[j]) != g);
        }
    }

    // Every dequantized value v of a group is scale * q + offset with q an integer in
    // [qmin, qmax]; a scale read from the wrong field breaks that almost everywhere.
    void consistentWithDequantizer_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("weight");
        QTest::addColumn<bool>("subBlocks");
        QTest::addColumn<int>("qmin");
        QTest::addColumn<int>("qmax");
        QTest::addColumn<int>("zeroSign"); // v = s*q + zeroSign*zero (GGUF minimums), 0: no zero term
        QTest::addColumn<int>("groupSize");
        const QString gguf = QStringLiteral("gguf/ggml-types.gguf");
        QTest::addRow("q4_0") << gguf << "synthetic.q4_0" << false << -8 << 7 << 0 << 32;
        QTest::addRow("q4_1") << gguf << "synthetic.q4_1" << false << 0 << 15 << 1 << 32;
        QTest::addRow("q5_0") << gguf << "synthetic.q5_0" << false << -16 << 15 << 0 << 32;
        QTest::addRow("q5_1") << gguf << "synthetic.q5_1" << false << 0 << 31 << 1 << 32;
        QTest::addRow("q8_0") << gguf << "synthetic.q8_0" << false << -128 << 127 << 0 << 32;
        QTest::addRow("q2_k") << gguf << "synthetic.q2_k" << true << 0 << 3 << -1 << 16;
        QTest::addRow("q3_k") << gguf << "synthetic.q3_k" << true << -4 << 3 << 0 << 16;
        QTest::addRow("q4_k") << gguf << "synthetic.q4_k" << true << 0 << 15 << -1 << 32;
        QTest::addRow("q5_k") << gguf << "synthetic.q5_k" << true << 0 << 31 << -1 << 32;
        QTest::addRow("q6_k") << gguf << "synthetic.q6_k" << true << -32 << 31 << 0 << 16;
    }
    void consistentWithDequantizer()
    {
        QFETCH(QString, path);
        QFETCH(QString, weight);
        QFETCH(bool, subBlocks);
        QFETCH(int, qmin);
        QFETCH(int, qmax);
        QFETCH(int, zeroSign);
        QFETCH(int, groupSize);
        const auto ckpt = open(path);
        const qs::LogicalWeight* w = ckpt->findWeight(weight.toStdString());
        QVERIFY(w);
        QVERIFY(qs::hasGroupScales(*ckpt, *w));
        QCOMPARE(qs::hasGgufSubBlockScales(*ckpt, *w), subBlocks);
        const auto level = subBlocks ? qs::GgufScaleLevel::SubBlock : qs::GgufScaleLevel::Block;
        const qs::GroupScales s = qs::groupScales(*ckpt, *w, level);
        QCOMPARE(s.rows, w->outFeatures());
        QCOMPARE(s.groups * s.groupSize, w->inFeatures());
        QCOMPARE(s.groupSize, uint64_t(groupSize));
        QCOMPARE(s.zeros.empty(), zeroSign == 0);
        const std::vector<float> v = qs::dequantizeWeight(*ckpt, *w, qs::SimdPath::Scalar, 1);
        uint64_t checked = 0;
        for (uint64_t n = 0; n < s.rows; ++n)
            for (uint64_t k = 0; k < s.cols; ++k) {
                const uint64_t g = k / s.groupSize;
                const double sc = s.scaleAt(g, n);
                if (sc == 0)
                    continue;
                const double z = zeroSign ? s.zeroAt(g, n) : 0.0;
                const double q = (double(v[n * s.cols + k]) - zeroSign * z) / sc;
                QVERIFY2(std::fabs(q - std::round(q)) < 1e-2,
                         qPrintable(QStringLiteral("row %1 col %2: q = %3").arg(n).arg(k).arg(q)));
                QVERIFY(std::round(q) >= qmin && std::round(q) <= qmax);
                ++checked;
            }
        QVERIFY(checked > s.rows * s.cols / 2);
    }

    void otherFamiliesConsistent_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<int>("qmin");
        QTest::addColumn<int>("qmax");
        QTest::addRow("ct-g32-asym") << "ct-pack-w4a16-g32-asym" << -8 << 7;
        QTest::addRow("ct-g128-sym") << "ct-pack-w4a16-g128-sym" << -8 << 7;
        QTest::addRow("ct-w8-channel") << "ct-pack-w8a16-channel-sym" << -128 << 127;
    }
    // compressed-tensors: v = (q - zp) * scale with q and zp signed codes.
    void otherFamiliesConsistent()
    {
        QFETCH(QString, dir);
        QFETCH(int, qmin);
        QFETCH(int, qmax);
        const auto ckpt = open(QStringLiteral("safetensors/") + dir);
        const qs::LogicalWeight* w = firstScaled(*ckpt);
        QVERIFY(w);
        const qs::GroupScales s = qs::groupScales(*ckpt, *w);
        const std::vector<float> v = qs::dequantizeWeight(*ckpt, *w, qs::SimdPath::Scalar, 1);
        QCOMPARE(uint64_t(v.size()), s.rows * s.cols);
        for (uint64_t n = 0; n < s.rows; ++n)
            for (uint64_t k = 0; k < s.cols; ++k) {
                const uint64_t g = s.gIdx.empty() ? k / s.groupSize : uint64_t(s.gIdx[k]);
                const double q = double(v[n * s.cols + k]) / s.scaleAt(g, n) + (s.zeros.empty() ? 0.0 : s.zeroAt(g, n));
                QVERIFY(std::fabs(q - std::round(q)) < 1e-2);
                QVERIFY(std::round(q) >= qmin && std::round(q) <= qmax);
            }
    }

    // bnb: |v| <= absmax of its block, and the block's largest |v| is absmax (the codebooks hold +-1).
    void bnbAbsmax_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addRow("nf4") << "bnb-nf4";
        QTest::addRow("nf4-nested") << "bnb-nf4-doublequant";
        QTest::addRow("fp4") << "bnb-fp4";
    }
    void bnbAbsmax()
    {
        QFETCH(QString, dir);
        const auto ckpt = open(QStringLiteral("safetensors/") + dir);
        const qs::LogicalWeight* w = firstScaled(*ckpt);
        QVERIFY(w);
        const qs::GroupScales s = qs::groupScales(*ckpt, *w);
        QVERIFY(s.zeros.empty());
        const std::vector<float> v = qs::dequantizeWeight(*ckpt, *w, qs::SimdPath::Scalar, 1);
        for (uint64_t n = 0; n < s.rows; ++n)
            for (uint64_t g = 0; g < s.groups; ++g) {
                float m = 0;
                for (uint64_t k = g * s.groupSize; k < (g + 1) * s.groupSize; ++k)
                    m = std::max(m, std::fabs(v[n * s.cols + k]));
                QCOMPARE(m, std::fabs(s.scaleAt(g, n)));
            }
    }

    void floatWeightRefused()
    {
        const auto ckpt = open(QStringLiteral("safetensors/sources.safetensors"));
        QVERIFY(!ckpt->weights.empty());
        const qs::LogicalWeight& w = ckpt->weights.front();
        QVERIFY(!qs::hasGroupScales(*ckpt, w));
        try {
            qs::groupScales(*ckpt, w);
            QFAIL("a float weight has no scales");
        } catch (const qs::Error& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY(what.contains(QString::fromStdString(ckpt->path)));
            QVERIFY(what.contains(QString::fromStdString(w.name)));
        }
    }

    // Issue 30: a cancelled read throws Cancelled, as every long piece of work does (it returned
    // a grid with no scales, which a caller that missed the cancel took for the weight's).
    void cancelThrows()
    {
        const auto ckpt = open(QStringLiteral("safetensors/gptq-w4-g128-sym"));
        const std::atomic<bool> cancel{true};
        QVERIFY_THROWS_EXCEPTION(qs::Cancelled,
                                 qs::groupScales(*ckpt, *firstScaled(*ckpt), qs::GgufScaleLevel::Block, &cancel));
    }

    void decimate_data()
    {
        QTest::addColumn<int>("reduce");
        QTest::addColumn<QVector<float>>("expected");
        // Grid 3 x 5 into 2 x 2 cells: steps 2 x 3, last cells partial.
        QTest::addRow("maxabs") << int(qs::CellReduce::MaxAbs) << QVector<float>{7, 9, 12, 14};
        QTest::addRow("min") << int(qs::CellReduce::Min) << QVector<float>{-7, 3, 10, 13};
        QTest::addRow("max") << int(qs::CellReduce::Max) << QVector<float>{6, 9, 12, 14};
    }
    void decimate()
    {
        QFETCH(int, reduce);
        QFETCH(QVector<float>, expected);
        const std::vector<float> grid{0,  1,  -7, 3,  4, //
                                      5,  6,  2,  8,  9, //
                                      10, 11, 12, 13, 14};
        const qs::DecimatedGrid d = qs::decimateGrid(grid, 3, 5, 2, 2, qs::CellReduce(reduce));
        QCOMPARE(d.rows, uint64_t(2));
        QCOMPARE(d.cols, uint64_t(2));
        QCOMPARE(d.rowStep, uint64_t(2));
        QCOMPARE(d.colStep, uint64_t(3));
        QCOMPARE(QVector<float>(d.cells.begin(), d.cells.end()), expected);
        QCOMPARE(d.lo, *std::min_element(expected.begin(), expected.end()));
        QCOMPARE(d.hi, *std::max_element(expected.begin(), expected.end()));
    }

    void decimateKeepsSmallGridsAndSkipsNonFinite()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const std::vector<float> grid{1, nan, -3, INFINITY};
        const qs::DecimatedGrid same = qs::decimateGrid(grid, 2, 2, 10, 10, qs::CellReduce::Max);
        QCOMPARE(same.rowStep, uint64_t(1));
        QCOMPARE(same.cells[0], 1.0f);
        QVERIFY(std::isnan(same.cells[1]));
        QVERIFY(std::isnan(same.cells[3]));
        QCOMPARE(same.lo, -3.0f);
        QCOMPARE(same.hi, 1.0f);
        const qs::DecimatedGrid one = qs::decimateGrid(grid, 2, 2, 1, 1, qs::CellReduce::MaxAbs);
        QCOMPARE(one.cells.size(), size_t(1));
        QCOMPARE(one.cells[0], 3.0f);
        // Counted, with the first one's place and the cells covering one (issue 33).
        QCOMPARE(same.nonFinite, uint64_t(2));
        QCOMPARE(same.firstNonFiniteRow, uint64_t(0));
        QCOMPARE(same.firstNonFiniteCol, uint64_t(1));
        QCOMPARE(same.coversNonFinite, (std::vector<bool>{false, true, false, true}));
        QCOMPARE(one.coversNonFinite, std::vector<bool>{true});
        QVERIFY(qs::decimateGrid({1, 2, 3, 4}, 2, 2, 10, 10, qs::CellReduce::Max).coversNonFinite.empty());
    }
};

QTEST_GUILESS_MAIN(TestGroupScales)
#include "tst_groupscales.moc"
