// The family rows' verify, group scales and report hooks (FamilyRow::verify, groupScales,
// packProbe, displayName), checked against what the table itself says rather than a copy of
// its wiring: whatever quantize or repack writes, verify checks; every hook a row declares runs
// on real weights of its formats (the fixtures, and the quantizer's output where no fixture has
// the format) without an error; a scale reader reads the scales extractCodes decodes, on the
// weight's grid; and a format whose codes come with per-group scales has a reader.
#include "analysis/quantize_checkpoint.h"
#include "container/checkpoint.h"
#include "formats/dequant.h"
#include "formats/family.h"
#include "formats/formatid.h"
#include "formats/opencheckpoint.h"
#include "formats/target.h"
#include "testsupport.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace qs;

namespace {

// The upstream checkpoints: every fixture folder under safetensors/ and the GGUF type zoo.
std::vector<std::string> fixtureCheckpoints()
{
    std::vector<std::string> paths;
    for (const char* folder : {"safetensors", "new-formats"}) {
        const QDir dir(qstest::fixture(QLatin1String(folder)));
        for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            paths.push_back(dir.filePath(name).toStdString());
    }
    paths.push_back(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
    return paths;
}

// The float checkpoint the quantizer writes the formats no fixture has from.
std::string quantizeSource()
{
    return qstest::fixture(QStringLiteral("safetensors/gptq-w4-g128-sym/ref.safetensors")).toStdString();
}

struct Seen {
    std::set<std::string> verified, scalesRead;
};

// Runs every hook the weight's row declares for its format; QFAIL on a hook that fails on it.
void checkHooks(const Checkpoint& ck, const LogicalWeight& w, Seen& seen)
{
    const FormatInfo* f = findFormat(w.format);
    const FamilyRow* row = f ? familyRow(f->family) : nullptr;
    if (!row || !canDequantize(w.format))
        return;
    const QString where =
        QStringLiteral("%1 (%2) in %3")
            .arg(QString::fromStdString(w.name), QString::fromStdString(w.format), QString::fromStdString(ck.path));
    if (const VerifyFn verify = row->verify ? row->verify(*f) : nullptr) {
        VerifyReport rep;
        verify(ck, w, rep);
        for (const VerifyFinding& x : rep.findings)
            QVERIFY2(x.warning, qPrintable(where + QStringLiteral(": ") + QString::fromStdString(x.message.text())));
        seen.verified.insert(f->id);
    }
    const GroupScalesFn read = row->groupScales ? row->groupScales(*f) : nullptr;
    const bool applies = read && (!row->groupScalesApply || row->groupScalesApply(ck, w));
    const WeightCodes codes = f->integerCodes ? extractCodes(ck, w) : WeightCodes{};
    if (applies) {
        const GroupScales g = read(ck, w, GgufScaleLevel::Block, nullptr);
        QVERIFY2(g.rows == w.outFeatures() && g.cols == w.inFeatures() && g.groups > 0
                     && g.scales.size() == g.groups * g.rows,
                 qPrintable(where + QStringLiteral(": the scale grid does not fit the weight")));
        // Where the reader applies to every weight of the format, it reads the same scales
        // extractCodes decodes (GGUF's block scales d differ from the codes' effective scales).
        if (f->integerCodes && !row->groupScalesApply) {
            QVERIFY2(g.groups == codes.groups && g.scales == codes.scales,
                     qPrintable(where + QStringLiteral(": the scale reader disagrees with extractCodes")));
        }
        seen.scalesRead.insert(f->id);
    } else if (f->integerCodes && !row->groupScalesApply) {
        // Codes with several groups of scales per row and no reader: the Scales view would show nothing.
        QVERIFY2(codes.groups <= 1 || codes.scales.empty(),
                 qPrintable(where + QStringLiteral(": per-group scales without a reader")));
    }
}

void checkCheckpoint(const std::string& path, Seen& seen)
{
    const auto ck = openCheckpoint(path);
    for (const LogicalWeight& w : ck->weights) {
        checkHooks(*ck, w, seen);
        if (QTest::currentTestFailed())
            return;
    }
}

} // namespace

class TestFamilyChecks : public QObject {
    Q_OBJECT
private slots:
    // What Quantscope writes it can check: a quantize or repack target has format checks.
    void writtenFormatsAreVerified()
    {
        int targets = 0;
        for (const FormatInfo& f : formatInfos()) {
            if (!f.quantizeTarget && !f.repackTarget)
                continue;
            ++targets;
            const FamilyRow* row = familyRow(f.family);
            QVERIFY2(row && row->verify && row->verify(f), f.id.c_str());
        }
        QVERIFY(targets > 0);
    }

    // Only formats with stored data have hooks; a family that decides per weight (GGUF's block
    // geometry and sub-block scales) says so in its row, and no other row does.
    void hooksOnlyWhereTheTableDecodes()
    {
        for (const FormatInfo& f : formatInfos()) {
            const FamilyRow* row = familyRow(f.family);
            if (!row)
                continue;
            if (!f.quantized || !canDequantize(f.id)) {
                QVERIFY2(!(row->verify && row->verify(f)), f.id.c_str());
                // A row that decides per weight (groupScalesApply) may give a reader to every format.
                if (!row->groupScalesApply)
                    QVERIFY2(!(row->groupScales && row->groupScales(f)), f.id.c_str());
            }
        }
        for (const FamilyRow& row : familyRows())
            QCOMPARE(bool(row.subBlockScales), bool(row.groupScalesApply));
    }

    // Every declared verify and scale hook runs on real weights of every format that has one in
    // the fixtures or that the quantizer writes, and every row with a hook is exercised.
    void hooksWorkOnRealWeights()
    {
        Seen seen;
        for (const std::string& path : fixtureCheckpoints()) {
            checkCheckpoint(path, seen);
            if (QTest::currentTestFailed())
                return;
        }
        QTemporaryDir tmp;
        const auto src = openCheckpoint(quantizeSource());
        for (const FormatInfo& f : formatInfos()) {
            if (!f.quantizeTarget || (seen.verified.count(f.id) && seen.scalesRead.count(f.id)))
                continue;
            const FamilyRow* row = familyRow(f.family);
            QVERIFY(row && row->targets);
            QuantizeCheckpointOptions opt;
            opt.format = f.id;
            // A target without a config writes a .gguf file, the others a folder (formats/target.h).
            const std::string out = QDir(tmp.path()).filePath(QString::fromStdString(f.id)).toStdString()
                + (row->targets->config ? "" : ".gguf");
            checkCheckpoint(quantizeCheckpoint(*src, out, opt).output, seen);
            if (QTest::currentTestFailed())
                return;
        }
        for (const FamilyRow& row : familyRows()) {
            bool verifies = false, reads = false, verified = false, read = false;
            for (const FormatInfo& f : formatInfos()) {
                if (f.family != row.family)
                    continue;
                const bool v = row.verify && row.verify(f), s = row.groupScales && row.groupScales(f);
                verifies |= v;
                reads |= s;
                verified |= v && seen.verified.count(f.id);
                read |= s && seen.scalesRead.count(f.id);
            }
            QVERIFY2(verified == verifies, std::string(row.name).c_str());
            QVERIFY2(read == reads, std::string(row.name).c_str());
        }
    }

    void reportEntries()
    {
        // The packer probe belongs to the rows that pack words or blocks of their own.
        for (const FamilyRow& row : familyRows())
            if (row.packProbe)
                QVERIFY2(row.verify, std::string(row.name).c_str());
    }

    // A format can be requantized exactly when its row gives a round trip: "its own format" is
    // offered for those and only those (before, every GGUF type was offered, also those ggml
    // has no reference quantizer for), with a shape exactly for the affine rows.
    void requantizers()
    {
        int with = 0, without = 0;
        for (const FormatInfo& f : formatInfos()) {
            const std::optional<RequantizeSpec> own = ownRequantizeSpec(f, 4, 64, false);
            QVERIFY2(own.has_value() == hasRequantizer(f), f.id.c_str());
            (hasRequantizer(f) ? with : without) += 1;
            if (own)
                QCOMPARE(own->groupSize, requantizerTakesShape(f) ? uint64_t(64) : RequantizeSpec{}.groupSize);
        }
        QVERIFY(with > 10 && without > 10);
        for (const char* id : {"gptq-v1", "awq-gemm", "compressed-tensors", "mlx-affine", "hqq"})
            QVERIFY2(requantizerTakesShape(*findFormat(id)), id);
        for (const char* id : {"gguf-q4_k", "bnb-nf4"})
            QVERIFY2(hasRequantizer(*findFormat(id)) && !requantizerTakesShape(*findFormat(id)), id);
        for (const char* id : {"bnb-int8", "compressed-tensors-fp8", "f16", "exl2"})
            QVERIFY2(!hasRequantizer(*findFormat(id)), id);
    }

    // Every format the budget table lists has a family name for the views' filters (an unnamed
    // one would fall in a nameless group), and formats the tools name apart are named apart.
    void displayNames()
    {
        for (const BudgetFormat& f : familyBudgetRows())
            QVERIFY2(*familyDisplayName(*f.info), f.id.c_str());
        QCOMPARE(std::string(familyDisplayName(*findFormat("gptq-v1"))), std::string("GPTQ"));
        QCOMPARE(std::string(familyDisplayName(*findFormat("awq-gemm"))), std::string("AWQ"));
        QCOMPARE(std::string(familyDisplayName(*findFormat("bnb-nf4"))), std::string("bitsandbytes 4-bit"));
        QCOMPARE(std::string(familyDisplayName(*findFormat("bnb-int8"))), std::string("bitsandbytes int8"));
        QCOMPARE(std::string(familyDisplayName(*findFormat("bf16"))), std::string("float"));
        QCOMPARE(std::string(familyDisplayName(*findFormat("exl2"))), std::string());
    }
};

QTEST_GUILESS_MAIN(TestFamilyChecks)
#include "tst_family_checks.moc"
