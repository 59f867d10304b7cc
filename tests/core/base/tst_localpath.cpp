// File names as bytes (base/localpath.h): any byte string survives decode then encode, valid UTF-8
// decodes as text, and each byte that does not decode is one escaped code unit.
#include "base/localpath.h"

#include <QTest>

#include <random>

class TestLocalPath : public QObject {
    Q_OBJECT
private slots:
    void bytesRoundTrip()
    {
        std::mt19937 rng(7);
        for (int n = 0; n < 20000; ++n) {
            std::string bytes(size_t(rng() % 12), '\0');
            for (char& c : bytes)
                c = char(rng() % 4 == 0 ? 0x80 + rng() % 128 : rng() % 256);
            QCOMPARE(qs::encodeLocalBytes(qs::decodeLocalBytes(bytes)), bytes);
        }
    }
    void textAndEscapes()
    {
        QCOMPARE(qs::decodeLocalBytes("gr\xc3\xbc\xc3\x9f"), QStringLiteral("grüß"));
        QCOMPARE(qs::decodeLocalBytes("\xf0\x9f\x98\x80"), QString::fromUtf8("\xf0\x9f\x98\x80")); // a surrogate pair
        const QString s = qs::decodeLocalBytes("a\xff"
                                               "b\xc3");
        QCOMPARE(s.size(), 4);
        QCOMPARE(s[1].unicode(), char16_t(0xDCFF));
        QCOMPARE(s[3].unicode(), char16_t(0xDCC3));
        // Overlong forms and encoded surrogates are not UTF-8: kept as bytes.
        QCOMPARE(qs::decodeLocalBytes("\xc0\xaf").size(), 2);
        QCOMPARE(qs::decodeLocalBytes("\xed\xa0\x80").size(), 3);
        QCOMPARE(qs::encodeLocalBytes(QStringLiteral("grüß")), std::string("gr\xc3\xbc\xc3\x9f"));
    }
};

QTEST_GUILESS_MAIN(TestLocalPath)
#include "tst_localpath.moc"
