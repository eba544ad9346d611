#include "server/client_throttle.h"

#include "arithmetic/decimal.h"
#include "server/bottleneck.h"
#include "server/gate.h"
#include "server/p_queue.h"


namespace ratelab {

namespace {

using ThrottleMaker = std::function<std::unique_ptr<ClientThrottle>()>;

struct ThrottleKind {
    std::string_view id;
    ThrottleMaker (*read)(GateOptions& o);
};

// makerOf reads a package's options and returns what makes its throttle from them.
template <typename Throttle, auto read>
ThrottleMaker makerOf(GateOptions& o)
{
    return [options = read(o)]() -> std::unique_ptr<ClientThrottle> { return std::make_unique<Throttle>(options); };
}

const ThrottleKind kThrottleKinds[] = {
    {"bottleneck", makerOf<Bottleneck, readBottleneckOptions>},
    {"p-queue", makerOf<PQueue, readPQueueOptions>},
};

} // namespace

ClientThrottleSpec ClientThrottleSpec::parse(std::string_view text)
{
    std::string_view options;
    const ThrottleKind& kind = findKind(kThrottleKinds, text, "client throttle", options);
    GateOptions o(std::string(kind.id), options);
    ClientThrottleSpec spec;
    spec.m_make = kind.read(o);
    spec.m_text = text;
    return spec;
}

std::vector<std::string_view> clientThrottleKinds()
{
    std::vector<std::string_view> ids;
    for (const ThrottleKind& k : kThrottleKinds)
        ids.push_back(k.id);
    return ids;
}

} // namespace ratelab
