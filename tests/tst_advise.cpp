// advise: a limit chosen from a log (core/advise/). The bursts, the front and the recommendation
// of a small log are derived by hand with nginx's arithmetic; the written config, read back by
// the dry run, denies what the advice promised; and a seeded property checks the one-pass burst
// and its monotonicity in the rate against a brute-force search on nginx_limit_req itself.
#include "advise_log.h"
#include "advise/burst_gateway.h"
#include "advise/let_by.h"
#include "advise/nginx_advice.h"
#include "advise/origin_load.h"
#include "arithmetic/decimal.h"
#include "config_dry_run.h"
#include "limiters/nginx_limit_req.h"
#include "property_seeds.h"
#include "window_bound.h"
#include "replay/dry_run.h"

#include <QTest>

#include <limits>
#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

// advise_log.h's log: key a (1.1.1.1), b (2.2.2.2), c (3.3.3.3). Times are whole ms from a
// whole second, so nginx's ms are these.
using advisetest::smallLog;

std::int64_t perMinute(std::int64_t n) { return n; }
std::int64_t perSecond(std::int64_t n) { return 60 * n; } // N r/s is 60N r/m: the same rate

// bruteBurst is the least burst at which nginx_limit_req (built here from the rate, not by the
// family) admits every request of the trace: tried from 0 upwards.
std::int64_t bruteBurst(const std::vector<Nanos>& times, std::int64_t step)
{
    const LimiterConfig base = step % 60 == 0 ? LimiterConfig::make(step / 60, kNanosPerSecond)
                                              : LimiterConfig::make(step, 60 * kNanosPerSecond);
    for (std::int64_t burst = 0;; ++burst) {
        NginxLimitReq nginx(base.withNginx(NginxOptions{burst, true, 0}));
        bool all = true;
        for (Nanos t : times)
            all = nginx.decide(t).allowed && all;
        if (all)
            return burst;
    }
}

// randomTrace is 1 to 25 times, in order, with gaps from none to seconds, sub-ms parts included
// so nginx's truncation to the ms matters.
std::vector<Nanos> randomTrace(std::mt19937_64& rng)
{
    std::vector<Nanos> out;
    const auto n = std::uniform_int_distribution<int>(1, 25)(rng);
    const Nanos gaps[] = {0, 300'000, kMs, 7 * kMs, 60 * kMs, 333 * kMs, 1000 * kMs, 4700 * kMs};
    Nanos t = std::uniform_int_distribution<Nanos>(0, kMs)(rng);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 7)(rng)] + std::uniform_int_distribution<Nanos>(0, 3)(rng) * 1000;
        out.push_back(t);
    }
    return out;
}

// randomLog is 1 to 4 keys of randomTrace each, merged in time order.
Traffic randomLog(std::mt19937_64& rng)
{
    std::vector<std::pair<Nanos, std::uint32_t>> requests;
    const auto keys = std::uniform_int_distribution<std::uint32_t>(1, 4)(rng);
    for (std::uint32_t k = 0; k < keys; ++k)
        for (Nanos t : randomTrace(rng))
            requests.emplace_back(t, k);
    std::stable_sort(requests.begin(), requests.end(), [](auto& x, auto& y) { return x.first < y.first; });
    Traffic t;
    for (std::uint32_t k = 0; k < keys; ++k)
        t.keyNames.push_back("10.0.0." + std::to_string(k + 1));
    for (const auto& [time, key] : requests) {
        t.times.push_back(time);
        t.keys.push_back(key);
    }
    return t;
}

} // namespace

class TestAdvise : public QObject {
    Q_OBJECT
private slots:
    // keyNames holds other key fields' values too (a dry run reads them): a name no request is
    // keyed by is no key, so it is neither limited nor counted among the keys kept.
    void aNameNoRequestIsKeyedByIsNoKey()
    {
        Traffic t = advisetest::smallLog();
        t.keyNames.push_back("k-123"); // an API key field's value, say
        const KeyedTraces traces = keyedTraces(t);
        QCOMPARE(traces.keys(), std::size_t(4));
        QVERIFY(!traces.limited[3]);
        KeptKeys kept;
        keepKeys(traces, kPercentUnit / 100 * 60, kept);
        QCOMPARE(kept.limitedKeys, 3);
        QCOMPARE(kept.keptKeys, 2); // rank ceil(0.6 * 3) = 2 of 1, 5, 10, as without the name
    }

    // A second is (t - 1 s, t]: requests 1 s apart are never in one, 1 ns less apart are. Keys:
    // a at 0, 0.5 s and 1.499999999 s; b at 1 s; "-" (no key) at 1 s. The busiest second ends at
    // 1.499999999 s and holds all but a's first: 4. Denying a's at 0.5 s and b's leaves a's at 0
    // (alone in its second), "-" at 1 s (alone in (0, 1 s]) and a's last with it: 2. The busiest
    // key is a (b has 1; "-" is no key): 3 requests, 2 of them admitted.
    void theOriginsBusiestSecond()
    {
        ratelab::Traffic t;
        t.times = {0, 500'000'000, 1'000'000'000, 1'000'000'000, 1'499'999'999};
        t.keyNames = {"a", "b", "-"};
        t.keys = {0, 0, 1, 2, 0};
        const ratelab::OriginLoad all = ratelab::originLoad(t, {-1, -1, -1, -1, -1}, 1);
        QCOMPARE(all.peak, 4);
        QCOMPARE(all.admittedPeak, 4);
        QCOMPARE(all.keys, std::size_t(2));
        const ratelab::OriginLoad some = ratelab::originLoad(t, {-1, 0, 0, -1, -1}, 1);
        QCOMPARE(some.requests, 5);
        QCOMPARE(some.admitted, 3);
        QCOMPARE(some.peak, 4);
        QCOMPARE(some.admittedPeak, 2);
        QCOMPARE(some.topKeys, std::size_t(1));
        QCOMPARE(some.topRequests, 3);
        QCOMPARE(some.topAdmitted, 2);
        // 1 s apart exactly: two seconds of one request each.
        t.times = {0, 1'000'000'000};
        t.keys = {0, 1};
        QCOMPARE(ratelab::originLoad(t, {-1, -1}, 5).peak, 1);
        QCOMPARE(ratelab::originLoad(t, {-1, -1}, 5).topKeys, std::size_t(2));
    }

    // Key a's burst, by nginx's arithmetic (excess in thousandths; drain = rate*ms/1000 truncated):
    // the three at 0 ms leave 0, 1000, 2000; then with d the drain of 500 ms,
    //   at 500 ms:  2000 - d + 1000,   at 1000 ms: 3000 - d - d + 1000 = 4000 - 2d.
    //   1r/m:  rate 1000/60 = 16,  d = 16*500/1000 = 8    -> 3984 -> burst 4 (3984 > 3000)
    //   59r/m: rate 59000/60 = 983, d = 491               -> 3018 -> burst 4 (truncation: not 3)
    //   30r/m: rate 500, d = 250                          -> 3500 -> burst 4 (rounded up)
    //   1r/s:  rate 1000, d = 500                         -> 3000 -> burst 3
    //   2r/s:  rate 2000, d = 1000                        -> 2000 (and 2000 at 500 ms) -> burst 2
    //   the highest rate drains all between two ms: 1000 at 500 and 1000 ms, 2000 at 0 -> 2.
    // Key c (ten at 0 ms) needs 9 at every rate; key b (one request) 0.
    void burstsByHand()
    {
        const NginxBurstFamily nginx;
        const KeyedTraces traces = keyedTraces(smallLog());
        QCOMPARE(traces.keys(), std::size_t(3));
        const KeyTrace a = traces.trace(0), b = traces.trace(1), c = traces.trace(2);
        QCOMPARE(a.times.size(), std::size_t(5));
        QCOMPARE(nginx.burstNeeded(a, perMinute(1)), 4);
        QCOMPARE(nginx.burstNeeded(a, perMinute(59)), 4);
        QCOMPARE(nginx.burstNeeded(a, perMinute(30)), 4);
        QCOMPARE(nginx.burstNeeded(a, perSecond(1)), 3);
        QCOMPARE(nginx.burstNeeded(a, perSecond(2)), 2);
        QCOMPARE(nginx.burstNeeded(a, nginx.maxStep()), 2);
        QCOMPARE(nginx.burstNeeded(b, perMinute(1)), 0);
        QCOMPARE(nginx.burstNeeded(c, perSecond(1000)), 9);
        // At 1r/s burst 2, a's last request finds 3000 > 2000: one denial. Key c at burst 3 keeps
        // 0, 1000, 2000, 3000 and is denied the other 6.
        QCOMPARE(nginx.denied(a, perSecond(1), 2), 1);
        QCOMPARE(nginx.denied(c, perSecond(1), 3), 6);
        QCOMPARE(nginx.rateText(perMinute(30)), std::string("30r/m"));
        QCOMPARE(nginx.rateText(perSecond(2)), std::string("2r/s"));
    }

    // --keep 60 of 3 keys: rank ceil(0.6 * 3) = 2 of the counts 1, 5, 10, so the kept keys have
    // at most 5 requests: a and b (6 requests); c's 10 are the others'. The kept burst is a's.
    // The round rates: 1r/m .. 30r/m need 4 (only 1r/m is kept: no less), 1r/s 3, 2r/s 2, which is
    // the floor: the table stops. Key c at burst B is denied 10 - (B + 1): 5, 6, 7.
    // The recommendation, drain 10 s: the least rate r with burst(r) <= r * 10 s. Below 1r/s the
    // burst is 4 (d < 500), so r must reach 0.4/s = 24r/m; 24r/m (rate 400, d = 200, 3600) needs
    // 4 <= 0.4 * 10: 24r/m, burst 4, shown beside the front though 1r/m needs the same burst.
    // With drain 1 s: 2r/s (2 <= 2); 1r/s needs 3 > 1, and below 1r/s 4 > r.
    void frontAndRecommendationByHand()
    {
        const NginxBurstFamily nginx;
        const KeyedTraces traces = keyedTraces(smallLog());
        AdviceOptions o;
        o.keep = kPercentUnit / 100 * 60;
        const Advice a = advise(traces, nginx, o);
        QCOMPARE(a.limitedKeys, 3);
        QCOMPARE(a.keptKeys, 2);
        QCOMPARE(a.keptMost, 5);
        QCOMPARE(a.keptRequests, 6);
        QCOMPARE(a.floorBurst, 2);
        const std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> front{
            {perMinute(1), 4, 5}, {perMinute(24), 4, 5}, {perSecond(1), 3, 6}, {perSecond(2), 2, 7}};
        QCOMPARE(a.front.size(), front.size());
        for (std::size_t i = 0; i < front.size(); ++i) {
            QCOMPARE(a.front[i].step, std::get<0>(front[i]));
            QCOMPARE(a.front[i].burst, std::get<1>(front[i]));
            QCOMPARE(a.front[i].denied.kept, 0);
            QCOMPARE(a.front[i].denied.other, std::get<2>(front[i]));
            QCOMPARE(a.front[i].denied.keys, 1);
        }
        QCOMPARE(a.recommended.step, perMinute(24));
        QCOMPARE(a.recommended.burst, 4);
        QVERIFY(a.drainMet);
        QCOMPARE(a.deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
        o.drain = kNanosPerSecond;
        const Advice quick = advise(traces, nginx, o);
        QCOMPARE(quick.recommended.step, perSecond(2));
        QCOMPARE(quick.recommended.burst, 2);
        // 99 % of 3 keys: rank 3, every key kept; c needs 9 at every rate, the floor too.
        o.keep = kPercentUnit / 100 * 99;
        const Advice all = advise(traces, nginx, o);
        QCOMPARE(all.keptKeys, 3);
        QCOMPARE(all.floorBurst, 9);
        QCOMPARE(all.recommended.denied.other, 0);
        QCOMPARE(all.recommended.denied.kept, 0);
    }

    // The key each point is shown on: the one it denies most. At 24r/m burst 4 (recommended) c's
    // ten at 0 ms pass 1 + 4 and lose 5; at 2r/s burst 2, 1 + 2 pass and c loses 7; a and b lose
    // nothing at either (a needs burst 4, then 2, above). Keeping 100 %, every key is kept and no
    // point denies any: the busiest key, c (10 requests), shows it. Envoy's one bucket is shown
    // on the whole log: no key.
    void theKeyEachPointIsShownOn()
    {
        const Traffic log = smallLog();
        BurstGatewayTerms terms;
        terms.options.keep = kPercentUnit / 100 * 60;
        const BurstGatewayAdvice gateway(terms, log);
        const AdvicePoint& twoPerSecond = gateway.advice().front.at(3);
        QCOMPARE(twoPerSecond.step, perSecond(2));
        QCOMPARE(twoPerSecond.denied.mostDenied, std::optional<std::size_t>(2));
        QCOMPARE(gateway.shownKey(twoPerSecond), std::optional<std::size_t>(2));
        QCOMPARE(gateway.shownKey(gateway.advice().recommended), std::optional<std::size_t>(2));
        terms.options.keep = kPercentUnit;
        const BurstGatewayAdvice all(terms, log);
        QCOMPARE(all.advice().recommended.denied.mostDenied, std::optional<std::size_t>());
        QCOMPARE(all.shownKey(all.advice().recommended), std::optional<std::size_t>(2));
        terms.product = "envoy";
        const BurstGatewayAdvice envoy(terms, log);
        QCOMPARE(envoy.shownKey(envoy.advice().recommended), std::optional<std::size_t>());
    }

    // --pass: a pattern over the whole key name keeps its keys however many they send. At 60 %
    // the rank keeps a and b (at most 5 requests); "3\.3\.3\.3" adds c: every key kept, as at
    // 100 %, so the same front (c's 9 at every rate) and nothing denied. Matching part of a name
    // is no match; a pattern matching no key, or one RE2 refuses, is refused.
    void keysThatMustPass()
    {
        const Traffic log = smallLog();
        const NginxBurstFamily nginx;
        const KeyedTraces traces = keyedTraces(log, "3\\.3\\.3\\.3");
        QCOMPARE(traces.mustPass, (std::vector<std::uint8_t>{0, 0, 1}));
        AdviceOptions o;
        o.keep = kPercentUnit / 100 * 60;
        const Advice a = advise(traces, nginx, o);
        QCOMPARE(a.keptMost, 5);
        QCOMPARE(a.keptKeys, 3);
        QCOMPARE(a.passedKeys, 1);
        QCOMPARE(a.keptRequests, 16);
        QCOMPARE(a.floorBurst, 9);
        o.keep = kPercentUnit;
        const Advice all = advise(keyedTraces(log), nginx, o);
        QCOMPARE(all.passedKeys, 0);
        QCOMPARE(a.front.size(), all.front.size());
        for (std::size_t i = 0; i < a.front.size(); ++i) {
            QCOMPARE(a.front[i].step, all.front[i].step);
            QCOMPARE(a.front[i].burst, all.front[i].burst);
            QCOMPARE(a.front[i].denied.other + a.front[i].denied.kept, std::int64_t(0));
        }
        const auto refused = [&](const std::string& pattern, const QString& start) {
            try {
                keyedTraces(log, pattern);
                QFAIL("not refused");
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).startsWith(start), e.what());
            }
        };
        refused("1\\.1", "--pass: '1\\.1' matches no key of the log (a whole key must match)");
        refused("(", "--pass: ");
    }

    // Of equal denials the key of more requests is the one shown, then the first: a tie of
    // denials broken by requests, read off countDenials on three hand traces. Key 0: 3 requests
    // denied 2; key 1: 5 requests denied 2; key 2: 5 requests denied 2 (later); key 3: kept.
    void theMostDeniedKeyOfATie()
    {
        KeyedTraces t;
        t.start = {0, 3, 8, 13, 14};
        t.times.assign(14, 0);
        t.limited = {1, 1, 1, 1};
        const std::vector<std::uint8_t> kept{0, 0, 0, 1};
        const DenialCount d = countDenials(t, kept, [](KeyTrace k) { return std::int64_t(k.times.size() > 1 ? 2 : 0); });
        QCOMPARE(d.other, 6);
        QCOMPARE(d.keys, 3);
        QCOMPARE(d.mostDenied, std::optional<std::size_t>(1));
    }

    // Four keys of five requests in one ms: each needs 4 (excess 0, 1000 .. 4000) at every rate,
    // so the least rate draining 4 within 10 s is 0.4/s, 24r/m (4 <= 0.4 * 10; 23r/m: 3.83 < 4).
    // Within 1 ns no rate on the ladder drains 4 (it would take 4e9 r/s, the ladder stops at
    // 1e9 r/s): the lowest rate needing the floor's 4, 1r/m, said so (drainMet false).
    void theLeastRateThatDrainsIsNotOnlyTheFront()
    {
        std::string log = "time,ip\n";
        for (const char* ip : {"1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"})
            for (int i = 0; i < 5; ++i)
                log += std::string("1795392000.000,") + ip + "\n";
        TrafficOptions to;
        to.format = LogFormat::Csv;
        const KeyedTraces traces = keyedTraces(parseTraffic(log, to, "same-ms.csv"));
        const NginxBurstFamily nginx;
        AdviceOptions o;
        const Advice a = advise(traces, nginx, o);
        QCOMPARE(a.keptKeys, 4);
        QCOMPARE(a.recommended.step, perMinute(24));
        QCOMPARE(a.recommended.burst, 4);
        QVERIFY(a.drainMet);
        o.drain = 1;
        const Advice none = advise(traces, nginx, o);
        QCOMPARE(none.recommended.step, perMinute(1));
        QCOMPARE(none.recommended.burst, 4);
        QVERIFY(!none.drainMet);
    }

    // The ms nginx counts are the clock's: key a at 0.0004 s, key b at 0.0010 and 0.0014 s, one
    // clock ms (1) for b's two. b needs burst 1 at every rate (excess 1000 at its second: no
    // time passes in nginx's ms), so even 1000r/s, which a ms drains fully, needs burst 1. Counted
    // from a's 0.0004 they would be ms 0 and 1, and 1000r/s would need no burst.
    void theMillisecondsAreTheClocks()
    {
        TrafficOptions to;
        to.format = LogFormat::Csv;
        const Traffic t = parseTraffic("time,ip\n0.0004,1.1.1.1\n0.0010,2.2.2.2\n0.0014,2.2.2.2\n", to, "sub-ms.csv");
        const KeyedTraces traces = keyedTraces(t);
        const NginxBurstFamily nginx;
        QCOMPARE(nginx.burstNeeded(traces.trace(1), perSecond(1000)), 1);
        QCOMPARE(nginx.burstNeeded(traces.trace(1), nginx.maxStep()), 1);
        QCOMPARE(advise(traces, nginx, AdviceOptions{}).floorBurst, 1);
    }

    // The written config, read back by the dry run `replay --config` runs, denies c's 6 and no
    // other: what the advice promised, key by key.
    void theWrittenConfigDeniesWhatWasAdvised()
    {
        const NginxBurstFamily nginx;
        const Traffic traffic = smallLog();
        const std::string config = nginxAdviceConfig(nginx, perSecond(1), 3, "$binary_remote_addr", 1);
        QCOMPARE(config, std::string("limit_req_zone $binary_remote_addr zone=ratelab:1m rate=1r/s;\n"
                                     "limit_req zone=ratelab burst=3 nodelay;\n"
                                     "limit_req_dry_run on;\n"));
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.denied, 6);
        QCOMPARE(r.rules.size(), std::size_t(1));
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{0, 0, 6}));
        // Burst 0 is written as no burst (nginx refuses burst=0), at a per-minute rate.
        QCOMPARE(nginxAdviceConfig(nginx, perMinute(7), 0, "$remote_user", 3),
                 std::string("limit_req_zone $remote_user zone=ratelab:3m rate=7r/m;\n"
                             "limit_req zone=ratelab nodelay;\nlimit_req_dry_run on;\n"));
    }

    // Requests let by (--pass-path, --pass-agent) are in no key's trace. The log: 1.1.1.1 sends
    // /a, /health and /a?x=1 at 0 and /health?full at 500 ms; 2.2.2.2 /healthz at 0 with no
    // User-Agent ("-"); 3.3.3.3 /health at 1 s. "/health" must match a whole target, its query
    // string included: rows 2 and 6 only. 1.1.1.1 then counts 3 requests at 0, 0, 500 ms: at 1r/s
    // and no burst nginx admits the first (excess 0) and rejects the next two (excess 1000, then
    // 1000 - 500 = 500, each above 0); its /health at 0, counted, would have been the one
    // rejected among the first three, and the fourth rejected too (3 in all). 3.3.3.3 counts none
    // and is no key. The written map gives /health an empty key, which nginx does not count: the
    // dry run of it denies 1.1.1.1 its 2 and counts 4 requests.
    void requestsLetByThePathOrTheAgent()
    {
        const char* log = "time,ip,path,http_user_agent\n"
                          "1795392000.000,1.1.1.1,/a,Mozilla\n1795392000.000,1.1.1.1,/health,probe/1\n"
                          "1795392000.000,1.1.1.1,/a?x=1,Mozilla\n1795392000.000,2.2.2.2,/healthz,-\n"
                          "1795392000.500,1.1.1.1,/health?full,probe/2\n1795392001.000,3.3.3.3,/health,probe/1\n";
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        const Traffic plain = parseTraffic(log, o, "let.csv");
        o.keyFields = {kAgentField};
        const Traffic withAgent = parseTraffic(log, o, "let.csv");
        const LetBy health{"/health", ""};
        QCOMPARE(letByOf(plain, health), (std::vector<std::uint8_t>{0, 1, 0, 0, 0, 1}));
        QCOMPARE(letByOf(withAgent, LetBy{"", "probe/.*"}), (std::vector<std::uint8_t>{0, 1, 0, 0, 1, 1}));
        // "-" is no User-Agent, which nginx's map gives the default: ".*" lets by all but that one.
        QCOMPARE(letByOf(withAgent, LetBy{"", ".*"}), (std::vector<std::uint8_t>{1, 1, 1, 0, 1, 1}));
        QVERIFY(letByOf(plain, LetBy{}).empty());
        const auto refused = [](const auto& call, const char* message) {
            try {
                call();
            } catch (const InputError& e) {
                QCOMPARE(std::string(e.what()), std::string(message));
                return;
            }
            QFAIL("not refused");
        };
        refused([&] { letByOf(plain, LetBy{"/nothing", ""}); },
                "--pass-path: '/nothing' matches no request's path (the whole path as logged must match, its query "
                "string included)");
        refused([&] { letByOf(plain, LetBy{"/.*", ""}); }, "--pass-path: '/.*' matches every request's path: no request is left to limit");
        refused([&] { checkLetBy(LetBy{"/a", "b"}); },
                "--pass-path and --pass-agent: give one (nginx would need two maps, one reading the other)");
        refused([&] { checkLetBy(LetBy{"", "a("}); },
                "--pass-agent: the regex 'a(' is refused by PCRE2 at offset 2: missing closing parenthesis");
        const KeyedTraces traces = keyedTraces(plain, {}, letByOf(plain, health));
        QCOMPARE(traces.letBy, std::int64_t(2));
        QCOMPARE(traces.requests(0), std::int64_t(3));
        QCOMPARE(traces.requests(1), std::int64_t(1));
        QCOMPARE(traces.requests(2), std::int64_t(0));
        QCOMPARE(traces.limited, (std::vector<std::uint8_t>{1, 1, 0}));
        QCOMPARE(std::vector<Nanos>(traces.times.begin(), traces.times.end()),
                 (std::vector<Nanos>{0, 0, 500'000'000, 0}));
        const NginxBurstFamily nginx;
        QCOMPARE(nginx.denied(traces.trace(0), perSecond(1), 0), 2);
        QCOMPARE(nginx.denied(keyedTraces(plain).trace(0), perSecond(1), 0), 3);
        const std::string config = nginxAdviceConfig(nginx, perSecond(1), 0, "$binary_remote_addr", 1, health);
        QCOMPARE(config, std::string("map $request_uri $ratelab_key {\n"
                                     "    \"~^(?:/health)$\" \"\";\n"
                                     "    default $binary_remote_addr;\n"
                                     "}\n"
                                     "limit_req_zone $ratelab_key zone=ratelab:1m rate=1r/s;\n"
                                     "limit_req zone=ratelab nodelay;\n"
                                     "limit_req_dry_run on;\n"));
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, plain);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(plain, parsed);
        QCOMPARE(r.rules[0].requests, std::int64_t(4));
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{2, 0, 0}));
        QCOMPARE(r.deniedBy, (std::vector<std::int32_t>{-1, -1, 0, -1, 0, -1}));
        // A backslash or quote of the pattern is escaped as nginx's parser reads it back.
        const std::string escaped = nginxAdviceConfig(nginx, perSecond(1), 0, "$binary_remote_addr", 1, LetBy{"", "a\\.b\""});
        QVERIFY2(escaped.starts_with("map $http_user_agent $ratelab_key {\n    \"~^(?:a\\\\.b\\\")$\" \"\";\n"), escaped.c_str());
        const DryRunConfig readBack = io::dryRunConfigText(QByteArray::fromStdString(escaped), "ip");
        QCOMPARE(readBack.keyMaps.size(), std::size_t(1));
        QCOMPARE(readBack.keyMaps[0].entries[0].key, std::string("^(?:a\\.b\")$"));
    }

    // A state is nginx's node, 32 + 48 + the key's bytes, in a power-of-two slab chunk: an
    // address (16 bytes at most) 96 -> 128, a 48-byte key 128, a 49-byte one 129 -> 256. The zone
    // holds twice the keys: 200,000 addresses 2 * 200,000 * 128 = 51,200,000 B = 48.8 MiB -> 49m;
    // 4,096 exactly 1 MiB -> 1m, 4,097 -> 2m; one key 1m (the least written).
    void theZoneHoldsTheKeys()
    {
        QCOMPARE(nginxStateBytes(16), 128);
        QCOMPARE(nginxStateBytes(48), 128);
        QCOMPARE(nginxStateBytes(49), 256);
        QCOMPARE(nginxZoneMegabytes(200'000, 16), 49);
        QCOMPARE(nginxZoneMegabytes(4'096, 16), 1);
        QCOMPARE(nginxZoneMegabytes(4'097, 16), 2);
        QCOMPARE(nginxZoneMegabytes(1, 16), 1);
        QCOMPARE(nginxZoneMegabytes(200'000, 49), 98); // 2 * 200,000 * 256 = 97.7 MiB
    }

    // A key logged empty ("-") meets no limit: it is neither kept nor capped.
    void anEmptyKeyIsNotLimited()
    {
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        o.emptyKeys = true;
        const Traffic t = parseTraffic("time,ip,path\n1.000,-,/\n1.000,-,/\n1.000,9.9.9.9,/\n", o, "e.csv");
        const Advice a = advise(keyedTraces(t), NginxBurstFamily(), AdviceOptions{});
        QCOMPARE(a.limitedKeys, 1);
        QCOMPARE(a.unlimitedRequests, 2);
        QCOMPARE(a.recommended.burst, 0);
        QVERIFY_THROWS_EXCEPTION(InputError, advise(keyedTraces(parseTraffic("time,ip,path\n1.000,-,/\n", o, "f.csv")),
                                                    NginxBurstFamily(), AdviceOptions{}));
    }

    // Property: on random traces the one-pass burst equals the brute-force least burst on
    // nginx_limit_req, at per-minute and per-second rates, and never grows with the rate.
    void burstIsTheBruteForceLeastAndFallsWithTheRate()
    {
        const NginxBurstFamily nginx;
        const std::int64_t steps[] = {1, 7, 30, 59, 60, 61, 90, 120, 240, 540, 1140, 3000, 6000, 60000};
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const std::vector<Nanos> times = randomTrace(rng);
            const KeyTrace trace{times, {}};
            std::int64_t previous = std::numeric_limits<std::int64_t>::max();
            for (std::int64_t step : steps) {
                const std::int64_t b = nginx.burstNeeded(trace, step);
                QVERIFY2(b == bruteBurst(times, step), qPrintable(QString("seed %1 step %2").arg(seed).arg(step)));
                QVERIFY2(b <= previous, qPrintable(QString("seed %1: grows at step %2").arg(seed).arg(step)));
                previous = b;
            }
        }
    }

    // Property: on random logs of a few keys, the recommendation is the least step of the ladder
    // whose burst drains within the bound (burst <= rate * drain), found by trying every step of
    // a ladder bounded at 20r/s (1,200 steps; each key's burst as the property above proves it);
    // when none drains (drains of 1 to 20 ms are drawn too, and 20r/s * 20 ms < 1 <= the floor of
    // a key with two requests in one ms), the lowest step needing the top's burst, drainMet
    // false. Either way its kept keys are denied nothing.
    void theRecommendationIsTheBruteForceFirst()
    {
        const NginxBurstFamily nginx(20);
        std::uint64_t drained = 0, none = 0;
        const std::uint64_t seeds = propertySeeds() / 4 + 1;
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
            const Traffic t = randomLog(rng);
            AdviceOptions o;
            const Nanos drains[] = {kMs, 5 * kMs, 20 * kMs};
            const auto pick = std::uniform_int_distribution<int>(-2, 12)(rng);
            o.drain = pick <= 0 ? drains[pick + 2] : pick * kNanosPerSecond / 2;
            const KeyedTraces traces = keyedTraces(t);
            const Advice a = advise(traces, nginx, o);
            QCOMPARE(a.recommended.denied.kept, 0);
            std::vector<std::int64_t> bursts(std::size_t(nginx.maxStep()) + 1, 0);
            std::int64_t expected = 0;
            for (std::int64_t s = 1; s <= nginx.maxStep(); ++s) {
                for (std::size_t k = 0; k < traces.keys(); ++k)
                    if (a.kept[k])
                        bursts[std::size_t(s)] = std::max(bursts[std::size_t(s)], nginx.burstNeeded(traces.trace(k), s));
                const Rate r = nginx.rate(s);
                if (expected == 0 && Int128(bursts[std::size_t(s)]) * r.perNanos <= Int128(r.tokens) * o.drain)
                    expected = s;
            }
            const bool met = expected != 0;
            for (std::int64_t s = nginx.maxStep(); !met && s >= 1 && bursts[std::size_t(s)] == bursts.back(); --s)
                expected = s;
            ++(met ? drained : none);
            QVERIFY2(a.recommended.step == expected && a.drainMet == met,
                     qPrintable(QString("seed %1: %2, expected %3").arg(seed).arg(a.recommended.step).arg(expected)));
            QCOMPARE(a.recommended.burst, bursts[std::size_t(expected)]);
        }
        QVERIFY2(drained > 0 && none > 0, qPrintable(QString("%1 drained, %2 not").arg(drained).arg(none)));
    }

    // Property: with --cap N/T, on the random logs above, the recommendation is what trying every
    // step of the 20r/s ladder finds: the recommendation without the cap when it lets at most N
    // through in T (mostIn at the kept keys' burst there), else the least step that drains within
    // the bound and does, else the highest step that does (drainMet false), else a refusal naming
    // the least any step lets through.
    void theCappedRecommendationIsTheBruteForceOne()
    {
        const NginxBurstFamily nginx(20);
        std::uint64_t unchanged = 0, met = 0, soonest = 0, refused = 0;
        const std::uint64_t seeds = propertySeeds() + 1;
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
            const Traffic t = randomLog(rng);
            AdviceOptions o;
            o.drain = std::uniform_int_distribution<Nanos>(1, 40)(rng) * kNanosPerSecond / 2;
            const Nanos windows[] = {500 * kMs, kNanosPerSecond, 10 * kNanosPerSecond, 60 * kNanosPerSecond};
            o.cap = WindowCap{std::uniform_int_distribution<std::int64_t>(1, 60)(rng),
                              windows[std::uniform_int_distribution<int>(0, 3)(rng)]};
            const KeyedTraces traces = keyedTraces(t);
            KeptKeys kept;
            keepKeys(traces, o.keep, kept);
            std::int64_t first = 0, highest = 0, least = std::numeric_limits<std::int64_t>::max(), drained = 0;
            std::vector<std::int64_t> bursts(std::size_t(nginx.maxStep()) + 1, 0);
            for (std::int64_t s = 1; s <= nginx.maxStep(); ++s) {
                std::int64_t& b = bursts[std::size_t(s)];
                for (std::size_t k = 0; k < traces.keys(); ++k)
                    if (kept.kept[k])
                        b = std::max(b, nginx.burstNeeded(traces.trace(k), s));
                const std::int64_t most = *nginx.mostIn(s, b, o.cap->window);
                least = std::min(least, most);
                const Rate r = nginx.rate(s);
                const bool drains = Int128(b) * r.perNanos <= Int128(r.tokens) * o.drain;
                if (drains && drained == 0)
                    drained = s;
                if (most <= o.cap->requests) {
                    highest = s;
                    if (drains && first == 0)
                        first = s;
                }
            }
            const QString at = QString("seed %1").arg(seed);
            if (highest == 0) {
                ++refused;
                try {
                    (void)advise(traces, nginx, o);
                    QFAIL(qPrintable(at + ": no step meets the cap, yet advise chose one"));
                } catch (const InputError& e) {
                    const QString says = QString("the least any lets through is %1 (").arg(least);
                    QVERIFY2(QString(e.what()).contains(says), qPrintable(at + ": " + e.what()));
                }
                continue;
            }
            std::int64_t uncapped = drained; // without the cap: else the lowest step needing the floor's burst
            if (uncapped == 0)
                for (uncapped = nginx.maxStep(); uncapped > 1 && bursts[std::size_t(uncapped - 1)] == bursts.back();)
                    --uncapped;
            const bool fitsUncapped = *nginx.mostIn(uncapped, bursts[std::size_t(uncapped)], o.cap->window) <= o.cap->requests;
            const Advice a = advise(traces, nginx, o);
            const std::int64_t expected = fitsUncapped ? uncapped : first != 0 ? first : highest;
            ++(fitsUncapped ? unchanged : first != 0 ? met : soonest);
            QVERIFY2(a.recommended.step == expected && a.drainMet == (fitsUncapped ? drained != 0 : first != 0),
                     qPrintable(at + QString(": %1, expected %2").arg(a.recommended.step).arg(expected)));
            QCOMPARE(a.recommended.burst, bursts[std::size_t(expected)]);
            QCOMPARE(a.recommended.denied.kept, 0);
        }
        QVERIFY2(unchanged > 0 && met > 0 && soonest > 0 && refused > 0,
                 qPrintable(QString("%1 unchanged, %2 met, %3 soonest, %4 refused").arg(unchanged).arg(met).arg(soonest).arg(refused)));
    }

    // mostIn by hand: 2r/s with burst 3, in any 2 s: the instants of a window span at most 2,000
    // whole ms, so 3 + 1 + 2 * 2000 / 1000 = 8 (worst_case.cpp), which 4 at the last ns of ms 0
    // and one at 500, 1000, 1500 and 2000 ms reach, all in (999,999 ns - 2 s, 2000 ms]. At 1r/m
    // the truncated rate (16 thousandths a second) drains a request in 62.5 s: burst 37 lets its
    // 38 through in any minute, and in any 62.499 s, and one more only in 62.5 s.
    void theMostInAWindowByHand()
    {
        using namespace advisetest;
        const NginxBurstFamily nginx;
        QCOMPARE(*nginx.mostIn(perSecond(2), 3, 2 * kNanosPerSecond), 8);
        std::vector<Nanos> worst;
        burstAt(worst, 999'999, 4);
        for (Nanos ms : {500, 1000, 1500, 2000})
            burstAt(worst, ms * kMs, 1);
        QCOMPARE(mostThrough(NginxLimitReq(nginx.config(perSecond(2), 3)), worst, 2 * kNanosPerSecond), 8);
        QCOMPARE(*nginx.mostIn(perMinute(1), 37, 60 * kNanosPerSecond), 38);
        QCOMPARE(*nginx.mostIn(perMinute(1), 37, 62'499 * kMs), 38);
        QCOMPARE(*nginx.mostIn(perMinute(1), 37, 62'500 * kMs), 39);
    }

    // What reaches the origin under nginx at 1r/s, burst 0 (nodelay): of a's three at 0 s one
    // passes; b's at 200 ms is keyed "-" (no limit counts it) and a's at 500 ms is let by; a
    // request the advice does not see comes at 900 ms. In any (t - 1 s, t]: 1 + 1 + 1 + 1 = 4; in
    // any (t - 400 ms, t]: at 200 ms, 0 s's one and its own, 2; at 900 ms, its own, 1.
    void theOriginCountsWhatPassesAndWhatNoLimitCounts()
    {
        TrafficOptions to;
        to.format = LogFormat::Csv;
        const Traffic t = parseTraffic("time,ip\n0,a\n0,a\n0,a\n0.2,-\n0.5,a\n", to, "origin.csv");
        const KeyedTraces traces = keyedTraces(t, "", {0, 0, 0, 0, 1});
        QCOMPARE(traces.letByTimes, std::vector<Nanos>{500 * kNanosPerMs});
        const NginxBurstFamily nginx;
        std::int64_t perSecond = 1;
        while (nginx.rateText(perSecond) != "1r/s")
            ++perSecond;
        const std::vector<Nanos> elsewhere{900 * kNanosPerMs};
        QCOMPARE(originMost(traces, nginx, perSecond, 0, elsewhere, kNanosPerSecond), 4);
        QCOMPARE(originMost(traces, nginx, perSecond, 0, elsewhere, 400 * kNanosPerMs), 2);
        QCOMPARE(originMost(traces, nginx, perSecond, 2, {}, kNanosPerSecond), 5); // burst 2: all three of a's
        std::vector<Nanos> passed;
        nginx.passed(traces.trace(0), perSecond, 1, passed);
        QCOMPARE(passed, (std::vector<Nanos>{0, 0})); // 1 + burst 1 at 0 s
    }
};

QTEST_GUILESS_MAIN(TestAdvise)
#include "tst_advise.moc"
