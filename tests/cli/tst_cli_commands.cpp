// Every command of `quantscope-cli --help` (the command table) answers --help, a mistyped
// option and missing arguments the same way: its own usage line, exit 0 for help, exit 2 and one
// line on stderr for the errors.
#include "testsupport.h"

#include <QFile>
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

private:
    QTemporaryDir m_runtime;
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "tst_cli_commands.moc"
