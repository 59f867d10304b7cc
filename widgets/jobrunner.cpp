#include "jobrunner.h"

#include "qtext.h"

#include "base/cancel.h"
#include "base/error.h"
#include "base/progress.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <omp.h>

#include <algorithm>
#include <new>

namespace qsw {

void JobControl::setProgress(double fraction)
{
    const double f = std::clamp(fraction, 0.0, 1.0);
    m_permille.store(int(f * 1000.0 + 0.5), std::memory_order_relaxed);
}

JobRunner::JobRunner(QObject* parent)
    : QObject(parent)
{
    m_compute.setMaxThreadCount(1);
    m_io.setMaxThreadCount(2);
}

JobRunner::~JobRunner()
{
    for (auto& [key, job] : m_jobs)
        job.control->cancel();
    m_compute.waitForDone();
    m_io.waitForDone();
}

void JobRunner::start(const QString& key, const QString& title, Work work, Kind kind)
{
    cancel(key);
    Job job;
    job.title = title;
    job.serial = ++m_serial;
    job.control = std::make_shared<JobControl>();
    m_jobs[key] = job;
    const uint64_t serial = job.serial;
    auto control = job.control;
    QThreadPool& pool = kind == Kind::Compute ? m_compute : m_io;
    pool.start([this, key, serial, control, kind, work = std::move(work)] {
        Continuation continuation;
        QString error;
        // What the job reads from a remote checkpoint is fetched under its cancel flag.
        const qs::CancelScope scope(&control->cancelFlag());
        // An I/O job's parallel loops (base/parallel.h) take a team of one: the cores are the
        // compute job's. (The setting is this thread's own, and the I/O pool's threads run
        // nothing else.)
        if (kind == Kind::Io)
            omp_set_num_threads(1);
        try {
            if (!control->cancelled()) // cancelled while queued
                continuation = work(*control);
        } catch (const qs::Cancelled&) {
            control->cancel(); // the work stopped on a flag of its own: reported as cancelled
        } catch (const qs::Error& e) {
            error = qtext(e); // translated when core raised it with a message
        } catch (const std::bad_alloc&) {
            error = tr("out of memory");
        } catch (const std::exception& e) {
            error = tr("internal error: %1").arg(QString::fromUtf8(e.what()));
        }
        // The runner outlives its workers (the destructor waits), so `this` is valid here.
        // Moved, not copied: the worker keeps no share of the result (a closed checkpoint would
        // stay in memory until this thread ran again).
        QMetaObject::invokeMethod(
            this,
            [this, key, serial, continuation = std::move(continuation), error] {
                complete(key, serial, continuation, error);
            },
            Qt::QueuedConnection);
    });
    emit started(key, title);
    emit activityChanged();
}

void JobRunner::complete(const QString& key, uint64_t serial, const Continuation& continuation, const QString& error)
{
    const auto it = m_jobs.find(key);
    if (it == m_jobs.end() || it->second.serial != serial)
        return; // replaced or cancelled: cancel() already reported it
    const bool wasCancelled = it->second.control->cancelled();
    m_jobs.erase(it);
    if (wasCancelled)
        emit cancelled(key);
    else if (!error.isEmpty())
        emit failed(key, error);
    else {
        if (continuation)
            continuation();
        emit finished(key);
    }
    emit activityChanged();
}

void JobRunner::cancel(const QString& key)
{
    const auto it = m_jobs.find(key);
    if (it == m_jobs.end())
        return;
    it->second.control->cancel();
    m_jobs.erase(it);
    emit cancelled(key);
    emit activityChanged();
}

void JobRunner::cancelAll()
{
    // A copy: cancel() erases the map node that holds the key before it emits cancelled(key).
    while (!m_jobs.empty()) {
        const QString key = m_jobs.begin()->first;
        cancel(key);
    }
}

bool JobRunner::isRunning(const QString& key) const
{
    return m_jobs.count(key) != 0;
}

QString JobRunner::currentTitle() const
{
    const Job* latest = nullptr;
    for (const auto& [key, job] : m_jobs)
        if (!latest || job.serial > latest->serial)
            latest = &job;
    return latest ? latest->title : QString();
}

int JobRunner::currentPermille() const
{
    const Job* latest = nullptr;
    for (const auto& [key, job] : m_jobs)
        if (!latest || job.serial > latest->serial)
            latest = &job;
    return latest ? latest->control->permille() : -1;
}

bool JobRunner::waitForIdle(int timeoutMs)
{
    return waitUntilQuiet([this] { return isBusy(); }, timeoutMs);
}

bool JobRunner::waitUntilQuiet(const std::function<bool()>& busy, int timeoutMs)
{
    constexpr int kQuietRounds = 3;
    QElapsedTimer timer;
    timer.start();
    int quiet = 0;
    while (timer.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (busy()) {
            quiet = 0;
            QThread::msleep(5);
        } else if (++quiet == kQuietRounds) {
            return true;
        }
    }
    return false;
}

} // namespace qsw
