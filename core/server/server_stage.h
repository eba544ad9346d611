// ServerStage is the server behind a row's policy, on the engine's event queue (semantics.md,
// "The server behind the limiter"): an attempt the rate layers admit at t with a delay reaches
// it at a = t + delay, where the row's concurrency limiter (the gate) admits, queues or rejects
// it; admitted, it is served by a free worker, waits in the FIFO queue or is refused; its client
// gives up on it at a + T. At one instant: completions, then queue timeouts, then client timeouts, then arrivals
// in the order they were made. The engine drains the events due before each attempt it decides,
// and turns each ClientResponse into a success or a retry.
#pragma once

#include "server/gate.h"
#include "server/id_ring.h"
#include "server/server.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <vector>

namespace ratelab {

// Outcome is what became of a decided attempt at the server.
enum class Outcome : std::uint8_t {
    NotAdmitted,  // denied by the rate layers: it never reached the server
    InTime,       // served, its client still waiting
    Late,         // served after its client gave up (wasted work)
    QueueTimeout, // left the queue unserved
    Refused,      // the queue was full (a 503)
    Rejected,     // the concurrency limiter said no (a 503)
};
// outcomeId names an outcome in the CLI's output: "not_admitted", "in_time", "late",
// "queue_timeout", "refused", "rejected".
std::string_view outcomeId(Outcome o);

// ServedAttempt is one decided attempt at the server: when it reached it (after the policy's
// delay), when a worker took it, and when it left (completed, or: timed out in the queue,
// refused, rejected, with start == end). Every time is 0 for NotAdmitted.
struct ServedAttempt {
    Nanos arrived = 0;
    Nanos start = 0;
    Nanos end = 0;
    Outcome outcome = Outcome::NotAdmitted;
};

// ClientResponse is what an attempt's client learns at t: served in time, or a failure (a 503,
// a queue timeout's 503, or its own timeout) it retries by its policy.
struct ClientResponse {
    Nanos t = 0;
    std::int64_t request = 0;
    std::int32_t attempt = 0;
    std::int64_t client = 0;
    Nanos prev = 0; // the delay before this attempt (decorrelated jitter)
    bool success = false;
};

// ServerFigures are a row's server figures over its run.
struct ServerFigures {
    std::int64_t inTime = 0, late = 0, queueTimeouts = 0, refused = 0, rejected = 0;
    std::int64_t maxInSystem = 0;   // entered (in service or queued, at the server or its gate) and not yet left
    std::int64_t maxQueue = 0;      // waiting in the server's queue
    Nanos wastedNanos = 0;          // service given to attempts whose client had given up
    Nanos busyNanos = 0;            // service given to every served attempt
    Nanos end = 0;                  // the last departure
    Int128 areaInSystem = 0;        // the time integral of the number in the system (Little's L * span)
    std::vector<std::pair<Nanos, std::int64_t>> limits; // the gate's limit from each time on (adaptive rows)
};

class ServerStage {
public:
    // gate may be null (no concurrency limiter). keep: one ServedAttempt per decided attempt.
    ServerStage(const ServerConfig& config, std::unique_ptr<Gate> gate, std::uint64_t seed, bool keep);
    // useRequests hands the stage the arrivals file's per-request columns, indexed by request
    // (each empty when the file has none; the spans outlive the stage): with service=file every
    // attempt of request i is served in service[i]; critical[i] is classified to the gate.
    // firstDraws, when not empty, are the first attempts' draws made already (firstServiceDraws
    // of this stage's service and seed): read, not drawn again. It throws InputError for
    // service=file without a service column.
    void useRequests(std::span<const Nanos> service, std::span<const std::uint8_t> critical,
                     std::span<const Nanos> firstDraws = {});

    // nextEvent returns the time of the earliest pending event, kMaxNanos when none.
    Nanos nextEvent() const { return m_events.empty() ? kMaxNanos : m_events.top().t; }
    // due is true when an event is pending at or before t.
    bool due(Nanos t) const { return !m_events.empty() && m_events.top().t <= t; }
    // step processes the earliest event, appending what clients learn.
    void step(std::vector<ClientResponse>& out);
    // enter takes an attempt the rate layers admitted at t with `delay`: it reaches the server
    // stage (the gate, then the workers) at t + delay. Attempts are entered in decision order.
    // One with no delay is at the server at once (every event due at t has run: the engine
    // drains them first), appending what its client learns at once (refused, rejected).
    void enter(Nanos t, Nanos delay, const ClientResponse& who, std::vector<ClientResponse>& out);
    // skip records a decided attempt that never reached the server (denied by the rate layers).
    void skip();

    // reserve makes room for `attempts` decided attempts with keep (a bound, not a count: what
    // is never used stays untouched), so a long run does not copy them as they grow.
    void reserve(std::size_t attempts)
    {
        if (m_keep)
            m_kept.reserve(attempts);
    }
    const std::vector<ServedAttempt>& attempts() const { return m_kept; }
    // takeAttempts hands the kept attempts over at the end of the run (attempts() is empty after).
    std::vector<ServedAttempt> takeAttempts() { return std::move(m_kept); }
    const ServerFigures& figures() const { return m_f; }
    const ServerConfig& config() const { return m_config; }

private:
    enum Rank : std::uint8_t { Completion, QueueTimeout, ClientTimeout, Arrival };
    struct Event {
        Nanos t;
        Rank rank;
        std::uint64_t seq;
        std::size_t job;
        bool operator>(const Event& o) const
        {
            return t != o.t ? t > o.t : rank != o.rank ? rank > o.rank : seq > o.seq;
        }
    };
    enum class State : std::uint8_t { GateQueued, Travelling, Queued, Serving, Done };
    struct Job {
        ClientResponse who;
        Nanos arrived = 0, start = 0;
        State state = State::Travelling;
        bool answered = false; // the client learnt its fate (or gave up)
        bool gated = false;    // the gate admitted or queued it: it is told when it leaves
        bool timer = false;    // its client's timeout is scheduled
        std::size_t kept = 0;  // with keep: its index in m_kept
    };

    void schedule(Nanos t, Rank rank, std::size_t job);
    void arrive(std::size_t job, Nanos t, std::vector<ClientResponse>& out);
    void toServer(std::size_t job, Nanos t, std::vector<ClientResponse>& out);
    void startService(std::size_t job, Nanos t);
    // entered notes the most in the system when an attempt starts service or waits in a queue
    // (the server's or the gate's): one refused or rejected on arrival leaves at that instant
    // without having entered, so it never counts, while m_inSystem (whose time integral is
    // Little's L) holds it for no time.
    void entered() { m_f.maxInSystem = std::max(m_f.maxInSystem, m_inSystem); }
    void leave(std::size_t job, Nanos t, Outcome o, std::vector<ClientResponse>& out);
    void answer(std::size_t job, Nanos t, bool success, std::vector<ClientResponse>& out);
    void advanceArea(Nanos t);
    // watchTimeout schedules the client's timeout of a job that waits, or will be served past it.
    void watchTimeout(std::size_t job);
    void noteLimit(Nanos t);

    const ServerConfig m_config;
    std::unique_ptr<Gate> m_gate;
    const std::uint64_t m_seed;
    const bool m_keep;
    // m_jobs holds the entered attempts by id (their entry order) from the oldest not yet
    // done: a job done has no event left that acts, so it is dropped (see enter).
    IdRing<Job> m_jobs;
    std::int64_t m_entered = 0;               // the next job's id
    std::vector<ServedAttempt> m_kept;        // per decided attempt, with keep
    std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events;
    std::uint64_t m_seq = 0;
    std::deque<std::size_t> m_queue;          // FIFO of jobs; a timed-out one is skipped
    std::int64_t m_queued = 0, m_busy = 0, m_inSystem = 0;
    Nanos m_areaAt = 0;
    std::vector<std::int64_t> m_dispatched;
    ServerFigures m_f;
    std::span<const Nanos> m_service;         // useRequests: per request, with service=file
    std::span<const std::uint8_t> m_critical; // useRequests: per request, or empty
    std::span<const Nanos> m_firstDraws;      // useRequests: per request, or empty
};

} // namespace ratelab
