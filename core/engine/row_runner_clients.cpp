#include "engine/row_runner.h"

#include "arithmetic/decimal.h"
#include "limiters/products/own_limit.h"

#include <algorithm>

namespace ratelab::detail {

namespace {

// rankAt returns where the p-th percentile by the nearest-rank method lies in n sorted values:
// the ceil(p / 100 * n)-th smallest (1-based), so p99 of 100 values is the 99th, of 10 the 10th.
std::size_t rankAt(std::size_t n, std::int64_t p)
{
    return std::size_t(std::max<std::int64_t>(1, static_cast<std::int64_t>(ceilDiv(Int128(p) * std::int64_t(n), 100))) - 1);
}

// latencyOf takes the nonzero latencies and how many were 0: a row that delays nothing, most of
// them, counts its latencies instead of keeping a million zeros to select among.
Latency latencyOf(std::vector<Nanos> values, std::size_t zeros)
{
    Latency l;
    const std::size_t n = values.size() + zeros;
    if (n == 0)
        return l;
    Int128 sum = 0;
    for (Nanos v : values)
        sum += v;
    l.mean = clampToNanos(ceilDiv(sum, static_cast<Int128>(n)));
    if (values.empty())
        return l; // every one 0
    l.max = *std::max_element(values.begin(), values.end());
    // Selections, O(n), where sorting millions of latencies took a tenth of a run: p50's first,
    // then p99's among the values at or above it (p99's rank is never below p50's). The zeros
    // come first in the order.
    const std::size_t r50 = rankAt(n, 50), r99 = rankAt(n, 99);
    auto from = values.begin();
    if (r50 >= zeros) {
        const auto p50 = values.begin() + std::ptrdiff_t(r50 - zeros);
        std::nth_element(values.begin(), p50, values.end());
        l.p50 = *p50; // read now: the next selection reorders [p50, end)
        from = p50;
    }
    if (r99 >= zeros) {
        const auto p99 = values.begin() + std::ptrdiff_t(r99 - zeros);
        std::nth_element(from, p99, values.end());
        l.p99 = *p99;
    }
    return l;
}

} // namespace

void RowRunner::retryOrGiveUp(const Retry& p, std::int64_t client, const Decision& d)
{
    const Cohort& policy = m_clients.policyOf(client);
    if (policy.retry == RetryPolicy::None || p.attempt >= policy.maxRetries || !retryable(d)) {
        ++m_r.clients.gaveUp;
        return;
    }
    const Nanos wait = policy.retry == RetryPolicy::Backoff ? backoffWait(policy, client, p.attempt, p.prev)
                                                            : *retryDelay(policy, d);
    retryAfterWait(p, p.t, wait);
}

Nanos RowRunner::backoffWait(const Cohort& policy, std::int64_t client, std::int32_t attempt, Nanos prev)
{
    const std::uint64_t u = jitterDraw(m_setup.seed, client, m_draws[std::size_t(client)]++);
    return jitteredDelay(policy.jitter, policy.backoffBaseNanos, policy.backoffCapNanos, attempt,
                         attempt == 0 ? policy.backoffBaseNanos : prev, u);
}

void RowRunner::retryAfterWait(const Retry& p, Nanos t, Nanos wait)
{
    const Int128 at = Int128(t) + wait;
    if (at > kMaxNanos)
        throw InputError("a retry would come at " + formatSeconds(t) + " s + " + formatSeconds(wait)
                         + " s, past the largest time RateLab can represent");
    m_retries.push(Retry{static_cast<Nanos>(at), m_retrySeq++, p.request, p.attempt + 1, wait});
}

// nextThrottled: the server's events first, then the throttles' at that instant, then their
// starts before the retries of the same instant.
bool RowRunner::nextThrottled(Retry& p)
{
    for (;;) {
        if (m_server)
            serve(nextAttemptTime());
        const Nanos retryAt = m_retries.empty() ? kMaxNanos : m_retries.top().t;
        if (const auto s = m_throttle->take(retryAt)) {
            p = Retry{s->t, -1, s->request, 0};
            return true;
        }
        if (const Nanos t = m_throttle->next(); t != ClientThrottle::kNever && t <= retryAt) {
            m_throttle->advance(t);
        } else if (m_retries.empty()) {
            return false;
        } else {
            p = m_retries.top();
            m_retries.pop();
            return true;
        }
    }
}

Nanos RowRunner::nextAttemptTime() const
{
    Nanos t = m_throttle ? m_throttle->next() : m_next < m_n ? m_in.arrivals[m_next] : kMaxNanos;
    if (!m_retries.empty())
        t = std::min(t, m_retries.top().t);
    return t;
}

// serve: a failure (a 503 or the client's own timeout) is a denial without Retry-After: the
// client retries after its retry_delay, or its backoff's draw (semantics.md, "The server behind
// the limiter").
void RowRunner::serve(Nanos t)
{
    while (m_server->due(t)) {
        m_responses.clear();
        m_server->step(m_responses);
        learn();
        t = std::min(t, nextAttemptTime()); // a retry at this instant comes before later events
    }
}

void RowRunner::learn()
{
    for (const ClientResponse& r : m_responses) {
        if (m_throttle && r.attempt == 0)
            m_throttle->done(r.t, std::int32_t(r.request)); // the throttled call is done
        if (r.success) {
            ++m_r.clients.succeeded;
            addServed(r.t - m_in.arrivals[std::size_t(r.request)]);
            continue;
        }
        const Retry p{r.t, 0, std::int32_t(r.request), r.attempt, r.prev};
        const Cohort& policy = m_clients.policyOf(r.client);
        if (policy.retry == RetryPolicy::None || r.attempt >= policy.maxRetries) {
            ++m_r.clients.gaveUp;
            continue;
        }
        retryAfterWait(p, r.t,
                       policy.retry == RetryPolicy::Backoff ? backoffWait(policy, r.client, r.attempt, r.prev)
                                                            : policy.retryDelayNanos);
    }
}

void RowRunner::reserveServed()
{
    // Each request makes at most 1 + max_retries attempts (and a run at most kMaxAttempts): the
    // room reserved beyond what the run uses is never touched, so it costs no memory.
    const ClientOptions& o = m_clients.options();
    std::int64_t retries = o.retry == RetryPolicy::None ? 0 : o.maxRetries;
    for (const Cohort& c : o.cohorts)
        retries = std::max(retries, c.retry == RetryPolicy::None ? 0 : c.maxRetries);
    const Int128 attempts = Int128(m_n) * (1 + retries);
    m_server->reserve(std::size_t(std::min<Int128>(attempts, kMaxAttempts)));
    m_served.reserve(m_n); // one latency per request at most
}

void RowRunner::finish()
{
    // Memory: per key, every layer where it lives; the largest key's is the row's.
    Metrics& m = m_r.metrics;
    ClientStats& s = m_r.clients;
    Memory freshMemory;
    for (std::size_t l = 0; l < m_layers; ++l) {
        StoreCell unused(m_fresh[l], m_cluster);
        freshMemory += unused.memory();
    }
    m.memory = freshMemory; // nothing arrived: a fresh key's state
    bool any = false;
    for (std::size_t key = 0; key * m_layers < m_cells.size(); ++key) {
        if (!m_cells[key * m_layers])
            continue;
        Memory mem;
        for (std::size_t l = 0; l < m_layers; ++l)
            mem += m_cells[key * m_layers + l] ? m_cells[key * m_layers + l]->memory() : m_fresh[l].memory();
        ++s.keysUsed;
        s.total += mem;
        s.perKeyMax.bytes = any ? std::max(s.perKeyMax.bytes, mem.bytes) : mem.bytes;
        s.perKeyMax.entries = any ? std::max(s.perKeyMax.entries, mem.entries) : mem.entries;
        any = true;
    }
    if (any)
        m.memory = s.perKeyMax;
    finishFigures();
}

void RowRunner::finishFigures()
{
    Metrics& m = m_r.metrics;
    ClientStats& s = m_r.clients;
    if (m_levels) { // after memory: the writes in flight have landed
        for (std::size_t key = 0; key * m_layers < m_cells.size(); ++key)
            if (auto& c = m_cells[key * m_layers])
                c->settle(m_levels->end());
        m_r.levels = m_levels->finish(m_setup.levelLines->most);
    }
    s.attempts = m_attempts;
    if (m_throttle) // dropped by a throttle, or held by one that never starts them
        s.gaveUp += m_throttle->gaveUp();
    m.denied = s.attempts - m.allowed;
    if (m_layers > 0)
        m.overshoot = ownLimit(m_setup.layers.front().algorithm, m_setup.layers.front().config).overshoot(m.maxInWindow);
    s.amplification = s.requests > 0 ? static_cast<double>(s.attempts) / static_cast<double>(s.requests) : 0.0;
    if (m_server) { // from the first attempt to the completion of the one served in time
        s.latency = latencyOf(std::move(m_served), m_zeroServed);
        m_r.served = m_server->takeAttempts();
        m_r.server = m_server->figures();
    } else if (m_setup.keepLog) { // record's, one per admitted attempt
        s.latency = latencyOf(std::move(m_served), m_zeroServed);
    }
}

} // namespace ratelab::detail
