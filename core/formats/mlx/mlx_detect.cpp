// Detection of MLX quantized weights: a U32 weight with scales (and biases for affine mode),
// bits and group size from the config's quantization entries, else inferred from the shapes.
#include "formats/mlx/mlx.h"

#include "base/intmath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

#include <QJsonDocument>

#include <algorithm>

namespace qs::detect {
namespace {

// MLX's config: config.json "quantization" holds the global bits and group size and, keyed by
// module path, a module's own entry (an object of overrides, or false: left unquantized).
class MlxConfig final : public ConfigPart {
public:
    explicit MlxConfig(QJsonObject quantization)
        : m_quantization(std::move(quantization))
    {
    }

    std::optional<Hit> moduleValue(const std::string& prefix, std::initializer_list<const char*> keys) const override
    {
        const QJsonValue m = m_quantization.value(QString::fromStdString(prefix));
        if (m.isObject())
            for (const char* k : keys)
                if (m.toObject().contains(QLatin1String(k)))
                    return Hit{m.toObject().value(QLatin1String(k)), "config.json quantization[" + prefix + "]: " + k};
        return std::nullopt;
    }

    bool skipsModule(const std::string& prefix) const override
    {
        const QJsonValue m = m_quantization.value(QString::fromStdString(prefix));
        return m.isBool() && !m.toBool();
    }

    std::optional<ModuleEntry> moduleEntry(const std::string& prefix, bool) const override
    {
        const QJsonValue m = m_quantization.value(QString::fromStdString(prefix));
        if (m.isBool() && !m.toBool())
            return ModuleEntry{true, "config.json quantization[" + prefix + "] = false"};
        if (m.isObject())
            return ModuleEntry{false,
                               "config.json quantization[" + prefix
                                   + "]: " + QJsonDocument(m.toObject()).toJson(QJsonDocument::Compact).toStdString()};
        return std::nullopt;
    }

    std::string method() const override { return "mlx"; }

private:
    QJsonObject m_quantization;
};

} // namespace

void mlxReadConfig(const Checkpoint& ckpt, QuantConfig& cfg)
{
    const QJsonValue q = ckpt.config.value(QStringLiteral("quantization"));
    if (!q.isObject())
        return;
    cfg.addSource("config.json quantization", q.toObject());
    if (!q.toObject().isEmpty())
        cfg.addPart(std::make_shared<MlxConfig>(q.toObject()));
}

bool mlxGroup(Context& cx, const Group& g)
{
    const int iw = g.find("weight"), is = g.find("scales"), ib = g.find("biases");
    if (iw < 0 || is < 0 || cx.tensor(iw).dtype != DType::U32 || cx.tensor(iw).shape.size() < 2
        || cx.tensor(is).shape.size() != cx.tensor(iw).shape.size())
        return false;
    const auto& W = cx.tensor(iw).shape;
    const auto& S = cx.tensor(is).shape;
    if (!std::equal(W.begin(), W.end() - 1, S.begin()))
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    cx.add(w, "weight", iw);
    cx.add(w, "scales", is);
    cx.add(w, "biases", ib);
    std::string mode = cx.config().strFor(g.prefix, {"mode"}, nullptr).value_or("affine");
    if (ib < 0 && mode == "affine")
        mode = "mxfp4";
    const uint64_t Wc = W.back(), Sc = S.back();
    auto b = cx.config().intFor(g.prefix, {"bits"}, &w);
    auto gs = cx.config().intFor(g.prefix, {"group_size"}, &w);
    if (mode != "affine") {
        w.format = "mlx-" + mode;
        b = b.value_or(mode == "mxfp8" ? 8 : 4);
        gs = gs.value_or(mode == "nvfp4" ? 16 : 32);
    } else {
        w.format = "mlx-affine";
        w.symmetric = false;
        if (ib >= 0 && cx.tensor(ib).shape != S)
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "biases %1 differ from scales %2"),
                               {shapeText(cx.tensor(ib).shape), shapeText(S)}});
    }
    // 32 * Wc = b * K and Sc * g = K: b * g = 32 * Wc / Sc. (Wc and Sc come from shapes that
    // may hold a 0 elsewhere: a product that overflows fits nothing.)
    const uint64_t wordBits = mulChecked(Wc, 32).value_or(0);
    const auto fits = [&](int64_t bb, int64_t gg) {
        return bb > 0 && gg > 0 && wordBits % static_cast<uint64_t>(bb) == 0
            && mulChecked(Sc, static_cast<uint64_t>(gg)) == wordBits / static_cast<uint64_t>(bb);
    };
    if (!(b && gs && fits(*b, *gs))) {
        if (b && gs)
            w.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message", "config bits %1 / group_size %2 do not fit weight %3 and scales %4"),
                 {std::to_string(*b), std::to_string(*gs), shapeText(W), shapeText(S)}});
        std::optional<std::pair<int64_t, int64_t>> found;
        for (int64_t gg : {gs.value_or(64), int64_t(64), int64_t(32), int64_t(128)}) {
            for (int64_t bb : {b.value_or(4), int64_t(4), int64_t(8), int64_t(2), int64_t(3), int64_t(6), int64_t(5)})
                if (fits(bb, gg)) {
                    found = std::make_pair(bb, gg);
                    break;
                }
            if (found)
                break;
        }
        if (found) {
            if (!(b && gs))
                w.notes.push_back(
                    {QT_TRANSLATE_NOOP("qs::Message",
                                       "no MLX quantization config for this module: bits %1 and group_size %2 "
                                       "inferred from shapes (ambiguous: only bits x group_size is fixed)"),
                     {std::to_string(found->first), std::to_string(found->second)}});
            b = found->first;
            gs = found->second;
        }
    }
    w.bits = static_cast<int>(b.value_or(0));
    w.groupSize = gs.value_or(0);
    w.shape.assign(W.begin(), W.end() - 1);
    w.shape.push_back(w.bits > 0 ? mulChecked(Wc, 32).value_or(UINT64_MAX) / static_cast<uint64_t>(w.bits) : 0);
    w.params[QT_TRANSLATE_NOOP("qs::Message", "mode")] = mode;
    w.evidence.push_back({ib >= 0 ? QT_TRANSLATE_NOOP("qs::Message", "weight U32 %1 + scales %2 + biases (MLX)")
                                  : QT_TRANSLATE_NOOP("qs::Message", "weight U32 %1 + scales %2 (MLX)"),
                          {shapeText(W), shapeText(S)}});
    cx.finish(std::move(w));
    return true;
}

} // namespace qs::detect
