// A product configuration made ready for a dry run on a log (core/replay/dry_run.h): nginx's
// zones, limit_req lines and locations as readNginxConfig reads them, each zone's key mapped onto
// the log's key.
#pragma once

#include "config_document.h"
#include "replay/dry_run.h"

#include <QByteArray>
#include <QString>

#include <string>

namespace ratelab::io {

// dryRunConfig reads an nginx configuration for a log read by `logKey` (--key: "ip", "user" or
// a field). A zone keyed by $binary_remote_addr or $remote_addr maps onto "ip", $remote_user onto
// "user", $VAR onto the field VAR; any other key leaves its rules named in notReplayed, never
// silently dropped. It throws InputError for what nginx refuses, for a config that is not nginx's,
// and, by name, for what the dry run does not model: several server blocks (which one a request
// reaches is not in the log), a location inside a location.
DryRunConfig dryRunConfig(const QString& text, const std::string& logKey);

// traefikDryRunConfig reads Traefik's dynamic configuration (YAML, TOML, JSON) in Traefik v3's
// rule syntax (its default): each router, tried by priority (its own, else its rule's length),
// is a place per alternative of its rule (Host, HostRegexp, Path, PathPrefix, PathRegexp, Method,
// Header, HeaderRegexp, Query, QueryRegexp, ClientIP joined by &&, ||, ! and parentheses),
// the paths and queries matched on the logged target, the others on the log's fields (host,
// request_method, http_NAME) once bound; a matcher the log cannot decide is named and taken to
// hold (a Host that every router shares only assumed). Each rateLimit middleware a router applies
// is a rule of its own (Traefik builds a router's middlewares for it: its own buckets, in
// memory), keyed by its sourceCriterion (the client's address by default, requestHeaderName a
// field http_NAME, requestHost "host"). A request matching no router meets no limit. Without
// routers, one rateLimit middleware applies to every request. A rule Traefik refuses is named and
// its router left out, as Traefik leaves it out; it throws InputError for routers of equal
// priority, ruleSyntax v2, and a rule of more than 64 alternatives.
DryRunConfig traefikDryRunConfig(const ConfigDocument& doc, const std::string& logKey);

// dryRunConfigDocument is dryRunConfigFile on a document read (readConfigDocument), dispatched on
// the product detectProduct recognised, its errors not yet naming the file.
DryRunConfig dryRunConfigDocument(const ConfigDocument& doc, const std::string& logKey);

// dryRunConfigText is dryRunConfigDocument on bytes.
DryRunConfig dryRunConfigText(const QByteArray& bytes, const std::string& logKey);

// dryRunConfigFile reads the file at path once (readConfigFile: at most 4 MiB), the document
// `ratelab import` reads too: nginx's as dryRunConfig does; Traefik's
// routers (traefikDryRunConfig); Kong's, Spring Cloud Gateway's and Envoy's routes
// (config_dry_run_kong.cpp, _spring.cpp, _envoy.cpp: each route a place tried as the product
// tries it, on the path as it normalizes it, each limit a rule with its own state); a RateLab
// scenario (.ratelab.json: its layers, or its one algorithm) or any other product config
// importConfiguration reads (or one of those without routes) as one rule every request meets, named after
// the product, keyed by the log's key where the product's own key is it (express-rate-limit: the
// IP; Spring: the principal; Kong, WAF, Cloudflare: what the file names), taken as it where the
// application chooses the key (rate-limiter-flexible, Upstash, API Gateway's API key, a
// scenario), one counter for all where the product keeps one (Envoy local_ratelimit, WAF
// CONSTANT, Cloudflare cf.colo.id alone); any other key leaves the rule named in notReplayed.
// The import's assumptions are the config's, what it does not model is named in notReplayed.
// Errors name the file.
DryRunConfig dryRunConfigFile(const QString& path, const std::string& logKey);

} // namespace ratelab::io
