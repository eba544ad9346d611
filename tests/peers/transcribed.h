// The deciding code of the products that no package registry here holds (Envoy, Kong, redis-cell,
// Spring Cloud Gateway), transcribed statement by statement with the products' own types, as
// peers for tst_peers: each is written the way its product is written (Envoy's timer events,
// Kong's shared-dict keys and calendar timetable, redis-cell's loop over i64 nanoseconds and
// f64, Spring's Lua doubles and Redis key expiry), not the way core/products/ computes, so a
// shortcut taken there is checked against the long way here.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <map>
#include <optional>
#include <string>

namespace peers {

// Envoy, source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc at commit
// 016c0c8007133da7f1b1e22a1809f76fa40ae912: LocalRateLimiterImpl with one token bucket, its fill
// timer run by an event loop that fires due timers before handling a request.
class EnvoyTranscribed {
public:
    EnvoyTranscribed(std::int64_t fillIntervalMs, std::uint32_t maxTokens, std::uint32_t tokensPerFill)
        : m_fillIntervalMs(fillIntervalMs), m_maxTokens(maxTokens), m_tokensPerFill(tokensPerFill)
    {
        m_tokens = max_tokens_();               // tokens_.tokens_ = max_tokens;
        m_timerDueNs = fillIntervalMs * 1'000'000; // fill_timer_->enableTimer(fill_interval);
    }

    bool request(std::int64_t nowNs)
    {
        while (m_timerDueNs <= nowNs) { // the dispatcher runs the due timer callbacks first
            const std::int64_t firedAt = m_timerDueNs;
            onFillTimer();
            m_timerDueNs = firedAt + m_fillIntervalMs * 1'000'000; // enableTimer(fill_interval_)
        }
        return requestAllowedHelper();
    }

private:
    std::uint32_t max_tokens_() const { return m_maxTokens; }
    void onFillTimer()
    {
        std::uint32_t expected_tokens = m_tokens;
        std::uint32_t new_tokens_value = std::min(m_maxTokens, expected_tokens + m_tokensPerFill);
        m_tokens = new_tokens_value;
    }
    bool requestAllowedHelper()
    {
        std::uint32_t expected_tokens = m_tokens;
        if (expected_tokens == 0)
            return false;
        m_tokens = expected_tokens - 1;
        return true;
    }

    std::int64_t m_fillIntervalMs;
    std::uint32_t m_maxTokens;
    std::uint32_t m_tokensPerFill;
    std::uint32_t m_tokens;
    std::int64_t m_timerDueNs;
};

// Kong 3.10.0 (commit 22246ef28c16842098369b494eef879222e30c7b), rate-limiting handler.lua
// access() with policies/init.lua "local" and kong/tools/timestamp.lua get_timestamps(), on an
// ngx.shared dict. Lua numbers are doubles; os.date's timetable is UTC (gmtime / timegm).
class KongTranscribed {
public:
    // limits: second, minute, hour, day, month, year (0: not configured)
    explicit KongTranscribed(const std::int64_t (&limits)[6])
    {
        for (int i = 0; i < 6; ++i)
            m_limits[i] = limits[i];
    }

    bool request(std::int64_t nowNs)
    {
        const double current_timestamp = double(nowNs / 1'000'000'000) * 1000; // time() * 1000
        const auto stamps = get_timestamps(current_timestamp);
        bool stop = false;
        for (int period = 0; period < 6; ++period) { // get_usage
            if (m_limits[period] == 0)
                continue;
            const double current_usage = shmGet(key(period, stamps[period]));
            const double remaining = double(m_limits[period]) - current_usage;
            if (remaining <= 0)
                stop = true;
        }
        if (stop)
            return false; // 429
        for (int period = 0; period < 6; ++period) // increment (the timer, before the next request)
            if (m_limits[period] != 0)
                m_shm[key(period, stamps[period])] += 1;
        return true;
    }

private:
    static std::array<double, 6> get_timestamps(double now)
    {
        const std::time_t seconds = std::time_t(std::floor(now / 1000));
        std::tm tt{};
        gmtime_r(&seconds, &tt);
        std::array<double, 6> stamps{};
        stamps[0] = double(timegm(&tt)) * 1000;
        tt.tm_sec = 0;
        stamps[1] = double(timegm(&tt)) * 1000;
        tt.tm_min = 0;
        stamps[2] = double(timegm(&tt)) * 1000;
        tt.tm_hour = 0;
        stamps[3] = double(timegm(&tt)) * 1000;
        tt.tm_mday = 1;
        stamps[4] = double(timegm(&tt)) * 1000;
        tt.tm_mon = 0;
        stamps[5] = double(timegm(&tt)) * 1000;
        return stamps;
    }
    static std::string key(int period, double date)
    {
        static const char* names[] = {"second", "minute", "hour", "day", "month", "year"};
        return std::string("ratelimit:key:") + names[period] + ":" + std::to_string(std::int64_t(date));
    }
    double shmGet(const std::string& k) const
    {
        const auto it = m_shm.find(k);
        return it == m_shm.end() ? 0 : it->second;
    }

    std::int64_t m_limits[6]{};
    std::map<std::string, double> m_shm;
};

// redis-cell, redis-cell-impl/src/lib.rs at commit 97d409c3a62f2a0f5518c31fc9b4b65afbce2053:
// RateLimiter::rate_limit with quantity 1 on a store keyed by name, times as i64 nanoseconds.
class RedisCellTranscribed {
public:
    RedisCellTranscribed(std::int64_t maxBurst, std::int64_t count, std::int64_t periodSeconds)
    {
        // Rate::per_period
        const std::int64_t ns = periodSeconds * 1'000'000'000;
        m_emission = std::int64_t(double(ns) / double(count));
        m_dvt = m_emission * (maxBurst + 1);
    }

    bool request(std::int64_t now)
    {
        const std::int64_t increment = m_emission * 1;
        const std::int64_t tat_val = m_stored ? m_tatNs : -1;
        const std::int64_t tat = tat_val == -1 ? now : tat_val;
        const std::int64_t new_tat = now > tat ? now + increment : tat + increment;
        const std::int64_t allow_at = new_tat - m_dvt;
        const std::int64_t diff = now - allow_at;
        if (diff < 0)
            return false;
        m_tatNs = new_tat;
        m_stored = true;
        return true;
    }

private:
    std::int64_t m_emission;
    std::int64_t m_dvt;
    std::int64_t m_tatNs = 0;
    bool m_stored = false;
};

// Spring Cloud Gateway RedisRateLimiter.isAllowed (commit d2625f9) running
// request_rate_limiter.lua (commit 20713405) on a Redis hash with EXPIRE: Lua numbers are doubles,
// Java passes Instant.now().getEpochSecond(), and Redis drops the key once its expiry (set in
// whole milliseconds of the server's clock) has passed.
class SpringTranscribed {
public:
    SpringTranscribed(std::int64_t replenishRate, std::int64_t burstCapacity, std::int64_t requestedTokens)
        : m_rate(double(replenishRate)), m_capacity(double(burstCapacity)), m_requested(double(requestedTokens))
    {
    }

    bool request(std::int64_t nowNs)
    {
        const std::int64_t nowMs = nowNs / 1'000'000;
        if (m_stored && nowMs > m_expiresAtMs) // Redis: expired when now > when
            m_stored = false;
        const double rate = m_rate;
        const double capacity = m_capacity;
        const double now = double(nowNs / 1'000'000'000); // getEpochSecond()
        const double requested = m_requested;
        const double fill_time = capacity / rate;
        const double ttl = std::floor(fill_time * 2);
        double last_tokens = m_stored ? m_tokens : capacity;          // tonumber(HGET) or capacity
        double last_refreshed = m_stored ? m_timestamp : 0;
        const double delta = std::max(0.0, now - last_refreshed);
        const double filled_tokens = std::min(capacity, last_tokens + (delta * rate));
        const bool allowed = filled_tokens >= requested;
        double new_tokens = filled_tokens;
        if (allowed)
            new_tokens = filled_tokens - requested;
        if (ttl > 0) {
            m_tokens = new_tokens;
            m_timestamp = now;
            m_expiresAtMs = nowMs + std::int64_t(ttl) * 1000;
            m_stored = true;
        }
        return allowed;
    }

private:
    double m_rate;
    double m_capacity;
    double m_requested;
    bool m_stored = false; // the hash exists
    double m_tokens = 0;
    double m_timestamp = 0;
    std::int64_t m_expiresAtMs = 0;
};

} // namespace peers
