// The classroom presets: every one is compiled in, loads, simulates, and what its lesson claims
// holds. Each expectation is derived by hand from the rules in semantics.md (the derivation is
// in the comment above it), not copied from a run.
#include "preset_rows.h"
#include "presets.h"
#include "scenario/rows.h"
#include "engine/clients.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <set>

using namespace ratelab;
using namespace ratelab::io;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

const QStringList kIds = {"seed-compare",      "edge-burst",     "idle-then-burst", "spa-page-load",
                          "steady-over-limit", "token-vs-leaky", "counter-error",     "nginx-vs-leaky",
                          "two-servers-local", "racing-read-write", "tight-retry-loop", "honour-retry-after",
                          "http-rounding",     "noisy-client",   "pick-a-limit",
                          // products (lessons checked in tst_presets_products)
                          "traefik-six-a-minute", "spring-burst-zero", "envoy-fill-cap", "redis-cell-sixteen",
                          "nginx-page-load",
                          // fleets and storms
                          "n-per-t", "scaling-out", "redis-goes-down", "comes-back-at-reset",
                          // managed services (lessons checked in tst_presets_managed)
                          "upstash-sliding-vs-log", "api-gateway-page-load", "api-gateway-monthly-quota", "waf-scraper-first-minute",
                          "cloudflare-long-block",
                          // the server behind the limiter (lessons checked in tst_presets_server)
                          "retry-storm-metastable", "aimd-sawtooth", "gradient2-knee", "noisy-tenant-apf",
                          "client-throttle-under-limit", "gradient2-standing-queue"};

struct Loaded {
    Scenario scenario;
    Trace trace;
};

// load simulates a preset as the app draws it: one row per algorithm, on its cluster or with
// its clients (rows.h).
Loaded load(const QString& id)
{
    const LoadResult r = loadPreset(id);
    if (!r.scenario)
        qFatal("preset %s: %s", qPrintable(id), qPrintable(r.error));
    return {*r.scenario, simulateRows(*r.scenario)};
}

const AlgorithmTrace& result(const Trace& t, Algorithm a) { return rowResult(t, a); }

// admittedAt counts the admitted requests that arrived at exactly t.
int admittedAt(const Trace& t, Algorithm a, Nanos at)
{
    int n = 0;
    const std::vector<Decision> d = decisionsOf(result(t, a));
    for (std::size_t i = 0; i < t.arrivals.size(); ++i)
        n += t.arrivals[i] == at && d.at(i).allowed ? 1 : 0;
    return n;
}

// deniedTimes lists the arrival times (in whole seconds) of the denied requests.
std::vector<Nanos> deniedSeconds(const Trace& t, Algorithm a)
{
    std::vector<Nanos> out;
    const std::vector<Decision> d = decisionsOf(result(t, a));
    for (std::size_t i = 0; i < t.arrivals.size(); ++i)
        if (!d.at(i).allowed)
            out.push_back(t.arrivals[i] / kSecond);
    return out;
}

constexpr Algorithm kWindows[] = {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter};
constexpr Algorithm kBuckets[] = {Algorithm::TokenBucket, Algorithm::LeakyBucket, Algorithm::LeakyBucketQueue,
                                  Algorithm::Gcra};

} // namespace

class TestPresets : public QObject {
    Q_OBJECT
private slots:
    void listedInOrderAndCompiledIn()
    {
        QStringList ids;
        for (const PresetInfo& p : presets()) {
            ids << p.id;
            QVERIFY2(!p.title.isEmpty() && p.title != p.id, qPrintable(p.id));
        }
        QCOMPARE(ids, kIds);
        // Every preset file in the resources is listed, and every listed one is there.
        QStringList files = QDir(":/presets").entryList(QDir::Files);
        for (QString& f : files)
            f.chop(QString(".ratelab.json").size());
        files.sort();
        QStringList sorted = kIds;
        sorted.sort();
        QCOMPARE(files, sorted);
    }

    void unknownIdNamesTheKnownOnes()
    {
        const LoadResult r = loadPreset("edge-bust");
        QVERIFY(!r.scenario);
        QVERIFY2(r.error.contains("edge-bust"), qPrintable(r.error));
        for (const QString& id : kIds)
            QVERIFY2(r.error.contains(id), qPrintable(r.error));
        QVERIFY(!loadPreset("").scenario);
        QVERIFY(!loadPreset("../presets/edge-burst").scenario);
    }

    void everyPresetLoadsAndSimulates_data()
    {
        QTest::addColumn<QString>("id");
        for (const QString& id : kIds)
            QTest::newRow(qPrintable(id)) << id;
    }

    void everyPresetLoadsAndSimulates()
    {
        QFETCH(QString, id);
        const LoadResult r = loadPreset(id);
        QVERIFY2(r.scenario, qPrintable(r.error));
        QCOMPARE(r.notes, QStringList()); // a preset spells out every field it uses
        const Scenario& s = *r.scenario;
        QVERIFY(!s.title.empty());
        // A lesson of two or three sentences.
        const QString lesson = QString::fromStdString(s.lesson);
        const auto sentences = lesson.count(QRegularExpression(R"([.!?](\s|$))"));
        QVERIFY2(sentences >= 2 && sentences <= 3, qPrintable(lesson));
        const Trace t = simulateRows(s);
        QVERIFY(!t.arrivals.empty());
        QCOMPARE(t.results.size(), rowCount(s)); // the algorithms, then any concurrency limiter's row
        for (const AlgorithmTrace& a : t.results) // one decision a request; with clients, one an attempt
            QCOMPARE(decisionCount(a), a.clients ? std::size_t(a.clients->attempts) : t.arrivals.size());
        // The file is exactly what RateLab saves for that scenario.
        QFile file(":/presets/" + id + ".ratelab.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(serializeScenario(s)), QString::fromUtf8(file.readAll()));
    }

    void seedCompare()
    {
        // L = 10, W = 10 s, C = 10, r = 1/s; 15 requests at 0, 0.1, ..., 1.4 s (the semantics
        // page's reference case). Windows: 10 in one window, then nothing until 10 s. Buckets:
        // request k finds 10 - k + 0.1k = 10 - 0.9k tokens, >= 1 up to k = 10 (at exactly 1 s).
        const Loaded p = load("seed-compare");
        QCOMPARE(p.trace.arrivals.size(), std::size_t(15));
        QCOMPARE(p.trace.arrivals[10], kSecond);
        for (Algorithm a : kWindows)
            QCOMPARE(result(p.trace, a).metrics.allowed, 10);
        for (Algorithm a : kBuckets)
            QCOMPARE(result(p.trace, a).metrics.allowed, 11);
    }

    void edgeBurst()
    {
        // Bursts of 10 at 9.9 s and 10.1 s, L = 10 per W = 10 s.
        // Fixed: 9.9 s is in window 0, 10.1 s in window 1, each count starts at 0: all 20, and
        //   all 20 lie in (0.1, 10.1]: max_in_window 20 = 2L.
        // Log: at 10.1 s the 10 entries of 9.9 s are kept (9.9 > 10.1 - 10): none admitted.
        // Counter: at 10.1 s, e = 0.1 s, prev = 10: E = 10 * 9.9/10 + cur = 9.9 + cur < 10 only
        //   for cur = 0: one more, 11 in all, all within 0.2 s.
        // Buckets: full (10) at 9.9 s, 0.2 tokens at 10.1 s: 10.
        const Loaded p = load("edge-burst");
        QCOMPARE(p.trace.arrivals.front(), 9 * kSecond + 900'000'000);
        QCOMPARE(p.trace.arrivals.back(), 10 * kSecond + 100'000'000);
        const auto& fixed = result(p.trace, Algorithm::FixedWindow).metrics;
        const auto& log = result(p.trace, Algorithm::SlidingWindowLog).metrics;
        const auto& counter = result(p.trace, Algorithm::SlidingWindowCounter).metrics;
        QCOMPARE(fixed.allowed, 20);
        QCOMPARE(fixed.maxInWindow, 2 * p.scenario.config.limit());
        QCOMPARE(log.allowed, 10);
        QCOMPARE(log.maxInWindow, p.scenario.config.limit());
        QCOMPARE(counter.allowed, 11);
        QCOMPARE(counter.maxInWindow, 11);
        QCOMPARE(admittedAt(p.trace, Algorithm::SlidingWindowCounter, 10 * kSecond + 100'000'000), 1);
        for (Algorithm a : kBuckets)
            QCOMPARE(result(p.trace, a).metrics.allowed, 10);
    }

    void idleThenBurst()
    {
        // 10 at 0 s, then 10 at 7 s; L = C = 10, W = 10 s, r = 1/s.
        // At 0 s every limiter admits all 10 (a full bucket, empty windows).
        // At 7 s: the bucket refilled 7 tokens in 7 quiet seconds (from 0): it admits 7.
        //   Leaky meter (water 10 - 7 = 3), queue and GCRA admit exactly what it admits.
        //   Fixed: window 0 already counts 10. Log: the 10 entries of 0 s are kept (0 > 7 - 10).
        //   Counter: same window, cur = 10, E = 10: none.
        const Loaded p = load("idle-then-burst");
        QCOMPARE(p.trace.arrivals.size(), std::size_t(20));
        for (const AlgorithmTrace& r : p.trace.results)
            QCOMPARE(admittedAt(p.trace, r.algorithm, 0), 10);
        for (Algorithm a : kBuckets)
            QCOMPARE(admittedAt(p.trace, a, 7 * kSecond), 7);
        for (Algorithm a : kWindows)
            QCOMPARE(admittedAt(p.trace, a, 7 * kSecond), 0);
    }

    void spaPageLoad()
    {
        // Bursts of 5 at 0, 6, 12, ..., 42 s (40 requests): 5 per 6 s = 0.83/s < L/W = 1/s, and
        // any (t - 10, t] holds at most 2 bursts (3 span 12 s): never more than 10.
        const Loaded p = load("spa-page-load");
        const Nanos span = p.trace.arrivals.back() - p.trace.arrivals.front() + 6 * kSecond;
        QCOMPARE(span, 48 * kSecond);
        QVERIFY(std::int64_t(p.trace.arrivals.size()) * p.scenario.config.windowNanos()
                < p.scenario.config.limit() * span); // average rate under L / W
        // So the fixed window (at most 2 bursts per window), the log and the buckets (6 s refill
        // 6 >= 5 tokens, a full bucket of 10 each time) admit everything.
        for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::TokenBucket,
                            Algorithm::LeakyBucket, Algorithm::LeakyBucketQueue, Algorithm::Gcra})
            QCOMPARE(result(p.trace, a).metrics.allowed, 40);
        QCOMPARE(result(p.trace, Algorithm::SlidingWindowLog).metrics.maxInWindow, 10);
        // Counter, E = prev * (10 - e)/10 + cur:
        //   0, 6 s: window 0, 10 admitted.            12 s: prev 10, e 2: 8 + cur < 10: 2 of 5.
        //   18 s: e 8: 2 + 2 + j: 5 of 5 (cur 7).      24 s: prev 7, e 4: 4.2 + j: 5 (cur 5).
        //   30 s: prev 5, e 0: 5 + j: 5 (cur 5).       36 s: e 6: 2 + 5 + j: 3 of 5 (cur 8).
        //   42 s: prev 8, e 2: 6.4 + j: 4 of 5.
        // Denied: 3 at 12 s, 2 at 36 s, 1 at 42 s.
        QCOMPARE(deniedSeconds(p.trace, Algorithm::SlidingWindowCounter),
                 (std::vector<Nanos>{12, 12, 12, 36, 36, 42}));
    }

    void steadyOverLimit()
    {
        // One request a second at 0 .. 119 s; L = C = 10, W = 12 s, r = 5/6 per s (1 is 20% more).
        const Loaded p = load("steady-over-limit");
        QCOMPARE(p.scenario.config.rate(), (Rate{1, 1'200'000'000})); // 5 per 6 s, in lowest terms
        QCOMPARE(p.trace.arrivals.size(), std::size_t(120));
        // Fixed: each window [12k, 12k + 12) holds 12 requests, the first 10 pass: denied at
        //   12k + 10, 12k + 11. Log: the entry of t expires at exactly t + 12, so after 10 in a
        //   row (12k .. 12k + 9) the next two find 10 entries; at 12(k + 1) the entry of 12k has
        //   expired: the same denials.
        std::vector<Nanos> every12;
        for (Nanos k = 0; k < 10; ++k)
            every12.insert(every12.end(), {12 * k + 10, 12 * k + 11});
        QCOMPARE(deniedSeconds(p.trace, Algorithm::FixedWindow), every12);
        QCOMPARE(deniedSeconds(p.trace, Algorithm::SlidingWindowLog), every12);
        // Counter: window 0 as fixed. Window k >= 1 with prev = 10, at e = j s:
        //   E = 10 (12 - j)/12 + cur. j = 0: E = 10, denied. j = 1..5: cur = j - 1, E = 9 + j/6
        //   < 10. j = 6: E = 10, denied. j = 7..11: cur = j - 2, E = 8 + j/6 < 10. So 10 per
        //   window again (prev stays 10), denied at 12k and 12k + 6: spread through the window.
        std::vector<Nanos> counter{10, 11};
        for (Nanos k = 1; k < 10; ++k)
            counter.insert(counter.end(), {12 * k, 12 * k + 6});
        QCOMPARE(deniedSeconds(p.trace, Algorithm::SlidingWindowCounter), counter);
        // Token bucket: request k (at k s) finds 10 - k + 5k/6 = 10 - k/6 tokens while all pass:
        //   >= 1 up to k = 54, the first 55 s. After k = 54 it is empty; then each 6 s brings 5
        //   tokens: denied at 55, 61, ..., 115 (55 + 6j), 5 of every 6 admitted.
        std::vector<Nanos> token;
        for (Nanos t = 55; t < 120; t += 6)
            token.push_back(t);
        for (Algorithm a : kBuckets)
            QCOMPARE(deniedSeconds(p.trace, a), token);
        // In the long run every limiter admits the limit: 50 of the last 60 requests (60 s is
        // 5 windows of 10, or 10 refill cycles of 5).
        for (const AlgorithmTrace& r : p.trace.results) {
            const auto a = admitted(r);
            QCOMPARE(std::count_if(a.begin(), a.end(), [](std::size_t i) { return i >= 60; }), 50);
        }
    }

    void tokenVersusLeaky()
    {
        // Bursts of 4 at 0, 2, ..., 14 s; C = 5, r = 1/s. Tokens: 5 -> 4 pass (1 left); at 2 s
        // 3 tokens: 3 pass; from 4 s on, 2 tokens each time: 2 pass. 4 + 3 + 6 * 2 = 19.
        const Loaded p = load("token-vs-leaky");
        QCOMPARE(p.scenario.algorithms, (std::vector<Algorithm>{Algorithm::TokenBucket, Algorithm::LeakyBucket,
                                                                 Algorithm::LeakyBucketQueue}));
        const auto& token = result(p.trace, Algorithm::TokenBucket);
        const auto& meter = result(p.trace, Algorithm::LeakyBucket);
        const auto& queue = result(p.trace, Algorithm::LeakyBucketQueue);
        QCOMPARE(token.metrics.allowed, 19);
        QCOMPARE(admitted(meter), admitted(token)); // the same requests, not just as many
        QCOMPARE(admitted(queue), admitted(token));
        // The queue sends request i on at t + delay, delay = water ahead / r. The water ahead of
        // each admitted request is exactly the admitted ones not yet gone, so they leave at
        // 0, 1, 2, ..., 18 s: one per second. Only the first (empty bucket) leaves at once.
        std::vector<Nanos> leaves;
        const std::vector<Decision> queued = decisionsOf(queue);
        for (std::size_t i : admitted(queue))
            leaves.push_back(p.trace.arrivals[i] + queued[i].delay);
        std::vector<Nanos> everySecond;
        for (Nanos k = 0; k < 19; ++k)
            everySecond.push_back(k * kSecond);
        QCOMPARE(leaves, everySecond);
        QCOMPARE(queue.metrics.delayed, 18);
        QCOMPARE(token.metrics.delayed, 0);
        QCOMPARE(meter.metrics.delayed, 0);
    }

    void counterError()
    {
        // Bursts of 10 at 9, 18.5, 28, 37.5, 47 s (9.5 s apart, late in windows 0..4), L = 10,
        // W = 10 s.
        const Loaded p = load("counter-error");
        const Nanos half = kSecond / 2;
        const Nanos bursts[] = {9 * kSecond, 18 * kSecond + half, 28 * kSecond, 37 * kSecond + half, 47 * kSecond};
        // Log: 9 s: 10. 18.5 s: the entries of 9 s are kept (9 > 8.5): 0. 28 s: they expired
        //   (9 <= 18), nothing of 18.5 s was recorded: 10. 37.5 s: 28 > 27.5: 0. 47 s: 10.
        const int log[] = {10, 0, 10, 0, 10};
        // Counter, E = prev * (10 - e)/10 + cur, admitting while E < 10:
        //   9 s: prev 0: 10.   18.5 s: prev 10, e 8.5: 1.5 + j < 10: j <= 8, 9.
        //   28 s: prev 9, e 8: 1.8 + j: 9.   37.5 s: prev 9, e 7.5: 2.25 + j: 8.
        //   47 s: prev 8, e 7: 2.4 + j: 8.   In all 44.
        const int counter[] = {10, 9, 9, 8, 8};
        for (int b = 0; b < 5; ++b) {
            QCOMPARE(admittedAt(p.trace, Algorithm::SlidingWindowLog, bursts[b]), log[b]);
            QCOMPARE(admittedAt(p.trace, Algorithm::SlidingWindowCounter, bursts[b]), counter[b]);
            QCOMPARE(admittedAt(p.trace, Algorithm::FixedWindow, bursts[b]), 10); // each in its own window
        }
        QVERIFY(admitted(result(p.trace, Algorithm::SlidingWindowCounter))
                != admitted(result(p.trace, Algorithm::SlidingWindowLog)));
        // Up to 19 in 10 s for the counter (10 at 9 s and 9 at 18.5 s), 20 for fixed, 10 for the log.
        QCOMPARE(result(p.trace, Algorithm::SlidingWindowCounter).metrics.maxInWindow, 19);
        QCOMPARE(result(p.trace, Algorithm::FixedWindow).metrics.maxInWindow, 20);
        QCOMPARE(result(p.trace, Algorithm::SlidingWindowLog).metrics.maxInWindow, 10);
    }

    void nginxVersusLeaky()
    {
        // rate=50r/m, no burst (C = 1, B = 0), a request every 1.2 s. The leaky bucket drains
        // 5/6 per s: exactly the 1 it holds by each request, so it admits all 10. nginx holds the
        // rate as 50 * 1000 / 60 = 833 thousandths per second and drains 833 * 1200 / 1000 = 999
        // thousandths in 1.2 s: excess = 0 - 999 + 1000 = 1 > 0, rejected; a rejection changes
        // nothing, so 2.4 s after the last admission it drains 1999 and admits. Every other one.
        const Loaded p = load("nginx-vs-leaky");
        QCOMPARE(p.scenario.config.nginxBurst(), 0);
        QCOMPARE(result(p.trace, Algorithm::LeakyBucket).metrics.allowed, 10);
        const std::vector<std::size_t> evens = {0, 2, 4, 6, 8};
        QCOMPARE(admitted(result(p.trace, Algorithm::NginxLimitReq)), evens);
    }

    void twoServersLocal()
    {
        // 40 requests 0.25 s apart, round robin: each node sees one every 0.5 s. The window
        // limiters admit each node's first 10 (all inside the first 10 s): 20 in 10 s. The token
        // bucket (C 10, 1/s) has 10 - 0.5 (k - 1) tokens before a node's k-th request: 19 each.
        const Loaded p = load("two-servers-local");
        for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingWindowLog}) {
            const AlgorithmTrace& r = result(p.trace, a);
            QCOMPARE(r.metrics.allowed, 20);
            QCOMPARE(r.metrics.maxInWindow, 20);
            QCOMPARE(r.perNodeAllowed, (std::vector<std::int64_t>{10, 10}));
        }
        const AlgorithmTrace& token = result(p.trace, Algorithm::TokenBucket);
        QCOMPARE(token.perNodeAllowed, (std::vector<std::int64_t>{19, 19}));
        QCOMPARE(token.metrics.maxInWindow, 38); // all before 9.75 s
        // Each request went to node i mod 2.
        for (std::size_t i = 0; i < token.nodes.size(); ++i)
            QCOMPARE(int(token.nodes[i]), int(i % 2));
    }

    void racingReadWrite()
    {
        // Bursts of 20 at 0 and 1 s, writes landing 50 ms after each read. At 0 s nothing is
        // visible: all 20 pass every limiter. At 1 s the store has replayed them (it takes 10):
        // the windows are full, so the second burst is denied; the bucket has refilled 1 token,
        // and each request of the burst peeks that same token: all 20 pass.
        const Loaded p = load("racing-read-write");
        QCOMPARE(result(p.trace, Algorithm::FixedWindow).metrics.allowed, 20);
        QCOMPARE(result(p.trace, Algorithm::SlidingWindowLog).metrics.allowed, 20);
        QCOMPARE(result(p.trace, Algorithm::TokenBucket).metrics.allowed, 40);
        // With one atomic store: 10, 10, and 10 + the one refilled token.
        Scenario shared = p.scenario;
        shared.cluster = ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Shared, 0, 0, 0, 1});
        const Trace t = simulateRows(shared);
        QCOMPARE(result(t, Algorithm::FixedWindow).metrics.allowed, 10);
        QCOMPARE(result(t, Algorithm::SlidingWindowLog).metrics.allowed, 10);
        QCOMPARE(result(t, Algorithm::TokenBucket).metrics.allowed, 11);
    }

    void tightRetryLoop()
    {
        // 20 at 0 s, limit 10 per 10 s: 10 denied, each retried every 0.5 s. Retries at 0.5 ...
        // 9.5 s fall in a full window (or a full log): denied. The 20th retry, at 10 s, opens the
        // next window (for the log, 0 s has left (0, 10]): all 10 pass. 20 + 10 * 20 = 220.
        const Loaded p = load("tight-retry-loop");
        for (const AlgorithmTrace& r : p.trace.results) {
            const ClientStats& k = *r.clients;
            QCOMPARE(k.attempts, 220);
            QCOMPARE(k.succeeded, 20);
            QCOMPARE(k.gaveUp, 0);
            QCOMPARE(k.amplification, 11.0);
            QCOMPARE(k.latency.max, 10 * kSecond);
            const std::vector<Decision> d = decisionsOf(r);
            QCOMPARE(d.size(), std::size_t(220));
            for (std::size_t i = 0; i < d.size(); ++i)
                QCOMPARE(d[i].allowed, r.times[i] == 0 ? i < 10 : r.times[i] == 10 * kSecond);
        }
    }

    void honourRetryAfter()
    {
        // 10 at 0 s, 5 per 10 s. Fixed window: 5 denied with retry_after 10 s (to the boundary);
        // all retry at 10 s and pass: 15 attempts. Token bucket (C 5, 0.5/s): 5 denied with
        // retry_after 2 s (one token); at 2 s one passes and 4 are told 2 s again, and so on:
        // one passes at 2, 4, 6, 8, 10 s. Attempts 10 + 5 + 4 + 3 + 2 + 1 = 25.
        const Loaded p = load("honour-retry-after");
        const ClientStats& fixed = *result(p.trace, Algorithm::FixedWindow).clients;
        QCOMPARE(fixed.attempts, 15);
        QCOMPARE(fixed.succeeded, 10);
        QCOMPARE(fixed.latency.max, 10 * kSecond);
        const AlgorithmTrace& token = result(p.trace, Algorithm::TokenBucket);
        QCOMPARE(token.clients->attempts, 25);
        QCOMPARE(token.clients->gaveUp, 0);
        std::vector<Nanos> retriesPassed;
        const std::vector<Decision> d = decisionsOf(token);
        QCOMPARE(d.size(), std::size_t(25));
        for (std::size_t i = 0; i < d.size(); ++i)
            if (d[i].allowed && token.times[i] > 0)
                retriesPassed.push_back(token.times[i]);
        QCOMPARE(retriesPassed, (std::vector<Nanos>{2 * kSecond, 4 * kSecond, 6 * kSecond, 8 * kSecond, 10 * kSecond}));
    }

    void httpRounding()
    {
        // 8 at 0 s to C 4 refilled at 4/s: 4 pass, 4 denied with retry_after 0.25 s (one token
        // is back then, not four), sent as Retry-After: 1. At 1 s the bucket is full again: all 4
        // pass on their first retry, each 1 s after it asked. 8 + 4 = 12 attempts.
        const Loaded p = load("http-rounding");
        for (const AlgorithmTrace& r : p.trace.results) {
            QCOMPARE(r.clients->attempts, 12);
            QCOMPARE(r.clients->gaveUp, 0);
            QCOMPARE(r.clients->latency.max, kSecond);
            const std::vector<Decision> d = decisionsOf(r);
            QCOMPARE(d.size(), std::size_t(12));
            for (std::size_t i = 0; i < d.size(); ++i) {
                if (!d[i].allowed)
                    QCOMPARE(d[i].retryAfter, kSecond / 4); // what was needed
                else if (r.times[i] > 0)
                    QCOMPARE(r.times[i], kSecond); // what the header made them wait
            }
        }
        // The lesson's second experiment, Retry set to retry_after: the 4 come back together at
        // 0.25 s, where one token waits: 1 passes, 3 are told 0.25 s again; at 0.5 s 1 of 3, at
        // 0.75 s 1 of 2 on the third retry, and the last, denied on its third retry, gives up.
        // Attempts 8 + 4 + 3 + 2 = 17; admitted retries at 0.25, 0.5 and 0.75 s.
        Scenario exact = p.scenario;
        ClientOptions o = exact.clients->options();
        QCOMPARE(o.maxRetries, 3);
        o.retry = RetryPolicy::RetryAfter;
        exact.clients = ClientConfig::make(o);
        const Trace t = simulateRows(exact);
        for (const AlgorithmTrace& r : t.results) {
            QCOMPARE(r.clients->attempts, 17);
            QCOMPARE(r.clients->gaveUp, 1);
            QCOMPARE(r.clients->succeeded, 7);
            std::vector<Nanos> retriesPassed;
            const std::vector<Decision> d = decisionsOf(r);
            QCOMPARE(d.size(), r.times.size());
            for (std::size_t i = 0; i < d.size(); ++i)
                if (d[i].allowed && r.times[i] > 0)
                    retriesPassed.push_back(r.times[i]);
            QCOMPARE(retriesPassed, (std::vector<Nanos>{kSecond / 4, kSecond / 2, 3 * kSecond / 4}));
        }
        // The numbers the lesson states are these.
        const QString lesson = QString::fromStdString(p.scenario.lesson);
        for (const char* claim : {"retry_after 0.25 s", "says 1", "12 attempts", "17 attempts", "3 retries"})
            QVERIFY2(lesson.contains(claim), claim);
    }

    void noisyClient()
    {
        // Client 0: 20 requests in the first second; clients 1..4: 2 each. Per client, 5 per
        // 10 s: client 0 gets 5 (the bucket, 5 + 0.475 tokens, too), the others all 8: 13.
        const Loaded p = load("noisy-client");
        for (const AlgorithmTrace& r : p.trace.results) {
            QCOMPARE(r.metrics.allowed, 13);
            QVERIFY(r.log && r.log->size() == std::size_t(r.clients->attempts));
            for (const LoggedAttempt& a : *r.log)
                if (a.client != 0)
                    QVERIFY(a.allowed);
        }
        // One global key: the first 5 arrivals pass (four of client 0's and client 1's first),
        // everything else in the window is denied.
        Scenario global = p.scenario;
        ClientOptions o = global.clients->options();
        o.key = KeyMode::Global;
        global.clients = ClientConfig::make(o);
        const Trace t = simulateRows(global);
        const AlgorithmTrace& fixed = result(t, Algorithm::FixedWindow);
        QCOMPARE(fixed.metrics.allowed, 5);
        int others = 0;
        for (const LoggedAttempt& a : *fixed.log)
            others += a.client != 0 && a.allowed;
        QCOMPARE(others, 1);
    }

    void pickALimit()
    {
        // The rows are the brute force's first 30 s: 4 requests at each whole second 0..29, at 60
        // per 60 s. The windows admit the first 60 (seconds 0..14); the bucket its 60 tokens plus
        // the 29 refilled by 29 s (it is never full again): 89. The day is replayed in tst_cli_replay.
        const Loaded p = load("pick-a-limit");
        QCOMPARE(p.scenario.trafficLog, std::string(":/traffic/api-day.log.gz"));
        QCOMPARE(p.trace.arrivals.size(), std::size_t(120));
        QCOMPARE(result(p.trace, Algorithm::FixedWindow).metrics.allowed, 60);
        QCOMPARE(result(p.trace, Algorithm::SlidingWindowLog).metrics.allowed, 60);
        QCOMPARE(result(p.trace, Algorithm::TokenBucket).metrics.allowed, 89);
        QCOMPARE(deniedSeconds(p.trace, Algorithm::FixedWindow).front(), Nanos(15));
    }
};

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
