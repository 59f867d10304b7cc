// quantscope-cli: the headless twin of the GUI.
#include "commands.h"
#include "base/error.h"
#include "base/mapguard.h"
#include "base/simd.h"
#include "remote/remotefile.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <exception>

namespace qscli {

namespace {

// One row per command, in the order --help lists them.
const Command kCommands[] = {
    {"budget", "bits per weight of every format and the memory a model needs",
     "[PATH | --arch NAME] [--params N,...] [--memory GiB[,GPU...]] [--layer NxK] [--context N ...] [--json]",
     runBudget},
    {"codes", "write a weight's integer codes, scales, zeros and g_idx as .npy", "PATH WEIGHT -o DIR [--force]",
     runCodes},
    {"dequant", "dequantize one weight to a float32/float16 .npy [out, in]",
     "PATH WEIGHT -o OUT.npy [--dtype f32|f16] [--threads N]", runDequant},
    {"diff", "compare two checkpoints weight by weight (HF <-> GGUF names), worst first",
     "A B [--weight NAME] [--tolerance T >= 0] [--json]", runDiff},
    {"inspect", "list a checkpoint's metadata, tensors and logical weights", "PATH [--json]", runInspect},
    {"quantize", "quantize float weights into a GPTQ/AWQ/CT/MLX/bnb/GGUF checkpoint",
     "PATH WEIGHT...|--all --format ID [--bits B] [--group-size G] [--sym|--asym] [--clip R] [--double-quant] -o OUT "
     "[--force]",
     runQuantize},
    {"recipe", "which weight got which type, the fallbacks and their cost; two recipes side by side",
     "PATH [B] [--json]\nPATH --imatrix FILE [--ref REF | --requantize ID] [--json]", runRecipe},
    {"repack", "convert a quantized checkpoint to another layout through the logical codes",
     "SRC --to ID -o DST [--force] [--no-verify] [--json]", runRepack},
    {"report", "write a layout specification (format or checkpoint) as HTML, Markdown or PDF",
     "--format ID [--bits B] [--group-size G] [--k K --n N] -o OUT.{html,md,pdf}\nPATH [--weight NAME] [--ref REF] "
     "-o OUT.{html,md,pdf}",
     runReport},
    {"stats", "error against a float reference, output error y = Wx, histograms",
     "PATH [WEIGHT] [--ref REF | --requantize ID [--bits B] [--group-size G] [--sym]] [--activations X.npy] "
     "[--imatrix FILE] [--json] [--bins N] [--range LO,HI] [--approximate]",
     runStats},
    {"verify", "check packed weights: round trip, shapes, g_idx, scales, zero points", "PATH [--json]", runVerify},
};

} // namespace

std::span<const Command> commands()
{
    return kCommands;
}

const Command* findCommand(const QString& name)
{
    for (const Command& c : kCommands)
        if (name == QLatin1String(c.name))
            return &c;
    return nullptr;
}

} // namespace qscli

namespace {

// Standard output held in an unnamed temporary file while a command runs, and passed on by
// release(); dropped when the command fails.
class HeldOutput {
public:
    HeldOutput()
    {
        std::fflush(stdout);
        m_held = std::tmpfile();
        m_stdout = m_held ? ::dup(1) : -1;
        if (m_stdout < 0 || ::dup2(::fileno(m_held), 1) < 0) {
            // No temporary file: the output goes straight through.
            if (m_stdout >= 0)
                ::close(m_stdout);
            m_stdout = -1;
        }
    }
    ~HeldOutput()
    {
        restore();
        if (m_held)
            std::fclose(m_held);
    }
    HeldOutput(const HeldOutput&) = delete;
    HeldOutput& operator=(const HeldOutput&) = delete;

    void release()
    {
        if (!restore())
            return;
        std::rewind(m_held);
        char buf[1 << 16];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, m_held)) > 0)
            std::fwrite(buf, 1, n, stdout);
        std::fflush(stdout);
    }

private:
    // Points standard output back at the original; false when it never moved.
    bool restore()
    {
        if (m_stdout < 0)
            return false;
        std::fflush(stdout);
        ::dup2(m_stdout, 1);
        ::close(m_stdout);
        m_stdout = -1;
        return true;
    }
    std::FILE* m_held = nullptr;
    int m_stdout = -1;
};

void printUsage(FILE* to)
{
    std::fprintf(to, "Usage: quantscope-cli COMMAND [options]\n\nCommands:\n");
    for (const qscli::Command& c : qscli::commands())
        std::fprintf(to, "  %-10s %s\n", c.name, c.summary);
    std::fprintf(to,
                 "\nPATH may be a file, a folder, an http(s) URL of a .gguf, .safetensors or *.safetensors.index.json\n"
                 "file, or hf://ORG/REPO[@REVISION][/FILE] (read by byte range into $XDG_CACHE_HOME/quantscope).\n"
                 "  --download-whole  (any command) download a remote file whole when its server ignores Range\n"
                 "\nRun 'quantscope-cli COMMAND --help' for a command's options.\n");
}

} // namespace

int main(int argc, char** argv)
{
    const std::unique_ptr<QCoreApplication> app = argc > 1 && std::strcmp(argv[1], "report") == 0
        ? qscli::makeGuiApplication(argc, argv)
        : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Quantscope"));
    QCoreApplication::setApplicationName(QStringLiteral("quantscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QUANTSCOPE_VERSION));

    QStringList args = qscli::commandLine(argc, argv);
    args.removeFirst();
    // Any command: a remote file whose server ignores Range may be downloaded whole.
    if (args.removeAll(QStringLiteral("--download-whole")) > 0)
        qs::remote::setWholeDownloadAllowed(true);
    if (args.isEmpty()) {
        printUsage(stderr);
        return 2;
    }
    const QString name = args.first();
    if (name == QLatin1String("--help") || name == QLatin1String("-h") || name == QLatin1String("help")) {
        printUsage(stdout);
        return 0;
    }
    // A QUANTSCOPE_SIMD the CPU cannot run is a usage error, reported before any work.
    try {
        qs::bestSimdPath();
    } catch (const qs::Error& e) {
        std::fprintf(stderr, "quantscope-cli: %s\n", e.what());
        return 2;
    }
    if (name == QLatin1String("--version")) {
        std::printf("quantscope-cli %s\nSIMD path: %s\n", QUANTSCOPE_VERSION, qs::simdSummary().c_str());
        return 0;
    }
    const qscli::Command* command = qscli::findCommand(name);
    if (!command) {
        std::fprintf(stderr, "quantscope-cli: unknown command '%s' (try --help)\n", qPrintable(name));
        return 2;
    }
    qscli::installFetchProgress();
    HeldOutput held;
    // Every file this process maps is an input of the command: a file it writes from a changed
    // input is not put in place.
    qs::mapguard::setCheckBeforeWrites(true);
    try {
        const int code = command->run(args);
        // A checkpoint that changed while it was read gave results that are half old, half new
        // (or zeros, where it was cut): none of them is shown.
        qs::mapguard::checkUnchangedSinceStart();
        held.release();
        qscli::printFetchSummary();
        return code;
    } catch (const qs::Error& e) {
        std::fprintf(stderr, "quantscope-cli %s: %s\n", qPrintable(name), e.what());
        qscli::printFetchSummary();
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "quantscope-cli %s: out of memory\n", qPrintable(name));
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "quantscope-cli %s: internal error: %s\n", qPrintable(name), e.what());
        return 2;
    }
}
