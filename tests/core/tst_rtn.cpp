// The round-to-nearest affine quantizer behind the demo checkpoint (and later the
// playground): hand-computed grids, group index handling, and bad arguments.
#include "analysis/rtn.h"
#include "kernels/half.h"

#include <QtTest>

#include <cmath>
#include <stdexcept>

class TestRtn : public QObject {
    Q_OBJECT
private slots:
    void symmetricGrid();
    void asymmetricIsExactOnItsGrid();
    void groupIndexDecidesGroups();
    void errorIsAtMostHalfAStep_data();
    void errorIsAtMostHalfAStep();
    void rejectsBadArguments();
};

void TestRtn::symmetricGrid()
{
    // max|w| = 1 -> scale 2/15, rounded to f16 0x3044 (0.13330078); zero 8.
    const std::vector<float> w{-1.0f, 0.0f, 0.5f, 1.0f};
    qs::RtnOptions opt;
    opt.bits = 4;
    opt.groupSize = 4;
    const auto r = qs::quantizeRtn(w, 1, 4, opt);
    QCOMPARE(r.groups, 1ull);
    QCOMPARE(r.scales[0], uint16_t(0x3044));
    QCOMPARE(int(r.zero(0, 0)), 8);
    // -1/s = -7.50 -> -8 -> 0; 0 -> 8; 0.5/s = 3.75 -> 4 -> 12; 1/s = 7.50 -> 8 -> 16, clipped to 15.
    QCOMPARE(int(r.code(0, 0)), 0);
    QCOMPARE(int(r.code(0, 1)), 8);
    QCOMPARE(int(r.code(0, 2)), 12);
    QCOMPARE(int(r.code(0, 3)), 15);
    QCOMPARE(r.dequant(0, 2), qs::halfToFloat(0x3044) * 4.0f);
}

void TestRtn::asymmetricIsExactOnItsGrid()
{
    // Two rows, two groups of 4: values already on a grid come back exactly.
    const std::vector<float> w{0, 1, 2, 3, -4, -2, 0, 2, -0.5f, 0, 0.5f, 1, 10, 10, 10, 10};
    qs::RtnOptions opt;
    opt.bits = 2;
    opt.groupSize = 4;
    opt.symmetric = false;
    const auto r = qs::quantizeRtn(w, 2, 8, opt);
    QCOMPARE(r.groups, 2ull);
    QCOMPARE(r.scale(0, 0), 1.0f);
    QCOMPARE(int(r.zero(0, 0)), 0);
    QCOMPARE(r.scale(1, 0), 2.0f);
    QCOMPARE(int(r.zero(1, 0)), 2);
    for (uint64_t c = 0; c < 8; ++c)
        QCOMPARE(r.dequant(0, c), w[c]);
    QCOMPARE(int(r.zero(0, 1)), 1);
    for (uint64_t c = 0; c < 4; ++c)
        QCOMPARE(r.dequant(1, c), w[8 + c]);
    // A constant positive group: the zero clamps at 0 (AWQ's rule), codes clip at the top.
    QCOMPARE(int(r.zero(1, 1)), 0);
    QCOMPARE(int(r.code(1, 4)), 3);
}

void TestRtn::groupIndexDecidesGroups()
{
    // Columns 0 and 2 share group 1, columns 1 and 3 group 0 (act-order style).
    const std::vector<float> w{8.0f, 0.1f, -8.0f, -0.1f};
    qs::RtnOptions opt;
    opt.bits = 4;
    opt.groupSize = 2;
    opt.groupIndex = {1, 0, 1, 0};
    const auto r = qs::quantizeRtn(w, 1, 4, opt);
    QCOMPARE(r.groups, 2ull);
    QCOMPARE(r.scale(1, 0), qs::halfToFloat(qs::floatToHalf(16.0f / 15.0f)));
    QCOMPARE(r.scale(0, 0), qs::halfToFloat(qs::floatToHalf(0.2f / 15.0f)));
    QCOMPARE(r.groupIndex, opt.groupIndex);
    QCOMPARE(int(r.code(0, 1)), 15);
    QCOMPARE(int(r.code(0, 3)), 1);
}

void TestRtn::errorIsAtMostHalfAStep_data()
{
    QTest::addColumn<int>("bits");
    QTest::addColumn<bool>("symmetric");
    for (int bits : {2, 3, 4, 8})
        for (bool sym : {true, false})
            QTest::addRow("%d-bit %s", bits, sym ? "sym" : "asym") << bits << sym;
}

void TestRtn::errorIsAtMostHalfAStep()
{
    QFETCH(int, bits);
    QFETCH(bool, symmetric);
    const uint64_t rows = 8, cols = 64;
    std::vector<float> w(rows * cols);
    for (size_t i = 0; i < w.size(); ++i)
        w[i] = float(std::sin(double(i) * 0.37) * 0.05);
    qs::RtnOptions opt;
    opt.bits = bits;
    opt.groupSize = 16;
    opt.symmetric = symmetric;
    const auto r = qs::quantizeRtn(w, rows, cols, opt);
    QCOMPARE(r.groups, 4ull);
    for (uint64_t row = 0; row < rows; ++row)
        for (uint64_t c = 0; c < cols; ++c) {
            const float s = r.scale(c / 16, row);
            QVERIFY(r.code(row, c) < (1 << bits));
            // Inside the grid: half a step. At its ends a value may be clipped by up to a
            // step (the symmetric grid stops one step short of max|w|; the rounded
            // asymmetric zero shifts the grid by up to half a step).
            const bool end = r.code(row, c) == 0 || r.code(row, c) == (1 << bits) - 1;
            const float bound = end ? 1.0f * s : 0.5f * s;
            QVERIFY2(std::fabs(r.dequant(row, c) - w[row * cols + c]) <= bound * 1.0001f,
                     qPrintable(QStringLiteral("row %1 col %2").arg(row).arg(c)));
        }
}

void TestRtn::rejectsBadArguments()
{
    const std::vector<float> w(8, 0.0f);
    qs::RtnOptions opt;
    opt.bits = 9;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, qs::quantizeRtn(w, 2, 4, opt));
    opt.bits = 4;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, qs::quantizeRtn(w, 3, 4, opt));
    opt.groupIndex = {0, 1};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, qs::quantizeRtn(w, 2, 4, opt));
    opt.groupIndex = {0, -1, 0, 0};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, qs::quantizeRtn(w, 2, 4, opt));
    // All zeros is fine: scale from the fallback range, every code the zero point.
    opt.groupIndex.clear();
    const auto r = qs::quantizeRtn(w, 2, 4, opt);
    for (uint8_t c : r.codes)
        QCOMPARE(int(c), 8);
}

QTEST_GUILESS_MAIN(TestRtn)
#include "tst_rtn.moc"
