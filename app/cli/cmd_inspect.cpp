// quantscope-cli inspect PATH [--json]: the container, its metadata, every stored tensor
// and every logical weight with its format and effective bits per weight.
#include "commands.h"

#include "analysis/recipe.h"
#include "base/localpath.h"
#include "base/shapetext.h"
#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "formats/detect.h"
#include "formats/opencheckpoint.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace qscli {

QJsonArray shapeJson(const std::vector<uint64_t>& shape)
{
    QJsonArray a;
    for (uint64_t d : shape)
        a.append(static_cast<qint64>(d));
    return a;
}
namespace {

// Arrays in metadata (a tokenizer's 150k strings) are cut to this many items in both outputs.
constexpr size_t kTableItems = 8;
constexpr size_t kJsonItems = 16;

std::string tensorType(const qs::TensorEntry& t)
{
    return t.dtype == qs::DType::Ggml ? t.typeName : std::string(qs::dtypeName(t.dtype));
}


QJsonValue scalarJson(const qs::MetaValue& v)
{
    return std::visit(
        [&](const auto& x) -> QJsonValue {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, uint64_t>) {
                // Beyond 2^63 a JSON number would lose digits: such values are written as strings.
                if (x > static_cast<uint64_t>(std::numeric_limits<qint64>::max()))
                    return QString::number(x);
                return static_cast<qint64>(x);
            } else if constexpr (std::is_same_v<T, int64_t>) {
                return static_cast<qint64>(x);
            } else if constexpr (std::is_same_v<T, double>) {
                return x;
            } else if constexpr (std::is_same_v<T, bool>) {
                return x;
            } else if constexpr (std::is_same_v<T, std::string>) {
                return QString::fromStdString(x);
            } else {
                QJsonArray a;
                for (size_t i = 0; i < x.size() && i < kJsonItems; ++i)
                    a.append(x[i].type == qs::MetaValue::Type::Array ? QJsonValue(QStringLiteral("[array]")) : scalarJson(x[i]));
                return a;
            }
        },
        v.value);
}

QJsonObject metaJson(const std::string& key, const qs::MetaValue& v)
{
    QJsonObject o;
    o[QStringLiteral("key")] = QString::fromStdString(key);
    o[QStringLiteral("type")] = QString::fromUtf8(qs::metaTypeName(v.type).data(), qsizetype(qs::metaTypeName(v.type).size()));
    if (v.type == qs::MetaValue::Type::Array) {
        const auto& items = std::get<std::vector<qs::MetaValue>>(v.value);
        const auto et = qs::metaTypeName(v.arrayType);
        o[QStringLiteral("element_type")] = QString::fromUtf8(et.data(), qsizetype(et.size()));
        o[QStringLiteral("count")] = static_cast<qint64>(items.size());
        o[QStringLiteral("items")] = scalarJson(v);
        o[QStringLiteral("truncated")] = items.size() > kJsonItems;
    } else {
        o[QStringLiteral("value")] = scalarJson(v);
    }
    return o;
}

QJsonObject bitsJson(const qs::BitsSummary& s)
{
    QJsonObject o;
    o[QStringLiteral("weights")] = static_cast<qint64>(s.weights);
    o[QStringLiteral("stored_bytes")] = static_cast<qint64>(s.storedBytes);
    o[QStringLiteral("elements")] = static_cast<qint64>(s.elements);
    o[QStringLiteral("bpw")] = s.bitsPerWeight();
    return o;
}

QJsonArray stringsJson(const std::vector<std::string>& v)
{
    QJsonArray a;
    for (const auto& s : v)
        a.append(QString::fromStdString(s));
    return a;
}

QJsonArray stringsJson(const std::vector<qs::Message>& v)
{
    QJsonArray a;
    for (const auto& m : v)
        a.append(QString::fromStdString(m.text()));
    return a;
}

QByteArray toJson(const qs::Checkpoint& c)
{
    QJsonObject root;
    root[QStringLiteral("path")] = QString::fromStdString(c.path);
    const auto cn = qs::containerName(c.container);
    root[QStringLiteral("container")] = QString::fromUtf8(cn.data(), qsizetype(cn.size()));
    root[QStringLiteral("files")] = stringsJson(c.files);
    if (!c.openedAs.empty()) {
        root[QStringLiteral("opened_as")] = QString::fromStdString(c.openedAs);
        root[QStringLiteral("left_out")] = stringsJson(c.leftOut);
    }
    if (c.container == qs::Container::Gguf) {
        root[QStringLiteral("gguf_version")] = c.ggufVersion;
        root[QStringLiteral("alignment")] = static_cast<qint64>(c.ggufAlignment);
        if (const auto ft = qs::ggufFileType(c)) {
            QJsonObject o;
            o[QStringLiteral("value")] = static_cast<qint64>(*ft);
            o[QStringLiteral("name")] = QString::fromStdString(qs::llamaFileTypeName(static_cast<uint32_t>(*ft)));
            root[QStringLiteral("file_type")] = o;
        }
    }
    QJsonArray meta;
    for (const auto& [k, v] : c.metadata)
        meta.append(metaJson(k, v));
    root[QStringLiteral("metadata")] = meta;
    if (!c.config.isEmpty())
        root[QStringLiteral("config")] = c.config;
    if (!c.quantizeConfig.isEmpty()) {
        root[QStringLiteral("quantize_config")] = c.quantizeConfig;
        root[QStringLiteral("quantize_config_file")] = QString::fromStdString(c.quantizeConfigFile);
    }
    QJsonArray tensors;
    for (const auto& t : c.tensors) {
        QJsonObject o;
        o[QStringLiteral("name")] = QString::fromStdString(t.name);
        o[QStringLiteral("dtype")] = QString::fromStdString(tensorType(t));
        if (t.dtype == qs::DType::Ggml)
            o[QStringLiteral("ggml_type")] = t.ggmlType;
        o[QStringLiteral("shape")] = shapeJson(t.shape);
        o[QStringLiteral("file")] = static_cast<qint64>(t.file);
        o[QStringLiteral("offset")] = static_cast<qint64>(t.offset);
        o[QStringLiteral("bytes")] = static_cast<qint64>(t.nbytes);
        o[QStringLiteral("known")] = t.known;
        if (!t.note.empty())
            o[QStringLiteral("note")] = QString::fromStdString(t.note.text());
        tensors.append(o);
    }
    root[QStringLiteral("tensors")] = tensors;
    QJsonArray weights;
    for (const auto& w : c.weights) {
        QJsonObject o;
        o[QStringLiteral("name")] = QString::fromStdString(w.name);
        o[QStringLiteral("format")] = QString::fromStdString(w.format);
        o[QStringLiteral("bits")] = w.bits;
        o[QStringLiteral("group_size")] = static_cast<qint64>(w.groupSize);
        o[QStringLiteral("symmetric")] = w.symmetric;
        o[QStringLiteral("desc_act")] = w.descAct;
        o[QStringLiteral("act_order")] = w.actOrder;
        o[QStringLiteral("shape")] = shapeJson(w.shape);
        QJsonArray members;
        for (const auto& [role, idx] : w.members) {
            QJsonObject m;
            m[QStringLiteral("role")] = QString::fromStdString(role);
            m[QStringLiteral("tensor")] = QString::fromStdString(c.tensors[idx].name);
            m[QStringLiteral("bytes")] = static_cast<qint64>(c.tensors[idx].nbytes);
            members.append(m);
        }
        o[QStringLiteral("members")] = members;
        o[QStringLiteral("stored_bytes")] = static_cast<qint64>(w.storedBytes);
        o[QStringLiteral("elements")] = static_cast<qint64>(w.elementCount());
        o[QStringLiteral("bpw")] = w.bitsPerWeight();
        QJsonObject params;
        for (const auto& [k, v] : w.params)
            params[QString::fromStdString(k)] = QString::fromStdString(v);
        o[QStringLiteral("params")] = params;
        o[QStringLiteral("evidence")] = stringsJson(w.evidence);
        o[QStringLiteral("notes")] = stringsJson(w.notes);
        weights.append(o);
    }
    root[QStringLiteral("weights")] = weights;
    QJsonObject totals = bitsJson(qs::summarizeBits(c.weights));
    totals[QStringLiteral("quantized")] = bitsJson(qs::summarizeBits(c.weights, true));
    root[QStringLiteral("totals")] = totals;
    root[QStringLiteral("notes")] = stringsJson(c.notes);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

std::string toText(const qs::Checkpoint& c)
{
    std::string out;
    out += "Path:       " + c.path + "\n";
    out += "Container:  " + std::string(qs::containerName(c.container));
    if (c.container == qs::Container::Gguf)
        out += " v" + std::to_string(c.ggufVersion) + ", alignment " + std::to_string(c.ggufAlignment);
    out += ", " + std::to_string(c.files.size()) + (c.files.size() == 1 ? " file\n" : " files\n");
    for (size_t i = 0; i < c.files.size(); ++i)
        out += "  file " + std::to_string(i) + ": " + c.files[i] + "\n";
    if (!c.openedAs.empty())
        out += "Opened as:  " + c.openedAs + "\n";
    for (const auto& f : c.leftOut)
        out += "Left out:   " + f + " (in the folder, not read)\n";
    if (const auto ft = qs::ggufFileType(c))
        out += "File type:  " + qs::llamaFileTypeName(static_cast<uint32_t>(*ft)) + " (general.file_type = " +
               std::to_string(*ft) + ")\n";
    const QJsonValue qc = c.config.value(QStringLiteral("quantization_config"));
    if (qc.isObject())
        out += "Quantization config (config.json): " +
               QJsonDocument(qc.toObject()).toJson(QJsonDocument::Compact).toStdString() + "\n";
    if (!c.quantizeConfig.isEmpty())
        out += "Quantization config (" + c.quantizeConfigFile + "): " +
               QJsonDocument(c.quantizeConfig).toJson(QJsonDocument::Compact).toStdString() + "\n";
    for (const auto& n : c.notes)
        out += "Note: " + n.text() + "\n";
    const qs::RecipeSummary recipe = qs::summarizeRecipe(c);
    if (recipe.hasNominal) {
        for (const auto& line : qs::recipeOverview(recipe))
            out += line.text() + "\n";
        if (recipe.count(qs::RecipeKind::Fallback))
            out += "Note: " + std::to_string(recipe.count(qs::RecipeKind::Fallback)) +
                   " weights fell back from the nominal type; `quantscope-cli recipe` lists them\n";
    }

    out += "\nMetadata (" + std::to_string(c.metadata.size()) + ")\n";
    TextTable meta({"KEY", "TYPE", "VALUE"}, {false, false, false});
    for (const auto& [k, v] : c.metadata) {
        std::string type(qs::metaTypeName(v.type));
        if (v.type == qs::MetaValue::Type::Array)
            type += "<" + std::string(qs::metaTypeName(v.arrayType)) + ">";
        std::string value = v.toDisplayString(kTableItems);
        std::replace(value.begin(), value.end(), '\n', ' ');
        if (value.size() > 120)
            value = value.substr(0, 117) + "...";
        meta.add({k, type, value});
    }
    out += meta.render();

    out += "\nTensors (" + std::to_string(c.tensors.size()) + ")\n";
    TextTable tensors({"NAME", "DTYPE", "SHAPE", "FILE", "OFFSET", "BYTES"}, {false, false, false, true, true, true});
    for (const auto& t : c.tensors)
        tensors.add({t.name, tensorType(t), qs::shapeText(t.shape), std::to_string(t.file), std::to_string(t.offset),
                     std::to_string(t.nbytes)});
    out += tensors.render();

    out += "\nLogical weights (" + std::to_string(c.weights.size()) + ")\n";
    TextTable weights({"NAME", "FORMAT", "BITS", "GROUP", "SHAPE [out, in]", "BYTES", "BPW", "MEMBERS"},
                  {false, false, true, true, false, true, true, false});
    std::string notes;
    for (const auto& w : c.weights) {
        std::string members;
        for (const auto& [role, idx] : w.members)
            members += (members.empty() ? "" : ",") + role;
        weights.add({w.name, w.format, std::to_string(w.bits), w.groupSize ? std::to_string(w.groupSize) : "-",
                     qs::shapeText(w.shape), std::to_string(w.storedBytes), fixedText(w.bitsPerWeight(), 4), members});
        for (const auto& n : w.notes)
            notes += "  " + w.name + ": " + n.text() + "\n";
    }
    out += weights.render();
    if (!notes.empty())
        out += "\nNotes\n" + notes;

    const auto all = qs::summarizeBits(c.weights);
    const auto quant = qs::summarizeBits(c.weights, true);
    out += "\nTotal: " + std::to_string(all.weights) + " weights, " + std::to_string(all.elements) + " elements in " +
           std::to_string(all.storedBytes) + " bytes = " + fixedText(all.bitsPerWeight(), 4) + " bits per weight\n";
    if (quant.weights)
        out += "Quantized only: " + std::to_string(quant.weights) + " weights, " + fixedText(quant.bitsPerWeight(), 4) +
               " bits per weight\n";
    return out;
}

} // namespace

int runInspect(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List a checkpoint's container, metadata, stored tensors and logical weights (format, bits, group "
        "size, logical shape [out, in], members, effective bits per weight)."));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON (schema in the README) instead of tables."));
    parser.addOption(help);
    parser.addOption(json);
    parser.addPositionalArgument(QStringLiteral("PATH"),
                                 QStringLiteral("A .gguf or .safetensors file, a GGUF split, or a checkpoint folder."));
    // parse(), not process(): process() exits with 1 on a usage error, and usage errors exit 2 here.
    if (!parser.parse(args)) {
        std::fprintf(stderr, "quantscope-cli inspect: %s (try --help)\n", qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(help)) {
        std::printf("Usage: quantscope-cli inspect PATH [--json]\n\n%s\n",
                    qPrintable(parser.helpText().section(QLatin1Char('\n'), 1)));
        return 0;
    }
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 1) {
        std::fprintf(stderr, "quantscope-cli inspect: %s (usage: quantscope-cli inspect PATH [--json])\n",
                     pos.isEmpty() ? "missing PATH" : "expected exactly one PATH");
        return 2;
    }
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.first()));
    if (parser.isSet(json)) {
        const QByteArray out = toJson(*ckpt);
        std::fwrite(out.constData(), 1, static_cast<size_t>(out.size()), stdout);
    } else {
        const std::string out = toText(*ckpt);
        std::fwrite(out.data(), 1, out.size(), stdout);
    }
    return 0;
}

} // namespace qscli
