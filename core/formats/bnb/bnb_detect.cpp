// Detection of bitsandbytes weights: 4-bit NF4/FP4 (a packed weight with absmax, quant_map
// and a quant_state JSON, or GPTQModel's flattened spelling) and LLM.int8 (I8 with SCB).
#include "formats/bnb/bnb.h"

#include "base/asciicase.h"
#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace qs::detect {
namespace {

bool detectBnb4(Context& cx, const Group& g)
{
    const int iw = g.find("weight");
    int iqs = g.find("weight.quant_state.bitsandbytes__nf4");
    std::string typeFromName = "nf4";
    if (iqs < 0) {
        iqs = g.find("weight.quant_state.bitsandbytes__fp4");
        typeFromName = "fp4";
    }
    if (iqs < 0) {
        iqs = g.find("weight_quant_state"); // GPTQModel's flattened spelling
        typeFromName.clear();
    }
    const bool flat = g.find("weight.absmax") < 0 && g.find("weight_absmax") >= 0;
    const auto role = [&](const char* r) { return g.find((flat ? "weight_" : "weight.") + std::string(r)); };
    const int ia = role("absmax");
    if (iw < 0 || (iqs < 0 && ia < 0))
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.bits = 4;
    cx.add(w, "weight", iw);
    cx.add(w, "absmax", ia);
    cx.add(w, "quant_map", role("quant_map"));
    cx.add(w, "nested_absmax", role("nested_absmax"));
    cx.add(w, "nested_quant_map", role("nested_quant_map"));
    cx.add(w, "quant_state", iqs);
    w.evidence.push_back(
        {QT_TRANSLATE_NOOP("qs::Message", "'%1' %2 %3 with absmax/quant_map/quant_state members (bitsandbytes 4-bit)"),
         {std::string(cx.tensor(iw).name), std::string(dtypeName(cx.tensor(iw).dtype)),
          shapeText(cx.tensor(iw).shape)}});
    std::string quantType = typeFromName;
    int64_t blocksize = 64;
    if (iqs >= 0) {
        if (const auto js = cx.small(iqs, w, kJsonCap)) {
            QJsonParseError err{};
            const QJsonDocument doc = QJsonDocument::fromJson(
                QByteArray(reinterpret_cast<const char*>(js->data()), static_cast<qsizetype>(js->size())), &err);
            if (!doc.isObject()) {
                w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "'%1' is not a JSON object: %2"),
                                   {std::string(cx.tensor(iqs).name), err.errorString().toStdString()}});
            } else {
                const QJsonObject o = doc.object();
                w.evidence.push_back(QT_TRANSLATE_NOOP("qs::Message", "quant_state JSON read"));
                for (auto it = o.begin(); it != o.end(); ++it)
                    if (!it.value().isArray() && !it.value().isObject())
                        w.params[it.key().toStdString()] = jsonValueString(it.value());
                const std::string qt = asciiLower(o.value(QStringLiteral("quant_type")).toString().toStdString());
                if (!qt.empty()) {
                    if (!typeFromName.empty() && qt != typeFromName)
                        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                                             "quant_state says quant_type %1, its tensor name says %2"),
                                           {qt, typeFromName}});
                    quantType = qt;
                }
                if (const auto bs = jsonInt(o.value(QStringLiteral("blocksize"))); bs && *bs > 0)
                    blocksize = *bs;
                const QJsonArray shape = o.value(QStringLiteral("shape")).toArray();
                for (const QJsonValue d : shape)
                    if (const auto v = jsonInt(d); v && *v >= 0)
                        w.shape.push_back(static_cast<uint64_t>(*v));
                if (w.shape.size() != static_cast<size_t>(shape.size()))
                    w.shape.clear();
            }
        }
    }
    if (quantType.empty())
        quantType = cx.config().strFor(g.prefix, {"bnb_4bit_quant_type"}, &w).value_or("");
    w.format = quantType == "nf4" ? "bnb-nf4" : quantType == "fp4" ? "bnb-fp4" : "unknown";
    if (w.format == "unknown")
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "bitsandbytes 4-bit quant_type unknown ('%1')"), {quantType}});
    if (const auto cfgType = cx.config().strFor(g.prefix, {"bnb_4bit_quant_type"}, nullptr);
        cfgType && *cfgType != quantType)
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "config says bnb_4bit_quant_type %1, the stored quant_state says %2"),
             {*cfgType, quantType}});
    w.groupSize = blocksize;
    w.params[QT_TRANSLATE_NOOP("qs::Message", "blocksize")] = std::to_string(blocksize);
    w.params[QT_TRANSLATE_NOOP("qs::Message", "quant_type")] = quantType;
    w.params[QT_TRANSLATE_NOOP("qs::Message", "quant_storage")] =
        asciiLower(std::string(dtypeName(cx.tensor(iw).dtype)));
    const bool nested = w.member("nested_absmax") >= 0;
    w.params[QT_TRANSLATE_NOOP("qs::Message", "nested")] =
        nested ? QT_TRANSLATE_NOOP("qs::Message", "true") : QT_TRANSLATE_NOOP("qs::Message", "false");
    if (nested != (ia >= 0 && cx.tensor(ia).dtype == DType::U8))
        w.notes.push_back(
            !nested       ? Message(QT_TRANSLATE_NOOP("qs::Message", "nested_absmax absent but absmax is %1"),
                                    {std::string(dtypeName(cx.tensor(ia).dtype))})
                : ia >= 0 ? Message(QT_TRANSLATE_NOOP("qs::Message", "nested_absmax present but absmax is %1"),
                                    {std::string(dtypeName(cx.tensor(ia).dtype))})
                          : Message(QT_TRANSLATE_NOOP("qs::Message", "nested_absmax present but absmax is absent")));
    if (const auto dq = cx.config().boolFor(g.prefix, {"bnb_4bit_use_double_quant"}, nullptr); dq && *dq != nested)
        w.notes.push_back(
            {nested ? QT_TRANSLATE_NOOP("qs::Message",
                                        "config says bnb_4bit_use_double_quant %1, the stored state is nested")
                    : QT_TRANSLATE_NOOP("qs::Message",
                                        "config says bnb_4bit_use_double_quant %1, the stored state is not nested"),
             {*dq ? "true" : "false"}});
    if (w.shape.empty()) {
        w.notes.push_back(QT_TRANSLATE_NOOP(
            "qs::Message", "original shape unknown (quant_state has no shape): listed as a flat vector"));
        w.shape = {cx.tensor(iw).nbytes * 2};
    }
    // The shape comes from the quant_state JSON: it must be the stored codes' (two a byte; a
    // quant_storage wider than U8 pads to whole elements) and absmax's blocks, else dequantizing
    // it would write a different array than the file holds.
    const std::optional<uint64_t> n = checkedElements(w);
    if (n) {
        const uint64_t have = cx.tensor(iw).nbytes, need = ceilDiv(*n, 2);
        const uint64_t item = std::max<uint64_t>(1, dtypeBits(cx.tensor(iw).dtype) / 8);
        const Message bytes(QT_TRANSLATE_NOOP("qs::Message", "weight holds %1 bytes, %2 expected for %3"),
                            {std::to_string(have), std::to_string(need), shapeText(w.shape)});
        const uint64_t blocks = ceilDiv(*n, static_cast<uint64_t>(blocksize));
        if (have < need || have - need >= item)
            refuseShape(w, bytes);
        else if (ia >= 0 && cx.tensor(ia).elementCount() != blocks)
            refuseShape(w,
                        {QT_TRANSLATE_NOOP("qs::Message", "absmax has %1 entries, %2 blocks expected"),
                         {std::to_string(cx.tensor(ia).elementCount()), std::to_string(blocks)}});
        else if (have != need)
            w.notes.push_back(bytes);
    }
    cx.finish(std::move(w));
    return true;
}

bool detectBnb8(Context& cx, const Group& g)
{
    const int iw = g.find("weight");
    int is = g.find("SCB");
    if (is < 0)
        is = g.find("weight_scb");
    if (iw < 0 || is < 0 || cx.tensor(iw).dtype != DType::I8 || cx.tensor(iw).shape.size() != 2)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "bnb-int8";
    w.bits = 8;
    w.symmetric = true;
    cx.add(w, "weight", iw);
    cx.add(w, "SCB", is);
    cx.add(w, "weight_format", g.find("weight_format"));
    w.shape = cx.tensor(iw).shape;
    w.groupSize = static_cast<int64_t>(w.shape[1]);
    w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "weight I8 %1 + SCB %2 (LLM.int8)"),
                          {shapeText(w.shape), shapeText(cx.tensor(is).shape)}});
    if (cx.tensor(is).elementCount() != w.shape[0])
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "SCB has %1 entries for %2 rows"),
                           {std::to_string(cx.tensor(is).elementCount()), std::to_string(w.shape[0])}});
    cx.finish(std::move(w));
    return true;
}

} // namespace

bool bnbGroup(Context& cx, const Group& g)
{
    return detectBnb4(cx, g) || detectBnb8(cx, g);
}

} // namespace qs::detect
