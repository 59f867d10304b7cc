#pragma once
// What every family's detection shares (formats/detect.cpp defines it): the merged
// quantization config, a group of tensors sharing a module prefix, and the context a
// family's detect function reads tensors through and hands its weights to. A family
// claims a group in <folder>/<folder>_detect.cpp, reached through its FamilyRow.
#include "container/dtype.h"
#include "container/logicalweight.h"

#include <QJsonObject>
#include <QJsonValue>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace qs {

class Checkpoint;
struct TensorEntry;

namespace detect {

// Small tensors detection may read (g_idx, qzeros, JSON quant states, shapes). Anything
// larger is left unread and the weight gets a note: listing must stay cheap.
inline constexpr uint64_t kSmallTensorCap = 64ull << 20;
inline constexpr uint64_t kJsonCap = 1ull << 20;

bool isIntDType(DType t);
bool isFp8(DType t);
// Little-endian integer element `i` of a tensor of integer dtype `t` (bounds checked by the caller).
int64_t intAt(std::span<const uint8_t> b, DType t, size_t i);
std::string jsonValueString(const QJsonValue& v);
std::optional<int64_t> jsonInt(const QJsonValue& v); // numbers and numeric strings
std::optional<bool> jsonBool(const QJsonValue& v); // bools, "true"/"1"/..., numbers
// Whether the regular expression `pattern` matches `name` from its start, as Python's re.match
// does (the configs' patterns are Python's); false for an invalid pattern.
bool matchesFromStart(const QString& pattern, const QString& name);

// Refuses w's shape (kRefusedShapeNote, detect.h): a note naming its format and shape and `why`,
// then the shape becomes unknown and a decodable format "unknown". Families call it where a shape
// from a config, JSON or side tensor disagrees with the stored data; Context::finish calls it for
// every weight whose shape overflows or spans more elements than its bytes can hold.
void refuseShape(LogicalWeight& w, const Message& why);
// The element count of w's shape; nullopt, with the shape refused, when it overflows 64 bits.
std::optional<uint64_t> checkedElements(LogicalWeight& w);

// A config value and where it was found.
struct Hit {
    QJsonValue value;
    std::string where; // "quantize_config.json: bits"
    std::string describe() const { return where + "=" + jsonValueString(value); }
};

// How a per-module entry of the config says a module is stored (the recipe's verdicts):
// kept unquantized, or quantized with other parameters; `reason` names the entry.
struct ModuleEntry {
    bool excluded = false;
    std::string reason; // "dynamic[-:.*lm_head] skips this module", "config.json quantization[x]: {...}"
};

// A part of the quantization config that one family defines (GPTQModel's `dynamic`, MLX's
// per-module entries, compressed-tensors' config groups and ignore list). The family reads
// it in its row's readConfig (formats/family.h) and adds it to the QuantConfig, which asks
// its parts, in table order, and knows none of them.
class ConfigPart {
public:
    virtual ~ConfigPart() = default;
    // The module's own value of one of `keys` (synonyms in preference order), ahead of the
    // config's global values (QuantConfig::getFor).
    virtual std::optional<Hit> moduleValue(const std::string&, std::initializer_list<const char*>) const
    {
        return std::nullopt;
    }
    // Whether the config keeps the module unquantized so that detection leaves its tensors plain.
    virtual bool skipsModule(const std::string&) const { return false; }
    // A list of the part keeping the module unquantized, "source: key lists entry"; asked after
    // the lists every config may carry (QuantConfig::moduleEntry).
    virtual std::optional<std::string> excludedBy(const std::string&) const { return std::nullopt; }
    // The module's entry (`quantized`: whether the weight is stored quantized); nullopt when the
    // part says nothing of it.
    virtual std::optional<ModuleEntry> moduleEntry(const std::string&, bool) const { return std::nullopt; }
    // Where moduleEntry stands among the config's answers: GPTQModel's `dynamic` is its config's
    // most specific word and comes before the exclusion lists; a module's own entry (MLX) after
    // them; a rule over every module (compressed-tensors' group targets) last.
    enum class EntryOrder : uint8_t { BeforeExclusions, AfterExclusions, Last };
    virtual EntryOrder entryOrder() const { return EntryOrder::AfterExclusions; }
    // The method a config holding this part is when it names none ("mlx"); "" for none.
    virtual std::string method() const { return {}; }
};

// The quantization config, merged from every place a checkpoint may carry it (Part C order):
// the quantization_config objects of config.json (and of its text_config / llm_config) and
// quantize_config.json, then what each family's row adds (its sources and its ConfigPart).
class QuantConfig {
public:
    explicit QuantConfig(const Checkpoint& ckpt);

    bool empty() const { return m_sources.empty(); }

    // The first source holding any of `keys` (synonyms, in preference order).
    std::optional<Hit> get(std::initializer_list<const char*> keys) const;
    // Like get(), but per-module values of the parts (ConfigPart::moduleValue) come first.
    std::optional<Hit> getFor(const std::string& prefix, std::initializer_list<const char*> keys) const;
    // Typed getFor(); a value found is added to ev's evidence when ev is given.
    std::optional<int64_t> intFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                  LogicalWeight* ev) const;
    std::optional<bool> boolFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                LogicalWeight* ev) const;
    std::optional<std::string> strFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                      LogicalWeight* ev) const;

    // quant_method, lowercase; else the first part's method(); "" when none.
    std::string method() const;
    // Whether a part keeps the module unquantized for detection (ConfigPart::skipsModule).
    bool skipsModule(const std::string& prefix) const;
    // Why the config stores the module otherwise than its global settings say: the parts'
    // entries in their EntryOrder, the exclusion lists (modules_to_not_convert, matched as
    // transformers does: the name or a dotted part of it; llm_int8_skip_modules; skip_modules;
    // then the parts' own lists) after the first. nullopt when nothing applies.
    std::optional<ModuleEntry> moduleEntry(const std::string& prefix, bool quantized) const;

    // ---- for the families' readConfig ----
    struct Source {
        std::string name; // "config.json quantization_config"
        QJsonObject obj;
    };
    const std::vector<Source>& sources() const { return m_sources; }
    // Adds a source after those found so far; a fallback one goes after every other source.
    void addSource(std::string name, QJsonObject obj, bool fallback = false);
    void addPart(std::shared_ptr<const ConfigPart> part) { m_parts.push_back(std::move(part)); }
    // The part of type T a family added; nullptr when none.
    template <class T>
    const T* part() const
    {
        for (const auto& p : m_parts)
            if (const T* t = dynamic_cast<const T*>(p.get()))
                return t;
        return nullptr;
    }

private:
    std::optional<std::string> excludedBy(const std::string& prefix) const;

    std::vector<Source> m_sources;
    std::vector<Source> m_fallbacks; // appended to m_sources once every row has read
    std::vector<std::shared_ptr<const ConfigPart>> m_parts;
};

// The tensors sharing one module prefix ("model.layers.0.mlp.down_proj").
struct Group {
    std::string prefix;
    std::vector<std::pair<std::string, size_t>> members; // suffix -> tensor index

    int find(std::string_view suffix) const; // tensor index, or -1
};

// One detection run over a checkpoint: the config, the tensors, the weights found so far.
class Context {
public:
    explicit Context(const Checkpoint& ckpt);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const Checkpoint& checkpoint() const { return m_ckpt; }
    const QuantConfig& config() const { return m_cfg; }
    const TensorEntry& tensor(size_t i) const;
    const TensorEntry& tensor(int i) const { return tensor(static_cast<size_t>(i)); }

    // Makes tensor `idx` member `role` of w and marks it claimed; nothing when idx < 0.
    void add(LogicalWeight& w, const std::string& role, int idx);
    // Sums the members' bytes, refuses a shape whose products overflow or that spans more
    // elements than those bytes can hold (refuseShape), and appends w to the result.
    void finish(LogicalWeight w);
    bool claimed(size_t i) const { return m_used[i]; }
    std::vector<LogicalWeight>& weights() { return m_out; }

    // The bytes of a small member, or nullopt (with a note) when it is too big or unreadable.
    // They are read with pread into one reused buffer rather than through the mapping, so that
    // listing a large checkpoint does not leave megabytes of qzeros and g_idx pages resident.
    // The span stays valid until the next call.
    std::optional<std::span<const uint8_t>> small(int idx, LogicalWeight& w, uint64_t cap = kSmallTensorCap);
    // A small integer member's values, or nullopt with a note.
    std::optional<std::vector<int64_t>> ints(int idx, LogicalWeight& w);

private:
    const Checkpoint& m_ckpt;
    QuantConfig m_cfg;
    std::vector<bool> m_used;
    std::vector<LogicalWeight> m_out;
    std::vector<int> m_fds; // per checkpoint file, opened on first small read
    std::vector<uint8_t> m_buf;
};

} // namespace detect
} // namespace qs
