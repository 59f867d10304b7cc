// The strict JSON parser: grammar, exact integers, strings and UTF-8, limits, error positions.
#include "container/json.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <string>

namespace {

using qs::json::Value;

// A type-tagged rendering, so a test states the whole parse result in one string.
std::string render(const Value& v)
{
    switch (v.type) {
    case Value::Type::Null: return "null";
    case Value::Type::Bool: return v.boolean ? "true" : "false";
    case Value::Type::UInt: return "u" + std::to_string(v.uint);
    case Value::Type::Int: return "i" + std::to_string(v.sint);
    case Value::Type::Float: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "f%.17g", v.number);
        return buf;
    }
    case Value::Type::String: {
        std::string s;
        qs::json::appendQuoted(s, v.string);
        return s;
    }
    case Value::Type::Array: {
        std::string s = "[";
        for (size_t i = 0; i < v.array.size(); ++i)
            s += (i ? "," : "") + render(v.array[i]);
        return s + "]";
    }
    case Value::Type::Object: {
        std::string s = "{";
        for (size_t i = 0; i < v.object.size(); ++i) {
            if (i)
                s += ",";
            qs::json::appendQuoted(s, v.object[i].first);
            s += ":" + render(v.object[i].second);
        }
        return s + "}";
    }
    }
    return "?";
}

} // namespace

class TestJson : public QObject {
    Q_OBJECT
private slots:
    void valid_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("rendered");
        QTest::addRow("empty object") << QByteArray("{}") << QByteArray("{}");
        QTest::addRow("whitespace") << QByteArray(" \t\r\n[ 1 , 2 ]\n ") << QByteArray("[u1,u2]");
        QTest::addRow("literals") << QByteArray("[true,false,null]") << QByteArray("[true,false,null]");
        QTest::addRow("member order kept") << QByteArray(R"({"b":1,"a":2})") << QByteArray(R"({"b":u1,"a":u2})");
        QTest::addRow("u64 max") << QByteArray("18446744073709551615") << QByteArray("u18446744073709551615");
        QTest::addRow("2^53+1 exact") << QByteArray("9007199254740993") << QByteArray("u9007199254740993");
        QTest::addRow("i64 min") << QByteArray("-9223372036854775808") << QByteArray("i-9223372036854775808");
        QTest::addRow("minus zero int") << QByteArray("-0") << QByteArray("i0");
        QTest::addRow("beyond u64 is float")
            << QByteArray("18446744073709551616") << QByteArray("f1.8446744073709552e+19");
        QTest::addRow("below i64 is float")
            << QByteArray("-9223372036854775809") << QByteArray("f-9.2233720368547758e+18");
        QTest::addRow("fraction") << QByteArray("0.5") << QByteArray("f0.5");
        QTest::addRow("exponent") << QByteArray("1E3") << QByteArray("f1000");
        QTest::addRow("negative exponent") << QByteArray("-25e-1") << QByteArray("f-2.5");
        QTest::addRow("exponent sign plus") << QByteArray("1.25e+2") << QByteArray("f125");
        QTest::addRow("huge float") << QByteArray("1e400") << QByteArray("finf");
        QTest::addRow("escapes") << QByteArray("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"")
                                 << QByteArray("\"\\\"\\\\/\\b\\f\\n\\r\\t\"");
        QTest::addRow("unicode escape") << QByteArray("\"\\u00e9\\u4e2D\"") << QByteArray("\"\xc3\xa9\xe4\xb8\xad\"");
        QTest::addRow("surrogate pair") << QByteArray("\"\\ud83d\\ude00\"") << QByteArray("\"\xf0\x9f\x98\x80\"");
        QTest::addRow("escaped nul") << QByteArray("\"a\\u0000b\"") << QByteArray("\"a\\u0000b\"");
        QTest::addRow("raw utf-8") << QByteArray("\"\xc3\xa9\xe2\x82\xac\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"")
                                   << QByteArray("\"\xc3\xa9\xe2\x82\xac\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"");
        QTest::addRow("nested") << QByteArray(R"({"a":[{"b":[]}],"c":{}})") << QByteArray(R"({"a":[{"b":[]}],"c":{}})");
        QTest::addRow("same key in different objects")
            << QByteArray(R"([{"a":1},{"a":2}])") << QByteArray(R"([{"a":u1},{"a":u2}])");
    }
    void valid()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, rendered);
        const Value v = qs::json::parse(std::string_view(text.constData(), size_t(text.size())));
        QCOMPARE(QByteArray::fromStdString(render(v)), rendered);
    }

    void invalid_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("pos");
        QTest::addColumn<QString>("message");
        QTest::addRow("empty") << QByteArray("") << 0 << "unexpected end of input";
        QTest::addRow("only spaces") << QByteArray("   ") << 3 << "unexpected end of input";
        QTest::addRow("trailing comma object") << QByteArray(R"({"a":1,})") << 7 << "expected a quoted key";
        QTest::addRow("trailing comma array") << QByteArray("[1,]") << 3 << "expected a value";
        QTest::addRow("missing colon") << QByteArray(R"({"a" 1})") << 5 << "expected ':'";
        QTest::addRow("single quotes") << QByteArray("{'a':1}") << 1 << "expected a quoted key";
        QTest::addRow("unquoted key") << QByteArray("{a:1}") << 1 << "expected a quoted key";
        QTest::addRow("two values") << QByteArray("{} {}") << 3 << "after the JSON value";
        QTest::addRow("unclosed array") << QByteArray("[1") << 2 << "expected ',' or ']'";
        QTest::addRow("unclosed object") << QByteArray("{\"a\":1") << 6 << "expected ',' or '}'";
        QTest::addRow("bad literal") << QByteArray("nul") << 0 << "invalid literal";
        QTest::addRow("capital literal") << QByteArray("True") << 0 << "expected a value";
        QTest::addRow("leading zero") << QByteArray("012") << 1 << "leading zero";
        QTest::addRow("plus sign") << QByteArray("+1") << 0 << "expected a value";
        QTest::addRow("bare minus") << QByteArray("-") << 1 << "expected a digit";
        QTest::addRow("dot without digits") << QByteArray("1.") << 2 << "after '.'";
        QTest::addRow("leading dot") << QByteArray(".5") << 0 << "expected a value";
        QTest::addRow("empty exponent") << QByteArray("1e") << 2 << "exponent";
        QTest::addRow("NaN") << QByteArray("NaN") << 0 << "expected a value";
        QTest::addRow("unterminated string") << QByteArray("\"abc") << 4 << "unterminated string";
        QTest::addRow("raw newline in string") << QByteArray("\"a\nb\"") << 2 << "control character";
        QTest::addRow("raw tab in string") << QByteArray("\"a\tb\"") << 2 << "control character";
        QTest::addRow("bad escape") << QByteArray("\"\\x\"") << 1 << "invalid escape";
        QTest::addRow("short unicode escape") << QByteArray("\"\\u12\"") << 3 << "truncated \\u escape";
        QTest::addRow("bad hex") << QByteArray("\"\\u12g4\"") << 5 << "invalid hex digit";
        QTest::addRow("lone high surrogate") << QByteArray("\"\\ud800\"") << 1 << "high surrogate";
        QTest::addRow("high then non-low") << QByteArray("\"\\ud800\\u0041\"") << 1 << "high surrogate";
        QTest::addRow("lone low surrogate") << QByteArray("\"\\udc00\"") << 1 << "lone low surrogate";
        QTest::addRow("utf-8 bare continuation") << QByteArray("\"\x80\"") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 overlong 2") << QByteArray("\"\xc0\xaf\"") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 overlong 3") << QByteArray("\"\xe0\x80\xaf\"") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 overlong 4") << QByteArray("\"\xf0\x80\x80\xaf\"") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 surrogate") << QByteArray("\"\xed\xa0\x80\"") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 above U+10FFFF") << QByteArray("\"\xf4\x90\x80\x80\"") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 truncated") << QByteArray("\"\xe2\x82\"") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 cut by end") << QByteArray("\"\xe2\x82") << 1 << "invalid UTF-8";
        QTest::addRow("utf-8 0xff") << QByteArray("\"\xff\"") << 1 << "invalid UTF-8";
        QTest::addRow("byte order mark") << QByteArray("\xef\xbb\xbf{}") << 0 << "byte 0xef";
        QTest::addRow("nul byte after value") << QByteArray("{}\0", 3) << 2 << "byte 0x00";
        QTest::addRow("duplicate key") << QByteArray(R"({"a":1,"b":2,"a":3})") << 13 << "duplicate key \"a\"";
        QTest::addRow("duplicate nested key") << QByteArray(R"({"x":{"k":1,"k":1}})") << 12 << "duplicate key \"k\"";
        QTest::addRow("duplicate after escape") << QByteArray("{\"a\":1,\"\\u0061\":2}") << 7 << "duplicate key \"a\"";
    }
    void invalid()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, pos);
        QFETCH(QString, message);
        try {
            qs::json::parse(std::string_view(text.constData(), size_t(text.size())));
            QFAIL("parsed");
        } catch (const qs::json::ParseError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(message), qPrintable(what));
            QCOMPARE(int(e.pos()), pos);
            QVERIFY2(what.endsWith(QStringLiteral(" at byte %1").arg(pos)), qPrintable(what));
        }
    }

    void duplicateKeyDetails()
    {
        try {
            qs::json::parse(R"({"x":{"k":1,"k":2}})");
            QFAIL("parsed");
        } catch (const qs::json::ParseError& e) {
            QCOMPARE(e.duplicateKey(), std::string("k"));
            QCOMPARE(e.depth(), 2);
        }
        try {
            qs::json::parse(R"({"k":1,"k":2})");
            QFAIL("parsed");
        } catch (const qs::json::ParseError& e) {
            QCOMPARE(e.duplicateKey(), std::string("k"));
            QCOMPARE(e.depth(), 1);
        }
    }

    void depthLimit()
    {
        const qs::json::ParseOptions three{3};
        QCOMPARE(render(qs::json::parse("[[[1]]]", three)), std::string("[[[u1]]]"));
        QCOMPARE(render(qs::json::parse(R"({"a":{"b":[]}})", three)), std::string(R"({"a":{"b":[]}})"));
        QVERIFY_THROWS_EXCEPTION(qs::json::ParseError, qs::json::parse("[[[[1]]]]", three));
        QVERIFY_THROWS_EXCEPTION(qs::json::ParseError, qs::json::parse(R"({"a":{"b":{"c":{}}}})", three));
        // The default limit stops a hostile document long before the stack could.
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        try {
            qs::json::parse(deep);
            QFAIL("parsed");
        } catch (const qs::json::ParseError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains(QLatin1String("nesting deeper than 128")));
            QCOMPARE(e.pos(), size_t(128));
        }
    }

    void containerLimit()
    {
        const qs::json::ParseOptions four{128, 4};
        QCOMPARE(render(qs::json::parse("[1,2,3,4]", four)), std::string("[u1,u2,u3,u4]"));
        try {
            qs::json::parse("[1,2,3,4,5]", four);
            QFAIL("parsed");
        } catch (const qs::json::ParseError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains(QLatin1String("array with more than 4 elements")));
            QCOMPARE(e.pos(), size_t(9));
        }
        QVERIFY_THROWS_EXCEPTION(qs::json::ParseError, qs::json::parse(R"({"a":1,"b":2,"c":3,"d":4,"e":5})", four));
    }

    void streamedMembers()
    {
        std::vector<std::string> seen;
        const qs::json::ParseOptions small{8, 2};
        const auto type = qs::json::parseObjectMembers(
            R"( {"a": [1, 2], "b": {"k": "v"}, "c": 3} )", small, [&](std::string&& key, Value&& value, size_t keyPos) {
                seen.push_back(key + "@" + std::to_string(keyPos) + "=" + render(value));
            });
        QCOMPARE(type, Value::Type::Object);
        QCOMPARE(seen, (std::vector<std::string>{"a@2=[u1,u2]", "b@15=" + std::string(R"({"k":"v"})"), "c@32=u3"}));
        // The top level is not limited by maxContainerSize; nested containers are.
        QVERIFY_THROWS_EXCEPTION(qs::json::ParseError,
                                 qs::json::parseObjectMembers(R"({"a":[1,2,3]})", small, [](auto&&...) {}));
        // Other documents: their type, and no member callback.
        int calls = 0;
        QCOMPARE(qs::json::parseObjectMembers("[1]", small, [&](auto&&...) { ++calls; }), Value::Type::Array);
        QCOMPARE(qs::json::parseObjectMembers(" 7 ", small, [&](auto&&...) { ++calls; }), Value::Type::UInt);
        QCOMPARE(calls, 0);
        // Errors anywhere, including after members were delivered, and duplicates at depth 1.
        QVERIFY_THROWS_EXCEPTION(qs::json::ParseError,
                                 qs::json::parseObjectMembers(R"({"a":1} x)", small, [](auto&&...) {}));
        QVERIFY_THROWS_EXCEPTION(qs::json::ParseError,
                                 qs::json::parseObjectMembers(R"({"a":1,)", small, [](auto&&...) {}));
        try {
            qs::json::parseObjectMembers(R"({"a":1,"a":2})", small, [](auto&&...) {});
            QFAIL("parsed");
        } catch (const qs::json::ParseError& e) {
            QCOMPARE(e.duplicateKey(), std::string("a"));
            QCOMPARE(e.depth(), 1);
            QCOMPARE(e.pos(), size_t(7));
        }
    }

    void positionsOfValues()
    {
        const Value v = qs::json::parse(R"(  {"a": [1, "x"], "b": null})");
        QCOMPARE(v.pos, size_t(2));
        QCOMPARE(v.find("a")->pos, size_t(8));
        QCOMPARE(v.find("a")->array[1].pos, size_t(12));
        QCOMPARE(v.find("b")->pos, size_t(23));
        QVERIFY(v.find("b")->isNull());
        QCOMPARE(v.find("c"), nullptr);
        QCOMPARE(v.find("a")->find("a"), nullptr); // not an object
    }

    void quoteRoundTrip()
    {
        std::string all;
        for (int c = 1; c < 0x80; ++c)
            all += char(c);
        all += std::string("\0", 1) + "\xc3\xa9\xf0\x9f\x98\x80";
        std::string quoted;
        qs::json::appendQuoted(quoted, all);
        QCOMPARE(qs::json::parse(quoted).string, all);
        std::string small;
        qs::json::appendQuoted(small, std::string("a\"b\\c\n\x01\x1f\x7f", 9));
        QCOMPARE(small, std::string("\"a\\\"b\\\\c\\n\\u0001\\u001f") + "\x7f\"");
    }

    void toQJson()
    {
        const Value v = qs::json::parse(
            R"({"i":-3,"u":42,"big":18446744073709551615,"f":0.25,"s":"é","b":true,"n":null,"a":[1,{"k":"v"}]})");
        const QJsonObject o = qs::json::toQJsonValue(v).toObject();
        QCOMPARE(o.value(QStringLiteral("i")).toInteger(), qint64(-3));
        QCOMPARE(o.value(QStringLiteral("u")).toInteger(), qint64(42));
        QCOMPARE(o.value(QStringLiteral("big")).toDouble(), 18446744073709551615.0);
        QCOMPARE(o.value(QStringLiteral("f")).toDouble(), 0.25);
        QCOMPARE(o.value(QStringLiteral("s")).toString(), QStringLiteral("é"));
        QCOMPARE(o.value(QStringLiteral("b")).toBool(), true);
        QVERIFY(o.value(QStringLiteral("n")).isNull());
        QCOMPARE(o.value(QStringLiteral("a")).toArray().at(1).toObject().value(QStringLiteral("k")).toString(),
                 QStringLiteral("v"));
    }
};

QTEST_GUILESS_MAIN(TestJson)
#include "tst_json.moc"
