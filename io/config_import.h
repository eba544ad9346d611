// Reading a product's rate-limit configuration as people write it, into a scenario of the
// product's model: `ratelab import FILE`.
//
// Recognised: an nginx limit_req_zone / limit_req block; Envoy YAML (a token_bucket with
// max_tokens, tokens_per_fill, fill_interval); Traefik YAML or TOML (rateLimit average, period,
// burst); a Spring application.yml (RequestRateLimiter redis-rate-limiter.replenishRate,
// burstCapacity, requestedTokens); a Kong plugin in YAML or JSON (name: rate-limiting, config
// second..year); express-rate-limit options in JSON (windowMs, limit or max). YAML is read by a
// small reader of the block subset these files use (nested maps, "- " lists, scalars, comments):
// Debian ships no YAML module for Qt, and the subset keeps the dependency list as it is.
#pragma once

#include "scenario/scenario.h"

#include <QByteArray>
#include <QString>

#include <string>
#include <utility>
#include <vector>

namespace ratelab::io {

// ImportedConfig is what a configuration file said, and the scenario that models it.
struct ImportedConfig {
    std::string product;                                    // "Traefik rateLimit", "nginx limit_req"
    std::vector<std::pair<std::string, std::string>> wrote; // the values as the file wrote them
    Scenario scenario;                                      // one algorithm: the product's model
};

// flattenConfig reads YAML (the block subset), TOML or JSON into dotted paths and scalar values
// ("http.middlewares.test.rateLimit.average" -> "100"), list items without an index.
std::vector<std::pair<std::string, std::string>> flattenConfig(const QByteArray& text);

// importConfiguration recognises the product and builds its scenario. It throws InputError when
// no product's rate-limit settings are found or a value is refused by the product's model.
ImportedConfig importConfiguration(const QByteArray& text);

// whatYouGet explains the imported configuration: what was written, the effective rate, burst
// and window, and the decisions on three traffic shapes (a page load of 27 requests, a steady
// stream at the written rate, a burst around a window boundary), naming the first surprise.
std::string whatYouGet(const ImportedConfig& imported);

// importConfigurationFile reads the file at path (at most 4 MiB) and imports it as `ratelab
// import` and the app's File > Import configuration do: the scenario titled "Imported: PRODUCT",
// its arrivals the page load the explanation starts with, its lesson the explanation
// (whatYouGet). It throws InputError ("cannot read 'f'", "'f' is larger than 4 MiB", or what
// importConfiguration refuses).
ImportedConfig importConfigurationFile(const QString& path);

} // namespace ratelab::io
