#include "container/json.h"

#include "base/stringindex.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <charconv>
#include <cmath>
#include <array>
#include <memory>

namespace qs::json {

Value::Value() = default;
Value::Value(const Value&) = default;
Value::Value(Value&&) noexcept = default;
Value& Value::operator=(const Value&) = default;
Value& Value::operator=(Value&&) noexcept = default;
Value::~Value() = default;

const Value* Value::find(std::string_view key) const
{
    for (const auto& [k, v] : object)
        if (k == key)
            return &v;
    return nullptr;
}

std::string_view typeName(Value::Type t)
{
    switch (t) {
    case Value::Type::Null: return "null";
    case Value::Type::Bool: return "boolean";
    case Value::Type::UInt:
    case Value::Type::Int: return "integer";
    case Value::Type::Float: return "number";
    case Value::Type::String: return "string";
    case Value::Type::Array: return "array";
    case Value::Type::Object: return "object";
    }
    return "value";
}

namespace {

class Parser {
public:
    Parser(std::string_view text, const ParseOptions& options)
        : m_text(text)
        , m_options(options)
    {
    }

    Value parseDocument()
    {
        skipWhitespace();
        Value v = parseValue(0);
        skipWhitespace();
        if (m_pos != m_text.size())
            error("unexpected " + describe(m_pos) + " after the JSON value");
        return v;
    }

    Value::Type streamObject(const MemberCallback& onMember)
    {
        skipWhitespace();
        Value::Type type = Value::Type::Object;
        if (!atEnd() && peek() == '{')
            parseMembers(1, [&](std::string&& key, Value&& value, size_t keyPos) {
                onMember(std::move(key), std::move(value), keyPos);
                m_values = 0; // the member is gone: the budget is per member
            });
        else
            type = parseValue(0).type;
        skipWhitespace();
        if (m_pos != m_text.size())
            error("unexpected " + describe(m_pos) + " after the JSON value");
        return type;
    }

private:
    [[noreturn]] void error(const std::string& what, size_t pos) const
    {
        throw ParseError(what + " at byte " + std::to_string(pos), pos);
    }
    [[noreturn]] void error(const std::string& what) const { error(what, m_pos); }

    std::string describe(size_t pos) const
    {
        if (pos >= m_text.size())
            return "end of input";
        const auto c = static_cast<unsigned char>(m_text[pos]);
        if (c >= 0x20 && c < 0x7f)
            return std::string("character '") + static_cast<char>(c) + "'";
        static constexpr char hex[] = "0123456789abcdef";
        return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
    }

    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return m_text[m_pos]; }

    void skipWhitespace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++m_pos;
    }

    void expectLiteral(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            error("invalid literal (expected '" + std::string(word) + "')");
        m_pos += word.size();
    }

    Value parseValue(int depth)
    {
        if (atEnd())
            error("unexpected end of input (expected a value)");
        if (++m_values > m_options.maxValues)
            error("more than " + std::to_string(m_options.maxValues) + " values");
        Value v;
        v.pos = m_pos;
        switch (peek()) {
        case '{': parseObject(v, depth + 1); break;
        case '[': parseArray(v, depth + 1); break;
        case '"':
            v.type = Value::Type::String;
            v.string = parseString();
            break;
        case 't':
            expectLiteral("true");
            v.type = Value::Type::Bool;
            v.boolean = true;
            break;
        case 'f':
            expectLiteral("false");
            v.type = Value::Type::Bool;
            break;
        case 'n': expectLiteral("null"); break;
        default:
            if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
                parseNumber(v);
            else
                error("unexpected " + describe(m_pos) + " (expected a value)");
        }
        return v;
    }

    void enter(int depth) const
    {
        if (depth > m_options.maxDepth)
            error("nesting deeper than " + std::to_string(m_options.maxDepth) + " levels");
    }

    // The keys of one object so far, for the duplicate check: views of the text where a key has
    // no escapes (nearly always), else of a decoded copy; compared one by one in a small object,
    // through a hash index in a large one. A set of copied keys per object cost an allocation
    // per object and a node per key: most of parsing a header of a million tiny tensors.
    class SeenKeys {
    public:
        // False when an equal key came before. `raw` is the key's text between its quotes.
        bool insert(std::string_view raw, const std::string& key)
        {
            std::string_view k = raw;
            if (raw != key) {
                m_decoded.push_back(std::make_unique<std::string>(key));
                k = *m_decoded.back();
            }
            if (m_many.empty()) {
                for (size_t i = 0; i < m_few; ++i)
                    if (m_first[i] == k)
                        return false;
                if (m_few < m_first.size()) {
                    m_first[m_few++] = k;
                    return true;
                }
                m_many.assign(m_first.begin(), m_first.end());
                for (size_t i = 0; i < m_many.size(); ++i)
                    m_index.findOrInsert(m_many[i], i, keyAt());
            }
            if (m_index.findOrInsert(k, m_many.size(), keyAt()) != StringIndex::npos)
                return false;
            m_many.push_back(k);
            return true;
        }

    private:
        struct KeyAt {
            const SeenKeys* keys;
            std::string_view operator()(size_t i) const { return keys->m_many[i]; }
        };
        KeyAt keyAt() const { return {this}; }
        std::array<std::string_view, 8> m_first;
        size_t m_few = 0;
        std::vector<std::string_view> m_many; // every key, once there are more than m_first holds
        StringIndex m_index;
        std::vector<std::unique_ptr<std::string>> m_decoded;
    };

    // Parses '{' members '}' at nesting `depth`, handing each member to `onMember(key, value,
    // keyPos)`; keys are checked for duplicates as they arrive.
    template <class OnMember>
    void parseMembers(int depth, OnMember&& onMember)
    {
        enter(depth);
        ++m_pos; // '{'
        skipWhitespace();
        if (!atEnd() && peek() == '}') {
            ++m_pos;
            return;
        }
        SeenKeys seen;
        for (;;) {
            skipWhitespace();
            if (atEnd() || peek() != '"')
                error("unexpected " + describe(m_pos) + " (expected a quoted key)");
            const size_t keyPos = m_pos;
            std::string key = parseString();
            if (!seen.insert(m_text.substr(keyPos + 1, m_pos - keyPos - 2), key))
                throw ParseError("duplicate key \"" + key + "\" at byte " + std::to_string(keyPos), keyPos, key, depth);
            skipWhitespace();
            if (atEnd() || peek() != ':')
                error("unexpected " + describe(m_pos) + " (expected ':' after key)");
            ++m_pos;
            skipWhitespace();
            onMember(std::move(key), parseValue(depth), keyPos);
            skipWhitespace();
            if (atEnd())
                error("unexpected end of input (expected ',' or '}')");
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == '}') {
                ++m_pos;
                return;
            }
            error("unexpected " + describe(m_pos) + " (expected ',' or '}')");
        }
    }

    void checkSize(size_t size, const char* what, size_t pos) const
    {
        if (size >= m_options.maxContainerSize)
            error(std::string(what) + " with more than " + std::to_string(m_options.maxContainerSize) + " elements",
                  pos);
    }

    void parseObject(Value& v, int depth)
    {
        v.type = Value::Type::Object;
        parseMembers(depth, [&](std::string&& key, Value&& member, size_t keyPos) {
            checkSize(v.object.size(), "object", keyPos);
            v.object.emplace_back(std::move(key), std::move(member));
        });
    }

    void parseArray(Value& v, int depth)
    {
        enter(depth);
        v.type = Value::Type::Array;
        ++m_pos; // '['
        skipWhitespace();
        if (!atEnd() && peek() == ']') {
            ++m_pos;
            return;
        }
        for (;;) {
            skipWhitespace();
            checkSize(v.array.size(), "array", m_pos);
            v.array.push_back(parseValue(depth));
            skipWhitespace();
            if (atEnd())
                error("unexpected end of input (expected ',' or ']')");
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == ']') {
                ++m_pos;
                return;
            }
            error("unexpected " + describe(m_pos) + " (expected ',' or ']')");
        }
    }

    unsigned hex4()
    {
        if (m_text.size() - m_pos < 4)
            error("truncated \\u escape");
        unsigned cp = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos + i];
            unsigned d;
            if (c >= '0' && c <= '9')
                d = unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                d = unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                d = unsigned(c - 'A' + 10);
            else
                error("invalid hex digit in \\u escape", m_pos + i);
            cp = cp * 16 + d;
        }
        m_pos += 4;
        return cp;
    }

    static void appendUtf8(std::string& out, unsigned cp)
    {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    // Length of the valid UTF-8 sequence starting at m_pos (lead byte >= 0x80), or 0.
    size_t utf8SequenceLength() const
    {
        const auto* s = reinterpret_cast<const unsigned char*>(m_text.data()) + m_pos;
        const size_t avail = m_text.size() - m_pos;
        const unsigned char c = s[0];
        size_t n;
        unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            n = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            if (c == 0xE0)
                lo = 0xA0; // no overlong forms
            else if (c == 0xED)
                hi = 0x9F; // no UTF-16 surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F; // nothing above U+10FFFF
        } else {
            return 0;
        }
        if (avail < n || s[1] < lo || s[1] > hi)
            return 0;
        for (size_t i = 2; i < n; ++i)
            if (s[i] < 0x80 || s[i] > 0xBF)
                return 0;
        return n;
    }

    std::string parseString()
    {
        const size_t start = m_pos;
        ++m_pos; // opening quote
        std::string out;
        for (;;) {
            if (atEnd())
                error("unterminated string (started at byte " + std::to_string(start) + ")");
            const auto c = static_cast<unsigned char>(peek());
            if (c == '"') {
                ++m_pos;
                return out;
            }
            if (c < 0x20)
                error("control character " + describe(m_pos) + " inside a string (must be escaped)");
            if (c == '\\') {
                ++m_pos;
                if (atEnd())
                    error("unterminated escape in string");
                const char e = peek();
                ++m_pos;
                switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    const size_t escPos = m_pos - 2;
                    unsigned cp = hex4();
                    if (cp >= 0xDC00 && cp <= 0xDFFF)
                        error("lone low surrogate in \\u escape", escPos);
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        if (m_text.substr(m_pos, 2) != "\\u")
                            error("high surrogate in \\u escape not followed by a low surrogate", escPos);
                        m_pos += 2;
                        const unsigned lo = hex4();
                        if (lo < 0xDC00 || lo > 0xDFFF)
                            error("high surrogate in \\u escape not followed by a low surrogate", escPos);
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    appendUtf8(out, cp);
                    break;
                }
                default: error("invalid escape '\\" + std::string(1, e) + "' in string", m_pos - 2);
                }
                continue;
            }
            if (c < 0x80) {
                out += static_cast<char>(c);
                ++m_pos;
                continue;
            }
            const size_t n = utf8SequenceLength();
            if (n == 0)
                error("invalid UTF-8 in string");
            out.append(m_text.substr(m_pos, n));
            m_pos += n;
        }
    }

    void parseNumber(Value& v)
    {
        const size_t start = m_pos;
        auto digit = [&] { return !atEnd() && peek() >= '0' && peek() <= '9'; };
        const bool negative = peek() == '-';
        if (negative)
            ++m_pos;
        if (!digit())
            error("invalid number: expected a digit");
        if (peek() == '0') {
            ++m_pos;
            if (digit())
                error("invalid number: leading zero");
        } else {
            while (digit())
                ++m_pos;
        }
        bool integral = true;
        if (!atEnd() && peek() == '.') {
            integral = false;
            ++m_pos;
            if (!digit())
                error("invalid number: expected a digit after '.'");
            while (digit())
                ++m_pos;
        }
        if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
            integral = false;
            ++m_pos;
            if (!atEnd() && (peek() == '+' || peek() == '-'))
                ++m_pos;
            if (!digit())
                error("invalid number: expected a digit in the exponent");
            while (digit())
                ++m_pos;
        }
        const char* first = m_text.data() + start;
        const char* last = m_text.data() + m_pos;
        if (integral) {
            if (!negative) {
                uint64_t u = 0;
                if (std::from_chars(first, last, u).ec == std::errc()) {
                    v.type = Value::Type::UInt;
                    v.uint = u;
                    return;
                }
            } else {
                int64_t i = 0;
                if (std::from_chars(first, last, i).ec == std::errc()) {
                    v.type = Value::Type::Int;
                    v.sint = i;
                    return;
                }
            }
        }
        // Fractions, exponents and out-of-range integers: the nearest double (±inf on overflow).
        double d = 0.0;
        const auto r = std::from_chars(first, last, d);
        if (r.ec == std::errc::result_out_of_range)
            d = (negative ? -1.0 : 1.0) * HUGE_VAL;
        else if (r.ec != std::errc())
            error("invalid number", start);
        v.type = Value::Type::Float;
        v.number = d;
    }

    std::string_view m_text;
    const ParseOptions& m_options;
    size_t m_pos = 0;
    size_t m_values = 0;
};

} // namespace

Value parse(std::string_view text, const ParseOptions& options)
{
    return Parser(text, options).parseDocument();
}

Value::Type parseObjectMembers(std::string_view text, const ParseOptions& options, const MemberCallback& onMember)
{
    return Parser(text, options).streamObject(onMember);
}

void appendQuoted(std::string& out, std::string_view s)
{
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

QJsonValue toQJsonValue(const Value& v)
{
    switch (v.type) {
    case Value::Type::Null: return QJsonValue(QJsonValue::Null);
    case Value::Type::Bool: return QJsonValue(v.boolean);
    case Value::Type::UInt:
        if (v.uint <= uint64_t(INT64_MAX))
            return QJsonValue(static_cast<qint64>(v.uint));
        return QJsonValue(static_cast<double>(v.uint));
    case Value::Type::Int: return QJsonValue(static_cast<qint64>(v.sint));
    case Value::Type::Float: return QJsonValue(v.number);
    case Value::Type::String: return QJsonValue(QString::fromStdString(v.string));
    case Value::Type::Array: {
        QJsonArray a;
        for (const auto& e : v.array)
            a.append(toQJsonValue(e));
        return a;
    }
    case Value::Type::Object: {
        QJsonObject o;
        for (const auto& [k, e] : v.object)
            o.insert(QString::fromStdString(k), toQJsonValue(e));
        return o;
    }
    }
    return {};
}

} // namespace qs::json
