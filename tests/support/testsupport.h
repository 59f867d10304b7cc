#pragma once
// Shared test helpers: where the fixtures are, temporary folders, running the CLI, and what a
// process costs in memory.
#include <QString>
#include <QStringList>
#include <QTranslator>

#include <string>

namespace qstest {

// ../shared (override with QS_SHARED_DIR); tests only read from it.
QString sharedDir();
QString fixture(const QString& relative); // sharedDir()/fixtures/<relative>

struct CliResult {
    int exitCode = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
};
// Runs quantscope-cli with `args`, at most `timeoutMs`.
CliResult runCli(const QStringList& args, int timeoutMs = 60000);
// The German catalogue quantscope embeds, as lrelease left it beside the executables.
QString germanCatalogue();
// That catalogue installed for one scope and removed when it ends; QVERIFY(installed()).
class GermanScope {
public:
    GermanScope();
    ~GermanScope();
    GermanScope(const GermanScope&) = delete;
    GermanScope& operator=(const GermanScope&) = delete;
    bool installed() const { return m_installed; }
    const QTranslator& translator() const { return m_translator; }

private:
    QTranslator m_translator;
    bool m_installed = false;
};

// AddressSanitizer builds (QUANTSCOPE_SANITIZE): shadow memory, redzones and quarantine make
// RSS and address-space limits meaningless, and everything runs several times slower.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAsan = true;
#else
inline constexpr bool kAsan = false;
#endif
#else
inline constexpr bool kAsan = false;
#endif

// A llama checkpoint as Hugging Face writes it and as llama.cpp's converter turns it into a
// GGUF: `dir`/hf (model.safetensors, F32 q_proj [64, 64], k_proj [32, 64], up_proj [128, 64],
// lm_head [16, 64], and config.json with 4 heads, 2 KV heads) and `dir`/model.gguf (Q8_0,
// llama.cpp's names, q and k rows permuted per head unless `permute` is false).
void writeConvertedLlama(const QString& dir, bool permute = true);

// Settings and caches of the widget suites go to `dir`, never the user's: Qt's test mode for
// QStandardPaths, INI settings under `dir`/settings, and (when given) the application's name.
void sandboxSettings(const QString& dir, const QString& applicationName = QString());

// A field of /proc/self/status in KiB ("VmHWM", "VmRSS"), or -1.
long statusKiB(const char* field);
// Sets this process's peak RSS (VmHWM) to its current RSS, so that growth can be measured.
void resetPeakRss();
// The largest peak RSS of any waited-for child (getrusage), in KiB.
long childrenPeakRssKiB();

} // namespace qstest
