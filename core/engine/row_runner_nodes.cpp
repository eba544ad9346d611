// RowRunner::runNodes: the engine's loop for the commonest cluster row, a local or split cluster
// of one limiter with no clients, server or limit change. Each node's state is its own, so a
// request is decided once, on its node's state at the node's clock: the cell's rule (store.h)
// with the limiter's type known, so a decision goes through no variant and no cell. The nodes'
// lines, when the row draws them, are recorded at the same steps as the cell's watch records them.
#include "engine/row_runner.h"

#include "engine/layer_loop.h"

#include <type_traits>
#include <variant>

namespace ratelab::detail {

bool RowRunner::nodesAlone() const
{
    return m_layers == 1 && !m_setup.server && !m_throttle && !m_setup.clients && m_changes.empty()
           && !m_cluster.hasAutoscale() && !m_setup.external && !m_setup.handedTimes && (!m_levels || m_levelNodes) && !m_storeModes
           && !std::holds_alternative<SyncedLog>(m_fresh.front()); // hybrid's and racy's form only
}

template <typename L>
void RowRunner::runNodes(const L& fresh)
{
    // A node's state is new when the node joins (its clock then), as StoreCell::node makes it. It
    // is held as the cell holds it, an AnyLimiter, for the lines' recorder to read its level.
    std::vector<std::optional<AnyLimiter>> nodes(std::size_t(m_cluster.nodes()));
    const auto stateOf = [&](int n) -> AnyLimiter& {
        auto& x = nodes[std::size_t(n)];
        if (!x) [[unlikely]] {
            x.emplace(fresh);
            if (m_setup.startEmpty)
                emptyAt(*x, m_cluster.joinedAt(n) + m_offsets[std::size_t(n)]);
        }
        return *x;
    };
    LevelRecorder* const lines = m_levels ? &*m_levels : nullptr; // a line a node, as the cell draws them
    if (lines) // a node's share of the requests, as a round robin deals them
        for (int n = 0; n < m_cluster.nodes(); ++n)
            lines->expect(n, m_n / std::size_t(m_cluster.nodes()) + 1);
    const std::int64_t quota = fresh.quota();
    const bool log = m_setup.keepLog;
    const bool resets = log && m_setup.headers;
    LayerMetrics& layer = m_r.layers.front();
    for (std::size_t i = 0; i < m_n; ++i) {
        if ((i + 1) % kCancelCheck == 0) // as nextAttempt looks, as it takes attempt i + 1
            throwIfCancelled(m_cancel);
        const Nanos t = m_in.arrivals[i];
        const std::int64_t client = m_in.clientOf.empty() ? std::int64_t(i) : m_in.clientOf[i];
        const std::int64_t cost = m_in.costs.empty() ? 1 : m_in.costs[i];
        const int node = m_picker.pick(std::uint64_t(client), t);
        const Nanos clock = t + m_offsets[std::size_t(node)];
        AnyLimiter& held = stateOf(node);
        L& state = *std::get_if<L>(&static_cast<LimiterVariant&>(held));
        if (lines) { // StoreCell::watchedDecide's steps, in runCells's order
            lines->reach(t);
            lines->decisionBefore(node, t, clock, held);
        }
        const Decision d = cost == 1 ? state.decide(clock) : state.decide(clock, cost);
        if (lines)
            lines->after(node, t, clock, held, true);
        ++(d.allowed ? layer.allowed : layer.deniedHere); // askLayers' count, for one layer
        const Retry p{t, -1, static_cast<std::int32_t>(i), 0};
        if (log) {
            logAttempt(p, client, node, d, 0);
            if (resets)
                m_r.resets.push_back(resetOf(state, clock, quota));
        }
        count(p, node, cost, d);
        if (!d.allowed)
            ++m_r.clients.gaveUp; // no clients: one attempt, no retry
    }
    m_attempts = std::int64_t(m_n);
    // Memory as the cell's: every node's state, new for a node never asked; a key used once an
    // attempt came.
    Memory mem;
    for (const std::optional<AnyLimiter>& x : nodes)
        mem += x ? x->memory() : fresh.memory();
    m_r.metrics.memory = mem;
    if (m_n > 0) {
        m_r.clients.keysUsed = 1;
        m_r.clients.total = mem;
        m_r.clients.perKeyMax = mem;
    }
    finishFigures();
}

RowRun RowRunner::run(bool typed)
{
    if (typed && nodesAlone()) {
        std::visit([&](const auto& fresh) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(fresh)>, SyncedLog>) // never a node's
                runNodes(fresh);
        }, static_cast<const LimiterVariant&>(m_fresh.front()));
        return std::move(m_r);
    }
    return runCells();
}

} // namespace ratelab::detail
