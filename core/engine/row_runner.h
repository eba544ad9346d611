// RowRunner: one row's run in progress (engine.cpp's runRow), split over three files: engine.cpp
// has an attempt's path through the policy, row_runner_clients.cpp what its client does with the
// answer (retries, the server's responses, the throttles) and the figures of the run,
// row_runner_nodes.cpp the typed loop of a row whose nodes decide alone.
#pragma once

#include "engine/admitted_window.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "engine/throttled_arrivals.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <queue>
#include <vector>

namespace ratelab::detail {

// Retry is a scheduled attempt; seq is its creation order among retries.
struct Retry {
    Nanos t = 0;
    std::int64_t seq = 0;
    std::int32_t request = 0;
    std::int32_t attempt = 0;
    Nanos prev = 0; // the delay before this attempt (decorrelated jitter)
};

struct Later {
    bool operator()(const Retry& a, const Retry& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
};

// RowRunner is one row's run in progress: what runRow's loop carries from attempt to attempt,
// each step of an attempt's path a member (semantics.md, "Everything together").
class RowRunner {
public:
    RowRunner(const EngineSetup& setup, const EngineRequests& in, const std::atomic<bool>* cancel);
    // run runs the row: a row runNodes can take goes through its typed loop unless `typed` is
    // false (the general loop, the reference tst_engine checks it against).
    RowRun run(bool typed = true);
    RowRun runCells(); // the general loop: every attempt through its key's cells
    bool typed() const { return nodesAlone(); } // run(true) takes the typed loop

private:
    void check() const;
    bool nextAttempt(Retry& p);     // the next attempt in decision order, if any
    bool nextThrottled(Retry& p);   // nextAttempt with throttles: their starts, or a retry
    void followChanges(Nanos t);    // the policy's quota as of t: a limit change may move it
    void autoscale(Nanos t);        // the nodes up at t, from the last second's attempts
    StoreCell& cell(std::size_t key, std::size_t l)
    {
        auto& c = m_cells[key * m_layers + l];
        if (!c) // inline: a cell is made once, then asked every attempt
            makeCell(key, l);
        return *c;
    }
    void makeCell(std::size_t key, std::size_t l);
    // decide runs the policy on key's cells: each layer in order until one denies.
    Decision decide(std::size_t key, int node, Nanos t, Nanos clock, std::int64_t cost, std::uint8_t& headerLayer);
    void askExternal(std::size_t key, std::size_t l, int node, Nanos t, Nanos clock, std::int64_t cost,
                     const Decision& model) const;
    void record(const Retry& p, std::int64_t client, int node, std::size_t key, std::int64_t cost, const Decision& d,
                std::uint8_t headerLayer);
    // logAttempt and count are record's two steps, inline for runNodes's loop too: the attempt's
    // entry, lane and node in the log; its decision in the row's figures.
    void logAttempt(const Retry& p, std::int64_t client, int node, const Decision& d, std::uint8_t headerLayer)
    {
        LoggedAttempt a;
        a.t = p.t;
        a.wait = d.allowed ? d.delay : d.retryAfter;
        a.level = d.level;
        a.request = p.request;
        a.client = static_cast<std::int32_t>(client);
        a.remaining = d.remaining;
        a.attempt = static_cast<std::uint8_t>(p.attempt);
        a.node = static_cast<std::uint8_t>(node);
        a.allowed = d.allowed;
        a.headerLayer = headerLayer;
        m_r.log.push_back(a);
        m_r.verdicts.push_back(verdictOf(d));
        if (m_setup.cluster)
            m_r.nodes.push_back(a.node);
    }
    void count(const Retry& p, int node, std::int64_t cost, const Decision& d)
    {
        Metrics& m = m_r.metrics;
        m.allowed += d.allowed;
        m.delayed += d.delay > 0;
        m.never += d.retryNever();
        if (d.allowed) {
            m.allowedCost += cost;
            ++m_r.perNodeAllowed[std::size_t(node)];
            if (!m_server) // with a server a request succeeds when it is served in time
                ++m_r.clients.succeeded;
            m.maxInWindow = std::max(m.maxInWindow, m_inside.add(p.t, true, cost));
            if (!m_server && m_setup.keepLog) // its latency now, not from a second pass over the log
                addServed(p.t - m_in.arrivals[std::size_t(p.request)] + d.delay);
        }
    }
    void retryOrGiveUp(const Retry& p, std::int64_t client, const Decision& d);
    // backoffWait draws client's backoff before attempt + 1 (prev: the delay before attempt).
    Nanos backoffWait(const Cohort& policy, std::int64_t client, std::int32_t attempt, Nanos prev);
    // retryAfterWait schedules the request's next attempt `wait` after t.
    void retryAfterWait(const Retry& p, Nanos t, Nanos wait);
    // serve runs the server's events due at or before t and answers their clients.
    void serve(Nanos t);
    // learn answers the clients of m_responses: a success, or a retry by the client's policy.
    void learn();
    Nanos nextAttemptTime() const;
    void finish();                  // memory per key and latency
    void finishFigures();           // finish's part after memory: lines, counts, latency
    // nodesAlone is true for a row whose every attempt is a request, decided once by one
    // limiter: its node's own (local, split, or the one node), with no limit change, no lines but
    // the nodes', no server, no clients: what runNodes runs without a cell or a variant an attempt.
    bool nodesAlone() const;
    template <typename L>
    void runNodes(const L& fresh);
    void reserveServed();           // room for the server's records: no copies as they grow
    void watchLevels();             // with levelLines: the recorder the drawn states tell
    void stopLevels();              // too many attempts to draw: no lines

    const EngineSetup& m_setup;
    const EngineRequests& m_in;
    const std::atomic<bool>* m_cancel; // the caller's, or none
    const ClusterConfig m_cluster;
    const ClientConfig m_clients;
    const std::size_t m_n;
    const std::size_t m_layers;
    std::vector<AnyLimiter> m_fresh;   // per layer: a new limiter (split: per node)
    std::vector<StoreChange> m_changes; // the first layer's limit changes, as each cell takes them
    std::vector<Nanos> m_offsets;       // per node: its clock's offset
    std::vector<std::optional<StoreCell>> m_cells; // [key * layers + layer], made when first asked
    std::int64_t m_policyQuota = std::numeric_limits<std::int64_t>::max();
    std::size_t m_nextChange = 0;
    RowRun m_r;
    std::int64_t m_attempts = 0;
    NodeBalancer m_picker;
    std::vector<std::uint32_t> m_draws; // per client: backoff draws made
    std::priority_queue<Retry, std::vector<Retry>, Later> m_retries;
    std::int64_t m_retrySeq = 0;
    std::size_t m_next = 0;             // the next first attempt
    AdmittedWindow m_inside;            // admitted attempts' costs inside (t - W, t]
    const bool m_figures;
    const bool m_storeModes;
    const bool m_perClientKeys;
    Nanos m_scaleTick = kNanosPerSecond; // the autoscaler counts attempts per whole second
    std::int64_t m_attemptsThisSecond = 0;
    std::optional<LevelRecorder> m_levels;
    bool m_levelNodes = false; // the lines are nodes' (else each key's store)
    std::optional<ServerStage> m_server;
    std::vector<ClientResponse> m_responses;
    // each succeeded request's latency (with a server, or a log): those above 0, and a count of
    // the zeros
    std::vector<Nanos> m_served;
    std::size_t m_zeroServed = 0;
    void addServed(Nanos latency)
    {
        if (latency == 0)
            ++m_zeroServed;
        else
            m_served.push_back(latency);
    }
    std::optional<ThrottledArrivals> m_throttle;
};

} // namespace ratelab::detail
