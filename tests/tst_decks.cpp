// Deck files (io/deckfile.h): reading, writing and refusing them, and the shipped decks' numbers,
// each derived by hand below and checked against the rows the app draws.
#include "deckfile.h"
#include "limiters/nginx_limit_req.h"
#include "view/row_extras.h"
#include "preset_rows.h"
#include "scenariofile_reader.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

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

// answerSays is true when the step's answer (or, without one, its narrative) contains every word.
bool answerSays(const DeckStep& step, std::initializer_list<const char*> words)
{
    const QString text = QString::fromStdString(step.answer.empty() ? step.scenario.lesson : step.answer);
    for (const char* w : words)
        if (!text.contains(QLatin1String(w))) {
            qWarning("missing \"%s\" in: %s", w, qPrintable(text));
            return false;
        }
    return true;
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
            says(s, {"Two servers", "limit of 10 per 10 s", "50 ms later", "20 requests arrive at once at 0 s",
                     "20 more at 1 s", "All 20 at 0 s", "twice the limit", "the 20 of 1 s are denied"});
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
            says(s, {"20 requests at once", "CL.THROTTLE key 15 1 1", "a burst of 15", "one a second",
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
            QVERIFY(answerSays(d.steps[0], {"None", "20", "5", "0, 1, 2 and 3 s", "429"}));
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
            QVERIFY(answerSays(d.steps[1], {"120", "140", "15 x 4 + 10 x 4 + 5 x 4 = 120", "3 s"}));
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
            QVERIFY(answerSays(step, {"30.", "0, 10, 20 and 30 s", "40 and 50 s", "60 s", "5 + 5", "20 + 10 = 30"}));
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
            QVERIFY(answerSays(step, {"40", "80", "20 from 0 s", "20 from 60 s"}));
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
        QVERIFY(answerSays(d.steps[0], {"0.1 s", "0.052 s", "last 7"}));

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
        QVERIFY(answerSays(d.steps[1], {"January 20th", "1000 / 50 = 20", "January 21st", "February 1st", "1000 of the 1550"}));
        QVERIFY(d.steps[1].scenario.lesson.find("1728 s") != std::string::npos);

        // Step 3 (cloudflare-long-block): 6 at 0, 0.1, ..., 0.5 s, then one at 10, 20, ..., 600 s:
        // 6 + 60 = 66. Rule: 5 per 10 s, mitigation 600 s. The first 5 take the count to 5, not
        // above it; the 6th at 0.5 s makes 6 > 5: blocked until 0.5 + 600 = 600.5 s, and the
        // last request, at 600 s, is still inside: 5 pass. The fixed window of 5 per 10 s: [0, 10)
        // s holds the 6, 5 pass; each later request is alone in its window: 5 + 60 = 65.
        checkStep(d.steps[2], 66, {{Algorithm::CloudflareRate, 5}, {Algorithm::FixedWindow, 65}}, 2);
        QVERIFY(answerSays(d.steps[2], {"0.5 s", "600 s", "600.5 s", "6th"}));

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
        QVERIFY(answerSays(d.steps[3], {"10 s counts 10", "20 s counts 20", "20 + 30 = 50 s", "120"}));

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
        QVERIFY(answerSays(d.steps[4], {"100", "20", "1 s and 2 s", "each second"}));
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
