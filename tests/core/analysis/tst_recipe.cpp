// The recipe summary: a GGUF written here with llama-quantize's fallback pattern (a K-quant
// file type, rows of 64 and 172) names every fallen-back tensor with its reason and cost; two
// files differing in a few tensors differ in exactly those; the safetensors rules read GPTQModel
// `dynamic`, MLX per-module entries, compressed-tensors groups and modules_to_not_convert; and
// llama-quantize's own MOSTLY_Q4_K_M output holds no Q4_K tensor.
#include "analysis/recipe.h"
#include "container/ggmltype.h"
#include "container/gguf.h"
#include "formats/opencheckpoint.h"

#include "testsupport.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace qs;

namespace {

struct TensorSpec {
    std::string name;
    int type;
    std::vector<uint64_t> ne; // GGUF order
};

// A GGUF of the given file type whose tensors hold zero bytes of the right size.
std::string writeRecipeGguf(const QString& dir, const std::string& file, uint32_t fileType,
                            const std::vector<TensorSpec>& specs)
{
    GgufMetadata meta;
    meta.emplace_back("general.architecture",
                      MetaValue{MetaValue::Type::String, MetaValue::Type::U8, std::string("llama")});
    meta.emplace_back("general.file_type", MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, uint64_t(fileType)});
    std::vector<std::vector<uint8_t>> blobs;
    blobs.reserve(specs.size());
    std::vector<GgufTensor> tensors;
    for (const TensorSpec& s : specs) {
        const GgmlTypeInfo* t = ggmlType(s.type);
        uint64_t rows = 1;
        for (size_t i = 1; i < s.ne.size(); ++i)
            rows *= s.ne[i];
        blobs.emplace_back(rows * t->rowBytes(s.ne[0]), uint8_t(0));
        tensors.push_back({s.name, s.type, s.ne, blobs.back()});
    }
    const std::string path = (dir + QLatin1Char('/')).toStdString() + file;
    writeGguf(path, meta, tensors);
    return path;
}

// The stories260K shapes as llama-quantize's Q4_K_M stores them: 64-wide rows fall back to
// Q5_0 (attn_v and output to Q8_0 from the mix's Q6_K), 172-wide ffn_down to F16; plus one
// 256-wide tensor that fits Q4_K and one the mix gives Q6_K.
std::vector<TensorSpec> fallbackPattern()
{
    return {
        {"token_embd.weight", GgmlQ5_0, {64, 512}},    {"output_norm.weight", GgmlF32, {64}},
        {"output.weight", GgmlQ8_0, {64, 512}},        {"blk.0.attn_norm.weight", GgmlF32, {64}},
        {"blk.0.attn_q.weight", GgmlQ5_0, {64, 64}},   {"blk.0.attn_v.weight", GgmlQ8_0, {64, 32}},
        {"blk.0.ffn_down.weight", GgmlF16, {172, 64}}, {"blk.0.ffn_up.weight", GgmlQ5_0, {64, 172}},
        {"blk.1.attn_q.weight", GgmlQ4_K, {256, 64}},  {"blk.1.attn_v.weight", GgmlQ6_K, {256, 32}},
    };
}

const RecipeTensor& tensorNamed(const RecipeSummary& s, const std::string& name)
{
    for (const RecipeTensor& t : s.tensors)
        if (t.name == name)
            return t;
    qFatal("no tensor %s", name.c_str());
}

LogicalWeight configWeight(const std::string& name, const std::string& format, int bits, int64_t group, uint64_t out,
                           uint64_t in, uint64_t bytes)
{
    LogicalWeight w;
    w.name = name;
    w.format = format;
    w.bits = bits;
    w.groupSize = group;
    w.shape = {out, in};
    w.storedBytes = bytes;
    return w;
}

} // namespace

class TestRecipe : public QObject {
    Q_OBJECT
private slots:
    // A viewer starts on a typical layer: llama-quantize's output lists output.weight (Q8_0)
    // and token_embd.weight (Q5_0) before block 0; the demo-sized safetensors fixtures start in
    // model.layers.0; a float checkpoint starts at its first weight.
    void firstWeightToShowIsInABlock()
    {
        const auto gguf = openCheckpoint(
            qstest::fixture(QStringLiteral("real/generated-llama-quantize/stories260K-mix-Q4_K_M.gguf")).toStdString());
        QCOMPARE(gguf->weights.front().name, std::string("output.weight"));
        QCOMPARE(gguf->weights[firstWeightToShow(*gguf)].name, std::string("blk.0.attn_k.weight"));
        const auto gptq = openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/model.safetensors")).toStdString());
        QCOMPARE(gptq->weights[firstWeightToShow(*gptq)].name, std::string("model.layers.0.mlp.down_proj"));
        const auto ref = openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/gptq-w4-g32-asym/ref.safetensors")).toStdString());
        QCOMPARE(firstWeightToShow(*ref), size_t(0));
    }

    void fallbacksNamedWithReasonAndCost()
    {
        QTemporaryDir dir;
        const auto ckpt = openCheckpoint(writeRecipeGguf(dir.path(), "q4km.gguf", 15, fallbackPattern()));
        const RecipeSummary s = summarizeRecipe(*ckpt);
        QVERIFY(s.hasNominal);
        QCOMPARE(s.nominal.name.text(), std::string("MOSTLY_Q4_K_M"));
        QVERIFY(s.nominal.format);
        QCOMPARE(s.nominal.format->id, std::string("gguf-q4_k"));
        QCOMPARE(s.nominal.bitsPerWeight, 4.5); // 144 bytes per 256 weights

        const std::vector<std::string> fellBack = {"token_embd.weight",     "output.weight",
                                                   "blk.0.attn_q.weight",   "blk.0.attn_v.weight",
                                                   "blk.0.ffn_down.weight", "blk.0.ffn_up.weight"};
        QCOMPARE(s.count(RecipeKind::Fallback), fellBack.size());
        double extra = 0;
        for (const std::string& name : fellBack) {
            const RecipeTensor& t = tensorNamed(s, name);
            QCOMPARE(t.verdict.kind, RecipeKind::Fallback);
            // Stored bits minus 4.5 bits for each weight.
            QCOMPARE(t.extraBits, double(t.bytes) * 8.0 - 4.5 * double(t.elements));
            extra += t.extraBits;
        }
        QCOMPARE(s.extraBits(RecipeKind::Fallback), extra);
        const RecipeTensor& q = tensorNamed(s, "blk.0.attn_q.weight");
        QCOMPARE(q.verdict.reason,
                 std::string("row length 64 is not a multiple of Q4_K's 256-weight block: "
                             "llama-quantize falls back to Q5_0"));
        QCOMPARE(q.extraBits, 64.0 * 64.0 * (5.5 - 4.5));
        const RecipeTensor& down = tensorNamed(s, "blk.0.ffn_down.weight");
        QVERIFY(down.verdict.reason.find("row length 172") == 0);
        QVERIFY(down.verdict.reason.find("Q5_0's 32") != std::string::npos);
        QCOMPARE(down.extraBits, 172.0 * 64.0 * (16.0 - 4.5));
        QVERIFY(tensorNamed(s, "output.weight").verdict.reason.find("fallback for Q6_K") != std::string::npos);
        QVERIFY(tensorNamed(s, "blk.0.attn_v.weight").verdict.reason.find("fallback for Q6_K") != std::string::npos);

        QCOMPARE(tensorNamed(s, "blk.1.attn_q.weight").verdict.kind, RecipeKind::Nominal);
        QCOMPARE(tensorNamed(s, "blk.1.attn_v.weight").verdict.kind, RecipeKind::Mix);
        QCOMPARE(tensorNamed(s, "output_norm.weight").verdict.kind, RecipeKind::KeptFloat);
        QCOMPARE(tensorNamed(s, "blk.0.attn_norm.weight").verdict.kind, RecipeKind::KeptFloat);
        QCOMPARE(s.quantizable, uint64_t(8));

        // Per type and per layer.
        QCOMPARE(s.types.front().label, std::string("Q5_0")); // token_embd's 32768 weights lead
        QCOMPARE(s.layers.size(), size_t(3));
        QCOMPARE(s.layers[0].layer, 0);
        QCOMPARE(s.layers[2].layer, -1);
        const uint64_t layer0Bytes = 64 * 64 / 32 * 22 + 32 * 64 / 32 * 34 + 172 * 64 * 2 + 172 * 64 / 32 * 22 + 64 * 4;
        QCOMPARE(s.layers[0].bytes, layer0Bytes);
        QCOMPARE(tensorNamed(s, "blk.0.ffn_down.weight").role, std::string("ffn_down"));
        QCOMPARE(tensorNamed(s, "blk.0.ffn_down.weight").layer, 0);

        const auto lines = recipeOverview(s);
        QVERIFY(lines.size() >= 3);
        QVERIFY2(lines[2].text().find("Fell back:  quantized weights that did not fit the nominal type's block: 6 of 8")
                     == 0,
                 lines[2].text().c_str());
    }

    void sideBySideListsExactlyTheDifferences()
    {
        QTemporaryDir dir;
        auto specs = fallbackPattern();
        const auto a = openCheckpoint(writeRecipeGguf(dir.path(), "a.gguf", 15, specs));
        specs[4].type = GgmlQ8_0; // blk.0.attn_q
        specs[8].type = GgmlQ5_K; // blk.1.attn_q
        specs.erase(specs.begin() + 9); // blk.1.attn_v only in A
        specs.push_back({"blk.1.ffn_up.weight", GgmlQ4_K, {256, 8}}); // only in B
        const auto b = openCheckpoint(writeRecipeGguf(dir.path(), "b.gguf", 17, specs));
        const RecipeComparison c = compareRecipes(*a, *b);
        QCOMPARE(c.matched, size_t(9));
        QCOMPARE(c.differing.size(), size_t(4));
        QCOMPARE(c.differing[0].nameA, std::string("blk.0.attn_q.weight"));
        QCOMPARE(c.differing[0].labelA, std::string("Q5_0"));
        QCOMPARE(c.differing[0].labelB, std::string("Q8_0"));
        QCOMPARE(c.differing[0].bitsB, 8.5);
        QCOMPARE(c.differing[1].labelB, std::string("Q5_K"));
        QCOMPARE(c.differing[2].role, std::string("attn_v"));
        QVERIFY(c.differing[2].nameB.empty());
        QCOMPARE(c.differing[3].role, std::string("ffn_up"));
        QVERIFY(c.differing[3].nameA.empty());
        QCOMPARE(c.layers.size(), size_t(3));
        QCOMPARE(c.layers[0].bitsA, c.a.layers[0].bitsPerWeight());
        QCOMPARE(c.layers[0].bitsB, c.b.layers[0].bitsPerWeight());
    }

    void huggingFaceNamesMeetGgufNames()
    {
        QCOMPARE(recipeLayerRole("model.layers.3.self_attn.q_proj", "llama"), std::make_pair(3, std::string("attn_q")));
        QCOMPARE(recipeLayerRole("model.layers.12.mlp.down_proj.weight", "llama"),
                 std::make_pair(12, std::string("ffn_down")));
        QCOMPARE(recipeLayerRole("blk.7.ffn_gate_exps.weight", ""), std::make_pair(7, std::string("ffn_gate_exps")));
        QCOMPARE(recipeLayerRole("encoder.layers.2.fc1.weight", ""), std::make_pair(2, std::string("fc1")));
        QCOMPARE(recipeLayerRole("lm_head.weight", ""), std::make_pair(-1, std::string("lm_head")));
    }

    void gptqDynamicAndModulesToNotConvert()
    {
        Checkpoint c;
        c.config = QJsonObject{
            {QStringLiteral("quantization_config"),
             QJsonObject{
                 {QStringLiteral("quant_method"), QStringLiteral("gptq")},
                 {QStringLiteral("bits"), 4},
                 {QStringLiteral("group_size"), 128},
                 {QStringLiteral("modules_to_not_convert"), QJsonArray{QStringLiteral("lm_head")}},
                 {QStringLiteral("dynamic"),
                  QJsonObject{{QStringLiteral("+:.*\\.0\\.mlp\\.down_proj"), QJsonObject{{QStringLiteral("bits"), 8}}},
                              {QStringLiteral("-:.*\\.1\\.mlp"), QJsonObject{}}}}}}};
        c.weights = {
            configWeight("model.layers.0.self_attn.q_proj", "gptq-v1", 4, 128, 256, 256, 256 * 256 / 2 + 1024),
            configWeight("model.layers.0.mlp.down_proj", "gptq-v1", 8, 128, 256, 256, 256 * 256 + 2048),
            configWeight("model.layers.1.mlp.up_proj", "f16", 16, 0, 512, 256, 512 * 256 * 2),
            configWeight("model.layers.1.self_attn.q_proj", "gptq-v1", 4, 128, 256, 256, 256 * 256 / 2 + 1024),
            configWeight("lm_head", "f16", 16, 0, 1000, 256, 1000 * 256 * 2),
            configWeight("model.layers.2.self_attn.k_proj", "gptq-v1", 4, 32, 256, 256, 256 * 256 / 2 + 4096),
        };
        const RecipeSummary s = summarizeRecipe(c);
        QVERIFY(s.hasNominal);
        QCOMPARE(s.nominal.name.text(), std::string("gptq 4-bit, group 128"));
        QCOMPARE(s.nominal.source.text(),
                 std::string("config.json quantization_config: bits, config.json quantization_config: group_size"));
        QCOMPARE(s.nominal.bitsPerWeight, double(2 * (256 * 256 / 2 + 1024)) * 8.0 / (2 * 256 * 256));
        QCOMPARE(s.tensors[0].verdict.kind, RecipeKind::Nominal);
        QCOMPARE(s.tensors[1].verdict.kind, RecipeKind::Override);
        QCOMPARE(s.tensors[1].verdict.reason, std::string("dynamic[+:.*\\.0\\.mlp\\.down_proj]: {\"bits\":8}"));
        QCOMPARE(s.tensors[2].verdict.kind, RecipeKind::Excluded);
        QCOMPARE(s.tensors[2].verdict.reason, std::string("dynamic[-:.*\\.1\\.mlp] skips this module"));
        QCOMPARE(s.tensors[3].verdict.kind, RecipeKind::Nominal);
        QCOMPARE(s.tensors[4].verdict.kind, RecipeKind::Excluded);
        QCOMPARE(s.tensors[4].verdict.reason,
                 std::string("config.json quantization_config: modules_to_not_convert lists lm_head"));
        QCOMPARE(s.tensors[5].verdict.kind, RecipeKind::Unexplained);
        QCOMPARE(s.types.size(), size_t(4));
        QCOMPARE(s.tensors[5].label, std::string("gptq-v1 4-bit g32"));
    }

    void mlxPerModuleAndCompressedTensorsGroups()
    {
        Checkpoint m;
        m.config =
            QJsonObject{{QStringLiteral("quantization"),
                         QJsonObject{{QStringLiteral("bits"), 4},
                                     {QStringLiteral("group_size"), 64},
                                     {QStringLiteral("model.layers.0.mlp.down_proj"),
                                      QJsonObject{{QStringLiteral("bits"), 6}, {QStringLiteral("group_size"), 64}}},
                                     {QStringLiteral("model.layers.0.mlp.gate"), false}}}};
        m.weights = {
            configWeight("model.layers.0.self_attn.q_proj", "mlx-affine", 4, 64, 128, 128, 128 * 128 / 2 + 1024),
            configWeight("model.layers.0.mlp.down_proj", "mlx-affine", 6, 64, 128, 128, 128 * 128 * 3 / 4 + 1024),
            configWeight("model.layers.0.mlp.gate", "bf16", 16, 0, 8, 128, 8 * 128 * 2),
            configWeight("model.layers.0.mlp.odd", "bf16", 16, 0, 8, 100, 8 * 100 * 2),
        };
        const RecipeSummary ms = summarizeRecipe(m);
        QVERIFY(ms.hasNominal);
        QCOMPARE(ms.nominal.name.text(), std::string("mlx 4-bit, group 64"));
        QCOMPARE(ms.tensors[1].verdict.kind, RecipeKind::Override);
        QVERIFY(ms.tensors[1].verdict.reason.find("quantization[model.layers.0.mlp.down_proj]") != std::string::npos);
        QCOMPARE(ms.tensors[2].verdict.kind, RecipeKind::Excluded);
        QCOMPARE(ms.tensors[3].verdict.kind, RecipeKind::KeptFloat);
        QCOMPARE(ms.tensors[3].verdict.reason, std::string("in_features 100 is not a multiple of the group size 64"));

        Checkpoint ct;
        const QJsonObject g4{{QStringLiteral("targets"), QJsonArray{QStringLiteral("Linear")}},
                             {QStringLiteral("weights"), QJsonObject{{QStringLiteral("num_bits"), 4}}}};
        const QJsonObject g8{{QStringLiteral("targets"), QJsonArray{QStringLiteral("re:.*down_proj")}},
                             {QStringLiteral("weights"), QJsonObject{{QStringLiteral("num_bits"), 8}}}};
        ct.config =
            QJsonObject{{QStringLiteral("quantization_config"),
                         QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("compressed-tensors")},
                                     {QStringLiteral("config_groups"),
                                      QJsonObject{{QStringLiteral("group_0"), g4}, {QStringLiteral("group_1"), g8}}},
                                     {QStringLiteral("ignore"), QJsonArray{QStringLiteral("lm_head")}}}}};
        ct.weights = {
            configWeight("model.layers.0.mlp.up_proj", "compressed-tensors", 4, 128, 512, 256, 70000),
            configWeight("model.layers.0.mlp.down_proj", "compressed-tensors", 8, 128, 256, 256, 70000),
            configWeight("lm_head", "bf16", 16, 0, 256, 256, 256 * 256 * 2),
        };
        const RecipeSummary cs = summarizeRecipe(ct);
        QVERIFY(cs.hasNominal);
        QCOMPARE(cs.tensors[0].verdict.kind, RecipeKind::Nominal);
        QCOMPARE(cs.tensors[1].verdict.kind, RecipeKind::Override);
        QVERIFY(cs.tensors[1].verdict.reason.find("config_groups.group_1") != std::string::npos);
        QCOMPARE(cs.tensors[2].verdict.kind, RecipeKind::Excluded);
        QVERIFY(cs.tensors[2].verdict.reason.find("ignore lists lm_head") != std::string::npos);
    }

    void llamaQuantizeQ4KMHoldsNoQ4K()
    {
        const QString path =
            qstest::fixture(QStringLiteral("real/generated-llama-quantize/stories260K-mix-Q4_K_M.gguf"));
        const auto ckpt = openCheckpoint(path.toStdString());
        const RecipeSummary s = summarizeRecipe(*ckpt);
        QCOMPARE(s.nominal.name.text(), std::string("MOSTLY_Q4_K_M"));
        QCOMPARE(s.count(RecipeKind::Nominal), size_t(0));
        QCOMPARE(s.count(RecipeKind::Fallback), size_t(37)); // every 2-D weight
        QCOMPARE(s.count(RecipeKind::KeptFloat), size_t(11)); // the norms
        for (const RecipeTypeRow& t : s.types)
            QVERIFY(t.label != "Q4_K");
    }

    void noNominalGivesATally()
    {
        const QString path = qstest::fixture(QStringLiteral("real/ollama/minicpm3-4b-model.safetensors"));
        const auto ckpt = openCheckpoint(path.toStdString());
        const RecipeSummary s = summarizeRecipe(*ckpt);
        QVERIFY(!s.hasNominal);
        QVERIFY(!s.types.empty());
        QCOMPARE(s.tensors.size(), ckpt->weights.size());
    }
};

QTEST_GUILESS_MAIN(TestRecipe)
#include "tst_recipe.moc"
