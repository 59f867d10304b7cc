// The health scan's row kernel (analysis/spanscan.h): every SIMD path counts the NaN and Inf
// values and finds the all-zero spans exactly as the scalar reference does, for spans shorter
// than, equal to and longer than a vector, spans that do not divide the row, -0 and subnormals.
#include "analysis/spanscan.h"

#include "kernel_testutil.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace qs;

class TestSpanScan : public QObject {
    Q_OBJECT
private slots:
    void pathsMatchReference()
    {
        std::mt19937 rng(5);
        const float special[] = {0.0f,
                                 -0.0f,
                                 std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::denorm_min(),
                                 -std::numeric_limits<float>::max(),
                                 1.0f};
        for (const uint64_t n : {1u, 7u, 8u, 16u, 31u, 100u, 256u, 1000u})
            for (const uint64_t span : {1u, 3u, 8u, 16u, 17u, 32u, 64u, 1000u}) {
                for (int trial = 0; trial < 20; ++trial) {
                    std::vector<float> v(n, 0.0f);
                    // Mostly zeros, so that whole spans are zero; sometimes a special value.
                    for (float& x : v)
                        if (rng() % 4 == 0)
                            x = special[rng() % 8];
                    const uint64_t spans = (n + span - 1) / span;
                    std::vector<uint8_t> want(spans), got(spans);
                    const uint64_t bad = scanSpans(v.data(), n, span, want.data());
                    uint64_t count = 0;
                    for (const float x : v)
                        count += !std::isfinite(x);
                    QCOMPARE(bad, count);
                    for (const SimdPath path : qsk::simdPaths()) {
                        std::fill(got.begin(), got.end(), uint8_t(7));
                        QCOMPARE(scanSpans(v.data(), n, span, got.data(), path), bad);
                        QCOMPARE(got, want);
                    }
                }
            }
    }
};

QTEST_GUILESS_MAIN(TestSpanScan)
#include "tst_spanscan.moc"
