#include "snapshot.h"

#include "qtext.h"

#include "container/checkpoint.h"
#include "container/ggmltype.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRegularExpression>

#include <set>

namespace qsw {

namespace {

QVector<uint64_t> toVector(const std::vector<uint64_t>& v)
{
    return QVector<uint64_t>(v.begin(), v.end());
}

void addJson(QVector<MetaRow>& rows, const QJsonObject& obj, const QString& source)
{
    for (auto it = obj.begin(); it != obj.end(); ++it)
        rows.push_back({it.key(), jsonType(it.value()), jsonText(it.value()), source, it.value(), -1});
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

std::shared_ptr<const CheckpointSnapshot> CheckpointSnapshot::fromCheckpoint(const qs::Checkpoint& ckpt)
{
    auto s = std::make_shared<CheckpointSnapshot>();
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
        for (const char* name : {"config.json", "quantize_config.json", "quant_config.json", "model.safetensors.index.json"}) {
            const QFileInfo fi(dir + QLatin1Char('/') + QLatin1String(name));
            if (fi.isFile())
                s->diskBytes += uint64_t(fi.size());
        }

    s->tensors.reserve(qsizetype(ckpt.tensors.size()));
    for (const auto& t : ckpt.tensors) {
        TensorRow r;
        r.name = qtext(t.name);
        r.type = qtext(t.typeName.empty() ? std::string(qs::dtypeName(t.dtype)) : t.typeName);
        r.shape = toVector(t.shape);
        r.file = int(t.file);
        r.offset = t.offset;
        r.bytes = t.nbytes;
        r.known = t.known;
        r.note = qtext(t.note);
        s->tensors.push_back(std::move(r));
    }

    s->weights.reserve(qsizetype(ckpt.weights.size()));
    for (const auto& w : ckpt.weights) {
        WeightRow r;
        r.name = qtext(w.name);
        r.layer = layerOf(r.name);
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
        const int weightIndex = int(s->weights.size());
        for (const auto& [role, idx] : w.members) {
            if (idx >= ckpt.tensors.size())
                continue;
            const auto& t = ckpt.tensors[idx];
            auto& tr = s->tensors[qsizetype(idx)];
            r.members.push_back({qtext(role), tr.name, tr.type, shapeText(tr.shape), t.nbytes, int(idx)});
            tr.weight = weightIndex;
            tr.role = qtext(role);
        }
        for (const auto& [k, v] : w.params)
            r.params.push_back({qword(k), qword(v)});
        for (const auto& e : w.evidence)
            r.evidence << qtext(e);
        for (const auto& n : w.notes)
            r.notes << qtext(n);
        s->weights.push_back(std::move(r));
    }

    const auto fileType = qs::ggufFileType(ckpt);
    for (size_t i = 0; i < ckpt.metadata.size(); ++i) {
        const auto& [key, value] = ckpt.metadata[i];
        MetaRow row{qtext(key), qtext(std::string(qs::metaTypeName(value.type))), qtext(value.toDisplayString(16)), s->container, {}, int(i)};
        // general.file_type by its llama.cpp name, as inspect prints it.
        if (fileType && key == "general.file_type")
            row.value = QStringLiteral("%1 (%2)").arg(qtext(qs::llamaFileTypeName(uint32_t(*fileType)))).arg(*fileType);
        s->metadata.push_back(std::move(row));
    }
    addJson(s->metadata, ckpt.config, QStringLiteral("config.json"));
    if (!ckpt.quantizeConfigFile.empty())
        addJson(s->metadata, ckpt.quantizeConfig, QFileInfo(qtext(ckpt.quantizeConfigFile)).fileName());
    for (const auto& n : ckpt.notes)
        s->notes << qtext(n);
    s->openedAs = qtext(ckpt.openedAs);
    for (const auto& f : ckpt.leftOut)
        s->leftOut << qtext(f);
    return s;
}

int CheckpointSnapshot::findWeight(const QString& nameOrMember) const
{
    for (qsizetype i = 0; i < weights.size(); ++i)
        if (weights[i].name == nameOrMember)
            return int(i);
    for (qsizetype i = 0; i < weights.size(); ++i)
        for (const auto& m : weights[i].members)
            if (m.tensor == nameOrMember)
                return int(i);
    return -1;
}

} // namespace qsw
