// ClientThrottle: a limiter inside the client that holds calls back before they reach
// the server's limiter, as npm's Bottleneck and p-queue do: a call is submitted, waits in the
// throttle's own queue, and starts (leaves for the server) when the throttle lets it; the throttle
// is told when a started call is done (its response came back). Kinds (client_throttle.cpp):
// bottleneck (bottleneck.h, Bottleneck 2.19.5) and p-queue (p_queue.h, p-queue 10.0.0), each
// transcribed from the package's own source, cited by file and line there.
//
// Time is handed in, never read, and never decreases from one call to the next. The order of one
// instant is ThrottledArrivals::advance's (engine/throttled_arrivals.h), the one place it is
// kept: completions (done) first, then the throttle's own timers (wake), then arrivals (submit)
// in arrival order, and what each of these lets start is started, and done if it ends at that
// instant, before the next. submit and done run the timers due before them themselves, so a
// caller that skips a wake still gets that order.
#pragma once

#include "arithmetic/nanos.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

class ClientThrottle {
public:
    virtual ~ClientThrottle() = default;

    // submit hands the throttle call `id` (increasing from one submit to the next) at t, with the
    // priority a caller would hand the package, any finite number (Bottleneck: 0 first .. 9,
    // default 5, a fraction or a number past 32 bits 5, others clamped, as the package does;
    // p-queue: larger first, any number, default 0). The calls it drops, this one or held ones,
    // are appended to `dropped`. A call it lets start at t is reported by takeStarted or wake(t).
    virtual void submit(Nanos t, std::int64_t id, double priority, std::vector<std::int64_t>& dropped) = 0;
    // done tells the throttle that started call `id` finished at t.
    virtual void done(Nanos t, std::int64_t id) = 0;
    // nextWake returns the earliest time a held call may start or a timer that matters fires,
    // kNever when nothing is due (an idle throttle's heartbeat is caught up later, lazily).
    virtual Nanos nextWake() const = 0;
    // wake runs the timers due at or before t and appends the calls that start at or before t to
    // `started`, in the order they start.
    virtual void wake(Nanos t, std::vector<std::int64_t>& started) = 0;
    // takeStarted appends the calls the last submit or done let start at its own instant, and
    // runs no timer: the timers due at that instant come after every completion at it.
    virtual void takeStarted(std::vector<std::int64_t>& started) = 0;
    // defaultPriority returns the priority a call without one gets (Bottleneck 5, p-queue 0).
    virtual double defaultPriority() const = 0;

    static constexpr Nanos kNever = kMaxNanos;
};

// later returns t + d, saturated at kNever: a throttle's times past the largest Nanos are never.
constexpr Nanos later(Nanos t, Nanos d) { return clampToNanos(Int128(t) + d); }

// ClientThrottleSpec is a spec "KIND[:key=value,...]" ("bottleneck:max_concurrent=2,min_time=100ms",
// "p-queue:concurrency=2,interval=1s,interval_cap=5") read once, through GateOptions (durations
// with units, a plain number is seconds), where the scenario is built; every client's throttle is
// made from the values read. The text is kept as written; two specs are equal when their texts are.
class ClientThrottleSpec {
public:
    ClientThrottleSpec() = default; // empty: no throttle
    // parse throws InputError for an unknown kind (naming the known ones), an unknown key or a
    // value the package refuses.
    static ClientThrottleSpec parse(std::string_view text);
    bool empty() const { return m_text.empty(); }
    const std::string& text() const { return m_text; }
    // make builds a throttle; an empty spec has none to build (std::bad_function_call).
    std::unique_ptr<ClientThrottle> make() const { return m_make(); }
    friend bool operator==(const ClientThrottleSpec& a, const ClientThrottleSpec& b) { return a.m_text == b.m_text; }

private:
    std::string m_text;
    std::function<std::unique_ptr<ClientThrottle>()> m_make;
};

// clientThrottleKinds lists the kinds ClientThrottleSpec::parse knows.
std::vector<std::string_view> clientThrottleKinds();

} // namespace ratelab
