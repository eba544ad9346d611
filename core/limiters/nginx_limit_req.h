// NginxLimitReq is nginx's `limit_req`, computed the way ngx_http_limit_req_module.c (nginx 1.22)
// computes it, not the way the textbook leaky bucket does.
//
// nginx keeps, per key, `excess` in thousandths of a request and `last`, the time of the last
// accepted request in whole milliseconds (the clock is truncated to the ms). Its rate is held in
// thousandths of a request per second: `N r/s` is N*1000, `N r/m` is N*1000/60 truncated. A key's
// first request creates it with excess 0. Later, with ms = now - last,
//     excess = max(0, excess - rate*ms/1000 + 1000)      (integer division)
// and the request is rejected iff excess > B*1000; a rejected request changes nothing. An
// accepted one waits (excess - D*1000)*1000/rate ms when excess > D*1000 (nodelay: never).
//
// excess is (level - 1)*1000 of the exact leaky bucket with C = B + 1, so the two admit the same
// requests while every time is a whole millisecond and the rate a whole number per second. Where
// they part (a sub-millisecond time, a per-minute rate, the truncating divide) is the lesson.
//
// Cost is RateLab's extension (nginx has none): a request of cost k counts as k requests at once,
// excess = max(0, excess - rate*ms/1000 + 1000) + (k - 1)*1000, the textbook bucket's level + k.
#pragma once

#include "limiters/limiter.h"

#include <string>

namespace ratelab {

// nginxRateThousandths returns the rate as nginx holds it, in thousandths of a request per
// second. The rate must be a whole number per second or per minute (what `rate=` can say);
// otherwise it throws InputError naming the nearest rates nginx can express.
std::int64_t nginxRateThousandths(const Rate& rate);

// nginxRateText returns the rate as nginx writes it ("10r/s", "30r/m"); the rate must pass
// nginxRateThousandths.
std::string nginxRateText(const Rate& rate);

// nginxDirectives returns the two nginx lines for the config, each ending in a newline, the zone
// keyed by `key` (an nginx variable) and `megabytes` large:
//   limit_req_zone $binary_remote_addr zone=ratelab:10m rate=10r/s;
//   limit_req zone=ratelab burst=9 nodelay;
std::string nginxDirectives(const LimiterConfig& config, const std::string& key = "$binary_remote_addr",
                            std::int64_t megabytes = 10);

class NginxLimitReq final {
public:
    // The constructor throws InputError when nginx cannot express the config's rate.
    explicit NginxLimitReq(const LimiterConfig& config)
        : m_rate(nginxRateThousandths(config.rate()))
        , m_burst(config.nginxBurst() * 1000)
        , m_delay(config.nginx().nodelay ? -1 : config.nginx().delay * 1000)
    {
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    Decision decide(Nanos t, std::int64_t cost)
    {
        const std::int64_t now = t / kMillis;
        Decision d;
        const Int128 excess = excessIfAdmitted(now, cost);
        if (excess <= m_burst) {
            m_excess = static_cast<std::int64_t>(excess);
            m_last = now;
            m_hasKey = true;
            d.allowed = true;
            if (m_delay >= 0 && excess > m_delay) // ms, integer division as nginx does
                d.delay = static_cast<Nanos>((excess - m_delay) * 1000 / m_rate) * kMillis;
        } else {
            d.retryAfter = cost - 1 > m_burst / 1000 ? kRetryNever : waitFor(t, cost);
        }
        if (d.allowed || cost > 1)
            d.remaining = remainingAt(t);
        d.level = levelAt(t);
        return d;
    }

    // waitFor: at t + d (ms' = floor((t + d)/1ms) - last) the request passes iff
    // excess + 1000 - floor(rate*ms'/1000) <= A, A = (B - k + 1)*1000 >= 0, i.e. iff
    // rate*ms' >= need*1000 with need = excess + 1000 - A: ms' >= ceil(need*1000/rate). The least
    // such time is the start of millisecond last + ms'.
    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        if (!m_hasKey || excessIfAdmitted(t / kMillis, cost) <= m_burst)
            return 0;
        const Int128 need = Int128(m_excess) + 1000 - (m_burst - Int128(cost - 1) * 1000);
        const Int128 ms = ceilDiv(need * 1000, m_rate);
        return clampToNanos((Int128(m_last) + ms) * kMillis - t);
    }

    // remainingAt: the first request at t finds excess e = excessIfAdmitted(now, 1); each one after
    // it at the same ms adds 1000. So floor((B*1000 - e)/1000) + 1 pass when e <= B*1000.
    std::int32_t remainingAt(Nanos t) const
    {
        const Int128 e = excessIfAdmitted(t / kMillis, 1);
        return clampRemaining(e <= m_burst ? quotient(m_burst - e, 1000) + 1 : 0);
    }

    std::int64_t quota() const { return m_burst / 1000 + 1; }

    // levelAt is the excess in requests as a request at t would find it before adding its own
    // 1000: max(0, excess - rate*ms/1000) / 1000.
    double levelAt(Nanos t) const
    {
        if (!m_hasKey)
            return 0.0;
        const std::int64_t nowMs = t / kMillis; // before the last request, nothing drains backwards
        const Int128 left = Int128(m_excess) - (nowMs > m_last ? drained(nowMs) : Int128(0));
        return left > 0 ? toDouble(left) / 1000.0 : 0.0;
    }

    Memory memory() const { return {16, 1}; } // excess, last
    Algorithm algorithm() const { return Algorithm::NginxLimitReq; }

    // retarget applies config c (its rate, burst and delay) and keeps the excess and the time of
    // the last request as they are: nginx keeps its zone's nodes across a reload, and the next
    // request drains the whole time since the last at the new rate, and is measured against the
    // new burst (an excess above it is not cut: the next requests are rejected until it drains).
    void retarget(const LimiterConfig& c, Nanos)
    {
        NginxLimitReq next(c);
        next.m_excess = m_excess;
        next.m_last = m_last;
        next.m_hasKey = m_hasKey;
        *this = next;
    }

    // excessThousandths returns nginx's excess after the last accepted request.
    std::int64_t excessThousandths() const { return m_excess; }

private:
    static constexpr Nanos kMillis = 1'000'000;

    Int128 drained(std::int64_t nowMs) const { return Int128(m_rate) * (nowMs - m_last) / 1000; }

    // excessIfAdmitted is the excess a request of cost k at millisecond nowMs would leave.
    Int128 excessIfAdmitted(std::int64_t nowMs, std::int64_t cost) const
    {
        Int128 e = 0; // a new key starts at 0
        if (m_hasKey) {
            e = Int128(m_excess) - drained(nowMs) + 1000;
            if (e < 0)
                e = 0;
        }
        return e + Int128(cost - 1) * 1000;
    }

    std::int64_t m_rate;  // thousandths of a request per second
    std::int64_t m_burst; // B * 1000
    std::int64_t m_delay; // D * 1000; -1 for nodelay
    std::int64_t m_excess = 0;
    std::int64_t m_last = 0; // ms
    bool m_hasKey = false;
};

} // namespace ratelab
