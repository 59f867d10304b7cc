#include "container/safetensors.h"

#include "base/cancel.h"
#include "base/progress.h"
#include "container/folder.h"
#include "container/json.h"
#include "base/atomicfile.h"
#include "base/error.h"
#include "base/message.h"
#include "base/shapetext.h"
#include "base/stringindex.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <map>
#include <set>

namespace qs {
namespace fs = std::filesystem;

namespace {

std::string offsetsString(uint64_t begin, uint64_t end)
{
    return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

std::string named(std::string_view name)
{
    return "'" + std::string(name) + "'";
}

std::string jsonTypeOf(const json::Value& v)
{
    return std::string(json::typeName(v.type));
}

// Bytes for `shape` of `dtype`, as the reference computes them: checked element count,
// checked bit count, whole bytes only. Returns false with `why` set on failure.
bool tensorByteSize(DType dtype, std::span<const uint64_t> shape, uint64_t& bytes, std::string& why)
{
    uint64_t count = 1;
    for (uint64_t d : shape) {
        if (__builtin_mul_overflow(count, d, &count)) {
            why = "shape " + shapeText(shape) + ": element count overflows 64 bits";
            return false;
        }
    }
    uint64_t bits = 0;
    if (__builtin_mul_overflow(count, uint64_t(dtypeBits(dtype)), &bits)) {
        why = "shape " + shapeText(shape) + " of " + std::string(dtypeName(dtype)) + ": bit count overflows 64 bits";
        return false;
    }
    if (bits % 8 != 0) {
        why = "misaligned slice: shape " + shapeText(shape) + " of " + std::string(dtypeName(dtype)) + " is "
            + std::to_string(bits) + " bits, not a whole number of bytes";
        return false;
    }
    bytes = bits / 8;
    return true;
}

struct HeaderTensor {
    std::string_view name; // kept by the checkpoint
    DType dtype = DType::U8;
    Shape shape;
    uint64_t begin = 0;
    uint64_t end = 0;
};

// A field that must be a non-negative integer ("shape[2]" is field "shape", index 2).
// Values above int64 are refused: later code does signed arithmetic on shapes and
// offsets, and no real file comes near that.
uint64_t nonNegativeInteger(const std::string& path, std::string_view tensor, const char* field, size_t index,
                            const json::Value& v)
{
    if (v.type == json::Value::Type::UInt && v.uint <= uint64_t(INT64_MAX))
        return v.uint;
    const std::string where = "tensor " + named(tensor) + ": " + field + "[" + std::to_string(index) + "]";
    if (v.type == json::Value::Type::UInt)
        fail(path, where + " = " + std::to_string(v.uint) + " does not fit in a signed 64-bit integer");
    const std::string shown = v.type == json::Value::Type::Int ? std::to_string(v.sint) : jsonTypeOf(v);
    fail(path, where + " is " + shown + ", not a non-negative integer");
}

HeaderTensor parseTensorInfo(const std::string& path, std::string_view name, const json::Value& v,
                             std::set<std::string>& ignoredFields)
{
    HeaderTensor t;
    t.name = name;
    const auto who = [&t] { return "tensor " + named(t.name); };
    if (!v.isObject())
        fail(path, who() + ": header entry is a " + jsonTypeOf(v) + ", not an object");
    const json::Value* dtype = v.find("dtype");
    const json::Value* shape = v.find("shape");
    const json::Value* offsets = v.find("data_offsets");
    if (!dtype)
        fail(path, who() + ": missing field 'dtype'");
    if (!shape)
        fail(path, who() + ": missing field 'shape'");
    if (!offsets)
        fail(path, who() + ": missing field 'data_offsets'");
    for (const auto& [key, value] : v.object)
        if (key != "dtype" && key != "shape" && key != "data_offsets")
            ignoredFields.insert(key);

    if (!dtype->isString())
        fail(path, who() + ": dtype is a " + jsonTypeOf(*dtype) + ", not a string");
    const auto dt = dtypeFromName(dtype->string);
    if (!dt)
        fail(path, who() + ": unknown dtype '" + dtype->string + "'");
    t.dtype = *dt;

    if (!shape->isArray())
        fail(path, who() + ": shape is a " + jsonTypeOf(*shape) + ", not an array");
    t.shape.reserve(shape->array.size());
    for (size_t i = 0; i < shape->array.size(); ++i)
        t.shape.push_back(nonNegativeInteger(path, t.name, "shape", i, shape->array[i]));

    if (!offsets->isArray() || offsets->array.size() != 2)
        fail(path, who() + ": data_offsets must be an array [begin, end] of two integers");
    t.begin = nonNegativeInteger(path, t.name, "data_offsets", 0, offsets->array[0]);
    t.end = nonNegativeInteger(path, t.name, "data_offsets", 1, offsets->array[1]);
    return t;
}

// A shard's __metadata__ added to what earlier shards gave: one hash lookup a key (a linear
// search of the checkpoint's metadata per key made 131,072 keys take minutes).
void addMetadata(Checkpoint& ckpt, const std::string& path, std::vector<std::pair<std::string, std::string>>& metadata)
{
    if (metadata.empty())
        return;
    const auto keyAt = [&](size_t k) -> const std::string& { return ckpt.metadata[k].first; };
    StringIndex known(ckpt.metadata.size() + metadata.size());
    for (size_t k = 0; k < ckpt.metadata.size(); ++k)
        known.findOrInsert(ckpt.metadata[k].first, k, keyAt);
    for (auto& [key, value] : metadata) {
        const size_t old = known.findOrInsert(key, ckpt.metadata.size(), keyAt);
        if (old != StringIndex::npos) {
            const MetaValue& first = ckpt.metadata[old].second;
            const auto* s = std::get_if<std::string>(&first.value);
            if (!s || *s != value)
                ckpt.notes.push_back(
                    {QT_TRANSLATE_NOOP(
                         "qs::Message",
                         "%1: __metadata__ '%2' = '%3' differs from '%4' in an earlier shard; the first is kept"),
                     {path, key, value, first.toDisplayString()}});
            continue;
        }
        auto& [addedKey, added] = ckpt.metadata.emplace_back();
        addedKey = std::move(key);
        added.type = MetaValue::Type::String;
        added.value = std::move(value);
    }
}

// A small JSON side file (index, config); throws naming the file.
json::Value readJsonFile(const MappedFile& f)
{
    const std::string& path = f.path();
    if (f.size() > kJsonSideFileMax)
        fail(path,
             "file is " + std::to_string(f.size()) + " bytes; JSON side files are limited to "
                 + std::to_string(kJsonSideFileMax) + " bytes");
    f.ensure(0, f.size());
    const auto b = f.bytes();
    try {
        return json::parse(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()),
                           json::ParseOptions{128, SIZE_MAX, kJsonSideFileMaxValues});
    } catch (const json::ParseError& e) {
        fail(path, std::string("invalid JSON: ") + e.what());
    }
}

std::string joinPath(const std::string& dir, const std::string& name)
{
    return (fs::path(dir.empty() ? "." : dir) / name).string();
}

} // namespace

void readSafetensorsFile(Checkpoint& ckpt, const std::string& path)
{
    readSafetensorsMapped(ckpt, std::make_shared<MappedFile>(path));
}

void readSafetensorsMapped(Checkpoint& ckpt, std::shared_ptr<MappedFile> map)
{
    const std::string path = map->path();
    const uint64_t size = map->size();
    if (size == 0)
        fail(path, "empty file: no safetensors header length (8 bytes expected)");
    if (size < 8)
        fail(path,
             "header too small: the file has " + std::to_string(size) + " bytes, fewer than the 8-byte header length");
    map->ensure(0, 8);
    const uint8_t* p = map->bytes().data();
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | p[i];
    if (n > kSafetensorsMaxHeader)
        fail(path,
             "header too large: header length " + std::to_string(n) + " exceeds the limit of "
                 + std::to_string(kSafetensorsMaxHeader) + " bytes");
    if (n > size - 8)
        fail(path,
             "invalid header length: " + std::to_string(n) + " bytes of header do not fit in the "
                 + std::to_string(size - 8) + " bytes after the length field");
    map->ensure(8, n);
    const std::string_view header(reinterpret_cast<const char*>(p + 8), static_cast<size_t>(n));

    std::vector<Message> notes;
    std::vector<HeaderTensor> infos;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::set<std::string> ignoredFields;
    // Streamed member by member, so a 100 MB header of tiny entries costs memory for the
    // resulting list only. No real header nests deeper than 3 or holds a container of
    // more than a few dozen elements (the top-level object aside); the limits stop
    // hostile ones from allocating far more than the header's own size.
    const auto takeMember = [&](std::string&& key, json::Value&& value) {
        if (key == "__metadata__") {
            // Optional, and null means absent (the reference reader's Option; MLX writes null).
            if (value.isNull())
                return;
            if (!value.isObject())
                fail(path, "__metadata__ is a " + jsonTypeOf(value) + ", not an object of strings");
            for (auto& [mk, mv] : value.object) {
                if (!mv.isString())
                    fail(path, "__metadata__ '" + mk + "' is a " + jsonTypeOf(mv) + ", not a string");
                metadata.emplace_back(std::move(mk), std::move(mv.string));
            }
            return;
        }
        if (key.empty())
            notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1: a tensor has an empty name"), {path}});
        infos.push_back(parseTensorInfo(path, ckpt.keepName(key), value, ignoredFields));
    };
    // A schema error is held back until the whole header has parsed, so that broken JSON is
    // reported as such wherever it is.
    std::optional<Error> schemaError;
    const auto onMember = [&](std::string&& key, json::Value&& value, size_t) {
        throwIfCancelled(currentCancelFlag()); // a million tensors is seconds: Cancel stops the listing
        if (schemaError)
            return;
        try {
            takeMember(std::move(key), std::move(value));
        } catch (const Error& e) {
            schemaError = e;
        }
    };
    json::Value::Type topType;
    try {
        topType = json::parseObjectMembers(header, json::ParseOptions{16, 65536, kHeaderMemberMaxValues}, onMember);
    } catch (const json::ParseError& e) {
        if (!e.duplicateKey().empty() && e.depth() == 1)
            fail(path,
                 "duplicate tensor name " + named(e.duplicateKey()) + " in the header (byte " + std::to_string(e.pos())
                     + " of the header)");
        fail(path, std::string("header is not valid JSON: ") + e.what() + " of the header");
    }
    if (topType != json::Value::Type::Object)
        fail(path, "header is a JSON " + std::string(json::typeName(topType)) + ", not an object");
    if (schemaError)
        throw *schemaError;

    if (header.front() != '{')
        notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "%1: header starts with whitespace, not '{' (the reference reader accepts this; "
                               "stricter readers do not)"),
             {path}});
    const size_t last = header.find_last_not_of(' ');
    if (last != std::string_view::npos && header[last] != '}')
        notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "%1: header is padded with whitespace other than spaces"), {path}});
    for (const auto& f : ignoredFields)
        notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "%1: tensor field '%2' is not part of safetensors; ignored"), {path, f}});

    // The reference's order: sort by data_offsets, then walk a cursor from 0 so that every
    // overlap, gap or out-of-order range is an error, then check sizes against shapes.
    std::stable_sort(infos.begin(), infos.end(), [](const HeaderTensor& a, const HeaderTensor& b) {
        return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
    });
    const uint64_t dataSize = size - 8 - n;
    uint64_t cursor = 0;
    const HeaderTensor* previous = nullptr;
    for (const auto& t : infos) {
        const auto who = [&t] { return "tensor " + named(t.name) + ": data_offsets " + offsetsString(t.begin, t.end); };
        if (t.end < t.begin)
            fail(path, who() + " end before they begin");
        if (t.begin < cursor)
            fail(path,
                 who() + " overlap tensor " + named(previous->name) + ", which ends at " + std::to_string(cursor));
        if (t.begin > cursor)
            fail(path,
                 who() + " leave a gap: data bytes [" + std::to_string(cursor) + ", " + std::to_string(t.begin)
                     + ") belong to no tensor"
                     + (previous ? " (after tensor " + named(previous->name) + ")" : std::string()));
        cursor = t.end;
        previous = &t;
        uint64_t bytes = 0;
        std::string why;
        if (!tensorByteSize(t.dtype, t.shape, bytes, why))
            fail(path, "tensor " + named(t.name) + ": " + why);
        if (t.end - t.begin != bytes)
            fail(path,
                 who() + " hold " + std::to_string(t.end - t.begin) + " bytes, but shape " + shapeText(t.shape) + " of "
                     + std::string(dtypeName(t.dtype)) + " needs " + std::to_string(bytes));
    }
    if (cursor != dataSize) {
        if (cursor > dataSize)
            fail(path,
                 "data_offsets of tensor " + named(previous->name) + " end at " + std::to_string(cursor) + ", past the "
                     + std::to_string(dataSize) + " bytes of data in the file (offset out of range or file truncated)");
        fail(path,
             "data not fully covered: tensors end at data byte " + std::to_string(cursor) + " but the file holds "
                 + std::to_string(dataSize - cursor) + " more bytes");
    }

    const uint32_t file = ckpt.addFile(std::move(map));
    ckpt.tensors.reserve(ckpt.tensors.size() + infos.size());
    for (auto& t : infos) {
        TensorEntry e;
        e.name = t.name;
        e.dtype = t.dtype;
        e.typeName = dtypeName(t.dtype);
        e.shape = std::move(t.shape);
        e.file = file;
        e.offset = 8 + n + t.begin;
        e.nbytes = t.end - t.begin;
        ckpt.tensors.push_back(std::move(e));
    }
    addMetadata(ckpt, path, metadata);
    ckpt.notes.insert(ckpt.notes.end(), notes.begin(), notes.end());
}

namespace {

void readShardedFolder(Checkpoint& ckpt, const FolderFiles& folder, const std::string& indexName)
{
    const std::string indexPath = folder.pathOf(indexName);
    ckpt.sideFiles.push_back(indexPath);
    const json::Value root = readJsonFile(*folder.open(indexName));
    if (!root.isObject())
        fail(indexPath, "index is a JSON " + jsonTypeOf(root) + ", not an object");
    const json::Value* weightMap = root.find("weight_map");
    if (!weightMap)
        fail(indexPath, "missing field 'weight_map'");
    if (!weightMap->isObject())
        fail(indexPath, "weight_map is a " + jsonTypeOf(*weightMap) + ", not an object");

    // The entries are read in place (the JSON's own strings): a shard number and a found-in
    // shard number each, and one hash index of the names (copies of every name and shard
    // in node-based maps cost several times the index's size).
    const std::vector<json::Member>& entries = weightMap->object;
    std::map<std::string, uint32_t> shardIds; // shard file -> its number, in name order
    std::vector<size_t> exampleTensor; // shard number -> the first entry mapped to it
    std::vector<uint32_t> shardOf(entries.size());
    StringIndex byName(entries.size());
    const auto entryName = [&](size_t k) -> const std::string& { return entries[k].first; };
    for (size_t k = 0; k < entries.size(); ++k) {
        const auto& [name, file] = entries[k];
        if (!file.isString())
            fail(indexPath,
                 "weight_map: tensor " + named(name) + " maps to a " + jsonTypeOf(file) + ", not a file name");
        const std::string& f = file.string;
        if (f.empty() || f == "." || f == ".." || f.find('/') != std::string::npos || f.find('\0') != std::string::npos)
            fail(indexPath,
                 "weight_map: tensor " + named(name) + " maps to " + named(f)
                     + ", which is not a file name in this folder");
        const auto [it, fresh] = shardIds.emplace(f, uint32_t(exampleTensor.size()));
        if (fresh)
            exampleTensor.push_back(k);
        shardOf[k] = it->second;
        byName.findOrInsert(name, k, entryName); // the parser refuses a repeated key
    }
    std::vector<const std::string*> shardName(shardIds.size());
    for (const auto& [file, id] : shardIds) {
        shardName[id] = &file;
        if (!folder.has(file))
            fail(indexPath,
                 "weight_map: shard " + named(file) + " (holding tensor " + named(entries[exampleTensor[id]].first)
                     + ") does not exist in the folder");
    }

    constexpr uint32_t kNotFound = UINT32_MAX;
    std::vector<uint32_t> foundIn(entries.size(), kNotFound);
    for (const auto& [s, id] : shardIds) {
        const std::string shardPath = folder.pathOf(s);
        const size_t first = ckpt.tensors.size();
        readSafetensorsMapped(ckpt, folder.open(s));
        for (size_t i = first; i < ckpt.tensors.size(); ++i) {
            const std::string_view name = ckpt.tensors[i].name;
            const size_t k = byName.find(name, entryName);
            if (k == StringIndex::npos)
                fail(shardPath,
                     "tensor " + named(name) + " is missing from the weight_map of "
                         + fs::path(indexPath).filename().string());
            if (foundIn[k] != kNotFound)
                fail(shardPath,
                     "tensor " + named(name) + " is in two shards: " + named(*shardName[foundIn[k]]) + " and "
                         + named(s));
            foundIn[k] = id;
            if (shardOf[k] != id)
                fail(shardPath,
                     "tensor " + named(name) + " is in this shard, but the weight_map of "
                         + fs::path(indexPath).filename().string() + " maps it to " + named(*shardName[shardOf[k]]));
        }
    }
    for (size_t k = 0; k < entries.size(); ++k)
        if (foundIn[k] == kNotFound)
            fail(indexPath,
                 "weight_map: tensor " + named(entries[k].first) + " maps to shard " + named(entries[k].second.string)
                     + ", which does not hold it");

    // total_size is advisory (writers disagree on what it counts): a mismatch is a note.
    if (const json::Value* meta = root.find("metadata"); meta && meta->isObject()) {
        if (const json::Value* total = meta->find("total_size"); total && total->type == json::Value::Type::UInt) {
            uint64_t sum = 0;
            for (const auto& t : ckpt.tensors)
                sum += t.nbytes;
            if (sum != total->uint)
                ckpt.notes.push_back(
                    {QT_TRANSLATE_NOOP("qs::Message", "%1: metadata.total_size is %2 but the tensors hold %3 bytes"),
                     {indexPath, std::to_string(total->uint), std::to_string(sum)}});
        }
    }
}

} // namespace

void readSafetensorsFolder(Checkpoint& ckpt, const FolderFiles& folder, const std::vector<std::string>& chosen)
{
    const std::string& dir = folder.dir;
    if (!chosen.empty()) {
        for (const auto& f : chosen) {
            if (!folder.has(f))
                fail(folder.pathOf(f), "no such file in the folder");
            readSafetensorsMapped(ckpt, folder.open(f));
        }
        ckpt.openedAs = chosen.size() == 1 ? chosen.front() : "the " + std::to_string(chosen.size()) + " chosen files";
    } else {
        std::vector<std::string> indexes;
        for (const auto& name : folder.names)
            if (name.ends_with(".safetensors.index.json"))
                indexes.push_back(name);
        const std::vector<FileSet> sets = fileSets(folder.names, ".safetensors");
        if (!indexes.empty()) {
            const auto preferred = std::find(indexes.begin(), indexes.end(), "model.safetensors.index.json");
            const std::string index = preferred != indexes.end() ? *preferred : indexes.front();
            if (indexes.size() > 1)
                ckpt.notes.push_back(
                    {QT_TRANSLATE_NOOP("qs::Message", "%1: several *.safetensors.index.json files; using %2"),
                     {dir, index}});
            readShardedFolder(ckpt, folder, index);
            ckpt.openedAs = index;
        } else if (folder.has("model.safetensors")) {
            readSafetensorsMapped(ckpt, folder.open("model.safetensors"));
            ckpt.openedAs = "model.safetensors";
        } else if (!sets.empty()) {
            const FileSet& set = pickFileSet(dir, sets, "safetensors");
            for (const auto& f : set.files)
                readSafetensorsMapped(ckpt, folder.open(f));
            ckpt.openedAs = set.label;
        } else {
            fail(dir, "no checkpoint in this folder (no *.safetensors file and no *.safetensors.index.json)");
        }
    }
    readHuggingFaceConfigs(ckpt, folder);
}

// The configs only steer format detection. A broken or oversized config must not hide a
// checkpoint whose tensors validated strictly, so it becomes a note (shown by inspect)
// and detection falls back to tensor names, dtypes and shapes.
void readHuggingFaceConfigs(Checkpoint& ckpt, const FolderFiles& folder)
{
    auto load = [&](const std::string& name, QJsonObject& out) {
        if (!folder.has(name))
            return false;
        const std::string path = folder.pathOf(name);
        ckpt.sideFiles.push_back(path);
        try {
            const json::Value v = readJsonFile(*folder.open(name));
            if (!v.isObject()) {
                ckpt.notes.push_back(
                    {QT_TRANSLATE_NOOP("qs::Message", "%1: a JSON %2, not an object; ignored"), {path, jsonTypeOf(v)}});
                return false;
            }
            out = json::toQJsonValue(v).toObject();
            return true;
        } catch (const Error& e) {
            ckpt.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "%1; ignored"), {e.what()}});
            return false;
        }
    };
    load("config.json", ckpt.config);
    for (const char* name : {"quantize_config.json", "quant_config.json", "hf_quant_config.json"}) {
        if (load(name, ckpt.quantizeConfig)) {
            ckpt.quantizeConfigFile = name;
            break;
        }
    }
}

void readHuggingFaceConfigs(Checkpoint& ckpt, const std::string& dir)
{
    // Only the configs: the folder of a single file may be large or unlistable.
    FolderFiles folder =
        diskFolder(dir, {"config.json", "quant_config.json", "quantize_config.json", "hf_quant_config.json"});
    readHuggingFaceConfigs(ckpt, folder);
}

// ---------------------------------------------------------------------------------------
// Writing

namespace {

// The reference's Dtype enum order, which its writer sorts by (descending) as "alignment".
int writerRank(DType t)
{
    static constexpr DType order[] = {
        DType::BOOL,    DType::F4,      DType::F6_E2M3, DType::F6_E3M2,     DType::U8,          DType::I8,
        DType::F8_E5M2, DType::F8_E4M3, DType::F8_E8M0, DType::F8_E4M3FNUZ, DType::F8_E5M2FNUZ, DType::I16,
        DType::U16,     DType::F16,     DType::BF16,    DType::I32,         DType::U32,         DType::F32,
        DType::C64,     DType::F64,     DType::I64,     DType::U64,
    };
    for (size_t i = 0; i < std::size(order); ++i)
        if (order[i] == t)
            return static_cast<int>(i);
    return -1;
}

std::span<const uint8_t> asBytes(const std::string& s)
{
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

} // namespace

void writeSafetensors(const std::string& path, const std::vector<SafetensorsTensor>& tensors,
                      const std::map<std::string, std::string>& metadata)
{
    std::set<std::string> names;
    for (const auto& t : tensors) {
        const std::string who = "tensor " + named(t.name);
        if (t.name.empty() || t.name == "__metadata__")
            fail(path, who + ": not a valid tensor name");
        if (!names.insert(t.name).second)
            fail(path, "duplicate tensor name " + named(t.name));
        if (writerRank(t.dtype) < 0)
            fail(path, who + ": dtype " + std::string(dtypeName(t.dtype)) + " cannot be stored in safetensors");
        uint64_t bytes = 0;
        std::string why;
        if (!tensorByteSize(t.dtype, t.shape, bytes, why))
            fail(path, who + ": " + why);
        if (bytes != t.data.size())
            fail(path,
                 who + ": data holds " + std::to_string(t.data.size()) + " bytes, but shape " + shapeText(t.shape)
                     + " of " + std::string(dtypeName(t.dtype)) + " needs " + std::to_string(bytes));
    }
    std::vector<const SafetensorsTensor*> order;
    order.reserve(tensors.size());
    for (const auto& t : tensors)
        order.push_back(&t);
    std::sort(order.begin(), order.end(), [](const SafetensorsTensor* a, const SafetensorsTensor* b) {
        const int ra = writerRank(a->dtype), rb = writerRank(b->dtype);
        return ra != rb ? ra > rb : a->name < b->name;
    });

    std::string header = "{";
    if (!metadata.empty()) {
        header += "\"__metadata__\":{";
        bool firstKey = true;
        for (const auto& [k, v] : metadata) {
            if (!firstKey)
                header += ',';
            firstKey = false;
            json::appendQuoted(header, k);
            header += ':';
            json::appendQuoted(header, v);
        }
        header += '}';
    }
    uint64_t offset = 0;
    for (const auto* t : order) {
        if (header.size() > 1)
            header += ',';
        json::appendQuoted(header, t->name);
        header += ":{\"dtype\":\"";
        header += dtypeName(t->dtype);
        header += "\",\"shape\":[";
        for (size_t i = 0; i < t->shape.size(); ++i)
            header += (i ? "," : "") + std::to_string(t->shape[i]);
        header += "],\"data_offsets\":[" + std::to_string(offset) + ",";
        offset += t->data.size();
        header += std::to_string(offset) + "]}";
    }
    header += '}';
    // Names and metadata come from callers: refuse what a reader would reject (bad UTF-8).
    try {
        json::parse(header);
    } catch (const json::ParseError& e) {
        fail(path, std::string("tensor names or metadata are not valid UTF-8: ") + e.what());
    }
    header.append((8 - header.size() % 8) % 8, ' ');
    if (header.size() > kSafetensorsMaxHeader)
        fail(path, "header would be " + std::to_string(header.size()) + " bytes, over the reference limit");

    uint8_t lengthField[8];
    uint64_t n = header.size();
    for (auto& b : lengthField) {
        b = static_cast<uint8_t>(n & 0xff);
        n >>= 8;
    }
    std::vector<std::span<const uint8_t>> pieces{std::span<const uint8_t>(lengthField, 8), asBytes(header)};
    for (const auto* t : order)
        pieces.push_back(t->data);
    writeFileAtomically(path, pieces);
}

std::string shardFileName(size_t index, size_t count)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "model-%05zu-of-%05zu.safetensors", index + 1, count);
    return buf;
}

void writeSafetensorsSharded(const std::string& dir, const std::vector<SafetensorsShard>& shards,
                             const std::map<std::string, std::string>& metadata, const std::string& indexName)
{
    const std::string indexPath = joinPath(dir, indexName);
    std::map<std::string, std::string> weightMap;
    std::set<std::string> files;
    uint64_t totalSize = 0;
    for (const auto& s : shards) {
        if (s.fileName.empty() || s.fileName.find('/') != std::string::npos || !s.fileName.ends_with(".safetensors"))
            fail(indexPath, "shard " + named(s.fileName) + " is not a .safetensors file name");
        if (!files.insert(s.fileName).second)
            fail(indexPath, "shard " + named(s.fileName) + " listed twice");
        for (const auto& t : s.tensors) {
            if (!weightMap.emplace(t.name, s.fileName).second)
                fail(indexPath, "tensor " + named(t.name) + " is in two shards");
            totalSize += t.data.size();
        }
    }
    for (const auto& s : shards)
        writeSafetensors(joinPath(dir, s.fileName), s.tensors, metadata);

    // The layout transformers writes (json.dumps(indent=2, sort_keys=True)).
    std::string index =
        "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(totalSize) + "\n  },\n  \"weight_map\": {";
    bool firstEntry = true;
    for (const auto& [name, file] : weightMap) {
        index += firstEntry ? "\n    " : ",\n    ";
        firstEntry = false;
        json::appendQuoted(index, name);
        index += ": ";
        json::appendQuoted(index, file);
    }
    index += firstEntry ? "}\n}\n" : "\n  }\n}\n";
    writeFileAtomically(indexPath, index);
}

} // namespace qs
