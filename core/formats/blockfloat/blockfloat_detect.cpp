// Detection of block-scaled float weights: gpt-oss MXFP4 experts (`<proj>_blocks` + `<proj>_scales`,
// one logical weight [E, out, in] each, the config's expert and hidden sizes cross-checked) and
// NVIDIA ModelOpt exports (NVFP4: U8 weight + F8_E4M3 weight_scale + weight_scale_2; FP8: F8 weight
// + weight_scale, claimed only when the config says ModelOpt, since compressed-tensors stores FP8
// alike), their quant_algo cross-checked between config.json and hf_quant_config.json.
#include "formats/blockfloat/blockfloat.h"

#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>

namespace qs::detect {
namespace {

constexpr const char* kHfQuantConfig = "hf_quant_config.json";

// transformers' mxfp4 quantizer converts a module unless an entry of modules_to_not_convert
// matches its name from the start as a regular expression (should_convert_module's re.match):
// "model.layers.*.self_attn" keeps every attention module plain.
class Mxfp4Config final : public ConfigPart {
public:
    void add(std::string source, QJsonArray entries) { m_lists.push_back({std::move(source), std::move(entries)}); }
    bool empty() const { return m_lists.empty(); }
    bool skipsModule(const std::string& prefix) const override { return excludedBy(prefix).has_value(); }
    std::optional<std::string> excludedBy(const std::string& prefix) const override
    {
        const QString name = QString::fromStdString(prefix);
        for (const auto& [source, entries] : m_lists)
            for (const QJsonValue e : entries)
                if (const QString entry = e.toString(); !entry.isEmpty() && matchesFromStart(entry, name))
                    return source + ": modules_to_not_convert lists " + entry.toStdString();
        return std::nullopt;
    }

private:
    std::vector<std::pair<std::string, QJsonArray>> m_lists;
};

// ModelOpt's two words on a checkpoint: config.json quantization_config (quant_method "modelopt",
// written by convert_hf_quant_config_format) and hf_quant_config.json's "quantization" object
// (what vLLM reads). Its exclude_modules are wildcard patterns.
class ModeloptConfig final : public ConfigPart {
public:
    std::string configAlgo, configSource; // config.json's quant_algo and where
    std::string hfAlgo; // hf_quant_config.json's quantization.quant_algo
    std::optional<int64_t> hfGroupSize;
    QJsonArray exclude;

    std::optional<std::string> excludedBy(const std::string& prefix) const override
    {
        const QString name = QString::fromStdString(prefix);
        for (const QJsonValue e : exclude) {
            const QString entry = e.toString();
            if (!entry.isEmpty()
                && QRegularExpression(QRegularExpression::wildcardToRegularExpression(entry)).match(name).hasMatch())
                return std::string(kHfQuantConfig) + ": exclude_modules lists " + entry.toStdString();
        }
        return std::nullopt;
    }
    // hf_quant_config.json alone names no quant_method.
    std::string method() const override { return "modelopt"; }
    // The algorithm the checkpoint says it holds: hf_quant_config.json's, else config.json's.
    const std::string& algo() const { return hfAlgo.empty() ? configAlgo : hfAlgo; }
};

// gpt-oss MoE experts: every `<proj>_blocks` with its `<proj>_scales` in the group.
bool detectMxfp4(Context& cx, const Group& g)
{
    bool any = false;
    const QJsonObject model = cx.checkpoint().config;
    const bool configured = cx.config().method() == "mxfp4";
    for (const auto& member : g.members) {
        const std::string& suffix = member.first; // a reference, not a structured binding: lambdas capture it
        if (!suffix.ends_with("_blocks"))
            continue;
        const std::string proj = suffix.substr(0, suffix.size() - 7);
        const int ib = static_cast<int>(member.second), is = g.find(proj + "_scales");
        if (is < 0 || cx.tensor(ib).dtype != DType::U8 || cx.tensor(is).dtype != DType::U8)
            continue;
        any = true;
        const TensorEntry& b = cx.tensor(ib);
        const TensorEntry& s = cx.tensor(is);
        LogicalWeight w;
        w.name = g.prefix + "." + proj;
        w.format = "hf-mxfp4";
        w.bits = 4;
        w.groupSize = 32;
        cx.add(w, "blocks", ib);
        cx.add(w, "scales", is);
        w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1 U8 %2 + %3 U8 %4 (MXFP4: E2M1 pairs, E8M0 per 32)"),
                              {suffix, shapeText(b.shape), proj + "_scales", shapeText(s.shape)}});
        if (configured)
            w.evidence.push_back(QT_TRANSLATE_NOOP("qs::Message", "config: quant_method mxfp4"));
        else
            w.notes.push_back(
                QT_TRANSLATE_NOOP("qs::Message", "no quant_method mxfp4 in the config: detected from member names"));
        const bool fits = b.shape.size() >= 3 && b.shape.back() == 16 && s.shape.size() + 1 == b.shape.size()
            && std::equal(s.shape.begin(), s.shape.end(), b.shape.begin());
        if (!fits) {
            refuseShape(
                w,
                {QT_TRANSLATE_NOOP("qs::Message", "%1 %2 and %3 %4 are not [..., N, K/32, 16] and [..., N, K/32]"),
                 {suffix, shapeText(b.shape), proj + "_scales", shapeText(s.shape)}});
            cx.finish(std::move(w));
            continue;
        }
        Shape shape(b.shape.begin(), b.shape.end() - 2);
        shape.push_back(mulChecked(b.shape[b.shape.size() - 2], 32).value_or(0));
        w.shape = shape;
        if (proj == "gate_up_proj")
            w.params[QT_TRANSLATE_NOOP("qs::Message", "rows")] =
                QT_TRANSLATE_NOOP("qs::Message", "gate and up interleaved as stored (gate 0::2, up 1::2)");
        // The config's sizes: experts [E, 2 * intermediate, hidden] for gate_up, [E, hidden, intermediate] for down.
        const auto expect = [&](const char* key, uint64_t got, uint64_t times) {
            const auto v = jsonInt(model.value(QLatin1String(key)));
            if (v && (*v < 0 || uint64_t(*v) * times != got))
                w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config.json says %1 = %2, %3 gives %4"),
                                   {key, std::to_string(*v), suffix, std::to_string(got / times)}});
        };
        const uint64_t K = shape.back(), N = shape[shape.size() - 2];
        if (shape.size() == 3)
            expect("num_local_experts", shape[0], 1);
        if (proj == "gate_up_proj") {
            expect("intermediate_size", N, 2);
            expect("hidden_size", K, 1);
        } else if (proj == "down_proj") {
            expect("hidden_size", N, 1);
            expect("intermediate_size", K, 1);
        }
        cx.finish(std::move(w));
    }
    return any;
}

bool detectModelopt(Context& cx, const Group& g)
{
    const int iw = g.find("weight"), is = g.find("weight_scale"), i2 = g.find("weight_scale_2");
    if (iw < 0 || is < 0)
        return false;
    const ModeloptConfig* mo = cx.config().part<ModeloptConfig>();
    const TensorEntry& t = cx.tensor(iw);
    const TensorEntry& sc = cx.tensor(is);
    const bool nvfp4 = t.dtype == DType::U8 && i2 >= 0 && t.shape.size() == 2;
    // FP8 per tensor (quant_algo FP8) or per channel [N, 1]: the scales compressed-tensors' FP8 rows read.
    const bool fp8 = t.dtype == DType::F8_E4M3 && mo && t.shape.size() == 2
        && (sc.elementCount() == 1 || (sc.shape.size() == 2 && sc.shape[0] == t.shape[0] && sc.shape[1] == 1));
    if (!nvfp4 && !fp8)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = nvfp4 ? "modelopt-nvfp4" : "modelopt-fp8";
    cx.add(w, "weight", iw);
    cx.add(w, "weight_scale", is);
    cx.add(w, "weight_scale_2", i2);
    cx.add(w, "input_scale", g.find("input_scale"));
    const std::string algo = nvfp4 ? "NVFP4" : "FP8";
    w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "weight %1 %2 + weight_scale %3 %4 (ModelOpt %5)"),
                          {std::string(dtypeName(t.dtype)), shapeText(t.shape), std::string(dtypeName(sc.dtype)),
                           shapeText(sc.shape), algo}});
    if (!mo) {
        w.notes.push_back(
            QT_TRANSLATE_NOOP("qs::Message", "no ModelOpt config: detected from weight_scale_2 and the dtypes"));
    } else {
        if (!mo->configAlgo.empty())
            w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1: quant_method modelopt, quant_algo %2"),
                                  {mo->configSource, mo->configAlgo}});
        if (!mo->hfAlgo.empty())
            w.evidence.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1: quant_algo %2"), {kHfQuantConfig, mo->hfAlgo}});
        if (!mo->hfAlgo.empty() && !mo->configAlgo.empty() && mo->hfAlgo != mo->configAlgo)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1 says quant_algo %2, %3 says %4"),
                               {kHfQuantConfig, mo->hfAlgo, mo->configSource, mo->configAlgo}});
        if (!mo->algo().empty() && mo->algo() != algo)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "the config says quant_algo %1, the tensors are %2"),
                               {mo->algo(), algo}});
    }
    if (nvfp4) {
        w.bits = 4;
        w.groupSize = 16;
        const uint64_t N = t.shape[0], K = mulChecked(t.shape[1], 2).value_or(0);
        w.shape = {N, K};
        if (mo && mo->hfGroupSize && *mo->hfGroupSize != 16)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1 says group_size %2, NVFP4 scales every 16"),
                               {kHfQuantConfig, std::to_string(*mo->hfGroupSize)}});
        if (sc.dtype != DType::F8_E4M3 || sc.shape.size() != 2 || sc.shape[0] != N || sc.shape[1] != ceilDiv(K, 16))
            refuseShape(w,
                        {QT_TRANSLATE_NOOP("qs::Message", "weight_scale %1 %2 is not F8_E4M3 [%3, %4]"),
                         {std::string(dtypeName(sc.dtype)), shapeText(sc.shape), std::to_string(N),
                          std::to_string(ceilDiv(K, 16))}});
    } else {
        w.bits = 8;
        w.shape = t.shape; // groupSize stays 0: one scale for the tensor (or the row)
        w.params[QT_TRANSLATE_NOOP("qs::Message", "strategy")] = sc.elementCount() == 1
            ? QT_TRANSLATE_NOOP("qs::Message", "tensor")
            : QT_TRANSLATE_NOOP("qs::Message", "channel");
    }
    if (mo)
        if (const auto why = mo->excludedBy(g.prefix))
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1, but the module holds quantized tensors"), {*why}});
    cx.finish(std::move(w));
    return true;
}

} // namespace

bool blockFloatGroup(Context& cx, const Group& g)
{
    return detectMxfp4(cx, g) || detectModelopt(cx, g);
}

void blockFloatReadConfig(const Checkpoint&, QuantConfig& cfg)
{
    auto mx = std::make_shared<Mxfp4Config>();
    auto mo = std::make_shared<ModeloptConfig>();
    bool modelopt = false;
    for (const auto& s : cfg.sources()) {
        const QString method = s.obj.value(QStringLiteral("quant_method")).toString().toLower();
        if (method == QLatin1String("mxfp4"))
            mx->add(s.name, s.obj.value(QStringLiteral("modules_to_not_convert")).toArray());
        if (method == QLatin1String("modelopt") && mo->configAlgo.empty()) {
            modelopt = true;
            mo->configAlgo = s.obj.value(QStringLiteral("quant_algo")).toString().toStdString();
            mo->configSource = s.name;
        }
        if (s.name == kHfQuantConfig) {
            const QJsonObject q = s.obj.value(QStringLiteral("quantization")).toObject();
            const QJsonObject producer = s.obj.value(QStringLiteral("producer")).toObject();
            modelopt = modelopt || producer.value(QStringLiteral("name")).toString() == QLatin1String("modelopt")
                || q.contains(QStringLiteral("quant_algo"));
            mo->hfAlgo = q.value(QStringLiteral("quant_algo")).toString().toStdString();
            mo->hfGroupSize = jsonInt(q.value(QStringLiteral("group_size")));
            mo->exclude = q.value(QStringLiteral("exclude_modules")).toArray();
        }
    }
    if (!mx->empty())
        cfg.addPart(std::move(mx));
    if (modelopt)
        cfg.addPart(std::move(mo));
}

} // namespace qs::detect
