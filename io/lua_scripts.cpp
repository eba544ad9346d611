// The scripts' texts and the range where they are exact: what `ratelab lua` prints and what the
// Redis backend checks before a run. Neither needs a connection, so both are built with or
// without hiredis.
#include "redis_store.h"

#include "arithmetic/text.h"

#include <QFile>

namespace ratelab::io {

std::string luaScript(Algorithm algorithm)
{
    QFile f(QStringLiteral(":/lua/%1.lua").arg(QString::fromUtf8(algorithmId(algorithm).data())));
    QFile checks(QStringLiteral(":/lua/checks.lua"));
    if (!f.open(QIODevice::ReadOnly) || !checks.open(QIODevice::ReadOnly))
        throw RedisError("the Lua script of " + std::string(algorithmId(algorithm)) + " is missing from the build");
    std::string text = f.readAll().toStdString();
    const std::string marker = "-- @CHECKS@\n";
    if (const auto at = text.find(marker); at != std::string::npos)
        text.replace(at, marker.size(), checks.readAll().toStdString());
    return text;
}

namespace {

// refuseInexact refuses a run whose script would form `what` (its value `value`) past the doubles'
// exact integers.
[[noreturn]] void refuseInexact(const std::string& id, const std::string& what, Int128 value)
{
    throw InputError("redis backend: " + id + " would form " + what + " = " + integerText(value)
                     + ", at or above 2^53 = 9007199254740992, where its Lua script (doubles) is no longer exact");
}

} // namespace

void checkLuaDomain(Algorithm algorithm, const LimiterConfig& config, Nanos maxClock, std::int64_t maxCost)
{
    const bool costly = maxCost > 1;
    const Int128 bound = kLuaExactBound;
    const std::string id(algorithmId(algorithm));
    const auto refuse = [&id](const std::string& what, Int128 value) { refuseInexact(id, what, value); };
    if (maxClock >= bound)
        refuse("the time in ns", maxClock);
    const Int128 w = config.windowNanos(), limit = config.limit(), c = config.capacity();
    const Int128 tokens = config.rate().tokens, per = config.rate().perNanos;
    switch (algorithm) {
    case Algorithm::NginxLimitReq:
        throw InputError("redis backend: nginx_limit_req has no Lua script (it is nginx's own module)");
    case Algorithm::ExpressRateLimit:
    case Algorithm::RateLimiterFlexible:
    case Algorithm::PythonLimits:
    case Algorithm::Guava:
    case Algorithm::EnvoyLocal:
    case Algorithm::Traefik:
    case Algorithm::SpringGateway:
    case Algorithm::Kong:
    case Algorithm::RedisCell:
    case Algorithm::NodeLimiter:
    case Algorithm::UpstashRatelimit:
    case Algorithm::CloudflareRate:
    case Algorithm::AwsWafRate:
    case Algorithm::AwsApiGateway:
        throw InputError("redis backend: " + id + " has no RateLab Lua script (it is a product model)");
    case Algorithm::FixedWindow:
    case Algorithm::SlidingWindowLog:
        if (w >= bound)
            refuse("the window in ns", w);
        break;
    case Algorithm::SlidingWindowCounter:
        if (costly && (2 * limit + 1) * w >= bound)
            refuse("(2 * limit + 1) * window in ns (a cost above 1)", (2 * limit + 1) * w);
        if ((limit + 1) * w >= bound)
            refuse("(limit + 1) * window in ns", (limit + 1) * w);
        break;
    case Algorithm::TokenBucket:
        if (c * per + tokens >= bound)
            refuse("capacity * rate denominator + rate numerator", c * per + tokens);
        break;
    case Algorithm::LeakyBucket:
    case Algorithm::LeakyBucketQueue:
        if (costly && 2 * c * per >= bound)
            refuse("2 * capacity * rate denominator (a cost above 1)", 2 * c * per);
        if ((c + 1) * per >= bound)
            refuse("(capacity + 1) * rate denominator", (c + 1) * per);
        break;
    case Algorithm::Gcra:
        if (costly && Int128(maxClock) * tokens + 2 * c * per >= bound)
            refuse("time * rate numerator + 2 * capacity * rate denominator (a cost above 1)",
                   Int128(maxClock) * tokens + 2 * c * per);
        if (Int128(maxClock) * tokens + (c + 1) * per >= bound)
            refuse("time * rate numerator + (capacity + 1) * rate denominator", Int128(maxClock) * tokens + (c + 1) * per);
        break;
    }
}

} // namespace ratelab::io
