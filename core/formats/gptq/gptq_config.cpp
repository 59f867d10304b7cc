// GPTQ's parts of the quantization config: AutoGPTQ's safetensors __metadata__ keys (gptq_bits,
// ...) as the lowest-priority source, and GPTQModel's per-module `dynamic` rules.
#include "formats/gptq/gptq.h"

#include "container/checkpoint.h"
#include "formats/detectutil.h"

#include <QJsonDocument>

namespace qs::detect {
namespace {

// GPTQModel's `dynamic`: regex keys matched from the start of the module name as re.match
// does, taken in the order a QJsonObject iterates them (sorted); "-:" skips the module, "+:" or
// no prefix gives overrides.
class GptqDynamic final : public ConfigPart {
public:
    explicit GptqDynamic(QJsonObject dynamic)
        : m_dynamic(std::move(dynamic))
    {
    }

    std::optional<Hit> moduleValue(const std::string& prefix, std::initializer_list<const char*> keys) const override
    {
        const QString name = QString::fromStdString(prefix);
        for (auto it = m_dynamic.begin(); it != m_dynamic.end(); ++it) {
            QString pat = it.key();
            if (pat.startsWith(QLatin1String("-:")) || !it.value().isObject())
                continue;
            if (pat.startsWith(QLatin1String("+:")))
                pat = pat.mid(2);
            if (!matchesFromStart(pat, name))
                continue;
            const QJsonObject o = it.value().toObject();
            for (const char* k : keys)
                if (o.contains(QLatin1String(k)))
                    return Hit{o.value(QLatin1String(k)), "dynamic[" + it.key().toStdString() + "]: " + k};
        }
        return std::nullopt;
    }

    // GPTQModel takes the first matching key, negative or positive.
    std::optional<ModuleEntry> moduleEntry(const std::string& prefix, bool) const override
    {
        const QString name = QString::fromStdString(prefix);
        for (auto it = m_dynamic.begin(); it != m_dynamic.end(); ++it) {
            QString pat = it.key();
            const bool skip = pat.startsWith(QLatin1String("-:"));
            if (skip || pat.startsWith(QLatin1String("+:")))
                pat = pat.mid(2);
            if (!matchesFromStart(pat, name))
                continue;
            const std::string key = it.key().toStdString();
            if (skip)
                return ModuleEntry{true, "dynamic[" + key + "] skips this module"};
            const QJsonDocument overrides(it.value().toObject());
            return ModuleEntry{false,
                               "dynamic[" + key + "]: " + overrides.toJson(QJsonDocument::Compact).toStdString()};
        }
        return std::nullopt;
    }

    EntryOrder entryOrder() const override { return EntryOrder::BeforeExclusions; }

private:
    QJsonObject m_dynamic;
};

} // namespace

void gptqReadConfig(const Checkpoint& ckpt, QuantConfig& cfg)
{
    QJsonObject meta;
    for (const auto& [k, v] : ckpt.metadata)
        if (k.starts_with("gptq_") && v.type == MetaValue::Type::String)
            meta.insert(QString::fromStdString(k.substr(5)), QString::fromStdString(std::get<std::string>(v.value)));
    if (!meta.isEmpty()) {
        if (meta.contains(QStringLiteral("groupsize")) && !meta.contains(QStringLiteral("group_size")))
            meta.insert(QStringLiteral("group_size"), meta.value(QStringLiteral("groupsize")));
        cfg.addSource("safetensors __metadata__ gptq_*", meta, true);
    }
    // The last source that carries one (the metadata's values are strings, never an object).
    QJsonObject dynamic;
    for (const auto& s : cfg.sources())
        if (const QJsonValue d = s.obj.value(QStringLiteral("dynamic")); d.isObject())
            dynamic = d.toObject();
    if (!dynamic.isEmpty())
        cfg.addPart(std::make_shared<GptqDynamic>(dynamic));
}

} // namespace qs::detect
