#include "engine/clients.h"

#include <cstdio>

#include "arithmetic/decimal.h"
#include "engine/cluster.h"
#include "engine/engine.h"
#include "limiters/limiters.h"

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

namespace {

// checkPolicy refuses a policy value out of range, naming it (and its cohort: "cohort 2: ").
void checkPolicy(const Cohort& p, const std::string& where)
{
    if (p.retryDelayNanos < 0)
        throw InputError(where + "retry delay must not be negative (got " + formatSeconds(p.retryDelayNanos) + " s)");
    if (p.maxRetries < 0 || p.maxRetries > ClientConfig::kMaxRetries)
        throw InputError(where + "max retries must be from 0 to " + std::to_string(ClientConfig::kMaxRetries) + " (got "
                         + std::to_string(p.maxRetries) + ")");
    if (p.backoffBaseNanos <= 0)
        throw InputError(where + "backoff base must be greater than 0 s (got " + formatSeconds(p.backoffBaseNanos) + " s)");
    if (p.backoffCapNanos <= 0)
        throw InputError(where + "backoff cap must be greater than 0 s (got " + formatSeconds(p.backoffCapNanos) + " s)");
}

} // namespace

ClientConfig ClientConfig::make(const ClientOptions& o)
{
    if (o.clients < 1)
        throw InputError("clients must be at least 1 (got " + std::to_string(o.clients) + ")");
    if (o.clients > kMaxClients)
        throw InputError("clients must be at most " + std::to_string(kMaxClients) + " (got "
                         + std::to_string(o.clients) + ")");
    ClientConfig c;
    c.m_o = o;
    c.m_policies = {Cohort{o.clients, o.retry, o.retryDelayNanos, o.maxRetries, o.backoffBaseNanos, o.backoffCapNanos,
                           o.jitter}};
    checkPolicy(c.m_policies.front(), "");
    c.m_ends = {o.clients};
    if (!o.cohorts.empty()) {
        c.m_policies = o.cohorts;
        c.m_ends.clear();
        std::int64_t sum = 0;
        for (std::size_t i = 0; i < o.cohorts.size(); ++i) {
            const std::string where = "cohort " + std::to_string(i + 1) + ": ";
            if (o.cohorts[i].clients < 1)
                throw InputError(where + "clients must be at least 1 (got " + std::to_string(o.cohorts[i].clients) + ")");
            checkPolicy(o.cohorts[i], where);
            sum += o.cohorts[i].clients;
            if (sum > kMaxClients)
                throw InputError("the cohorts hold more than " + std::to_string(kMaxClients) + " clients");
            c.m_ends.push_back(sum);
        }
        if (sum != o.clients)
            throw InputError("the cohorts hold " + std::to_string(sum) + " clients, but there are "
                             + std::to_string(o.clients));
    }
    return c;
}

ClientConfig ClientConfig::keyed(std::int64_t keys)
{
    if (keys > kMaxKeys)
        throw InputError("the log has " + std::to_string(keys) + " keys; the engine holds at most "
                         + std::to_string(kMaxKeys) + " (a cluster, buckets that start empty or limit changes)");
    ClientConfig c;
    c.m_o.clients = std::max<std::int64_t>(1, keys);
    c.m_policies = {Cohort{c.m_o.clients}};
    c.m_ends = {c.m_o.clients};
    return c;
}

Cohort parseCohort(std::string_view text)
{
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        throw InputError("expected K:POLICY[:key=value,...] (got " + quoted(text) + ")");
    Cohort c;
    c.clients = parseIntegerIn(text.substr(0, colon), 1, ClientConfig::kMaxClients);
    std::string_view rest = text.substr(colon + 1);
    const auto second = rest.find(':');
    const std::string_view policy = rest.substr(0, second);
    const auto p = retryPolicyFromId(policy);
    if (!p)
        throw InputError("unknown retry policy " + quoted(policy)
                         + " (known: none, immediate, retry_after, retry_after_header, backoff)");
    c.retry = *p;
    rest = second == std::string_view::npos ? std::string_view{} : rest.substr(second + 1);
    forEachKeyValue(rest, [&](std::string_view key, std::string_view value) {
        if (key == "retry_delay")
            c.retryDelayNanos = parseSeconds(value);
        else if (key == "max_retries")
            c.maxRetries = parseIntegerIn(value, 0, ClientConfig::kMaxRetries);
        else if (key == "backoff_base")
            c.backoffBaseNanos = parseSeconds(value);
        else if (key == "backoff_cap")
            c.backoffCapNanos = parseSeconds(value);
        else if (key == "jitter") {
            const auto j = jitterFromId(value);
            if (!j)
                throw InputError("unknown jitter " + quoted(value) + " (known: full, equal, decorrelated, none)");
            c.jitter = *j;
        } else
            throw InputError("unknown key " + quoted(key)
                             + " (known: retry_delay, max_retries, backoff_base, backoff_cap, jitter)");
    });
    checkPolicy(c, "");
    return c;
}

std::string cohortText(const Cohort& c)
{
    const Cohort d;
    std::string out = std::to_string(c.clients) + ":" + std::string(retryPolicyId(c.retry));
    std::string options;
    const auto add = [&](const char* key, const std::string& value) {
        options += (options.empty() ? ":" : ",") + std::string(key) + "=" + value;
    };
    if (c.retryDelayNanos != d.retryDelayNanos)
        add("retry_delay", formatSeconds(c.retryDelayNanos));
    if (c.maxRetries != d.maxRetries)
        add("max_retries", std::to_string(c.maxRetries));
    if (c.backoffBaseNanos != d.backoffBaseNanos)
        add("backoff_base", formatSeconds(c.backoffBaseNanos));
    if (c.backoffCapNanos != d.backoffCapNanos)
        add("backoff_cap", formatSeconds(c.backoffCapNanos));
    if (c.jitter != d.jitter)
        add("jitter", std::string(jitterId(c.jitter)));
    return out + options;
}

ClientOptions withCohorts(ClientOptions o, std::vector<Cohort> cohorts)
{
    o.cohorts = std::move(cohorts);
    if (o.cohorts.empty())
        return o;
    o.clients = 0;
    for (const Cohort& c : o.cohorts)
        o.clients += c.clients;
    const Cohort& first = o.cohorts.front();
    o.retry = first.retry;
    o.retryDelayNanos = first.retryDelayNanos;
    o.maxRetries = first.maxRetries;
    o.backoffBaseNanos = first.backoffBaseNanos;
    o.backoffCapNanos = first.backoffCapNanos;
    o.jitter = first.jitter;
    return o;
}

bool ClientConfig::anyRetries() const
{
    for (const Cohort& p : m_policies)
        if (p.retry != RetryPolicy::None && p.maxRetries > 0)
            return true;
    return false;
}

bool retryable(const Decision& d)
{
    // A request that costs more than the quota is never admitted: no retry can help.
    return !d.allowed && !d.retryNever();
}

std::optional<Nanos> retryDelay(const Cohort& policy, const Decision& d)
{
    switch (policy.retry) {
    case RetryPolicy::None: return std::nullopt;
    case RetryPolicy::Immediate: return policy.retryDelayNanos;
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

Memory worstCaseMemory(Algorithm a, const LimiterConfig& config)
{
    if (a == Algorithm::SlidingWindowLog) // one 8-byte timestamp per admission still inside, up to L
        return {8 * config.limit(), config.limit()};
    return visitLimiter(a, config, [](const auto& l) { return l.memory(); }); // the others hold a fixed set of fields
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
