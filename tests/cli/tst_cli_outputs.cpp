// Never losing the user's data: repack, quantize, dequant, codes and report refuse an output
// that is, contains or lies inside an input (also through a symlink or a hard link) with exit 2
// and leave the input byte-identical; a non-empty output folder needs --force, and even then
// the files the command does not write survive and are named.
#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

namespace {

const QString kWeight = QStringLiteral("model.layers.0.self_attn.q_proj");

// Every file below `dir` (hidden ones too: a stray temporary file counts) with its bytes.
QMap<QString, QByteArray> snapshot(const QString& dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System | QDir::Dirs | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        files.insert(QDir(dir).relativeFilePath(path), f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<dir>"));
    }
    return files;
}

// A copy of a GPTQ fixture folder (model.safetensors, config.json, quantize_config.json,
// ref.safetensors: a float reference to quantize) that the tests may try to damage.
QString copySource(const QTemporaryDir& tmp)
{
    const QString from = qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym"));
    const QString to = tmp.filePath(QStringLiteral("src"));
    QDir().mkpath(to);
    for (const QString& name : QDir(from).entryList(QDir::Files))
        QFile::copy(from + QLatin1Char('/') + name, to + QLatin1Char('/') + name);
    return to;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size());
}

} // namespace

class TestCliOutputs : public QObject {
    Q_OBJECT
private slots:
    void refusedOutputs_data()
    {
        QTest::addColumn<QStringList>("args"); // SRC, ROOT and LINK stand for the paths
        QTest::addColumn<QString>("relation");
        const QString src = QStringLiteral("SRC");
        const QStringList repack{QStringLiteral("repack"), src, QStringLiteral("--to"), QStringLiteral("gptq-v2"), QStringLiteral("-o")};
        QTest::addRow("repack -o SRC") << repack + QStringList{src} << "is the input";
        QTest::addRow("repack -o SRC --force") << repack + QStringList{src, QStringLiteral("--force")} << "is the input";
        QTest::addRow("repack -o SRC/") << repack + QStringList{QStringLiteral("SRC/")} << "is the input";
        QTest::addRow("repack -o SRC/sub") << repack + QStringList{QStringLiteral("SRC/sub")} << "lies inside the input";
        QTest::addRow("repack -o parent") << repack + QStringList{QStringLiteral("ROOT")} << "contains the input";
        QTest::addRow("repack -o symlink to SRC") << repack + QStringList{QStringLiteral("LINK")} << "is the input";
        QTest::addRow("repack -o symlink/sub") << repack + QStringList{QStringLiteral("LINK/sub")} << "lies inside the input";
        QTest::addRow("repack gguf -o SRC/model.safetensors")
            << QStringList{QStringLiteral("repack"), src, QStringLiteral("--to"), QStringLiteral("q8_0"), QStringLiteral("-o"),
                           QStringLiteral("SRC/model.safetensors")}
            << "lies inside the input";
        QTest::addRow("quantize -o SRC")
            << QStringList{QStringLiteral("quantize"), QStringLiteral("SRC/ref.safetensors"), QStringLiteral("--all"),
                           QStringLiteral("--format"), QStringLiteral("gptq-v1"), QStringLiteral("-o"), src}
            << "contains the input";
        QTest::addRow("quantize -o SRC/q")
            << QStringList{QStringLiteral("quantize"), src, QStringLiteral("--all"), QStringLiteral("--format"),
                           QStringLiteral("gptq-v1"), QStringLiteral("-o"), QStringLiteral("SRC/q")}
            << "lies inside the input";
        QTest::addRow("dequant -o SRC/model.safetensors")
            << QStringList{QStringLiteral("dequant"), src, kWeight, QStringLiteral("-o"), QStringLiteral("SRC/model.safetensors")}
            << "lies inside the input";
        QTest::addRow("dequant -o symlink to the file")
            << QStringList{QStringLiteral("dequant"), QStringLiteral("SRC/model.safetensors"), kWeight, QStringLiteral("-o"),
                           QStringLiteral("LINK/model.safetensors")}
            << "is the input";
        QTest::addRow("codes -o SRC") << QStringList{QStringLiteral("codes"), src, kWeight, QStringLiteral("-o"), src}
                                      << "is the input";
        QTest::addRow("report -o SRC/report.md")
            << QStringList{QStringLiteral("report"), src, QStringLiteral("-o"), QStringLiteral("SRC/report.md")}
            << "lies inside the input";
        QTest::addRow("report --ref -o inside the ref")
            << QStringList{QStringLiteral("report"), QStringLiteral("SRC/model.safetensors"), QStringLiteral("--ref"),
                           QStringLiteral("LINK"), QStringLiteral("-o"), QStringLiteral("SRC/r.html")}
            << "lies inside the input";
    }

    void refusedOutputs()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, relation);
        QTemporaryDir tmp;
        const QString src = copySource(tmp);
        const QString link = tmp.filePath(QStringLiteral("link"));
        QVERIFY(QFile::link(src, link));
        for (QString& a : args)
            a.replace(QLatin1String("SRC"), src).replace(QLatin1String("ROOT"), tmp.path()).replace(QLatin1String("LINK"), link);
        const auto before = snapshot(tmp.path());
        const auto r = qstest::runCli(args);
        QVERIFY2(!r.crashed && r.exitCode == 2, r.err.constData());
        QVERIFY2(r.err.contains("refusing to write") && r.err.contains(relation.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(src.toUtf8()), r.err.constData()); // names the input...
        QVERIFY2(r.err.contains((args.at(args.indexOf(QStringLiteral("-o")) + 1) + QStringLiteral(": ")).toUtf8()),
                 r.err.constData()); // ... and the output
        QCOMPARE(snapshot(tmp.path()), before); // nothing written, nothing created
    }

    void hardLinkToTheInput()
    {
        QTemporaryDir tmp;
        const QString src = copySource(tmp), hard = tmp.filePath(QStringLiteral("w.npy"));
        QVERIFY(::link(QFile::encodeName(src + QStringLiteral("/model.safetensors")).constData(), QFile::encodeName(hard).constData()) == 0);
        const auto before = snapshot(tmp.path());
        const auto r = qstest::runCli({QStringLiteral("dequant"), src, kWeight, QStringLiteral("-o"), hard});
        QVERIFY2(r.exitCode == 2 && r.err.contains("same file"), r.err.constData());
        QCOMPARE(snapshot(tmp.path()), before);
    }

    void nonEmptyFolderNeedsForce_data()
    {
        QTest::addColumn<QStringList>("args"); // OUT stands for the output folder
        QTest::addColumn<QStringList>("written");
        QTest::addRow("repack") << QStringList{QStringLiteral("repack"), QStringLiteral("SRC"), QStringLiteral("--to"),
                                               QStringLiteral("gptq-v2"), QStringLiteral("-o"), QStringLiteral("OUT")}
                                << QStringList{QStringLiteral("model.safetensors"), QStringLiteral("config.json"),
                                               QStringLiteral("quantize_config.json")};
        QTest::addRow("quantize") << QStringList{QStringLiteral("quantize"), QStringLiteral("SRC/ref.safetensors"), QStringLiteral("--all"),
                                                 QStringLiteral("--format"), QStringLiteral("awq"), QStringLiteral("-o"), QStringLiteral("OUT")}
                                  << QStringList{QStringLiteral("model.safetensors"), QStringLiteral("config.json"),
                                                 QStringLiteral("quant_config.json")};
        QTest::addRow("codes") << QStringList{QStringLiteral("codes"), QStringLiteral("SRC"), kWeight, QStringLiteral("-o"), QStringLiteral("OUT")}
                               << QStringList{QStringLiteral("codes.npy"), QStringLiteral("scales.npy"), QStringLiteral("g_idx.npy")};
    }

    void nonEmptyFolderNeedsForce()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, written);
        QTemporaryDir tmp;
        const QString src = copySource(tmp), out = tmp.filePath(QStringLiteral("out"));
        for (QString& a : args)
            a.replace(QLatin1String("SRC"), src).replace(QLatin1String("OUT"), out);
        QDir().mkpath(out + QStringLiteral("/sub"));
        writeFile(out + QStringLiteral("/README.md"), "the user's notes\n");
        writeFile(out + QStringLiteral("/sub/keep.bin"), "keep");
        writeFile(out + QLatin1Char('/') + written.front(), "an older output");

        const auto before = snapshot(tmp.path()), sourceBefore = snapshot(src);
        auto r = qstest::runCli(args);
        QVERIFY2(r.exitCode == 2 && r.err.contains("not empty") && r.err.contains("--force") && r.err.contains("README.md"),
                 r.err.constData());
        QCOMPARE(snapshot(tmp.path()), before);

        r = qstest::runCli(args + QStringList{QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto after = snapshot(out);
        QCOMPARE(after.value(QStringLiteral("README.md")), QByteArray("the user's notes\n"));
        QCOMPARE(after.value(QStringLiteral("sub/keep.bin")), QByteArray("keep"));
        for (const QString& name : written)
            QVERIFY2(after.contains(name) && after.value(name) != "an older output", qPrintable(name));
        // Nothing but ours and theirs: no temporary file left.
        QCOMPARE(after.size(), written.size() + 3 + (args.front() == QLatin1String("codes") ? 1 : 0)); // codes: zeros.npy too
        // Said, naming only what is not ours.
        QVERIFY2(r.err.contains("note: left alone in " + out.toUtf8() + " (not written by this command): README.md, sub\n"),
                 r.err.constData());
        QCOMPARE(snapshot(src), sourceBefore);
    }

    // An empty existing folder and a new one need no --force.
    void emptyOrNewFolder()
    {
        QTemporaryDir tmp;
        const QString src = copySource(tmp), empty = tmp.filePath(QStringLiteral("empty"));
        QDir().mkpath(empty);
        for (const QString& out : {empty, tmp.filePath(QStringLiteral("new/deeper"))}) {
            const auto r = qstest::runCli({QStringLiteral("repack"), src, QStringLiteral("--to"), QStringLiteral("awq"),
                                           QStringLiteral("-o"), out, QStringLiteral("--no-verify")});
            QVERIFY2(r.exitCode == 0 && !r.err.contains("left alone"), r.err.constData());
            QVERIFY(QFile::exists(out + QStringLiteral("/model.safetensors")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliOutputs)
#include "tst_cli_outputs.moc"
