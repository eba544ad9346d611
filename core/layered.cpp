#include "layered.h"

#include "decimal.h"

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

} // namespace ratelab
