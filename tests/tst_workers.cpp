// A pass on several threads (arithmetic/workers.h): every item done once, however many threads
// the system grants, and the process never ended because one could not be started.
#include "arithmetic/workers.h"

#include <QTest>

#include <atomic>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

using namespace ratelab;

namespace {

// Items is work shared by a counter, as the sweep shares its cells: each call takes the next
// item until none are left, and counts how often each item was done.
struct Items {
    explicit Items(std::size_t n) : done(n) {}
    std::vector<std::atomic<int>> done;
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::set<std::thread::id> threads;

    void work()
    {
        {
            std::lock_guard lock(mutex);
            threads.insert(std::this_thread::get_id());
        }
        for (std::size_t i = next.fetch_add(1); i < done.size(); i = next.fetch_add(1))
            ++done[i];
    }
    bool eachOnce() const
    {
        for (const auto& d : done)
            if (d.load() != 1)
                return false;
        return true;
    }
};

} // namespace

class TestWorkers : public QObject {
    Q_OBJECT

private slots:
    // Four threads asked, four granted: four distinct threads called work, each item done once.
    void runsOnEveryThreadAsked()
    {
        Items items(1000);
        QCOMPARE(runOnThreads(4, [&] { items.work(); }), 4u);
        QCOMPARE(items.threads.size(), std::size_t(4));
        QVERIFY(items.eachOnce());
    }

    // The system grants two more threads and then refuses (std::system_error, as a thread limit
    // does): the pass runs on this thread and those two (3 in all), and every item is still done
    // once. std::thread in a vector would have ended the process here: the threads already
    // started are joinable when the exception unwinds the vector.
    void aRefusedThreadRunsTheWorkOnFewer()
    {
        Items items(1000);
        int started = 0;
        const StartThread grantTwo = [&](std::function<void()> f) {
            if (started == 2)
                throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
            ++started;
            return std::jthread(std::move(f));
        };
        QCOMPARE(runOnThreads(8, [&] { items.work(); }, grantTwo), 3u);
        QCOMPARE(items.threads.size(), std::size_t(3));
        QVERIFY(items.eachOnce());
    }

    // No thread at all to be had: the caller's alone does it all.
    void noThreadRunsOnTheCaller()
    {
        Items items(100);
        const StartThread none = [](std::function<void()>) -> std::jthread {
            throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
        };
        QCOMPARE(runOnThreads(4, [&] { items.work(); }, none), 1u);
        QVERIFY(items.threads == std::set<std::thread::id>{std::this_thread::get_id()});
        QVERIFY(items.eachOnce());
    }

    // n = 0 and n = 1 both mean the caller's thread only.
    void zeroAndOneAreTheCaller()
    {
        for (unsigned n : {0u, 1u}) {
            Items items(10);
            QCOMPARE(runOnThreads(n, [&] { items.work(); }), 1u);
            QVERIFY(items.threads == std::set<std::thread::id>{std::this_thread::get_id()});
            QVERIFY(items.eachOnce());
        }
    }
};

QTEST_GUILESS_MAIN(TestWorkers)
#include "tst_workers.moc"
