// Pace maps real playback time to simulated time so that playback follows the requests:
// each gap between consecutive requests is played in real time, but never faster than one request
// per PaceRule::minStepNanos (a burst's requests, at one instant or 1 ms apart, can be followed one
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

// PacePosition is where playing stands: the simulated time, and how many of the instants (in
// time order, repeats counted) have been reached: at one instant they are reached one by one.
struct PacePosition {
    Nanos sim = 0;
    std::size_t reached = 0;
    friend bool operator==(const PacePosition&, const PacePosition&) = default;
};

// PaceSegment is one gap: simulated [simFrom, simTo] played over real [realFrom, realTo]; a gap
// between two requests at one instant has simFrom == simTo.
struct PaceSegment {
    Nanos simFrom = 0, simTo = 0, realFrom = 0, realTo = 0;
    // compressed reports whether the gap plays faster than real time (an idle stretch crossed).
    bool compressed() const { return simTo - simFrom > realTo - realFrom; }
};

class Pace {
public:
    Pace() = default;
    // follow makes the pace of a view [from, to] with a request at each of `instants` (any order;
    // an instant repeated is as many requests; those outside [from, to) ignored). The knots are
    // from (nothing reached yet), each instant in time order, and to; each gap g between
    // consecutive knots plays in clamp(g, min, max) of real time, so requests at one instant
    // come min apart. lengthNanos > 0 scales the whole to that real length; 0 takes the natural
    // length, scaled down to rule.maxTotalNanos when longer.
    static Pace follow(std::vector<Nanos> instants, Nanos from, Nanos to, Nanos lengthNanos = 0, PaceRule rule = {});

    // realLength is the real time the whole view takes to play.
    Nanos realLength() const { return m_real.empty() ? 0 : m_real.back(); }
    // at returns the position after `real` of playing: simulated time linear inside a gap,
    // rounded down; from before 0, to after realLength() with every instant reached.
    PacePosition at(Nanos real) const;
    Nanos simAt(Nanos real) const { return at(real).sim; }
    // realAt returns the real time at which playing reaches a position, rounded up, so
    // at(realAt(p)) is never behind p: resuming from a playhead never moves it back. `reached` is
    // taken between the instants before p.sim and those at or before it.
    Nanos realAt(PacePosition p) const;
    // realAt(sim) is the time the first instant at sim is reached (or sim, between instants).
    Nanos realAt(Nanos sim) const { return realAt(PacePosition{sim, instantsBefore(sim)}); }
    // instantsBefore counts the instants strictly before sim.
    std::size_t instantsBefore(Nanos sim) const;
    std::size_t instantCount() const { return m_sim.size() < 2 ? 0 : m_sim.size() - 2; }
    // segmentAt returns the gap that simulated time `sim` lies in (the last one starting at or
    // before it; the first before the view).
    PaceSegment segmentAt(Nanos sim) const;
    std::size_t segmentCount() const { return m_sim.empty() ? 0 : m_sim.size() - 1; }
    PaceSegment segment(std::size_t i) const { return {m_sim[i], m_sim[i + 1], m_real[i], m_real[i + 1]}; }

private:
    std::vector<Nanos> m_sim;  // the knots in simulated time: from, the instants, to (non-decreasing)
    std::vector<Nanos> m_real; // when each is reached in real time, from 0, non-decreasing
};

} // namespace ratelab
