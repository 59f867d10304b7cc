// Every command of `quantscope-cli --help` (the command table) answers --help, a mistyped
// option and missing arguments the same way: its own usage line, exit 0 for help, exit 2 and one
// line on stderr for the errors. Every command and option a help text names exists.
#include "testsupport.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

// The command names `quantscope-cli --help` lists, in its order.
QStringList listedCommands()
{
    const qstest::CliResult r = qstest::runCli({QStringLiteral("--help")});
    if (r.exitCode != 0)
        return {};
    QStringList names;
    bool inList = false;
    for (const QString& line : QString::fromUtf8(r.out).split(QLatin1Char('\n'))) {
        if (line == QLatin1String("Commands:"))
            inList = true;
        else if (inList && line.startsWith(QLatin1String("  ")))
            names << line.trimmed().section(QLatin1Char(' '), 0, 0);
        else if (inList && !names.isEmpty())
            break;
    }
    return names;
}

// The options a command's --help declares: the lines "  -o, --output <OUT>  ..." list them.
QSet<QString> declaredOptions(const QString& help)
{
    static const QRegularExpression declared(QStringLiteral("^  (?:-[a-zA-Z?], )?--?([a-zA-Z0-9][a-z0-9-]*)"),
                                             QRegularExpression::MultilineOption);
    QSet<QString> names;
    for (auto it = declared.globalMatch(help); it.hasNext();)
        names << it.next().captured(1);
    return names;
}

} // namespace

class TestCliCommands : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // report starts a GUI application, which warns on stderr without a runtime folder.
        QVERIFY(m_runtime.isValid());
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_runtime.path()));
    }

    void commands_data()
    {
        QTest::addColumn<QString>("name");
        const QStringList names = listedCommands();
        QVERIFY(names.size() >= 11);
        for (const QString& name : names)
            QTest::addRow("%s", qPrintable(name)) << name;
    }

    void commands()
    {
        QFETCH(QString, name);
        const QByteArray usage = "quantscope-cli " + name.toUtf8() + ' ';
        const qstest::CliResult help = qstest::runCli({name, QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.startsWith("Usage: " + usage), help.out.constData());
        QVERIFY2(help.out.contains("--help"), help.out.constData());

        const qstest::CliResult bogus = qstest::runCli({name, QStringLiteral("--no-such-option")});
        QCOMPARE(bogus.exitCode, 2);
        QVERIFY2(bogus.err.startsWith("quantscope-cli " + name.toUtf8() + ": ") && bogus.err.contains("no-such-option")
                     && bogus.err.contains("(try --help)") && bogus.err.count('\n') == 1,
                 bogus.err.constData());
        QVERIFY(bogus.out.isEmpty());

        // Three positional arguments are too many for every command; budget says so in its own words.
        const qstest::CliResult extra =
            qstest::runCli({name, QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")});
        QCOMPARE(extra.exitCode, 2);
        QCOMPARE(extra.err.count('\n'), 1);
        if (name != QLatin1String("budget"))
            QVERIFY2(extra.err.contains("usage: " + usage), extra.err.constData());
    }

    // What a help text names exists: every --option in a command's help is one of its own (or
    // --download-whole, which every command takes), every "COMMAND --option" names a command
    // and one of its options, every "quantscope-cli WORD" a command. `report --help` sent the
    // reader to `inspect --formats`, which never existed (issue 33).
    void helpNamesOnlyWhatExists()
    {
        const QStringList names = listedCommands();
        QVERIFY(names.size() >= 11);
        QMap<QString, QString> helps;
        QMap<QString, QSet<QString>> options;
        for (const QString& name : names) {
            const qstest::CliResult r = qstest::runCli({name, QStringLiteral("--help")});
            QCOMPARE(r.exitCode, 0);
            helps[name] = QString::fromUtf8(r.out);
            options[name] = declaredOptions(helps[name]) << QStringLiteral("download-whole");
        }
        const qstest::CliResult top = qstest::runCli({QStringLiteral("--help")});
        QCOMPARE(top.exitCode, 0);
        helps[QString()] = QString::fromUtf8(top.out);
        options[QString()] = {QStringLiteral("help"), QStringLiteral("version"), QStringLiteral("download-whole")};

        static const QRegularExpression option(QStringLiteral("(?<![\\w-])--([a-z0-9][a-z0-9-]*)"));
        static const QRegularExpression commandOption(QStringLiteral("\\b([a-z]+) --([a-z0-9][a-z0-9-]*)"));
        static const QRegularExpression program(QStringLiteral("quantscope-cli ([A-Za-z]+)"));
        QStringList wrong;
        for (auto h = helps.cbegin(); h != helps.cend(); ++h) {
            const QString where = h.key().isEmpty() ? QStringLiteral("--help") : h.key() + QStringLiteral(" --help");
            for (auto it = option.globalMatch(h.value()); it.hasNext();) {
                const QRegularExpressionMatch m = it.next();
                const QString o = m.captured(1);
                // "COMMAND --option" is another command's: checked below.
                const QString before = h.value().left(m.capturedStart()).section(QLatin1Char(' '), -2, -2);
                if (names.contains(before))
                    continue;
                if (!options[h.key()].contains(o))
                    wrong << where + QStringLiteral(": --") + o + QStringLiteral(" is no option of it");
            }
            for (auto it = commandOption.globalMatch(h.value()); it.hasNext();) {
                const QRegularExpressionMatch m = it.next();
                if (names.contains(m.captured(1)) && !options[m.captured(1)].contains(m.captured(2)))
                    wrong << where + QStringLiteral(": ") + m.captured(0) + QStringLiteral(" does not exist");
            }
            for (auto it = program.globalMatch(h.value()); it.hasNext();) {
                const QString c = it.next().captured(1);
                if (!names.contains(c) && c != QLatin1String("COMMAND"))
                    wrong << where + QStringLiteral(": quantscope-cli ") + c + QStringLiteral(" is no command");
            }
        }
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
    }

private:
    QTemporaryDir m_runtime;
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "tst_cli_commands.moc"
