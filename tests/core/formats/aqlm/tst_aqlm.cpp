// AQLM: the upstream fixtures (aqlm inference_lib's _dequantize_weight, new-formats/aqlm-*)
// bit for bit on every path, every path against the scalar reference and a reference written
// here from the format's rule on synthetic weights of other shapes and dtypes, detection and
// the config cross-check, locate() against the stored code words, and bad input.
#include "analysis/budget.h"
#include "analysis/verify.h"
#include "base/error.h"
#include "base/half.h"
#include "container/checkpoint.h"
#include "formats/aqlm/aqlm.h"
#include "formats/dequant.h"
#include "formats/detect.h"
#include "formats/detectutil.h"
#include "formats/family.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"
#include "formats/opencheckpoint.h"
#include "formats/wordmap.h"
#include "kernel_testutil.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

using namespace qs;

namespace {

// One synthetic AQLM module: M codebooks of 2^bits entries over og x ig groups.
struct Scheme {
    int M = 1, bits = 8;
    uint64_t og = 1, ig = 8, N = 16, K = 64;
    DType dtype = DType::F16;
    DType codeType = DType::I8;
};

struct Module {
    std::vector<int64_t> codes; // as stored (signed)
    std::vector<float> book, scales; // exactly representable in the scheme's dtype
};

std::vector<uint8_t> floatBytes(const std::vector<float>& v, DType t)
{
    return t == DType::F32 ? qsk::bytesOf(v) : qsk::halfBytes(v, t);
}

std::vector<uint8_t> codeBytes(const std::vector<int64_t>& v, DType t)
{
    std::vector<uint8_t> b;
    for (int64_t x : v)
        for (unsigned i = 0; i < dtypeBits(t) / 8; ++i)
            b.push_back(uint8_t(uint64_t(x) >> (8 * i)));
    return b;
}

Module makeModule(const Scheme& s, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.5f);
    std::uniform_real_distribution<float> scale(0.005f, 0.05f);
    Module m;
    const uint64_t size = uint64_t(1) << s.bits, groups = (s.N / s.og) * (s.K / s.ig);
    for (uint64_t i = 0; i < groups * uint64_t(s.M); ++i) {
        const int64_t u = int64_t(rng() % size);
        m.codes.push_back(u >= int64_t(size / 2) ? u - int64_t(size) : u); // aqlm's pack_int_data
    }
    for (uint64_t i = 0; i < uint64_t(s.M) * size * s.og * s.ig; ++i)
        m.book.push_back(roundToDtype(i % 97 == 5 ? -0.0f : normal(rng), s.dtype)); // some -0.0 entries
    for (uint64_t i = 0; i < s.N / s.og; ++i)
        m.scales.push_back(roundToDtype(scale(rng), s.dtype));
    return m;
}

std::string writeModule(const QString& dir, const Scheme& s, const Module& m, const std::string& file = "a.safetensors")
{
    const uint64_t size = uint64_t(1) << s.bits;
    return qsk::write(
        dir, file,
        std::vector<qsk::T>{
            {"m.codes", s.codeType, {s.N / s.og, s.K / s.ig, uint64_t(s.M)}, codeBytes(m.codes, s.codeType)},
            {"m.codebooks", s.dtype, {uint64_t(s.M), size, s.og, s.ig}, floatBytes(m.book, s.dtype)},
            {"m.scales", s.dtype, {s.N / s.og, 1, 1, 1}, floatBytes(m.scales, s.dtype)}});
}

LogicalWeight moduleWeight(const Checkpoint& ck, const Scheme& s)
{
    return qsk::weight(ck, "m", "aqlm", {s.N, s.K},
                       {{"codes", "m.codes"}, {"codebooks", "m.codebooks"}, {"scales", "m.scales"}}, s.bits,
                       int64_t(s.ig));
}

// The rule as aqlm.utils._dequantize_weight computes it on torch: embedding_bag's float32 sum
// from +0.0 in codebook order, one rounding to the dtype, the scale product, one rounding.
std::vector<float> reference(const Scheme& s, const Module& m)
{
    const uint64_t size = uint64_t(1) << s.bits, inGroups = s.K / s.ig;
    std::vector<float> out(s.N * s.K);
    for (uint64_t n = 0; n < s.N; ++n)
        for (uint64_t k = 0; k < s.K; ++k) {
            const uint64_t g = n / s.og, i = k / s.ig;
            float sum = 0.0f;
            for (int c = 0; c < s.M; ++c) {
                const uint64_t idx = uint64_t(m.codes[(g * inGroups + i) * uint64_t(s.M) + uint64_t(c)]) & (size - 1);
                sum += m.book[((uint64_t(c) * size + idx) * s.og + n % s.og) * s.ig + k % s.ig];
            }
            out[n * s.K + k] = roundToDtype(roundToDtype(sum, s.dtype) * m.scales[g], s.dtype);
        }
    return out;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The text of every finding of `w` ("check: message; ...").
std::string findings(const Checkpoint& ck, const LogicalWeight& w, bool errorsOnly)
{
    VerifyReport rep;
    verifyWeight(ck, w, rep);
    std::string out;
    for (const VerifyFinding& f : rep.findings)
        if (!errorsOnly || !f.warning)
            out += f.check + ": " + f.message.text() + "; ";
    return out;
}

// The error every path gives (the scalar one's text), or "no error on <path>".
std::string dequantError(const Checkpoint& ck, const LogicalWeight& w)
{
    std::string error;
    for (SimdPath path : qsk::simdPaths())
        try {
            dequantizeWeight(ck, w, path, 1);
            return "no error on " + std::string(simdPathName(path));
        } catch (const Error& e) {
            if (error.empty())
                error = e.what();
        }
    return error;
}

} // namespace

class TestAqlm : public QObject {
    Q_OBJECT
private slots:
    void fixtures_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<int>("weights");
        QTest::addColumn<int>("codebooks");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("outGroup");
        QTest::addColumn<int>("inGroup");
        QTest::addRow("aqlm-1x16-in8") << QStringLiteral("aqlm-1x16-in8") << 1 << 1 << 16 << 1 << 8;
        QTest::addRow("aqlm-2x8-in8") << QStringLiteral("aqlm-2x8-in8") << 3 << 2 << 8 << 1 << 8;
        QTest::addRow("aqlm-1x8-out4-in4") << QStringLiteral("aqlm-1x8-out4-in4") << 3 << 1 << 8 << 4 << 4;
    }
    // Every reference weight upstream's decoder wrote, bit for bit, on every path this CPU has;
    // detection reads the scheme the config declares, and verify finds nothing.
    void fixtures()
    {
        QFETCH(QString, dir);
        QFETCH(int, weights);
        QFETCH(int, codebooks);
        QFETCH(int, bits);
        QFETCH(int, outGroup);
        QFETCH(int, inGroup);
        const QString folder = qstest::fixture(QStringLiteral("new-formats/") + dir);
        const auto ck = openCheckpoint((folder + QStringLiteral("/model.safetensors")).toStdString());
        const auto ref = qsk::openFile((folder + QStringLiteral("/ref.safetensors")).toStdString());
        int exact = 0;
        for (const LogicalWeight& w : ck->weights) {
            QCOMPARE(w.format, std::string("aqlm"));
            QVERIFY2(w.notes.empty(), w.notes.empty() ? "" : w.notes.front().text().c_str());
            QCOMPARE(w.bits, bits);
            QCOMPARE(w.groupSize, int64_t(inGroup));
            const LayoutParams lp = layoutParams(w);
            QCOMPARE(lp.codebooks, codebooks);
            QCOMPARE(lp.outGroupSize, uint64_t(outGroup));
            const std::vector<float> want = qsk::floats(*ref, w.name + ".weight");
            for (SimdPath path : qsk::simdPaths()) {
                const std::vector<float> got = dequantizeWeight(*ck, w, path, 2);
                QVERIFY2(sameBits(got, want),
                         (w.name + ": the " + std::string(simdPathName(path)) + " path differs from upstream").c_str());
            }
            const std::string errors = findings(*ck, w, false);
            QVERIFY2(errors.empty(), (w.name + ": " + errors).c_str());
            ++exact;
        }
        QCOMPARE(exact, weights);
        qInfo("%s: %d of %d reference weights bit-exact on %zu paths", qPrintable(dir), exact, weights,
              qsk::simdPaths().size());
    }

    void paths_data()
    {
        QTest::addColumn<int>("M");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("og");
        QTest::addColumn<int>("ig");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("codeType");
        const int f16 = int(DType::F16), i8 = int(DType::I8), i16 = int(DType::I16);
        QTest::addRow("1x16 in8") << 1 << 16 << 1 << 8 << f16 << i16;
        QTest::addRow("2x8 in8") << 2 << 8 << 1 << 8 << f16 << i8;
        QTest::addRow("1x8 out4 in4") << 1 << 8 << 4 << 4 << f16 << i8;
        QTest::addRow("3x8 in8 odd groups") << 3 << 8 << 1 << 8 << f16 << i8;
        QTest::addRow("4x4 out2 in16") << 4 << 4 << 2 << 16 << f16 << i8;
        QTest::addRow("2x6 in12") << 2 << 6 << 1 << 12 << f16 << i8;
        QTest::addRow("2x5 in4 odd groups") << 2 << 5 << 1 << 4 << f16 << i8;
        QTest::addRow("1x8 out2 in32") << 1 << 8 << 2 << 32 << f16 << i8;
        QTest::addRow("8x8 in24") << 8 << 8 << 1 << 24 << f16 << i8;
        QTest::addRow("2x8 in8 bf16") << 2 << 8 << 1 << 8 << int(DType::BF16) << i8;
        QTest::addRow("2x8 in8 f32") << 2 << 8 << 1 << 8 << int(DType::F32) << i8;
        QTest::addRow("2x8 in8 i16 codes") << 2 << 8 << 1 << 8 << f16 << i16;
    }
    // Every path against the scalar reference and the rule written here, over whole weights and
    // row ranges that start inside an output group.
    void paths()
    {
        QFETCH(int, M);
        QFETCH(int, bits);
        QFETCH(int, og);
        QFETCH(int, ig);
        QFETCH(int, dtype);
        QFETCH(int, codeType);
        Scheme s{M, bits, uint64_t(og), uint64_t(ig), 0, 0, DType(dtype), DType(codeType)};
        s.N = 12 * s.og;
        s.K = (ig == 8 || ig == 4 ? 7 : 3) * s.ig; // an odd number of in-groups: the vectors' tails
        const Module m = makeModule(s, uint32_t(M * 1000 + bits * 10 + og + ig));
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(writeModule(tmp.path(), s, m));
        const LogicalWeight w = moduleWeight(*ck, s);
        const std::vector<float> want = reference(s, m);
        for (SimdPath path : qsk::simdPaths()) {
            QVERIFY2(sameBits(dequantizeWeight(*ck, w, path, 1), want), std::string(simdPathName(path)).c_str());
            const uint64_t r0 = s.N / 2 + 1, r1 = s.N - 1;
            const std::vector<float> part = qsk::run(dequantAqlmRows, *ck, w, path, r0, r1);
            QVERIFY(sameBits(
                part, std::vector<float>(want.begin() + ptrdiff_t(r0 * s.K), want.begin() + ptrdiff_t(r1 * s.K))));
        }
    }

    // A codebook -0.0 is summed into embedding_bag's +0.0 accumulator: +0.0 times the scale.
    void negativeZeroEntry()
    {
        Scheme s{1, 2, 1, 8, 4, 16};
        Module m = makeModule(s, 7);
        std::fill(m.codes.begin(), m.codes.end(), 0);
        std::fill(m.book.begin(), m.book.begin() + 8, -0.0f);
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(writeModule(tmp.path(), s, m));
        const LogicalWeight w = moduleWeight(*ck, s);
        for (SimdPath path : qsk::simdPaths())
            for (float v : dequantizeWeight(*ck, w, path, 1))
                QCOMPARE(std::bit_cast<uint32_t>(v), 0u);
    }

    // Detection from the tensors, the config cross-checked: a config that disagrees is a note
    // and a verify error; linear_weights_not_to_quantize keeps lm_head out of the recipe.
    void detectionAndConfig()
    {
        const Scheme s{2, 8, 1, 8, 16, 64};
        const Module m = makeModule(s, 3);
        QTemporaryDir tmp;
        const std::string path = writeModule(tmp.path(), s, m, "model.safetensors");
        {
            const auto ck = openCheckpoint(path);
            QCOMPARE(ck->weights.size(), size_t(1));
            const LogicalWeight& w = ck->weights[0];
            QCOMPARE(w.format, std::string("aqlm"));
            QVERIFY(w.outFeatures() == 16 && w.inFeatures() == 64);
            QCOMPARE(w.bits, 8);
            QVERIFY(w.notes.empty());
            QVERIFY(findings(*ck, w, true).empty());
        }
        QFile f(tmp.filePath(QStringLiteral("config.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"quantization_config": {"quant_method": "aqlm", "nbits_per_codebook": 16, "num_codebooks": 2,
                    "in_group_size": 8, "out_group_size": 1,
                    "linear_weights_not_to_quantize": ["lm_head.weight"]}})");
        f.close();
        const auto ck = openCheckpoint(path);
        const LogicalWeight& w = ck->weights[0];
        QCOMPARE(w.notes.size(), size_t(1));
        QCOMPARE(w.notes[0].text(), std::string("config says nbits_per_codebook = 16, the AQLM tensors hold 8"));
        QVERIFY(findings(*ck, w, true).find("config: ") != std::string::npos);
        const detect::QuantConfig cfg(*ck);
        const auto entry = cfg.moduleEntry("lm_head", false);
        QVERIFY(entry && entry->excluded);
        QVERIFY2(entry->reason.find("linear_weights_not_to_quantize lists lm_head.weight") != std::string::npos,
                 entry->reason.c_str());
        QVERIFY(!cfg.moduleEntry("model.layers.0.mlp.down_proj", true));
    }

    // locate() names each element's code words: codebook m's index in piece m, the scale of its
    // output group; the bit map's word map inverts it.
    void locateNamesTheCodeWords()
    {
        const auto ck =
            openCheckpoint(qstest::fixture(QStringLiteral("new-formats/aqlm-2x8-in8/model.safetensors")).toStdString());
        const auto ck4 = openCheckpoint(
            qstest::fixture(QStringLiteral("new-formats/aqlm-1x8-out4-in4/model.safetensors")).toStdString());
        const auto ck16 = openCheckpoint(
            qstest::fixture(QStringLiteral("new-formats/aqlm-1x16-in8/model.safetensors")).toStdString());
        const LayoutSpec* spec = findLayoutSpec("aqlm");
        QVERIFY(spec && spec->locate);
        for (const auto* c : {ck.get(), ck4.get(), ck16.get()})
            for (const LogicalWeight& w : c->weights) {
                const WeightData d{*c, w};
                const Aqlm s = aqlmState(d);
                const LayoutParams lp = layoutParams(w);
                for (uint64_t n = 0; n < s.rows; n += 3)
                    for (uint64_t k = 0; k < s.cols; ++k) {
                        const ElementLocation e = spec->locate(lp, n, k);
                        QCOMPARE(int(e.pieceCount), int(s.codebooks));
                        uint64_t want = 0;
                        for (uint32_t cb = 0; cb < s.codebooks; ++cb)
                            want |= uint64_t(s.index(n / s.outGroup, k / s.inGroup, cb)) << (cb * uint32_t(s.bits));
                        QCOMPARE(qsk::readPieces(d.bytes(e.tensor), e.wordBits, e.pieces, e.pieceCount), want);
                        QCOMPARE(e.scaleIndex, n / s.outGroup);
                    }
                const WordMap map(*spec, lp);
                const std::vector<WordPiece> first = map.piecesIn(0);
                QCOMPARE(first.size(), size_t(s.outGroup * s.inGroup)); // the group shares word 0
            }
    }

    // The budget rows count what the files store: codes, codebooks and scales.
    void budgetRows()
    {
        const BudgetFormat* b16 = budgetFormat("aqlm-1x16-g8");
        const BudgetFormat* b8 = budgetFormat("aqlm-2x8-g8");
        QVERIFY(b16 && b8);
        // 4096 x 4096: 2 bits a weight of codes; 1 MiB or 8 KiB of codebooks; a half per row.
        QCOMPARE(budgetStoredBytes(*b16, 4096, 4096), uint64_t(4096 * 512 * 2 + 65536 * 8 * 2 + 4096 * 2));
        QCOMPARE(budgetStoredBytes(*b8, 4096, 4096), uint64_t(4096 * 512 * 2 + 2 * 256 * 8 * 2 + 4096 * 2));
        const auto ck = openCheckpoint(
            qstest::fixture(QStringLiteral("new-formats/aqlm-1x16-in8/model.safetensors")).toStdString());
        QCOMPARE(ck->weights[0].storedBytes, budgetStoredBytes(*b16, 64, 64));
        const auto ck8 =
            openCheckpoint(qstest::fixture(QStringLiteral("new-formats/aqlm-2x8-in8/model.safetensors")).toStdString());
        for (const LogicalWeight& w : ck8->weights)
            QCOMPARE(w.storedBytes, budgetStoredBytes(*b8, w.outFeatures(), w.inFeatures()));
    }

    // Bad input: a clear error naming the tensor on every path, never a read outside the codebook.
    void badInput()
    {
        QTemporaryDir tmp;
        const auto errorOf = [&](const Scheme& s, const Module& m, const std::string& file) {
            const auto ck = qsk::openFile(writeModule(tmp.path(), s, m, file));
            return dequantError(*ck, moduleWeight(*ck, s));
        };
        const auto expect = [](const std::string& err, const char* what) {
            QVERIFY2(err.find(what) != std::string::npos, err.c_str());
        };
        // A 4-bit codebook in int8 codes: 16 and -9 name no entry (aqlm would wrap them).
        Scheme s{1, 4, 1, 8, 4, 16};
        Module m = makeModule(s, 5);
        m.codes[5] = 16;
        expect(errorOf(s, m, "hi.safetensors"), "codes 'm.codes' [2, 1, 0] holds 16, outside the 16-entry codebook");
        m.codes[5] = -9;
        expect(errorOf(s, m, "lo.safetensors"), "holds -9, outside the 16-entry codebook");
        m.codes[5] = 15; // the unsigned form of -1 names entry 15 as -1 does
        QCOMPARE(errorOf(s, m, "ok.safetensors").substr(0, 11), std::string("no error on"));

        // Shapes: codebooks not a power of two long, codebooks per group disagreeing, scales short.
        const auto bad = [&](const std::vector<qsk::T>& tensors, const char* what) {
            const std::string file = std::to_string(std::hash<std::string>{}(what)) + ".safetensors";
            const auto ck = qsk::openFile(qsk::write(tmp.path(), file, tensors));
            LogicalWeight w;
            w.name = "m";
            w.format = "aqlm";
            w.shape = {4, 16};
            for (const char* role : {"codes", "codebooks", "scales"})
                w.members.emplace_back(role, size_t(ck->indexOf(std::string("m.") + role)));
            expect(dequantError(*ck, w), what);
            QVERIFY2(findings(*ck, w, true).find(what) != std::string::npos, findings(*ck, w, true).c_str());
        };
        const auto codes = [](std::vector<uint64_t> shape, DType t = DType::I8) {
            uint64_t n = 1;
            for (uint64_t d : shape)
                n *= d;
            return qsk::T{"m.codes", t, shape, std::vector<uint8_t>(n * dtypeBits(t) / 8, 0)};
        };
        const auto halfs = [](const char* name, std::vector<uint64_t> shape) {
            uint64_t n = 1;
            for (uint64_t d : shape)
                n *= d;
            return qsk::T{name, DType::F16, shape, qsk::halfBytes(std::vector<float>(n, 0.5f), DType::F16)};
        };
        bad({codes({4, 2, 1}), halfs("m.codebooks", {1, 200, 1, 8}), halfs("m.scales", {4, 1, 1, 1})},
            "codebooks 'm.codebooks' holds 200 entries per codebook, not a power of two");
        bad({codes({4, 2, 2}), halfs("m.codebooks", {1, 16, 1, 8}), halfs("m.scales", {4, 1, 1, 1})},
            "codes 'm.codes' is [4, 2, 2]: 2 codes per group, but codebooks 'm.codebooks' holds 1 codebooks");
        bad({codes({4, 2, 1}), halfs("m.codebooks", {1, 16, 1, 8}), halfs("m.scales", {2, 1, 1, 1})},
            "scales 'm.scales' is [2, 1, 1, 1]: 2 values for 4 output groups");
        bad({codes({4, 2}), halfs("m.codebooks", {1, 16, 1, 8}), halfs("m.scales", {4, 1, 1, 1})},
            "codes 'm.codes' is [4, 2], not [N/out_group, K/in_group, num_codebooks]");
        bad({codes({4, 2, 1}, DType::F16), halfs("m.codebooks", {1, 16, 1, 8}), halfs("m.scales", {4, 1, 1, 1})},
            "codes 'm.codes' holds F16, not I8, I16 or I32");
        bad({codes({4, 4, 1}), halfs("m.codebooks", {1, 16, 1, 8}), halfs("m.scales", {4, 1, 1, 1})},
            "make [4, 32], the weight is [4, 16]");
    }

    // A scale whose bytes are NaN, and a NaN codebook entry no code selects: verify errors.
    void nonFiniteScalesAndEntries()
    {
        Scheme s{1, 4, 1, 8, 4, 16};
        Module m = makeModule(s, 9);
        m.scales[2] = std::nanf("");
        for (int64_t& c : m.codes)
            c = c == -1 ? -2 : c; // entry 15 (stored -1) unused
        m.book[15 * 8 + 3] = INFINITY;
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(writeModule(tmp.path(), s, m));
        const std::string f = findings(*ck, moduleWeight(*ck, s), true);
        QVERIFY2(f.find("nonfinite-scale") != std::string::npos, f.c_str());
        QVERIFY2(f.find("codebooks: 1 of 128 codebook values are NaN or Inf") != std::string::npos, f.c_str());
    }
};

QTEST_GUILESS_MAIN(TestAqlm)
#include "tst_aqlm.moc"
