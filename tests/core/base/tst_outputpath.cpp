// outputpath.h and atomicfile.h: an output that is, contains or lies inside an input is refused
// (also through a symlink or a hard link) with both paths named; a non-empty output folder needs
// force and keeps what is not ours; an atomic write leaves the target untouched until commit.
#include "base/atomicfile.h"
#include "base/error.h"
#include "base/outputpath.h"

#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The message of checkOutputPath, or empty when it accepts.
std::string refusal(const std::string& output, const std::vector<std::string>& inputs)
{
    try {
        qs::checkOutputPath(output, inputs);
    } catch (const qs::Error& e) {
        return e.what();
    }
    return {};
}

std::vector<std::string> entries(const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

class TestOutputPath : public QObject {
    Q_OBJECT
private slots:
    void refusesTheInputItsFoldersAndWhatIsInside()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString(), src = root + "/src", file = src + "/model.safetensors";
        fs::create_directories(src);
        writeText(file, "weights");
        const std::vector<std::string> inputs{src, file};
        struct Case {
            std::string output, relation;
        };
        for (const Case& c : {Case{src, "is the input"}, Case{src + "/", "is the input"}, Case{src + "/./", "is the input"},
                              Case{file, "lies inside the input"}, Case{src + "/sub", "lies inside the input"},
                              Case{src + "/sub/deeper/x.gguf", "lies inside the input"},
                              Case{root + "/other/../src/out", "lies inside the input"}, Case{root, "contains the input"}}) {
            const std::string why = refusal(c.output, inputs);
            QVERIFY2(why.find(c.relation) != std::string::npos, (c.output + ": " + why).c_str());
            QVERIFY2(why.rfind(c.output + ":", 0) == 0, why.c_str()); // names the output first...
            QVERIFY2(why.find(src) != std::string::npos, why.c_str()); // ... and the input
        }
        // Beside the input, or a sibling folder whose name starts the same: fine.
        QCOMPARE(refusal(root + "/out", inputs), std::string());
        QCOMPARE(refusal(root + "/src2", inputs), std::string());
        QCOMPARE(refusal(src + "2/model.safetensors", inputs), std::string());
        QCOMPARE(refusal(root + "/out.gguf", {file}), std::string());
        QVERIFY(refusal(file, {file}).find("is the input") != std::string::npos);
        // A single-file input: its folder contains it, a file beside it is fine.
        QVERIFY(refusal(src, {file}).find("contains the input") != std::string::npos);
        QCOMPARE(refusal(src + "/other.safetensors", {file}), std::string());
    }

    void resolvesSymlinksAndHardLinks()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString(), src = root + "/src", file = src + "/model.safetensors";
        fs::create_directories(src);
        writeText(file, "weights");
        fs::create_directory_symlink(src, root + "/link");
        fs::create_symlink(file, root + "/file-link.safetensors");
        QVERIFY(::link(file.c_str(), (root + "/hard.safetensors").c_str()) == 0);

        std::string why = refusal(root + "/link", {src});
        QVERIFY2(why.find("is the input") != std::string::npos && why.find("resolves to " + src) != std::string::npos, why.c_str());
        QVERIFY(refusal(root + "/link/sub", {src}).find("lies inside the input") != std::string::npos);
        QVERIFY(refusal(root + "/file-link.safetensors", {file}).find("is the input") != std::string::npos);
        // The input named through the symlink, the output by its real path.
        QVERIFY(refusal(src + "/x", {root + "/link"}).find("lies inside the input") != std::string::npos);
        why = refusal(root + "/hard.safetensors", {file});
        QVERIFY2(why.find("same file") != std::string::npos, why.c_str());
        // A checkpoint's inputs name its folder and every file in it (Checkpoint::sources).
        QVERIFY(refusal(root + "/hard.safetensors", {src, file}).find("same file") != std::string::npos);
    }

    void nonEmptyFolderNeedsForceAndKeepsForeignFiles()
    {
        QTemporaryDir tmp;
        const std::string out = tmp.path().toStdString() + "/out";
        fs::create_directories(out);
        writeText(out + "/notes.txt", "mine");
        writeText(out + "/model.safetensors", "old");
        bool ran = false;
        try {
            qs::writeIntoFolder(out, false, [&] { ran = true; });
            QFAIL("a non-empty folder was accepted without force");
        } catch (const qs::Error& e) {
            const std::string why = e.what();
            QVERIFY2(why.find("not empty") != std::string::npos && why.find("--force") != std::string::npos &&
                         why.find("notes.txt") != std::string::npos,
                     why.c_str());
        }
        QVERIFY(!ran);
        QCOMPARE(readText(out + "/model.safetensors"), std::string("old"));

        const auto kept = qs::writeIntoFolder(out, true, [&] { qs::writeFileAtomically(out + "/model.safetensors", "new"); });
        QCOMPARE(kept, std::vector<std::string>{"notes.txt"});
        QCOMPARE(readText(out + "/notes.txt"), std::string("mine"));
        QCOMPARE(readText(out + "/model.safetensors"), std::string("new"));
        const std::string note = qs::leftAloneNote(out, kept);
        QVERIFY2(note.find(out) != std::string::npos && note.find("notes.txt") != std::string::npos, note.c_str());
        QCOMPARE(qs::leftAloneNote(out, {}), std::string());

        // An empty folder needs no force; a failed write removes only a folder it created.
        const std::string empty = tmp.path().toStdString() + "/empty";
        fs::create_directories(empty);
        QVERIFY(qs::writeIntoFolder(empty, false, [] {}).empty());
        const std::string fresh = tmp.path().toStdString() + "/fresh";
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::writeIntoFolder(fresh, false, [] { throw qs::Error("boom"); }));
        QVERIFY(!fs::exists(fresh));
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::writeIntoFolder(out, true, [] { throw qs::Error("boom"); }));
        QCOMPARE(entries(out), (std::vector<std::string>{"model.safetensors", "notes.txt"}));
    }

    void atomicFileCommitsOrLeavesTheTargetAlone()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString(), target = dir + "/out.bin";
        writeText(target, "before");
        {
            qs::AtomicFile f(target);
            f.write({reinterpret_cast<const uint8_t*>("half"), 4});
        } // destroyed uncommitted
        QCOMPARE(readText(target), std::string("before"));
        QCOMPARE(entries(dir), std::vector<std::string>{"out.bin"});
        {
            qs::AtomicFile f(target);
            f.write({reinterpret_cast<const uint8_t*>("abcd"), 4});
            f.writeZeros(2);
            f.writeAt(1, {reinterpret_cast<const uint8_t*>("X"), 1});
            QCOMPARE(f.size(), uint64_t(6));
            f.commit();
        }
        QCOMPARE(readText(target), std::string("aXcd\0\0", 6));
        QCOMPARE(entries(dir), std::vector<std::string>{"out.bin"});

        // A symlink at the target is replaced, not written through.
        const std::string other = dir + "/input.bin", link = dir + "/link.bin";
        writeText(other, "input");
        fs::create_symlink(other, link);
        qs::writeFileAtomically(link, "output");
        QCOMPARE(readText(other), std::string("input"));
        QVERIFY(!fs::is_symlink(link));
        QCOMPARE(readText(link), std::string("output"));

        // A folder that does not exist: an error naming the target, nothing written.
        try {
            qs::writeFileAtomically(dir + "/missing/x.bin", "x");
            QFAIL("wrote into a missing folder");
        } catch (const qs::Error& e) {
            QVERIFY2(std::string(e.what()).find(dir + "/missing/x.bin") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestOutputPath)
#include "tst_outputpath.moc"
