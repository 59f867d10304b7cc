// Detection of compressed-tensors weights (pack-quantized, NVFP4, float and int with a
// weight_scale, matched to their config group) and block FP8 (weight_scale_inv).
#include "formats/compressed_tensors/ct.h"

#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"
#include "formats/gptq/gptq.h"

#include <QJsonArray>

#include <algorithm>

namespace qs::detect {
namespace {

// compressed-tensors' parts of the config: `config_groups` (the first source holding them),
// each group's `targets` naming the modules it quantizes, and the `ignore` list.
class CtConfig final : public ConfigPart {
public:
    struct GroupHit {
        std::string name; // the config_groups key
        QJsonObject group;
    };

    CtConfig(const QuantConfig& cfg, QJsonObject groups, std::string source, std::string format)
        : m_groups(std::move(groups))
        , m_source(std::move(source))
        , m_format(std::move(format))
    {
        for (const auto& s : cfg.sources())
            if (const QJsonArray ignore = s.obj.value(QStringLiteral("ignore")).toArray(); !ignore.isEmpty())
                m_ignore.push_back({s.name, ignore});
    }
    bool empty() const { return m_groups.isEmpty() && m_ignore.empty(); }

    // The group whose targets match `prefix`: regex targets ("re:...", matched from the start)
    // and exact names before class names ("Linear").
    std::optional<GroupHit> groupFor(const std::string& prefix) const
    {
        const QString name = QString::fromStdString(prefix);
        std::optional<GroupHit> byClass;
        for (auto it = m_groups.begin(); it != m_groups.end(); ++it) {
            const QJsonObject g = it.value().toObject();
            for (const QJsonValue t : g.value(QStringLiteral("targets")).toArray()) {
                const QString s = t.toString();
                if (s.startsWith(QLatin1String("re:")) ? matchesFromStart(s.mid(3), name) : s == name)
                    return GroupHit{it.key().toStdString(), g};
                if (!byClass && !s.isEmpty() && s.at(0).isUpper() && !s.contains(QLatin1Char('.')))
                    byClass = GroupHit{it.key().toStdString(), g};
            }
        }
        return byClass;
    }
    const std::string& source() const { return m_source; } // where config_groups was found
    const std::string& format() const { return m_format; } // the config's "format"

    // The ignore list: exact names and "re:" patterns.
    std::optional<std::string> excludedBy(const std::string& prefix) const override
    {
        const QString name = QString::fromStdString(prefix);
        for (const auto& [source, ignore] : m_ignore)
            for (const QJsonValue e : ignore) {
                const QString entry = e.toString();
                if (entry.isEmpty())
                    continue;
                if (entry.startsWith(QLatin1String("re:")) ? matchesFromStart(entry.mid(3), name) : entry == name)
                    return source + ": ignore lists " + entry.toStdString();
            }
        return std::nullopt;
    }

    EntryOrder entryOrder() const override { return EntryOrder::Last; }
    std::optional<ModuleEntry> moduleEntry(const std::string& prefix, bool quantized) const override
    {
        if (m_groups.isEmpty())
            return std::nullopt;
        const auto g = groupFor(prefix);
        if (g && quantized)
            return ModuleEntry{false, m_source + ": config_groups." + g->name + " targets this module"};
        if (!quantized && !g)
            return ModuleEntry{true, m_source + ": no config group targets this module"};
        return std::nullopt;
    }

private:
    QJsonObject m_groups;
    std::string m_source;
    std::string m_format;
    std::vector<std::pair<std::string, QJsonArray>> m_ignore;
};

std::optional<CtConfig::GroupHit> ctGroupFor(const Context& cx, const std::string& prefix)
{
    const CtConfig* ct = cx.config().part<CtConfig>();
    return ct ? ct->groupFor(prefix) : std::nullopt;
}

// Words of `perWord` codes each that hold `codes` codes. 0 when not even one code fits a
// word (a sub-byte dtype such as F4 under a wider num_bits), so only an empty tensor matches.
uint64_t ctWordsFor(uint64_t codes, uint64_t perWord)
{
    return perWord ? ceilDiv(codes, perWord) : 0;
}

bool detectCtPacked(Context& cx, const Group& g)
{
    const int ip = g.find("weight_packed"), is = g.find("weight_scale");
    if (ip < 0 || is < 0 || cx.tensor(ip).shape.size() != 2)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    const TensorEntry& p = cx.tensor(ip);
    cx.add(w, "weight_packed", ip);
    cx.add(w, "weight_scale", is);
    const int ishape = g.find("weight_shape");
    cx.add(w, "weight_shape", ishape);
    cx.add(w, "weight_zero_point", g.find("weight_zero_point"));
    cx.add(w, "weight_g_idx", g.find("weight_g_idx"));
    cx.add(w, "weight_global_scale", g.find("weight_global_scale"));
    cx.add(w, "input_global_scale", g.find("input_global_scale"));
    const auto grp = ctGroupFor(cx, g.prefix);
    QJsonObject wcfg;
    if (grp) {
        const CtConfig& ct = *cx.config().part<CtConfig>();
        wcfg = grp->group.value(QStringLiteral("weights")).toObject();
        w.evidence.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "%1: config_groups.%2 targets this module"), {ct.source(), grp->name}});
        const std::string fmt = grp->group.value(QStringLiteral("format")).toString().toStdString();
        w.params[QT_TRANSLATE_NOOP("qs::Message", "ct_format")] = fmt.empty() ? ct.format() : fmt;
    }
    uint64_t N = p.shape[0], K = 0;
    if (ishape >= 0) {
        if (const auto v = cx.ints(ishape, w); v && v->size() == 2 && (*v)[0] >= 0 && (*v)[1] >= 0) {
            N = static_cast<uint64_t>((*v)[0]);
            K = static_cast<uint64_t>((*v)[1]);
            w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "weight_shape read: %1"), {shapeText({N, K})}});
        }
    }
    // weight_shape says the logical shape; the packed words must hold exactly that.
    const Message disagrees(QT_TRANSLATE_NOOP("qs::Message", "weight_shape %1 disagrees with weight_packed %2"),
                            {shapeText({N, K}), shapeText(p.shape)});
    if (p.dtype == DType::U8 && w.member("weight_global_scale") >= 0) {
        w.format = "compressed-tensors-nvfp4";
        w.bits = 4;
        w.groupSize = 16;
        if (!K)
            K = mulChecked(p.shape[1], 2).value_or(0);
        w.shape = {N, K};
        w.evidence.push_back(QT_TRANSLATE_NOOP("qs::Message", "weight_packed U8 + weight_global_scale (NVFP4)"));
        if (N != p.shape[0] || ceilDiv(K, 2) != p.shape[1])
            refuseShape(w, disagrees);
        cx.finish(std::move(w));
        return true;
    }
    w.format = "compressed-tensors";
    w.params["ct_format"] = w.params.count("ct_format") ? w.params["ct_format"] : "pack-quantized";
    const uint64_t P = dtypeBits(p.dtype);
    const auto cfgBits = jsonInt(wcfg.value(QStringLiteral("num_bits")));
    if (!K) {
        // A num_bits outside 1..P (0 in a hostile config) says nothing: assume 4.
        const uint64_t bits = cfgBits && *cfgBits >= 1 && uint64_t(*cfgBits) <= P ? uint64_t(*cfgBits) : 4;
        w.notes.push_back(QT_TRANSLATE_NOOP("qs::Message", "no weight_shape: K taken as the packed width"));
        K = mulChecked(p.shape[1], P / bits).value_or(0);
    }
    // Each word holds floor(P/b) codes; 5..8 bits share 4 per int32, so shapes alone are ambiguous there.
    int b = 0;
    std::vector<int> fits;
    for (int cand = 1; cand <= 8; ++cand)
        if (ctWordsFor(K, P / static_cast<uint64_t>(cand)) == p.shape[1])
            fits.push_back(cand);
    if (cfgBits && std::find(fits.begin(), fits.end(), static_cast<int>(*cfgBits)) != fits.end()) {
        b = static_cast<int>(*cfgBits);
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "num_bits %1 from the config fits weight_packed %2"),
                              {std::to_string(b), shapeText(p.shape)}});
    } else if (!fits.empty()) {
        b = fits.back();
        if (cfgBits)
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "config says num_bits %1, but weight_packed %2 for K = %3 fits %4 bits"),
                 {std::to_string(*cfgBits), shapeText(p.shape), std::to_string(K), std::to_string(b)}});
        else if (fits.size() > 1)
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "bits ambiguous from shapes (%1..%2 pack alike) and no config: %3 assumed"),
                 {std::to_string(fits.front()), std::to_string(fits.back()), std::to_string(b)}});
    }
    w.bits = b;
    w.shape = {N, K};
    if (fits.empty() || N != p.shape[0]) {
        // Every decoder would read other words than the file holds for this shape.
        w.bits = cfgBits ? static_cast<int>(*cfgBits) : 0;
        refuseShape(w,
                    N != p.shape[0]
                        ? disagrees
                        : Message(QT_TRANSLATE_NOOP("qs::Message", "weight_packed %1 fits no bit width for K = %2"),
                                  {shapeText(p.shape), std::to_string(K)}));
        cx.finish(std::move(w));
        return true;
    }
    const auto& S = cx.tensor(is).shape;
    const uint64_t G = S.size() == 2 ? S[1] : 1;
    if (S.size() == 2 && S[0] == N && G == 1) {
        w.params[QT_TRANSLATE_NOOP("qs::Message", "strategy")] = QT_TRANSLATE_NOOP("qs::Message", "channel");
        w.groupSize = static_cast<int64_t>(K);
    } else if (S.size() == 2 && S[0] == N) {
        w.params["strategy"] = QT_TRANSLATE_NOOP("qs::Message", "group");
        const auto cg = jsonInt(wcfg.value(QStringLiteral("group_size")));
        w.groupSize = cg && *cg > 0 && ceilDiv(K, static_cast<uint64_t>(*cg)) == G
            ? *cg
            : (G && K % G == 0 ? static_cast<int64_t>(K / G) : 0);
        if (cg && *cg != w.groupSize)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config says group_size %1, weight_scale %2 gives %3"),
                               {std::to_string(*cg), shapeText(S), std::to_string(w.groupSize)}});
    } else {
        w.params["strategy"] = QT_TRANSLATE_NOOP("qs::Message", "tensor");
        w.groupSize = static_cast<int64_t>(K);
    }
    if (const QString st = wcfg.value(QStringLiteral("strategy")).toString();
        !st.isEmpty() && st.toStdString() != w.params["strategy"])
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config says strategy %1, weight_scale %2 is %3"),
                           {st.toStdString(), shapeText(S), w.params["strategy"]}});
    const int iz = w.member("weight_zero_point");
    w.symmetric = iz < 0;
    if (iz >= 0) {
        const TensorEntry& z = cx.tensor(iz);
        const bool packed = z.dtype == DType::I32 && z.shape.size() == 2 && b > 0
            && z.shape[0] == ctWordsFor(N, P / static_cast<uint64_t>(b));
        const bool unpacked = z.shape.size() == 2 && z.shape[0] == N;
        w.params[QT_TRANSLATE_NOOP("qs::Message", "zero_point_layout")] = packed
            ? QT_TRANSLATE_NOOP("qs::Message", "packed")
            : unpacked ? QT_TRANSLATE_NOOP("qs::Message", "unpacked")
                       : QT_TRANSLATE_NOOP("qs::Message", "unknown");
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "weight_zero_point %1 %2: asymmetric, %3"),
                              {std::string(dtypeName(z.dtype)), shapeText(z.shape), w.params["zero_point_layout"]}});
        if (!packed && !unpacked)
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "weight_zero_point %1 fits neither the packed nor the unpacked layout"),
                 {shapeText(z.shape)}});
    }
    if (const auto sym = jsonBool(wcfg.value(QStringLiteral("symmetric"))); sym && *sym != w.symmetric)
        w.notes.push_back(
            {iz < 0 ? QT_TRANSLATE_NOOP("qs::Message", "config says symmetric %1, but weight_zero_point is absent")
                    : QT_TRANSLATE_NOOP("qs::Message", "config says symmetric %1, but weight_zero_point is present"),
             {*sym ? "true" : "false"}});
    if (const QJsonValue ao = wcfg.value(QStringLiteral("actorder")); ao.isString())
        w.params[QT_TRANSLATE_NOOP("qs::Message", "actorder")] = ao.toString().toStdString();
    w.descAct = w.params.count("actorder") && (w.params["actorder"] == "group" || w.params["actorder"] == "dynamic");
    if (const int ig = w.member("weight_g_idx"); ig >= 0 && K)
        readGidx(cx, w, ig, K, w.groupSize, G);
    cx.finish(std::move(w));
    return true;
}

// FP8 / int8 weights with a scale beside them: block FP8, compressed-tensors float/int.
bool detectScaledWeight(Context& cx, const Group& g)
{
    const int iw = g.find("weight");
    // AMD Quark names its FP8 and int8 members as compressed-tensors does: its config tells them
    // apart (the plain row names Quark's weights).
    if (iw < 0 || cx.config().method() == "quark")
        return false;
    const TensorEntry& t = cx.tensor(iw);
    const int inv = g.find("weight_scale_inv"), is = g.find("weight_scale");
    LogicalWeight w;
    w.name = g.prefix;
    w.shape = t.shape;
    if (isFp8(t.dtype) && inv >= 0) {
        w.format = "fp8-block";
        cx.add(w, "weight", iw);
        cx.add(w, "weight_scale_inv", inv);
        const auto& S = cx.tensor(inv).shape;
        if (S.size() == 2 && t.shape.size() == 2 && S[0] && S[1]) {
            w.groupSize = static_cast<int64_t>(ceilDiv(t.shape[1], S[1]));
            w.params[QT_TRANSLATE_NOOP("qs::Message", "block")] =
                std::to_string(ceilDiv(t.shape[0], S[0])) + "x" + std::to_string(w.groupSize);
        }
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "weight %1 + weight_scale_inv %2"),
                              {std::string(dtypeName(t.dtype)), shapeText(S)}});
    } else if ((isFp8(t.dtype) || t.dtype == DType::I8) && is >= 0) {
        w.format = isFp8(t.dtype) ? "compressed-tensors-fp8" : "compressed-tensors-int";
        cx.add(w, "weight", iw);
        cx.add(w, "weight_scale", is);
        cx.add(w, "weight_zero_point", g.find("weight_zero_point"));
        cx.add(w, "input_scale", g.find("input_scale"));
        w.symmetric = w.member("weight_zero_point") < 0;
        const auto& S = cx.tensor(is).shape;
        w.params["strategy"] = S.size() == 2 && S[1] > 1 ? "group" : S.size() == 2 ? "channel" : "tensor";
        if (S.size() == 2 && S[1] > 1 && t.shape.size() == 2 && t.shape[1] % S[1] == 0)
            w.groupSize = static_cast<int64_t>(t.shape[1] / S[1]);
        else if (t.shape.size() == 2)
            w.groupSize = static_cast<int64_t>(t.shape[1]);
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "weight %1 + weight_scale %2"),
                              {std::string(dtypeName(t.dtype)), shapeText(S)}});
    } else {
        return false;
    }
    w.bits = 8;
    if (const auto grp = ctGroupFor(cx, g.prefix))
        if (const auto nb =
                jsonInt(grp->group.value(QStringLiteral("weights")).toObject().value(QStringLiteral("num_bits"))))
            w.bits = static_cast<int>(*nb);
    cx.finish(std::move(w));
    return true;
}

} // namespace

bool compressedTensorsGroup(Context& cx, const Group& g)
{
    return detectCtPacked(cx, g) || detectScaledWeight(cx, g);
}

void ctReadConfig(const Checkpoint&, QuantConfig& cfg)
{
    QJsonObject groups;
    std::string source, format;
    for (const auto& s : cfg.sources())
        if (const QJsonValue g = s.obj.value(QStringLiteral("config_groups")); g.isObject()) {
            groups = g.toObject();
            source = s.name;
            format = s.obj.value(QStringLiteral("format")).toString().toStdString();
            break;
        }
    auto part = std::make_shared<CtConfig>(cfg, std::move(groups), std::move(source), std::move(format));
    if (!part->empty())
        cfg.addPart(std::move(part));
}

} // namespace qs::detect
