// A product's configuration file read once: its text, the one tree of a YAML, JSON or TOML file,
// and the product it is. `ratelab import`, `replay --config`, `--against` and the app all start
// from this document, so a file reads, and is recognised, the same way in each.
#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QString>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ratelab::io {

// ConfigNode is one node of a YAML, JSON or TOML file, its keys in the file's order and as the
// file writes them (case kept: each product's reader matches keys as the product does, keyMatches).
struct ConfigItem;
struct ConfigNode {
    enum class Kind { Null, Text, Number, Bool, List, Map };
    Kind kind = Kind::Null;
    std::string text; // a scalar as text: a number in its shortest decimal form, a boolean true or false
    std::vector<ConfigItem> items; // a map's pairs; a list's items (keys empty)

    const ConfigNode* find(const std::string& key) const; // a map's value for key, or nullptr
};

// ConfigItem is a map's key and value, or a list's item (its key empty).
struct ConfigItem {
    ConfigItem(std::string k, ConfigNode v) : key(std::move(k)), value(std::move(v)) {}
    std::string key;
    ConfigNode value;
};

// FlatConfig is a configuration as dotted paths and scalar values, in the file's order.
using FlatConfig = std::vector<std::pair<std::string, std::string>>;

// kMaxConfigNodes is the most nodes one file may make (every map, list and scalar, aliases
// expanded): an alias bomb stops here, not in memory. kMaxConfigDepth is the deepest nesting.
constexpr int kMaxConfigNodes = 200'000;
constexpr int kMaxConfigDepth = 64;

// ConfigTree is a file's tree and what the loader did not read of it.
struct ConfigTree {
    ConfigNode root;
    // unreadDocuments: the lines where the YAML documents after the first start. The first
    // document is the configuration, as Kong (lyaml.load), Traefik (paerser: yaml.v3 Unmarshal) and
    // Envoy (yaml-cpp YAML::Load) read a file; the others are named by whoever reads the tree.
    std::vector<int> unreadDocuments;
};

// parseConfigTree reads YAML (libyaml: block and flow style, anchors, aliases and merge keys),
// JSON (Qt) or TOML (toml++) into one tree, a UTF-8 byte order mark skipped. It throws
// InputError naming the line for a file that parses as none of them, has more than
// kMaxConfigNodes nodes or kMaxConfigDepth levels, or a YAML mapping with a key twice (Traefik's
// yaml.v3 and Spring Boot's SnakeYAML refuse it too).
ConfigTree parseConfigTree(const QByteArray& text);

// flattenTree writes a tree as dotted paths and scalar values ("http.middlewares.a.rateLimit.average"
// -> "100"), list items without an index, nulls left out.
FlatConfig flattenTree(const ConfigNode& node);

// jsonOf is the tree as Qt JSON, for the readers that walk routes: YAML's scalars as strings,
// JSON's and TOML's numbers and booleans as such.
QJsonValue jsonOf(const ConfigNode& node);

// ConfigProduct is what a file configures, recognised once (detectProduct) for every command.
enum class ConfigProduct {
    None, Scenario, Nginx, Upstash, AwsWaf, Cloudflare, ApiGateway, Envoy, Traefik, Spring, Kong, Express, Flexible
};

// KeyMatch is how a product's own loader matches the keys of its file: exactly (Kong's Lua
// tables, Envoy's protobuf fields, JavaScript objects, AWS and Cloudflare JSON), ignoring case
// (Traefik: paerser's findTypedField compares field names with strings.EqualFold), or by Spring
// Boot's relaxed binding (a name's letters and digits in lower case: replenishRate,
// replenish-rate, replenish_rate and REPLENISHRATE are one property; Spring Boot's "Relaxed
// Binding 2.0": "Simple YAML properties are bound by removing any special characters and
// converting to lowercase"), or as protobuf's JSON mapping reads a field (Envoy: its proto name
// or its lowerCamelCase JSON name, max_tokens or maxTokens).
enum class KeyMatch { Exact, IgnoreCase, Relaxed, Proto };

// keyMatches is whether key `a`, as the file writes it, names `b` under the rule m; a dotted path
// matches component by component.
bool keyMatches(const std::string& a, const std::string& b, KeyMatch m);

// pathEndsWith is whether a dotted path's last components are suffix's, each matched under m.
bool pathEndsWith(const std::string& path, const std::string& suffix, KeyMatch m);

// findConfigValue returns the first value whose dotted path ends with suffix (whole components,
// each matched under m), or nullopt.
std::optional<std::string> findConfigValue(const FlatConfig& flat, const std::string& suffix, KeyMatch m = KeyMatch::Exact);

// keyMatchOf is the rule of the product's loader.
KeyMatch keyMatchOf(ConfigProduct p);

// ConfigDocument is one configuration file, read once.
struct ConfigDocument {
    QString name;    // the file's name for messages ("" for text not from a file)
    QByteArray text; // the bytes, a byte order mark removed
    ConfigProduct product = ConfigProduct::None;
    bool hasTree = false; // YAML, JSON or TOML (not nginx's grammar, not an Upstash snippet)
    ConfigTree tree;
    FlatConfig flat; // the tree's dotted paths (flattenTree), for the importers
    QJsonValue json; // the tree as JSON (jsonOf), for the route readers
};

// protoFieldNames writes an Envoy tree's field names as their proto names: protobuf's JSON
// parser, which Envoy's loader is, takes a field by its name or its lowerCamelCase JSON name
// (statPrefix, tokenBucket, maxTokens), so a lowerCamel name is renamed once here and every
// Envoy reader reads one spelling. Keys that are data stay as written: the immediate keys of
// the maps typed_per_filter_config and typed_filter_metadata (filter names), and every key
// under a google.protobuf.Struct (json_format, static_layer, filter_metadata). "@type" stays.
// It throws InputError for one field written both ways in one message, which protobuf's parser
// refuses ("'maxTokens' has already been set", json/internal/parser.cc ParseField).
void protoFieldNames(ConfigNode& node);

// readConfigDocument reads text once: nginx's grammar where it has a limit_req directive (and is
// not a JSON object), an Upstash snippet where it calls Ratelimit.slidingWindow(...) or another
// of its limiters, else the one tree (parseConfigTree); then recognises the product
// (detectProduct), an Envoy tree's names made its proto names (protoFieldNames). It throws
// InputError for a tree that cannot be read.
ConfigDocument readConfigDocument(const QByteArray& text);

// readConfigFile reads the file at path (at most 4 MiB) as readConfigDocument does. It throws
// InputError naming the file with the reason: "cannot read 'f'", "'f' is larger than 4 MiB",
// "f: YAML line 3: ...".
ConfigDocument readConfigFile(const QString& path);

// detectProduct recognises what a document configures, in this order: a RateLab scenario; nginx;
// an Upstash snippet; an AWS WAF rate-based statement, a Cloudflare ratelimit rule, an API
// Gateway throttle or quota (JSON, or CloudFormation); Envoy (a token_bucket's max_tokens, or
// route virtual_hosts); Traefik (a rateLimit middleware); Spring Cloud Gateway (a
// redis-rate-limiter's replenishRate, or gateway routes); Kong (a rate-limiting plugin);
// express-rate-limit (windowMs); rate-limiter-flexible (points and duration). Each product's keys
// are matched as its own loader matches them (keyMatchOf).
ConfigProduct detectProduct(const ConfigDocument& doc);

// unreadDocumentsText names the YAML documents after the first, each with what the product does
// with it, one sentence each (none for a single document).
std::vector<std::string> unreadDocumentsText(const ConfigDocument& doc);

} // namespace ratelab::io
