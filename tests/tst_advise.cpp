// advise: a limit chosen from a log (core/advise/). The bursts, the front and the recommendation
// of a small log are derived by hand with nginx's arithmetic; the written config, read back by
// the dry run, denies what the advice promised; and a seeded property checks the one-pass burst
// and its monotonicity in the rate against a brute-force search on nginx_limit_req itself.
#include "advise/nginx_advice.h"
#include "arithmetic/decimal.h"
#include "config_dry_run.h"
#include "limiters/nginx_limit_req.h"
#include "property_seeds.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

// Key a (1.1.1.1): three requests at 0 ms, one at 500 ms, one at 1000 ms. Key b (2.2.2.2): one at
// 0. Key c (3.3.3.3): ten at 0. Times are whole ms from a whole second, so nginx's ms are these.
const char* kLog = "time,ip,path\n"
                   "1795392000.000,1.1.1.1,/\n1795392000.000,1.1.1.1,/\n1795392000.000,1.1.1.1,/\n"
                   "1795392000.000,2.2.2.2,/\n"
                   "1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n"
                   "1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n"
                   "1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n"
                   "1795392000.000,3.3.3.3,/\n"
                   "1795392000.500,1.1.1.1,/\n1795392001.000,1.1.1.1,/\n";

Traffic smallLog()
{
    TrafficOptions o;
    o.format = LogFormat::Csv;
    o.keepPaths = true; // the dry run selects by path
    return parseTraffic(kLog, o, "small.csv");
}

std::int64_t perMinute(std::int64_t n) { return n; }
std::int64_t perSecond(std::int64_t n) { return NginxBurstFamily::kPerMinuteSteps + n; }

// bruteBurst is the least burst at which nginx_limit_req (built here from the rate, not by the
// family) admits every request of the trace: tried from 0 upwards.
std::int64_t bruteBurst(const std::vector<Nanos>& times, std::int64_t step)
{
    const LimiterConfig base = step <= 59 ? LimiterConfig::make(step, 60 * kNanosPerSecond)
                                          : LimiterConfig::make(step - 59, kNanosPerSecond);
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

} // namespace

class TestAdvise : public QObject {
    Q_OBJECT
private slots:
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
    // The recommendation, drain 10 s: burst <= rate * 10 s first holds at 24r/m (rate 400, d =
    // 200, 3600 -> 4 <= 0.4 * 10), but 1r/m needs the same 4 and does not drain in 10 s (4 > 1/6),
    // so the front's next point: the first rate needing less than 4, 1r/s (d must reach 500), burst 3.
    // With drain 1 s: 2r/s (2 <= 2), the lowest rate needing 2 (d must reach 1000).
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
            {perMinute(1), 4, 5}, {perSecond(1), 3, 6}, {perSecond(2), 2, 7}};
        QCOMPARE(a.front.size(), front.size());
        for (std::size_t i = 0; i < front.size(); ++i) {
            QCOMPARE(a.front[i].step, std::get<0>(front[i]));
            QCOMPARE(a.front[i].burst, std::get<1>(front[i]));
            QCOMPARE(a.front[i].keptDenied, 0);
            QCOMPARE(a.front[i].otherDenied, std::get<2>(front[i]));
            QCOMPARE(a.front[i].keysDenied, 1);
        }
        QCOMPARE(a.recommended.step, perSecond(1));
        QCOMPARE(a.recommended.burst, 3);
        QVERIFY(a.drainMet);
        QCOMPARE(a.deniedPerKey, (std::vector<std::int64_t>{0, 0, 6}));
        o.drain = kNanosPerSecond;
        const Advice quick = advise(traces, nginx, o);
        QCOMPARE(quick.recommended.step, perSecond(2));
        QCOMPARE(quick.recommended.burst, 2);
        // 99 % of 3 keys: rank 3, every key kept; c needs 9 at every rate, the floor too.
        o.keep = kPercentUnit / 100 * 99;
        const Advice all = advise(traces, nginx, o);
        QCOMPARE(all.keptKeys, 3);
        QCOMPARE(all.floorBurst, 9);
        QCOMPARE(all.recommended.otherDenied, 0);
        QCOMPARE(all.recommended.keptDenied, 0);
    }

    // The written config, read back by the dry run `replay --config` runs, denies c's 6 and no
    // other: what the advice promised, key by key.
    void theWrittenConfigDeniesWhatWasAdvised()
    {
        const NginxBurstFamily nginx;
        const Traffic traffic = smallLog();
        const std::string config = nginxAdviceConfig(nginx, perSecond(1), 3, "$binary_remote_addr");
        QCOMPARE(config, std::string("limit_req_zone $binary_remote_addr zone=ratelab:10m rate=1r/s;\n"
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
        QCOMPARE(nginxAdviceConfig(nginx, perMinute(7), 0, "$remote_user"),
                 std::string("limit_req_zone $remote_user zone=ratelab:10m rate=7r/m;\n"
                             "limit_req zone=ratelab nodelay;\nlimit_req_dry_run on;\n"));
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
        const std::int64_t steps[] = {1, 7, 30, 59, 60, 61, 62, 64, 69, 79, 109, 159, 1059};
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

    // Property: on random logs of a few keys, the recommendation is the lowest step that is a
    // point of the front (no lower step needs as little) and drains within the bound, found by
    // trying every step up to 200r/s (each key's burst as the property above proves it); and its
    // kept keys are denied nothing.
    void theRecommendationIsTheBruteForceFirst()
    {
        const NginxBurstFamily nginx;
        std::uint64_t checked = 0;
        const std::uint64_t seeds = propertySeeds() / 4 + 1;
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
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
            AdviceOptions o;
            o.drain = std::uniform_int_distribution<Nanos>(1, 12)(rng) * kNanosPerSecond / 2;
            const KeyedTraces traces = keyedTraces(t);
            const Advice a = advise(traces, nginx, o);
            QCOMPARE(a.recommended.keptDenied, 0);
            std::int64_t before = std::numeric_limits<std::int64_t>::max(), expected = 0;
            for (std::int64_t s = 1; s <= perSecond(200) && expected == 0; ++s) {
                std::int64_t b = 0;
                for (std::size_t k = 0; k < traces.keys(); ++k)
                    if (a.kept[k])
                        b = std::max(b, nginx.burstNeeded(traces.trace(k), s)); // the brute force's, above
                const Rate r = nginx.rate(s);
                if (b < before && Int128(b) * r.perNanos <= Int128(r.tokens) * o.drain)
                    expected = s;
                before = std::min(before, b);
            }
            if (expected == 0)
                continue; // above 200r/s: not tried
            ++checked;
            QVERIFY2(a.recommended.step == expected,
                     qPrintable(QString("seed %1: %2, expected %3").arg(seed).arg(a.recommended.step).arg(expected)));
        }
        QVERIFY2(checked * 2 > seeds, qPrintable(QString("only %1 of %2 seeds checked").arg(checked).arg(seeds)));
    }
};

QTEST_GUILESS_MAIN(TestAdvise)
#include "tst_advise.moc"
