#include "engine/level_lines.h"

#include "arithmetic/decimal.h"

#include <algorithm>
#include <limits>
#include <variant>

namespace ratelab {

namespace {

constexpr Nanos kNever = std::numeric_limits<Nanos>::min();

// FlooredSteps gives start + floor(span * j / m) for j = 1, 2, ... (span >= 0, m > 0) without a
// division a step: for span = q * m + r (0 <= r < m) that is q * j + (r * j) / m, and the second
// term grows by 0 or 1 a step.
class FlooredSteps {
public:
    FlooredSteps(Nanos start, Nanos span, Nanos m) : m_at(start), m_q(span / m), m_r(span % m), m_m(m) {}
    Nanos next()
    {
        m_at += m_q;
        m_rest += m_r;
        if (m_rest >= m_m) {
            m_rest -= m_m;
            ++m_at;
        }
        return m_at;
    }

private:
    Nanos m_at, m_q, m_r, m_m, m_rest = 0;
};

} // namespace

LevelRecorder::LevelRecorder(int samples, std::string prefix, int firstNumber, bool numbered)
    : m_samples(std::max(samples, 1)), m_prefix(std::move(prefix)), m_firstNumber(firstNumber), m_numbered(numbered)
{
}

LevelRecorder::Line& LevelRecorder::line(int id)
{
    if (std::size_t(id) >= m_lines.size())
        m_lines.resize(std::size_t(id) + 1);
    return m_lines[std::size_t(id)];
}

void LevelRecorder::sampleUntil(Line& l, Nanos t, Nanos handed, const AnyLimiter& s)
{
    if (l.line.points.empty() || t <= l.lastT || m_samples == 1)
        return;
    const Nanos span = t - l.lastT, handedSpan = handed - l.lastHanded;
    const Nanos t0 = l.lastT, h0 = l.lastHanded;
    // The j-th of m_samples fractions of each span, floored: stepped (FlooredSteps) when the spans
    // are not negative (always: t and the handed time only move on); in 128 bits otherwise.
    std::visit([&](const auto& state) { // one dispatch a span, not one a sample
        if (span >= 0 && handedSpan >= 0) {
            FlooredSteps at(t0, span, m_samples), h(h0, handedSpan, m_samples);
            for (int j = 1; j < m_samples; ++j) {
                const Nanos sampleAt = at.next();
                l.line.points.push_back({sampleAt, state.levelAt(h.next())});
            }
            return;
        }
        for (int j = 1; j < m_samples; ++j) {
            const Nanos sampleAt = t0 + Nanos((Int128(span) * j) / m_samples);
            const Nanos sampleHanded = h0 + Nanos((Int128(handedSpan) * j) / m_samples);
            l.line.points.push_back({sampleAt, state.levelAt(sampleHanded)});
        }
    }, static_cast<const LimiterVariant&>(s));
}

void LevelRecorder::begin(int id, Nanos t, Nanos handed, const AnyLimiter& s)
{
    Line& l = line(id);
    if (l.started)
        return;
    l.started = true;
    l.line.index = id;
    l.line.name = m_prefix + (m_numbered ? std::to_string(id + m_firstNumber) : std::string());
    l.line.points.push_back({t, s.levelAt(handed)});
    l.lastT = t;
    l.lastHanded = handed;
    l.state = &s;
    reach(t);
}

void LevelRecorder::madeNew(int id, Nanos t, Nanos handed, const AnyLimiter& s)
{
    Line& l = line(id);
    if (l.started)
        return;
    l.newAt = KeyLevelPoint{t, s.levelAt(handed)};
    l.newHanded = handed;
}

void LevelRecorder::decisionBefore(int id, Nanos t, Nanos handed, const AnyLimiter& s)
{
    Line& l = line(id);
    if (!l.started) {
        l.started = true;
        l.line.index = id;
        l.line.name = m_prefix + (m_numbered ? std::to_string(id + m_firstNumber) : std::string());
        l.lastHanded = kNever;
        if (l.newAt && l.newAt->t < t) { // the line starts where its state was made new
            l.line.points.push_back(*l.newAt);
            l.lastT = l.newAt->t;
            l.lastHanded = l.newHanded;
        }
    }
    const Nanos h = std::max(l.lastHanded, handed);
    sampleUntil(l, t, h, s);
    l.line.points.push_back({t, s.levelAt(h)});
    l.state = &s;
    reach(t);
}

void LevelRecorder::stepBefore(int id, Nanos t, Nanos handed, const AnyLimiter& s, bool onlyAfterLast)
{
    if (!started(id))
        return;
    Line& l = line(id);
    const Nanos h = std::max(l.lastHanded, handed);
    sampleUntil(l, t, h, s);
    if (!onlyAfterLast || t > l.lastT)
        l.line.points.push_back({t, s.levelAt(h)});
    reach(t);
}

void LevelRecorder::sampleBefore(int id, Nanos t, Nanos handed, const AnyLimiter& s)
{
    if (!started(id))
        return;
    Line& l = line(id);
    sampleUntil(l, t, std::max(l.lastHanded, handed), s);
}

void LevelRecorder::after(int id, Nanos t, Nanos handed, const AnyLimiter& s, bool attempt)
{
    if (!started(id))
        return;
    Line& l = line(id);
    const Nanos at = std::max(t, l.lastT);
    l.lastHanded = std::max(l.lastHanded, handed);
    l.line.points.push_back({at, s.levelAt(l.lastHanded)});
    l.lastT = at;
    l.line.attempts += attempt;
    l.state = &s;
    reach(at);
}

KeyLevels LevelRecorder::finish(std::size_t most)
{
    KeyLevels out;
    std::vector<Line*> used;
    for (Line& l : m_lines)
        if (l.started)
            used.push_back(&l);
    std::stable_sort(used.begin(), used.end(), [](const Line* x, const Line* y) { return x->line.attempts > y->line.attempts; });
    for (std::size_t k = 0; k < used.size(); ++k) {
        if (k >= most) {
            ++out.others;
            continue;
        }
        Line& l = *used[k];
        const Nanos endHanded = l.lastHanded + (m_end - l.lastT);
        sampleUntil(l, m_end, endHanded, *l.state);
        if (m_end > l.lastT)
            l.line.points.push_back({m_end, l.state->levelAt(endHanded)});
        l.line.endState = std::make_shared<const AnyLimiter>(*l.state);
        l.line.endT = std::max(m_end, l.lastT);
        l.line.endHanded = m_end > l.lastT ? endHanded : l.lastHanded;
        out.lines.push_back(std::move(l.line));
    }
    std::sort(out.lines.begin(), out.lines.end(), [](const KeyLevel& x, const KeyLevel& y) { return x.index < y.index; });
    m_lines.clear();
    return out;
}

} // namespace ratelab
