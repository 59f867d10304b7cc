// outputpath.h, atomicfile.h and tempfile.h: an output that is, contains or lies inside an input
// is refused (also through a symlink or a hard link) with both paths named; a non-empty output
// folder needs force and keeps what is not ours; an atomic write leaves the target untouched
// until commit, replaces nothing but a regular file (naming what is there) and keeps the mode of
// the file it replaces; the temporary files a killed run left (stale: nobody holds their lock)
// are swept by the next writer and do not make a folder "not empty", a live one is kept.
#include "base/atomicfile.h"
#include "base/error.h"
#include "base/outputpath.h"
#include "base/tempfile.h"

#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

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
std::string refusal(const std::string& output, const std::vector<std::string>& inputs,
                    qs::OutputKind kind = qs::OutputKind::File)
{
    try {
        qs::checkOutputPath(output, inputs, kind);
    } catch (const qs::Error& e) {
        return e.what();
    }
    return {};
}

// The message of writeFileAtomically(path, "output"), or empty when it wrote.
std::string writeRefusal(const std::string& path)
{
    try {
        qs::writeFileAtomically(path, "output");
    } catch (const qs::Error& e) {
        return e.what();
    }
    return {};
}

mode_t typeOf(const std::string& path)
{
    struct stat st { };
    return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

mode_t modeOf(const std::string& path)
{
    struct stat st { };
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
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
        for (const Case& c :
             {Case{src, "is the input"}, Case{src + "/", "is the input"}, Case{src + "/./", "is the input"},
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
        QVERIFY2(why.find("is the input") != std::string::npos && why.find("resolves to " + src) != std::string::npos,
                 why.c_str());
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
            QVERIFY2(why.find("not empty") != std::string::npos && why.find("--force") != std::string::npos
                         && why.find("notes.txt") != std::string::npos,
                     why.c_str());
        }
        QVERIFY(!ran);
        QCOMPARE(readText(out + "/model.safetensors"), std::string("old"));

        const auto kept =
            qs::writeIntoFolder(out, true, [&] { qs::writeFileAtomically(out + "/model.safetensors", "new"); });
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

        // A symlink at the target is neither written through nor replaced: refused, naming it.
        const std::string other = dir + "/input.bin", link = dir + "/link.bin";
        writeText(other, "input");
        fs::create_symlink(other, link);
        const std::string why = writeRefusal(link);
        QVERIFY2(why.find(link + ": refusing to write: the output is a symbolic link to " + other) == 0, why.c_str());
        QCOMPARE(readText(other), std::string("input"));
        QVERIFY(fs::is_symlink(link));

        // A folder that does not exist: an error naming the target, nothing written.
        try {
            qs::writeFileAtomically(dir + "/missing/x.bin", "x");
            QFAIL("wrote into a missing folder");
        } catch (const qs::Error& e) {
            QVERIFY2(std::string(e.what()).find(dir + "/missing/x.bin") != std::string::npos, e.what());
        }
    }

    // A FIFO, a socket, a device, a folder or a symlink (dangling too) at the target: the write is
    // refused, naming the path and what is there, before anything is written, and the entry
    // stays what it was. checkOutputPath says the same up front; a folder output must be a
    // folder (a symlink to one is written into).
    void replacesOnlyARegularFile()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        const std::string fifo = dir + "/fifo", sock = dir + "/sock", folder = dir + "/folder",
                          dangling = dir + "/dangling";
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        {
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            QVERIFY(fd >= 0 && sock.size() < sizeof addr.sun_path);
            std::memcpy(addr.sun_path, sock.c_str(), sock.size());
            QVERIFY(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
            ::close(fd);
        }
        fs::create_directories(folder);
        fs::create_symlink(dir + "/missing", dangling);
        struct Case {
            std::string path, kind;
        };
        for (const Case& c : {Case{fifo, "a FIFO (named pipe)"}, Case{sock, "a socket"}, Case{folder, "a folder"},
                              Case{dangling, "a symbolic link to " + dir + "/missing"}}) {
            const mode_t type = typeOf(c.path);
            const std::string expect = c.path + ": refusing to write: the output is " + c.kind + ", not a regular file";
            std::string why = writeRefusal(c.path);
            QVERIFY2(why.find(expect) == 0, why.c_str());
            QCOMPARE(typeOf(c.path), type);
            why = refusal(c.path, {});
            QVERIFY2(why.find(expect) == 0, why.c_str());
        }
        QVERIFY(!fs::exists(dir + "/missing"));
        // A device, here the system's /dev/null: refused up front (nothing is written to find out).
        const std::string devnull = refusal("/dev/null", {});
        QVERIFY2(devnull.find("/dev/null: refusing to write: the output is a character device, not a regular file")
                     == 0,
                 devnull.c_str());
        // Nothing there yet, or a regular file: fine.
        QCOMPARE(refusal(dir + "/new.bin", {}), std::string());
        writeText(dir + "/old.bin", "old");
        QCOMPARE(refusal(dir + "/old.bin", {}), std::string());
        // No temporary file was left by the refusals.
        for (const std::string& name : entries(dir))
            QVERIFY2(!qs::isTempFileName(name), name.c_str());

        // Folder outputs.
        using qs::OutputKind;
        QCOMPARE(refusal(folder, {}, OutputKind::Folder), std::string());
        QCOMPARE(refusal(dir + "/new-folder", {}, OutputKind::Folder), std::string());
        fs::create_directory_symlink(folder, dir + "/folder-link");
        QCOMPARE(refusal(dir + "/folder-link", {}, OutputKind::Folder), std::string());
        std::string why = refusal(dir + "/old.bin", {}, OutputKind::Folder);
        QVERIFY2(why.find(dir + "/old.bin: refusing to write: the output is a file, not a folder") == 0, why.c_str());
        why = refusal(fifo, {}, OutputKind::Folder);
        QVERIFY2(why.find(fifo + ": refusing to write: the output is a FIFO (named pipe), not a folder") == 0,
                 why.c_str());
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::writeIntoFolder(dir + "/old.bin", true, [] {}));
        QCOMPARE(readText(dir + "/old.bin"), std::string("old"));
    }

    // The file a write replaces keeps its permissions; a new one gets 0644.
    void replacedFileKeepsItsMode()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        for (const mode_t mode : {mode_t(0600), mode_t(0640), mode_t(0755)}) {
            const std::string path = dir + "/out.bin";
            writeText(path, "old");
            QVERIFY(::chmod(path.c_str(), mode) == 0);
            qs::writeFileAtomically(path, "new");
            QCOMPARE(readText(path), std::string("new"));
            QCOMPARE(modeOf(path), mode);
        }
        qs::writeFileAtomically(dir + "/fresh.bin", "new");
        QCOMPARE(modeOf(dir + "/fresh.bin"), mode_t(0644));
    }

    void temporaryFileNames()
    {
        QVERIFY(qs::isTempFileName(".model.safetensors.tmp-AbC123"));
        QVERIFY(qs::isTempFileName(".model.safetensors.tmp-AbC123", "model.safetensors"));
        QVERIFY(!qs::isTempFileName(".model.safetensors.tmp-AbC123", "config.json"));
        QVERIFY(qs::isTempFileName("..hidden.tmp-zzzzzz", ".hidden"));
        for (const char* name :
             {"model.safetensors.tmp-AbC123", ".model.safetensors.tmp-AbC12", ".model.safetensors.tmp-AbC12.",
              ".tmp-AbC123", "..tmp-AbC123", ".x.tmp-AbC-23", ".x.tmp_AbC123", "config.json"})
            QVERIFY2(!qs::isTempFileName(name), name);
    }

    // A temporary file nobody holds the lock of (its writer was killed) is swept: by a folder
    // write, which then does not call the folder "not empty" for it, and by the next write of the
    // same name. A live one (locked), another name's, or a name not quite ours is kept.
    void staleTemporaryFilesAreSwept()
    {
        QTemporaryDir tmp;
        const std::string out = tmp.path().toStdString() + "/out";
        fs::create_directories(out);
        writeText(out + "/.model.safetensors.tmp-Ab12Cd", "half a checkpoint");
        writeText(out + "/.config.json.tmp-Zz99zZ", "half a config");
        std::vector<std::string> kept =
            qs::writeIntoFolder(out, false, [&] { qs::writeFileAtomically(out + "/model.safetensors", "new"); });
        QVERIFY(kept.empty());
        QCOMPARE(entries(out), std::vector<std::string>{"model.safetensors"});

        // A live writer's file (its lock held here, as a running writer holds it): kept, and counted.
        const std::string live = out + "/.config.json.tmp-Li5eOn";
        writeText(live, "being written");
        const int fd = ::open(live.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0 && ::flock(fd, LOCK_EX) == 0);
        QVERIFY_THROWS_EXCEPTION(qs::Error, qs::writeIntoFolder(out, false, [] {}));
        QVERIFY(fs::exists(live));
        QVERIFY(!qs::removeIfStaleTempFile(live));
        ::close(fd);
        QVERIFY(qs::removeIfStaleTempFile(live));
        QVERIFY(!fs::exists(live));

        // A file write sweeps its own name's leftovers only.
        const std::string dir = tmp.path().toStdString();
        for (const char* name :
             {".out.bin.tmp-aaaaaa", ".out.bin.tmp-BBBBBB", ".other.bin.tmp-cccccc", ".out.bin.tmp-abc"})
            writeText(dir + "/" + name, "left");
        qs::writeFileAtomically(dir + "/out.bin", "new");
        const std::vector<std::string> left = entries(dir);
        QVERIFY(std::find(left.begin(), left.end(), ".out.bin.tmp-aaaaaa") == left.end());
        QVERIFY(std::find(left.begin(), left.end(), ".out.bin.tmp-BBBBBB") == left.end());
        QVERIFY(std::find(left.begin(), left.end(), ".other.bin.tmp-cccccc") != left.end());
        QVERIFY(std::find(left.begin(), left.end(), ".out.bin.tmp-abc") != left.end());
        QCOMPARE(readText(dir + "/out.bin"), std::string("new"));
    }

    // While an AtomicFile is open its temporary file is locked (a sweep leaves it alone) and,
    // after the commit or when dropped, gone.
    void liveTemporaryFileIsNotSwept()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        {
            qs::AtomicFile f(dir + "/out.bin");
            f.write({reinterpret_cast<const uint8_t*>("data"), 4});
            QCOMPARE(qs::removeStaleTempFiles(dir), std::vector<std::string>());
            QCOMPARE(entries(dir).size(), size_t(1));
            QVERIFY(qs::isTempFileName(entries(dir).front(), "out.bin"));
            f.commit();
        }
        QCOMPARE(entries(dir), std::vector<std::string>{"out.bin"});
        QCOMPARE(readText(dir + "/out.bin"), std::string("data"));
    }
};

QTEST_GUILESS_MAIN(TestOutputPath)
#include "tst_outputpath.moc"
