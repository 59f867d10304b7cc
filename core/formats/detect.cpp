#include "base/cancel.h"
#include "base/progress.h"
#include "formats/detect.h"
#include "formats/detectutil.h"

#include "base/asciicase.h"
#include "base/error.h"
#include "base/intmath.h"
#include "base/shapetext.h"
#include "base/stringindex.h"
#include "container/checkpoint.h"
#include "formats/dequant.h"
#include "formats/family.h"
#include "formats/formatid.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include <fcntl.h>

namespace qs {
namespace detect {

bool isIntDType(DType t)
{
    switch (t) {
    case DType::U8:
    case DType::I8:
    case DType::U16:
    case DType::I16:
    case DType::U32:
    case DType::I32:
    case DType::U64:
    case DType::I64: return true;
    default: return false;
    }
}

bool isFp8(DType t)
{
    return t == DType::F8_E4M3 || t == DType::F8_E5M2 || t == DType::F8_E4M3FNUZ || t == DType::F8_E5M2FNUZ;
}

// Little-endian integer element `i` of a tensor of integer dtype `t` (bounds checked by the caller).
int64_t intAt(std::span<const uint8_t> b, DType t, size_t i)
{
    const unsigned bytes = dtypeBits(t) / 8;
    uint64_t v = 0;
    std::memcpy(&v, b.data() + i * bytes, bytes); // x86-64 and the file are both little-endian
    switch (t) {
    case DType::I8: return static_cast<int8_t>(v);
    case DType::I16: return static_cast<int16_t>(v);
    case DType::I32: return static_cast<int32_t>(v);
    default: return static_cast<int64_t>(v);
    }
}

std::string jsonValueString(const QJsonValue& v)
{
    if (v.isString())
        return v.toString().toStdString();
    if (v.isBool())
        return v.toBool() ? "true" : "false";
    if (v.isDouble()) {
        std::ostringstream o;
        o << v.toDouble();
        return o.str();
    }
    if (v.isNull())
        return "null";
    const QJsonDocument d = v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject());
    return d.toJson(QJsonDocument::Compact).toStdString();
}

std::optional<int64_t> jsonInt(const QJsonValue& v)
{
    if (v.isDouble()) {
        const double d = v.toDouble();
        // The range test first: converting a double outside int64's range is undefined.
        if (d >= -0x1p63 && d < 0x1p63 && d == static_cast<double>(static_cast<int64_t>(d)))
            return static_cast<int64_t>(d);
        return std::nullopt;
    }
    if (v.isString()) { // safetensors __metadata__ values are strings
        bool ok = false;
        const qlonglong n = v.toString().trimmed().toLongLong(&ok);
        if (ok)
            return n;
    }
    return std::nullopt;
}

std::optional<bool> jsonBool(const QJsonValue& v)
{
    if (v.isBool())
        return v.toBool();
    if (v.isString()) {
        const QString s = v.toString().trimmed().toLower();
        if (s == QLatin1String("true") || s == QLatin1String("1"))
            return true;
        if (s == QLatin1String("false") || s == QLatin1String("0"))
            return false;
    }
    if (v.isDouble())
        return v.toDouble() != 0;
    return std::nullopt;
}

bool matchesFromStart(const QString& pattern, const QString& name)
{
    const QRegularExpression re(QStringLiteral("\\A(?:") + pattern + QStringLiteral(")"));
    return re.isValid() && re.match(name).hasMatch();
}

// ---------------------------------------------------------------------------------------
// The quantization config.

QuantConfig::QuantConfig(const Checkpoint& ckpt)
{
    const auto addQc = [&](const QJsonObject& parent, const std::string& name) {
        const QJsonValue qc = parent.value(QStringLiteral("quantization_config"));
        if (qc.isObject())
            m_sources.push_back({name, qc.toObject()});
    };
    addQc(ckpt.config, "config.json quantization_config");
    for (const char* sub : {"text_config", "llm_config"}) {
        const QJsonValue v = ckpt.config.value(QLatin1String(sub));
        if (v.isObject())
            addQc(v.toObject(), "config.json " + std::string(sub) + ".quantization_config");
    }
    if (!ckpt.quantizeConfig.isEmpty())
        m_sources.push_back(
            {ckpt.quantizeConfigFile.empty() ? "quantize_config.json" : ckpt.quantizeConfigFile, ckpt.quantizeConfig});
    for (const FamilyRow& row : familyRows())
        if (row.readConfig)
            row.readConfig(ckpt, *this);
    for (Source& s : m_fallbacks)
        m_sources.push_back(std::move(s));
    m_fallbacks.clear();
}

void QuantConfig::addSource(std::string name, QJsonObject obj, bool fallback)
{
    (fallback ? m_fallbacks : m_sources).push_back({std::move(name), std::move(obj)});
}

std::optional<Hit> QuantConfig::get(std::initializer_list<const char*> keys) const
{
    for (const auto& s : m_sources)
        for (const char* k : keys) {
            const QJsonValue v = s.obj.value(QLatin1String(k));
            if (!v.isUndefined() && !v.isNull())
                return Hit{v, s.name + ": " + k};
        }
    return std::nullopt;
}

std::optional<Hit> QuantConfig::getFor(const std::string& prefix, std::initializer_list<const char*> keys) const
{
    for (const auto& p : m_parts)
        if (auto h = p->moduleValue(prefix, keys))
            return h;
    return get(keys);
}

std::optional<int64_t> QuantConfig::intFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                           LogicalWeight* ev) const
{
    const auto h = getFor(prefix, keys);
    if (!h)
        return std::nullopt;
    const auto v = jsonInt(h->value);
    if (v && ev)
        ev->evidence.push_back(Message::verbatim(h->describe()));
    return v;
}

std::optional<bool> QuantConfig::boolFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                         LogicalWeight* ev) const
{
    const auto h = getFor(prefix, keys);
    if (!h)
        return std::nullopt;
    const auto v = jsonBool(h->value);
    if (v && ev)
        ev->evidence.push_back(Message::verbatim(h->describe()));
    return v;
}

std::optional<std::string> QuantConfig::strFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                               LogicalWeight* ev) const
{
    const auto h = getFor(prefix, keys);
    if (!h || !h->value.isString())
        return std::nullopt;
    if (ev)
        ev->evidence.push_back(Message::verbatim(h->describe()));
    return asciiLower(h->value.toString().toStdString());
}

std::string QuantConfig::method() const
{
    if (const auto h = get({"quant_method", "method"}); h && h->value.isString())
        return asciiLower(h->value.toString().toStdString());
    for (const auto& p : m_parts)
        if (std::string m = p->method(); !m.empty())
            return m;
    return {};
}

bool QuantConfig::skipsModule(const std::string& prefix) const
{
    return std::any_of(m_parts.begin(), m_parts.end(), [&](const auto& p) { return p->skipsModule(prefix); });
}

std::optional<std::string> QuantConfig::excludedBy(const std::string& prefix) const
{
    const QString name = QString::fromStdString(prefix);
    for (const auto& s : m_sources) {
        for (const char* key : {"modules_to_not_convert", "llm_int8_skip_modules", "skip_modules"}) {
            for (const QJsonValue e : s.obj.value(QLatin1String(key)).toArray()) {
                const QString entry = e.toString();
                if (!entry.isEmpty()
                    && (entry == name || name.contains(entry + QLatin1Char('.'))
                        || name.endsWith(QLatin1Char('.') + entry)))
                    return s.name + ": " + key + " lists " + entry.toStdString();
            }
        }
    }
    for (const auto& p : m_parts)
        if (auto e = p->excludedBy(prefix))
            return e;
    return std::nullopt;
}

std::optional<ModuleEntry> QuantConfig::moduleEntry(const std::string& prefix, bool quantized) const
{
    const auto entryOf = [&](ConfigPart::EntryOrder order) -> std::optional<ModuleEntry> {
        for (const auto& p : m_parts)
            if (p->entryOrder() == order)
                if (auto e = p->moduleEntry(prefix, quantized))
                    return e;
        return std::nullopt;
    };
    if (auto e = entryOf(ConfigPart::EntryOrder::BeforeExclusions))
        return e;
    if (auto e = excludedBy(prefix))
        return ModuleEntry{true, std::move(*e)};
    if (auto e = entryOf(ConfigPart::EntryOrder::AfterExclusions))
        return e;
    return entryOf(ConfigPart::EntryOrder::Last);
}

int Group::find(std::string_view suffix) const
{
    for (const auto& [s, i] : members)
        if (s == suffix)
            return static_cast<int>(i);
    return -1;
}

// ---------------------------------------------------------------------------------------
// The detection context.

Context::Context(const Checkpoint& ckpt)
    : m_ckpt(ckpt)
    , m_cfg(ckpt)
    , m_used(ckpt.tensors.size(), false)
{
}

Context::~Context()
{
    for (int fd : m_fds)
        if (fd >= 0)
            ::close(fd);
}

const TensorEntry& Context::tensor(size_t i) const
{
    return m_ckpt.tensors[i];
}

void Context::add(LogicalWeight& w, const std::string& role, int idx)
{
    if (idx < 0)
        return;
    w.members.emplace_back(role, static_cast<size_t>(idx));
    m_used[static_cast<size_t>(idx)] = true;
}

namespace {

void checkShapeAgainstBytes(LogicalWeight& w)
{
    if (w.shape.empty() || refusedShape(w))
        return;
    const std::optional<uint64_t> span = shapeSpan(w.shape);
    if (!span)
        refuseShape(w, QT_TRANSLATE_NOOP("qs::Message", "its dimensions overflow 64 bits"));
    else if (*span > maxShapeSpan(w.storedBytes))
        refuseShape(w,
                    {QT_TRANSLATE_NOOP("qs::Message", "it spans %1 elements, more than its %2 stored bytes can hold"),
                     {std::to_string(*span), std::to_string(w.storedBytes)}});
}

} // namespace

void refuseShape(LogicalWeight& w, const Message& why)
{
    const bool decodable = dequantFunction(w.format) != nullptr;
    w.notes.push_back(Message::quoting(QT_TRANSLATE_NOOP("qs::Message", "shape refused: %1 %2 is not decoded: %3"),
                                       {Message::verbatim(w.format), Message::verbatim(shapeText(w.shape)), why}));
    if (decodable)
        w.format = "unknown";
    w.shape.clear();
    w.groupSize = 0;
}

std::optional<uint64_t> checkedElements(LogicalWeight& w)
{
    const std::optional<uint64_t> n = checkedProduct(w.shape);
    if (!n)
        refuseShape(w, QT_TRANSLATE_NOOP("qs::Message", "its element count overflows 64 bits"));
    return n;
}

void Context::finish(LogicalWeight w)
{
    w.storedBytes = 0;
    for (const auto& [role, idx] : w.members)
        w.storedBytes += m_ckpt.tensors[idx].nbytes;
    checkShapeAgainstBytes(w);
    m_out.push_back(std::move(w));
}

std::optional<std::span<const uint8_t>> Context::small(int idx, LogicalWeight& w, uint64_t cap)
{
    const TensorEntry& t = tensor(idx);
    if (t.nbytes > cap) {
        w.notes.push_back(
            {QT_TRANSLATE_NOOP("qs::Message", "'%1' not read: %2 bytes is over the %3-byte limit for detection"),
             {std::string(t.name), std::to_string(t.nbytes), std::to_string(cap)}});
        return std::nullopt;
    }
    try {
        // Bounds, and a remote file's bytes fetched; read from the file, not the mapping.
        const MappedFile& file = m_ckpt.mappedFile(t.file);
        const std::span<const uint8_t> mapped = file.range(t.offset, t.nbytes, "tensor '" + std::string(t.name) + "'");
        if (file.inMemory()) // Checkpoint::readMemory: no file to read, nothing that can change
            return mapped;
        if (m_fds.size() < m_ckpt.files.size())
            m_fds.resize(m_ckpt.files.size(), -1);
        int& fd = m_fds[t.file];
        if (fd < 0 && (fd = ::open(file.localPath().c_str(), O_RDONLY | O_CLOEXEC)) < 0)
            fail(m_ckpt.files[t.file], std::string("cannot open: ") + std::strerror(errno));
        m_buf.resize(static_cast<size_t>(t.nbytes));
        size_t done = 0;
        while (done < m_buf.size()) {
            const ssize_t n =
                ::pread(fd, m_buf.data() + done, m_buf.size() - done, static_cast<off_t>(t.offset + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                fail(m_ckpt.files[t.file],
                     "cannot read tensor '" + std::string(t.name) + "'"
                         + (n < 0 ? ": " + std::string(std::strerror(errno)) : ""));
            done += static_cast<size_t>(n);
        }
        return std::span<const uint8_t>(m_buf);
    } catch (const Error& e) {
        w.notes.push_back(Message::verbatim(e.what()));
        return std::nullopt;
    }
}

std::optional<std::vector<int64_t>> Context::ints(int idx, LogicalWeight& w)
{
    const TensorEntry& t = tensor(idx);
    if (!isIntDType(t.dtype)) {
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "'%1' is %2, expected an integer dtype"),
                           {std::string(t.name), std::string(dtypeName(t.dtype))}});
        return std::nullopt;
    }
    const auto b = small(idx, w);
    if (!b)
        return std::nullopt;
    const size_t n = b->size() / (dtypeBits(t.dtype) / 8);
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = intAt(*b, t.dtype, i);
    return v;
}

} // namespace detect

namespace {

using detect::Context;
using detect::Group;
using detect::isFp8;

// ---------------------------------------------------------------------------------------
// Grouping by module prefix.

// Every row's member names (FamilyRow::dottedMembers or memberNames), gathered once.
std::vector<std::string_view> rowsMemberNames(std::span<const std::string_view> FamilyRow::*names)
{
    std::vector<std::string_view> all;
    for (const FamilyRow& row : familyRows())
        all.insert(all.end(), (row.*names).begin(), (row.*names).end());
    return all;
}

// A tensor name split into module prefix and member: before a member name with a dot of its own
// (no such name ends another), else at the last dot.
std::pair<std::string, std::string> splitName(std::string_view name)
{
    static const std::vector<std::string_view> dotted = rowsMemberNames(&FamilyRow::dottedMembers);
    for (std::string_view s : dotted)
        if (name.size() > s.size() + 1 && name.ends_with(s) && name[name.size() - s.size() - 1] == '.')
            return {std::string(name.substr(0, name.size() - s.size() - 1)), std::string(s)};
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos)
        return {"", std::string(name)};
    return {std::string(name.substr(0, dot)), std::string(name.substr(dot + 1))};
}

// ---------------------------------------------------------------------------------------
// What no family claimed: one plain weight per tensor.

// `besideMember`: a member name of quantized weights among the top-level tensors (no module
// name), which no row reads; empty when there is none.
void detectPlain(Context& cx, size_t i, const std::string& besideMember)
{
    const TensorEntry& t = cx.tensor(i);
    LogicalWeight w;
    w.name = t.name;
    w.shape = t.shape;
    cx.add(w, "weight", static_cast<int>(i));
    w.format = t.known ? plainFormatId(t.dtype) : std::string();
    if (w.format.empty()) {
        w.format = "unknown";
        // A tensor the reader left undecoded says why in its note (below).
        if (t.note.empty())
            w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message", "dtype %1 is not decoded"), {std::string(t.typeName)}});
    }
    w.bits = static_cast<int>(dtypeBits(t.dtype));
    // One message per dtype, shared by every weight that carries it.
    static const std::array<Message, size_t(DType::Ggml) + 1> unquantized = [] {
        std::array<Message, size_t(DType::Ggml) + 1> m;
        for (size_t d = 0; d < m.size(); ++d)
            m[d] = {QT_TRANSLATE_NOOP("qs::Message", "unquantized %1 tensor"), {std::string(dtypeName(DType(d)))}};
        return m;
    }();
    w.evidence.push_back(unquantized[size_t(t.dtype)]);
    const auto [prefix, suffix] = splitName(t.name);
    static const std::vector<std::string_view> stray = rowsMemberNames(&FamilyRow::memberNames);
    if (prefix.empty() && suffix == besideMember)
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                             "'%1' is named like a member of a quantized weight but has no module "
                                             "name, which every format reads a weight by: listed as a plain tensor"),
                           {suffix}});
    else if (prefix.empty() && !besideMember.empty())
        w.notes.push_back({QT_TRANSLATE_NOOP("qs::Message",
                                             "'%1' sits at the top level beside '%2', which is named like a member of "
                                             "a quantized weight: no format reads a weight without a module name; "
                                             "listed as a plain tensor"),
                           {suffix, besideMember}});
    else if (std::find(stray.begin(), stray.end(), suffix) != stray.end())
        w.notes.push_back(
            {QT_TRANSLATE_NOOP(
                 "qs::Message",
                 "stray member: '%1' looks like a member of a quantized weight, but its module has no matching codes"),
             {suffix}});
    if (!t.note.empty())
        w.notes.push_back(t.note);
    cx.finish(std::move(w));
}

void detectGroup(Context& cx, const Group& g)
{
    if (g.prefix.empty())
        return;
    if (cx.config().skipsModule(g.prefix))
        return;
    // Most specific first: the families in table order, each claiming its members; what is
    // left is plain.
    for (const FamilyRow& row : familyRows())
        if (row.detectGroup && row.detectGroup(cx, g))
            return;
}

// File order of each weight's first member: a stable, familiar listing order. Sorted as a
// permutation applied in place: std::stable_sort would copy half the weights aside.
void sortByFirstMember(std::vector<LogicalWeight>& weights)
{
    std::vector<size_t> first(weights.size(), SIZE_MAX);
    for (size_t i = 0; i < weights.size(); ++i)
        for (const auto& [r, idx] : weights[i].members)
            first[i] = std::min(first[i], idx);
    if (std::is_sorted(first.begin(), first.end()))
        return;
    std::vector<size_t> from(weights.size()); // position k receives the weight now at from[k]
    for (size_t i = 0; i < from.size(); ++i)
        from[i] = i;
    std::stable_sort(from.begin(), from.end(), [&](size_t a, size_t b) { return first[a] < first[b]; });
    for (size_t i = 0; i < from.size(); ++i) {
        if (from[i] == i)
            continue;
        LogicalWeight held = std::move(weights[i]);
        size_t j = i;
        while (from[j] != i) {
            const size_t next = from[j];
            weights[j] = std::move(weights[next]);
            from[j] = j;
            j = next;
        }
        weights[j] = std::move(held);
        from[j] = j;
    }
}

// Groups the tensors by module prefix and asks the families for each group.
void detectModules(Context& cx)
{
    const Checkpoint& ckpt = cx.checkpoint();
    std::string besideMember; // a member name among the top-level tensors (detectPlain)
    {
        // Freed before the plain tensors become weights: the grouping (~250 bytes a tensor) and
        // the full list of weights are never held together.
        std::vector<Group> groups;
        StringIndex byPrefix(ckpt.tensors.size());
        const auto prefixOf = [&](size_t g) -> const std::string& { return groups[g].prefix; };
        for (size_t i = 0; i < ckpt.tensors.size(); ++i) {
            throwIfCancelled(currentCancelFlag()); // detection of a million tensors takes seconds too
            auto [prefix, suffix] = splitName(ckpt.tensors[i].name);
            size_t g = byPrefix.findOrInsert(prefix, groups.size(), prefixOf);
            if (g == StringIndex::npos) {
                g = groups.size();
                groups.push_back({std::move(prefix), {}});
            }
            groups[g].members.emplace_back(std::move(suffix), i);
        }
        static const std::vector<std::string_view> members = rowsMemberNames(&FamilyRow::memberNames);
        for (const auto& g : groups) {
            throwIfCancelled(currentCancelFlag());
            detectGroup(cx, g);
            if (g.prefix.empty())
                for (const auto& [suffix, idx] : g.members)
                    if (besideMember.empty() && std::find(members.begin(), members.end(), suffix) != members.end())
                        besideMember = suffix;
        }
    }
    for (size_t i = 0; i < ckpt.tensors.size(); ++i) {
        throwIfCancelled(currentCancelFlag());
        if (!cx.claimed(i))
            detectPlain(cx, i, besideMember);
    }
    sortByFirstMember(cx.weights());
}

} // namespace

std::vector<LogicalWeight> detectWeights(const Checkpoint& ckpt)
{
    Context cx(ckpt);
    // At most one weight a tensor: no doubling at the peak (a reservation costs RSS as it fills).
    cx.weights().reserve(ckpt.tensors.size());
    // A family that owns the container (GGUF) claims every tensor; otherwise modules.
    const auto rows = familyRows();
    if (std::none_of(rows.begin(), rows.end(),
                     [&](const FamilyRow& r) { return r.detectCheckpoint && r.detectCheckpoint(cx); }))
        detectModules(cx);
    std::vector<LogicalWeight> out = std::move(cx.weights());
    for (const FamilyRow& row : rows)
        if (row.detectAcross)
            row.detectAcross(out);
    return out;
}

std::optional<uint64_t> shapeSpan(std::span<const uint64_t> shape)
{
    uint64_t span = 1;
    for (uint64_t d : shape)
        if (__builtin_mul_overflow(span, std::max<uint64_t>(d, 1), &span))
            return std::nullopt;
    return span;
}

uint64_t maxShapeSpan(uint64_t storedBytes)
{
    return std::max(uint64_t(1) << 16, mulChecked(storedBytes, 64).value_or(UINT64_MAX));
}

const Message* refusedShape(const LogicalWeight& w)
{
    for (const Message& note : w.notes)
        if (note.startsWith(kRefusedShapeNote))
            return &note;
    return nullptr;
}

double BitsSummary::bitsPerWeight() const
{
    return elements ? double(storedBytes) * 8.0 / double(elements) : 0.0;
}

BitsSummary summarizeBits(const std::vector<LogicalWeight>& weights, bool quantizedOnly)
{
    BitsSummary s;
    for (const auto& w : weights) {
        if (quantizedOnly) {
            const FormatInfo* f = findFormat(w.format);
            if (!f || !f->quantized)
                continue;
        }
        s.storedBytes += w.storedBytes;
        s.elements += w.elementCount();
        ++s.weights;
    }
    return s;
}

} // namespace qs
