// Reading a product's rate-limit configuration as people write it, into a scenario of the
// product's model: `ratelab import FILE`.
//
// Recognised: an nginx limit_req_zone / limit_req configuration (read as nginx parses it,
// config_import_nginx.h); Envoy YAML (a token_bucket with max_tokens, tokens_per_fill,
// fill_interval); Traefik YAML or TOML (rateLimit average, period, burst); a Spring
// application.yml (RequestRateLimiter redis-rate-limiter.replenishRate, burstCapacity,
// requestedTokens); a Kong plugin in YAML or JSON (name: rate-limiting, config second..year);
// express-rate-limit options in JSON (windowMs, limit or max); rate-limiter-flexible options
// (points, duration, blockDuration) where they are plainly its options (see importConfiguration);
// and the managed services' configurations (config_import_managed.h: API Gateway, WAF, Cloudflare,
// Upstash).
// The file is read once into a ConfigDocument (config_document.h: one tree for YAML, JSON and
// TOML, one product detector), the same document `replay --config` starts from.
#pragma once

#include "config_document.h"
#include "scenario/scenario.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ratelab::io {

// ImportedConfig is what a configuration file said, and the scenario that models it.
struct ImportedConfig {
    std::string product;                                    // "Traefik rateLimit", "nginx limit_req"
    std::vector<std::pair<std::string, std::string>> wrote; // the values as the file wrote them
    // The product's model: one algorithm, or, where several limits apply to the same requests
    // (two limit_req in one nginx location), that algorithm for the first and all of them as
    // the scenario's layers.
    Scenario scenario;
    std::string modelledPlace;            // where the modelled limits apply ("location /api/"), or empty
    std::vector<std::string> assumed;     // how the model reads what was written, one sentence each
    // binds: where several limits apply to the same requests (two limit_req in one nginx
    // location), which of them refuses, at once and in the long run, and when that depends on
    // the traffic: one sentence each.
    std::vector<std::string> binds;
    std::vector<std::string> notModelled; // what the file holds that the scenario does not model
};

// lowerAscii returns s with its ASCII letters in lower case (the importers' keys and values).
std::string lowerAscii(std::string s);

// importConfiguration recognises the product and builds its scenario. It throws InputError when
// no product's rate-limit settings are found, a value is refused by the product's model, or the
// file is not plainly a product's configuration. rate-limiter-flexible's points and duration are
// names any application may use, so they are taken only from an object that holds nothing but
// rate-limiter-flexible's option names and sits at the top of the file or under a key naming a
// rate limiter ("rateLimiter", "rate_limit"); anything else is refused, not guessed.
ImportedConfig importConfiguration(const ConfigDocument& doc);

// importConfiguration reads text as a document (readConfigDocument) and imports it.
ImportedConfig importConfiguration(const QByteArray& text);

// whatYouGet explains the imported configuration: what was written, the burst, the long-run
// rate (measured once the burst is spent; a WAF rule's as its verdicts limit it), the window and
// a usage plan's quota (and how soon the rate written spends it), the decisions on three traffic shapes
// (a page load of 27 requests, a steady stream at the written rate, a burst around a window
// boundary), naming the first surprise, then what the model assumed and what it leaves out.
std::string whatYouGet(const ImportedConfig& imported);

// importConfigurationFile reads the file at path (readConfigFile: at most 4 MiB, what cannot be
// read refused naming the file) and imports it as `ratelab
// import` and the app's File > Import configuration do: the scenario titled "Imported: PRODUCT",
// its arrivals the page load the explanation starts with, its lesson the explanation
// (whatYouGet). It throws InputError: what readConfigFile refuses, or what importConfiguration
// refuses after the file's path ("f.conf: nginx: line 2: ..."), as replay --config words it.
ImportedConfig importConfigurationFile(const QString& path);

} // namespace ratelab::io
