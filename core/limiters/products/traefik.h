// Traefik is Traefik's rateLimit middleware (average, period, burst) as Traefik v2 computes it at
// commit 001e9aa4597ca675f614c7d4a72c34ae7835531e (pkg/middlewares/ratelimiter/rate_limiter.go),
// on golang.org/x/time/rate v0.3.0 (Debian bookworm's golang-golang-x-time-dev; Traefik v2.10
// pins the same version).
//
// Traefik builds rate.NewLimiter(rtl, burst) with rtl = float64(average * 1e9) / float64(period
// in ns) per second, burst at least 1, and maxDelay = 500 ms when rtl < 1, else
// time.Second / (time.Duration(rtl) * 2). Each request: res := Reserve(); delay :=
// res.Delay(); if delay > maxDelay { res.Cancel(); 429 } else sleep(delay) and serve. So a
// request may be admitted late (Decision::delay), up to maxDelay, and `average: 6, period: 1m`
// is one request per 10 s after the burst. x/time/rate keeps tokens and times as Go does:
// float64 tokens, tokensFromDuration(d) = d.Seconds() * limit, durationFromTokens(x) =
// Duration(1e9 * (x / limit)) (truncated), and Cancel gives the tokens back (CancelAt). The model
// performs the same float64 operations in the same order. average 0 makes rate.Limit(0): in
// x/time/rate v0.3.0 such a limiter lets `burst` requests through in all, then refuses every
// one (Traefik's comment still says 0 means no limit). Cost k (RateLab's extension) is ReserveN(k).
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class Traefik final : public ProductLimiter<Traefik> {
    friend class ProductLimiter<Traefik>;
public:
    explicit Traefik(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const;
    std::int64_t quota() const { return m_burst; }
    double levelAt(Nanos t) const { return m_limit == 0 ? double(m_burstLeft) : advance(t); }
    Memory memory() const { return {32, 1}; } // tokens, last, lastEvent, burst
    Algorithm algorithm() const { return Algorithm::Traefik; }

    double limitPerSecond() const { return m_limit; }
    std::int64_t average() const { return m_average; }
    Nanos period() const { return m_period; }
    Nanos maxDelay() const { return m_maxDelay; }
    std::int64_t burst() const { return m_burst; }

private:
    Decision step(Nanos t, std::int64_t cost);
    bool admits(Nanos t, std::int64_t cost) const;

private:
    // Go's Duration.Seconds(): whole seconds plus the nanoseconds / 1e9.
    static double goSeconds(Nanos d) { return double(d / 1'000'000'000) + double(d % 1'000'000'000) / 1e9; }
    double tokensFromDuration(Nanos d) const { return goSeconds(d) * m_limit; }
    Nanos durationFromTokens(double tokens) const { return goCast(1e9 * (tokens / m_limit)); }
    // advance is Limiter.advance: the tokens at t (the first call finds last at Go's zero time,
    // so the elapsed time saturates and the bucket is full).
    double advance(Nanos t) const
    {
        const double delta = m_hasLast ? tokensFromDuration(t - m_last) : tokensFromDuration(kMaxNanos);
        double tokens = m_tokens + delta;
        if (tokens > double(m_burst))
            tokens = double(m_burst);
        return tokens;
    }
    // waitFor the reservation of cost at t: (tokens after it, wait).
    std::pair<double, Nanos> reservation(Nanos t, std::int64_t cost) const
    {
        double tokens = advance(t);
        tokens -= double(cost);
        return {tokens, tokens < 0 ? durationFromTokens(-tokens) : 0};
    }

    std::int64_t m_average; // as configured: average per period
    Nanos m_period;
    double m_limit;       // rate.Limit, events per second
    std::int64_t m_burst; // lim.burst
    Nanos m_maxDelay;
    double m_tokens = 0;
    Nanos m_last = 0;
    Nanos m_lastEvent = 0;
    bool m_hasLast = false;
    std::int64_t m_burstLeft; // the rate.Limit(0) branch decrements burst itself
};

} // namespace ratelab
