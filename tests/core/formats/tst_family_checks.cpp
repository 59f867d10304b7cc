// The family rows' verify, group scales and report entries (FamilyRow::verify, groupScales,
// packProbe, budgetPreset) cover exactly the formats the drivers used to pick by id: a
// format check for every packed, compressed-tensors integer, MLX affine, bitsandbytes and
// GGUF block format, a scale reader for all of them but LLM.int8, the packer probe for
// GPTQ/AWQ/Marlin, the block-map probe for GGUF.
#include "formats/family.h"
#include "formats/formatid.h"

#include <QTest>

#include <algorithm>

using namespace qs;

namespace {

bool oneOf(const std::string& id, std::initializer_list<std::string_view> ids)
{
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

const FamilyRow* rowOf(const FormatInfo& f)
{
    return familyRow(f.family);
}

bool packedId(const std::string& id)
{
    return oneOf(
        id,
        {"gptq-v1", "gptq-v2", "gptq-planar", "gptq-marlin", "awq-gemm", "awq-gemv", "awq-gemv-fast", "awq-marlin"});
}

} // namespace

class TestFamilyChecks : public QObject {
    Q_OBJECT
private slots:
    void verifyCoversTheCheckedFormats()
    {
        for (const FormatInfo& f : formatInfos()) {
            if (!f.quantized)
                continue;
            const FamilyRow* row = rowOf(f);
            const bool has = row && row->verify && row->verify(f);
            const bool want = packedId(f.id)
                || oneOf(f.id,
                         {"compressed-tensors", "compressed-tensors-int", "mlx-affine", "bnb-nf4", "bnb-fp4",
                          "bnb-int8"})
                || f.family == FormatFamily::Gguf;
            QVERIFY2(has == want, f.id.c_str());
        }
    }

    void groupScalesCoverTheGroupedFormats()
    {
        for (const FormatInfo& f : formatInfos()) {
            const FamilyRow* row = rowOf(f);
            const bool has = row && row->groupScales && row->groupScales(f);
            const bool want = packedId(f.id)
                || oneOf(f.id, {"compressed-tensors", "compressed-tensors-int", "mlx-affine", "bnb-nf4", "bnb-fp4"})
                || f.id.rfind("gguf-", 0) == 0;
            QVERIFY2(has == want, f.id.c_str());
            // Only GGUF decides per weight (block geometry, sub-block scales).
            if (row && f.family != FormatFamily::Gguf) {
                QVERIFY(!row->groupScalesApply);
                QVERIFY(!row->subBlockScales);
            }
        }
    }

    void reportEntries()
    {
        for (const FamilyRow& row : familyRows())
            QCOMPARE(bool(row.packProbe), row.family == FormatFamily::Gptq || row.family == FormatFamily::Gguf);
        const FamilyRow* gptq = familyRow(FormatFamily::Gptq);
        QVERIFY(gptq && gptq->budgetPreset);
        LayoutParams p;
        p.K = 4096;
        p.N = 4096;
        p.bits = 4;
        p.groupSize = 128;
        QCOMPARE(gptq->budgetPreset(*findFormat("gptq-v1"), p), std::string("gptq-4-g128"));
        QCOMPARE(gptq->budgetPreset(*findFormat("gptq-v2"), p), std::string("gptq-4-g128"));
        QCOMPARE(gptq->budgetPreset(*findFormat("awq-gemm"), p), std::string("awq-4-g128"));
        QCOMPARE(gptq->budgetPreset(*findFormat("gptq-marlin"), p), std::string());
        p.groupSize = 0;
        QCOMPARE(gptq->budgetPreset(*findFormat("gptq-v1"), p), std::string("gptq-4-channel"));
        p.groupSize = 4096; // a group as wide as the row is per channel
        QCOMPARE(gptq->budgetPreset(*findFormat("awq-gemm"), p), std::string("awq-4-channel"));
    }
};

QTEST_GUILESS_MAIN(TestFamilyChecks)
#include "tst_family_checks.moc"
