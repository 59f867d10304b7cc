// message.h: a template's %1..%9 take their arguments (a placeholder may repeat, any order),
// a % that is no placeholder of a given argument stays; verbatim text is never read as a
// template; a translated template takes the same arguments (what the GUI does).
#include "base/message.h"

#include <QTest>

#include <string>

class TestMessage : public QObject {
    Q_OBJECT
private slots:
    void fillsPlaceholders()
    {
        const qs::Message m(
            QT_TRANSLATE_NOOP("qs::Message",
                              "config says bits %1, but qweight %2 for K = %3 holds %4-bit codes: %4 bits"),
            {"8", "[16, 64]", "128", "4"});
        QCOMPARE(m.text(),
                 std::string("config says bits 8, but qweight [16, 64] for K = 128 holds 4-bit codes: 4 bits"));
        QVERIFY(m.startsWith("config says bits"));
        QCOMPARE(qs::fillMessage("%2 vor %1", {"a", "b"}), std::string("b vor a"));
        // No argument for %3, a percent sign, %0 and a letter: left as written.
        QCOMPARE(qs::fillMessage("%1% of %3, %0, %a", {"50"}), std::string("50% of %3, %0, %a"));
        QCOMPARE(qs::fillMessage("trailing %", {"x"}), std::string("trailing %"));
        QCOMPARE(qs::Message(QT_TRANSLATE_NOOP("qs::Message", "logical shape unknown")).text(),
                 std::string("logical shape unknown"));
    }

    void verbatimIsNoTemplate()
    {
        const qs::Message m = qs::Message::verbatim("quantize_config.json: bits=%2");
        QCOMPARE(m.text(), std::string("quantize_config.json: bits=%2"));
        QCOMPARE(std::string(m.source()), std::string("%1"));
        QCOMPARE(qs::Message().text(), std::string());
    }
};

QTEST_GUILESS_MAIN(TestMessage)
#include "tst_message.moc"
