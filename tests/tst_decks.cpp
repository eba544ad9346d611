// Deck files (io/deckfile.h): reading, writing and refusing them, and the shipped decks' numbers,
// each derived by hand below and checked against the rows the app draws.
#include "deckfile.h"
#include "limiters/nginx_limit_req.h"
#include "view/row_extras.h"
#include "engine/clients.h"
#include "preset_rows.h"
#include "scenariofile_reader.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

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

// says checks that a step's words (narrative, question and answer) state each phrase: the
// numbers a step tells beyond the admitted counts checkStep looks for.
void says(const DeckStep& step, std::initializer_list<const char*> phrases)
{
    const QString text = QString::fromStdString(step.scenario.lesson + " " + step.question + " " + step.answer);
    for (const char* said : phrases)
        QVERIFY2(text.contains(QString::fromUtf8(said)), said);
}

// admittedTimes returns the times of a row's admitted attempts, in decision order: from the
// engine's log (a row with clients, layers or a throttle) or from the arrivals (a plain row).
std::vector<Nanos> admittedTimes(const Trace& t, const AlgorithmTrace& r)
{
    std::vector<Nanos> out;
    if (r.log) {
        for (const LoggedAttempt& a : *r.log)
            if (a.allowed)
                out.push_back(a.t);
        return out;
    }
    for (std::size_t i = 0; i < r.decisions.size(); ++i)
        if (r.decisions[i].allowed)
            out.push_back(t.arrivals[i]);
    return out;
}

// runOf is a server row's run (a row with a server is always run by the engine).
const RowRun& runOf(const AlgorithmTrace& row)
{
    if (!row.engine || !row.engine->run.server)
        qFatal("a row of the server ran without the engine");
    return row.engine->run;
}

// goodput counts, per whole second [k, k + 1), the attempts served in time that completed in it:
// the bars of the row's goodput lane, added up a second at a time.
std::vector<std::int64_t> goodput(const AlgorithmTrace& row, int seconds)
{
    std::vector<std::int64_t> out(std::size_t(seconds), 0);
    for (const ServedAttempt& a : runOf(row).served)
        if (a.outcome == Outcome::InTime && a.end / kNanosPerSecond < seconds)
            ++out[std::size_t(a.end / kNanosPerSecond)];
    return out;
}

// tells checks that a step's text (its answer, or its narrative when it asks nothing) states
// each number.
void tells(const DeckStep& step, const QStringList& numbers)
{
    const QString text = QString::fromStdString(step.answer.empty() ? step.scenario.lesson : step.answer);
    for (const QString& n : numbers)
        QVERIFY2(text.contains(n), qPrintable(n + " not in: " + text));
}

// admittedByClient counts a row's admitted attempts per client (ids 0 to 4 in noisy-client).
std::vector<std::int64_t> admittedByClient(const AlgorithmTrace& row)
{
    std::vector<std::int64_t> out(5, 0);
    for (const LoggedAttempt& a : *row.log)
        out.at(std::size_t(a.client)) += a.allowed ? 1 : 0;
    return out;
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

    void redisScriptsAndFailures()
    {
        const Deck d = shipped("redis-scripts-and-failures");
        QCOMPARE(d.steps.size(), std::size_t(5));

        // Step 1 (racing-read-write): bursts of 20 at 0 s and 1 s, two servers round robin on one
        // store, racy with a latency of 0.05 s: attempt i sees admission j iff t_j + 0.05 <= t_i.
        // L = 10 per 10 s. At 0 s no admission is visible (0 + 0.05 > 0): each of the 20 replays
        // nothing, finds a count of 0 < 10 and passes: 20. At 1 s all 20 of 0 s are visible
        // (0.05 <= 1); the store's replay of them on a fixed window counts 10 (it refuses the
        // other 10: no longer fit) in the window [0, 10) s, and 10 < 10 fails: each of the 20 of
        // 1 s is denied (those of 1 s do not see each other). 20 + 0 = 20 of 40.
        {
            const DeckStep& s = d.steps[0];
            checkStep(s, 40, {{Algorithm::FixedWindow, 20}});
            QCOMPARE(admitted(rowResult(simulateRows(s.scenario), Algorithm::FixedWindow)), range(0, 20));
            QCOMPARE(s.scenario.cluster->options().latencyNanos, Nanos(50'000'000));
            QCOMPARE(s.scenario.cluster->options().nodes, 2);
            // The store's line (its count, drawn) stops at 10 while 20 pass: semantics.md has the
            // store replay the admissions and refuse what no longer fits, and the words say so.
            says(s, {"Two servers", "limit of 10 per 10 s", "50 ms later", "20 requests arrive at once at 0 s",
                     "20 more at 1 s", "All 20 at 0 s", "twice the limit", "its line stops at 10",
                     "10 of the 20 are counted nowhere", "the 20 of 1 s are denied"});
            QVERIFY(!s.question.empty());
        }

        // Step 2, shared (every admission visible): the fixed window admits requests 0..9 of 0 s,
        // the 11th finds 10: 10. The token bucket (C = 10, r = 1/s, full) gives its 10 tokens to
        // requests 0..9; at 1 s it holds 0 + 1 s x 1/s = 1 token: request 20 passes, 21..39 find
        // 0 tokens. 10 + 1 = 11.
        {
            const DeckStep& s = d.steps[1];
            QCOMPARE(s.scenario.cluster->options().coordination, Coordination::Shared);
            checkStep(s, 40, {{Algorithm::FixedWindow, 10}, {Algorithm::TokenBucket, 11}}, 2);
            std::vector<std::size_t> token = range(0, 10);
            token.push_back(20);
            QCOMPARE(admitted(rowResult(simulateRows(s.scenario), Algorithm::TokenBucket)), token);
            says(s, {"10 tokens, one more a second", "The fixed window 10", "The token bucket 11", "11th request at 0 s",
                     "by 1 s one token"});
        }

        // Step 3 (redis-goes-down): 120 requests 0.25 s apart (0 .. 29.75 s), three servers round
        // robin on one shared Redis, fixed window 10 per 10 s, Redis down over [10 s, 20 s), fail
        // open. Windows [0,10), [10,20), [20,30) hold 120 / 3 = 40 requests each. [0,10): the store
        // admits the first 10. [10,20): the 40 pass, counted nowhere. [20,30): the store, as at
        // 10 s, is in a new window (b = 2): 10 more. 10 + 40 + 10 = 60. The trailing 10 s ending
        // at 19.75 s holds 40 admitted: 40 / 10 = 4 times the limit.
        {
            const DeckStep& s = d.steps[2];
            checkStep(s, 120, {{Algorithm::FixedWindow, 60}});
            const Trace t = simulateRows(s.scenario);
            const AlgorithmTrace& fixed = rowResult(t, Algorithm::FixedWindow);
            std::vector<std::size_t> open = range(0, 10);
            for (std::size_t i : range(40, 90))
                open.push_back(i);
            QCOMPARE(admitted(fixed), open);
            QCOMPARE(fixed.metrics.maxInWindow, 40);
            QCOMPARE(s.scenario.cluster->options().nodes, 3);
            says(s, {"Three servers", "limit of 10 per 10 s", "every 0.25 s", "120 in 30 s", "From 10 s to 20 s",
                     "10 from 0 s to 10 s", "10 from 20 s to 30 s", "all 40 of the outage", "40 in 10 s",
                     "4 times the limit"});
        }

        // Step 4, fail closed: [0,10) 10 as before, the 40 of the outage denied, [20,30) 10:
        // 10 + 0 + 10 = 20. A denial at t in the outage is told to come back at 20 s: 20 s - t.
        {
            const DeckStep& s = d.steps[3];
            QCOMPARE(s.scenario.cluster->options().fallback, Fallback::Closed);
            checkStep(s, 120, {{Algorithm::FixedWindow, 20}});
            const Trace t = simulateRows(s.scenario);
            const AlgorithmTrace& fixed = rowResult(t, Algorithm::FixedWindow);
            std::vector<std::size_t> closed = range(0, 10);
            for (std::size_t i : range(80, 90))
                closed.push_back(i);
            QCOMPARE(admitted(fixed), closed);
            const std::vector<Decision> shut = decisionsOf(fixed);
            for (std::size_t i = 40; i < 80; ++i)
                QCOMPARE(shut.at(i).retryAfter, 20 * kNanosPerSecond - t.arrivals[i]);
            says(s, {"at 20 s", "10 from 0 s to 10 s", "10 from 20 s to 30 s", "The 40 requests of the outage"});
        }

        // Step 5: 20 requests at 0 s. redis-cell CL.THROTTLE key 15 1 1: emission interval
        // T = 1 s / 1 = 1 s, tolerance T (15 + 1) = 16 s. The k-th request (k from 0) finds
        // tat = k s, new_tat = (k + 1) s, allow_at = (k + 1 - 16) s, and is limited iff
        // 0 - allow_at < 0, i.e. k + 1 > 16: requests 0..15 pass, 16. Spring Cloud Gateway,
        // burstCapacity 0 and replenishRate 10: fill_time 0 / 10 = 0, ttl 0, nothing stored;
        // each request finds filled = min(0, 0 + ...) = 0 < 1 token: 0 pass, and no wait helps.
        {
            const DeckStep& s = d.steps[4];
            checkStep(s, 20, {{Algorithm::RedisCell, 16}, {Algorithm::SpringGateway, 0}}, 2);
            const Trace t = simulateRows(s.scenario);
            QCOMPARE(admitted(rowResult(t, Algorithm::RedisCell)), range(0, 16));
            for (const Decision& refused : decisionsOf(rowResult(t, Algorithm::SpringGateway)))
                QVERIFY(refused.retryNever());
            says(s, {"20 requests at once", "CL.THROTTLE key 15 1 1", "max_burst 15", "1 request per 1 s",
                     "burstCapacity 0", "replenishRate 10", "redis-cell 16", "max_burst + 1", "Spring 0",
                     "at most 0 tokens"});
        }
    }

    void nginxLimitReq()
    {
        const Deck d = shipped("nginx-limit-req");
        QCOMPARE(d.steps.size(), std::size_t(4));

        // Step 1 (nginx-page-load): 27 requests at 0 s; rate=50r/s is 50000 thousandths a
        // second, burst=8 nodelay. All in ms 0, so nothing drains (ms = 0): the first creates
        // the key with excess 0, each next one adds 1000: the k-th (from 0) finds k x 1000, and
        // is rejected iff k x 1000 > 8 x 1000: requests 0..8 pass, 9 = 1 + the burst of 8; 18
        // are refused. The token bucket (C = 50, r = 50/s, full) has 50 >= 27 tokens: 27.
        {
            const DeckStep& s = d.steps[0];
            checkStep(s, 27, {{Algorithm::NginxLimitReq, 9}, {Algorithm::TokenBucket, 27}}, 2);
            QCOMPARE(admitted(rowResult(simulateRows(s.scenario), Algorithm::NginxLimitReq)), range(0, 9));
            QCOMPARE(s.scenario.config.nginxBurst(), 8);
            QVERIFY(s.scenario.config.nginx().nodelay);
            says(s, {"27 requests at once", "rate=50r/s burst=8 nodelay", "50 tokens, 50 more a second", "the other 18",
                     "the burst of 8", "all 27"});
        }

        // Step 2: the page again at 100 ms, 54 requests. After the first page the excess is
        // 8000 and last = 0 ms. At 100 ms: 50000 x 100 / 1000 = 5000 thousandths drain (one
        // request every 1000 / 50 = 20 ms, 100 / 20 = 5); the first of the second page finds
        // 8000 - 5000 + 1000 = 4000, the next 5000, 6000, 7000, 8000 (all <= 8000, pass), the
        // sixth 9000 > 8000: 5 pass (requests 27..31). 9 + 5 = 14 of 54. The line of what nginx
        // holds (the excess plus the admitted request's 1000) is 8000 + 1000 = 9000 after the first
        // page and 9000 - 5000 = 4000 when the second arrives: from 9 to 4.
        {
            const DeckStep& s = d.steps[1];
            checkStep(s, 54, {{Algorithm::NginxLimitReq, 14}});
            std::vector<std::size_t> both = range(0, 9);
            for (std::size_t i : range(27, 32))
                both.push_back(i);
            const Trace t = simulateRows(s.scenario);
            QCOMPARE(admitted(rowResult(t, Algorithm::NginxLimitReq)), both);
            QCOMPARE(t.arrivals.at(27), Nanos(100'000'000));
            const NginxWater water = nginxWater(t, 0, 0, t.arrivals.size());
            const auto at = [&](Nanos when, std::int64_t level) {
                return std::any_of(water.points.begin(), water.points.end(), [&](const KeyLevelPoint& p) {
                    return p.t == when && p.level == double(level);
                });
            };
            QVERIFY(at(0, 9000));
            QVERIFY(at(100'000'000, 4000));
            says(s, {"100 ms later", "27 more requests", "54 in all", "every 20 ms", "from 9 to 4", "room for 5 more", "14 of 54"});
        }

        // Step 3, no nodelay (delay D = 0): rejections are as before (excess > 8000), so the same
        // 14 pass. An admitted request with excess e > 0 waits (e - 0) x 1000 / 50000 = e / 50
        // ms. First page: e = k x 1000 for k = 0..8: waits 0, 20, ..., 160 ms, leaving at
        // 20k ms. Second page at 100 ms: e = 4000 .. 8000: waits 80 .. 160 ms, leaving at 180,
        // 200, 220, 240, 260 ms. One leaves every 20 ms from 0 to 260 ms; 13 of them wait.
        {
            const DeckStep& s = d.steps[2];
            QVERIFY(!s.scenario.config.nginx().nodelay);
            checkStep(s, 54, {{Algorithm::NginxLimitReq, 14}});
            const Trace t = simulateRows(s.scenario);
            const std::vector<Decision> nginx = decisionsOf(rowResult(t, Algorithm::NginxLimitReq));
            std::vector<Nanos> leaves;
            for (std::size_t i = 0; i < nginx.size(); ++i)
                if (nginx[i].allowed)
                    leaves.push_back(t.arrivals[i] + nginx[i].delay);
            std::vector<Nanos> every20ms;
            for (Nanos ms = 0; ms <= 260; ms += 20)
                every20ms.push_back(ms * 1'000'000);
            QCOMPARE(leaves, every20ms);
            says(s, {"rate=50r/s burst=8", "The same 14", "one every 20 ms", "9 at 0, 20, ..., 160 ms",
                     "5 at 180 to 260 ms"});
        }

        // Step 4 (nginx-vs-leaky): rate 5/6 per s is nginx's 50r/m, 50 x 1000 / 60 = 833
        // thousandths a second (833.33 truncated); no burst (B = C - 1 = 0); a request every
        // 1.2 s, 10 of them. nginx: 1.2 s after an admission 833 x 1200 / 1000 = 999 (999.6
        // truncated) drain, excess = 0 - 999 + 1000 = 1 > 0: rejected, and nothing changes; 2.4 s
        // after it 1999 drain: max(0, 1000 - 1999) = 0: admitted. Requests 0, 2, 4, 6, 8: 5.
        // The leaky bucket (C = 1, r = 5/6 per s) drains 5/6 x 1.2 = 1 between requests: each
        // finds 0 water, 0 + 1 <= 1: all 10. Each of nginx's 5 rejections found 1000 - 999 = 1
        // thousandth, drawn as "1/1000".
        {
            const DeckStep& s = d.steps[3];
            checkStep(s, 10, {{Algorithm::NginxLimitReq, 5}, {Algorithm::LeakyBucket, 10}}, 2);
            QCOMPARE(admitted(rowResult(simulateRows(s.scenario), Algorithm::NginxLimitReq)),
                     (std::vector<std::size_t>{0, 2, 4, 6, 8}));
            QCOMPARE(nginxRateThousandths(s.scenario.config.rate()), std::int64_t(833));
            const Trace t = simulateRows(s.scenario);
            const NginxWater water = nginxWater(t, 0, 0, t.arrivals.size());
            QCOMPARE(water.leftovers.size(), std::size_t(5));
            for (const auto& [when, found] : water.leftovers)
                QCOMPARE(found, std::int64_t(1));
            says(s, {"rate=50r/m", "every 1.2 s", "room for 1 request", "10 requests", "5, every other one",
                     "all 10", "1/1000"});
        }
    }

    void layeredLimits()
    {
        const Deck d = shipped("layered-limits");
        QCOMPARE(d.steps.size(), std::size_t(4));
        constexpr Nanos s = kNanosPerSecond;

        // Step 1 (client-throttle-under-limit): 20 calls at 0 s, one client; the provider a fixed
        // window of 5 per 1 s; p-queue interval 1 s, interval_cap 5. The throttle's window opens
        // at its first start, 0 s: 5 start at 0 s, the cap is spent, the next 5 at 1 s, 2 s, 3 s.
        // Each group of 5 lands in its own window [k, k + 1) s, which allows 5: 20 pass, 0 refused.
        checkStep(d.steps[0], 20, {{Algorithm::FixedWindow, 20}});
        {
            const Trace t = simulateRows(d.steps[0].scenario);
            const AlgorithmTrace& r = t.results[0];
            QCOMPARE(r.metrics.denied, 0);
            QCOMPARE(r.log->size(), std::size_t(20));
            const std::vector<Nanos> at = admittedTimes(t, r);
            for (std::size_t i = 0; i < 20; ++i)
                QCOMPARE(at[i], Nanos(i / 5) * s);
            tells(d.steps[0], {"None", "20", "5", "0, 1, 2 and 3 s", "429"});
        }

        // Step 2, no throttle, retries 0.25 s after each refusal. At 0 s: 20 attempts, 5 pass,
        // 15 refused; at 0.25, 0.5, 0.75 s the 15 are refused again (window [0, 1) s is spent):
        // 15 x 4 = 60 refusals. At 1 s 5 of the 15 pass; 10 are refused at 1, 1.25, 1.5, 1.75 s:
        // 10 x 4 = 40. At 2 s 5 pass, 5 refused at 2, 2.25, 2.5, 2.75 s: 5 x 4 = 20. At 3 s the
        // last 5 pass. Refused 60 + 40 + 20 = 120; attempts 120 + 20 = 140; the last pass at 3 s.
        // No question here: with retries, the hidden row would still draw every attempt (hollow
        // marks at 0.25 s steps), so the refusals could be counted before the reveal; the step
        // tells the numbers instead.
        QVERIFY(d.steps[1].scenario.throttle.empty());
        QVERIFY(d.steps[1].question.empty());
        checkStep(d.steps[1], 20, {{Algorithm::FixedWindow, 20}});
        {
            const Trace t = simulateRows(d.steps[1].scenario);
            const AlgorithmTrace& r = t.results[0];
            QCOMPARE(r.metrics.denied, 120);
            QCOMPARE(r.log->size(), std::size_t(140));
            QCOMPARE(admittedTimes(t, r).back(), 3 * s);
            tells(d.steps[1], {"120", "140", "15 x 4 + 10 x 4 + 5 x 4 = 120", "3 s"});
        }

        // Step 3: bursts of 10 at 0, 10, ..., 70 s (80 requests). Per-second alone, a token bucket
        // C = 5, r = 5/s: it refills from 0 to 5 in 1 s, so it is full at each burst and passes 5:
        // 8 x 5 = 40. Per-minute alone, a fixed window of 20 per 60 s: [0, 60) s passes the bursts
        // at 0 and 10 s (20) and nothing at 20-50 s; [60, 120) s the bursts at 60 and 70 s: 40.
        // Both (layers in order, the bucket first): each burst's 5 from the bucket reach the window,
        // which counts 5, 10, 15, 20 after the bursts at 0, 10, 20, 30 s and denies those at 40
        // and 50 s; from 60 s a new window: 5 + 5. 20 + 10 = 30.
        {
            const DeckStep& step = d.steps[2];
            const Trace t = simulateRows(step.scenario);
            QCOMPARE(t.arrivals.size(), std::size_t(80));
            QCOMPARE(t.results.size(), std::size_t(3));
            QVERIFY(isLayeredRow(step.scenario, 2));
            QCOMPARE(admittedOf(rowResult(t, Algorithm::TokenBucket)), std::size_t(40));
            QCOMPARE(admittedOf(rowResult(t, Algorithm::FixedWindow)), std::size_t(40));
            QCOMPARE(admittedOf(t.results[2]), std::size_t(30));
            // The layered row's passes: 5 in each burst at 0, 10, 20, 30, 60, 70 s.
            std::vector<Nanos> bursts;
            for (Nanos a : admittedTimes(t, t.results[2]))
                if (bursts.empty() || bursts.back() != a)
                    bursts.push_back(a);
            QCOMPARE(bursts, (std::vector<Nanos>{0, 10 * s, 20 * s, 30 * s, 60 * s, 70 * s}));
            QVERIFY(step.question.find("40") != std::string::npos);
            tells(step, {"30.", "0, 10, 20 and 30 s", "40 and 50 s", "60 s", "5 + 5", "20 + 10 = 30"});
        }

        // Step 4: one request a second, 0 to 79 s. The bucket gains 5 tokens in each 1 s and
        // spends 1: always full, it passes 80. The window passes 0-19 s (20) in [0, 60) s and
        // 60-79 s (20) in [60, 120) s: 40. Both: the bucket denies none, so the window alone: 40.
        {
            const DeckStep& step = d.steps[3];
            const Trace t = simulateRows(step.scenario);
            QCOMPARE(t.arrivals.size(), std::size_t(80));
            QCOMPARE(t.arrivals.back(), 79 * s);
            QCOMPARE(admittedOf(rowResult(t, Algorithm::TokenBucket)), std::size_t(80));
            QCOMPARE(admittedOf(rowResult(t, Algorithm::FixedWindow)), std::size_t(40));
            QCOMPARE(admittedOf(t.results[2]), std::size_t(40));
            tells(step, {"40", "80", "20 from 0 s", "20 from 60 s"});
        }
    }

    void managedServices()
    {
        const Deck d = shipped("managed-services");
        QCOMPARE(d.steps.size(), std::size_t(5));
        constexpr Nanos s = kNanosPerSecond;

        // Step 1 (api-gateway-page-load): 27 requests 2 ms apart, k = 0..26 at 2k ms; the plan a
        // token bucket of 20 at 10/s, full at 0. Before request k: 20 + 10 x 0.002k - k =
        // 20 - 0.98k tokens, >= 1 iff k <= 19 (k = 19: 1.38; k = 20: 0.4). After k = 19 the bucket
        // holds 0.38 at 38 ms and gains 0.02 per 2 ms: 0.38 + 7 x 0.02 = 0.52 < 1 at 52 ms, so
        // the last 7 are denied: 20. A whole token takes 1 / (10/s) = 0.1 s to come back, more
        // than the page's 0.052 s. The log of 10 per 1 s: all 27 lie in one second, 10.
        checkStep(d.steps[0], 27, {{Algorithm::AwsApiGateway, 20}, {Algorithm::SlidingWindowLog, 10}}, 2);
        tells(d.steps[0], {"0.1 s", "0.052 s", "last 7"});

        // Step 2 (api-gateway-monthly-quota): request k at k x 1728 s (28.8 min; 86400 / 1728 = 50
        // a day), k = 0..1549, all in January 1970 (1550 / 50 = 31 days). The bucket (20 at 10/s)
        // is full at every request: the throttle passes all 1550. The quota of 1000 passes
        // k = 0..999; k = 999 is at 1726272 s, day 1726272 / 86400 = 19.98: January 20th. k = 1000
        // is at 1728000 s = 20 days exactly, January 21st 00:00, and every request from there to
        // the month's end is refused: 1000.
        checkStep(d.steps[1], 1550, {{Algorithm::AwsApiGateway, 1000}, {Algorithm::TokenBucket, 1550}}, 2);
        {
            const Trace t = simulateRows(d.steps[1].scenario);
            const std::vector<Nanos> at = admittedTimes(t, rowResult(t, Algorithm::AwsApiGateway));
            QCOMPARE(at.back(), Nanos(1726272) * s);
            QCOMPARE(at.back() / (86400 * s), Nanos(19)); // day 20 of January
            QCOMPARE(t.arrivals[1], Nanos(1728) * s);
            QCOMPARE(t.arrivals[1000], Nanos(20 * 86400) * s);
        }
        // The axis runs from January 17th (day 16) to February 2nd (day 32): its 2-day ticks fall
        // on January 21st, where the refusals start, and either side of February 1st.
        QCOMPARE(*d.steps[1].from, Nanos(16 * 86400) * s);
        QCOMPARE(*d.steps[1].to, Nanos(32 * 86400) * s);
        tells(d.steps[1], {"January 20th", "1000 / 50 = 20", "January 21st", "February 1st", "1000 of the 1550"});
        QVERIFY(d.steps[1].scenario.lesson.find("1728 s") != std::string::npos);

        // Step 3 (cloudflare-long-block): 6 at 0, 0.1, ..., 0.5 s, then one at 10, 20, ..., 600 s:
        // 6 + 60 = 66. Rule: 5 per 10 s, mitigation 600 s. The first 5 take the count to 5, not
        // above it; the 6th at 0.5 s makes 6 > 5: blocked until 0.5 + 600 = 600.5 s, and the
        // last request, at 600 s, is still inside: 5 pass. The fixed window of 5 per 10 s: [0, 10)
        // s holds the 6, 5 pass; each later request is alone in its window: 5 + 60 = 65.
        checkStep(d.steps[2], 66, {{Algorithm::CloudflareRate, 5}, {Algorithm::FixedWindow, 65}}, 2);
        tells(d.steps[2], {"0.5 s", "600 s", "600.5 s", "6th"});

        // Step 4 (waf-scraper-first-minute): one request a second at 0..119 s; checks every 10 s,
        // each counting the requests in [T - 60 s, T), a verdict in force 30 s after its check.
        // The check at 10 s counts 0..9 s: 10, not over 10; at 20 s 0..19 s: 20 > 10, blocking
        // from 20 + 30 = 50 s. Every later check counts min(T, 60) >= 30 > 10 (blocked requests
        // count too), so the block holds: the requests at 0..49 s pass, 50. The log of 10 per 60
        // s: 0..9 s, then at 60 s the entries of 0..9 s have expired: 60..69 s; 20.
        checkStep(d.steps[3], 120, {{Algorithm::AwsWafRate, 50}, {Algorithm::SlidingWindowLog, 20}}, 2);
        {
            const Trace t = simulateRows(d.steps[3].scenario);
            QCOMPARE(admittedTimes(t, rowResult(t, Algorithm::AwsWafRate)).back(), 49 * s);
        }
        tells(d.steps[3], {"10 s counts 10", "20 s counts 20", "20 + 30 = 50 s", "120"});

        // Step 5 (envoy-fill-cap): a request every 0.01 s from 0 to 2.99 s, 300. Envoy starts with
        // max_tokens 20 and its timer sets min(20, tokens + 100) = 20 at 1 s and 2 s (a fire due at
        // t comes before a request at t). Each second's first 20 requests (k.00 to k.19 s) take the
        // 20 tokens; the other 80 find none: 3 x 20 = 60. The token bucket C = 20 at 100/s gains
        // exactly the 1 token a request takes every 0.01 s: it never falls below 19, 300 pass.
        checkStep(d.steps[4], 300, {{Algorithm::EnvoyLocal, 60}, {Algorithm::TokenBucket, 300}}, 2);
        {
            const Trace t = simulateRows(d.steps[4].scenario);
            std::vector<Nanos> expected;
            for (Nanos second = 0; second < 3; ++second)
                for (Nanos k = 0; k < 20; ++k)
                    expected.push_back(second * s + k * (s / 100));
            QCOMPARE(admittedTimes(t, rowResult(t, Algorithm::EnvoyLocal)), expected);
        }
        tells(d.steps[4], {"100", "20", "1 s and 2 s", "each second"});
    }

    void theServerBehind()
    {
        const Deck d = shipped("the-server-behind");
        QCOMPARE(d.steps.size(), std::size_t(5));
        for (const DeckStep& step : d.steps)
            QVERIFY(!step.question.empty());
        // Step 1: one request every 0.01 s, k = 0 ... 999 at k / 100 s, to W = 10 workers of S =
        // 0.1 s (a queue behind them), the server alone. Room: W / S = 10 / 0.1 s = 100 a second.
        // Request k ends at k / 100 + 0.1 s = the arrival of request k + 10, and at one instant
        // completions go first, so it finds 9 in service and a free worker: 10 in the server at
        // most (100 a second x 0.1 s), none queued, each served in 0.1 s < the client's 1 s:
        // all 1000 in time, 100 a second from 0.1 s to 10 s.
        {
            const Trace t = simulateRows(d.steps[0].scenario);
            QCOMPARE(t.arrivals.size(), std::size_t(1000));
            QCOMPARE(t.results.size(), std::size_t(1));
            const ServerFigures& f = *runOf(t.results[0]).server;
            QCOMPARE(f.inTime, 1000);
            QCOMPARE(f.late + f.queueTimeouts + f.refused + f.rejected, 0);
            QCOMPARE(f.maxInSystem, 10);
            QCOMPARE(f.maxQueue, 0);
            const std::vector<std::int64_t> g = goodput(t.results[0], 10);
            for (int k = 1; k < 10; ++k)
                QCOMPARE(g[std::size_t(k)], 100);
            tells(d.steps[0], {"10", "1000", "100", "0.1"});
        }
        // Step 2: retry-storm-metastable, the server alone: one request every 0.02 s from 0 to
        // 29.98 s (1500, 50 a second: 5 in the server, 0.02 s apart, each served in 0.1 s) and
        // 150 more at 10 s. The client waits 1 s, then retries 0.1 s later, 3 times at most.
        // Before the spike: 50 in time a second (the requests of [0, 0.9) end in [0.1, 1): 45).
        // After it, once every attempt fails (waits past 1 s in the full queue, or is refused by
        // it), each request makes 1 + 3 = 4 attempts: 50 x 4 = 200 a second against the room
        // of 100 a second, so the queue stays full and every attempt fails again: goodput 0.
        // When the last in-time response comes (12 s) is the engine's count (tst_presets_server);
        // the step states only the 0 that follows and the 4 attempts of every later request.
        {
            const Trace t = simulateRows(d.steps[1].scenario);
            QCOMPARE(t.arrivals.size(), std::size_t(1500 + 150));
            QCOMPARE(t.results.size(), std::size_t(1));
            const std::vector<std::int64_t> g = goodput(t.results[0], 31);
            for (int k = 1; k < 10; ++k)
                QCOMPARE(g[std::size_t(k)], 50);
            for (int k = 13; k < 31; ++k)
                QCOMPARE(g[std::size_t(k)], 0);
            // Every request arriving from 13 s on makes 4 attempts, none served in time.
            const RowRun& run = runOf(t.results[0]);
            std::map<std::int32_t, int> attempts;
            for (std::size_t i = 0; i < run.log.size(); ++i) {
                const LoggedAttempt& a = run.log[i];
                if (t.arrivals[std::size_t(a.request)] >= 13 * kNanosPerSecond) {
                    ++attempts[a.request];
                    QVERIFY(run.served[i].outcome != Outcome::InTime);
                }
            }
            QCOMPARE(attempts.size(), std::size_t(50 * 17)); // 13 s ... 29.98 s, 50 a second
            for (const auto& [request, n] : attempts)
                QCOMPARE(n, 4);
            tells(d.steps[1], {"0", "4", "200", "100"});
        }
        // Step 3: the same, and fixed:limit=10 beside the server alone. At 10 s, the request of
        // 9.90 s has just ended (completions first), those of 9.92, 9.94, 9.96, 9.98 s are in
        // flight: 4. The normal request of 10 s makes 5; 5 of the spike make 10, 145 rejected
        // (each retried 0.1 s later). At 10.1 s the 6 admitted at 10 s end, 4 remain (10.02 ...
        // 10.08 s): the normal request and 5 retries are admitted, 140 rejected; at 10.2 s 135,
        // at 10.3 s 130, whose fourth attempt it is: they give up. Rejected: 145 + 140 + 135 +
        // 130 = 550. Nothing waits (10 in flight = 10 workers), so nothing is late: every normal
        // request is served in time, 50 a second from 11 s, plus the 5 x 4 = 20 of the spike:
        // 1500 + 20 = 1520 in time.
        {
            const Trace t = simulateRows(d.steps[2].scenario);
            QCOMPARE(t.results.size(), std::size_t(2));
            const ServerFigures& f = *runOf(t.results[1]).server;
            QCOMPARE(f.rejected, 145 + 140 + 135 + 130);
            QCOMPARE(f.rejected, 550);
            QCOMPARE(f.late, 0);
            QCOMPARE(f.queueTimeouts + f.refused, 0);
            QCOMPARE(f.inTime, 1520);
            QCOMPARE(f.maxQueue, 0);
            const std::vector<std::int64_t> g = goodput(t.results[1], 30);
            QCOMPARE(g[10], 50 + 20);
            for (int k = 11; k < 30; ++k)
                QCOMPARE(g[std::size_t(k)], 50);
            tells(d.steps[2], {"550", "50", "145", "140", "135", "130", "5"});
        }
        // Steps 4 and 5: aimd-sawtooth, AIMD alone: a request every 5 ms (request k at 5k ms) to
        // the 10 workers of 0.1 s (queue 100, no client timeout). AIMDLimit.java:102-112 per
        // response: rtt > 150 ms halves the limit ((int) (L * 0.5), at least 1); else, if
        // 2 x inflight (the count just after its own admission) >= L, L + 1. Admitted iff in
        // flight < L. At one instant the response goes first, then the arrival.
        //   0 ... 45 ms: k = 0 ... 9 admitted (inflight 1 ... 10), served at once; 50 ... 95 ms:
        //     k = 10 ... 19 rejected (10 in flight, L = 10).
        //   100 ... 145 ms: k = 0 ... 9 respond in 0.1 s, inflight 1 ... 10: 2, 4, 6, 8 < 10,
        //     then 10 >= 10: 11 at 120 ms, 12 >= 11: 12, 13, 14, 15, 16 at 145 ms. Each frees a
        //     worker for k = 20 ... 29 (inflight 10), served at once.
        //   150 ... 195 ms: nothing responds; 10 in flight < 16: k = 30 ... 35 admitted
        //     (inflight 11 ... 16) into the queue, k = 36 ... 39 rejected.
        //   200 ... 245 ms: k = 20 ... 29 respond in 0.1 s, inflight 10: 20 >= 16 ... 20: 17, 18,
        //     19, 20, 21 at 220 ms, then 20 < 21: no change. Each response lets one arrival in
        //     (k = 40 ... 49, inflight 16) and a worker take the queue's head: k = 30 ... 35 at
        //     200 ... 225 ms (they waited 50 ms: rtt 0.15 s, not > 150 ms), k = 40 ... 43 at
        //     230 ... 245 ms (rtt 0.13 s); k = 44 ... 49 stay queued.
        //   250 ... 295 ms: nothing responds; 16 < 21: k = 50 ... 54 queued, 55 ... 59 rejected.
        //   300 ... 345 ms: k = 30 ... 35 (inflight 11 ... 16) and 40 ... 43 (16) respond within
        //     0.15 s: 22 >= 21, 24 >= 22, ..., 32 >= 30: ten times + 1, 22 ... 31 at 345 ms.
        //     Workers go to k = 44 ... 49 and 50 ... 53, which waited 80 ms.
        //   400 ... 415 ms: k = 44 ... 47 respond in 0.08 + 0.1 = 0.18 s > 150 ms:
        //     31 -> (int) 15.5 = 15 -> 7 -> 3 -> 1; k = 48 ... 53 (0.18 s too) leave it at 1,
        //     (int) 0.5 = 0 clamped to 1. From 400 ms the 30 or so in flight are over the limit:
        //     every arrival (k = 80 ... 89 by 445 ms) is rejected.
        {
            const Trace t = simulateRows(d.steps[3].scenario);
            QCOMPARE(t.results.size(), std::size_t(1));
            const ServerFigures& f = *runOf(t.results[0]).server;
            const std::vector<std::pair<Nanos, std::int64_t>> first = {
                {0, 10}, {120, 11}, {125, 12}, {130, 13}, {135, 14}, {140, 15}, {145, 16},
                {200, 17}, {205, 18}, {210, 19}, {215, 20}, {220, 21},
                {300, 22}, {305, 23}, {310, 24}, {315, 25}, {320, 26}, {325, 27}, {330, 28}, {335, 29}, {340, 30}, {345, 31},
                {400, 15}, {405, 7}, {410, 3}, {415, 1}};
            QVERIFY(f.limits.size() > first.size());
            for (std::size_t i = 0; i < first.size(); ++i) {
                QCOMPARE(f.limits[i].first, first[i].first * 1'000'000);
                QCOMPARE(f.limits[i].second, first[i].second);
            }
            QVERIFY(f.limits[first.size()].first > 450'000'000); // still 1 at the end of step 5's span
            const RowRun& run = runOf(t.results[0]);
            for (std::size_t i = 0; i < run.log.size(); ++i) {
                const std::int32_t k = run.log[i].request;
                if (k >= 80 && k <= 89)
                    QCOMPARE(run.served[i].outcome, Outcome::Rejected);
            }
            QCOMPARE(*d.steps[3].to, Nanos(350'000'000));
            QCOMPARE(*d.steps[4].from, Nanos(300'000'000));
            QCOMPARE(*d.steps[4].to, Nanos(450'000'000));
            QVERIFY(d.steps[4].scenario.concurrency == d.steps[3].scenario.concurrency);
            tells(d.steps[3], {"31", "0.345", "0.15", "10"});
            tells(d.steps[4], {"1", "0.415", "31 / 2 = 15", "7, 3 and 1", "10"});
        }
    }

    void choosingALimit()
    {
        const Deck d = shipped("choosing-a-limit");
        QCOMPARE(d.steps.size(), std::size_t(5));
        // Step 1: requests at 0, 1, ..., 119 s; L = 10 per W = 12 s, C = 10, r = 5/6 a second.
        // Fixed window: the windows [12j, 12j + 12) s, j = 0 ... 9, hold 12 requests each and
        // admit the first 10: 10 x 10 = 100. Token bucket: before request k (at k s), with all
        // before it admitted, tokens = 10 - k + 5k/6 = 10 - k/6 >= 1 for k <= 54: 55 admitted,
        // 0 tokens left at 54 s. Then 5/6 a second: at 55 s 5/6 (denied), 56 s 10/6 (admitted,
        // 4/6), 57 s 9/6 (3/6), 58 s 8/6 (2/6), 59 s 7/6 (1/6), 60 s 6/6 (0): 5 of every 6 s.
        // 55 ... 114 s: 10 such cycles, 50; 115 ... 119 s as 55 ... 59 s: 4. 55 + 50 + 4 = 109.
        checkStep(d.steps[0], 120, {{Algorithm::FixedWindow, 100}, {Algorithm::TokenBucket, 109}}, 2);
        tells(d.steps[0], {"10", "12", "55", "5 of every 6"});
        // Step 2: bursts of 5 at one instant at 0, 6, ..., 42 s (40 requests); L = 10 per 10 s.
        // Sliding log: any 10 s holds at most two bursts, 10, so each request finds at most 9 of
        // the last 10 s: all 40. Sliding counter, admit iff prev (W - e) / W + cur < 10:
        //   [0, 10):  bursts at 0 and 6: cur 0 ... 9 < 10: all 10.
        //   [10, 20): prev 10. 12 s, e = 2: 10 x 0.8 = 8, then 9: 2 admitted, 10 denied (3);
        //             18 s, e = 8: 2 + 2 = 4 ... 8: 5. cur = 7.
        //   [20, 30): prev 7. 24 s, e = 4: 4.2 + 0 ... 4: up to 8.2: 5. cur = 5.
        //   [30, 40): prev 5. 30 s, e = 0: 5 ... 9: 5; 36 s, e = 6: 2 + 5 = 7, 8, 9: 3. cur = 8.
        //   [40, 50): prev 8. 42 s, e = 2: 6.4 ... 9.4: 4.
        // 10 + 2 + 5 + 5 + 5 + 3 + 4 = 34.
        checkStep(d.steps[1], 40, {{Algorithm::SlidingWindowLog, 40}, {Algorithm::SlidingWindowCounter, 34}}, 2);
        tells(d.steps[1], {"0.8", "8", "5", "2"});
        // Step 3: noisy-client, per client L = 5 per 10 s: client 0 sends 20 in [0, 0.95] s and
        // gets the first 5 (the bucket: 5 tokens, 0.5 a second, 0.2 s x 0.5 = 0.1 back by its
        // 6th, 0.475 by its 20th: none more); clients 1 to 4 send 2 each, both pass (2 < 5):
        // 5 + 4 x 2 = 13 for each row.
        checkStep(d.steps[2], 28, {{Algorithm::FixedWindow, 13}, {Algorithm::TokenBucket, 13}}, 2);
        {
            const Trace t = simulateRows(d.steps[2].scenario);
            for (const Algorithm a : {Algorithm::FixedWindow, Algorithm::TokenBucket})
                QCOMPARE(admittedByClient(rowResult(t, a)), (std::vector<std::int64_t>{5, 2, 2, 2, 2}));
            tells(d.steps[2], {"13", "5", "20", "8"});
        }
        // Step 4: one key for all. The first 5 arrivals, 0, 0.05, 0.1, 0.12 (client 1), 0.15 s,
        // take the window [0, 10) s: 5, of them client 1's one. The bucket: 5 tokens, each
        // request at 0 ... 0.15 s takes one, 0.15 s x 0.5 = 0.075 back: 0.075 left; at 2.1 s it
        // holds 0.075 + 1.95 x 0.5 = 1.05: client 1's second passes (0.05 left); 2.2, 2.3, 2.4 s
        // find 0.1, 0.15, 0.2: denied. 6, the quiet clients 2 of their 8.
        checkStep(d.steps[3], 28, {{Algorithm::FixedWindow, 5}, {Algorithm::TokenBucket, 6}}, 2);
        {
            const Trace t = simulateRows(d.steps[3].scenario);
            QCOMPARE(admittedByClient(rowResult(t, Algorithm::FixedWindow)), (std::vector<std::int64_t>{4, 1, 0, 0, 0}));
            QCOMPARE(admittedByClient(rowResult(t, Algorithm::TokenBucket)), (std::vector<std::int64_t>{4, 2, 0, 0, 0}));
            tells(d.steps[3], {"5", "6", "1", "2", "2.1", "8"});
        }
        // Step 5: pick-a-limit's rows, the guesser: 4 at each whole second 0 ... 29 s (120);
        // L = 60 per 60 s, C = 60, r = 1 a second. Fixed window: all 120 in [0, 60) s: 60. Token
        // bucket: before the burst at t s, with all before admitted, 60 - 4t + t = 60 - 3t
        // tokens, >= 4 for t <= 18: 19 x 4 = 76; at 19 s 3 tokens: 3; then 1 a second at 20 ...
        // 29 s: 10. 76 + 3 + 10 = 89.
        checkStep(d.steps[4], 120, {{Algorithm::FixedWindow, 60}, {Algorithm::TokenBucket, 89}}, 2);
        tells(d.steps[4], {"60", "89", "1 a second"});
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
