// core/view/served: the served attempts bucketed for the chart (latency percentiles, goodput),
// the number in the server over time, and the strip's columns by outcome. Every expected value
// is worked out by hand in the comment above it.
#include "view/served.h"

#include <QTest>

using namespace ratelab;

namespace {

constexpr Nanos ms = 1'000'000;

// Six decided attempts:
//   a arrived 0,     left 100 ms, served in time  (latency 100 ms)
//   c arrived 0,     left 300 ms, served in time  (latency 300 ms)
//   b arrived 50 ms, left 250 ms, served late     (latency 200 ms)
//   d arrived 100 ms, left 400 ms, timed out in the queue
//   e refused at 200 ms (arrived = start = end)
//   f never admitted (every time 0)
const std::vector<ServedAttempt> kServed = {
    {0, 0, 100 * ms, Outcome::InTime},       {0, 100 * ms, 300 * ms, Outcome::InTime},
    {50 * ms, 100 * ms, 250 * ms, Outcome::Late}, {100 * ms, 400 * ms, 400 * ms, Outcome::QueueTimeout},
    {200 * ms, 200 * ms, 200 * ms, Outcome::Refused}, {0, 0, 0, Outcome::NotAdmitted},
};

} // namespace

class TestServedView : public QObject {
    Q_OBJECT
private slots:
    void bucketsLatencyAndGoodputByDeparture()
    {
        // [0, 1 s) in at most 4 buckets: at least 250 ms each, rounded up to 500 ms (1, 2 or 5
        // times a power of ten), so 2 buckets. Bucket 0 holds a, b, c (ends 100, 250, 300 ms):
        // 3 served, 2 in time; latencies sorted 100, 200, 300 ms: p50 the ceil(1.5) = 2nd =
        // 200 ms, p99 the ceil(2.97) = 3rd = 300 ms. d timed out and e was refused: not served.
        const ServedBuckets b = servedBuckets(kServed, 0, 1000 * ms, 4);
        QCOMPARE(b.from, Nanos(0));
        QCOMPARE(b.widthNanos, 500 * ms);
        QCOMPARE(b.served, (std::vector<std::int64_t>{3, 0}));
        QCOMPARE(b.inTime, (std::vector<std::int64_t>{2, 0}));
        QCOMPARE(b.p50, (std::vector<Nanos>{200 * ms, 0}));
        QCOMPARE(b.p99, (std::vector<Nanos>{300 * ms, 0}));
        // A range that starts after a's departure: only b and c (250, 300 ms) in [200, 400 ms),
        // 2 buckets of 100 ms ([200, 300) holds b, [300, 400) holds c).
        const ServedBuckets late = servedBuckets(kServed, 200 * ms, 400 * ms, 2);
        QCOMPARE(late.widthNanos, 100 * ms);
        QCOMPARE(late.served, (std::vector<std::int64_t>{1, 1}));
        QCOMPARE(late.inTime, (std::vector<std::int64_t>{0, 1}));
        QCOMPARE(late.p99, (std::vector<Nanos>{200 * ms, 300 * ms}));
    }

    void countsTheAttemptsInTheServer()
    {
        // a [0, 100), c [0, 300), b [50, 250), d [100, 400) ms; e and f never count.
        // 0: 2; 50: 3; 100: a leaves, d comes (still 3, no step); 250: 2; 300: 1; 400: 0.
        const auto steps = inSystemSteps(kServed);
        const std::vector<std::pair<Nanos, std::int64_t>> want = {
            {0, 2}, {50 * ms, 3}, {250 * ms, 2}, {300 * ms, 1}, {400 * ms, 0}};
        QCOMPARE(steps, want);
    }

    void countsEachColumnsOutcomes()
    {
        // Decision times a 0, c 0, b 50, d 100, e 200, f 900 ms, over [0, 1 s) in 4 columns of
        // 250 ms: column 0 holds a, c (in time), b (late), d (timed out), e (refused); column 3
        // holds f (not admitted). Decisions from 1 on only: a is not counted.
        const std::vector<Nanos> times = {0, 0, 50 * ms, 100 * ms, 200 * ms, 900 * ms};
        const auto columns = outcomeColumns(kServed, times, 1, 6, 0, 1000 * ms, 4);
        QCOMPARE(columns.size(), std::size_t(4));
        const auto at = [&](std::size_t k, Outcome o) { return columns[k][std::size_t(o)]; };
        QCOMPARE(at(0, Outcome::InTime), 1);
        QCOMPARE(at(0, Outcome::Late), 1);
        QCOMPARE(at(0, Outcome::QueueTimeout), 1);
        QCOMPARE(at(0, Outcome::Refused), 1);
        QCOMPARE(at(0, Outcome::Rejected), 0);
        QCOMPARE(at(3, Outcome::NotAdmitted), 1);
        for (std::size_t k : {1, 2})
            for (std::int32_t n : columns[k])
                QCOMPARE(n, 0);
    }
};

QTEST_MAIN(TestServedView)
#include "tst_served_view.moc"
