// ggml dequantization: every fixture tensor against ggml's own to_float output (bit for bit,
// scalar reference and fast path), the spec's worked vectors and pitfalls, scalar-vs-fast on
// random blocks (including NaN/Inf/subnormal scales), the lookup tables, and the block map.
#include "container/checkpoint.h"
#include "base/error.h"
#include "formats/ggml/ggml.h"
#include "formats/ggml/ggml_blocks.h"
#include "formats/ggml/ggml_tables.h"
#include "base/half.h"
#include "kernel_testutil.h"
#include "testsupport.h"
#include "formats/opencheckpoint.h"

#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <vector>

using namespace qs;

namespace {

const int kAllTypes[] = {GgmlF32,     GgmlF16,    GgmlQ4_0,    GgmlQ4_1,  GgmlQ5_0,   GgmlQ5_1,  GgmlQ8_0,
                         GgmlQ8_1,    GgmlQ2_K,   GgmlQ3_K,    GgmlQ4_K,  GgmlQ5_K,   GgmlQ6_K,  GgmlQ8_K,
                         GgmlIQ2_XXS, GgmlIQ2_XS, GgmlIQ3_XXS, GgmlIQ1_S, GgmlIQ4_NL, GgmlIQ3_S, GgmlIQ2_S,
                         GgmlIQ4_XS,  GgmlI8,     GgmlI16,     GgmlI32,   GgmlI64,    GgmlF64,   GgmlIQ1_M,
                         GgmlBF16,    GgmlTQ1_0,  GgmlTQ2_0,   GgmlMXFP4, GgmlNVFP4,  GgmlQ1_0,  GgmlQ2_0};

std::vector<float> decodeRef(int type, const std::vector<uint8_t>& bytes, uint64_t nrows, uint64_t rowElems)
{
    std::vector<float> out(nrows * rowElems);
    dequantizeGgmlRowsRef(type, bytes.data(), nrows, rowElems, out.data());
    return out;
}

std::vector<float> decodeFast(int type, const std::vector<uint8_t>& bytes, uint64_t nrows, uint64_t rowElems,
                              SimdPath path)
{
    std::vector<float> out(nrows * rowElems);
    dequantizeGgmlRows(type, bytes.data(), nrows, rowElems, out.data(), path);
    return out;
}

// Index of the first element whose bits differ, or -1.
int64_t firstBitMismatch(const float* a, const float* b, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i]))
            return int64_t(i);
    return -1;
}

#define QS_COMPARE_BITS_ON(where, a, b, n)                                                                             \
    do {                                                                                                               \
        const int64_t bad_ = firstBitMismatch((a), (b), (n));                                                          \
        if (bad_ >= 0)                                                                                                 \
            QFAIL(qPrintable(QStringLiteral("%6element %1: %2 (0x%3) vs %4 (0x%5)")                                    \
                                 .arg(bad_)                                                                            \
                                 .arg(double((a)[bad_]))                                                               \
                                 .arg(std::bit_cast<uint32_t>((a)[bad_]), 8, 16, QChar('0'))                           \
                                 .arg(double((b)[bad_]))                                                               \
                                 .arg(std::bit_cast<uint32_t>((b)[bad_]), 8, 16, QChar('0'))                           \
                                 .arg(QString::fromLatin1(where))));                                                   \
    } while (0)
#define QS_COMPARE_BITS(a, b, n) QS_COMPARE_BITS_ON("", a, b, n)

#if defined(__clang__)
constexpr bool kCompilerMayCommuteAdds = true; // see specialScaleAndMin
#else
constexpr bool kCompilerMayCommuteAdds = false;
#endif

// The fast paths this CPU has (the suite says which ones it lacks), and the "path: " prefix of
// their mismatch messages.
std::vector<SimdPath> fastPaths()
{
    std::vector<SimdPath> p = qsk::simdPaths();
    p.erase(p.begin()); // scalar: the fast paths are compared with it
    return p;
}
std::string pathPrefix(SimdPath p)
{
    return std::string(simdPathName(p)) + " path: ";
}

// Every fast path's output of the rows against `want`.
#define QS_COMPARE_FAST(want, type, bytes, nrows, rowElems)                                                            \
    for (SimdPath path_ : fastPaths()) {                                                                               \
        const std::vector<float> got_ = decodeFast((type), (bytes), (nrows), (rowElems), path_);                       \
        QS_COMPARE_BITS_ON(pathPrefix(path_).c_str(), (want).data(), got_.data(), (want).size());                      \
    }

std::vector<uint8_t> hexBytes(const char* hex)
{
    std::vector<uint8_t> out;
    for (const QByteArray& tok : QByteArray(hex).split(' '))
        if (!tok.isEmpty())
            out.push_back(uint8_t(tok.toUInt(nullptr, 16)));
    return out;
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

// Random blocks whose f16 / f32 scale fields are finite (exponent forced below all-ones).
std::vector<uint8_t> randomBlocks(int type, uint64_t nblocks, uint32_t seed)
{
    const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
    std::mt19937 rng(seed);
    std::vector<uint8_t> bytes(nblocks * tr.blockBytes);
    for (uint8_t& b : bytes)
        b = uint8_t(rng());
    const auto fields = ggmlBlockFields(type);
    for (uint64_t i = 0; i < nblocks; ++i) {
        uint8_t* blk = bytes.data() + i * tr.blockBytes;
        for (const GgmlBlockField& f : fields) {
            if (f.kind == GgmlFieldKind::F16Scale || f.kind == GgmlFieldKind::F16Min || f.kind == GgmlFieldKind::F16Sum)
                blk[f.offset + 1] &= 0xBF; // clear the top exponent bit
            if (f.kind == GgmlFieldKind::F32Scale)
                blk[f.offset + 3] &= 0xBF;
        }
        if (type == GgmlIQ1_M)
            blk[55] &= 0xBF; // bit 14 of the scattered f16 super-scale
    }
    return bytes;
}

// Every f16 scale field of every block set to `h` (IQ1_M: its scattered nibbles).
void setHalfScales(int type, std::vector<uint8_t>& bytes, uint16_t h)
{
    const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
    for (size_t off = 0; off + tr.blockBytes <= bytes.size(); off += tr.blockBytes) {
        uint8_t* blk = bytes.data() + off;
        for (const GgmlBlockField& f : ggmlBlockFields(type))
            if (f.kind == GgmlFieldKind::F16Scale || f.kind == GgmlFieldKind::F16Min) {
                blk[f.offset] = uint8_t(h);
                blk[f.offset + 1] = uint8_t(h >> 8);
            }
        if (type == GgmlIQ1_M)
            for (int w = 0; w < 4; ++w)
                blk[49 + 2 * w] = uint8_t((blk[49 + 2 * w] & 0x0F) | (((h >> (4 * w)) & 0xF) << 4));
    }
}

bool hasHalfScale(int type)
{
    if (type == GgmlIQ1_M)
        return true;
    for (const GgmlBlockField& f : ggmlBlockFields(type))
        if (f.kind == GgmlFieldKind::F16Scale)
            return true;
    return false;
}

// Decodes element e of one block from the bits the block map names, with the type's formula;
// independent of the kernels' indexing.
float decodeFromPieces(int type, const uint8_t* blk, uint32_t e)
{
    const GgmlElementLocation loc = ggmlLocateElement(type, e);
    auto bits = [&](GgmlPieceRole r) { return ggmlExtractBits(blk, loc, r); };
    auto half = [&](GgmlPieceRole r) { return halfToFloat(uint16_t(bits(r))); };
    const uint32_t code = uint32_t(bits(GgmlPieceRole::Code));
    const auto sign = [&](float v) {
        if (loc.count && std::any_of(loc.view().begin(), loc.view().end(), [](const GgmlBitPiece& p) {
                return p.role == GgmlPieceRole::SignIndex;
            }))
            return v * ((ggml::kKsignsIq2xs[bits(GgmlPieceRole::SignIndex)] >> (e % 8)) & 1 ? -1.f : 1.f);
        return v * (bits(GgmlPieceRole::Sign) ? -1.f : 1.f);
    };
    switch (type) {
    case GgmlQ4_0: return float(int(code) - 8) * half(GgmlPieceRole::SuperScale);
    case GgmlQ4_1:
    case GgmlQ5_1: return float(code) * half(GgmlPieceRole::SuperScale) + half(GgmlPieceRole::SuperMin);
    case GgmlQ5_0: return float(int(code) - 16) * half(GgmlPieceRole::SuperScale);
    case GgmlQ8_0:
    case GgmlQ8_1: return float(int8_t(code)) * half(GgmlPieceRole::SuperScale);
    case GgmlQ8_K: return std::bit_cast<float>(uint32_t(bits(GgmlPieceRole::SuperScale))) * float(int8_t(code));
    case GgmlIQ4_NL: return half(GgmlPieceRole::SuperScale) * float(ggml::kValuesIq4nl[code]);
    case GgmlIQ4_XS:
        return (half(GgmlPieceRole::SuperScale) * float(int(bits(GgmlPieceRole::SubScale)) - 32))
            * float(ggml::kValuesIq4nl[code]);
    case GgmlQ2_K:
    case GgmlQ4_K:
    case GgmlQ5_K:
        return (half(GgmlPieceRole::SuperScale) * float(bits(GgmlPieceRole::SubScale))) * float(code)
            - half(GgmlPieceRole::SuperMin) * float(bits(GgmlPieceRole::SubMin));
    case GgmlQ3_K: // code = q2 | hbit << 2; a clear high bit subtracts 4
        return (half(GgmlPieceRole::SuperScale) * float(int(bits(GgmlPieceRole::SubScale)) - 32))
            * float(int(code & 3) - (code & 4 ? 0 : 4));
    case GgmlQ6_K:
        return (half(GgmlPieceRole::SuperScale) * float(int8_t(bits(GgmlPieceRole::SubScale)))) * float(int(code) - 32);
    case GgmlTQ2_0:
    case GgmlQ2_0: return float(int(code) - 1) * half(GgmlPieceRole::SuperScale);
    case GgmlTQ1_0: {
        static constexpr int pow3[5] = {1, 3, 9, 27, 81};
        const uint8_t q = uint8_t(uint8_t(bits(GgmlPieceRole::TritByte)) * pow3[loc.lane]);
        return float(((q * 3) >> 8) - 1) * half(GgmlPieceRole::SuperScale);
    }
    case GgmlQ1_0: {
        const float d = half(GgmlPieceRole::SuperScale);
        return code ? d : -d;
    }
    case GgmlMXFP4: return float(ggml::kValuesFp4[code]) * std::ldexp(1.0f, int(bits(GgmlPieceRole::SuperScale)) - 128);
    case GgmlNVFP4: {
        const uint32_t u = uint32_t(bits(GgmlPieceRole::SubScale));
        const int ex = (u >> 3) & 0xF, m = u & 7;
        const float s = (u == 0 || u == 0x7F)
            ? 0.f
            : (ex == 0 ? std::ldexp(float(m), -9) : std::ldexp(1.f + float(m) / 8.f, ex - 7)) * 0.5f;
        return float(ggml::kValuesFp4[code]) * s;
    }
    case GgmlIQ2_XXS:
    case GgmlIQ2_XS:
    case GgmlIQ2_S: {
        const uint64_t* grid = type == GgmlIQ2_XXS ? ggml::kIq2xxsGrid
            : type == GgmlIQ2_XS                   ? ggml::kIq2xsGrid
                                                   : ggml::kIq2sGrid;
        const float db = half(GgmlPieceRole::SuperScale) * (0.5f + float(bits(GgmlPieceRole::SubScale))) * 0.25f;
        return sign(db * float(uint8_t(grid[bits(GgmlPieceRole::GridIndex)] >> (8 * loc.lane))));
    }
    case GgmlIQ3_XXS: {
        const float db = half(GgmlPieceRole::SuperScale) * (0.5f + float(bits(GgmlPieceRole::SubScale))) * 0.5f;
        return sign(db * float(uint8_t(ggml::kIq3xxsGrid[bits(GgmlPieceRole::GridIndex)] >> (8 * loc.lane))));
    }
    case GgmlIQ3_S: {
        const float db = half(GgmlPieceRole::SuperScale) * float(1 + 2 * int(bits(GgmlPieceRole::SubScale)));
        return sign(db * float(uint8_t(ggml::kIq3sGrid[bits(GgmlPieceRole::GridIndex)] >> (8 * loc.lane))));
    }
    case GgmlIQ1_S:
    case GgmlIQ1_M: {
        const float dl = half(GgmlPieceRole::SuperScale) * float(2 * int(bits(GgmlPieceRole::SubScale)) + 1);
        const float delta = bits(GgmlPieceRole::Delta) ? -0.125f : 0.125f;
        return dl * (float(int8_t(ggml::kIq1sGrid[bits(GgmlPieceRole::GridIndex)] >> (8 * loc.lane))) + delta);
    }
    case GgmlF32: return std::bit_cast<float>(uint32_t(bits(GgmlPieceRole::Value)));
    case GgmlF16: return halfToFloat(uint16_t(bits(GgmlPieceRole::Value)));
    case GgmlBF16: return std::bit_cast<float>(uint32_t(bits(GgmlPieceRole::Value)) << 16);
    case GgmlF64: return float(std::bit_cast<double>(bits(GgmlPieceRole::Value)));
    case GgmlI8: return float(int8_t(bits(GgmlPieceRole::Value)));
    case GgmlI16: return float(int16_t(bits(GgmlPieceRole::Value)));
    case GgmlI32: return float(int32_t(bits(GgmlPieceRole::Value)));
    case GgmlI64: return float(int64_t(bits(GgmlPieceRole::Value)));
    default: return NAN;
    }
}

uint32_t crc32(const void* data, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

// Sets of byte values found in a table of n entries of `width` bytes.
std::vector<int> byteValues(const void* table, size_t bytes, bool asSigned)
{
    std::vector<int> seen;
    const auto* p = static_cast<const uint8_t*>(table);
    for (size_t i = 0; i < bytes; ++i) {
        const int v = asSigned ? int(int8_t(p[i])) : int(p[i]);
        if (std::find(seen.begin(), seen.end(), v) == seen.end())
            seen.push_back(v);
    }
    std::sort(seen.begin(), seen.end());
    return seen;
}

struct Expect {
    int index;
    float value;
};

} // namespace

class TestGgmlKernels : public QObject {
    Q_OBJECT
private slots:
    // ---- fixtures: ggml's own to_float output, both paths ----
    void fixtures_data()
    {
        QTest::addColumn<QString>("name");
        for (const TensorEntry& t : quantFile()->tensors)
            QTest::addRow("%s", std::string(t.name).c_str()) << QString::fromStdString(std::string(t.name));
        QVERIFY(quantFile()->tensors.size() >= 72);
    }
    void fixtures()
    {
        QFETCH(QString, name);
        const Checkpoint& q = *quantFile();
        const Checkpoint& r = *refFile();
        const TensorEntry* t = q.find(name.toStdString());
        const TensorEntry* rt = r.find(name.toStdString());
        QVERIFY(t && rt);
        QVERIFY(ggmlTypeDecodable(t->ggmlType));
        const uint64_t rowElems = t->shape.back();
        const uint64_t nrows = t->elementCount() / rowElems;
        QCOMPARE(rt->elementCount(), t->elementCount());
        const auto src = q.bytes(*t);
        const auto ref = r.bytes(*rt);
        QCOMPARE(uint64_t(ref.size()), t->elementCount() * 4);
        std::vector<float> want(t->elementCount());
        std::memcpy(want.data(), ref.data(), ref.size());
        const std::vector<uint8_t> bytes(src.begin(), src.end());
        const std::vector<float> a = decodeRef(t->ggmlType, bytes, nrows, rowElems);
        QS_COMPARE_BITS(a.data(), want.data(), want.size());
        QS_COMPARE_FAST(want, t->ggmlType, bytes, nrows, rowElems);
    }

    // ---- worked test vectors of spec section 3 (and hand-made blocks for Q8_1, Q8_K) ----
    void vectors_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<QByteArray>("block");
        QTest::addColumn<float>("others"); // value of every element not listed (NaN: all listed)
        QTest::addColumn<QVector<float>>("listed"); // pairs index, value

        auto row = [](const char* name, int type, std::vector<uint8_t> b, float others, std::vector<Expect> ex) {
            QVector<float> l;
            for (const Expect& e : ex)
                l << float(e.index) << e.value;
            QTest::addRow("%s", name) << type
                                      << QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size()))
                                      << others << l;
        };
        {
            std::vector<Expect> ex;
            for (int j = 0; j < 16; ++j) {
                ex.push_back({j, -4.0f + 0.5f * float(j)});
                ex.push_back({16 + j, 3.5f - 0.5f * float(j)});
            }
            row("TV1_q4_0", GgmlQ4_0, hexBytes("00 38 F0 E1 D2 C3 B4 A5 96 87 78 69 5A 4B 3C 2D 1E 0F"), NAN, ex);
        }
        {
            std::vector<uint8_t> b = {0x00, 0x38};
            std::vector<Expect> ex;
            for (int e = 0; e < 32; ++e) {
                b.push_back(uint8_t(e - 16));
                ex.push_back({e, -8.0f + 0.5f * float(e)});
            }
            row("TV2_q8_0", GgmlQ8_0, b, NAN, ex);
        }
        {
            std::vector<uint8_t> b = {0x00, 0x3C, 0x00, 0xC0};
            b.insert(b.end(), 16, 0x21);
            std::vector<Expect> ex;
            for (int e = 0; e < 16; ++e)
                ex.push_back({e, -1.0f});
            row("TV3_q4_1", GgmlQ4_1, b, 0.0f, ex);
        }
        {
            std::vector<uint8_t> b = hexBytes("00 3C 01 00 01 00");
            b.insert(b.end(), 16, 0xFF);
            row("TV4_q5_0", GgmlQ5_0, b, -1.0f, {{0, 15.0f}, {16, 15.0f}});
        }
        {
            std::vector<uint8_t> b = hexBytes("00 3C 00 3C 41 41 41 41 80 80 80 80 32 32 32 32");
            b.insert(b.end(), 128, 0x53);
            std::vector<Expect> ex;
            const float sub[8] = {3, 5, 3, 5, 19, 55, 19, 55};
            for (int e = 0; e < 256; ++e)
                ex.push_back({e, sub[e / 32]});
            row("TV5_q4_k", GgmlQ4_K, b, NAN, ex);
        }
        {
            std::vector<uint8_t> b(210, 0);
            b[0] = 0x1F;
            b[32] = 0x2E;
            b[128] = 0xE4;
            const uint8_t sc[16] = {2, 1, 1, 1, 1, 1, 0xFF, 1, 1, 1, 1, 1, 1, 1, 1, 1};
            std::memcpy(&b[192], sc, 16);
            b[208] = 0x00;
            b[209] = 0x3C;
            std::vector<Expect> ex = {{0, -34}, {16, -32}, {32, -2}, {64, 1}, {96, -18}, {112, -32}, {255, -32}};
            for (int e = 1; e < 16; ++e)
                ex.push_back({e, -64});
            for (int e = 97; e < 112; ++e)
                ex.push_back({e, 32});
            row("TV6_q6_k", GgmlQ6_K, b, NAN, ex);
        }
        {
            std::vector<uint8_t> b(110, 0);
            b[0] = 0x11;
            b[32] = 0x07;
            const uint8_t sc[12] = {0x31, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0xAA, 0xAA, 0xAA, 0xAA};
            std::memcpy(&b[96], sc, 12);
            b[109] = 0x3C;
            std::vector<Expect> ex = {{0, 3}, {1, -4}, {16, -4}, {32, -3}, {33, -4}, {128, 0}, {144, -4}, {255, -4}};
            for (int e = 129; e < 144; ++e)
                ex.push_back({e, -12});
            row("TV7_q3_k", GgmlQ3_K, b, NAN, ex);
        }
        {
            std::vector<Expect> ex;
            for (int j = 0; j < 16; ++j) {
                ex.push_back({j, float(ggml::kValuesIq4nl[j])});
                ex.push_back({16 + j, float(ggml::kValuesIq4nl[15 - j])});
            }
            row("TV8_iq4_nl", GgmlIQ4_NL, hexBytes("00 3C F0 E1 D2 C3 B4 A5 96 87 78 69 5A 4B 3C 2D 1E 0F"), NAN, ex);
        }
        {
            std::vector<uint8_t> b = hexBytes("7F 97 1F");
            b.insert(b.end(), 14, 0);
            row("TV9_mxfp4", GgmlMXFP4, b, 0.0f, {{0, 6.0f}, {1, -6.0f}, {16, -0.5f}, {17, 0.5f}});
        }
        {
            std::vector<uint8_t> b(66, 0);
            b[0] = 0x93;
            b[65] = 0x3C;
            row("TV10_tq2_0", GgmlTQ2_0, b, -1.0f, {{0, 2.0f}, {32, -1.0f}, {64, 0.0f}, {96, 1.0f}});
        }
        {
            std::vector<uint8_t> b(54, 0);
            b[0] = 201;
            b[53] = 0x3C;
            row("TV11_tq1_0", GgmlTQ1_0, b, -1.0f, {{0, 1.0f}, {32, 0.0f}, {64, -1.0f}, {96, -1.0f}, {128, 0.0f}});
        }
        {
            std::vector<uint8_t> b = hexBytes("00 3C 05");
            b.insert(b.end(), 15, 0);
            row("TV12_q1_0", GgmlQ1_0, b, -1.0f, {{0, 1.0f}, {1, -1.0f}, {2, 1.0f}});
        }
        {
            std::vector<uint8_t> b = hexBytes("00 3C 00 00 00 00 01 00 00 10");
            b.resize(66, 0);
            std::vector<Expect> ex = {{0, -3.0f}, {7, -3.0f}};
            for (int e = 1; e < 7; ++e)
                ex.push_back({e, 3.0f});
            for (int e = 8; e < 32; ++e)
                ex.push_back({e, 3.0f});
            row("TV13_iq2_xxs", GgmlIQ2_XXS, b, 1.0f, ex);
        }
        {
            std::vector<uint8_t> b(50, 0);
            b[1] = 0x3C;
            b[35] = 0x80;
            std::vector<Expect> ex;
            for (int e = 0; e < 32; ++e)
                ex.push_back({e, -1.125f});
            row("TV14_iq1_s", GgmlIQ1_S, b, -0.875f, ex);
        }
        {
            std::vector<uint8_t> b = hexBytes("38 40 00 7F 97");
            b.resize(36, 0);
            row("TV15_nvfp4", GgmlNVFP4, b, 0.0f, {{0, 6.0f}, {8, -0.5f}});
        }
        {
            std::vector<uint8_t> b = hexBytes("00 3C E4");
            b.insert(b.end(), 15, 0x55);
            row("TV16_q2_0", GgmlQ2_0, b, 0.0f, {{0, -1.0f}, {1, 0.0f}, {2, 1.0f}, {3, 2.0f}});
        }
        {
            // UE4M3 0x7F reads as zero but 0xFF does not (upstream compares the whole byte):
            // 0xFF = 1.875 * 2^8, halved = 240; 0x80 = zero; 0x08 = 2^-6, halved; code 2 (doubled E2M1 1.0) -> 2 *
            // scale.
            std::vector<uint8_t> b =
                hexBytes("FF 7F 80 08 02 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 02");
            b.resize(36, 0);
            row("nvfp4_scale_byte_7f_vs_ff", GgmlNVFP4, b, 0.0f,
                {{0, 480.0f}, {16, 0.0f}, {32, 0.0f}, {48, 2.0f * std::ldexp(1.0f, -6) * 0.5f}});
        }
        {
            // Q8_1: s (= d*sum) must not act as a minimum.
            std::vector<uint8_t> b = {0x00, 0x38, 0x00, 0x4C};
            for (int e = 0; e < 32; ++e)
                b.push_back(uint8_t(e - 16));
            std::vector<Expect> ex;
            for (int e = 0; e < 32; ++e)
                ex.push_back({e, -8.0f + 0.5f * float(e)});
            row("q8_1_sum_is_not_a_min", GgmlQ8_1, b, NAN, ex);
        }
        {
            // Q8_K: f32 scale 0.25, bsums ignored.
            std::vector<uint8_t> b(292, 0xEE);
            const float d = 0.25f;
            std::memcpy(b.data(), &d, 4);
            std::vector<Expect> ex;
            for (int e = 0; e < 256; ++e) {
                b[4 + size_t(e)] = uint8_t(e - 128);
                ex.push_back({e, 0.25f * float(e - 128)});
            }
            row("q8_k_f32_scale", GgmlQ8_K, b, NAN, ex);
        }
    }
    void vectors()
    {
        QFETCH(int, type);
        QFETCH(QByteArray, block);
        QFETCH(float, others);
        QFETCH(QVector<float>, listed);
        const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
        QCOMPARE(uint32_t(block.size()), tr.blockBytes);
        const std::vector<uint8_t> bytes(block.begin(), block.end());
        const std::vector<float> a = decodeRef(type, bytes, 1, tr.blockWeights);
        QS_COMPARE_FAST(a, type, bytes, 1, tr.blockWeights);
        std::vector<bool> seen(tr.blockWeights, false);
        for (qsizetype i = 0; i + 1 < listed.size(); i += 2) {
            const int e = int(listed[i]);
            seen[size_t(e)] = true;
            if (a[size_t(e)] != listed[i + 1])
                QFAIL(qPrintable(QStringLiteral("element %1: %2, expected %3")
                                     .arg(e)
                                     .arg(double(a[size_t(e)]))
                                     .arg(double(listed[i + 1]))));
        }
        if (!std::isnan(others))
            for (uint32_t e = 0; e < tr.blockWeights; ++e)
                if (!seen[e] && a[e] != others)
                    QFAIL(qPrintable(
                        QStringLiteral("element %1: %2, expected %3").arg(e).arg(double(a[e])).arg(double(others))));
        if (listed.isEmpty())
            QVERIFY(std::all_of(a.begin(), a.end(), [](float v) { return std::isfinite(v); }));
    }

    // ---- scalar vs fast on random blocks, and special scales ----
    void randomAgreement_data()
    {
        QTest::addColumn<int>("type");
        for (int t : kAllTypes)
            QTest::addRow("%s", std::string(ggmlTypeTraits(t)->name).c_str()) << t;
    }
    void randomAgreement()
    {
        QFETCH(int, type);
        const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
        // 3 rows of 2 super-blocks (or 512 weights) each.
        const uint64_t rowElems =
            tr.blockWeights == 1 ? 509 : tr.blockWeights * 2 * (256 / std::min<uint32_t>(256, tr.blockWeights));
        const uint64_t nrows = 3;
        const uint64_t nblocks = nrows * rowElems / tr.blockWeights;
        const std::vector<uint8_t> bytes = randomBlocks(type, nblocks, 1234u + uint32_t(type));
        const std::vector<float> a = decodeRef(type, bytes, nrows, rowElems);
        QS_COMPARE_FAST(a, type, bytes, nrows, rowElems);
        if (tr.blockWeights > 1 && type != GgmlMXFP4) // E8M0 reaches 2^127: large codes overflow to Inf
            QVERIFY(std::all_of(a.begin(), a.end(), [](float v) { return std::isfinite(v); }));
        // Unaligned source (pitfall 12): every field loaded byte-wise.
        std::vector<uint8_t> shifted(bytes.size() + 1);
        std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
        std::vector<float> c(a.size());
        for (SimdPath path : fastPaths()) {
            dequantizeGgmlRows(type, shifted.data() + 1, nrows, rowElems, c.data(), path);
            QS_COMPARE_BITS_ON(pathPrefix(path).c_str(), a.data(), c.data(), a.size());
        }
    }

    void specialScales_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("half");
        const std::pair<const char*, int> specials[] = {
            {"nan", 0x7E00},           {"snan", 0x7C01},     {"neg_nan", 0xFE01},
            {"inf", 0x7C00},           {"neg_inf", 0xFC00},  {"subnormal", 0x0001},
            {"neg_subnormal", 0x83FF}, {"neg_zero", 0x8000}, {"max", 0x7BFF}};
        for (int t : kAllTypes)
            if (hasHalfScale(t))
                for (const auto& [n, h] : specials)
                    QTest::addRow("%s_%s", std::string(ggmlTypeTraits(t)->name).c_str(), n) << t << h;
    }
    void specialScales()
    {
        QFETCH(int, type);
        QFETCH(int, half);
        const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
        const uint64_t rowElems = std::max<uint32_t>(256, tr.blockWeights);
        std::vector<uint8_t> bytes = randomBlocks(type, rowElems / tr.blockWeights * 2, 99u + uint32_t(type));
        setHalfScales(type, bytes, uint16_t(half));
        const std::vector<float> a = decodeRef(type, bytes, 2, rowElems);
        QS_COMPARE_FAST(a, type, bytes, 2, rowElems);
        if (half == 0x7E00) // a NaN scale gives NaN everywhere (no code multiplies it away)
            QVERIFY(std::all_of(a.begin(), a.end(), [](float v) { return std::isnan(v); }));
    }

    // Scale and min special independently (issue 3 defect: with a NaN/Inf d or m the Q4_1/Q5_1
    // fast path gave other NaN bits than the reference d*q + m). Two NaNs with different
    // payloads meet in the add: the reference's operand order decides, so bits are compared.
    void specialScaleAndMin_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("m");
        const std::pair<const char*, int> specials[] = {
            {"nan", 0x7E00},  {"nan2", 0x7E55},    {"snan", 0x7C01},      {"neg_nan", 0xFE01},
            {"inf", 0x7C00},  {"neg_inf", 0xFC00}, {"subnormal", 0x0001}, {"neg_subnormal", 0x83FF},
            {"zero", 0x0000}, {"one", 0x3C00}};
        for (int t : {GgmlQ4_1, GgmlQ5_1, GgmlQ2_K, GgmlQ4_K, GgmlQ5_K})
            for (const auto& [dn, dh] : specials)
                for (const auto& [mn, mh] : specials)
                    QTest::addRow("%s_d_%s_m_%s", std::string(ggmlTypeTraits(t)->name).c_str(), dn, mn)
                        << t << dh << mh;
    }
    void specialScaleAndMin()
    {
        QFETCH(int, type);
        QFETCH(int, d);
        QFETCH(int, m);
        const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
        const uint64_t rowElems = std::max<uint32_t>(256, tr.blockWeights);
        std::vector<uint8_t> bytes = randomBlocks(type, rowElems / tr.blockWeights * 2, 77u + uint32_t(type));
        for (size_t off = 0; off + tr.blockBytes <= bytes.size(); off += tr.blockBytes)
            for (const GgmlBlockField& f : ggmlBlockFields(type))
                if (f.kind == GgmlFieldKind::F16Scale || f.kind == GgmlFieldKind::F16Min) {
                    const int h = f.kind == GgmlFieldKind::F16Scale ? d : m;
                    bytes[off + f.offset] = uint8_t(h);
                    bytes[off + f.offset + 1] = uint8_t(h >> 8);
                }
        const std::vector<float> a = decodeRef(type, bytes, 2, rowElems);
        // Two NaNs meet in Q4_1/Q5_1's add when q*d is NaN (a NaN or Inf d) and m is a NaN: which
        // payload survives is the operand order the compiler emits. GCC, the product's compiler
        // (the normal build), keeps the source's order and is checked bit for bit; clang (the
        // sanitizer build) commutes the fast paths' adds, so there only NaN-ness is compared.
        const bool twoNaNs = (type == GgmlQ4_1 || type == GgmlQ5_1) && (d & 0x7C00) == 0x7C00 && (m & 0x7C00) == 0x7C00
            && (m & 0x03FF) != 0;
        if (!twoNaNs || !kCompilerMayCommuteAdds) {
            QS_COMPARE_FAST(a, type, bytes, 2, rowElems);
        } else {
            for (SimdPath path : fastPaths()) {
                const std::vector<float> got = decodeFast(type, bytes, 2, rowElems, path);
                for (size_t i = 0; i < a.size(); ++i)
                    if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(got[i])
                        && !(std::isnan(a[i]) && std::isnan(got[i])))
                        QFAIL((pathPrefix(path) + "element " + std::to_string(i) + " differs beyond its NaN payload")
                                  .c_str());
            }
        }
        // The reference's own bits where they are defined by value: a finite d and m give finite
        // weights; an Inf or NaN min reaches every weight (Q4_1/Q5_1 add it to each).
        const bool dFinite = (d & 0x7C00) != 0x7C00, mFinite = (m & 0x7C00) != 0x7C00;
        if (dFinite && mFinite)
            QVERIFY(std::all_of(a.begin(), a.end(), [](float v) { return std::isfinite(v); }));
        if (!mFinite && (type == GgmlQ4_1 || type == GgmlQ5_1))
            QVERIFY(std::none_of(a.begin(), a.end(), [](float v) { return std::isfinite(v); }));
    }

    void f16ScaleConversionIsExact()
    {
        // Every half through the F16 type, both paths, against half.h.
        std::vector<uint8_t> bytes(65536 * 2);
        for (uint32_t h = 0; h < 65536; ++h) {
            bytes[2 * h] = uint8_t(h);
            bytes[2 * h + 1] = uint8_t(h >> 8);
        }
        const std::vector<float> a = decodeRef(GgmlF16, bytes, 1, 65536);
        QS_COMPARE_FAST(a, GgmlF16, bytes, 1, 65536);
        for (uint32_t h = 0; h < 65536; ++h)
            QCOMPARE(std::bit_cast<uint32_t>(a[h]), std::bit_cast<uint32_t>(halfToFloat(uint16_t(h))));
        QCOMPARE(a[1], std::ldexp(1.0f, -24));
        QCOMPARE(std::bit_cast<uint32_t>(a[0x7C01]), 0x7FC02000u);
        QVERIFY(std::isinf(a[0xFC00]) && a[0xFC00] < 0);
    }

    void openmpPathMatchesReference()
    {
        // Large enough to be split across threads.
        for (int type : {GgmlQ4_0, GgmlQ4_K, GgmlIQ2_XS, GgmlF16}) {
            const uint64_t rowElems = 4096, nrows = 96;
            const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
            const std::vector<uint8_t> bytes = randomBlocks(type, nrows * rowElems / tr.blockWeights, 7u);
            const std::vector<float> a = decodeRef(type, bytes, nrows, rowElems);
            std::vector<float> b(a.size()), c(a.size());
            dequantizeGgmlRows(type, bytes.data(), nrows, rowElems, b.data(), SimdPath::Scalar);
            QS_COMPARE_BITS(a.data(), b.data(), a.size());
            for (SimdPath path : fastPaths()) {
                dequantizeGgmlRows(type, bytes.data(), nrows, rowElems, c.data(), path);
                QS_COMPARE_BITS_ON(pathPrefix(path).c_str(), a.data(), c.data(), a.size());
            }
        }
    }

    void ggufWeightRowsAdapter()
    {
        // The DequantRowsFn adapter: member "weight", a row range of a 2-D tensor.
        const Checkpoint& q = *quantFile();
        for (const char* name : {"synthetic.q4_k", "real.iq2_xs", "synthetic.q5_0"}) {
            const int idx = q.indexOf(name);
            QVERIFY(idx >= 0);
            const TensorEntry& t = q.tensors[size_t(idx)];
            LogicalWeight w;
            w.name = name;
            w.format = "gguf-" + QString::fromStdString(std::string(t.typeName)).toLower().toStdString();
            w.shape = t.shape;
            w.members = {{"weight", size_t(idx)}};
            const WeightData wd{q, w};
            const uint64_t cols = w.inFeatures(), rows = w.outFeatures();
            std::vector<float> all(rows * cols), part(3 * cols);
            dequantGgufWeightRows(wd, 0, rows, all.data(), SimdPath::Scalar);
            for (SimdPath path : fastPaths()) {
                dequantGgufWeightRows(wd, rows - 3, rows, part.data(), path);
                QS_COMPARE_BITS_ON(pathPrefix(path).c_str(), all.data() + (rows - 3) * cols, part.data(), part.size());
                QVERIFY_THROWS_EXCEPTION(Error, dequantGgufWeightRows(wd, 1, rows + 1, part.data(), path));
            }
        }
    }

    void moreThanTwoDims()
    {
        // A [2, 17, 256] view of synthetic.q4_k: 34 rows of 256, the same bytes as the 2-D tensor.
        const Checkpoint& q = *quantFile();
        const int idx = q.indexOf("synthetic.q4_k");
        QVERIFY(idx >= 0);
        LogicalWeight w;
        w.name = "stacked";
        w.format = "gguf-q4_k";
        w.shape = {2, 17, 256};
        w.members = {{"weight", size_t(idx)}};
        QCOMPARE(w.outFeatures(), uint64_t(34));
        std::vector<float> a(34 * 256), b(34 * 256);
        const auto src = q.bytes(q.tensors[size_t(idx)]);
        dequantizeGgmlRowsRef(GgmlQ4_K, src.data(), 34, 256, b.data());
        for (SimdPath path : qsk::simdPaths()) {
            dequantGgufWeightRows(WeightData{q, w}, 0, 34, a.data(), path);
            QS_COMPARE_BITS_ON(pathPrefix(path).c_str(), a.data(), b.data(), a.size());
            std::vector<float> last(17 * 256);
            dequantGgufWeightRows(WeightData{q, w}, 17, 34, last.data(), path);
            QS_COMPARE_BITS_ON(pathPrefix(path).c_str(), b.data() + 17 * 256, last.data(), last.size());
        }
    }

    void badInput()
    {
        std::vector<uint8_t> bytes(1024);
        std::vector<float> out(1024);
        QVERIFY_THROWS_EXCEPTION(Error, dequantizeGgmlRowsRef(GgmlQ4_K, bytes.data(), 1, 100, out.data()));
        for (SimdPath path : qsk::simdPaths())
            QVERIFY_THROWS_EXCEPTION(Error, dequantizeGgmlRows(GgmlQ4_0, bytes.data(), 1, 33, out.data(), path));
        QVERIFY_THROWS_EXCEPTION(Error, dequantizeGgmlRowsRef(99, bytes.data(), 1, 32, out.data()));
    }

    // ---- pitfalls (spec section 4) ----
    void pitfall01_reversedShapes()
    {
        // real.q4_0 is ne = [64, 256]: 256 rows of 64; ne0 (the row length) is the last logical dim.
        const Checkpoint& q = *quantFile();
        const TensorEntry* t = q.find("real.q4_0");
        QVERIFY(t);
        QCOMPARE(t->shape, (std::vector<uint64_t>{256, 64}));
        const auto src = q.bytes(*t);
        std::vector<float> all(256 * 64), part(4 * 64);
        dequantizeGgmlRowsRef(t->ggmlType, src.data(), 256, 64, all.data());
        for (SimdPath path : qsk::simdPaths()) {
            dequantizeGgmlRows(t->ggmlType, src.data() + 5 * 36, 4, 64, part.data(), path);
            QS_COMPARE_BITS_ON(pathPrefix(path).c_str(), all.data() + 5 * 64, part.data(), part.size());
        }
    }
    void pitfall02_halfInterleavedNibbles()
    {
        // Byte 0 = 0x21: element 0 gets 1, element 16 (not 1) gets 2, for every half-interleaved type.
        for (int type : {GgmlQ4_0, GgmlQ4_1, GgmlIQ4_NL, GgmlMXFP4, GgmlQ5_0, GgmlQ5_1}) {
            const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
            const GgmlElementLocation l0 = ggmlLocateElement(type, 0), l16 = ggmlLocateElement(type, 16),
                                      l1 = ggmlLocateElement(type, 1);
            QCOMPARE(l0.pieces[0].byteOffset, l16.pieces[0].byteOffset);
            QCOMPARE(l16.pieces[0].bitOffset, uint8_t(4));
            QCOMPARE(l1.pieces[0].byteOffset, uint16_t(l0.pieces[0].byteOffset + 1));
            std::vector<uint8_t> b(tr.blockBytes, 0);
            if (type == GgmlMXFP4)
                b[0] = 127;
            else
                b[1] = 0x3C; // d = 1
            b[l0.pieces[0].byteOffset] = 0x21;
            const std::vector<float> y = decodeRef(type, b, 1, 32);
            QVERIFY(y[0] != y[16]);
            QCOMPARE(y[1], y[2]);
            QCOMPARE(y[17], y[2]);
        }
    }
    void pitfall03_q3kInvertedHighBitAndOwnScalePacking()
    {
        // hmask clear subtracts 4; scale 8 comes from the high nibble of byte 0 (TV7).
        std::vector<uint8_t> b(110, 0);
        b[96] = 0x31;
        b[97] = 0x11;
        b[98] = 0x11;
        b[99] = 0x11;
        b[100] = 0x11;
        b[101] = 0x11;
        b[102] = 0x11;
        b[103] = 0x11;
        b[104] = b[105] = b[106] = b[107] = 0xAA;
        b[109] = 0x3C;
        b[0] = 0x01; // element 0: high bit set -> q = 0
        const std::vector<float> y = decodeRef(GgmlQ3_K, b, 1, 256);
        QCOMPARE(y[0], 0.0f);
        QCOMPARE(y[1], -4.0f);
        QCOMPARE(y[128], -12.0f); // sub-block 8: scale 3 (low nibble from byte 0's high nibble)
    }
    void pitfall04_q5kHighBits()
    {
        // qh byte 3, bit 5 -> element 32*5 + 3 gets +16; nothing else moves.
        std::vector<uint8_t> b(176, 0);
        b[1] = 0x3C; // d = 1
        b[4] = b[5] = b[6] = b[7] = 1;
        b[12] = b[13] = b[14] = b[15] = 1; // all scales 1, mins 0
        b[16 + 3] = 1 << 5;
        const std::vector<float> y = decodeRef(GgmlQ5_K, b, 1, 256);
        for (int e = 0; e < 256; ++e)
            QCOMPARE(y[size_t(e)], e == 163 ? 16.0f : 0.0f);
        QS_COMPARE_FAST(y, GgmlQ5_K, b, 1, 256);
    }
    void pitfall05_iq1mScatteredSuperScale()
    {
        // d = 1.0 (0x3C00) spread over the top nibbles of the four scale words: 0, 0, C, 3.
        std::vector<uint8_t> b(56, 0);
        b[53] = 0xC0;
        b[55] = 0x30;
        const std::vector<float> y = decodeRef(GgmlIQ1_M, b, 1, 256);
        for (float v : y)
            QCOMPARE(v, -0.875f); // grid 0 = all -1, delta +1/8, dl = d * 1
        QS_COMPARE_FAST(y, GgmlIQ1_M, b, 1, 256);
    }
    void pitfall06_iqScaleFormulas()
    {
        // Scale nibble 1, grid entry 0: IQ3_S d*(1+2s) = 3 -> 3*1; IQ3_XXS d*(0.5+s)*0.5 = 0.75 -> 0.75*4;
        // IQ2_XS d*(0.5+s)*0.25 = 0.375 -> 0.375*8.
        std::vector<uint8_t> s3(110, 0);
        s3[1] = 0x3C;
        s3[106] = 0x01;
        QCOMPARE(decodeRef(GgmlIQ3_S, s3, 1, 256)[0], 3.0f);
        std::vector<uint8_t> x3(98, 0);
        x3[1] = 0x3C;
        x3[66 + 3] = 0x10;
        QCOMPARE(decodeRef(GgmlIQ3_XXS, x3, 1, 256)[0], 3.0f);
        std::vector<uint8_t> x2(74, 0);
        x2[1] = 0x3C;
        x2[66] = 0x11;
        QCOMPARE(decodeRef(GgmlIQ2_XS, x2, 1, 256)[0], 3.0f);
    }
    void pitfall07_fp4TablesAreDoubled()
    {
        QCOMPARE(int(ggml::kValuesFp4[7]), 12);
        // e = 127 is 2^0 in E8M0: code 7 (E2M1 6.0) must decode to 6, not 12.
        std::vector<uint8_t> b(17, 0);
        b[0] = 127;
        b[1] = 0x07;
        QCOMPARE(decodeRef(GgmlMXFP4, b, 1, 32)[0], 6.0f);
        for (SimdPath path : fastPaths())
            QCOMPARE(decodeFast(GgmlMXFP4, b, 1, 32, path)[0], 6.0f);
        std::vector<uint8_t> n(36, 0);
        n[0] = 0x38;
        n[4] = 0x07; // UE4M3 1.0
        QCOMPARE(decodeRef(GgmlNVFP4, n, 1, 64)[0], 6.0f);
    }
    void pitfall08_blockSizes()
    {
        const std::map<int, std::pair<uint32_t, uint32_t>> sizes = {
            {GgmlQ8_1, {32, 36}},   {GgmlQ2_K, {256, 84}},   {GgmlIQ1_S, {256, 50}}, {GgmlIQ4_NL, {32, 18}},
            {GgmlQ3_K, {256, 110}}, {GgmlIQ3_S, {256, 110}}, {GgmlMXFP4, {32, 17}},  {GgmlTQ1_0, {256, 54}},
            {GgmlNVFP4, {64, 36}},  {GgmlQ1_0, {128, 18}},   {GgmlQ2_0, {64, 18}},   {GgmlQ8_K, {256, 292}}};
        for (const auto& [t, s] : sizes) {
            QCOMPARE(ggmlTypeTraits(t)->blockWeights, s.first);
            QCOMPARE(ggmlTypeTraits(t)->blockBytes, s.second);
        }
    }
    void pitfall10_thirdPartyTablesQ8_1AndIq4nl()
    {
        // Q8_1's second f16 is a sum, not a minimum; IQ4_NL blocks are 32 weights.
        std::vector<uint8_t> b(36, 0);
        b[1] = 0x3C;
        b[3] = 0x4C;
        b[4] = 3;
        const std::vector<float> y = decodeRef(GgmlQ8_1, b, 1, 32);
        QCOMPARE(y[0], 3.0f);
        QCOMPARE(y[1], 0.0f);
        QCOMPARE(ggmlTypeTraits(GgmlIQ4_NL)->blockWeights, 32u);
    }
    void pitfall11_zeroBytesAreNotZeroWeights()
    {
        for (int type : {GgmlTQ1_0, GgmlTQ2_0, GgmlQ1_0, GgmlQ2_0}) {
            const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
            std::vector<uint8_t> b(tr.blockBytes, 0);
            const GgmlElementLocation loc = ggmlLocateElement(type, 0);
            for (const GgmlBitPiece& p : loc.view())
                if (p.role == GgmlPieceRole::SuperScale)
                    b[p.byteOffset + 1] = 0x40; // d = 2.0
            const std::vector<float> y = decodeRef(type, b, 1, tr.blockWeights);
            for (uint32_t e = 0; e < tr.blockWeights; ++e)
                QCOMPARE(y[e], -2.0f);
            QS_COMPARE_FAST(y, type, b, 1, tr.blockWeights);
        }
    }
    void pitfall13_unknownTypeIds()
    {
        for (int t : {4, 5, 31, 32, 33, 36, 37, 38, 43, 142, -1})
            QVERIFY(!ggmlTypeDecodable(t));
        QVERIFY(ggmlTypeDecodable(GgmlQ1_0));
        QVERIFY(ggmlTypeDecodable(GgmlQ2_0));
        std::vector<uint8_t> b(64);
        std::vector<float> y(64);
        for (SimdPath path : qsk::simdPaths())
            QVERIFY_THROWS_EXCEPTION(Error, dequantizeGgmlRows(36, b.data(), 1, 32, y.data(), path));
    }

    // Every UE4M3 scale byte of NVFP4 (0 and 0x7F read as zero, bit 7 ignored: 0x80 and 0xFF are
    // not) through every fast path, each byte once, on random codes.
    void nvfp4AllScaleBytes()
    {
        const GgmlTypeInfo& tr = *ggmlTypeTraits(GgmlNVFP4);
        const uint64_t nblocks = 64; // 4 scale bytes each
        std::vector<uint8_t> bytes = randomBlocks(GgmlNVFP4, nblocks, 4242u);
        for (uint64_t i = 0; i < nblocks; ++i)
            for (uint64_t s = 0; s < 4; ++s)
                bytes[i * tr.blockBytes + s] = uint8_t(4 * i + s);
        const std::vector<float> a = decodeRef(GgmlNVFP4, bytes, 1, nblocks * tr.blockWeights);
        QCOMPARE(a[0x7F / 4 * 64 + 0x7F % 4 * 16 + 1], 0.0f);
        QS_COMPARE_FAST(a, GgmlNVFP4, bytes, 1, nblocks * tr.blockWeights);
    }

    // The types with a kernel of their own in the top tier of this architecture (x86: AVX-512;
    // arm64: NEON): one dropped from its table would fall back unnoticed by the agreement tests
    // (the speed is the point).
    void tierKernelsPresent()
    {
#if QS_ARCH_X86
        for (int t : {GgmlF16,   GgmlBF16,    GgmlQ4_0,   GgmlQ4_1,  GgmlQ5_0,  GgmlQ5_1,    GgmlQ8_0,
                      GgmlQ8_1,  GgmlIQ4_NL,  GgmlMXFP4,  GgmlNVFP4, GgmlQ2_K,  GgmlQ3_K,    GgmlQ4_K,
                      GgmlQ5_K,  GgmlQ6_K,    GgmlIQ4_XS, GgmlTQ1_0, GgmlTQ2_0, GgmlIQ2_XXS, GgmlIQ2_XS,
                      GgmlIQ2_S, GgmlIQ3_XXS, GgmlIQ3_S,  GgmlIQ1_S, GgmlIQ1_M, GgmlQ1_0,    GgmlQ2_0})
            QVERIFY2(ggml::avx512BlocksFn(t), std::string(ggmlTypeTraits(t)->name).c_str());
#elif QS_ARCH_ARM64
        for (int t : {GgmlF16, GgmlBF16, GgmlQ4_0, GgmlQ8_0, GgmlQ4_K, GgmlQ5_K, GgmlQ6_K, GgmlIQ4_NL, GgmlIQ4_XS})
            QVERIFY2(ggml::neonBlocksFn(t), std::string(ggmlTypeTraits(t)->name).c_str());
#else
        QSKIP("this architecture builds the scalar path only");
#endif
    }

    // ---- tables ----
    void tables()
    {
        QCOMPARE(crc32(ggml::kIq2xxsGrid, sizeof(ggml::kIq2xxsGrid)), ggml::kIq2xxsGridCrc);
        QCOMPARE(crc32(ggml::kIq2xsGrid, sizeof(ggml::kIq2xsGrid)), ggml::kIq2xsGridCrc);
        QCOMPARE(crc32(ggml::kIq2sGrid, sizeof(ggml::kIq2sGrid)), ggml::kIq2sGridCrc);
        QCOMPARE(crc32(ggml::kIq3xxsGrid, sizeof(ggml::kIq3xxsGrid)), ggml::kIq3xxsGridCrc);
        QCOMPARE(crc32(ggml::kIq3sGrid, sizeof(ggml::kIq3sGrid)), ggml::kIq3sGridCrc);
        QCOMPARE(crc32(ggml::kIq1sGrid, sizeof(ggml::kIq1sGrid)), ggml::kIq1sGridCrc);
        QCOMPARE(crc32(ggml::kKsignsIq2xs, sizeof(ggml::kKsignsIq2xs)), ggml::kKsignsIq2xsCrc);
        // Known values and value sets (spec 2.7).
        QCOMPARE(byteValues(ggml::kIq2xxsGrid, sizeof(ggml::kIq2xxsGrid), false), (std::vector<int>{8, 25, 43}));
        QCOMPARE(byteValues(ggml::kIq2xsGrid, sizeof(ggml::kIq2xsGrid), false), (std::vector<int>{8, 25, 43}));
        QCOMPARE(byteValues(ggml::kIq2sGrid, sizeof(ggml::kIq2sGrid), false), (std::vector<int>{8, 25, 43}));
        QCOMPARE(byteValues(ggml::kIq3xxsGrid, sizeof(ggml::kIq3xxsGrid), false),
                 (std::vector<int>{4, 12, 20, 28, 36, 44, 52, 62}));
        QCOMPARE(byteValues(ggml::kIq3sGrid, sizeof(ggml::kIq3sGrid), false),
                 (std::vector<int>{1, 3, 5, 7, 9, 11, 13, 15}));
        QCOMPARE(byteValues(ggml::kIq1sGrid, sizeof(ggml::kIq1sGrid), true), (std::vector<int>{-1, 0, 1}));
        QCOMPARE(ggml::kIq2xxsGrid[0], 0x0808080808080808ull);
        QCOMPARE(ggml::kIq1sGrid[0], 0xFFFFFFFFFFFFFFFFull);
        QCOMPARE(ggml::kIq3xxsGrid[0], 0x04040404u);
        QCOMPARE(ggml::kIq3sGrid[0], 0x01010101u);
        for (int i = 0; i < 128; ++i)
            QCOMPARE(int(ggml::kKsignsIq2xs[i]), i | (std::popcount(unsigned(i)) % 2 ? 0x80 : 0));
        for (int j = 0; j < 8; ++j)
            QCOMPARE(int(ggml::kKmaskIq2xs[j]), 1 << j);
        const int iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
        const int fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
        for (int i = 0; i < 16; ++i) {
            QCOMPARE(int(ggml::kValuesIq4nl[i]), iq4nl[i]);
            QCOMPARE(int(ggml::kValuesFp4[i]), fp4[i]);
        }
        // Grid entries are distinct (a mis-transcribed duplicate would show here).
        auto distinct = [](const auto* t, size_t n) {
            std::vector<uint64_t> v(t, t + n);
            std::sort(v.begin(), v.end());
            return std::adjacent_find(v.begin(), v.end()) == v.end();
        };
        QVERIFY(distinct(ggml::kIq2xxsGrid, 256));
        QVERIFY(distinct(ggml::kIq2xsGrid, 512));
        QVERIFY(distinct(ggml::kIq2sGrid, 1024));
        QVERIFY(distinct(ggml::kIq3xxsGrid, 256));
        QVERIFY(distinct(ggml::kIq3sGrid, 512));
        QVERIFY(distinct(ggml::kIq1sGrid, 2048));
    }

    // ---- block structs and the element map ----
    void blockFields_data()
    {
        QTest::addColumn<int>("type");
        for (int t : kAllTypes)
            QTest::addRow("%s", std::string(ggmlTypeTraits(t)->name).c_str()) << t;
    }
    void blockFields()
    {
        QFETCH(int, type);
        const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
        const auto fields = ggmlBlockFields(type);
        QVERIFY(!fields.empty());
        uint32_t at = 0;
        for (const GgmlBlockField& f : fields) {
            QCOMPARE(f.offset, at); // contiguous, in byte order, no gaps
            QVERIFY(f.size > 0 && !f.name.empty() && !f.meaning.empty());
            QVERIFY(!ggmlFieldKindName(f.kind).empty());
            at += f.size;
        }
        QCOMPARE(at, tr.blockBytes);
        for (uint32_t e = 0; e < tr.blockWeights; ++e) {
            const GgmlElementLocation loc = ggmlLocateElement(type, e);
            QVERIFY(loc.count > 0);
            for (const GgmlBitPiece& p : loc.view()) {
                QVERIFY(p.field < fields.size());
                const GgmlBlockField& f = fields[p.field];
                const uint32_t firstBit = p.byteOffset * 8u + p.bitOffset, lastBit = firstBit + p.width - 1;
                if (firstBit < f.offset * 8 || lastBit >= (f.offset + f.size) * 8)
                    QFAIL(qPrintable(QStringLiteral("element %1: piece outside field %2")
                                         .arg(e)
                                         .arg(QString::fromUtf8(f.name.data(), qsizetype(f.name.size())))));
                QVERIFY(p.bitOffset < 8 && p.width >= 1);
            }
        }
        QCOMPARE(ggmlLocateElement(type, tr.blockWeights).count, uint8_t(0));
    }
    void elementMapOnFixtures_data()
    {
        QTest::addColumn<QString>("source");
        for (const TensorEntry& t : quantFile()->tensors)
            if (t.name.starts_with("real."))
                QTest::addRow("%s", std::string(t.name).c_str()) << QString::fromStdString(std::string(t.name));
    }
    void elementMapOnFixtures()
    {
        QFETCH(QString, source);
        const TensorEntry& t = *quantFile()->find(source.toStdString());
        const auto s = quantFile()->bytes(t);
        const size_t n = std::min<size_t>(s.size(), size_t(ggmlTypeTraits(t.ggmlType)->blockBytes) * 16);
        checkElementMap(t.ggmlType, std::vector<uint8_t>(s.begin(), s.begin() + ptrdiff_t(n)));
    }
    void elementMapOnRandomBlocks_data()
    {
        blockFields_data();
    }
    void elementMapOnRandomBlocks()
    {
        QFETCH(int, type);
        checkElementMap(type, randomBlocks(type, 8, 42u + uint32_t(type)));
    }

private:
    // Decoding every element from the bits the map names reproduces the reference kernel.
    void checkElementMap(int type, const std::vector<uint8_t>& bytes)
    {
        const GgmlTypeInfo& tr = *ggmlTypeTraits(type);
        const uint64_t nblocks = bytes.size() / tr.blockBytes;
        QVERIFY(nblocks > 0);
        const std::vector<float> want = decodeRef(type, bytes, nblocks, tr.blockWeights);
        for (uint64_t i = 0; i < nblocks; ++i)
            for (uint32_t e = 0; e < tr.blockWeights; ++e) {
                const float got = decodeFromPieces(type, bytes.data() + i * tr.blockBytes, e);
                const float ref = want[i * tr.blockWeights + e];
                if (std::bit_cast<uint32_t>(got) != std::bit_cast<uint32_t>(ref)
                    && !(std::isnan(got) && std::isnan(ref)))
                    QFAIL(qPrintable(QStringLiteral("block %1 element %2: pieces give %3, kernel %4")
                                         .arg(i)
                                         .arg(e)
                                         .arg(double(got))
                                         .arg(double(ref))));
            }
    }
};

QTEST_GUILESS_MAIN(TestGgmlKernels)
#include "tst_ggml_kernels.moc"
