#pragma once
// JSON for outputs too long to hold as one QJsonDocument, written exactly as that document's
// toJson(QJsonDocument::Indented) would be.
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QString>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace qscli {

// JSON text as QJsonDocument::toJson(Indented) writes it (4 spaces a level, ": " after a key,
// an empty object or array as "{" newline, indent, "}"), without a document: the callers give
// each object's members in QJsonObject's order (sorted by key). Strings with bytes past ASCII
// go through Qt, so they are escaped and replaced (invalid UTF-8) exactly as Qt does.
class JsonWriter {
public:
    // `depth`: the indentation level of the first value written (placed by the caller).
    JsonWriter(std::string& out, int depth)
        : m_out(out)
        , m_base(depth)
    {
    }

    void beginObject() { open('{'); }
    void endObject() { close('}'); }
    void beginArray() { open('['); }
    void endArray() { close(']'); }
    JsonWriter& key(std::string_view k)
    {
        item();
        string(k);
        m_out += ": ";
        return *this;
    }
    JsonWriter& element()
    {
        item();
        return *this;
    }
    void string(std::string_view s)
    {
        if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
            const QByteArray a = QJsonDocument(QJsonArray{QString::fromUtf8(s.data(), qsizetype(s.size()))})
                                     .toJson(QJsonDocument::Compact);
            m_out.append(a.constData() + 1, size_t(a.size() - 2)); // without [ ]
            return;
        }
        m_out += '"';
        for (const char c : s) {
            switch (c) {
            case '"': m_out += "\\\""; break;
            case '\\': m_out += "\\\\"; break;
            case '\b': m_out += "\\b"; break;
            case '\f': m_out += "\\f"; break;
            case '\n': m_out += "\\n"; break;
            case '\r': m_out += "\\r"; break;
            case '\t': m_out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    static constexpr char hex[] = "0123456789abcdef";
                    m_out += "\\u00";
                    m_out += hex[(c >> 4) & 15];
                    m_out += hex[c & 15];
                } else {
                    m_out += c;
                }
            }
        }
        m_out += '"';
    }
    void number(int64_t v) { m_out += std::to_string(v); }
    void number(double v)
    {
        // QJsonValue holds an integral double within 2^53 as an integer, and writes it so.
        if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) <= 9007199254740992.0) {
            m_out += std::to_string(static_cast<int64_t>(v));
        } else if (std::isfinite(v)) {
            const QByteArray b = QByteArray::number(v, 'g', QLocale::FloatingPointShortest);
            m_out.append(b.constData(), size_t(b.size()));
        } else {
            m_out += "null";
        }
    }
    void boolean(bool v) { m_out += v ? "true" : "false"; }
    void null() { m_out += "null"; }

private:
    void open(char c)
    {
        m_out += c;
        m_out += '\n';
        m_first.push_back(true);
    }
    void close(char c)
    {
        const bool empty = m_first.back();
        m_first.pop_back();
        if (!empty)
            m_out += '\n';
        m_out.append(size_t(4 * (m_base + int(m_first.size()))), ' ');
        m_out += c;
    }
    void item()
    {
        if (!m_first.back())
            m_out += ",\n";
        m_first.back() = false;
        m_out.append(size_t(4 * (m_base + int(m_first.size()))), ' ');
    }

    std::string& m_out;
    int m_base;
    std::vector<bool> m_first; // per open object or array: nothing in it yet
};

// A JSON object written to `out` member by member as QJsonDocument(root).toJson(Indented) would
// write it, for outputs too long to hold as a document (inspect --json of a million tensors
// held them as JSON objects at once, about 5 KiB a tensor). The caller gives the members in
// QJsonObject's key order; each small one is written by QJsonDocument, the elements of the
// long arrays by JsonWriter.
class JsonStream {
public:
    explicit JsonStream(std::FILE* out)
        : m_out(out)
    {
    }

    // The root's members, in key order; each call writes one.
    void member(const char* key, const QJsonValue& value)
    {
        QJsonObject o;
        o[QLatin1String(key)] = value;
        const QByteArray doc = QJsonDocument(o).toJson(QJsonDocument::Indented);
        // "{\n" + the member at indent 1 + "\n}\n": keep the member line(s).
        begin();
        put(std::string_view(doc.constData() + 2, size_t(doc.size() - 5)));
    }
    // A member whose value is an array of `count` elements, element(i, writer) writing each.
    template <class Element>
    void arrayMember(const char* key, size_t count, const Element& element)
    {
        begin();
        std::string text = std::string("    \"") + key + "\": ";
        JsonWriter j(text, 1);
        j.beginArray();
        for (size_t i = 0; i < count; ++i) {
            j.element();
            element(i, j);
            if (text.size() > (1u << 16)) {
                put(text);
                text.clear();
            }
        }
        j.endArray();
        put(text);
    }
    void finish() { put(m_members ? "\n}\n" : "{\n}\n"); }

private:
    void begin() { put(m_members++ ? ",\n" : "{\n"); }
    void put(std::string_view b) { std::fwrite(b.data(), 1, b.size(), m_out); }

    std::FILE* m_out;
    int m_members = 0;
};

} // namespace qscli
