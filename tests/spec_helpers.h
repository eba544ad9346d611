// Tests make a gate or a throttle straight from its text; the app reads a spec once, where a
// scenario is built (GateSpec, ClientThrottleSpec), and makes from that.
#pragma once

#include "server/client_throttle.h"
#include "server/gate.h"

#include <memory>
#include <string_view>

namespace ratelab {

inline std::unique_ptr<Gate> makeGate(std::string_view spec, std::uint64_t seed) { return GateSpec::parse(spec).make(seed); }

inline std::unique_ptr<ClientThrottle> makeClientThrottle(std::string_view spec) { return ClientThrottleSpec::parse(spec).make(); }

} // namespace ratelab
