#include "server/client_throttle.h"

#include "arithmetic/decimal.h"
#include "server/bottleneck.h"
#include "server/gate.h"
#include "server/p_queue.h"


namespace ratelab {

namespace {

struct ThrottleKind {
    std::string_view id;
    std::unique_ptr<ClientThrottle> (*make)(GateOptions& o);
};

const ThrottleKind kThrottleKinds[] = {
    {"bottleneck", [](GateOptions& o) -> std::unique_ptr<ClientThrottle> { return std::make_unique<Bottleneck>(readBottleneckOptions(o)); }},
    {"p-queue", [](GateOptions& o) -> std::unique_ptr<ClientThrottle> { return std::make_unique<PQueue>(readPQueueOptions(o)); }},
};

} // namespace

std::unique_ptr<ClientThrottle> makeClientThrottle(std::string_view spec)
{
    std::string_view options;
    const ThrottleKind& kind = findKind(kThrottleKinds, spec, "client throttle", options);
    GateOptions o(std::string(kind.id), options);
    return kind.make(o);
}

std::vector<std::string_view> clientThrottleKinds()
{
    std::vector<std::string_view> ids;
    for (const ThrottleKind& k : kThrottleKinds)
        ids.push_back(k.id);
    return ids;
}

} // namespace ratelab
