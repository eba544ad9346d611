#include "limiters/products/upstash.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ratelab {

namespace {

constexpr std::string_view kKinds[] = {"fixedWindow", "slidingWindow", "tokenBucket"};
constexpr std::string_view kOnOff[] = {"true", "false"};
// kLuaExact is 2^53: the scripts compute in Lua doubles, exact below it.
constexpr std::int64_t kLuaExact = 9'007'199'254'740'992;
// kMaxMs keeps every time in milliseconds a whole number of nanoseconds in an int64.
constexpr std::int64_t kMaxMs = 9'000'000'000'000;

// jsRound is Math.round: the nearest integer, halves towards +infinity.
double jsRound(double x)
{
    const double r = std::floor(x);
    return x - r >= 0.5 ? r + 1 : r;
}

} // namespace

std::int64_t UpstashRatelimit::parseWindow(std::string_view text)
{
    // duration.ts: d.match(/^(\d+(?:\.\d+)?)\s?(ms|s|m|h|d|w)$/), Number.parseFloat, Math.round.
    const std::string bad = "Unable to parse window size: " + std::string(text);
    std::size_t i = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        ++i;
    if (i == 0)
        throw InputError(bad);
    if (i < text.size() && text[i] == '.') {
        const std::size_t start = ++i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9')
            ++i;
        if (i == start)
            throw InputError(bad);
    }
    const std::string number(text.substr(0, i));
    if (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
        ++i;
    const std::string_view unit = text.substr(i);
    double multiplier = 0;
    if (unit == "ms")
        multiplier = 1;
    else if (unit == "s")
        multiplier = 1000;
    else if (unit == "m")
        multiplier = 60'000;
    else if (unit == "h")
        multiplier = 3'600'000;
    else if (unit == "d")
        multiplier = 86'400'000;
    else if (unit == "w")
        multiplier = 604'800'000;
    else
        throw InputError(bad);
    const double result = jsRound(std::strtod(number.c_str(), nullptr) * multiplier);
    if (result < 1)
        throw InputError("Window size must be at least 1 ms, got: " + std::string(text));
    if (!(result <= double(kMaxMs)))
        throw InputError("window " + quoted(text) + " is beyond what this model holds (about 285 years)");
    return static_cast<std::int64_t>(result);
}

UpstashRatelimit::UpstashRatelimit(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::UpstashRatelimit, config);
    const auto windowOption = [&](std::string_view name) {
        const auto text = p.text(name);
        if (!text)
            p.fail(std::string(name) + " is required once any of its options is given");
        try {
            return parseWindow(*text);
        } catch (const InputError& e) {
            p.fail(std::string(name) + ": " + e.what());
        }
    };
    if (p.given()) {
        const std::string kind = p.choice("limiter", "slidingWindow", kKinds);
        m_kind = kind == "fixedWindow" ? Kind::FixedWindow : kind == "tokenBucket" ? Kind::TokenBucket : Kind::SlidingWindow;
        m_cache = p.choice("ephemeralCache", "true", kOnOff) == "true";
        if (m_kind == Kind::TokenBucket) {
            m_refillRate = p.requiredInteger("refillRate", 1, LimiterConfig::kMaxLimit);
            m_intervalMs = windowOption("interval");
            m_maxTokens = p.requiredInteger("maxTokens", 1, LimiterConfig::kMaxLimit);
        } else {
            m_tokens = p.requiredInteger("tokens", 1, LimiterConfig::kMaxLimit);
            m_windowMs = windowOption("window");
        }
    } else {
        const auto w = wholeUnits(config.windowNanos(), kMillis);
        if (!w)
            p.fail("the window is not a whole number of milliseconds: give --product-option window=\"10 s\"");
        m_tokens = config.limit();
        m_windowMs = *w;
    }
    if (m_kind == Kind::TokenBucket && Int128(m_maxTokens) * m_intervalMs >= kLuaExact)
        p.fail("maxTokens * interval in ms must stay below 2^53 (the script's PEXPIRE, in Lua doubles)");
    if (m_kind != Kind::TokenBucket && 2 * m_windowMs + 1000 > kMaxMs)
        p.fail("the window is beyond what this model holds");
}

std::int64_t UpstashRatelimit::previousCount(std::int64_t now) const
{
    const std::int64_t b = now / m_windowMs;
    return b == m_bucket ? m_previous : b == m_bucket + 1 ? m_current : 0;
}

// previousWeighted is the script's math.floor((1 - (now % window) / window) * prev), in doubles.
std::int64_t UpstashRatelimit::previousWeighted(std::int64_t now) const
{
    const double percentageInCurrent = double(now % m_windowMs) / double(m_windowMs);
    const double weight = 1.0 - percentageInCurrent;
    return static_cast<std::int64_t>(std::floor(weight * double(previousCount(now))));
}

// bucketAt is what the token bucket script holds after its refill at now, before it decides.
UpstashRatelimit::Bucket UpstashRatelimit::bucketAt(std::int64_t now) const
{
    if (!m_hasKey || now > m_expiresAt) // Redis: a key is gone once now > its expiry
        return {now, m_maxTokens};
    Bucket b{m_refilledAt, m_bucketTokens};
    if (now >= b.refilledAt + m_intervalMs) {
        const std::int64_t refills = (now - b.refilledAt) / m_intervalMs;
        b.tokens = std::int64_t(std::min<Int128>(m_maxTokens, Int128(b.tokens) + Int128(refills) * m_refillRate));
        b.refilledAt += refills * m_intervalMs;
    }
    return b;
}

Decision UpstashRatelimit::step(Nanos t, std::int64_t cost)
{
    const std::int64_t now = t / kMillis;
    Decision d;
    if (blocked(now)) { // the ephemeral cache answers: no script runs
        m_lastResetMs = m_blockedUntil;
        return d;
    }
    if (m_kind == Kind::TokenBucket) {
        const Bucket b = bucketAt(now);
        m_lastResetMs = b.refilledAt + m_intervalMs;
        if (b.tokens < cost) {
            m_refusedAt = now;
            if (m_cache)
                m_blockedUntil = m_lastResetMs;
            return d;
        }
        m_refusedAt = -1;
        const std::int64_t remaining = b.tokens - cost;
        m_hasKey = true;
        m_refilledAt = b.refilledAt;
        m_bucketTokens = remaining;
        const std::int64_t expireAt = std::int64_t(ceilDiv(m_maxTokens - remaining, m_refillRate)) * m_intervalMs;
        if (expireAt > 0)
            m_expiresAt = now + expireAt;
        d.allowed = true;
        return d;
    }
    const std::int64_t b = now / m_windowMs;
    m_lastResetMs = (b + 1) * m_windowMs;
    if (m_kind == Kind::SlidingWindow && previousWeighted(now) + currentCount(now) >= m_tokens) {
        if (m_cache)
            m_blockedUntil = m_lastResetMs;
        return d; // the script returns -1 and writes nothing
    }
    if (b != m_bucket) {
        m_previous = previousCount(now);
        m_current = 0;
        m_bucket = b;
    }
    m_current += cost; // INCRBY
    const std::int64_t used = m_current + (m_kind == Kind::SlidingWindow ? previousWeighted(now) : 0);
    d.allowed = used <= m_tokens;
    if (!d.allowed && m_cache)
        m_blockedUntil = m_lastResetMs;
    return d;
}

bool UpstashRatelimit::admits(Nanos t, std::int64_t cost) const
{
    const std::int64_t now = t / kMillis;
    if (blocked(now))
        return false;
    if (m_kind == Kind::TokenBucket)
        return bucketAt(now).tokens >= cost;
    const std::int64_t used = currentCount(now) + (m_kind == Kind::SlidingWindow ? previousWeighted(now) : 0);
    if (m_kind == Kind::SlidingWindow && used >= m_tokens)
        return false;
    return used + cost <= m_tokens;
}

std::int32_t UpstashRatelimit::remainingAt(Nanos t) const
{
    const std::int64_t now = t / kMillis;
    if (blocked(now))
        return 0;
    if (m_kind == Kind::TokenBucket) // the script's -1 while nothing since has changed the bucket
        return now == m_refusedAt ? 0 : clampRemaining(bucketAt(now).tokens);
    const std::int64_t used = currentCount(now) + (m_kind == Kind::SlidingWindow ? previousWeighted(now) : 0);
    return clampRemaining(Int128(m_tokens) - used);
}

Nanos UpstashRatelimit::reset(Nanos t) const
{
    // In Int128: m_lastResetMs in ns and less t, clamped to 0..kMaxNanos.
    const Int128 d = Int128(m_lastResetMs) * kMillis - t;
    return d <= 0 ? 0 : d >= kMaxNanos ? kMaxNanos : Nanos(d);
}

double UpstashRatelimit::levelAt(Nanos t) const
{
    const std::int64_t now = t / kMillis;
    if (m_kind == Kind::TokenBucket)
        return double(m_maxTokens - bucketAt(now).tokens);
    return double(currentCount(now) + (m_kind == Kind::SlidingWindow ? previousWeighted(now) : 0));
}

Memory UpstashRatelimit::memory() const
{
    const std::int64_t cacheEntry = m_cache ? 1 : 0; // the cache's slot for the identifier, taken or not
    switch (m_kind) {
    case Kind::FixedWindow: return {8 * (1 + cacheEntry), 1 + cacheEntry};
    case Kind::SlidingWindow: return {8 * (2 + cacheEntry), 2 + cacheEntry};
    case Kind::TokenBucket: break;
    }
    return {8 * (2 + cacheEntry), 1 + cacheEntry}; // one hash of two fields
}

} // namespace ratelab
