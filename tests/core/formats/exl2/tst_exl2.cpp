// EXL2: the upstream fixture (new-formats/exl2: exllamav2's pack and reconstruct kernels) bit for
// bit on every path; hand-packed weights of every width, permuted, with output widths that leave
// vector tails; the layout's locate() against the decoder; detection, group scales, the recipe,
// and bad input (q_groups past q_weight, widths outside {2..8}, a permutation that is not one, a
// truncated q_weight, NaN scale maxima).
#include "kernel_testutil.h"
#include "analysis/groupscales.h"
#include "analysis/recipe.h"
#include "analysis/verify.h"
#include "base/half.h"
#include "formats/dequant.h"
#include "formats/exl2/exl2.h"
#include "formats/layoutsize.h"
#include "formats/layoutspec.h"
#include "formats/opencheckpoint.h"
#include "formats/wordmap.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <numeric>
#include <random>

using namespace qs;

namespace {

// A hand-made EXL2 weight: codes per stored row and column, groups {bits, rows} widest first.
struct Exl2Case {
    uint64_t N = 0, K = 0;
    std::vector<std::pair<int, uint64_t>> groups;
    std::vector<unsigned> codes; // [K stored rows][N]
    std::vector<unsigned> scale4; // [groups][N]: the stored s - 1
    std::vector<float> scaleMax; // [groups], as stored (times 256)
    std::vector<int32_t> invperm; // [K]

    // The group of stored row j.
    uint64_t groupOf(uint64_t j) const
    {
        uint64_t g = 0;
        for (uint64_t first = 0; j >= first + groups[g].second;)
            first += groups[g++].second;
        return g;
    }
    // The values the format defines, step by step from exl2.h's formula.
    float scale(uint64_t g, uint64_t n) const
    {
        const float unit = halfToFloat(floatToHalf(halfToFloat(floatToHalf(scaleMax[g])) / 256.0f));
        const float s = float((scale4[g * N + n] + 1) * (scale4[g * N + n] + 1));
        return halfToFloat(floatToHalf(s * unit));
    }
    float expected(uint64_t n, uint64_t k) const
    {
        const uint64_t j = uint64_t(invperm[k]), g = groupOf(j);
        const int b = groups[g].first;
        return halfToFloat(floatToHalf(float(int(codes[j * N + n]) - (1 << (b - 1))) * scale(g, n)));
    }
};

Exl2Case randomCase(uint64_t N, const std::vector<std::pair<int, uint64_t>>& groups, uint32_t seed)
{
    std::mt19937 rng(seed);
    Exl2Case c;
    c.N = N;
    c.groups = groups;
    for (const auto& g : groups)
        c.K += g.second;
    c.codes.resize(c.K * N);
    uint64_t row = 0;
    for (const auto& [bits, rows] : groups)
        for (uint64_t r = 0; r < rows; ++r, ++row)
            for (uint64_t n = 0; n < N; ++n)
                c.codes[row * N + n] = rng() & ((1u << bits) - 1);
    for (size_t g = 0; g < groups.size(); ++g) {
        for (uint64_t n = 0; n < N; ++n)
            c.scale4.push_back(rng() & 15);
        // 0.5 .. 8: divided by 256 the small ones are f16 subnormals (below 2^-14).
        c.scaleMax.push_back(0.5f + float(rng() % 1000) / 133.0f);
    }
    c.invperm.resize(c.K);
    std::iota(c.invperm.begin(), c.invperm.end(), 0);
    std::shuffle(c.invperm.begin(), c.invperm.end(), rng);
    return c;
}

// Packs as exllamav2's pack_columns does: per group and column one LSB-first stream.
std::vector<uint32_t> packCase(const Exl2Case& c, std::vector<int16_t>& qGroups)
{
    std::vector<uint32_t> words;
    uint64_t row = 0;
    qGroups.clear();
    for (const auto& [bits, rows] : c.groups) {
        const uint64_t packed = rows * uint64_t(bits) / 32, first = words.size() / c.N;
        qGroups.push_back(int16_t(bits));
        qGroups.push_back(int16_t(first));
        words.resize(words.size() + packed * c.N, 0);
        for (uint64_t r = 0; r < rows; ++r)
            for (uint64_t n = 0; n < c.N; ++n)
                for (int i = 0; i < bits; ++i)
                    if ((c.codes[(row + r) * c.N + n] >> i) & 1u) {
                        const uint64_t bit = r * uint64_t(bits) + uint64_t(i);
                        words[(first + bit / 32) * c.N + n] |= 1u << (bit % 32);
                    }
        row += rows;
    }
    return words;
}

std::vector<uint8_t> scaleWords(const Exl2Case& c)
{
    std::vector<uint32_t> w(c.groups.size() * c.N / 8, 0);
    for (size_t g = 0; g < c.groups.size(); ++g)
        for (uint64_t n = 0; n < c.N; ++n)
            w[g * c.N / 8 + n / 8] |= c.scale4[g * c.N + n] << (4 * (n % 8));
    return qsk::bytesOf(w);
}

// The case's tensors under module "m", with `edit` applied before writing.
std::string writeCase(const QString& dir, const Exl2Case& c, const std::function<void(std::vector<qsk::T>&)>& edit = {})
{
    std::vector<int16_t> qGroups;
    const std::vector<uint32_t> words = packCase(c, qGroups);
    std::vector<qsk::T> t = {
        {"m.q_weight", DType::I32, {words.size() / c.N, c.N}, qsk::bytesOf(words)},
        {"m.q_scale", DType::I32, {c.groups.size(), c.N / 8}, scaleWords(c)},
        {"m.q_scale_max", DType::F16, {c.groups.size()}, qsk::halfBytes(c.scaleMax, DType::F16)},
        {"m.q_groups", DType::I16, {qGroups.size()}, qsk::bytesOf(qGroups)},
        {"m.q_invperm", DType::I32, {c.K}, qsk::bytesOf(c.invperm)},
    };
    if (edit)
        edit(t);
    return qsk::write(dir, "model.safetensors", t);
}

qsk::T& tensorNamed(std::vector<qsk::T>& t, const std::string& name)
{
    return *std::find_if(t.begin(), t.end(), [&](const qsk::T& x) { return x.name == name; });
}

const LogicalWeight& onlyWeight(const Checkpoint& ck)
{
    if (ck.weights.size() != 1 || ck.weights[0].format != "exl2")
        throw Error("test: not one exl2 weight");
    return ck.weights[0];
}

// The error dequantizing the weight gives ("" when none).
std::string dequantError(const Checkpoint& ck, const LogicalWeight& w)
{
    try {
        dequantizeWeight(ck, w, SimdPath::Scalar, 1);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

std::string verifyErrors(const Checkpoint& ck, const LogicalWeight& w)
{
    VerifyReport rep;
    verifyWeight(ck, w, rep);
    std::string out;
    for (const VerifyFinding& f : rep.findings)
        out += f.check + ": " + f.message.text() + "; ";
    return out;
}

} // namespace

class TestExl2 : public QObject {
    Q_OBJECT
private slots:
    // Every reference weight of the upstream fixture, through open/detect/dequant, on every path.
    void fixtureBitExact()
    {
        const QString dir = qstest::fixture(QStringLiteral("new-formats/exl2"));
        const auto ck = openCheckpoint(dir.toStdString());
        const auto ref = qsk::openFile((dir + QStringLiteral("/ref.safetensors")).toStdString());
        int weights = 0;
        for (const LogicalWeight& w : ck->weights) {
            QCOMPARE(w.format, std::string("exl2"));
            const std::vector<float> want = qsk::floats(*ref, w.name + ".weight");
            for (SimdPath path : qsk::simdPaths()) {
                const std::vector<float> got = dequantizeWeight(*ck, w, path, 2);
                QVERIFY2(std::memcmp(got.data(), want.data(), want.size() * 4) == 0 && got.size() == want.size(),
                         (w.name + " " + std::string(simdPathName(path))).c_str());
            }
            VerifyReport rep;
            verifyWeight(*ck, w, rep);
            QVERIFY2(rep.findings.empty(), verifyErrors(*ck, w).c_str());
            ++weights;
        }
        QCOMPARE(weights, 3);
        const LogicalWeight* down = ck->findWeight("model.layers.0.mlp.down_proj");
        QVERIFY(down);
        QCOMPARE(down->params.at("row_groups"), std::string("8b 1x32, 6b 1x32, 5b 2x32, 4b 2x32, 3b 1x32, 2b 1x32"));
        QCOMPARE(down->params.at("code_bits_average"), std::string("4.625"));
        QCOMPARE(down->bits, 8);
        QCOMPARE(down->groupSize, int64_t(32));
        QCOMPARE(ck->findWeight("model.layers.0.self_attn.q_proj")->params.at("row_groups"),
                 std::string("6b 1x32, 3b 1x32"));
    }

    // Hand-packed weights of every width and mix, permuted; N leaves tails after whole vectors.
    void packed_data()
    {
        QTest::addColumn<int>("N");
        QTest::addColumn<QString>("mix");
        QTest::addRow("every width, N 40")
            << 40 << QStringLiteral("8b 1x32, 6b 1x64, 5b 1x32, 4b 2x32, 3b 1x96, 2b 1x32");
        QTest::addRow("5 and 3 bits, N 24") << 24 << QStringLiteral("5b 3x32, 3b 1x32");
        QTest::addRow("6 bits, N 136") << 136 << QStringLiteral("6b 4x32");
        QTest::addRow("2 bits, N 8") << 8 << QStringLiteral("2b 2x64");
        QTest::addRow("4 bits, 128-row groups, N 64") << 64 << QStringLiteral("4b 3x128");
    }
    void packed()
    {
        QFETCH(int, N);
        QFETCH(QString, mix);
        const std::vector<RowGroup> parsed = parseRowGroups(mix.toStdString(), 1 << 20);
        QVERIFY(!parsed.empty());
        QCOMPARE(rowGroupsText(parsed), mix.toStdString());
        std::vector<std::pair<int, uint64_t>> groups;
        for (const RowGroup& g : parsed)
            groups.emplace_back(g.bits, g.rows);
        const Exl2Case c = randomCase(uint64_t(N), groups, uint32_t(N) * 7 + uint32_t(groups.size()));
        QTemporaryDir tmp;
        const auto ck = openCheckpoint(writeCase(tmp.path(), c));
        const LogicalWeight& w = onlyWeight(*ck);
        QCOMPARE(w.shape, (std::vector<uint64_t>{c.N, c.K}));
        for (SimdPath path : qsk::simdPaths()) {
            const std::vector<float> got = dequantizeWeight(*ck, w, path, 2);
            for (uint64_t n = 0; n < c.N; ++n)
                for (uint64_t k = 0; k < c.K; ++k)
                    if (std::bit_cast<uint32_t>(got[n * c.K + k]) != std::bit_cast<uint32_t>(c.expected(n, k)))
                        QFAIL(qPrintable(QStringLiteral("%1 (%2, %3): %4, expected %5")
                                             .arg(QLatin1String(simdPathName(path).data()))
                                             .arg(n)
                                             .arg(k)
                                             .arg(double(got[n * c.K + k]))
                                             .arg(double(c.expected(n, k)))));
            // A row range starting off a vector edge.
            const std::vector<float> part = qsk::run(dequantExl2Rows, *ck, w, path, 3, c.N);
            QVERIFY(std::memcmp(part.data(), got.data() + 3 * c.K, part.size() * 4) == 0);
        }
        // locate() names each stored row's code (the bit map's order: columns are stored rows).
        const LayoutSpec* spec = findLayoutSpec("exl2");
        QVERIFY(spec && spec->locate);
        const LayoutParams lp = layoutParams(w);
        QVERIFY(lp.rowGroups == parsed);
        QVERIFY2(layoutRefusal(*spec, lp).empty(), layoutRefusal(*spec, lp).c_str());
        const WeightData d{*ck, w};
        for (uint64_t n = 0; n < c.N; ++n)
            for (uint64_t j = 0; j < c.K; ++j) {
                const ElementLocation e = spec->locate(lp, n, j);
                QCOMPARE(qsk::readPieces(d.bytes(e.tensor), e.wordBits, e.pieces, e.pieceCount),
                         uint64_t(c.codes[j * c.N + n]));
            }
        for (const LayoutTensor& t : spec->tensors)
            if (const int m = w.member(t.role); m >= 0)
                QCOMPARE(ck->tensors[size_t(m)].shape, t.shape(lp));
        // The bit map's inverse: every word of q_weight holds exactly the pieces locate() puts there
        // (a period shorter than K would pass the search's window and miss the later groups).
        const WordMap map(*spec, lp);
        QCOMPARE(map.wordCount(), ck->find("m.q_weight")->elementCount());
        std::vector<uint64_t> bitsIn(map.wordCount(), 0);
        for (uint64_t word = 0; word < map.wordCount(); ++word)
            for (const WordPiece& piece : map.piecesIn(word)) {
                const ElementLocation e = spec->locate(lp, piece.row, piece.col);
                QCOMPARE(e.pieces[piece.piece].word, word);
                bitsIn[word] += piece.width;
            }
        for (uint64_t word = 0; word < map.wordCount(); ++word)
            QCOMPARE(bitsIn[word], uint64_t(32));
        // The bit map's panel reads the same code, group and scale.
        const ElementValues v = elementValues(*ck, w, *spec, lp, 5 % c.N, c.K - 1);
        QCOMPARE(v.code, uint64_t(c.codes[(c.K - 1) * c.N + 5 % c.N]));
        QCOMPARE(v.group, uint64_t(groups.size() - 1));
        QCOMPARE(v.zero, double(1 << (groups.back().first - 1)));
        // Group scales: per group and column the kernel's scale, each input channel's group.
        const GroupScales gs = groupScales(*ck, w);
        QCOMPARE(gs.groups, uint64_t(groups.size()));
        QCOMPARE(gs.gIdx.size(), size_t(c.K));
        for (uint64_t k = 0; k < c.K; ++k)
            QCOMPARE(uint64_t(gs.gIdx[k]), c.groupOf(uint64_t(c.invperm[k])));
        for (uint64_t g = 0; g < groups.size(); ++g)
            for (uint64_t n = 0; n < c.N; ++n)
                QCOMPARE(gs.scaleAt(g, n), c.scale(g, n));
    }

    // q_perm stored: the kernel writes stored row j to row q_perm[j]; verify flags one that does
    // not undo q_invperm.
    void storedPerm()
    {
        const Exl2Case c = randomCase(16, {{4, 64}}, 3);
        std::vector<int32_t> perm(c.K);
        for (uint64_t k = 0; k < c.K; ++k)
            perm[size_t(c.invperm[k])] = int32_t(k);
        QTemporaryDir tmp;
        auto ck = openCheckpoint(writeCase(tmp.path(), c, [&](std::vector<qsk::T>& t) {
            t.push_back({"m.q_perm", DType::I32, {c.K}, qsk::bytesOf(perm)});
        }));
        const std::vector<float> ok = dequantizeWeight(*ck, onlyWeight(*ck), SimdPath::Scalar, 1);
        QCOMPARE(ok[1], c.expected(0, 1));
        QCOMPARE(verifyErrors(*ck, onlyWeight(*ck)), std::string());
        std::swap(perm[0], perm[1]);
        QTemporaryDir tmp2;
        ck = openCheckpoint(writeCase(tmp2.path(), c, [&](std::vector<qsk::T>& t) {
            t.push_back({"m.q_perm", DType::I32, {c.K}, qsk::bytesOf(perm)});
        }));
        QVERIFY2(verifyErrors(*ck, onlyWeight(*ck)).find("input-perm: q_perm is not the inverse of q_invperm")
                     != std::string::npos,
                 verifyErrors(*ck, onlyWeight(*ck)).c_str());
    }

    void badInput_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("message");
        QTest::addRow("q_groups row past q_weight")
            << 0 << QStringLiteral("q_groups: group 0 starts at packed row 0, the next at 40");
        QTest::addRow("width 7") << 1 << QStringLiteral("q_groups: group 0 has bit width 7, not 2, 3, 4, 5, 6 or 8");
        QTest::addRow("widths rising") << 2 << QStringLiteral("q_groups: group 1 (8 bits) follows a group of 4 bits");
        QTest::addRow("not a permutation")
            << 3 << QStringLiteral("'m.q_invperm' is not a permutation of 0..95: repeated");
        QTest::addRow("permutation value out of range") << 4 << QStringLiteral("'m.q_invperm' is not a permutation");
        QTest::addRow("truncated q_weight")
            << 5 << QStringLiteral("q_groups over q_weight's 6 packed rows give 64 input rows, the permutation 96");
        QTest::addRow("q_scale short") << 6 << QStringLiteral("'m.q_scale' is I32 [2, 2], EXL2 stores I32 [2, 3]");
        QTest::addRow("q_scale_max F32") << 7 << QStringLiteral("'m.q_scale_max' is F32 [2], EXL2 stores F16 [2]");
    }
    // Each: detection keeps the weight, dequant and group scales fail naming the tensor, verify
    // reports it; nothing crashes.
    void badInput()
    {
        QFETCH(int, kind);
        QFETCH(QString, message);
        const Exl2Case c = randomCase(24, {{4, 32}, {2, 64}}, 9); // q_weight [4 + 4, 24], K = 96
        QTemporaryDir tmp;
        const auto ck = openCheckpoint(writeCase(tmp.path(), c, [&](std::vector<qsk::T>& t) {
            std::vector<int16_t> q(4);
            std::memcpy(q.data(), tensorNamed(t, "m.q_groups").data.data(), 8);
            std::vector<int32_t> inv = c.invperm;
            switch (kind) {
            case 0: q[3] = 40; break;
            case 1: q[0] = 7; break;
            case 2: q[2] = 8; break;
            case 3: inv[1] = inv[0]; break;
            case 4: inv[5] = 96; break;
            case 5: {
                qsk::T& w = tensorNamed(t, "m.q_weight");
                w.shape[0] -= 2;
                w.data.resize(w.data.size() - 2 * 24 * 4);
                break;
            }
            case 6: {
                qsk::T& s = tensorNamed(t, "m.q_scale");
                s.shape = {2, 2};
                s.data.resize(16);
                break;
            }
            case 7: {
                qsk::T& s = tensorNamed(t, "m.q_scale_max");
                s.dtype = DType::F32;
                s.data = qsk::bytesOf(c.scaleMax);
                break;
            }
            }
            tensorNamed(t, "m.q_groups").data = qsk::bytesOf(q);
            tensorNamed(t, "m.q_invperm").data = qsk::bytesOf(inv);
        }));
        const LogicalWeight& w = onlyWeight(*ck);
        const std::string err = dequantError(*ck, w);
        QVERIFY2(err.find(message.toStdString()) != std::string::npos, err.c_str());
        QVERIFY2(err.find("weight 'm'") != std::string::npos, err.c_str());
        QVERIFY_THROWS_EXCEPTION(Error, groupScales(*ck, w));
        const std::string found = verifyErrors(*ck, w);
        QVERIFY2(found.find(message.toStdString()) != std::string::npos, found.c_str());
        if (kind <= 2 || kind == 5) // detection read q_groups and said why it gives no row groups
            QVERIFY(w.params.find("row_groups") == w.params.end());
    }

    // NaN and Inf scale maxima decode as upstream's f16 arithmetic gives (NaN, Inf * 0 = NaN);
    // verify names them.
    void nonFiniteScaleMax()
    {
        Exl2Case c = randomCase(16, {{8, 32}, {4, 32}}, 5);
        c.scaleMax[0] = std::numeric_limits<float>::quiet_NaN();
        c.scaleMax[1] = std::numeric_limits<float>::infinity();
        QTemporaryDir tmp;
        const auto ck = openCheckpoint(writeCase(tmp.path(), c));
        const LogicalWeight& w = onlyWeight(*ck);
        const std::vector<float> ref = dequantizeWeight(*ck, w, SimdPath::Scalar, 1);
        for (SimdPath path : qsk::simdPaths())
            QVERIFY(std::memcmp(ref.data(), dequantizeWeight(*ck, w, path, 1).data(), ref.size() * 4) == 0);
        for (uint64_t k = 0; k < c.K; ++k)
            QVERIFY(std::isnan(ref[k]) || (c.invperm[k] >= 32 && std::isinf(ref[k])));
        QVERIFY2(verifyErrors(*ck, w).find("scale: 2 of 2 q_scale_max values are NaN or Inf") != std::string::npos,
                 verifyErrors(*ck, w).c_str());
    }

    // The row-groups parameter: what the parser refuses.
    void rowGroupsParameter()
    {
        const std::vector<RowGroup> want{{8, 32, 0, 0}, {8, 32, 32, 8}, {4, 64, 64, 16}};
        QVERIFY(parseRowGroups("8b 2x32, 4b 1x64", 128) == want);
        QCOMPARE(&rowGroupOf(want, 63), &want[1]);
        QCOMPARE(&rowGroupOf(want, 64), &want[2]);
        for (const char* bad : {"", "8b 2x32,", "8b 2x32, ", "8b2x32", "b 1x32", "8b 0x32", "8b 1x0", "40b 1x32",
                                "8b 5x32", "8b 99999999999999999999x1", "8b 1x32 junk"})
            QVERIFY2(parseRowGroups(bad, 128).empty(), bad);
    }

    // The config's quant_method against the tensors; the recipe's nominal target and labels.
    void configAndRecipe()
    {
        const Exl2Case c = randomCase(16, {{6, 32}, {3, 32}}, 4);
        QTemporaryDir tmp;
        writeCase(tmp.path(), c);
        QFile cfg(tmp.filePath(QStringLiteral("config.json")));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write(R"({"quantization_config": {"quant_method": "gptq", "bits": 4}})");
        cfg.close();
        const auto ck = openCheckpoint(tmp.path().toStdString());
        const LogicalWeight& w = onlyWeight(*ck);
        QVERIFY(std::any_of(w.notes.begin(), w.notes.end(), [](const Message& m) {
            return m.text() == "config says quant_method gptq, but the tensors are EXL2's";
        }));
        QCOMPARE(w.params.at("code_bits_average"), std::string("4.500"));

        QVERIFY(cfg.open(QIODevice::WriteOnly | QIODevice::Truncate));
        cfg.write(R"({"quantization_config": {"quant_method": "exl2", "bits": 4.5, "head_bits": 6}})");
        cfg.close();
        const auto ok = openCheckpoint(tmp.path().toStdString());
        QVERIFY(onlyWeight(*ok).notes.empty());
        const RecipeSummary r = summarizeRecipe(*ok);
        QVERIFY(r.hasNominal);
        QCOMPARE(r.nominal.name.text(), std::string("exl2, 4.5 bits per weight on average (head 6)"));
        QCOMPARE(r.count(RecipeKind::Nominal), size_t(1));
        QCOMPARE(r.tensors.at(0).verdict.reason, std::string("row groups 6b 1x32, 3b 1x32"));
    }
};

QTEST_GUILESS_MAIN(TestExl2)
#include "tst_exl2.moc"
