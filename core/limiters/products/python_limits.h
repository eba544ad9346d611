// PythonLimits is the Python `limits` library (the engine of Flask-Limiter and slowapi) with its
// MemoryStorage, as version 2.8.0 (Debian bookworm's python3-limits) computes it: limits/
// strategies.py and limits/storage/memory.py. Time is time.time(), a float of seconds, and the
// model computes with the same doubles (t = ns / 1e9, correctly rounded as Python's float() of
// the decimal is), so it rounds where the library rounds.
//
// - fixed-window (FixedWindowRateLimiter, Flask-Limiter's default): incr() drops the counter when
//   expirations[key] <= now, adds 1, and when the counter equals the amount just added sets
//   expirations[key] = now + expiry; the hit passes iff the counter <= amount. The window starts
//   at the key's first hit, and rejected hits count too.
// - fixed-window-elastic-expiry: the same, but every hit (rejected ones too) moves the expiry to
//   now + expiry: a client that keeps knocking is locked out for good.
// - moving-window (MovingWindowRateLimiter): acquire_entry() looks at the amount-th newest entry
//   and refuses iff entry.atime >= now - expiry: an entry exactly `expiry` old still counts (the
//   textbook log forgets it then). Refused hits are not recorded.
// The limit is written as limits writes it: "10/minute", "10 per 2 minutes", "5 per second"
// (one item; granularities second, minute, hour, day, month = 30 days, year = 360 days). The
// sliding-window-counter strategy arrived in limits 4.x, after the version Debian ships; it is not
// modelled. The storage's background timer (which removes expired entries every 10 ms of real
// time) never changes a decision in a way time.time() ordering does not, and is not modelled.
#pragma once

#include "limiters/products/product.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>

namespace ratelab {

class PythonLimits final : public ProductLimiter<PythonLimits> {
    friend class ProductLimiter<PythonLimits>;
public:
    enum class Strategy : std::uint8_t { FixedWindow, FixedWindowElastic, MovingWindow };

    explicit PythonLimits(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const;
    std::int64_t quota() const { return m_amount; }
    double levelAt(Nanos t) const;
    Memory memory() const
    {
        if (m_strategy == Strategy::MovingWindow)
            return {16 * std::int64_t(m_runs.size()), std::int64_t(m_runs.size())};
        return {16, 1};
    }
    Algorithm algorithm() const { return Algorithm::PythonLimits; }

    Strategy strategy() const { return m_strategy; }
    std::int64_t amount() const { return m_amount; }
    std::int64_t expirySeconds() const { return m_expiry; }

    // seconds is time.time() for t as the model holds it: the double nearest t / 1e9.
    static double seconds(Nanos t) { return double(t) / 1e9; }

private:
    Decision step(Nanos t, std::int64_t cost);
    bool admits(Nanos t, std::int64_t cost) const;

private:
    std::int64_t counterAt(double now) const { return m_hasCounter && !(m_expiration <= now) ? m_counter : 0; }
    std::int64_t inWindow(double now) const;

    Strategy m_strategy;
    std::int64_t m_amount;
    std::int64_t m_expiry; // whole seconds, as get_expiry() returns
    // fixed windows
    std::int64_t m_counter = 0;
    double m_expiration = 0;
    bool m_hasCounter = false;
    // moving window: the list of atimes, newest first, held as runs of equal atimes (a hit of cost
    // k adds k at once). Entries are numbered in the order they were added (m_next is the next
    // number); a run holds the numbers [end - count, end). Only the newest m_amount are ever read.
    struct Run {
        double atime;
        std::int64_t end;
    };
    std::deque<Run> m_runs; // newest first
    std::int64_t m_next = 0;
    std::int64_t kept() const { return std::min(m_next, m_amount); }
    // atimeAt is the atime of list entry i (0 = newest), or nullopt past the end.
    std::optional<double> atimeAt(std::int64_t i) const;
};

} // namespace ratelab
