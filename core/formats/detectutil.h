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

// The quantization config, merged from every place a checkpoint may carry it (Part C order).
class QuantConfig {
public:
    explicit QuantConfig(const Checkpoint& ckpt);

    bool empty() const { return m_sources.empty(); }

    // The first source holding any of `keys` (synonyms, in preference order).
    std::optional<Hit> get(std::initializer_list<const char*> keys) const;
    // Like get(), but per-module overrides come first: GPTQModel `dynamic` (regex keys,
    // matched from the start of the name as re.match does) and MLX per-path entries.
    std::optional<Hit> getFor(const std::string& prefix, std::initializer_list<const char*> keys) const;
    // Typed getFor(); a value found is added to ev's evidence when ev is given.
    std::optional<int64_t> intFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                  LogicalWeight* ev) const;
    std::optional<bool> boolFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                LogicalWeight* ev) const;
    std::optional<std::string> strFor(const std::string& prefix, std::initializer_list<const char*> keys,
                                      LogicalWeight* ev) const;

    std::string method() const; // quant_method, lowercase; "mlx" for an MLX config; "" when none
    bool mlxModuleDisabled(const std::string& prefix) const;
    // The MLX per-path entry of a module (an object of overrides, or false); undefined when none.
    QJsonValue mlxModule(const std::string& prefix) const;
    // The GPTQModel `dynamic` key matching a module: the first negative one ("-:...", the
    // module is skipped) or the first positive one with its overrides; nullopt when none.
    struct DynamicHit {
        std::string key;
        bool skip = false;
        QJsonObject overrides;
    };
    std::optional<DynamicHit> dynamicFor(const std::string& prefix) const;
    // Where a config keeps a module unquantized: modules_to_not_convert (matched as transformers
    // does: the name, or a dotted part of it), llm_int8_skip_modules, skip_modules, and the
    // compressed-tensors ignore list (exact names and "re:" patterns). "source: key lists entry".
    std::optional<std::string> excludedBy(const std::string& prefix) const;
    bool hasCtGroups() const { return !m_ctGroups.isEmpty(); }

    // The compressed-tensors config group whose targets match `prefix`: regex targets
    // ("re:...", matched from the start) and exact names before class names ("Linear").
    std::optional<std::pair<std::string, QJsonObject>> ctGroupFor(const std::string& prefix) const;
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
