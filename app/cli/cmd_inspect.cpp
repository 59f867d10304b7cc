// quantscope-cli inspect PATH [--json]: the container, its metadata, every stored tensor
// and every logical weight with its format and effective bits per weight.
#include "commands.h"
#include "base/counttext.h"
#include "jsonstream.h"

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
#include <QLocale>

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
    return std::string(t.dtype == qs::DType::Ggml ? t.typeName : qs::dtypeName(t.dtype));
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

// A metadata value of a scalar type (an array's items are these too), as the JSON holds it.
void scalarJson(JsonWriter& j, const qs::MetaValue& v)
{
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, uint64_t>) {
                // Beyond 2^63 a JSON number would lose digits: such values are written as strings.
                if (x > static_cast<uint64_t>(std::numeric_limits<qint64>::max()))
                    j.string(std::to_string(x));
                else
                    j.number(static_cast<int64_t>(x));
            } else if constexpr (std::is_same_v<T, int64_t>) {
                j.number(x);
            } else if constexpr (std::is_same_v<T, double>) {
                j.number(x);
            } else if constexpr (std::is_same_v<T, bool>) {
                j.boolean(x);
            } else if constexpr (std::is_same_v<T, std::string>) {
                j.string(x);
            } else {
                j.beginArray();
                for (size_t i = 0; i < x.size() && i < kJsonItems; ++i) {
                    j.element();
                    if (x[i].type == qs::MetaValue::Type::Array)
                        j.string("[array]");
                    else
                        scalarJson(j, x[i]);
                }
                j.endArray();
            }
        },
        v.value);
}

void metaJson(JsonWriter& j, const std::string& key, const qs::MetaValue& v)
{
    j.beginObject();
    if (v.type == qs::MetaValue::Type::Array) {
        const auto& items = std::get<std::vector<qs::MetaValue>>(v.value);
        j.key("count").number(int64_t(items.size()));
        j.key("element_type").string(qs::metaTypeName(v.arrayType));
        j.key("items");
        scalarJson(j, v);
        j.key("key").string(key);
        j.key("truncated").boolean(items.size() > kJsonItems);
        j.key("type").string(qs::metaTypeName(v.type));
    } else {
        j.key("key").string(key);
        j.key("type").string(qs::metaTypeName(v.type));
        j.key("value");
        scalarJson(j, v);
    }
    j.endObject();
}

void shapeJson(JsonWriter& j, const std::vector<uint64_t>& shape)
{
    j.beginArray();
    for (uint64_t d : shape)
        j.element().number(static_cast<int64_t>(d));
    j.endArray();
}

void tensorJson(JsonWriter& j, const qs::TensorEntry& t)
{
    j.beginObject();
    j.key("bytes").number(static_cast<int64_t>(t.nbytes));
    j.key("dtype").string(tensorType(t));
    j.key("file").number(static_cast<int64_t>(t.file));
    if (t.dtype == qs::DType::Ggml)
        j.key("ggml_type").number(int64_t(t.ggmlType));
    j.key("known").boolean(t.known);
    j.key("name").string(t.name);
    if (!t.note.empty())
        j.key("note").string(t.note.text());
    j.key("offset").number(static_cast<int64_t>(t.offset));
    j.key("shape");
    shapeJson(j, t.shape);
    j.endObject();
}

void messagesJson(JsonWriter& j, const std::vector<qs::Message>& v)
{
    j.beginArray();
    for (const auto& m : v)
        j.element().string(m.text());
    j.endArray();
}

void weightJson(JsonWriter& j, const qs::Checkpoint& c, const qs::LogicalWeight& w)
{
    j.beginObject();
    j.key("act_order").boolean(w.actOrder);
    j.key("bits").number(int64_t(w.bits));
    j.key("bpw").number(w.bitsPerWeight());
    j.key("desc_act").boolean(w.descAct);
    j.key("elements").number(static_cast<int64_t>(w.elementCount()));
    j.key("evidence");
    messagesJson(j, w.evidence);
    j.key("format").string(w.format);
    j.key("group_size").number(static_cast<int64_t>(w.groupSize));
    j.key("members").beginArray();
    for (const auto& [role, idx] : w.members) {
        j.element().beginObject();
        j.key("bytes").number(static_cast<int64_t>(c.tensors[idx].nbytes));
        j.key("role").string(role);
        j.key("tensor").string(c.tensors[idx].name);
        j.endObject();
    }
    j.endArray();
    j.key("name").string(w.name);
    j.key("notes");
    messagesJson(j, w.notes);
    // QJsonObject orders keys by their UTF-16 text; for ASCII keys (every parameter name) that
    // is the byte order WeightParams keeps.
    j.key("params").beginObject();
    for (const auto& [k, v] : w.params)
        j.key(k).string(v);
    j.endObject();
    j.key("shape");
    shapeJson(j, w.shape);
    j.key("stored_bytes").number(static_cast<int64_t>(w.storedBytes));
    j.key("symmetric").boolean(w.symmetric);
    j.endObject();
}

void printJson(std::FILE* out, const qs::Checkpoint& c)
{
    // The root's keys in QJsonObject's order (sorted).
    JsonStream json(out);
    const bool gguf = c.container == qs::Container::Gguf;
    if (gguf)
        json.member("alignment", static_cast<qint64>(c.ggufAlignment));
    if (!c.config.isEmpty())
        json.member("config", c.config);
    const auto cn = qs::containerName(c.container);
    json.member("container", QString::fromUtf8(cn.data(), qsizetype(cn.size())));
    if (gguf) {
        if (const auto ft = qs::ggufFileType(c)) {
            QJsonObject o;
            o[QStringLiteral("value")] = static_cast<qint64>(*ft);
            o[QStringLiteral("name")] = QString::fromStdString(qs::llamaFileTypeName(static_cast<uint32_t>(*ft)));
            json.member("file_type", o);
        }
    }
    json.member("files", stringsJson(c.files));
    if (gguf)
        json.member("gguf_version", c.ggufVersion);
    if (!c.openedAs.empty())
        json.member("left_out", stringsJson(c.leftOut));
    json.arrayMember("metadata", c.metadata.size(),
                     [&](size_t i, JsonWriter& j) { metaJson(j, c.metadata[i].first, c.metadata[i].second); });
    json.arrayMember("notes", c.notes.size(), [&](size_t i, JsonWriter& j) { j.string(c.notes[i].text()); });
    if (!c.openedAs.empty())
        json.member("opened_as", QString::fromStdString(c.openedAs));
    json.member("path", QString::fromStdString(c.path));
    if (!c.quantizeConfig.isEmpty()) {
        json.member("quantize_config", c.quantizeConfig);
        json.member("quantize_config_file", QString::fromStdString(c.quantizeConfigFile));
    }
    json.arrayMember("tensors", c.tensors.size(), [&](size_t i, JsonWriter& j) { tensorJson(j, c.tensors[i]); });
    QJsonObject totals = bitsJson(qs::summarizeBits(c.weights));
    totals[QStringLiteral("quantized")] = bitsJson(qs::summarizeBits(c.weights, true));
    json.member("totals", totals);
    json.arrayMember("weights", c.weights.size(), [&](size_t i, JsonWriter& j) { weightJson(j, c, c.weights[i]); });
    json.finish();
}

// The metadata value as the table shows it: one line, at most 120 bytes.
std::string metaCell(const qs::MetaValue& v)
{
    std::string value = v.toDisplayString(kTableItems);
    if (value.size() > 120)
        value = value.substr(0, 117) + "...";
    std::replace(value.begin(), value.end(), '\n', ' ');
    return value;
}

// The tables, written as they are made (a million tensors are a million rows).
void printText(std::FILE* f, const qs::Checkpoint& c)
{
    std::string out;
    const auto flush = [&] {
        std::fwrite(out.data(), 1, out.size(), f);
        out.clear();
    };
    out += "Path:       " + c.path + "\n";
    out += "Container:  " + std::string(qs::containerName(c.container));
    if (c.container == qs::Container::Gguf)
        out += " v" + std::to_string(c.ggufVersion) + ", alignment " + std::to_string(c.ggufAlignment);
    out += ", " + std::to_string(c.files.size()) + (c.files.size() == 1 ? " file\n" : " files\n");
    for (size_t i = 0; i < c.files.size(); ++i)
        out += "  file " + std::to_string(i) + ": " + c.files[i] + "\n";
    if (!c.openedAs.empty())
        out += "Opened as:  " + c.openedAs + "\n";
    for (const auto& file : c.leftOut)
        out += "Left out:   " + file + " (in the folder, not read)\n";
    if (const auto ft = qs::ggufFileType(c))
        out += "File type:  " + qs::llamaFileTypeName(static_cast<uint32_t>(*ft))
            + " (general.file_type = " + std::to_string(*ft) + ")\n";
    const QJsonValue qc = c.config.value(QStringLiteral("quantization_config"));
    if (qc.isObject())
        out += "Quantization config (config.json): "
            + QJsonDocument(qc.toObject()).toJson(QJsonDocument::Compact).toStdString() + "\n";
    if (!c.quantizeConfig.isEmpty())
        out += "Quantization config (" + c.quantizeConfigFile
            + "): " + QJsonDocument(c.quantizeConfig).toJson(QJsonDocument::Compact).toStdString() + "\n";
    for (const auto& n : c.notes) {
        out += "Note: " + n.text() + "\n";
        flush();
    }
    const qs::RecipeSummary recipe = qs::summarizeRecipe(c, qs::RecipeDetail::Totals);
    if (recipe.hasNominal) {
        for (const auto& line : qs::recipeOverview(recipe))
            out += line.text() + "\n";
        if (recipe.count(qs::RecipeKind::Fallback))
            out += "Note: " + qs::counted(recipe.count(qs::RecipeKind::Fallback), "weight", "weights")
                + " fell back from the nominal type; `quantscope-cli recipe` lists them\n";
    }

    out += "\nMetadata (" + std::to_string(c.metadata.size()) + ")\n";
    flush();
    printTable(f, {"KEY", "TYPE", "VALUE"}, {false, false, false}, c.metadata.size(), [&](size_t i) {
        const auto& [k, v] = c.metadata[i];
        std::string type(qs::metaTypeName(v.type));
        if (v.type == qs::MetaValue::Type::Array)
            type += "<" + std::string(qs::metaTypeName(v.arrayType)) + ">";
        return std::vector<std::string>{k, type, metaCell(v)};
    });

    out += "\nTensors (" + std::to_string(c.tensors.size()) + ")\n";
    flush();
    printTable(f, {"NAME", "DTYPE", "SHAPE", "FILE", "OFFSET", "BYTES"}, {false, false, false, true, true, true},
               c.tensors.size(), [&](size_t i) {
                   const qs::TensorEntry& t = c.tensors[i];
                   return std::vector<std::string>{std::string(t.name),      tensorType(t),
                                                   qs::shapeText(t.shape),   std::to_string(t.file),
                                                   std::to_string(t.offset), std::to_string(t.nbytes)};
               });

    out += "\nLogical weights (" + std::to_string(c.weights.size()) + ")\n";
    flush();
    printTable(f, {"NAME", "FORMAT", "BITS", "GROUP", "SHAPE [out, in]", "BYTES", "BPW", "MEMBERS"},
               {false, false, true, true, false, true, true, false}, c.weights.size(), [&](size_t i) {
                   const qs::LogicalWeight& w = c.weights[i];
                   std::string members;
                   for (const auto& [role, idx] : w.members)
                       members += (members.empty() ? "" : ",") + role;
                   return std::vector<std::string>{w.name,
                                                   w.format,
                                                   std::to_string(w.bits),
                                                   w.groupSize ? std::to_string(w.groupSize) : "-",
                                                   qs::shapeText(w.shape),
                                                   std::to_string(w.storedBytes),
                                                   fixedText(w.bitsPerWeight(), 4),
                                                   members};
               });
    bool notes = false;
    for (const auto& w : c.weights)
        for (const auto& n : w.notes) {
            if (!notes)
                out += "\nNotes\n";
            notes = true;
            out += "  " + w.name + ": " + n.text() + "\n";
            flush();
        }

    const auto all = qs::summarizeBits(c.weights);
    const auto quant = qs::summarizeBits(c.weights, true);
    out += "\nTotal: " + qs::counted(all.weights, "weight", "weights") + ", "
        + qs::counted(all.elements, "element", "elements") + " in " + qs::counted(all.storedBytes, "byte", "bytes")
        + " = " + fixedText(all.bitsPerWeight(), 4) + " bits per weight\n";
    if (quant.weights)
        out += "Quantized only: " + qs::counted(quant.weights, "weight", "weights") + ", "
            + fixedText(quant.bitsPerWeight(), 4) + " bits per weight\n";
    flush();
}

} // namespace

int runInspect(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List a checkpoint's container, metadata, stored tensors and logical weights (format, bits, group "
        "size, logical shape [out, in], members, effective bits per weight)."));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("Print JSON (schema in the README) instead of tables."));
    parser.addOption(json);
    parser.addPositionalArgument(QStringLiteral("PATH"),
                                 QStringLiteral("A .gguf or .safetensors file, a GGUF split, or a checkpoint folder."));
    if (const auto code = parseOrUsage(parser, args))
        return *code;
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 1)
        return usageError(args, pos.isEmpty() ? "missing PATH" : "expected exactly one PATH");
    const auto ckpt = qs::openCheckpoint(qs::encodeLocalBytes(pos.first()));
    if (parser.isSet(json))
        printJson(stdout, *ckpt);
    else
        printText(stdout, *ckpt);
    return 0;
}

} // namespace qscli
