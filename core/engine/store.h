// StoreCell: where one (key, layer)'s limiter state lives in a cluster, and how an attempt on a
// node sees it (semantics.md, "Cluster: N nodes and a store", and "Everything together").
//
// Design
// ------
// The contract defines every coordination by one rule, visibility: an attempt is decided by
// replaying, in order, the earlier admissions (consumptions) visible to it on a fresh limiter,
// and asking whether one more at its time would be admitted. Replaying literally is O(n^2); two
// facts make a cell O(1) amortised an attempt (O(L) copies for the log in hybrid, once a tick):
//
// 1. A denied decide changes nothing that matters later: it is only a time advance (a window
//    roll, an expiry, a refill or drain), and advancing to t and then to t' is advancing to t'.
//    So a limiter that decided a whole stream holds the state of one that replayed only the
//    admitted attempts, at the same times.
// 2. The visible set only grows by appending: a node's own prefix (local, split); everything
//    (shared); the prefix with t_j + latency <= t_i (racy, t non-decreasing); the prefix before
//    the node's last sync tick plus the node's own since (hybrid). So a cell keeps the replayed
//    prefix and takes each newly visible admission once.
//
// Clocks: local and split hand a node's limiter its own clock (true time + the node's skew); a
// store's limiter is handed max(node clock, the last time it was handed): it never goes back. A
// replayed admission is replayed at the time it was handed when it was decided (h_j), never at
// t_j: that is the state the store holds. In racy and hybrid the store may refuse a replayed
// admission a node let through on a stale view; it then changes nothing, and the over-admission
// shows in the decisions and max_in_window, not as a store past its limit.
//
// One node: local, split (L/1 = L), shared and hybrid are the single limiter. Racy is too only
// with latency 0: its rule does not ask which node decided j, so one server whose read and write
// are a round trip apart races with itself (semantics.md says so too).
#pragma once

#include "limiters/any_limiter.h"
#include "engine/cluster.h"
#include "engine/level_lines.h"

#include <deque>
#include <span>
#include <optional>
#include <vector>

namespace ratelab {

// StoreChange is a limit change as a cell applies it: from `at` on, `config` (per node for
// split), and `fresh`, a new limiter of it.
struct StoreChange {
    Nanos at = 0;
    LimiterConfig config;
    AnyLimiter fresh;
};

class StoreCell {
public:
    // The cell starts with `fresh` (already the per-node config for split) everywhere: full, or
    // with startEmpty a bucket empty when it is new (the store at 0, a node when it joins, a
    // node's local fallback when the store goes down). Each state takes each of `changes` (in
    // time order) when its own clock reaches the change's time (plus the node's offset), and
    // keeps its state; a state new after a change is made with that change's config.
    StoreCell(const AnyLimiter& fresh, const ClusterConfig& cluster, bool startEmpty = false,
              std::span<const StoreChange> changes = {});

    // decide decides an attempt of `cost` at true time t on node `node`, whose clock reads `clock`.
    // An admission is consumed: later attempts see it by the coordination's rule.
    Decision decide(int node, Nanos t, Nanos clock, std::int64_t cost);
    // renew makes node `node`'s own state new at true time t (it came up again: autoscaling); a
    // hybrid node copies the store at its next attempt.
    void renew(int node, Nanos t);
    // look brings node `node`'s view up to true time t (clock `clock`) without deciding: what a
    // layer that was not asked shows in the response.
    void look(int node, Nanos t, Nanos clock);

    // watch makes the cell tell `r` every step of the states a row draws (level_lines.h): its
    // nodes' as lines 0..N-1 (nodes), or its store's as line `storeLine`.
    void watch(LevelRecorder* r, bool nodes, int storeLine);
    // settle draws, on the states watched, the limit changes due by true time `end` that nothing
    // decided after (the state itself takes a change when it is next handed a time).
    void settle(Nanos end);

    // seen is the state the last decide or look left, as its node sees it (after the decision);
    // seenAt is the time it was handed.
    const AnyLimiter& seen() const { return *m_seen; }
    Nanos seenAt() const { return m_seenAt; }
    // quota is the most one instant admits from this cell's config.
    std::int64_t quota() const { return m_quota; }
    // memory sums the state held by the nodes and the store, once every admission has landed.
    Memory memory();
    // used is true once an attempt has reached the cell.
    bool used() const { return m_used; }

private:
    struct Admission {
        Nanos t, handed;
        std::int64_t cost;
    };
    // Held is one state and how many of the cell's changes it has taken.
    struct Held {
        AnyLimiter l;
        std::uint32_t version = 0;
    };
    struct Node {
        std::optional<Held> limiter;
        Nanos last;
        std::int64_t tick = 0;
    };

    Node& node(int n);
    Held newAt(Nanos clock, Nanos offset) const; // a new state at `clock`: full, or empty with startEmpty
    AnyLimiter storedForm(const AnyLimiter& fresh) const; // a log shared by copies where nodes copy
    // follow gives h the changes due by `clock` (a state whose clock runs `offset` ahead).
    // line: the watched line it is, or -1.
    void follow(Held& h, Nanos clock, Nanos offset, int line = -1) const
    {
        if (h.version < m_changes.size()) // inline: most states never see a change
            followDue(h, clock, offset, line);
    }
    void followDue(Held& h, Nanos clock, Nanos offset, int line) const;
    std::uint32_t versionAt(Nanos clock, Nanos offset) const; // the changes due by then
    void applyPending(Nanos t);         // racy: admissions with t_j + latency <= t reach the store
    void syncNode(Node& node, int n, Nanos t); // hybrid: a node past a tick becomes the store
    void handToStore(Nanos handed, std::int64_t cost, Nanos lands); // lands: the write's true time
    int nodeLine(int n) const { return m_watch && m_watchNodes ? n : -1; }
    int storeLine() const { return m_watch && !m_watchNodes ? m_storeLine : -1; }
    Decision fallback(int node, Nanos t, Nanos clock, std::int64_t cost); // the store is down
    // watched decides on a state, telling the watch (line >= 0) the level before and after.
    Decision watched(int line, Nanos t, Nanos handed, AnyLimiter& state, std::int64_t cost)
    {
        if (line < 0) // inline: a row without level lines decides on the state straight away
            return state.decide(handed, cost);
        return watchedDecide(line, t, handed, state, cost);
    }
    Decision watchedDecide(int line, Nanos t, Nanos handed, AnyLimiter& state, std::int64_t cost);

    const ClusterConfig* m_cluster;
    Coordination m_mode;
    AnyLimiter m_fresh;                // the config in force at the start
    std::vector<AnyLimiter> m_freshes; // [v]: a new limiter after v changes ([0] is m_fresh)
    std::span<const StoreChange> m_changes;
    Held m_store;
    Nanos m_storeLast; // the last time the store's limiter was handed (a decision or a replay)
    Nanos m_readLast;  // racy: the last time a read was handed; its writes replay at their own
    std::vector<Node> m_nodes;
    std::deque<Admission> m_pending; // racy: in flight; hybrid: not yet synced
    std::optional<Held> m_peek; // racy: the store as read, with this attempt
    std::vector<std::optional<Held>> m_outage; // fallback local: each node's limiter, new at the outage
    const AnyLimiter* m_seen;
    Nanos m_seenAt = 0;
    std::int64_t m_quota;
    bool m_used = false;
    bool m_startEmpty = false;
    LevelRecorder* m_watch = nullptr;
    bool m_watchNodes = false;
    int m_storeLine = 0;
};

} // namespace ratelab
