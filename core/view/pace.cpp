#include "view/pace.h"

#include <algorithm>

namespace ratelab {

Pace Pace::follow(std::vector<Nanos> instants, Nanos from, Nanos to, Nanos lengthNanos, PaceRule rule)
{
    Pace pace;
    if (to < from)
        to = from;
    std::sort(instants.begin(), instants.end());
    const auto first = std::lower_bound(instants.begin(), instants.end(), from);
    const auto last = std::lower_bound(first, instants.end(), to);
    pace.m_sim.reserve(std::size_t(last - first) + 2);
    pace.m_sim.push_back(from);
    if (to > from) {
        pace.m_sim.insert(pace.m_sim.end(), first, last);
        pace.m_sim.push_back(to);
    }
    // Each gap in real time, clamped: a burst slowed to minStep a request, idle cut to maxStep.
    const auto step = [&](std::size_t i) { return std::clamp(pace.m_sim[i] - pace.m_sim[i - 1], rule.minStepNanos, rule.maxStepNanos); };
    Int128 natural = 0;
    for (std::size_t i = 1; i < pace.m_sim.size(); ++i)
        natural += step(i);
    const Int128 length = lengthNanos > 0 ? lengthNanos : std::min<Int128>(natural, rule.maxTotalNanos);
    // Scaled as a whole, each knot rounded down, so the last lands exactly on the length.
    pace.m_real.reserve(pace.m_sim.size());
    pace.m_real.push_back(0);
    Int128 sum = 0;
    for (std::size_t i = 1; i < pace.m_sim.size(); ++i) {
        sum += step(i);
        pace.m_real.push_back(Nanos(sum * length / natural));
    }
    return pace;
}

PacePosition Pace::at(Nanos real) const
{
    if (m_sim.empty())
        return {};
    if (real >= m_real.back())
        return {m_sim.back(), instantCount()};
    if (real <= 0)
        return {m_sim.front(), 0};
    // The last knot reached at or before `real` (a gap rounded to no real length is jumped).
    const std::size_t i = std::size_t(std::upper_bound(m_real.begin(), m_real.end(), real) - m_real.begin()) - 1;
    const Int128 into = Int128(real - m_real[i]) * (m_sim[i + 1] - m_sim[i]) / (m_real[i + 1] - m_real[i]);
    return {m_sim[i] + Nanos(into), i};
}

std::size_t Pace::instantsBefore(Nanos sim) const
{
    if (m_sim.size() < 2)
        return 0;
    return std::size_t(std::lower_bound(m_sim.begin() + 1, m_sim.end() - 1, sim) - (m_sim.begin() + 1));
}

Nanos Pace::realAt(PacePosition p) const
{
    if (m_sim.size() < 2 || p.sim < m_sim.front())
        return 0;
    if (p.sim >= m_sim.back())
        return realLength();
    // Knot k is the k-th instant reached (knot 0: from, none); p lies in the gap after it.
    const std::size_t atOrBefore = std::size_t(std::upper_bound(m_sim.begin() + 1, m_sim.end() - 1, p.sim) - (m_sim.begin() + 1));
    const std::size_t k = std::clamp(p.reached, instantsBefore(p.sim), atOrBefore);
    if (p.sim == m_sim[k])
        return m_real[k];
    const Int128 span = m_sim[k + 1] - m_sim[k];
    const Int128 into = (Int128(p.sim - m_sim[k]) * (m_real[k + 1] - m_real[k]) + span - 1) / span;
    return m_real[k] + Nanos(into);
}

PaceSegment Pace::segmentAt(Nanos sim) const
{
    if (m_sim.size() < 2)
        return m_sim.empty() ? PaceSegment{} : PaceSegment{m_sim[0], m_sim[0], 0, 0};
    const auto after = std::upper_bound(m_sim.begin(), m_sim.end() - 1, sim);
    const std::size_t i = after == m_sim.begin() ? 0 : std::size_t(after - m_sim.begin()) - 1;
    return segment(i);
}

} // namespace ratelab
