// UpstashRatelimit is @upstash/ratelimit as version 2.2.0 (npm) computes it, one Ratelimit of
// src/single.ts (RegionRatelimit) on one Redis: its Lua scripts in src/lua-scripts/single.ts, the
// TypeScript around them in src/single.ts, src/cache.ts (the ephemeral cache) and
// src/duration.ts (ms()). Time is Date.now(), whole milliseconds (t truncated).
//
// - fixedWindow(tokens, window): key identifier:floor(now / window); the script INCRBYs it on
//   every request, denied or not, and success = count <= tokens; reset = (bucket + 1) * window.
// - slidingWindow(tokens, window): the two-bucket approximation with the previous bucket's
//   weighted count ROUNDED DOWN, in Lua doubles: prevW = math.floor((1 - (now % window) / window)
//   * prev); denied (nothing written) iff prevW + cur >= tokens; else cur += rate and remaining =
//   tokens - (cur + prevW), success = remaining >= 0 (a cost above 1 can be counted and denied).
// - tokenBucket(refillRate, interval, maxTokens): a hash {refilledAt, tokens} refilled in WHOLE
//   intervals: n = floor((now - refilledAt) / interval), tokens = min(maxTokens, tokens + n *
//   refillRate), refilledAt += n * interval; denied (nothing written) iff tokens < rate; an
//   admitted request PEXPIREs the key ceil((maxTokens - remaining) / refillRate) * interval ms
//   on, and Redis drops it once now > that: the next request starts a full bucket whose intervals
//   count from its own time. reset = refilledAt + interval. A denial returns -1 (index.js:
//   `remaining: Math.max(0, remaining)`): remaining 0, though tokens may be left for a cheaper
//   request.
// - ephemeralCache (the package's default: on): a denial blocks the identifier in process
//   memory until its reset, INCLUSIVE (cache.ts: unblocked only once reset < Date.now()); a
//   blocked request is denied with remaining 0 and reaches no script (fixedWindow stops counting).
//   The sliding window then denies up to the end of its current bucket, whatever its estimate.
// cachedFixedWindow is not a choice: on one process it decides as fixedWindow without the cache.
// Cost k (RateLab's extension) is the package's `rate` option of limit().
// remaining and reset are the package's answers to each limit() call: remainingAt(t) at the
// millisecond of a denial the token bucket script answered is 0 (what it returned), and reset(t)
// is the `reset` of the last call, from t.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class UpstashRatelimit final : public ProductLimiter<UpstashRatelimit> {
    friend class ProductLimiter<UpstashRatelimit>;
public:
    enum class Kind : std::uint8_t { FixedWindow, SlidingWindow, TokenBucket };

    explicit UpstashRatelimit(const LimiterConfig& config);

    static constexpr bool kOwnReset = true; // reset is the package's answer (resetOf)

    std::int32_t remainingAt(Nanos t) const;
    // reset is the package's `reset` for the last request, less t (0 once t has passed it).
    Nanos reset(Nanos t) const;
    std::int64_t quota() const { return m_kind == Kind::TokenBucket ? m_maxTokens : m_tokens; }
    // levelAt is the tokens used: the window's count, the sliding estimate, or maxTokens - tokens.
    double levelAt(Nanos t) const;
    Memory memory() const;
    Algorithm algorithm() const { return Algorithm::UpstashRatelimit; }

    // parseWindow reads a Duration as ms() does ("10 s", "1.5m", "250ms"), in milliseconds, or
    // throws InputError with the package's message.
    static std::int64_t parseWindow(std::string_view text);

    Kind kind() const { return m_kind; }
    std::int64_t tokens() const { return m_tokens; }
    std::int64_t windowMs() const { return m_windowMs; }
    std::int64_t refillRate() const { return m_refillRate; }
    std::int64_t intervalMs() const { return m_intervalMs; }
    std::int64_t maxTokens() const { return m_maxTokens; }
    bool ephemeralCache() const { return m_cache; }
    // lastResetMs is the `reset` the package answered for the last request (ms since t = 0).
    std::int64_t lastResetMs() const { return m_lastResetMs; }

private:
    Decision step(Nanos t, std::int64_t cost);
    bool admits(Nanos t, std::int64_t cost) const;

private:
    static constexpr Nanos kMillis = 1'000'000;

    struct Bucket { // the token bucket's hash as the script would read it at now
        std::int64_t refilledAt;
        std::int64_t tokens;
    };

    bool blocked(std::int64_t now) const { return m_cache && m_blockedUntil >= 0 && m_blockedUntil >= now; }
    std::int64_t currentCount(std::int64_t now) const { return now / m_windowMs == m_bucket ? m_current : 0; }
    std::int64_t previousCount(std::int64_t now) const;
    std::int64_t previousWeighted(std::int64_t now) const;
    Bucket bucketAt(std::int64_t now) const;

    Kind m_kind = Kind::SlidingWindow;
    std::int64_t m_tokens = 0;
    std::int64_t m_windowMs = 1;
    std::int64_t m_refillRate = 1;
    std::int64_t m_intervalMs = 1;
    std::int64_t m_maxTokens = 0;
    bool m_cache = true;

    std::int64_t m_bucket = -1;  // the window of m_current (fixed and sliding)
    std::int64_t m_current = 0;  // its count
    std::int64_t m_previous = 0; // the count of window m_bucket - 1
    bool m_hasKey = false;       // token bucket: the hash exists (until now > m_expiresAt)
    std::int64_t m_refilledAt = 0;
    std::int64_t m_bucketTokens = 0;
    std::int64_t m_expiresAt = 0;
    std::int64_t m_blockedUntil = -1; // the ephemeral cache's reset for the identifier
    std::int64_t m_refusedAt = -1;    // the token bucket script's last denial, in ms: it answered -1
    std::int64_t m_lastResetMs = 0;
};

} // namespace ratelab
