#include "engine/engine.h"

namespace ratelab {

std::optional<LinesOf> linesOf(const EngineSetup& setup)
{
    const ClusterConfig* cluster = setup.cluster ? &*setup.cluster : nullptr;
    const bool perClient = setup.clients && setup.clients->key() == KeyMode::Client && setup.clients->clients() > 1;
    // One limiter's row draws its level from its replay, unless it starts empty or changes its
    // limit: then its one state has a line.
    const bool single = !cluster && !perClient && (setup.startEmpty || !setup.changes.empty());
    if (setup.layers.size() != 1 || (cluster && perClient) || (!cluster && !perClient && !single))
        return std::nullopt;
    if (!cluster)
        return single ? LinesOf{false, "level", 0, false} : LinesOf{false, "client ", 0, true};
    const Coordination mode = cluster->coordination();
    const bool plainFleet = !cluster->hasOutage() && !setup.startEmpty && setup.changes.empty();
    switch (mode) {
    case Coordination::Local:
    case Coordination::Split: return LinesOf{true, "node ", 1, true};
    case Coordination::Hybrid:
        if (plainFleet && !cluster->hasAutoscale() && !cluster->hasMembership())
            return LinesOf{true, "node ", 1, true};
        return std::nullopt;
    case Coordination::Racy:
        if (plainFleet)
            return LinesOf{false, "store", 0, false};
        return std::nullopt;
    case Coordination::Shared:
        // Through an outage a local fallback holds levels of its own on each node: none drawn.
        if (cluster->hasOutage() && cluster->options().fallback == Fallback::Local)
            return std::nullopt;
        return LinesOf{false, "store", 0, false};
    }
    return std::nullopt;
}

bool hasLevelLines(const EngineSetup& setup) { return linesOf(setup).has_value(); }

} // namespace ratelab
