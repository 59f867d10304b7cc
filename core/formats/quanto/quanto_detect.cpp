// Detection of optimum-quanto weights: `weight._data` (qint8, qfloat8) or the PackedTensor's
// `weight._data._data` (qint2, qint4) with `weight._scale` (and `weight._shift`), cross-checked
// with quanto_qmap.json (module -> {"weights": qtype, "activations": qtype}), which
// optimum-quanto's QuantizedModel writes beside the safetensors instead of a quantization_config.
#include "formats/quanto/quanto.h"

#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

#include <QJsonDocument>

#include <algorithm>
#include <set>

namespace qs::detect {
namespace {

constexpr const char* kQmapFile = "quanto_qmap.json";

// quanto_qmap.json as a part of the config: a module's entry says how it was quantized ("none":
// kept float), and the modules it names that hold no tensor are noted once.
class QuantoQmap final : public ConfigPart {
public:
    QuantoQmap(QJsonObject map, std::vector<std::string> missing)
        : m_map(std::move(map))
        , m_missing(std::move(missing))
    {
    }

    // The module's "weights" qtype name; nullopt when the map has no entry for it.
    std::optional<std::string> weights(const std::string& prefix) const
    {
        const QJsonValue m = m_map.value(QString::fromStdString(prefix));
        if (!m.isObject())
            return std::nullopt;
        const QJsonValue w = m.toObject().value(QStringLiteral("weights"));
        return w.isString() ? w.toString().toStdString() : std::string("none");
    }

    std::optional<ModuleEntry> moduleEntry(const std::string& prefix, bool) const override
    {
        const QJsonValue m = m_map.value(QString::fromStdString(prefix));
        if (!m.isObject())
            return std::nullopt;
        const std::string entry = std::string(kQmapFile) + "[" + prefix
            + "]: " + QJsonDocument(m.toObject()).toJson(QJsonDocument::Compact).toStdString();
        return ModuleEntry{weights(prefix) == "none", entry};
    }

    std::string method() const override { return "quanto"; }

    const std::vector<std::string>& missing() const { return m_missing; }

private:
    QJsonObject m_map;
    std::vector<std::string> m_missing;
};

// The group size optimum-quanto's QModuleMixin gives a qint2/qint4 weight of K inputs: 128,
// else the first of 96, 64, 32 dividing K, for K > 128; 0: not grouped.
uint64_t quantoGroupFor(uint64_t K)
{
    if (K <= 128)
        return 0;
    uint64_t g = 128;
    while (K % g != 0 && g > 32)
        g -= 32;
    return K % g == 0 ? g : 0;
}

// Whether an [N, K] weight with N * K = R * C that quanto groups by C exists: then the stored
// view [R, C] does not tell the logical shape. K = j * C for a divisor j > 1 of R.
bool groupedReadingExists(uint64_t R, uint64_t C)
{
    for (uint64_t j = 1; j * j <= R; ++j) {
        if (R % j)
            continue;
        for (uint64_t d : {j, R / j})
            if (d > 1 && quantoGroupFor(d * C) == C)
                return true;
    }
    return false;
}

// The format id a qmap qtype name stands for ("qint4" -> quanto-qint4); "" for none or unknown.
std::string qmapFormat(const std::string& qtype)
{
    if (qtype == "qint2" || qtype == "qint4" || qtype == "qint8")
        return "quanto-" + qtype;
    if (qtype.starts_with("qfloat8"))
        return "quanto-qfloat8";
    return {};
}

// The float8 dtype a qfloat8 qtype name stores.
DType qmapFloat8(const std::string& qtype)
{
    return qtype == "qfloat8_e5m2" ? DType::F8_E5M2 : qtype == "qfloat8_e4m3fnuz" ? DType::F8_E4M3FNUZ : DType::F8_E4M3;
}

} // namespace

void quantoReadConfig(const Checkpoint& ckpt, QuantConfig& cfg)
{
    const auto it = std::find_if(ckpt.sideConfigs.begin(), ckpt.sideConfigs.end(),
                                 [](const auto& s) { return s.first == kQmapFile; });
    if (it == ckpt.sideConfigs.end() || it->second.isEmpty())
        return;
    // The modules it names with no tensor "<module>.*": names sorted once, one search each.
    std::set<std::string_view> names;
    for (const TensorEntry& t : ckpt.tensors)
        names.insert(t.name);
    std::vector<std::string> missing;
    for (auto m = it->second.begin(); m != it->second.end(); ++m) {
        const std::string prefix = m.key().toStdString() + ".";
        const auto at = names.lower_bound(prefix);
        if (at == names.end() || !at->starts_with(prefix))
            missing.push_back(m.key().toStdString());
    }
    cfg.addSource(kQmapFile, it->second);
    cfg.addPart(std::make_shared<QuantoQmap>(it->second, std::move(missing)));
}

bool quantoGroup(Context& cx, const Group& g)
{
    const int ip = g.find("weight._data._data"), id = ip >= 0 ? ip : g.find("weight._data");
    const int is = g.find("weight._scale");
    if (id < 0)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.symmetric = ip < 0;
    for (const auto& [suffix, idx] : g.members)
        if (suffix != "bias")
            cx.add(w, suffix, static_cast<int>(idx));
    const TensorEntry& d = cx.tensor(id);
    const QuantoQmap* qmap = cx.config().part<QuantoQmap>();
    const std::optional<std::string> qtype = qmap ? qmap->weights(g.prefix) : std::nullopt;
    w.evidence.push_back(
        {QT_TRANSLATE_NOOP("qs::Message", "%1 %2 %3 + weight._scale (optimum-quanto)"),
         {std::string(d.name.substr(g.prefix.size() + 1)), std::string(d.typeName), shapeText(d.shape)}});
    // The first quanto weight carries what the qmap names that the checkpoint lacks.
    if (qmap && !qmap->missing().empty()
        && std::none_of(cx.weights().begin(), cx.weights().end(),
                        [](const LogicalWeight& x) { return x.member("weight._scale") >= 0; })) {
        std::string list;
        for (size_t i = 0; i < qmap->missing().size() && i < 5; ++i)
            list += (i ? ", " : "") + qmap->missing()[i];
        if (qmap->missing().size() > 5)
            list += ", ...";
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "quanto_qmap.json names %1 modules that have no tensors here: %2"),
             {std::to_string(qmap->missing().size()), list}});
    }

    std::string format;
    if (is < 0) {
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "weight._scale is missing: not decoded"));
    } else if (ip >= 0 && d.dtype == DType::I32) {
        // MarlinF8QBytesTensor (CUDA only) keeps its int32 packing and permuted scales when saved.
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "weight._data._data I32 %1: Marlin-packed qfloat8, not decoded"),
             {shapeText(d.shape)}});
    } else if (ip >= 0) {
        // qint2 / qint4: R scales, ceil(R / (8 / b)) packed rows; both widths fit only R <= 2.
        const uint64_t R = cx.tensor(is).elementCount(), P = d.shape.empty() ? 0 : d.shape[0];
        const bool fits2 = d.dtype == DType::U8 && P && ceilDiv(R, 4) == P,
                   fits4 = d.dtype == DType::U8 && P && ceilDiv(R, 2) == P;
        const std::string said = qtype ? qmapFormat(*qtype) : std::string();
        if (said == "quanto-qint2" && fits2)
            w.bits = 2;
        else if (said == "quanto-qint4" && fits4)
            w.bits = 4;
        else
            w.bits = fits4 ? 4 : fits2 ? 2 : 0;
        if (w.bits) {
            format = std::string(quantoFormatId(Quanto::Kind::QBits, w.bits));
            uint64_t C = 1;
            for (size_t i = 1; i < d.shape.size(); ++i)
                C = mulChecked(C, d.shape[i]).value_or(0);
            w.shape = {R};
            for (size_t i = 1; i < d.shape.size(); ++i)
                w.shape.push_back(d.shape[i]);
            const int ib = g.find("bias");
            const uint64_t N = ib >= 0 ? cx.tensor(ib).elementCount() : 0;
            const auto total = mulChecked(R, C);
            if (N && N != R && d.shape.size() == 2 && total && *total % N == 0 && quantoGroupFor(*total / N) == C) {
                // The bias gives the output rows: the view is the grouped [N*K/g, g].
                w.shape = {N, *total / N};
                w.groupSize = int64_t(C);
            } else if (N && N != R) {
                w.notes.push_back(
                    {QT_TRANSLATE_NOOP("qs::Message",
                                       "the bias holds %1 values: no quanto grouping of the %2 x %3 view gives them"),
                     {std::to_string(N), std::to_string(R), std::to_string(C)}});
            } else if (!N && d.shape.size() == 2 && C && groupedReadingExists(R, C)) {
                w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                                     "shown as stored, %1 x %2: quanto groups a weight of more than "
                                                     "128 inputs in rows of %2, and its [out, in] is not in the file"),
                                   {std::to_string(R), std::to_string(C)}});
            }
        } else {
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                                 "weight._data._data %1 %2 does not pack the %3 scales in 2 or 4 bits"),
                               {std::string(d.typeName), shapeText(d.shape), std::to_string(R)}});
        }
    } else if (d.dtype == DType::I8 || d.dtype == DType::F8_E4M3 || d.dtype == DType::F8_E5M2
               || d.dtype == DType::F8_E4M3FNUZ) {
        const bool fp8 = d.dtype != DType::I8;
        format = std::string(quantoFormatId(fp8 ? Quanto::Kind::QFloat8 : Quanto::Kind::QInt8, 8));
        w.bits = 8;
        w.shape = d.shape;
        if (qtype && qmapFormat(*qtype) == format && fp8 && qmapFloat8(*qtype) != d.dtype)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "quanto_qmap.json says %1, the data is %2"),
                               {*qtype, std::string(d.typeName)}});
    } else {
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "weight._data is %1: not a quanto data dtype"),
                           {std::string(d.typeName)}});
    }

    if (qtype) {
        const std::string said = qmapFormat(*qtype);
        if (!format.empty() && said != format)
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message", "quanto_qmap.json says %1, the tensors hold %2"), {*qtype, format}});
        else if (!format.empty())
            w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "quanto_qmap.json: weights %1"), {*qtype}});
    } else if (qmap) {
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "quanto_qmap.json has no entry for this module"));
    }
    w.format = format.empty() ? "unknown" : format;
    if (!format.empty() && w.shape.empty())
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown"));
    cx.finish(std::move(w));
    return true;
}

} // namespace qs::detect
