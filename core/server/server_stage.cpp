#include "server/server_stage.h"

#include <algorithm>

namespace ratelab {

std::string_view outcomeId(Outcome o)
{
    switch (o) {
    case Outcome::NotAdmitted: return "not_admitted";
    case Outcome::InTime: return "in_time";
    case Outcome::Late: return "late";
    case Outcome::QueueTimeout: return "queue_timeout";
    case Outcome::Refused: return "refused";
    case Outcome::Rejected: return "rejected";
    }
    return "?";
}

ServerStage::ServerStage(const ServerConfig& config, std::unique_ptr<Gate> gate, std::uint64_t seed, bool keep)
    : m_config(config), m_gate(std::move(gate)), m_seed(seed), m_keep(keep)
{
    noteLimit(0);
}

void ServerStage::useRequests(std::span<const Nanos> service, std::span<const std::uint8_t> critical,
                              std::span<const Nanos> firstDraws)
{
    if (m_config.options().service.kind == ServiceKind::File && service.empty())
        throw InputError("service=file: the arrivals have no service column (a header line naming t,service)");
    m_service = service;
    m_critical = critical;
    m_firstDraws = firstDraws;
}

void ServerStage::schedule(Nanos t, Rank rank, std::size_t job) { m_events.push(Event{t, rank, m_seq++, job}); }

void ServerStage::advanceArea(Nanos t)
{
    m_f.areaInSystem += Int128(m_inSystem) * (t - m_areaAt);
    m_areaAt = t;
}

void ServerStage::noteLimit(Nanos t)
{
    if (!m_gate)
        return;
    const std::int64_t l = m_gate->limit();
    if (l == Gate::kUnlimited)
        return;
    if (!m_f.limits.empty() && m_f.limits.back().second == l)
        return;
    if (!m_f.limits.empty() && m_f.limits.back().first == t)
        m_f.limits.back().second = l;
    else
        m_f.limits.emplace_back(t, l);
}

void ServerStage::skip()
{
    if (m_keep)
        m_kept.push_back(ServedAttempt{});
}

void ServerStage::enter(Nanos t, Nanos delay, const ClientResponse& who, std::vector<ClientResponse>& out)
{
    // the jobs done before the oldest one still in the stage are no longer needed
    m_jobs.dropFront([](const Job& j) { return j.state == State::Done; });
    const auto job = std::size_t(m_entered++);
    const Nanos at = t + delay; // the engine checked it is a representable time
    m_jobs.push_back(std::int64_t(job), Job{who, at, 0, State::Travelling, false, false, false, m_kept.size()});
    if (m_keep)
        m_kept.push_back(ServedAttempt{at, 0, 0, Outcome::NotAdmitted});
    if (delay == 0) { // no event between: it is at the server now
        advanceArea(t);
        if (m_gate)
            m_gate->advance(t);
        arrive(job, t, out);
        noteLimit(t);
    } else {
        schedule(at, Arrival, job);
    }
}

void ServerStage::watchTimeout(std::size_t job)
{
    Job& j = m_jobs[job];
    const Nanos timeout = m_config.options().clientTimeout;
    if (j.timer || timeout == kNoTimeout || j.arrived > kMaxNanos - timeout)
        return;
    j.timer = true;
    schedule(j.arrived + timeout, ClientTimeout, job);
}

void ServerStage::step(std::vector<ClientResponse>& out)
{
    const Event e = m_events.top();
    m_events.pop();
    advanceArea(e.t);
    if (m_gate)
        m_gate->advance(e.t);
    if (!m_jobs.holds(std::int64_t(e.job))) { // done and dropped: its timeouts have nothing to do
        noteLimit(e.t);
        return;
    }
    Job& j = m_jobs[std::int64_t(e.job)];
    switch (e.rank) {
    case Arrival:
        arrive(e.job, e.t, out);
        break;
    case Completion: {
        --m_busy;
        const Nanos service = e.t - j.start;
        m_f.busyNanos += service;
        if (j.answered)
            m_f.wastedNanos += service;
        // the freed worker takes the head of the queue at this instant, before the gate lets
        // anything new through
        while (!m_queue.empty() && (m_config.unboundedWorkers() || m_busy < m_config.options().workers)) {
            const std::size_t next = m_queue.front();
            m_queue.pop_front();
            if (m_jobs[next].state != State::Queued)
                continue; // timed out while waiting
            --m_queued;
            startService(next, e.t);
        }
        leave(e.job, e.t, j.answered ? Outcome::Late : Outcome::InTime, out);
        break;
    }
    case QueueTimeout:
        if (j.state == State::Queued) {
            --m_queued;
            leave(e.job, e.t, Outcome::QueueTimeout, out);
        }
        break;
    case ClientTimeout:
        if (!j.answered && j.state != State::Done) {
            answer(e.job, e.t, false, out);
            // still in the gate's own queue: the gate is told (APF drops it, a bulkhead marks it
            // aborted); one it will never let through leaves unserved, with nothing to release
            if (j.state == State::GateQueued && m_gate->cancel(e.t, std::int64_t(e.job))) {
                j.gated = false;
                leave(e.job, e.t, Outcome::QueueTimeout, out);
            }
        }
        break;
    }
    noteLimit(e.t);
}

void ServerStage::arrive(std::size_t job, Nanos t, std::vector<ClientResponse>& out)
{
    ++m_inSystem;
    if (!m_gate) {
        toServer(job, t, out);
        return;
    }
    if (!m_critical.empty())
        m_gate->classify(std::int64_t(job), m_critical[std::size_t(m_jobs[job].who.request)] != 0);
    switch (m_gate->offer(t, std::int64_t(job), m_jobs[job].who.client)) {
    case Gate::Verdict::Reject:
        leave(job, t, Outcome::Rejected, out);
        break;
    case Gate::Verdict::Queue:
        m_jobs[job].gated = true;
        m_jobs[job].state = State::GateQueued;
        entered();
        watchTimeout(job);
        break;
    case Gate::Verdict::Admit:
        m_jobs[job].gated = true;
        toServer(job, t, out);
        break;
    }
}

void ServerStage::toServer(std::size_t job, Nanos t, std::vector<ClientResponse>& out)
{
    Job& j = m_jobs[job];
    j.state = State::Travelling;
    const ServerOptions& o = m_config.options();
    if (m_config.unboundedWorkers() || m_busy < o.workers) {
        startService(job, t);
    } else if (m_queued < o.queue) {
        j.state = State::Queued;
        m_queue.push_back(job);
        ++m_queued;
        m_f.maxQueue = std::max(m_f.maxQueue, m_queued);
        entered();
        if (o.queueTimeout != kNoTimeout && t <= kMaxNanos - o.queueTimeout)
            schedule(t + o.queueTimeout, QueueTimeout, job);
        watchTimeout(job);
    } else {
        leave(job, t, Outcome::Refused, out);
    }
}

void ServerStage::startService(std::size_t job, Nanos t)
{
    Job& j = m_jobs[job];
    j.state = State::Serving;
    j.start = t;
    ++m_busy;
    entered();
    const auto request = std::size_t(j.who.request);
    const Nanos s = m_config.options().service.kind == ServiceKind::File ? m_service[request] // every attempt: its line's
                    : j.who.attempt == 0 && request < m_firstDraws.size()
                        ? m_firstDraws[request]
                        : serviceNanos(m_config.options().service, m_seed, j.who.request, j.who.attempt);
    const Nanos end = t > kMaxNanos - s ? kMaxNanos : t + s;
    schedule(end, Completion, job);
    const Nanos timeout = m_config.options().clientTimeout;
    if (timeout != kNoTimeout && (j.arrived > kMaxNanos - timeout || end > j.arrived + timeout))
        watchTimeout(job); // served past its client's patience (a completion at a + T is in time)
}

void ServerStage::leave(std::size_t job, Nanos t, Outcome o, std::vector<ClientResponse>& out)
{
    Job& j = m_jobs[job];
    j.state = State::Done;
    --m_inSystem;
    m_f.end = std::max(m_f.end, t);
    switch (o) {
    case Outcome::InTime: ++m_f.inTime; break;
    case Outcome::Late: ++m_f.late; break;
    case Outcome::QueueTimeout: ++m_f.queueTimeouts; break;
    case Outcome::Refused: ++m_f.refused; break;
    case Outcome::Rejected: ++m_f.rejected; break;
    default: break;
    }
    if (m_keep) {
        ServedAttempt& a = m_kept[j.kept];
        a.start = o == Outcome::InTime || o == Outcome::Late ? j.start : t; // never served: start == end
        a.end = t;
        a.outcome = o;
    }
    if (!j.answered)
        answer(job, t, o == Outcome::InTime, out);
    if (m_gate && j.gated) {
        m_dispatched.clear();
        m_gate->release(t, std::int64_t(job), o == Outcome::QueueTimeout || o == Outcome::Refused, m_dispatched);
        for (const std::int64_t d : m_dispatched)
            toServer(std::size_t(d), t, out);
    }
}

void ServerStage::answer(std::size_t job, Nanos t, bool success, std::vector<ClientResponse>& out)
{
    Job& j = m_jobs[job];
    j.answered = true;
    ClientResponse r = j.who;
    r.t = t;
    r.success = success;
    out.push_back(r);
}

} // namespace ratelab
