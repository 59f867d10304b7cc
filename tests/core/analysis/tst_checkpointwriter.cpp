// The checkpoint writer quantize and repack share: a GGUF file laid out before any data (the
// ggml family's float fallback for K not whole blocks, the input permutation's tensor and
// metadata, the target's file type, whose metadata it carries), a safetensors folder that copies
// a weight's source when the weight gives no tensors, and nothing left behind when a check
// before the commit throws.
#include "analysis/checkpointwriter.h"
#include "analysis/streamwriter.h"
#include "base/error.h"
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/formatid.h"
#include "formats/ggml/quantize_ggml.h"
#include "formats/opencheckpoint.h"

#include "testsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace qs;

namespace {

std::shared_ptr<const Checkpoint> open(const char* fixture)
{
    return openCheckpoint(qstest::fixture(QString::fromLatin1(fixture)).toStdString());
}

size_t tensorIndex(const Checkpoint& c, const std::string& name)
{
    for (size_t i = 0; i < c.tensors.size(); ++i)
        if (c.tensors[i].name == name)
            return i;
    throw Error("no tensor " + name);
}

// A weight's float values as they are stored (the fixtures' F32 tensors).
std::vector<float> floats(const Checkpoint& c, size_t tensor)
{
    const auto bytes = c.bytes(c.tensors[tensor]);
    std::vector<float> x(bytes.size() / 4);
    std::memcpy(x.data(), bytes.data(), bytes.size());
    return x;
}

} // namespace

class TestCheckpointWriter : public QObject {
    Q_OBJECT
private slots:
    // A GGUF target: a weight whose K is whole blocks is the target's type, one whose K is not
    // is F32 and reads back as such; an input permutation follows its weight and is named in
    // the metadata; general.file_type is the target's; the input's architecture is kept.
    void gguf()
    {
        QTemporaryDir tmp;
        const auto src = open("safetensors/sources.safetensors");
        const std::string out = tmp.filePath(QStringLiteral("out.gguf")).toStdString();
        const auto w = CheckpointWriter::open(*src, out, *findFormat("gguf-q8_0"), false, false);
        QVERIFY(w->fixedLayout());
        QVERIFY(!w->namesByModule());
        QCOMPARE(w->floatFallback(256), 0u);
        QCOMPARE(w->floatFallback(100), 32u);
        const size_t big = tensorIndex(*src, "synthetic.W_128x256"), q = tensorIndex(*src, "stories260K.layers.0.wq");
        w->convert({big, "big", "big.weight", {128, 256}, 0, [] { return true; }});
        w->convert({q, "odd", "odd.weight", {2, 100}, 0, [] { return true; }}); // F32: no permutation asked
        w->copy(q);
        bool finished = false;
        w->write(
            [&](size_t c) -> std::vector<StoredTensor> {
                if (c == 0) {
                    const std::vector<float> x = floats(*src, big);
                    std::vector<int32_t> perm(256);
                    for (int32_t i = 0; i < 256; ++i)
                        perm[size_t(i)] = 255 - i;
                    return {{"weight", DType::Ggml, {128, 256}, quantizeGgml(GgmlQ8_0, x.data(), 128, 256)},
                            storedTensor("input_perm", DType::I32, {256}, perm)};
                }
                return {storedTensor("weight", DType::F32, {2, 100}, std::vector<float>(200, 0.5f))};
            },
            [&] { finished = true; }, QuantScheme{}, {});
        QVERIFY(finished);
        QCOMPARE(w->copied(), std::vector<std::string>{"stories260K.layers.0.wq"});
        QCOMPARE(w->readBack(0).name, std::string("big.weight"));
        QCOMPARE(w->readBack(0).format, std::string("gguf-q8_0"));
        QCOMPARE(w->readBack(1).format, ggufFormatId(ggmlTypeName(GgmlF32)));

        const auto dst = openCheckpoint(out);
        QCOMPARE(dst->tensors.size(), size_t(4));
        QCOMPARE(dst->tensors[1].name, std::string("big.input_perm"));
        QCOMPARE(dst->findWeight("odd.weight")->format, w->readBack(1).format);
        QCOMPARE(std::get<uint64_t>(dst->meta("general.file_type")->value), uint64_t(llamaFileType(GgmlQ8_0)));
        QCOMPARE(std::get<std::string>(dst->meta("general.architecture")->value), std::string("llama"));
        const auto& perms = std::get<std::vector<MetaValue>>(dst->meta("quantscope.input_permutations")->value);
        QCOMPARE(perms.size(), size_t(1));
        QCOMPARE(std::get<std::string>(perms[0].value), std::string("big.input_perm"));
        // repack carries only a GGUF input's metadata: the safetensors "format" stays behind.
        QVERIFY(!dst->meta("format"));
    }

    // quantize carries any input's metadata into a GGUF output.
    void ggufInheritsAnyMetadata()
    {
        QTemporaryDir tmp;
        const auto src = open("safetensors/sources.safetensors");
        const std::string out = tmp.filePath(QStringLiteral("out.gguf")).toStdString();
        const auto w = CheckpointWriter::open(*src, out, *findFormat("gguf-q8_0"), false, true);
        w->copy(0);
        w->write({}, {}, QuantScheme{}, {});
        QCOMPARE(std::get<std::string>(openCheckpoint(out)->meta("format")->value), std::string("pt"));
    }

    // A tensor GGUF has no type for is refused when planned, by name.
    void ggufRefusesUntypedCopy()
    {
        QTemporaryDir tmp;
        const auto src = open("safetensors/bnb-nf4");
        const auto w = CheckpointWriter::open(*src, tmp.filePath(QStringLiteral("o.gguf")).toStdString(),
                                              *findFormat("gguf-q4_0"), false, false);
        size_t u8 = src->tensors.size();
        for (size_t i = 0; i < src->tensors.size(); ++i)
            if (src->tensors[i].dtype == DType::U8)
                u8 = i;
        QVERIFY(u8 < src->tensors.size());
        try {
            w->copy(u8);
            QFAIL("copied a U8 tensor into GGUF");
        } catch (const Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(std::string(src->tensors[u8].name))),
                     e.what());
            // The tensor is the error's context, not words in its text.
            QCOMPARE(e.context().file, src->path);
            QCOMPARE(e.context().tensor, std::string(src->tensors[u8].name));
            QCOMPARE(e.detail(), std::string("U8 has no GGUF type"));
        }
    }

    // The stream writer's refusals of a tensor name it as their context.
    void streamWriterNamesTensor()
    {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("o.safetensors")).toStdString();
        SafetensorsStreamWriter w(path, 4096);
        const std::vector<uint8_t> six(6, 0);
        // Each refusal under a name of its own (a refused name stays taken).
        const auto refused = [&](const std::string& name, DType dtype, const std::vector<uint64_t>& shape,
                                 const std::string& detail) {
            try {
                w.append(name, dtype, shape, six);
                QFAIL("accepted");
            } catch (const Error& e) {
                QCOMPARE(e.context().file, path);
                QCOMPARE(e.context().tensor, name);
                QCOMPARE(e.detail(), detail);
                QCOMPARE(std::string(e.what()), path + ": tensor '" + name + "': " + detail);
            }
        };
        refused("a.weight", DType::F32, {2}, "data holds 6 bytes, its shape and F32 need 2 elements");
        refused("b.weight", DType::F16, {uint64_t(1) << 40, uint64_t(1) << 40}, "its shape overflows");
    }

    // A safetensors target: a weight that gives no tensors is copied from its source; the
    // configs are written beside model.safetensors.
    void safetensorsCopiesSourceOfEmptyWeight()
    {
        QTemporaryDir tmp;
        const auto src = open("safetensors/sources.safetensors");
        const std::string out = tmp.filePath(QStringLiteral("out")).toStdString();
        const auto w = CheckpointWriter::open(*src, out, *findFormat("gptq-v1"), false, false);
        QVERIFY(!w->fixedLayout());
        QVERIFY(w->namesByModule());
        QCOMPARE(w->floatFallback(100), 0u);
        w->convert({0, "m", "", src->tensors[0].shape, 40, {}});
        QuantScheme scheme;
        scheme.format = findFormat("gptq-v1");
        w->write([](size_t) { return std::vector<StoredTensor>{}; }, {}, scheme, {});
        QCOMPARE(w->copied(), std::vector<std::string>{std::string(src->tensors[0].name)});
        QCOMPARE(w->readBack(0).name, std::string("m"));
        QVERIFY(QFileInfo::exists(QString::fromStdString(out + "/config.json")));
        const auto dst = openCheckpoint(out);
        QCOMPARE(dst->tensors.size(), size_t(1));
        const auto a = src->bytes(src->tensors[0]), b = dst->bytes(dst->tensors[0]);
        QVERIFY(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    }

    // A check before the commit that throws leaves no file and no folder behind.
    void finishThrowsNothingLeft_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("name");
        QTest::addRow("gguf") << "gguf-q8_0"
                              << "out.gguf";
        QTest::addRow("safetensors") << "gptq-v1"
                                     << "out";
    }
    void finishThrowsNothingLeft()
    {
        QFETCH(QString, target);
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const auto src = open("safetensors/sources.safetensors");
        const auto w = CheckpointWriter::open(*src, tmp.filePath(name).toStdString(), *findFormat(target.toStdString()),
                                              false, false);
        w->copy(0);
        QuantScheme scheme;
        scheme.format = findFormat(target.toStdString());
        QVERIFY_THROWS_EXCEPTION(Error, w->write({}, [] { throw Error("no"); }, scheme, {}));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
    }

    // The output is read back before it is committed: the check sees everything written (the
    // tensors, the configs, the weights detected) while nothing is under the output's name yet,
    // and what it throws leaves nothing behind.
    void verifyBeforeCommit_data() { finishThrowsNothingLeft_data(); }
    void verifyBeforeCommit()
    {
        QFETCH(QString, target);
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const auto src = open("safetensors/sources.safetensors");
        const FormatInfo& format = *findFormat(target.toStdString());
        const std::string out = tmp.filePath(name).toStdString();
        QuantScheme scheme;
        scheme.format = &format;
        for (const bool pass : {false, true}) {
            const auto w = CheckpointWriter::open(*src, out, format, false, false);
            w->copy(0);
            bool seen = false;
            const auto verify = [&](const Checkpoint& written) {
                seen = true;
                QCOMPARE(written.tensors.size(), size_t(1));
                QCOMPARE(written.weights.size(), size_t(1));
                QCOMPARE(written.weights[0].name, src->tensors[0].name);
                QCOMPARE(written.config.isEmpty(), w->fixedLayout()); // a folder's config.json is read back too
                QVERIFY(
                    !QFileInfo::exists(QString::fromStdString(out + (w->fixedLayout() ? "" : "/model.safetensors"))));
                if (!pass)
                    throw Error("reads back wrong");
            };
            if (pass) {
                w->write({}, {}, scheme, {}, verify);
                QVERIFY(QFileInfo::exists(QString::fromStdString(out)));
            } else {
                QVERIFY_THROWS_EXCEPTION(Error, w->write({}, {}, scheme, {}, verify));
                QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                         QStringList());
            }
            QVERIFY(seen);
        }
    }
};

QTEST_GUILESS_MAIN(TestCheckpointWriter)
#include "tst_checkpointwriter.moc"
