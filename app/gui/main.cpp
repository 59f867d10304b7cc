// quantscope: the desktop application.
#include "mainwindow.h"
#include "views/diffview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QStyleFactory>
#include <QTimer>
#include <QTranslator>

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>

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
    if (qtbase->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qtbase);
    auto* own = new QTranslator(&app);
    if (own->load(locale, QStringLiteral("quantscope"), QStringLiteral("_"), QStringLiteral(":/i18n")))
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

} // namespace

int main(int argc, char** argv)
{
    const bool screenshot = !earlyOption(argc, argv, "--screenshot").isEmpty();
    // A screenshot needs no display.
    if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Help and version print text only: no display either (the parser exits before any window).
    const bool textOnly = hasFlag(argc, argv, {"-h", "--help", "--help-all", "-?", "-v", "--version"});
    std::unique_ptr<QCoreApplication> application = textOnly ? std::make_unique<QCoreApplication>(argc, argv)
                                                              : std::make_unique<QApplication>(argc, argv);
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
    parser.setApplicationDescription(QCoreApplication::translate("main", "See and check the memory layouts of quantized LLM weights."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("path"),
                                 QCoreApplication::translate("main", "A .gguf or .safetensors file, or a checkpoint folder. Without it the demo checkpoint opens."),
                                 QStringLiteral("[path]"));
    const QCommandLineOption viewOption(QStringLiteral("view"), QCoreApplication::translate("main", "Show the view NAME (tensors, metadata)."),
                                        QStringLiteral("name"));
    const QCommandLineOption weightOption(QStringLiteral("weight"), QCoreApplication::translate("main", "Select the logical weight NAME."),
                                          QStringLiteral("name"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
                                              QCoreApplication::translate("main", "Render the window at 1600x1000 to FILE (PNG) and exit."),
                                              QStringLiteral("file"));
    const QCommandLineOption langOption(QStringLiteral("lang"), QCoreApplication::translate("main", "Use the language CODE (de, en, ...) instead of the system's."),
                                        QStringLiteral("code"));
    const QCommandLineOption themeOption(QStringLiteral("theme"), QCoreApplication::translate("main", "Use the theme NAME (system, light, dark)."),
                                         QStringLiteral("name"));
    const QCommandLineOption diffOption(QStringLiteral("diff"), QCoreApplication::translate("main", "Compare the checkpoint with checkpoint B (the Diff view)."),
                                        QStringLiteral("B"));
    parser.addOptions({viewOption, weightOption, screenshotOption, langOption, themeOption, diffOption});
    parser.process(app);

    if (parser.positionalArguments().size() > 1) {
        std::fprintf(stderr, "%s\n", qPrintable(QCoreApplication::translate("main", "quantscope: give at most one path")));
        return 2;
    }
    const QString path = parser.positionalArguments().value(0);
    const QString screenshotFile = parser.value(screenshotOption);

    qsw::MainWindow::Options options;
    options.persistent = screenshotFile.isEmpty();
    qsw::MainWindow window(options);
    if (parser.isSet(themeOption)) {
        const QString theme = parser.value(themeOption);
        if (theme == QLatin1String("dark"))
            window.setThemeMode(qsw::ThemeMode::Dark);
        else if (theme == QLatin1String("light"))
            window.setThemeMode(qsw::ThemeMode::Light);
        else if (theme == QLatin1String("system"))
            window.setThemeMode(qsw::ThemeMode::System);
        else {
            std::fprintf(stderr, "%s\n", qPrintable(QCoreApplication::translate("main", "quantscope: unknown theme '%1'").arg(theme)));
            return 2;
        }
    }
    if (!screenshotFile.isEmpty())
        window.resize(1600, 1000);

    // --view and --weight apply once, to the first checkpoint that opens.
    QObject::connect(&window, &qsw::MainWindow::checkpointOpened, &window, [&] {
        static bool applied = false;
        if (applied)
            return;
        applied = true;
        if (parser.isSet(viewOption) && !window.showView(parser.value(viewOption)))
            std::fprintf(stderr, "%s\n", qPrintable(QCoreApplication::translate("main", "quantscope: no view '%1' (views: %2)")
                                                        .arg(parser.value(viewOption), window.viewNames().join(QLatin1String(", ")))));
        if (parser.isSet(weightOption) && !window.selectWeight(parser.value(weightOption)))
            std::fprintf(stderr, "%s\n", qPrintable(QCoreApplication::translate("main", "quantscope: no weight '%1'").arg(parser.value(weightOption))));
        if (parser.isSet(diffOption))
            if (auto* diff = window.findChild<qsw::DiffView*>())
                diff->openComparison(parser.value(diffOption));
        if (!screenshotFile.isEmpty()) {
            // Let layouts settle and background jobs (statistics, plots) finish before grabbing.
            QTimer::singleShot(200, &window, [&] {
                if (!window.waitForIdle(60000))
                    std::fprintf(stderr, "%s\n", qPrintable(QCoreApplication::translate("main", "quantscope: background work still running; the screenshot shows it in progress")));
                const QImage image = window.grab().toImage();
                if (!image.save(screenshotFile, "PNG")) {
                    std::fprintf(stderr, "%s\n", qPrintable(QCoreApplication::translate("main", "quantscope: cannot write %1").arg(screenshotFile)));
                    QCoreApplication::exit(2);
                    return;
                }
                QCoreApplication::exit(0);
            });
        }
    });
    if (!screenshotFile.isEmpty())
        QObject::connect(&window, &qsw::MainWindow::openFailed, &window, [](const QString&, const QString& message) {
            std::fprintf(stderr, "quantscope: %s\n", qPrintable(message));
            QCoreApplication::exit(2);
        });

    window.show();
    if (path.isEmpty())
        window.openDemo();
    else
        window.openPath(QDir::fromNativeSeparators(path));
    return app.exec();
}
