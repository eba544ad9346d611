// Clients that react, seeded properties (semantics.md, "Clients that react"): with policy none
// the engine equals simulateOne; an only client honouring retry_after never gives up when nothing
// else arrives between a denial and its retry; per-client keys with K clients equal K
// single-client runs.
//
// Each property is checked for RATELAB_PROPERTY_SEEDS seeds (default 200); a failure prints the
// seed. Streams come from std::mt19937_64 and integer transforms, the same on every platform.
#include "property_seeds.h"
#include "engine/clients.h"
#include "engine_helpers.h"
#include "arithmetic/decimal.h"
#include "limiters/limiters.h"
#include "engine/simulator.h"

#include <QTest>

#include <random>

using namespace ratelab;
using ratelab::test::Attempt;
using ratelab::test::ClientTrace;
using ratelab::test::simulateClients;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;

// A seeded random case: config and arrivals, like tst_properties (bursts at one instant, gaps of
// about W/L, of exactly W, at and just before boundaries).
ClientConfig clientsOf(RetryPolicy retry, std::int64_t maxRetries, std::int64_t k = 1, KeyMode key = KeyMode::Client)
{
    ClientOptions o;
    o.clients = k;
    o.key = key;
    o.retry = retry;
    o.maxRetries = maxRetries;
    return ClientConfig::make(o);
}

struct Rng {
    std::mt19937_64 g;
    explicit Rng(std::uint64_t seed) : g(seed * 0x9E3779B97F4A7C15ull + 1) {}
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); }
    bool chance(int percent) { return in(0, 99) < percent; }
};

LimiterConfig randomConfig(Rng& r)
{
    const std::int64_t limit = r.in(1, 12);
    const Nanos window = r.chance(50) ? r.in(1, 20) * kSecond : r.in(kMilli, 20 * kSecond);
    std::optional<std::int64_t> capacity;
    if (r.chance(50))
        capacity = r.in(1, 12);
    std::optional<Rate> rate;
    if (r.chance(50))
        rate = Rate{r.in(1, 20), r.in(1, 20) * kSecond};
    return LimiterConfig::make(limit, window, capacity, rate);
}

std::vector<Nanos> randomArrivals(Rng& r, const LimiterConfig& c, std::size_t n)
{
    const Nanos w = c.windowNanos();
    std::vector<Nanos> out;
    Nanos t = 0;
    while (out.size() < n) {
        switch (r.in(0, 6)) {
        case 0: case 1: t += r.in(0, 2 * w / c.limit()); break;
        case 2: break; // same instant
        case 3: t += w; break;
        case 4: t = (t / w + 1) * w - (r.chance(50) ? 1 : 0); break;
        case 5: t += r.in(1, kSecond); break;
        default: t += r.in(0, 3 * w); break;
        }
        out.push_back(t);
    }
    return out;
}

ClientConfig randomClients(Rng& r, RetryPolicy retry, std::int64_t k, KeyMode key)
{
    ClientOptions o;
    o.clients = k;
    o.key = key;
    o.retry = retry;
    o.maxRetries = r.in(0, 6);
    o.retryDelayNanos = r.chance(30) ? 0 : r.in(1, 3 * kSecond);
    o.backoffBaseNanos = r.in(1, 2 * kSecond);
    o.backoffCapNanos = r.in(1, 20 * kSecond);
    o.seed = r.g();
    return ClientConfig::make(o);
}

bool sameDecision(const Decision& a, const Decision& b)
{
    return a.allowed == b.allowed && a.delay == b.delay && a.remaining == b.remaining && a.retryAfter == b.retryAfter
        && a.level == b.level;
}

const RetryPolicy kDeterministic[] = {RetryPolicy::None, RetryPolicy::Immediate, RetryPolicy::RetryAfter,
                                      RetryPolicy::RetryAfterHeader};

} // namespace

class TestClientsProperties : public QObject {
    Q_OBJECT
private slots:
    // Property: with policy none and one client (or any number of clients on one global key),
    // every result equals simulateOne.
    void noneEqualsSimulateOne()
    {
        for (std::uint64_t seed = 0; seed < propertySeeds(); ++seed) {
            Rng r(seed);
            const LimiterConfig c = randomConfig(r);
            const std::vector<Nanos> arrivals = randomArrivals(r, c, std::size_t(r.in(0, 200)));
            const ClientConfig clients = r.chance(50) ? clientsOf(RetryPolicy::None, r.in(0, 5))
                                                      : clientsOf(RetryPolicy::None, r.in(0, 5), r.in(1, 7), KeyMode::Global);
            for (Algorithm a : kAllAlgorithms) {
                const AlgorithmTrace want = simulateOne(c, a, arrivals);
                const ClientTrace got = simulateClients(c, clients, a, arrivals);
                const QByteArray where = "seed " + QByteArray::number(quint64(seed)) + " " + algorithmId(a).data();
                QVERIFY2(got.attempts.size() == arrivals.size(), where);
                for (std::size_t i = 0; i < arrivals.size(); ++i) {
                    QVERIFY2(got.attempts[i].request == std::int64_t(i) && got.attempts[i].attempt == 0
                                 && got.attempts[i].t == arrivals[i],
                             where);
                    QVERIFY2(sameDecision(got.attempts[i].decision, want.decisions[i]), where);
                }
                const Metrics& g = got.metrics;
                const Metrics& w = want.metrics;
                QVERIFY2(g.allowed == w.allowed && g.denied == w.denied && g.delayed == w.delayed
                             && g.maxInWindow == w.maxInWindow && g.overshoot == w.overshoot
                             && g.memory.bytes == w.memory.bytes && g.memory.entries == w.memory.entries,
                         where);
                QVERIFY2(got.clients.gaveUp == w.denied && got.clients.succeeded == w.allowed, where);
            }
        }
    }

    // Property: one client honouring retry_after, with max_retries >= 1, never gives up while
    // nothing else arrives between a denial and its retry (one request in flight at a time: the
    // burst above shows why that condition is needed). Each denied request is admitted on its
    // first retry. The arrivals are built with a separate limiter: a request arriving after a
    // denial waits at least until 1 ns after the retry.
    void retryAfterNeverGivesUp()
    {
        for (std::uint64_t seed = 0; seed < propertySeeds(); ++seed) {
            Rng r(seed);
            const LimiterConfig c = randomConfig(r);
            for (Algorithm a : kAllAlgorithms) {
                AnyLimiter reference = makeLimiter(a, c);
                std::vector<Nanos> arrivals;
                Nanos t = 0;
                for (int i = 0, n = int(r.in(1, 120)); i < n; ++i) {
                    arrivals.push_back(t);
                    const Decision d = reference.decide(t);
                    Nanos next = t + randomArrivals(r, c, 1).front();
                    if (!d.allowed) {
                        reference.decide(t + d.retryAfter); // the retry, admitted by retry_after's definition
                        next = std::max(next, t + d.retryAfter + 1);
                    }
                    t = next;
                }
                const ClientTrace got =
                    simulateClients(c, clientsOf(RetryPolicy::RetryAfter, r.in(1, 100)), a, arrivals);
                const QByteArray where = "seed " + QByteArray::number(quint64(seed)) + " " + algorithmId(a).data();
                QVERIFY2(got.clients.gaveUp == 0, where);
                QVERIFY2(got.clients.succeeded == std::int64_t(arrivals.size()), where);
                for (const Attempt& at : got.attempts)
                    QVERIFY2(at.attempt <= 1 && (at.attempt == 0 || at.decision.allowed), where);
            }
        }
    }

    // Property: per-client keys with K clients equal K independent single-client runs, for the
    // deterministic policies (backoff draws from one seeded stream shared by all clients, in the
    // order of the denials, so its jitter depends on the other clients).
    void perClientKeysAreIndependent()
    {
        for (std::uint64_t seed = 0; seed < propertySeeds(); ++seed) {
            Rng r(seed);
            const LimiterConfig c = randomConfig(r);
            const std::int64_t k = r.in(1, 5);
            const std::vector<Nanos> arrivals = randomArrivals(r, c, std::size_t(r.in(0, 150)));
            std::vector<std::int64_t> named;
            if (r.chance(50))
                for (std::size_t i = 0; i < arrivals.size(); ++i)
                    named.push_back(r.in(0, k - 1));
            const RetryPolicy policy = kDeterministic[r.in(0, 3)];
            const ClientConfig many = randomClients(r, policy, k, KeyMode::Client);
            ClientOptions oneOptions = many.options();
            oneOptions.clients = 1;
            const ClientConfig one = ClientConfig::make(oneOptions);
            const Algorithm a = kAllAlgorithms[std::size_t(r.in(0, 6))];
            const QByteArray where = "seed " + QByteArray::number(quint64(seed)) + " " + algorithmId(a).data() + " "
                                     + retryPolicyId(policy).data();

            const ClientTrace all = simulateClients(c, many, a, arrivals, named);
            std::int64_t attempts = 0, bytes = 0;
            for (std::int64_t client = 0; client < k; ++client) {
                std::vector<Nanos> own;
                std::vector<std::int64_t> requestOf; // the single run's request j is request requestOf[j]
                for (std::size_t i = 0; i < arrivals.size(); ++i)
                    if ((named.empty() ? std::int64_t(i) % k : named[i]) == client) {
                        own.push_back(arrivals[i]);
                        requestOf.push_back(std::int64_t(i));
                    }
                const ClientTrace alone = simulateClients(c, one, a, own);
                std::size_t j = 0;
                for (const Attempt& at : all.attempts) {
                    if (at.client != client)
                        continue;
                    QVERIFY2(j < alone.attempts.size(), where);
                    const Attempt& b = alone.attempts[j++];
                    QVERIFY2(at.t == b.t && at.attempt == b.attempt && requestOf[std::size_t(b.request)] == at.request
                                 && sameDecision(at.decision, b.decision),
                             where);
                }
                QVERIFY2(j == alone.attempts.size(), where);
                attempts += alone.clients.attempts;
                bytes += own.empty() ? 0 : alone.clients.total.bytes;
            }
            QVERIFY2(all.clients.attempts == attempts, where);
            QVERIFY2(all.clients.total.bytes == bytes, where);
        }
    }
};

QTEST_APPLESS_MAIN(TestClientsProperties)
#include "tst_clients_properties.moc"
