#pragma once
// The commands of quantscope-cli, one row each in main.cpp's table: its name, the line
// `quantscope-cli --help` shows, its usage and the function that runs it. A run function parses
// its own arguments (args[0] is the command name) through parseOrUsage and returns the process
// exit code: 0 ok, 1 failed check, 2 bad input or usage.
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonValue>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace qs {
class Checkpoint;
}

class QCommandLineParser;

namespace qscli {

struct Command {
    const char* name;
    const char* summary; // one line for quantscope-cli --help
    // The arguments after "quantscope-cli NAME"; a command with two forms puts a '\n' between them.
    const char* usage;
    int (*run)(const QStringList& args);
};
// Every command, in the order quantscope-cli --help lists them.
std::span<const Command> commands();
const Command* findCommand(const QString& name);

// Adds -h/--help to `parser` and parses args (args[0] is the command name). nullopt: the
// arguments parsed and `valid` (when given) accepts them, the command goes on. Else the exit
// code the command returns: 0 after printing its help (its usage, then the parser's options),
// 2 after a parse error or, when `valid` refuses the arguments, the usage (usageError).
std::optional<int> parseOrUsage(QCommandLineParser& parser, const QStringList& args,
                                const std::function<bool()>& valid = {});
// A usage error, one line on stderr: "quantscope-cli NAME: PROBLEM (usage: quantscope-cli NAME
// USAGE)", or without a problem "usage: quantscope-cli NAME USAGE". Returns 2.
int usageError(const QStringList& args, const char* problem = nullptr);

int runInspect(const QStringList& args);
int runDequant(const QStringList& args);
int runCodes(const QStringList& args);
int runBudget(const QStringList& args);
int runStats(const QStringList& args);
int runVerify(const QStringList& args);
int runDiff(const QStringList& args);
int runQuantize(const QStringList& args);
int runRepack(const QStringList& args);
int runReport(const QStringList& args);
int runRecipe(const QStringList& args);
// The command line as the commands see it. File names on Linux are bytes: an argument that is not
// valid UTF-8 keeps the bytes it cannot decode (base/localpath.h); a command turns a path back into
// the bytes typed with qs::encodeLocalBytes.
QStringList commandLine(int argc, char** argv);
// The help of --force, shared by the commands that write a folder.
QString forceHelp();
// "note: left alone in OUT ..." on stderr when a forced write kept files it did not write.
void printLeftAlone(const std::string& out, const std::vector<std::string>& names);
// A tensor shape as a JSON array of integers.
QJsonArray shapeJson(const std::vector<uint64_t>& shape);
// A JSON number, or null for NaN and the infinities (JSON has no spelling for them).
inline QJsonValue finiteOrNull(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}
// The application object of `report` (fonts for figures and PDF; offscreen unless set).
std::unique_ptr<QCoreApplication> makeGuiApplication(int& argc, char** argv);

// printf("%.*f").
inline std::string fixedText(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// printf("%.4g"): figures that span orders of magnitude.
inline std::string sciText(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// "1.00 GiB", "85.0 KiB": bytes in the binary unit that suits them.
inline std::string sizeText(uint64_t bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.2f %s" : "%.0f %s", v, units[u]);
    return buf;
}

// Remote checkpoints (http(s), hf://; app/cli/remote.cpp). Fetch progress on stderr when it is a
// terminal, set up by main before a command runs.
void installFetchProgress();
// Before a run over a whole remote checkpoint: "fetching up to N of the M bytes ..." on stderr.
void stateRemoteFetch(const qs::Checkpoint& ckpt);
// After a command that read a remote file: the bytes fetched and the requests sent, on stderr.
void printFetchSummary();

// Cells wider than this do not widen their column (they stand whole and push the rest of their
// row along): one absurdly long name must not pad every row of a long table to its width.
constexpr size_t kTableMaxColumnWidth = 160;

inline void widenTableColumns(std::vector<size_t>& width, const std::vector<std::string>& row)
{
    for (size_t i = 0; i < row.size() && i < width.size(); ++i)
        if (row[i].size() <= kTableMaxColumnWidth)
            width[i] = std::max(width[i], row[i].size());
}

inline std::string tableLine(const std::vector<std::string>& r, const std::vector<size_t>& width,
                             const std::vector<bool>& right)
{
    std::string line = " ";
    for (size_t i = 0; i < r.size(); ++i) {
        const size_t pad = width[i] > r[i].size() ? width[i] - r[i].size() : 0;
        line += ' ';
        if (right[i]) {
            line.append(pad, ' ');
            line += r[i];
        } else {
            line += r[i];
            if (i + 1 < r.size())
                line.append(pad, ' ');
        }
    }
    return line + '\n';
}

// A plain text table: columns padded to their widest cell; numeric columns right-aligned.
class TextTable {
public:
    TextTable(std::vector<std::string> head, std::vector<bool> rightAligned)
        : m_right(std::move(rightAligned))
    {
        m_rows.push_back(std::move(head));
    }
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    std::string render() const
    {
        std::vector<size_t> width(m_rows.front().size(), 0);
        for (const auto& r : m_rows)
            widenTableColumns(width, r);
        std::string out;
        for (const auto& r : m_rows)
            out += tableLine(r, width, m_right);
        return out;
    }

private:
    std::vector<std::vector<std::string>> m_rows;
    std::vector<bool> m_right;
};

// A table too long to hold (a million tensors) written as TextTable::render would: its rows
// made by `row(i)` twice, once for the column widths and once as they are written to `out`.
template <class Row>
void printTable(std::FILE* out, const std::vector<std::string>& head, const std::vector<bool>& right, size_t rows,
                const Row& row)
{
    std::vector<size_t> width(head.size(), 0);
    widenTableColumns(width, head);
    for (size_t i = 0; i < rows; ++i)
        widenTableColumns(width, row(i));
    const auto put = [out](const std::string& s) { std::fwrite(s.data(), 1, s.size(), out); };
    put(tableLine(head, width, right));
    for (size_t i = 0; i < rows; ++i)
        put(tableLine(row(i), width, right));
}

} // namespace qscli
