#include "testsupport.h"

#include "base/localpath.h"
#include "container/gguf.h"
#include "container/safetensors.h"
#include "formats/ggml/quantize_ggml.h"
#include "formats/opencheckpoint.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QElapsedTimer>
#include <QSettings>
#include <QStandardPaths>
#include <QtGlobal>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <span>
#include <stdexcept>
#include <vector>

namespace qstest {

QString sharedDir()
{
    const QByteArray env = qgetenv("QS_SHARED_DIR");
    return QDir::cleanPath(env.isEmpty() ? QStringLiteral(QS_DEFAULT_SHARED_DIR) : QString::fromLocal8Bit(env));
}

QString fixture(const QString& relative)
{
    return sharedDir() + QStringLiteral("/fixtures/") + relative;
}

QString testData(const QString& relative)
{
    return QStringLiteral(QS_TEST_DATA_DIR "/") + relative;
}

QStringList emulator()
{
    return QString::fromLocal8Bit(qgetenv("QS_TEST_EMULATOR")).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

bool canLimitAddressSpace()
{
    return !kAsan && emulator().isEmpty();
}

Process::~Process()
{
    if (m_pid > 0) {
        kill(m_pid, SIGKILL);
        waitpid(m_pid, nullptr, 0);
    }
    for (int fd : {m_out, m_err})
        if (fd >= 0)
            close(fd);
}

bool Process::start(const QString& program, const QStringList& args, unsigned long long addressSpaceBytes)
{
    // Everything the child needs is made before fork: after it, only async-signal-safe calls.
    // Arguments keep bytes that are not UTF-8 (base/localpath.h), as file names on Linux may.
    std::vector<std::string> words{qs::encodeLocalBytes(program)};
    for (const QString& a : args)
        words.push_back(qs::encodeLocalBytes(a));
    std::vector<char*> argv;
    for (std::string& w : words)
        argv.push_back(w.data());
    argv.push_back(nullptr);
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return false;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(out[0]), close(out[1]);
        return false;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        if (addressSpaceBytes > 0) {
            const rlimit lim{rlim_t(addressSpaceBytes), rlim_t(addressSpaceBytes)};
            setrlimit(RLIMIT_AS, &lim);
        }
        dup2(out[1], 1);
        dup2(err[1], 2);
        execvp(argv[0], argv.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]), close(err[0]);
        return false;
    }
    m_pid = pid, m_out = out[0], m_err = err[0];
    return true;
}

bool Process::wait(int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    bool timedOut = false;
    char buf[65536];
    while (m_out >= 0 || m_err >= 0) {
        pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};
        const qint64 left = timeoutMs - clock.elapsed();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        if (poll(fds, 2, int(std::min<qint64>(left, 1000))) < 0 && errno != EINTR)
            break;
        for (int k = 0; k < 2; ++k) {
            int& fd = k == 0 ? m_out : m_err;
            if (fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = read(fd, buf, sizeof buf);
            if (n > 0) {
                (k == 0 ? out : err).append(buf, qsizetype(n));
            } else if (n == 0 || errno != EINTR) {
                close(fd);
                fd = -1;
            }
        }
    }
    if (timedOut)
        kill(m_pid, SIGKILL);
    int status = 0;
    while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) { }
    m_pid = -1;
    for (int* fd : {&m_out, &m_err})
        if (*fd >= 0) {
            close(*fd);
            *fd = -1;
        }
    crashed = WIFSIGNALED(status);
    signal = crashed ? WTERMSIG(status) : 0;
    exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return !timedOut;
}

bool Process::sendSignal(int sig)
{
    return m_pid > 0 && kill(m_pid, sig) == 0;
}

bool startCli(Process& p, const QStringList& args, unsigned long long addressSpaceBytes)
{
    QStringList command = emulator();
    command << QStringLiteral(QS_CLI_PATH) << args;
    const QString program = command.takeFirst();
    return p.start(program, command, addressSpaceBytes);
}

CliResult runCli(const QStringList& args, int timeoutMs)
{
    Process p;
    CliResult r;
    if (!startCli(p, args))
        return r;
    r.crashed = !p.wait(timeoutMs) || p.crashed;
    r.exitCode = p.exitCode;
    r.out = p.out;
    r.err = p.err;
    return r;
}

QString germanCatalogue()
{
    return QFileInfo(QStringLiteral(QS_CLI_PATH)).absolutePath() + QStringLiteral("/quantscope_de.qm");
}

GermanScope::GermanScope()
{
    m_installed = m_translator.load(germanCatalogue()) && QCoreApplication::installTranslator(&m_translator);
}

GermanScope::~GermanScope()
{
    if (m_installed)
        QCoreApplication::removeTranslator(&m_translator);
}

long statusKiB(const char* field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const size_t n = std::strlen(field);
    while (std::getline(in, line))
        if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
            return std::stol(line.substr(n + 1));
    return -1;
}

void resetPeakRss()
{
    std::ofstream("/proc/self/clear_refs") << "5";
}

long childrenPeakRssKiB()
{
    rusage ru{};
    return getrusage(RUSAGE_CHILDREN, &ru) == 0 ? ru.ru_maxrss : -1;
}

QString ggufNamedCopy(const QString& src, const QString& dir)
{
    const auto ckpt = qs::Checkpoint::read(src.toStdString());
    const auto rename = [](std::string n) {
        for (const auto& [from, to] : {std::pair<std::string, std::string>{"model.layers.", "blk."},
                                       {"model.embed_tokens", "token_embd"},
                                       {"model.norm", "output_norm"},
                                       {"lm_head", "output"}})
            if (n.rfind(from, 0) == 0)
                return to + n.substr(from.size());
        return n;
    };
    std::vector<qs::SafetensorsTensor> tensors;
    for (const qs::TensorEntry& t : ckpt->tensors)
        tensors.push_back({rename(std::string(t.name)), t.dtype, t.shape, ckpt->bytes(t)});
    QDir().mkpath(dir);
    qs::writeSafetensors((dir + QStringLiteral("/model.safetensors")).toStdString(), tensors);
    const QString from = QFileInfo(src).isDir() ? src : QFileInfo(src).path();
    for (const QString& config : {QStringLiteral("config.json"), QStringLiteral("quantize_config.json")})
        if (QFile::exists(from + QLatin1Char('/') + config))
            QFile::copy(from + QLatin1Char('/') + config, dir + QLatin1Char('/') + config);
    return dir;
}

QString copyWithNanScale(const QString& dir, const QString& fixtureDir, uint64_t group, uint64_t row)
{
    const QString dst = QDir(dir).filePath(QStringLiteral("nan-scale"));
    if (!QDir().mkpath(dst))
        return {};
    for (const QFileInfo& f : QDir(fixture(QStringLiteral("safetensors/") + fixtureDir)).entryInfoList(QDir::Files))
        if (!QFile::copy(f.filePath(), dst + QLatin1Char('/') + f.fileName()))
            return {};
    const QString model = dst + QStringLiteral("/model.safetensors");
    const auto c = qs::openCheckpoint(model.toStdString());
    for (const qs::LogicalWeight& w : c->weights)
        for (const auto& [role, tensor] : w.members) {
            const qs::TensorEntry& t = c->tensors[tensor];
            if (role != "scales" || t.dtype != qs::DType::F16 || t.shape.size() != 2 || group >= t.shape[0]
                || row >= t.shape[1])
                continue;
            QFile file(model);
            const char nan[2] = {'\x00', '\x7e'};
            if (!file.open(QIODevice::ReadWrite) || !file.seek(qint64(t.offset + (group * t.shape[1] + row) * 2))
                || file.write(nan, 2) != 2)
                return {};
            return model;
        }
    return {};
}

void writeConvertedLlama(const QString& dir, bool permute)
{
    constexpr uint64_t dim = 64, heads = 4, headsKv = 2, kv = dim / heads * headsKv, vocab = 16;
    const auto smooth = [](uint64_t rows, uint64_t cols, uint64_t seed) {
        std::vector<float> w(rows * cols);
        for (uint64_t i = 0; i < w.size(); ++i)
            w[i] = float(std::sin(double(i * 7 + seed * 13) * 0.37) * (1.0 + double(i / cols) * 0.01));
        return w;
    };
    // LlamaModel.permute: rows viewed as (n, 2, rows / n / 2), the last two axes swapped.
    const auto permuted = [permute](const std::vector<float>& w, uint64_t rows, uint64_t cols, uint64_t n) {
        if (!permute)
            return w;
        const uint64_t half = rows / n / 2;
        std::vector<float> out(w.size());
        for (uint64_t h = 0; h < n; ++h)
            for (uint64_t a = 0; a < 2; ++a)
                for (uint64_t j = 0; j < half; ++j)
                    std::memcpy(&out[((h * half + j) * 2 + a) * cols], &w[((h * 2 + a) * half + j) * cols], cols * 4);
        return out;
    };
    const auto bytes = [](const std::vector<float>& v) {
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
    };
    const std::vector<float> q = smooth(dim, dim, 1), k = smooth(kv, dim, 2), up = smooth(2 * dim, dim, 3),
                             head = smooth(vocab, dim, 4);
    if (!QDir(dir).mkpath(QStringLiteral("hf")))
        throw std::runtime_error("cannot make " + dir.toStdString() + "/hf");
    qs::writeSafetensors((dir + QStringLiteral("/hf/model.safetensors")).toStdString(),
                         {{"model.layers.0.self_attn.q_proj.weight", qs::DType::F32, {dim, dim}, bytes(q)},
                          {"model.layers.0.self_attn.k_proj.weight", qs::DType::F32, {kv, dim}, bytes(k)},
                          {"model.layers.0.mlp.up_proj.weight", qs::DType::F32, {2 * dim, dim}, bytes(up)},
                          {"lm_head.weight", qs::DType::F32, {vocab, dim}, bytes(head)}});
    QFile cfg(dir + QStringLiteral("/hf/config.json"));
    if (!cfg.open(QIODevice::WriteOnly))
        throw std::runtime_error("cannot write " + cfg.fileName().toStdString());
    cfg.write("{\"model_type\": \"llama\", \"num_attention_heads\": 4, \"num_key_value_heads\": 2}");
    cfg.close();
    const std::vector<uint8_t> q8 = qs::quantizeGgml(8, permuted(q, dim, dim, heads).data(), dim, dim);
    const std::vector<uint8_t> k8 = qs::quantizeGgml(8, permuted(k, kv, dim, headsKv).data(), kv, dim);
    const std::vector<uint8_t> up8 = qs::quantizeGgml(8, up.data(), 2 * dim, dim);
    const std::vector<uint8_t> head8 = qs::quantizeGgml(8, head.data(), vocab, dim);
    qs::MetaValue arch;
    arch.value = std::string("llama");
    qs::writeGguf((dir + QStringLiteral("/model.gguf")).toStdString(), {{"general.architecture", arch}},
                  {{"blk.0.attn_q.weight", 8, {dim, dim}, q8},
                   {"blk.0.attn_k.weight", 8, {dim, kv}, k8},
                   {"blk.0.ffn_up.weight", 8, {dim, 2 * dim}, up8},
                   {"output.weight", 8, {dim, vocab}, head8}});
}

void sandboxSettings(const QString& dir, const QString& applicationName)
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QDir(dir).filePath(QStringLiteral("settings")));
    if (!applicationName.isEmpty()) {
        QCoreApplication::setOrganizationName(QStringLiteral("QuantscopeTest"));
        QCoreApplication::setApplicationName(applicationName);
    }
}

} // namespace qstest
