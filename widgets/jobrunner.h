#pragma once
// Background jobs for the views and the window: statistics, requantizing, diffing, reports, and
// opening a checkpoint. Work runs off the GUI thread with a progress fraction and a cancel flag;
// its result comes back to the GUI thread as a continuation. The window stays responsive
// throughout. Compute jobs run one at a time, each with the whole OpenMP team (two at once gave
// two full teams on the same cores); I/O jobs (listing and detecting a checkpoint, a remote
// file's headers) run beside them, each on one thread.
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <map>
#include <memory>

namespace qsw {

// Shared between a job's worker and the GUI. Core APIs take `cancelFlag()` and report
// progress through setProgress().
class JobControl {
public:
    bool cancelled() const { return m_cancel.load(std::memory_order_relaxed); }
    const std::atomic<bool>& cancelFlag() const { return m_cancel; }
    // fraction in [0, 1]; values outside are clamped. Thread-safe.
    void setProgress(double fraction);
    // -1 until the job reports progress, then 0..1000.
    int permille() const { return m_permille.load(std::memory_order_relaxed); }
    void cancel() { m_cancel.store(true, std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancel{false};
    std::atomic<int> m_permille{-1};
};

class JobRunner : public QObject {
    Q_OBJECT
public:
    // Called on the GUI thread with the job's result unless the job was cancelled or replaced.
    using Continuation = std::function<void()>;
    // Runs on a worker thread. Throwing qs::Error (or any std::exception) reports failed().
    using Work = std::function<Continuation(JobControl&)>;

    enum class Kind {
        Compute, // one at a time, the others queued in the order started
        Io, // beside the compute job, each serial (a team of one)
    };

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override; // cancels every job and waits for the workers

    // Starts `work` (queued behind the running compute job for Kind::Compute); a job with the
    // same key is cancelled and its result dropped. A job cancelled before it began never runs.
    void start(const QString& key, const QString& title, Work work, Kind kind = Kind::Compute);
    void cancel(const QString& key);
    void cancelAll();
    bool isRunning(const QString& key) const;
    bool isBusy() const { return !m_jobs.empty(); }
    int runningCount() const { return int(m_jobs.size()); }
    // The most recently started running job, for the status bar.
    QString currentTitle() const;
    int currentPermille() const; // -1 when unknown or idle
    // Blocks (processing events) until idle or `timeoutMs` passes; true when idle. For
    // screenshots and tests.
    bool waitForIdle(int timeoutMs);
    // Processes events until `busy` stays false across several rounds of event processing, or
    // `timeoutMs` passes; true when quiet. A finished job may start the next one from a posted
    // event or a zero timer, so one idle look is not enough.
    static bool waitUntilQuiet(const std::function<bool()>& busy, int timeoutMs);

signals:
    void started(const QString& key, const QString& title);
    void finished(const QString& key);
    void failed(const QString& key, const QString& message);
    void cancelled(const QString& key);
    void activityChanged();

private:
    struct Job {
        QString title;
        uint64_t serial = 0;
        std::shared_ptr<JobControl> control;
    };
    void complete(const QString& key, uint64_t serial, const Continuation& continuation, const QString& error);

    QThreadPool m_compute; // one thread: one OpenMP team at a time
    QThreadPool m_io;
    std::map<QString, Job> m_jobs;
    uint64_t m_serial = 0;
};

} // namespace qsw
