// The PyTorch reader (container/pytorch.h, torchpickle.h) on the archives of tests/data/pytorch,
// which torch 1.13.1 wrote (tests/support/make_torch_files.py), and on hostile ones made by hand:
// values read bit for bit, shared storages and views, shards, GPTQ and AWQ detected as from
// safetensors, and every refusal naming the file and what was refused.
#include "analysis/quantize_checkpoint.h"
#include "analysis/verify.h"
#include "base/error.h"
#include "base/simd.h"
#include "container/checkpoint.h"
#include "container/torchpickle.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <string>
#include <vector>

using namespace qs;

namespace {

std::string data(const char* relative)
{
    return qstest::testData(QStringLiteral("pytorch/") + QLatin1String(relative)).toStdString();
}

std::string errorOf(const std::string& path)
{
    try {
        openCheckpoint(path);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

template <class T>
std::vector<T> valuesOf(const Checkpoint& c, const char* name)
{
    const TensorEntry* t = c.find(name);
    if (!t)
        return {};
    const auto b = c.bytes(*t);
    std::vector<T> out(b.size() / sizeof(T));
    std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
    return out;
}

std::vector<float> decoded(const Checkpoint& c, const char* name)
{
    const LogicalWeight* w = c.findWeight(name);
    return w ? dequantizeWeight(c, *w, SimdPath::Scalar, 1) : std::vector<float>{};
}

std::vector<float> series(size_t n, float scale, float bias)
{
    std::vector<float> v;
    for (size_t i = 0; i < n; ++i)
        v.push_back(scale * float(i) + bias);
    return v;
}

std::string shapeOf(const TensorEntry& t)
{
    std::string s;
    for (uint64_t d : t.shape)
        s += std::to_string(d) + ",";
    return s;
}

} // namespace

class TestPytorch : public QObject {
    Q_OBJECT

private slots:
    void everyDtypeReadsBitForBit()
    {
        const auto c = openCheckpoint(data("dtypes.pt"));
        QCOMPARE(c->container, Container::Pytorch);
        QCOMPARE(containerName(c->container), std::string_view("pytorch"));
        QCOMPARE(c->tensors.size(), size_t(10));
        const char* order[] = {"f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u8", "bool"};
        const DType types[] = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I64,
                               DType::I32, DType::I16, DType::I8,   DType::U8,  DType::BOOL};
        for (size_t i = 0; i < 10; ++i) {
            QCOMPARE(std::string(c->tensors[i].name), std::string(order[i]));
            QCOMPARE(c->tensors[i].dtype, types[i]);
        }
        QCOMPARE(shapeOf(*c->find("f32")), std::string("3,4,"));
        QCOMPARE(valuesOf<float>(*c, "f32"), series(12, 0.25f, -1.0f));
        QCOMPARE(decoded(*c, "f16"), series(6, 0.5f, -1.5f));
        QCOMPARE(decoded(*c, "bf16"), series(4, 2.0f, -3.0f));
        QCOMPARE(valuesOf<double>(*c, "f64"), (std::vector<double>{1.0, 1.125}));
        QCOMPARE(valuesOf<int64_t>(*c, "i64"), (std::vector<int64_t>{-(int64_t(1) << 40), 7, int64_t(1) << 40}));
        QCOMPARE(valuesOf<int32_t>(*c, "i32"), (std::vector<int32_t>{-2, -1, 1, 2}));
        QCOMPARE(valuesOf<int16_t>(*c, "i16"), (std::vector<int16_t>{-300, 300}));
        QCOMPARE(valuesOf<int8_t>(*c, "i8"), (std::vector<int8_t>{-128, 0, 127}));
        QCOMPARE(valuesOf<uint8_t>(*c, "u8"), (std::vector<uint8_t>{0, 1, 128, 200, 255}));
        QCOMPARE(valuesOf<uint8_t>(*c, "bool"), (std::vector<uint8_t>{1, 0, 1, 1}));
        QVERIFY(c->notes.empty());
    }

    void sharedStoragesAndViews()
    {
        const auto c = openCheckpoint(data("views.pt"));
        const TensorEntry* embed = c->find("embed.weight");
        const TensorEntry* head = c->find("lm_head.weight");
        QVERIFY(embed && head);
        QCOMPARE(head->offset, embed->offset); // one storage, two tensors
        QCOMPARE(embed->nbytes, uint64_t(32));
        QCOMPARE(valuesOf<float>(*c, "lm_head.weight"), series(8, 1.0f, 0.0f));
        QCOMPARE(c->find("tail")->offset, embed->offset + 16); // storage offset 4
        QCOMPARE(valuesOf<float>(*c, "tail"), series(4, 1.0f, 4.0f));
        QCOMPARE(valuesOf<float>(*c, "row1"), series(4, 1.0f, 4.0f));
        QCOMPARE(decoded(*c, "row1"), series(4, 1.0f, 4.0f));
        // Strided views are listed over the bytes they span, with the reason, and not decoded.
        for (const char* name : {"transposed", "expanded"}) {
            const TensorEntry* t = c->find(name);
            QVERIFY(t && !t->known);
            QVERIFY2(t->note.text().find("strided view") != std::string::npos, t->note.text().c_str());
            const LogicalWeight* w = c->findWeight(name);
            QVERIFY(w && !whyNotDecoded(*w).empty());
            QCOMPARE(w->notes.size(), size_t(1));
        }
        QCOMPARE(c->find("transposed")->note.text(),
                 std::string("stored as a strided view of its storage (stride [1, 4], where row-major order would be "
                             "[2, 1]); listed, not decoded"));
        QCOMPARE(c->find("expanded")->nbytes, uint64_t(12)); // stride (0, 1): three floats
    }

    // quantize writes a safetensors folder from a PyTorch input, but never a strided view's bytes
    // under its shape.
    void quantizeRefusesToCopyAStridedView()
    {
        QTemporaryDir tmp;
        const auto c = openCheckpoint(data("views.pt"));
        QuantizeCheckpointOptions o;
        o.format = "gptq-v2";
        o.groupSize = 32;
        QString error;
        try {
            quantizeCheckpoint(*c, tmp.filePath(QStringLiteral("out")).toStdString(), o);
        } catch (const Error& e) {
            error = QString::fromStdString(e.what());
        }
        QVERIFY2(error.contains(QStringLiteral("tensor 'transposed' cannot be copied: stored as a strided view")),
                 qPrintable(error));
    }

    void moduleStateDictAndParameters()
    {
        // A module's state dict: an OrderedDict whose _metadata is set by BUILD.
        for (const char* file : {"module.pt", "parameters.pt"}) {
            const auto c = openCheckpoint(data(file));
            QCOMPARE(c->tensors.size(), size_t(2));
            QCOMPARE(valuesOf<float>(*c, "weight"), series(8, 0.25f, -1.0f));
            QCOMPARE(valuesOf<float>(*c, "bias"), (std::vector<float>{1.5f, -1.5f}));
        }
    }

    void nestedCheckpointNamesAndMetadata()
    {
        const auto c = openCheckpoint(data("nested.pt"));
        QVERIFY(c->find("state_dict.layer.weight"));
        QCOMPARE(valuesOf<float>(*c, "state_dict.layer.bias"), (std::vector<float>{0.5f, -0.5f}));
        QCOMPARE(valuesOf<float>(*c, "history.0"), (std::vector<float>{1.0f, 2.0f}));
        const auto shown = [&](const char* key) {
            const MetaValue* v = c->meta(key);
            return v ? v->toDisplayString() : std::string("(absent)");
        };
        QCOMPARE(shown("epoch"), std::string("3"));
        QCOMPARE(shown("lr"), std::string("0.5"));
        QCOMPARE(shown("name"), std::string("tiny"));
        QCOMPARE(shown("best"), std::string("true"));
        QCOMPARE(shown("none"), std::string("None"));
        QCOMPARE(shown("history.1"), std::string("2"));
    }

    void torch2RebuildV3Float8()
    {
        const auto c = openCheckpoint(data("v3-float8.pt"));
        const TensorEntry* w = c->find("w");
        QVERIFY(w);
        QCOMPARE(w->dtype, DType::F8_E4M3);
        QCOMPARE(decoded(*c, "w"), (std::vector<float>{1.0f, 2.0f, -1.0f, 0.0f}));
    }

    void shardedFolderWithIndex()
    {
        const auto c = openCheckpoint(data("sharded"));
        QCOMPARE(c->container, Container::Pytorch);
        QCOMPARE(c->openedAs, std::string("pytorch_model.bin.index.json"));
        QCOMPARE(c->files.size(), size_t(2));
        QCOMPARE(c->sideFiles.size(), size_t(1));
        QCOMPARE(decoded(*c, "model.layers.0.mlp.up_proj.weight"), series(8, 0.5f, -2.0f));
        QCOMPARE(decoded(*c, "model.layers.0.mlp.down_proj.weight"), series(8, -0.5f, 2.0f));
        QVERIFY(c->notes.empty()); // total_size agrees
    }

    // The same tensors as a pytorch_model.bin and as the fixture's model.safetensors: the same
    // weights, formats, parameters, evidence and notes, the same decoded values and verify findings.
    void quantizedLayoutsDetectAsFromSafetensors_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* f : {"gptq-w4-g128-sym", "gptq-w4-g32-sym-actorder", "awq-gemm-w4-g128"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void quantizedLayoutsDetectAsFromSafetensors()
    {
        QFETCH(QString, name);
        const auto st = openCheckpoint(qstest::fixture(QStringLiteral("safetensors/") + name).toStdString());
        const auto pt = openCheckpoint(qstest::testData(QStringLiteral("pytorch/") + name).toStdString());
        QCOMPARE(pt->container, Container::Pytorch);
        QCOMPARE(pt->openedAs, std::string("pytorch_model.bin"));
        QCOMPARE(pt->weights.size(), st->weights.size());
        size_t quantized = 0;
        for (size_t i = 0; i < st->weights.size(); ++i) {
            const LogicalWeight& a = st->weights[i];
            const LogicalWeight* b = pt->findWeight(a.name);
            QVERIFY2(b, a.name.c_str());
            QCOMPARE(b->format, a.format);
            QCOMPARE(std::vector<uint64_t>(b->shape), std::vector<uint64_t>(a.shape));
            QCOMPARE(b->bits, a.bits);
            QCOMPARE(b->groupSize, a.groupSize);
            QCOMPARE(b->storedBytes, a.storedBytes);
            QCOMPARE(b->symmetric, a.symmetric);
            QCOMPARE(b->descAct, a.descAct);
            QCOMPARE(b->actOrder, a.actOrder);
            using Params = std::vector<WeightParams::value_type>;
            QCOMPARE(Params(b->params.begin(), b->params.end()), Params(a.params.begin(), a.params.end()));
            QCOMPARE(b->evidence.size(), a.evidence.size());
            for (size_t k = 0; k < a.evidence.size(); ++k)
                QCOMPARE(b->evidence[k].text(), a.evidence[k].text());
            QCOMPARE(b->notes.size(), a.notes.size());
            quantized += a.format.rfind("gptq", 0) == 0 || a.format.rfind("awq", 0) == 0;
            const std::vector<float> va = dequantizeWeight(*st, a, bestSimdPath(), 1);
            const std::vector<float> vb = dequantizeWeight(*pt, *b, bestSimdPath(), 1);
            QCOMPARE(vb.size(), va.size());
            QVERIFY(std::memcmp(vb.data(), va.data(), va.size() * sizeof(float)) == 0);
        }
        QVERIFY(quantized > 0); // a check that checked nothing is not a pass
        const VerifyReport ra = verifyCheckpoint(*st), rb = verifyCheckpoint(*pt);
        QCOMPARE(rb.checked, ra.checked);
        QVERIFY(!ra.checked.empty());
        QCOMPARE(rb.findings.size(), ra.findings.size());
        for (size_t k = 0; k < ra.findings.size(); ++k)
            QCOMPARE(rb.findings[k].message.text(), ra.findings[k].message.text());
    }

    void hostileFilesAreRefusedByName_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("os.system") << "hostile-os-system.pt"
                                   << "global 'os.system' is not one torch.save writes for tensors, storages or dicts; "
                                      "refused, nothing was executed";
        QTest::newRow("STACK_GLOBAL builtins.eval") << "hostile-stack-global.pt"
                                                    << "global 'builtins.eval'";
        QTest::newRow("NEWOBJ") << "hostile-newobj.pt"
                                << "opcode 0x81 (NEWOBJ) is not one torch.save writes";
        QTest::newRow("deep MARK nesting") << "hostile-deep-mark.pt"
                                           << "more than 256 MARKs open at once";
        QTest::newRow("huge numel") << "hostile-huge-numel.pt"
                                    << "storage '0' (FloatStorage of 4611686018427387904 elements): its byte size "
                                       "overflows 64 bits";
        QTest::newRow("offset past the data")
            << "hostile-offset-past-data.pt"
            << "tensor 'w': storage offset 3, size [2] and stride [1] of F32 reach past the 16 bytes of storage '0'";
        QTest::newRow("size overflow") << "hostile-size-overflow.pt"
                                       << "tensor 'w': size [4294967296, 4294967296] overflows";
        QTest::newRow("missing record") << "hostile-missing-record.pt"
                                        << "storage '7' has no record archive/data/7";
        QTest::newRow("big-endian") << "hostile-big-endian.pt"
                                    << "byte order 'big'";
        QTest::newRow("compressed") << "hostile-compressed.pt"
                                    << "record 'archive/data/0' is compressed (zip method 8)";
        QTest::newRow("cycle") << "hostile-cycle.pt"
                               << "the dict at 'self' is reached a second time";
        QTest::newRow("tensor root") << "hostile-tensor-root.pt"
                                     << "data.pkl holds a tensor, not a dict of tensors";
        QTest::newRow("truncated")
            << "hostile-truncated.pt"
            << "a zip archive without its end record (the last bytes of a zip): truncated or damaged";
        QTest::newRow("legacy") << "legacy.pt"
                                << "the legacy torch.save format (PyTorch before 1.6";
    }
    void hostileFilesAreRefusedByName()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const std::string path = data(file.toLatin1().constData());
        const std::string error = errorOf(path);
        QVERIFY2(error.rfind(path + ": ", 0) == 0, error.c_str());
        QVERIFY2(error.find(expected.toStdString()) != std::string::npos, error.c_str());
    }

    // The unpickler alone: what a truncated pickle, an unknown memo entry and a call of a storage
    // class say.
    void unpicklerRefusals()
    {
        const auto refusal = [](std::string_view pickle) {
            try {
                readTorchPickle({reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size()}, "f.pt");
            } catch (const Error& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        QCOMPARE(refusal(std::string_view("\x80\x02}", 3)),
                 std::string("f.pt: data.pkl byte 3: the pickle ends without STOP (truncated)"));
        QCOMPARE(refusal(std::string_view("\x80\x02h\x05.", 5)),
                 std::string("f.pt: data.pkl byte 2: BINGET of memo entry 5, which was never put"));
        QCOMPARE(refusal(std::string_view("\x80\x02X\xff\xff\xff\x7f", 7)),
                 std::string("f.pt: data.pkl byte 2: BINUNICODE needs 2147483647 bytes, but the pickle ends after 0 "
                             "(truncated)"));
        QCOMPARE(refusal("\x80\x02\x63torch\nFloatStorage\n)R."),
                 std::string("f.pt: data.pkl byte 23: REDUCE calls torch.FloatStorage, which torch.save never calls"));
        QCOMPARE(refusal(std::string_view("\x80\x01}.", 4)),
                 std::string("f.pt: data.pkl byte 0: pickle protocol 1; torch.save writes 2 (or 3 to 5 when asked)"));
    }
};

QTEST_GUILESS_MAIN(TestPytorch)
#include "tst_pytorch.moc"
