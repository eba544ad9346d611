// Clients that react: many clients, one limiter per key, and retries of denied attempts.
//
// The arrivals are first attempts. Request i belongs to client i mod K unless the caller names
// each request's client. Each key (one per client with KeyMode::Client, one for all with
// KeyMode::Global) has its own limiter. A denied attempt is retried by the client's policy, at
// most maxRetries times, so arrivals are no longer fixed in advance: the simulation is driven by a
// queue of attempts (first attempts plus scheduled retries), decided in time order and, at the
// same instant, in the order they were created (first attempts in arrival order, then retries in
// the order of the denials that made them). See semantics.md, "Clients that react".
//
// The engine (engine.h, runRow) runs them. With RetryPolicy::None and one client every result
// equals simulateOne.
#pragma once

#include "limiters/config.h"
#include "limiters/limiter.h"
#include "arithmetic/nanos.h"
#include "traffic/pattern.h"
#include "engine/simulator.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

enum class KeyMode : std::uint8_t { Client, Global };
enum class RetryPolicy : std::uint8_t { None, Immediate, RetryAfter, RetryAfterHeader, Backoff };
// Jitter is how backoff spreads its delay d = min(cap, base * 2^a) (semantics.md, "Fleets and
// storms"): full u*d, equal d/2 + u*d/2, decorrelated min(cap, base + u*(3*prev - base)), none d.
enum class Jitter : std::uint8_t { Full, Equal, Decorrelated, None };
inline constexpr Jitter kAllJitters[] = {Jitter::Full, Jitter::Equal, Jitter::Decorrelated, Jitter::None};
std::string_view jitterId(Jitter j);
std::optional<Jitter> jitterFromId(std::string_view id);

inline constexpr RetryPolicy kAllRetryPolicies[] = {RetryPolicy::None, RetryPolicy::Immediate, RetryPolicy::RetryAfter,
                                                    RetryPolicy::RetryAfterHeader, RetryPolicy::Backoff};

// The ids used by the CLI and JSON: "client" / "global"; "none", "immediate", "retry_after",
// "retry_after_header", "backoff".
std::string_view keyModeId(KeyMode k);
std::optional<KeyMode> keyModeFromId(std::string_view id);
std::string_view retryPolicyId(RetryPolicy p);
std::optional<RetryPolicy> retryPolicyFromId(std::string_view id);

// Cohort is a group of clients with a retry policy of their own (a scenario mixes
// well-behaved and tight-loop clients). Clients are numbered cohort by cohort: the first
// `clients` ids belong to the first cohort, and so on.
struct Cohort {
    std::int64_t clients = 1;
    RetryPolicy retry = RetryPolicy::None;
    Nanos retryDelayNanos = 0;
    std::int64_t maxRetries = 3;
    Nanos backoffBaseNanos = kNanosPerSecond / 10;
    Nanos backoffCapNanos = 10 * kNanosPerSecond;
    Jitter jitter = Jitter::Full;

    friend bool operator==(const Cohort&, const Cohort&) = default;
};

// ClientOptions are the raw values; ClientConfig::make checks them.
struct ClientOptions {
    std::int64_t clients = 1;
    KeyMode key = KeyMode::Client;
    RetryPolicy retry = RetryPolicy::None;
    Nanos retryDelayNanos = 0;                  // immediate: t + retry_delay
    std::int64_t maxRetries = 3;                // retries after the first attempt
    Nanos backoffBaseNanos = kNanosPerSecond / 10; // backoff: base * 2^a ...
    Nanos backoffCapNanos = 10 * kNanosPerSecond;  // ... capped at cap
    std::uint64_t seed = 1;                     // backoff: the jitter draws
    Jitter jitter = Jitter::Full;               // backoff: how the delay is spread
    // Cohorts, when given, hold every client (their sizes add up to `clients`), each with its own
    // policy; the policy fields above are then the first cohort's.
    std::vector<Cohort> cohorts;

    friend bool operator==(const ClientOptions&, const ClientOptions&) = default;
};

// ClientConfig is a validated ClientOptions: it can only be made through make.
class ClientConfig {
public:
    static constexpr std::int64_t kMaxClients = kMaxScenarioClients;
    static constexpr std::int64_t kMaxRetries = 100;

    // make throws InputError naming the first value out of range: clients 1..kMaxClients, retry
    // delay >= 0, max retries 0..kMaxRetries, backoff base and cap > 0.
    static ClientConfig make(const ClientOptions& o);
    // kMaxKeys bounds keyed: every key of a log its own state (replay on the engine).
    static constexpr std::int64_t kMaxKeys = 1'000'000;
    // keyed returns `keys` clients with a key each and no retries: the keys of a log, each request
    // already its key's (the log holds its retries). It throws InputError past kMaxKeys.
    static ClientConfig keyed(std::int64_t keys);

    const ClientOptions& options() const { return m_o; }
    std::int64_t clients() const { return m_o.clients; }
    KeyMode key() const { return m_o.key; }
    RetryPolicy retry() const { return m_o.retry; }
    // keys is how many limiters the configuration can hold: K per client, 1 global.
    std::int64_t keys() const { return m_o.key == KeyMode::Client ? m_o.clients : 1; }
    // policyOf is client c's retry policy: its cohort's, or the options' when there are none.
    const Cohort& policyOf(std::int64_t client) const
    {
        std::size_t i = 0;
        while (i + 1 < m_policies.size() && client >= m_ends[i])
            ++i;
        return m_policies[i];
    }
    // anyRetries is true when some client retries a denial.
    bool anyRetries() const;

    ClientConfig() = default; // one client, no retries
    friend bool operator==(const ClientConfig& a, const ClientConfig& b) { return a.m_o == b.m_o; }

private:
    ClientOptions m_o;
    std::vector<Cohort> m_policies{Cohort{}}; // one per cohort, or the options' own policy
    std::vector<std::int64_t> m_ends{1};     // the first client id past each
};

// Latency is from a request's first attempt to its admitted one, over the requests that
// succeeded (all zero when none did). Every figure is an exact duration in ns; the mean is
// rounded up to the next ns, as semantics.md rounds every duration it reports.
struct Latency {
    Nanos mean = 0;
    Nanos p50 = 0;
    Nanos p99 = 0;
    Nanos max = 0;
};

struct ClientStats {
    std::int64_t requests = 0;
    std::int64_t attempts = 0;
    std::int64_t succeeded = 0;
    std::int64_t gaveUp = 0;     // denied on the last attempt it was allowed (or not retryable)
    double amplification = 0;    // attempts / requests (0 for no requests)
    Latency latency;
    std::int64_t keysUsed = 0;   // keys that saw at least one attempt (a key never seen holds nothing)
    Memory perKeyMax;            // the largest state of one key at the end
    Memory total;                // summed over the keys used
};

// kMaxAttempts bounds the queue: an endless retry storm is refused with this cap in the message.
// It is kMaxArrivals, the same cap as requests.
inline constexpr std::int64_t kMaxAttempts = kMaxArrivals;

// retryDelay returns how long after a denied attempt (decision d) the policy retries, for the
// deterministic policies: immediate retry_delay, retry_after, retry_after_header
// ceil(retry_after) in whole seconds. nullopt for None and for Backoff, which needs a draw: see
// backoffDelay.
std::optional<Nanos> retryDelay(const Cohort& policy, const Decision& d);

// backoffDelay is the full-jitter delay u * min(cap, base * 2^a) with u = draw / 2^53, draw a
// 53-bit integer (the top 53 bits of one std::mt19937_64 output). The product is exact in 128-bit
// integers and rounded up to the next ns, as semantics.md rounds durations, so it lies in
// [0, min(cap, base * 2^a)].
Nanos backoffDelay(Nanos base, Nanos cap, std::int32_t a, std::uint64_t draw53);

// jitteredDelay is backoff's delay for attempt a (from 0) under a jitter, u = draw53 / 2^53;
// prev is the request's previous delay (base before its first retry; decorrelated only). Every
// value is exact in 128-bit integers and rounded up to the ns: full in [0, d], equal in
// [d/2, d], decorrelated in [base, min(cap, 3*prev)], none d.
Nanos jitteredDelay(Jitter j, Nanos base, Nanos cap, std::int32_t a, Nanos prev, std::uint64_t draw53);

// jitterDraw is client c's k-th draw (53 bits) from the scenario's seed: each client's draws are
// its own, reproducible from the seed and its id, whatever the other clients do.
std::uint64_t jitterDraw(std::uint64_t seed, std::int64_t client, std::uint32_t k);

// parseCohort reads "K:POLICY[:key=value,...]": K clients, a retry policy id, and its options
// retry_delay, max_retries, backoff_base, backoff_cap, jitter ("9:retry_after",
// "1:immediate:retry_delay=0.1,max_retries=20"). Values not named are the defaults. It throws
// InputError naming what is wrong.
Cohort parseCohort(std::string_view text);
// cohortText writes a cohort in that grammar, naming the options that differ from the defaults.
std::string cohortText(const Cohort& c);
// withCohorts returns o with these cohorts: its clients their sum, its own policy the first's.
ClientOptions withCohorts(ClientOptions o, std::vector<Cohort> cohorts);

// retryable is false for an admission and for a denial no later attempt can turn into an
// admission (a cost above L or C, whose retry_after is "never"): such a request is not retried
// and counts as gave_up.
bool retryable(const Decision& d);

// worstCaseMemory is one key's largest state at a config under the same model the simulation
// reports (Memory: 8 bytes a field): the log up to `limit` timestamps, the others their fixed
// fields. memoryAtScale multiplies by `keys` active keys.
Memory worstCaseMemory(Algorithm a, const LimiterConfig& config);
Memory memoryAtScale(Algorithm a, const LimiterConfig& config, std::int64_t keys);

// humanBytes writes a byte count in decimal units for people: "80 MB", "1.6 GB", "16 B".
std::string humanBytes(std::int64_t bytes);

} // namespace ratelab
