// Layout specs of every format id: the registry covers formats/formatid.h, and for the
// safetensors families with integer codes (bitsandbytes, compressed-tensors, MLX, HQQ, GPTQ,
// AWQ) locate() names exactly the bits the kernels read, both ways:
//  - read: random tensor bytes; the bits at the located pieces equal extractCodes' code;
//  - write: the seed probes written only through locate() (no two elements may share a bit)
//    are what extractCodes reads back, zero points included;
// and the named scale is the scale extractCodes reports. Shape formulas equal the probe
// tensors' and the fixture tensors' shapes. Plain dtypes: the located bits are the element.
#include "container/checkpoint.h"
#include "formats/formatid.h"
#include "formats/layoutspec.h"
#include "kernel_probes.h"
#include "kernel_testutil.h"
#include "formats/bnb/bnb.h"
#include "formats/dequant.h"
#include "formats/plain/floats.h"
#include "formats/opencheckpoint.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <random>

using namespace qs;

namespace {

bool twosComplement(const LayoutSpec& s)
{
    return s.signedness == CodeSignedness::TwosComplement;
}

// Writes `value` into the pieces; false outside the tensor, on any bit already set when
// `exclusive` (an element's code bits are its own), else on a set bit that should be clear.
bool writePieces(std::vector<uint8_t>& bytes, uint32_t wordBits, const BitPiece* pieces, int count, uint64_t value,
                 bool exclusive)
{
    int shift = 0;
    for (int i = 0; i < count; ++i) {
        const uint64_t first = pieces[i].word * wordBits + pieces[i].bit;
        if ((first + pieces[i].width + 7) / 8 > bytes.size())
            return false;
        for (uint32_t b = 0; b < pieces[i].width; ++b) {
            const uint64_t at = first + b;
            const uint8_t mask = uint8_t(1u << (at % 8));
            const bool bit = (value >> (shift + int(b))) & 1;
            if (exclusive && (bytes[at / 8] & mask))
                return false;
            if (!exclusive && (bytes[at / 8] & mask) && !bit)
                return false;
            if (bit)
                bytes[at / 8] |= mask;
        }
        shift += pieces[i].width;
    }
    return true;
}

std::vector<uint8_t> scaleBytes(uint64_t count, DType t, uint32_t seed)
{
    std::vector<float> v(count);
    std::mt19937 rng(seed);
    for (auto& f : v)
        f = float(int(rng() % 2001) - 1000) / 4096.0f + (rng() & 1 ? 0.25f : -0.25f);
    if (t == DType::F32)
        return qsk::bytesOf(v);
    return qsk::halfBytes(v, t);
}

std::vector<uint8_t> jsonBytes(const std::string& s)
{
    return std::vector<uint8_t>(s.begin(), s.end());
}

// A hand-made checkpoint of one weight "m" of a family; the code tensor ("code role") and the
// integer zero tensor are zero-filled for the test to fill.
struct Case {
    std::string id;
    uint64_t N = 0, K = 0;
    int bits = 4;
    uint64_t group = 0;
    bool asym = false; // compressed-tensors: zero points
    bool nested = false; // bnb: nested absmax
};

struct Built {
    std::vector<qsk::T> tensors;
    std::vector<std::pair<std::string, std::string>> roles;
};

Built build(const Case& c)
{
    Built b;
    const auto add = [&](const std::string& role, DType t, std::vector<uint64_t> shape, std::vector<uint8_t> data) {
        b.tensors.push_back({"m." + role, t, std::move(shape), std::move(data)});
        b.roles.emplace_back(role, "m." + role);
    };
    const uint64_t N = c.N, K = c.K;
    if (c.id == "bnb-nf4" || c.id == "bnb-fp4") {
        const uint64_t bs = c.group, blocks = (N * K + bs - 1) / bs;
        add("weight", DType::U8, {(N * K + 1) / 2, 1}, std::vector<uint8_t>((N * K + 1) / 2));
        std::string js = "{\"quant_type\": \"" + std::string(c.id == "bnb-fp4" ? "fp4" : "nf4")
            + "\", \"blocksize\": " + std::to_string(bs) + ", \"dtype\": \"float16\", \"shape\": [" + std::to_string(N)
            + ", " + std::to_string(K) + "]";
        if (c.nested) {
            const uint64_t nb = (blocks + 255) / 256;
            std::vector<uint8_t> codes(blocks);
            std::mt19937 rng(5);
            for (auto& v : codes)
                v = uint8_t(rng());
            add("absmax", DType::U8, {blocks}, codes);
            add("nested_absmax", DType::F32, {nb}, scaleBytes(nb, DType::F32, 6));
            add("nested_quant_map", DType::F32, {256}, scaleBytes(256, DType::F32, 7));
            js += ", \"nested_blocksize\": 256, \"nested_offset\": 0.125";
        } else {
            add("absmax", DType::F32, {blocks}, scaleBytes(blocks, DType::F32, 8));
        }
        js += "}";
        add("quant_state", DType::U8, {js.size()}, jsonBytes(js));
    } else if (c.id == "bnb-int8") {
        add("weight", DType::I8, {N, K}, std::vector<uint8_t>(N * K));
        add("SCB", DType::F32, {N}, scaleBytes(N, DType::F32, 9));
    } else if (c.id == "compressed-tensors" || c.id == "compressed-tensors-int") {
        const bool packed = c.id == "compressed-tensors";
        const uint64_t pf = packed ? uint64_t(32 / c.bits) : 1, G = c.group ? (K + c.group - 1) / c.group : 1;
        if (packed)
            add("weight_packed", DType::I32, {N, (K + pf - 1) / pf}, std::vector<uint8_t>(4 * N * ((K + pf - 1) / pf)));
        else
            add("weight", DType::I8, {N, K}, std::vector<uint8_t>(N * K));
        add("weight_scale", DType::BF16, {N, G}, scaleBytes(N * G, DType::BF16, 10));
        if (c.asym) {
            if (packed)
                add("weight_zero_point", DType::I32, {(N + pf - 1) / pf, G},
                    std::vector<uint8_t>(4 * G * ((N + pf - 1) / pf)));
            else
                add("weight_zero_point", DType::I8, {N, G}, std::vector<uint8_t>(N * G));
        }
    } else if (c.id == "mlx-affine") {
        const uint64_t words = K * uint64_t(c.bits) / 32, G = K / c.group;
        add("weight", DType::U32, {N, words}, std::vector<uint8_t>(4 * N * words));
        add("scales", DType::F16, {N, G}, scaleBytes(N * G, DType::F16, 11));
        add("biases", DType::F16, {N, G}, scaleBytes(N * G, DType::F16, 12));
    } else if (c.id == "hqq") {
        const uint64_t R = N * K / c.group;
        const unsigned parts = c.bits == 4 ? 2 : c.bits == 2 ? 4 : c.bits == 1 ? 8 : c.bits == 3 ? 10 : 1;
        const uint64_t step = parts == 10 ? (R + 9) / 10 : R / parts;
        add("W_q", parts == 10 ? DType::I32 : DType::U8, {step, c.group},
            std::vector<uint8_t>(step * c.group * (parts == 10 ? 4 : 1)));
        add("scale", DType::F16, {R, 1}, scaleBytes(R, DType::F16, 13));
        add("zero", DType::F16, {R, 1}, scaleBytes(R, DType::F16, 14));
    }
    return b;
}

std::vector<uint8_t>& dataOf(Built& b, std::string_view role)
{
    for (auto& t : b.tensors)
        if (t.name == "m." + std::string(role))
            return t.data;
    throw Error("test: no role " + std::string(role));
}

LayoutParams paramsOf(const LogicalWeight& w)
{
    return {w.inFeatures(), w.outFeatures(), w.bits, uint64_t(std::max<int64_t>(w.groupSize, 0))};
}

// Shapes: every member the spec models has the shape its formula gives.
void compareShapes(const LayoutSpec& spec, const Checkpoint& ck, const LogicalWeight& w, const LayoutParams& lp)
{
    const WeightData d{ck, w};
    for (const LayoutTensor& t : spec.tensors) {
        if (!d.has(t.role)) {
            QVERIFY2(t.optional, qPrintable(QString::fromStdString(w.name + ": missing " + t.role)));
            continue;
        }
        const std::vector<uint64_t> want = t.shape(lp);
        if (want.empty())
            continue;
        std::vector<uint64_t> have = d.entry(t.role).shape;
        if (spec.id == "compressed-tensors" && t.role == "weight_zero_point" && d.entry(t.role).dtype == DType::I8)
            continue; // the unpacked zero points of files before PR #296
        if (have != want)
            QFAIL(qPrintable(QStringLiteral("%1 %2: shape formula %3 gives %4 dims, the tensor has %5 (first %6 vs %7)")
                                 .arg(QString::fromStdString(w.name), QString::fromStdString(t.role),
                                      QString::fromStdString(t.shapeFormula))
                                 .arg(want.size())
                                 .arg(have.size())
                                 .arg(want[0])
                                 .arg(have.empty() ? 0 : have[0])));
    }
}

// Every element: the located bits are extractCodes' code, the located scale its scale.
void compareCodes(const LayoutSpec& spec, const Checkpoint& ck, const LogicalWeight& w, const LayoutParams& lp,
                  const WeightCodes& c)
{
    const WeightData d{ck, w};
    QCOMPARE(c.rows, lp.N);
    QCOMPARE(c.cols, lp.K);
    const uint64_t flip = twosComplement(spec) ? uint64_t(1) << (lp.bits - 1) : 0;
    const ElementLocation first = spec.locate(lp, 0, 0);
    const auto codeBytes = d.bytes(first.tensor);
    const TensorEntry& se = d.entry(first.scaleTensor);
    const bool floatScale = se.dtype != DType::U8; // nested bnb absmax holds U8 codes
    const FloatView scales = floatScale ? FloatView(ck.bytes(se), se.dtype, "scales") : FloatView();
    for (uint64_t n = 0; n < lp.N; ++n)
        for (uint64_t k = 0; k < lp.K; ++k) {
            const ElementLocation e = spec.locate(lp, n, k);
            const uint64_t bits = qsk::readPieces(codeBytes, e.wordBits, e.pieces, e.pieceCount);
            const uint64_t code = c.codes[n * lp.K + k];
            if ((bits ^ flip) != code)
                QFAIL(qPrintable(QStringLiteral("%1 (%2, %3): located bits %4, extractCodes %5")
                                     .arg(QString::fromStdString(w.name))
                                     .arg(n)
                                     .arg(k)
                                     .arg(bits ^ flip)
                                     .arg(code)));
            if (c.groups > 0 && floatScale) {
                const float s = scales.at(e.scaleIndex), want = c.scales[uint64_t(c.gIdx[k]) * lp.N + n];
                if (std::bit_cast<uint32_t>(s) != std::bit_cast<uint32_t>(want))
                    QFAIL(qPrintable(
                        QStringLiteral("(%1, %2): located scale %3, extractCodes %4").arg(n).arg(k).arg(s).arg(want)));
            }
            if (e.zeroPieceCount && d.has(e.zeroTensor) && spec.id.rfind("compressed-tensors", 0) == 0) {
                const uint64_t z =
                    qsk::readPieces(d.bytes(e.zeroTensor), e.wordBits == 8 ? 8 : 32, e.zeroPieces, e.zeroPieceCount);
                QCOMPARE(int64_t(z ^ flip), int64_t(c.zeros[uint64_t(c.gIdx[k]) * lp.N + n]));
            }
        }
}

std::vector<Case> probeCases()
{
    std::vector<Case> cases;
    for (const char* id : {"bnb-nf4", "bnb-fp4"}) {
        cases.push_back({id, 24, 96, 4, 64, false, false});
        cases.push_back({id, 9, 33, 4, 32, false, false}); // odd N*K, blocks straddle rows
        cases.push_back({id, 16, 128, 4, 64, false, true});
    }
    cases.push_back({"bnb-int8", 12, 40, 8, 0});
    for (int b = 2; b <= 8; ++b) {
        cases.push_back({"compressed-tensors", 22, 70, b, 0, b % 2 == 0}); // channel, K not a multiple of pf
        cases.push_back({"compressed-tensors", 21, 96, b, 32, b % 2 == 1}); // group
    }
    cases.push_back({"compressed-tensors-int", 10, 64, 8, 16, true});
    cases.push_back({"compressed-tensors-int", 10, 64, 8, 0, false});
    for (int b : {2, 3, 4, 5, 6, 8})
        for (uint64_t g : {32u, 64u})
            cases.push_back({"mlx-affine", 6, 128, b, g});
    for (int b : {1, 2, 3, 4, 5, 6, 8})
        cases.push_back({"hqq", 12, 40, b, 20});
    return cases;
}

QString caseName(const Case& c)
{
    return QStringLiteral("%1 b%2 %3x%4 g%5%6%7")
        .arg(QString::fromStdString(c.id))
        .arg(c.bits)
        .arg(c.N)
        .arg(c.K)
        .arg(c.group)
        .arg(c.asym ? QStringLiteral(" asym") : QString())
        .arg(c.nested ? QStringLiteral(" nested") : QString());
}

} // namespace

class TestLayoutSpecFamilies : public QObject {
    Q_OBJECT
private slots:
    void everyFormatId()
    {
        int checked = 0;
        for (const FormatInfo& f : formatInfos()) {
            if (f.family == FormatFamily::Unknown)
                continue;
            const LayoutSpec* s = findLayoutSpec(f.id);
            QVERIFY2(s, f.id.c_str());
            QCOMPARE(s->id, f.id);
            QVERIFY2(!s->name.empty() && !s->formula.empty() && !s->tensors.empty(), f.id.c_str());
            for (const LayoutTensor& t : s->tensors)
                QVERIFY2(t.shape && !t.role.empty(), f.id.c_str());
            if (f.family == FormatFamily::Other) {
                QVERIFY2(!s->locate, f.id.c_str());
                continue;
            }
            QVERIFY2(s->locate, f.id.c_str());
            QVERIFY2(!s->bitWidths.empty(), f.id.c_str());
            // The code of element (1, 3) of a small matrix lies inside its tensor's formula shape.
            const int bits = s->bitWidths.back();
            const LayoutParams lp{256, 32, bits, 64};
            const ElementLocation e = s->locate(lp, 1, 3);
            QVERIFY2(e.pieceCount >= 1 && e.pieceCount <= 3, f.id.c_str());
            const auto role = std::find_if(s->tensors.begin(), s->tensors.end(),
                                           [&](const LayoutTensor& t) { return t.role == e.tensor; });
            QVERIFY2(role != s->tensors.end(), f.id.c_str());
            ++checked;
        }
        QVERIFY(checked > 60);
        QVERIFY(!findLayoutSpec("unknown"));
    }

    void plainTypes_data()
    {
        QTest::addColumn<int>("dtype");
        for (DType t : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::F8_E4M3, DType::F8_E5M2,
                        DType::F8_E4M3FNUZ, DType::F8_E5M2FNUZ, DType::F8_E8M0})
            QTest::addRow("%s", dtypeName(t).data()) << int(t);
    }
    // The located bits of each element decode (as the kernels do) to the dequantized value.
    void plainTypes()
    {
        QFETCH(int, dtype);
        const DType t = DType(dtype);
        const uint64_t N = 5, K = 24, bytes = dtypeBits(t) / 8;
        std::vector<uint8_t> data(N * K * bytes);
        std::mt19937 rng{uint32_t(dtype)};
        for (auto& b : data)
            b = uint8_t(rng());
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "p.safetensors", {{"m.weight", t, {N, K}, data}}));
        const LogicalWeight w =
            qsk::weight(*ck, "m", plainFormatId(t), {N, K}, {{"weight", "m.weight"}}, int(dtypeBits(t)));
        const LayoutSpec* spec = findLayoutSpec(w.format);
        QVERIFY(spec);
        const LayoutParams lp = paramsOf(w);
        compareShapes(*spec, *ck, w, lp);
        const std::vector<float> ref = qsk::run(dequantFloatRows, *ck, w, SimdPath::Scalar);
        for (uint64_t n = 0; n < N; ++n)
            for (uint64_t k = 0; k < K; ++k) {
                const ElementLocation e = spec->locate(lp, n, k);
                QCOMPARE(e.pieceCount, uint8_t(1));
                QCOMPARE(e.pieces[0].width, uint8_t(dtypeBits(t)));
                const uint64_t v = qsk::readPieces(data, e.wordBits, e.pieces, 1);
                std::vector<uint8_t> one(bytes);
                std::memcpy(one.data(), &v, bytes);
                const FloatView fv(one, t, "one");
                const float a = fv.at(0), b = ref[n * K + k];
                QVERIFY(std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (a != a && b != b));
            }
    }

    void probes_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<int>("probe");
        const auto cases = probeCases();
        for (size_t i = 0; i < cases.size(); ++i) {
            QTest::addRow("%s read", qPrintable(caseName(cases[i]))) << int(i) << -1;
            for (qsk::Probe p : {qsk::Probe::Patterned, qsk::Probe::Random, qsk::Probe::AllMax})
                QTest::addRow("%s %s", qPrintable(caseName(cases[i])), qsk::probeName(p)) << int(i) << int(p);
        }
    }
    void probes()
    {
        QFETCH(int, index);
        QFETCH(int, probe);
        const Case c = probeCases()[size_t(index)];
        const LayoutSpec* spec = findLayoutSpec(c.id);
        QVERIFY(spec);
        const LayoutParams lp{c.K, c.N, c.bits, c.group};
        Built b = build(c);
        const ElementLocation first = spec->locate(lp, 0, 0);
        std::vector<uint8_t>& codeData = dataOf(b, first.tensor);
        const bool zeros = c.asym && !first.zeroTensor.empty() && first.zeroPieceCount;
        const uint64_t flip = twosComplement(*spec) ? uint64_t(1) << (c.bits - 1) : 0;
        std::vector<unsigned> codes, zs;
        if (probe < 0) {
            // Read direction: arbitrary bytes.
            std::mt19937 rng{uint32_t(index) + 101};
            for (auto& v : codeData)
                v = uint8_t(rng());
            if (zeros)
                for (auto& v : dataOf(b, first.zeroTensor))
                    v = uint8_t(rng());
        } else {
            // Write direction: each code only through locate(), into bits no other element uses.
            codes = qsk::probeCodes(qsk::Probe(probe), c.N, c.K, c.bits, uint32_t(index));
            zs = qsk::probeCodes(qsk::Probe::Random, c.N, lp.groups(), c.bits, uint32_t(index) + 3);
            for (uint64_t n = 0; n < c.N; ++n)
                for (uint64_t k = 0; k < c.K; ++k) {
                    const ElementLocation e = spec->locate(lp, n, k);
                    if (!writePieces(codeData, e.wordBits, e.pieces, e.pieceCount, codes[n * c.K + k] ^ flip, true))
                        QFAIL(qPrintable(
                            QStringLiteral("(%1, %2): located bits outside the tensor or shared").arg(n).arg(k)));
                    if (zeros
                        && !writePieces(dataOf(b, e.zeroTensor), e.wordBits == 8 ? 8 : 32, e.zeroPieces,
                                        e.zeroPieceCount, zs[n * lp.groups() + e.group] ^ flip, false))
                        QFAIL(
                            qPrintable(QStringLiteral("(%1, %2): located zero bits outside or shared").arg(n).arg(k)));
                }
        }
        QTemporaryDir tmp;
        const auto ck = qsk::openFile(qsk::write(tmp.path(), "p.safetensors", b.tensors));
        const LogicalWeight w = qsk::weight(*ck, "m", c.id, {c.N, c.K}, b.roles, c.bits, int64_t(c.group));
        compareShapes(*spec, *ck, w, lp);
        const WeightCodes wc = extractCodes(*ck, w);
        compareCodes(*spec, *ck, w, lp, wc);
        if (probe >= 0) {
            for (uint64_t i = 0; i < codes.size(); ++i)
                QCOMPARE(unsigned(wc.codes[i]), codes[i]);
            if (zeros)
                for (uint64_t n = 0; n < c.N; ++n)
                    for (uint64_t g = 0; g < lp.groups(); ++g)
                        QCOMPARE(unsigned(wc.zeros[g * c.N + n]), zs[n * lp.groups() + g]);
        }
        // Every kernel path agrees on what the located bits hold.
        const std::vector<float> ref = dequantizeWeight(*ck, w, SimdPath::Scalar, 1);
        for (SimdPath path : qsk::simdPaths()) {
            const std::vector<float> fast = dequantizeWeight(*ck, w, path, 1);
            QVERIFY2(std::memcmp(ref.data(), fast.data(), ref.size() * sizeof(float)) == 0,
                     std::string(simdPathName(path)).c_str());
        }
    }

    void fixtures_data()
    {
        QTest::addColumn<QString>("dir");
        for (const char* d :
             {"bnb-nf4", "bnb-fp4", "bnb-nf4-doublequant", "bnb-fp4-doublequant", "ct-pack-w4a16-channel-asym",
              "ct-pack-w4a16-g128-sym", "ct-pack-w4a16-g32-asym", "ct-pack-w8a16-channel-sym", "gptq-w2-g32-asym",
              "gptq-w3-g32-asym", "gptq-w4-g128-asym-actorder", "gptq-w8-g128-sym", "awq-gemm-w4-g32"})
            QTest::addRow("%s", d) << QString::fromLatin1(d);
    }
    void fixtures()
    {
        QFETCH(QString, dir);
        const auto ck = openCheckpoint(
            qstest::fixture(QStringLiteral("safetensors/") + dir + QStringLiteral("/model.safetensors")).toStdString());
        int weights = 0;
        for (const LogicalWeight& w : ck->weights) {
            const FormatInfo* f = findFormat(w.format);
            if (!f || !f->quantized)
                continue;
            const LayoutSpec* spec = findLayoutSpec(w.format);
            QVERIFY2(spec, w.format.c_str());
            LayoutParams lp = paramsOf(w);
            if (w.format.rfind("bnb-", 0) == 0)
                lp.groupSize = bnb4State(WeightData{*ck, w}).blocksize;
            compareShapes(*spec, *ck, w, lp);
            const WeightCodes wc = extractCodes(*ck, w);
            if (w.format.rfind("gptq-", 0) == 0 || w.format.rfind("awq-", 0) == 0) {
                // GPTQ/AWQ: codes only (their scale/zero checks live in tst_layoutspec).
                const auto bytes = WeightData{*ck, w}.bytes(spec->locate(lp, 0, 0).tensor);
                for (uint64_t n = 0; n < lp.N; ++n)
                    for (uint64_t k = 0; k < lp.K; ++k) {
                        const ElementLocation e = spec->locate(lp, n, k);
                        if (qsk::readPieces(bytes, e.wordBits, e.pieces, e.pieceCount) != wc.codes[n * lp.K + k])
                            QFAIL(qPrintable(
                                QStringLiteral("%1 (%2, %3)").arg(QString::fromStdString(w.name)).arg(n).arg(k)));
                    }
            } else {
                compareCodes(*spec, *ck, w, lp, wc);
            }
            ++weights;
        }
        QVERIFY(weights > 0);
    }
};

QTEST_GUILESS_MAIN(TestLayoutSpecFamilies)
#include "tst_layoutspec_families.moc"
