// WordMap, the inverse of LayoutSpec::locate(): for every word of small weights of every
// layout (GPTQ stream and planar with straddles, AWQ, Marlin, every GGUF type), the pieces it
// reports are exactly those locate() puts there; big weights are answered without a table of
// all elements; elementValues() reads the codes, scales and zeros the kernels use.
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/wordmap.h"
#include "formats/dequant.h"
#include "formats/kernel.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QStringList>
#include <QTest>

#include <map>
#include <tuple>
#include <vector>

using namespace qs;

namespace {

using Key = std::tuple<uint64_t, uint64_t, int, int, int, int>; // row, col, bit, width, piece, count

std::vector<Key> keys(const std::vector<WordPiece>& pieces)
{
    std::vector<Key> out;
    for (const WordPiece& p : pieces)
        out.emplace_back(p.row, p.col, p.bit, p.width, p.piece, p.pieceCount);
    std::sort(out.begin(), out.end());
    return out;
}

std::shared_ptr<const Checkpoint> open(const QString& relative)
{
    return openCheckpoint(qstest::fixture(relative).toStdString());
}

} // namespace

class TestWordMap : public QObject {
    Q_OBJECT
private slots:
    void inverse_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("N");
        QTest::addColumn<int>("groupSize");
        for (int b : {2, 3, 4, 8}) {
            QTest::addRow("gptq-v1-b%d", b) << QStringLiteral("gptq-v1") << b << 128 << 24 << 32;
            QTest::addRow("gptq-v2-b%d-odd", b) << QStringLiteral("gptq-v2") << b << 72 << 40 << 24;
        }
        for (int b : {3, 5, 6, 7})
            QTest::addRow("gptq-planar-b%d", b) << QStringLiteral("gptq-planar") << b << 64 << 32 << 32;
        QTest::addRow("awq-gemm") << QStringLiteral("awq-gemm") << 4 << 96 << 48 << 32;
        QTest::addRow("awq-gemv-g32") << QStringLiteral("awq-gemv") << 4 << 256 << 8 << 32;
        QTest::addRow("awq-gemv-k-odd") << QStringLiteral("awq-gemv") << 4 << 36 << 5 << 0;
        QTest::addRow("awq-gemv-fast") << QStringLiteral("awq-gemv-fast") << 4 << 128 << 16 << 64;
        QTest::addRow("gptq-marlin-b4") << QStringLiteral("gptq-marlin") << 4 << 64 << 128 << 32;
        QTest::addRow("gptq-marlin-b8") << QStringLiteral("gptq-marlin") << 8 << 32 << 64 << 0;
        QTest::addRow("awq-marlin-b4") << QStringLiteral("awq-marlin") << 4 << 32 << 64 << 16;
        for (int b : {3, 5, 6})
            QTest::addRow("mlx-affine-b%d", b) << QStringLiteral("mlx-affine") << b << 192 << 8 << 64;
        // Every other safetensors family (bnb, compressed-tensors, MLX, HQQ, FP8, plain dtypes).
        for (const LayoutSpec& s : layoutRegistry().all()) {
            if (s.container != LayoutContainer::Safetensors || !s.locate || s.id.starts_with("gptq-")
                || s.id.starts_with("awq-"))
                continue;
            QTest::addRow("%s", s.id.c_str())
                << QString::fromStdString(s.id) << (s.bitWidths.empty() ? 8 : s.bitWidths[0]) << 256 << 24 << 64;
        }
        for (const LayoutSpec& s : layoutRegistry().all()) {
            if (s.container != LayoutContainer::Gguf)
                continue;
            // Two blocks per row and three rows: every block alignment against the word.
            const bool plain = s.packAxis == PackAxis::None;
            QTest::addRow("%s", s.id.c_str())
                << QString::fromStdString(s.id) << (s.bitWidths.empty() ? 8 : s.bitWidths[0]) << (plain ? 6 : -2) << 3
                << 0;
        }
    }
    void inverse()
    {
        QFETCH(QString, id);
        QFETCH(int, bits);
        QFETCH(int, K);
        QFETCH(int, N);
        QFETCH(int, groupSize);
        const LayoutSpec* spec = findLayoutSpec(id.toStdString());
        QVERIFY(spec);
        if (K < 0) {
            // GGUF blocks: -K blocks per row; the block's weight count is where group changes.
            uint64_t bw = 1;
            const LayoutParams probe{1 << 20, 1, bits, 0};
            while (spec->locate(probe, 0, bw).group == 0)
                ++bw;
            K = int(bw) * -K;
        }
        const LayoutParams p{uint64_t(K), uint64_t(N), bits, uint64_t(groupSize)};
        std::map<uint64_t, std::vector<WordPiece>> want;
        uint64_t maxWord = 0;
        for (uint64_t r = 0; r < p.N; ++r)
            for (uint64_t c = 0; c < p.K; ++c) {
                const ElementLocation e = spec->locate(p, r, c);
                QVERIFY(e.pieceCount > 0);
                for (uint8_t i = 0; i < e.pieceCount; ++i) {
                    want[e.pieces[i].word].push_back({r, c, e.pieces[i].bit, e.pieces[i].width, i, e.pieceCount});
                    maxWord = std::max(maxWord, e.pieces[i].word);
                }
            }
        const WordMap map(*spec, p);
        QCOMPARE(map.wordCount(), maxWord + 1);
        QCOMPARE(map.wordBits(), spec->locate(p, 0, 0).wordBits);
        int straddles = 0;
        for (uint64_t w = 0; w <= maxWord + 2; ++w) {
            const auto got = map.piecesIn(w);
            const auto it = want.find(w);
            const std::vector<WordPiece> none;
            const auto gotKeys = keys(got), wantKeys = keys(it == want.end() ? none : it->second);
            auto describe = [](const std::vector<Key>& k) {
                QStringList parts;
                for (const Key& x : k)
                    parts << QStringLiteral("(%1,%2)@%3+%4")
                                 .arg(std::get<0>(x))
                                 .arg(std::get<1>(x))
                                 .arg(std::get<2>(x))
                                 .arg(std::get<3>(x));
                return parts.join(QLatin1Char(' '));
            };
            QVERIFY2(gotKeys == wantKeys,
                     qPrintable(
                         QStringLiteral("word %1: got %2; want %3").arg(w).arg(describe(gotKeys), describe(wantKeys))));
            for (const WordPiece& piece : got)
                straddles += piece.pieceCount > 1;
            for (size_t i = 1; i < got.size(); ++i)
                QVERIFY(got[i - 1].bit <= got[i].bit);
        }
        if (id.startsWith(QLatin1String("gptq-v")) && bits == 3)
            QVERIFY(straddles > 0); // the split codes were among the answers
    }

    // The tile is found by probing, never by walking the weight: a 4096 x 11008 GPTQ-3
    // weight (45 M elements) gets a one-row table and answers any word.
    void bigWeightSmallTable()
    {
        const LayoutSpec* spec = findLayoutSpec("gptq-v1");
        const LayoutParams p{11008, 4096, 3, 128};
        const WordMap map(*spec, p);
        QCOMPARE(map.tileRows(), uint64_t(1));
        QCOMPARE(map.tileCols(), uint64_t(32));
        QCOMPARE(map.wordCount(), uint64_t(11008 * 3 / 32) * 4096);
        for (uint64_t w : {uint64_t(0), uint64_t(4096 * 2 + 17), uint64_t(4096 * 700 + 4095), map.wordCount() - 1}) {
            const auto got = map.piecesIn(w);
            QVERIFY(!got.empty());
            int bitsCovered = 0;
            for (const WordPiece& piece : got) {
                const ElementLocation e = spec->locate(p, piece.row, piece.col);
                QCOMPARE(e.pieces[piece.piece].word, w);
                QCOMPARE(e.pieces[piece.piece].bit, piece.bit);
                bitsCovered += piece.width;
            }
            QCOMPARE(bitsCovered, 32);
        }
    }

    // A hex view's byte: every bit of a packed word's byte belongs to the code locate() puts
    // there (straddling GPTQ-3 codes show their part), with its place in the word.
    void byteContentPacked_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addRow("gptq-4") << 4;
        QTest::addRow("gptq-3") << 3;
    }
    void byteContentPacked()
    {
        QFETCH(int, bits);
        const LayoutSpec* spec = findLayoutSpec("gptq-v1");
        const LayoutParams p{128, 24, bits, 32};
        const WordMap map(*spec, p);
        for (uint64_t byte = 0; byte < 64; ++byte) {
            const ByteContent c = byteContent(map, byte);
            QCOMPARE(c.field, -1);
            int covered = 0;
            for (const ByteCode& code : c.codes) {
                const ElementLocation e = spec->locate(p, code.row, code.col);
                bool found = false;
                for (uint8_t i = 0; i < e.pieceCount; ++i) {
                    const uint64_t lo = e.pieces[i].word * 32 + e.pieces[i].bit, hi = lo + e.pieces[i].width;
                    found |= lo <= byte * 8 + code.bit && byte * 8 + code.bit + code.width <= hi;
                }
                QVERIFY2(found, qPrintable(QStringLiteral("byte %1 bit %2").arg(byte).arg(code.bit)));
                covered += code.width;
            }
            QCOMPARE(covered, 8);
        }
        // 4-bit: byte 1 of word 0 holds its slots 2 (low nibble) and 3.
        if (bits == 4) {
            const ByteContent c = byteContent(map, 1);
            QCOMPARE(c.codes.size(), size_t(2));
            QCOMPARE(int(c.codes[0].place), 2);
            QCOMPARE(int(c.codes[0].bit), 0);
            QCOMPARE(int(c.codes[1].place), 3);
            QCOMPARE(int(c.codes[1].bit), 4);
            QCOMPARE(spec->locate(p, c.codes[1].row, c.codes[1].col).pieces[0].bit, uint8_t(12));
        }
    }

    // GGUF Q4_K: d, dmin and scales bytes name their field and hold no code; a qs byte holds
    // two codes; the block number follows the 144-byte blocks.
    void byteContentGguf()
    {
        const auto ckpt = open(QStringLiteral("gguf/ggml-types.gguf"));
        const LogicalWeight* w = ckpt->findWeight("real.q4_k");
        QVERIFY(w);
        const LayoutSpec* spec = findLayoutSpec(w->format);
        const WordMap map(*spec, layoutParams(*w));
        QCOMPARE(blockBytesOf(*spec), 144u);
        auto fieldName = [&](uint64_t byte) {
            const ByteContent c = byteContent(map, byte);
            return c.field < 0 ? std::string() : spec->blockFields[size_t(c.field)].name;
        };
        QCOMPARE(fieldName(0), std::string("d"));
        QCOMPARE(fieldName(2), std::string("dmin"));
        QCOMPARE(fieldName(4), std::string("scales"));
        QCOMPARE(fieldName(16), std::string("qs"));
        QVERIFY(byteContent(map, 0).fieldStart);
        QVERIFY(!byteContent(map, 1).fieldStart);
        QVERIFY(byteContent(map, 4).codes.empty());
        const ByteContent qs = byteContent(map, 144 + 16);
        QCOMPARE(qs.block, uint64_t(1));
        QVERIFY(qs.fieldStart);
        QCOMPARE(qs.codes.size(), size_t(2));
        QCOMPARE(int(qs.codes[0].width) + int(qs.codes[1].width), 8);
        for (const ByteCode& code : qs.codes) {
            const ElementLocation e = spec->locate(map.params(), code.row, code.col);
            QCOMPARE(e.pieces[0].word * e.wordBits / 8 + e.pieces[0].bit / 8, uint64_t(144 + 16));
        }
    }

    void noLocate()
    {
        LayoutSpec s;
        s.id = "x";
        QVERIFY_THROWS_EXCEPTION(Error, WordMap(s, LayoutParams{8, 8, 4, 0}));
    }

    // Codes, groups, scales and zeros equal the kernels' own extraction, element by element.
    void valuesPacked_data()
    {
        QTest::addColumn<QString>("folder");
        for (const char* f : {"gptq-w3-g32-asym", "gptq-w4-g32-sym-actorder", "awq-gemm-w4-g32"})
            QTest::addRow("%s", f) << QStringLiteral("safetensors/%1").arg(QLatin1String(f));
    }
    void valuesPacked()
    {
        QFETCH(QString, folder);
        const auto ckpt = open(folder);
        for (const LogicalWeight& w : ckpt->weights) {
            const LayoutSpec* spec = findLayoutSpec(w.format);
            if (!spec || !(w.format.starts_with("gptq-") || w.format.starts_with("awq-")))
                continue; // the reference tensors beside them
            const WeightCodes c = extractCodes(*ckpt, w);
            const LayoutParams p = layoutParams(w);
            QCOMPARE(p.N, c.rows);
            QCOMPARE(p.K, c.cols);
            for (uint64_t r = 0; r < c.rows; r += 7)
                for (uint64_t k = 0; k < c.cols; k += 5) {
                    const ElementValues v = elementValues(*ckpt, w, *spec, p, r, k);
                    QCOMPARE(v.code, uint64_t(c.codes[r * c.cols + k]));
                    QCOMPARE(v.group, uint64_t(c.gIdx[k]));
                    QVERIFY(v.hasScale && v.hasZero);
                    QCOMPARE(float(v.scale), c.scales[v.group * c.rows + r]);
                    QCOMPARE(int(v.zero), c.zeros[v.group * c.rows + r]);
                }
            QVERIFY_THROWS_EXCEPTION(Error, elementValues(*ckpt, w, *spec, p, p.N, 0));
        }
    }

    // GGUF Q4_0 / Q8_0: the dequantizer's value is d * (code - offset) with the d and code read here.
    void valuesGguf_data()
    {
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("offset");
        QTest::addRow("q4_0") << QStringLiteral("real.q4_0") << 8;
        QTest::addRow("q5_0") << QStringLiteral("real.q5_0") << 16;
    }
    void valuesGguf()
    {
        QFETCH(QString, tensor);
        QFETCH(int, offset);
        const auto ckpt = open(QStringLiteral("gguf/ggml-types.gguf"));
        const LogicalWeight* w = ckpt->findWeight(tensor.toStdString());
        QVERIFY(w);
        const LayoutSpec* spec = findLayoutSpec(w->format);
        QVERIFY(spec);
        const LayoutParams p = layoutParams(*w);
        std::vector<float> row(p.K);
        for (uint64_t r : {uint64_t(0), p.N - 1}) {
            dequantizeRows(*ckpt, *w, r, r + 1, row.data(), SimdPath::Scalar);
            for (uint64_t k = 0; k < p.K; ++k) {
                const ElementValues v = elementValues(*ckpt, *w, *spec, p, r, k);
                QVERIFY(v.hasScale);
                QVERIFY(!v.hasZero);
                QCOMPARE(v.group, r * (p.K / 32) + k / 32);
                QCOMPARE(float(int(v.code) - offset) * float(v.scale), row[k]);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestWordMap)
#include "tst_wordmap.moc"
