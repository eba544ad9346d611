// The layer loop: how a policy of several limiters decides (semantics.md, "Layered policies"),
// written once for every place that holds a policy's layers: the engine (each layer a store
// cell) and LayeredPolicy (each layer a limiter of its own).
//
// Layers are asked in order until one denies. A layer that admits has consumed, and a later
// layer's denial does not refund it: those units are the layer's `wasted`. A denied request's
// retry_after is the largest of the layers' own least waits, each on its state after this
// request (no layer's verdict for a lone request turns from admit back to deny as time passes).
#pragma once

#include "engine/layered.h"
#include "limiters/limiter.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace ratelab {

// LayersAsked is what asking a policy's layers found.
// It keeps the first layer's level, not its whole Decision: that copy, read back in wide loads
// from the narrower stores that made it, stalled the engine's every attempt.
struct LayersAsked {
    double level = 0;        // the first layer's own level: the policy's
    bool allowed = true;
    Nanos delay = 0;         // the largest delay of the layers that admitted
    std::size_t asked = 0;   // every layer when admitted; else up to and with the one that denied
};

// askLayers asks layer 0, 1, ... (decide(l) returns layer l's Decision for this request) until
// one denies, and counts each layer's part in metrics (one per layer): admitted, denied here,
// and `cost` wasted on each layer before a denial.
template <typename Decide>
LayersAsked askLayers(std::size_t layers, std::int64_t cost, std::span<LayerMetrics> metrics, Decide&& decide)
{
    LayersAsked out;
    while (out.asked < layers) {
        const std::size_t l = out.asked++;
        const Decision d = decide(l);
        if (l == 0)
            out.level = d.level;
        if (!d.allowed) {
            ++metrics[l].deniedHere;
            for (std::size_t j = 0; j < l; ++j)
                metrics[j].wasted += cost;
            out.allowed = false;
            return out;
        }
        ++metrics[l].allowed;
        out.delay = std::max(out.delay, d.delay);
    }
    return out;
}

// layeredAnswer makes the policy's decision d from what askLayers found: admitted with the
// largest delay, or denied with retry_after the largest wait(l) over every layer (at least
// `atLeast`), never when cost is above the policy's quota; remaining is the fewest remaining(l),
// level the first layer's. wait(l) and remaining(l) read layer l's state after this request. It
// returns the layer whose remaining is the fewest (the one a response's headers describe; the
// first of equals). d is the caller's, written in place: no copy of it is read back.
template <typename Wait, typename Remaining>
std::size_t layeredAnswer(const LayersAsked& asked, std::size_t layers, std::int64_t cost, std::int64_t quota,
                          Wait&& wait, Remaining&& remaining, Decision& d, Nanos atLeast = 0)
{
    std::size_t leastLayer = 0;
    d.allowed = asked.allowed;
    d.level = asked.level;
    d.delay = asked.allowed ? asked.delay : 0;
    if (!asked.allowed) {
        Nanos w = atLeast;
        if (cost <= quota)
            for (std::size_t l = 0; l < layers; ++l)
                w = std::max(w, wait(l));
        d.retryAfter = cost > quota ? kRetryNever : w;
    }
    std::int32_t least = std::numeric_limits<std::int32_t>::max();
    for (std::size_t l = 0; l < layers; ++l) {
        const std::int32_t left = remaining(l);
        if (left < least) {
            least = left;
            leastLayer = l;
        }
    }
    d.remaining = least;
    return leastLayer;
}

} // namespace ratelab
