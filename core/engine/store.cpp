#include "engine/store.h"

#include <algorithm>
#include <limits>

namespace ratelab {

namespace {

constexpr Nanos kNotYet = std::numeric_limits<Nanos>::min(); // a limiter not handed anything yet

} // namespace

StoreCell::StoreCell(const AnyLimiter& fresh, const ClusterConfig& cluster, bool startEmpty,
                     std::span<const StoreChange> changes)
    : m_cluster(&cluster), m_mode(cluster.coordination()), m_fresh(fresh), m_changes(changes), m_store{fresh},
      m_storeLast(kNotYet), m_readLast(kNotYet), m_seen(&m_store.l), m_quota(fresh.quota()), m_startEmpty(startEmpty)
{
    m_fresh = storedForm(fresh);
    m_freshes.push_back(m_fresh);
    for (const StoreChange& c : changes)
        m_freshes.push_back(storedForm(c.fresh));
    if (m_mode != Coordination::Shared && m_mode != Coordination::Racy)
        m_nodes.resize(static_cast<std::size_t>(cluster.nodes()), Node{std::nullopt, kNotYet, 0});
    m_store = newAt(0, 0); // the store is new when the run starts
}

AnyLimiter StoreCell::storedForm(const AnyLimiter& fresh) const
{
    // Hybrid copies the store at each node's sync, racy at each read: a log is shared, not copied.
    if (const auto* log = std::get_if<SlidingWindowLog>(&fresh);
        log && (m_mode == Coordination::Hybrid || m_mode == Coordination::Racy))
        return SyncedLog(log->quota(), log->windowNanos());
    return fresh;
}

std::uint32_t StoreCell::versionAt(Nanos clock, Nanos offset) const
{
    std::uint32_t v = 0;
    while (v < m_changes.size() && m_changes[v].at <= clock - offset)
        ++v;
    return v;
}

void StoreCell::followDue(Held& h, Nanos clock, Nanos offset, int line) const
{
    // Each change is taken at its own time, in order, before the state is handed `clock`: the
    // times a state is handed never go back, so it is taken exactly once, at the change.
    for (; h.version < m_changes.size() && m_changes[h.version].at <= clock - offset; ++h.version) {
        const Nanos at = m_changes[h.version].at;
        if (line >= 0)
            m_watch->stepBefore(line, at, at + offset, h.l, true);
        h.l.retarget(m_changes[h.version].config, at + offset);
        if (line >= 0)
            m_watch->after(line, at, at + offset, h.l, false);
    }
}

void StoreCell::watch(LevelRecorder* r, bool nodes, int storeLine)
{
    m_watch = r;
    m_watchNodes = nodes;
    m_storeLine = storeLine;
}

void StoreCell::settle(Nanos end)
{
    if (!m_watch || m_changes.empty())
        return;
    if (!m_watchNodes) {
        follow(m_store, end, 0, storeLine());
        return;
    }
    for (std::size_t n = 0; n < m_nodes.size(); ++n)
        if (m_nodes[n].limiter && m_watch->started(int(n))) {
            const Nanos offset = m_cluster->nodeOffset(int(n));
            follow(*m_nodes[n].limiter, end + offset, offset, int(n));
        }
}

StoreCell::Held StoreCell::newAt(Nanos clock, Nanos offset) const
{
    const std::uint32_t v = versionAt(clock, offset);
    Held h{m_freshes[v], v};
    if (m_startEmpty)
        emptyAt(h.l, clock);
    return h;
}

void StoreCell::renew(int n, Nanos t)
{
    if (m_nodes.empty())
        return; // shared, racy: the nodes hold no state
    Node& x = m_nodes[std::size_t(n)];
    const Nanos offset = m_cluster->nodeOffset(n);
    const int line = nodeLine(n);
    if (line >= 0 && x.limiter)
        m_watch->sampleBefore(line, t, t + offset, x.limiter->l);
    x.limiter = newAt(t + offset, offset);
    x.last = kNotYet;
    x.tick = -1; // hybrid: not synced yet
    if (line >= 0) {
        if (m_watch->started(line))
            m_watch->after(line, t, t + offset, x.limiter->l, false);
        else
            m_watch->madeNew(line, t, t + offset, x.limiter->l);
    }
}

StoreCell::Node& StoreCell::node(int n)
{
    Node& x = m_nodes[static_cast<std::size_t>(n)];
    if (!x.limiter) // new when the node joins (its clock then), or at 0
        x.limiter = newAt(m_cluster->joinedAt(n) + m_cluster->nodeOffset(n), m_cluster->nodeOffset(n));
    return x;
}

void StoreCell::handToStore(Nanos handed, std::int64_t cost, Nanos lands)
{
    m_storeLast = std::max(m_storeLast, handed);
    follow(m_store, m_storeLast, 0);
    const int line = m_mode == Coordination::Racy ? storeLine() : -1; // a hybrid store is not drawn
    if (line >= 0)
        m_watch->stepBefore(line, lands, m_storeLast, m_store.l);
    (void)m_store.l.decide(m_storeLast, cost);
    if (line >= 0)
        m_watch->after(line, lands, m_storeLast, m_store.l, true);
}

void StoreCell::applyPending(Nanos t)
{
    const Nanos latency = m_cluster->latencyNanos();
    for (; !m_pending.empty() && t - m_pending.front().t >= latency; m_pending.pop_front())
        handToStore(m_pending.front().handed, m_pending.front().cost, m_pending.front().t + latency);
}

void StoreCell::syncNode(Node& x, int n, Nanos t)
{
    const Nanos sync = m_cluster->syncNanos();
    const std::int64_t tick = t / sync;
    if (tick == x.tick)
        return;
    const Nanos boundary = tick * sync; // <= t: no overflow
    for (; !m_pending.empty() && m_pending.front().t < boundary; m_pending.pop_front())
        handToStore(m_pending.front().handed, m_pending.front().cost, boundary);
    const int line = nodeLine(n);
    const Nanos offset = m_cluster->nodeOffset(n);
    if (line >= 0) // the node's own level up to the tick, then the store's
        m_watch->stepBefore(line, boundary, boundary + offset, x.limiter->l);
    x.limiter = m_store;
    x.last = m_storeLast;
    x.tick = tick;
    if (line >= 0)
        m_watch->after(line, boundary, std::max(m_storeLast, boundary + offset), x.limiter->l, false);
}

void StoreCell::look(int n, Nanos t, Nanos clock)
{
    m_used = true;
    if (m_mode != Coordination::Local && m_mode != Coordination::Split && m_cluster->storeDown(t)) {
        if (m_cluster->options().fallback == Fallback::Local) {
            if (m_outage.empty())
                m_outage.resize(std::size_t(m_cluster->nodes()));
            auto& local = m_outage[std::size_t(n)];
            const Nanos offset = m_cluster->nodeOffset(n);
            if (!local)
                local = newAt(m_cluster->options().outageFromNanos + offset, offset);
            follow(*local, clock, offset);
            m_seen = &local->l;
        } else {
            m_seen = &m_freshes[versionAt(clock, 0)]; // open or closed: the store's state is out of reach
        }
        m_seenAt = clock;
        return;
    }
    switch (m_mode) {
    case Coordination::Local:
    case Coordination::Split: {
        Node& x = node(n);
        m_seenAt = std::max(x.last, clock);
        follow(*x.limiter, m_seenAt, m_cluster->nodeOffset(n));
        m_seen = &x.limiter->l;
        return;
    }
    case Coordination::Racy:
    case Coordination::Shared:
        if (m_mode == Coordination::Racy)
            applyPending(t);
        m_seenAt = std::max(m_mode == Coordination::Racy ? m_readLast : m_storeLast, clock);
        m_seen = &m_store.l;
        if (versionAt(m_seenAt, 0) != m_store.version) { // a change is due: shown on a copy, the
            m_peek = m_store;                             // store takes it when it is handed a time
            follow(*m_peek, m_seenAt, 0);
            m_seen = &m_peek->l;
        }
        return;
    case Coordination::Hybrid: {
        Node& x = node(n);
        syncNode(x, n, t);
        m_seenAt = std::max(x.last, clock);
        follow(*x.limiter, m_seenAt, m_cluster->nodeOffset(n));
        m_seen = &x.limiter->l;
        return;
    }
    }
}

Decision StoreCell::fallback(int n, Nanos t, Nanos clock, std::int64_t cost)
{
    const ClusterConfig::Options& o = m_cluster->options();
    Decision d;
    switch (o.fallback) {
    case Fallback::Open: // admit everything; nothing is counted anywhere
        m_seen = &m_freshes[versionAt(clock, 0)];
        m_seenAt = clock;
        d.allowed = true;
        d.remaining = clampRemaining(m_seen->quota() - cost);
        return d;
    case Fallback::Closed: // deny everything until the store is back
        m_seen = &m_freshes[versionAt(clock, 0)];
        m_seenAt = clock;
        d.retryAfter = cost > m_seen->quota() ? kRetryNever : o.outageToNanos - t;
        return d;
    case Fallback::Local: break;
    }
    if (m_outage.empty())
        m_outage.resize(std::size_t(m_cluster->nodes()));
    auto& local = m_outage[std::size_t(n)];
    const Nanos offset = m_cluster->nodeOffset(n);
    if (!local) // new at the outage: no attempt of this node came in it before
        local = newAt(o.outageFromNanos + offset, offset);
    follow(*local, clock, offset);
    m_seen = &local->l;
    m_seenAt = clock;
    return local->l.decide(clock, cost);
}

Decision StoreCell::watchedDecide(int line, Nanos t, Nanos handed, AnyLimiter& state, std::int64_t cost)
{
    m_watch->decisionBefore(line, t, handed, state);
    const Decision d = state.decide(handed, cost);
    m_watch->after(line, t, handed, state, true);
    return d;
}

Decision StoreCell::decide(int n, Nanos t, Nanos clock, std::int64_t cost)
{
    m_used = true;
    if (m_mode != Coordination::Local && m_mode != Coordination::Split && m_cluster->storeDown(t))
        return fallback(n, t, clock, cost);
    switch (m_mode) {
    case Coordination::Local:
    case Coordination::Split: {
        Node& x = node(n);
        x.last = clock; // a node's own clock never goes back: arrivals are in time order
        follow(*x.limiter, clock, m_cluster->nodeOffset(n), nodeLine(n));
        m_seen = &x.limiter->l;
        m_seenAt = clock;
        return watched(nodeLine(n), t, clock, x.limiter->l, cost);
    }
    case Coordination::Shared:
        m_storeLast = std::max(m_storeLast, clock);
        follow(m_store, m_storeLast, 0, storeLine());
        m_seen = &m_store.l;
        m_seenAt = m_storeLast;
        return watched(storeLine(), t, m_storeLast, m_store.l, cost);
    case Coordination::Racy: {
        if (storeLine() >= 0) // the store's line starts at the first read
            m_watch->begin(storeLine(), t, clock, m_store.l);
        applyPending(t);
        m_readLast = std::max(m_readLast, clock);
        m_peek = m_store; // the read: the store as it stands, decided on a copy
        follow(*m_peek, m_readLast, 0);
        m_seen = &m_peek->l;
        m_seenAt = m_readLast;
        const Decision d = m_peek->l.decide(m_readLast, cost);
        if (d.allowed) // the write lands a round trip later, at the time this read was handed
            m_pending.push_back({t, m_readLast, cost});
        return d;
    }
    case Coordination::Hybrid: {
        Node& x = node(n);
        syncNode(x, n, t);
        x.last = std::max(x.last, clock);
        follow(*x.limiter, x.last, m_cluster->nodeOffset(n), nodeLine(n));
        m_seen = &x.limiter->l;
        m_seenAt = x.last;
        const Decision d = watched(nodeLine(n), t, x.last, x.limiter->l, cost);
        if (d.allowed)
            m_pending.push_back({t, x.last, cost});
        return d;
    }
    }
    return {};
}

Memory StoreCell::memory()
{
    Memory m;
    if (m_mode == Coordination::Racy || m_mode == Coordination::Hybrid)
        for (; !m_pending.empty(); m_pending.pop_front()) // in flight at the end: they land
            handToStore(m_pending.front().handed, m_pending.front().cost,
                        m_pending.front().t > kMaxNanos - m_cluster->latencyNanos()
                            ? kMaxNanos
                            : m_pending.front().t + m_cluster->latencyNanos());
    if (m_mode != Coordination::Local && m_mode != Coordination::Split)
        m += m_store.l.memory();
    for (const Node& x : m_nodes)
        m += (x.limiter ? x.limiter->l : m_fresh).memory();
    return m;
}

} // namespace ratelab
