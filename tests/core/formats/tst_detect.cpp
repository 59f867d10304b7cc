// Format detection: every fixture against ../shared/fixtures/PROVENANCE.md, checkpoints the
// test writes itself for the cases fixtures do not cover (mislabeled configs, no config,
// MLX, LLM.int8, compressed-tensors zero points), and the format-id registry.
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "container/safetensors.h"
#include "base/error.h"
#include "formats/dequant.h"
#include "formats/detect.h"
#include "formats/detectutil.h"
#include "formats/family.h"
#include "formats/formatid.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <list>
#include <set>

using namespace qs;

namespace {

struct FixtureWeight {
    const char* folder;
    const char* name;
    const char* format;
    int bits;
    int64_t group;
    bool symmetric;
    bool descAct;
    bool actOrder;
    uint64_t out, in;
    const char* roles; // sorted, comma-separated
    uint64_t storedBytes;
};

// Transcribed from the "safetensors tensor inventory" of PROVENANCE.md: formats and
// parameters from each quantization_config, logical shapes from the module names
// (down_proj [128, 256], q_proj [64, 64], gate_proj [172, 64]), stored bytes = the sum of
// the listed member tensors (dtype size x shape). Channel strategies have group = K.
const FixtureWeight kFixtureWeights[] = {
    {"awq-gemm-w4-g128", "model.layers.0.mlp.down_proj", "awq-gemm", 4, 128, false, false, false, 128, 256,
     "qweight,qzeros,scales", 17024},
    {"awq-gemm-w4-g32", "model.layers.0.mlp.down_proj", "awq-gemm", 4, 32, false, false, false, 128, 256,
     "qweight,qzeros,scales", 18944},
    {"awq-gemm-w4-g32", "model.layers.0.self_attn.q_proj", "awq-gemm", 4, 32, false, false, false, 64, 64,
     "qweight,qzeros,scales", 2368},
    {"bnb-fp4-doublequant", "model.layers.0.mlp.down_proj", "bnb-fp4", 4, 64, true, false, false, 128, 256,
     "absmax,nested_absmax,nested_quant_map,quant_map,quant_state,weight", 18161},
    {"bnb-fp4-doublequant", "model.layers.0.mlp.gate_proj", "bnb-fp4", 4, 64, true, false, false, 172, 64,
     "absmax,nested_absmax,nested_quant_map,quant_map,quant_state,weight", 6935},
    {"bnb-fp4-doublequant", "model.layers.0.self_attn.q_proj", "bnb-fp4", 4, 64, true, false, false, 64, 64,
     "absmax,nested_absmax,nested_quant_map,quant_map,quant_state,weight", 3370},
    {"bnb-fp4", "model.layers.0.mlp.down_proj", "bnb-fp4", 4, 64, true, false, false, 128, 256,
     "absmax,quant_map,quant_state,weight", 18575},
    {"bnb-fp4", "model.layers.0.mlp.gate_proj", "bnb-fp4", 4, 64, true, false, false, 172, 64,
     "absmax,quant_map,quant_state,weight", 6334},
    {"bnb-fp4", "model.layers.0.self_attn.q_proj", "bnb-fp4", 4, 64, true, false, false, 64, 64,
     "absmax,quant_map,quant_state,weight", 2445},
    {"bnb-nf4-doublequant", "model.layers.0.mlp.down_proj", "bnb-nf4", 4, 64, true, false, false, 128, 256,
     "absmax,nested_absmax,nested_quant_map,quant_map,quant_state,weight", 18161},
    {"bnb-nf4-doublequant", "model.layers.0.mlp.gate_proj", "bnb-nf4", 4, 64, true, false, false, 172, 64,
     "absmax,nested_absmax,nested_quant_map,quant_map,quant_state,weight", 6935},
    {"bnb-nf4-doublequant", "model.layers.0.self_attn.q_proj", "bnb-nf4", 4, 64, true, false, false, 64, 64,
     "absmax,nested_absmax,nested_quant_map,quant_map,quant_state,weight", 3370},
    {"bnb-nf4", "model.layers.0.mlp.down_proj", "bnb-nf4", 4, 64, true, false, false, 128, 256,
     "absmax,quant_map,quant_state,weight", 18575},
    {"bnb-nf4", "model.layers.0.mlp.gate_proj", "bnb-nf4", 4, 64, true, false, false, 172, 64,
     "absmax,quant_map,quant_state,weight", 6334},
    {"bnb-nf4", "model.layers.0.self_attn.q_proj", "bnb-nf4", 4, 64, true, false, false, 64, 64,
     "absmax,quant_map,quant_state,weight", 2445},
    {"ct-pack-w4a16-channel-asym", "model.layers.0.mlp.down_proj", "compressed-tensors", 4, 256, false, false, false,
     128, 256, "weight_packed,weight_scale,weight_shape,weight_zero_point", 16976},
    {"ct-pack-w4a16-channel-asym", "model.layers.0.mlp.gate_proj", "compressed-tensors", 4, 64, false, false, false,
     172, 64, "weight_packed,weight_scale,weight_shape,weight_zero_point", 6296},
    {"ct-pack-w4a16-channel-asym", "model.layers.0.self_attn.q_proj", "compressed-tensors", 4, 64, false, false, false,
     64, 64, "weight_packed,weight_scale,weight_shape,weight_zero_point", 2352},
    {"ct-pack-w4a16-g128-sym", "model.layers.0.mlp.down_proj", "compressed-tensors", 4, 128, true, false, false, 128,
     256, "weight_packed,weight_scale,weight_shape", 17424},
    {"ct-pack-w4a16-g32-asym", "model.layers.0.mlp.down_proj", "compressed-tensors", 4, 32, false, false, false, 128,
     256, "weight_packed,weight_scale,weight_shape,weight_zero_point", 21008},
    {"ct-pack-w4a16-g32-asym", "model.layers.0.self_attn.q_proj", "compressed-tensors", 4, 32, false, false, false, 64,
     64, "weight_packed,weight_scale,weight_shape,weight_zero_point", 2640},
    {"ct-pack-w8a16-channel-sym", "model.layers.0.mlp.down_proj", "compressed-tensors", 8, 256, true, false, false, 128,
     256, "weight_packed,weight_scale,weight_shape", 33296},
    {"ct-pack-w8a16-channel-sym", "model.layers.0.mlp.gate_proj", "compressed-tensors", 8, 64, true, false, false, 172,
     64, "weight_packed,weight_scale,weight_shape", 11712},
    {"ct-pack-w8a16-channel-sym", "model.layers.0.self_attn.q_proj", "compressed-tensors", 8, 64, true, false, false,
     64, 64, "weight_packed,weight_scale,weight_shape", 4368},
    {"gptq-w2-g32-asym", "model.layers.0.mlp.down_proj", "gptq-v1", 2, 32, false, false, false, 128, 256,
     "g_idx,qweight,qzeros,scales", 11520},
    {"gptq-w2-g32-asym", "model.layers.0.self_attn.q_proj", "gptq-v1", 2, 32, false, false, false, 64, 64,
     "g_idx,qweight,qzeros,scales", 1568},
    {"gptq-w3-g128-sym", "model.layers.0.mlp.down_proj", "gptq-v1", 3, 128, true, false, false, 128, 256,
     "g_idx,qweight,qzeros,scales", 13920},
    {"gptq-w3-g32-asym", "model.layers.0.mlp.down_proj", "gptq-v1", 3, 32, false, false, false, 128, 256,
     "g_idx,qweight,qzeros,scales", 15744},
    {"gptq-w3-g32-asym", "model.layers.0.self_attn.q_proj", "gptq-v1", 3, 32, false, false, false, 64, 64,
     "g_idx,qweight,qzeros,scales", 2096},
    {"gptq-w4-g128-asym-actorder", "model.layers.0.mlp.down_proj", "gptq-v1", 4, 128, false, true, true, 128, 256,
     "g_idx,qweight,qzeros,scales", 18048},
    {"gptq-w4-g128-sym", "model.layers.0.mlp.down_proj", "gptq-v1", 4, 128, true, false, false, 128, 256,
     "g_idx,qweight,qzeros,scales", 18048},
    {"gptq-w4-g32-asym", "model.layers.0.mlp.down_proj", "gptq-v1", 4, 32, false, false, false, 128, 256,
     "g_idx,qweight,qzeros,scales", 19968},
    {"gptq-w4-g32-asym", "model.layers.0.self_attn.q_proj", "gptq-v1", 4, 32, false, false, false, 64, 64,
     "g_idx,qweight,qzeros,scales", 2624},
    {"gptq-w4-g32-sym-actorder", "model.layers.0.mlp.down_proj", "gptq-v1", 4, 32, true, true, true, 128, 256,
     "g_idx,qweight,qzeros,scales", 19968},
    {"gptq-w4-g32-sym-actorder", "model.layers.0.self_attn.q_proj", "gptq-v1", 4, 32, true, true, true, 64, 64,
     "g_idx,qweight,qzeros,scales", 2624},
    {"gptq-w8-g128-sym", "model.layers.0.mlp.down_proj", "gptq-v1", 8, 128, true, false, false, 128, 256,
     "g_idx,qweight,qzeros,scales", 34560},
};

struct GgufFixtureTensor {
    const char* name;
    const char* type;
    uint64_t rows, cols; // logical [ne1, ne0]
    uint64_t bytes;
};

// PROVENANCE.md, table of gguf/ggml-types.gguf (ne written there as [ne0, ne1]).
const GgufFixtureTensor kGgufTensors[] = {
    {"synthetic.q4_0", "Q4_0", 34, 256, 4896},
    {"synthetic4096.q4_0", "Q4_0", 2, 4096, 4608},
    {"real.q4_0", "Q4_0", 256, 64, 9216},
    {"synthetic.q4_1", "Q4_1", 34, 256, 5440},
    {"synthetic4096.q4_1", "Q4_1", 2, 4096, 5120},
    {"real.q4_1", "Q4_1", 256, 64, 10240},
    {"synthetic.q5_0", "Q5_0", 34, 256, 5984},
    {"synthetic4096.q5_0", "Q5_0", 2, 4096, 5632},
    {"real.q5_0", "Q5_0", 256, 64, 11264},
    {"synthetic.q5_1", "Q5_1", 34, 256, 6528},
    {"synthetic4096.q5_1", "Q5_1", 2, 4096, 6144},
    {"real.q5_1", "Q5_1", 256, 64, 12288},
    {"synthetic.q8_0", "Q8_0", 34, 256, 9248},
    {"synthetic4096.q8_0", "Q8_0", 2, 4096, 8704},
    {"real.q8_0", "Q8_0", 256, 64, 17408},
    {"synthetic.q2_k", "Q2_K", 34, 256, 2856},
    {"synthetic4096.q2_k", "Q2_K", 2, 4096, 2688},
    {"real.q2_k", "Q2_K", 64, 256, 5376},
    {"synthetic.q3_k", "Q3_K", 34, 256, 3740},
    {"synthetic4096.q3_k", "Q3_K", 2, 4096, 3520},
    {"real.q3_k", "Q3_K", 64, 256, 7040},
    {"synthetic.q4_k", "Q4_K", 34, 256, 4896},
    {"synthetic4096.q4_k", "Q4_K", 2, 4096, 4608},
    {"real.q4_k", "Q4_K", 64, 256, 9216},
    {"synthetic.q5_k", "Q5_K", 34, 256, 5984},
    {"synthetic4096.q5_k", "Q5_K", 2, 4096, 5632},
    {"real.q5_k", "Q5_K", 64, 256, 11264},
    {"synthetic.q6_k", "Q6_K", 34, 256, 7140},
    {"synthetic4096.q6_k", "Q6_K", 2, 4096, 6720},
    {"real.q6_k", "Q6_K", 64, 256, 13440},
    {"synthetic.iq4_nl", "IQ4_NL", 34, 256, 4896},
    {"synthetic4096.iq4_nl", "IQ4_NL", 2, 4096, 4608},
    {"real.iq4_nl", "IQ4_NL", 256, 64, 9216},
    {"synthetic.iq4_xs", "IQ4_XS", 34, 256, 4624},
    {"synthetic4096.iq4_xs", "IQ4_XS", 2, 4096, 4352},
    {"real.iq4_xs", "IQ4_XS", 64, 256, 8704},
    {"synthetic.iq2_xxs", "IQ2_XXS", 34, 256, 2244},
    {"synthetic4096.iq2_xxs", "IQ2_XXS", 2, 4096, 2112},
    {"real.iq2_xxs", "IQ2_XXS", 64, 256, 4224},
    {"synthetic.iq2_xs", "IQ2_XS", 34, 256, 2516},
    {"synthetic4096.iq2_xs", "IQ2_XS", 2, 4096, 2368},
    {"real.iq2_xs", "IQ2_XS", 64, 256, 4736},
    {"synthetic.iq2_s", "IQ2_S", 34, 256, 2788},
    {"synthetic4096.iq2_s", "IQ2_S", 2, 4096, 2624},
    {"real.iq2_s", "IQ2_S", 64, 256, 5248},
    {"synthetic.iq3_xxs", "IQ3_XXS", 34, 256, 3332},
    {"synthetic4096.iq3_xxs", "IQ3_XXS", 2, 4096, 3136},
    {"real.iq3_xxs", "IQ3_XXS", 64, 256, 6272},
    {"synthetic.iq3_s", "IQ3_S", 34, 256, 3740},
    {"synthetic4096.iq3_s", "IQ3_S", 2, 4096, 3520},
    {"real.iq3_s", "IQ3_S", 64, 256, 7040},
    {"synthetic.iq1_s", "IQ1_S", 34, 256, 1700},
    {"synthetic4096.iq1_s", "IQ1_S", 2, 4096, 1600},
    {"real.iq1_s", "IQ1_S", 64, 256, 3200},
    {"synthetic.iq1_m", "IQ1_M", 34, 256, 1904},
    {"synthetic4096.iq1_m", "IQ1_M", 2, 4096, 1792},
    {"real.iq1_m", "IQ1_M", 64, 256, 3584},
    {"synthetic.tq1_0", "TQ1_0", 34, 256, 1836},
    {"synthetic4096.tq1_0", "TQ1_0", 2, 4096, 1728},
    {"real.tq1_0", "TQ1_0", 64, 256, 3456},
    {"synthetic.tq2_0", "TQ2_0", 34, 256, 2244},
    {"synthetic4096.tq2_0", "TQ2_0", 2, 4096, 2112},
    {"real.tq2_0", "TQ2_0", 64, 256, 4224},
    {"synthetic.bf16", "BF16", 34, 256, 17408},
    {"synthetic4096.bf16", "BF16", 2, 4096, 16384},
    {"real.bf16", "BF16", 256, 64, 32768},
    {"synthetic.f16", "F16", 34, 256, 17408},
    {"synthetic4096.f16", "F16", 2, 4096, 16384},
    {"real.f16", "F16", 256, 64, 32768},
    {"synthetic.f32", "F32", 34, 256, 34816},
    {"synthetic4096.f32", "F32", 2, 4096, 32768},
    {"real.f32", "F32", 256, 64, 65536},
};

std::string lowerCase(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string sortedRoles(const LogicalWeight& w)
{
    std::vector<std::string> r;
    for (const auto& [role, idx] : w.members)
        r.push_back(role);
    std::sort(r.begin(), r.end());
    std::string s;
    for (const auto& x : r)
        s += (s.empty() ? "" : ",") + x;
    return s;
}

bool hasNote(const LogicalWeight& w, const std::string& part)
{
    return std::any_of(w.notes.begin(), w.notes.end(),
                       [&](const Message& n) { return n.text().find(part) != std::string::npos; });
}

std::string allNotes(const LogicalWeight& w)
{
    std::string s;
    for (const auto& n : w.notes)
        s += n.text() + " | ";
    return s;
}

std::shared_ptr<const Checkpoint> openFixture(const QString& folder)
{
    return openCheckpoint(
        qstest::fixture(QStringLiteral("safetensors/") + folder + QStringLiteral("/model.safetensors")).toStdString());
}

// Writes a model.safetensors (and optionally config.json) into a temporary folder.
class Writer {
public:
    explicit Writer(const QTemporaryDir& dir)
        : m_dir(dir.path().toStdString())
    {
    }

    void bytes(const std::string& name, DType dtype, std::vector<uint64_t> shape, std::vector<uint8_t> data)
    {
        m_store.push_back(std::move(data));
        m_tensors.push_back({name, dtype, std::move(shape), m_store.back()});
    }
    template <class T>
    void values(const std::string& name, DType dtype, std::vector<uint64_t> shape, const std::vector<T>& v)
    {
        std::vector<uint8_t> b(v.size() * sizeof(T));
        std::memcpy(b.data(), v.data(), b.size());
        bytes(name, dtype, std::move(shape), std::move(b));
    }
    // A tensor whose every 32-bit word is `word` (packed codes or zeros).
    void words(const std::string& name, DType dtype, std::vector<uint64_t> shape, uint32_t word)
    {
        uint64_t n = 1;
        for (uint64_t d : shape)
            n *= d;
        values(name, dtype, std::move(shape), std::vector<uint32_t>(n * dtypeBits(dtype) / 32, word));
    }
    void zeros(const std::string& name, DType dtype, std::vector<uint64_t> shape)
    {
        uint64_t n = 1;
        for (uint64_t d : shape)
            n *= d;
        bytes(name, dtype, std::move(shape), std::vector<uint8_t>(n * dtypeBits(dtype) / 8, 0));
    }
    void config(const QByteArray& json)
    {
        QFile f(QString::fromStdString(m_dir + "/config.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(json);
    }
    std::shared_ptr<const Checkpoint> open(const std::map<std::string, std::string>& metadata = {{"format", "pt"}})
    {
        const std::string path = m_dir + "/model.safetensors";
        writeSafetensors(path, m_tensors, metadata);
        return openCheckpoint(path);
    }
    // Two shards and an index: tensors [0, split) in the first, the rest in the second.
    std::shared_ptr<const Checkpoint> openSharded(size_t split)
    {
        std::vector<SafetensorsShard> shards{{shardFileName(0, 2), {}}, {shardFileName(1, 2), {}}};
        for (size_t i = 0; i < m_tensors.size(); ++i)
            shards[i < split ? 0 : 1].tensors.push_back(m_tensors[i]);
        writeSafetensorsSharded(m_dir, shards, {{"format", "pt"}});
        return openCheckpoint(m_dir);
    }

private:
    std::string m_dir;
    std::list<std::vector<uint8_t>> m_store;
    std::vector<SafetensorsTensor> m_tensors;
};

std::vector<int32_t> sequentialGidx(int K, int g)
{
    std::vector<int32_t> v(static_cast<size_t>(K));
    for (int k = 0; k < K; ++k)
        v[static_cast<size_t>(k)] = k / g;
    return v;
}

// A GPTQ layer N=64, K=128, g=32 with `bits`-bit codes and every qzeros word = zeroWord.
void gptqLayer(Writer& w, const std::string& p, int bits, uint32_t zeroWord, bool withGidx = true)
{
    const uint64_t N = 64, K = 128, G = 4;
    w.words(p + ".qweight", DType::I32, {K * bits / 32, N}, 0x12345678);
    w.words(p + ".qzeros", DType::I32, {G, N * bits / 32}, zeroWord);
    w.zeros(p + ".scales", DType::F16, {G, N});
    if (withGidx)
        w.values(p + ".g_idx", DType::I32, {K}, sequentialGidx(int(K), 32));
}

const QByteArray kGptqConfig = R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32,
    "sym": true, "desc_act": false, "checkpoint_format": "%1"}})";

} // namespace

class TestDetect : public QObject {
    Q_OBJECT

private slots:
    void fixtureWeight_data();
    void fixtureWeight();
    void fixtureWeightCount_data();
    void fixtureWeightCount();
    void fixtureV1OverflowNote();
    void fixtureBitsPerWeightByHand();
    void ggufFixture();
    void ggufRefFixture();
    void ggufUnknownType();
    void gptqLabelSaysV1ZerosSayV2();
    void gptqLabelSaysV2ZerosSayV1();
    void gptqAsymmetricConstantZerosKeepTheLabel();
    void memoryCheckpointReadsSideTensors();
    void configPartsFromRows();
    void gptq3BitV2Zeros();
    void gptqMislabeledBits();
    void configNumbersBeyondInt64();
    void gptqMislabeledBitsWithoutGidx();
    void gptqWithoutGidx();
    void gptqActOrderWithoutDescAct();
    void awqWithoutConfig();
    void mlxAffine();
    void mlxWithoutConfig();
    void bnbInt8();
    void compressedTensorsZeroPoints();
    void fp8Block();
    void plainTensorsAndStrays();
    void shardedGptq();
    void awqLayouts_data();
    void awqLayouts();
    void gptqMarlin();
    void hqq();
    void configFromMetadata();
    void configUnderTextConfig();
    void gptqModelDynamicOverride();
    void bnbQuantTypeDisagreement();
    void namedOnlyFormats();
    void exl3Trellis();
    void quarkFromConfig();
    void topLevelMembers();
    void hostileShapes();
    void formatRegistry();
    void parseFormatIds();
    void paramsFlatMap();
};

void TestDetect::fixtureWeight_data()
{
    QTest::addColumn<int>("row");
    for (size_t i = 0; i < std::size(kFixtureWeights); ++i)
        QTest::addRow("%s/%s", kFixtureWeights[i].folder, kFixtureWeights[i].name) << int(i);
}

void TestDetect::fixtureWeight()
{
    QFETCH(int, row);
    const FixtureWeight& e = kFixtureWeights[row];
    const auto ckpt = openFixture(QString::fromLatin1(e.folder));
    const LogicalWeight* w = ckpt->findWeight(e.name);
    QVERIFY2(w, e.name);
    QCOMPARE(w->name, std::string(e.name));
    QCOMPARE(w->format, std::string(e.format));
    QCOMPARE(w->bits, e.bits);
    QCOMPARE(w->groupSize, e.group);
    QCOMPARE(w->symmetric, e.symmetric);
    QCOMPARE(w->descAct, e.descAct);
    QCOMPARE(w->actOrder, e.actOrder);
    QCOMPARE(w->shape, (std::vector<uint64_t>{e.out, e.in}));
    QCOMPARE(sortedRoles(*w), std::string(e.roles));
    for (const auto& [role, idx] : w->members)
        QVERIFY2(ckpt->tensors[idx].name.starts_with(std::string(e.name) + "."),
                 std::string(ckpt->tensors[idx].name).c_str());
    QCOMPARE(w->storedBytes, e.storedBytes);
    QCOMPARE(w->bitsPerWeight(), double(e.storedBytes) * 8.0 / double(e.out * e.in));
    QVERIFY(!w->evidence.empty());
    // The only notes on fixtures are the v1 zero-point overflows (checked below).
    if (std::string(e.folder).find("asym") == std::string::npos || std::string(e.format) != "gptq-v1")
        QVERIFY2(w->notes.empty(), allNotes(*w).c_str());
}

void TestDetect::fixtureWeightCount_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<int>("weights");
    std::map<std::string, int> count;
    for (const auto& e : kFixtureWeights)
        ++count[e.folder];
    QCOMPARE(count.size(), size_t(18));
    for (const auto& [folder, n] : count)
        QTest::addRow("%s", folder.c_str()) << QString::fromStdString(folder) << n;
}

void TestDetect::fixtureWeightCount()
{
    QFETCH(QString, folder);
    QFETCH(int, weights);
    const auto ckpt = openFixture(folder);
    // Every stored tensor belongs to exactly one logical weight, and there is nothing else.
    QCOMPARE(int(ckpt->weights.size()), weights);
    std::set<size_t> seen;
    for (const auto& w : ckpt->weights)
        for (const auto& [role, idx] : w.members)
            QVERIFY(seen.insert(idx).second);
    QCOMPARE(seen.size(), ckpt->tensors.size());
}

void TestDetect::fixtureV1OverflowNote()
{
    // PROVENANCE: gptq-w2-g32-asym and gptq-w3-g32-asym down_proj have zero points equal to 0,
    // stored by v1 as -1 (all ones); the other asymmetric GPTQ layers have none.
    for (const char* folder : {"gptq-w2-g32-asym", "gptq-w3-g32-asym"}) {
        const auto ckpt = openFixture(QString::fromLatin1(folder));
        const LogicalWeight* down = ckpt->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(down);
        QVERIFY2(hasNote(*down, "v1 cannot store zero point 0"), allNotes(*down).c_str());
        QVERIFY(std::stoi(down->params.at("v1_all_ones_fields")) > 0);
        const LogicalWeight* q = ckpt->findWeight("model.layers.0.self_attn.q_proj");
        QVERIFY(q);
        QVERIFY2(q->notes.empty(), allNotes(*q).c_str());
    }
    const auto sym = openFixture(QStringLiteral("gptq-w4-g128-sym"));
    QCOMPARE(sym->weights.at(0).params.at("zero_test"), std::string("v1 (every zero field is 2^(b-1)-1)"));
}

void TestDetect::fixtureBitsPerWeightByHand()
{
    // GPTQ-4 g128 on [128, 256]: qweight 32x128x4 + qzeros 2x16x4 + scales 2x128x2 + g_idx 256x4 bytes.
    const auto gptq = openFixture(QStringLiteral("gptq-w4-g128-sym"));
    QCOMPARE(gptq->weights.at(0).bitsPerWeight(), (16384.0 + 128 + 512 + 1024) * 8 / 32768);
    QCOMPARE(gptq->weights.at(0).bitsPerWeight(), 4.40625);
    // AWQ g128: qweight 256x16x4 + qzeros 2x16x4 + scales 2x128x2, no g_idx.
    const auto awq = openFixture(QStringLiteral("awq-gemm-w4-g128"));
    QCOMPARE(awq->weights.at(0).bitsPerWeight(), 4.15625);
    // NF4 down_proj: 16384 code bytes + 512 f32 absmax + 16 f32 quant_map + 79 JSON bytes.
    const auto nf4 = openFixture(QStringLiteral("bnb-nf4"));
    QCOMPARE(nf4->findWeight("model.layers.0.mlp.down_proj")->bitsPerWeight(), (16384.0 + 2048 + 64 + 79) * 8 / 32768);
    const BitsSummary s = summarizeBits(gptq->weights, true);
    QCOMPARE(s.weights, uint64_t(1));
    QCOMPARE(s.bitsPerWeight(), 4.40625);
}

void TestDetect::ggufFixture()
{
    const auto ckpt = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
    QCOMPARE(ckpt->weights.size(), std::size(kGgufTensors));
    for (const auto& e : kGgufTensors) {
        const LogicalWeight* w = ckpt->findWeight(e.name);
        QVERIFY2(w, e.name);
        QCOMPARE(w->format, "gguf-" + lowerCase(e.type));
        QCOMPARE(w->shape, (std::vector<uint64_t>{e.rows, e.cols}));
        QCOMPARE(w->storedBytes, e.bytes);
        QCOMPARE(sortedRoles(*w), std::string("weight"));
        const GgmlTypeInfo* t = ggmlTypeByName(e.type);
        QVERIFY(t);
        // Effective bpw of a GGUF tensor is its block's: bytes*8/weights (Q4_0 = 4.5, Q6_K = 6.5625).
        QCOMPARE(w->bitsPerWeight(), double(t->blockBytes) * 8.0 / double(t->blockWeights));
        QCOMPARE(w->groupSize, t->blockWeights > 1 ? int64_t(t->blockWeights) : int64_t(0));
        QVERIFY(w->notes.empty());
        QCOMPARE(w->params.size(), size_t(3));
        QCOMPARE(w->params.at("ggml_type"), std::to_string(t->id));
        QCOMPARE(w->params.at("block_weights"), std::to_string(t->blockWeights));
        QCOMPARE(w->params.at("block_bytes"), std::to_string(t->blockBytes));
    }
    QCOMPARE(ckpt->findWeight("synthetic.q4_0")->bitsPerWeight(), 4.5);
    QCOMPARE(ckpt->findWeight("synthetic.q4_0")->bits, 4);
    QCOMPARE(ckpt->findWeight("real.q6_k")->bits, 6);
    QCOMPARE(ckpt->findWeight("real.q4_1")->symmetric, false);
    QCOMPARE(ckpt->findWeight("real.q4_0")->symmetric, true);
    QCOMPARE(ckpt->findWeight("real.bf16")->bits, 16);
}

void TestDetect::ggufRefFixture()
{
    const auto ckpt = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.ref.gguf")).toStdString());
    QCOMPARE(ckpt->weights.size(), size_t(76)); // 72 references + 4 sources
    for (const auto& w : ckpt->weights)
        QCOMPARE(w.format, std::string("gguf-f32"));
    QCOMPARE(ckpt->findWeight("source.synthetic")->shape, (std::vector<uint64_t>{34, 256}));
    QCOMPARE(summarizeBits(ckpt->weights).bitsPerWeight(), 32.0);
    QCOMPARE(summarizeBits(ckpt->weights, true).weights, uint64_t(0));
}

void TestDetect::ggufUnknownType()
{
    // Detection never reads GGUF data, so a checkpoint built in memory is enough here.
    Checkpoint c;
    c.container = Container::Gguf;
    TensorEntry known;
    known.name = "a";
    known.dtype = DType::Ggml;
    known.ggmlType = 12;
    known.typeName = "Q4_K";
    known.shape = {4, 256};
    known.nbytes = 4 * 144;
    TensorEntry unknown = known;
    unknown.name = "b";
    unknown.ggmlType = 77; // no fork uses it (99 is ik_llama.cpp's Q8_1_X4)
    unknown.typeName = "unknown(77)";
    unknown.known = false;
    TensorEntry removed = known;
    removed.name = "c";
    removed.ggmlType = 4;
    removed.typeName = "Q4_2";
    removed.known = false;
    c.tensors = {known, unknown, removed};
    c.buildIndex();
    const auto w = detectWeights(c);
    QCOMPARE(w.size(), size_t(3));
    QCOMPARE(w[0].format, std::string("gguf-q4_k"));
    QCOMPARE(w[0].bitsPerWeight(), 4.5);
    QCOMPARE(w[1].format, std::string("unknown"));
    QVERIFY(hasNote(w[1], "unknown ggml type id 77"));
    QCOMPARE(w[2].format, std::string("unknown"));
    QVERIFY(hasNote(w[2], "Q4_2 (id 4) was removed"));
}

void TestDetect::gptqLabelSaysV1ZerosSayV2()
{
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 4, 0x88888888);
    w.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq")).toUtf8());
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(1));
    const LogicalWeight& l = ckpt->weights[0];
    QCOMPARE(l.format, std::string("gptq-v2"));
    QVERIFY(l.symmetric);
    QVERIFY2(hasNote(l, "config says checkpoint_format gptq, zeros read 0x88888888: v2"), allNotes(l).c_str());
    QCOMPARE(l.params.at("checkpoint_format"), std::string("gptq"));
    QCOMPARE(l.shape, (std::vector<uint64_t>{64, 128}));
    QCOMPARE(l.groupSize, int64_t(32));
}

void TestDetect::gptqLabelSaysV2ZerosSayV1()
{
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 4, 0x77777777);
    w.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq_v2")).toUtf8());
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("gptq-v1"));
    QVERIFY2(hasNote(l, "config says checkpoint_format gptq_v2, zeros read 0x77777777: v1"), allNotes(l).c_str());

    // The same zeros under the matching label: no note.
    QTemporaryDir dir2;
    Writer w2(dir2);
    gptqLayer(w2, "model.layers.0.mlp.up_proj", 4, 0x88888888);
    w2.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq_v2")).toUtf8());
    const auto ok = w2.open();
    QCOMPARE(ok->weights.at(0).format, std::string("gptq-v2"));
    QVERIFY2(ok->weights.at(0).notes.empty(), allNotes(ok->weights.at(0)).c_str());
}

// A config that says sym false keeps its checkpoint_format when every zero field happens to be
// a symmetric zero (an asymmetric per-channel quantization of symmetric rows gives every row
// zero 7: quantize's K = 100 checkpoint repacked to gptq-v2 read back as v1, issue 29).
void TestDetect::gptqAsymmetricConstantZerosKeepTheLabel()
{
    const QByteArray asymConfig = R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32,
        "sym": false, "desc_act": false, "checkpoint_format": "%1"}})";
    struct Case {
        const char* label;
        uint32_t zeros;
        const char* format;
        const char* note; // empty: the zero test and the label agree
    };
    for (const Case& c : {Case{"gptq_v2", 0x77777777, "gptq-v2",
                               "config says sym false: every zero field is 7, as symmetric v1 zeros would be; read "
                               "as v2 by checkpoint_format"},
                          Case{"gptq", 0x88888888, "gptq-v1",
                               "config says sym false: every zero field is 8, as symmetric v2 zeros would be; read "
                               "as v1 by checkpoint_format"},
                          Case{"gptq_v2", 0x88888888, "gptq-v2", ""}}) {
        QTemporaryDir dir;
        Writer w(dir);
        gptqLayer(w, "model.layers.0.mlp.up_proj", 4, c.zeros);
        w.config(QString::fromLatin1(asymConfig).arg(QString::fromLatin1(c.label)).toUtf8());
        const auto ckpt = w.open();
        const LogicalWeight& l = ckpt->weights.at(0);
        QCOMPARE(l.format, std::string(c.format));
        QVERIFY(!l.symmetric);
        if (*c.note)
            QVERIFY2(hasNote(l, c.note), allNotes(l).c_str());
        else
            QVERIFY2(l.notes.empty(), allNotes(l).c_str());
    }
}

// A checkpoint read from memory (repack verifies its output so, before committing it) reads the
// small side tensors detection needs from memory: compressed-tensors' weight_shape gives K (it
// was looked for as a file, "<memory>/model.safetensors: cannot open", and K became the packed width).
void TestDetect::memoryCheckpointReadsSideTensors()
{
    const QString dir = qstest::fixture(QStringLiteral("safetensors/ct-pack-w4a16-g32-asym"));
    QByteArray model, config;
    for (auto [name, bytes] : {std::pair{"model.safetensors", &model}, std::pair{"config.json", &config}}) {
        QFile f(dir + QLatin1Char('/') + QString::fromLatin1(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        *bytes = f.readAll();
    }
    const auto span = [](const QByteArray& b) {
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.constData()), size_t(b.size()));
    };
    const auto mem = Checkpoint::readMemory({{"model.safetensors", span(model)}, {"config.json", span(config)}});
    mem->weights = detectWeights(*mem);
    const auto disk = openCheckpoint(dir.toStdString());
    QCOMPARE(mem->weights.size(), disk->weights.size());
    for (size_t i = 0; i < disk->weights.size(); ++i) {
        QCOMPARE(mem->weights[i].format, disk->weights[i].format);
        QCOMPARE(mem->weights[i].shape, disk->weights[i].shape);
        QVERIFY2(mem->weights[i].notes.size() == disk->weights[i].notes.size(), allNotes(mem->weights[i]).c_str());
    }
}

// The quantization config knows no family: GPTQ's (__metadata__, `dynamic`), MLX's
// (`quantization` entries) and compressed-tensors' (config_groups, ignore) parts reach it through
// their rows' readConfig and answer through its generic questions, in the order they did when
// the config read them itself.
void TestDetect::configPartsFromRows()
{
    for (FormatFamily f : {FormatFamily::Gptq, FormatFamily::Mlx, FormatFamily::CompressedTensors})
        QVERIFY(familyRow(f)->readConfig);
    const QByteArray model = qstest::safetensorsHeader(R"({"__metadata__": {"gptq_bits": "2"}})");
    const QByteArray config = R"({
        "quantization": {"bits": 4, "group_size": 64, "m.off": false, "m.own": {"bits": 8}},
        "quantization_config": {"quant_method": "gptq", "ignore": ["m.ign"],
            "dynamic": {"-:m\\.skip": {}, "+:m\\.dyn": {"bits": 3}},
            "config_groups": {"group_0": {"targets": ["re:m\\.ct.*"]}}}})";
    const auto span = [](const QByteArray& b) {
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.constData()), size_t(b.size()));
    };
    const auto ckpt = Checkpoint::readMemory({{"model.safetensors", span(model)}, {"config.json", span(config)}});
    const detect::QuantConfig cfg(*ckpt);
    QCOMPARE(cfg.method(), std::string("gptq"));
    const auto where = [&](const char* module) {
        const auto h = cfg.getFor(module, {"bits"});
        return h ? h->describe() : std::string("<none>");
    };
    QCOMPARE(where("m.dyn"), std::string("dynamic[+:m\\.dyn]: bits=3"));
    QCOMPARE(where("m.own"), std::string("config.json quantization[m.own]: bits=8"));
    QCOMPARE(where("m.other"), std::string("config.json quantization: bits=4"));
    QCOMPARE(cfg.sources().back().name, std::string("safetensors __metadata__ gptq_*")); // lowest priority
    QVERIFY(cfg.skipsModule("m.off"));
    QVERIFY(!cfg.skipsModule("m.skip")); // GPTQModel's skip is the recipe's, detection still reads the tensors
    const auto entry = [&](const char* module, bool quantized) {
        const auto e = cfg.moduleEntry(module, quantized);
        return e ? (e->excluded ? "excluded: " : "override: ") + e->reason : std::string("<none>");
    };
    QCOMPARE(entry("m.skip", false), std::string("excluded: dynamic[-:m\\.skip] skips this module"));
    QCOMPARE(entry("m.ign", false), std::string("excluded: config.json quantization_config: ignore lists m.ign"));
    QCOMPARE(entry("m.off", false), std::string("excluded: config.json quantization[m.off] = false"));
    QCOMPARE(entry("m.ct1", true),
             std::string("override: config.json quantization_config: config_groups.group_0 targets this module"));
    QCOMPARE(entry("m.plain", false),
             std::string("excluded: config.json quantization_config: no config group targets this module"));
}

void TestDetect::gptq3BitV2Zeros()
{
    // 3-bit v2 symmetric zeros (4 = 0b100 in every field) as a bitstream: the word triplet
    // 0x24924924, 0x49249249, 0x92492492 (spec B.1.1). N = 64 gives 6 words per group.
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj";
    w.words(p + ".qweight", DType::I32, {12, 64}, 0);
    std::vector<uint32_t> z;
    for (int r = 0; r < 4 * 2; ++r)
        z.insert(z.end(), {0x24924924u, 0x49249249u, 0x92492492u});
    w.values(p + ".qzeros", DType::I32, {4, 6}, z);
    w.zeros(p + ".scales", DType::F16, {4, 64});
    w.values(p + ".g_idx", DType::I32, {128}, sequentialGidx(128, 32));
    w.config(R"({"quantization_config": {"quant_method": "gptq", "bits": 3, "group_size": 32, "sym": true}})");
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.bits, 3);
    QCOMPARE(l.format, std::string("gptq-v2"));
    QVERIFY2(
        hasNote(l,
                "no checkpoint_format in the config (gptq assumed), zeros read 0x24924924 0x49249249 0x92492492: v2"),
        allNotes(l).c_str());
}

void TestDetect::gptqMislabeledBits()
{
    // The config says 4 bits; qweight [32, 64] for K = 128 (g_idx length) holds 8-bit codes.
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 8, 0x7F7F7F7F);
    w.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq")).toUtf8());
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.bits, 8);
    QCOMPARE(l.format, std::string("gptq-v1"));
    QCOMPARE(l.shape, (std::vector<uint64_t>{64, 128}));
    QVERIFY2(hasNote(l, "config says bits 4"), allNotes(l).c_str());
    QVERIFY2(hasNote(l, ": 8 bits"), allNotes(l).c_str());
}

void TestDetect::configNumbersBeyondInt64()
{
    // A config number no int64 holds is not an integer (converting it would be undefined, which
    // the sanitizer build checks): the bits come from the tensors, as when the label is absent.
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 8, 0x7F7F7F7F);
    w.config(R"({"quantization_config": {"quant_method": "gptq", "bits": 1e30, "group_size": -1e300}})");
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.bits, 8);
    QCOMPARE(l.shape, (std::vector<uint64_t>{64, 128}));
}

void TestDetect::gptqMislabeledBitsWithoutGidx()
{
    // Without g_idx, K comes from scales rows x group_size (4 x 32), not from the bits label.
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 8, 0x7F7F7F7F, false);
    w.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq")).toUtf8());
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.bits, 8);
    QCOMPARE(l.shape, (std::vector<uint64_t>{64, 128}));
    QVERIFY2(hasNote(l, "config says bits 4"), allNotes(l).c_str());
}

void TestDetect::gptqWithoutGidx()
{
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 4, 0x77777777, false);
    w.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq")).toUtf8());
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("gptq-v1")); // qweight.cols == scales.cols: GPTQ, not AWQ
    QCOMPARE(l.shape, (std::vector<uint64_t>{64, 128}));
    QCOMPARE(l.bits, 4);
    QVERIFY(!l.actOrder);
    QCOMPARE(l.members.size(), size_t(3));
    QVERIFY2(l.notes.empty(), allNotes(l).c_str());
}

void TestDetect::gptqActOrderWithoutDescAct()
{
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj";
    gptqLayer(w, p, 4, 0x77777777, false);
    std::vector<int32_t> g(128);
    for (int k = 0; k < 128; ++k)
        g[size_t(k)] = (k * 7) % 4; // every group still has 32 members, scattered over K
    w.values(p + ".g_idx", DType::I32, {128}, g);
    w.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq")).toUtf8());
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QVERIFY(!l.descAct);
    QVERIFY(l.actOrder);
    QVERIFY2(hasNote(l, "g_idx is not sequential although desc_act is not set"), allNotes(l).c_str());
}

void TestDetect::awqWithoutConfig()
{
    // No config at all: qweight [K, N/8] with qweight.cols*8 == scales.cols is AWQ GEMM.
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.3.self_attn.o_proj";
    w.words(p + ".qweight", DType::I32, {128, 8}, 0);
    w.words(p + ".qzeros", DType::I32, {4, 8}, 0x88888888);
    w.zeros(p + ".scales", DType::F16, {4, 64});
    w.zeros(p + ".bias", DType::F16, {64});
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(2));
    const LogicalWeight* l = ckpt->findWeight(p);
    QVERIFY(l);
    QCOMPARE(l->format, std::string("awq-gemm"));
    QCOMPARE(l->shape, (std::vector<uint64_t>{64, 128}));
    QCOMPARE(l->groupSize, int64_t(32));
    QCOMPARE(l->bits, 4);
    QVERIFY(!l->symmetric);
    QCOMPARE(l->storedBytes, uint64_t(128 * 8 * 4 + 4 * 8 * 4 + 4 * 64 * 2));
    // The bias is its own (unquantized) logical weight, not a member.
    const LogicalWeight* bias = ckpt->findWeight(p + ".bias");
    QVERIFY(bias);
    QCOMPARE(bias->format, std::string("f16"));
}

void TestDetect::mlxAffine()
{
    QTemporaryDir dir;
    Writer w(dir);
    // Layer 0: the global 4-bit g64; layer 1: a per-module override to 8-bit g32. K = 128.
    w.words("model.layers.0.mlp.down_proj.weight", DType::U32, {64, 16}, 0);
    w.zeros("model.layers.0.mlp.down_proj.scales", DType::BF16, {64, 2});
    w.zeros("model.layers.0.mlp.down_proj.biases", DType::BF16, {64, 2});
    w.words("model.layers.1.mlp.down_proj.weight", DType::U32, {64, 32}, 0);
    w.zeros("model.layers.1.mlp.down_proj.scales", DType::BF16, {64, 4});
    w.zeros("model.layers.1.mlp.down_proj.biases", DType::BF16, {64, 4});
    w.zeros("model.norm.weight", DType::BF16, {128});
    w.config(R"({"quantization": {"group_size": 64, "bits": 4,
                 "model.layers.1.mlp.down_proj": {"group_size": 32, "bits": 8}}})");
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(3));
    const LogicalWeight* a = ckpt->findWeight("model.layers.0.mlp.down_proj");
    QVERIFY(a);
    QCOMPARE(a->format, std::string("mlx-affine"));
    QCOMPARE(a->bits, 4);
    QCOMPARE(a->groupSize, int64_t(64));
    QCOMPARE(a->shape, (std::vector<uint64_t>{64, 128}));
    QCOMPARE(sortedRoles(*a), std::string("biases,scales,weight"));
    QVERIFY2(a->notes.empty(), allNotes(*a).c_str());
    const LogicalWeight* b = ckpt->findWeight("model.layers.1.mlp.down_proj");
    QVERIFY(b);
    QCOMPARE(b->bits, 8);
    QCOMPARE(b->groupSize, int64_t(32));
    QCOMPARE(b->shape, (std::vector<uint64_t>{64, 128}));
    QCOMPARE(b->bitsPerWeight(), (64.0 * 32 * 4 + 2 * 64 * 4 * 2) * 8 / (64 * 128));
    QCOMPARE(ckpt->findWeight("model.norm.weight")->format, std::string("bf16"));
}

void TestDetect::mlxWithoutConfig()
{
    QTemporaryDir dir;
    Writer w(dir);
    w.words("lm_head.weight", DType::U32, {64, 16}, 0);
    w.zeros("lm_head.scales", DType::F16, {64, 2});
    w.zeros("lm_head.biases", DType::F16, {64, 2});
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("mlx-affine"));
    QCOMPARE(l.bits * l.groupSize, int64_t(256)); // only bits x group size is fixed by the shapes
    QVERIFY2(hasNote(l, "inferred from shapes"), allNotes(l).c_str());
}

void TestDetect::bnbInt8()
{
    QTemporaryDir dir;
    Writer w(dir);
    w.zeros("model.layers.0.mlp.up_proj.weight", DType::I8, {32, 64});
    w.zeros("model.layers.0.mlp.up_proj.SCB", DType::F32, {32});
    w.zeros("model.layers.0.mlp.up_proj.weight_format", DType::U8, {});
    w.config(R"({"quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": true}})");
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(1));
    const LogicalWeight& l = ckpt->weights[0];
    QCOMPARE(l.format, std::string("bnb-int8"));
    QCOMPARE(l.bits, 8);
    QCOMPARE(l.shape, (std::vector<uint64_t>{32, 64}));
    QCOMPARE(l.groupSize, int64_t(64));
    QCOMPARE(sortedRoles(l), std::string("SCB,weight,weight_format"));
    QCOMPARE(l.storedBytes, uint64_t(2048 + 128 + 1));
}

void TestDetect::compressedTensorsZeroPoints()
{
    QTemporaryDir dir;
    Writer w(dir);
    // N = 16, K = 64, 4-bit, group 32: packed zero points [ceil(16/8), 2]; a second layer with
    // the older unpacked I8 zero points [16, 2] and an act-order g_idx.
    for (const char* p : {"model.layers.0.mlp.up_proj", "model.layers.0.mlp.gate_proj"}) {
        const std::string s(p);
        w.words(s + ".weight_packed", DType::I32, {16, 8}, 0x88888888);
        w.zeros(s + ".weight_scale", DType::F16, {16, 2});
        w.values(s + ".weight_shape", DType::I64, {2}, std::vector<int64_t>{16, 64});
    }
    w.words("model.layers.0.mlp.up_proj.weight_zero_point", DType::I32, {2, 2}, 0x88888888);
    w.zeros("model.layers.0.mlp.gate_proj.weight_zero_point", DType::I8, {16, 2});
    std::vector<int32_t> g(64);
    for (int k = 0; k < 64; ++k)
        g[size_t(k)] = k % 2;
    w.values("model.layers.0.mlp.gate_proj.weight_g_idx", DType::I32, {64}, g);
    w.config(R"({"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
      "symmetric": false, "strategy": "group", "group_size": 32, "actorder": "group"}}}}})");
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(2));
    const LogicalWeight* up = ckpt->findWeight("model.layers.0.mlp.up_proj");
    QVERIFY(up);
    QCOMPARE(up->format, std::string("compressed-tensors"));
    QCOMPARE(up->bits, 4);
    QCOMPARE(up->groupSize, int64_t(32));
    QVERIFY(!up->symmetric);
    QCOMPARE(up->shape, (std::vector<uint64_t>{16, 64}));
    QCOMPARE(up->params.at("zero_point_layout"), std::string("packed"));
    QCOMPARE(up->params.at("strategy"), std::string("group"));
    QCOMPARE(up->storedBytes, uint64_t(16 * 8 * 4 + 16 * 2 * 2 + 16 + 2 * 2 * 4));
    QVERIFY2(up->notes.empty(), allNotes(*up).c_str());
    const LogicalWeight* gate = ckpt->findWeight("model.layers.0.mlp.gate_proj");
    QVERIFY(gate);
    QCOMPARE(gate->params.at("zero_point_layout"), std::string("unpacked"));
    QVERIFY(gate->actOrder);
    QVERIFY(gate->descAct);
    QCOMPARE(sortedRoles(*gate), std::string("weight_g_idx,weight_packed,weight_scale,weight_shape,weight_zero_point"));
}

void TestDetect::fp8Block()
{
    QTemporaryDir dir;
    Writer w(dir);
    w.zeros("model.layers.0.mlp.up_proj.weight", DType::F8_E4M3, {256, 384});
    w.zeros("model.layers.0.mlp.up_proj.weight_scale_inv", DType::F32, {2, 3});
    w.config(R"({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})");
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("fp8-block"));
    QCOMPARE(l.bits, 8);
    QCOMPARE(l.groupSize, int64_t(128));
    QCOMPARE(l.params.at("block"), std::string("128x128"));
    QCOMPARE(l.bitsPerWeight(), (256.0 * 384 + 24) * 8 / (256 * 384));
}

void TestDetect::plainTensorsAndStrays()
{
    QTemporaryDir dir;
    Writer w(dir);
    w.zeros("model.embed_tokens.weight", DType::BF16, {32, 16});
    w.zeros("model.norm.weight", DType::F32, {16});
    w.zeros("lm_head.weight", DType::F8_E5M2, {32, 16});
    w.zeros("model.layers.0.mlp.up_proj.qzeros", DType::I32, {1, 2});
    w.zeros("rope.inv_freq", DType::F64, {8});
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(5));
    QCOMPARE(ckpt->findWeight("model.embed_tokens.weight")->format, std::string("bf16"));
    QCOMPARE(ckpt->findWeight("model.embed_tokens.weight")->bitsPerWeight(), 16.0);
    QCOMPARE(ckpt->findWeight("model.norm.weight")->format, std::string("f32"));
    QCOMPARE(ckpt->findWeight("lm_head.weight")->format, std::string("f8_e5m2"));
    QCOMPARE(ckpt->findWeight("rope.inv_freq")->format, std::string("f64"));
    const LogicalWeight* stray = ckpt->findWeight("model.layers.0.mlp.up_proj.qzeros");
    QVERIFY(stray);
    QCOMPARE(stray->format, std::string("i32"));
    QVERIFY(hasNote(*stray, "looks like a member of a quantized weight"));
    const BitsSummary all = summarizeBits(ckpt->weights);
    QCOMPARE(all.elements, uint64_t(512 + 16 + 512 + 2 + 8));
    QCOMPARE(summarizeBits(ckpt->weights, true).weights, uint64_t(0));
}

void TestDetect::shardedGptq()
{
    // A quantized linear split across shards: qweight and g_idx in shard 1, the rest in shard 2.
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj";
    w.words(p + ".qweight", DType::I32, {16, 64}, 0);
    w.values(p + ".g_idx", DType::I32, {128}, sequentialGidx(128, 32));
    w.words(p + ".qzeros", DType::I32, {4, 8}, 0x77777777);
    w.zeros(p + ".scales", DType::F16, {4, 64});
    w.config(QString::fromLatin1(kGptqConfig).arg(QStringLiteral("gptq")).toUtf8());
    const auto ckpt = w.openSharded(2);
    QCOMPARE(ckpt->files.size(), size_t(2));
    QCOMPARE(ckpt->weights.size(), size_t(1));
    const LogicalWeight& l = ckpt->weights[0];
    QCOMPARE(l.format, std::string("gptq-v1"));
    QCOMPARE(l.shape, (std::vector<uint64_t>{64, 128}));
    QCOMPARE(sortedRoles(l), std::string("g_idx,qweight,qzeros,scales"));
    QCOMPARE(ckpt->tensors[size_t(l.member("qweight"))].file, 0u);
    QCOMPARE(ckpt->tensors[size_t(l.member("qzeros"))].file, 1u);
    QVERIFY2(l.notes.empty(), allNotes(l).c_str());
}

void TestDetect::awqLayouts_data()
{
    QTest::addColumn<QString>("version");
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("groupSize");
    // N = 64, K = 256, g = 128 (G = 2).
    QTest::addRow("gemv") << "gemv"
                          << "awq-gemv" << 4 << 128;
    QTest::addRow("gemv_fast") << "gemv_fast"
                               << "awq-gemv-fast" << 4 << 128;
    QTest::addRow("marlin") << "marlin"
                            << "awq-marlin" << 4 << 128;
}

void TestDetect::awqLayouts()
{
    QFETCH(QString, version);
    QFETCH(QString, format);
    QFETCH(int, bits);
    QFETCH(int, groupSize);
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.self_attn.k_proj";
    const uint64_t N = 64, K = 256;
    if (version == QLatin1String("gemv")) {
        // Zw = roundup(ceil(G/8), 1) = 1 for g >= 128; scales padded to 8 columns.
        w.words(p + ".qweight", DType::I32, {N, K / 8}, 0);
        w.words(p + ".qzeros", DType::I32, {N, 1}, 0);
        w.zeros(p + ".scales", DType::F16, {N, 8});
    } else if (version == QLatin1String("gemv_fast")) {
        w.zeros(p + ".qweight", DType::I16, {N / 4, K});
        w.zeros(p + ".qzeros", DType::F16, {8, N});
        w.zeros(p + ".scales", DType::F16, {8, N});
    } else {
        w.words(p + ".qweight", DType::I32, {K / 16, 2 * N}, 0);
        w.zeros(p + ".scales", DType::F16, {2, N});
    }
    w.config(QStringLiteral(R"({"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128,
        "zero_point": %1, "version": "%2"}})")
                 .arg(version == QLatin1String("marlin") ? QStringLiteral("false") : QStringLiteral("true"), version)
                 .toUtf8());
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(1));
    const LogicalWeight& l = ckpt->weights[0];
    QCOMPARE(QString::fromStdString(l.format), format);
    QCOMPARE(l.bits, bits);
    QCOMPARE(l.groupSize, int64_t(groupSize));
    QCOMPARE(l.shape, (std::vector<uint64_t>{N, K}));
    QCOMPARE(l.params.at("version"), version.toStdString());
    QVERIFY2(l.notes.empty(), allNotes(l).c_str());
}

void TestDetect::gptqMarlin()
{
    QTemporaryDir dir;
    Writer w(dir);
    w.words("model.layers.0.mlp.down_proj.B", DType::I32, {16, 512}, 0); // K = 256, N = 256
    w.zeros("model.layers.0.mlp.down_proj.s", DType::F16, {2, 256});
    w.config(R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true,
        "checkpoint_format": "marlin"}})");
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("gptq-marlin"));
    QCOMPARE(l.shape, (std::vector<uint64_t>{256, 256}));
    QCOMPARE(l.bits, 4);
    QCOMPARE(l.groupSize, int64_t(128));
    QCOMPARE(sortedRoles(l), std::string("B,s"));
    QVERIFY2(l.notes.empty(), allNotes(l).c_str());
}

void TestDetect::hqq()
{
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj";
    w.zeros(p + ".W_q", DType::U8, {1024, 64}); // 4-bit halves of the [2048, 64] grouped view of [64, 2048]
    w.zeros(p + ".scale", DType::F16, {2048, 1});
    w.zeros(p + ".zero", DType::F16, {2048, 1});
    w.values(p + ".shape", DType::I64, {2}, std::vector<int64_t>{64, 2048});
    w.values(p + ".nbits", DType::I32, {}, std::vector<int32_t>{4});
    w.values(p + ".group_size", DType::I32, {}, std::vector<int32_t>{64});
    w.values(p + ".axis", DType::I32, {}, std::vector<int32_t>{1});
    w.bytes(p + ".packing", DType::U8, {7}, {'4', 'b', 'i', 't', '_', 'u', '8'});
    w.zeros(p + ".bias", DType::F16, {64});
    const auto ckpt = w.open();
    QCOMPARE(ckpt->weights.size(), size_t(2));
    const LogicalWeight* l = ckpt->findWeight(p);
    QVERIFY(l);
    QCOMPARE(l->format, std::string("hqq"));
    QCOMPARE(l->bits, 4);
    QCOMPARE(l->groupSize, int64_t(64));
    QCOMPARE(l->shape, (std::vector<uint64_t>{64, 2048}));
    QCOMPARE(l->params.at("packing"), std::string("4bit_u8"));
    QCOMPARE(l->params.at("axis"), std::string("1"));
    QCOMPARE(l->members.size(), size_t(8));
    QCOMPARE(ckpt->findWeight(p + ".bias")->format, std::string("f16"));
}

void TestDetect::configFromMetadata()
{
    // No config files: AutoGPTQ's __metadata__ gptq_* keys are the config (8-bit, v2 label).
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 8, 0x80808080, false);
    const auto ckpt = w.open({{"format", "pt"},
                              {"gptq_bits", "8"},
                              {"gptq_group_size", "32"},
                              {"gptq_checkpoint_format", "gptq_v2"},
                              {"gptq_desc_act", "False"}});
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("gptq-v2"));
    QCOMPARE(l.bits, 8);
    QCOMPARE(l.shape, (std::vector<uint64_t>{64, 128})); // K from qweight rows and the metadata bits
    QVERIFY2(l.notes.empty(), allNotes(l).c_str());
    QVERIFY(std::any_of(l.evidence.begin(), l.evidence.end(),
                        [](const Message& e) { return e.text().find("__metadata__") != std::string::npos; }));
}

void TestDetect::configUnderTextConfig()
{
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "language_model.model.layers.0.mlp.up_proj", 4, 0x88888888);
    w.config(R"({"text_config": {"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32,
        "checkpoint_format": "gptq_v2", "sym": true}}})");
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("gptq-v2"));
    QVERIFY2(l.notes.empty(), allNotes(l).c_str());
    QCOMPARE(l.params.at("checkpoint_format"), std::string("gptq_v2"));
}

void TestDetect::gptqModelDynamicOverride()
{
    // GPTQModel `dynamic`: layer 1 is 8-bit by a regex override; without g_idx, K comes from
    // the per-layer bits, so the override must be applied for the shape to come out right.
    QTemporaryDir dir;
    Writer w(dir);
    gptqLayer(w, "model.layers.0.mlp.up_proj", 4, 0x77777777, false);
    gptqLayer(w, "model.layers.1.mlp.up_proj", 8, 0x7F7F7F7F, false);
    w.config(R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32, "sym": true,
        "checkpoint_format": "gptq", "dynamic": {"+:.*\\.1\\..*": {"bits": 8}, "-:lm_head": {}}}})");
    const auto ckpt = w.open();
    const LogicalWeight* a = ckpt->findWeight("model.layers.0.mlp.up_proj");
    const LogicalWeight* b = ckpt->findWeight("model.layers.1.mlp.up_proj");
    QVERIFY(a && b);
    QCOMPARE(a->bits, 4);
    QCOMPARE(b->bits, 8);
    QCOMPARE(a->shape, (std::vector<uint64_t>{64, 128}));
    QCOMPARE(b->shape, (std::vector<uint64_t>{64, 128}));
    QVERIFY2(b->notes.empty(), allNotes(*b).c_str());
}

void TestDetect::bnbQuantTypeDisagreement()
{
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj.weight";
    w.zeros(p, DType::U8, {1024, 1}); // [32, 64] / 2
    w.zeros(p + ".absmax", DType::F32, {32});
    w.zeros(p + ".quant_map", DType::F32, {16});
    const QByteArray js = R"({"quant_type": "fp4", "blocksize": 64, "dtype": "bfloat16", "shape": [32, 64]})";
    w.bytes(p + ".quant_state.bitsandbytes__fp4", DType::U8, {uint64_t(js.size())},
            std::vector<uint8_t>(js.begin(), js.end()));
    w.config(R"({"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true,
        "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": false}})");
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("bnb-fp4")); // the stored state wins
    QCOMPARE(l.shape, (std::vector<uint64_t>{32, 64}));
    QCOMPARE(l.params.at("dtype"), std::string("bfloat16"));
    QVERIFY2(hasNote(l, "config says bnb_4bit_quant_type nf4, the stored quant_state says fp4"), allNotes(l).c_str());
}

void TestDetect::namedOnlyFormats()
{
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj";
    w.zeros(p + ".trellis", DType::I16, {4, 16, 256}); // EXL3: K = 64, N = 256 in 16x16 tiles
    w.zeros(p + ".suh", DType::F16, {64});
    w.zeros(p + ".svh", DType::F16, {256});
    w.zeros(p + ".mcg", DType::I32, {1});
    const auto ckpt = w.open();
    const LogicalWeight& l = ckpt->weights.at(0);
    QCOMPARE(l.format, std::string("exl3"));
    QCOMPARE(l.shape, (std::vector<uint64_t>{256, 64}));
    QVERIFY(hasNote(l, "not decoded"));
    QCOMPARE(l.members.size(), size_t(4));
}

// EXL3 by its trellis (exllamav3's LinearEXL3): shape and bits from the trellis, checked against
// suh and svh, the codebook from mcg / mul1; named with why it is not decoded.
void TestDetect::exl3Trellis()
{
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj", q = "model.layers.0.mlp.down_proj";
    w.zeros(p + ".trellis", DType::I16, {16, 8, 64}); // K 256, N 128, 4 bits
    w.zeros(p + ".suh", DType::F16, {256});
    w.zeros(p + ".svh", DType::F16, {128});
    w.values(p + ".mcg", DType::I32, {1}, std::vector<int32_t>{int32_t(0xCBAC1FED)});
    w.zeros(q + ".trellis", DType::I16, {16, 8, 40}); // 2.5 bits
    w.zeros(q + ".suh", DType::F16, {256});
    w.zeros(q + ".svh", DType::F16, {100}); // not the trellis' 128
    w.zeros(q + ".mul1", DType::I32, {1});
    const auto ckpt = w.open();
    const LogicalWeight* up = ckpt->findWeight(p);
    QVERIFY(up);
    QCOMPARE(up->format, std::string("exl3"));
    QCOMPARE(up->shape, (std::vector<uint64_t>{128, 256}));
    QCOMPARE(up->bits, 4);
    QCOMPARE(up->params.at("codebook"), std::string("mcg"));
    QCOMPARE(up->members.size(), size_t(4));
    QVERIFY2(hasNote(*up, "4 bits a weight, mcg codebook") && hasNote(*up, "on the GPU only (CUDA and Triton kernels)"),
             allNotes(*up).c_str());
    QVERIFY(!dequantFunction(up->format));
    const LogicalWeight* down = ckpt->findWeight(q);
    QVERIFY(down);
    QCOMPARE(down->format, std::string("exl3"));
    QVERIFY(down->shape.empty());
    QCOMPARE(down->params.at("bits"), std::string("2.5"));
    QVERIFY2(hasNote(*down, "shape refused")
                 && hasNote(*down,
                            "trellis [16, 8, 40] holds [128, 256] weights, suh and "
                            "svh say 100 x 256"),
             allNotes(*down).c_str());
}

// AMD Quark by its config: its FP8 weight with weight_scale is Quark's, not compressed-tensors'.
void TestDetect::quarkFromConfig()
{
    QTemporaryDir dir;
    Writer w(dir);
    const std::string p = "model.layers.0.mlp.up_proj";
    w.zeros(p + ".weight", DType::F8_E4M3, {16, 32});
    w.values(p + ".weight_scale", DType::F32, {}, std::vector<float>{0.5f});
    w.values(p + ".input_scale", DType::F32, {}, std::vector<float>{0.25f});
    w.zeros("lm_head.weight", DType::F32, {4, 32});
    w.config(R"({"quantization_config": {"quant_method": "quark", "exclude": ["lm_head"],
                "global_quant_config": {"weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": false},
                                        "input_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}}}})");
    const auto ckpt = w.open();
    const LogicalWeight* up = ckpt->findWeight(p);
    QVERIFY(up);
    QCOMPARE(up->format, std::string("quark"));
    QCOMPARE(up->shape, (std::vector<uint64_t>{16, 32}));
    QCOMPARE(up->params.at("dtype"), std::string("fp8_e4m3"));
    QCOMPARE(up->params.at("qscheme"), std::string("per_tensor"));
    QCOMPARE(up->members.size(), size_t(3));
    QVERIFY2(hasNote(*up,
                     "AMD Quark export, weights fp8_e4m3 per_tensor: named, not decoded; its codes are 'weight' "
                     "(F8_E4M3 [16, 32]), their scales 'weight_scale' (F32)"),
             allNotes(*up).c_str());
    QVERIFY(!dequantFunction(up->format));
    QCOMPARE(ckpt->findWeight("lm_head.weight")->format, std::string("f32"));
}

// Tensors without a module name that are named like a member of a quantized weight (an HQQ
// layer saved at the top level): listed as plain tensors, each with a note, not as silent integers.
void TestDetect::topLevelMembers()
{
    QTemporaryDir dir;
    Writer w(dir);
    w.zeros("W_q", DType::U8, {32, 64});
    w.zeros("scale", DType::F16, {64, 1});
    w.zeros("zero", DType::F16, {64, 1});
    w.zeros("model.norm.weight", DType::F32, {64});
    const auto ckpt = w.open();
    const LogicalWeight* wq = ckpt->findWeight("W_q");
    QVERIFY(wq);
    QCOMPARE(wq->format, std::string("u8"));
    QVERIFY2(hasNote(*wq, "'W_q' is named like a member of a quantized weight but has no module name"),
             allNotes(*wq).c_str());
    for (const char* name : {"scale", "zero"}) {
        const LogicalWeight* t = ckpt->findWeight(name);
        QVERIFY(t);
        QVERIFY2(hasNote(*t, "sits at the top level beside 'W_q'"), allNotes(*t).c_str());
    }
    QVERIFY(ckpt->findWeight("model.norm.weight")->notes.empty());
}

void TestDetect::hostileShapes()
{
    // Shapes and small tensors that make no sense: detection must finish, claim each tensor
    // once, and explain itself in notes instead of crashing or throwing.
    QTemporaryDir dir;
    Writer w(dir);
    w.zeros("a.qweight", DType::I32, {0, 64});
    w.zeros("a.scales", DType::F16, {4, 64});
    w.zeros("a.qzeros", DType::I32, {4, 8});
    w.zeros("a.g_idx", DType::I32, {0});
    w.zeros("b.qweight", DType::I32, {16, 64});
    w.zeros("b.scales", DType::F16, {0, 64});
    w.zeros("b.qzeros", DType::F16, {0, 8});
    w.values("b.g_idx", DType::I32, {128}, std::vector<int32_t>(128, -7));
    w.zeros("c.weight_packed", DType::I32, {16, 8});
    w.zeros("c.weight_scale", DType::F16, {16, 0});
    w.values("c.weight_shape", DType::I64, {2}, std::vector<int64_t>{-1, int64_t(1) << 62});
    const QByteArray junk = "{not json";
    w.bytes("d.weight", DType::U8, {8, 1}, std::vector<uint8_t>(8, 0));
    w.zeros("d.weight.absmax", DType::F32, {1});
    w.bytes("d.weight.quant_state.bitsandbytes__nf4", DType::U8, {uint64_t(junk.size())},
            std::vector<uint8_t>(junk.begin(), junk.end()));
    const QByteArray huge = R"({"quant_type": "nf4", "blocksize": 0, "shape": [1099511627776, 1099511627776]})";
    w.bytes("e.weight", DType::U8, {8, 1}, std::vector<uint8_t>(8, 0));
    w.zeros("e.weight.absmax", DType::F32, {1});
    w.bytes("e.weight.quant_state.bitsandbytes__nf4", DType::U8, {uint64_t(huge.size())},
            std::vector<uint8_t>(huge.begin(), huge.end()));
    w.zeros("f.weight", DType::U32, {64, 0});
    w.zeros("f.scales", DType::F16, {64, 0});
    w.zeros("f.biases", DType::F16, {64, 0});
    w.zeros("g.W_q", DType::U8, {4, 4});
    w.zeros("g.nbits", DType::F32, {});
    w.zeros("g.shape", DType::I64, {3});
    w.zeros("h.B", DType::I32, {0, 0});
    w.zeros("h.s", DType::F16, {0, 0});
    w.config(R"({"quantization_config": {"quant_method": "gptq", "bits": 0, "group_size": -1,
        "dynamic": {"+:((": {"bits": 3}}}})");
    std::shared_ptr<const Checkpoint> ckpt;
    try {
        ckpt = w.open();
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    std::set<size_t> seen;
    for (const auto& l : ckpt->weights)
        for (const auto& [role, idx] : l.members)
            QVERIFY(seen.insert(idx).second);
    QCOMPARE(seen.size(), ckpt->tensors.size());
    const LogicalWeight* d = ckpt->findWeight("d");
    QVERIFY(d);
    QVERIFY2(hasNote(*d, "is not a JSON object"), allNotes(*d).c_str());
    const LogicalWeight* b = ckpt->findWeight("b");
    QVERIFY(b);
    QVERIFY(!b->notes.empty());
}

void TestDetect::formatRegistry()
{
    std::set<std::string> ids;
    for (const FormatInfo& f : formatInfos()) {
        QVERIFY2(ids.insert(f.id).second, f.id.c_str());
        QCOMPARE(f.id, lowerCase(f.id));
        QVERIFY2(!f.description.empty(), f.id.c_str());
        QVERIFY(findFormat(f.id) == &f);
    }
    // Every ggml type that files may hold has gguf-<name>; removed ids have none.
    for (const GgmlTypeInfo& t : ggmlTypes()) {
        const std::string id = "gguf-" + lowerCase(std::string(t.name));
        QCOMPARE(findFormat(id) != nullptr, !t.removed);
    }
    for (const char* id :
         {"f32",           "f16",         "bf16",       "f8_e4m3", "f8_e5m2", "gguf-q4_0", "gguf-q4_k",
          "gguf-iq4_xs",   "gguf-nvfp4",  "gguf-q2_0",  "gptq-v1", "gptq-v2", "awq-gemm",  "awq-gemv",
          "awq-gemv-fast", "gptq-marlin", "awq-marlin", "bnb-nf4", "bnb-fp4", "bnb-int8",  "compressed-tensors",
          "mlx-affine",    "hqq",         "fp8-block",  "unknown"})
        QVERIFY2(findFormat(id), id);
    QCOMPARE(findFormat("gptq-v2")->family, FormatFamily::Gptq);
    QVERIFY(findFormat("gguf-q4_k")->quantized);
    QVERIFY(!findFormat("f16")->quantized);
    QCOMPARE(findFormat("gguf-q6_k")->bits, 6);
    QCOMPARE(plainFormatId(DType::F8_E4M3), std::string("f8_e4m3"));
    QCOMPARE(ggufFormatId("IQ4_XS"), std::string("gguf-iq4_xs"));
    QCOMPARE(ggufFormatId("Q4_2"), std::string());
}

void TestDetect::parseFormatIds()
{
    QCOMPARE(parseFormatId("gptq-v2").id, std::string("gptq-v2"));
    QCOMPARE(parseFormatId("  GGUF-Q4_K ").id, std::string("gguf-q4_k"));
    // Aliases: the short names users type; an id wins over an alias (gguf-f16's is "f16").
    QCOMPARE(parseFormatId("q4_k").id, std::string("gguf-q4_k"));
    QCOMPARE(parseFormatId(" GPTQ").id, std::string("gptq-v1"));
    QCOMPARE(parseFormatId("awq").id, std::string("awq-gemm"));
    QCOMPARE(parseFormatId("mlx").id, std::string("mlx-affine"));
    QCOMPARE(parseFormatId("ct").id, std::string("compressed-tensors"));
    QCOMPARE(parseFormatId("nf4").id, std::string("bnb-nf4"));
    QCOMPARE(parseFormatId("f16").id, std::string("f16"));
    QVERIFY(!resolveFormatId("q4"));
    try {
        parseFormatId("q4", "--to");
        QFAIL("no error for an unknown id");
    } catch (const Error& e) {
        const std::string msg = e.what();
        QVERIFY2(msg.find("--to: unknown format 'q4'") != std::string::npos, e.what());
        QVERIFY2(msg.find("gguf-q4_k") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, parseFormatId("unknown"));
    QVERIFY_THROWS_EXCEPTION(Error, parseFormatId(""));
}

// LogicalWeight::params: a sorted flat map with std::map's calls.
void TestDetect::paramsFlatMap()
{
    WeightParams p;
    QVERIFY(p.empty());
    p["zero_test"] = "v1";
    p["ct_format"] = "pack-quantized";
    p["mode"] = "affine";
    p["ct_format"] += "!"; // an existing key: the same entry
    QCOMPARE(p.size(), size_t(3));
    std::vector<std::string> keys;
    for (const auto& [k, v] : p)
        keys.push_back(k);
    QCOMPARE(keys, (std::vector<std::string>{"ct_format", "mode", "zero_test"}));
    QCOMPARE(p.at("ct_format"), std::string("pack-quantized!"));
    QCOMPARE(p.count("mode"), size_t(1));
    QCOMPARE(p.count("mod"), size_t(0));
    QVERIFY(p.find("zero") == p.end());
    QCOMPARE(p.find("zero_test")->second, std::string("v1"));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, p.at("absent"));
}

QTEST_GUILESS_MAIN(TestDetect)
#include "tst_detect.moc"
