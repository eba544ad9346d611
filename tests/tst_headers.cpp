// Response headers against semantics.md ("What a server tells the client"), on admitted and
// denied requests. Every value is derived by hand: reset is the least d after which, with nothing
// else arriving, the limiter is back to its full quota (a request costing L or C would pass).
#include "report/headers.h"
#include "scenario/rows.h"
#include "limiters/limiters.h"

#include <QTest>

using namespace ratelab;

namespace {

constexpr Nanos sec(std::int64_t n) { return n * kNanosPerSecond; }
constexpr Nanos ms(std::int64_t n) { return n * 1'000'000; }

using Lines = std::vector<Header>;

// run decides requests at the times and returns the headers of the last one.
Lines lastHeaders(Algorithm a, const LimiterConfig& c, const std::vector<Nanos>& times, std::int64_t lastCost = 1)
{
    return visitLimiter(a, c, [&](auto& l) {
        Decision d;
        for (std::size_t i = 0; i < times.size(); ++i)
            d = l.decide(times[i], i + 1 == times.size() ? lastCost : 1);
        return responseHeaders(a, c, times.back(), d, resetOf(l, times.back()));
    });
}

QString text(const Lines& lines)
{
    QStringList out;
    for (const Header& h : lines)
        out << QString::fromStdString(h.name + ": " + h.value);
    return out.join('\n');
}

} // namespace

class TestHeaders : public QObject {
    Q_OBJECT
private slots:
    // A cluster row's hover shows the response of the node that decided: a token
    // bucket of 2 per 10 s on 2 local nodes, one request a second; node 1 at t = 1 is 1 token
    // short, full again at 6 s (one limiter replayed over all requests said 10).
    void clusterRowHeadersFromTheDecidingNode()
    {
        Scenario s;
        s.config = LimiterConfig::make(2, 10 * kNanosPerSecond);
        s.algorithms = {Algorithm::TokenBucket};
        s.pattern.count = 4;
        s.pattern.delayNanos = kNanosPerSecond;
        s.cluster = ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Local, 0, 0, 0, 1});
        Trace trace;
        trace.config = s.config;
        const RowInputs in = resolveRowInputs(s);
        trace.arrivals = in.arrivals;
        trace.results.push_back(simulateRow(s, in, 0));
        const std::vector<Header> h = headersAt(trace, 0, 1);
        QVERIFY(!h.empty());
        QCOMPARE(h[2].name, std::string("X-RateLimit-Reset"));
        QCOMPARE(h[2].value, std::string("6"));
    }

    void headers_data()
    {
        QTest::addColumn<QString>("got");
        QTest::addColumn<QString>("want");
        const LimiterConfig c10 = LimiterConfig::make(10, sec(10)); // L = C = 10, W = 10 s, r = 1/s

        // Token bucket, one request at 0: 9 tokens left; full again after 1 s (reset 1 s):
        // X-RateLimit-Reset ceil(0 + 1) = 1, t=1. Policy q = C = 10, w = ceil(10 / 1) = 10.
        QTest::newRow("token_bucket admitted")
            << text(lastHeaders(Algorithm::TokenBucket, c10, {0}))
            << "X-RateLimit-Limit: 10\nX-RateLimit-Remaining: 9\nX-RateLimit-Reset: 1\n"
               "RateLimit-Policy: \"token_bucket\";q=10;w=10\nRateLimit: \"token_bucket\";r=9;t=1";

        // Ten at 0 empty it; at 0.5 s it holds 0.5: denied, retry 0.5 s -> Retry-After 1 (rounded
        // up). Full after 9.5 more s: Reset ceil(0.5 + 9.5) = 10, t = ceil(9.5) = 10.
        QTest::newRow("token_bucket denied, Retry-After rounds up")
            << text(lastHeaders(Algorithm::TokenBucket, c10, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ms(500)}))
            << "X-RateLimit-Limit: 10\nX-RateLimit-Remaining: 0\nX-RateLimit-Reset: 10\nRetry-After: 1\n"
               "RateLimit-Policy: \"token_bucket\";q=10;w=10\nRateLimit: \"token_bucket\";r=0;t=10";

        // C = 1 at 1/s: a request 1 ns before the token is due waits 1 ns: Retry-After at least 1.
        // Reset 1 ns: ceil(1 s - 1 ns + 1 ns) = 1; t = ceil(1e-9) = 1; w = ceil(1 / 1) = 1.
        QTest::newRow("Retry-After is at least 1")
            << text(lastHeaders(Algorithm::TokenBucket, LimiterConfig::make(1, sec(1)), {0, sec(1) - 1}))
            << "X-RateLimit-Limit: 1\nX-RateLimit-Remaining: 0\nX-RateLimit-Reset: 1\nRetry-After: 1\n"
               "RateLimit-Policy: \"token_bucket\";q=1;w=1\nRateLimit: \"token_bucket\";r=0;t=1";

        // Fixed window L = 2, W = 5 s. One at 0: 1 left, the count clears at 5 s: Reset 5, t=5.
        const LimiterConfig c2 = LimiterConfig::make(2, sec(5));
        QTest::newRow("fixed_window admitted")
            << text(lastHeaders(Algorithm::FixedWindow, c2, {0}))
            << "X-RateLimit-Limit: 2\nX-RateLimit-Remaining: 1\nX-RateLimit-Reset: 5\n"
               "RateLimit-Policy: \"fixed_window\";q=2;w=5\nRateLimit: \"fixed_window\";r=1;t=5";
        // Two at 0, a third at 2.999999999 s: retry 2.000000001 s -> Retry-After 3; reset the
        // same: Reset ceil(5) = 5, t = ceil(2.000000001) = 3.
        QTest::newRow("fixed_window denied")
            << text(lastHeaders(Algorithm::FixedWindow, c2, {0, 0, sec(3) - 1}))
            << "X-RateLimit-Limit: 2\nX-RateLimit-Remaining: 0\nX-RateLimit-Reset: 5\nRetry-After: 3\n"
               "RateLimit-Policy: \"fixed_window\";q=2;w=5\nRateLimit: \"fixed_window\";r=0;t=3";
        // Cost 3 > L = 2: never admitted, so no Retry-After at all; nothing used: reset 0,
        // Reset ceil(1 + 0) = 1, remaining 2.
        QTest::newRow("never: no Retry-After")
            << text(lastHeaders(Algorithm::FixedWindow, c2, {sec(1)}, 3))
            << "X-RateLimit-Limit: 2\nX-RateLimit-Remaining: 2\nX-RateLimit-Reset: 1\n"
               "RateLimit-Policy: \"fixed_window\";q=2;w=5\nRateLimit: \"fixed_window\";r=2;t=0";

        // Sliding window counter L = 10, W = 10 s, one at 9 s: cur = 1 in window 0. Full quota
        // (a cost-10 request: prev*(W - e) + 9W < 10W, i.e. prev*(W - e) < W) comes in window 1
        // with prev = 1 at e > 0: 10 s + 1 ns, reset 1 s + 1 ns: Reset ceil(10.000000001) = 11, t=2.
        QTest::newRow("sliding_window_counter admitted")
            << text(lastHeaders(Algorithm::SlidingWindowCounter, c10, {sec(9)}))
            << "X-RateLimit-Limit: 10\nX-RateLimit-Remaining: 9\nX-RateLimit-Reset: 11\n"
               "RateLimit-Policy: \"sliding_window_counter\";q=10;w=10\nRateLimit: \"sliding_window_counter\";r=9;t=2";

        // GCRA C = 3 at 3/7 per s: q = 3, w = ceil(3 / (3/7)) = 7. One at 0: TAT = 7/3 s, full
        // again when TAT <= t: reset 2333333334 ns: Reset 3, t=3; 2 left.
        QTest::newRow("gcra, w = ceil(C / r)")
            << text(lastHeaders(Algorithm::Gcra, LimiterConfig::make(3, sec(7)), {0}))
            << "X-RateLimit-Limit: 3\nX-RateLimit-Remaining: 2\nX-RateLimit-Reset: 3\n"
               "RateLimit-Policy: \"gcra\";q=3;w=7\nRateLimit: \"gcra\";r=2;t=3";

        // nginx, burst 9 at 1r/s (quota B + 1 = 10, w = 10): one at 0 leaves excess 0, which is
        // level 1 of the textbook bucket: full again when rate*ms/1000 >= 0 + 1000: 1 s.
        QTest::newRow("nginx_limit_req admitted")
            << text(lastHeaders(Algorithm::NginxLimitReq, c10.withNginx(NginxOptions{std::nullopt, true, 0}), {0}))
            << "X-RateLimit-Limit: 10\nX-RateLimit-Remaining: 9\nX-RateLimit-Reset: 1\n"
               "RateLimit-Policy: \"nginx_limit_req\";q=10;w=10\nRateLimit: \"nginx_limit_req\";r=9;t=1";
    }

    // checks each header's value on admitted and denied requests.
    void headers()
    {
        QFETCH(QString, got);
        QFETCH(QString, want);
        QCOMPARE(got, want);
    }
};

QTEST_APPLESS_MAIN(TestHeaders)
#include "tst_headers.moc"
