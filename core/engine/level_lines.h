// Level lines: the level of each state a row's limiter keeps, recorded by the engine's store as
// it changes them (semantics.md, "Cluster" and "Clients that react"): one line per node of a
// local, split or hybrid cluster, one for the store of a shared or racy one, one per client key,
// or the one state of a row that starts empty or changes its limit. The store (store.h) tells
// the recorder each time a drawn state is decided on, takes a limit change, is made new (a node
// coming up), is synced (hybrid) or takes a write (racy, a round trip after its read), so a line
// is the engine's own state at every step: no rule is replayed beside the engine.
//
// Between two steps a line is sampled on the state as it stood (levelAt is pure), so refills and
// window resets show; a vertical step is two points at one time.
#pragma once

#include "arithmetic/nanos.h"
#include "limiters/any_limiter.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ratelab {

// KeyLevelPoint is the level of a line at a true time.
struct KeyLevelPoint {
    Nanos t = 0;
    double level = 0;
};

// KeyLevel is one line: what holds the state ("node 2", "store", "client 7"), how many attempts
// it decided (a racy store: the writes it took), and its level over time, non-decreasing in t.
struct KeyLevel {
    std::string name;
    int index = 0; // the node or client: a colour each
    std::int64_t attempts = 0;
    std::vector<KeyLevelPoint> points;
    // The state as it stood at the line's last point (true time endT, its clock's endHanded):
    // the level goes on from it after the last attempt (a bucket refills, a window rolls), so a
    // view that runs past the attempts draws the line to its edge (view/reduce.h, levelAfter).
    std::shared_ptr<const AnyLimiter> endState;
    Nanos endT = 0, endHanded = 0;
};

// KeyLevels are the lines drawn: the busiest `most` states by attempts (in index order), and how
// many more there were.
struct KeyLevels {
    std::vector<KeyLevel> lines;
    std::int64_t others = 0;
};

// LevelLineSetup asks the engine for a row's lines: keep the `most` busiest, sampled `samples`
// times between two steps of a line (one: no sample between).
struct LevelLineSetup {
    std::size_t most = 8;
    int samples = 24;
    std::int64_t mostAttempts = 200'000; // past this many attempts a row draws no lines
};

// LevelRecorder is where the store writes the lines. Line ids are the node (node lines), the
// client key (client lines), or 0 (the store, the one level).
class LevelRecorder {
public:
    // The names are prefix + (id + firstNumber): "node " + 1, "client " + 0, "store" + nothing.
    LevelRecorder(int samples, std::string prefix, int firstNumber, bool numbered);

    // decisionBefore draws line `id` up to a decision at t on state s handed `handed`: sampled
    // since its last step, then the level before. A line's first decision starts it (after the
    // start its state was made new at, when that came before).
    void decisionBefore(int id, Nanos t, Nanos handed, const AnyLimiter& s);
    // stepBefore draws a started line up to a step at t (a change, a sync, a write): sampled,
    // then the level before unless `onlyAfterLast` and t is not after the last step.
    void stepBefore(int id, Nanos t, Nanos handed, const AnyLimiter& s, bool onlyAfterLast = false);
    // sampleBefore samples a started line up to t, without the level at t (a state made new).
    void sampleBefore(int id, Nanos t, Nanos handed, const AnyLimiter& s);
    // after draws the level of a started line after its step at t (at the last step's time if
    // that is later); `attempt` counts it as one the state decided.
    void after(int id, Nanos t, Nanos handed, const AnyLimiter& s, bool attempt);
    // begin starts line `id` at t unless it is started (a racy store's line starts at the first read).
    void begin(int id, Nanos t, Nanos handed, const AnyLimiter& s);
    // madeNew keeps where a line not started yet was made new (a node coming up): it starts there.
    void madeNew(int id, Nanos t, Nanos handed, const AnyLimiter& s);
    // expect makes room in line `id` for `attempts` decisions' points, as many as they draw when
    // each comes after the last: no copy of the points as the line grows.
    void expect(int id, std::size_t attempts)
    {
        line(id).line.points.reserve(attempts * std::size_t(m_samples + 1) + 2);
    }
    // reach extends every line to at least t (an attempt's time).
    void reach(Nanos t) { m_end = std::max(m_end, t); }
    bool started(int id) const { return std::size_t(id) < m_lines.size() && m_lines[std::size_t(id)].started; }
    Nanos end() const { return m_end; }

    // finish carries every line to the last time reached on its state now and keeps the busiest.
    KeyLevels finish(std::size_t most);

private:
    struct Line {
        KeyLevel line;
        bool started = false;
        Nanos lastT = 0, lastHanded = 0;
        const AnyLimiter* state = nullptr; // the state as the store holds it, for the end
        std::optional<KeyLevelPoint> newAt; // made new before its first decision
        Nanos newHanded = 0;
    };
    Line& line(int id);
    void sampleUntil(Line& l, Nanos t, Nanos handed, const AnyLimiter& s);

    int m_samples;
    std::string m_prefix;
    int m_firstNumber;
    bool m_numbered;
    std::vector<Line> m_lines;
    Nanos m_end = 0;
};

} // namespace ratelab
