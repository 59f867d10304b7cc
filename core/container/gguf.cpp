#include "container/gguf.h"

#include "base/intmath.h"
#include "container/ggmltype.h"
#include "base/atomicfile.h"
#include "base/error.h"
#include "base/cancel.h"
#include "base/progress.h"
#include "base/message.h"
#include "base/stringindex.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>

namespace qs {

static_assert(std::endian::native == std::endian::little, "the GGUF reader assumes a little-endian host");

namespace {

using Type = MetaValue::Type;

constexpr uint64_t kDefaultAlignment = 32;
// Limits of ggml's own reader (spec 1.9): anything larger is corrupt, not a real model.
constexpr uint64_t kMaxStringBytes = uint64_t(1) << 30;
constexpr uint64_t kMaxArrayCount = uint64_t(1) << 30;
constexpr uint64_t kMaxSigned = uint64_t(INT64_MAX);
constexpr uint32_t kMaxDims = 4;
// ggml refuses arrays of arrays altogether; the spec allows them. Depth is bounded so that a
// file of nested array headers cannot exhaust the stack.
constexpr int kMaxArrayDepth = 16;
constexpr int kTypeCount = 13;
// Each metadata array element becomes a MetaValue (tens of bytes), so the total is capped
// well above real tokenizers (about 10^6 elements) to keep a hostile file's memory bounded.
constexpr uint64_t kMaxMetadataElements = uint64_t(1) << 24;
// Repeated metadata keys named one note each; records repeating further keys are counted.
constexpr size_t kMaxDuplicateNotes = 16;

std::string num(uint64_t v)
{
    return std::to_string(v);
}

std::string typeName(uint32_t t)
{
    return t < kTypeCount ? std::string(metaTypeName(static_cast<Type>(t))) : "type " + num(t);
}

// A name from the file as it appears in messages, shortened when absurdly long.
std::string shownName(std::string_view name)
{
    constexpr size_t kMax = 120;
    return "'" + std::string(name.substr(0, kMax))
        + (name.size() > kMax ? "...' (" + num(name.size()) + " bytes)" : "'");
}

// Counts from the file only bound what is read; reservations stay modest so a corrupt count
// in a large file cannot claim memory before the parse fails.
size_t modest(uint64_t n)
{
    return static_cast<size_t>(std::min<uint64_t>(n, 1u << 16));
}

bool isPowerOfTwo(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

uint64_t padTo(uint64_t x, uint64_t alignment)
{
    return x + (alignment - x % alignment) % alignment;
}

// Smallest encoding of one value of type `t`: bounds element counts against the bytes left
// before anything is allocated.
uint64_t minValueBytes(uint32_t t, bool v1)
{
    switch (static_cast<Type>(t)) {
    case Type::U8:
    case Type::I8:
    case Type::Bool: return 1;
    case Type::U16:
    case Type::I16: return 2;
    case Type::U32:
    case Type::I32:
    case Type::F32: return 4;
    case Type::U64:
    case Type::I64:
    case Type::F64: return 8;
    case Type::String: return v1 ? 4 : 8;
    case Type::Array: return v1 ? 8 : 12;
    }
    return 1;
}

// What a read is of ("header", "metadata key 'x'", "tensor 'y'"), for messages: its text is
// made only when a read fails, never once per record (a string or two per tensor was a good
// part of listing a file of a million tensors).
class Field {
public:
    Field(const char* text)
        : m_text(text)
    {
    }
    Field(const std::string& text)
        : m_text(text)
    {
    }
    static Field metadataRecord(uint64_t i) { return Field("metadata record ", {}, i, Kind::Index); }
    static Field metadataKey(std::string_view key) { return Field("metadata key ", key, 0, Kind::Name); }
    static Field tensorInfo(uint64_t i) { return Field("tensor info ", {}, i, Kind::Index); }
    static Field tensor(std::string_view name) { return Field("tensor ", name, 0, Kind::Name); }

    std::string text() const
    {
        switch (m_kind) {
        case Kind::Index: return std::string(m_text) + num(m_index);
        case Kind::Name: return std::string(m_text) + shownName(m_name);
        case Kind::Text: break;
        }
        return std::string(m_text);
    }

private:
    enum class Kind : uint8_t { Text, Index, Name };
    Field(std::string_view text, std::string_view name, uint64_t index, Kind kind)
        : m_text(text)
        , m_name(name)
        , m_index(index)
        , m_kind(kind)
    {
    }
    std::string_view m_text;
    std::string_view m_name;
    uint64_t m_index = 0;
    Kind m_kind = Kind::Text;
};

// Bounds-checked little-endian reads over a mapped file. `field` names what is being read,
// `part` the piece of it.
class Cursor {
public:
    Cursor(const MappedFile& f, bool v1)
        : m_file(f)
        , m_path(f.path())
        , m_data(f.bytes().data())
        , m_size(f.size())
        , m_v1(v1)
    {
    }

    uint64_t pos() const { return m_pos; }
    uint64_t left() const { return m_size - m_pos; }
    bool v1() const { return m_v1; }
    void setV1(bool v1) { m_v1 = v1; }

    [[noreturn]] void failAt(const Field& field, const std::string& what) const
    {
        fail(m_path, field.text() + ": " + what);
    }

    // `part` + `suffix` name the piece read; they are only joined when reporting a failure.
    void need(uint64_t n, const Field& field, std::string_view part, std::string_view suffix = {}) const
    {
        if (n > left())
            failAt(field,
                   std::string(part) + std::string(suffix) + " needs " + num(n) + " bytes at offset " + num(m_pos)
                       + ", past the end of the file (" + num(m_size) + " bytes)");
        m_file.ensure(m_pos, n); // a remote file's header comes in as it is parsed
    }

    template <class T>
    T get(const Field& field, std::string_view part, std::string_view suffix = {})
    {
        need(sizeof(T), field, part, suffix);
        T v;
        std::memcpy(&v, m_data + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }

    // String lengths, array counts and (v1) dimensions: u32 in v1, u64 from v2 on.
    uint64_t count(const Field& field, std::string_view part, std::string_view suffix = {})
    {
        return m_v1 ? get<uint32_t>(field, part, suffix) : get<uint64_t>(field, part, suffix);
    }

    std::string_view string(const Field& field, std::string_view part)
    {
        const uint64_t n = count(field, part, " length");
        if (n > kMaxStringBytes)
            failAt(field, std::string(part) + " length " + num(n) + " exceeds the 1 GiB limit");
        if (n > left())
            need(n, field, part, " of " + num(n) + " bytes");
        m_file.ensure(m_pos, n);
        const std::string_view s(reinterpret_cast<const char*>(m_data + m_pos), n);
        m_pos += n;
        return s;
    }

private:
    const MappedFile& m_file;
    const std::string& m_path;
    const uint8_t* m_data;
    uint64_t m_size;
    uint64_t m_pos = 0;
    bool m_v1;
};

struct ParseState {
    bool nonBinaryBool = false; // a bool that is neither 0 nor 1 was read
    uint64_t elements = 0; // array elements expanded so far
};

MetaValue readValue(Cursor& c, uint32_t type, const Field& field, int depth, ParseState& st)
{
    MetaValue v;
    v.type = static_cast<Type>(type);
    switch (v.type) {
    case Type::U8: v.value = uint64_t(c.get<uint8_t>(field, "u8 value")); break;
    case Type::I8: v.value = int64_t(c.get<int8_t>(field, "i8 value")); break;
    case Type::U16: v.value = uint64_t(c.get<uint16_t>(field, "u16 value")); break;
    case Type::I16: v.value = int64_t(c.get<int16_t>(field, "i16 value")); break;
    case Type::U32: v.value = uint64_t(c.get<uint32_t>(field, "u32 value")); break;
    case Type::I32: v.value = int64_t(c.get<int32_t>(field, "i32 value")); break;
    case Type::F32: v.value = double(c.get<float>(field, "f32 value")); break;
    case Type::U64: v.value = c.get<uint64_t>(field, "u64 value"); break;
    case Type::I64: v.value = c.get<int64_t>(field, "i64 value"); break;
    case Type::F64: v.value = c.get<double>(field, "f64 value"); break;
    case Type::Bool: {
        const uint8_t b = c.get<uint8_t>(field, "bool value");
        // ggml's reader takes any non-zero byte as true; the spec allows only 0 and 1.
        st.nonBinaryBool |= b > 1;
        v.value = b != 0;
        break;
    }
    case Type::String: v.value = std::string(c.string(field, "string")); break;
    case Type::Array: {
        if (depth >= kMaxArrayDepth)
            c.failAt(field, "arrays nested more than " + num(kMaxArrayDepth) + " levels deep");
        const uint32_t elem = c.get<uint32_t>(field, "array element type");
        if (elem >= kTypeCount)
            c.failAt(field, "array element type " + num(elem) + " is not a GGUF value type (0..12)");
        const uint64_t n = c.count(field, "array length");
        const uint64_t minBytes = minValueBytes(elem, c.v1());
        if (n > c.left() / minBytes)
            c.failAt(field,
                     "array of " + num(n) + " " + typeName(elem) + " elements cannot fit in the " + num(c.left())
                         + " bytes left in the file");
        if (n > kMaxArrayCount)
            c.failAt(field, "array length " + num(n) + " exceeds the limit of 2^30 elements");
        if (n > kMaxMetadataElements - st.elements)
            c.failAt(field,
                     "array of " + num(n) + " elements takes the metadata past " + num(kMaxMetadataElements)
                         + " array elements in all, more than any real model carries");
        st.elements += n;
        v.arrayType = static_cast<Type>(elem);
        auto& items = v.value.emplace<std::vector<MetaValue>>();
        if (elem == static_cast<uint32_t>(Type::String)) {
            // Tokenizer vocabularies hold hundreds of thousands of strings. A first pass checks
            // every length against the file (failing exactly where the build below would), so
            // the vector is sized once: growing it moved and freed every element again.
            Cursor scan = c;
            for (uint64_t i = 0; i < n; ++i)
                scan.string(field, "string");
            items.resize(n);
            for (MetaValue& item : items)
                item.value.emplace<std::string>(c.string(field, "string"));
        } else if (elem != static_cast<uint32_t>(Type::Array)) {
            // Fixed-size elements: the bytes-left check above already proved all n are there.
            items.reserve(n);
            for (uint64_t i = 0; i < n; ++i)
                items.push_back(readValue(c, elem, field, depth + 1, st));
        } else {
            items.reserve(modest(n));
            for (uint64_t i = 0; i < n; ++i)
                items.push_back(readValue(c, elem, field, depth + 1, st));
        }
        break;
    }
    }
    return v;
}

// An integer-typed metadata value as an unsigned number; nullopt for non-integers and
// negative values.
std::optional<uint64_t> asUnsigned(const MetaValue& v)
{
    if (const auto* u = std::get_if<uint64_t>(&v.value))
        return *u;
    if (const auto* s = std::get_if<int64_t>(&v.value); s && *s >= 0)
        return static_cast<uint64_t>(*s);
    return std::nullopt;
}

const MetaValue* findMeta(const GgufMetadata& meta, std::string_view key)
{
    for (const auto& [k, v] : meta)
        if (k == key)
            return &v;
    return nullptr;
}

uint64_t alignmentOf(const std::string& path, const GgufMetadata& meta)
{
    const MetaValue* a = findMeta(meta, "general.alignment");
    if (!a)
        return kDefaultAlignment;
    // Both reference readers insist on u32 here.
    if (a->type != Type::U32)
        fail(path,
             "metadata key 'general.alignment': must be of type u32, found " + std::string(metaTypeName(a->type)));
    const uint64_t v = asUnsigned(*a).value_or(0);
    if (!isPowerOfTwo(v))
        fail(path, "metadata key 'general.alignment': " + num(v) + " is not a non-zero power of two");
    return v;
}

// One parsed GGUF file.
struct GgufFile {
    std::shared_ptr<MappedFile> map;
    int version = 0;
    uint64_t alignment = kDefaultAlignment;
    GgufMetadata metadata;
    std::vector<TensorEntry> tensors; // TensorEntry::file still 0
    NameArena names; // the tensors' names
    std::vector<Message> notes;
};

void checkMagicAndVersion(Cursor& c, const MappedFile& f, int& version)
{
    if (f.size() == 0)
        fail(f.path(), "empty file (0 bytes): not a GGUF file");
    c.need(4, "header", "magic");
    const uint8_t* m = f.bytes().data();
    if (std::memcmp(m, "FUGG", 4) == 0)
        fail(f.path(),
             "header: magic 'FUGG' marks a big-endian GGUF file; only little-endian GGUF files are supported");
    if (std::memcmp(m, "GGUF", 4) != 0) {
        char hex[40];
        std::snprintf(hex, sizeof hex, "%02x %02x %02x %02x", m[0], m[1], m[2], m[3]);
        fail(f.path(), std::string("header: bad magic ") + hex + " (a GGUF file starts with 'GGUF' = 47 47 55 46)");
    }
    c.get<uint32_t>("header", "magic");
    const uint32_t v = c.get<uint32_t>("header", "version");
    // A byte-swapped small version number has its low 16 bits zero (ggml and gguf-py test this).
    if (v != 0 && (v & 0xFFFFu) == 0) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08x", v);
        fail(f.path(),
             std::string("header: version field ") + hex + " is version " + num(__builtin_bswap32(v))
                 + " stored big-endian; only little-endian GGUF files are supported");
    }
    if (v < 1 || v > 3)
        fail(f.path(), "header: unsupported GGUF version " + num(v) + " (supported: 1, 2, 3)");
    version = static_cast<int>(v);
}

// Where a tensor's data lies, as its info says, until the data section is placed.
struct PendingData {
    uint64_t offset;
    uint32_t type;
    bool sized; // its type has a size: nbytes is set
};

// The metadata records: every record kept (a repeated key noted, lookups use its first record).
void readMetadata(Cursor& c, GgufFile& out, uint64_t kvCount)
{
    const std::string& path = out.map->path();
    ParseState st;
    std::string nonBinaryBoolKey; // the first key holding such a bool, as shownName gives it
    StringIndex keys(modest(kvCount));
    const auto keyAt = [&](size_t k) -> const std::string& { return out.metadata[k].first; };
    // Keys that appear more than once, in the order of their first repetition: the first
    // kMaxDuplicateNotes get a note each, every further repeated record is counted.
    struct Repeated {
        uint64_t first, second; // record numbers
        uint64_t records; // how many records hold the key
        std::string firstValue, secondValue;
    };
    std::vector<Repeated> repeated;
    uint64_t repeatsUnnamed = 0;
    out.metadata.reserve(modest(kvCount));
    for (uint64_t i = 0; i < kvCount; ++i) {
        throwIfCancelled(currentCancelFlag()); // a million records is seconds: Cancel stops the listing
        const std::string_view key = c.string(Field::metadataRecord(i), "key");
        const Field field = Field::metadataKey(key);
        const size_t first = keys.findOrInsert(key, out.metadata.size(), keyAt);
        const uint32_t type = c.get<uint32_t>(field, "value type");
        if (type >= kTypeCount)
            c.failAt(field, "value type " + num(type) + " is not a GGUF value type (0..12)");
        out.metadata.emplace_back(std::string(key), readValue(c, type, field, 0, st));
        if (st.nonBinaryBool && nonBinaryBoolKey.empty())
            nonBinaryBoolKey = shownName(key);
        if (first == StringIndex::npos)
            continue;
        // The file stays readable: list every record, say which one lookups use and what the
        // upstream readers do with it. A key repeated a million times is one note, not a million.
        const auto named =
            std::find_if(repeated.begin(), repeated.end(), [&](const Repeated& r) { return r.first == first; });
        if (named != repeated.end())
            ++named->records;
        else if (repeated.size() < kMaxDuplicateNotes)
            repeated.push_back({first, i, 2, out.metadata[first].second.toDisplayString(),
                                out.metadata.back().second.toDisplayString()});
        else
            ++repeatsUnnamed;
    }
    for (const Repeated& r : repeated) {
        const std::string key = shownName(out.metadata[r.first].first);
        if (r.records == 2)
            out.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "%1: metadata key %2 appears twice: record %3 holds %4, record %5 holds %6; "
                                   "Quantscope uses the first, llama.cpp refuses the file (duplicate key), "
                                   "gguf-py warns and keeps both"),
                 {path, key, num(r.first), r.firstValue, num(r.second), r.secondValue}});
        else
            out.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "%1: metadata key %2 appears %3 times: record %4 holds %5, record %6 holds %7, "
                                   "and so on; Quantscope uses the first, llama.cpp refuses the file (duplicate "
                                   "key), gguf-py warns and keeps them all"),
                 {path, key, num(r.records), num(r.first), r.firstValue, num(r.second), r.secondValue}});
    }
    if (repeatsUnnamed)
        out.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "%1: %2 more metadata records repeat a key that other keys' notes do not name "
                               "(only the first %3 repeated keys are named); lookups use each key's first record"),
             {path, num(repeatsUnnamed), num(kMaxDuplicateNotes)}});
    if (!nonBinaryBoolKey.empty())
        out.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message",
                               "%1: metadata key %2: a bool value is neither 0 nor 1; read as true, as ggml does"),
             {path, nonBinaryBoolKey}});
}

// The tensor infos: name, shape, type and size where the type has one (TensorEntry::offset set
// later by placeTensorData).
std::vector<PendingData> readTensorInfos(Cursor& c, GgufFile& out, uint64_t tensorCount)
{
    std::vector<PendingData> pending;
    pending.reserve(modest(tensorCount));
    out.tensors.reserve(modest(tensorCount));
    StringIndex names(modest(tensorCount));
    const auto nameAt = [&](size_t k) { return out.tensors[k].name; };
    for (uint64_t i = 0; i < tensorCount; ++i) {
        throwIfCancelled(currentCancelFlag());
        const std::string_view name = c.string(Field::tensorInfo(i), "name");
        const Field field = Field::tensor(name);
        if (const size_t seen = names.findOrInsert(name, out.tensors.size(), nameAt); seen != StringIndex::npos)
            c.failAt(field, "duplicate tensor name (tensor infos " + num(seen) + " and " + num(i) + ")");
        const uint32_t nDims = c.get<uint32_t>(field, "n_dims");
        if (nDims > kMaxDims)
            c.failAt(field, "n_dims " + num(nDims) + " exceeds the maximum of 4");
        uint64_t ne[kMaxDims] = {1, 1, 1, 1};
        static constexpr std::string_view kNe[kMaxDims] = {"ne[0]", "ne[1]", "ne[2]", "ne[3]"};
        for (uint32_t d = 0; d < nDims; ++d) {
            ne[d] = c.count(field, kNe[d]);
            if (ne[d] > kMaxSigned)
                c.failAt(field, std::string(kNe[d]) + " = " + num(ne[d]) + " is negative as int64");
        }
        const uint32_t type = c.get<uint32_t>(field, "type");
        const uint64_t offset = c.get<uint64_t>(field, "data offset");

        uint64_t rows = 1;
        uint64_t elements = ne[0];
        for (uint32_t d = 1; d < kMaxDims; ++d) {
            if (__builtin_mul_overflow(rows, ne[d], &rows) || __builtin_mul_overflow(elements, ne[d], &elements)
                || elements > kMaxSigned) {
                std::string dims;
                for (uint32_t k = 0; k < nDims; ++k)
                    dims += (k ? " x " : "") + num(ne[k]);
                c.failAt(field, "dimensions " + dims + " overflow a 64-bit element count");
            }
        }

        TensorEntry t;
        t.name = out.names.keep(name);
        t.dtype = DType::Ggml;
        t.ggmlType = static_cast<int>(std::min<uint32_t>(type, INT32_MAX));
        const GgmlTypeInfo* info = ggmlType(type);
        const IkLlamaType* ik = info ? nullptr : ikLlamaType(type);
        t.typeName = info ? info->name : ik ? ik->name : out.names.keep(ggmlTypeName(type));
        t.shape.assign(std::make_reverse_iterator(ne + nDims), std::make_reverse_iterator(ne));
        const bool sized = info && info->hasSize();
        if (sized) {
            if (ne[0] % info->blockWeights != 0)
                c.failAt(field,
                         "ne[0] = " + num(ne[0]) + " is not a multiple of the " + std::string(info->name)
                             + " block size " + num(info->blockWeights));
            uint64_t rowBytes = 0;
            if (__builtin_mul_overflow(ne[0] / info->blockWeights, uint64_t(info->blockBytes), &rowBytes)
                || __builtin_mul_overflow(rowBytes, rows, &t.nbytes))
                c.failAt(field,
                         "byte size (" + num(ne[0] / info->blockWeights) + " blocks of " + num(info->blockBytes)
                             + " bytes per row x " + num(rows) + " rows) overflows 64 bits");
        } else {
            t.known = false;
        }
        out.tensors.push_back(std::move(t));
        pending.push_back({offset, type, sized});
    }

    return pending;
}

// Each tensor's data in the data section, checked against the alignment and the file's end.
void placeTensorData(Cursor& c, GgufFile& out, const std::vector<PendingData>& pending)
{
    const std::string& path = out.map->path();
    const MappedFile& f = *out.map;
    // ggml only pads up to the data section when there are tensors.
    const uint64_t infoEnd = c.pos();
    const uint64_t dataStart = padTo(infoEnd, out.alignment);
    if (!out.tensors.empty() && dataStart > f.size())
        fail(path,
             "data section: starts at offset " + num(dataStart) + " (tensor infos end at " + num(infoEnd)
                 + ", padded to the alignment " + num(out.alignment) + "), past the end of the file (" + num(f.size())
                 + " bytes)");

    const uint64_t room = f.size() - std::min(dataStart, f.size());
    for (size_t i = 0; i < out.tensors.size(); ++i) {
        TensorEntry& t = out.tensors[i];
        const PendingData& p = pending[i];
        const Field field = Field::tensor(t.name);
        if (p.offset % out.alignment != 0)
            c.failAt(field,
                     "data offset " + num(p.offset) + " is not a multiple of the alignment " + num(out.alignment));
        if (p.offset > room || (p.sized && t.nbytes > room - p.offset))
            c.failAt(field,
                     "data at offset " + num(p.offset) + " of the data section (file bytes " + num(dataStart + p.offset)
                         + ".." + num(dataStart + p.offset + (p.sized ? t.nbytes : 0))
                         + ") lies past the end of the file (" + num(f.size()) + " bytes)");
        t.offset = dataStart + p.offset;
    }
}

// Whether `need` bytes fill an extent up to the next tensor, the padding to the alignment aside.
bool fillsExtent(uint64_t need, uint64_t extent, uint64_t alignment)
{
    return need <= extent && extent - need < alignment;
}

// The size of a tensor whose type mainline ggml cannot size, and why it is not decoded: its
// extent up to the next tensor or the end of the file, checked against the size rule of the
// fork that defines the id where one is known (BitNet's I2_S in id 36, ik_llama.cpp's types).
Message sizeForkTensor(TensorEntry& t, uint32_t type, uint64_t extent, uint64_t alignment)
{
    t.nbytes = extent;
    const uint64_t elements = t.elementCount(), ne0 = t.shape.empty() ? 1 : t.shape.back();
    const uint64_t rows = ne0 ? elements / ne0 : 0;
    if (type == kGgmlI2S) {
        const uint64_t i2s = bitnetI2sBytes(elements);
        // Mainline's IQ4_NL_4_4 (removed): IQ4_NL blocks of 32 weights in 18 bytes, four rows interleaved.
        const std::string nl = ne0 % 32 == 0 ? num(elements / 32 * 18) : "?";
        const bool nlFits = nl != "?" && fillsExtent(elements / 32 * 18, extent, alignment);
        if (fillsExtent(i2s, extent, alignment) && nlFits)
            return {QT_TRANSLATE_NOOP("qs::Message",
                                      "ggml type id 36: the %1 bytes before the next tensor fit both BitNet's I2_S "
                                      "(%2 bytes for %3 weights) and IQ4_NL_4_4, which mainline ggml removed (%4): "
                                      "which one it is stays open; not decoded"),
                    {num(extent), num(i2s), num(elements), nl}};
        if (fillsExtent(i2s, extent, alignment)) {
            t.typeName = "I2_S";
            t.nbytes = i2s;
            return {QT_TRANSLATE_NOOP("qs::Message",
                                      "ggml type id 36 read as BitNet's I2_S (ternary codes, four a byte, then one f32 "
                                      "scale): %1 weights take %2 bytes by its size rule (weights / 4 + 32), which "
                                      "fill the %3 bytes before the next tensor; IQ4_NL_4_4, which mainline ggml "
                                      "gave id 36 and removed, would take %4. Not decoded: the order of the codes "
                                      "depends on the machine that quantized it (x86: 128 weights in 32 bytes, ARM: "
                                      "64 in 16, or four rows interleaved) and the file does not say which"),
                    {num(elements), num(i2s), num(extent), nl}};
        }
        if (!nlFits)
            return {QT_TRANSLATE_NOOP("qs::Message",
                                      "ggml type id 36 fits no size rule: %1 bytes lie before the next tensor or the "
                                      "end of the file, BitNet's I2_S takes %2 for %3 weights and IQ4_NL_4_4, which "
                                      "mainline ggml removed, %4; not decoded"),
                    {num(extent), num(i2s), num(elements), nl}};
    }
    if (const IkLlamaType* ik = ikLlamaType(type)) {
        const std::string name(ik->name);
        if (!ik->blockWeights)
            return {QT_TRANSLATE_NOOP("qs::Message",
                                      "ik_llama.cpp's type %1 (id %2): listed, not decoded; no size rule is checked "
                                      "for it, its extent is taken up to the next tensor or the end of the file (%3 "
                                      "bytes)"),
                    {name, num(type), num(extent)}};
        const uint64_t rowBytes = ik->rowMetaBytes + ne0 / ik->blockWeights * uint64_t(ik->blockBytes);
        const std::optional<uint64_t> need = ne0 % ik->blockWeights == 0 ? mulChecked(rows, rowBytes) : std::nullopt;
        if (!need || !fillsExtent(*need, extent, alignment))
            return {QT_TRANSLATE_NOOP("qs::Message",
                                      "ik_llama.cpp's type %1 (id %2) does not fit its size rule: %3 rows of %4 "
                                      "weights take %5 bytes (ne[0] a multiple of %6, %7 bytes of blocks and %8 of "
                                      "row scale a row), %9 bytes lie before the next tensor or the end of the file; "
                                      "not decoded"),
                    {name, num(type), num(rows), num(ne0), need ? num(*need) : "?", num(ik->blockWeights),
                     num(ne0 / ik->blockWeights * uint64_t(ik->blockBytes)), num(ik->rowMetaBytes), num(extent)}};
        t.nbytes = *need;
        return {QT_TRANSLATE_NOOP("qs::Message",
                                  "ik_llama.cpp's type %1 (id %2): listed, not decoded; its %3 bytes follow "
                                  "ik_llama.cpp's row size (%4 rows of %5 bytes)"),
                {name, num(type), num(*need), num(rows), num(rowBytes)}};
    }
    return ggmlType(type) ? Message(QT_TRANSLATE_NOOP("qs::Message",
                                                      "ggml type %1 (%2) was removed from ggml; not decoded; its "
                                                      "extent is taken up to the next tensor or the end of the file "
                                                      "(%3 bytes)"),
                                    {num(type), std::string(t.typeName), num(extent)})
                          : Message(QT_TRANSLATE_NOOP("qs::Message",
                                                      "ggml type id %1 is unknown; not decoded; its extent is taken "
                                                      "up to the next tensor or the end of the file (%2 bytes)"),
                                    {num(type), num(extent)});
}

// Sizes of tensors whose type we cannot size: up to the next tensor or the end of the file
// (offsets are explicit, so every other tensor stays readable), checked against a fork's size
// rule where one is known. Then overlaps; then a note when the data is not packed in tensor-info
// order.
void sizeAndCheckExtents(GgufFile& out, const std::vector<PendingData>& pending)
{
    const std::string& path = out.map->path();
    std::vector<size_t> order(out.tensors.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return out.tensors[a].offset != out.tensors[b].offset ? out.tensors[a].offset < out.tensors[b].offset : a < b;
    });
    // Walked backwards, `end` is the first offset past the current one: linear even when
    // many tensors share an offset.
    uint64_t end = out.map->size();
    for (size_t k = order.size(); k-- > 0;) {
        TensorEntry& t = out.tensors[order[k]];
        if (k + 1 < order.size() && out.tensors[order[k + 1]].offset > t.offset)
            end = out.tensors[order[k + 1]].offset;
        if (pending[order[k]].sized)
            continue;
        t.note = sizeForkTensor(t, pending[order[k]].type, end - t.offset, out.alignment);
    }
    for (size_t k = 0; k + 1 < order.size(); ++k) {
        const TensorEntry& a = out.tensors[order[k]];
        const TensorEntry& b = out.tensors[order[k + 1]];
        if (pending[order[k]].sized && a.nbytes > 0 && a.offset + a.nbytes > b.offset)
            fail(path,
                 "tensor " + shownName(a.name) + ": data bytes " + num(a.offset) + ".." + num(a.offset + a.nbytes)
                     + " overlap tensor " + shownName(b.name) + " starting at " + num(b.offset));
    }

    // ggml's writer packs tensors in info order; ggml's reader refuses anything else.
    uint64_t expected = 0;
    for (size_t i = 0; i < out.tensors.size(); ++i) {
        if (!pending[i].sized)
            break;
        if (pending[i].offset != expected) {
            out.notes.push_back(
                {QT_TRANSLATE_NOOP("qs::Message",
                                   "%1: tensor data is not packed in tensor-info order (first at tensor %2); "
                                   "ggml's own reader would refuse this file"),
                 {path, shownName(out.tensors[i].name)}});
            break;
        }
        expected += padTo(out.tensors[i].nbytes, out.alignment);
    }
}

GgufFile parseGgufFile(std::shared_ptr<MappedFile> map)
{
    GgufFile out;
    out.map = std::move(map);
    const MappedFile& f = *out.map;
    Cursor c(f, false);
    checkMagicAndVersion(c, f, out.version);
    const bool v1 = out.version == 1;
    c.setV1(v1);

    const uint64_t tensorCount = c.count("header", "tensor_count");
    const uint64_t kvCount = c.count("header", "kv_count");
    // Tensor info: name length + n_dims + type + offset at least; KV: key length + type + 1 byte.
    const uint64_t minInfo = (v1 ? 4 : 8) + 4 + 4 + 8;
    const uint64_t minKv = (v1 ? 4 : 8) + 4 + 1;
    if (tensorCount > kMaxSigned || tensorCount > c.left() / minInfo)
        c.failAt("header",
                 "tensor_count " + num(tensorCount) + " is impossible: each tensor info needs at least " + num(minInfo)
                     + " bytes and only " + num(c.left()) + " bytes follow the header");
    if (kvCount > kMaxSigned || kvCount > c.left() / minKv)
        c.failAt("header",
                 "kv_count " + num(kvCount) + " is impossible: each metadata record needs at least " + num(minKv)
                     + " bytes and only " + num(c.left()) + " bytes follow the header");

    readMetadata(c, out, kvCount);
    out.alignment = alignmentOf(f.path(), out.metadata);
    const std::vector<PendingData> pending = readTensorInfos(c, out, tensorCount);
    placeTensorData(c, out, pending);
    sizeAndCheckExtents(out, pending);
    return out;
}

std::optional<uint64_t> metaCount(const GgufFile& g, std::string_view key)
{
    const MetaValue* v = findMeta(g.metadata, key);
    if (!v)
        return std::nullopt;
    const auto n = asUnsigned(*v);
    if (!n)
        fail(g.map->path(),
             "metadata key '" + std::string(key) + "': must be a non-negative integer, found "
                 + std::string(metaTypeName(v->type)) + " " + v->toDisplayString());
    return n;
}

// "<prefix>-00002-of-00003.gguf" -> prefix, 2, 3.
bool parseSplitName(const std::string& path, std::string& prefix, uint32_t& no, uint32_t& count)
{
    constexpr std::string_view tail = "-NNNNN-of-NNNNN.gguf";
    if (path.size() <= tail.size())
        return false;
    const std::string_view t = std::string_view(path).substr(path.size() - tail.size());
    auto digits = [&](size_t at, uint32_t& v) {
        v = 0;
        for (size_t i = at; i < at + 5; ++i) {
            if (t[i] < '0' || t[i] > '9')
                return false;
            v = v * 10 + static_cast<uint32_t>(t[i] - '0');
        }
        return true;
    };
    if (t[0] != '-' || t.substr(6, 4) != "-of-" || t.substr(15) != ".gguf" || !digits(1, no) || !digits(10, count))
        return false;
    prefix = path.substr(0, path.size() - tail.size());
    return true;
}

void appendFile(Checkpoint& ckpt, GgufFile& g)
{
    const uint32_t idx = ckpt.addFile(g.map);
    for (auto& t : g.tensors)
        t.file = idx;
    // Taken whole when it is the first file: no second copy of the records at the peak.
    if (ckpt.tensors.empty()) {
        ckpt.tensors = std::move(g.tensors);
    } else {
        ckpt.tensors.reserve(ckpt.tensors.size() + g.tensors.size());
        std::move(g.tensors.begin(), g.tensors.end(), std::back_inserter(ckpt.tensors));
    }
    g.tensors = {};
    ckpt.takeNames(std::move(g.names));
    for (auto& n : g.notes)
        ckpt.notes.push_back(std::move(n));
}

// ---- writing ------------------------------------------------------------------------------

class Out {
public:
    Out(const std::string& path, bool v1)
        : m_path(path)
        , m_v1(v1)
    {
    }
    std::vector<uint8_t> bytes;

    template <class T>
    void put(T v)
    {
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        bytes.insert(bytes.end(), p, p + sizeof(T));
    }
    void count(uint64_t n, std::string_view field)
    {
        if (!m_v1)
            return put<uint64_t>(n);
        if (n > UINT32_MAX)
            fail(m_path, std::string(field) + ": " + num(n) + " does not fit GGUF v1's 32-bit counts");
        put<uint32_t>(static_cast<uint32_t>(n));
    }
    void string(std::string_view s, std::string_view field)
    {
        count(s.size(), field);
        bytes.insert(bytes.end(), s.begin(), s.end());
    }
    [[noreturn]] void failAt(std::string_view field, const std::string& what) const
    {
        fail(m_path, std::string(field) + ": " + what);
    }

private:
    const std::string& m_path;
    bool m_v1;
};

template <class T>
T integerAs(Out& out, const MetaValue& v, std::string_view field)
{
    if (const auto* u = std::get_if<uint64_t>(&v.value)) {
        if (*u <= static_cast<uint64_t>(std::numeric_limits<T>::max()))
            return static_cast<T>(*u);
    } else if (const auto* s = std::get_if<int64_t>(&v.value)) {
        if (std::is_signed_v<T>
                ? (*s >= std::numeric_limits<T>::min() && *s <= std::numeric_limits<T>::max())
                : (*s >= 0 && static_cast<uint64_t>(*s) <= static_cast<uint64_t>(std::numeric_limits<T>::max())))
            return static_cast<T>(*s);
    } else {
        out.failAt(field, std::string(metaTypeName(v.type)) + " value does not hold an integer");
    }
    out.failAt(field, "value " + v.toDisplayString() + " does not fit " + std::string(metaTypeName(v.type)));
}

double floatOf(Out& out, const MetaValue& v, std::string_view field)
{
    if (const auto* d = std::get_if<double>(&v.value))
        return *d;
    out.failAt(field, std::string(metaTypeName(v.type)) + " value does not hold a floating-point number");
}

void writeValue(Out& out, const MetaValue& v, std::string_view field)
{
    switch (v.type) {
    case Type::U8: return out.put(integerAs<uint8_t>(out, v, field));
    case Type::I8: return out.put(integerAs<int8_t>(out, v, field));
    case Type::U16: return out.put(integerAs<uint16_t>(out, v, field));
    case Type::I16: return out.put(integerAs<int16_t>(out, v, field));
    case Type::U32: return out.put(integerAs<uint32_t>(out, v, field));
    case Type::I32: return out.put(integerAs<int32_t>(out, v, field));
    case Type::U64: return out.put(integerAs<uint64_t>(out, v, field));
    case Type::I64: return out.put(integerAs<int64_t>(out, v, field));
    case Type::F32: return out.put(static_cast<float>(floatOf(out, v, field)));
    case Type::F64: return out.put(floatOf(out, v, field));
    case Type::Bool:
        if (const auto* b = std::get_if<bool>(&v.value))
            return out.put<uint8_t>(*b ? 1 : 0);
        out.failAt(field, "bool value does not hold a bool");
    case Type::String:
        if (const auto* s = std::get_if<std::string>(&v.value))
            return out.string(*s, field);
        out.failAt(field, "string value does not hold a string");
    case Type::Array: {
        const auto* items = std::get_if<std::vector<MetaValue>>(&v.value);
        if (!items)
            out.failAt(field, "array value does not hold a list");
        out.put<uint32_t>(static_cast<uint32_t>(v.arrayType));
        out.count(items->size(), field);
        for (const auto& item : *items) {
            if (item.type != v.arrayType)
                out.failAt(field,
                           "array of " + std::string(metaTypeName(v.arrayType)) + " holds a "
                               + std::string(metaTypeName(item.type)) + " element");
            writeValue(out, item, field);
        }
        return;
    }
    }
    out.failAt(field, "invalid value type");
}

MetaValue scalarMeta(Type t, uint64_t v)
{
    MetaValue m;
    m.type = t;
    if (t == Type::I32)
        m.value = static_cast<int64_t>(v);
    else
        m.value = v;
    return m;
}

} // namespace

void readGguf(Checkpoint& ckpt, const std::string& path)
{
    readGguf(ckpt, std::make_shared<MappedFile>(path));
}

void readGguf(Checkpoint& ckpt, std::shared_ptr<MappedFile> map, const FolderFiles* folder)
{
    const std::string path = map->path();
    GgufFile first = parseGgufFile(std::move(map));
    ckpt.container = Container::Gguf;
    const auto splitCount = metaCount(first, "split.count");
    if (!splitCount || *splitCount == 1) {
        ckpt.ggufVersion = first.version;
        ckpt.ggufAlignment = first.alignment;
        ckpt.metadata = std::move(first.metadata);
        appendFile(ckpt, first);
        return;
    }
    if (*splitCount == 0 || *splitCount > 99999)
        fail(path, "metadata key 'split.count': " + num(*splitCount) + " is not a valid number of splits (1..99999)");
    const auto splitNo = metaCount(first, "split.no");
    if (!splitNo)
        fail(path, "metadata key 'split.no': missing, although split.count is " + num(*splitCount));
    if (*splitNo >= *splitCount)
        fail(path, "metadata key 'split.no': " + num(*splitNo) + " is not below split.count " + num(*splitCount));
    std::string prefix;
    uint32_t nameNo = 0, nameCount = 0;
    if (!parseSplitName(path, prefix, nameNo, nameCount))
        fail(path,
             "split " + num(*splitNo + 1) + " of " + num(*splitCount)
                 + ", but the file name does not follow <prefix>-NNNNN-of-NNNNN.gguf, so the other splits cannot be "
                   "found");
    if (nameNo != *splitNo + 1 || nameCount != *splitCount)
        fail(path,
             "the file name says split " + num(nameNo) + " of " + num(nameCount) + " but split.no/split.count say "
                 + num(*splitNo + 1) + " of " + num(*splitCount));

    const auto count = static_cast<uint32_t>(*splitCount);
    std::vector<GgufFile> splits(count);
    splits[*splitNo] = std::move(first);
    for (uint32_t k = 0; k < count; ++k) {
        if (k == *splitNo)
            continue;
        const std::string sibling = ggufSplitPath(prefix, k + 1, count);
        const std::string siblingName = std::filesystem::path(sibling).filename().string();
        std::error_code ec;
        if (folder ? !folder->has(siblingName) : !std::filesystem::exists(sibling, ec))
            fail(sibling,
                 "split " + num(k + 1) + " of " + num(count) + " is missing (the set was opened from " + path + ")");
        splits[k] = parseGgufFile(folder ? folder->open(siblingName) : std::make_shared<MappedFile>(sibling));
        const auto no = metaCount(splits[k], "split.no");
        const auto cnt = metaCount(splits[k], "split.count");
        if (no != k || cnt != count)
            fail(sibling,
                 "metadata keys 'split.no'/'split.count' say split " + (no ? num(*no + 1) : std::string("?")) + " of "
                     + (cnt ? num(*cnt) : std::string("?")) + ", expected split " + num(k + 1) + " of " + num(count));
    }

    GgufFile& head = splits.front();
    uint64_t total = 0;
    for (const auto& s : splits)
        total += s.tensors.size();
    if (const auto declared = metaCount(head, "split.tensors.count"); declared && *declared != total)
        fail(head.map->path(),
             "metadata key 'split.tensors.count': says " + num(*declared) + " tensors but the " + num(count)
                 + " splits hold " + num(total));
    // Metadata lives in the first split; the others carry only the split keys.
    ckpt.ggufVersion = head.version;
    ckpt.ggufAlignment = head.alignment;
    ckpt.metadata = std::move(head.metadata);
    for (auto& s : splits)
        appendFile(ckpt, s);
}

GgufLayout layoutGguf(const std::string& path, const GgufMetadata& metadata, const std::vector<GgufTensor>& tensors,
                      uint32_t version)
{
    if (version < 1 || version > 3)
        fail(path, "cannot write GGUF version " + num(version) + " (supported: 1, 2, 3)");
    const bool v1 = version == 1;
    const uint64_t alignment = alignmentOf(path, metadata);
    Out out(path, v1);
    out.bytes.insert(out.bytes.end(), {'G', 'G', 'U', 'F'});
    out.put<uint32_t>(version);
    out.count(tensors.size(), "header: tensor_count");
    out.count(metadata.size(), "header: kv_count");

    std::unordered_map<std::string_view, size_t> seen;
    for (const auto& [key, value] : metadata) {
        const std::string field = "metadata key '" + key + "'";
        if (!seen.emplace(key, 0).second)
            out.failAt(field, "duplicate key");
        out.string(key, field);
        out.put<uint32_t>(static_cast<uint32_t>(value.type));
        writeValue(out, value, field);
    }

    GgufLayout layout;
    seen.clear();
    uint64_t offset = 0;
    for (const auto& t : tensors) {
        const std::string field = "tensor '" + t.name + "'";
        if (!seen.emplace(t.name, 0).second)
            out.failAt(field, "duplicate tensor name");
        const GgmlTypeInfo* info = ggmlType(t.ggmlType);
        if (!info || !info->hasSize())
            out.failAt(field, "cannot write ggml type " + ggmlTypeName(t.ggmlType));
        if (t.ne.size() > kMaxDims)
            out.failAt(field, num(t.ne.size()) + " dimensions, at most 4 allowed");
        uint64_t rows = 1;
        for (size_t d = 1; d < t.ne.size(); ++d)
            if (__builtin_mul_overflow(rows, t.ne[d], &rows))
                out.failAt(field, "dimensions overflow 64 bits");
        const uint64_t ne0 = t.ne.empty() ? 1 : t.ne[0];
        if (ne0 % info->blockWeights != 0)
            out.failAt(field,
                       "ne[0] = " + num(ne0) + " is not a multiple of the " + std::string(info->name) + " block size "
                           + num(info->blockWeights));
        uint64_t rowBytes = 0, nbytes = 0;
        if (__builtin_mul_overflow(ne0 / info->blockWeights, uint64_t(info->blockBytes), &rowBytes)
            || __builtin_mul_overflow(rowBytes, rows, &nbytes))
            out.failAt(field, "byte size overflows 64 bits");
        out.string(t.name, field);
        out.put<uint32_t>(static_cast<uint32_t>(t.ne.size()));
        for (uint64_t d : t.ne)
            out.count(d, field + ": ne");
        out.put<uint32_t>(static_cast<uint32_t>(t.ggmlType));
        out.put<uint64_t>(offset);
        layout.offsets.push_back(offset);
        layout.sizes.push_back(nbytes);
        offset += padTo(nbytes, alignment);
    }
    out.bytes.resize(padTo(out.bytes.size(), alignment), 0);
    layout.fileSize = out.bytes.size() + offset;
    layout.head = std::move(out.bytes);
    return layout;
}

void writeGguf(const std::string& path, const GgufMetadata& metadata, const std::vector<GgufTensor>& tensors,
               uint32_t version)
{
    const GgufLayout layout = layoutGguf(path, metadata, tensors, version);
    for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].data.size() != layout.sizes[i])
            fail(path,
                 "tensor '" + tensors[i].name + "': data holds " + num(tensors[i].data.size())
                     + " bytes, its type and ne need " + num(layout.sizes[i]));

    AtomicFile file(path);
    file.write(layout.head);
    for (size_t i = 0; i < tensors.size(); ++i) {
        file.write(tensors[i].data);
        const uint64_t next = i + 1 < tensors.size() ? layout.head.size() + layout.offsets[i + 1] : layout.fileSize;
        file.writeZeros(next - file.size());
    }
    file.commit();
}

std::string ggufSplitPath(const std::string& prefix, uint32_t no, uint32_t count)
{
    char tail[32];
    std::snprintf(tail, sizeof tail, "-%05u-of-%05u.gguf", no, count);
    return prefix + tail;
}

std::vector<std::string> writeGgufSplits(const std::string& prefix, const GgufMetadata& metadata,
                                         const std::vector<GgufTensor>& tensors, size_t tensorsPerSplit,
                                         uint32_t version)
{
    if (tensorsPerSplit == 0)
        fail(prefix, "cannot split with 0 tensors per split");
    const size_t count = std::max<size_t>(1, ceilDiv(tensors.size(), tensorsPerSplit));
    if (count > 99999)
        fail(prefix, "too many splits (" + num(count) + ")");
    std::vector<std::string> paths;
    for (size_t k = 0; k < count; ++k) {
        GgufMetadata meta;
        for (const auto& kv : metadata) {
            if (kv.first.starts_with("split."))
                continue;
            if (k == 0 || kv.first == "general.alignment")
                meta.push_back(kv);
        }
        meta.emplace_back("split.no", scalarMeta(Type::U16, k));
        meta.emplace_back("split.count", scalarMeta(Type::U16, count));
        meta.emplace_back("split.tensors.count", scalarMeta(Type::I32, tensors.size()));
        const auto begin = tensors.begin() + static_cast<std::ptrdiff_t>(std::min(tensors.size(), k * tensorsPerSplit));
        const auto end =
            tensors.begin() + static_cast<std::ptrdiff_t>(std::min(tensors.size(), (k + 1) * tensorsPerSplit));
        paths.push_back(ggufSplitPath(prefix, static_cast<uint32_t>(k + 1), static_cast<uint32_t>(count)));
        writeGguf(paths.back(), meta, std::vector<GgufTensor>(begin, end), version);
    }
    return paths;
}

} // namespace qs
