// Detection of AQLM weights: codes with codebooks (and scales) under one module, the shape and
// the scheme from the tensors as aqlm reads them (its dequantizer takes the index width from
// the codebooks' length), the config's values cross-checked against them; and the config's
// linear_weights_not_to_quantize list, for the recipe.
#include "formats/aqlm/aqlm.h"

#include "base/intmath.h"
#include "container/checkpoint.h"
#include "formats/detectutil.h"

#include <QJsonArray>

#include <bit>

namespace qs::detect {
namespace {

// transformers' AQLM integration keeps a Linear unquantized when the list names its weight
// ("lm_head.weight"), not its module.
class AqlmKeptLinears final : public ConfigPart {
public:
    AqlmKeptLinears(std::string source, std::vector<std::string> weights)
        : m_source(std::move(source))
        , m_weights(std::move(weights))
    {
    }

    std::optional<std::string> excludedBy(const std::string& prefix) const override
    {
        for (const std::string& n : m_weights)
            if (n == prefix + ".weight")
                return m_source + ": linear_weights_not_to_quantize lists " + n;
        return std::nullopt;
    }

private:
    std::string m_source;
    std::vector<std::string> m_weights;
};

} // namespace

void aqlmReadConfig(const Checkpoint&, QuantConfig& cfg)
{
    for (const QuantConfig::Source& s : cfg.sources()) {
        const QJsonValue kept = s.obj.value(QStringLiteral("linear_weights_not_to_quantize"));
        if (s.obj.value(QStringLiteral("quant_method")).toString().toLower() != QStringLiteral("aqlm")
            || !kept.isArray())
            continue;
        std::vector<std::string> weights;
        for (const QJsonValue& v : kept.toArray())
            if (v.isString())
                weights.push_back(v.toString().toStdString());
        cfg.addPart(std::make_shared<AqlmKeptLinears>(s.name, std::move(weights)));
        return;
    }
}

bool aqlmGroup(Context& cx, const Group& g)
{
    const int ic = g.find("codes"), ib = g.find("codebooks");
    if (ic < 0 || ib < 0)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "aqlm";
    for (const char* role : {"codes", "codebooks", "scales"})
        cx.add(w, role, g.find(role));
    const Shape& c = cx.tensor(ic).shape;
    const Shape& b = cx.tensor(ib).shape;
    if (c.size() == 3 && b.size() == 4) {
        // codes [N/og, K/ig, M], codebooks [M, 2^bits, og, ig]
        const auto out = mulChecked(c[0], b[2]), in = mulChecked(c[1], b[3]);
        if (out && in)
            w.shape = {*out, *in};
        if (std::has_single_bit(b[1]))
            w.bits = std::countr_zero(b[1]);
        w.groupSize = int64_t(b[3]);
        w.params[QT_TRANSLATE_NOOP("qs::Message", "num_codebooks")] = std::to_string(b[0]);
        w.params[QT_TRANSLATE_NOOP("qs::Message", "out_group_size")] = std::to_string(b[2]);
        w.params[QT_TRANSLATE_NOOP("qs::Message", "in_group_size")] = std::to_string(b[3]);
        // The config against the tensors: aqlm builds its layers from the config, then loads
        // the tensors, which are what its dequantizer reads.
        const QuantConfig& cfg = cx.config();
        const std::pair<const char*, uint64_t> held[] = {
            {"nbits_per_codebook", b[1] ? uint64_t(std::bit_width(b[1])) - 1 : 0},
            {"num_codebooks", b[0]},
            {"out_group_size", b[2]},
            {"in_group_size", b[3]},
        };
        for (const auto& [key, value] : held)
            if (const auto v = cfg.intFor(w.name, {key}, &w); v && uint64_t(*v) != value)
                w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "config says %1 = %2, the AQLM tensors hold %3"),
                                   {key, std::to_string(*v), std::to_string(value)}});
    } else {
        w.notes.push_back(
            {QT_TRANSLATE_NOOP(
                 "qs::Message",
                 "AQLM codes and codebooks have %1 and %2 dimensions, not 3 and 4: logical shape unknown"),
             {std::to_string(c.size()), std::to_string(b.size())}});
    }
    if (const std::string m = cx.config().method(); !m.empty() && m != "aqlm")
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "config says quant_method %1, but the tensors are AQLM codes and codebooks"),
             {m}});
    w.evidence.push_back(QT_TRANSLATE_NOOP("qs::Message", "codes + codebooks + scales (AQLM)"));
    cx.finish(std::move(w));
    return true;
}

} // namespace qs::detect
