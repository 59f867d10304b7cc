// Which files of a folder make its checkpoint (container/folder.h): the loaders' order, the
// files left out, and the folders that hold several checkpoints (refused, naming them).
#include "container/checkpoint.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace qs;
namespace fs = std::filesystem;

namespace {

const std::vector<uint8_t>& zeros()
{
    static const std::vector<uint8_t> z(64, 0);
    return z;
}

// A one-tensor F32 [4] file holding tensor `tensor`.
void writeFile(const std::string& dir, const std::string& file, const std::string& tensor)
{
    writeSafetensors(dir + "/" + file, {{tensor, DType::F32, {4}, std::span<const uint8_t>(zeros().data(), 16)}});
}

std::vector<std::string> tensorNames(const Checkpoint& c)
{
    std::vector<std::string> out;
    for (const auto& t : c.tensors)
        out.push_back(std::string(t.name));
    std::sort(out.begin(), out.end());
    return out;
}

std::string errorOf(const std::string& dir)
{
    try {
        openCheckpoint(dir);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestFolder : public QObject {
    Q_OBJECT

private slots:
    // An adapter (or any other file) beside model.safetensors is not part of the model.
    void modelBesideAdapter()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeFile(d, "model.safetensors", "model.norm.weight");
        writeFile(d, "adapters.safetensors", "lora_a");
        const auto c = openCheckpoint(d);
        QCOMPARE(tensorNames(*c), std::vector<std::string>{"model.norm.weight"});
        QCOMPARE(c->openedAs, std::string("model.safetensors"));
        QCOMPARE(c->leftOut, std::vector<std::string>{"adapters.safetensors"});
    }

    // Mistral's layout without its index: the shards are the checkpoint, consolidated.safetensors
    // (the same weights under other names) is left out.
    void consolidatedBesideShards()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeFile(d, "model-00001-of-00002.safetensors", "a");
        writeFile(d, "model-00002-of-00002.safetensors", "b");
        writeFile(d, "consolidated.safetensors", "layers.0.w");
        const auto c = openCheckpoint(d);
        QCOMPARE(tensorNames(*c), (std::vector<std::string>{"a", "b"}));
        QCOMPARE(c->files.size(), size_t(2));
        QVERIFY(c->files[0].ends_with("model-00001-of-00002.safetensors"));
        QCOMPARE(c->openedAs, std::string("model-NNNNN-of-00002.safetensors"));
        QCOMPARE(c->leftOut, std::vector<std::string>{"consolidated.safetensors"});
    }

    // The index decides, whatever else lies in the folder.
    void indexWins()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        const std::vector<uint8_t>& z = zeros();
        writeSafetensorsSharded(
            d, {{shardFileName(0, 1), {{"x", DType::F32, {4}, std::span<const uint8_t>(z.data(), 16)}}}});
        writeFile(d, "model.safetensors", "y");
        writeFile(d, "other-00001-of-00002.safetensors", "z");
        const auto c = openCheckpoint(d);
        QCOMPARE(tensorNames(*c), std::vector<std::string>{"x"});
        QCOMPARE(c->openedAs, std::string("model.safetensors.index.json"));
        QCOMPARE(c->leftOut, (std::vector<std::string>{"model.safetensors", "other-00001-of-00002.safetensors"}));
    }

    void twoShardSetsAreRefused()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeFile(d, "model-00001-of-00002.safetensors", "a");
        writeFile(d, "model-00002-of-00002.safetensors", "b");
        writeFile(d, "draft-00001-of-00001.safetensors", "c");
        try {
            openCheckpoint(d);
            QFAIL("opened a folder of two shard sets");
        } catch (const FolderChoiceError& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.rfind(d + ": ", 0) == 0, msg.c_str());
            QVERIFY2(msg.find("model-NNNNN-of-00002.safetensors (2 shards)") != std::string::npos, msg.c_str());
            QVERIFY2(msg.find("draft-NNNNN-of-00001.safetensors") != std::string::npos, msg.c_str());
            QCOMPARE(e.candidates().size(), size_t(2));
            QCOMPARE(
                e.candidates()[1].files,
                (std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
            // What the GUI does with the user's pick.
            const auto c = openCheckpoint(d, e.candidates()[1].files);
            QCOMPARE(tensorNames(*c), (std::vector<std::string>{"a", "b"}));
            QCOMPARE(c->leftOut, std::vector<std::string>{"draft-00001-of-00001.safetensors"});
        }
    }

    void severalFilesAreRefused()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeFile(d, "base.safetensors", "a");
        writeFile(d, "adapter.safetensors", "b");
        const std::string msg = errorOf(d);
        QVERIFY2(msg.find("adapter.safetensors, base.safetensors") != std::string::npos, msg.c_str());
        QVERIFY_THROWS_EXCEPTION(FolderChoiceError, openCheckpoint(d));
    }

    void incompleteSetNamesTheMissingShard()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeFile(d, "model-00001-of-00003.safetensors", "a");
        writeFile(d, "model-00003-of-00003.safetensors", "c");
        writeFile(d, "README.safetensors", "r");
        const std::string msg = errorOf(d);
        QVERIFY2(msg.find("model-00002-of-00003.safetensors is missing") != std::string::npos, msg.c_str());
    }

    void singleFile()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeFile(d, "weights.safetensors", "a");
        std::ofstream(d + "/notes.txt") << "not a checkpoint";
        const auto c = openCheckpoint(d);
        QCOMPARE(tensorNames(*c), std::vector<std::string>{"a"});
        QVERIFY(c->leftOut.empty());
    }

    // GGUF folders follow the same rule: one file or one split set, else refused.
    void ggufFolders()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        const std::vector<uint8_t>& z = zeros();
        const GgufTensor t{"blk.0.attn_norm.weight", 0, {4}, std::span<const uint8_t>(z.data(), 16)};
        writeGguf(d + "/a.gguf", {}, {t});
        QCOMPARE(openCheckpoint(d)->openedAs, std::string("a.gguf"));
        writeGguf(d + "/b.gguf", {}, {t});
        const std::string msg = errorOf(d);
        QVERIFY2(msg.find("a.gguf, b.gguf") != std::string::npos, msg.c_str());
        const auto c = openCheckpoint(d, {"b.gguf"});
        QCOMPARE(c->container, Container::Gguf);
        QCOMPARE(c->leftOut, std::vector<std::string>{"a.gguf"});
    }

    // Checkpoint::sources() names everything the reader opened, not only the files it mapped:
    // the configs beside a single file (an unreadable one too), the shard index, every split of a
    // GGUF set. What a command must never write over.
    void sourcesNameEveryFileRead()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        auto has = [](const std::vector<std::string>& v, const std::string& s) {
            return std::find(v.begin(), v.end(), s) != v.end();
        };
        writeFile(d, "model.safetensors", "m");
        std::ofstream(d + "/config.json") << R"({"model_type":"llama"})";
        std::ofstream(d + "/quantize_config.json") << "not json";
        std::ofstream(d + "/notes.json") << "{}";
        auto c = openCheckpoint(d + "/model.safetensors");
        auto sources = c->sources();
        QVERIFY(has(sources, d + "/model.safetensors"));
        QVERIFY(has(sources, d + "/config.json"));
        QVERIFY(has(sources, d + "/quantize_config.json")); // read, unreadable, a note: still read
        QVERIFY(!has(sources, d + "/notes.json"));
        QCOMPARE(c->sideFiles, (std::vector<std::string>{d + "/config.json", d + "/quantize_config.json"}));

        const std::string sharded = d + "/sharded";
        fs::create_directories(sharded);
        const std::vector<uint8_t>& z = zeros();
        writeSafetensorsSharded(
            sharded, {{shardFileName(0, 1), {{"x", DType::F32, {4}, std::span<const uint8_t>(z.data(), 16)}}}});
        sources = openCheckpoint(sharded)->sources();
        QVERIFY(has(sources, sharded + "/model.safetensors.index.json"));
        QVERIFY(has(sources, sharded + "/" + shardFileName(0, 1)));

        const std::string splits = d + "/splits";
        fs::create_directories(splits);
        const GgufTensor t0{"blk.0.attn_norm.weight", 0, {4}, std::span<const uint8_t>(z.data(), 16)};
        const GgufTensor t1{"blk.1.attn_norm.weight", 0, {4}, std::span<const uint8_t>(z.data(), 16)};
        const std::vector<std::string> written = writeGgufSplits(splits + "/m", {}, {t0, t1}, 1);
        QCOMPARE(written.size(), size_t(2));
        sources = openCheckpoint(written.front())->sources();
        QVERIFY(has(sources, written.front()) && has(sources, written.back()));
    }

    // The fuzz targets' entry point: the same rules over files in memory.
    void fromMemory()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeFile(d, "model.safetensors", "m");
        writeFile(d, "adapters.safetensors", "lora_a");
        auto slurp = [&](const std::string& f) {
            std::ifstream in(d + "/" + f, std::ios::binary);
            return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        };
        const std::vector<uint8_t> model = slurp("model.safetensors"), adapter = slurp("adapters.safetensors");
        const std::string config = R"({"model_type":"llama"})";
        const auto c =
            Checkpoint::readMemory({{"adapters.safetensors", adapter},
                                    {"model.safetensors", model},
                                    {"config.json", {reinterpret_cast<const uint8_t*>(config.data()), config.size()}}});
        QCOMPARE(tensorNames(*c), std::vector<std::string>{"m"});
        QCOMPARE(c->leftOut, std::vector<std::string>{"adapters.safetensors"});
        QCOMPARE(c->config.value(QStringLiteral("model_type")).toString(), QStringLiteral("llama"));
        QCOMPARE(c->files, std::vector<std::string>{"<memory>/model.safetensors"});
    }
};

QTEST_GUILESS_MAIN(TestFolder)
#include "tst_folder.moc"
