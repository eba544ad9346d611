// ThrottledArrivals: a row's first attempts as the clients' throttles let them go
// (EngineSetup::throttle). Each client runs its own throttle (client_throttle.h: one Bottleneck
// or one p-queue per client process, as each client of a real API holds its own; they share
// nothing). Request i is submitted to its client's throttle at its arrival time; its first
// attempt is decided by the policy when the throttle starts it, at the start time (its latency
// still counts from the arrival). The engine reports when the client learns that attempt's
// fate (done): the throttle counts it running until then.
//
// Retries bypass the throttle: it wraps the call, the client's retry policy re-sends outside it
// (the retry is the engine's, after the throttle let the request go once), so a retry storm is
// the retry policy's, not held back a second time. A call the throttle drops (Bottleneck's
// high_water strategies) is never decided: the request gave up.
//
// The order of one instant, kept here and nowhere else (simulateThrottle below runs the same
// advance): the server's events (the engine's) first, then the throttles' events one at a time,
// completions (done) first, then timers (wake), then submissions in arrival order; and what one
// event lets start is handed to the engine (take) before the next event runs, so a call that
// starts and ends at the same instant (no server, a zero service time, an immediate denial) is
// done, and frees its slot, before the timers and arrivals after it. Bottleneck and p-queue do
// the same: a call that settles frees its slot at once, before the timers of that instant and
// the next submission. Time is handed in and never decreases.
#pragma once

#include "server/client_throttle.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace ratelab {

class ThrottledArrivals {
public:
    // Start is a first attempt the throttle let go at t.
    struct Start {
        Nanos t = 0;
        std::int32_t request = 0;
    };

    // ThrottledArrivals makes one throttle by `spec` (not empty) per client of `clients`, the
    // first when it is first used. Request i belongs to clientOf[i], or to i mod clients when
    // clientOf is empty; it is submitted with priorities[i] (the arrivals file's priority
    // column), or the throttle's default (its spec's priority=) when priorities is empty or
    // priorities[i] is NaN (a request added by hand).
    ThrottledArrivals(const ClientThrottleSpec& spec, std::span<const Nanos> arrivals, std::span<const std::int64_t> clientOf,
                      std::int64_t clients, std::span<const double> priorities = {});

    // next returns the earliest instant the throttles have work at (a start not yet taken, a
    // done, a timer, a submission), ClientThrottle::kNever when none.
    Nanos next() const;
    // advance runs the throttles' events at or before t (t is next()) in the instant's order
    // until one lets a call start, or none is left.
    void advance(Nanos t);
    // take returns the earliest start not yet taken if it is at or before `upTo`.
    std::optional<Start> take(Nanos upTo);
    // done tells request's throttle, at t (never before the last advance), that its client
    // learnt the fate of the first attempt.
    void done(Nanos t, std::int32_t request);
    // gaveUp returns how many requests never reached the policy: dropped by their throttle, or
    // (once nothing is left to run) still held, which no timer would ever start.
    std::int64_t gaveUp() const;
    // dropped returns how many calls the throttles dropped.
    std::int64_t dropped() const { return m_dropped; }

private:
    std::int64_t clientOf(std::size_t request) const;
    ClientThrottle& throttle(std::int64_t client);
    void noteWake(std::int64_t client); // the client's place among the timers
    void ready(Nanos t, std::int64_t client); // its calls started by the last event: to take

    struct Done {
        Nanos t;
        std::int64_t seq;
        std::int32_t request;
        bool operator>(const Done& o) const { return t != o.t ? t > o.t : seq > o.seq; }
    };

    const ClientThrottleSpec m_spec;
    const std::span<const Nanos> m_arrivals;
    const std::span<const std::int64_t> m_clientOf;
    const std::span<const double> m_priorities;
    const std::int64_t m_clients;
    std::vector<std::unique_ptr<ClientThrottle>> m_throttles; // per client, made when first used
    std::vector<Nanos> m_wakeOf;                              // per client: its key in m_wakes
    std::set<std::pair<Nanos, std::int64_t>> m_wakes;        // (next wake, client), kNever left out
    std::priority_queue<Done, std::vector<Done>, std::greater<>> m_dones;
    std::int64_t m_doneSeq = 0;
    std::deque<Start> m_ready;
    std::size_t m_next = 0; // the next request to submit
    std::int64_t m_started = 0, m_dropped = 0;
    std::vector<std::int64_t> m_scratch;
};

// kNotStarted is simulateThrottle's start of a call the throttle dropped.
inline constexpr Nanos kNotStarted = -1;

// simulateThrottle runs calls through the throttle the spec names, by the engine's own rule of an
// instant (ThrottledArrivals, one client): call i arrives at arrivals[i] (non-decreasing) with
// priorities[i] (the kind's default when `priorities` is empty) and is done at its start plus
// serviceTimes[i]. It returns each call's start, kNotStarted for a dropped one. It throws
// InputError for a bad spec or arrivals out of order.
std::vector<Nanos> simulateThrottle(std::string_view spec, const std::vector<Nanos>& arrivals,
                                    const std::vector<Nanos>& serviceTimes, const std::vector<double>& priorities = {});

} // namespace ratelab
