// The importance matrix: both llama-imatrix formats, written here byte by byte (legacy) and
// with the GGUF writer (in_sum2 / counts / in_sum as llama-imatrix names them), read back to the
// importance llama-quantize computes; truncated and hostile files refused naming file and entry;
// the weights of a checkpoint matched tensor by tensor; and the importance-weighted error
// checked against a hand computation, for a plain weight and for experts.
#include "analysis/imatrix.h"
#include "analysis/stats.h"
#include "base/error.h"
#include "container/gguf.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <fstream>

using namespace qs;

namespace {

struct LegacyEntry {
    std::string name;
    int32_t ncall;
    std::vector<float> values; // as stored: mean x^2 times ncall
};

void putI32(std::string& out, int32_t v)
{
    out.append(reinterpret_cast<const char*>(&v), 4);
}

// The .dat layout llama-imatrix's save_imatrix_legacy writes.
std::string legacyBytes(const std::vector<LegacyEntry>& entries, bool trailer = true, int32_t lastCall = 7,
                        const std::string& dataset = "wiki.train.raw")
{
    std::string out;
    putI32(out, int32_t(entries.size()));
    for (const LegacyEntry& e : entries) {
        putI32(out, int32_t(e.name.size()));
        out += e.name;
        putI32(out, e.ncall);
        putI32(out, int32_t(e.values.size()));
        out.append(reinterpret_cast<const char*>(e.values.data()), e.values.size() * 4);
    }
    if (trailer) {
        putI32(out, lastCall);
        putI32(out, int32_t(dataset.size()));
        out += dataset;
    }
    return out;
}

std::span<const uint8_t> spanOf(const std::string& s)
{
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

MetaValue str(const std::string& s)
{
    return MetaValue{MetaValue::Type::String, MetaValue::Type::U8, s};
}

MetaValue u32(uint64_t v)
{
    return MetaValue{MetaValue::Type::U32, MetaValue::Type::U8, v};
}

struct GgufEntry {
    std::string name;
    uint64_t columns;
    std::vector<float> sums; // matrices x columns
    std::vector<float> counts; // per matrix
};

std::vector<uint8_t> floatBytes(const std::vector<float>& v)
{
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

// The GGUF llama-imatrix's save_imatrix writes: general.type, the imatrix keys, per entry
// <name>.in_sum2 [columns, matrices], <name>.counts [1, matrices] and <name>.in_sum.
void writeImatrixGguf(const std::string& path, const std::vector<GgufEntry>& entries,
                      const std::string& type = "imatrix")
{
    GgufMetadata meta;
    meta.emplace_back("general.type", str(type));
    meta.emplace_back(
        "imatrix.datasets",
        MetaValue{MetaValue::Type::Array, MetaValue::Type::String, std::vector<MetaValue>{str("a.txt"), str("b.txt")}});
    meta.emplace_back("imatrix.chunk_count", u32(12));
    meta.emplace_back("imatrix.chunk_size", u32(512));
    std::vector<std::vector<uint8_t>> blobs;
    blobs.reserve(entries.size() * 3);
    std::vector<GgufTensor> tensors;
    for (const GgufEntry& e : entries) {
        const uint64_t m = e.counts.size();
        blobs.push_back(floatBytes(e.sums));
        tensors.push_back({e.name + ".in_sum2", 0, {e.columns, m}, blobs.back()});
        blobs.push_back(floatBytes(e.counts));
        tensors.push_back({e.name + ".counts", 0, {1, m}, blobs.back()});
        blobs.push_back(floatBytes(std::vector<float>(e.sums.size(), 0.5f)));
        tensors.push_back({e.name + ".in_sum", 0, {e.columns, m}, blobs.back()});
    }
    writeGguf(path, meta, tensors);
}

// A float GGUF checkpoint of F32 tensors.
std::string writeFloatGguf(const std::string& path,
                           const std::vector<std::pair<std::string, std::vector<uint64_t>>>& shapes,
                           const std::vector<std::vector<float>>& values)
{
    GgufMetadata meta;
    meta.emplace_back("general.architecture", str("llama"));
    std::vector<std::vector<uint8_t>> blobs;
    blobs.reserve(values.size());
    std::vector<GgufTensor> tensors;
    for (size_t i = 0; i < shapes.size(); ++i) {
        blobs.push_back(floatBytes(values[i]));
        tensors.push_back({shapes[i].first, 0, shapes[i].second, blobs.back()});
    }
    writeGguf(path, meta, tensors);
    return path;
}

void expectError(const std::function<void()>& f, const std::vector<std::string>& parts)
{
    try {
        f();
    } catch (const Error& e) {
        const std::string what = e.what();
        for (const std::string& p : parts)
            if (what.find(p) == std::string::npos)
                QFAIL(qPrintable(
                    QStringLiteral("'%1' lacks '%2'").arg(QString::fromStdString(what), QString::fromStdString(p))));
        return;
    }
    QFAIL("no qs::Error");
}

} // namespace

class TestImatrix : public QObject {
    Q_OBJECT
private slots:
    void legacyReadsWhatWasWritten()
    {
        const std::vector<float> q{4.0f, 8.0f, 0.0f, 12.0f}, d{3.0f, 1.5f, 6.0f};
        const std::string bytes = legacyBytes({{"blk.0.attn_q.weight", 4, q}, {"blk.0.attn_k.weight", 3, d}});
        const Imatrix im = readImatrixMemory("x.dat", spanOf(bytes));
        QCOMPARE(im.format, ImatrixFormat::Legacy);
        QCOMPARE(im.entries.size(), size_t(2));
        QCOMPARE(im.chunkCount, uint64_t(7));
        QCOMPARE(im.datasets, std::vector<std::string>{"wiki.train.raw"});
        const ImatrixEntry* a = im.find("blk.0.attn_q.weight");
        QVERIFY(a);
        QCOMPARE(a->columns, uint64_t(4));
        QCOMPARE(a->matrices, uint64_t(1));
        // llama-quantize's importance: the stored values over ncall.
        QCOMPARE(a->importance, (std::vector<float>{1.0f, 2.0f, 0.0f, 3.0f}));
        const ImatrixEntry* k = im.find("blk.0.attn_k.weight");
        QVERIFY(k);
        QCOMPARE(k->importance, (std::vector<float>{3.0f / 3.0f, 1.5f / 3.0f, 6.0f / 3.0f}));
        QCOMPARE(k->counts, std::vector<float>{3.0f});
        // Without the trailer (older files) the same entries.
        const std::string old = legacyBytes({{"w", 2, {2.0f, 4.0f}}}, false);
        const Imatrix o = readImatrixMemory("old.dat", spanOf(old));
        QCOMPARE(o.entries.at(0).importance, (std::vector<float>{1.0f, 2.0f}));
        QCOMPARE(o.chunkCount, uint64_t(0));
        QVERIFY(o.datasets.empty());
    }

    void ggufReadsWhatWasWritten()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("imatrix.gguf")).toStdString();
        writeImatrixGguf(path,
                         {{"blk.0.attn_q.weight", 4, {2, 4, 6, 8}, {2}},
                          // Two experts, the second never routed to: 1 per channel.
                          {"blk.0.ffn_up_exps.weight", 3, {3, 6, 9, 5, 5, 5}, {3, 0}}});
        const Imatrix im = readImatrix(path);
        QCOMPARE(im.format, ImatrixFormat::Gguf);
        QCOMPARE(im.datasets, (std::vector<std::string>{"a.txt", "b.txt"}));
        QCOMPARE(im.chunkCount, uint64_t(12));
        QCOMPARE(im.chunkSize, uint64_t(512));
        QCOMPARE(im.entries.size(), size_t(2)); // the in_sum tensors are not entries of their own
        const ImatrixEntry* q = im.find("blk.0.attn_q.weight");
        QVERIFY(q);
        QCOMPARE(q->importance, (std::vector<float>{1, 2, 3, 4}));
        const ImatrixEntry* e = im.find("blk.0.ffn_up_exps.weight");
        QVERIFY(e);
        QCOMPARE(e->matrices, uint64_t(2));
        QCOMPARE(e->columns, uint64_t(3));
        QCOMPARE(e->importance, (std::vector<float>{1, 2, 3, 1, 1, 1}));
        QCOMPARE(e->counts, (std::vector<float>{3, 0}));
    }

    void badFilesAreRefused()
    {
        const std::string good = legacyBytes({{"blk.0.attn_q.weight", 4, {4, 8}}, {"blk.1.attn_q.weight", 4, {4, 8}}});
        // Every truncation: a clear error naming the file, never a crash. (A cut at the end
        // of the last entry is an old file without the trailer and reads.)
        const size_t lastEntryEnd = good.size() - 4 - 4 - std::string("wiki.train.raw").size();
        for (size_t n = 0; n < good.size(); ++n) {
            if (n == lastEntryEnd)
                continue;
            const std::string cut = good.substr(0, n);
            expectError([&] { (void)readImatrixMemory("cut.dat", spanOf(cut)); }, {"cut.dat"});
        }
        std::string huge = good;
        const int32_t many = 1 << 30;
        std::memcpy(huge.data(), &many, 4);
        expectError([&] { (void)readImatrixMemory("h.dat", spanOf(huge)); }, {"h.dat", "entry count"});
        expectError(
            [&] {
                (void)readImatrixMemory("n.dat", spanOf(legacyBytes({{"w", -1, {1}}})));
            },
            {"n.dat", "'w'", "ncall -1"});
        expectError(
            [&] {
                (void)readImatrixMemory("z.dat", spanOf(legacyBytes({{"w", 1, {}}})));
            },
            {"z.dat", "'w'", "value count 0"});
        expectError(
            [&] {
                (void)readImatrixMemory("d.dat", spanOf(legacyBytes({{"w", 1, {1}}, {"w", 1, {1}}})));
            },
            {"d.dat", "entry 2 of 2 'w'", "second entry"});
        expectError(
            [&] {
                (void)readImatrixMemory("nan.dat", spanOf(legacyBytes({{"w", 1, {std::nanf("")}}})));
            },
            {"nan.dat", "'w'"});
        std::string bigName = legacyBytes({{"w", 1, {1}}});
        const int32_t longName = 1 << 28;
        std::memcpy(bigName.data() + 4, &longName, 4);
        expectError([&] { (void)readImatrixMemory("l.dat", spanOf(bigName)); },
                    {"l.dat", "entry 1 of 1: name", "truncated"});

        QTemporaryDir dir;
        const std::string model = dir.filePath(QStringLiteral("model.gguf")).toStdString();
        writeImatrixGguf(model, {{"w", 2, {1, 2}, {1}}}, "model");
        expectError([&] { (void)readImatrix(model); }, {model, "general.type", "not an importance matrix"});
        // in_sum2 without its counts, and counts that do not divide the sums.
        GgufMetadata meta{{"general.type", str("imatrix")}};
        const std::vector<uint8_t> four = floatBytes({1, 2, 3, 4}), three = floatBytes({1, 1, 1});
        const std::string lone = dir.filePath(QStringLiteral("lone.gguf")).toStdString();
        writeGguf(lone, meta, {{"blk.0.attn_q.weight.in_sum2", 0, {4, 1}, four}});
        expectError([&] { (void)readImatrix(lone); }, {lone, "entry 'blk.0.attn_q.weight'", ".counts is missing"});
        const std::string odd = dir.filePath(QStringLiteral("odd.gguf")).toStdString();
        writeGguf(odd, meta, {{"w.in_sum2", 0, {4, 1}, four}, {"w.counts", 0, {1, 3}, three}});
        expectError([&] { (void)readImatrix(odd); }, {odd, "entry 'w'", "3 counts"});
        const std::string neg = dir.filePath(QStringLiteral("neg.gguf")).toStdString();
        const std::vector<uint8_t> minus = floatBytes({-1});
        writeGguf(neg, meta, {{"w.in_sum2", 0, {4, 1}, four}, {"w.counts", 0, {1, 1}, minus}});
        expectError([&] { (void)readImatrix(neg); }, {neg, "entry 'w'", "count"});
        const std::string other = dir.filePath(QStringLiteral("other.gguf")).toStdString();
        writeGguf(other, meta, {{"blk.0.attn_q.weight", 0, {4, 1}, four}});
        expectError([&] { (void)readImatrix(other); }, {other, "'blk.0.attn_q.weight'", "in_sum2"});
    }

    void matchesTensorByTensor()
    {
        QTemporaryDir dir;
        const std::string ckptPath =
            writeFloatGguf(dir.filePath(QStringLiteral("m.gguf")).toStdString(),
                           {{"blk.0.attn_q.weight", {8, 4}},
                            {"blk.0.attn_k.weight", {16, 4}},
                            {"blk.0.ffn_up_exps.weight", {8, 4, 2}},
                            {"output.weight", {8, 4}},
                            {"blk.0.attn_norm.weight", {8}}},
                           {std::vector<float>(32, 1.0f), std::vector<float>(64, 1.0f), std::vector<float>(64, 1.0f),
                            std::vector<float>(32, 1.0f), std::vector<float>(8, 1.0f)});
        const auto ckpt = openCheckpoint(ckptPath);
        const std::string imPath = dir.filePath(QStringLiteral("i.gguf")).toStdString();
        writeImatrixGguf(imPath,
                         {{"blk.0.attn_q.weight", 8, std::vector<float>(8, 1), {1}},
                          {"blk.0.attn_k.weight", 8, std::vector<float>(8, 1), {1}},
                          {"blk.0.ffn_up_exps.weight", 8, std::vector<float>(16, 1), {1, 1}},
                          {"blk.9.attn_q.weight", 8, std::vector<float>(8, 1), {1}}});
        const Imatrix im = readImatrix(imPath);
        const ImatrixMatch m = matchImatrix(im, *ckpt);
        QCOMPARE(m.weights.size(), size_t(4)); // the norm is not a matrix
        QCOMPARE(m.fitting(), size_t(2));
        QCOMPARE(m.mismatched(), size_t(1));
        QVERIFY(m.find("blk.0.attn_q.weight")->fits());
        QVERIFY(m.find("blk.0.ffn_up_exps.weight")->fits());
        const ImatrixWeightMatch* k = m.find("blk.0.attn_k.weight");
        QVERIFY(k->lengthMismatch());
        QCOMPARE(
            QString::fromStdString(k->problem),
            QStringLiteral(
                "the imatrix entry 'blk.0.attn_k.weight' has 8 channels, the weight [4, 16] needs 16 input channels"));
        const ImatrixWeightMatch* o = m.find("output.weight");
        QVERIFY(!o->entry);
        QVERIFY(QString::fromStdString(o->problem).startsWith(QStringLiteral("no imatrix entry")));
        QCOMPARE(m.unusedEntries, std::vector<std::string>{"blk.9.attn_q.weight"});
        // A legacy entry holds the experts' channels back to back: 16 values fit [2, 4, 8].
        const std::string legacy = legacyBytes({{"blk.0.ffn_up_exps.weight", 1, std::vector<float>(16, 1)},
                                                {"blk.0.attn_q.weight", 1, std::vector<float>(16, 1)}});
        const Imatrix li = readImatrixMemory("l.dat", spanOf(legacy));
        const ImatrixMatch lm = matchImatrix(li, *ckpt);
        QVERIFY(lm.find("blk.0.ffn_up_exps.weight")->fits());
        QVERIFY(lm.find("blk.0.attn_q.weight")->lengthMismatch());
    }

    // sum over elements of importance[column] * (w - ref)^2, by hand.
    void weightedErrorByHand()
    {
        QTemporaryDir dir;
        const std::vector<float> w{1.0f, 2.0f, 3.0f, 4.0f, -1.0f, 0.5f, 0.0f, 2.0f};
        const std::vector<float> r{1.5f, 2.0f, 2.0f, 4.25f, -1.0f, 0.0f, 1.0f, 2.0f};
        const std::vector<float> imp{2.0f, 10.0f, 0.5f, 4.0f};
        const auto a = openCheckpoint(writeFloatGguf(dir.filePath(QStringLiteral("a.gguf")).toStdString(),
                                                     {{"blk.0.attn_v.weight", {4, 2}}}, {w}));
        const auto ref = openCheckpoint(writeFloatGguf(dir.filePath(QStringLiteral("r.gguf")).toStdString(),
                                                       {{"blk.0.attn_v.weight", {4, 2}}}, {r}));
        // Row 0: 2*0.25 + 10*0 + 0.5*1 + 4*0.0625 = 1.25; row 1: 0 + 10*0.25 + 0.5*1 + 0 = 3.
        const double handSum = 1.25 + 3.0;
        const double handRef = 2 * 2.25 + 10 * 4 + 0.5 * 4 + 4 * 4.25 * 4.25 + 2 * 1 + 0 + 0.5 * 1 + 4 * 4;
        StatsOptions opt;
        opt.importance = &imp;
        const LogicalWeight& lw = ckpt0(*a);
        const ReferenceMatch match = findReference(*a, lw, *ref);
        QVERIFY(match.found());
        const WeightComparison c = compareWeight(*a, lw, *ref, match, opt);
        QVERIFY(c.error.weighted);
        QCOMPARE(c.error.weightedSumSq, handSum);
        QCOMPARE(c.error.weightedMse, handSum / 8.0);
        QCOMPARE(c.error.weightedRelative, handSum / handRef);
        // The plain figure beside it is unchanged by the importance.
        StatsOptions plain;
        const WeightComparison p = compareWeight(*a, lw, *ref, match, plain);
        QVERIFY(!p.error.weighted);
        QCOMPARE(p.error.rmse, c.error.rmse);
        QCOMPARE(c.error.rmse * c.error.rmse, (0.25 + 1 + 0.0625 + 0.25 + 1) / 8.0);

        // Experts [2, 2, 2]: rows 0-1 take the first two importances, rows 2-3 the next two.
        const std::vector<float> e{1, 0, 0, 1, 2, 0, 0, 2}, er{0, 0, 0, 0, 0, 0, 0, 0};
        const std::vector<float> eimp{1, 3, 5, 7};
        const auto x = openCheckpoint(writeFloatGguf(dir.filePath(QStringLiteral("x.gguf")).toStdString(),
                                                     {{"blk.0.ffn_up_exps.weight", {2, 2, 2}}}, {e}));
        const auto xr = openCheckpoint(writeFloatGguf(dir.filePath(QStringLiteral("xr.gguf")).toStdString(),
                                                      {{"blk.0.ffn_up_exps.weight", {2, 2, 2}}}, {er}));
        StatsOptions eo;
        eo.importance = &eimp;
        const LogicalWeight& xw = ckpt0(*x);
        const WeightComparison ec = compareWeight(*x, xw, *xr, findReference(*x, xw, *xr), eo);
        // 1*1 + 3*1 (expert 0) + 5*4 + 7*4 (expert 1) = 52.
        QCOMPARE(ec.error.weightedSumSq, 52.0);
        // An importance that fits no matrix count is refused naming the weight.
        const std::vector<float> bad{1, 2, 3};
        eo.importance = &bad;
        expectError([&] { (void)compareWeight(*x, xw, *xr, findReference(*x, xw, *xr), eo); },
                    {"blk.0.ffn_up_exps.weight", "importance holds 3 values"});
    }

    // The ranking orders the weights by importance-weighted error and gives each its share.
    void rankingOrdersByWeightedError()
    {
        QTemporaryDir dir;
        const auto a = openCheckpoint(
            writeFloatGguf(dir.filePath(QStringLiteral("a.gguf")).toStdString(),
                           {{"blk.0.attn_v.weight", {2, 1}}, {"blk.0.attn_output.weight", {2, 1}}}, {{1, 1}, {1, 1}}));
        const auto ref = openCheckpoint(writeFloatGguf(
            dir.filePath(QStringLiteral("r.gguf")).toStdString(),
            {{"blk.0.attn_v.weight", {2, 1}}, {"blk.0.attn_output.weight", {2, 1}}}, {{0, 0}, {0.5f, 0.5f}}));
        // attn_v: error 1 per element, importance 1; attn_output: error 0.5, importance 16 -> 4x more.
        const std::string im =
            legacyBytes({{"blk.0.attn_v.weight", 1, {1, 1}}, {"blk.0.attn_output.weight", 1, {16, 16}}});
        const Imatrix imatrix = readImatrixMemory("i.dat", spanOf(im));
        const ImatrixMatch m = matchImatrix(imatrix, *a);
        const ImportanceRanking r = rankByImportance(*a, m, ref.get(), nullptr, StatsOptions{});
        QCOMPARE(r.rows.size(), size_t(2));
        QCOMPARE(r.rows[0].weight, std::string("blk.0.attn_output.weight"));
        QCOMPARE(r.rows[0].weightedSumSq, 8.0);
        QCOMPARE(r.rows[1].weightedSumSq, 2.0);
        QCOMPARE(r.rows[0].share, 0.8);
        QCOMPARE(r.rows[1].mse, 1.0);
        QVERIFY(r.skipped.empty());
        expectError([&] { (void)rankByImportance(*a, m, nullptr, nullptr, StatsOptions{}); }, {"reference"});
    }

private:
    static const LogicalWeight& ckpt0(const Checkpoint& c) { return c.weights.at(0); }
};

QTEST_GUILESS_MAIN(TestImatrix)
#include "tst_imatrix.moc"
