#include "snapshot.h"

#include "qtext.h"

#include "container/checkpoint.h"
#include "container/ggmltype.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <map>
#include <set>

namespace qsw {

namespace {

QVector<uint64_t> toVector(const std::vector<uint64_t>& v)
{
    return QVector<uint64_t>(v.begin(), v.end());
}

} // namespace

QString jsonText(const QJsonValue& v)
{
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest);
    if (v.isNull())
        return QStringLiteral("null");
    return v.toString();
}

QString jsonType(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Bool: return QStringLiteral("bool");
    case QJsonValue::Double: return QStringLiteral("number");
    case QJsonValue::String: return QStringLiteral("string");
    case QJsonValue::Array: return QStringLiteral("array");
    case QJsonValue::Object: return QStringLiteral("object");
    default: return QStringLiteral("null");
    }
}

QString layerOf(const QString& name)
{
    static const QRegularExpression re(QStringLiteral("^(.*?\\b(?:layers|blk|h|blocks|block)\\.\\d+)(?:\\.|$)"));
    const auto m = re.match(name);
    return m.hasMatch() ? m.captured(1) : QString();
}

QString shapeText(const QVector<uint64_t>& shape)
{
    QStringList parts;
    for (uint64_t d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
}

QString shownText(const QString& text, int max)
{
    if (text.size() <= max)
        return text;
    const int half = std::max(1, max / 2 - 16);
    const int length = int(
        std::min<qsizetype>(text.size(), INT_MAX)); // outside translate(): lupdate hangs on the template argument there
    return text.left(half) + QCoreApplication::translate("qsw::shownText", "…(%n characters)…", nullptr, length)
        + text.right(half);
}

namespace {

WeightRow makeWeightRow(const CheckpointSnapshot& s, qsizetype i)
{
    const qs::Checkpoint& ckpt = *s.checkpoint;
    const qs::LogicalWeight& w = ckpt.weights[size_t(i)];
    WeightRow r;
    r.name = qtext(w.name);
    r.layer = r.name.left(s.layerLength[size_t(i)]);
    r.format = qtext(w.format);
    r.shape = toVector(w.shape);
    r.bits = w.bits;
    r.groupSize = w.groupSize;
    r.symmetric = w.symmetric;
    r.descAct = w.descAct;
    r.actOrder = w.actOrder;
    r.bitsPerWeight = w.bitsPerWeight();
    r.storedBytes = w.storedBytes;
    r.elements = w.elementCount();
    for (const auto& [role, idx] : w.members) {
        if (idx >= ckpt.tensors.size())
            continue;
        const qs::TensorEntry& t = ckpt.tensors[idx];
        r.members.push_back({qtext(role), qtext(t.name),
                             qtext(t.typeName.empty() ? qs::dtypeName(t.dtype) : t.typeName),
                             shapeText(toVector(t.shape)), t.nbytes, int(idx)});
    }
    for (const auto& [k, v] : w.params)
        r.params.push_back({qword(k), qword(v)});
    for (const auto& e : w.evidence)
        r.evidence << qtext(e);
    for (const auto& n : w.notes)
        r.notes << qtext(n);
    return r;
}

TensorRow makeTensorRow(const CheckpointSnapshot& s, qsizetype i)
{
    const qs::Checkpoint& ckpt = *s.checkpoint;
    const qs::TensorEntry& t = ckpt.tensors[size_t(i)];
    TensorRow r;
    r.name = qtext(t.name);
    r.type = qtext(t.typeName.empty() ? qs::dtypeName(t.dtype) : t.typeName);
    r.shape = toVector(t.shape);
    r.file = int(t.file);
    r.offset = t.offset;
    r.bytes = t.nbytes;
    r.known = t.known;
    r.note = qtext(t.note);
    r.weight = s.tensorWeight[size_t(i)];
    if (r.weight >= 0)
        r.role = qtext(ckpt.weights[size_t(r.weight)].members[size_t(s.tensorMember[size_t(i)])].first);
    return r;
}

MetaRow makeMetaRow(const CheckpointSnapshot& s, qsizetype i)
{
    const qs::Checkpoint& ckpt = *s.checkpoint;
    if (size_t(i) >= ckpt.metadata.size()) {
        // The configs' keys, after the container's records: config.json's, then the quantize config's.
        qsizetype k = i - qsizetype(ckpt.metadata.size());
        const bool own = k < ckpt.config.size();
        const QJsonObject& o = own ? ckpt.config : ckpt.quantizeConfig;
        if (!own)
            k -= ckpt.config.size();
        const auto it = o.constBegin() + k;
        return {it.key(),
                jsonType(it.value()),
                jsonText(it.value()),
                own ? QStringLiteral("config.json") : QFileInfo(qtext(ckpt.quantizeConfigFile)).fileName(),
                it.value(),
                -1};
    }
    const auto& [key, value] = ckpt.metadata[size_t(i)];
    MetaRow row{
        qtext(key), qtext(std::string(qs::metaTypeName(value.type))), qtext(value.toDisplayString(16)), s.container, {},
        int(i)};
    // general.file_type by its llama.cpp name, as inspect prints it.
    if (key == "general.file_type")
        if (const auto fileType = qs::ggufFileType(ckpt))
            row.value = QStringLiteral("%1 (%2)").arg(qtext(qs::llamaFileTypeName(uint32_t(*fileType)))).arg(*fileType);
    return row;
}

qsizetype configRowCount(const qs::Checkpoint& ckpt)
{
    return qsizetype(ckpt.config.size())
        + (ckpt.quantizeConfigFile.empty() ? 0 : qsizetype(ckpt.quantizeConfig.size()));
}

} // namespace

std::shared_ptr<const CheckpointSnapshot> CheckpointSnapshot::fromCheckpoint(const qs::Checkpoint& ckpt)
{
    return fromCheckpoint(std::make_shared<const qs::Checkpoint>(ckpt));
}

std::shared_ptr<const CheckpointSnapshot> CheckpointSnapshot::fromCheckpoint(std::shared_ptr<const qs::Checkpoint> held)
{
    auto s = std::make_shared<CheckpointSnapshot>();
    const qs::Checkpoint& ckpt = *held;
    s->checkpoint = std::move(held);
    s->path = qtext(ckpt.path);
    s->container = qtext(std::string(qs::containerName(ckpt.container)));
    s->ggufVersion = ckpt.ggufVersion;
    for (size_t i = 0; i < ckpt.files.size(); ++i) {
        s->files << qtext(ckpt.files[i]);
        s->mappedBytes += ckpt.mappedFile(uint32_t(i)).size();
    }
    s->diskBytes = s->mappedBytes;
    // Configs live beside the data files; count each once.
    std::set<QString> dirs;
    for (const auto& f : s->files)
        dirs.insert(QFileInfo(f).absolutePath());
    for (const auto& dir : dirs)
        for (const char* name : {"config.json", "quantize_config.json", "quant_config.json",
                                 "model.safetensors.index.json", "pytorch_model.bin.index.json"}) {
            const QFileInfo fi(dir + QLatin1Char('/') + QLatin1String(name));
            if (fi.isFile())
                s->diskBytes += uint64_t(fi.size());
        }

    // Which weight each tensor belongs to (the first that lists it), and its role there.
    s->tensorWeight.assign(ckpt.tensors.size(), -1);
    s->tensorMember.assign(ckpt.tensors.size(), -1);
    for (size_t w = 0; w < ckpt.weights.size(); ++w) {
        const auto& members = ckpt.weights[w].members;
        for (size_t m = 0; m < members.size(); ++m) {
            const size_t idx = members[m].second;
            if (idx < ckpt.tensors.size() && s->tensorWeight[idx] < 0) {
                s->tensorWeight[idx] = int(w);
                s->tensorMember[idx] = int(m);
            }
        }
    }
    // The totals the views show.
    std::map<std::string, size_t> formatIndex;
    for (const auto& w : ckpt.weights) {
        s->parameters += w.elementCount();
        const auto [it, fresh] = formatIndex.try_emplace(w.format, size_t(s->formats.size()));
        if (fresh)
            s->formats.push_back({qtext(w.format), 0, 0});
        s->formats[qsizetype(it->second)].weights += 1;
        s->formats[qsizetype(it->second)].bytes += w.storedBytes;
    }
    std::sort(s->formats.begin(), s->formats.end(),
              [](const FormatTally& a, const FormatTally& b) { return a.format < b.format; });
    for (size_t t = 0; t < ckpt.tensors.size(); ++t) {
        s->storedBytes += ckpt.tensors[t].nbytes;
        if (s->tensorWeight[t] < 0)
            s->parameters += ckpt.tensors[t].elementCount();
    }

    // The browser's groups by layer prefix, in first-seen order.
    s->layerLength.assign(ckpt.weights.size(), 0);
    WeightGroups& g = s->groups;
    g.groupOf.assign(ckpt.weights.size(), -1);
    g.rowInGroup.assign(ckpt.weights.size(), 0);
    {
        qs::StringIndex layers(ckpt.weights.size());
        std::vector<std::string> layerName; // per group (empty: a weight alone)
        std::vector<std::vector<int>> grouped; // weights per group, then laid out flat
        std::vector<std::string> formatsOf; // per group, comma separated
        const auto nameAt = [&](size_t k) -> const std::string& { return layerName[k]; };
        for (size_t w = 0; w < ckpt.weights.size(); ++w) {
            const qs::LogicalWeight& lw = ckpt.weights[w];
            const QString layerText = layerOf(qtext(lw.name));
            s->layerLength[w] = int(layerText.size());
            size_t gi;
            if (layerText.isEmpty()) {
                gi = g.groups.size();
                layerName.emplace_back();
                g.groups.push_back({});
                grouped.emplace_back();
                formatsOf.emplace_back();
            } else {
                std::string layer = layerText.toStdString();
                gi = layers.findOrInsert(layer, g.groups.size(), nameAt);
                if (gi == qs::StringIndex::npos) {
                    gi = g.groups.size();
                    layerName.push_back(std::move(layer));
                    g.groups.push_back({});
                    g.groups.back().nameLength = s->layerLength[w];
                    grouped.emplace_back();
                    formatsOf.emplace_back();
                }
            }
            WeightGroup& group = g.groups[gi];
            g.groupOf[w] = int(gi);
            g.rowInGroup[w] = int(grouped[gi].size());
            grouped[gi].push_back(int(w));
            group.bytes += lw.storedBytes;
            group.elements += lw.elementCount();
            group.withNotes += !lw.notes.empty();
            std::string& formats = formatsOf[gi];
            bool listed = false;
            for (size_t at = 0; at <= formats.size() && !formats.empty();) {
                const size_t end = std::min(formats.find(", ", at), formats.size());
                if (std::string_view(formats).substr(at, end - at) == lw.format) {
                    listed = true;
                    break;
                }
                at = end + 2;
            }
            if (!listed && !lw.format.empty())
                formats += (formats.empty() ? "" : ", ") + lw.format;
        }
        std::map<std::string, int> formatLists;
        for (size_t gi = 0; gi < g.groups.size(); ++gi) {
            WeightGroup& group = g.groups[gi];
            group.first = int(g.groupWeights.size());
            group.count = int(grouped[gi].size());
            g.groupWeights.insert(g.groupWeights.end(), grouped[gi].begin(), grouped[gi].end());
            grouped[gi] = {};
            const auto [it, fresh] = formatLists.try_emplace(formatsOf[gi], int(g.formatLists.size()));
            if (fresh)
                g.formatLists << qtext(formatsOf[gi]);
            group.formats = it->second;
        }
    }
    const auto weightNameAt = [&](size_t k) -> const std::string& { return ckpt.weights[k].name; };
    s->m_weightNames.reserve(ckpt.weights.size());
    for (size_t w = 0; w < ckpt.weights.size(); ++w)
        s->m_weightNames.findOrInsert(ckpt.weights[w].name, w, weightNameAt); // the first of a name is found

    s->weights.set(s.get(), qsizetype(ckpt.weights.size()), makeWeightRow);
    s->tensors.set(s.get(), qsizetype(ckpt.tensors.size()), makeTensorRow);
    s->metadata.set(s.get(), qsizetype(ckpt.metadata.size()) + configRowCount(ckpt), makeMetaRow);
    for (const auto& n : ckpt.notes)
        s->notes << qtext(n);
    s->openedAs = qtext(ckpt.openedAs);
    for (const auto& f : ckpt.leftOut)
        s->leftOut << qtext(f);
    return s;
}

int CheckpointSnapshot::findWeight(const QString& nameOrMember) const
{
    if (!checkpoint)
        return -1;
    const std::string name = nameOrMember.toStdString();
    const auto weightNameAt = [this](size_t k) -> const std::string& { return checkpoint->weights[k].name; };
    if (const size_t w = m_weightNames.find(name, weightNameAt); w != qs::StringIndex::npos)
        return int(w);
    const int t = checkpoint->indexOf(name);
    return t >= 0 ? tensorWeight[size_t(t)] : -1;
}

QString CheckpointSnapshot::weightName(int weight) const
{
    return weight >= 0 && size_t(weight) < checkpoint->weights.size() ? qtext(checkpoint->weights[size_t(weight)].name)
                                                                      : QString();
}

QString CheckpointSnapshot::tensorName(int tensor) const
{
    return tensor >= 0 && size_t(tensor) < checkpoint->tensors.size() ? qtext(checkpoint->tensors[size_t(tensor)].name)
                                                                      : QString();
}

} // namespace qsw
