// The interface suite of the family table (Okteta's abstract-interface tests, one case per
// implementation): every FamilyRow in familyRows() runs the same checks.
//  - the table: one row per line of formats/families.def, in its order, for its FormatFamily value;
//  - its ids: the row gives some, every listed id comes from exactly one row, and each has the
//    hooks its traits promise (a kernel, codes, a round trip);
//  - its layouts: what the row registers is exactly the specs of the ids it gives;
//  - its traits: a decoded format has a rows kernel; integerCodes means the row reads codes;
//  - its checkpoints (upstream fixtures, else files the suite writes) detect as its family;
//    every SIMD path this machine has writes the scalar reference's bits for every weight;
//    the codes of an integer-coded weight are the bits LayoutSpec::locate() names;
//    verify checks the weight and finds no error;
//  - quantize then detect round-trips for each of its quantize targets.
// A new family row without a case here fails `everyRowHasACase`.
#include "analysis/budget.h"
#include "analysis/quantize_checkpoint.h"
#include "analysis/verify.h"
#include "base/half.h"
#include "container/checkpoint.h"
#include "formats/dequant.h"
#include "formats/family.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"
#include "formats/opencheckpoint.h"
#include "formats/target.h"
#include "formats/wordmap.h"
#include "kernel_testutil.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

using namespace qs;

namespace {

// Fixture paths (relative to ../shared/fixtures) whose weights exercise each row.
struct RowCase {
    std::string_view family;
    std::vector<const char*> fixtures;
    const char* quantizeSource = nullptr; // float checkpoint for the quantize round trip
    std::vector<std::string> quantizeWeights = {}; // which of its weights (empty: every eligible one)
};

const std::vector<RowCase>& rowCases()
{
    static const std::vector<RowCase> cases = {
        {"gptq",
         {"safetensors/gptq-w4-g128-sym/model.safetensors", "safetensors/gptq-w4-g128-asym-actorder/model.safetensors",
          "safetensors/gptq-w8-g128-sym/model.safetensors", "safetensors/awq-gemm-w4-g32/model.safetensors"},
         "safetensors/gptq-w4-g128-sym/ref.safetensors"},
        {"ggml",
         {"gguf/ggml-types.gguf", "gguf/ggml-types.ref.gguf"},
         "gguf/ggml-types.ref.gguf",
         {"source.synthetic", "source.synthetic4096"}},
        {"bnb",
         {"safetensors/bnb-nf4/model.safetensors", "safetensors/bnb-fp4-doublequant/model.safetensors"},
         "safetensors/gptq-w4-g128-sym/ref.safetensors"},
        // Not gpt-oss-mxfp4: its edge layer holds +-inf by design, which verify rightly reports
        // (tst_blockfloat checks its bits on every path).
        {"blockfloat",
         {"new-formats/modelopt-nvfp4/model.safetensors", "new-formats/modelopt-fp8/model.safetensors"},
         nullptr},
        {"compressed_tensors",
         {"safetensors/ct-pack-w4a16-g128-sym/model.safetensors",
          "safetensors/ct-pack-w4a16-channel-asym/model.safetensors",
          "safetensors/ct-pack-w8a16-channel-sym/model.safetensors"},
         "safetensors/gptq-w4-g128-sym/ref.safetensors"},
        // No upstream MLX or HQQ quantized fixture: MLX comes from our quantizer (checked against
        // mlx's rounding in tst_quantize_affine), HQQ from a file this suite writes.
        {"mlx", {}, "safetensors/gptq-w4-g128-sym/ref.safetensors"},
        {"hqq", {}, nullptr},
        {"exl2", {"new-formats/exl2/model.safetensors"}, nullptr},
        {"quanto",
         {"new-formats/quanto-qint2-bf16/model.safetensors", "new-formats/quanto-qint4-f32/model.safetensors",
          "new-formats/quanto-qint8-bf16/model.safetensors", "new-formats/quanto-qfloat8-f32/model.safetensors"},
         nullptr},
        // No upstream-written torchao safetensors file exists: tests/data/torchao holds ours.
        {"torchao", {}, nullptr},
        {"aqlm",
         {"new-formats/aqlm-1x16-in8/model.safetensors", "new-formats/aqlm-2x8-in8/model.safetensors",
          "new-formats/aqlm-1x8-out4-in4/model.safetensors"},
         nullptr},
        {"plain",
         {"real/safetensors-samples/overall.safetensors", "safetensors/gptq-w4-g128-sym/ref.safetensors"},
         nullptr},
    };
    return cases;
}

// The ids a row gives the registry (FamilyRow::formats), its own and those listed after the families'.
std::vector<FormatInfo> rowFormats(const FamilyRow& row)
{
    FormatList list(row.family);
    if (row.formats)
        row.formats(list);
    std::vector<FormatInfo> out = list.own;
    out.insert(out.end(), list.afterFamilies.begin(), list.afterFamilies.end());
    return out;
}

const RowCase* caseOf(std::string_view family)
{
    for (const RowCase& c : rowCases())
        if (c.family == family)
            return &c;
    return nullptr;
}

// An HQQ weight as hqq's quantizer stores it: 4-bit halves of the [2048, 64] grouped view of a
// [64, 2048] weight, f16 scale and zero per group, random codes and parameters.
std::string writeHqq(const QString& dir)
{
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.01f, 0.2f);
    const std::string p = "model.layers.0.mlp.up_proj";
    std::vector<uint8_t> wq(1024 * 64);
    for (auto& b : wq)
        b = uint8_t(rng());
    std::vector<float> scale(2048), zero(2048);
    for (size_t i = 0; i < scale.size(); ++i) {
        scale[i] = u(rng);
        zero[i] = 15.0f * u(rng) * 5;
    }
    return qsk::write(dir, "hqq.safetensors",
                      {{p + ".W_q", DType::U8, {1024, 64}, wq},
                       {p + ".scale", DType::F16, {2048, 1}, qsk::halfBytes(scale, DType::F16)},
                       {p + ".zero", DType::F16, {2048, 1}, qsk::halfBytes(zero, DType::F16)},
                       {p + ".shape", DType::I64, {2}, qsk::bytesOf(std::vector<int64_t>{64, 2048})},
                       {p + ".nbits", DType::I32, {}, qsk::bytesOf(std::vector<int32_t>{4})},
                       {p + ".group_size", DType::I32, {}, qsk::bytesOf(std::vector<int32_t>{64})},
                       {p + ".axis", DType::I32, {}, qsk::bytesOf(std::vector<int32_t>{1})},
                       {p + ".packing", DType::U8, {7}, {'4', 'b', 'i', 't', '_', 'u', '8'}}});
}

// The quantize output path of a target: a GGUF file, or a safetensors folder.
std::string quantizeOutput(const QTemporaryDir& dir, const FormatInfo& f)
{
    return (dir.path() + QStringLiteral("/") + QString::fromStdString(f.id)).toStdString()
        + (f.family == FormatFamily::Gguf ? ".gguf" : "");
}

// The bits locate() names for element (n, k) of a weight's code tensor.
uint64_t locatedCode(const LayoutSpec& spec, const LayoutParams& lp, const WeightData& d, uint64_t n, uint64_t k)
{
    const ElementLocation e = spec.locate(lp, n, k);
    const uint64_t bits = qsk::readPieces(d.bytes(e.tensor), e.wordBits, e.pieces, e.pieceCount);
    return spec.signedness == CodeSignedness::TwosComplement ? bits ^ (uint64_t(1) << (lp.bits - 1)) : bits;
}

// Every check of one weight of the row's family (QFAIL on a mismatch).
void checkWeight(const FamilyRow& row, const Checkpoint& ck, const LogicalWeight& w)
{
    const FormatInfo* f = findFormat(w.format);
    QVERIFY2(f, w.format.c_str());
    QCOMPARE(int(f->family), int(row.family));
    QVERIFY2(canDequantize(w.format), w.format.c_str());
    const std::vector<float> ref = dequantizeWeight(ck, w, SimdPath::Scalar, 1);
    for (SimdPath path : qsk::simdPaths()) {
        const std::vector<float> fast = dequantizeWeight(ck, w, path, 2);
        QVERIFY2(std::memcmp(ref.data(), fast.data(), ref.size() * sizeof(float)) == 0,
                 qPrintable(QStringLiteral("%1 (%2): the %3 path differs from the scalar reference")
                                .arg(QString::fromStdString(w.name), QString::fromStdString(w.format),
                                     QString::fromLatin1(simdPathName(path).data()))));
    }
    if (f->integerCodes) {
        QVERIFY(row.codes);
        const WeightCodes c = extractCodes(ck, w);
        const LayoutSpec* spec = findLayoutSpec(w.format);
        QVERIFY2(spec && spec->locate, w.format.c_str());
        const LayoutParams lp = layoutParams(w);
        const WeightData d{ck, w};
        // Every element of a small weight, a strided sample of a large one.
        const uint64_t step = std::max<uint64_t>(1, c.rows * c.cols / 65536);
        for (uint64_t e = 0; e < c.rows * c.cols; e += step) {
            const uint64_t n = e / c.cols, k = e % c.cols;
            if (locatedCode(*spec, lp, d, n, k) != c.codes[e])
                QFAIL(qPrintable(QStringLiteral("%1 (%2, %3): locate() names code %4, extractCodes gives %5")
                                     .arg(QString::fromStdString(w.name))
                                     .arg(n)
                                     .arg(k)
                                     .arg(locatedCode(*spec, lp, d, n, k))
                                     .arg(c.codes[e])));
        }
    }
    if (f->quantized) {
        VerifyReport rep;
        verifyWeight(ck, w, rep);
        std::string errors;
        for (const VerifyFinding& x : rep.findings)
            if (!x.warning)
                errors += x.check + ": " + x.message.text() + "; ";
        QVERIFY2(errors.empty(), (w.name + ": " + errors).c_str());
        QVERIFY2(std::find(rep.checked.begin(), rep.checked.end(), w.name) != rep.checked.end(),
                 (w.name + ": verify checked nothing").c_str());
    }
}

// The weights of `family` in a checkpoint, each checked; returns how many.
int checkCheckpoint(const FamilyRow& row, const Checkpoint& ck)
{
    int n = 0;
    for (const LogicalWeight& w : ck.weights) {
        const FormatInfo* f = findFormat(w.format);
        if (!f || f->family != row.family || !canDequantize(w.format))
            continue;
        checkWeight(row, ck, w);
        if (QTest::currentTestFailed())
            return n;
        ++n;
    }
    return n;
}

} // namespace

class TestFamilyRows : public QObject {
    Q_OBJECT
private slots:
    void everyRowHasACase()
    {
        QVERIFY(familyRows().size() >= 7);
        for (const FamilyRow& row : familyRows()) {
            QVERIFY2(caseOf(row.name), std::string(row.name).c_str());
            QVERIFY2(row.formats && row.registerLayouts && row.dequant, std::string(row.name).c_str());
            QVERIFY2(row.detectGroup || row.detectCheckpoint, std::string(row.name).c_str());
            QCOMPARE(familyRow(row.family), &row);
        }
    }

    // familyRows() is formats/families.def: its lines in order, each row filled for its own value,
    // and every FormatFamily value below Other has its row.
    void rowsAreTheTableLines()
    {
        struct Line {
            FormatFamily value;
            const FamilyRow& (*row)();
        };
        const Line lines[] = {
#define QS_FAMILY(value, row, listed) {FormatFamily::value, row##Family},
#include "formats/families.def"
#undef QS_FAMILY
        };
        QCOMPARE(familyRows().size(), std::size(lines));
        for (size_t i = 0; i < std::size(lines); ++i) {
            QCOMPARE(std::string(familyRows()[i].name), std::string(lines[i].row().name));
            QCOMPARE(int(familyRows()[i].family), int(lines[i].value));
        }
        for (int v = 0; v < int(FormatFamily::Other); ++v)
            QVERIFY2(familyRow(FormatFamily(v)), std::to_string(v).c_str());
        QVERIFY(!familyRow(FormatFamily::Other) && !familyRow(FormatFamily::Unknown));
    }

    // formatInfos() is exactly what the rows give, each id from one row, plus "unknown".
    void everyIdFromOneRow()
    {
        std::multiset<std::string> given;
        for (const FamilyRow& row : familyRows())
            for (const FormatInfo& f : rowFormats(row))
                given.insert(f.id);
        std::multiset<std::string> listed;
        for (const FormatInfo& f : formatInfos())
            if (!f.unrecognised())
                listed.insert(f.id);
        QVERIFY(given == listed);
        QCOMPARE(std::set<std::string>(listed.begin(), listed.end()).size(), listed.size());
    }

    void formats_data()
    {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < familyRows().size(); ++i)
            QTest::addRow("%s", std::string(familyRows()[i].name).c_str()) << int(i);
    }
    // A row gives ids of its own family (or of Other: named by detection, never decoded), and each
    // has the hooks its traits promise.
    void formats()
    {
        QFETCH(int, index);
        const FamilyRow& row = familyRows()[size_t(index)];
        const std::vector<FormatInfo> given = rowFormats(row);
        QVERIFY2(!given.empty(), "the row gives no format id");
        int own = 0;
        for (const FormatInfo& g : given) {
            const FormatInfo* f = findFormat(g.id);
            QVERIFY2(f && f->family == g.family && f->description == g.description, g.id.c_str());
            if (f->family == FormatFamily::Other) {
                QVERIFY2(f->storage == StorageKind::None && !row.dequant(*f), g.id.c_str());
                continue;
            }
            QCOMPARE(int(f->family), int(row.family));
            ++own;
            if (f->integerCodes)
                QVERIFY2(row.codes, (f->id + ": integer codes but the row reads none").c_str());
            // The trait names the rule; the row gives the round trip where it has one (not every
            // GGUF type has a ggml reference quantizer).
            if (hasRequantizer(*f))
                QVERIFY2(f->requantize != RequantizeRule::None, (f->id + ": a round trip without a rule").c_str());
        }
        QVERIFY2(own > 0, "the row gives no id of its own family");
    }

    void layouts_data()
    {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < familyRows().size(); ++i)
            QTest::addRow("%s", std::string(familyRows()[i].name).c_str()) << int(i);
    }
    // What a row registers is the specs of the ids it gives, one for each.
    void layouts()
    {
        QFETCH(int, index);
        const FamilyRow& row = familyRows()[size_t(index)];
        LayoutRegistry r;
        row.registerLayouts(r);
        QVERIFY(!r.all().empty());
        const std::vector<FormatInfo> given = rowFormats(row);
        for (const LayoutSpec& s : r.all()) {
            QVERIFY2(std::any_of(given.begin(), given.end(), [&](const FormatInfo& f) { return f.id == s.id; }),
                     (s.id + ": a spec for an id the row does not give").c_str());
            QCOMPARE(findLayoutSpec(s.id)->name, s.name);
        }
        for (const FormatInfo& f : given) {
            QVERIFY2(r.find(f.id), (f.id + " has no layout spec in its row").c_str());
            if (f.quantizeTarget || f.repackTarget || f.affineCodes)
                QVERIFY2(row.dequant(f), (f.id + ": written or repacked but not decoded").c_str());
        }
    }

    void checkpoints_data()
    {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < familyRows().size(); ++i)
            QTest::addRow("%s", std::string(familyRows()[i].name).c_str()) << int(i);
    }
    void checkpoints()
    {
        QFETCH(int, index);
        const FamilyRow& row = familyRows()[size_t(index)];
        const RowCase* c = caseOf(row.name);
        QVERIFY(c);
        int weights = 0;
        for (const char* fixture : c->fixtures) {
            const auto ck = openCheckpoint(qstest::fixture(QString::fromLatin1(fixture)).toStdString());
            const int n = checkCheckpoint(row, *ck);
            if (QTest::currentTestFailed())
                return;
            QVERIFY2(n > 0, fixture);
            weights += n;
        }
        if (row.family == FormatFamily::Hqq) {
            QTemporaryDir tmp;
            const auto ck = openCheckpoint(writeHqq(tmp.path()));
            weights += checkCheckpoint(row, *ck);
        }
        if (row.family == FormatFamily::Torchao)
            for (const char* folder : {"float8-v1", "int8-float8-v2"})
                weights += checkCheckpoint(
                    row,
                    *openCheckpoint(QStringLiteral(QT_TESTCASE_SOURCEDIR "/data/torchao/%1/model.safetensors")
                                        .arg(QLatin1String(folder))
                                        .toStdString()));
        // The quantizer's output stands in for a missing fixture (MLX) and is checked like one.
        if (c->fixtures.empty() && c->quantizeSource) {
            QTemporaryDir tmp;
            const auto src = openCheckpoint(qstest::fixture(QString::fromLatin1(c->quantizeSource)).toStdString());
            for (const FormatInfo& f : formatInfos()) {
                if (f.family != row.family || !f.quantizeTarget)
                    continue;
                QuantizeCheckpointOptions opt;
                opt.format = f.id;
                const auto out = openCheckpoint(quantizeCheckpoint(*src, quantizeOutput(tmp, f), opt).output);
                weights += checkCheckpoint(row, *out);
            }
        }
        QVERIFY2(weights > 0, "no weight of this family was checked");
    }

    void quantizeRoundTrip_data()
    {
        QTest::addColumn<QString>("id");
        for (const FormatInfo& f : formatInfos())
            if (f.quantizeTarget)
                QTest::addRow("%s", f.id.c_str()) << QString::fromStdString(f.id);
    }
    // quantize writes what detection reads back as the same format, decodable by its row.
    void quantizeRoundTrip()
    {
        QFETCH(QString, id);
        const FormatInfo* f = findFormat(id.toStdString());
        QVERIFY(f);
        const FamilyRow* row = familyRow(f->family);
        QVERIFY(row);
        const RowCase* c = caseOf(row->name);
        QVERIFY2(c && c->quantizeSource, qPrintable(id));
        const auto src = openCheckpoint(qstest::fixture(QString::fromLatin1(c->quantizeSource)).toStdString());
        QTemporaryDir tmp;
        QuantizeCheckpointOptions opt;
        opt.format = f->id;
        opt.weights = c->quantizeWeights;
        const QuantizeCheckpointResult res = quantizeCheckpoint(*src, quantizeOutput(tmp, *f), opt);
        QVERIFY(!res.quantized.empty());
        const auto out = openCheckpoint(res.output);
        int found = 0;
        for (const LogicalWeight& w : out->weights)
            if (w.format == f->id) {
                ++found;
                QVERIFY(row->dequant(*f));
                const std::vector<float> ref = dequantizeWeight(*out, w, SimdPath::Scalar, 1);
                for (SimdPath path : qsk::simdPaths()) {
                    const std::vector<float> fast = dequantizeWeight(*out, w, path, 1);
                    QVERIFY2(std::memcmp(ref.data(), fast.data(), ref.size() * sizeof(float)) == 0,
                             std::string(simdPathName(path)).c_str());
                }
            }
        QCOMPARE(size_t(found), res.quantized.size());
    }

    // Detection splits a tensor name before a dotted member name a row gives (bnb's
    // "weight.absmax"): none may end another, or the split would follow the table's order.
    void dottedMembersAreUnambiguous()
    {
        std::vector<std::string_view> dotted;
        for (const FamilyRow& r : familyRows())
            dotted.insert(dotted.end(), r.dottedMembers.begin(), r.dottedMembers.end());
        QVERIFY(dotted.size() >= 9);
        for (std::string_view a : dotted)
            for (std::string_view b : dotted)
                QVERIFY2(!(b.size() > a.size() && b.ends_with(a) && b[b.size() - a.size() - 1] == '.'),
                         (std::string(a) + " ends " + std::string(b)).c_str());
    }

    // The Error view's "as" list comes from the rows: each preset names a format with a
    // reference quantizer, labels are distinct, and exactly one is the float weights' default.
    void requantizePresets()
    {
        const std::vector<RequantizePreset> presets = qs::requantizePresets();
        QVERIFY(!presets.empty());
        std::set<std::string> labels;
        int forFloat = 0;
        for (const RequantizePreset& p : presets) {
            const FormatInfo* f = resolveFormatId(p.spec.format);
            QVERIFY2(f && hasRequantizer(*f), p.label);
            QVERIFY2(labels.insert(p.label).second, p.label);
            forFloat += p.forFloat;
        }
        QCOMPARE(forFloat, 1);
        // Families in FormatFamily order: GGUF first, as the view lists them.
        QCOMPARE(resolveFormatId(presets.front().spec.format)->family, FormatFamily::Gguf);
    }

    // A weight's own format: affine formats keep their parameters, widths outside 2..8 have
    // no reference quantizer, formats without a rule none.
    void ownRequantizeSpec()
    {
        const std::optional<RequantizeSpec> mlx = qs::ownRequantizeSpec(*findFormat("mlx-affine"), 3, 64, false);
        QVERIFY(mlx);
        QCOMPARE(mlx->format, std::string("mlx-affine"));
        QCOMPARE(mlx->bits, 3);
        QCOMPARE(mlx->groupSize, uint64_t(64));
        QVERIFY(!qs::ownRequantizeSpec(*findFormat("gptq-planar"), 1, 128, true));
        QVERIFY(!qs::ownRequantizeSpec(*findFormat("bnb-int8"), 8, 0, true));
        QCOMPARE(qs::ownRequantizeSpec(*findFormat("gguf-q4_k"), 4, 256, false)->format, std::string("gguf-q4_k"));
    }

    // The budget presets: some headline rows (the layout report's comparison), one row the
    // Budget view starts on, and every family that has budget rows marks some of them.
    void budgetPresets()
    {
        std::set<FormatFamily> marked, all;
        int headline = 0, start = 0;
        for (const BudgetFormat& f : budgetFormats()) {
            QVERIFY2(f.info, f.id.c_str());
            all.insert(f.info->family);
            if (f.preset != BudgetPreset::None)
                marked.insert(f.info->family);
            headline += f.preset >= BudgetPreset::Headline;
            start += f.preset == BudgetPreset::Default;
        }
        QVERIFY(headline > 0);
        QCOMPARE(start, 1);
        QVERIFY(marked == all);
    }

    // Weights read in row chunks get whole kernel blocks at every width: with 8-row chunks a
    // weight of 8192 or more columns never reached the 16-row AVX-512 GPTQ/AWQ blocks.
    void chunkRowsAreWholeKernelBlocks()
    {
        for (uint64_t K : {1ull, 64ull, 4096ull, 8192ull, 11008ull, 14336ull, 1ull << 20, 1ull << 30})
            for (uint64_t elements : {1ull << 16, 1ull << 18})
                for (uint64_t align : {1ull, 3ull, 24ull, 128ull}) {
                    const uint64_t rows = dequantChunkRows(K, elements, align);
                    QVERIFY(rows > 0);
                    QCOMPARE(rows % kDequantRowBlock, uint64_t(0));
                    QCOMPARE(rows % align, uint64_t(0));
                    // No more than one block (and one head block) past the wanted size.
                    QVERIFY(rows < std::max<uint64_t>(1, elements / K) + kDequantRowBlock * align);
                }
        QCOMPARE(dequantChunkRows(4096, 1 << 16), uint64_t(16));
        QCOMPARE(dequantChunkRows(4096, 1 << 18), uint64_t(64));
        QCOMPARE(dequantChunkRows(11008, 1 << 16), uint64_t(16));
    }
};

QTEST_GUILESS_MAIN(TestFamilyRows)
#include "tst_family_rows.moc"
