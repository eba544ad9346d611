#include "engine/throttled_arrivals.h"

#include "arithmetic/decimal.h"

#include <algorithm>
#include <cmath>

namespace ratelab {

ThrottledArrivals::ThrottledArrivals(const ClientThrottleSpec& spec, std::span<const Nanos> arrivals,
                                     std::span<const std::int64_t> clientOf, std::int64_t clients,
                                     std::span<const double> priorities)
    : m_spec(spec)
    , m_arrivals(arrivals)
    , m_clientOf(clientOf)
    , m_priorities(priorities)
    , m_clients(std::max<std::int64_t>(1, clients))
    , m_throttles(std::size_t(m_clients))
    , m_wakeOf(std::size_t(m_clients), ClientThrottle::kNever)
{
}

std::int64_t ThrottledArrivals::clientOf(std::size_t request) const
{
    return m_clientOf.empty() ? std::int64_t(request) % m_clients : m_clientOf[request];
}

ClientThrottle& ThrottledArrivals::throttle(std::int64_t client)
{
    auto& t = m_throttles[std::size_t(client)];
    if (!t)
        t = m_spec.make();
    return *t;
}

void ThrottledArrivals::noteWake(std::int64_t client)
{
    Nanos& key = m_wakeOf[std::size_t(client)];
    const Nanos now = m_throttles[std::size_t(client)]->nextWake();
    if (now == key)
        return;
    if (key != ClientThrottle::kNever)
        m_wakes.erase({key, client});
    key = now;
    if (key != ClientThrottle::kNever)
        m_wakes.insert({key, client});
}

Nanos ThrottledArrivals::next() const
{
    Nanos t = ClientThrottle::kNever;
    if (!m_ready.empty())
        t = m_ready.front().t;
    if (!m_dones.empty())
        t = std::min(t, m_dones.top().t);
    if (!m_wakes.empty())
        t = std::min(t, m_wakes.begin()->first);
    if (m_next < m_arrivals.size())
        t = std::min(t, m_arrivals[m_next]);
    return t;
}

void ThrottledArrivals::ready(Nanos t, std::int64_t client)
{
    for (const std::int64_t id : m_scratch)
        m_ready.push_back(Start{t, std::int32_t(id)});
    m_started += std::int64_t(m_scratch.size());
    noteWake(client);
}

void ThrottledArrivals::advance(Nanos t)
{
    // One event at a time; the first that lets a call start hands it to the engine, which
    // decides it (and, when it ends now, reports it done) before the next event here.
    while (m_ready.empty()) {
        if (!m_dones.empty() && m_dones.top().t <= t) { // completions first
            const Done d = m_dones.top();
            m_dones.pop();
            const std::int64_t client = clientOf(std::size_t(d.request));
            ClientThrottle& c = throttle(client);
            c.done(d.t, d.request);
            m_scratch.clear();
            c.takeStarted(m_scratch); // the freed slot's call starts now, no timer of t yet
            ready(d.t, client);
        } else if (!m_wakes.empty() && m_wakes.begin()->first <= t) { // then the throttles' timers
            const std::int64_t client = m_wakes.begin()->second;
            m_scratch.clear();
            throttle(client).wake(t, m_scratch);
            ready(t, client);
        } else if (m_next < m_arrivals.size() && m_arrivals[m_next] <= t) { // then arrivals, in order
            const std::int64_t client = clientOf(m_next);
            ClientThrottle& c = throttle(client);
            m_scratch.clear();
            const bool given = !m_priorities.empty() && !std::isnan(m_priorities[m_next]);
            c.submit(m_arrivals[m_next], std::int64_t(m_next), given ? m_priorities[m_next] : c.defaultPriority(),
                     m_scratch);
            m_dropped += std::int64_t(m_scratch.size());
            m_scratch.clear();
            c.takeStarted(m_scratch);
            ready(m_arrivals[m_next], client);
            ++m_next;
        } else {
            return;
        }
    }
}

std::optional<ThrottledArrivals::Start> ThrottledArrivals::take(Nanos upTo)
{
    if (m_ready.empty() || m_ready.front().t > upTo)
        return std::nullopt;
    const Start s = m_ready.front();
    m_ready.pop_front();
    return s;
}

void ThrottledArrivals::done(Nanos t, std::int32_t request) { m_dones.push(Done{t, m_doneSeq++, request}); }

std::int64_t ThrottledArrivals::gaveUp() const
{
    // every request submitted by the end: what did not start never will
    return std::int64_t(m_arrivals.size()) - m_started;
}

std::vector<Nanos> simulateThrottle(std::string_view spec, const std::vector<Nanos>& arrivals,
                                    const std::vector<Nanos>& serviceTimes, const std::vector<double>& priorities)
{
    const std::size_t n = arrivals.size();
    if (serviceTimes.size() != n || (!priorities.empty() && priorities.size() != n))
        throw InputError("simulateThrottle: " + std::to_string(n) + " arrivals but " + std::to_string(serviceTimes.size())
                         + " service times and " + std::to_string(priorities.size()) + " priorities");
    for (std::size_t i = 0; i < n; ++i) {
        if (arrivals[i] < 0 || (i > 0 && arrivals[i] < arrivals[i - 1]))
            throw InputError("simulateThrottle: arrival " + std::to_string(i) + " is before the one before it, or before 0");
        if (serviceTimes[i] < 0)
            throw InputError("simulateThrottle: service time " + std::to_string(i) + " is negative");
    }
    ThrottledArrivals throttle(ClientThrottleSpec::parse(spec), arrivals, {}, 1, priorities);
    std::vector<Nanos> starts(n, kNotStarted);
    for (Nanos t = throttle.next(); t != ClientThrottle::kNever; t = throttle.next()) {
        throttle.advance(t);
        while (const auto s = throttle.take(t)) { // each call is done at its start plus its service
            starts[std::size_t(s->request)] = s->t;
            throttle.done(later(s->t, serviceTimes[std::size_t(s->request)]), s->request);
        }
    }
    return starts;
}

} // namespace ratelab
