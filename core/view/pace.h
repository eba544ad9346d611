// Pace maps real playback time to simulated time so that playback follows the requests (issue 31):
// each gap between consecutive instants with a request is played in real time, but never faster
// than one instant per PaceRule::minStepNanos (a burst's requests 1 ms apart can be followed one
// by one) and never slower than PaceRule::maxStepNanos (an idle stretch is crossed quickly). The
// whole then plays in a given real length when one is asked for (a scenario's "playback"), else
// in at most PaceRule::maxTotalNanos. Pure: no clock, no Qt; every time an integer of nanoseconds.
#pragma once

#include "arithmetic/nanos.h"

#include <cstddef>
#include <vector>

namespace ratelab {

// PaceRule holds the real durations the pace keeps a gap between: followable, never dull.
struct PaceRule {
    Nanos minStepNanos = 300'000'000;    // a gap shorter than this is slowed to it (0.3 s)
    Nanos maxStepNanos = 1'000'000'000;  // a gap longer than this is compressed to it (1 s)
    Nanos maxTotalNanos = 30'000'000'000; // with no length asked for, the whole in at most 30 s
};

// PaceSegment is one gap: simulated [simFrom, simTo] played over real [realFrom, realTo].
struct PaceSegment {
    Nanos simFrom = 0, simTo = 0, realFrom = 0, realTo = 0;
    // compressed reports whether the gap plays faster than real time (an idle stretch crossed).
    bool compressed() const { return simTo - simFrom > realTo - realFrom; }
};

class Pace {
public:
    Pace() = default;
    // follow makes the pace of a view [from, to] with a request at each of `instants` (any order,
    // repeats allowed; those outside the view ignored). The knots are from, each distinct instant
    // strictly inside, and to; each gap g between knots plays in clamp(g, min, max) of real time.
    // lengthNanos > 0 scales the whole to that real length; 0 takes the natural length, scaled
    // down to rule.maxTotalNanos when longer.
    static Pace follow(std::vector<Nanos> instants, Nanos from, Nanos to, Nanos lengthNanos = 0, PaceRule rule = {});

    // realLength is the real time the whole view takes to play.
    Nanos realLength() const { return m_real.empty() ? 0 : m_real.back(); }
    // simAt returns the simulated time reached after `real` of playing: linear inside a gap,
    // rounded down; from before 0, to after realLength().
    Nanos simAt(Nanos real) const;
    // realAt returns the real time at which playing reaches simulated time `sim`, rounded up, so
    // simAt(realAt(sim)) >= sim: resuming from a playhead never moves it back.
    Nanos realAt(Nanos sim) const;
    // segmentAt returns the gap that simulated time `sim` lies in (the last one starting at or
    // before it; the first before the view).
    PaceSegment segmentAt(Nanos sim) const;
    std::size_t segmentCount() const { return m_sim.empty() ? 0 : m_sim.size() - 1; }
    PaceSegment segment(std::size_t i) const { return {m_sim[i], m_sim[i + 1], m_real[i], m_real[i + 1]}; }

private:
    std::vector<Nanos> m_sim;  // the knots in simulated time, strictly increasing
    std::vector<Nanos> m_real; // when each is reached in real time, from 0, non-decreasing
};

} // namespace ratelab
