#pragma once
// The quantscope command line: `quantscope [path] [--view NAME] [--bitmap-mode MODE] [--weight NAME] [--diff B]
// [--imatrix FILE] [--theme NAME] [--lang CODE] [--walk N] [--size WxH] [--screenshot FILE] [--export FILE]`, parsed
// without exiting (so tests can drive it) and applied to a main window.
#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class QCommandLineParser;

namespace qsw {

class MainWindow;
enum class ThemeMode;
enum class BitMapMode;

struct LaunchOptions {
    QString path; // empty: the demo checkpoint
    QString view, weight, diff, imatrix, screenshot, lang;
    QString exportFile; // --export: the shown view as PNG, SVG or PDF, or its table as CSV
    std::optional<ThemeMode> theme;
    std::optional<BitMapMode> bitmapMode; // --bitmap-mode: the Bit map's mode box (bits, bytes, matrix)
    QSize size; // --size WxH: the window's size (a scripted run's default is 1600x1000); invalid: unset
    int walkStep = -1; // --walk N: step N - 1 of the guide's walk on the demo (walkSteps())
    bool help = false, version = false;
};

// Declares the options on `parser` and parses `arguments` (argv, program name first). On a
// usage error returns nullopt with `error` set (the caller exits 2). --help and --version
// only set their flags: the caller prints parser.helpText() or the version.
std::optional<LaunchOptions> parseLaunchArguments(QCommandLineParser& parser, const QStringList& arguments,
                                                  QString* error);

// Applies the theme and the size now, then opens the path (or the demo); once the first checkpoint has
// opened, shows the view (the Diff view for --diff when no --view is given), selects the
// weight, sets the Bit map's mode, opens B in the Diff view and the importance matrix in the Recipe view. A weight the
// checkpoint lacks (or a view, when the options did not come from parseLaunchArguments, which refuses unknown views)
// goes to `fail` with a message naming it, and nothing more is applied; without `fail` it is printed on stderr. The
// application exits 2 there.
void applyLaunchOptions(MainWindow& window, const LaunchOptions& options,
                        std::function<void(const QString&)> fail = {});

} // namespace qsw
