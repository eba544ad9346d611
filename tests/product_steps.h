// Products' decision tables, shared by their tests: a config from the product's own options, and
// the check of a table's every field, on copies too: `remaining` more requests at t pass and one
// more does not (where it is small enough to try); a denied request's retry_after admits at t + d
// and not at t + d - 1 ns.
#pragma once

#include "limiters/any_limiter.h"
#include "limiter_steps.h"

#include "limiters/products/product.h"

#include <string>
#include <utility>
#include <vector>

namespace productsteps {

using Options = std::vector<std::pair<std::string, std::string>>;

// with is a config of nothing but the product's own options.
inline ratelab::LimiterConfig with(const Options& options)
{
    std::vector<ratelab::ProductOption> out;
    for (const auto& [name, value] : options)
        out.push_back({name, value});
    return ratelab::LimiterConfig{}.withProductOptions(std::move(out));
}

// check feeds the steps' times to product a and returns the first disagreement with the table
// (empty when there is none).
inline QString check(ratelab::Algorithm a, const ratelab::LimiterConfig& config, const Steps& steps)
{
    using namespace ratelab;
    AnyLimiter limiter = makeLimiter(a, config);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& want = steps[i];
        const Decision got = limiter.decide(want.t);
        const QString where = QStringLiteral("request %1 at %2 ns: ").arg(i).arg(want.t);
        if (got.allowed != want.allowed)
            return where + (got.allowed ? "admitted, expected denied" : "denied, expected admitted");
        if (got.remaining != want.remaining)
            return where + QStringLiteral("remaining %1, expected %2").arg(got.remaining).arg(want.remaining);
        if (got.retryAfter != want.retryAfter)
            return where + QStringLiteral("retry_after %1 ns, expected %2 ns").arg(got.retryAfter).arg(want.retryAfter);
        if (got.level != want.level)
            return where + QStringLiteral("level %1, expected %2").arg(got.level, 0, 'g', 17).arg(want.level, 0, 'g', 17);
        if (got.remaining < 1000) {
            AnyLimiter copy = limiter;
            for (std::int32_t k = 0; k < got.remaining; ++k)
                if (!copy.decide(want.t).allowed)
                    return where + QStringLiteral("remaining %1, but only %2 more passed").arg(got.remaining).arg(k);
            if (copy.decide(want.t).allowed)
                return where + QStringLiteral("remaining %1, but one more passed").arg(got.remaining);
        }
        if (!got.allowed) {
            if (AnyLimiter(limiter).decide(want.t + got.retryAfter - 1).allowed)
                return where + "1 ns before retry_after already passes";
            if (!AnyLimiter(limiter).decide(want.t + got.retryAfter).allowed)
                return where + "a request at retry_after is denied";
        }
    }
    return {};
}

} // namespace productsteps
