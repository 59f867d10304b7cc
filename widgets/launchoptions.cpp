#include "launchoptions.h"

#include "guide.h"

#include "mainwindow.h"
#include "views/bitmapview.h"
#include "views/diffview.h"
#include "views/recipeview.h"
#include "views/viewregistry.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <cstdio>
#include <memory>

// The strings keep their translation context "main" from when they lived in app/gui/main.cpp.
namespace qsw {

namespace {

void warn(const QString& message)
{
    std::fprintf(stderr, "%s\n", qPrintable(message));
}

QString noViewMessage(const QString& view)
{
    return QCoreApplication::translate("main", "quantscope: no view '%1' (views: %2)")
        .arg(view, centralViewNames().join(QLatin1String(", ")));
}

} // namespace

std::optional<LaunchOptions> parseLaunchArguments(QCommandLineParser& parser, const QStringList& arguments,
                                                  QString* error)
{
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "See and check the memory layouts of quantized LLM weights."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("path"),
        QCoreApplication::translate("main",
                                    "A .gguf or .safetensors file, a checkpoint folder, an http(s) URL or "
                                    "hf://ORG/REPO. Without it the demo checkpoint opens."),
        QStringLiteral("[path]"));
    const QCommandLineOption view(QStringLiteral("view"),
                                  QCoreApplication::translate("main", "Show the view NAME: %1.")
                                      .arg(centralViewNames().join(QLatin1String(", "))),
                                  QStringLiteral("name"));
    const QCommandLineOption weight(QStringLiteral("weight"),
                                    QCoreApplication::translate("main", "Select the logical weight NAME."),
                                    QStringLiteral("name"));
    const QCommandLineOption bitmapMode(
        QStringLiteral("bitmap-mode"),
        QCoreApplication::translate("main",
                                    "Show the Bit map's MODE: bits (as stored), bytes (hex) or matrix (logical)."),
        QStringLiteral("mode"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QCoreApplication::translate("main", "Render the window (1600x1000, or --size) to FILE (PNG) and exit."),
        QStringLiteral("file"));
    const QCommandLineOption size(
        QStringLiteral("size"),
        QCoreApplication::translate("main",
                                    "Make the main window WxH pixels (e.g. 1280x720), before --screenshot or --walk."),
        QStringLiteral("WxH"));
    const QCommandLineOption lang(
        QStringLiteral("lang"),
        QCoreApplication::translate("main", "Use the language CODE (de, en, ...) instead of the system's."),
        QStringLiteral("code"));
    const QCommandLineOption theme(QStringLiteral("theme"),
                                   QCoreApplication::translate("main", "Use the theme NAME (system, light, dark)."),
                                   QStringLiteral("name"));
    const QCommandLineOption diff(
        QStringLiteral("diff"),
        QCoreApplication::translate("main", "Compare the checkpoint with checkpoint B (the Diff view)."),
        QStringLiteral("B"));
    const QCommandLineOption imatrix(
        QStringLiteral("imatrix"),
        QCoreApplication::translate("main",
                                    "Open the importance matrix FILE (llama-imatrix output) in the Recipe view."),
        QStringLiteral("file"));
    const QCommandLineOption exportView(
        QStringLiteral("export"),
        QCoreApplication::translate(
            "main",
            "Export the view shown (--view) to FILE as PNG, SVG or PDF, or its table as CSV (tensors, "
            "metadata, diff, verify, recipe, error), by the extension, and exit."),
        QStringLiteral("file"));
    const QCommandLineOption walk(
        QStringLiteral("walk"),
        QCoreApplication::translate("main", "Open the demo at step N (1-%1) of the guide's walk for a learner.")
            .arg(walkSteps().size()),
        QStringLiteral("N"));
    parser.addOptions({view, bitmapMode, weight, screenshot, size, exportView, lang, theme, diff, imatrix, walk});
    if (!parser.parse(arguments)) {
        *error = QStringLiteral("quantscope: ") + parser.errorText();
        return std::nullopt;
    }
    LaunchOptions o;
    o.help = parser.isSet(help);
    o.version = parser.isSet(version);
    if (o.help || o.version)
        return o;
    if (parser.positionalArguments().size() > 1) {
        *error = QCoreApplication::translate("main", "quantscope: give at most one path");
        return std::nullopt;
    }
    o.path = QDir::fromNativeSeparators(parser.positionalArguments().value(0));
    o.view = parser.value(view);
    if (!o.view.isEmpty() && !centralViewNames().contains(o.view)) {
        *error = noViewMessage(o.view);
        return std::nullopt;
    }
    o.weight = parser.value(weight);
    if (parser.isSet(bitmapMode)) {
        const QString name = parser.value(bitmapMode);
        if (name == QLatin1String("bits"))
            o.bitmapMode = BitMapMode::Bits;
        else if (name == QLatin1String("bytes"))
            o.bitmapMode = BitMapMode::Bytes;
        else if (name == QLatin1String("matrix"))
            o.bitmapMode = BitMapMode::Logical;
        else {
            *error = QCoreApplication::translate("main", "quantscope: unknown Bit map mode '%1' (bits, bytes, matrix)")
                         .arg(name);
            return std::nullopt;
        }
    }
    if (parser.isSet(size)) {
        // Small enough to stay a window on any screen, large enough for the docks and a view.
        static const QRegularExpression wxh(QStringLiteral("^(\\d{3,5})x(\\d{3,5})$"));
        const QRegularExpressionMatch m = wxh.match(parser.value(size));
        o.size = m.hasMatch() ? QSize(m.captured(1).toInt(), m.captured(2).toInt()) : QSize();
        if (!o.size.isValid() || o.size.width() < 640 || o.size.height() < 480 || o.size.width() > 8192
            || o.size.height() > 8192) {
            *error =
                QCoreApplication::translate("main", "quantscope: --size takes WxH from 640x480 to 8192x8192, not '%1'")
                    .arg(parser.value(size));
            return std::nullopt;
        }
    }
    if (parser.isSet(walk)) {
        bool isNumber = false;
        const int step = parser.value(walk).toInt(&isNumber);
        if (!isNumber || step < 1 || size_t(step) > walkSteps().size()) {
            *error = QCoreApplication::translate("main", "quantscope: --walk takes a step from 1 to %1")
                         .arg(walkSteps().size());
            return std::nullopt;
        }
        if (!o.path.isEmpty() || !o.view.isEmpty() || !o.weight.isEmpty()) {
            *error =
                QCoreApplication::translate("main", "quantscope: --walk opens the demo at its own view and weight");
            return std::nullopt;
        }
        o.walkStep = step - 1;
    }
    o.diff = parser.value(diff);
    o.imatrix = parser.value(imatrix);
    o.screenshot = parser.value(screenshot);
    o.exportFile = parser.value(exportView);
    o.lang = parser.value(lang);
    if (parser.isSet(theme)) {
        const QString name = parser.value(theme);
        if (name == QLatin1String("dark"))
            o.theme = ThemeMode::Dark;
        else if (name == QLatin1String("light"))
            o.theme = ThemeMode::Light;
        else if (name == QLatin1String("system"))
            o.theme = ThemeMode::System;
        else {
            *error = QCoreApplication::translate("main", "quantscope: unknown theme '%1'").arg(name);
            return std::nullopt;
        }
    }
    return o;
}

void applyLaunchOptions(MainWindow& window, const LaunchOptions& o, std::function<void(const QString&)> fail)
{
    if (!fail)
        fail = warn;
    if (o.theme)
        window.setThemeMode(*o.theme);
    if (o.size.isValid())
        window.resize(o.size);
    // View, weight and B apply once, to the first checkpoint that opens.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(&window, &MainWindow::checkpointOpened, &window, [&window, o, connection, fail] {
        QObject::disconnect(*connection);
        const QString view = o.view.isEmpty() && !o.diff.isEmpty() ? QStringLiteral("diff") : o.view;
        if (!view.isEmpty() && !window.showView(view)) {
            fail(noViewMessage(view));
            return;
        }
        if (o.walkStep >= 0)
            window.showWalkStep(o.walkStep);
        if (!o.weight.isEmpty() && !window.selectWeight(o.weight)) {
            fail(QCoreApplication::translate("main", "quantscope: %1 has no weight '%2'")
                     .arg(QFileInfo(window.snapshot()->path).fileName(), o.weight));
            return;
        }
        if (o.bitmapMode)
            if (auto* bitmap = qobject_cast<BitMapView*>(window.analysisView(QStringLiteral("bitmap"))))
                bitmap->setMode(*o.bitmapMode);
        if (!o.diff.isEmpty())
            if (auto* diff = qobject_cast<DiffView*>(window.analysisView(QStringLiteral("diff"))))
                diff->openComparison(QDir::fromNativeSeparators(o.diff));
        if (!o.diff.isEmpty())
            if (auto* recipe = qobject_cast<RecipeView*>(window.analysisView(QStringLiteral("recipe"))))
                recipe->openComparison(QDir::fromNativeSeparators(o.diff));
        if (!o.imatrix.isEmpty())
            if (auto* recipe = qobject_cast<RecipeView*>(window.analysisView(QStringLiteral("recipe"))))
                recipe->openImatrix(QDir::fromNativeSeparators(o.imatrix));
    });
    if (o.path.isEmpty())
        window.openDemo();
    else
        window.openPath(o.path);
}

} // namespace qsw
