// Shared by the cost tests: a table row with a cost, and a replay that checks every field of each
// decision plus, on copies, that remaining counts cost-1 requests exactly, that retry_after is the
// least wait for a request of the same cost (or "never": no wait helps), and that reset is the
// least wait after which a request costing the whole quota is admitted.
#pragma once

#include "limiter_steps.h"

// CostStep is one request of a table: its time, cost and the decision expected for it.
struct CostStep {
    Nanos t = 0;
    std::int64_t cost = 1;
    bool allowed = false;
    std::int32_t remaining = 0;
    Nanos retryAfter = 0;
    double level = 0;
    Nanos delay = 0;
};
using CostSteps = std::vector<CostStep>;
Q_DECLARE_METATYPE(CostStep)

inline CostStep pass(Nanos t, std::int64_t cost, std::int32_t remaining, double level, Nanos delay = 0)
{
    return CostStep{t, cost, true, remaining, 0, level, delay};
}
inline CostStep fail(Nanos t, std::int64_t cost, Nanos retryAfter, std::int32_t remaining, double level)
{
    return CostStep{t, cost, false, remaining, retryAfter, level, 0};
}
inline CostStep never(Nanos t, std::int64_t cost, std::int32_t remaining, double level)
{
    return CostStep{t, cost, false, remaining, ratelab::kRetryNever, level, 0};
}

// costRetryProblem checks on copies that retry_after is exact for a request of `cost`.
template <typename L>
QString costRetryProblem(const L& limiter, Nanos t, std::int64_t cost, const Decision& d)
{
    if (d.retryNever()) {
        L later = limiter;
        const Decision again = later.decide(t + sec(1'000'000), cost);
        return again.allowed || !again.retryNever() ? QStringLiteral("never, but a million s later it was not")
                                                    : QString();
    }
    if (d.retryAfter <= 0)
        return QStringLiteral("denied with retry_after %1").arg(d.retryAfter);
    if (limiter.waitFor(t, cost) != d.retryAfter)
        return QStringLiteral("waitFor %1 differs from retry_after %2").arg(limiter.waitFor(t, cost)).arg(d.retryAfter);
    L sooner = limiter;
    if (sooner.decide(t + d.retryAfter - 1, cost).allowed)
        return QStringLiteral("retry_after %1 ns, but 1 ns sooner was already admitted").arg(d.retryAfter);
    L then = limiter;
    if (!then.decide(t + d.retryAfter, cost).allowed)
        return QStringLiteral("retry_after %1 ns, but a request then was denied").arg(d.retryAfter);
    return {};
}

// resetProblem checks that reset(t) is the least wait for a request costing the whole quota.
template <typename L>
QString resetProblem(const L& limiter, Nanos t)
{
    Nanos r = 0;
    if constexpr (ratelab::Limiter<L>)
        r = resetOf(limiter, t);
    else
        r = limiter.reset(t); // a layered policy's own
    L then = limiter;
    if (!then.decide(t + r, limiter.quota()).allowed)
        return QStringLiteral("reset %1 ns, but the full quota was not admitted then").arg(r);
    L sooner = limiter;
    if (r > 0 && sooner.decide(t + r - 1, limiter.quota()).allowed)
        return QStringLiteral("reset %1 ns, but 1 ns sooner the full quota was admitted").arg(r);
    return {};
}

// costProblem checks one decision against the limiter it came from (state after the decision).
template <typename L>
QString costProblem(const L& limiter, Nanos t, std::int64_t cost, const Decision& got)
{
    if (limiter.remainingAt(t) != got.remaining)
        return QStringLiteral("remainingAt %1 differs from remaining %2").arg(limiter.remainingAt(t)).arg(got.remaining);
    QString problem = remainingProblem(limiter, t, got.remaining);
    if (problem.isEmpty() && !got.allowed)
        problem = costRetryProblem(limiter, t, cost, got);
    if (problem.isEmpty())
        problem = resetProblem(limiter, t);
    return problem;
}

// replayCosts feeds the steps to the limiter and returns the first disagreement (empty if none).
template <typename L>
QString replayCosts(L& limiter, const CostSteps& steps)
{
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const CostStep& want = steps[i];
        const Decision got = limiter.decide(want.t, want.cost);
        const QString where = QStringLiteral("request %1 (cost %2) at %3: ").arg(i).arg(want.cost).arg(at(want.t));
        QString problem = decisionProblem(limiter, want, got);
        if (problem.isEmpty())
            problem = costProblem(limiter, want.t, want.cost, got);
        if (!problem.isEmpty())
            return where + problem;
    }
    return {};
}
