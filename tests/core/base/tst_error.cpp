// error.h: an error's context (file, weight, tensor) is kept apart from what went wrong and printed
// once in front of it; withContext adds only what the error does not say yet (a shard's file stays),
// never to a cancel, and keeps the error's type and translatable message.
#include "base/error.h"
#include "base/progress.h"

#include <QTest>

#include <string>

class TestError : public QObject {
    Q_OBJECT
private slots:
    void contextInFront()
    {
        const qs::Error e(qs::ErrorContext{"m.gguf", "blk.0.attn_q.weight", "blk.0.attn_q.weight"}, "bad block");
        QCOMPARE(std::string(e.what()),
                 std::string("m.gguf: weight 'blk.0.attn_q.weight': tensor "
                             "'blk.0.attn_q.weight': bad block"));
        QCOMPARE(e.detail(), std::string("bad block"));
        QCOMPARE(std::string(qs::Error("plain").what()), std::string("plain"));
        QCOMPARE(std::string(qs::Error(qs::ErrorContext{"f"}, "x").what()), std::string("f: x"));
    }

    void withContextFillsWhatIsMissing()
    {
        try {
            qs::withContext(qs::ErrorContext{"folder", "w"}, [] {
                qs::withContext(qs::ErrorContext{"folder/shard.safetensors"}, [] { throw qs::Error("short read"); });
            });
            QFAIL("no error");
        } catch (const qs::Error& e) {
            QCOMPARE(std::string(e.what()), std::string("folder/shard.safetensors: weight 'w': short read"));
            QCOMPARE(e.context().file, std::string("folder/shard.safetensors"));
        }
        // The value passes through when nothing is thrown.
        QCOMPARE(qs::withContext(qs::ErrorContext{"f"}, [] { return 7; }), 7);
    }

    void cancelStaysACancel()
    {
        try {
            qs::withContext(qs::ErrorContext{"f", "w"}, [] { throw qs::Cancelled(); });
            QFAIL("no error");
        } catch (const qs::Cancelled& e) {
            QCOMPARE(std::string(e.what()), std::string("cancelled"));
        }
    }

    void messageKeepsItsTemplate()
    {
        const qs::Message m(QT_TRANSLATE_NOOP("qs::Message", "needs %1 bytes"), {"12"});
        try {
            qs::withContext(qs::ErrorContext{"f"}, [&] { throw qs::Error(m); });
            QFAIL("no error");
        } catch (const qs::Error& e) {
            QCOMPARE(std::string(e.what()), std::string("f: needs 12 bytes"));
            QCOMPARE(e.contextText(), std::string("f: "));
            QVERIFY(e.message());
            QCOMPARE(e.message()->text(), std::string("needs 12 bytes"));
        }
    }
};

QTEST_GUILESS_MAIN(TestError)
#include "tst_error.moc"
