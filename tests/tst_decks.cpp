// Deck files (io/deckfile.h): reading, writing and refusing them, and the shipped decks' numbers,
// each derived by hand below and checked against the rows the app draws.
#include "deckfile.h"
#include "engine/clients.h"
#include "preset_rows.h"
#include "scenariofile_reader.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;
using namespace ratelab::io;

namespace {

struct Expected {
    Algorithm algorithm;
    std::size_t admitted;
};

std::size_t admittedOf(const AlgorithmTrace& r)
{
    std::size_t n = 0;
    for (const Decision& d : decisionsOf(r))
        n += d.allowed ? 1 : 0;
    return n;
}

Deck shipped(const QString& id)
{
    const DeckLoad load = loadDeckFile(id);
    if (!load.deck)
        qFatal("%s", qPrintable(load.error));
    return *load.deck;
}

// checkStep runs a step's rows and compares each with its hand-derived count; the counts of the
// last `told` rows (those the step is about) also appear in its answer (or narrative), so the
// text says what is drawn.
void checkStep(const DeckStep& step, std::size_t requests, const std::vector<Expected>& rows, std::size_t told = 1)
{
    const Trace t = simulateRows(step.scenario);
    QCOMPARE(t.arrivals.size(), requests);
    QCOMPARE(t.results.size(), rows.size());
    const QString text = QString::fromStdString(step.answer.empty() ? step.scenario.lesson : step.answer);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Expected& e = rows[i];
        QCOMPARE(admittedOf(rowResult(t, e.algorithm)), e.admitted);
        if (i + told >= rows.size())
            QVERIFY2(text.contains(QString::number(e.admitted)), qPrintable(text));
    }
}

// Client rows count attempts, not arrivals: Attempted is a row's attempts and the requests among
// them that succeeded in the end.
struct Attempted {
    Algorithm algorithm;
    std::int64_t attempts, succeeded;
};

// checkClients runs a step whose rows are clients that retry and compares each row's attempts and
// successes with its hand-derived ones; the attempts of the last `told` rows appear in the answer.
void checkClients(const DeckStep& step, std::size_t requests, const std::vector<Attempted>& rows, std::size_t told = 1)
{
    const Trace t = simulateRows(step.scenario);
    QCOMPARE(t.arrivals.size(), requests);
    QCOMPARE(t.results.size(), rows.size());
    const QString text = QString::fromStdString(step.answer);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Attempted& e = rows[i];
        const ClientStats& k = *rowResult(t, e.algorithm).clients;
        QCOMPARE(k.requests, std::int64_t(requests));
        QCOMPARE(k.attempts, e.attempts);
        QCOMPARE(k.succeeded, e.succeeded);
        QCOMPARE(std::int64_t(decisionsOf(rowResult(t, e.algorithm)).size()), e.attempts);
        if (i + told >= rows.size())
            QVERIFY2(text.contains(QString::number(e.attempts)), qPrintable(text));
    }
}

// says checks that a step's text (narrative, question and answer) states each claim.
void says(const DeckStep& step, std::initializer_list<const char*> claims)
{
    const QString text = QString::fromStdString(step.scenario.lesson + " " + step.question + " " + step.answer);
    for (const char* claim : claims)
        QVERIFY2(text.contains(QString::fromUtf8(claim)), claim);
}

} // namespace

class TestDecks : public QObject {
    Q_OBJECT
private slots:
    void fixedWindow2x()
    {
        const Deck d = shipped("fixed-window-2x");
        QCOMPARE(d.steps.size(), std::size_t(4));
        // Bursts of 10 requests at one instant, at 9.9 s and 10.1 s (edge-burst), limit 10 per 10 s.
        // Step 1, the first burst alone: all 10 in the window [0, 10) s, which allows 10.
        checkStep(d.steps[0], 10, {{Algorithm::FixedWindow, 10}});
        QVERIFY(d.steps[0].question.empty());
        QCOMPARE(*d.steps[0].from, Nanos(9'800'000'000));
        // Step 2, the second burst at 10.1 s counts in [10, 20) s: 10 + 10 = 20.
        checkStep(d.steps[1], 20, {{Algorithm::FixedWindow, 20}});
        QVERIFY(!d.steps[1].question.empty());
        // Step 3, the log: at 10.1 s the ten entries of 9.9 s are all > 10.1 - 10, so the
        // log holds 10 and denies until 19.9 s: 10.
        checkStep(d.steps[2], 20, {{Algorithm::FixedWindow, 20}, {Algorithm::SlidingWindowLog, 10}});
        // Step 4, the counter at 10.1 s: prev 10, e = 0.1, E = 10 * 9.9 / 10 + 0 = 9.9 < 10, admit;
        // the next nine at the same instant find E = 9.9 + 1 = 10.9: denied. 10 + 1 = 11.
        checkStep(d.steps[3], 20,
                  {{Algorithm::FixedWindow, 20}, {Algorithm::SlidingWindowLog, 10}, {Algorithm::SlidingWindowCounter, 11}});
    }

    void bucketsBurstNow()
    {
        const Deck d = shipped("buckets-burst-now");
        QCOMPARE(d.steps.size(), std::size_t(4));
        // Bursts of 4 at one instant every 2 s, 32 requests; C = 5, r = 1/s, full at the start.
        // Burst 1 at 0 s: 5 -> 1 token, 4 pass. Burst 2: 1 + 2 = 3 tokens, 3 pass. Each later
        // burst finds the 2 tokens of 2 s: 2 pass. 4 + 3 + 6 * 2 = 19.
        checkStep(d.steps[0], 32, {{Algorithm::TokenBucket, 19}});
        // The meter's water is C - tokens: the same 19.
        checkStep(d.steps[1], 32, {{Algorithm::TokenBucket, 19}, {Algorithm::LeakyBucket, 19}}, 2);
        const Trace queue = simulateRows(d.steps[2].scenario);
        QCOMPARE(admittedOf(rowResult(queue, Algorithm::LeakyBucketQueue)), std::size_t(19));
        // C = 10: before bursts 1-4 the bucket holds 10, 8, 6, 4 (each burst takes 4 and 2 s
        // bring 2): 4 x 4 pass; then 2 a burst: 4 x 2. 16 + 8 = 24.
        checkStep(d.steps[3], 32, {{Algorithm::TokenBucket, 24}});
        QCOMPARE(d.steps[3].scenario.config.capacity(), 10);
    }

    void estimatesAndMemory()
    {
        const Deck d = shipped("estimates-and-memory");
        QCOMPARE(d.steps.size(), std::size_t(5));
        // counter-error: bursts of 10 at one instant at 9, 18.5, 28, 37.5 and 47 s (start 9 s,
        // period 9.5 s), 50 requests; L = 10 per W = 10 s.
        // Step 1. Fixed window: the bursts fall in [0, 10), [10, 20), [20, 30), [30, 40) and
        // [40, 50) s, one each, and each window allows 10: all 50; (8.5 s, 18.5 s] holds 20.
        // The log keeps s while s > t - 10 s. 9 s: empty, 10 pass. 18.5 s: 9 > 8.5, 10 kept: 0.
        // 28 s: 9 > 18 fails, empty: 10. 37.5 s: 28 > 27.5: 0. 47 s: 28 > 37 fails: 10. 30 in
        // all; at the end it keeps the 10 times of 47 s, 8 B each: 80 B. The fixed window keeps
        // its window's index and count: 2 x 8 = 16 B.
        checkStep(d.steps[0], 50, {{Algorithm::FixedWindow, 50}, {Algorithm::SlidingWindowLog, 30}}, 2);
        {
            const Trace t = simulateRows(d.steps[0].scenario);
            QCOMPARE(rowResult(t, Algorithm::SlidingWindowLog).metrics.memory.bytes, 80);
            QCOMPARE(rowResult(t, Algorithm::SlidingWindowLog).metrics.memory.entries, 10);
            QCOMPARE(rowResult(t, Algorithm::FixedWindow).metrics.memory.bytes, 16);
        }
        says(d.steps[0], {"50 requests", "10 per 10 s", "8 bytes each", "9 s, 28 s and 47 s", "18.5 s and 37.5 s", "the 10 times before",
                          "10 times at the end, 80 bytes", "2 numbers", "16 bytes"});
        // Step 2. The counter, E = prev (W - e) / W + cur, admits while E < 10:
        //   9 s: prev 0: cur 0 .. 9 pass, 10.
        //   18.5 s: prev 10, e = 8.5 s, (W - e) / W = 0.15: E = 1.5 + cur < 10 for cur <= 8: 9.
        //   28 s: prev 9, e = 8 s: 9 x 0.2 = 1.8 + cur: cur <= 8: 9.
        //   37.5 s: prev 9, e = 7.5 s: 9 x 0.25 = 2.25 + cur: cur <= 7: 8.
        //   47 s: prev 8, e = 7 s: 8 x 0.3 = 2.4 + cur: cur <= 7: 8.
        // 10 + 9 + 9 + 8 + 8 = 44; (8.5 s, 18.5 s] holds 10 + 9 = 19, the log's most is 10. It
        // keeps the window's index, prev and cur: 3 x 8 = 24 B.
        checkStep(d.steps[1], 50,
                  {{Algorithm::FixedWindow, 50}, {Algorithm::SlidingWindowLog, 30}, {Algorithm::SlidingWindowCounter, 44}});
        {
            const Trace t = simulateRows(d.steps[1].scenario);
            const AlgorithmTrace& counter = rowResult(t, Algorithm::SlidingWindowCounter);
            QCOMPARE(counter.metrics.maxInWindow, 19);
            QCOMPARE(rowResult(t, Algorithm::SlidingWindowLog).metrics.maxInWindow, 10);
            QCOMPARE(counter.metrics.memory.bytes, 24);
            // Per burst, as the answer lists them.
            const Nanos bursts[] = {9 * kNanosPerSecond, 18'500'000'000, 28 * kNanosPerSecond, 37'500'000'000,
                                    47 * kNanosPerSecond};
            const int perBurst[] = {10, 9, 9, 8, 8};
            const std::vector<Decision> dec = decisionsOf(counter);
            for (int b = 0; b < 5; ++b) {
                int n = 0;
                for (std::size_t i = 0; i < dec.size(); ++i)
                    n += (t.arrivals[i] == bursts[b] && dec[i].allowed) ? 1 : 0;
                QCOMPARE(n, perBurst[b]);
            }
        }
        says(d.steps[1], {"24 bytes", "10, 9, 9, 8 and 8", "15%", "1.5", "19 in 10 s", "the log lets 10"});
        // Step 3, n-per-t: the token bucket's worst case at L = 10 per 10 s, C = 10, r = 1/s: 10
        // at 0 s, then one at each of 1 .. 9 s, 19 requests. The bucket spends its 10 tokens at
        // 0 s, and each second refills exactly the 1 token the next request takes: all 19, within
        // [0 s, 9 s]. The log: the 10 entries of 0 s are kept until 10 s, so 1 .. 9 s are denied:
        // 10. The counter: all 19 in window 0 with prev = 0, E = cur: 10. Bounds in any 10 s: the
        // log 10 ceil(10 s / 10 s) = 10; the bucket C + floor(r (10 s - 1 ns)) = 10 + 9 = 19;
        // the counter max(10, ceil(10 (2W - 2 ns) / W)) = 20.
        checkStep(d.steps[2], 19,
                  {{Algorithm::TokenBucket, 19}, {Algorithm::SlidingWindowLog, 10}, {Algorithm::SlidingWindowCounter, 10}}, 3);
        {
            const Trace t = simulateRows(d.steps[2].scenario);
            QCOMPARE(rowResult(t, Algorithm::TokenBucket).metrics.maxInWindow, 19);
            QCOMPARE(t.arrivals.back(), 9 * kNanosPerSecond);
            QCOMPARE(rowResult(t, Algorithm::SlidingWindowLog).bound->atMost, 10);
            QCOMPARE(rowResult(t, Algorithm::TokenBucket).bound->atMost, 19);
            QCOMPARE(rowResult(t, Algorithm::SlidingWindowCounter).bound->atMost, 20);
        }
        says(d.steps[2], {"10 requests per 10 s", "10 tokens", "1 a second", "10 requests at 0 s", "from 1 s to 9 s",
                          "19 requests", "All 19 within 9 s", "at most 10 in any 10 s", "the bucket allows 19",
                          "the counter 20"});
        // Step 4, the counter's own worst case in T = 10 s: 10 at 10 s - 1 ns (window 0, prev 0:
        // E = cur, all 10 pass) and 10 at 20 s - 2 ns, the latest instant whose span back to the
        // first burst, 10 s - 1 ns, is under T. There e = 10 s - 2 ns, (W - e) / W = 2e-10:
        // E = 10 x 2e-10 + cur = 2e-9 + cur < 10 for cur <= 9: all 10. 20 within 10 s.
        // The log at 20 s - 2 ns keeps 10 s - 1 ns (> 10 s - 2 ns): denies all 10: 10.
        // The bucket: 10 pass, then 10 s - 1 ns refills 9.999999999 tokens: 9 pass: 19.
        checkStep(d.steps[3], 20,
                  {{Algorithm::SlidingWindowCounter, 20}, {Algorithm::SlidingWindowLog, 10}, {Algorithm::TokenBucket, 19}}, 3);
        {
            const Trace t = simulateRows(d.steps[3].scenario);
            QCOMPARE(t.arrivals.front(), 10 * kNanosPerSecond - 1);
            QCOMPARE(t.arrivals.back(), 20 * kNanosPerSecond - 2);
            QCOMPARE(rowResult(t, Algorithm::SlidingWindowCounter).metrics.maxInWindow, 20);
        }
        says(d.steps[3], {"10 requests arrive in the last nanosecond before 10 s", "10 more just before 20 s",
                          "20 within 10 s"});
        // Step 5, upstash-sliding-vs-log: 0 .. 9 at 9 s, 10 at 9.5 s, 11 .. 20 at 10 .. 19 s.
        // slidingWindow(10, "10 s"): at 9 s the previous window [-10, 0) s is empty: cur 0 .. 9
        // pass. 9.5 s: 10 + 0 >= 10, denied, and the ephemeral cache blocks it until the window's
        // end, 10 s, inclusive: 10 s is denied (its estimate, floor(1 x 10) + 0 = 10, would deny it
        // too). At 10 + k s, k = 1 .. 9: previous floor((1 - k/10) 10) = 10 - k, current k - 1
        // (the ones at 11 .. 10 + k - 1 s): 9 < 10, each passes. 10 + 9 = 19; (8 s, 18 s] holds
        // the 10 of 9 s and 11 .. 18 s: 18. The log: 10 at 9 s, then nothing until they leave
        // (9 > 19 - 10 fails) at 19 s: 11.
        checkStep(d.steps[4], 21, {{Algorithm::UpstashRatelimit, 19}, {Algorithm::SlidingWindowLog, 11}}, 2);
        QCOMPARE(rowResult(simulateRows(d.steps[4].scenario), Algorithm::UpstashRatelimit).metrics.maxInWindow, 18);
        says(d.steps[4], {"21 requests", "10 at once at 9 s", "one at 9.5 s", "from 10 s to 19 s", "18 of them from 9 s to 18 s, within 10 s",
                          "the 11th at 19 s"});
    }

    void retriesAndRetryAfter()
    {
        const Deck d = shipped("retries-and-retry-after");
        QCOMPARE(d.steps.size(), std::size_t(5));
        // What each step's client does with a 429: steps 2 to 4 wait the exact retry_after, step 5
        // the Retry-After header's whole seconds, step 1 its own 0.5 s.
        const RetryPolicy policies[] = {RetryPolicy::Immediate, RetryPolicy::RetryAfter, RetryPolicy::RetryAfter,
                                        RetryPolicy::RetryAfter, RetryPolicy::RetryAfterHeader};
        for (std::size_t i = 0; i < 5; ++i)
            QCOMPARE(d.steps[i].scenario.clients->options().retry, policies[i]);
        // Step 1, tight-retry-loop: 20 at 0 s, a fixed window of 10 per 10 s, each denial retried
        // 0.5 s later, up to 20 times. 10 pass at 0 s. Retries at 0.5, 1, ..., 9.5 s (19 of them)
        // fall in the full window [0, 10) s: denied; the 20th, at 10 s, opens the next window:
        // all 10 pass. 20 + 10 x 20 = 220 attempts, every request succeeds.
        checkClients(d.steps[0], 20, {{Algorithm::FixedWindow, 220, 20}});
        says(d.steps[0], {"20 requests at once", "10 requests per 10 s", "0.5 s later", "up to 20 times",
                          "10 pass at 0 s", "20th retry, at 10 s", "20 + 10 x 20 = 220"});
        // Step 2, the same with retry_after: the 10 denied at 0 s are told (0 + 1) 10 s - 0 =
        // 10 s; all retry at 10 s, in the next window, and pass. 20 + 10 = 30; the last success
        // at 10 s in both steps; 220 - 30 = 190 fewer.
        checkClients(d.steps[1], 20, {{Algorithm::FixedWindow, 30, 20}});
        {
            const Trace t = simulateRows(d.steps[1].scenario); // kept: r refers into it
            const AlgorithmTrace& r = rowResult(t, Algorithm::FixedWindow);
            for (std::size_t i = 0; i < r.times.size(); ++i)
                QCOMPARE(r.times[i], i < 20 ? Nanos(0) : 10 * kNanosPerSecond);
            QCOMPARE(r.clients->latency.max, 10 * kNanosPerSecond);
        }
        says(d.steps[1], {"10 s", "at 10 s, where all 10 pass", "190 fewer"});
        // Step 3, honour-retry-after: 10 at 0 s, L = 5 per 10 s; the bucket C = 5, r = 0.5/s.
        // Fixed window: 5 pass, 5 are told 10 s; at 10 s a new window: all 5 pass. 10 + 5 = 15.
        // Bucket: 5 pass (0 tokens), 5 are told (1 - 0) / 0.5 = 2 s. At 2 s one token: 1 passes,
        // 4 are told 2 s; at 4 s 1 of 4, at 6 s 1 of 3, at 8 s 1 of 2, at 10 s the last (its 5th
        // retry, within max_retries 5). 10 + 5 + 4 + 3 + 2 + 1 = 25.
        checkClients(d.steps[2], 10, {{Algorithm::FixedWindow, 15, 10}, {Algorithm::TokenBucket, 25, 10}}, 2);
        says(d.steps[2], {"10 requests at once", "5 per 10 s", "5 tokens", "1 token every 2 s", "told 2 s",
                          "10 + 5 + 4 + 3 + 2 + 1 = 25", "all 5 to 10 s"});
        // Step 4, comes-back-at-reset: 30 clients, one shared key, request k at k/10 s (k = 0 ..
        // 29), each retried exactly at retry_after. Fixed window: 0 .. 0.9 s pass; the 20 at 1.0
        // .. 2.9 s are told 10 s - t, so all return at 10 s: 10 pass, 10 are told 10 s and pass at
        // 20 s. 30 + 20 + 10 = 60 attempts; (0 s, 10 s] holds 0.1 .. 0.9 s and 10 s: 9 + 10 = 19.
        // The log: at 10 + k/10 s (k = 0 .. 9) the entry of k/10 s expires and the 20 - k still
        // waiting all come, one passes; the entries of 10 .. 10.9 s expire at 20 .. 20.9 s and
        // the 10 - k left come: 30 + (20 + ... + 11) + (10 + ... + 1) = 30 + 155 + 55 = 240.
        checkClients(d.steps[3], 30, {{Algorithm::FixedWindow, 60, 30}, {Algorithm::SlidingWindowLog, 240, 30}}, 2);
        QCOMPARE(rowResult(simulateRows(d.steps[3].scenario), Algorithm::FixedWindow).metrics.maxInWindow, 19);
        says(d.steps[3], {"30 clients", "10 requests per 10 s", "every 0.1 s from 0 s to 2.9 s", "to the nanosecond", "other 20 to come back at 10 s",
                          "all 20 return at once", "10 pass and 10 are sent on to 20 s", "19 pass within 10 s (9 from 0.1 s to 0.9 s, 10 at 10 s)", "every 0.1 s"});
        // Step 5, http-rounding: 8 at 0 s, C = 4, r = 4/s. 4 pass; the 4 denied are told
        // (1 - 0) / 4 = 0.25 s, sent as Retry-After: ceil(0.25) = 1. At 1 s the bucket holds
        // min(4, 4 x 1) = 4 tokens: all 4 pass on their first retry. 8 + 4 = 12.
        checkClients(d.steps[4], 8, {{Algorithm::TokenBucket, 12, 8}});
        {
            const Trace t = simulateRows(d.steps[4].scenario); // kept: r refers into it
            const AlgorithmTrace& r = rowResult(t, Algorithm::TokenBucket);
            const std::vector<Decision> dec = decisionsOf(r);
            for (std::size_t i = 0; i < dec.size(); ++i) {
                QCOMPARE(dec[i].allowed, i < 4 || i >= 8);
                if (!dec[i].allowed)
                    QCOMPARE(dec[i].retryAfter, kNanosPerSecond / 4);
                QCOMPARE(r.times[i], i < 8 ? Nanos(0) : kNanosPerSecond);
            }
        }
        says(d.steps[4], {"4 tokens", "4 tokens a second", "8 requests", "4 pass", "0.25 s", "it says 1", "At 1 s"});
    }

    void manyServersOneLimit()
    {
        const Deck d = shipped("many-servers-one-limit");
        QCOMPARE(d.steps.size(), std::size_t(3));
        // A request every 0.25 s from 0 to 9.75 s, 40 in all; L = 10 per 10 s, C = 10, r = 1/s.
        // One server: the windows count all 40 in one 10 s: 10. The bucket admits request k
        // (at k/4 s) while 10 + k/4 - k >= 1, k <= 12: 13; then when a whole token is back,
        // k = 16, 20, ..., 36: 6 more. 19.
        checkStep(d.steps[0], 40,
                  {{Algorithm::FixedWindow, 10}, {Algorithm::SlidingWindowLog, 10}, {Algorithm::TokenBucket, 19}}, 3);
        // Two servers, round robin, local: each sees 20 requests 0.5 s apart and admits its own
        // 10 (the bucket: k/2 + 10 - k >= 1 for k <= 18, 19 of its 20): 20, 20, 38.
        checkStep(d.steps[1], 40,
                  {{Algorithm::FixedWindow, 20}, {Algorithm::SlidingWindowLog, 20}, {Algorithm::TokenBucket, 38}}, 3);
        // One shared store: as one server, 10, 10, 19.
        checkStep(d.steps[2], 40,
                  {{Algorithm::FixedWindow, 10}, {Algorithm::SlidingWindowLog, 10}, {Algorithm::TokenBucket, 19}}, 3);
    }

    void changeLaysKeysOverThePreviousStep()
    {
        const DeckLoad load = parseDeck(R"({"format": "ratelab-deck", "version": 1, "title": "T", "steps": [
            {"title": "a", "narrative": "first", "preset": "edge-burst", "focus": {"rows": ["gcra"], "pin": 3}},
            {"title": "b", "change": {"pattern": {"n": 12}, "limit": 4}, "question": "Q?", "answer": "A."}]})");
        QVERIFY2(load.deck, qPrintable(load.error));
        const DeckStep& a = load.deck->steps[0];
        const DeckStep& b = load.deck->steps[1];
        QCOMPARE(a.scenario.title, std::string("a"));
        QCOMPARE(a.scenario.lesson, std::string("first"));
        QCOMPARE(a.scenario.algorithms, std::vector<Algorithm>{Algorithm::Gcra});
        QCOMPARE(*a.pin, std::size_t(3));
        QVERIFY(!a.hasFocus());
        // b: the preset with n = 12 (its other pattern fields kept: a burst from 9.9 s), the
        // limit 4, the rows of a, and no narrative of a's.
        QCOMPARE(resolveArrivals(b.scenario).size(), std::size_t(12));
        QCOMPARE(resolveArrivals(b.scenario).front(), Nanos(9'900'000'000));
        QCOMPARE(b.scenario.config.limit(), 4);
        QCOMPARE(b.scenario.algorithms, std::vector<Algorithm>{Algorithm::Gcra});
        QCOMPARE(b.scenario.lesson, std::string());
        QCOMPARE(b.question, std::string("Q?"));
        QCOMPARE(b.answer, std::string("A."));
    }

    // A step that asks and has no narrative shows none: edge-burst's own lesson says "admits all
    // 20", the answer to the question asked. Without a question the preset's lesson stays.
    void aQuestionIsNotAnsweredByAPresetsLesson()
    {
        const DeckLoad load = parseDeck(R"({"format": "ratelab-deck", "version": 1, "steps": [
            {"title": "a", "preset": "edge-burst", "question": "How many does each admit?"},
            {"title": "b", "preset": "edge-burst"}]})");
        QVERIFY2(load.deck, qPrintable(load.error));
        QCOMPARE(load.deck->steps[0].scenario.lesson, std::string());
        QVERIFY(QString::fromStdString(load.deck->steps[1].scenario.lesson).contains("admits all 20"));
    }

    // A change of the limit or the window moves capacity and rate along when they followed them,
    // as the app's ticked "follow" box does (before, {"limit": 20} over edge-burst left capacity
    // 10 and rate 1/s, unannounced). edge-burst: limit 10 per 10 s, capacity 10, rate 1/s, so it
    // follows; limit 20 gives capacity 20 and 20 / 10 s = 2/s; window 5 s then gives 20 / 5 s =
    // 4/s. A capacity or rate named in the change, or a scenario with its own (capacity 7 of
    // limit 10), keeps them, as typing one unticks the box.
    void aChangeOfLimitMovesFollowingCapacityAndRate()
    {
        const DeckLoad load = parseDeck(R"({"format": "ratelab-deck", "version": 1, "steps": [
            {"title": "a", "preset": "edge-burst"},
            {"title": "b", "change": {"limit": 20}},
            {"title": "c", "change": {"window": "5"}},
            {"title": "d", "change": {"limit": 30, "capacity": 7}},
            {"title": "e", "change": {"limit": 40}}]})");
        QVERIFY2(load.deck, qPrintable(load.error));
        const auto& steps = load.deck->steps;
        QCOMPARE(steps[1].scenario.config.limit(), 20);
        QCOMPARE(steps[1].scenario.config.capacity(), 20);
        QCOMPARE(steps[1].scenario.config.rate(), Rate::reduced(2, kNanosPerSecond));
        QCOMPARE(steps[2].scenario.config.capacity(), 20);
        QCOMPARE(steps[2].scenario.config.rate(), Rate::reduced(4, kNanosPerSecond));
        // d names capacity 7: the rate stays c's 4/s, not 30 / 5 s = 6/s.
        QCOMPARE(steps[3].scenario.config.capacity(), 7);
        QCOMPARE(steps[3].scenario.config.rate(), Rate::reduced(4, kNanosPerSecond));
        // e over d, whose capacity is its own: limit 40, capacity 7 and rate 4/s stay.
        QCOMPARE(steps[4].scenario.config.limit(), 40);
        QCOMPARE(steps[4].scenario.config.capacity(), 7);
        QCOMPARE(steps[4].scenario.config.rate(), Rate::reduced(4, kNanosPerSecond));
    }

    // Where a JSON error is, as an editor shows it: line and column (before, a byte offset). The
    // deck below breaks on line 4: after "version": 1 on line 3 comes "steps" without a comma, and
    // Qt stops at that key's opening quote, column 3 of "  \"steps\"".
    void aJsonErrorSaysItsLineAndColumn()
    {
        const DeckLoad load = parseDeck("{\n  \"format\": \"ratelab-deck\",\n  \"version\": 1\n  \"steps\": []\n}\n");
        QVERIFY(!load.deck);
        QVERIFY2(load.error.startsWith("not valid JSON: "), qPrintable(load.error));
        QVERIFY2(load.error.contains("at line 4, column 3"), qPrintable(load.error));
        // Columns count characters: in {"é": x} the x is byte 7 but character 6, column 7.
        QCOMPARE(reading::placeInJson(QByteArray("{\"\xc3\xa9\": x}"), 7), QString("line 1, column 7"));
        QCOMPARE(reading::placeInJson(QByteArray("ab\ncd\nef"), 7), QString("line 3, column 2"));
    }

    void roundTripsThroughAFile()
    {
        for (const QString& id : shippedDecks()) {
            const Deck d = shipped(id);
            QTemporaryDir dir;
            const QString path = dir.filePath("d.ratelab-deck.json");
            QCOMPARE(saveDeck(d, path), QString());
            const DeckLoad again = loadDeckFile(path);
            QVERIFY2(again.deck, qPrintable(again.error));
            QVERIFY(*again.deck == d);
        }
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        const QByteArray head = R"({"format": "ratelab-deck", "version": 1, "steps": )";
        QTest::newRow("not json") << QByteArray("{") << "not valid JSON";
        QTest::newRow("a scenario") << QByteArray(R"({"format": "ratelab-scenario"})") << "not a RateLab deck";
        QTest::newRow("newer") << QByteArray(R"({"format": "ratelab-deck", "version": 2, "steps": []})") << "newer than";
        QTest::newRow("no steps") << head + "[]}" << "at least one step";
        QTest::newRow("first is a change") << head + R"([{"title": "a", "change": {"limit": 3}}]})" << "step 1: the first step needs";
        QTest::newRow("both sources") << head + R"([{"title": "a", "preset": "edge-burst", "scenario": {}}]})" << "not both";
        QTest::newRow("unknown preset") << head + R"([{"title": "a", "preset": "nope"}]})" << "step 1: unknown preset 'nope'";
        QTest::newRow("typo") << head + R"([{"title": "a", "preset": "edge-burst", "questoin": "?"}]})" << "step 1: unknown key \"questoin\"";
        QTest::newRow("no title") << head + R"([{"preset": "edge-burst"}]})" << "step 1: a step needs a \"title\"";
        QTest::newRow("half a span") << head + R"([{"title": "a", "preset": "edge-burst", "focus": {"from": "1"}}]})" << "both \"from\" and \"to\"";
        QTest::newRow("span backwards") << head + R"([{"title": "a", "preset": "edge-burst", "focus": {"from": "2", "to": "1"}}]})" << "later than";
        QTest::newRow("pin past the end") << head + R"([{"title": "a", "preset": "edge-burst", "focus": {"pin": 20}}]})" << "step 1: \"focus\".pin is request 20, but the step has 20 requests";
        QTest::newRow("bad value in step 2") << head + R"([{"title": "a", "preset": "edge-burst"}, {"title": "b", "change": {"limit": -1}}]})" << "step 2: limit must be at least 1";
        QTest::newRow("bad row") << head + R"([{"title": "a", "preset": "edge-burst", "focus": {"rows": ["fixed"]}}]})" << "step 1: \"focus\".rows: unknown row id 'fixed' (the row ids: fixed_window, ";
        QTest::newRow("typo in a change") << head + R"([{"title": "a", "preset": "edge-burst"}, {"title": "b", "change": {"pattern": {"nn": 40}}}]})" << "step 2: unknown field 'pattern.nn', a typo?";
        QTest::newRow("typo at the top of a change") << head + R"([{"title": "a", "preset": "edge-burst", "change": {"limitt": 20}}]})" << "step 1: unknown field 'limitt'";
        QTest::newRow("answer alone") << head + R"([{"title": "a", "preset": "edge-burst", "answer": "x"}]})" << "needs the \"question\"";
        QTest::newRow("inexact number") << head + R"([{"title": "a", "preset": "edge-burst", "focus": {"from": 0.1000000000000000055511, "to": 1}}]})" << "cannot be read exactly";
    }

    void refusals()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        const DeckLoad load = parseDeck(json);
        QVERIFY(!load.deck);
        QVERIFY2(load.error.contains(error), qPrintable(load.error));
        QVERIFY(!load.error.contains('\n'));
    }
};

QTEST_GUILESS_MAIN(TestDecks)
#include "tst_decks.moc"
