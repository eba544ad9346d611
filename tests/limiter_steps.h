// Shared by the per-limiter tests: readable times, tables of expected decisions, and a replay
// that checks every field of every decision against a table derived by hand from semantics.md.
//
// Limiters are copyable value types, so the replay also asks copies "what if more requests came
// at t" (is `remaining` exact?) and "what if one came at t + retry_after, or 1 ns sooner?" (is
// `retry_after` the least such d?) without disturbing the limiter being replayed.
#pragma once

#include "limiters/limiters.h"

#include <QMetaType>
#include <QString>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using ratelab::Decision;
using ratelab::LimiterConfig;
using ratelab::Nanos;
using ratelab::Rate;

// Readable times: every table time is an exact integer count of nanoseconds.
constexpr Nanos ns(std::int64_t n) { return n; }
constexpr Nanos ms(std::int64_t n) { return n * 1'000'000; }
constexpr Nanos sec(std::int64_t n) { return n * ratelab::kNanosPerSecond; }

// Step is one request of a table: its time and the decision expected for it.
struct Step {
    Nanos t = 0;
    bool allowed = false;
    std::int32_t remaining = 0;
    Nanos retryAfter = 0;
    double level = 0;
    Nanos delay = 0;
};
using Steps = std::vector<Step>;

// admitted is a row for an admitted request (retry_after 0; delay only for the queue).
inline Step admitted(Nanos t, std::int32_t remaining, double level, Nanos delay = 0)
{
    return Step{t, true, remaining, 0, level, delay};
}

// denied is a row for a denied request (remaining 0, delay 0).
inline Step denied(Nanos t, Nanos retryAfter, double level) { return Step{t, false, 0, retryAfter, level, 0}; }

// Probe is an expected levelAt(t) after a run of requests.
struct Probe {
    Nanos t = 0;
    double level = 0;
};
using Probes = std::vector<Probe>;

Q_DECLARE_METATYPE(Step)
Q_DECLARE_METATYPE(Probe)
Q_DECLARE_METATYPE(ratelab::LimiterConfig)

// config is LimiterConfig::make with the defaults capacity = limit and rate = limit / window.
inline LimiterConfig config(std::int64_t limit, Nanos window) { return LimiterConfig::make(limit, window); }

// sameLevel compares levels, which are doubles made from exact integers: equal to 1e-12 relative
// (absolute below 1), so 1 ns of refill (1e-9 tokens at 1/s) is still told apart from nothing.
inline bool sameLevel(double got, double want)
{
    return std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want));
}

inline QString at(Nanos t) { return QString::fromStdString(ratelab::formatSeconds(t)) + " s"; }

// remainingProblem checks on a copy that exactly `remaining` more requests at t are admitted.
template <typename L>
QString remainingProblem(L copy, Nanos t, std::int32_t remaining)
{
    if (remaining > 100'000)
        return {};
    for (std::int32_t k = 0; k < remaining; ++k)
        if (!copy.decide(t).allowed)
            return QStringLiteral("remaining %1, but only %2 more were admitted").arg(remaining).arg(k);
    if (copy.decide(t).allowed)
        return QStringLiteral("remaining %1, but %2 more were admitted").arg(remaining).arg(remaining + 1);
    return {};
}

// retryProblem checks on copies that one request at t + d is admitted and one at t + d - 1 ns is not.
template <typename L>
QString retryProblem(const L& limiter, Nanos t, Nanos d)
{
    if (d <= 0)
        return QStringLiteral("denied with retry_after %1").arg(d);
    L sooner = limiter;
    if (sooner.decide(t + d - 1).allowed)
        return QStringLiteral("retry_after %1 ns, but 1 ns sooner was already admitted").arg(d);
    L then = limiter;
    if (!then.decide(t + d).allowed)
        return QStringLiteral("retry_after %1 ns, but a request then was denied").arg(d);
    return {};
}

// decisionProblem compares a decision with the step the table expects (a Step or a CostStep)
// field by field, and levelAt(t) right after it with its level; it returns the first difference
// (empty when there is none).
template <typename L, typename W>
QString decisionProblem(const L& limiter, const W& want, const Decision& got)
{
    if (got.allowed != want.allowed)
        return got.allowed ? "admitted, expected denied" : "denied, expected admitted";
    if (got.remaining != want.remaining)
        return QStringLiteral("remaining %1, expected %2").arg(got.remaining).arg(want.remaining);
    if (got.retryAfter != want.retryAfter)
        return QStringLiteral("retry_after %1 ns, expected %2 ns").arg(got.retryAfter).arg(want.retryAfter);
    if (got.delay != want.delay)
        return QStringLiteral("delay %1 ns, expected %2 ns").arg(got.delay).arg(want.delay);
    if (!sameLevel(got.level, want.level))
        return QStringLiteral("level %1, expected %2").arg(got.level, 0, 'g', 17).arg(want.level, 0, 'g', 17);
    if (!sameLevel(limiter.levelAt(want.t), got.level))
        return QStringLiteral("levelAt(t) %1 differs from the decision's level").arg(limiter.levelAt(want.t));
    return {};
}

// replay feeds the steps' times to the limiter and returns the first disagreement with the table
// (empty when there is none). Besides the fields it checks that levelAt(t) right after a request
// reports the decision's level, and the remaining / retry_after probes above.
template <typename L>
QString replay(L& limiter, const Steps& steps)
{
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& want = steps[i];
        const Decision got = limiter.decide(want.t);
        const QString where = QStringLiteral("request %1 at %2: ").arg(i).arg(at(want.t));
        QString problem = decisionProblem(limiter, want, got);
        if (problem.isEmpty())
            problem = got.allowed ? remainingProblem(limiter, want.t, got.remaining)
                                  : retryProblem(limiter, want.t, got.retryAfter);
        if (!problem.isEmpty())
            return where + problem;
    }
    return {};
}

// sameDecision compares two decisions field by field.
inline bool sameDecision(const Decision& a, const Decision& b)
{
    return a.allowed == b.allowed && a.remaining == b.remaining && a.retryAfter == b.retryAfter && a.delay == b.delay
        && a.level == b.level;
}

// levelProblem runs the requests, checks each probe's levelAt, and then checks that probing
// (however far ahead) left the state alone: the probed limiter and an unprobed copy decide a
// request at the last request time, and one at the last probe time, identically.
template <typename L>
QString levelProblem(L& limiter, const std::vector<Nanos>& requests, const Probes& probes)
{
    for (Nanos t : requests)
        limiter.decide(t);
    L unprobed = limiter;
    Nanos latest = requests.back();
    for (const Probe& p : probes) {
        const double got = limiter.levelAt(p.t);
        if (!sameLevel(got, p.level))
            return QStringLiteral("levelAt(%1) is %2, expected %3").arg(at(p.t)).arg(got, 0, 'g', 17).arg(p.level, 0, 'g', 17);
        limiter.levelAt(p.t + sec(1000));
        latest = std::max(latest, p.t);
    }
    for (Nanos t : {requests.back(), latest})
        if (!sameDecision(limiter.decide(t), unprobed.decide(t)))
            return QStringLiteral("after levelAt, a request at %1 was decided differently").arg(at(t));
    return {};
}

// addDecisionColumns declares the columns of a decisions_data() table: config, steps.
inline void addDecisionColumns()
{
    QTest::addColumn<LimiterConfig>("config");
    QTest::addColumn<Steps>("steps");
}

// checkDecisions is the body of a decisions() test: a fresh L replays the row's steps.
template <typename L>
void checkDecisions()
{
    QFETCH(LimiterConfig, config);
    QFETCH(Steps, steps);
    L limiter(config);
    const QString problem = replay(limiter, steps);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

// addLevelColumns declares the columns of a levelAt_data() table: config, requests, probes.
inline void addLevelColumns()
{
    QTest::addColumn<LimiterConfig>("config");
    QTest::addColumn<std::vector<Nanos>>("requests");
    QTest::addColumn<Probes>("probes");
}

// checkLevels is the body of a levelAt() test: a fresh L probed between the row's requests.
template <typename L>
void checkLevels()
{
    QFETCH(LimiterConfig, config);
    QFETCH(std::vector<Nanos>, requests);
    QFETCH(Probes, probes);
    L limiter(config);
    const QString problem = levelProblem(limiter, requests, probes);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}
