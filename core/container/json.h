#pragma once
// A small strict JSON parser (RFC 8259) for untrusted headers and configs.
// Integers keep their exact value up to 2^64-1 (never through a double), members keep
// document order, duplicate keys and invalid UTF-8 are errors, nesting is bounded, and
// every error carries the byte position where it was found.
#include <QJsonValue>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qs::json {

class Value;
using Member = std::pair<std::string, Value>;

class Value {
public:
    enum class Type : uint8_t { Null, Bool, UInt, Int, Float, String, Array, Object };

    // Declared here, defaulted in json.cpp: clang with libstdc++ rejects an implicit destructor
    // that needs std::pair<std::string, Value> complete while Value is not (QUANTSCOPE_FUZZ).
    Value();
    Value(const Value&);
    Value(Value&&) noexcept;
    Value& operator=(const Value&);
    Value& operator=(Value&&) noexcept;
    ~Value();

    Type type = Type::Null;
    bool boolean = false;
    uint64_t uint = 0; // Type::UInt: a non-negative integer literal
    int64_t sint = 0; // Type::Int: a negative integer literal
    double number = 0.0; // Type::Float: a literal with fraction/exponent, or an integer out of range
    std::string string;
    std::vector<Value> array;
    std::vector<Member> object; // document order
    size_t pos = 0; // byte offset of the value's first character in the input

    bool isNull() const { return type == Type::Null; }
    bool isBool() const { return type == Type::Bool; }
    bool isString() const { return type == Type::String; }
    bool isArray() const { return type == Type::Array; }
    bool isObject() const { return type == Type::Object; }
    // The first member named `key`, or nullptr (also when this is not an object).
    const Value* find(std::string_view key) const;
};

// "object", "string", "integer", ... for messages.
std::string_view typeName(Value::Type t);

class ParseError : public std::runtime_error {
public:
    ParseError(const std::string& what, size_t pos, std::string duplicateKey = {}, int depth = 0)
        : std::runtime_error(what)
        , m_pos(pos)
        , m_duplicateKey(std::move(duplicateKey))
        , m_depth(depth)
    {
    }
    size_t pos() const { return m_pos; }
    // Set when the error is a repeated key: the key and the object's nesting depth (1 = top level).
    const std::string& duplicateKey() const { return m_duplicateKey; }
    int depth() const { return m_depth; }

private:
    size_t m_pos;
    std::string m_duplicateKey;
    int m_depth;
};

struct ParseOptions {
    int maxDepth = 128;
    // Most elements one array or object may hold (the streamed top level excepted): bounds
    // the memory a hostile document can make the parser allocate.
    size_t maxContainerSize = SIZE_MAX;
    // Most values one document (or one streamed top-level member) may hold. A value costs
    // ~120 bytes of DOM against as little as 2 bytes of text, so this, not the text's size,
    // is what bounds the parser's memory.
    size_t maxValues = SIZE_MAX;
};

// Parses exactly one value, surrounded by optional JSON whitespace. Throws ParseError
// whose message reads "<what> at byte <pos>".
Value parse(std::string_view text, const ParseOptions& options = {});

// Streams a document whose top level is an object: each member is parsed (within the
// limits), handed to `onMember(key, value, keyPos)` and dropped, so memory stays
// proportional to one member, not to the document. Returns the top-level type; when it
// is not Object the document was another valid value and `onMember` was never called.
using MemberCallback = std::function<void(std::string&& key, Value&& value, size_t keyPos)>;
Value::Type parseObjectMembers(std::string_view text, const ParseOptions& options, const MemberCallback& onMember);

// Appends `s` as a JSON string literal (quotes included), escaping as serde_json does:
// '"', '\\', and control characters; other UTF-8 passes through unchanged.
void appendQuoted(std::string& out, std::string_view s);

// For Qt-facing data (configs): integers beyond qint64 become doubles.
QJsonValue toQJsonValue(const Value& v);

} // namespace qs::json
