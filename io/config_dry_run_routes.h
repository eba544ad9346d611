// The parts the route readers of a dry run share (config_dry_run.h): a tree's scalars as text
// (the tree is the document's, config_document.h), a product policy made a rule with its key,
// each product's route reader, and the ways Envoy's actions make a descriptor (read by the Envoy
// route reader, written in config_dry_run_envoy_actions.cpp). Internal to io.
#pragma once

#include "replay/dry_run.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonValue>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ratelab::io {

// treeText returns a scalar as text (a JSON number or boolean too), "" for anything else.
std::string treeText(const QJsonValue& v);

// RuleKey is what a product's rule keys its counters by, read onto the log.
struct RuleKey {
    std::string field;   // the log key it is ("ip", "user", a field such as http_x_api_key), "" for none
    bool shared = false; // one counter for every request that meets the rule
    std::string words;   // how the product says it
    // fallback: the log key a request whose own key is empty is keyed by ("" none), and how the
    // product says it (Kong's get_identifier: the client's IP).
    std::string fallback = {}, fallbackWords = {};
};

// KongAuth is what Kong's authentication plugins make of a request without credentials on a
// route: nothing runs (no consumer is ever identified), one answers it 401 before any limit, or
// every one that runs takes it as its `anonymous` consumer.
enum class KongAuth { Unknown, None, Required, Anonymous };

// kongKey is what a rate-limiting plugin's limit_by keys by (kong/plugins/rate-limiting/handler.lua
// get_identifier), with `auth` on its routes.
RuleKey kongKey(const std::string& limitBy, const std::string& headerName, KongAuth auth);

// addPolicyRule adds a rule (a zone named `zone`, the product's `layer` as its policy) keyed by
// `key`, replayed when the key is the log's (or shared), else named in notReplayed; a fall-back
// key that is not the log's is named too, until bindKeyFields binds it. It returns the rule's
// index.
std::size_t addPolicyRule(DryRunConfig& out, const std::string& name, const std::string& zone, const Layer& layer,
                          const RuleKey& key, const std::string& logKey);

// bindFallback gives the config's last rule its fall-back key `field` (words: how the product
// says it): the log's key at once, else named in notReplayed until bindKeyFields binds it.
void bindFallback(DryRunConfig& out, const std::string& field, const std::string& words, const std::string& logKey);

// kongDryRunConfig reads a Kong declarative config with routes (config_dry_run.h), nullopt when
// the tree holds no route with paths.
std::optional<DryRunConfig> kongDryRunConfig(const QJsonValue& tree, const std::string& logKey);

// springDryRunConfig reads spring.cloud.gateway routes, nullopt when the tree holds none.
std::optional<DryRunConfig> springDryRunConfig(const QJsonValue& tree, const std::string& logKey);

// EnvoyEntries are a local_ratelimit descriptor's entries, (key, value) in order.
using EnvoyEntries = std::vector<std::pair<std::string, std::string>>;
// EnvoyWays are the ways a request can take: each the conditions on the request it needs.
using EnvoyWays = std::vector<std::vector<DryRunCondition>>;

// envoyDescriptorWays returns every way a request makes the descriptor `entries` with a
// rate_limits entry's actions, as the conditions on the request each way needs
// (populateDescriptor at envoy 6e6a025465c4, source/common/router/router_ratelimit.cc: each action
// appends one entry, or the descriptor is dropped when one cannot; but a request_headers action
// whose header is absent appends none and lets the others go on when it has skip_if_absent); none
// when they never make it.
EnvoyWays envoyDescriptorWays(const QJsonArray& actions, const EnvoyEntries& entries, const std::string& where);

// envoyDryRunConfig reads an Envoy route_config's virtual hosts, nullopt when the tree holds none.
std::optional<DryRunConfig> envoyDryRunConfig(const QJsonValue& tree, const std::string& logKey);

} // namespace ratelab::io
