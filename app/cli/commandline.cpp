// The command line as bytes and as text (base/localpath.h), and what every command does with
// it before its own work: parse, help, usage errors.
#include "commands.h"

#include "base/localpath.h"

#include <QCommandLineParser>

#include <cstdio>

namespace qscli {

QStringList commandLine(int argc, char** argv)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << qs::decodeLocalBytes(argv[i]);
    return args;
}

namespace {

const Command& commandOf(const QStringList& args)
{
    const Command* c = findCommand(args.value(0));
    Q_ASSERT(c); // main.cpp runs only the commands of its table
    return *c;
}

// The command's forms, each "quantscope-cli NAME ARGS", joined by `separator`.
std::string usageForms(const Command& c, const char* separator)
{
    std::string out;
    for (const QString& form : QString::fromUtf8(c.usage).split(QLatin1Char('\n')))
        out += (out.empty() ? "" : separator) + std::string("quantscope-cli ") + c.name + ' ' + form.toStdString();
    return out;
}

} // namespace

std::optional<int> parseOrUsage(QCommandLineParser& parser, const QStringList& args, const std::function<bool()>& valid)
{
    const Command& c = commandOf(args);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    parser.addOption(help);
    // parse(), not process(): process() exits with 1 on a usage error, and usage errors exit 2 here.
    if (!parser.parse(args)) {
        std::fprintf(stderr, "quantscope-cli %s: %s (try --help)\n", c.name, qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(help)) {
        // The parser's first line names neither the command nor its forms: ours instead.
        std::printf("Usage: %s\n\n%s\n", usageForms(c, "\n       ").c_str(),
                    qPrintable(parser.helpText().section(QLatin1Char('\n'), 1)));
        return 0;
    }
    if (valid && !valid())
        return usageError(args);
    return std::nullopt;
}

int usageError(const QStringList& args, const char* problem)
{
    const Command& c = commandOf(args);
    if (problem)
        std::fprintf(stderr, "quantscope-cli %s: %s (usage: %s)\n", c.name, problem, usageForms(c, " | ").c_str());
    else
        std::fprintf(stderr, "usage: %s\n", usageForms(c, " | ").c_str());
    return 2;
}

} // namespace qscli
