#include "clients.h"

#include <cstdio>

#include "decimal.h"
#include "limiters.h"

#include <algorithm>
#include <queue>
#include <random>
#include <string>
#include <type_traits>

namespace ratelab {

std::string_view keyModeId(KeyMode k) { return k == KeyMode::Client ? "client" : "global"; }

std::optional<KeyMode> keyModeFromId(std::string_view id)
{
    if (id == "client")
        return KeyMode::Client;
    if (id == "global")
        return KeyMode::Global;
    return std::nullopt;
}

std::string_view retryPolicyId(RetryPolicy p)
{
    switch (p) {
    case RetryPolicy::None: return "none";
    case RetryPolicy::Immediate: return "immediate";
    case RetryPolicy::RetryAfter: return "retry_after";
    case RetryPolicy::RetryAfterHeader: return "retry_after_header";
    case RetryPolicy::Backoff: break;
    }
    return "backoff";
}

std::optional<RetryPolicy> retryPolicyFromId(std::string_view id)
{
    for (RetryPolicy p : kAllRetryPolicies)
        if (retryPolicyId(p) == id)
            return p;
    return std::nullopt;
}

ClientConfig ClientConfig::make(const ClientOptions& o)
{
    if (o.clients < 1)
        throw InputError("clients must be at least 1 (got " + std::to_string(o.clients) + ")");
    if (o.clients > kMaxClients)
        throw InputError("clients must be at most " + std::to_string(kMaxClients) + " (got "
                         + std::to_string(o.clients) + ")");
    if (o.retryDelayNanos < 0)
        throw InputError("retry delay must not be negative (got " + formatSeconds(o.retryDelayNanos) + " s)");
    if (o.maxRetries < 0 || o.maxRetries > kMaxRetries)
        throw InputError("max retries must be from 0 to " + std::to_string(kMaxRetries) + " (got "
                         + std::to_string(o.maxRetries) + ")");
    if (o.backoffBaseNanos <= 0)
        throw InputError("backoff base must be greater than 0 s (got " + formatSeconds(o.backoffBaseNanos) + " s)");
    if (o.backoffCapNanos <= 0)
        throw InputError("backoff cap must be greater than 0 s (got " + formatSeconds(o.backoffCapNanos) + " s)");
    ClientConfig c;
    c.m_o = o;
    return c;
}

bool retryable(const Decision& d)
{
    // The request-cost feature marks a request that can never be admitted (cost above L or C)
    // with a retry_after of "never"; test that mark here once Decision carries it.
    return !d.allowed;
}

std::optional<Nanos> retryDelay(const ClientConfig& clients, const Decision& d)
{
    switch (clients.retry()) {
    case RetryPolicy::None: return std::nullopt;
    case RetryPolicy::Immediate: return clients.options().retryDelayNanos;
    case RetryPolicy::RetryAfter: return d.retryAfter;
    case RetryPolicy::RetryAfterHeader:
        // Retry-After is in whole seconds: ceil(retry_after), and a denial's retry_after is > 0,
        // so it is at least 1 s. Whole seconds of a Nanos fit in a Nanos again.
        return clampToNanos(ceilDiv(d.retryAfter, kNanosPerSecond) * kNanosPerSecond);
    case RetryPolicy::Backoff: break;
    }
    return std::nullopt; // needs a draw: backoffDelay
}

Nanos backoffDelay(Nanos base, Nanos cap, std::int32_t a, std::uint64_t draw53)
{
    // min(cap, base * 2^a) without overflow: base * 2^a > cap iff base > cap >> a.
    const Nanos ceiling = (a >= 63 || base > (cap >> a)) ? cap : std::min(cap, base << a);
    // u * ceiling = draw53 * ceiling / 2^53, below 2^116: exact in 128 bits, then rounded up.
    return static_cast<Nanos>(ceilDiv(Int128(draw53) * ceiling, Int128(1) << 53));
}

namespace {

// Pending is a scheduled retry; seq is its creation order among retries.
struct Pending {
    Nanos t = 0;
    std::int64_t seq = 0;
    std::int64_t request = 0;
    std::int32_t attempt = 0;
};

struct Later {
    bool operator()(const Pending& a, const Pending& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
};

// nearestRank returns the p-th percentile of sorted values by the nearest-rank method: the
// ceil(p / 100 * n)-th smallest (1-based), so p99 of 100 values is the 99th, of 10 the 10th.
Nanos nearestRank(const std::vector<Nanos>& sorted, std::int64_t p)
{
    const auto n = static_cast<std::int64_t>(sorted.size());
    const std::int64_t rank = std::max<std::int64_t>(1, static_cast<std::int64_t>(ceilDiv(Int128(p) * n, 100)));
    return sorted[static_cast<std::size_t>(rank - 1)];
}

Latency latencyOf(std::vector<Nanos> values)
{
    Latency l;
    if (values.empty())
        return l;
    std::sort(values.begin(), values.end());
    Int128 sum = 0;
    for (Nanos v : values)
        sum += v;
    l.mean = clampToNanos(ceilDiv(sum, static_cast<Int128>(values.size())));
    l.p50 = nearestRank(values, 50);
    l.p99 = nearestRank(values, 99);
    l.max = values.back();
    return l;
}

[[noreturn]] void tooManyAttempts()
{
    throw InputError("the retries make more than " + std::to_string(kMaxAttempts)
                     + " attempts, the most one scenario may hold; lower the max retries or the number of requests");
}

} // namespace

ClientTrace simulateClients(const LimiterConfig& config, const ClientConfig& clients, Algorithm algorithm,
                            std::span<const Nanos> arrivals, std::span<const std::int64_t> clientOf)
{
    const std::int64_t k = clients.clients();
    if (!clientOf.empty()) {
        if (clientOf.size() != arrivals.size())
            throw InputError("a client is needed for every request (" + std::to_string(clientOf.size()) + " for "
                             + std::to_string(arrivals.size()) + ")");
        for (std::size_t i = 0; i < clientOf.size(); ++i)
            if (clientOf[i] < 0 || clientOf[i] >= k)
                throw InputError("request " + std::to_string(i) + " names client " + std::to_string(clientOf[i])
                                 + ", but clients are numbered 0 to " + std::to_string(k - 1));
    }
    if (static_cast<std::int64_t>(arrivals.size()) > kMaxAttempts)
        tooManyAttempts();
    const auto clientOfRequest = [&](std::int64_t i) { return clientOf.empty() ? i % k : clientOf[std::size_t(i)]; };
    const bool perClient = clients.key() == KeyMode::Client;
    const ClientOptions& o = clients.options();

    ClientTrace r;
    r.algorithm = algorithm;
    r.attempts.reserve(arrivals.size());
    Metrics& m = r.metrics;
    ClientStats& s = r.clients;
    s.requests = static_cast<std::int64_t>(arrivals.size());
    std::vector<Nanos> latencies;
    latencies.reserve(arrivals.size());

    visitLimiter(algorithm, config, [&](auto& fresh) {
        using L = std::decay_t<decltype(fresh)>;
        std::vector<L> limiters(static_cast<std::size_t>(clients.keys()), fresh);
        std::vector<char> used(limiters.size(), 0);
        std::priority_queue<Pending, std::vector<Pending>, Later> retries;
        std::mt19937_64 rng(o.seed);
        std::int64_t retrySeq = 0;
        // The admitted attempt times inside (t - W, t], as a window over admittedTimes.
        std::vector<Nanos> admittedTimes;
        std::size_t firstInside = 0;
        std::size_t next = 0; // the next first attempt

        while (next < arrivals.size() || !retries.empty()) {
            // First attempts were created before every retry, so they go first at one instant.
            Pending p;
            if (next < arrivals.size() && (retries.empty() || arrivals[next] <= retries.top().t)) {
                p = Pending{arrivals[next], -1, static_cast<std::int64_t>(next), 0};
                ++next;
            } else {
                p = retries.top();
                retries.pop();
            }
            if (static_cast<std::int64_t>(r.attempts.size()) >= kMaxAttempts)
                tooManyAttempts();
            const std::int64_t client = clientOfRequest(p.request);
            const auto key = static_cast<std::size_t>(perClient ? client : 0);
            used[key] = 1;
            const Decision d = limiters[key].decide(p.t);
            r.attempts.push_back(Attempt{p.request, client, p.attempt, p.t, d});
            m.allowed += d.allowed;
            m.delayed += d.delay > 0;
            if (d.allowed) {
                ++s.succeeded;
                latencies.push_back(p.t - arrivals[std::size_t(p.request)]);
                admittedTimes.push_back(p.t);
                while (admittedTimes[firstInside] <= p.t - config.windowNanos())
                    ++firstInside;
                m.maxInWindow = std::max(m.maxInWindow, static_cast<std::int64_t>(admittedTimes.size() - firstInside));
                continue;
            }
            if (o.retry == RetryPolicy::None || p.attempt >= o.maxRetries || !retryable(d)) {
                ++s.gaveUp;
                continue;
            }
            const Nanos delay = o.retry == RetryPolicy::Backoff
                ? backoffDelay(o.backoffBaseNanos, o.backoffCapNanos, p.attempt, rng() >> 11)
                : *retryDelay(clients, d);
            const Int128 at = Int128(p.t) + delay;
            if (at > kMaxNanos)
                throw InputError("a retry would come at " + formatSeconds(p.t) + " s + " + formatSeconds(delay)
                                 + " s, past the largest time RateLab can represent");
            retries.push(Pending{static_cast<Nanos>(at), retrySeq++, p.request, p.attempt + 1});
        }

        m.memory = fresh.memory(); // nothing arrived: a fresh key's state, as simulateOne reports
        bool any = false;
        for (std::size_t i = 0; i < limiters.size(); ++i) {
            if (!used[i])
                continue;
            const Memory mem = limiters[i].memory();
            ++s.keysUsed;
            s.total.bytes += mem.bytes;
            s.total.entries += mem.entries;
            if (!any || mem.bytes > s.perKeyMax.bytes)
                s.perKeyMax.bytes = mem.bytes;
            if (!any || mem.entries > s.perKeyMax.entries)
                s.perKeyMax.entries = mem.entries;
            any = true;
        }
        if (any)
            m.memory = s.perKeyMax;
    });

    s.attempts = static_cast<std::int64_t>(r.attempts.size());
    m.denied = s.attempts - m.allowed;
    m.overshoot = static_cast<double>(m.maxInWindow) / static_cast<double>(config.limit());
    s.amplification = s.requests > 0 ? static_cast<double>(s.attempts) / static_cast<double>(s.requests) : 0.0;
    s.latency = latencyOf(std::move(latencies));
    return r;
}

ClientsTrace simulateClients(const LimiterConfig& config, const ClientConfig& clients,
                             std::span<const Algorithm> algorithms, std::vector<Nanos> arrivals,
                             std::span<const std::int64_t> clientOf)
{
    ClientsTrace trace{Trace{config, std::move(arrivals), {}, {}, {}}, clients, {}};
    trace.results.reserve(algorithms.size());
    for (Algorithm a : algorithms)
        trace.results.push_back(simulateClients(config, clients, a, trace.base.arrivals, clientOf));
    return trace;
}

Memory worstCaseMemory(Algorithm a, const LimiterConfig& config)
{
    if (a == Algorithm::SlidingWindowLog) // one 8-byte timestamp per admission still inside, up to L
        return {8 * config.limit(), config.limit()};
    return makeLimiter(a, config)->memory(); // the others hold a fixed set of fields
}

Memory memoryAtScale(Algorithm a, const LimiterConfig& config, std::int64_t keys)
{
    const Memory one = worstCaseMemory(a, config);
    return {one.bytes * keys, one.entries * keys};
}

std::string humanBytes(std::int64_t bytes)
{
    const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1000 && u < 6) {
        v /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 || v >= 100 ? "%.0f %s" : "%.3g %s", v, units[u]);
    return buf;
}

} // namespace ratelab
