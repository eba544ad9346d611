// Client throttles in the engine (EngineSetup::throttle, throttled_arrivals.h): a
// request's first attempt is submitted to its client's throttle at its arrival, decided when the
// throttle starts it, and done when the client learns its fate (a denial at once, a server's
// response, or without a server the end of its delay). Hand tables, derived in the comments
// from the packages' rules (tst_client_throttles holds those alone), and the properties that an
// open throttle and no throttle are the engine as it was.
#include "engine/engine.h"

#include <QtTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos S = kNanosPerSecond;
constexpr Nanos ms = 1'000'000;

// kBeforeThrottles is noThrottleIsTheEngineAsItWas's digest as the engine of commit 12e7973
// (before EngineSetup::throttle) computes it: its engine.{h,cpp} compiled beside this file's
// seeded() and digest() and linked with the rest of core; recomputed so when the service draws
// became RateLab's own log and exp (det_math.h: commit 12e7973 with that server.cpp).
constexpr std::uint64_t kBeforeThrottles = 1335783256627252608ull;

ServerConfig oneWorker(Nanos service)
{
    ServerOptions o;
    o.workers = 1;
    o.service = ServiceTime{ServiceKind::Constant, service, 0};
    o.queue = 100;
    return ServerConfig::make(o);
}

ClientConfig oneClient(RetryPolicy retry, std::int64_t maxRetries, Nanos delay = 0)
{
    ClientOptions o;
    o.clients = 1;
    o.retry = retry;
    o.maxRetries = maxRetries;
    o.retryDelayNanos = delay;
    return ClientConfig::make(o);
}

Layer fixedWindow(std::int64_t limit, Nanos window) { return Layer{Algorithm::FixedWindow, LimiterConfig::make(limit, window)}; }

struct Want { // an expected logged attempt
    std::int32_t request, attempt;
    Nanos t;
    bool allowed;
};

void compareLog(const RowRun& got, const std::vector<Want>& want)
{
    QCOMPARE(got.log.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const LoggedAttempt& a = got.log[i];
        const QByteArray where = "attempt " + QByteArray::number(qulonglong(i));
        QVERIFY2(a.request == want[i].request, where);
        QVERIFY2(a.attempt == want[i].attempt, where);
        QVERIFY2(a.t == want[i].t, where + " t " + QByteArray::number(qlonglong(a.t)));
        QVERIFY2(bool(a.allowed) == want[i].allowed, where);
    }
}

// digest folds everything a row reports per attempt and per client into one number (FNV-1a).
std::uint64_t digest(const RowRun& r)
{
    std::uint64_t h = 1469598103934665603ull;
    const auto add = [&](std::int64_t v) {
        for (int b = 0; b < 8; ++b) {
            h ^= std::uint64_t(v >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    };
    for (const LoggedAttempt& a : r.log)
        for (std::int64_t v : {a.t, a.wait, std::int64_t(a.request), std::int64_t(a.attempt), std::int64_t(a.allowed),
                               std::int64_t(a.node), std::int64_t(a.remaining)})
            add(v);
    for (const ServedAttempt& s : r.served)
        for (std::int64_t v : {s.arrived, s.start, s.end, std::int64_t(s.outcome)})
            add(v);
    const ClientStats& c = r.clients;
    for (std::int64_t v : {c.requests, c.attempts, c.succeeded, c.gaveUp, c.latency.mean, c.latency.p50, c.latency.p99,
                           c.latency.max, r.metrics.allowed, r.metrics.denied})
        add(v);
    return h;
}

// seeded returns round's row: 1..3 clients retrying by a drawn policy, a fixed window or token
// bucket, and in every other round a server of 1..3 workers with a client timeout.
std::pair<EngineSetup, std::vector<Nanos>> seeded(std::uint64_t round)
{
    std::mt19937_64 rng(round);
    EngineSetup s;
    s.seed = round;
    const Algorithm a = rng() % 2 ? Algorithm::FixedWindow : Algorithm::TokenBucket;
    s.layers = {Layer{a, LimiterConfig::make(std::int64_t(1 + rng() % 5), S)}};
    ClientOptions co;
    co.clients = std::int64_t(1 + rng() % 3);
    co.retry = RetryPolicy(rng() % 5);
    co.maxRetries = std::int64_t(rng() % 4);
    co.retryDelayNanos = std::int64_t(rng() % 300) * ms;
    s.clients = ClientConfig::make(co);
    if (round % 2) {
        ServerOptions o;
        o.workers = std::int64_t(1 + rng() % 3);
        o.service = ServiceTime{ServiceKind::Exponential, std::int64_t(20 + rng() % 200) * ms, 0};
        o.queue = std::int64_t(rng() % 5);
        o.clientTimeout = std::int64_t(100 + rng() % 500) * ms;
        s.server = ServerConfig::make(o);
    }
    std::vector<Nanos> arrivals;
    Nanos t = 0;
    for (int i = 0; i < 80; ++i)
        arrivals.push_back(t += std::int64_t(rng() % 150) * ms);
    return {s, arrivals};
}

} // namespace

class TestEngineThrottle : public QObject {
    Q_OBJECT
private slots:
    void oneAtATimeBeforeOneWorker();
    void aDenialIsDoneAtOnce();
    void doneWhenTheClientGivesUp();
    void eachClientHasItsOwn();
    void minTimeSpacing();
    void aClientThatNeverSeesA429();
    void retriesBypassTheThrottle();
    void droppedCallsGaveUp();
    void aCallDoneAtItsStartFreesItsSlot_data();
    void aCallDoneAtItsStartFreesItsSlot();
    void anImmediateDenialFreesItsSlot();
    void aZeroTimeCallFreesItsSlotBeforeTheTick();
    void refusedSpec();
    void noThrottleIsTheEngineAsItWas();
    void anOpenThrottleIsNoThrottle();
};

// Bottleneck max_concurrent=1 before a server of one worker, 1 s each, no rate layer; three
// requests at 0. Request 0 starts at 0 and is served 0..1; its response at 1 is the done that
// lets 1 start at 1 (served 1..2), whose response lets 2 start at 2 (served 2..3). Starts are
// spaced by the service, the server never queues; latency counts from the arrival: 1, 2, 3 s.
// Without the throttle the same three are served at the same times, two waiting in the queue.
void TestEngineThrottle::oneAtATimeBeforeOneWorker()
{
    const std::vector<Nanos> arrivals{0, 0, 0};
    EngineSetup s;
    s.server = oneWorker(S);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, S, true}, {2, 0, 2 * S, true}});
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(r.served[i].outcome, Outcome::InTime);
        QCOMPARE(r.served[i].arrived, i * S);
        QCOMPARE(r.served[i].start, i * S);
        QCOMPARE(r.served[i].end, (i + 1) * S);
    }
    QCOMPARE(r.server->maxQueue, 0);
    QCOMPARE(r.server->maxInSystem, 1);
    QCOMPARE(r.clients.succeeded, 3);
    QCOMPARE(r.clients.latency.max, 3 * S);
    QCOMPARE(r.clients.latency.p50, 2 * S);

    s.throttle = {};
    const RowRun plain = runRow(s, {arrivals, {}, {}});
    QCOMPARE(plain.server->maxQueue, 2);
    QCOMPARE(plain.clients.latency.max, 3 * S);
}

// max_concurrent=1, a fixed window of 1 in 10 s, a server of one worker, 1 s each; three
// requests at 0, no retries. 0 starts at 0, admitted, served 0..1: done at 1. 1 starts at 1 and
// is denied at 1: its client knows at once, so 2 starts at 1 too, and is denied.
void TestEngineThrottle::aDenialIsDoneAtOnce()
{
    const std::vector<Nanos> arrivals{0, 0, 0};
    EngineSetup s;
    s.layers = {fixedWindow(1, 10 * S)};
    s.server = oneWorker(S);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, S, false}, {2, 0, S, false}});
    QCOMPARE(r.clients.succeeded, 1);
    QCOMPARE(r.clients.gaveUp, 2);
}

// max_concurrent=1 before one worker of 1 s whose client waits 600 ms, no retries; two
// requests at 0. 0 starts at 0 (served 0..1, late); its client gives up at 0.6, the response
// that frees the throttle: 1 starts at 0.6, queues behind 0, is served 1..2, its client gave up
// at 1.2 (late too). Nothing succeeds, both gave up.
void TestEngineThrottle::doneWhenTheClientGivesUp()
{
    const std::vector<Nanos> arrivals{0, 0};
    EngineSetup s;
    ServerOptions o;
    o.workers = 1;
    o.service = ServiceTime{ServiceKind::Constant, S, 0};
    o.queue = 10;
    o.clientTimeout = 600 * ms;
    s.server = ServerConfig::make(o);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 600 * ms, true}});
    QCOMPARE(r.served[0].outcome, Outcome::Late);
    QCOMPARE(r.served[1].outcome, Outcome::Late);
    QCOMPARE(r.served[1].arrived, 600 * ms);
    QCOMPARE(r.served[1].start, S);
    QCOMPARE(r.served[1].end, 2 * S);
    QCOMPARE(r.clients.succeeded, 0);
    QCOMPARE(r.clients.gaveUp, 2);
}

// Each client runs its own throttle: two clients (requests 0, 2 of client 0; 1, 3 of client 1),
// max_concurrent=1 each, a server of two workers, 1 s each; four requests at 0. 0 and 1 start at
// 0 (one per client), both served 0..1; their responses at 1 start 2 and 3 at 1. One throttle
// shared by both would have started them at 0, 1, 2, 3.
void TestEngineThrottle::eachClientHasItsOwn()
{
    const std::vector<Nanos> arrivals(4, 0);
    EngineSetup s;
    ServerOptions o;
    o.workers = 2;
    o.service = ServiceTime{ServiceKind::Constant, S, 0};
    s.server = ServerConfig::make(o);
    ClientOptions co;
    co.clients = 2;
    s.clients = ClientConfig::make(co);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 0, true}, {2, 0, S, true}, {3, 0, S, true}});
    QCOMPARE(r.clients.latency.max, 2 * S);
}

// min_time=400ms before a fixed window of 3 a second; five requests at 0, no server. Bottleneck
// starts one, then one every 400 ms: 0, 0.4, 0.8, 1.2, 1.6. The window [0, 1) sees three, [1, 2)
// two: all admitted, where without the throttle the last two at 0 are denied. Latency from the
// arrival: 0, 0.4, 0.8, 1.2, 1.6; p50 the 3rd of 5 (0.8).
void TestEngineThrottle::minTimeSpacing()
{
    const std::vector<Nanos> arrivals(5, 0);
    EngineSetup s;
    s.layers = {fixedWindow(3, S)};
    s.throttle = ClientThrottleSpec::parse("bottleneck:min_time=400ms");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 400 * ms, true}, {2, 0, 800 * ms, true}, {3, 0, 1200 * ms, true},
                   {4, 0, 1600 * ms, true}});
    QCOMPARE(r.clients.latency.max, 1600 * ms);
    QCOMPARE(r.clients.latency.p50, 800 * ms);
    s.throttle = {};
    QCOMPARE(runRow(s, {arrivals, {}, {}}).metrics.denied, 2);
}

// p-queue interval=1s,interval_cap=2 before a fixed window of 2 a second; six requests at 0, the
// client retrying after Retry-After (3 times). With the throttle: 0, 1 start at 0 and open the
// window [0, 1); the timer at 1 starts 2, 3, at 2 starts 4, 5: each fixed window sees two, no
// 429, six attempts. Without it: 0, 1 admitted at 0; 2..5 denied (Retry-After 1 s: the window
// resets at 1); at 1, 2 and 3 are admitted, 4 and 5 denied again; at 2 they pass: twelve
// attempts, six of them 429s.
void TestEngineThrottle::aClientThatNeverSeesA429()
{
    const std::vector<Nanos> arrivals(6, 0);
    EngineSetup s;
    s.layers = {fixedWindow(2, S)};
    s.clients = oneClient(RetryPolicy::RetryAfter, 3);
    s.throttle = ClientThrottleSpec::parse("p-queue:interval=1s,interval_cap=2");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 0, true}, {2, 0, S, true}, {3, 0, S, true}, {4, 0, 2 * S, true},
                   {5, 0, 2 * S, true}});
    QCOMPARE(r.metrics.denied, 0);
    QCOMPARE(r.clients.attempts, 6);
    QCOMPARE(r.clients.latency.max, 2 * S);

    s.throttle = {};
    const RowRun plain = runRow(s, {arrivals, {}, {}});
    compareLog(plain, {{0, 0, 0, true}, {1, 0, 0, true}, {2, 0, 0, false}, {3, 0, 0, false}, {4, 0, 0, false},
                       {5, 0, 0, false}, {2, 1, S, true}, {3, 1, S, true}, {4, 1, S, false}, {5, 1, S, false},
                       {4, 2, 2 * S, true}, {5, 2, 2 * S, true}});
    QCOMPARE(plain.metrics.denied, 6);
    QCOMPARE(plain.clients.latency.max, 2 * S);
}

// max_concurrent=1 before a fixed window of 1 a second, no server; two requests at 0, retries
// 500 ms after a denial. 0 starts at 0, admitted, done at 0 (no delay); 1 starts at 0, denied,
// done at 0. Its retries do not wait for the throttle: 0.5 (denied, the window [0, 1) is
// spent), 1.0 (admitted). A third request at 0.2 starts at once (nothing is running): denied,
// its retries at 0.7 (denied) and 1.2 (denied: [1, 2) went to request 1 at 1.0).
void TestEngineThrottle::retriesBypassTheThrottle()
{
    const std::vector<Nanos> arrivals{0, 0, 200 * ms};
    EngineSetup s;
    s.layers = {fixedWindow(1, S)};
    s.clients = oneClient(RetryPolicy::Immediate, 2, 500 * ms);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 0, false}, {2, 0, 200 * ms, false}, {1, 1, 500 * ms, false},
                   {2, 1, 700 * ms, false}, {1, 2, S, true}, {2, 2, 1200 * ms, false}});
    QCOMPARE(r.clients.succeeded, 2);
    QCOMPARE(r.clients.gaveUp, 1);
}

// max_concurrent=1, high_water=2, strategy=overflow before one worker of 100 ms; six requests at
// 0. 0 starts; 1 and 2 wait; 3, 4, 5 find two waiting and are dropped (overflow drops the new
// call): never decided, they gave up. 1 starts at 0.1 (0's response), 2 at 0.2.
void TestEngineThrottle::droppedCallsGaveUp()
{
    const std::vector<Nanos> arrivals(6, 0);
    EngineSetup s;
    s.server = oneWorker(100 * ms);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1,high_water=2,strategy=overflow");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 100 * ms, true}, {2, 0, 200 * ms, true}});
    QCOMPARE(r.served.size(), std::size_t(3));
    QCOMPARE(r.clients.requests, 6);
    QCOMPARE(r.clients.attempts, 3);
    QCOMPARE(r.clients.succeeded, 3);
    QCOMPARE(r.clients.gaveUp, 3);
}

// A call that starts and ends at one instant frees its slot at that instant, before
// the timers and the arrivals after it, as Bottleneck does (its submissions are serialised and
// each drains the queue before the next reads queued(); a finished job decrements running
// before the next submission, LocalDatastore.coffee:133-137). max_concurrent=1, high_water=1,
// no server, a fixed window of 10 a second (never denies here); three requests at 0, one
// client. 0 is submitted with nothing running: it starts at 0, is admitted and, with no server,
// done at 0 (no delay): running is 0 again when 1 is submitted, which starts at once too, and
// so does 2. Nothing is queued, the high water (1 queued) is never reached: three starts at 0,
// nothing dropped, whichever the strategy. Had the done of 0 waited for 1 and 2, 1 would be
// queued and 2 find one queued (overflow would drop 2; leak would drop 1 and start 2 at 0).
void TestEngineThrottle::aCallDoneAtItsStartFreesItsSlot_data()
{
    QTest::addColumn<QString>("strategy");
    QTest::newRow("overflow") << "overflow";
    QTest::newRow("leak") << "leak";
}

void TestEngineThrottle::aCallDoneAtItsStartFreesItsSlot()
{
    QFETCH(QString, strategy);
    const std::vector<Nanos> arrivals(3, 0);
    EngineSetup s;
    s.layers = {fixedWindow(10, S)};
    s.clients = oneClient(RetryPolicy::None, 0);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1,high_water=1,strategy=" + strategy.toStdString());
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 0, true}, {2, 0, 0, true}});
    QCOMPARE(r.clients.succeeded, 3);
    QCOMPARE(r.clients.gaveUp, 0);
}

// A denial: max_concurrent=1, high_water=1, strategy=leak before a fixed window of 1 a
// second and a server of one worker taking 100 ms; request 0 at 0, then 1, 2, 3 at 0.5. 0 starts
// at 0, admitted, served 0..0.1, done at 0.1. At 0.5 nothing runs: 1 starts, is denied (the
// window [0, 1) is spent) and its client knows at once, so it is done at 0.5 before 2 is
// submitted; 2 and 3 the same. All three start at 0.5, denied, and give up (no retries);
// nothing is dropped. Before: 2 queued behind 1, 3 found one queued and leak dropped 2.
void TestEngineThrottle::anImmediateDenialFreesItsSlot()
{
    const std::vector<Nanos> arrivals{0, 500 * ms, 500 * ms, 500 * ms};
    EngineSetup s;
    s.layers = {fixedWindow(1, S)};
    s.server = oneWorker(100 * ms);
    s.clients = oneClient(RetryPolicy::None, 0);
    s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1,high_water=1,strategy=leak");
    const RowRun r = runRow(s, {arrivals, {}, {}});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 500 * ms, false}, {2, 0, 500 * ms, false}, {3, 0, 500 * ms, false}});
    QCOMPARE(r.clients.attempts, 4);
    QCOMPARE(r.clients.succeeded, 1);
    QCOMPARE(r.clients.gaveUp, 3);
}

// Zero service times and p-queue's interval: concurrency=1, interval=100ms,
// interval_cap=3, before a server alone (unbounded workers, each request its own service time):
// request 0 at 0 taking 100 ms, then 1..5 at 0 taking none. At 0: 0 starts (the window [0, 0.1)
// counts 1, the recurring timer is due at 0.1); 1..5 wait (one running). At 0.1, 0's response
// comes first: 1 starts (count 2), served in no time, and its response, at 0.1 too, comes
// before the timer: 2 starts (count 3), done at once; the cap holds 3. Then the timer at 0.1:
// the count restarts at 0, 3 starts (1), done at once, 4 (2), 5 (3). p-queue does the same: a
// settled task frees its slot at once (dist/index.js 521-541), before the interval's tick
// (409-426). Before: the tick ran between 1's start and its response, the count restarted
// under 1, 2..4 took the new window and 5 waited for the tick at 0.2.
void TestEngineThrottle::aZeroTimeCallFreesItsSlotBeforeTheTick()
{
    const std::vector<Nanos> arrivals(6, 0);
    const std::vector<Nanos> service{100 * ms, 0, 0, 0, 0, 0};
    EngineSetup s;
    ServerOptions o;
    o.workers = 0;
    o.service = ServiceTime{ServiceKind::File, 0, 0};
    s.server = ServerConfig::make(o);
    s.clients = oneClient(RetryPolicy::None, 0);
    s.throttle = ClientThrottleSpec::parse("p-queue:concurrency=1,interval=100ms,interval_cap=3");
    const RowRun r = runRow(s, {arrivals, {}, {}, service});
    compareLog(r, {{0, 0, 0, true}, {1, 0, 100 * ms, true}, {2, 0, 100 * ms, true}, {3, 0, 100 * ms, true},
                   {4, 0, 100 * ms, true}, {5, 0, 100 * ms, true}});
    QCOMPARE(r.clients.succeeded, 6);
}

// A bad spec never reaches a run: it is refused where it is read.
void TestEngineThrottle::refusedSpec()
{
    QVERIFY_THROWS_EXCEPTION(InputError, ClientThrottleSpec::parse("leaky:x=1"));
    QVERIFY_THROWS_EXCEPTION(InputError, ClientThrottleSpec::parse("bottleneck:max_concurent=1")); // a key the package does not have
}

// An empty spec is the engine as it was: the digests of 40 seeded rows (retries, servers with
// client timeouts) as the engine before throttles (commit 12e7973) computed them.
void TestEngineThrottle::noThrottleIsTheEngineAsItWas()
{
    std::uint64_t all = 0;
    for (std::uint64_t round = 1; round <= 40; ++round) {
        const auto [s, arrivals] = seeded(round);
        all = all * 31 + digest(runRow(s, {arrivals, {}, {}}));
    }
    QCOMPARE(all, kBeforeThrottles);
}

// A throttle that holds nothing back (p-queue and Bottleneck with their defaults: no
// concurrency cap, no interval, no min_time) starts every call at its arrival: decision for
// decision the row without one.
void TestEngineThrottle::anOpenThrottleIsNoThrottle()
{
    for (std::uint64_t round = 1; round <= 40; ++round) {
        auto [s, arrivals] = seeded(round);
        const std::uint64_t plain = digest(runRow(s, {arrivals, {}, {}}));
        for (const char* spec : {"p-queue", "bottleneck"}) {
            s.throttle = ClientThrottleSpec::parse(spec);
            QVERIFY2(digest(runRow(s, {arrivals, {}, {}})) == plain, QByteArray(spec) + " round " + QByteArray::number(qulonglong(round)));
        }
    }
}

QTEST_APPLESS_MAIN(TestEngineThrottle)
#include "tst_engine_throttle.moc"
