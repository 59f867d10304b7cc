#include "formats/bnb/bnb.h"
#include "formats/statecache.h"
#include "base/intmath.h"
#include "base/shapetext.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <bit>

namespace qs {

namespace {

constexpr float f32bits(uint32_t b)
{
    return std::bit_cast<float>(b);
}

} // namespace

// functional.get_4bit_type("nf4"): the normalised N(0,1) quantiles, code order = value order.
const float kBnbNf4[16] = {
    f32bits(0xBF800000), f32bits(0xBF3239B1), f32bits(0xBF066B30), f32bits(0xBECA32A0),
    f32bits(0xBE91A24D), f32bits(0xBE3D353F), f32bits(0xBDBA7871), f32bits(0x00000000),
    f32bits(0x3DA2FAFF), f32bits(0x3E24CAE3), f32bits(0x3E7C04DD), f32bits(0x3EAD033A),
    f32bits(0x3EE1A4B8), f32bits(0x3F1007AB), f32bits(0x3F3913B3), f32bits(0x3F800000),
};
// get_4bit_type("fp4"): [0, 0.0625, 8, 12, 4, 6, 2, 3] / 12 with bit 3 the sign. Code 8 is +0.0,
// not -0.0: upstream writes the Python int "-0", which torch.tensor stores as +0.0 (spec B.5 says -0).
const float kBnbFp4[16] = {
    f32bits(0x00000000), f32bits(0x3BAAAAAB), f32bits(0x3F2AAAAB), f32bits(0x3F800000),
    f32bits(0x3EAAAAAB), f32bits(0x3F000000), f32bits(0x3E2AAAAB), f32bits(0x3E800000),
    f32bits(0x00000000), f32bits(0xBBAAAAAB), f32bits(0xBF2AAAAB), f32bits(0xBF800000),
    f32bits(0xBEAAAAAB), f32bits(0xBF000000), f32bits(0xBE2AAAAB), f32bits(0xBE800000),
};

float Bnb4::blockAbsmax(uint64_t block) const
{
    if (!nested)
        return absmax.at(block);
    // dequantize_blockwise(absmax_u8, nested state) then "absmax += offset", all f32.
    const float d = nestedMap.at(absmaxCodes[block]) * nestedAbsmax.at(block / nestedBlocksize);
    return d + nestedOffset;
}

void bnb4BlockAbsmaxes(const Bnb4& s, uint64_t b0, uint64_t count, float* out)
{
    if (!s.nested) {
        s.absmax.read(b0, count, out);
        return;
    }
    float map[256];
    s.nestedMap.read(0, 256, map);
    for (uint64_t b = b0, end = b0 + count; b < end;) {
        const uint64_t j = b / s.nestedBlocksize, runEnd = std::min(end, (j + 1) * s.nestedBlocksize);
        const float nested = s.nestedAbsmax.at(j);
        for (; b < runEnd; ++b) {
            const float d = map[s.absmaxCodes[b]] * nested;
            out[b - b0] = d + s.nestedOffset;
        }
    }
}

namespace {

FloatView floatMember(const WeightData& w, std::string_view role)
{
    const TensorEntry& e = w.entry(role);
    return FloatView(w.ckpt.bytes(e), e.dtype, "weight '" + w.weight.name + "' tensor '" + std::string(e.name) + "'");
}

uint64_t jsonCount(const LogicalWeight& lw, const QJsonValue& v, const char* key)
{
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d < 1 || d > 9.0e15 || d != static_cast<double>(static_cast<uint64_t>(d)))
        failWeight(lw, std::string("quant_state '") + key + "' is not a positive integer");
    return static_cast<uint64_t>(d);
}

} // namespace

Bnb4 bnb4State(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    Bnb4 s;
    const auto stateBytes = w.bytes("quant_state");
    if (stateBytes.size() > (1u << 20))
        failWeight(lw, "quant_state is larger than 1 MiB");
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray(reinterpret_cast<const char*>(stateBytes.data()), static_cast<qsizetype>(stateBytes.size())), &err);
    if (!doc.isObject())
        failWeight(lw, "quant_state is not a JSON object: " + err.errorString().toStdString());
    const QJsonObject js = doc.object();

    const std::string qt = js.value(QStringLiteral("quant_type")).toString().toStdString();
    s.fp4 = lw.format == "bnb-fp4" || (lw.format != "bnb-nf4" && qt == "fp4");
    if (!qt.empty() && qt != (s.fp4 ? "fp4" : "nf4"))
        failWeight(lw, "quant_state says quant_type '" + qt + "'");
    s.blocksize = js.contains(QStringLiteral("blocksize"))
        ? jsonCount(lw, js.value(QStringLiteral("blocksize")), "blocksize")
        : 64;
    if (s.blocksize > (1u << 20))
        failWeight(lw, "blocksize " + std::to_string(s.blocksize) + " is out of range");
    s.dtype = js.value(QStringLiteral("dtype")).toString(QStringLiteral("float16")).toStdString();

    // The original shape lives only in the JSON (files before bnb PR #868 may lack it).
    std::vector<uint64_t> shape;
    for (const QJsonValue v : js.value(QStringLiteral("shape")).toArray())
        shape.push_back(jsonCount(lw, v, "shape"));
    if (shape.empty())
        shape = lw.shape;
    if (shape.size() < 1)
        failWeight(lw, "no shape in quant_state and none detected");
    s.cols = shape.back();
    s.rows = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i)
        s.rows = checkedMul(s.rows, shape[i], "weight '" + lw.name + "' shape");
    const uint64_t n = checkedMul(s.rows, s.cols, "weight '" + lw.name + "' shape");
    if (lw.outFeatures() != s.rows || lw.inFeatures() != s.cols)
        failWeight(lw, "quant_state shape disagrees with the detected shape " + shapeText(lw.shape));

    s.packed = w.bytes("weight");
    if (s.packed.size() < n / 2 + (n & 1))
        failWeight(lw,
                   "weight holds " + std::to_string(s.packed.size()) + " bytes, " + std::to_string(n) + " codes need "
                       + std::to_string(n / 2 + (n & 1)));

    const uint64_t nblocks = s.blocks();
    s.nested = w.has("nested_absmax") || js.contains(QStringLiteral("nested_offset"));
    if (s.nested) {
        const TensorEntry& a = w.entry("absmax");
        if (a.dtype != DType::U8)
            failWeight(lw,
                       "nested absmax '" + std::string(a.name) + "' is " + std::string(dtypeName(a.dtype))
                           + ", expected U8");
        s.absmaxCodes = w.ckpt.bytes(a);
        s.nestedAbsmax = floatMember(w, "nested_absmax");
        s.nestedMap = floatMember(w, "nested_quant_map");
        s.nestedOffset = static_cast<float>(js.value(QStringLiteral("nested_offset")).toDouble(0.0));
        if (js.contains(QStringLiteral("nested_blocksize")))
            s.nestedBlocksize = jsonCount(lw, js.value(QStringLiteral("nested_blocksize")), "nested_blocksize");
        if (s.absmaxCodes.size() < nblocks)
            failWeight(lw,
                       "absmax holds " + std::to_string(s.absmaxCodes.size()) + " codes, " + std::to_string(nblocks)
                           + " blocks");
        if (s.nestedMap.size() < 256)
            failWeight(lw, "nested_quant_map holds fewer than 256 values");
        if (s.nestedAbsmax.size() < ceilDiv(nblocks, s.nestedBlocksize))
            failWeight(lw,
                       "nested_absmax holds " + std::to_string(s.nestedAbsmax.size()) + " values, too few for "
                           + std::to_string(nblocks) + " blocks");
    } else {
        s.absmax = floatMember(w, "absmax");
        if (s.absmax.size() < nblocks)
            failWeight(lw,
                       "absmax holds " + std::to_string(s.absmax.size()) + " values, " + std::to_string(nblocks)
                           + " blocks");
    }
    return s;
}

void bnb4ElementsScalar(const Bnb4& s, uint64_t e0, uint64_t n, float* out)
{
    const float* code = s.table();
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t e = e0 + i;
        const uint8_t byte = s.packed[e / 2];
        const unsigned q = (e & 1) ? (byte & 0x0F) : (byte >> 4);
        out[i] = code[q] * s.blockAbsmax(e / s.blocksize);
    }
}

BnbInt8 bnbInt8State(const WeightData& w)
{
    const LogicalWeight& lw = w.weight;
    BnbInt8 s;
    const TensorEntry& q = w.entry("weight");
    if (q.dtype != DType::I8)
        failWeight(lw, "weight '" + std::string(q.name) + "' is " + std::string(dtypeName(q.dtype)) + ", expected I8");
    if (q.shape.size() != 2)
        failWeight(lw, "weight '" + std::string(q.name) + "' is not 2-D");
    s.rows = q.shape[0];
    s.cols = q.shape[1];
    s.q = w.ckpt.bytes(q);
    if (s.q.size() != checkedMul(s.rows, s.cols, lw.name))
        failWeight(lw, "weight bytes do not match its shape");
    if (!lw.shape.empty() && (lw.outFeatures() != s.rows || lw.inFeatures() != s.cols))
        failWeight(lw, "detected shape disagrees with weight '" + std::string(q.name) + "'");
    s.scb = floatMember(w, "SCB");
    if (s.scb.size() < s.rows)
        failWeight(lw, "SCB holds " + std::to_string(s.scb.size()) + " values for " + std::to_string(s.rows) + " rows");
    return s;
}

void bnbInt8RowsScalar(const BnbInt8& s, uint64_t r0, uint64_t r1, float* out)
{
    constexpr float inv127 = 7.874015718698502e-3f; // the Python literal, cast to f32 by torch
    for (uint64_t r = r0; r < r1; ++r) {
        const float scb = s.scb.at(r);
        const int8_t* q = reinterpret_cast<const int8_t*>(s.q.data()) + r * s.cols;
        float* o = out + (r - r0) * s.cols;
        for (uint64_t k = 0; k < s.cols; ++k) {
            const float t = static_cast<float>(q[k]) * scb;
            o[k] = t * inv127;
        }
    }
}

void dequantBnb4Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<Bnb4, RowSpan::Elements>(
        w, rowBegin, rowEnd, out, bnb4State, bnb4ElementsScalar,
        simdKernel(path, SimdKernels<Bnb4ElementsFn>{QS_X86(bnb4ElementsAvx512), QS_X86(bnb4ElementsAvx2)}));
}

void dequantBnbInt8Rows(const WeightData& w, uint64_t rowBegin, uint64_t rowEnd, float* out, SimdPath path)
{
    dispatchRows<BnbInt8, RowSpan::Rows>(
        w, rowBegin, rowEnd, out, bnbInt8State, bnbInt8RowsScalar,
        simdKernel(path, SimdKernels<BnbInt8RowsFn>{QS_X86(bnbInt8RowsAvx512), QS_X86(bnbInt8RowsAvx2)}));
}

} // namespace qs
