#pragma once
// Background jobs for the views: statistics, requantizing, diffing, reports. Work runs on
// the runner's own thread pool with a progress fraction and a cancel flag; its result comes
// back to the GUI thread as a continuation. The window stays responsive throughout.
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

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override; // cancels every job and waits for the workers

    // Starts `work`; a running job with the same key is cancelled and its result dropped.
    void start(const QString& key, const QString& title, Work work);
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

    QThreadPool m_pool;
    std::map<QString, Job> m_jobs;
    uint64_t m_serial = 0;
};

} // namespace qsw
