#include "layered.h"

#include "decimal.h"
#include "simulator.h"

#include <algorithm>

namespace ratelab {

LayeredPolicy::LayeredPolicy(const std::vector<Layer>& layers)
{
    if (layers.empty())
        throw InputError("a layered policy needs at least one layer");
    for (const Layer& l : layers)
        m_layers.push_back(makeLimiter(l.algorithm, l.config));
    m_metrics.resize(layers.size());
}

LayeredPolicy::LayeredPolicy(const LayeredPolicy& other)
    : m_metrics(other.m_metrics)
{
    for (const auto& l : other.m_layers)
        m_layers.push_back(l->clone());
}

LayeredPolicy& LayeredPolicy::operator=(const LayeredPolicy& other)
{
    if (this != &other) {
        LayeredPolicy copy(other);
        m_layers.swap(copy.m_layers);
        m_metrics.swap(copy.m_metrics);
    }
    return *this;
}

Decision LayeredPolicy::decide(Nanos t, std::int64_t cost)
{
    Decision out;
    out.allowed = true;
    std::size_t asked = 0;
    for (; asked < m_layers.size(); ++asked) {
        const Decision d = m_layers[asked]->decide(t, cost);
        if (asked == 0)
            out.level = d.level;
        if (!d.allowed) {
            ++m_metrics[asked].deniedHere;
            for (std::size_t j = 0; j < asked; ++j)
                m_metrics[j].wasted += cost;
            out.allowed = false;
            break;
        }
        ++m_metrics[asked].allowed;
        out.delay = std::max(out.delay, d.delay);
    }
    if (!out.allowed) {
        out.delay = 0;
        out.retryAfter = cost > quota() ? kRetryNever : waitFor(t, cost);
    }
    out.remaining = remainingAt(t);
    return out;
}

Nanos LayeredPolicy::waitFor(Nanos t, std::int64_t cost) const
{
    Nanos d = 0;
    for (const auto& l : m_layers)
        d = std::max(d, l->waitFor(t, cost));
    return d;
}

std::int32_t LayeredPolicy::remainingAt(Nanos t) const
{
    std::int32_t r = m_layers.front()->remainingAt(t);
    for (const auto& l : m_layers)
        r = std::min(r, l->remainingAt(t));
    return r;
}

std::int64_t LayeredPolicy::quota() const
{
    std::int64_t q = m_layers.front()->quota();
    for (const auto& l : m_layers)
        q = std::min(q, l->quota());
    return q;
}

Nanos LayeredPolicy::reset(Nanos t) const { return waitFor(t, quota()); }

LayeredTrace simulateLayered(const std::vector<Layer>& layers, std::span<const Nanos> arrivals,
                             std::span<const std::int64_t> costs)
{
    LayeredPolicy policy(layers);
    LayeredTrace r;
    for (const Layer& l : layers)
        r.algorithms.push_back(l.algorithm);
    r.decisions.reserve(arrivals.size());
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        const std::int64_t cost = costs.empty() ? 1 : costs[i];
        const Decision d = policy.decide(arrivals[i], cost);
        r.decisions.push_back(d);
        r.metrics.allowed += d.allowed;
        r.metrics.allowedCost += d.allowed ? cost : 0;
        r.metrics.never += d.retryNever();
        r.metrics.delayed += d.delay > 0;
    }
    r.metrics.denied = static_cast<std::int64_t>(arrivals.size()) - r.metrics.allowed;
    for (const LayerMetrics& m : policy.layerMetrics()) {
        r.allowed.push_back(m.allowed);
        r.deniedHere.push_back(m.deniedHere);
        r.wasted.push_back(m.wasted);
    }
    return r;
}

} // namespace ratelab
