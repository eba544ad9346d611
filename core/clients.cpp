#include "clients.h"

#include <cstdio>

#include "decimal.h"
#include "cluster.h"
#include "engine.h"
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

std::string_view jitterId(Jitter j)
{
    switch (j) {
    case Jitter::Full: return "full";
    case Jitter::Equal: return "equal";
    case Jitter::Decorrelated: return "decorrelated";
    case Jitter::None: break;
    }
    return "none";
}

std::optional<Jitter> jitterFromId(std::string_view id)
{
    for (Jitter j : kAllJitters)
        if (jitterId(j) == id)
            return j;
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
    // A request that costs more than the quota is never admitted: no retry can help.
    return !d.allowed && !d.retryNever();
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

Nanos jitteredDelay(Jitter j, Nanos base, Nanos cap, std::int32_t a, Nanos prev, std::uint64_t draw53)
{
    const Nanos d = (a >= 63 || base > (cap >> a)) ? cap : std::min(cap, base << a);
    const Int128 one = Int128(1) << 53;
    switch (j) {
    case Jitter::Full: return backoffDelay(base, cap, a, draw53);
    case Jitter::Equal: // d/2 + u*d/2 = d * (2^53 + draw) / 2^54
        return static_cast<Nanos>(ceilDiv(Int128(d) * (one + draw53), one * 2));
    case Jitter::Decorrelated: { // base + u * (3*prev - base), capped
        const Int128 span = std::max<Int128>(0, Int128(3) * prev - base);
        const Int128 v = base + ceilDiv(span * draw53, one);
        return static_cast<Nanos>(std::min<Int128>(cap, v));
    }
    case Jitter::None: break;
    }
    return d;
}

std::uint64_t jitterDraw(std::uint64_t seed, std::int64_t client, std::uint32_t k)
{
    // splitmix64 over (seed, client, k): a stream per client, no state shared between them
    return hashClient(hashClient(seed ^ hashClient(std::uint64_t(client))) + k) >> 11;
}

ClientTrace simulateClients(const LimiterConfig& config, const ClientConfig& clients, Algorithm algorithm,
                            std::span<const Nanos> arrivals, std::span<const std::int64_t> clientOf)
{
    EngineSetup setup;
    setup.layers = {Layer{algorithm, config}};
    setup.clients = clients;
    setup.seed = clients.options().seed;
    const RowRun run = runRow(setup, {arrivals, {}, clientOf});
    ClientTrace r;
    r.algorithm = algorithm;
    r.metrics = run.metrics;
    r.clients = run.clients;
    r.attempts.reserve(run.log.size());
    for (const LoggedAttempt& a : run.log)
        r.attempts.push_back(Attempt{a.request, a.client, a.attempt, a.t, a.decision()});
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
