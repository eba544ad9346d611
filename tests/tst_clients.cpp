// Clients that react (semantics.md, "Clients that react"): tables per retry policy derived by
// hand, the order of simultaneous attempts, keys, the attempts cap, and seeded properties.
//
// Each property is checked for RATELAB_PROPERTY_SEEDS seeds (default 200); a failure prints the
// seed. Streams come from std::mt19937_64 and integer transforms, the same on every platform.
#include "engine/clients.h"
#include "engine_helpers.h"
#include "arithmetic/decimal.h"

#include <QTest>

#include <random>

using namespace ratelab;
using ratelab::test::Attempt;
using ratelab::test::ClientTrace;
using ratelab::test::simulateClients;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;
constexpr Nanos ms(std::int64_t n) { return n * kMilli; }
constexpr Nanos sec(std::int64_t n) { return n * kSecond; }


ClientConfig clientsOf(RetryPolicy retry, std::int64_t maxRetries, std::int64_t k = 1, KeyMode key = KeyMode::Client)
{
    ClientOptions o;
    o.clients = k;
    o.key = key;
    o.retry = retry;
    o.maxRetries = maxRetries;
    return ClientConfig::make(o);
}

// Row is one expected attempt: request, attempt number, time, admitted, retry_after.
struct Row {
    std::int64_t request;
    std::int32_t attempt;
    Nanos t;
    bool allowed;
    Nanos retryAfter;
};

// sequenceProblem compares the attempts in decision order to the table.
QString sequenceProblem(const ClientTrace& r, const std::vector<Row>& rows)
{
    if (r.attempts.size() != rows.size())
        return QStringLiteral("%1 attempts, expected %2").arg(r.attempts.size()).arg(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Attempt& a = r.attempts[i];
        const Row& w = rows[i];
        if (a.request != w.request || a.attempt != w.attempt || a.t != w.t || a.decision.allowed != w.allowed
            || a.decision.retryAfter != w.retryAfter)
            return QStringLiteral("attempt %1: request %2 #%3 at %4 ns %5 retry_after %6; expected request %7 #%8 at "
                                  "%9 ns %10 retry_after %11")
                .arg(i).arg(a.request).arg(a.attempt).arg(a.t).arg(a.decision.allowed ? "admitted" : "denied")
                .arg(a.decision.retryAfter).arg(w.request).arg(w.attempt).arg(w.t)
                .arg(w.allowed ? "admitted" : "denied").arg(w.retryAfter);
    }
    return {};
}

#define CHECK_SEQUENCE(trace, rows)                                                                                   \
    do {                                                                                                              \
        const QString problem_ = sequenceProblem(trace, rows);                                                        \
        QVERIFY2(problem_.isEmpty(), qPrintable(problem_));                                                           \
    } while (false)

} // namespace

class TestClients : public QObject {
    Q_OBJECT
private slots:
    void configIsValidated()
    {
        ClientOptions o;
        QCOMPARE(ClientConfig::make(o).keys(), std::int64_t(1));
        o.clients = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
        o.clients = ClientConfig::kMaxClients + 1;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
        o.clients = ClientConfig::kMaxClients;
        QCOMPARE(ClientConfig::make(o).keys(), ClientConfig::kMaxClients);
        o.key = KeyMode::Global;
        QCOMPARE(ClientConfig::make(o).keys(), std::int64_t(1));
        o = ClientOptions{};
        o.retryDelayNanos = -1;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
        o = ClientOptions{};
        o.maxRetries = 101;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
        o.maxRetries = -1;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
        o.maxRetries = 100;
        QCOMPARE(ClientConfig::make(o).options().maxRetries, std::int64_t(100));
        o = ClientOptions{};
        o.backoffBaseNanos = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
        o = ClientOptions{};
        o.backoffCapNanos = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
        try {
            o = ClientOptions{};
            o.clients = 0;
            ClientConfig::make(o);
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("clients must be at least 1 (got 0)"));
        }
    }

    void ids()
    {
        for (RetryPolicy p : kAllRetryPolicies)
            QCOMPARE(retryPolicyFromId(retryPolicyId(p)), std::optional<RetryPolicy>(p));
        QCOMPARE(retryPolicyId(RetryPolicy::RetryAfterHeader), std::string_view("retry_after_header"));
        QCOMPARE(retryPolicyFromId("sometimes"), std::optional<RetryPolicy>());
        QCOMPARE(keyModeFromId("global"), std::optional<KeyMode>(KeyMode::Global));
        QCOMPARE(keyModeFromId("client"), std::optional<KeyMode>(KeyMode::Client));
        QCOMPARE(keyModeFromId("user"), std::optional<KeyMode>());
    }

    // Token bucket C = 1, r = 1/s (L = 1, W = 1 s), one client honouring retry_after, and no
    // arrival between a denial and its retry: each denied request is admitted on its first retry.
    //   0     req 0: 1 token -> admitted, 0 left
    //   0.25  req 1: 0.25 tokens -> denied, retry_after (1 - 0.25) / 1 = 0.75 s -> retry at 1.0
    //   1.0   req 1 #1: 0.25 + 0.75 = 1 token exactly -> admitted
    //   2.0   req 2: refilled to 1 (capped) -> admitted
    //   2.5   req 3: 0.5 -> denied, retry_after 0.5 s -> retry at 3.0
    //   3.0   req 3 #1: 1 token -> admitted
    // Latencies 0, 0.75, 0, 0.5 s: sorted 0, 0, 0.5, 0.75. Mean 1.25 / 4 = 0.3125 s. Nearest rank:
    // p50 the ceil(0.5 * 4) = 2nd = 0, p99 the ceil(0.99 * 4) = 4th = 0.75 s, max 0.75 s.
    void retryAfterAdmitsOnTheFirstRetry()
    {
        const ClientTrace r = simulateClients(LimiterConfig::make(1, kSecond), clientsOf(RetryPolicy::RetryAfter, 1),
                                              Algorithm::TokenBucket, std::vector<Nanos>{0, ms(250), sec(2), ms(2500)});
        CHECK_SEQUENCE(r, (std::vector<Row>{{0, 0, 0, true, 0}, {1, 0, ms(250), false, ms(750)},
                                            {1, 1, sec(1), true, 0}, {2, 0, sec(2), true, 0},
                                            {3, 0, ms(2500), false, ms(500)}, {3, 1, sec(3), true, 0}}));
        QCOMPARE(r.clients.requests, std::int64_t(4));
        QCOMPARE(r.clients.attempts, std::int64_t(6));
        QCOMPARE(r.clients.succeeded, std::int64_t(4));
        QCOMPARE(r.clients.gaveUp, std::int64_t(0));
        QCOMPARE(r.clients.amplification, 1.5);
        QCOMPARE(r.clients.latency.mean, ms(312) + 500'000);
        QCOMPARE(r.clients.latency.p50, Nanos(0));
        QCOMPARE(r.clients.latency.p99, ms(750));
        QCOMPARE(r.clients.latency.max, ms(750));
        QCOMPARE(r.metrics.allowed, std::int64_t(4));
        QCOMPARE(r.metrics.denied, std::int64_t(2));
    }

    // The same ideal client in a burst: retry_after is right for one request, so retries of a
    // burst all land on the same instant. Defaults C = 10, r = 1/s, 15 requests 0.1 s apart:
    // 0 .. 1.0 s admitted (the 11th finds exactly one token at 1.0 s, then 0). At 1.1, 1.2, 1.3,
    // 1.4 s the bucket holds 0.1 .. 0.4 tokens: denied with retry_after 0.9, 0.8, 0.7, 0.6 s, so
    // all four retry at 2.0 s, in the order of their denials. At 2.0 s exactly 1 token: request
    // 11 is admitted (latency 0.9 s); 12, 13, 14 are denied (retry_after 1 - 0 = 1 s) and, with
    // max_retries 1, give up.
    void retryAfterBurstLandsOnOneInstant()
    {
        std::vector<Nanos> arrivals;
        for (int i = 0; i < 15; ++i)
            arrivals.push_back(i * ms(100));
        const ClientTrace r = simulateClients(LimiterConfig{}, clientsOf(RetryPolicy::RetryAfter, 1),
                                              Algorithm::TokenBucket, arrivals);
        std::vector<Row> rows;
        for (int i = 0; i <= 10; ++i)
            rows.push_back({i, 0, i * ms(100), true, 0});
        for (int i = 11; i <= 14; ++i)
            rows.push_back({i, 0, i * ms(100), false, sec(2) - i * ms(100)});
        rows.push_back({11, 1, sec(2), true, 0});
        for (int i = 12; i <= 14; ++i)
            rows.push_back({i, 1, sec(2), false, sec(1)});
        CHECK_SEQUENCE(r, rows);
        QCOMPARE(r.clients.attempts, std::int64_t(19));
        QCOMPARE(r.clients.succeeded, std::int64_t(12));
        QCOMPARE(r.clients.gaveUp, std::int64_t(3));
        QCOMPARE(r.clients.latency.max, ms(900));
    }

    // Fixed window L = 2, W = 1 s, three requests at 0: the third is denied (count 2 = L) and
    // retried every 0.3 s. Every retry inside [0, 1) finds the window full (retry_after = the
    // time to the boundary: 1, 0.7, 0.4, 0.1 s); the first one at or after 1 s is admitted.
    //   max_retries 5: retries at 0.3, 0.6, 0.9 denied, 1.2 admitted (new window), 7 attempts.
    //   max_retries 3: the last retry is the one at 0.9, denied: it gives up, 6 attempts.
    // Latencies (5): 0, 0, 1.2: mean 0.4 s, p50 the 2nd = 0, p99 the ceil(2.97) = 3rd = 1.2 s.
    void immediateRetriesAtAFullFixedWindow()
    {
        const LimiterConfig c = LimiterConfig::make(2, kSecond);
        const std::vector<Nanos> arrivals{0, 0, 0};
        ClientOptions o;
        o.retry = RetryPolicy::Immediate;
        o.retryDelayNanos = ms(300);
        o.maxRetries = 5;
        const ClientTrace r = simulateClients(c, ClientConfig::make(o), Algorithm::FixedWindow, arrivals);
        const std::vector<Row> denials{{0, 0, 0, true, 0}, {1, 0, 0, true, 0}, {2, 0, 0, false, sec(1)},
                                       {2, 1, ms(300), false, ms(700)}, {2, 2, ms(600), false, ms(400)},
                                       {2, 3, ms(900), false, ms(100)}};
        std::vector<Row> rows = denials;
        rows.push_back({2, 4, ms(1200), true, 0});
        CHECK_SEQUENCE(r, rows);
        QCOMPARE(r.clients.gaveUp, std::int64_t(0));
        QCOMPARE(r.clients.amplification, 7.0 / 3.0);
        QCOMPARE(r.clients.latency.mean, ms(400));
        QCOMPARE(r.clients.latency.p50, Nanos(0));
        QCOMPARE(r.clients.latency.p99, ms(1200));
        // Admitted at 0, 0, 1.2: (-1, 0] holds 2, (0.2, 1.2] holds 1.
        QCOMPARE(r.metrics.maxInWindow, std::int64_t(2));
        QCOMPARE(r.metrics.overshoot, 1.0);

        o.maxRetries = 3;
        const ClientTrace three = simulateClients(c, ClientConfig::make(o), Algorithm::FixedWindow, arrivals);
        CHECK_SEQUENCE(three, denials);
        QCOMPARE(three.clients.gaveUp, std::int64_t(1));
        QCOMPARE(three.clients.succeeded, std::int64_t(2));
    }

    // The tight loop: a retry delay of 0 retries at the same instant, so all 100 retries of the
    // third request fall inside the full window: 2 + 101 attempts, one gives up.
    void tightLoopAtOneInstant()
    {
        ClientOptions o;
        o.retry = RetryPolicy::Immediate;
        o.retryDelayNanos = 0;
        o.maxRetries = 100;
        const ClientTrace r = simulateClients(LimiterConfig::make(2, kSecond), ClientConfig::make(o),
                                              Algorithm::FixedWindow, std::vector<Nanos>{0, 0, 0});
        QCOMPARE(r.clients.attempts, std::int64_t(103));
        QCOMPARE(r.clients.gaveUp, std::int64_t(1));
        QCOMPARE(r.attempts.back().attempt, 100);
        QCOMPARE(r.attempts.back().t, Nanos(0));
    }

    void retryAfterHeaderRounding()
    {
        const ClientConfig header = clientsOf(RetryPolicy::RetryAfterHeader, 1);
        const auto delayFor = [&](Nanos retryAfter) {
            Decision d;
            d.retryAfter = retryAfter;
            return retryDelay(header.policyOf(0), d);
        };
        QCOMPARE(delayFor(ms(300)), std::optional<Nanos>(sec(1))); // 0.3 s waits 1 s
        QCOMPARE(delayFor(sec(2)), std::optional<Nanos>(sec(2)));  // 2 s exactly waits 2 s
        QCOMPARE(delayFor(sec(2) + 1), std::optional<Nanos>(sec(3)));
        QCOMPARE(delayFor(1), std::optional<Nanos>(sec(1)));

        // Token bucket C = 1, r = 1/s: request 1 at 0.7 s finds 0.7 tokens, retry_after 0.3 s,
        // and waits ceil(0.3) = 1 s: admitted at 1.7 s, 0.7 s later than the ideal client.
        const std::vector<Nanos> a{0, ms(700)};
        const LimiterConfig one = LimiterConfig::make(1, kSecond);
        const ClientTrace r = simulateClients(one, header, Algorithm::TokenBucket, a);
        CHECK_SEQUENCE(r, (std::vector<Row>{{0, 0, 0, true, 0}, {1, 0, ms(700), false, ms(300)},
                                            {1, 1, ms(1700), true, 0}}));
        QCOMPARE(r.clients.latency.max, sec(1));
        const ClientTrace ideal = simulateClients(one, clientsOf(RetryPolicy::RetryAfter, 1), Algorithm::TokenBucket, a);
        QCOMPARE(ideal.clients.latency.max, ms(300));

        // Fixed window L = 1, W = 2 s, two requests at 0: retry_after exactly 2 s, retried at 2 s,
        // the next window: admitted.
        const ClientTrace w = simulateClients(LimiterConfig::make(1, sec(2)), header, Algorithm::FixedWindow,
                                              std::vector<Nanos>{0, 0});
        CHECK_SEQUENCE(w, (std::vector<Row>{{0, 0, 0, true, 0}, {1, 0, 0, false, sec(2)}, {1, 1, sec(2), true, 0}}));
    }

    void backoffDelayFormula()
    {
        constexpr std::uint64_t kHalf = std::uint64_t(1) << 52; // u = 0.5 exactly
        constexpr std::uint64_t kTop = (std::uint64_t(1) << 53) - 1;
        QCOMPARE(backoffDelay(sec(1), sec(10), 0, 0), Nanos(0));
        QCOMPARE(backoffDelay(sec(1), sec(10), 0, kHalf), ms(500));
        QCOMPARE(backoffDelay(sec(1), sec(10), 2, kHalf), sec(2));      // 0.5 * 4 s
        QCOMPARE(backoffDelay(sec(1), sec(10), 4, kHalf), sec(5));      // 0.5 * min(10, 16) s
        QCOMPARE(backoffDelay(sec(1), sec(10), 99, kHalf), sec(5));     // 2^99 does not overflow
        QCOMPARE(backoffDelay(sec(1), sec(10), 62, kHalf), sec(5));
        QCOMPARE(backoffDelay(3, sec(10), 0, kHalf), Nanos(2));         // 1.5 ns rounds up
        QCOMPARE(backoffDelay(sec(1), sec(10), 0, kTop), sec(1));       // 1 s - 1.1e-7 ns rounds up to 1 s
    }

    // Backoff, base 1 s, cap 4 s, seed 42, at a fixed window that stays full (L = 1, W = 100 s):
    // request 1 is denied at 0 and at each retry. Client 0's draws are jitterDraw(42, 0, k):
    // splitmix64(splitmix64(42 ^ splitmix64(0)) + k) >> 11, computed outside RateLab (a Python
    // splitmix64); the delays by hand with exact integers: ceil(k * min(cap, base * 2^a) / 2^53) ns.
    //   a 0: k 6348411512978845 (u 0.7048), min(4, 1) = 1 s -> 704815264 ns, at 0.704815264
    //   a 1: k 1668433222368526 (u 0.1852), 2 s -> 370466596 ns, at 1.075281860
    //   a 2: k 6665746307396230 (u 0.7400), 4 s -> 2960186011 ns, at 4.035467871
    //   a 3: k 6942979191313165 (u 0.7708), min(4, 8) = 4 s -> 3083302144 ns, at 7.118770015
    void backoffWithAFixedSeed()
    {
        QCOMPARE(jitterDraw(42, 0, 0), std::uint64_t(6348411512978845));
        QCOMPARE(jitterDraw(42, 0, 1), std::uint64_t(1668433222368526));
        QCOMPARE(jitterDraw(42, 0, 2), std::uint64_t(6665746307396230));
        QCOMPARE(jitterDraw(42, 0, 3), std::uint64_t(6942979191313165));

        ClientOptions o;
        o.retry = RetryPolicy::Backoff;
        o.maxRetries = 4;
        o.backoffBaseNanos = sec(1);
        o.backoffCapNanos = sec(4);
        o.seed = 42;
        const ClientTrace r = simulateClients(LimiterConfig::make(1, sec(100)), ClientConfig::make(o),
                                              Algorithm::FixedWindow, std::vector<Nanos>{0, 0});
        const Nanos t1 = 704815264, t2 = 1075281860, t3 = 4035467871, t4 = 7118770015;
        CHECK_SEQUENCE(r, (std::vector<Row>{{0, 0, 0, true, 0}, {1, 0, 0, false, sec(100)},
                                            {1, 1, t1, false, sec(100) - t1}, {1, 2, t2, false, sec(100) - t2},
                                            {1, 3, t3, false, sec(100) - t3}, {1, 4, t4, false, sec(100) - t4}}));
        QCOMPARE(r.clients.gaveUp, std::int64_t(1));
        // Reproducible: the same seed, the same attempts.
        const ClientTrace again = simulateClients(LimiterConfig::make(1, sec(100)), ClientConfig::make(o),
                                                  Algorithm::FixedWindow, std::vector<Nanos>{0, 0});
        CHECK_SEQUENCE(again, (std::vector<Row>{{0, 0, 0, true, 0}, {1, 0, 0, false, sec(100)},
                                                {1, 1, t1, false, sec(100) - t1}, {1, 2, t2, false, sec(100) - t2},
                                                {1, 3, t3, false, sec(100) - t3}, {1, 4, t4, false, sec(100) - t4}}));
    }

    // At one instant, first attempts go before retries, and retries go in the order of the
    // denials that made them.
    void simultaneousAttempts()
    {
        // Token bucket C = 1, r = 1/s, retry_after, max_retries 2: request 1 at 0.5 s is denied
        // (retry_after 0.5) and retries at 1.0 s, when request 2 arrives. Request 2 was created
        // first: it takes the one token; the retry is denied (retry_after 1 s) and retries at 2.0.
        const ClientTrace r = simulateClients(LimiterConfig::make(1, kSecond), clientsOf(RetryPolicy::RetryAfter, 2),
                                              Algorithm::TokenBucket, std::vector<Nanos>{0, ms(500), sec(1)});
        CHECK_SEQUENCE(r, (std::vector<Row>{{0, 0, 0, true, 0}, {1, 0, ms(500), false, ms(500)},
                                            {2, 0, sec(1), true, 0}, {1, 1, sec(1), false, sec(1)},
                                            {1, 2, sec(2), true, 0}}));

        // Fixed window L = 1, W = 1 s: requests 1 (0.2 s) and 2 (0.4 s) are denied with
        // retry_after 0.8 and 0.6 s: both retry at 1.0 s. Request 1 was denied first, so its retry
        // is decided first and admitted; request 2's is denied and (max_retries 1) gives up.
        const ClientTrace f = simulateClients(LimiterConfig::make(1, kSecond), clientsOf(RetryPolicy::RetryAfter, 1),
                                              Algorithm::FixedWindow, std::vector<Nanos>{0, ms(200), ms(400)});
        CHECK_SEQUENCE(f, (std::vector<Row>{{0, 0, 0, true, 0}, {1, 0, ms(200), false, ms(800)},
                                            {2, 0, ms(400), false, ms(600)}, {1, 1, sec(1), true, 0},
                                            {2, 1, sec(1), false, sec(1)}}));
        QCOMPARE(f.clients.gaveUp, std::int64_t(1));
    }

    // Two clients round robin (0, 1, 0, 1) at a fixed window L = 1: per-client keys admit one
    // request per client, a global key one in all. Memory: 16 bytes a fixed-window key.
    void keysPerClientAndGlobal()
    {
        const std::vector<Nanos> a{0, 0, 0, 0};
        const LimiterConfig c = LimiterConfig::make(1, kSecond);
        const ClientTrace per = simulateClients(c, clientsOf(RetryPolicy::None, 0, 2), Algorithm::FixedWindow, a);
        QCOMPARE(per.metrics.allowed, std::int64_t(2));
        QCOMPARE(per.attempts[1].client, std::int64_t(1));
        QCOMPARE(per.attempts[2].client, std::int64_t(0));
        QVERIFY(per.attempts[1].decision.allowed);
        QVERIFY(!per.attempts[2].decision.allowed);
        QCOMPARE(per.clients.keysUsed, std::int64_t(2));
        QCOMPARE(per.clients.total.bytes, std::int64_t(32));
        QCOMPARE(per.clients.perKeyMax.bytes, std::int64_t(16));
        const ClientTrace global =
            simulateClients(c, clientsOf(RetryPolicy::None, 0, 2, KeyMode::Global), Algorithm::FixedWindow, a);
        QCOMPARE(global.metrics.allowed, std::int64_t(1));
        QCOMPARE(global.clients.keysUsed, std::int64_t(1));
        QCOMPARE(global.clients.total.bytes, std::int64_t(16));

        // Named clients: 3 clients, requests of clients 2, 2, 0 at 0: the second of client 2 is
        // denied, client 0's admitted. Client 1 sent nothing and holds no state.
        const std::vector<std::int64_t> named{2, 2, 0};
        const ClientTrace n = simulateClients(LimiterConfig::make(1, kSecond), clientsOf(RetryPolicy::None, 0, 3),
                                              Algorithm::SlidingWindowLog, std::vector<Nanos>{0, 0, 0}, named);
        QCOMPARE(n.attempts[0].client, std::int64_t(2));
        QVERIFY(!n.attempts[1].decision.allowed);
        QVERIFY(n.attempts[2].decision.allowed);
        QCOMPARE(n.clients.keysUsed, std::int64_t(2));
        QCOMPARE(n.clients.total.entries, std::int64_t(2)); // one timestamp each
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 simulateClients(LimiterConfig{}, clientsOf(RetryPolicy::None, 0, 2),
                                                 Algorithm::FixedWindow, std::vector<Nanos>{0}, std::vector<std::int64_t>{2}));
    }

    void emptyArrivals()
    {
        const ClientTrace r = simulateClients(LimiterConfig{}, clientsOf(RetryPolicy::Immediate, 3),
                                              Algorithm::TokenBucket, std::vector<Nanos>{});
        QCOMPARE(r.clients.attempts, std::int64_t(0));
        QCOMPARE(r.clients.amplification, 0.0);
        QCOMPARE(r.clients.latency.max, Nanos(0));
        QCOMPARE(r.metrics.memory.bytes, simulateOne(LimiterConfig{}, Algorithm::TokenBucket, {}).metrics.memory.bytes);
    }

    // 50,000 requests at 0 at a fixed window L = 1 that stays shut, each retried up to 100 times
    // at once: 1 + 49,999 * 101 = 5,049,900 attempts, more than the cap of 5,000,000.
    void attemptsAreCapped()
    {
        ClientOptions o;
        o.retry = RetryPolicy::Immediate;
        o.maxRetries = 100;
        const std::vector<Nanos> arrivals(50'000, 0);
        try {
            simulateClients(LimiterConfig::make(1, sec(1000)), ClientConfig::make(o), Algorithm::FixedWindow, arrivals);
            QFAIL("no error for 5,049,900 attempts");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("5000000 attempts"), e.what());
        }
        // 49,000 requests: 1 + 48,999 * 101 = 4,948,900 attempts, under the cap.
        const ClientTrace r = simulateClients(LimiterConfig::make(1, sec(1000)), ClientConfig::make(o),
                                              Algorithm::FixedWindow, std::vector<Nanos>(49'000, 0));
        QCOMPARE(r.clients.attempts, std::int64_t(4'948'900));
    }

    void memoryModel()
    {
        const LimiterConfig c = LimiterConfig::make(1000, sec(60));
        // The log holds up to L = 1000 timestamps of 8 bytes; 10,000 keys: 80,000,000 bytes.
        QCOMPARE(worstCaseMemory(Algorithm::SlidingWindowLog, c).bytes, std::int64_t(8000));
        QCOMPARE(memoryAtScale(Algorithm::SlidingWindowLog, c, 10'000).entries, std::int64_t(10'000'000));
        QCOMPARE(memoryAtScale(Algorithm::SlidingWindowLog, c, 10'000).bytes, std::int64_t(80'000'000));
        // The others: their fixed fields (fixed 2, counter 3, buckets 2, gcra 1), 8 bytes each.
        QCOMPARE(memoryAtScale(Algorithm::FixedWindow, c, 10'000).bytes, std::int64_t(160'000));
        QCOMPARE(memoryAtScale(Algorithm::SlidingWindowCounter, c, 10'000).bytes, std::int64_t(240'000));
        QCOMPARE(memoryAtScale(Algorithm::TokenBucket, c, 10'000).bytes, std::int64_t(160'000));
        QCOMPARE(memoryAtScale(Algorithm::LeakyBucketQueue, c, 10'000).bytes, std::int64_t(160'000));
        QCOMPARE(memoryAtScale(Algorithm::Gcra, c, 10'000).bytes, std::int64_t(80'000));
        // The same model the simulation reports: a log filled to L holds worstCaseMemory.
        const LimiterConfig small = LimiterConfig::make(5, sec(1));
        const ClientTrace full =
            simulateClients(small, ClientConfig{}, Algorithm::SlidingWindowLog, std::vector<Nanos>(9, 0));
        QCOMPARE(full.metrics.memory.bytes, worstCaseMemory(Algorithm::SlidingWindowLog, small).bytes);
        QCOMPARE(full.metrics.memory.entries, worstCaseMemory(Algorithm::SlidingWindowLog, small).entries);
    }
};

QTEST_APPLESS_MAIN(TestClients)
#include "tst_clients.moc"
