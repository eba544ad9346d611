#include "presets.h"

#include <QFile>

namespace ratelab::io {

namespace {

// The presets in the order they are taught; each is resources/presets/ID.ratelab.json, compiled
// in as :/presets/ID.ratelab.json.
const char* const kPresetIds[] = {
    "seed-compare", "edge-burst", "idle-then-burst", "spa-page-load", "steady-over-limit", "token-vs-leaky",
    "counter-error", "nginx-vs-leaky", "two-servers-local", "racing-read-write", "tight-retry-loop",
    "honour-retry-after", "http-rounding", "noisy-client", "pick-a-limit",
    // Products as they compute
    "traefik-six-a-minute", "spring-burst-zero", "envoy-fill-cap", "redis-cell-sixteen", "nginx-page-load",
    // Fleets and storms
    "n-per-t", "scaling-out", "redis-goes-down", "comes-back-at-reset",
    // Managed services
    "upstash-sliding-vs-log", "api-gateway-page-load", "api-gateway-monthly-quota", "waf-scraper-first-minute",
    "cloudflare-long-block",
    // The server behind the limiter
    "retry-storm-metastable", "aimd-sawtooth", "gradient2-knee", "noisy-tenant-apf", "client-throttle-under-limit",
    "gradient2-standing-queue",
};

QString resourcePath(const QString& id) { return ":/presets/" + id + ".ratelab.json"; }

QStringList knownIds()
{
    QStringList ids;
    for (const char* id : kPresetIds)
        ids << id;
    return ids;
}

} // namespace

QList<PresetInfo> presets()
{
    QList<PresetInfo> list;
    for (const char* id : kPresetIds) {
        const LoadResult r = loadPreset(id);
        list.append({id, r.scenario ? QString::fromStdString(r.scenario->title) : QString(id)});
    }
    return list;
}

LoadResult loadPreset(const QString& id)
{
    LoadResult result;
    if (!knownIds().contains(id)) {
        result.error = QString("unknown preset '%1' (presets: %2)").arg(id.left(40), knownIds().join(", "));
        return result;
    }
    QFile file(resourcePath(id));
    if (!file.open(QIODevice::ReadOnly)) {
        result.error = QString("preset '%1' is missing from this build (%2)").arg(id, file.errorString());
        return result;
    }
    result = parseScenario(file.readAll());
    if (!result.scenario)
        result.error = QString("preset '%1': %2").arg(id, result.error);
    return result;
}

} // namespace ratelab::io
