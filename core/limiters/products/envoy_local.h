// EnvoyLocal is Envoy's local rate limit token bucket (the local_ratelimit HTTP filter's
// token_bucket) as Envoy computes it at commit 016c0c8007133da7f1b1e22a1809f76fa40ae912:
// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc, the timer-based
// refill (later versions replaced it with a lazily refilled AtomicTokenBucket).
//
// tokens (uint32) start at max_tokens. A timer fires every fill_interval (at least 50 ms, whole
// milliseconds) and sets tokens = min(max_tokens, tokens + tokens_per_fill). A request is
// allowed iff tokens > 0, and takes one. Nothing refills between two fires: after a burst the
// bucket stays empty until the next fire, whatever the configured average; and a
// tokens_per_fill above max_tokens is cut to max_tokens per interval. Here the timer fires at
// exactly k * fill_interval (k >= 1) from t = 0, and a fire due at t comes before a request at t.
// Options: max_tokens, tokens_per_fill (Envoy's default 1), fill_interval ("1s", "0.05s", or a
// plain number of seconds). Cost k (RateLab's extension) takes k tokens when there are k.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class EnvoyLocal final : public ProductLimiter<EnvoyLocal> {
    friend class ProductLimiter<EnvoyLocal>;
public:
    explicit EnvoyLocal(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const { return clampRemaining(tokensAt(t)); }
    std::int64_t quota() const { return m_maxTokens; }
    double levelAt(Nanos t) const { return double(tokensAt(t)); }
    Memory memory() const { return {8, 1}; } // tokens
    Algorithm algorithm() const { return Algorithm::EnvoyLocal; }

    std::uint32_t maxTokens() const { return m_maxTokens; }
    std::uint32_t tokensPerFill() const { return m_tokensPerFill; }
    Nanos fillInterval() const { return m_fillNanos; }

private:
    Decision step(Nanos t, std::int64_t cost)
    {
        m_tokens = tokensAt(t);
        m_fills = t / m_fillNanos;
        Decision d;
        if (m_tokens == 0 || m_tokens < cost)
            return d;
        m_tokens -= static_cast<std::uint32_t>(cost);
        d.allowed = true;
        return d;
    }
    bool admits(Nanos t, std::int64_t cost) const
    {
        const std::uint32_t tokens = tokensAt(t);
        return tokens > 0 && tokens >= cost;
    }

private:
    // tokensAt applies the fires due in (last, t]: each is min(max, tokens + per_fill), and from
    // the first fire that reaches max_tokens on the bucket stays full, so one step suffices.
    std::uint32_t tokensAt(Nanos t) const
    {
        const std::int64_t due = t / m_fillNanos - m_fills;
        if (due <= 0)
            return m_tokens;
        if (due >= (std::int64_t(1) << 32)) // tokens_per_fill >= 1: full long before
            return m_maxTokens;
        const std::uint64_t filled = std::uint64_t(m_tokens) + std::uint64_t(m_tokensPerFill) * std::uint64_t(due);
        return filled >= m_maxTokens ? m_maxTokens : static_cast<std::uint32_t>(filled);
    }

    std::uint32_t m_maxTokens;
    std::uint32_t m_tokensPerFill;
    Nanos m_fillNanos;
    std::uint32_t m_tokens;
    std::int64_t m_fills = 0; // fires applied so far
};

} // namespace ratelab
