#include "server/server.h"

#include "arithmetic/decimal.h"
#include "arithmetic/det_math.h"

#include <charconv>
#include <cmath>

namespace ratelab {

namespace {

// uniform returns a double in [0, 1) from the top 53 bits of a hash of (seed, request, attempt,
// which draw): splitmix64's finaliser, as the balancer and the jitter hash.
double uniform(std::uint64_t seed, std::int64_t request, std::int32_t attempt, std::uint64_t which)
{
    const std::uint64_t h = hashClient(hashClient(hashClient(seed ^ 0x5e7e7ULL) + std::uint64_t(request))
                                       + (std::uint64_t(std::uint32_t(attempt)) << 24 ^ which));
    return double(h >> 11) * 0x1p-53;
}

Nanos roundUp(double nanos)
{
    return static_cast<Nanos>(std::ceil(nanos)); // bounded by ServerConfig::make: never past kMaxNanos
}

std::string durationText(Nanos d) { return d == kNoTimeout ? "none" : formatSeconds(d) + "s"; }

Nanos timeoutValue(std::string_view key, std::string_view v)
{
    if (v == "none" || v == "inf")
        return kNoTimeout;
    const Nanos d = parseDurationText(v, kNanosPerSecond);
    if (d <= 0)
        throw InputError(std::string(key) + ": must be more than 0 s, or none (got " + quoted(v) + ")");
    return d;
}

ServiceTime parseService(std::string_view v)
{
    if (v == "file") // each request's own time, from the arrivals' service column
        return ServiceTime{ServiceKind::File, 0, 0};
    const auto colon = v.find(':');
    if (colon == std::string_view::npos)
        throw InputError("service: expected const:D, exp:MEAN, lognormal:MEDIAN:SIGMA or file (got " + quoted(v) + ")");
    const std::string_view kind = v.substr(0, colon);
    std::string_view rest = v.substr(colon + 1);
    ServiceTime s;
    if (kind == "const" || kind == "constant")
        s.kind = ServiceKind::Constant;
    else if (kind == "exp" || kind == "exponential")
        s.kind = ServiceKind::Exponential;
    else if (kind == "file")
        throw InputError("service: file takes no time of its own (each request's is its arrivals line's; got "
                         + quoted(v) + ")");
    else if (kind == "lognormal") {
        s.kind = ServiceKind::Lognormal;
        const auto second = rest.find(':');
        if (second == std::string_view::npos)
            throw InputError("service: lognormal takes MEDIAN:SIGMA (got " + quoted(v) + ")");
        const std::string_view sigma = rest.substr(second + 1);
        const auto [end, ec] = std::from_chars(sigma.data(), sigma.data() + sigma.size(), s.sigma);
        if (ec != std::errc() || end != sigma.data() + sigma.size() || !std::isfinite(s.sigma))
            throw InputError("service: lognormal's sigma is not a number (got " + quoted(sigma) + ")");
        rest = rest.substr(0, second);
    } else
        throw InputError("service: unknown distribution " + quoted(kind) + " (known: const, exp, lognormal, file)");
    s.nanos = parseDurationText(rest, kNanosPerSecond);
    return s;
}

} // namespace

ServerConfig ServerConfig::make(const ServerOptions& o)
{
    const auto outside = [](std::string_view what, std::int64_t v, std::int64_t max) {
        if (v < 0 || v > max)
            throw InputError(std::string(what) + ": must be from 0 to " + std::to_string(max) + " (got "
                             + std::to_string(v) + ")");
    };
    outside("workers", o.workers, kMaxWorkers);
    outside("queue", o.queue, kMaxQueue);
    const ServiceTime& s = o.service;
    if (s.kind == ServiceKind::File) {
        if (s.nanos != 0 || s.sigma != 0)
            throw InputError("service: file takes no time of its own (each request's is its arrivals line's)");
    } else if (s.nanos < 0)
        throw InputError("service: must not be negative (got " + formatSeconds(s.nanos) + " s)");
    if (s.kind == ServiceKind::Lognormal) {
        if (s.nanos == 0 || s.nanos > kMaxMedianService)
            throw InputError("service: lognormal's median must be more than 0 s and at most "
                             + formatSeconds(kMaxMedianService) + " s (got " + formatSeconds(s.nanos) + " s)");
        if (!(s.sigma > 0) || s.sigma > kMaxSigma)
            throw InputError("service: lognormal's sigma must be more than 0 and at most 2");
    } else if (s.kind != ServiceKind::File && s.nanos > kMaxMeanService)
        throw InputError("service: must be at most " + formatSeconds(kMaxMeanService) + " s (got "
                         + formatSeconds(s.nanos) + " s)");
    if (o.queueTimeout <= 0)
        throw InputError("queue_timeout: must be more than 0 s, or none");
    if (o.clientTimeout <= 0)
        throw InputError("timeout: must be more than 0 s, or none");
    ServerConfig c;
    c.m_o = o;
    return c;
}

ServerConfig ServerConfig::parse(std::string_view text)
{
    ServerOptions o;
    forEachKeyValue(text, [&](std::string_view key, std::string_view v) {
        if (key == "workers")
            o.workers = v == "inf" ? 0 : parseIntegerIn(v, 1, kMaxWorkers);
        else if (key == "service")
            o.service = parseService(v);
        else if (key == "queue")
            o.queue = parseIntegerIn(v, 0, kMaxQueue);
        else if (key == "queue_timeout")
            o.queueTimeout = timeoutValue(key, v);
        else if (key == "timeout")
            o.clientTimeout = timeoutValue(key, v);
        else
            throw InputError("unknown key " + quoted(key) + " (known: workers, service, queue, queue_timeout, timeout)");
    });
    return make(o);
}

std::string ServerConfig::text() const
{
    return "workers=" + (m_o.workers == 0 ? std::string("inf") : std::to_string(m_o.workers))
           + ",service=" + serviceText(m_o.service) + ",queue=" + std::to_string(m_o.queue)
           + ",queue_timeout=" + durationText(m_o.queueTimeout) + ",timeout=" + durationText(m_o.clientTimeout);
}

std::string serviceText(const ServiceTime& s)
{
    switch (s.kind) {
    case ServiceKind::Constant:
        return "const:" + durationText(s.nanos);
    case ServiceKind::Exponential:
        return "exp:" + durationText(s.nanos);
    case ServiceKind::File:
        return "file";
    case ServiceKind::Lognormal: {
        char sigma[32];
        *std::to_chars(sigma, sigma + 31, s.sigma).ptr = 0;
        return "lognormal:" + durationText(s.nanos) + ":" + sigma;
    }
    }
    return {};
}

Nanos serviceNanos(const ServiceTime& s, std::uint64_t seed, std::int64_t request, std::int32_t attempt)
{
    const double m = double(s.nanos);
    switch (s.kind) {
    case ServiceKind::File: // the request's own, read by the caller
        return 0;
    case ServiceKind::Constant:
        return s.nanos;
    case ServiceKind::Exponential: // inverse transform: -mean * ln(1 - u), u in [0, 1); 1 - u is exact
        return roundUp(-m * detmath::log(1.0 - uniform(seed, request, attempt, 0)));
    case ServiceKind::Lognormal: { // Marsaglia's polar method: z = v1 sqrt(-2 ln s / s), s in (0, 1)
        for (std::uint64_t draw = 0;; draw += 2) {
            const double v1 = 2 * uniform(seed, request, attempt, draw) - 1;
            const double v2 = 2 * uniform(seed, request, attempt, draw + 1) - 1;
            const double w = v1 * v1 + v2 * v2;
            if (w >= 1 || w == 0)
                continue; // outside the unit disc: the next pair (a quarter of pairs, on average)
            const double z = v1 * std::sqrt(-2.0 * detmath::log(w) / w);
            if (std::abs(z) > 9)
                continue; // past 9 sigma (p < 1e-18): drawn again, so sigma <= 2 keeps every time in Nanos
            return roundUp(m * detmath::exp(s.sigma * z));
        }
    }
    }
    return s.nanos;
}

std::vector<Nanos> firstServiceDraws(const ServiceTime& s, std::uint64_t seed, std::size_t n, Threads threads)
{
    if (s.kind == ServiceKind::File)
        return {};
    std::vector<Nanos> draws(n);
    forHalves(n, threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            draws[i] = serviceNanos(s, seed, std::int64_t(i), 0);
    });
    return draws;
}

} // namespace ratelab
