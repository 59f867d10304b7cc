// GGUF layout specs: one per decodable ggml type, geometry equal to the type table, and
// locate() naming exactly the bits the block map (and so the kernel) reads, on random blocks
// of every type and on every element of a few rows of the fixture tensors.
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"
#include "base/half.h"
#include "kernel_testutil.h"
#include "formats/opencheckpoint.h"
#include "formats/wordmap.h"
#include "formats/ggml/ggml_tables.h"

#include <QTest>

#include <bit>
#include <random>
#include <span>
#include <vector>

using namespace qs;

namespace {

// The role whose bits are the element's code in the block map.
GgmlPieceRole codeRoleOf(const GgmlElementLocation& loc)
{
    for (GgmlPieceRole r :
         {GgmlPieceRole::Value, GgmlPieceRole::Code, GgmlPieceRole::GridIndex, GgmlPieceRole::TritByte})
        for (const GgmlBitPiece& p : loc.view())
            if (p.role == r)
                return r;
    return GgmlPieceRole::Code;
}

const std::shared_ptr<const Checkpoint>& quantFile()
{
    static const auto c = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.gguf")).toStdString());
    return c;
}
const std::shared_ptr<const Checkpoint>& refFile()
{
    static const auto c = openCheckpoint(qstest::fixture(QStringLiteral("gguf/ggml-types.ref.gguf")).toStdString());
    return c;
}

} // namespace

class TestLayoutSpecGguf : public QObject {
    Q_OBJECT
private slots:
    void everyType_data()
    {
        QTest::addColumn<int>("type");
        int n = 0;
        for (const GgmlTypeInfo& t : ggmlTypes())
            if (ggmlTypeDecodable(t.id)) {
                QTest::addRow("%s", std::string(t.name).c_str()) << t.id;
                ++n;
            }
        QCOMPARE(n, 35);
    }
    void everyType()
    {
        QFETCH(int, type);
        const GgmlTypeInfo& t = *ggmlType(type);
        const LayoutSpec* s = findLayoutSpec(ggufFormatId(t.name));
        QVERIFY(s);
        QCOMPARE(s->container, LayoutContainer::Gguf);
        QCOMPARE(s->packAxis, t.blockWeights == 1 ? PackAxis::None : PackAxis::Block);

        // Block fields cover the block exactly, in order.
        const auto fields = ggmlBlockFields(type);
        QCOMPARE(s->blockFields.size(), fields.size());
        uint32_t end = 0;
        for (const BlockField& f : s->blockFields) {
            QCOMPARE(f.byteOffset, end);
            end += f.byteSize;
        }
        QCOMPARE(end, t.blockBytes);

        // Bits per weight from the tensor shape and the block bytes equal the type table's.
        const LayoutParams p{4 * uint64_t(t.blockWeights), 3, 4, 0};
        QCOMPARE(s->tensors.size(), size_t(1));
        const std::vector<uint64_t> shape = s->tensors[0].shape(p);
        QCOMPARE(shape, (std::vector<uint64_t>{3, 4}));
        QCOMPARE(double(8 * end * shape[0] * shape[1]) / double(p.K * p.N), 8.0 * t.blockBytes / t.blockWeights);

        // Every element of a 3 x 4-block random tensor: the located bits are the block map's code.
        std::mt19937 rng(uint32_t(type) + 7);
        std::vector<uint8_t> bytes(shape[0] * shape[1] * t.blockBytes);
        for (uint8_t& b : bytes)
            b = uint8_t(rng());
        for (uint64_t row = 0; row < p.N; ++row)
            for (uint64_t col = 0; col < p.K; ++col) {
                const ElementLocation e = s->locate(p, row, col);
                QCOMPARE(e.tensor, std::string_view("weight"));
                QCOMPARE(e.wordBits, uint32_t(s->wordBits));
                QVERIFY(e.pieceCount >= 1 && e.pieceCount <= 3);
                const uint64_t block = row * (p.K / t.blockWeights) + col / t.blockWeights;
                QCOMPARE(e.group, block);
                const GgmlElementLocation loc = ggmlLocateElement(type, uint32_t(col % t.blockWeights));
                const uint64_t want = ggmlExtractBits(bytes.data() + block * t.blockBytes, loc, codeRoleOf(loc));
                QCOMPARE(qsk::readPieces(bytes, e.wordBits, e.pieces, e.pieceCount), want);
                if (e.zeroPieceCount) {
                    const uint64_t min =
                        ggmlExtractBits(bytes.data() + block * t.blockBytes, loc, GgmlPieceRole::SuperMin);
                    QCOMPARE(qsk::readPieces(bytes, e.wordBits, e.zeroPieces, e.zeroPieceCount), min);
                }
            }
    }

    void fixture_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* type : {"q4_0", "q5_0", "q6_k", "q4_k"})
            for (const char* src : {"synthetic", "synthetic4096", "real"})
                QTest::addRow("%s.%s", src, type)
                    << QStringLiteral("%1.%2").arg(QLatin1String(src), QLatin1String(type));
    }
    void fixture()
    {
        QFETCH(QString, name);
        const TensorEntry* t = quantFile()->find(name.toStdString());
        const TensorEntry* rt = refFile()->find(name.toStdString());
        QVERIFY(t && rt);
        const GgmlTypeInfo& tr = *ggmlType(t->ggmlType);
        const LayoutSpec* s = findLayoutSpec(ggufFormatId(tr.name));
        QVERIFY(s);
        const auto bytes = quantFile()->bytes(*t);
        const auto ref = refFile()->bytes(*rt);
        const LayoutParams p{t->shape.back(), t->elementCount() / t->shape.back(), s->bitWidths.at(0), 0};
        QCOMPARE(uint64_t(bytes.size()), p.N * tr.rowBytes(p.K));
        const float* want = reinterpret_cast<const float*>(ref.data());
        const bool offsetCode = t->ggmlType == GgmlQ4_0 || t->ggmlType == GgmlQ5_0; // x = d * (q - 2^(b-1))
        for (uint64_t row : {uint64_t(0), uint64_t(1), p.N - 1})
            for (uint64_t col = 0; col < p.K; ++col) {
                const ElementLocation e = s->locate(p, row, col);
                const uint64_t block = row * (p.K / tr.blockWeights) + col / tr.blockWeights;
                const GgmlElementLocation loc = ggmlLocateElement(t->ggmlType, uint32_t(col % tr.blockWeights));
                const uint64_t code = qsk::readPieces(bytes, e.wordBits, e.pieces, e.pieceCount);
                QCOMPARE(code, ggmlExtractBits(bytes.data() + block * tr.blockBytes, loc, GgmlPieceRole::Code));
                if (offsetCode) {
                    const float d = halfToFloat(uint16_t(bytes[e.scaleIndex] | bytes[e.scaleIndex + 1] << 8));
                    const float x = float(int(code) - (1 << (s->bitWidths[0] - 1))) * d;
                    QCOMPARE(std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(want[row * p.K + col]));
                }
            }
    }

    // The bit map's decoded block fields (blockValues) are what the kernel computes with: for
    // the k-quants y = (d x sc) q - (dmin x m) bit for bit with the upstream values; for the
    // IQ types with sign bits the sign of every non-zero value.
    void blockValues_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* type :
             {"q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "q4_1"})
            QTest::addRow("%s", type) << QStringLiteral("real.%1").arg(QLatin1String(type));
    }
    void blockValues()
    {
        QFETCH(QString, name);
        const LogicalWeight* w = quantFile()->findWeight(name.toStdString());
        const TensorEntry* rt = refFile()->find(name.toStdString());
        QVERIFY(w && rt);
        const TensorEntry& t = quantFile()->tensors.at(size_t(w->member("weight")));
        const GgmlTypeInfo& tr = *ggmlType(t.ggmlType);
        const uint64_t K = w->inFeatures(), N = w->outFeatures();
        const auto bytes = quantFile()->bytes(t);
        const float* want = reinterpret_cast<const float*>(refFile()->bytes(*rt).data());
        const int type = t.ggmlType;
        const bool kQuant =
            type == GgmlQ2_K || type == GgmlQ3_K || type == GgmlQ4_K || type == GgmlQ5_K || type == GgmlQ6_K;
        auto find = [](const BlockValues& b, BlockValueKind kind) -> const BlockValue* {
            for (const BlockValue& v : b.values)
                if (v.kind == kind)
                    return &v;
            return nullptr;
        };
        int signs = 0;
        for (uint64_t row : {uint64_t(0), N - 1})
            for (uint64_t col = 0; col < K; ++col) {
                const BlockValues b = qs::blockValues(*quantFile(), *w, row, col, false);
                QVERIFY(b.hasBlock);
                QCOMPARE(b.block, row * (K / tr.blockWeights) + col / tr.blockWeights);
                const uint8_t* block = bytes.data() + b.block * tr.blockBytes;
                const BlockValue* d = find(b, BlockValueKind::Scale);
                QVERIFY(d);
                QCOMPARE(d->field, std::string("d"));
                const float y = want[row * K + col];
                const GgmlElementLocation loc = ggmlLocateElement(type, uint32_t(col % tr.blockWeights));
                const uint64_t code = ggmlExtractBits(block, loc, GgmlPieceRole::Code);
                if (type == GgmlQ4_1) { // y = d q + m: the block's own d and m
                    const BlockValue* m = find(b, BlockValueKind::Min);
                    QVERIFY(m && !find(b, BlockValueKind::SubScale));
                    QCOMPARE(std::bit_cast<uint32_t>(float(d->value) * float(code) + float(m->value)),
                             std::bit_cast<uint32_t>(y));
                    continue;
                }
                if (kQuant) {
                    const BlockValue* sc = find(b, BlockValueKind::SubScale);
                    QVERIFY(sc && sc->hasEffective);
                    QCOMPARE(sc->index, int(col % tr.blockWeights / (type == GgmlQ4_K || type == GgmlQ5_K ? 32 : 16)));
                    const float ds = float(sc->effective);
                    float x = 0;
                    if (type == GgmlQ3_K)
                        x = ds * float(int(code & 3) - ((code >> 2) & 1 ? 0 : 4));
                    else if (type == GgmlQ6_K)
                        x = ds * float(int(code) - 32);
                    else {
                        const BlockValue* mn = find(b, BlockValueKind::SubMin);
                        QVERIFY(mn && mn->hasEffective);
                        x = ds * float(code) - float(mn->effective);
                    }
                    QCOMPARE(std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(y));
                    continue;
                }
                const BlockValue* grid = find(b, BlockValueKind::GridIndex);
                QVERIFY(grid && grid->lane >= 0);
                bool negative = false;
                if (const BlockValue* si = find(b, BlockValueKind::SignIndex)) {
                    QCOMPARE(uint64_t(si->value), uint64_t(ggml::kKsignsIq2xs[si->raw]));
                    negative = (uint64_t(si->value) >> si->lane) & 1;
                } else {
                    const BlockValue* s = find(b, BlockValueKind::Sign);
                    QVERIFY(s);
                    negative = s->raw != 0;
                }
                if (y != 0) {
                    QCOMPARE(y < 0, negative);
                    ++signs;
                }
            }
        if (!kQuant && type != GgmlQ4_1)
            QVERIFY(signs > int(K));
        // The whole block: every sub-block once, numbered 0.., and no per-element grid values.
        const BlockValues whole = qs::blockValues(*quantFile(), *w, 0, 0, true);
        int subs = 0;
        for (const BlockValue& v : whole.values) {
            QVERIFY(v.kind != BlockValueKind::GridIndex && v.kind != BlockValueKind::SignIndex);
            if (v.kind == BlockValueKind::SubScale)
                QCOMPARE(v.index, subs++);
        }
        const int expected = type == GgmlQ4_K || type == GgmlQ5_K ? 8 : kQuant ? 16 : type == GgmlQ4_1 ? 0 : -1;
        if (expected >= 0)
            QCOMPARE(subs, expected);
    }
};

QTEST_GUILESS_MAIN(TestLayoutSpecGguf)
#include "tst_layoutspec_gguf.moc"
