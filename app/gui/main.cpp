// quantscope: the desktop application.
#include "base/error.h"
#include "base/simd.h"
#include "launchoptions.h"
#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QMessageBox>
#include <QStyleFactory>
#include <QTimer>
#include <QTranslator>

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>

namespace {

// Options that must act before QApplication exists or before translators load.
QString earlyOption(int argc, char** argv, const char* name)
{
    const size_t len = std::strlen(name);
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0 && i + 1 < argc)
            return QString::fromLocal8Bit(argv[i + 1]);
        if (std::strncmp(argv[i], name, len) == 0 && argv[i][len] == '=')
            return QString::fromLocal8Bit(argv[i] + len + 1);
    }
    return {};
}

void installTranslators(QCoreApplication& app, const QLocale& locale)
{
    auto* qtbase = new QTranslator(&app);
    if (qtbase->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                     QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qtbase);
    // A language without a translation of its own (and the C locale) reads English, with
    // English plurals ("%n weight(s)" -> "1 weight").
    auto* own = new QTranslator(&app);
    if (own->load(locale, QStringLiteral("quantscope"), QStringLiteral("_"), QStringLiteral(":/i18n"))
        || own->load(QStringLiteral(":/i18n/quantscope_en")))
        QCoreApplication::installTranslator(own);
}

bool hasFlag(int argc, char** argv, std::initializer_list<const char*> names)
{
    for (int i = 1; i < argc; ++i)
        for (const char* name : names)
            if (std::strcmp(argv[i], name) == 0)
                return true;
    return false;
}

// A usage error is reported like --help: without a display. The arguments are parsed once
// here, before any application object exists, only to tell whether they are valid.
bool validUsage(int argc, char** argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser parser;
    QString error;
    return qsw::parseLaunchArguments(parser, arguments, &error).has_value();
}

} // namespace

int main(int argc, char** argv)
{
    const bool screenshot =
        !earlyOption(argc, argv, "--screenshot").isEmpty() || !earlyOption(argc, argv, "--export").isEmpty();
    // A screenshot or an export needs no display.
    if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Help, version and usage errors print text only: no display either (the parser exits
    // before any window).
    const bool textOnly =
        hasFlag(argc, argv, {"-h", "--help", "--help-all", "-?", "-v", "--version"}) || !validUsage(argc, argv);
    std::unique_ptr<QCoreApplication> application =
        textOnly ? std::make_unique<QCoreApplication>(argc, argv) : std::make_unique<QApplication>(argc, argv);
    QCoreApplication& app = *application;
    QCoreApplication::setOrganizationName(QStringLiteral("Quantscope"));
    QCoreApplication::setApplicationName(QStringLiteral("quantscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QUANTSCOPE_VERSION));
    if (!textOnly) {
        QGuiApplication::setApplicationDisplayName(QStringLiteral("Quantscope"));
        QGuiApplication::setDesktopFileName(QStringLiteral("quantscope"));
        QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/quantscope.svg")));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    const QString lang = earlyOption(argc, argv, "--lang");
    const QLocale locale = lang.isEmpty() ? QLocale::system() : QLocale(lang);
    if (!lang.isEmpty())
        QLocale::setDefault(locale);
    installTranslators(app, locale);

    QCommandLineParser parser;
    QString error;
    const std::optional<qsw::LaunchOptions> options = qsw::parseLaunchArguments(parser, app.arguments(), &error);
    if (!options) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    if (options->help)
        parser.showHelp(0);
    // A QUANTSCOPE_SIMD the CPU cannot run is a usage error, reported before any work.
    try {
        qs::bestSimdPath();
    } catch (const qs::Error& e) {
        std::fprintf(stderr, "quantscope: %s\n", e.what());
        if (!textOnly && options->screenshot.isEmpty() && options->exportFile.isEmpty())
            QMessageBox::critical(nullptr, QStringLiteral("Quantscope"), QString::fromStdString(e.what()));
        return 2;
    }
    if (options->version)
        parser.showVersion();

    qsw::MainWindow::Options windowOptions;
    const bool scripted = !options->screenshot.isEmpty() || !options->exportFile.isEmpty();
    windowOptions.persistent = !scripted;
    qsw::MainWindow window(windowOptions);
    if (scripted) {
        window.resize(1600, 1000);
        QObject::connect(&window, &qsw::MainWindow::openFailed, &window, [](const QString&, const QString& message) {
            std::fprintf(stderr, "quantscope: %s\n", qPrintable(message));
            QCoreApplication::exit(2);
        });
    }
    window.show();
    // The guide once, on the first start of an interactive session.
    if (windowOptions.persistent && !window.guideShownBefore())
        window.showGuide();
    // An unknown view or weight is a usage error: exit 2 with the message, as for a bad path.
    qsw::applyLaunchOptions(window, *options, [](const QString& message) {
        std::fprintf(stderr, "%s\n", qPrintable(message));
        QCoreApplication::exit(2);
    });
    // Connected after applyLaunchOptions' handler: the view, weight and B are set before the
    // grab waits for the background work they start.
    if (scripted)
        QObject::connect(
            &window, &qsw::MainWindow::checkpointOpened, &window,
            [&window, file = options->screenshot, exportFile = options->exportFile] {
                // The outputs go through the output guard that every writer shares: refused now,
                // before any waiting, when one is (or lies inside) what was opened or is no regular file.
                QString error;
                for (const QString& output : {file, exportFile})
                    if (!output.isEmpty() && !window.checkOutputFile(output, &error)) {
                        std::fprintf(stderr, "quantscope: %s\n", qPrintable(error));
                        QCoreApplication::exit(2);
                        return;
                    }
                // Let layouts settle and background jobs (statistics, plots) finish before grabbing.
                QTimer::singleShot(200, &window, [&window, file, exportFile] {
                    if (!window.waitForIdle(60000))
                        std::fprintf(
                            stderr, "%s\n",
                            qPrintable(QCoreApplication::translate(
                                "main",
                                "quantscope: background work still running; the screenshot shows it in progress")));
                    QString error;
                    if (!file.isEmpty() && !window.saveScreenshot(file, &error)) {
                        std::fprintf(stderr, "quantscope: %s\n", qPrintable(error));
                        QCoreApplication::exit(2);
                        return;
                    }
                    if (!exportFile.isEmpty() && !window.exportCurrentView(exportFile, &error)) {
                        std::fprintf(stderr, "quantscope: %s\n", qPrintable(error));
                        QCoreApplication::exit(2);
                        return;
                    }
                    QCoreApplication::exit(0);
                });
            },
            Qt::SingleShotConnection);
    return app.exec();
}
