// GGUF container: the ggml type table, the fixtures, round trips (v1..v3, every value type,
// nested arrays, split sets) and every kind of bad input, each error naming file and field.
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "base/error.h"
#include "testsupport.h"
#include "formats/dequant.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

using qs::MetaValue;
using Type = MetaValue::Type;

namespace {

std::string tmpPath(const QTemporaryDir& dir, const char* name)
{
    return (dir.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& b)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Hand-made GGUF bytes, so that tests can write what no correct writer would.
struct Bytes {
    std::vector<uint8_t> b;
    bool v1 = false;
    template <class T>
    Bytes& put(T v)
    {
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        b.insert(b.end(), p, p + sizeof(T));
        return *this;
    }
    Bytes& count(uint64_t n) { return v1 ? put<uint32_t>(static_cast<uint32_t>(n)) : put<uint64_t>(n); }
    Bytes& str(std::string_view s)
    {
        count(s.size());
        b.insert(b.end(), s.begin(), s.end());
        return *this;
    }
    Bytes& header(uint32_t version, uint64_t tensors, uint64_t kvs)
    {
        v1 = version == 1;
        b.insert(b.end(), {'G', 'G', 'U', 'F'});
        put<uint32_t>(version);
        return count(tensors).count(kvs);
    }
    Bytes& kvU32(std::string_view key, uint32_t v) { return str(key).put<uint32_t>(4).put<uint32_t>(v); }
    Bytes& kvStr(std::string_view key, std::string_view v) { return str(key).put<uint32_t>(8).str(v); }
    Bytes& info(std::string_view name, std::vector<uint64_t> ne, uint32_t type, uint64_t offset)
    {
        str(name).put<uint32_t>(static_cast<uint32_t>(ne.size()));
        for (uint64_t d : ne)
            count(d);
        return put<uint32_t>(type).put<uint64_t>(offset);
    }
    Bytes& pad(size_t alignment = 32)
    {
        b.resize((b.size() + alignment - 1) / alignment * alignment, 0);
        return *this;
    }
    Bytes& data(size_t n, uint8_t value = 0xAB)
    {
        b.insert(b.end(), n, value);
        return *this;
    }
};

MetaValue mv(Type t, uint64_t v)
{
    MetaValue m;
    m.type = t;
    m.value = v;
    return m;
}
MetaValue mi(Type t, int64_t v)
{
    MetaValue m;
    m.type = t;
    m.value = v;
    return m;
}
MetaValue mf(Type t, double v)
{
    MetaValue m;
    m.type = t;
    m.value = v;
    return m;
}
MetaValue mb(bool v)
{
    MetaValue m;
    m.type = Type::Bool;
    m.value = v;
    return m;
}
MetaValue ms(std::string v)
{
    MetaValue m;
    m.type = Type::String;
    m.value = std::move(v);
    return m;
}
MetaValue ma(Type elem, std::vector<MetaValue> items)
{
    MetaValue m;
    m.type = Type::Array;
    m.arrayType = elem;
    m.value = std::move(items);
    return m;
}

bool sameValue(const MetaValue& a, const MetaValue& b)
{
    if (a.type != b.type || a.value.index() != b.value.index())
        return false;
    return std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            const T& y = std::get<T>(b.value);
            if constexpr (std::is_same_v<T, std::vector<MetaValue>>) {
                if (a.arrayType != b.arrayType || x.size() != y.size())
                    return false;
                for (size_t i = 0; i < x.size(); ++i)
                    if (!sameValue(x[i], y[i]))
                        return false;
                return true;
            } else {
                return x == y;
            }
        },
        a.value);
}

// Every value type, nested arrays and empty arrays.
qs::GgufMetadata everyValueType(uint32_t alignment)
{
    qs::GgufMetadata m{
        {"general.architecture", ms("llama")},
        {"t.u8", mv(Type::U8, 255)},
        {"t.i8", mi(Type::I8, -128)},
        {"t.u16", mv(Type::U16, 65535)},
        {"t.i16", mi(Type::I16, -32768)},
        {"t.u32", mv(Type::U32, 4000000000u)},
        {"t.i32", mi(Type::I32, -2000000000)},
        {"t.f32", mf(Type::F32, -1.5)},
        {"t.bool", mb(true)},
        {"t.bool_false", mb(false)},
        {"t.string", ms("grüße, \"quoted\"\n")},
        {"t.empty_string", ms("")},
        {"t.u64", mv(Type::U64, ~uint64_t(0))},
        {"t.i64", mi(Type::I64, INT64_MIN)},
        {"t.f64", mf(Type::F64, 3.141592653589793)},
        {"t.tokens", ma(Type::String, {ms("<s>"), ms("</s>"), ms(""), ms("▁the")})},
        {"t.scores", ma(Type::F32, {mf(Type::F32, 0.25), mf(Type::F32, -1e-3f)})},
        {"t.types", ma(Type::I32, {mi(Type::I32, 1), mi(Type::I32, -3)})},
        {"t.empty", ma(Type::U8, {})},
        {"t.nested",
         ma(Type::Array,
            {ma(Type::U16, {mv(Type::U16, 1), mv(Type::U16, 2)}), ma(Type::String, {ms("a")}),
             ma(Type::Array, {ma(Type::Bool, {mb(true), mb(false)})})})},
    };
    if (alignment)
        m.emplace_back("general.alignment", mv(Type::U32, alignment));
    return m;
}

struct OwnedTensor {
    std::string name;
    int type;
    std::vector<uint64_t> ne;
    std::vector<uint8_t> data;
};

std::vector<OwnedTensor> sampleTensors()
{
    auto fill = [](size_t n, uint8_t seed) {
        std::vector<uint8_t> d(n);
        for (size_t i = 0; i < n; ++i)
            d[i] = static_cast<uint8_t>(seed + i * 31);
        return d;
    };
    return {
        {"token_embd.weight", 12, {256, 3}, fill(144 * 3, 1)}, // Q4_K
        {"blk.0.attn_norm.weight", 0, {7}, fill(28, 2)}, // F32, odd size: padding
        {"blk.0.attn_q.weight", 8, {64, 2, 3}, fill(34 * 2 * 6, 3)}, // Q8_0, 3-D
        {"blk.0.ffn_up.weight", 24, {5, 1, 1, 2}, fill(10, 4)}, // I8, 4-D
        {"empty", 1, {0, 4}, {}}, // F16 with no elements
        {"output.weight", 42, {128, 2}, fill(36 * 2, 5)}, // Q2_0
    };
}

std::vector<qs::GgufTensor> views(const std::vector<OwnedTensor>& ts)
{
    std::vector<qs::GgufTensor> out;
    for (const auto& t : ts)
        out.push_back({t.name, t.type, t.ne, t.data});
    return out;
}

// Reads `path`; expects a qs::Error whose message names the file and contains each of `parts`.
void expectError(const std::string& path, const QStringList& parts, std::string fileInMessage = {})
{
    if (fileInMessage.empty())
        fileInMessage = path;
    try {
        qs::Checkpoint ckpt;
        qs::readGguf(ckpt, path);
    } catch (const qs::Error& e) {
        const QString msg = QString::fromUtf8(e.what());
        if (!msg.startsWith(QString::fromStdString(fileInMessage) + QStringLiteral(": ")))
            QFAIL(qPrintable(QStringLiteral("message does not start with the file: ") + msg));
        for (const auto& p : parts)
            if (!msg.contains(p))
                QFAIL(qPrintable(QStringLiteral("message lacks '%1': %2").arg(p, msg)));
        return;
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QStringLiteral("wrong exception type: ") + QString::fromUtf8(e.what())));
    }
    QFAIL("no error");
}

long peakRssKiB()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

} // namespace

class TestGguf : public QObject {
    Q_OBJECT
private slots:
    void typeTable_data()
    {
        QTest::addColumn<int>("id");
        QTest::addColumn<QString>("name");
        QTest::addColumn<uint>("weights");
        QTest::addColumn<uint>("bytes");
        QTest::addColumn<bool>("removed");
        // Spec 2.1, transcribed.
        const struct {
            int id;
            const char* name;
            uint w, b;
            bool removed;
        } rows[] = {
            {0, "F32", 1, 4, false},         {1, "F16", 1, 2, false},         {2, "Q4_0", 32, 18, false},
            {3, "Q4_1", 32, 20, false},      {4, "Q4_2", 0, 0, true},         {5, "Q4_3", 0, 0, true},
            {6, "Q5_0", 32, 22, false},      {7, "Q5_1", 32, 24, false},      {8, "Q8_0", 32, 34, false},
            {9, "Q8_1", 32, 36, false},      {10, "Q2_K", 256, 84, false},    {11, "Q3_K", 256, 110, false},
            {12, "Q4_K", 256, 144, false},   {13, "Q5_K", 256, 176, false},   {14, "Q6_K", 256, 210, false},
            {15, "Q8_K", 256, 292, false},   {16, "IQ2_XXS", 256, 66, false}, {17, "IQ2_XS", 256, 74, false},
            {18, "IQ3_XXS", 256, 98, false}, {19, "IQ1_S", 256, 50, false},   {20, "IQ4_NL", 32, 18, false},
            {21, "IQ3_S", 256, 110, false},  {22, "IQ2_S", 256, 82, false},   {23, "IQ4_XS", 256, 136, false},
            {24, "I8", 1, 1, false},         {25, "I16", 1, 2, false},        {26, "I32", 1, 4, false},
            {27, "I64", 1, 8, false},        {28, "F64", 1, 8, false},        {29, "IQ1_M", 256, 56, false},
            {30, "BF16", 1, 2, false},       {31, "Q4_0_4_4", 0, 0, true},    {32, "Q4_0_4_8", 0, 0, true},
            {33, "Q4_0_8_8", 0, 0, true},    {34, "TQ1_0", 256, 54, false},   {35, "TQ2_0", 256, 66, false},
            {36, "IQ4_NL_4_4", 0, 0, true},  {37, "IQ4_NL_4_8", 0, 0, true},  {38, "IQ4_NL_8_8", 0, 0, true},
            {39, "MXFP4", 32, 17, false},    {40, "NVFP4", 64, 36, false},    {41, "Q1_0", 128, 18, false},
            {42, "Q2_0", 64, 18, false},
        };
        for (const auto& r : rows)
            QTest::addRow("%d_%s", r.id, r.name) << r.id << QString::fromLatin1(r.name) << r.w << r.b << r.removed;
    }
    void typeTable()
    {
        QFETCH(int, id);
        QFETCH(QString, name);
        QFETCH(uint, weights);
        QFETCH(uint, bytes);
        QFETCH(bool, removed);
        const qs::GgmlTypeInfo* t = qs::ggmlType(id);
        QVERIFY(t);
        QCOMPARE(t->id, id);
        QCOMPARE(QString::fromLatin1(t->name.data(), qsizetype(t->name.size())), name);
        QCOMPARE(t->blockWeights, weights);
        QCOMPARE(t->blockBytes, bytes);
        QCOMPARE(t->removed, removed);
        QCOMPARE(t->hasSize(), !removed);
        QCOMPARE(qs::ggmlTypeByName(name.toLower().toStdString()), t);
        QCOMPARE(qs::ggmlTypeByName(name.toStdString()), t);
        QCOMPARE(QString::fromStdString(qs::ggmlTypeName(id)), name);
        QCOMPARE(qs::ggmlTypes()[size_t(id)].id, id);
    }
    void typeTableEdges()
    {
        QCOMPARE(qs::ggmlTypes().size(), size_t(43));
        QVERIFY(!qs::ggmlType(43));
        QVERIFY(!qs::ggmlType(-1));
        QVERIFY(!qs::ggmlTypeByName("q4_k_m"));
        QCOMPARE(qs::ggmlTypeName(99), std::string("unknown(99)"));
        QVERIFY(!qs::ggmlType(9)->storage);
        QVERIFY(!qs::ggmlType(15)->storage);
        QVERIFY(qs::ggmlType(12)->storage);
        QCOMPARE(qs::ggmlType(12)->rowBytes(4096), uint64_t(16 * 144));
    }

    void fileTypeNames_data()
    {
        QTest::addColumn<uint>("value");
        QTest::addColumn<QString>("name");
        QTest::addRow("0") << 0u << "ALL_F32";
        QTest::addRow("1") << 1u << "MOSTLY_F16";
        QTest::addRow("2") << 2u << "MOSTLY_Q4_0";
        QTest::addRow("4") << 4u << "MOSTLY_Q4_1_SOME_F16";
        QTest::addRow("5") << 5u << "MOSTLY_Q4_2";
        QTest::addRow("7") << 7u << "MOSTLY_Q8_0";
        QTest::addRow("10") << 10u << "MOSTLY_Q2_K";
        QTest::addRow("13") << 13u << "MOSTLY_Q3_K_L";
        QTest::addRow("15") << 15u << "MOSTLY_Q4_K_M";
        QTest::addRow("18") << 18u << "MOSTLY_Q6_K";
        QTest::addRow("21") << 21u << "MOSTLY_Q2_K_S";
        QTest::addRow("22") << 22u << "MOSTLY_IQ3_XS";
        QTest::addRow("29") << 29u << "MOSTLY_IQ2_M";
        QTest::addRow("31") << 31u << "MOSTLY_IQ1_M";
        QTest::addRow("32") << 32u << "MOSTLY_BF16";
        QTest::addRow("35") << 35u << "MOSTLY_Q4_0_8_8";
        QTest::addRow("36") << 36u << "MOSTLY_TQ1_0";
        QTest::addRow("38") << 38u << "MOSTLY_MXFP4_MOE";
        QTest::addRow("39") << 39u << "MOSTLY_NVFP4";
        QTest::addRow("40") << 40u << "MOSTLY_Q1_0";
        QTest::addRow("41") << 41u << "MOSTLY_Q2_0";
        QTest::addRow("42") << 42u << "unknown(42)";
        QTest::addRow("guessed") << (1024u | 15u) << "MOSTLY_Q4_K_M|GUESSED";
        QTest::addRow("huge") << 4000000000u << "unknown(4000000000)";
    }
    void fileTypeNames()
    {
        QFETCH(uint, value);
        QFETCH(QString, name);
        QCOMPARE(QString::fromStdString(qs::llamaFileTypeName(value)), name);
    }

    void fixtureTensors_data()
    {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<QString>("type");
        QTest::addColumn<qulonglong>("ne0");
        QTest::addColumn<qulonglong>("ne1");
        QTest::addColumn<qulonglong>("bytes");
        // fixtures/PROVENANCE.md, table of gguf/ggml-types.gguf.
        auto row = [](const char* t, const char* type, qulonglong ne0, qulonglong ne1, qulonglong bytes) {
            QTest::newRow(t) << QString::fromLatin1(t) << QString::fromLatin1(type) << ne0 << ne1 << bytes;
        };
        row("synthetic.q4_0", "Q4_0", 256, 34, 4896);
        row("synthetic4096.q4_0", "Q4_0", 4096, 2, 4608);
        row("real.q4_0", "Q4_0", 64, 256, 9216);
        row("synthetic.q4_1", "Q4_1", 256, 34, 5440);
        row("synthetic4096.q4_1", "Q4_1", 4096, 2, 5120);
        row("real.q4_1", "Q4_1", 64, 256, 10240);
        row("synthetic.q5_0", "Q5_0", 256, 34, 5984);
        row("synthetic4096.q5_0", "Q5_0", 4096, 2, 5632);
        row("real.q5_0", "Q5_0", 64, 256, 11264);
        row("synthetic.q5_1", "Q5_1", 256, 34, 6528);
        row("synthetic4096.q5_1", "Q5_1", 4096, 2, 6144);
        row("real.q5_1", "Q5_1", 64, 256, 12288);
        row("synthetic.q8_0", "Q8_0", 256, 34, 9248);
        row("synthetic4096.q8_0", "Q8_0", 4096, 2, 8704);
        row("real.q8_0", "Q8_0", 64, 256, 17408);
        row("synthetic.q2_k", "Q2_K", 256, 34, 2856);
        row("synthetic4096.q2_k", "Q2_K", 4096, 2, 2688);
        row("real.q2_k", "Q2_K", 256, 64, 5376);
        row("synthetic.q3_k", "Q3_K", 256, 34, 3740);
        row("synthetic4096.q3_k", "Q3_K", 4096, 2, 3520);
        row("real.q3_k", "Q3_K", 256, 64, 7040);
        row("synthetic.q4_k", "Q4_K", 256, 34, 4896);
        row("synthetic4096.q4_k", "Q4_K", 4096, 2, 4608);
        row("real.q4_k", "Q4_K", 256, 64, 9216);
        row("synthetic.q5_k", "Q5_K", 256, 34, 5984);
        row("synthetic4096.q5_k", "Q5_K", 4096, 2, 5632);
        row("real.q5_k", "Q5_K", 256, 64, 11264);
        row("synthetic.q6_k", "Q6_K", 256, 34, 7140);
        row("synthetic4096.q6_k", "Q6_K", 4096, 2, 6720);
        row("real.q6_k", "Q6_K", 256, 64, 13440);
        row("synthetic.iq4_nl", "IQ4_NL", 256, 34, 4896);
        row("synthetic4096.iq4_nl", "IQ4_NL", 4096, 2, 4608);
        row("real.iq4_nl", "IQ4_NL", 64, 256, 9216);
        row("synthetic.iq4_xs", "IQ4_XS", 256, 34, 4624);
        row("synthetic4096.iq4_xs", "IQ4_XS", 4096, 2, 4352);
        row("real.iq4_xs", "IQ4_XS", 256, 64, 8704);
        row("synthetic.iq2_xxs", "IQ2_XXS", 256, 34, 2244);
        row("synthetic4096.iq2_xxs", "IQ2_XXS", 4096, 2, 2112);
        row("real.iq2_xxs", "IQ2_XXS", 256, 64, 4224);
        row("synthetic.iq2_xs", "IQ2_XS", 256, 34, 2516);
        row("synthetic4096.iq2_xs", "IQ2_XS", 4096, 2, 2368);
        row("real.iq2_xs", "IQ2_XS", 256, 64, 4736);
        row("synthetic.iq2_s", "IQ2_S", 256, 34, 2788);
        row("synthetic4096.iq2_s", "IQ2_S", 4096, 2, 2624);
        row("real.iq2_s", "IQ2_S", 256, 64, 5248);
        row("synthetic.iq3_xxs", "IQ3_XXS", 256, 34, 3332);
        row("synthetic4096.iq3_xxs", "IQ3_XXS", 4096, 2, 3136);
        row("real.iq3_xxs", "IQ3_XXS", 256, 64, 6272);
        row("synthetic.iq3_s", "IQ3_S", 256, 34, 3740);
        row("synthetic4096.iq3_s", "IQ3_S", 4096, 2, 3520);
        row("real.iq3_s", "IQ3_S", 256, 64, 7040);
        row("synthetic.iq1_s", "IQ1_S", 256, 34, 1700);
        row("synthetic4096.iq1_s", "IQ1_S", 4096, 2, 1600);
        row("real.iq1_s", "IQ1_S", 256, 64, 3200);
        row("synthetic.iq1_m", "IQ1_M", 256, 34, 1904);
        row("synthetic4096.iq1_m", "IQ1_M", 4096, 2, 1792);
        row("real.iq1_m", "IQ1_M", 256, 64, 3584);
        row("synthetic.tq1_0", "TQ1_0", 256, 34, 1836);
        row("synthetic4096.tq1_0", "TQ1_0", 4096, 2, 1728);
        row("real.tq1_0", "TQ1_0", 256, 64, 3456);
        row("synthetic.tq2_0", "TQ2_0", 256, 34, 2244);
        row("synthetic4096.tq2_0", "TQ2_0", 4096, 2, 2112);
        row("real.tq2_0", "TQ2_0", 256, 64, 4224);
        row("synthetic.bf16", "BF16", 256, 34, 17408);
        row("synthetic4096.bf16", "BF16", 4096, 2, 16384);
        row("real.bf16", "BF16", 64, 256, 32768);
        row("synthetic.f16", "F16", 256, 34, 17408);
        row("synthetic4096.f16", "F16", 4096, 2, 16384);
        row("real.f16", "F16", 64, 256, 32768);
        row("synthetic.f32", "F32", 256, 34, 34816);
        row("synthetic4096.f32", "F32", 4096, 2, 32768);
        row("real.f32", "F32", 64, 256, 65536);
    }
    void fixtureTensors()
    {
        QFETCH(QString, tensor);
        QFETCH(QString, type);
        QFETCH(qulonglong, ne0);
        QFETCH(qulonglong, ne1);
        QFETCH(qulonglong, bytes);
        qs::Checkpoint ckpt;
        qs::readGguf(ckpt, qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
        ckpt.buildIndex();
        const qs::TensorEntry* t = ckpt.find(tensor.toStdString());
        QVERIFY(t);
        QCOMPARE(QString::fromStdString(std::string(t->typeName)), type);
        QCOMPARE(t->ggmlType, qs::ggmlTypeByName(type.toStdString())->id);
        QCOMPARE(t->dtype, qs::DType::Ggml);
        QVERIFY(t->known);
        QVERIFY(t->note.empty());
        QCOMPARE(t->shape, (std::vector<uint64_t>{ne1, ne0}));
        QCOMPARE(t->nbytes, uint64_t(bytes));
        QCOMPARE(t->offset % 32, uint64_t(0));
        QCOMPARE(ckpt.bytes(*t).size(), size_t(bytes));

        // The reference file holds the same name as F32, ne0 * ne1 floats.
        qs::Checkpoint ref;
        qs::readGguf(ref, qstest::fixture(QStringLiteral("gguf/ggml-types.ref.gguf")).toStdString());
        ref.buildIndex();
        const qs::TensorEntry* r = ref.find(tensor.toStdString());
        QVERIFY(r);
        QCOMPARE(r->typeName, std::string("F32"));
        QCOMPARE(r->shape, t->shape);
        QCOMPARE(r->nbytes, uint64_t(ne0 * ne1 * 4));
    }
    void fixtureContainer()
    {
        const std::string path = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString();
        const auto ckpt = qs::openCheckpoint(path);
        QCOMPARE(ckpt->container, qs::Container::Gguf);
        QCOMPARE(ckpt->ggufVersion, 3);
        QCOMPARE(ckpt->ggufAlignment, uint64_t(32));
        QCOMPARE(ckpt->files, std::vector<std::string>{path});
        QCOMPARE(ckpt->tensors.size(), size_t(72));
        QVERIFY(ckpt->notes.empty());
        QCOMPARE(ckpt->metadata.size(), size_t(4));
        QCOMPARE(ckpt->metadata[0].first, std::string("general.architecture"));
        QCOMPARE(ckpt->meta("general.architecture")->type, Type::String);
        QCOMPARE(std::get<std::string>(ckpt->meta("general.architecture")->value), std::string("fixture"));
        QCOMPARE(std::get<std::string>(ckpt->meta("general.name")->value),
                 std::string("ggml quantization type fixtures"));
        QVERIFY(!ckpt->meta("general.alignment"));
        // Tensor-info order is file order; data packed in that order.
        QCOMPARE(ckpt->tensors.front().name, std::string("synthetic.q4_0"));
        QCOMPARE(ckpt->tensors.back().name, std::string("real.f32"));
        QCOMPARE(ckpt->tensors.front().offset, uint64_t(4256)); // pad(4248)
        QCOMPARE(ckpt->tensors.back().offset, uint64_t(4256 + 539488));

        qs::Checkpoint ref;
        qs::readGguf(ref, qstest::fixture(QStringLiteral("gguf/ggml-types.ref.gguf")).toStdString());
        ref.buildIndex();
        QCOMPARE(ref.tensors.size(), size_t(76));
        const struct {
            const char* name;
            uint64_t ne0, ne1;
        } sources[] = {{"source.synthetic", 256, 34},
                       {"source.synthetic4096", 4096, 2},
                       {"source.real", 64, 256},
                       {"source.real_256", 256, 64}};
        for (const auto& s : sources) {
            const qs::TensorEntry* t = ref.find(s.name);
            QVERIFY(t);
            QCOMPARE(t->shape, (std::vector<uint64_t>{s.ne1, s.ne0}));
            QCOMPARE(t->nbytes, s.ne0 * s.ne1 * 4);
        }
    }
    // Our writer lays a file out exactly as gguf-py's writer did.
    void fixtureRewriteIsByteIdentical()
    {
        const std::string src = qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString();
        qs::Checkpoint ckpt;
        qs::readGguf(ckpt, src);
        std::vector<qs::GgufTensor> tensors;
        for (const auto& t : ckpt.tensors) {
            std::vector<uint64_t> ne(t.shape.rbegin(), t.shape.rend());
            tensors.push_back({std::string(t.name), t.ggmlType, ne, ckpt.bytes(t)});
        }
        QTemporaryDir dir;
        const std::string out = tmpPath(dir, "copy.gguf");
        qs::writeGguf(out, ckpt.metadata, tensors);
        const qs::MappedFile a(src), b(out);
        QCOMPARE(b.size(), a.size());
        QVERIFY(std::memcmp(a.bytes().data(), b.bytes().data(), a.size()) == 0);
    }

    void roundTrip_data()
    {
        QTest::addColumn<uint>("version");
        QTest::addColumn<uint>("alignment");
        for (uint v : {1u, 2u, 3u})
            for (uint a : {0u, 32u, 64u, 8u})
                QTest::addRow("v%u_align%u", v, a) << v << a;
    }
    void roundTrip()
    {
        QFETCH(uint, version);
        QFETCH(uint, alignment);
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "rt.gguf");
        const auto meta = everyValueType(alignment);
        const auto owned = sampleTensors();
        qs::writeGguf(path, meta, views(owned), version);
        QVERIFY(!std::filesystem::exists(path + ".tmp-" + std::to_string(::getpid())));

        qs::Checkpoint ckpt;
        qs::readGguf(ckpt, path);
        ckpt.buildIndex();
        const uint64_t align = alignment ? alignment : 32;
        QCOMPARE(ckpt.container, qs::Container::Gguf);
        QCOMPARE(ckpt.ggufVersion, int(version));
        QCOMPARE(ckpt.ggufAlignment, align);
        QVERIFY(ckpt.notes.empty());
        QCOMPARE(ckpt.metadata.size(), meta.size());
        for (size_t i = 0; i < meta.size(); ++i) {
            QCOMPARE(ckpt.metadata[i].first, meta[i].first);
            QVERIFY2(sameValue(ckpt.metadata[i].second, meta[i].second), meta[i].first.c_str());
        }
        QCOMPARE(ckpt.tensors.size(), owned.size());
        for (size_t i = 0; i < owned.size(); ++i) {
            const auto& t = ckpt.tensors[i];
            QCOMPARE(t.name, owned[i].name);
            QCOMPARE(t.ggmlType, owned[i].type);
            QCOMPARE(t.shape, std::vector<uint64_t>(owned[i].ne.rbegin(), owned[i].ne.rend()));
            QCOMPARE(t.offset % align, uint64_t(0));
            const auto bytes = ckpt.bytes(t);
            QCOMPARE(std::vector<uint8_t>(bytes.begin(), bytes.end()), owned[i].data);
        }
        QCOMPARE(qs::MappedFile(path).size() % align, uint64_t(0));
        // Listing again from the written file gives the same layout the writer planned.
        const auto layout = qs::layoutGguf(path, meta, views(owned), version);
        QCOMPARE(layout.fileSize, qs::MappedFile(path).size());
        QCOMPARE(ckpt.tensors[1].offset, layout.head.size() + layout.offsets[1]);
    }
    void writerRefusesBadInput()
    {
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "bad.gguf");
        const std::vector<uint8_t> data(18);
        auto refuses = [&](const qs::GgufMetadata& meta, std::vector<qs::GgufTensor> ts, const char* part,
                           uint32_t version = 3) {
            try {
                qs::writeGguf(path, meta, ts, version);
            } catch (const qs::Error& e) {
                const QString msg = QString::fromUtf8(e.what());
                QVERIFY2(msg.startsWith(QString::fromStdString(path)) && msg.contains(QLatin1String(part)), e.what());
                QVERIFY(!std::filesystem::exists(path));
                return;
            }
            QFAIL(part);
        };
        refuses({}, {{"t", 2, {32}, std::span(data).first(17)}}, "tensor 't': data holds 17 bytes");
        refuses({}, {{"t", 2, {48}, data}}, "not a multiple of the Q4_0 block size 32");
        refuses({}, {{"t", 99, {32}, data}}, "cannot write ggml type unknown(99)");
        refuses({}, {{"t", 31, {32}, data}}, "cannot write ggml type Q4_0_4_4");
        refuses({}, {{"t", 2, {32}, data}, {"t", 2, {32}, data}}, "duplicate tensor name");
        refuses({{"k", mv(Type::U8, 1)}, {"k", mv(Type::U8, 2)}}, {}, "metadata key 'k': duplicate key");
        refuses({{"k", mv(Type::U8, 256)}}, {}, "metadata key 'k': value 256 does not fit u8");
        refuses({{"k", ma(Type::U8, {mv(Type::U16, 1)})}}, {}, "array of u8 holds a u16 element");
        refuses({{"general.alignment", mv(Type::U32, 48)}}, {}, "not a non-zero power of two");
        refuses({{"general.alignment", mv(Type::U64, 32)}}, {}, "must be of type u32");
        refuses({}, {}, "cannot write GGUF version 4", 4);
        refuses({}, {{"t", 0, {uint64_t(1) << 33}, {}}}, "does not fit GGUF v1", 1);
    }

    void splits_data()
    {
        QTest::addColumn<int>("openIndex");
        QTest::addColumn<uint>("version");
        for (int i = 0; i < 3; ++i)
            QTest::addRow("open_split_%d", i + 1) << i << 3u;
        QTest::addRow("v2") << 0 << 2u;
        QTest::addRow("v1") << 2 << 1u;
    }
    void splits()
    {
        QFETCH(int, openIndex);
        QFETCH(uint, version);
        QTemporaryDir dir;
        const auto owned = sampleTensors();
        const auto meta = everyValueType(64);
        const auto paths = qs::writeGgufSplits(tmpPath(dir, "model"), meta, views(owned), 2, version);
        QCOMPARE(paths.size(), size_t(3));
        QCOMPARE(paths[1], tmpPath(dir, "model-00002-of-00003.gguf"));

        const auto ckpt = qs::openCheckpoint(paths[size_t(openIndex)]);
        QCOMPARE(ckpt->files, paths);
        QCOMPARE(ckpt->ggufAlignment, uint64_t(64));
        QCOMPARE(ckpt->tensors.size(), owned.size());
        for (size_t i = 0; i < owned.size(); ++i) {
            const auto& t = ckpt->tensors[i];
            QCOMPARE(t.name, owned[i].name);
            QCOMPARE(t.file, uint32_t(i / 2));
            const auto bytes = ckpt->bytes(t);
            QCOMPARE(std::vector<uint8_t>(bytes.begin(), bytes.end()), owned[i].data);
        }
        // Metadata of the first split: everything, then the split keys.
        QCOMPARE(ckpt->metadata.size(), meta.size() + 3);
        for (size_t i = 0; i < meta.size(); ++i)
            QVERIFY(sameValue(ckpt->metadata[i].second, meta[i].second));
        QCOMPARE(ckpt->meta("split.no")->type, Type::U16);
        QCOMPARE(std::get<uint64_t>(ckpt->meta("split.count")->value), uint64_t(3));
        QCOMPARE(std::get<int64_t>(ckpt->meta("split.tensors.count")->value), int64_t(6));

        // A folder holding only the split set opens as that set.
        const auto folder = qs::openCheckpoint(dir.path().toStdString());
        QCOMPARE(folder->files, paths);
        QCOMPARE(folder->tensors.size(), owned.size());
    }
    void splitErrors()
    {
        QTemporaryDir dir;
        const auto owned = sampleTensors();
        const auto paths = qs::writeGgufSplits(tmpPath(dir, "m"), everyValueType(0), views(owned), 2);
        std::filesystem::remove(paths[1]);
        for (const auto& opened : {paths[0], paths[2]}) {
            try {
                qs::Checkpoint ckpt;
                qs::readGguf(ckpt, opened);
                QFAIL("missing split not reported");
            } catch (const qs::Error& e) {
                const QString msg = QString::fromUtf8(e.what());
                QVERIFY2(msg.startsWith(QString::fromStdString(paths[1]) + QStringLiteral(": split 2 of 3 is missing")),
                         e.what());
                QVERIFY(msg.contains(QString::fromStdString(opened)));
            }
        }

        // split.tensors.count disagreeing with the splits.
        auto withKeys = [&](uint64_t no, uint64_t count, int64_t total) {
            qs::GgufMetadata m{{"split.no", mv(Type::U16, no)},
                               {"split.count", mv(Type::U16, count)},
                               {"split.tensors.count", mi(Type::I32, total)}};
            return m;
        };
        const std::vector<uint8_t> d(4);
        const std::string p1 = tmpPath(dir, "w-00001-of-00002.gguf"), p2 = tmpPath(dir, "w-00002-of-00002.gguf");
        qs::writeGguf(p1, withKeys(0, 2, 5), {{"a", 0, {1}, d}});
        qs::writeGguf(p2, withKeys(1, 2, 5), {{"b", 0, {1}, d}});
        expectError(p1, {QStringLiteral("metadata key 'split.tensors.count': says 5 tensors but the 2 splits hold 2")});
        // A sibling that claims another place in the set.
        qs::writeGguf(p2, withKeys(0, 2, 2), {{"b", 0, {1}, d}});
        expectError(
            p1, {QStringLiteral("metadata keys 'split.no'/'split.count' say split 1 of 2, expected split 2 of 2")}, p2);
        // Split keys in a file whose name does not tell where its siblings are.
        const std::string odd = tmpPath(dir, "renamed.gguf");
        qs::writeGguf(odd, withKeys(0, 2, 2), {{"a", 0, {1}, d}});
        expectError(odd, {QStringLiteral("file name does not follow <prefix>-NNNNN-of-NNNNN.gguf")});
        // The same tensor name in two splits.
        qs::writeGguf(p1, withKeys(0, 2, 2), {{"a", 0, {1}, d}});
        qs::writeGguf(p2, withKeys(1, 2, 2), {{"a", 0, {1}, d}});
        try {
            auto c = qs::openCheckpoint(p1);
            QFAIL("duplicate across splits not reported");
        } catch (const qs::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("duplicate tensor name 'a'")), e.what());
        }
    }

    void badInput_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QStringList>("parts");
        auto add = [](const char* name, const Bytes& b, QStringList parts) {
            QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.b.data()), qsizetype(b.b.size()))
                                << parts;
        };
        const uint64_t huge = uint64_t(1) << 40;
        add("empty file", Bytes{}, {"empty file"});
        add("short magic", Bytes{}.data(3, 'G'), {"header: magic needs 4 bytes at offset 0"});
        add("bad magic", Bytes{}.data(4, 'X').put<uint32_t>(3), {"header: bad magic 58 58 58 58"});
        add("safetensors", Bytes{}.put<uint64_t>(2).data(2, '{'), {"header: bad magic"});
        add("version 0", Bytes{}.header(0, 0, 0), {"header: unsupported GGUF version 0"});
        add("version 4", Bytes{}.header(4, 0, 0), {"header: unsupported GGUF version 4 (supported: 1, 2, 3)"});
        add("big-endian version", Bytes{}.header(0x03000000, 0, 0), {"header: version field 0x03000000", "big-endian"});
        {
            Bytes b;
            b.b = {'F', 'U', 'G', 'G', 0, 0, 0, 3};
            add("big-endian magic", b, {"header: magic 'FUGG'", "big-endian"});
        }
        add("absurd tensor_count", Bytes{}.header(3, huge, 0), {"header: tensor_count 1099511627776 is impossible"});
        add("absurd kv_count", Bytes{}.header(3, 0, huge), {"header: kv_count 1099511627776 is impossible"});
        add("negative tensor_count", Bytes{}.header(3, ~uint64_t(0), 0), {"header: tensor_count 18446744073709551615"});
        add("absurd v1 kv_count", Bytes{}.header(1, 0, 0xFFFFFFFFu), {"header: kv_count 4294967295 is impossible"});
        add("key length past end", Bytes{}.header(3, 0, 1).put<uint64_t>(1000).data(20, 'k'),
            {"metadata record 0: key of 1000 bytes needs 1000 bytes at offset 32, past the end of the file (52 "
             "bytes)"});
        add("string value past end",
            Bytes{}.header(3, 0, 1).str("general.name").put<uint32_t>(8).put<uint64_t>(99).data(5),
            {"metadata key 'general.name': string of 99 bytes needs 99 bytes", "past the end"});
        add("string over 1 GiB", Bytes{}.header(3, 0, 1).str("k").put<uint32_t>(8).put<uint64_t>(uint64_t(1) << 31),
            {"metadata key 'k': string length 2147483648 exceeds the 1 GiB limit"});
        add("array of 2^60 strings",
            Bytes{}
                .header(3, 0, 1)
                .str("tokenizer.ggml.tokens")
                .put<uint32_t>(9)
                .put<uint32_t>(8)
                .put<uint64_t>(uint64_t(1) << 60)
                .data(64),
            {"metadata key 'tokenizer.ggml.tokens': array of 1152921504606846976 string elements cannot fit in the 64 "
             "bytes left"});
        add("array length past end",
            Bytes{}.header(3, 0, 1).str("a").put<uint32_t>(9).put<uint32_t>(0).put<uint64_t>(10).data(9),
            {"metadata key 'a': array of 10 u8 elements cannot fit in the 9 bytes left"});
        add("bad value type", Bytes{}.header(3, 0, 1).str("k").put<uint32_t>(13).data(8),
            {"metadata key 'k': value type 13 is not a GGUF value type (0..12)"});
        add("bad array element type",
            Bytes{}.header(3, 0, 1).str("k").put<uint32_t>(9).put<uint32_t>(77).put<uint64_t>(0),
            {"metadata key 'k': array element type 77 is not a GGUF value type"});
        {
            Bytes b;
            b.header(3, 0, 1).str("deep").put<uint32_t>(9);
            for (int i = 0; i < 40; ++i)
                b.put<uint32_t>(9).put<uint64_t>(1);
            b.put<uint32_t>(0).put<uint64_t>(0);
            add("arrays nested too deep", b, {"metadata key 'deep': arrays nested more than 16 levels deep"});
        }
        add("alignment not u32", Bytes{}.header(3, 0, 1).str("general.alignment").put<uint32_t>(10).put<uint64_t>(32),
            {"metadata key 'general.alignment': must be of type u32, found u64"});
        add("alignment zero", Bytes{}.header(3, 0, 1).kvU32("general.alignment", 0),
            {"metadata key 'general.alignment': 0 is not a non-zero power of two"});
        add("alignment 48", Bytes{}.header(3, 0, 1).kvU32("general.alignment", 48),
            {"metadata key 'general.alignment': 48 is not a non-zero power of two"});
        add("five dims", Bytes{}.header(3, 1, 0).info("t", {1, 1, 1, 1, 1}, 0, 0).pad().data(32),
            {"tensor 't': n_dims 5 exceeds the maximum of 4"});
        add("dimension overflow",
            Bytes{}.header(3, 1, 0).info("t", {uint64_t(1) << 32, uint64_t(1) << 32}, 0, 0).pad().data(32),
            {"tensor 't': dimensions 4294967296 x 4294967296 overflow a 64-bit element count"});
        add("negative dimension", Bytes{}.header(3, 1, 0).info("t", {~uint64_t(0)}, 0, 0).pad().data(32),
            {"tensor 't': ne[0] = 18446744073709551615 is negative as int64"});
        add("byte size overflow", Bytes{}.header(3, 1, 0).info("t", {uint64_t(1) << 61, 2}, 27, 0).pad().data(32),
            {"tensor 't': byte size", "overflows 64 bits"});
        add("ne0 not a block multiple", Bytes{}.header(3, 1, 0).info("t", {48, 2}, 2, 0).pad().data(64),
            {"tensor 't': ne[0] = 48 is not a multiple of the Q4_0 block size 32"});
        add("misaligned offset", Bytes{}.header(3, 2, 0).info("a", {4}, 0, 0).info("b", {4}, 0, 16).pad().data(64),
            {"tensor 'b': data offset 16 is not a multiple of the alignment 32"});
        add("offset past end", Bytes{}.header(3, 1, 0).info("a", {4}, 0, 4096).pad().data(32),
            {"tensor 'a': data at offset 4096 of the data section", "lies past the end of the file"});
        add("bytes past end", Bytes{}.header(3, 1, 0).info("a", {64}, 0, 0).pad().data(100),
            {"tensor 'a': data at offset 0 of the data section (file bytes 64..320) lies past the end of the file (164 "
             "bytes)"});
        add("data section past end", Bytes{}.header(3, 1, 0).info("a", {0}, 0, 0),
            {"data section: starts at offset 64", "past the end of the file (57 bytes)"});
        add("overlap", Bytes{}.header(3, 2, 0).info("a", {16}, 0, 0).info("b", {4}, 0, 32).pad().data(64),
            {"tensor 'a': data bytes 96..160 overlap tensor 'b' starting at 128"});
        add("duplicate tensor", Bytes{}.header(3, 2, 0).info("a", {4}, 0, 0).info("a", {4}, 0, 32).pad().data(64),
            {"tensor 'a': duplicate tensor name (tensor infos 0 and 1)"});
        {
            const std::string longName(1000, 'n');
            add("long duplicate name",
                Bytes{}.header(3, 2, 0).info(longName, {4}, 0, 0).info(longName, {4}, 0, 32).pad().data(64),
                {QStringLiteral("tensor '%1...' (1000 bytes): duplicate tensor name")
                     .arg(QString(120, QLatin1Char('n')))});
        }
        add("tensor name past end", Bytes{}.header(3, 1, 0).put<uint64_t>(500).data(30),
            {"tensor info 0: name of 500 bytes needs 500 bytes at offset 32"});
    }
    void badInput()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QStringList, parts);
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "bad.gguf");
        writeBytes(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
        expectError(path, parts);
        QVERIFY(!QTest::currentTestFailed());
        // Absurd counts fail before any allocation of their size.
        QCOMPARE_LT(peakRssKiB(), 256 * 1024L);
    }

    // A duplicate metadata key leaves the file readable: it opens, both records are listed,
    // lookups take the first, and a note names the key, both records and their values and
    // what the upstream readers do (llama.cpp refuses such files; issue 14).
    void duplicateKeyOpensWithANote()
    {
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "dup.gguf");
        writeBytes(path, Bytes{}.header(3, 0, 3).kvU32("a.b", 1).kvU32("c", 7).kvU32("a.b", 2).b);
        qs::Checkpoint ckpt;
        qs::readGguf(ckpt, path);
        QCOMPARE(ckpt.metadata.size(), size_t(3));
        QCOMPARE(ckpt.metadata[2].first, std::string("a.b"));
        QCOMPARE(std::get<uint64_t>(ckpt.meta("a.b")->value), uint64_t(1));
        QCOMPARE(ckpt.notes.size(), size_t(1));
        const std::string note = ckpt.notes[0].text();
        for (const char* part :
             {": metadata key 'a.b' appears twice: record 0 holds 1, record 2 holds 2", "llama.cpp refuses the file"})
            QVERIFY2(note.find(part) != std::string::npos, note.c_str());
        QVERIFY2(note.rfind(path, 0) == 0, note.c_str());
    }

    // Every cut point inside the header region of a file with every value type is an error
    // that names the file and a field; none crashes or succeeds.
    void truncatedHeaderAtEveryOffset_data()
    {
        QTest::addColumn<uint>("version");
        QTest::addRow("v1") << 1u;
        QTest::addRow("v3") << 3u;
    }
    void truncatedHeaderAtEveryOffset()
    {
        QFETCH(uint, version);
        QTemporaryDir dir;
        const std::string full = tmpPath(dir, "full.gguf");
        const auto owned = sampleTensors();
        qs::writeGguf(full, everyValueType(0), views(owned), version);
        const auto layout = qs::layoutGguf(full, everyValueType(0), views(owned), version);
        const std::string cut = full;
        const QStringList fields{QStringLiteral(": header"), QStringLiteral(": metadata"), QStringLiteral(": tensor"),
                                 QStringLiteral(": data section"), QStringLiteral(": empty file")};
        // Cut points from the first tensor's last byte down to the empty file; shortening the
        // same file each time keeps this quick.
        for (size_t n = layout.head.size() + layout.sizes[0]; n-- > 0;) {
            QCOMPARE(::truncate(cut.c_str(), off_t(n)), 0);
            try {
                qs::Checkpoint ckpt;
                qs::readGguf(ckpt, cut);
                QFAIL(qPrintable(QStringLiteral("cut at %1 was accepted").arg(n)));
            } catch (const qs::Error& e) {
                const QString msg = QString::fromUtf8(e.what());
                QVERIFY2(msg.startsWith(QString::fromStdString(cut) + QStringLiteral(": ")), e.what());
                bool named = false;
                for (const auto& f : fields)
                    named = named || msg.contains(f);
                QVERIFY2(named, e.what());
            }
        }
    }

    // An unknown or removed type id lists the tensor, bounds its bytes by the next tensor or
    // the end of the file, and leaves every other tensor readable. (77: no fork uses it; 99 is
    // ik_llama.cpp's Q8_1_X4, forkTypes.)
    void unknownTypes()
    {
        Bytes b;
        b.header(3, 4, 1).kvStr("general.architecture", "llama");
        b.info("a", {8}, 0, 0).info("fork", {1000, 3}, 77, 32).info("b", {2}, 1, 96).info("old", {32, 2}, 31, 128);
        b.pad();
        const size_t start = b.b.size();
        b.data(32, 1).data(64, 2).data(32, 3).data(40, 4);
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "unknown.gguf");
        writeBytes(path, b.b);
        const auto ckpt = qs::openCheckpoint(path);
        QCOMPARE(ckpt->tensors.size(), size_t(4));
        const auto& fork = ckpt->tensors[1];
        QVERIFY(!fork.known);
        QCOMPARE(fork.typeName, std::string("unknown(77)"));
        QCOMPARE(fork.ggmlType, 77);
        QCOMPARE(fork.shape, (std::vector<uint64_t>{3, 1000}));
        QCOMPARE(fork.offset, uint64_t(start + 32));
        QCOMPARE(fork.nbytes, uint64_t(64));
        QVERIFY(fork.note.text().find("ggml type id 77 is unknown") != std::string::npos);
        QVERIFY(fork.note.text().find("64 bytes") != std::string::npos);
        const auto& old = ckpt->tensors[3];
        QVERIFY(!old.known);
        QCOMPARE(old.typeName, std::string("Q4_0_4_4"));
        QCOMPARE(old.nbytes, uint64_t(40)); // up to the end of the file
        QVERIFY(old.note.text().find("removed") != std::string::npos);
        const auto a = ckpt->bytes(ckpt->tensors[0]);
        const auto bb = ckpt->bytes(ckpt->tensors[2]);
        QVERIFY(ckpt->tensors[0].known && ckpt->tensors[2].known);
        QCOMPARE(a.size(), size_t(32));
        QCOMPARE(a[31], uint8_t(1));
        QCOMPARE(bb.size(), size_t(4));
        QCOMPARE(bb[0], uint8_t(3));
    }

    // The types of llama.cpp's forks: ik_llama.cpp's ids named with its size rule checked where
    // its type traits are known, BitNet's I2_S told from mainline's removed IQ4_NL_4_4 (both id
    // 36) by the bytes before the next tensor; none decoded, each listed with a note naming it.
    void forkTypes()
    {
        Bytes b;
        b.header(3, 6, 1).kvStr("general.architecture", "bitnet");
        b.info("ik.fits", {256, 2}, 144, 0) // IQ4_KS: 2 rows of 4 + 136 bytes
            .info("i2s", {128, 4}, 36, 288) // I2_S: 512 / 4 + 32 = 160 bytes
            .info("nl", {64, 4}, 36, 448) // IQ4_NL_4_4: 256 / 32 * 18 = 144 (I2_S would be 96)
            .info("kt", {256, 1}, 153, 608) // IQ2_KT: no size rule checked
            .info("ik.short", {256, 2}, 144, 672) // IQ4_KS: 224 of its 280 bytes before the next tensor
            .info("both", {32, 4}, 36, 896); // the last 72 bytes: I2_S 64, IQ4_NL_4_4 72
        b.pad().data(896 + 72, 7);
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "forks.gguf");
        writeBytes(path, b.b);
        const auto ckpt = qs::openCheckpoint(path);
        QCOMPARE(ckpt->tensors.size(), size_t(6));
        const auto note = [&](size_t i) { return QString::fromStdString(ckpt->tensors[i].note.text()); };
        QCOMPARE(ckpt->tensors[0].typeName, std::string("IQ4_KS"));
        QCOMPARE(ckpt->tensors[0].nbytes, uint64_t(280));
        QVERIFY2(note(0).contains(QStringLiteral("ik_llama.cpp's type IQ4_KS (id 144)"))
                     && note(0).contains(QStringLiteral("2 rows of 140 bytes")),
                 qPrintable(note(0)));
        QCOMPARE(ckpt->tensors[1].typeName, std::string("I2_S"));
        QCOMPARE(ckpt->tensors[1].nbytes, uint64_t(160));
        QVERIFY2(note(1).contains(QStringLiteral("read as BitNet's I2_S")), qPrintable(note(1)));
        QCOMPARE(ckpt->tensors[2].typeName, std::string("IQ4_NL_4_4"));
        QVERIFY2(note(2).contains(QStringLiteral("removed")), qPrintable(note(2)));
        QCOMPARE(ckpt->tensors[3].typeName, std::string("IQ2_KT"));
        QVERIFY2(note(3).contains(QStringLiteral("no size rule is checked")), qPrintable(note(3)));
        QCOMPARE(ckpt->tensors[4].nbytes, uint64_t(224));
        QVERIFY2(note(4).contains(QStringLiteral("does not fit its size rule"))
                     && note(4).contains(QStringLiteral("take 280 bytes"))
                     && note(4).contains(QStringLiteral("224 bytes lie before")),
                 qPrintable(note(4)));
        QCOMPARE(ckpt->tensors[5].typeName, std::string("IQ4_NL_4_4"));
        QVERIFY2(note(5).contains(QStringLiteral("fit both")), qPrintable(note(5)));
        for (const auto& t : ckpt->tensors)
            QVERIFY(!t.known);

        // Detection names them as the forks' formats (listed, never decoded), the note kept.
        const std::vector<std::string> formats = {"gguf-ik", "gguf-i2_s", "unknown", "gguf-ik", "gguf-ik", "unknown"};
        QCOMPARE(ckpt->weights.size(), formats.size());
        for (size_t i = 0; i < formats.size(); ++i) {
            const qs::LogicalWeight& w = ckpt->weights[i];
            QCOMPARE(w.format, formats[i]);
            QVERIFY(!qs::dequantFunction(w.format));
            QVERIFY2(std::any_of(w.notes.begin(), w.notes.end(),
                                 [&](const qs::Message& m) { return m.text() == ckpt->tensors[i].note.text(); }),
                     w.name.c_str());
            QVERIFY2(std::none_of(
                         w.notes.begin(), w.notes.end(),
                         [](const qs::Message& m) { return m.text().find("unknown ggml type") != std::string::npos; }),
                     w.name.c_str());
        }
        QCOMPARE(ckpt->weights[1].bits, 2);
        QVERIFY(qs::findFormat("gguf-ik") && qs::findFormat("gguf-i2_s"));
    }

    // Accepted but flagged: what ggml's stricter reader would refuse.
    void deviationsBecomeNotes()
    {
        Bytes b;
        b.header(2, 2, 1).str("flag").put<uint32_t>(7).put<uint8_t>(2);
        b.info("a", {4}, 0, 32).info("b", {4}, 0, 0).pad().data(64);
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "order.gguf");
        writeBytes(path, b.b);
        qs::Checkpoint ckpt;
        qs::readGguf(ckpt, path);
        QCOMPARE(ckpt.ggufVersion, 2);
        QCOMPARE(std::get<bool>(ckpt.meta("flag")->value), true);
        QCOMPARE(ckpt.notes.size(), size_t(2));
        QCOMPARE(ckpt.notes[0].text(),
                 path + ": metadata key 'flag': a bool value is neither 0 nor 1; read as true, as ggml does");
        QVERIFY(ckpt.notes[1].text().find("not packed in tensor-info order (first at tensor 'a')")
                != std::string::npos);
    }

    // Metadata arrays are expanded into values: their total is capped before allocation.
    void metadataElementBudget()
    {
        const uint64_t n = (uint64_t(1) << 24) + 1;
        Bytes b;
        b.header(3, 0, 1).str("blob").put<uint32_t>(9).put<uint32_t>(0).put<uint64_t>(n).data(size_t(n), 0);
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "blob.gguf");
        writeBytes(path, b.b);
        b.b.clear();
        b.b.shrink_to_fit();
        expectError(
            path, {QStringLiteral("metadata key 'blob': array of 16777217 elements takes the metadata past 16777216")});
        QCOMPARE_LT(peakRssKiB(), 256 * 1024L);
    }

    // Random corruption of a valid file: every outcome is a listing or a qs::Error, never a
    // crash, a hang or another exception (run under the sanitizers too).
    void randomCorruption()
    {
        QTemporaryDir dir;
        const std::string good = tmpPath(dir, "good.gguf");
        const auto owned = sampleTensors();
        qs::writeGguf(good, everyValueType(0), views(owned));
        std::vector<uint8_t> bytes;
        {
            const qs::MappedFile f(good);
            bytes.assign(f.bytes().begin(), f.bytes().end());
        }
        const size_t headSize = qs::layoutGguf(good, everyValueType(0), views(owned)).head.size();
        const std::string path = tmpPath(dir, "fuzz.gguf");
        writeBytes(path, bytes);
        // Edits go into the same file in place and are undone after each round.
        const int fd = ::open(path.c_str(), O_WRONLY);
        QVERIFY(fd >= 0);
        uint64_t state = 20261130;
        auto next = [&] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return state >> 33;
        };
        auto poke = [&](size_t at, uint8_t v) { QCOMPARE(::pwrite(fd, &v, 1, off_t(at)), ssize_t(1)); };
        int accepted = 0, refused = 0;
        for (int round = 0; round < 3000; ++round) {
            std::vector<size_t> touched;
            const int edits = 1 + int(next() % 4);
            for (int e = 0; e < edits; ++e) {
                const size_t at = size_t(next() % headSize);
                touched.push_back(at);
                switch (next() % 3) {
                case 0: poke(at, uint8_t(next())); break; // random byte
                case 1: poke(at, bytes[at] ^ uint8_t(1u << (next() % 8))); break; // bit flip
                default: poke(at, (next() & 1) ? 0xFF : 0x00); break; // extremes
                }
            }
            try {
                qs::Checkpoint ckpt;
                qs::readGguf(ckpt, path);
                ckpt.buildIndex();
                for (const auto& t : ckpt.tensors)
                    QCOMPARE(ckpt.bytes(t).size(), size_t(t.nbytes));
                ++accepted;
            } catch (const qs::Error& e) {
                QVERIFY2(QString::fromUtf8(e.what()).startsWith(QString::fromStdString(path) + QStringLiteral(": ")),
                         e.what());
                ++refused;
            }
            for (size_t at : touched)
                poke(at, bytes[at]);
        }
        ::close(fd);
        QVERIFY(refused > 1000);
        QVERIFY(accepted > 0);
        QCOMPARE_LT(peakRssKiB(), 256 * 1024L);
    }

    // Zero tensors: the file may end right after the metadata (ggml pads only before data).
    void metadataOnly()
    {
        QTemporaryDir dir;
        const std::string path = tmpPath(dir, "meta.gguf");
        writeBytes(path, Bytes{}.header(3, 0, 1).kvU32("general.file_type", 15).b);
        qs::Checkpoint ckpt;
        qs::readGguf(ckpt, path);
        QVERIFY(ckpt.tensors.empty());
        QCOMPARE(qs::llamaFileTypeName(uint32_t(std::get<uint64_t>(ckpt.meta("general.file_type")->value))),
                 std::string("MOSTLY_Q4_K_M"));
    }
};

QTEST_GUILESS_MAIN(TestGguf)
#include "tst_gguf.moc"
