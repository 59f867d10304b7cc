// half.h: exact f16/bf16 <-> f32 conversions (RNE), and the F16C rows agree bit for bit.
#include "base/half.h"
#include "base/halfrow.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <random>
#include <vector>

namespace {

// The value of a finite half, computed independently with ldexp.
double halfValue(uint16_t h)
{
    const int e = (h >> 10) & 0x1F;
    const int m = h & 0x3FF;
    const double v = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(double(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

// Nearest-even half of a finite float, by search over the ordered positive halves.
uint16_t referenceHalf(float f)
{
    const double a = std::fabs(double(f));
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    if (a >= 65520.0) // halfway between 65504 and the next (2^16) rounds to Inf
        return sign | 0x7C00;
    uint16_t lo = 0, hi = 0x7BFF;
    while (lo < hi) { // largest half <= a
        const uint16_t mid = uint16_t((lo + hi + 1) / 2);
        if (halfValue(mid) <= a)
            lo = mid;
        else
            hi = uint16_t(mid - 1);
    }
    const double below = halfValue(lo);
    if (below == a || lo == 0x7BFF)
        return sign | lo;
    const double above = halfValue(uint16_t(lo + 1));
    const double dl = a - below, du = above - a;
    if (dl < du || (dl == du && (lo & 1) == 0))
        return sign | lo;
    return sign | uint16_t(lo + 1);
}

} // namespace

class TestHalf : public QObject {
    Q_OBJECT
private slots:
    void halfToFloatIsExact()
    {
        for (uint32_t h = 0; h < 65536; ++h) {
            const float f = qs::halfToFloat(uint16_t(h));
            if (((h >> 10) & 0x1F) == 0x1F) {
                QVERIFY(std::isnan(f) == ((h & 0x3FF) != 0));
                continue;
            }
            QCOMPARE(double(f), halfValue(uint16_t(h)));
            QCOMPARE(qs::floatToHalf(f), uint16_t(h)); // round trip
        }
    }
    void floatToHalfRoundsToNearestEven()
    {
        // Every midpoint between consecutive halves and its float neighbours.
        for (uint16_t h = 0; h < 0x7BFF; ++h) {
            const double mid = (halfValue(h) + halfValue(uint16_t(h + 1))) / 2;
            const float m = float(mid);
            QCOMPARE(double(m), mid); // midpoints are floats
            QCOMPARE(qs::floatToHalf(m), (h & 1) ? uint16_t(h + 1) : h);
            QCOMPARE(qs::floatToHalf(std::nextafter(m, 0.f)), h);
            QCOMPARE(qs::floatToHalf(std::nextafter(m, 1e9f)), uint16_t(h + 1));
            QCOMPARE(qs::floatToHalf(-m), uint16_t(0x8000 | ((h & 1) ? h + 1 : h)));
        }
        std::mt19937 rng(7);
        for (int i = 0; i < 200000; ++i) {
            const float f = std::bit_cast<float>(uint32_t(rng()));
            if (!std::isfinite(f))
                continue;
            QCOMPARE(qs::floatToHalf(f), referenceHalf(f));
        }
        QCOMPARE(qs::floatToHalf(65519.996f), uint16_t(0x7BFF));
        QCOMPARE(qs::floatToHalf(65520.f), uint16_t(0x7C00));
        QCOMPARE(qs::floatToHalf(std::ldexp(1.f, -25)), uint16_t(0)); // tie to even zero
        QCOMPARE(qs::floatToHalf(std::ldexp(1.5f, -25)), uint16_t(1));
        QCOMPARE(qs::floatToHalf(-std::numeric_limits<float>::infinity()), uint16_t(0xFC00));
        QCOMPARE(qs::floatToHalf(std::bit_cast<float>(0x7FC12345u)), uint16_t(0x7E09));
    }
    void bf16()
    {
        QCOMPARE(qs::floatToBf16(1.0f), uint16_t(0x3F80));
        QCOMPARE(qs::floatToBf16(std::bit_cast<float>(0x3F808000u)), uint16_t(0x3F80)); // tie, even
        QCOMPARE(qs::floatToBf16(std::bit_cast<float>(0x3F818000u)), uint16_t(0x3F82)); // tie, odd up
        QCOMPARE(qs::floatToBf16(std::bit_cast<float>(0x3F808001u)), uint16_t(0x3F81));
        QCOMPARE(qs::floatToBf16(std::bit_cast<float>(0x7F7FFFFFu)), uint16_t(0x7F80)); // to Inf
        QCOMPARE(qs::floatToBf16(std::bit_cast<float>(0x7F800001u)), uint16_t(0x7FC0)); // NaN stays NaN
        for (uint32_t b = 0; b < 65536; ++b)
            QCOMPARE(std::bit_cast<uint32_t>(qs::bf16ToFloat(uint16_t(b))), b << 16);
    }
    void rowsAgreeAcrossPaths()
    {
        if (qs::cpuSimdPaths().size() < 2)
            QSKIP("this CPU runs the scalar path only");
        std::vector<uint16_t> all(65536 + 5);
        for (size_t i = 0; i < all.size(); ++i)
            all[i] = uint16_t(i);
        std::vector<float> a(all.size()), b(all.size());
        for (const qs::SimdPath path : qs::cpuSimdPaths())
            for (auto fn : {qs::halfToFloatRow, qs::bf16ToFloatRow}) {
                fn(all.data(), a.data(), all.size(), qs::SimdPath::Scalar);
                fn(all.data(), b.data(), all.size(), path);
                for (size_t i = 0; i < all.size(); ++i)
                    QCOMPARE(std::bit_cast<uint32_t>(a[i]), std::bit_cast<uint32_t>(b[i]));
            }
        std::mt19937 rng(11);
        std::vector<float> f(100003);
        for (auto& x : f)
            x = std::bit_cast<float>(uint32_t(rng()) & 0xC7FFFFFFu); // mostly near half range
        f[0] = std::bit_cast<float>(0x7F800001u);
        f[1] = std::bit_cast<float>(0xFFC00001u);
        std::vector<uint16_t> ha(f.size()), hb(f.size());
        for (const qs::SimdPath path : qs::cpuSimdPaths()) {
            qs::floatToHalfRow(f.data(), ha.data(), f.size(), qs::SimdPath::Scalar);
            qs::floatToHalfRow(f.data(), hb.data(), f.size(), path);
            for (size_t i = 0; i < f.size(); ++i)
                QCOMPARE(ha[i], hb[i]);
        }
    }
};

QTEST_GUILESS_MAIN(TestHalf)
#include "tst_half.moc"
