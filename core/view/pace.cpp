#include "view/pace.h"

#include <algorithm>

namespace ratelab {

Pace Pace::follow(std::vector<Nanos> instants, Nanos from, Nanos to, Nanos lengthNanos, PaceRule rule)
{
    Pace pace;
    if (to < from)
        to = from;
    std::sort(instants.begin(), instants.end());
    instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
    const auto first = std::upper_bound(instants.begin(), instants.end(), from);
    const auto last = std::lower_bound(first, instants.end(), to);
    pace.m_sim.reserve(std::size_t(last - first) + 2);
    pace.m_sim.push_back(from);
    pace.m_sim.insert(pace.m_sim.end(), first, last);
    if (to > from)
        pace.m_sim.push_back(to);
    // Each gap in real time, clamped: a burst slowed to minStep an instant, idle cut to maxStep.
    pace.m_real.reserve(pace.m_sim.size());
    pace.m_real.push_back(0);
    Int128 natural = 0;
    for (std::size_t i = 1; i < pace.m_sim.size(); ++i) {
        natural += std::clamp(pace.m_sim[i] - pace.m_sim[i - 1], rule.minStepNanos, rule.maxStepNanos);
        pace.m_real.push_back(Nanos(std::min<Int128>(natural, kMaxNanos)));
    }
    const Int128 length = lengthNanos > 0 ? lengthNanos : std::min<Int128>(natural, rule.maxTotalNanos);
    // Scaled as a whole, each knot rounded down, so the last lands exactly on the length.
    if (natural > 0 && length != natural) {
        Int128 sum = 0;
        for (std::size_t i = 1; i < pace.m_sim.size(); ++i) {
            sum += std::clamp(pace.m_sim[i] - pace.m_sim[i - 1], rule.minStepNanos, rule.maxStepNanos);
            pace.m_real[i] = Nanos(sum * length / natural);
        }
    }
    return pace;
}

Nanos Pace::simAt(Nanos real) const
{
    if (m_sim.empty())
        return 0;
    if (real <= 0)
        return m_sim.front();
    if (real >= m_real.back())
        return m_sim.back();
    // The last knot reached at or before `real`: a gap of no real length is jumped.
    const std::size_t i = std::size_t(std::upper_bound(m_real.begin(), m_real.end(), real) - m_real.begin()) - 1;
    const Int128 into = Int128(real - m_real[i]) * (m_sim[i + 1] - m_sim[i]) / (m_real[i + 1] - m_real[i]);
    return m_sim[i] + Nanos(into);
}

Nanos Pace::realAt(Nanos sim) const
{
    if (m_sim.empty() || sim <= m_sim.front())
        return 0;
    if (sim >= m_sim.back())
        return realLength();
    const std::size_t i = std::size_t(std::upper_bound(m_sim.begin(), m_sim.end(), sim) - m_sim.begin()) - 1;
    const Int128 span = m_sim[i + 1] - m_sim[i];
    const Int128 into = (Int128(sim - m_sim[i]) * (m_real[i + 1] - m_real[i]) + span - 1) / span;
    return m_real[i] + Nanos(into);
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
