// parallel.h's runChunks: every chunk runs once, each thread has its own state, progress runs on
// the calling thread, and (issue 29) an error or a cancel leaves the loop promptly: a range of
// 2^62 chunks whose third chunk throws returns that exception to the caller at once. (An
// OpenMP `for` cannot leave early: it walked every remaining chunk, past 100 s for a wrapped
// shape's 2^40..2^61 chunks.)
#include "base/error.h"
#include "base/parallel.h"
#include "base/platform.h"

#include <QTest>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

constexpr uint64_t kHuge = uint64_t(1) << 62;
// What each chunk of the huge runs costs: the other thread's chunks while the first exception
// is thrown and caught (microseconds to a few milliseconds) stay countable. Fewer than 1000 of
// them run after the error or cancel (all 2^62 would run without the stop).
constexpr std::chrono::microseconds kChunkTime{200};

// Runs f on a thread of its own; false when it has not returned within `seconds` (the thread is
// left behind: the suite fails and exits, which ends it). What f writes lives in a shared_ptr
// it holds, never on the caller's stack, which a thread left behind would outlive.
template <typename F>
bool finishesWithin(int seconds, F&& f)
{
    auto task = std::make_shared<std::packaged_task<void()>>(std::forward<F>(f));
    std::future<void> done = task->get_future();
    std::thread([task] { (*task)(); }).detach();
    if (done.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready)
        return false;
    done.get();
    return true;
}

} // namespace

class TestParallel : public QObject {
    Q_OBJECT
private slots:
    void everyChunkOnce_data()
    {
        QTest::addColumn<int>("threads");
        QTest::addRow("default team") << 0;
        QTest::addRow("one thread") << 1;
        QTest::addRow("three threads") << 3;
    }
    void everyChunkOnce()
    {
        QFETCH(int, threads);
        std::vector<std::atomic<int>> ran(1000);
        std::atomic<int> progress{0};
        struct State {
            int chunks = 0;
        };
        const bool finished = qs::runChunks<State>(
            ran.size(), threads, nullptr,
            [&](uint64_t c, State& s) {
                ++s.chunks;
                ++ran[c];
            },
            [&] {
                QCOMPARE(omp_get_thread_num(), 0);
                ++progress;
            });
        QVERIFY(finished);
        for (const auto& r : ran)
            QCOMPARE(r.load(), 1);
        // After each chunk thread 0 ran: every chunk on a team of one (another thread may take
        // them all before thread 0 starts on a larger team).
        if (threads == 1)
            QCOMPARE(progress.load(), 1000);
        QVERIFY(progress.load() <= 1000);
        // Nothing to do: finished, nothing ran.
        QVERIFY(qs::runChunks(0, threads, nullptr, [&](uint64_t, qs::NoChunkState&) { QFAIL("ran a chunk of none"); }));
    }

    // The first error is the one the caller sees; the chunks after it are not taken.
    void errorInAHugeRangeReturnsPromptly()
    {
        struct Run {
            std::atomic<uint64_t> ran{0};
            std::string message, other;
        };
        const auto run = std::make_shared<Run>();
        QVERIFY2(finishesWithin(10,
                                [run] {
                                    try {
                                        qs::runChunks(kHuge, 2, nullptr, [&](uint64_t c, qs::NoChunkState&) {
                                            ++run->ran;
                                            if (c == 2)
                                                throw qs::Error("chunk " + std::to_string(c) + " failed");
                                            std::this_thread::sleep_for(kChunkTime);
                                        });
                                    } catch (const qs::Error& e) {
                                        run->message = e.what();
                                    }
                                }),
                 "runChunks kept taking chunks after one threw");
        QCOMPARE(run->message, std::string("chunk 2 failed"));
        QVERIFY2(run->ran.load() < 1000, qPrintable(QString::number(run->ran.load())));

        // Any exception type reaches the caller, on a team of one too.
        QVERIFY(finishesWithin(10, [run] {
            try {
                qs::runChunks(kHuge, 1, nullptr, [](uint64_t c, qs::NoChunkState&) {
                    if (c == 5)
                        throw std::out_of_range("five");
                });
            } catch (const std::out_of_range& e) {
                run->other = e.what();
            }
        }));
        QCOMPARE(run->other, std::string("five"));
    }

    void cancelInAHugeRangeReturnsPromptly()
    {
        struct Run {
            std::atomic<bool> cancel{false};
            std::atomic<uint64_t> ran{0};
            bool finished = true;
        };
        const auto run = std::make_shared<Run>();
        QVERIFY2(finishesWithin(10,
                                [run] {
                                    run->finished =
                                        qs::runChunks(kHuge, 2, &run->cancel, [&](uint64_t c, qs::NoChunkState&) {
                                            ++run->ran;
                                            if (c == 3)
                                                run->cancel = true;
                                            std::this_thread::sleep_for(kChunkTime);
                                        });
                                }),
                 "runChunks kept taking chunks after a cancel");
        QVERIFY(!run->finished);
        QVERIFY2(run->ran.load() < 1000, qPrintable(QString::number(run->ran.load())));
    }

    // parallelFor, the plain loops' form (kernels' row chunks, quantizers' blocks): every index
    // once, and an exception thrown inside the team reaches the caller (inside a raw OpenMP
    // region it would end the program), serial or parallel.
    void parallelForRunsEachIndexOnceAndCarriesErrors_data()
    {
        QTest::addColumn<bool>("parallel");
        QTest::addRow("parallel") << true;
        QTest::addRow("serial") << false;
    }
    void parallelForRunsEachIndexOnceAndCarriesErrors()
    {
        QFETCH(bool, parallel);
        std::vector<std::atomic<int>> ran(5000);
        std::atomic<int> threadsSeen{0};
        qs::parallelFor(ran.size(), parallel, [&](uint64_t i) {
            ++ran[i];
            if (omp_get_thread_num() == 1)
                threadsSeen = 2;
        });
        for (const auto& r : ran)
            QCOMPARE(r.load(), 1);
        if (!parallel)
            QCOMPARE(threadsSeen.load(), 0);
        std::atomic<uint64_t> after{0};
        try {
            qs::parallelFor(uint64_t(1) << 40, parallel, [&](uint64_t i) {
                if (i == 7)
                    throw qs::Error("index seven");
                if (i > 7)
                    ++after;
            });
            QFAIL("the error did not reach the caller");
        } catch (const qs::Error& e) {
            QCOMPARE(std::string(e.what()), std::string("index seven"));
        }
        // Stopped: the other thread may run a timeslice of empty indices first, never 2^40 of them.
        QVERIFY2(after.load() < (uint64_t(1) << 30), qPrintable(QString::number(after.load())));
    }

    // Issue 30: what throws inside the region outside a chunk, a thread's State being built (its
    // scratch buffers: a bad_alloc) or the progress report after a chunk, reaches the caller too
    // (it ended the program: only the chunk itself was inside the try).
    void stateAndProgressErrorsReachTheCaller_data()
    {
        QTest::addColumn<int>("threads");
        QTest::addRow("one thread") << 1;
        QTest::addRow("two threads") << 2;
    }
    void stateAndProgressErrorsReachTheCaller()
    {
        QFETCH(int, threads);
        struct ThrowingState {
            ThrowingState() { throw std::length_error("scratch"); }
        };
        try {
            qs::runChunks<ThrowingState>(100, threads, nullptr, [](uint64_t, ThrowingState&) {});
            QFAIL("the State's error did not reach the caller");
        } catch (const std::length_error& e) {
            QCOMPARE(std::string(e.what()), std::string("scratch"));
        }
        std::atomic<int> reports{0};
        try {
            qs::runChunks(
                uint64_t(1) << 40, threads, nullptr, [](uint64_t, qs::NoChunkState&) {},
                [&reports] {
                    if (++reports == 3)
                        throw qs::Error("progress");
                });
            QFAIL("the progress report's error did not reach the caller");
        } catch (const qs::Error& e) {
            QCOMPARE(std::string(e.what()), std::string("progress"));
        }
        QCOMPARE(reports.load(), 3);
    }

    // Issue 34: the default team leaves the cores other runnable threads want. With more busy
    // threads than cores a run asked for OpenMP's default team runs on one thread (the team of
    // every core was a tenth of one thread's rate under load: each region's end waited for a
    // worker queued behind the other work).
    void defaultTeamLeavesBusyCoresAlone()
    {
        if (omp_get_max_threads() < 2)
            QSKIP("one core: the default team is one thread anyway");
        if (qs::platform::runnableThreads() == 0)
            QSKIP("the runnable threads are unknown on this system");
        std::atomic<bool> stop{false};
        std::vector<std::thread> busy;
        for (int i = 0; i <= omp_get_max_threads(); ++i)
            busy.emplace_back([&stop] {
                while (!stop.load(std::memory_order_relaxed)) { }
            });
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // past defaultTeam's last decision
        std::atomic<int> team{0};
        qs::runChunks(64, 0, nullptr,
                      [&](uint64_t, qs::NoChunkState&) { team = std::max(team.load(), omp_get_num_threads()); });
        stop = true;
        for (std::thread& t : busy)
            t.join();
        QCOMPARE(team.load(), 1);
        // Asked for explicitly, a team is what was asked.
        std::atomic<int> asked{0};
        qs::runChunks(64, 2, nullptr, [&](uint64_t, qs::NoChunkState&) { asked = omp_get_num_threads(); });
        QCOMPARE(asked.load(), 2);
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "tst_parallel.moc"
