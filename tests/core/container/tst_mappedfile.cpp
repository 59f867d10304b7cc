// MappedFile: read-only mapping, bounds-checked ranges, clear errors.
#include "container/mappedfile.h"
#include "base/error.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

class TestMappedFile : public QObject {
    Q_OBJECT
private slots:
    void mapsAndChecksRanges()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + QStringLiteral("/f.bin")).toStdString();
        {
            std::ofstream(path, std::ios::binary) << "hello world";
        }
        const qs::MappedFile f(path);
        QCOMPARE(f.size(), uint64_t(11));
        QCOMPARE(f.range(6, 5, "x")[0], uint8_t('w'));
        QVERIFY_THROWS_EXCEPTION(qs::Error, f.range(6, 6, "tensor 'a'"));
        QVERIFY_THROWS_EXCEPTION(qs::Error, f.range(~0ull, 2, "tensor 'a'"));
        try {
            f.range(10, 5, "tensor 'a'");
        } catch (const qs::Error& e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY(msg.contains(QString::fromStdString(path)));
            QVERIFY(msg.contains(QStringLiteral("tensor 'a'")));
        }
    }
    void residentBytesCountsPagesInRam()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + QStringLiteral("/r.bin")).toStdString();
        const std::string data(3 * 65536 + 123, 'x');
        {
            std::ofstream(path, std::ios::binary) << data;
        }
        const qs::MappedFile f(path);
        uint64_t sum = 0;
        for (uint8_t b : f.bytes()) // read every page in
            sum += b;
        QCOMPARE(sum, uint64_t('x') * data.size());
        // Every page was just read: all of the file is resident, never more than its size.
        QCOMPARE(f.residentBytes(), f.size());
    }
    void emptyFileAndMissingFile()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + QStringLiteral("/empty")).toStdString();
        {
            std::ofstream(path, std::ios::binary);
        }
        const qs::MappedFile f(path);
        QCOMPARE(f.size(), uint64_t(0));
        QCOMPARE(f.residentBytes(), uint64_t(0));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::MappedFile(path + ".missing"));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::MappedFile(dir.path().toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestMappedFile)
#include "tst_mappedfile.moc"
