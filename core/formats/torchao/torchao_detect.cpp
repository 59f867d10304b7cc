// Detection of torchao's flattened tensor subclasses: a group's `qdata` members (`<attr>:qdata`,
// `_<attr>_qdata`), the subclass the header's metadata names for `<module>.<attr>`, and its other
// data members.
#include "formats/torchao/torchao.h"

#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <unordered_map>

namespace qs::detect {
namespace {

// The header's torchao metadata, read once: each name of `tensor_names` with its description.
class TorchaoMetadata : public ConfigPart {
public:
    explicit TorchaoMetadata(const Checkpoint& ckpt)
    {
        const MetaValue* names = ckpt.container == Container::Safetensors ? ckpt.meta("tensor_names") : nullptr;
        if (!names || !std::holds_alternative<std::string>(names->value))
            return;
        std::unordered_map<std::string_view, const MetaValue*> byKey;
        for (const auto& [key, value] : ckpt.metadata)
            byKey.emplace(key, &value);
        const QJsonDocument list =
            QJsonDocument::fromJson(QByteArray::fromStdString(std::get<std::string>(names->value)));
        for (const QJsonValue n : list.array()) {
            const std::string name = n.toString().toStdString();
            const auto it = byKey.find(name);
            if (name.empty() || it == byKey.end() || !std::holds_alternative<std::string>(it->second->value))
                continue;
            const QJsonDocument d =
                QJsonDocument::fromJson(QByteArray::fromStdString(std::get<std::string>(it->second->value)));
            if (d.isObject())
                m_tensors.emplace(name, d.object());
        }
    }
    bool empty() const { return m_tensors.empty(); }
    const QJsonObject* find(const std::string& name) const
    {
        const auto it = m_tensors.find(name);
        return it == m_tensors.end() ? nullptr : &it->second;
    }

private:
    std::unordered_map<std::string, QJsonObject> m_tensors;
};

// The subclasses torchao's safetensors support writes (safetensors_utils.py,
// ALLOWED_TENSORS_SUBCLASSES) that keep their codes packed: named with what they hold.
struct PackedKind {
    std::string_view type;
    const char* what;
};
constexpr PackedKind kPackedKinds[] = {
    {"Int4Tensor",
     QT_TRANSLATE_NOOP("qs::Message", "int4 codes two a byte with a scale and zero_point per group (fbgemm)")},
    {"Int4TilePackedTo4dTensor",
     QT_TRANSLATE_NOOP("qs::Message",
                       "int4 codes tile-packed into a 4-D int32 qdata for tinygemm, scale and zero "
                       "together in scale_and_zero")},
    {"Int4PlainInt32Tensor",
     QT_TRANSLATE_NOOP("qs::Message", "int4 codes eight to an int32 with a scale and zero_point per group")},
    {"Int4OpaqueTensor",
     QT_TRANSLATE_NOOP("qs::Message", "int4 codes in a CPU kernel's own packing with scale_and_zero")},
    {"IntxUnpackedToInt8Tensor",
     QT_TRANSLATE_NOOP("qs::Message", "1- to 8-bit codes one a byte with a scale and zero_point per group")},
    {"MXTensor", QT_TRANSLATE_NOOP("qs::Message", "MX elements (FP8, FP6 or FP4) with an E8M0 scale per 32")},
    {"NVFP4Tensor",
     QT_TRANSLATE_NOOP("qs::Message", "FP4 E2M1 pairs with an FP8 E4M3 scale per 16 and a per-tensor scale")},
};

// A member of attribute `attr` in the group's naming: `attr:data` or `_attr_data`.
bool memberOf(std::string_view suffix, const std::string& attr, bool colon, std::string& data)
{
    const std::string head = colon ? attr + ":" : "_" + attr + "_";
    if (suffix.size() <= head.size() || !suffix.starts_with(head))
        return false;
    data = std::string(suffix.substr(head.size()));
    return true;
}

// "bfloat16" from torchao's {"_type": "torch.dtype", "_data": "bfloat16"}; "" when absent.
std::string torchDtype(const QJsonValue& v)
{
    const QJsonObject o = v.toObject();
    return o.value(QStringLiteral("_type")).toString() == QLatin1String("torch.dtype")
        ? o.value(QStringLiteral("_data")).toString().toStdString()
        : std::string();
}

// Checks a Float8Tensor's or Int8Tensor's members against its metadata and the kernel's rules
// (formats/torchao/torchao.h); "" when it decodes, else why not.
Message plainKind(Context& cx, LogicalWeight& w, const QJsonObject& data, bool float8)
{
    const int iq = w.member("qdata"), is = w.member("scale");
    if (is < 0)
        return {QT_TRANSLATE_NOOP("qs::Message", "'%1' has no scale member"), {w.name}};
    const TensorEntry& q = cx.tensor(iq);
    const TensorEntry& s = cx.tensor(is);
    if (float8 ? !isFp8(q.dtype) : q.dtype != DType::I8)
        return {QT_TRANSLATE_NOOP("qs::Message", "'%1' is %2, not %3"),
                {std::string(q.name), std::string(dtypeName(q.dtype)), float8 ? "float8" : "int8"}};
    if (s.dtype != DType::F32 && s.dtype != DType::F16 && s.dtype != DType::BF16)
        return {QT_TRANSLATE_NOOP("qs::Message", "'%1' is %2, not %3"),
                {std::string(s.name), std::string(dtypeName(s.dtype)), "a float"}};
    if (q.shape.empty())
        return {QT_TRANSLATE_NOOP("qs::Message", "'%1' is a scalar"), {std::string(q.name)}};
    const bool perTensor = s.elementCount() == 1;
    Shape block;
    for (size_t d = 0; d < q.shape.size(); ++d) {
        const uint64_t n = perTensor ? 1 : d < s.shape.size() ? s.shape[d] : 0;
        if ((!perTensor && s.shape.size() != q.shape.size()) || n == 0 || q.shape[d] % n != 0)
            return {QT_TRANSLATE_NOOP("qs::Message", "scale '%1' %2 does not tile qdata '%3' %4"),
                    {std::string(s.name), shapeText(s.shape), std::string(q.name), shapeText(q.shape)}};
        block.push_back(q.shape[d] / n);
    }
    std::string blockText;
    for (uint64_t b : block)
        blockText += (blockText.empty() ? "" : "x") + std::to_string(b);
    // block_size: what quantize wrote; the scale's shape is what dequantize reads. A per-tensor
    // Float8Tensor may say [] (older torchao) for the whole tensor.
    const QJsonArray bs = data.value(QStringLiteral("block_size")).toArray();
    if (!bs.isEmpty() || !float8) {
        std::string said;
        bool agrees = size_t(bs.size()) == block.size();
        for (qsizetype i = 0; i < bs.size(); ++i) {
            said += (said.empty() ? "" : "x") + jsonValueString(bs[i]);
            agrees = agrees && jsonInt(bs[i]) == int64_t(block[size_t(i)]);
        }
        if (!agrees)
            return {QT_TRANSLATE_NOOP("qs::Message", "block_size [%1] in the metadata, the scale '%2' %3 gives %4"),
                    {said, std::string(s.name), shapeText(s.shape), blockText}};
    }
    const std::string dtype = torchDtype(data.value(QStringLiteral("dtype")));
    if (!dtype.empty() && dtype != "float32" && dtype != "float16" && dtype != "bfloat16")
        return {QT_TRANSLATE_NOOP("qs::Message", "dtype %1 is not float32, float16 or bfloat16"), {dtype}};
    w.format = float8 ? "torchao-float8" : "torchao-int8";
    w.shape = q.shape;
    w.bits = 8;
    w.groupSize = int64_t(block.back());
    w.params[QT_TRANSLATE_NOOP("qs::Message", "block")] = blockText;
    if (!dtype.empty())
        w.params[QT_TRANSLATE_NOOP("qs::Message", "dtype")] = dtype;
    return {};
}

} // namespace

void torchaoReadConfig(const Checkpoint& ckpt, QuantConfig& config)
{
    auto part = std::make_shared<TorchaoMetadata>(ckpt);
    if (!part->empty())
        config.addPart(std::move(part));
}

bool torchaoGroup(Context& cx, const Group& g)
{
    // The attributes stored flattened: a `qdata` member in either naming.
    std::vector<std::pair<std::string, bool>> attrs; // attribute, named with a colon
    for (const auto& [suffix, idx] : g.members) {
        const std::string_view s = suffix;
        if (s.size() > 6 && s.ends_with(":qdata"))
            attrs.emplace_back(std::string(s.substr(0, s.size() - 6)), true);
        else if (s.size() > 7 && s.starts_with('_') && s.ends_with("_qdata"))
            attrs.emplace_back(std::string(s.substr(1, s.size() - 7)), false);
    }
    if (attrs.empty())
        return false;
    const TorchaoMetadata* meta = cx.config().part<TorchaoMetadata>();
    for (const auto& [attr, colon] : attrs) {
        LogicalWeight w;
        w.name = attr == "weight" ? g.prefix : g.prefix + "." + attr;
        w.format = "torchao";
        std::string dataName;
        for (const auto& [suffix, idx] : g.members)
            if (memberOf(suffix, attr, colon, dataName))
                cx.add(w, dataName, static_cast<int>(idx));
        const std::string tensorName = g.prefix + "." + attr;
        const TensorEntry& q = cx.tensor(w.member("qdata"));
        w.params[QT_TRANSLATE_NOOP("qs::Message", "naming")] = colon ? "name:data" : "_name_data";
        const QJsonObject* desc = meta ? meta->find(tensorName) : nullptr;
        if (!desc) {
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "'%1' looks like the codes of a torchao tensor subclass, but the safetensors header "
                                   "has no torchao metadata for '%2' (tensor_names and its _type): its kind is "
                                   "unknown; named, not decoded"),
                 {std::string(q.name), tensorName}});
            w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown"));
            cx.finish(std::move(w));
            continue;
        }
        const std::string kind = desc->value(QStringLiteral("_type")).toString().toStdString();
        const QJsonObject data = desc->value(QStringLiteral("_data")).toObject();
        w.params[QT_TRANSLATE_NOOP("qs::Message", "kind")] = kind;
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "torchao metadata '%1': _type %2"), {tensorName, kind}});
        // The data the metadata says were stored (the first release wrote no list).
        Message why;
        for (const QJsonValue n : desc->value(QStringLiteral("_tensor_data_names")).toArray())
            if (w.member(n.toString().toStdString()) < 0)
                why = {QT_TRANSLATE_NOOP("qs::Message", "its metadata lists %1, the file has no '%2' member"),
                       {n.toString().toStdString(),
                        g.prefix + (colon ? "." + attr + ":" : "._" + attr + "_") + n.toString().toStdString()}};
        const auto packed = std::find_if(std::begin(kPackedKinds), std::end(kPackedKinds),
                                         [&](const PackedKind& p) { return p.type == kind; });
        if (kind == "Float8Tensor" || kind == "Int8Tensor") {
            if (why.empty())
                why = plainKind(cx, w, data, kind == "Float8Tensor");
            if (!why.empty())
                w.notes.push_back(Message::quoting(
                    QT_TRANSLATE_NOOP("qs::Message", "torchao %1 '%2' refused: %3; named, not decoded"),
                    {Message::verbatim(kind), Message::verbatim(tensorName), why}));
        } else if (packed != std::end(kPackedKinds)) {
            // The logical shape a packed kind keeps among its attributes (Int4TilePackedTo4dTensor's `shape`).
            Shape shape;
            for (const QJsonValue d : data.value(QStringLiteral("shape")).toArray())
                if (const auto n = jsonInt(d); n && *n > 0)
                    shape.push_back(uint64_t(*n));
            if (!shape.empty() && shape.size() == size_t(data.value(QStringLiteral("shape")).toArray().size()))
                w.shape = shape;
            w.notes.push_back(
                Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "torchao %1 (%2): packed, named, not decoded"),
                                 {Message::verbatim(kind), Message(packed->what)}));
        } else {
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                                 "torchao metadata gives '%1' the _type %2, which is not one of "
                                                 "torchao's serialized subclasses; named, not decoded"),
                               {tensorName, kind}});
        }
        if (w.shape.empty())
            w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown"));
        cx.finish(std::move(w));
    }
    return true;
}

} // namespace qs::detect
