#pragma once
// Shared test helpers: where the fixtures are, temporary folders, running the CLI, and what a
// process costs in memory.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QTranslator>

#include <algorithm>
#include <cstdint>
#include <string>

namespace qstest {

// Little-endian bytes of a hand-made file: values, length-prefixed strings (GGUF's u64 form),
// raw bytes, a GGUF v3 header.
struct Bytes {
    QByteArray b;
    template <typename T>
    Bytes& put(T v)
    {
        b.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    Bytes& str(const QByteArray& s)
    {
        put<uint64_t>(uint64_t(s.size()));
        b.append(s);
        return *this;
    }
    Bytes& raw(const QByteArray& s)
    {
        b.append(s);
        return *this;
    }
    Bytes& gguf(uint64_t tensors, uint64_t kvs)
    {
        b.append("GGUF", 4);
        return put<uint32_t>(3).put<uint64_t>(tensors).put<uint64_t>(kvs);
    }
};

// A safetensors file's start: the header length (or `claimed`, when larger) and the JSON.
inline QByteArray safetensorsHeader(const QByteArray& json, uint64_t claimed = 0)
{
    return Bytes{}.put<uint64_t>(std::max<uint64_t>(claimed, uint64_t(json.size()))).raw(json).b;
}

// ../shared (override with QS_SHARED_DIR); tests only read from it.
QString sharedDir();
QString fixture(const QString& relative); // sharedDir()/fixtures/<relative>
QString testData(const QString& relative); // the repository's tests/data/<relative>

struct CliResult {
    int exitCode = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
};
// Runs quantscope-cli with `args`, at most `timeoutMs`.
CliResult runCli(const QStringList& args, int timeoutMs = 60000);
// A child process of a suite: fork and exec, its output read through pipes. Not QProcess: Qt's
// forkfd clones with CLONE_PIDFD, which qemu-user 7.2 refuses, and the suites run under that
// emulator too (the arm64 cross build).
class Process {
public:
    Process() = default;
    ~Process(); // kills it if it still runs
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;
    // Starts `program` (looked up on PATH) with `args`; `addressSpaceBytes` > 0 caps the child's
    // RLIMIT_AS. False when it could not start.
    bool start(const QString& program, const QStringList& args, unsigned long long addressSpaceBytes = 0);
    // Reads its output until it ends, at most `timeoutMs`; false on a timeout (it is killed).
    bool wait(int timeoutMs);
    // Sends `sig` to it while it runs (before wait() returned); false when it cannot.
    bool sendSignal(int sig);
    int pid() const { return m_pid; } // -1 once waited for
    int exitCode = -1; // valid when it exited
    bool crashed = false; // ended by a signal (a timeout's kill included)
    int signal = 0; // which
    QByteArray out, err;

private:
    int m_pid = -1, m_out = -1, m_err = -1;
};
// Starts quantscope-cli with `args` in `p`: under QS_TEST_EMULATOR (the emulated suites, e.g.
// "qemu-x86_64 -cpu Haswell-v4"), through that emulator, so the CLI runs on the emulated CPU too.
bool startCli(Process& p, const QStringList& args, unsigned long long addressSpaceBytes = 0);
// The QS_TEST_EMULATOR command this suite runs under, empty when native.
QStringList emulator();
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

// Whether a test may cap its address space (RLIMIT_AS): not under ASan, which reserves terabytes
// of shadow memory, nor under an emulator, which reserves the guest's address space up front.
bool canLimitAddressSpace();
#else
inline constexpr bool kAsan = false;
#endif

// A llama checkpoint as Hugging Face writes it and as llama.cpp's converter turns it into a
// GGUF: `dir`/hf (model.safetensors, F32 q_proj [64, 64], k_proj [32, 64], up_proj [128, 64],
// lm_head [16, 64], and config.json with 4 heads, 2 KV heads) and `dir`/model.gguf (Q8_0,
// llama.cpp's names, q and k rows permuted per head unless `permute` is false).
void writeConvertedLlama(const QString& dir, bool permute = true);

// The safetensors checkpoint `src` (a folder or a file) copied into the folder `dir` under
// GGUF-style names, which a GGUF output keeps (llama.cpp loads no Hugging Face names):
// model.layers.N.* -> blk.N.*, model.embed_tokens -> token_embd, model.norm -> output_norm,
// lm_head -> output (the rest of a name kept); config.json and quantize_config.json copied.
// Returns `dir`.
QString ggufNamedCopy(const QString& src, const QString& dir);

// A copy of the fixture folder safetensors/`fixtureDir` (GPTQ or AWQ) in `dir`/nan-scale whose first
// weight with F16 "scales" holds NaN (0x7E00) at [group, row]: what a converter writes for a group whose
// range was 0/0. Returns the copy's model.safetensors; "" when it could not be made.
QString copyWithNanScale(const QString& dir, const QString& fixtureDir, uint64_t group = 0, uint64_t row = 5);

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
