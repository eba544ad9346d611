#include "engine/throttled_arrivals.h"

#include <algorithm>

namespace ratelab {

ThrottledArrivals::ThrottledArrivals(const std::string& spec, std::span<const Nanos> arrivals,
                                     std::span<const std::int64_t> clientOf, std::int64_t clients)
    : m_spec(spec)
    , m_arrivals(arrivals)
    , m_clientOf(clientOf)
    , m_clients(std::max<std::int64_t>(1, clients))
    , m_throttles(std::size_t(m_clients))
    , m_wakeOf(std::size_t(m_clients), ClientThrottle::kNever)
{
    makeClientThrottle(m_spec); // a bad spec is refused before anything runs
}

std::int64_t ThrottledArrivals::clientOf(std::size_t request) const
{
    return m_clientOf.empty() ? std::int64_t(request) % m_clients : m_clientOf[request];
}

ClientThrottle& ThrottledArrivals::throttle(std::int64_t client)
{
    auto& t = m_throttles[std::size_t(client)];
    if (!t)
        t = makeClientThrottle(m_spec);
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

void ThrottledArrivals::advance(Nanos t)
{
    const auto startAll = [&](std::int64_t client) {
        m_scratch.clear();
        throttle(client).wake(t, m_scratch);
        for (const std::int64_t id : m_scratch)
            m_ready.push_back(Start{t, std::int32_t(id)});
        m_started += std::int64_t(m_scratch.size());
        noteWake(client);
    };
    for (;;) {
        if (!m_dones.empty() && m_dones.top().t <= t) { // completions first
            const Done d = m_dones.top();
            m_dones.pop();
            const std::int64_t client = clientOf(std::size_t(d.request));
            throttle(client).done(d.t, d.request);
            noteWake(client);
        } else if (!m_wakes.empty() && m_wakes.begin()->first <= t) { // then the throttles' timers
            startAll(m_wakes.begin()->second);
        } else if (m_next < m_arrivals.size() && m_arrivals[m_next] <= t) { // then arrivals, in order
            const std::int64_t client = clientOf(m_next);
            ClientThrottle& c = throttle(client);
            m_scratch.clear();
            c.submit(m_arrivals[m_next], std::int64_t(m_next), c.defaultPriority(), m_scratch);
            m_dropped += std::int64_t(m_scratch.size());
            ++m_next;
            startAll(client); // what this submission lets start, before the next arrival
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

} // namespace ratelab
