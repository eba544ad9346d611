// The server behind the limiter (semantics.md, "The server behind the limiter"): hand tables
// of one worker and its queue, the client's timeout and its retries, the queue timeout; the
// properties that tie the server to the rest (no server is the engine; Little's law on every
// trace) and Erlang C's mean wait for M/M/c.
#include "engine/engine.h"
#include "arithmetic/decimal.h"
#include "arithmetic/det_math.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace ratelab;

namespace {

constexpr Nanos S = kNanosPerSecond;
constexpr Nanos ms = 1'000'000;

ServerConfig server(std::int64_t workers, Nanos service, std::int64_t queue, Nanos queueTimeout = kNoTimeout,
                    Nanos clientTimeout = kNoTimeout)
{
    ServerOptions o;
    o.workers = workers;
    o.service = ServiceTime{ServiceKind::Constant, service, 0};
    o.queue = queue;
    o.queueTimeout = queueTimeout;
    o.clientTimeout = clientTimeout;
    return ServerConfig::make(o);
}

// serverRow runs the server alone (no rate layer) over the arrivals, one client retrying by
// `retry` (none: no clients at all).
RowRun serverRow(const ServerConfig& c, std::vector<Nanos> arrivals, std::optional<ClientOptions> clients = {},
                 std::string gate = {})
{
    EngineSetup setup;
    setup.server = c;
    setup.gate = gate.empty() ? GateSpec() : GateSpec::parse(gate);
    if (clients)
        setup.clients = ClientConfig::make(*clients);
    static std::vector<Nanos> keep;
    keep = std::move(arrivals);
    return runRow(setup, {keep, {}, {}});
}

ClientOptions oneClient(RetryPolicy retry, std::int64_t maxRetries, Nanos retryDelay = 0)
{
    ClientOptions o;
    o.clients = 1;
    o.retry = retry;
    o.maxRetries = maxRetries;
    o.retryDelayNanos = retryDelay;
    return o;
}

} // namespace

class TestServer : public QObject {
    Q_OBJECT
private slots:
    void oneWorkerAndItsQueue();
    void refusedOnArrivalNeverInTheSystem();
    void clientTimeoutRetriesWhileTheServerWorks();
    void queueTimeout();
    void specsAndRefusals();
    void serviceDrawsAreTheAttemptsOwn();
    void deterministicLogAndExp();
    void noServerIsTheEngine();
    void littlesLawOnEveryTrace();
    void erlangCMeanWait();
};

// One worker, 1 s each, a queue of one. Arrivals 0, 0.5, 0.6, 0.7 s:
//   0    starts at once, ends 1                      in time, latency 1
//   0.5  waits (queue 1/1), starts 1, ends 2          in time, latency 1.5
//   0.6  the queue is full: refused at 0.6
//   0.7  refused at 0.7
void TestServer::oneWorkerAndItsQueue()
{
    const RowRun r = serverRow(server(1, S, 1), {0, 500 * ms, 600 * ms, 700 * ms});
    QCOMPARE(r.served.size(), std::size_t(4));
    const Outcome want[] = {Outcome::InTime, Outcome::InTime, Outcome::Refused, Outcome::Refused};
    const Nanos start[] = {0, S, 600 * ms, 700 * ms}, end[] = {S, 2 * S, 600 * ms, 700 * ms};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(r.served[i].outcome, want[i]);
        QCOMPARE(r.served[i].start, start[i]);
        QCOMPARE(r.served[i].end, end[i]);
    }
    QCOMPARE(r.server->inTime, 2);
    QCOMPARE(r.server->refused, 2);
    QCOMPARE(r.server->maxQueue, 1);
    QCOMPARE(r.clients.succeeded, 2);
    QCOMPARE(r.clients.latency.max, 1500 * ms);
    QCOMPARE(r.clients.latency.p50, S); // nearest rank: the 1st of 2
    QCOMPARE(r.metrics.allowed, 4);     // no rate layer: every attempt goes on to the server
}

// max_in_system counts attempts that entered: in service or queued. One worker, 1 s each, no
// queue; two requests at 0: the first is served 0..1, the second is refused at 0 and never
// enters, so at most 1 is in the system (M/M/1/1: K = 1). A queue of one with three at 0: one
// served, one queued, the third refused: at most 2 (K = 2). The refused ones stay in the
// integral for no time: mean_in_system's area is 1 s (one served for 1 s) and 3 s (one for
// 1 s, one for 2 s, waiting and served).
void TestServer::refusedOnArrivalNeverInTheSystem()
{
    const RowRun none = serverRow(server(1, S, 0), {0, 0});
    QCOMPARE(none.served[1].outcome, Outcome::Refused);
    QCOMPARE(none.server->refused, 1);
    QCOMPARE(none.server->maxInSystem, 1);
    QCOMPARE(none.server->areaInSystem, Int128(S));
    const RowRun one = serverRow(server(1, S, 1), {0, 0, 0});
    QCOMPARE(one.served[2].outcome, Outcome::Refused);
    QCOMPARE(one.server->maxQueue, 1);
    QCOMPARE(one.server->maxInSystem, 2);
    QCOMPARE(one.server->areaInSystem, Int128(3 * S));
}

// One worker, 1 s each, a queue of 10, the client waits 1.2 s and retries at once, once.
//   req 0 at 0:   starts 0, ends 1                                      in time
//   req 1 at 0:   queued, starts 1; at 1.2 the client gives up (0 + 1.2) and retries at 1.2
//   req 1 try 1:  at 1.2, queued behind try 0 (serving until 2); starts 2, ends 3
//                 its client gave up at 2.4 = 1.2 + 1.2: no retry left, gave up
//   try 0 of req 1 ends at 2 (late: 1 s wasted), try 1 ends at 3 (late: 1 s wasted)
void TestServer::clientTimeoutRetriesWhileTheServerWorks()
{
    const RowRun r = serverRow(server(1, S, 10, kNoTimeout, 1200 * ms), {0, 0},
                               oneClient(RetryPolicy::Immediate, 1));
    QCOMPARE(r.log.size(), std::size_t(3));
    QCOMPARE(r.log[2].t, 1200 * ms);
    QCOMPARE(int(r.log[2].attempt), 1);
    QCOMPARE(r.served[0].outcome, Outcome::InTime);
    QCOMPARE(r.served[1].outcome, Outcome::Late);
    QCOMPARE(r.served[1].end, 2 * S);
    QCOMPARE(r.served[2].outcome, Outcome::Late);
    QCOMPARE(r.served[2].start, 2 * S);
    QCOMPARE(r.served[2].end, 3 * S);
    QCOMPARE(r.server->wastedNanos, 2 * S);
    QCOMPARE(r.server->busyNanos, 3 * S);
    QCOMPARE(r.clients.succeeded, 1);
    QCOMPARE(r.clients.gaveUp, 1);
    QCOMPARE(r.clients.attempts, 3);
}

// One worker, 1 s each, a queue of 10 with a timeout of 0.5 s, retries after 0.1 s, twice.
//   req 0 at 0:   serves 0..1, in time
//   req 1 at 0.2: waits; leaves the queue at 0.7 (a 503), retried at 0.8
//   try 1 at 0.8: waits; leaves at 1.3? No: the worker frees at 1 and takes it: serves 1..2, in time
//   latency of req 1: 2 - 0.2 = 1.8
void TestServer::queueTimeout()
{
    const RowRun r = serverRow(server(1, S, 10, 500 * ms), {0, 200 * ms},
                               oneClient(RetryPolicy::Immediate, 2, 100 * ms));
    QCOMPARE(r.log.size(), std::size_t(3));
    QCOMPARE(r.served[1].outcome, Outcome::QueueTimeout);
    QCOMPARE(r.served[1].end, 700 * ms);
    QCOMPARE(r.log[2].t, 800 * ms);
    QCOMPARE(r.served[2].outcome, Outcome::InTime);
    QCOMPARE(r.served[2].start, S);
    QCOMPARE(r.clients.latency.max, 1800 * ms);
    QCOMPARE(r.server->queueTimeouts, 1);
}

void TestServer::specsAndRefusals()
{
    const ServerConfig c = ServerConfig::parse("workers=8,service=exp:50ms,queue=100,queue_timeout=1s,timeout=2s");
    QCOMPARE(c.options().workers, 8);
    QCOMPARE(c.options().service.nanos, 50 * ms);
    QCOMPARE(c.options().queueTimeout, S);
    QCOMPARE(c.options().clientTimeout, 2 * S);
    QCOMPARE(ServerConfig::parse(c.text()), c); // text reads back as the same config
    QCOMPARE(ServerConfig::parse("workers=inf").options().workers, 0);
    QCOMPARE(ServerConfig::parse("service=lognormal:20ms:0.5").options().service.sigma, 0.5);
    const auto refused = [](const char* spec) {
        try {
            (void)ServerConfig::parse(spec);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    QCOMPARE(refused("workers=0"), std::string("workers: must be at least 1 (got 0)"));
    QCOMPARE(refused("wokers=3"), std::string("unknown key 'wokers' (known: workers, service, queue, queue_timeout, timeout)"));
    QCOMPARE(refused("service=gauss:1s"), std::string("service: unknown distribution 'gauss' (known: const, exp, lognormal, file)"));
    QCOMPARE(refused("service=lognormal:20ms:3"), std::string("service: lognormal's sigma must be more than 0 and at most 2"));
    QCOMPARE(refused("timeout=0"), std::string("timeout: must be more than 0 s, or none (got '0')"));
    QVERIFY(refused("service=exp:2h").find("at most 3600 s") != std::string::npos);
    // A gate needs a server.
    EngineSetup setup;
    setup.layers = {Layer{}};
    setup.gate = GateSpec::parse("none");
    const std::vector<Nanos> one{0};
    QVERIFY_THROWS_EXCEPTION(InputError, runRow(setup, {one, {}, {}}));
}

// A service time is the attempt's own: the same (seed, request, attempt) draws the same time,
// whatever else happens; the exponential's mean over many draws is near its mean.
void TestServer::serviceDrawsAreTheAttemptsOwn()
{
    const ServiceTime e{ServiceKind::Exponential, 50 * ms, 0};
    // By hand (Python, from server.cpp's rule): h = mix(mix(mix(7 ^ 0x5e7e7) + 3) + (attempt << 24)),
    // mix splitmix64's finaliser with its increment; u = (h >> 11) * 2^-53; ceil(-50 ms * ln(1 - u)).
    // Attempt 1: u = 0.0146720450725..., 739,037.20 ns -> 739,038. Attempt 2: u = 0.2397758772...,
    // 13,707,099.54 ns -> 13,707,100. Neither is near a whole nanosecond, so libm's last bit cannot
    // move them.
    QCOMPARE(serviceNanos(e, 7, 3, 1), Nanos(739'038));
    QCOMPARE(serviceNanos(e, 7, 3, 2), Nanos(13'707'100));
    double sum = 0;
    const int n = 200'000;
    for (int i = 0; i < n; ++i)
        sum += double(serviceNanos(e, 1, i, 0));
    // the sample mean of n exponentials has standard deviation mean / sqrt(n) = 0.11 ms: 5 sigma
    QVERIFY2(std::abs(sum / n - 50e6) < 5 * 50e6 / std::sqrt(double(n)), std::to_string(sum / n).c_str());
    const ServiceTime l{ServiceKind::Lognormal, 20 * ms, 0.5};
    std::vector<Nanos> v;
    for (int i = 0; i < 20'001; ++i)
        v.push_back(serviceNanos(l, 1, i, 0));
    std::nth_element(v.begin(), v.begin() + 10'000, v.end());
    QVERIFY(std::abs(double(v[10'000]) - 20e6) < 0.03 * 20e6); // its median is the median
}

// The draws' log and exp are RateLab's own (the same bits on every machine): within a few ulp of
// libm's over their ranges.
void TestServer::deterministicLogAndExp()
{
    std::mt19937_64 rng(9);
    for (int i = 0; i < 100'000; ++i) {
        const double x = 1.0 - double(rng() >> 11) * 0x1p-53; // (0, 1], as 1 - u
        const double want = std::log(x);
        QVERIFY(std::abs(detmath::log(x) - want) <= 1e-15 * std::max(std::abs(want), 1e-300));
        const double y = (double(rng() >> 11) * 0x1p-53 - 0.5) * 40; // sigma * z within 2 * 9 and more
        QVERIFY(std::abs(detmath::exp(y) - std::exp(y)) <= 1e-15 * std::exp(y));
    }
    QCOMPARE(detmath::log(1.0), 0.0);
    QCOMPARE(detmath::exp(0.0), 1.0);
}

// With unbounded workers, service 0 and no gate, every row decides as without a server
// (seeded scenarios: rate layers, clients that retry).
void TestServer::noServerIsTheEngine()
{
    std::mt19937_64 rng(11);
    for (int round = 0; round < 40; ++round) {
        EngineSetup plain;
        const Algorithm a = Algorithm(rng() % 7);
        plain.layers = {Layer{a, LimiterConfig::make(std::int64_t(1 + rng() % 5), S, std::int64_t(1 + rng() % 5),
                                                      Rate::reduced(std::int64_t(1 + rng() % 4), S))}};
        ClientOptions co;
        co.clients = std::int64_t(1 + rng() % 4);
        co.retry = RetryPolicy(rng() % 5);
        co.retryDelayNanos = std::int64_t(rng() % 300) * ms;
        plain.clients = ClientConfig::make(co);
        std::vector<Nanos> arrivals;
        Nanos t = 0;
        for (int i = 0; i < 60; ++i)
            arrivals.push_back(t += std::int64_t(rng() % 200) * ms);
        EngineSetup served = plain;
        ServerOptions o;
        o.workers = 0;
        o.service = ServiceTime{ServiceKind::Constant, 0, 0};
        served.server = ServerConfig::make(o);
        served.gate = GateSpec::parse("none");
        const RowRun x = runRow(plain, {arrivals, {}, {}}), y = runRow(served, {arrivals, {}, {}});
        QCOMPARE(y.log.size(), x.log.size());
        for (std::size_t i = 0; i < x.log.size(); ++i) {
            QCOMPARE(y.log[i].t, x.log[i].t);
            QCOMPARE(y.log[i].allowed, x.log[i].allowed);
            QCOMPARE(y.log[i].request, x.log[i].request);
        }
        QCOMPARE(y.clients.succeeded, x.clients.succeeded);
        QCOMPARE(y.clients.gaveUp, x.clients.gaveUp);
        QCOMPARE(y.server->inTime, x.metrics.allowed);
    }
}

// Little's law, exactly: the time integral of the number in the system (swept here from the
// trace's own arrivals and departures) equals the sum of the times in the system, and the
// server's running integral agrees.
void TestServer::littlesLawOnEveryTrace()
{
    std::mt19937_64 rng(5);
    for (int round = 0; round < 30; ++round) {
        ServerOptions o;
        o.workers = std::int64_t(1 + rng() % 4);
        o.service = ServiceTime{ServiceKind::Exponential, std::int64_t(50 + rng() % 200) * ms, 0};
        o.queue = std::int64_t(rng() % 6);
        o.queueTimeout = rng() % 2 ? kNoTimeout : std::int64_t(100 + rng() % 500) * ms;
        o.clientTimeout = rng() % 2 ? kNoTimeout : std::int64_t(100 + rng() % 900) * ms;
        std::vector<Nanos> arrivals;
        Nanos t = 0;
        for (int i = 0; i < 300; ++i)
            arrivals.push_back(t += std::int64_t(rng() % 150) * ms);
        const RowRun r = serverRow(ServerConfig::make(o), arrivals, oneClient(RetryPolicy::Immediate, 2, 50 * ms));
        std::vector<std::pair<Nanos, int>> steps;
        Int128 sum = 0;
        for (const ServedAttempt& a : r.served) {
            QVERIFY(a.outcome != Outcome::NotAdmitted);
            QVERIFY(a.arrived <= a.start && a.start <= a.end);
            sum += a.end - a.arrived;
            steps.push_back({a.arrived, +1});
            steps.push_back({a.end, -1});
        }
        std::sort(steps.begin(), steps.end());
        Int128 area = 0;
        std::int64_t n = 0;
        Nanos at = 0;
        for (const auto& [when, d] : steps) {
            area += Int128(n) * (when - at);
            at = when;
            n += d;
        }
        QCOMPARE(n, std::int64_t(0));
        QVERIFY(area == sum);
        QVERIFY(r.server->areaInSystem == sum);
    }
}

// M/M/c: Poisson arrivals at rate lambda, exponential service of rate mu, c workers, an
// unbounded queue. Erlang C: P(wait) = (a^c / c!) / ((1 - rho) sum_{k<c} a^k / k! + a^c / c!),
// a = lambda / mu, rho = a / c; the mean wait Wq = P(wait) / (c mu - lambda). c = 4,
// lambda = 60/s, mu = 20/s: a = 3, rho = 0.75, a^c/c! = 81/24 = 3.375,
// sum_{k<4} 3^k/k! = 1 + 3 + 4.5 + 4.5 = 13, P = 3.375 / (0.25 * 13 + 3.375) = 0.50943,
// Wq = 0.50943 / (80 - 60) = 25.47 ms.
void TestServer::erlangCMeanWait()
{
    ServerOptions o;
    o.workers = 4;
    o.service = ServiceTime{ServiceKind::Exponential, 50 * ms, 0};
    o.queue = ServerConfig::kMaxQueue;
    std::mt19937_64 rng(3);
    std::exponential_distribution<double> gap(60.0);
    std::vector<Nanos> arrivals;
    double t = 0;
    for (int i = 0; i < 400'000; ++i)
        arrivals.push_back(Nanos(std::llround((t += gap(rng)) * 1e9)));
    const RowRun r = serverRow(ServerConfig::make(o), arrivals);
    double wait = 0;
    for (const ServedAttempt& a : r.served)
        wait += double(a.start - a.arrived);
    const double mean = wait / double(r.served.size()) / 1e9;
    // 400,000 customers of a queue this busy: batch means put the standard error near 0.4 ms.
    QVERIFY2(std::abs(mean - 0.025472) < 0.0025, std::to_string(mean).c_str());
}

QTEST_APPLESS_MAIN(TestServer)
#include "tst_server.moc"
