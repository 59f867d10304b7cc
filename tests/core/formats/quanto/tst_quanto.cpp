// optimum-quanto (formats/quanto): every reference weight of the seven upstream fixture folders
// (new-formats/quanto-*: the frozen QLinear's own dequantize(), PROVENANCE.md) bit for bit on
// every SIMD path through the normal open/detect/dequant path; detection against
// quanto_qmap.json; a bias giving a grouped weight's [out, in]; integer shifts; every kind,
// scale dtype and row tail on hand-made weights (scalar against the formula, each path against
// the scalar one); bad input.
#include "kernel_testutil.h"
#include "analysis/groupscales.h"
#include "analysis/verify.h"
#include "base/half.h"
#include "formats/codes.h"
#include "formats/dequant.h"
#include "formats/opencheckpoint.h"
#include "formats/quanto/quanto.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace qs;

namespace {

const char* const kModules[] = {"model.layers.0.self_attn.q_proj", "model.layers.0.mlp.gate_proj",
                                "model.layers.0.mlp.down_proj"};

const LogicalWeight* findWeight(const Checkpoint& ck, const std::string& name)
{
    for (const LogicalWeight& w : ck.weights)
        if (w.name == name)
            return &w;
    return nullptr;
}

bool hasNote(const LogicalWeight& w, const std::string& part)
{
    return std::any_of(w.notes.begin(), w.notes.end(),
                       [&](const Message& m) { return m.text().find(part) != std::string::npos; });
}

std::string allNotes(const LogicalWeight& w)
{
    std::string s;
    for (const Message& m : w.notes)
        s += m.text() + "; ";
    return s;
}

std::vector<uint8_t> floatBytes(const std::vector<float>& v, DType t)
{
    return t == DType::F32 ? qsk::bytesOf(v) : qsk::halfBytes(v, t);
}

// The stored values as the file holds them (F16/BF16 rounded), as floats.
std::vector<float> stored(std::vector<float> v, DType t)
{
    for (float& f : v)
        f = roundToDtype(f, t);
    return v;
}

// optimum-quanto's PackedTensor packing of codes q [R, C] (written from the description in
// PROVENANCE.md: byte row i holds rows i, i + P, ... from bit 0 up).
std::vector<uint8_t> packQuanto(const std::vector<unsigned>& q, uint64_t R, uint64_t C, int bits)
{
    const uint64_t parts = 8 / uint64_t(bits), P = (R + parts - 1) / parts;
    std::vector<uint8_t> out(P * C, 0);
    for (uint64_t r = 0; r < R; ++r)
        for (uint64_t c = 0; c < C; ++c)
            out[(r % P) * C + c] |= uint8_t(q[r * C + c] << (uint64_t(bits) * (r / P)));
    return out;
}

std::string qmapJson(const std::vector<std::pair<std::string, std::string>>& modules)
{
    std::string s = "{";
    for (size_t i = 0; i < modules.size(); ++i)
        s += (i ? ", \"" : "\"") + modules[i].first + "\": {\"weights\": \"" + modules[i].second
            + "\", \"activations\": \"none\"}";
    return s + "}";
}

void writeText(const QString& path, const std::string& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
}

// A qint2/qint4 module [R, C] with random codes, scales and shifts in `dt`; its codes and
// (stored) parameters for the expected values.
struct QbitsModule {
    std::vector<unsigned> q;
    std::vector<float> scale, shift;
    std::vector<qsk::T> tensors;
};

QbitsModule qbitsModule(const std::string& prefix, int bits, uint64_t R, uint64_t C, DType dt, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.001f, 0.05f);
    QbitsModule m;
    m.q.resize(R * C);
    for (auto& v : m.q)
        v = unsigned(rng()) & ((1u << bits) - 1);
    for (uint64_t r = 0; r < R; ++r) {
        m.scale.push_back(u(rng));
        m.shift.push_back(u(rng) * 9 - 0.2f);
    }
    m.scale = stored(m.scale, dt);
    m.shift = stored(m.shift, dt);
    m.tensors = {{prefix + ".weight._data._data",
                  DType::U8,
                  {(R + 8 / uint64_t(bits) - 1) / (8 / uint64_t(bits)), C},
                  packQuanto(m.q, R, C, bits)},
                 {prefix + ".weight._scale", dt, {R, 1}, floatBytes(m.scale, dt)},
                 {prefix + ".weight._shift", dt, {R, 1}, floatBytes(m.shift, dt)},
                 {prefix + ".input_scale", dt, {}, floatBytes({1.0f}, dt)},
                 {prefix + ".output_scale", dt, {}, floatBytes({1.0f}, dt)}};
    return m;
}

// scale * q, rounded to dt, minus the shift, rounded to dt: QBitsDequantizer in the model dtype.
std::vector<float> qbitsExpected(const QbitsModule& m, uint64_t C, DType dt)
{
    std::vector<float> out(m.q.size());
    for (size_t e = 0; e < out.size(); ++e)
        out[e] = roundToDtype(roundToDtype(float(m.q[e]) * m.scale[e / C], dt) - m.shift[e / C], dt);
    return out;
}

// Every path's values of w, each compared with the scalar reference bit for bit (NaNs alike).
std::vector<float> agreeingValues(const Checkpoint& ck, const LogicalWeight& w)
{
    const std::vector<float> ref = dequantizeWeight(ck, w, SimdPath::Scalar, 1);
    for (SimdPath path : qsk::simdPaths()) {
        const std::vector<float> got = dequantizeWeight(ck, w, path, 2);
        if (std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)) != 0) {
            QTest::qFail(
                qPrintable(QStringLiteral("%1: the %2 path differs from the scalar one")
                               .arg(QString::fromStdString(w.name), QString::fromLatin1(simdPathName(path).data()))),
                __FILE__, __LINE__);
            return {};
        }
    }
    return ref;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

class TestQuanto : public QObject {
    Q_OBJECT
private slots:
    void upstreamFixtures_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("scaleDtype");
        for (const char* f :
             {"qint2-bf16", "qint2-f32", "qint4-f32", "qint8-bf16", "qint8-f32", "qfloat8-bf16", "qfloat8-f32"}) {
            const QString folder = QString::fromLatin1(f);
            QTest::addRow("%s", f) << QStringLiteral("new-formats/quanto-") + folder
                                   << QStringLiteral("quanto-") + folder.section(QLatin1Char('-'), 0, 0)
                                   << folder.section(QLatin1Char('-'), 1, 1);
        }
    }
    // Each reference weight, read through the folder as a user opens it, on every path.
    void upstreamFixtures()
    {
        QFETCH(QString, folder);
        QFETCH(QString, format);
        const auto ck = openCheckpoint(qstest::fixture(folder).toStdString());
        const auto ref = qsk::openFile(qstest::fixture(folder + QStringLiteral("/ref.safetensors")).toStdString());
        int exact = 0;
        for (const char* module : kModules) {
            const LogicalWeight* w = findWeight(*ck, module);
            QVERIFY2(w, module);
            QCOMPARE(QString::fromStdString(w->format), format);
            QVERIFY2(!hasNote(*w, "quanto_qmap.json"), allNotes(*w).c_str());
            const std::vector<float> want = qsk::floats(*ref, std::string(module) + ".weight");
            const Shape& refShape = ref->find(std::string(module) + ".weight")->shape;
            if (std::string(module).ends_with("down_proj") && w->bits < 8) {
                // Grouped by 128 with no bias: the stored [256, 128] view, noted; the same
                // elements in the same order as upstream's ungrouped [128, 256].
                QVERIFY(w->shape == (Shape{256, 128}));
                QVERIFY2(hasNote(*w, "not in the file"), allNotes(*w).c_str());
            } else {
                // (gate_proj's [172, 64] could be a [4, 2752] grouped by 64: noted, shown as stored.)
                QVERIFY(w->shape == refShape);
            }
            const std::vector<float> got = agreeingValues(*ck, *w);
            if (QTest::currentTestFailed())
                return;
            QVERIFY2(sameBits(got, want), module);
            ++exact;
            VerifyReport rep;
            verifyWeight(*ck, *w, rep);
            for (const VerifyFinding& f : rep.findings)
                QVERIFY2(f.warning, (f.check + ": " + f.message.text()).c_str());
            QVERIFY(std::find(rep.checked.begin(), rep.checked.end(), w->name) != rep.checked.end());
        }
        qInfo("%s: %d of 3 reference weights bit-exact on %zu paths", qPrintable(folder), exact,
              qsk::simdPaths().size());
    }

    // The fixtures' scale grid: one scale (and shift) per view row.
    void fixtureGroupScales()
    {
        const auto ck = openCheckpoint(qstest::fixture(QStringLiteral("new-formats/quanto-qint4-f32")).toStdString());
        const LogicalWeight* w = findWeight(*ck, "model.layers.0.mlp.gate_proj");
        QVERIFY(w);
        const GroupScales g = groupScales(*ck, *w);
        QCOMPARE(g.rows, uint64_t(172));
        QCOMPARE(g.groups, uint64_t(1));
        const std::vector<float> scale = qsk::floats(*ck, "model.layers.0.mlp.gate_proj.weight._scale");
        const std::vector<float> shift = qsk::floats(*ck, "model.layers.0.mlp.gate_proj.weight._shift");
        for (uint64_t n = 0; n < 172; ++n) {
            QCOMPARE(g.scaleAt(0, n), scale[n]);
            QCOMPARE(g.zeroAt(0, n), shift[n]);
        }
    }

    // A bias gives the output rows of a grouped weight: [N, K] with groups of 128 along K.
    void biasGivesTheShape()
    {
        QTemporaryDir tmp;
        const uint64_t N = 8, K = 384, C = 128, R = N * K / C;
        QbitsModule m = qbitsModule("m", 4, R, C, DType::BF16, 3);
        m.tensors.push_back({"m.bias", DType::BF16, {N}, floatBytes(std::vector<float>(N, 0.5f), DType::BF16)});
        const auto ck = openCheckpoint(qsk::write(tmp.path(), "model.safetensors", m.tensors));
        const LogicalWeight* w = findWeight(*ck, "m");
        QVERIFY(w);
        QCOMPARE(w->format, std::string("quanto-qint4"));
        QVERIFY(w->shape == (Shape{N, K}));
        QCOMPARE(w->groupSize, int64_t(C));
        QVERIFY2(w->notes.empty(), allNotes(*w).c_str());
        QVERIFY(findWeight(*ck, "m.bias")); // the bias stays a weight of its own
        const std::vector<float> got = agreeingValues(*ck, *w);
        QVERIFY(sameBits(got, qbitsExpected(m, C, DType::BF16)));
        const GroupScales g = groupScales(*ck, *w);
        QCOMPARE(g.groups, K / C);
        QCOMPARE(g.scaleAt(2, 5), m.scale[5 * 3 + 2]);
        QCOMPARE(g.zeroAt(1, 7), m.shift[7 * 3 + 1]);
        // The codes are where the layout spec's locate() says (tst_family_rows checks every one).
        const WeightCodes c = extractCodes(*ck, *w);
        QCOMPARE(c.groups, K / C);
        QCOMPARE(int(c.codes[5 * K + 200]), int(m.q[5 * K + 200]));
        QCOMPARE(c.biases[1 * N + 7], -m.shift[7 * 3 + 1]);
    }

    // Every kind and scale dtype, rows whose length leaves vector tails, a row count that leaves
    // padding fields: scalar against the formula, each path against the scalar path.
    void handMadeEveryKind()
    {
        QTemporaryDir tmp;
        std::vector<qsk::T> tensors;
        std::vector<std::pair<std::string, std::vector<float>>> expected;
        uint32_t seed = 10;
        for (DType dt : {DType::F32, DType::F16, DType::BF16})
            for (int bits : {2, 4})
                for (uint64_t C : {uint64_t(37), uint64_t(64), uint64_t(96)}) {
                    const uint64_t R = 23; // not a multiple of 2 or 4: padding fields
                    const std::string p =
                        "qb" + std::to_string(bits) + "_" + std::to_string(int(dt)) + "_" + std::to_string(C);
                    QbitsModule m = qbitsModule(p, bits, R, C, dt, ++seed);
                    tensors.insert(tensors.end(), m.tensors.begin(), m.tensors.end());
                    expected.emplace_back(p, qbitsExpected(m, C, dt));
                }
        std::mt19937 rng(77);
        for (DType dt : {DType::F32, DType::F16, DType::BF16})
            for (DType data : {DType::I8, DType::F8_E4M3, DType::F8_E5M2, DType::F8_E4M3FNUZ}) {
                const uint64_t N = 19, K = 53;
                std::vector<uint8_t> d(N * K);
                for (auto& b : d)
                    b = uint8_t(rng());
                std::vector<float> scale;
                for (uint64_t n = 0; n < N; ++n)
                    scale.push_back(float(n + 1) * 0.0123f);
                scale = stored(scale, dt);
                const std::string p = "qy" + std::to_string(int(dt)) + "_" + std::to_string(int(data));
                tensors.push_back({p + ".weight._data", data, {N, K}, d});
                tensors.push_back({p + ".weight._scale", dt, {N, 1}, floatBytes(scale, dt)});
                std::vector<float> want(N * K);
                for (uint64_t e = 0; e < N * K; ++e) {
                    const float v = data == DType::I8 ? float(int8_t(d[e]))
                        : data == DType::F8_E5M2      ? f8e5m2ToF32(d[e])
                        : data == DType::F8_E4M3FNUZ  ? f8e4m3fnuzToF32(d[e])
                                                      : f8e4m3ToF32(d[e]);
                    want[e] = roundToDtype(v * scale[e / K], dt);
                }
                expected.emplace_back(p, want);
            }
        const auto ck = openCheckpoint(qsk::write(tmp.path(), "model.safetensors", tensors));
        for (const auto& [name, want] : expected) {
            const LogicalWeight* w = findWeight(*ck, name);
            QVERIFY2(w, name.c_str());
            QVERIFY2(canDequantize(w->format), (name + ": " + w->format + " " + allNotes(*w)).c_str());
            const std::vector<float> got = agreeingValues(*ck, *w);
            if (QTest::currentTestFailed())
                return;
            // NaN codes compare by class: the payload is the decoder's.
            bool same = got.size() == want.size();
            for (size_t i = 0; same && i < got.size(); ++i)
                same = std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want[i])
                    || (std::isnan(got[i]) && std::isnan(want[i]));
            QVERIFY2(same, name.c_str());
            VerifyReport rep;
            verifyWeight(*ck, *w, rep);
            for (const VerifyFinding& f : rep.findings)
                QVERIFY2(f.warning || f.check.starts_with("nonfinite"),
                         (name + " " + f.check + ": " + f.message.text()).c_str());
        }
    }

    // quantize_weight(zeropoint=True) stores the shift as uint8: (q - shift) in int8, then scale.
    void integerShift()
    {
        QTemporaryDir tmp;
        const uint64_t R = 6, C = 40;
        QbitsModule m = qbitsModule("z", 4, R, C, DType::BF16, 5);
        std::vector<uint8_t> zp(R);
        for (uint64_t r = 0; r < R; ++r)
            zp[r] = uint8_t(3 * r % 16);
        m.tensors[2] = {"z.weight._shift", DType::U8, {R, 1}, zp};
        const auto ck = openCheckpoint(qsk::write(tmp.path(), "model.safetensors", m.tensors));
        const LogicalWeight* w = findWeight(*ck, "z");
        QVERIFY(w);
        std::vector<float> want(R * C);
        for (uint64_t e = 0; e < R * C; ++e)
            want[e] = roundToDtype(float(int(m.q[e]) - int(zp[e / C])) * m.scale[e / C], DType::BF16);
        QVERIFY(sameBits(agreeingValues(*ck, *w), want));
        const WeightCodes c = extractCodes(*ck, *w);
        QCOMPARE(c.zeros[4], int32_t(zp[4]));
        QVERIFY(c.biases.empty());
    }

    // quanto_qmap.json against the tensors: a disagreement, a module it lacks, modules it names
    // that hold no tensor, a module it keeps float.
    void qmapCrossCheck()
    {
        QTemporaryDir tmp;
        std::vector<qsk::T> t = qbitsModule("a", 4, 16, 64, DType::F32, 1).tensors;
        const auto b = qbitsModule("b", 2, 16, 64, DType::F32, 2).tensors;
        t.insert(t.end(), b.begin(), b.end());
        t.push_back({"c.weight", DType::F32, {4, 4}, qsk::bytesOf(std::vector<float>(16, 1.0f))});
        qsk::write(tmp.path(), "model.safetensors", t);
        writeText(tmp.filePath(QStringLiteral("quanto_qmap.json")),
                  qmapJson({{"a", "qint8"}, {"c", "none"}, {"gone.one", "qint4"}, {"gone.two", "qint4"}}));
        const auto ck = openCheckpoint(tmp.path().toStdString());
        const LogicalWeight* a = findWeight(*ck, "a");
        const LogicalWeight* bw = findWeight(*ck, "b");
        QVERIFY(a && bw);
        QCOMPARE(a->format, std::string("quanto-qint4")); // the tensors decide
        QVERIFY2(hasNote(*a, "quanto_qmap.json says qint8, the tensors hold quanto-qint4"), allNotes(*a).c_str());
        QVERIFY2(hasNote(*a, "names 2 modules that have no tensors here: gone.one, gone.two"), allNotes(*a).c_str());
        QVERIFY2(hasNote(*bw, "quanto_qmap.json has no entry for this module"), allNotes(*bw).c_str());
        QVERIFY2(!hasNote(*bw, "no tensors here"), allNotes(*bw).c_str()); // said once
        QCOMPARE(bw->format, std::string("quanto-qint2"));
        // Without the qmap: no notes about it, the same formats.
        QVERIFY(QFile::remove(tmp.filePath(QStringLiteral("quanto_qmap.json"))));
        const auto bare = openCheckpoint(tmp.path().toStdString());
        QVERIFY2(findWeight(*bare, "a")->notes.empty(), allNotes(*findWeight(*bare, "a")).c_str());
        QCOMPARE(findWeight(*bare, "b")->format, std::string("quanto-qint2"));
    }

    // Bad input: a clear note or error naming the weight or tensor, never a crash.
    void badInput()
    {
        QTemporaryDir tmp;
        std::vector<qsk::T> t;
        // Packed rows that fit neither width for the 16 scales.
        auto rows = qbitsModule("rows", 4, 16, 64, DType::F32, 1).tensors;
        rows[0] = {"rows.weight._data._data", DType::U8, {3, 64}, std::vector<uint8_t>(3 * 64)};
        // qint8 with one scale too many; a NaN scale; an int32 data tensor; a missing shift.
        t.push_back({"scales.weight._data", DType::I8, {4, 8}, std::vector<uint8_t>(32, 1)});
        t.push_back({"scales.weight._scale", DType::F32, {5, 1}, qsk::bytesOf(std::vector<float>(5, 0.5f))});
        std::vector<float> nanScale(4, 0.25f);
        nanScale[2] = std::numeric_limits<float>::quiet_NaN();
        t.push_back({"nan.weight._data", DType::F8_E4M3, {4, 8}, std::vector<uint8_t>(32, 0x38)});
        t.push_back({"nan.weight._scale", DType::F32, {4, 1}, qsk::bytesOf(nanScale)});
        t.push_back({"i32.weight._data", DType::I32, {4, 8}, std::vector<uint8_t>(128)});
        t.push_back({"i32.weight._scale", DType::F32, {4, 1}, qsk::bytesOf(std::vector<float>(4, 0.5f))});
        auto noShift = qbitsModule("noshift", 2, 8, 32, DType::F32, 4).tensors;
        noShift.erase(noShift.begin() + 2);
        // Nonzero padding fields: 5 rows of 4-bit codes leave the last byte row's high nibble.
        auto pad = qbitsModule("pad", 4, 5, 16, DType::F32, 6);
        pad.tensors[0].data[2 * 16 + 3] |= 0x70;
        t.insert(t.end(), rows.begin(), rows.end());
        t.insert(t.end(), noShift.begin(), noShift.end());
        t.insert(t.end(), pad.tensors.begin(), pad.tensors.end());
        const auto ck = openCheckpoint(qsk::write(tmp.path(), "model.safetensors", t));

        const LogicalWeight* r = findWeight(*ck, "rows");
        QVERIFY(r);
        QCOMPARE(r->format, std::string("unknown"));
        QVERIFY2(hasNote(*r, "does not pack the 16 scales in 2 or 4 bits"), allNotes(*r).c_str());

        const LogicalWeight* i32 = findWeight(*ck, "i32");
        QVERIFY(i32);
        QCOMPARE(i32->format, std::string("unknown"));
        QVERIFY2(hasNote(*i32, "weight._data is I32: not a quanto data dtype"), allNotes(*i32).c_str());

        const auto failsNaming = [&](const char* name, const char* what) {
            const LogicalWeight* w = findWeight(*ck, name);
            QVERIFY2(w, name);
            try {
                dequantizeWeight(*ck, *w, SimdPath::Scalar, 1);
                QFAIL(qPrintable(QStringLiteral("%1 dequantized").arg(QLatin1String(name))));
            } catch (const Error& e) {
                const std::string msg = e.what();
                QVERIFY2(msg.find(name) != std::string::npos && msg.find(what) != std::string::npos, e.what());
            }
            VerifyReport rep;
            verifyWeight(*ck, *w, rep);
            QVERIFY2(std::any_of(rep.findings.begin(), rep.findings.end(),
                                 [&](const VerifyFinding& f) { return f.check == "shape" && !f.warning; }),
                     name);
        };
        failsNaming("scales", "scales.weight._scale' holds 5 scales");
        failsNaming("noshift", "weight._shift");

        // A NaN scale: NaNs in its row (as upstream computes), and verify names weight._scale.
        const LogicalWeight* n = findWeight(*ck, "nan");
        QVERIFY(n);
        const std::vector<float> v = agreeingValues(*ck, *n);
        QVERIFY(std::isnan(v[2 * 8 + 3]) && v[0] == 0.25f);
        VerifyReport rep;
        verifyWeight(*ck, *n, rep);
        QVERIFY(std::any_of(rep.findings.begin(), rep.findings.end(), [](const VerifyFinding& f) {
            return !f.warning
                && f.message.text().find("1 of 4 weight._scale values are NaN or Inf") != std::string::npos;
        }));

        const LogicalWeight* p = findWeight(*ck, "pad");
        QVERIFY(p);
        VerifyReport padRep;
        verifyWeight(*ck, *p, padRep);
        QVERIFY(std::any_of(padRep.findings.begin(), padRep.findings.end(), [](const VerifyFinding& f) {
            return f.check == "padding" && f.message.text().find("1 packed fields past the last of the 5 rows") == 0;
        }));
    }
};

QTEST_GUILESS_MAIN(TestQuanto)
#include "tst_quanto.moc"
