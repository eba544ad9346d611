// The server behind the limiter (semantics.md, "The server behind the limiter"): W workers, a
// FIFO queue of capacity Q with a queue timeout q, a service time per attempt drawn from the
// seed and the attempt's identity, and the client's timeout T after which it gives up on an
// attempt (and retries by its policy) while the server, which does not know, still serves it.
#pragma once

#include "arithmetic/nanos.h"
#include "arithmetic/threads.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

enum class ServiceKind : std::uint8_t { Constant, Exponential, Lognormal, File };

// ServiceTime is how long a worker takes: a constant, an exponential of mean `nanos`, a
// lognormal of median `nanos` and shape `sigma` (of the underlying normal), or (File) each
// request's own time from the arrivals file's `service` column, the same for every attempt of
// it (a retry asks for the same work); File has no `nanos` of its own.
struct ServiceTime {
    ServiceKind kind = ServiceKind::Exponential;
    Nanos nanos = 50'000'000;
    double sigma = 0;

    friend bool operator==(const ServiceTime&, const ServiceTime&) = default;
};

// kNoTimeout is a queue timeout or a client timeout that never fires.
inline constexpr Nanos kNoTimeout = kMaxNanos;

// ServerOptions are the raw values; ServerConfig::make checks them.
struct ServerOptions {
    std::int64_t workers = 8;        // 0: unbounded (every attempt in service at once)
    ServiceTime service;
    std::int64_t queue = 100;        // waiting room; 0: none (a busy server refuses)
    Nanos queueTimeout = kNoTimeout; // a request waiting this long leaves the queue unserved
    Nanos clientTimeout = kNoTimeout; // the client gives up on an attempt this long after it reached the server

    friend bool operator==(const ServerOptions&, const ServerOptions&) = default;
};

// ServerConfig is a validated ServerOptions.
class ServerConfig {
public:
    static constexpr std::int64_t kMaxWorkers = 1'000'000;
    static constexpr std::int64_t kMaxQueue = 10'000'000;
    static constexpr Nanos kMaxMeanService = 3600 * kNanosPerSecond; // exponential mean, constant
    static constexpr Nanos kMaxMedianService = 10 * kNanosPerSecond; // lognormal median
    static constexpr double kMaxSigma = 2.0;

    // make throws InputError naming the first value out of range; the bounds keep every drawn
    // service time inside Nanos, so none is ever clamped.
    static ServerConfig make(const ServerOptions& o);
    // parse reads "workers=8,service=exp:50ms,queue=100,queue_timeout=1s,timeout=2s" (each key
    // optional; service const:D, exp:MEAN, lognormal:MEDIAN:SIGMA or file; workers and timeouts take
    // "inf"/"none"). It throws InputError naming the key.
    static ServerConfig parse(std::string_view text);
    // text writes the config in parse's grammar, every key named.
    std::string text() const;

    const ServerOptions& options() const { return m_o; }
    bool unboundedWorkers() const { return m_o.workers == 0; }

    ServerConfig() = default;
    friend bool operator==(const ServerConfig& a, const ServerConfig& b) { return a.m_o == b.m_o; }

private:
    ServerOptions m_o;
};

// serviceNanos returns attempt `attempt` of request `request`'s service time: a draw from the
// seed and that identity alone (never the order of events), so every row serves the same
// attempt in the same time. Rounded up to the ns. File has no draw: the caller reads the
// request's time from the arrivals (ServerStage::useRequests); here it returns 0.

Nanos serviceNanos(const ServiceTime& s, std::uint64_t seed, std::int64_t request, std::int32_t attempt);

// firstServiceDraws returns serviceNanos(s, seed, i, 0) for each request i in [0, n): the first
// attempts' service times, drawn once for every row and frame that serves the same requests
// (ServerStage::useRequests). A draw costs a logarithm; a million of them are tens of
// milliseconds that a drag of the workers would otherwise pay every frame. Empty for File.
std::vector<Nanos> firstServiceDraws(const ServiceTime& s, std::uint64_t seed, std::size_t n, Threads threads);

// serviceText writes a service time in parse's grammar ("exp:50ms").
std::string serviceText(const ServiceTime& s);

} // namespace ratelab
