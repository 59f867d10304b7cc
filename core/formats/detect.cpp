#include "formats/detect.h"

#include "container/checkpoint.h"
#include "container/ggmltype.h"
#include "base/error.h"
#include "formats/formatid.h"
#include "base/shapetext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <sstream>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

namespace qs {
namespace {

// Small tensors detection may read (g_idx, qzeros, JSON quant states, shapes). Anything
// larger is left unread and the weight gets a note: listing must stay cheap.
constexpr uint64_t kSmallTensorCap = 64ull << 20;
constexpr uint64_t kJsonCap = 1ull << 20;

std::string lower(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08X", v);
    return buf;
}

uint64_t ceilDiv(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : 0;
}

bool isIntDType(DType t)
{
    switch (t) {
    case DType::U8: case DType::I8: case DType::U16: case DType::I16:
    case DType::U32: case DType::I32: case DType::U64: case DType::I64:
        return true;
    default:
        return false;
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
        if (d == static_cast<double>(static_cast<int64_t>(d)))
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

// ---------------------------------------------------------------------------------------
// The quantization config, merged from every place a checkpoint may carry it (Part C order).

struct Hit {
    QJsonValue value;
    std::string where; // "quantize_config.json: bits"
    std::string describe() const { return where + "=" + jsonValueString(value); }
};

class QuantConfig {
public:
    explicit QuantConfig(const Checkpoint& ckpt)
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
            m_sources.push_back({ckpt.quantizeConfigFile.empty() ? "quantize_config.json" : ckpt.quantizeConfigFile,
                                 ckpt.quantizeConfig});
        const QJsonValue mlx = ckpt.config.value(QStringLiteral("quantization"));
        if (mlx.isObject()) {
            m_mlx = mlx.toObject();
            m_sources.push_back({"config.json quantization", m_mlx});
        }
        // AutoGPTQ's safetensors __metadata__ keys (gptq_bits, ...), lowest priority.
        QJsonObject meta;
        for (const auto& [k, v] : ckpt.metadata)
            if (k.starts_with("gptq_") && v.type == MetaValue::Type::String)
                meta.insert(QString::fromStdString(k.substr(5)), QString::fromStdString(std::get<std::string>(v.value)));
        if (!meta.isEmpty()) {
            if (meta.contains(QStringLiteral("groupsize")) && !meta.contains(QStringLiteral("group_size")))
                meta.insert(QStringLiteral("group_size"), meta.value(QStringLiteral("groupsize")));
            m_sources.push_back({"safetensors __metadata__ gptq_*", meta});
        }
        for (const auto& s : m_sources) {
            const QJsonValue d = s.obj.value(QStringLiteral("dynamic"));
            if (d.isObject())
                m_dynamic = d.toObject();
            if (m_ctGroups.isEmpty() && s.obj.value(QStringLiteral("config_groups")).isObject()) {
                m_ctGroups = s.obj.value(QStringLiteral("config_groups")).toObject();
                m_ctSource = s.name;
                m_ctFormat = s.obj.value(QStringLiteral("format")).toString().toStdString();
            }
        }
    }

    bool empty() const { return m_sources.empty(); }

    // The first source holding any of `keys` (synonyms, in preference order).
    std::optional<Hit> get(std::initializer_list<const char*> keys) const
    {
        for (const auto& s : m_sources)
            for (const char* k : keys) {
                const QJsonValue v = s.obj.value(QLatin1String(k));
                if (!v.isUndefined() && !v.isNull())
                    return Hit{v, s.name + ": " + k};
            }
        return std::nullopt;
    }

    // Like get(), but per-module overrides come first: GPTQModel `dynamic` (regex keys,
    // matched from the start of the name as re.match does) and MLX per-path entries.
    std::optional<Hit> getFor(const std::string& prefix, std::initializer_list<const char*> keys) const
    {
        const QString name = QString::fromStdString(prefix);
        for (auto it = m_dynamic.begin(); it != m_dynamic.end(); ++it) {
            QString pat = it.key();
            if (pat.startsWith(QLatin1String("-:")) || !it.value().isObject())
                continue;
            if (pat.startsWith(QLatin1String("+:")))
                pat = pat.mid(2);
            const QRegularExpression re(QStringLiteral("\\A(?:") + pat + QStringLiteral(")"));
            if (!re.isValid() || !re.match(name).hasMatch())
                continue;
            const QJsonObject o = it.value().toObject();
            for (const char* k : keys)
                if (o.contains(QLatin1String(k)))
                    return Hit{o.value(QLatin1String(k)), "dynamic[" + it.key().toStdString() + "]: " + k};
        }
        const QJsonValue m = m_mlx.value(name);
        if (m.isObject())
            for (const char* k : keys)
                if (m.toObject().contains(QLatin1String(k)))
                    return Hit{m.toObject().value(QLatin1String(k)), "config.json quantization[" + prefix + "]: " + k};
        return get(keys);
    }

    std::optional<int64_t> intFor(const std::string& prefix, std::initializer_list<const char*> keys, LogicalWeight* ev) const
    {
        const auto h = getFor(prefix, keys);
        if (!h)
            return std::nullopt;
        const auto v = jsonInt(h->value);
        if (v && ev)
            ev->evidence.push_back(h->describe());
        return v;
    }
    std::optional<bool> boolFor(const std::string& prefix, std::initializer_list<const char*> keys, LogicalWeight* ev) const
    {
        const auto h = getFor(prefix, keys);
        if (!h)
            return std::nullopt;
        const auto v = jsonBool(h->value);
        if (v && ev)
            ev->evidence.push_back(h->describe());
        return v;
    }
    std::optional<std::string> strFor(const std::string& prefix, std::initializer_list<const char*> keys, LogicalWeight* ev) const
    {
        const auto h = getFor(prefix, keys);
        if (!h || !h->value.isString())
            return std::nullopt;
        if (ev)
            ev->evidence.push_back(h->describe());
        return lower(h->value.toString().toStdString());
    }

    std::string method() const
    {
        if (const auto h = get({"quant_method", "method"}); h && h->value.isString())
            return lower(h->value.toString().toStdString());
        return m_mlx.isEmpty() ? std::string() : std::string("mlx");
    }

    bool mlxModuleDisabled(const std::string& prefix) const
    {
        const QJsonValue m = m_mlx.value(QString::fromStdString(prefix));
        return m.isBool() && !m.toBool();
    }

    // The compressed-tensors config group whose targets match `prefix`: regex targets
    // ("re:...", matched from the start) and exact names before class names ("Linear").
    std::optional<std::pair<std::string, QJsonObject>> ctGroupFor(const std::string& prefix) const
    {
        const QString name = QString::fromStdString(prefix);
        std::optional<std::pair<std::string, QJsonObject>> byClass;
        for (auto it = m_ctGroups.begin(); it != m_ctGroups.end(); ++it) {
            const QJsonObject g = it.value().toObject();
            for (const QJsonValue t : g.value(QStringLiteral("targets")).toArray()) {
                const QString s = t.toString();
                if (s.startsWith(QLatin1String("re:"))) {
                    const QRegularExpression re(QStringLiteral("\\A(?:") + s.mid(3) + QStringLiteral(")"));
                    if (re.isValid() && re.match(name).hasMatch())
                        return std::make_pair(it.key().toStdString(), g);
                } else if (s == name) {
                    return std::make_pair(it.key().toStdString(), g);
                } else if (!byClass && !s.isEmpty() && s.at(0).isUpper() && !s.contains(QLatin1Char('.'))) {
                    byClass = std::make_pair(it.key().toStdString(), g);
                }
            }
        }
        return byClass;
    }
    const std::string& ctSource() const { return m_ctSource; }
    const std::string& ctFormat() const { return m_ctFormat; }

private:
    struct Source {
        std::string name;
        QJsonObject obj;
    };
    std::vector<Source> m_sources;
    QJsonObject m_mlx;
    QJsonObject m_dynamic;
    QJsonObject m_ctGroups;
    std::string m_ctSource;
    std::string m_ctFormat;
};

// ---------------------------------------------------------------------------------------
// Grouping by module prefix.

// Member suffixes that contain a dot themselves; every other name splits at its last dot.
constexpr std::string_view kCompoundSuffixes[] = {
    "weight.quant_state.bitsandbytes__nf4", "weight.quant_state.bitsandbytes__fp4",
    "weight.nested_quant_map", "weight.nested_absmax", "weight.quant_map", "weight.absmax",
    "weight._data", "weight._scale", "weight._shift",
};

struct Group {
    std::string prefix;
    std::vector<std::pair<std::string, size_t>> members; // suffix -> tensor index

    int find(std::string_view suffix) const
    {
        for (const auto& [s, i] : members)
            if (s == suffix)
                return static_cast<int>(i);
        return -1;
    }
};

std::pair<std::string, std::string> splitName(const std::string& name)
{
    for (std::string_view s : kCompoundSuffixes)
        if (name.size() > s.size() + 1 && name.ends_with(s) && name[name.size() - s.size() - 1] == '.')
            return {name.substr(0, name.size() - s.size() - 1), std::string(s)};
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos)
        return {"", name};
    return {name.substr(0, dot), name.substr(dot + 1)};
}

class Detector {
public:
    explicit Detector(const Checkpoint& ckpt) : m_ckpt(ckpt), m_cfg(ckpt), m_used(ckpt.tensors.size(), false) {}
    ~Detector()
    {
        for (int fd : m_fds)
            if (fd >= 0)
                ::close(fd);
    }
    Detector(const Detector&) = delete;
    Detector& operator=(const Detector&) = delete;

    std::vector<LogicalWeight> run();

private:
    const TensorEntry& T(size_t i) const { return m_ckpt.tensors[i]; }
    const TensorEntry& T(int i) const { return m_ckpt.tensors[static_cast<size_t>(i)]; }

    void add(LogicalWeight& w, const std::string& role, int idx)
    {
        if (idx < 0)
            return;
        w.members.emplace_back(role, static_cast<size_t>(idx));
        m_used[static_cast<size_t>(idx)] = true;
    }
    void finish(LogicalWeight w)
    {
        w.storedBytes = 0;
        for (const auto& [role, idx] : w.members)
            w.storedBytes += m_ckpt.tensors[idx].nbytes;
        m_out.push_back(std::move(w));
    }
    // The bytes of a small member, or nullopt (with a note) when it is too big or unreadable.
    // They are read with pread into one reused buffer rather than through the mapping, so that
    // listing a large checkpoint does not leave megabytes of qzeros and g_idx pages resident.
    // The span stays valid until the next call.
    std::optional<std::span<const uint8_t>> small(int idx, LogicalWeight& w, uint64_t cap = kSmallTensorCap)
    {
        const TensorEntry& t = T(idx);
        if (t.nbytes > cap) {
            w.notes.push_back("'" + t.name + "' not read: " + std::to_string(t.nbytes) + " bytes is over the " +
                              std::to_string(cap) + "-byte limit for detection");
            return std::nullopt;
        }
        try {
            m_ckpt.mappedFile(t.file).range(t.offset, t.nbytes, "tensor '" + t.name + "'"); // bounds only
            if (m_fds.size() < m_ckpt.files.size())
                m_fds.resize(m_ckpt.files.size(), -1);
            int& fd = m_fds[t.file];
            if (fd < 0 && (fd = ::open(m_ckpt.files[t.file].c_str(), O_RDONLY | O_CLOEXEC)) < 0)
                fail(m_ckpt.files[t.file], std::string("cannot open: ") + std::strerror(errno));
            m_buf.resize(static_cast<size_t>(t.nbytes));
            size_t done = 0;
            while (done < m_buf.size()) {
                const ssize_t n = ::pread(fd, m_buf.data() + done, m_buf.size() - done, static_cast<off_t>(t.offset + done));
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0)
                    fail(m_ckpt.files[t.file], "cannot read tensor '" + t.name + "'" + (n < 0 ? ": " + std::string(std::strerror(errno)) : ""));
                done += static_cast<size_t>(n);
            }
            return std::span<const uint8_t>(m_buf);
        } catch (const Error& e) {
            w.notes.push_back(e.what());
            return std::nullopt;
        }
    }
    std::optional<std::vector<int64_t>> ints(int idx, LogicalWeight& w)
    {
        const TensorEntry& t = T(idx);
        if (!isIntDType(t.dtype)) {
            w.notes.push_back("'" + t.name + "' is " + std::string(dtypeName(t.dtype)) + ", expected an integer dtype");
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

    void detectGguf();
    void detectGroup(const Group& g);
    bool detectQweight(const Group& g);
    void detectGptq(const Group& g, LogicalWeight& w, int iq, int iz, int is, int ig);
    void detectAwq(const Group& g, LogicalWeight& w, const std::string& version, int iq, int iz, int is);
    bool detectMarlinBs(const Group& g);
    bool detectBnb4(const Group& g);
    bool detectBnb8(const Group& g);
    bool detectCtPacked(const Group& g);
    bool detectScaledWeight(const Group& g);
    bool detectMlx(const Group& g);
    bool detectHqq(const Group& g);
    bool detectNamedOnly(const Group& g);
    void readGidx(LogicalWeight& w, int ig, uint64_t K, int64_t groupSize, uint64_t G);
    void plain(size_t idx);

    const Checkpoint& m_ckpt;
    QuantConfig m_cfg;
    std::vector<bool> m_used;
    std::vector<LogicalWeight> m_out;
    std::vector<int> m_fds; // per checkpoint file, opened on first small read
    std::vector<uint8_t> m_buf;
};

// ---------------------------------------------------------------------------------------
// GGUF: one logical weight per tensor.

// Type-1 ggml formats carry a min (or sum) next to the scale: not symmetric.
bool ggmlHasMin(std::string_view name)
{
    return name == "Q4_1" || name == "Q5_1" || name == "Q8_1" || name == "Q2_K" || name == "Q4_K" || name == "Q5_K";
}

void Detector::detectGguf()
{
    for (size_t i = 0; i < m_ckpt.tensors.size(); ++i) {
        const TensorEntry& t = T(i);
        LogicalWeight w;
        w.name = t.name;
        w.shape = t.shape;
        add(w, "weight", static_cast<int>(i));
        const GgmlTypeInfo* info = ggmlType(t.ggmlType);
        const std::string id = info ? ggufFormatId(info->name) : std::string();
        if (!t.known || id.empty() || !info->hasSize()) {
            w.format = "unknown";
            w.notes.push_back(info && info->removed
                                  ? "ggml type " + std::string(info->name) + " (id " + std::to_string(t.ggmlType) +
                                        ") was removed from ggml: listed, not decoded"
                                  : "unknown ggml type id " + std::to_string(t.ggmlType) + ": listed, not decoded");
            if (!t.note.empty())
                w.notes.push_back(t.note);
            finish(std::move(w));
            continue;
        }
        w.format = id;
        const FormatInfo* f = findFormat(id);
        w.bits = f ? f->bits : 0;
        w.groupSize = info->blockWeights > 1 ? info->blockWeights : 0;
        w.symmetric = !ggmlHasMin(info->name);
        w.params.reserve(3); // exactly: one allocation
        w.params["ggml_type"] = std::to_string(t.ggmlType);
        w.params["block_weights"] = std::to_string(info->blockWeights);
        w.params["block_bytes"] = std::to_string(info->blockBytes);
        w.evidence.push_back("GGUF tensor type " + std::string(info->name) + " (id " + std::to_string(t.ggmlType) + ")");
        if (!info->storage)
            w.notes.push_back(std::string(info->name) + " is a dot-product intermediate, not a storage type");
        finish(std::move(w));
    }
}

// ---------------------------------------------------------------------------------------
// GPTQ / AWQ (tensors named qweight).

struct ZeroScan {
    uint64_t fields = 0;
    bool allSame = true;
    uint32_t first = 0;
    uint64_t allOnes = 0;    // fields equal to 2^b - 1
    uint64_t v1Sym = 0, v2Sym = 0; // fields equal to 2^(b-1) - 1 (v1 symmetric) and 2^(b-1) (v2)
    std::string leadWords;   // the first word(s) in hex, for notes
};

// Decodes `fieldsPerRow` b-bit fields of each of `rows` rows, each row an LSB-first
// little-endian bitstream of `rowBytes` bytes (which is how every packing width lays it out).
ZeroScan scanFields(std::span<const uint8_t> bytes, uint64_t rows, uint64_t rowBytes, uint64_t fieldsPerRow, int b)
{
    ZeroScan z;
    const uint32_t mask = (1u << b) - 1;
    for (uint64_t r = 0; r < rows; ++r) {
        const uint8_t* row = bytes.data() + r * rowBytes;
        for (uint64_t n = 0; n < fieldsPerRow; ++n) {
            const uint64_t bit = n * static_cast<uint64_t>(b);
            const uint64_t byte = bit / 8;
            uint32_t v = row[byte];
            if (byte + 1 < rowBytes)
                v |= static_cast<uint32_t>(row[byte + 1]) << 8;
            v = (v >> (bit % 8)) & mask;
            if (z.fields == 0)
                z.first = v;
            else if (v != z.first)
                z.allSame = false;
            z.allOnes += v == mask;
            z.v1Sym += v == (1u << (b - 1)) - 1;
            z.v2Sym += v == 1u << (b - 1);
            ++z.fields;
        }
    }
    const size_t words = std::min<size_t>(b == 3 ? 3 : 1, bytes.size() / 4);
    for (size_t i = 0; i < words; ++i) {
        uint32_t w = 0;
        std::memcpy(&w, bytes.data() + 4 * i, 4);
        z.leadWords += (i ? " " : "") + hex32(w);
    }
    return z;
}

bool Detector::detectQweight(const Group& g)
{
    const int iq = g.find("qweight");
    if (iq < 0)
        return false;
    const int iz = g.find("qzeros"), is = g.find("scales"), ig = g.find("g_idx");
    const TensorEntry& q = T(iq);
    LogicalWeight w;
    w.name = g.prefix;
    const std::string version = m_cfg.strFor(g.prefix, {"version"}, nullptr).value_or("");
    const std::string method = m_cfg.method();

    if (is < 0 || q.shape.size() != 2 || T(is).shape.size() != 2 || !isIntDType(q.dtype)) {
        return false; // not a layout we know: its tensors are listed as plain ones
    }
    if (q.dtype == DType::I16) {
        detectAwq(g, w, "gemv_fast", iq, iz, is);
        finish(std::move(w));
        return true;
    }
    const auto& S = T(is).shape;
    const uint64_t a = q.shape[0], c = q.shape[1];
    const bool hasZ = iz >= 0 && T(iz).shape.size() == 2;
    const auto Z = hasZ ? T(iz).shape : std::vector<uint64_t>{0, 0};
    const bool gptqShape = c == S[1] && (!hasZ || Z[0] == S[0]);
    const bool gemmShape = hasZ && c * 8 == S[1] && Z[0] == S[0] && Z[1] == c;
    const bool gemvShape = hasZ && a == S[0] && Z[0] == a && S[1] == 8 * Z[1];
    const bool marlinShape = !hasZ && (c == 2 * S[1] || c == 4 * S[1]);

    const bool saysAwq = method == "awq" || !version.empty();
    if (marlinShape && (version == "marlin" || saysAwq || !gptqShape)) {
        detectAwq(g, w, "marlin", iq, iz, is);
        finish(std::move(w));
        return true;
    }
    // Shapes first; the config decides only between layouts that fit the shapes equally.
    std::string verdict;
    if (gemvShape && (version == "gemv" || (!gptqShape && !gemmShape)))
        verdict = "awq-gemv";
    else if (gptqShape && !(gemmShape && saysAwq))
        verdict = "gptq";
    else if (gemmShape)
        verdict = "awq-gemm";
    else if (gemvShape)
        verdict = "awq-gemv";
    if (verdict.empty())
        return false;
    if (verdict == "gptq") {
        if (method == "awq")
            w.notes.push_back("config says quant_method awq, but qweight " + shapeText(q.shape) + " and scales " +
                              shapeText(S) + " have the GPTQ layout (qweight.cols == scales.cols)");
        detectGptq(g, w, iq, iz, is, ig);
        finish(std::move(w));
    } else {
        if (method == "gptq")
            w.notes.push_back("config says quant_method gptq, but the shapes fit AWQ " + verdict.substr(4) +
                              " (qweight " + shapeText(q.shape) + ", scales " + shapeText(S) + ")");
        if (!version.empty() && version != verdict.substr(4) && !(version == "exllama" || version == "ipex"))
            w.notes.push_back("config says version " + version + ", but the shapes fit " + verdict.substr(4));
        detectAwq(g, w, verdict.substr(4), iq, iz, is);
        finish(std::move(w));
    }
    return true;
}

void Detector::readGidx(LogicalWeight& w, int ig, uint64_t K, int64_t groupSize, uint64_t G)
{
    const TensorEntry& t = T(ig);
    const auto v = ints(ig, w);
    if (!v)
        return;
    if (v->size() != K) {
        w.notes.push_back("'" + t.name + "' has " + std::to_string(v->size()) + " entries for K = " + std::to_string(K));
        return;
    }
    if (groupSize <= 0) {
        w.notes.push_back("group size unknown: act-order (g_idx) not checked");
        return;
    }
    bool trivial = true;
    uint64_t outOfRange = 0;
    for (size_t k = 0; k < v->size(); ++k) {
        const int64_t x = (*v)[k];
        if (x < 0 || static_cast<uint64_t>(x) >= G)
            ++outOfRange;
        if (x != static_cast<int64_t>(k / static_cast<uint64_t>(groupSize)))
            trivial = false;
    }
    w.actOrder = !trivial;
    w.evidence.push_back(std::string("g_idx read: ") + (trivial ? "g_idx[k] == k / group_size for every k (sequential)"
                                                                  : "non-trivial (act-order)"));
    if (outOfRange)
        w.notes.push_back(std::to_string(outOfRange) + " g_idx entries are not a group index (there are " +
                          std::to_string(G) + " groups)");
    if (w.descAct && trivial)
        w.notes.push_back("config says desc_act true, but g_idx is sequential: no act-order in the stored data");
    if (!w.descAct && !trivial)
        w.notes.push_back("g_idx is not sequential although desc_act is not set: act-order in the stored data");
}

void Detector::detectGptq(const Group& g, LogicalWeight& w, int iq, int iz, int is, int ig)
{
    const TensorEntry& q = T(iq);
    const auto& S = T(is).shape;
    add(w, "qweight", iq);
    add(w, "qzeros", iz);
    add(w, "scales", is);
    add(w, "g_idx", ig);
    const uint64_t a = q.shape[0], N = S[1], G = S[0];
    const uint64_t P = dtypeBits(q.dtype); // container width: int32 normally (GPTQModel pack_dtype)
    w.evidence.push_back("qweight " + std::string(dtypeName(q.dtype)) + " " + shapeText(q.shape) + ", scales " +
                         shapeText(S) + ": qweight.cols == scales.cols (GPTQ, packed along K)");

    const auto cfgBits = m_cfg.intFor(g.prefix, {"bits", "w_bit"}, &w);
    const auto cfgGroup = m_cfg.intFor(g.prefix, {"group_size", "q_group_size", "groupsize"}, &w);
    w.descAct = m_cfg.boolFor(g.prefix, {"desc_act"}, &w).value_or(false);
    const auto cfgSym = m_cfg.boolFor(g.prefix, {"sym"}, &w);
    auto label = m_cfg.strFor(g.prefix, {"checkpoint_format", "format"}, &w);
    if (!label && m_cfg.boolFor(g.prefix, {"is_marlin_format"}, &w).value_or(false))
        label = "marlin";

    // K: the g_idx length, else groups x group size (independent of the bits label, so a
    // wrong label shows), else qweight rows and the configured bits.
    uint64_t K = 0;
    const auto validBits = [&](uint64_t k) { return k && (a * P) % k == 0 && a * P / k >= 2 && a * P / k <= 8; };
    if (ig >= 0 && T(ig).shape.size() == 1) {
        K = T(ig).shape[0];
        w.evidence.push_back("K = " + std::to_string(K) + " from the g_idx length");
    }
    if (!K && cfgGroup && *cfgGroup > 0 && validBits(G * static_cast<uint64_t>(*cfgGroup))) {
        K = G * static_cast<uint64_t>(*cfgGroup);
        w.evidence.push_back("K = " + std::to_string(K) + " from scales rows x group_size");
    }
    if (!K && cfgBits && *cfgBits > 0 && (a * P) % static_cast<uint64_t>(*cfgBits) == 0) {
        K = a * P / static_cast<uint64_t>(*cfgBits);
        w.evidence.push_back("K = " + std::to_string(K) + " from qweight rows and the configured bits");
    }
    int b = 0;
    if (K && (a * P) % K == 0)
        b = static_cast<int>(a * P / K);
    if (b < 2 || b > 8) {
        w.notes.push_back("bits cannot be derived: qweight " + shapeText(q.shape) + " for K = " + std::to_string(K));
        b = cfgBits ? static_cast<int>(*cfgBits) : 0;
    } else if (cfgBits && *cfgBits != b) {
        w.notes.push_back("config says bits " + std::to_string(*cfgBits) + ", but qweight " + shapeText(q.shape) +
                          " for K = " + std::to_string(K) + " holds " + std::to_string(b) + "-bit codes: " +
                          std::to_string(b) + " bits");
    }
    w.bits = b;
    w.shape = {N, K};
    w.format = "gptq-v1";
    if (iz >= 0 && b > 0 && T(iz).shape.size() == 2 && T(iz).shape[1] * P != ceilDiv(N * b, P) * P)
        w.notes.push_back("qzeros " + shapeText(T(iz).shape) + " does not hold " + std::to_string(N) + " " +
                          std::to_string(b) + "-bit fields per group");
    if (iz < 0)
        w.notes.push_back("no qzeros: zero points cannot be checked");

    // Group size.
    int64_t gs = 0;
    if (cfgGroup && (*cfgGroup <= 0 || static_cast<uint64_t>(*cfgGroup) >= K))
        gs = static_cast<int64_t>(K);
    else if (cfgGroup)
        gs = *cfgGroup;
    if (K && (!gs || ceilDiv(K, static_cast<uint64_t>(gs)) != G)) {
        if (gs)
            w.notes.push_back("config group_size " + std::to_string(gs) + " does not give " + std::to_string(G) +
                              " groups for K = " + std::to_string(K));
        gs = G <= 1 ? static_cast<int64_t>(K) : (K % G == 0 ? static_cast<int64_t>(K / G) : 0);
    }
    w.groupSize = gs;
    if (ig >= 0 && K)
        readGidx(w, ig, K, gs, G);

    // v1 / v2: the label, then the stored zeros (B.1.1), which win when they disagree.
    const std::string lab = label.value_or("gptq");
    w.params["checkpoint_format"] = lab;
    if (lab == "gptq_p" || (b >= 5 && b <= 7)) {
        w.format = "gptq-planar";
        w.symmetric = cfgSym.value_or(true);
        return;
    }
    if (lab == "marlin" || lab == "bitblas")
        w.notes.push_back("config says checkpoint_format " + lab + ", but the tensors have the plain GPTQ layout");
    const bool labelV2 = lab == "gptq_v2";
    w.format = labelV2 ? "gptq-v2" : "gptq-v1";
    w.symmetric = cfgSym.value_or(true);
    if (iz < 0 || b <= 0 || b > 8)
        return;
    const TensorEntry& zt = T(iz);
    const auto zb = small(iz, w);
    if (!zb)
        return;
    const uint64_t rowBytes = zt.shape[1] * (dtypeBits(zt.dtype) / 8);
    if (rowBytes * zt.shape[0] > zb->size() || ceilDiv(N * b, 8) > rowBytes)
        return;
    const ZeroScan z = scanFields(*zb, zt.shape[0], rowBytes, N, b);
    const uint32_t v1Sym = (1u << (b - 1)) - 1, v2Sym = 1u << (b - 1);
    const std::string said = label ? "config says checkpoint_format " + lab : "no checkpoint_format in the config (gptq assumed)";
    if (z.fields && z.allSame && (z.first == v1Sym || z.first == v2Sym)) {
        const bool v2 = z.first == v2Sym;
        w.symmetric = true;
        w.params["zero_test"] = v2 ? "v2 (every zero field is 2^(b-1))" : "v1 (every zero field is 2^(b-1)-1)";
        w.evidence.push_back("qzeros read: every field is " + std::to_string(z.first) + " (" + z.leadWords + ")");
        if (v2 != labelV2)
            w.notes.push_back(said + ", zeros read " + z.leadWords + ": " + (v2 ? "v2" : "v1"));
        if (cfgSym && !*cfgSym)
            w.notes.push_back("config says sym false, but every zero field is " + std::to_string(z.first) + ": symmetric");
        w.format = v2 ? "gptq-v2" : "gptq-v1";
        return;
    }
    if (z.fields && z.v1Sym && z.v2Sym && z.v1Sym + z.v2Sym == z.fields) {
        // Every field is one of the two symmetric zeros: a writer that mixed the conventions
        // (some groups stored z - 1, others z). Read as asymmetric by the label, which is right
        // for one kind of group only; say so rather than pick silently.
        w.params["zero_convention"] = "mixed";
        w.notes.push_back(std::string(kZeroConventionNote) + " qzeros mix GPTQ v1 and v2 symmetric zeros: " +
                          std::to_string(z.v1Sym) + " fields are " + std::to_string(v1Sym) + " (v1), " +
                          std::to_string(z.v2Sym) + " are " + std::to_string(v2Sym) + " (v2); read as " +
                          (labelV2 ? "v2" : "v1") + " by the label, so the other groups are off by one");
    }
    w.symmetric = false;
    w.params["zero_test"] = "asymmetric: label trusted";
    const std::string seen = z.allSame ? "every zero field is " + std::to_string(z.first) : "the zero fields vary";
    w.evidence.push_back("qzeros read: " + seen + " (asymmetric), so the label decides v1/v2");
    if (cfgSym && *cfgSym)
        w.notes.push_back("config says sym true, but " + seen + ": asymmetric");
    if (!labelV2 && z.allOnes) {
        w.params["v1_all_ones_fields"] = std::to_string(z.allOnes);
        w.notes.push_back(std::to_string(z.allOnes) + " of " + std::to_string(z.fields) + " zero fields equal " +
                          std::to_string((1u << b) - 1) +
                          " = 2^b-1: v1 cannot store zero point 0, so these are ambiguous or corrupt");
    }
}

void Detector::detectAwq(const Group& g, LogicalWeight& w, const std::string& version, int iq, int iz, int is)
{
    const TensorEntry& q = T(iq);
    const auto& S = T(is).shape;
    add(w, "qweight", iq);
    add(w, "qzeros", iz);
    add(w, "scales", is);
    const auto cfgGroup = m_cfg.intFor(g.prefix, {"group_size", "q_group_size"}, &w);
    const auto cfgBits = m_cfg.intFor(g.prefix, {"bits", "w_bit"}, &w);
    const auto zeroPoint = m_cfg.boolFor(g.prefix, {"zero_point"}, &w);
    w.params["version"] = version;
    w.bits = 4;
    w.symmetric = iz < 0;
    uint64_t N = 0, K = 0, G = 0;
    const uint64_t a = q.shape[0], c = q.shape[1];
    if (version == "gemm") {
        w.format = "awq-gemm";
        K = a, N = S[1], G = S[0];
        w.evidence.push_back("qweight " + shapeText(q.shape) + ", qzeros, scales " + shapeText(S) +
                             ": qweight.cols*8 == scales.cols, rows = K (AWQ GEMM, packed along N)");
    } else if (version == "gemv") {
        w.format = "awq-gemv";
        N = a, K = c * 8;
        w.evidence.push_back("qweight " + shapeText(q.shape) + ", scales " + shapeText(S) +
                             ": rows = N, scales.cols == 8*qzeros.cols (AWQ GEMV, packed along K)");
    } else if (version == "gemv_fast") {
        w.format = "awq-gemv-fast";
        N = a * 4, K = c;
        w.evidence.push_back("qweight I16 " + shapeText(q.shape) + " (AWQ GEMV_FAST)");
        if (S[1] != N)
            w.notes.push_back("scales " + shapeText(S) + " do not have N = " + std::to_string(N) + " columns");
    } else {
        w.format = "awq-marlin";
        w.symmetric = true;
        K = a * 16, N = S[1], G = S[0];
        w.bits = c == 4 * S[1] ? 8 : 4;
        w.evidence.push_back("qweight " + shapeText(q.shape) + " = [K/16, " + (w.bits == 4 ? "2N" : "4N") +
                             "], no qzeros (AWQ Marlin tiles)");
    }
    if (cfgBits && *cfgBits != w.bits)
        w.notes.push_back("config says bits " + std::to_string(*cfgBits) + ", the shapes give " + std::to_string(w.bits));
    if (zeroPoint && *zeroPoint == w.symmetric)
        w.notes.push_back(std::string("config says zero_point ") + (*zeroPoint ? "true" : "false") + ", but qzeros is " +
                          (iz < 0 ? "absent" : "present"));
    w.shape = {N, K};
    if (G) {
        w.groupSize = G == 1 ? static_cast<int64_t>(K) : (K % G == 0 ? static_cast<int64_t>(K / G) : 0);
        if (cfgGroup && *cfgGroup > 0 && *cfgGroup != w.groupSize)
            w.notes.push_back("config says group_size " + std::to_string(*cfgGroup) + ", the shapes give " +
                              std::to_string(w.groupSize));
    } else if (cfgGroup) {
        w.groupSize = *cfgGroup > 0 ? *cfgGroup : static_cast<int64_t>(K);
    } else {
        w.notes.push_back("group size unknown: no config and the padded " + version + " layout does not tell");
    }
}

// Marlin as AutoGPTQ stores it: tensors B and s.
bool Detector::detectMarlinBs(const Group& g)
{
    const int ib = g.find("B"), is = g.find("s");
    if (ib < 0 || is < 0 || T(ib).shape.size() != 2 || T(is).shape.size() != 2 || !isIntDType(T(ib).dtype))
        return false;
    const auto& B = T(ib).shape;
    const auto& S = T(is).shape;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "gptq-marlin";
    add(w, "B", ib);
    add(w, "s", is);
    const uint64_t K = B[0] * 16, N = S[1], G = S[0];
    w.bits = B[1] == 4 * N ? 8 : 4;
    w.shape = {N, K};
    w.groupSize = G <= 1 ? static_cast<int64_t>(K) : (K % G == 0 ? static_cast<int64_t>(K / G) : 0);
    w.symmetric = true;
    w.evidence.push_back("B " + shapeText(B) + " = [K/16, " + (w.bits == 4 ? "2N" : "4N") + "], s " + shapeText(S) +
                         " (Marlin tiles)");
    if (const auto lab = m_cfg.strFor(g.prefix, {"checkpoint_format", "format"}, &w); lab && *lab != "marlin")
        w.notes.push_back("config says checkpoint_format " + *lab + ", but the tensors are Marlin's B and s");
    finish(std::move(w));
    return true;
}

// ---------------------------------------------------------------------------------------
// bitsandbytes.

bool Detector::detectBnb4(const Group& g)
{
    const int iw = g.find("weight");
    int iqs = g.find("weight.quant_state.bitsandbytes__nf4");
    std::string typeFromName = "nf4";
    if (iqs < 0) {
        iqs = g.find("weight.quant_state.bitsandbytes__fp4");
        typeFromName = "fp4";
    }
    if (iqs < 0) {
        iqs = g.find("weight_quant_state"); // GPTQModel's flattened spelling
        typeFromName.clear();
    }
    const bool flat = g.find("weight.absmax") < 0 && g.find("weight_absmax") >= 0;
    const auto role = [&](const char* r) { return g.find((flat ? "weight_" : "weight.") + std::string(r)); };
    const int ia = role("absmax");
    if (iw < 0 || (iqs < 0 && ia < 0))
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.bits = 4;
    add(w, "weight", iw);
    add(w, "absmax", ia);
    add(w, "quant_map", role("quant_map"));
    add(w, "nested_absmax", role("nested_absmax"));
    add(w, "nested_quant_map", role("nested_quant_map"));
    add(w, "quant_state", iqs);
    w.evidence.push_back("'" + T(iw).name + "' " + std::string(dtypeName(T(iw).dtype)) + " " + shapeText(T(iw).shape) +
                         " with absmax/quant_map/quant_state members (bitsandbytes 4-bit)");
    std::string quantType = typeFromName;
    int64_t blocksize = 64;
    if (iqs >= 0) {
        if (const auto js = small(iqs, w, kJsonCap)) {
            QJsonParseError err{};
            const QJsonDocument doc = QJsonDocument::fromJson(
                QByteArray(reinterpret_cast<const char*>(js->data()), static_cast<qsizetype>(js->size())), &err);
            if (!doc.isObject()) {
                w.notes.push_back("'" + T(iqs).name + "' is not a JSON object: " + err.errorString().toStdString());
            } else {
                const QJsonObject o = doc.object();
                w.evidence.push_back("quant_state JSON read");
                for (auto it = o.begin(); it != o.end(); ++it)
                    if (!it.value().isArray() && !it.value().isObject())
                        w.params[it.key().toStdString()] = jsonValueString(it.value());
                const std::string qt = lower(o.value(QStringLiteral("quant_type")).toString().toStdString());
                if (!qt.empty()) {
                    if (!typeFromName.empty() && qt != typeFromName)
                        w.notes.push_back("quant_state says quant_type " + qt + ", its tensor name says " + typeFromName);
                    quantType = qt;
                }
                if (const auto bs = jsonInt(o.value(QStringLiteral("blocksize"))); bs && *bs > 0)
                    blocksize = *bs;
                const QJsonArray shape = o.value(QStringLiteral("shape")).toArray();
                for (const QJsonValue d : shape)
                    if (const auto v = jsonInt(d); v && *v >= 0)
                        w.shape.push_back(static_cast<uint64_t>(*v));
                if (w.shape.size() != static_cast<size_t>(shape.size()))
                    w.shape.clear();
            }
        }
    }
    if (quantType.empty())
        quantType = m_cfg.strFor(g.prefix, {"bnb_4bit_quant_type"}, &w).value_or("");
    w.format = quantType == "nf4" ? "bnb-nf4" : quantType == "fp4" ? "bnb-fp4" : "unknown";
    if (w.format == "unknown")
        w.notes.push_back("bitsandbytes 4-bit quant_type unknown ('" + quantType + "')");
    if (const auto cfgType = m_cfg.strFor(g.prefix, {"bnb_4bit_quant_type"}, nullptr); cfgType && *cfgType != quantType)
        w.notes.push_back("config says bnb_4bit_quant_type " + *cfgType + ", the stored quant_state says " + quantType);
    w.groupSize = blocksize;
    w.params["blocksize"] = std::to_string(blocksize);
    w.params["quant_type"] = quantType;
    w.params["quant_storage"] = lower(std::string(dtypeName(T(iw).dtype)));
    const bool nested = w.member("nested_absmax") >= 0;
    w.params["nested"] = nested ? "true" : "false";
    if (nested != (ia >= 0 && T(ia).dtype == DType::U8))
        w.notes.push_back("nested_absmax " + std::string(nested ? "present" : "absent") + " but absmax is " +
                          (ia >= 0 ? std::string(dtypeName(T(ia).dtype)) : std::string("absent")));
    if (const auto dq = m_cfg.boolFor(g.prefix, {"bnb_4bit_use_double_quant"}, nullptr); dq && *dq != nested)
        w.notes.push_back(std::string("config says bnb_4bit_use_double_quant ") + (*dq ? "true" : "false") +
                          ", the stored state is " + (nested ? "nested" : "not nested"));
    if (w.shape.empty()) {
        w.notes.push_back("original shape unknown (quant_state has no shape): listed as a flat vector");
        w.shape = {T(iw).nbytes * 2};
    }
    const uint64_t n = w.elementCount();
    if (ceilDiv(n, 2) != T(iw).nbytes)
        w.notes.push_back("weight holds " + std::to_string(T(iw).nbytes) + " bytes, " + std::to_string(ceilDiv(n, 2)) +
                          " expected for " + shapeText(w.shape));
    if (ia >= 0 && T(ia).elementCount() != ceilDiv(n, static_cast<uint64_t>(blocksize)))
        w.notes.push_back("absmax has " + std::to_string(T(ia).elementCount()) + " entries, " +
                          std::to_string(ceilDiv(n, static_cast<uint64_t>(blocksize))) + " blocks expected");
    finish(std::move(w));
    return true;
}

bool Detector::detectBnb8(const Group& g)
{
    const int iw = g.find("weight");
    int is = g.find("SCB");
    if (is < 0)
        is = g.find("weight_scb");
    if (iw < 0 || is < 0 || T(iw).dtype != DType::I8 || T(iw).shape.size() != 2)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "bnb-int8";
    w.bits = 8;
    w.symmetric = true;
    add(w, "weight", iw);
    add(w, "SCB", is);
    add(w, "weight_format", g.find("weight_format"));
    w.shape = T(iw).shape;
    w.groupSize = static_cast<int64_t>(w.shape[1]);
    w.evidence.push_back("weight I8 " + shapeText(w.shape) + " + SCB " + shapeText(T(is).shape) + " (LLM.int8)");
    if (T(is).elementCount() != w.shape[0])
        w.notes.push_back("SCB has " + std::to_string(T(is).elementCount()) + " entries for " +
                          std::to_string(w.shape[0]) + " rows");
    finish(std::move(w));
    return true;
}

// ---------------------------------------------------------------------------------------
// compressed-tensors.

bool Detector::detectCtPacked(const Group& g)
{
    const int ip = g.find("weight_packed"), is = g.find("weight_scale");
    if (ip < 0 || is < 0 || T(ip).shape.size() != 2)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    const TensorEntry& p = T(ip);
    add(w, "weight_packed", ip);
    add(w, "weight_scale", is);
    const int ishape = g.find("weight_shape");
    add(w, "weight_shape", ishape);
    add(w, "weight_zero_point", g.find("weight_zero_point"));
    add(w, "weight_g_idx", g.find("weight_g_idx"));
    add(w, "weight_global_scale", g.find("weight_global_scale"));
    add(w, "input_global_scale", g.find("input_global_scale"));
    const auto grp = m_cfg.ctGroupFor(g.prefix);
    QJsonObject wcfg;
    if (grp) {
        wcfg = grp->second.value(QStringLiteral("weights")).toObject();
        w.evidence.push_back(m_cfg.ctSource() + ": config_groups." + grp->first + " targets this module");
        const std::string fmt = grp->second.value(QStringLiteral("format")).toString().toStdString();
        w.params["ct_format"] = fmt.empty() ? m_cfg.ctFormat() : fmt;
    }
    uint64_t N = p.shape[0], K = 0;
    if (ishape >= 0) {
        if (const auto v = ints(ishape, w); v && v->size() == 2 && (*v)[0] >= 0 && (*v)[1] >= 0) {
            N = static_cast<uint64_t>((*v)[0]);
            K = static_cast<uint64_t>((*v)[1]);
            w.evidence.push_back("weight_shape read: " + shapeText({N, K}));
        }
    }
    if (p.dtype == DType::U8 && w.member("weight_global_scale") >= 0) {
        w.format = "compressed-tensors-nvfp4";
        w.bits = 4;
        w.groupSize = 16;
        if (!K)
            K = p.shape[1] * 2;
        w.shape = {N, K};
        w.evidence.push_back("weight_packed U8 + weight_global_scale (NVFP4)");
        finish(std::move(w));
        return true;
    }
    w.format = "compressed-tensors";
    w.params["ct_format"] = w.params.count("ct_format") ? w.params["ct_format"] : "pack-quantized";
    const uint64_t P = dtypeBits(p.dtype);
    const auto cfgBits = jsonInt(wcfg.value(QStringLiteral("num_bits")));
    if (!K) {
        w.notes.push_back("no weight_shape: K taken as the packed width");
        K = p.shape[1] * (P / static_cast<uint64_t>(cfgBits.value_or(4)));
    }
    // Each word holds floor(P/b) codes; 5..8 bits share 4 per int32, so shapes alone are ambiguous there.
    int b = 0;
    std::vector<int> fits;
    for (int cand = 1; cand <= 8; ++cand)
        if (ceilDiv(K, P / static_cast<uint64_t>(cand)) == p.shape[1])
            fits.push_back(cand);
    if (cfgBits && std::find(fits.begin(), fits.end(), static_cast<int>(*cfgBits)) != fits.end()) {
        b = static_cast<int>(*cfgBits);
        w.evidence.push_back("num_bits " + std::to_string(b) + " from the config fits weight_packed " + shapeText(p.shape));
    } else if (!fits.empty()) {
        b = fits.back();
        if (cfgBits)
            w.notes.push_back("config says num_bits " + std::to_string(*cfgBits) + ", but weight_packed " +
                              shapeText(p.shape) + " for K = " + std::to_string(K) + " fits " + std::to_string(b) + " bits");
        else if (fits.size() > 1)
            w.notes.push_back("bits ambiguous from shapes (" + std::to_string(fits.front()) + ".." +
                              std::to_string(fits.back()) + " pack alike) and no config: " + std::to_string(b) + " assumed");
    } else {
        w.notes.push_back("weight_packed " + shapeText(p.shape) + " fits no bit width for K = " + std::to_string(K));
        b = cfgBits ? static_cast<int>(*cfgBits) : 0;
    }
    w.bits = b;
    w.shape = {N, K};
    const auto& S = T(is).shape;
    const uint64_t G = S.size() == 2 ? S[1] : 1;
    if (S.size() == 2 && S[0] == N && G == 1) {
        w.params["strategy"] = "channel";
        w.groupSize = static_cast<int64_t>(K);
    } else if (S.size() == 2 && S[0] == N) {
        w.params["strategy"] = "group";
        const auto cg = jsonInt(wcfg.value(QStringLiteral("group_size")));
        w.groupSize = cg && *cg > 0 && ceilDiv(K, static_cast<uint64_t>(*cg)) == G ? *cg
                                                                                    : (G && K % G == 0 ? static_cast<int64_t>(K / G) : 0);
        if (cg && *cg != w.groupSize)
            w.notes.push_back("config says group_size " + std::to_string(*cg) + ", weight_scale " + shapeText(S) +
                              " gives " + std::to_string(w.groupSize));
    } else {
        w.params["strategy"] = "tensor";
        w.groupSize = static_cast<int64_t>(K);
    }
    if (const QString st = wcfg.value(QStringLiteral("strategy")).toString(); !st.isEmpty() && st.toStdString() != w.params["strategy"])
        w.notes.push_back("config says strategy " + st.toStdString() + ", weight_scale " + shapeText(S) + " is " +
                          w.params["strategy"]);
    const int iz = w.member("weight_zero_point");
    w.symmetric = iz < 0;
    if (iz >= 0) {
        const TensorEntry& z = T(iz);
        const bool packed = z.dtype == DType::I32 && z.shape.size() == 2 && b > 0 && z.shape[0] == ceilDiv(N, P / static_cast<uint64_t>(b));
        const bool unpacked = z.shape.size() == 2 && z.shape[0] == N;
        w.params["zero_point_layout"] = packed ? "packed" : unpacked ? "unpacked" : "unknown";
        w.evidence.push_back("weight_zero_point " + std::string(dtypeName(z.dtype)) + " " + shapeText(z.shape) + ": asymmetric, " +
                             w.params["zero_point_layout"]);
        if (!packed && !unpacked)
            w.notes.push_back("weight_zero_point " + shapeText(z.shape) + " fits neither the packed nor the unpacked layout");
    }
    if (const auto sym = jsonBool(wcfg.value(QStringLiteral("symmetric"))); sym && *sym != w.symmetric)
        w.notes.push_back(std::string("config says symmetric ") + (*sym ? "true" : "false") + ", but weight_zero_point is " +
                          (iz < 0 ? "absent" : "present"));
    if (const QJsonValue ao = wcfg.value(QStringLiteral("actorder")); ao.isString())
        w.params["actorder"] = ao.toString().toStdString();
    w.descAct = w.params.count("actorder") && (w.params["actorder"] == "group" || w.params["actorder"] == "dynamic");
    if (const int ig = w.member("weight_g_idx"); ig >= 0 && K)
        readGidx(w, ig, K, w.groupSize, G);
    finish(std::move(w));
    return true;
}

// FP8 / int8 weights with a scale beside them: block FP8, compressed-tensors float/int.
bool Detector::detectScaledWeight(const Group& g)
{
    const int iw = g.find("weight");
    if (iw < 0)
        return false;
    const TensorEntry& t = T(iw);
    const int inv = g.find("weight_scale_inv"), is = g.find("weight_scale");
    LogicalWeight w;
    w.name = g.prefix;
    w.shape = t.shape;
    if (isFp8(t.dtype) && inv >= 0) {
        w.format = "fp8-block";
        add(w, "weight", iw);
        add(w, "weight_scale_inv", inv);
        const auto& S = T(inv).shape;
        if (S.size() == 2 && t.shape.size() == 2 && S[0] && S[1]) {
            w.groupSize = static_cast<int64_t>(ceilDiv(t.shape[1], S[1]));
            w.params["block"] = std::to_string(ceilDiv(t.shape[0], S[0])) + "x" + std::to_string(w.groupSize);
        }
        w.evidence.push_back("weight " + std::string(dtypeName(t.dtype)) + " + weight_scale_inv " + shapeText(S));
    } else if ((isFp8(t.dtype) || t.dtype == DType::I8) && is >= 0) {
        w.format = isFp8(t.dtype) ? "compressed-tensors-fp8" : "compressed-tensors-int";
        add(w, "weight", iw);
        add(w, "weight_scale", is);
        add(w, "weight_zero_point", g.find("weight_zero_point"));
        add(w, "input_scale", g.find("input_scale"));
        w.symmetric = w.member("weight_zero_point") < 0;
        const auto& S = T(is).shape;
        w.params["strategy"] = S.size() == 2 && S[1] > 1 ? "group" : S.size() == 2 ? "channel" : "tensor";
        if (S.size() == 2 && S[1] > 1 && t.shape.size() == 2 && t.shape[1] % S[1] == 0)
            w.groupSize = static_cast<int64_t>(t.shape[1] / S[1]);
        else if (t.shape.size() == 2)
            w.groupSize = static_cast<int64_t>(t.shape[1]);
        w.evidence.push_back("weight " + std::string(dtypeName(t.dtype)) + " + weight_scale " + shapeText(S));
    } else {
        return false;
    }
    w.bits = 8;
    if (const auto grp = m_cfg.ctGroupFor(g.prefix))
        if (const auto nb = jsonInt(grp->second.value(QStringLiteral("weights")).toObject().value(QStringLiteral("num_bits"))))
            w.bits = static_cast<int>(*nb);
    finish(std::move(w));
    return true;
}

// ---------------------------------------------------------------------------------------
// MLX.

bool Detector::detectMlx(const Group& g)
{
    const int iw = g.find("weight"), is = g.find("scales"), ib = g.find("biases");
    if (iw < 0 || is < 0 || T(iw).dtype != DType::U32 || T(iw).shape.size() < 2 ||
        T(is).shape.size() != T(iw).shape.size())
        return false;
    const auto& W = T(iw).shape;
    const auto& S = T(is).shape;
    if (!std::equal(W.begin(), W.end() - 1, S.begin()))
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    add(w, "weight", iw);
    add(w, "scales", is);
    add(w, "biases", ib);
    std::string mode = m_cfg.strFor(g.prefix, {"mode"}, nullptr).value_or("affine");
    if (ib < 0 && mode == "affine")
        mode = "mxfp4";
    const uint64_t Wc = W.back(), Sc = S.back();
    auto b = m_cfg.intFor(g.prefix, {"bits"}, &w);
    auto gs = m_cfg.intFor(g.prefix, {"group_size"}, &w);
    if (mode != "affine") {
        w.format = "mlx-" + mode;
        b = b.value_or(mode == "mxfp8" ? 8 : 4);
        gs = gs.value_or(mode == "nvfp4" ? 16 : 32);
    } else {
        w.format = "mlx-affine";
        w.symmetric = false;
        if (ib >= 0 && T(ib).shape != S)
            w.notes.push_back("biases " + shapeText(T(ib).shape) + " differ from scales " + shapeText(S));
    }
    // 32 * Wc = b * K and Sc * g = K: b * g = 32 * Wc / Sc.
    const auto fits = [&](int64_t bb, int64_t gg) {
        return bb > 0 && gg > 0 && (32 * Wc) % static_cast<uint64_t>(bb) == 0 && 32 * Wc / static_cast<uint64_t>(bb) == Sc * static_cast<uint64_t>(gg);
    };
    if (!(b && gs && fits(*b, *gs))) {
        if (b && gs)
            w.notes.push_back("config bits " + std::to_string(*b) + " / group_size " + std::to_string(*gs) +
                              " do not fit weight " + shapeText(W) + " and scales " + shapeText(S));
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
                w.notes.push_back("no MLX quantization config for this module: bits " + std::to_string(found->first) +
                                  " and group_size " + std::to_string(found->second) +
                                  " inferred from shapes (ambiguous: only bits x group_size is fixed)");
            b = found->first;
            gs = found->second;
        }
    }
    w.bits = static_cast<int>(b.value_or(0));
    w.groupSize = gs.value_or(0);
    w.shape.assign(W.begin(), W.end() - 1);
    w.shape.push_back(w.bits ? 32 * Wc / static_cast<uint64_t>(w.bits) : 0);
    w.params["mode"] = mode;
    w.evidence.push_back("weight U32 " + shapeText(W) + " + scales " + shapeText(S) + (ib >= 0 ? " + biases" : "") +
                         " (MLX)");
    finish(std::move(w));
    return true;
}

// ---------------------------------------------------------------------------------------
// HQQ and the formats detection only names.

bool Detector::detectHqq(const Group& g)
{
    const int iq = g.find("W_q");
    if (iq < 0)
        return false;
    LogicalWeight w;
    w.name = g.prefix;
    w.format = "hqq";
    w.symmetric = false;
    for (const auto& [suffix, idx] : g.members)
        if (suffix != "bias")
            add(w, suffix, static_cast<int>(idx));
    const auto scalar = [&](const char* role) -> std::optional<int64_t> {
        const int i = g.find(role);
        if (i < 0)
            return std::nullopt;
        const auto v = ints(i, w);
        return v && v->size() == 1 ? std::optional<int64_t>((*v)[0]) : std::nullopt;
    };
    if (const int is = g.find("shape"); is >= 0)
        if (const auto v = ints(is, w))
            for (int64_t d : *v)
                w.shape.push_back(d > 0 ? static_cast<uint64_t>(d) : 0);
    w.bits = static_cast<int>(scalar("nbits").value_or(0));
    w.groupSize = scalar("group_size").value_or(0);
    if (const auto axis = scalar("axis"))
        w.params["axis"] = std::to_string(*axis);
    if (const int ip = g.find("packing"); ip >= 0 && T(ip).dtype == DType::U8)
        if (const auto b = small(ip, w, 256))
            w.params["packing"] = std::string(reinterpret_cast<const char*>(b->data()), b->size());
    if (w.shape.empty())
        w.notes.push_back("HQQ shape tensor missing: logical shape unknown");
    w.evidence.push_back("W_q + scale/zero + HQQ meta tensors");
    finish(std::move(w));
    return true;
}

bool Detector::detectNamedOnly(const Group& g)
{
    std::string format;
    std::vector<std::string> roles;
    if (g.find("q_weight") >= 0) {
        format = "exl2";
        roles = {"q_weight", "q_scale", "q_scale_max", "q_groups", "q_group_map", "q_perm", "q_invperm"};
    } else if (g.find("trellis") >= 0) {
        format = "exl3";
        roles = {"trellis", "suh", "svh", "mcg", "mul1"};
    } else if (g.find("codes") >= 0 && g.find("codebooks") >= 0) {
        format = "aqlm";
        roles = {"codes", "codebooks", "scales"};
    } else if (g.find("weight._data") >= 0) {
        format = "quanto";
        roles = {"weight._data", "weight._scale", "weight._shift", "input_scale", "output_scale"};
    } else {
        return false;
    }
    LogicalWeight w;
    w.name = g.prefix;
    w.format = format;
    for (const auto& r : roles)
        add(w, r, g.find(r));
    const auto dims = [&](const char* role) { const int i = g.find(role); return i < 0 ? std::vector<uint64_t>{} : T(i).shape; };
    if (format == "exl2") {
        const auto q = dims("q_weight"), p = dims("q_invperm");
        if (q.size() == 2 && p.size() == 1 && p[0]) {
            w.shape = {q[1], p[0]};
            if ((q[0] * 32) % p[0] == 0)
                w.bits = static_cast<int>(q[0] * 32 / p[0]);
        }
    } else if (format == "aqlm") {
        const auto c = dims("codes"), cb = dims("codebooks");
        if (c.size() == 3 && cb.size() == 4)
            w.shape = {c[0] * cb[2], c[1] * cb[3]};
    } else if (format == "quanto") {
        const int d = g.find("weight._data");
        if (T(d).dtype == DType::I8 || isFp8(T(d).dtype)) {
            w.shape = T(d).shape;
            w.bits = 8;
        }
    } else if (format == "exl3") {
        const auto u = dims("suh"), v = dims("svh");
        if (u.size() == 1 && v.size() == 1)
            w.shape = {v[0], u[0]};
    }
    w.evidence.push_back("member names " + format + " uses");
    w.notes.push_back(format + " is named by detection only: not decoded");
    if (w.shape.empty())
        w.notes.push_back("logical shape unknown");
    finish(std::move(w));
    return true;
}

// ---------------------------------------------------------------------------------------

void Detector::plain(size_t i)
{
    const TensorEntry& t = T(i);
    LogicalWeight w;
    w.name = t.name;
    w.shape = t.shape;
    add(w, "weight", static_cast<int>(i));
    w.format = t.known ? plainFormatId(t.dtype) : std::string();
    if (w.format.empty()) {
        w.format = "unknown";
        w.notes.push_back("dtype " + t.typeName + " is not decoded");
    }
    w.bits = static_cast<int>(dtypeBits(t.dtype));
    w.evidence.push_back("unquantized " + std::string(dtypeName(t.dtype)) + " tensor");
    const std::string suffix = splitName(t.name).second;
    static constexpr std::string_view stray[] = {"qzeros", "g_idx", "SCB", "weight_scale", "weight_zero_point",
                                                 "weight.absmax", "weight.quant_map", "biases", "weight_scale_inv"};
    if (std::find(std::begin(stray), std::end(stray), suffix) != std::end(stray))
        w.notes.push_back("'" + suffix + "' looks like a member of a quantized weight, but its module has no matching codes");
    if (!t.note.empty())
        w.notes.push_back(t.note);
    finish(std::move(w));
}

void Detector::detectGroup(const Group& g)
{
    if (g.prefix.empty())
        return;
    // Most specific first: each detector claims its members; what is left is plain.
    if (m_cfg.mlxModuleDisabled(g.prefix))
        return;
    detectQweight(g) || detectMarlinBs(g) || detectBnb4(g) || detectBnb8(g) || detectCtPacked(g) ||
        detectScaledWeight(g) || detectMlx(g) || detectHqq(g) || detectNamedOnly(g);
}

std::vector<LogicalWeight> Detector::run()
{
    // At most one weight a tensor: no doubling at the peak (a reservation costs RSS as it fills).
    m_out.reserve(m_ckpt.tensors.size());
    if (m_ckpt.container == Container::Gguf) {
        detectGguf();
        return std::move(m_out);
    }
    {
        // Freed before the plain tensors become weights: the grouping (~250 bytes a tensor) and
        // the full list of weights are never held together.
        std::vector<Group> groups;
        std::unordered_map<std::string, size_t> byPrefix;
        for (size_t i = 0; i < m_ckpt.tensors.size(); ++i) {
            auto [prefix, suffix] = splitName(m_ckpt.tensors[i].name);
            auto [it, fresh] = byPrefix.emplace(prefix, groups.size());
            if (fresh)
                groups.push_back({prefix, {}});
            groups[it->second].members.emplace_back(std::move(suffix), i);
        }
        for (const auto& g : groups)
            detectGroup(g);
    }
    for (size_t i = 0; i < m_ckpt.tensors.size(); ++i)
        if (!m_used[i])
            plain(i);
    // File order of each weight's first member: a stable, familiar listing order. Sorted as a
    // permutation applied in place: std::stable_sort would copy half the weights aside.
    std::vector<size_t> first(m_out.size(), SIZE_MAX);
    for (size_t i = 0; i < m_out.size(); ++i)
        for (const auto& [r, idx] : m_out[i].members)
            first[i] = std::min(first[i], idx);
    if (std::is_sorted(first.begin(), first.end()))
        return std::move(m_out);
    std::vector<size_t> from(m_out.size()); // position k receives the weight now at from[k]
    for (size_t i = 0; i < from.size(); ++i)
        from[i] = i;
    std::stable_sort(from.begin(), from.end(), [&](size_t a, size_t b) { return first[a] < first[b]; });
    for (size_t i = 0; i < from.size(); ++i) {
        if (from[i] == i)
            continue;
        LogicalWeight held = std::move(m_out[i]);
        size_t j = i;
        while (from[j] != i) {
            const size_t next = from[j];
            m_out[j] = std::move(m_out[next]);
            from[j] = j;
            j = next;
        }
        m_out[j] = std::move(held);
        from[j] = j;
    }
    return std::move(m_out);
}

} // namespace

std::vector<LogicalWeight> detectWeights(const Checkpoint& ckpt)
{
    std::vector<LogicalWeight> out = Detector(ckpt).run();
    // Symmetric GPTQ weights are read by their own zeros (v1 or v2 each). One checkpoint holding
    // both means its writer mixed the conventions: every such weight says so.
    std::vector<LogicalWeight*> v1, v2;
    for (LogicalWeight& w : out)
        if (w.symmetric && w.params.count("zero_test"))
            (w.format == "gptq-v2" ? v2 : v1).push_back(&w);
    if (!v1.empty() && !v2.empty())
        for (auto* group : {&v1, &v2})
            for (LogicalWeight* w : *group) {
                w->params["zero_convention"] = "mixed";
                w->notes.push_back(std::string(kZeroConventionNote) + " this checkpoint mixes GPTQ v1 and v2 symmetric zeros (" +
                                   std::to_string(v1.size()) + " weights v1, " + std::to_string(v2.size()) +
                                   " v2); this one reads as " + (group == &v2 ? "v2" : "v1") + " by its own zeros");
            }
    return out;
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
