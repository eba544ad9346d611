// Client throttles: Bottleneck 2.19.5 and p-queue 10.0.0 against start times derived
// by hand from the packages' own source (core/server/bottleneck.h and p_queue.h cite the lines).
// Times are in ms; a call's start is -1 when the throttle dropped it. Every call is done at its
// start plus its service time; at one instant completions come first (in start order), then the
// throttle's timers, then arrivals in order.
//
// Bottleneck's rules used below: a call is queued by priority (0 first, FIFO within one); the
// queue drains while the capacity (maxConcurrent - running, the reservoir) allows, each drained
// call starting at max(now, nextRequest) with nextRequest = its start + minTime (nextRequest
// starts at the limiter's creation, t = 0); running counts calls drained and not done. The
// heartbeat beats every 250 ms from creation and refreshes (reservoir = amount) when
// beat >= last refresh + interval. p-queue's: larger priorities first; a window opens at a start
// when none is open and lasts `interval`; its recurring timer is stopped whenever the queue is
// found empty, after which an arrival inside the old window waits for its end.
#include "spec_helpers.h"
#include "error_of.h"
#include "engine/throttled_arrivals.h"
#include "server/bottleneck.h"

#include <QTest>

#include <algorithm>
#include <random>

using namespace ratelab;

namespace {

using Ms = std::vector<std::int64_t>;

constexpr Nanos kMs = 1'000'000;

// starts runs the spec on arrivals and service times (ms) and returns the starts in ms.
Ms starts(const char* spec, const Ms& arrivals, const Ms& service, const std::vector<int>& priorities = {})
{
    std::vector<Nanos> a, s;
    for (const std::int64_t x : arrivals)
        a.push_back(x * kMs);
    for (const std::int64_t x : service)
        s.push_back(x * kMs);
    Ms out;
    for (const Nanos x : simulateThrottle(spec, a, s, std::vector<double>(priorities.begin(), priorities.end())))
        out.push_back(x == kNotStarted ? -1 : x / kMs);
    return out;
}

} // namespace

Q_DECLARE_METATYPE(Ms)

class TestClientThrottles : public QObject {
    Q_OBJECT
private slots:
    void table_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<Ms>("arrivals");
        QTest::addColumn<Ms>("service");
        QTest::addColumn<std::vector<int>>("priorities");
        QTest::addColumn<Ms>("expected");
        const std::vector<int> none;

        // --- Bottleneck ---
        // Two at once: 0 and 1 start at 0; 1 done at 50 lets 2 start (done 80), which lets 3 start.
        QTest::newRow("bottleneck max_concurrent") << "bottleneck:max_concurrent=2" << Ms{0, 0, 0, 0}
                                                   << Ms{100, 50, 30, 10} << none << Ms{0, 0, 50, 80};
        // min_time 100: nextRequest 0 -> 0 starts at 0 (next 100); 1 at 10 waits to 100 (next
        // 200); 2 at 20 to 200 (next 300); 3 at 500 starts at once (next 600); 4 at 550 waits to 600.
        QTest::newRow("bottleneck min_time") << "bottleneck:min_time=100ms" << Ms{0, 10, 20, 500, 550}
                                             << Ms{1000, 1000, 1000, 1000, 1000} << none << Ms{0, 100, 200, 500, 600};
        // One at a time, 100 apart: 0 at 0 (next 100); 0 done at 30 drains 1, which waits to 100
        // (next 200) and counts as running; 1 done at 130 drains 2, which waits to 200.
        QTest::newRow("bottleneck both") << "bottleneck:max_concurrent=1,min_time=100ms" << Ms{0, 0, 0}
                                         << Ms{30, 30, 30} << none << Ms{0, 100, 200};
        // Reservoir 2, refreshed to 2 every 1 s: 0 and 1 at 0; beats at 250, 500, 750 refresh
        // nothing (< 0 + 1000), the beat at 1000 does: 2 and 3; the next at 2000: 4.
        QTest::newRow("bottleneck refresh 1s") << "bottleneck:reservoir=2,reservoir_refresh_interval=1s,reservoir_refresh_amount=2"
                                               << Ms{0, 0, 0, 0, 0} << Ms{10, 10, 10, 10, 10} << none
                                               << Ms{0, 0, 1000, 1000, 2000};
        // Refresh every 300 ms, but beats come every 250: the first beat >= 300 is 500, then the
        // first >= 800 is 1000, then >= 1300 is 1500. Two calls at each.
        QTest::newRow("bottleneck refresh 300ms") << "bottleneck:reservoir=2,reservoir_refresh_interval=300ms,reservoir_refresh_amount=2"
                                                  << Ms{0, 0, 0, 0, 0, 0, 0} << Ms{10, 10, 10, 10, 10, 10, 10} << none
                                                  << Ms{0, 0, 500, 500, 1000, 1000, 1500};
        // Reservoir 1, +1 every 500 ms up to 2: 0 at 0; beats at 500, 1000, 1500 add 1 each
        // (min(1, 2 - 0)): 1, 2, 3. Idle beats at 2000 (1) and 2500 (2) fill it; 3000 adds
        // min(1, 2 - 2) = 0. At 3000 (the beat first): 4 and 5 take both; 6 waits for 3500.
        QTest::newRow("bottleneck increase") << "bottleneck:reservoir=1,reservoir_increase_interval=500ms,reservoir_increase_amount=1,reservoir_increase_maximum=2"
                                             << Ms{0, 0, 0, 0, 3000, 3000, 3000} << Ms{10, 10, 10, 10, 10, 10, 10} << none
                                             << Ms{0, 500, 1000, 1500, 3000, 3000, 3500};
        // Priority 0 first, FIFO within one: 0 starts; queued 9:[1] 0:[2] 5:[3] 3:[4]; out of the
        // package's range 12 is 9 and -3 is 0 (Job.coffee's clamp): 9:[1,5] 0:[2,6]. Order: 2, 6, 4, 3, 1, 5.
        QTest::newRow("bottleneck priorities") << "bottleneck:max_concurrent=1" << Ms{0, 0, 0, 0, 0, 0, 0}
                                               << Ms{10, 10, 10, 10, 10, 10, 10} << std::vector<int>{5, 9, 0, 5, 3, 12, -3}
                                               << Ms{0, 50, 10, 40, 30, 60, 20};
        // High water 2, one at a time, all at 0 (prio 5, 5, 5, 5, 3, 9): 0 starts; 1, 2 queue; 3
        // finds 2 queued: LEAK drops the oldest of the least urgent list from 5 down (1); 4
        // (prio 3) drops 2; 5 (prio 9) finds nothing from 9 down and is dropped. Then 4, 3.
        QTest::newRow("bottleneck leak") << "bottleneck:max_concurrent=1,high_water=2,strategy=leak" << Ms{0, 0, 0, 0, 0, 0}
                                         << Ms{100, 100, 100, 100, 100, 100} << std::vector<int>{5, 5, 5, 5, 3, 9}
                                         << Ms{0, -1, -1, 200, 100, -1};
        // OVERFLOW_PRIORITY looks strictly below: 3 (prio 5) finds nothing in 6..9 and is
        // dropped; 4 (prio 3) drops 1 (oldest in 5); 5 (prio 9) is dropped. Then 4, 2.
        QTest::newRow("bottleneck overflow_priority") << "bottleneck:max_concurrent=1,high_water=2,strategy=overflow_priority"
                                                      << Ms{0, 0, 0, 0, 0, 0} << Ms{100, 100, 100, 100, 100, 100}
                                                      << std::vector<int>{5, 5, 5, 5, 3, 9} << Ms{0, -1, 200, -1, 100, -1};
        // OVERFLOW drops every new call past the high water.
        QTest::newRow("bottleneck overflow") << "bottleneck:max_concurrent=1,high_water=2,strategy=overflow"
                                             << Ms{0, 0, 0, 0, 0, 0} << Ms{100, 100, 100, 100, 100, 100}
                                             << std::vector<int>{5, 5, 5, 5, 3, 9} << Ms{0, 100, 200, -1, -1, -1};
        // High water 0 with min_time: a call that cannot start now is dropped (LEAK finds nothing
        // to drop): 1 at 50 (nextRequest 100); 2 at 100 may start.
        QTest::newRow("bottleneck high_water 0") << "bottleneck:min_time=100ms,high_water=0" << Ms{0, 50, 100}
                                                 << Ms{10, 10, 10} << none << Ms{0, -1, 100};
        // BLOCK, penalty 1 s: 1 queues at 10; 2 at 20 reaches the high water: blocked until
        // 1020, 1 and 2 dropped; 3 at 50 is blocked and moves the end to 1050; 4 at exactly 1050
        // is still blocked (unblockTime >= now) and moves it to 2050; 5 at 2051 starts.
        QTest::newRow("bottleneck block") << "bottleneck:max_concurrent=1,high_water=1,strategy=block,penalty=1s"
                                          << Ms{0, 10, 20, 50, 1050, 2051} << Ms{100, 100, 100, 100, 100, 100} << none
                                          << Ms{0, -1, -1, -1, -1, 2051};
        // BLOCK, default penalty 15 * min_time = 1500: 1 at 50 cannot start now (nextRequest 100):
        // blocked until 1550, nextRequest 1650; 2 at 1600 is past the block but cannot start
        // (1650): blocked until 3100, nextRequest 3200; 3 at 3200 starts.
        QTest::newRow("bottleneck block default penalty") << "bottleneck:min_time=100ms,high_water=0,strategy=block"
                                                          << Ms{0, 50, 1600, 3200} << Ms{10, 10, 10, 10} << none
                                                          << Ms{0, -1, -1, 3200};
        // Service 0: each call is done as it starts, before the next arrival.
        QTest::newRow("bottleneck service 0") << "bottleneck:max_concurrent=1" << Ms{0, 0, 0} << Ms{0, 0, 0} << none
                                              << Ms{0, 0, 0};

        // --- p-queue ---
        QTest::newRow("p-queue concurrency") << "p-queue:concurrency=2" << Ms{0, 0, 0, 0} << Ms{100, 50, 30, 10} << none
                                             << Ms{0, 0, 50, 80};
        // Cap 2 a second: 0 and 1 open the window [0, 1000); the recurring timer at 1000 starts
        // 2 and 3, at 2000 starts 4.
        QTest::newRow("p-queue interval") << "p-queue:interval=1s,interval_cap=2" << Ms{0, 0, 0, 0, 0}
                                          << Ms{10, 10, 10, 10, 10} << none << Ms{0, 0, 1000, 1000, 2000};
        // Windows open at a start, not on multiples of the interval: 0 opens [0, 1000) and its
        // completion (queue empty) stops the timer; 1 at 1500 opens [1500, 2500); 2 and 3 wait
        // for the timer at 2500 and 3500.
        QTest::newRow("p-queue window from a start") << "p-queue:interval=1s,interval_cap=1" << Ms{0, 1500, 1600, 2400}
                                                     << Ms{10, 10, 10, 10} << none << Ms{0, 1500, 2500, 3500};
        // The stopped timer's window still holds: 1 at 500 is inside [0, 1000) with the cap
        // taken, so a resume timer at 1000 starts it and opens [1000, 2000); 2 at 1200 waits for
        // the next resume at 2000, opening [2000, 3000); 3 for the recurring timer at 3000.
        QTest::newRow("p-queue resume timer") << "p-queue:interval=1s,interval_cap=1" << Ms{0, 500, 1200, 1300}
                                              << Ms{10, 10, 10, 10} << none << Ms{0, 1000, 2000, 3000};
        // An arrival that starts at once is tried alone (I:566-572), so the queue is not found
        // empty and the recurring timer runs on: 0 (running till 5000) opens [0, 1000); the
        // timer at 1000 opens [1000, 2000), where 1 at 1500 takes the cap; 2 at 1600 starts at
        // the timer's 2000. Had the timer stopped, 1 would open [1500, 2500) and 2 wait for 2500.
        QTest::newRow("p-queue recurring timer kept") << "p-queue:interval=1s,interval_cap=1" << Ms{0, 1500, 1600}
                                                      << Ms{5000, 10, 10} << none << Ms{0, 1500, 2000};
        // Carryover: at 1000 the new window counts the 2 still running (done at 1500), so 2 and 3
        // wait for the window at 2000 (count 0 then); without it they start at 1000.
        QTest::newRow("p-queue carryover") << "p-queue:interval=1s,interval_cap=2,carryover_interval_count=true"
                                           << Ms{0, 0, 0, 0} << Ms{1500, 1500, 10, 10} << none << Ms{0, 0, 2000, 2000};
        QTest::newRow("p-queue no carryover") << "p-queue:interval=1s,interval_cap=2" << Ms{0, 0, 0, 0}
                                              << Ms{1500, 1500, 10, 10} << none << Ms{0, 0, 1000, 1000};
        // Larger first, FIFO within one: queued 1:[1,3] 5:[2] -2:[4]. Order 2, 1, 3, 4.
        QTest::newRow("p-queue priorities") << "p-queue:concurrency=1" << Ms{0, 0, 0, 0, 0} << Ms{10, 10, 10, 10, 10}
                                            << std::vector<int>{0, 1, 5, 1, -2} << Ms{0, 20, 10, 30, 40};
        // Strict, 2 in any 1 s: 0 at 0, 1 at 400; 2 waits until 0 ages out (1000); then 3 until
        // 400 ages out (1400); 4 until 1000 does (2000).
        QTest::newRow("p-queue strict") << "p-queue:interval=1s,interval_cap=2,strict=true" << Ms{0, 400, 600, 900, 1300}
                                        << Ms{10, 10, 10, 10, 10} << none << Ms{0, 400, 1000, 1400, 2000};
        // The same fixed: 0 opens [0, 1000) and its completion stops the timer; 1 at 400 starts
        // inside it (count 2); 2 and 3 wait for the resume at 1000, which opens [1000, 2000)
        // with both; their completions stop the timer again and 4 at 1300 waits for 2000.
        QTest::newRow("p-queue fixed") << "p-queue:interval=1s,interval_cap=2" << Ms{0, 400, 600, 900, 1300}
                                       << Ms{10, 10, 10, 10, 10} << none << Ms{0, 400, 1000, 1000, 2000};
    }

    void table()
    {
        QFETCH(QString, spec);
        QFETCH(Ms, arrivals);
        QFETCH(Ms, service);
        QFETCH(std::vector<int>, priorities);
        QFETCH(Ms, expected);
        QCOMPARE(starts(qPrintable(spec), arrivals, service, priorities), expected);
    }

    // The interface driven by hand: a held call is reported by nextWake and wake, drops at submit.
    void events()
    {
        auto b = makeClientThrottle("bottleneck:max_concurrent=1,min_time=100ms,high_water=1,strategy=overflow");
        std::vector<std::int64_t> started, dropped;
        QCOMPARE(b->nextWake(), ClientThrottle::kNever);
        b->submit(0, 0, b->defaultPriority(), dropped);
        QCOMPARE(b->nextWake(), Nanos(0));
        b->wake(0, started);
        QCOMPARE(started, std::vector<std::int64_t>{0});
        b->submit(10 * kMs, 1, 5, dropped);
        b->submit(20 * kMs, 2, 5, dropped);
        QCOMPARE(dropped, std::vector<std::int64_t>{2});
        QCOMPARE(b->nextWake(), ClientThrottle::kNever); // 1 waits for a completion
        b->done(30 * kMs, 0);
        QCOMPARE(b->nextWake(), 100 * kMs); // then for min_time
        started.clear();
        b->wake(99 * kMs, started);
        QVERIFY(started.empty());
        b->wake(100 * kMs, started);
        QCOMPARE(started, std::vector<std::int64_t>{1});
    }

    // A day between two calls: only the beats that refresh are run (here every 1 ms for a day
    // would be 86.4 million); the second call finds the reservoir refreshed to 1.
    void idleHeartbeat()
    {
        const Ms got = starts("bottleneck:reservoir=1,reservoir_refresh_interval=1h,reservoir_refresh_amount=1,heartbeat_interval=1ms",
                              {0, 0, 86'400'000}, {10, 10, 10});
        QCOMPARE(got, (Ms{0, 3'600'000, 86'400'000}));
    }

    // Seeded random runs keep what each option promises, whatever the traffic: a start never
    // before its arrival; never more running than max_concurrent / concurrency (a call runs on
    // [start, start + service)); Bottleneck's starts min_time apart and no more than a reservoir
    // nobody refills; p-queue's strict windows at most interval_cap starts in any interval, its
    // fixed ones at most twice that (two windows can meet inside one); calls of one priority
    // start in arrival order; p-queue drops nothing.
    void invariants()
    {
        static const char* const kStrategies[] = {"leak", "overflow", "overflow_priority", "block"};
        std::mt19937_64 random(33);
        const auto draw = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(random() % std::uint64_t(hi - lo + 1)); };
        for (int run = 0; run < 400; ++run) {
            const bool bottleneck = run % 2 == 0;
            const std::int64_t concurrency = draw(0, 4), minTime = bottleneck ? draw(0, 1) * draw(1, 100) : 0;
            const std::int64_t reservoir = bottleneck && draw(0, 2) == 0 ? draw(0, 30) : -1;
            const std::int64_t interval = bottleneck ? 0 : draw(0, 1) * draw(1, 500), cap = draw(1, 4);
            const bool strict = interval > 0 && draw(0, 1) == 1;
            std::string spec = bottleneck ? "bottleneck:high_water=" + std::to_string(draw(0, 6)) : "p-queue:strict=" + std::string(strict ? "true" : "false");
            if (concurrency > 0)
                spec += (bottleneck ? ",max_concurrent=" : ",concurrency=") + std::to_string(concurrency);
            if (minTime > 0)
                spec += ",min_time=" + std::to_string(minTime) + "ms";
            if (reservoir >= 0)
                spec += ",reservoir=" + std::to_string(reservoir);
            if (interval > 0)
                spec += ",interval=" + std::to_string(interval) + "ms,interval_cap=" + std::to_string(cap);
            if (bottleneck)
                spec += std::string(",strategy=") + kStrategies[draw(0, 3)];
            Ms arrivals, service;
            std::vector<int> priorities;
            std::int64_t t = 0;
            for (int i = 0; i < 120; ++i) {
                t += draw(0, 2) == 0 ? 0 : draw(0, 80);
                arrivals.push_back(t);
                service.push_back(draw(0, 150));
                priorities.push_back(int(draw(0, 3)));
            }
            const Ms start = starts(spec.c_str(), arrivals, service, priorities);
            const auto where = [&](std::size_t i) { return spec + ", call " + std::to_string(i); };
            std::int64_t count = 0;
            Ms sorted;
            for (std::size_t i = 0; i < start.size(); ++i) {
                if (start[i] < 0) {
                    QVERIFY2(bottleneck, where(i).c_str());
                    continue;
                }
                ++count;
                sorted.push_back(start[i]);
                QVERIFY2(start[i] >= arrivals[i], where(i).c_str());
                std::int64_t running = 0, inWindow = 0;
                for (std::size_t j = 0; j < start.size(); ++j) {
                    if (start[j] < 0)
                        continue;
                    running += start[j] <= start[i] && start[i] < start[j] + service[j] ? 1 : 0;
                    inWindow += start[j] >= start[i] && start[j] < start[i] + interval ? 1 : 0;
                    if (j > i && priorities[j] == priorities[i])
                        QVERIFY2(start[j] >= start[i], where(i).c_str());
                }
                if (concurrency > 0)
                    QVERIFY2(running <= concurrency, where(i).c_str());
                if (interval > 0)
                    QVERIFY2(inWindow <= (strict ? cap : 2 * cap), where(i).c_str());
            }
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t k = 1; k < sorted.size(); ++k)
                QVERIFY2(sorted[k] - sorted[k - 1] >= minTime, spec.c_str());
            if (reservoir >= 0)
                QVERIFY2(count <= reservoir, spec.c_str());
        }
    }

    // Bottleneck's Job (lib/Job.js:34-45, _sanitizePriority): ~~x !== x (a fraction, or an
    // integer past 32 bits, which ~~ wraps) gives the default 5; the rest is clamped into 0..9.
    // The spec key gives every call that priority; p-queue's takes an integer as it is.
    void priorities()
    {
        QCOMPARE(bottleneckPriority(3), 3);
        QCOMPARE(bottleneckPriority(0), 0);
        QCOMPARE(bottleneckPriority(-1), 0);   // ~~-1 is -1: clamped
        QCOMPARE(bottleneckPriority(12), 9);   // ~~12 is 12: clamped
        QCOMPARE(bottleneckPriority(2.5), 5);  // ~~2.5 is 2: the default, not 2 or 3
        QCOMPARE(bottleneckPriority(-0.5), 5); // ~~-0.5 is 0
        QCOMPARE(bottleneckPriority(2147483647.0), 9);  // 2^31 - 1: an int32, clamped
        QCOMPARE(bottleneckPriority(2147483648.0), 5);  // 2^31: ~~ makes it -2^31
        QCOMPARE(bottleneckPriority(-2147483648.0), 0); // -2^31: an int32, clamped
        QCOMPARE(bottleneckPriority(-2147483649.0), 5);
        QCOMPARE(bottleneckPriority(1e10), 5);
        QCOMPARE(makeClientThrottle("bottleneck")->defaultPriority(), 5.0);
        QCOMPARE(makeClientThrottle("bottleneck:priority=2")->defaultPriority(), 2.0);
        QCOMPARE(makeClientThrottle("bottleneck:priority=12")->defaultPriority(), 9.0);
        QCOMPARE(makeClientThrottle("bottleneck:priority=2.5")->defaultPriority(), 5.0);
        QCOMPARE(makeClientThrottle("p-queue")->defaultPriority(), 0.0);
        QCOMPARE(makeClientThrottle("p-queue:priority=-4")->defaultPriority(), -4.0);
        QCOMPARE(errorOf([] { makeClientThrottle("bottleneck:priority=high"); }),
                 std::string("bottleneck: priority: not a number (got 'high')"));
        QCOMPARE(errorOf([] { makeClientThrottle("p-queue:priority=1.5"); }).substr(0, 19), std::string("p-queue: priority: "));
    }

    void refusals()
    {
        QCOMPARE(errorOf([] { makeClientThrottle("bottle"); }), std::string("unknown client throttle 'bottle' (known: bottleneck, p-queue)"));
        QVERIFY(errorOf([] { makeClientThrottle("bottleneck:maxConcurrent=2"); }).find("unknown key 'maxConcurrent' for bottleneck") == 0);
        QCOMPARE(errorOf([] { makeClientThrottle("bottleneck:max_concurrent=0"); }).substr(0, 27), std::string("bottleneck: max_concurrent:"));
        QCOMPARE(errorOf([] { makeClientThrottle("bottleneck:strategy=drop"); }).substr(0, 42), std::string("bottleneck: strategy: unknown value 'drop'"));
        QCOMPARE(errorOf([] { makeClientThrottle("bottleneck:reservoir_refresh_interval=1s"); }),
                 std::string("bottleneck: reservoir_refresh_interval needs reservoir_refresh_amount"));
        QCOMPARE(errorOf([] { makeClientThrottle("bottleneck:reservoir_increase_amount=1"); }),
                 std::string("bottleneck: reservoir_increase_amount needs reservoir_increase_interval"));
        QCOMPARE(errorOf([] { makeClientThrottle("bottleneck:penalty=1s"); }), std::string("bottleneck: penalty applies only to strategy=block"));
        QCOMPARE(errorOf([] { makeClientThrottle("p-queue:strict=true,interval_cap=2"); }),
                 std::string("p-queue: strict needs an interval of more than 0 s"));
        QCOMPARE(errorOf([] { makeClientThrottle("p-queue:strict=true,interval=1s"); }), std::string("p-queue: strict needs an interval_cap"));
        QVERIFY(errorOf([] { makeClientThrottle("p-queue:carryoverConcurrencyCount=true"); }).find("unknown key") == 0);
        QCOMPARE(errorOf([] { makeClientThrottle("p-queue:interval=500us,interval_cap=1"); }),
                 std::string("p-queue: interval: must be 0 or at least 1ms (got 0.0005 s)"));
        QCOMPARE(errorOf([] { makeClientThrottle("bottleneck:heartbeat_interval=1ns,reservoir=1,reservoir_increase_interval=1s,reservoir_increase_amount=1"); }),
                 std::string("bottleneck: heartbeat_interval: must be at least 1ms (got 0.000000001 s)"));
        QCOMPARE(errorOf([] { simulateThrottle("p-queue", {5, 4}, {1, 1}); }),
                 std::string("simulateThrottle: arrival 1 is before the one before it, or before 0"));
    }
};

QTEST_GUILESS_MAIN(TestClientThrottles)
#include "tst_client_throttles.moc"
