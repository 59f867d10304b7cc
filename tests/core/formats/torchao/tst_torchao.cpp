// torchao's safetensors kinds: Float8Tensor and Int8Tensor decoded bit-exactly against the
// references of tests/data/torchao (tests/support/make_torchao_fixtures.py: no upstream-written
// torchao safetensors file exists), on every SIMD path; both namings detected; the packed kinds,
// unknown kinds and codes without metadata named with a note; bad metadata refused naming the tensor.
#include "container/checkpoint.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"
#include "kernel_testutil.h"
#include "testsupport.h"

#include <QTest>

#include <algorithm>
#include <bit>
#include <cstring>

using namespace qs;

namespace {

std::string dataFile(const char* folder, const char* file)
{
    return QStringLiteral(QT_TESTCASE_SOURCEDIR "/data/torchao/%1/%2")
        .arg(QLatin1String(folder), QLatin1String(file))
        .toStdString();
}

const LogicalWeight* weightNamed(const Checkpoint& ck, const std::string& name)
{
    for (const LogicalWeight& w : ck.weights)
        if (w.name == name)
            return &w;
    return nullptr;
}

bool noted(const LogicalWeight& w, const char* text)
{
    return std::any_of(w.notes.begin(), w.notes.end(),
                       [&](const Message& m) { return m.text().find(text) != std::string::npos; });
}

std::string notesOf(const LogicalWeight& w)
{
    std::string s;
    for (const Message& m : w.notes)
        s += m.text() + " | ";
    return s;
}

} // namespace

class TestTorchao : public QObject {
    Q_OBJECT

private slots:
    void decodesTheReferences_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("weights");
        QTest::addRow("float8-v1") << QStringLiteral("float8-v1") << 2;
        QTest::addRow("int8-float8-v2") << QStringLiteral("int8-float8-v2") << 3;
    }
    // Every decoded weight equals its reference bit for bit, on the scalar reference and every path.
    void decodesTheReferences()
    {
        QFETCH(QString, folder);
        QFETCH(int, weights);
        const QByteArray f = folder.toLatin1();
        const auto ck = openCheckpoint(dataFile(f.constData(), "model.safetensors"));
        const auto ref = openCheckpoint(dataFile(f.constData(), "ref.safetensors"));
        int decoded = 0;
        for (const LogicalWeight& w : ck->weights) {
            const FormatInfo* fi = findFormat(w.format);
            QVERIFY(fi);
            if (fi->family == FormatFamily::Plain)
                continue;
            QVERIFY2(w.format == "torchao-float8" || w.format == "torchao-int8", (w.name + ": " + w.format).c_str());
            QVERIFY2(w.notes.empty(), notesOf(w).c_str());
            const auto r = std::find_if(ref->tensors.begin(), ref->tensors.end(), [&](const TensorEntry& t) {
                return t.name == w.name + ".weight" || t.name == w.name;
            });
            QVERIFY2(r != ref->tensors.end(), w.name.c_str());
            QVERIFY(r->shape == w.shape);
            const auto want = ref->bytes(*r);
            for (SimdPath path : qsk::simdPaths()) {
                const std::vector<float> got = dequantizeWeight(*ck, w, path, 1);
                QCOMPARE(got.size() * sizeof(float), want.size());
                for (size_t i = 0; i < got.size(); ++i) {
                    float expect;
                    std::memcpy(&expect, want.data() + 4 * i, 4);
                    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(expect))
                        QFAIL(qPrintable(QStringLiteral("%1 [%2] on %3: %4, reference %5")
                                             .arg(QString::fromStdString(w.name))
                                             .arg(i)
                                             .arg(QString::fromLatin1(simdPathName(path).data()))
                                             .arg(double(got[i]), 0, 'g', 9)
                                             .arg(double(expect), 0, 'g', 9)));
                }
            }
            ++decoded;
        }
        QCOMPARE(decoded, weights);
    }

    // Both of torchao's namings, the parameters from the metadata, plain tensors left plain.
    void detection()
    {
        const auto v1 = openCheckpoint(dataFile("float8-v1", "model.safetensors"));
        const LogicalWeight* q = weightNamed(*v1, "model.layers.0.self_attn.q_proj");
        QVERIFY(q);
        QCOMPARE(q->format, std::string("torchao-float8"));
        QCOMPARE(q->shape, (std::vector<uint64_t>{16, 64}));
        QCOMPARE(q->params.at("kind"), std::string("Float8Tensor"));
        QCOMPARE(q->params.at("block"), std::string("1x64"));
        QCOMPARE(q->params.at("dtype"), std::string("bfloat16"));
        QCOMPARE(q->params.at("naming"), std::string("name:data"));
        QVERIFY(q->member("qdata") >= 0 && q->member("scale") >= 0);
        const LogicalWeight* down = weightNamed(*v1, "model.layers.0.mlp.down_proj");
        QVERIFY(down);
        QCOMPARE(down->params.at("block"), std::string("24x32"));
        QCOMPARE(down->groupSize, int64_t(32));
        const LogicalWeight* bias = weightNamed(*v1, "model.layers.0.mlp.down_proj.bias:_data");
        QVERIFY(bias);
        QCOMPARE(bias->format, std::string("f32"));

        const auto v2 = openCheckpoint(dataFile("int8-float8-v2", "model.safetensors"));
        const LogicalWeight* gate = weightNamed(*v2, "model.layers.0.mlp.gate_proj");
        QVERIFY(gate);
        QCOMPARE(gate->format, std::string("torchao-int8"));
        QCOMPARE(gate->params.at("naming"), std::string("_name_data"));
        const LogicalWeight* experts = weightNamed(*v2, "model.layers.0.mlp.experts.gate_up_proj");
        QVERIFY(experts);
        QCOMPARE(experts->shape, (std::vector<uint64_t>{2, 8, 32}));
        QCOMPARE(experts->params.at("block"), std::string("1x1x32"));
        const LogicalWeight* up = weightNamed(*v2, "model.layers.0.mlp.up_proj");
        QVERIFY(up);
        QCOMPARE(up->params.at("block"), std::string("8x32"));
        QVERIFY(weightNamed(*v2, "model.layers.0.mlp.gate_proj.bias"));
    }

    // What is not decoded says why, naming the kind or the tensor; nothing passes as plain integers.
    void namedAndRefused_data()
    {
        QTest::addColumn<QString>("weight");
        QTest::addColumn<QString>("note");
        QTest::addRow("packed") << "model.layers.0.mlp.down_proj"
                                << "torchao Int4TilePackedTo4dTensor (int4 codes tile-packed";
        QTest::addRow("unknown kind") << "model.layers.1.mlp.down_proj"
                                      << "the _type Float8FutureTensor, which is not one of torchao's";
        QTest::addRow("no metadata") << "model.layers.2.mlp.down_proj"
                                     << "'model.layers.2.mlp.down_proj._weight_qdata' looks like the codes of a "
                                        "torchao tensor subclass, but the safetensors header has no torchao metadata";
        QTest::addRow("scale does not tile")
            << "model.layers.3.mlp.down_proj"
            << "torchao Float8Tensor 'model.layers.3.mlp.down_proj.weight' refused: scale "
               "'model.layers.3.mlp.down_proj._weight_scale' [3, 1] does not tile qdata";
        QTest::addRow("block_size disagrees")
            << "model.layers.4.mlp.down_proj"
            << "block_size [1x32] in the metadata, the scale 'model.layers.4.mlp.down_proj._weight_scale' [8, 1] "
               "gives 1x64";
        QTest::addRow("member missing")
            << "model.layers.5.mlp.down_proj"
            << "its metadata lists scale, the file has no 'model.layers.5.mlp.down_proj._weight_scale' member";
    }
    void namedAndRefused()
    {
        QFETCH(QString, weight);
        QFETCH(QString, note);
        const auto ck = openCheckpoint(dataFile("named-v2", "model.safetensors"));
        const LogicalWeight* w = weightNamed(*ck, weight.toStdString());
        QVERIFY(w);
        QCOMPARE(w->format, std::string("torchao"));
        QVERIFY(!dequantFunction(w->format));
        QVERIFY2(noted(*w, note.toUtf8().constData()), notesOf(*w).c_str());
        for (const auto& [role, idx] : w->members)
            QVERIFY(ck->tensors[idx].name.find(role) != std::string_view::npos);
        if (weight == QLatin1String("model.layers.0.mlp.down_proj")) // its metadata's shape attribute
            QCOMPARE(w->shape, (std::vector<uint64_t>{64, 256}));
        // Every tensor of the file belongs to a torchao weight: none is listed as a plain integer.
        for (const LogicalWeight& o : ck->weights)
            QCOMPARE(o.format, std::string("torchao"));
    }
};

QTEST_GUILESS_MAIN(TestTorchao)
#include "tst_torchao.moc"
