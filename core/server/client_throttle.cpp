#include "server/client_throttle.h"

#include "arithmetic/decimal.h"
#include "server/bottleneck.h"
#include "server/gate.h"
#include "server/p_queue.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace ratelab {

namespace {

struct Kind {
    std::string_view id;
    std::unique_ptr<ClientThrottle> (*make)(GateOptions& o);
};

const Kind kKinds[] = {
    {"bottleneck", [](GateOptions& o) -> std::unique_ptr<ClientThrottle> { return std::make_unique<Bottleneck>(readBottleneckOptions(o)); }},
    {"p-queue", [](GateOptions& o) -> std::unique_ptr<ClientThrottle> { return std::make_unique<PQueue>(readPQueueOptions(o)); }},
};

} // namespace

std::unique_ptr<ClientThrottle> makeClientThrottle(std::string_view spec)
{
    std::string_view options;
    const Kind& kind = findKind(kKinds, spec, "client throttle", options);
    GateOptions o(std::string(kind.id), options);
    return kind.make(o);
}

std::vector<std::string_view> clientThrottleKinds()
{
    std::vector<std::string_view> ids;
    for (const Kind& k : kKinds)
        ids.push_back(k.id);
    return ids;
}

std::vector<Nanos> simulateThrottle(std::string_view spec, const std::vector<Nanos>& arrivals,
                                    const std::vector<Nanos>& serviceTimes, const std::vector<int>& priorities)
{
    const std::unique_ptr<ClientThrottle> throttle = makeClientThrottle(spec);
    const std::size_t n = arrivals.size();
    if (serviceTimes.size() != n || (!priorities.empty() && priorities.size() != n))
        throw InputError("simulateThrottle: " + std::to_string(n) + " arrivals but " + std::to_string(serviceTimes.size())
                         + " service times and " + std::to_string(priorities.size()) + " priorities");
    for (std::size_t i = 0; i < n; ++i) {
        if (arrivals[i] < 0 || (i > 0 && arrivals[i] < arrivals[i - 1]))
            throw InputError("simulateThrottle: arrival " + std::to_string(i) + " is before the one before it, or before 0");
        if (serviceTimes[i] < 0)
            throw InputError("simulateThrottle: service time " + std::to_string(i) + " is negative");
    }
    std::vector<Nanos> starts(n, kNotStarted);
    // Completions in time order, then in the order their calls started.
    using Completion = std::tuple<Nanos, std::int64_t, std::int64_t>; // time, start sequence, call
    std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions;
    std::int64_t sequence = 0;
    std::vector<std::int64_t> started, dropped;
    std::size_t next = 0;
    for (;;) {
        const Nanos arrival = next < n ? arrivals[next] : ClientThrottle::kNever;
        const Nanos completion = completions.empty() ? ClientThrottle::kNever : std::get<0>(completions.top());
        const Nanos wake = throttle->nextWake();
        const Nanos t = std::min({arrival, completion, wake});
        if (t == ClientThrottle::kNever)
            break;
        if (completion == t) {
            throttle->done(t, std::get<2>(completions.top()));
            completions.pop();
        } else if (wake <= t) {
            started.clear();
            throttle->wake(t, started);
            for (const std::int64_t id : started) {
                starts[std::size_t(id)] = t;
                completions.emplace(later(t, serviceTimes[std::size_t(id)]), sequence++, id);
            }
        } else {
            throttle->submit(t, std::int64_t(next), priorities.empty() ? throttle->defaultPriority() : priorities[next], dropped);
            ++next;
        }
    }
    return starts;
}

} // namespace ratelab
