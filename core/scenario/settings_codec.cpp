#include "scenario/settings_codec.h"

#include "arithmetic/decimal.h"

#include <array>
#include <stdexcept>

namespace ratelab {

namespace {

using ClusterOptions = ClusterConfig::Options;

// seconds parses a time of 0 s or more, or of more than 0 s when `positive`.
Nanos seconds(std::string_view text, bool positive = false) { return parseDuration(text, positive); }

// byId returns the value whose id is text, or refuses it naming what it is and the known ids.
template <typename All, typename Id, typename FromId>
auto byId(std::string_view text, const char* what, const All& all, Id id, FromId fromId)
{
    const auto v = fromId(text);
    if (!v)
        throw InputError(std::string("unknown ") + what + " " + quoted(text) + " (known: " + idList(all, id) + ")");
    return *v;
}

std::vector<std::string> one(std::string text) { return {std::move(text)}; }
std::vector<std::string> none() { return {}; }
std::vector<std::string> when(bool written, std::string text) { return written ? one(std::move(text)) : none(); }

// nodeEvent reads "N@T": node N (0 to 63) at T seconds.
NodeEvent nodeEvent(std::string_view text)
{
    const auto at = text.find('@');
    if (at == std::string_view::npos)
        throw InputError("expected N@T, a node and a time in seconds (got " + quoted(text) + ")");
    return {int(parseIntegerIn(text.substr(0, at), 0, ClusterConfig::kMaxNodes - 1)), seconds(text.substr(at + 1))};
}

std::vector<std::string> nodeEventTexts(const std::vector<NodeEvent>& events)
{
    std::vector<std::string> out;
    for (const NodeEvent& e : events)
        out.push_back(std::to_string(e.node) + "@" + formatSeconds(e.at));
    return out;
}

bool hasOutage(const ClusterOptions& o) { return o.outageToNanos > o.outageFromNanos; }
bool hasAutoscale(const ClusterOptions& o) { return o.autoscaleMax > 0; }

constexpr std::array<KeyMode, 2> kAllKeyModes = {KeyMode::Client, KeyMode::Global};

// kCluster and kClients are tables, one entry a setting with its reader and writer: long because
// they list every setting, each entry read on its own.
const ClusterSetting kCluster[] = {
    {"nodes", "nodes", SettingForm::Number, "a whole number", false,
     [](ClusterOptions& o, std::string_view t) { o.nodes = int(parseIntegerIn(t, 1, ClusterConfig::kMaxNodes)); },
     [](const ClusterOptions& o) { return one(std::to_string(o.nodes)); }},
    {"balancer", "balancer", SettingForm::Text, "a balancer id", false,
     [](ClusterOptions& o, std::string_view t) {
         o.balancer = byId(t, "balancer", kAllBalancers, balancerId, balancerFromId);
     },
     [](const ClusterOptions& o) { return one(std::string(balancerId(o.balancer))); }},
    {"coordination", "coordination", SettingForm::Text, "a coordination id", false,
     [](ClusterOptions& o, std::string_view t) {
         o.coordination = byId(t, "coordination", kAllCoordinations, coordinationId, coordinationFromId);
     },
     [](const ClusterOptions& o) { return one(std::string(coordinationId(o.coordination))); }},
    {"latency", "latency", SettingForm::Seconds, "a time in seconds", false,
     [](ClusterOptions& o, std::string_view t) { o.latencyNanos = seconds(t); },
     [](const ClusterOptions& o) {
         return when(o.coordination == Coordination::Racy, formatSeconds(o.latencyNanos));
     }},
    // 0 is no sync; coordination hybrid needs more (ClusterConfig::make).
    {"sync", "sync", SettingForm::Seconds, "a time in seconds", false,
     [](ClusterOptions& o, std::string_view t) { o.syncNanos = seconds(t); },
     [](const ClusterOptions& o) {
         return when(o.coordination == Coordination::Hybrid, formatSeconds(o.syncNanos));
     }},
    {"skew", "skew", SettingForm::Seconds, "a time in seconds", false,
     [](ClusterOptions& o, std::string_view t) { o.skewNanos = seconds(t); },
     [](const ClusterOptions& o) { return one(formatSeconds(o.skewNanos)); }},
    {"outage.from", "", SettingForm::Seconds, "a time in seconds", false,
     [](ClusterOptions& o, std::string_view t) { o.outageFromNanos = seconds(t); },
     [](const ClusterOptions& o) { return when(hasOutage(o), formatSeconds(o.outageFromNanos)); }},
    {"outage.to", "", SettingForm::Seconds, "a time in seconds", false,
     [](ClusterOptions& o, std::string_view t) { o.outageToNanos = seconds(t); },
     [](const ClusterOptions& o) { return when(hasOutage(o), formatSeconds(o.outageToNanos)); }},
    {"outage.fallback", "fallback", SettingForm::Text, "a fallback id", false,
     [](ClusterOptions& o, std::string_view t) {
         o.fallback = byId(t, "fallback", kAllFallbacks, fallbackId, fallbackFromId);
     },
     [](const ClusterOptions& o) { return when(hasOutage(o), std::string(fallbackId(o.fallback))); }},
    {"autoscale.min", "", SettingForm::Number, "a whole number", true,
     [](ClusterOptions& o, std::string_view t) { o.autoscaleMin = int(parseIntegerIn(t, 1, ClusterConfig::kMaxNodes)); },
     [](const ClusterOptions& o) { return when(hasAutoscale(o), std::to_string(o.autoscaleMin)); }},
    {"autoscale.max", "", SettingForm::Number, "a whole number", true,
     [](ClusterOptions& o, std::string_view t) { o.autoscaleMax = int(parseIntegerIn(t, 1, ClusterConfig::kMaxNodes)); },
     [](const ClusterOptions& o) { return when(hasAutoscale(o), std::to_string(o.autoscaleMax)); }},
    {"autoscale.scale_at", "scale-at", SettingForm::Text, "a rate per second", false,
     [](ClusterOptions& o, std::string_view t) { o.scaleAt = parseRate(t); },
     [](const ClusterOptions& o) { return when(hasAutoscale(o), o.scaleAt.exactText()); }},
    {"joins", "join", SettingForm::List, "\"N@T\"", false,
     [](ClusterOptions& o, std::string_view t) { o.joins.push_back(nodeEvent(t)); },
     [](const ClusterOptions& o) { return nodeEventTexts(o.joins); }, [](ClusterOptions& o) { o.joins.clear(); }},
    {"leaves", "leave", SettingForm::List, "\"N@T\"", false,
     [](ClusterOptions& o, std::string_view t) { o.leaves.push_back(nodeEvent(t)); },
     [](const ClusterOptions& o) { return nodeEventTexts(o.leaves); }, [](ClusterOptions& o) { o.leaves.clear(); }},
};

const PairOption kClusterPairs[] = {
    {"outage", "outage.from", "outage.to", "T1:T2 in seconds"},
    {"autoscale", "autoscale.min", "autoscale.max", "MIN:MAX nodes"},
};

const ClientSetting kClients[] = {
    {"clients", "clients", SettingForm::Number, "a whole number", false,
     [](ClientOptions& o, std::string_view t) { o.clients = parseIntegerIn(t, 1, ClientConfig::kMaxClients); },
     [](const ClientOptions& o) { return one(std::to_string(o.clients)); }},
    {"key", "key", SettingForm::Text, "client or global", false,
     [](ClientOptions& o, std::string_view t) { o.key = byId(t, "key", kAllKeyModes, keyModeId, keyModeFromId); },
     [](const ClientOptions& o) { return one(std::string(keyModeId(o.key))); }},
    {"retry", "retry", SettingForm::Text, "a retry policy id", false,
     [](ClientOptions& o, std::string_view t) {
         o.retry = byId(t, "policy", kAllRetryPolicies, retryPolicyId, retryPolicyFromId);
     },
     [](const ClientOptions& o) { return one(std::string(retryPolicyId(o.retry))); }},
    {"retry_delay", "retry-delay", SettingForm::Seconds, "a time in seconds", false,
     [](ClientOptions& o, std::string_view t) { o.retryDelayNanos = seconds(t); },
     [](const ClientOptions& o) { return one(formatSeconds(o.retryDelayNanos)); }},
    {"max_retries", "max-retries", SettingForm::Number, "a whole number", false,
     [](ClientOptions& o, std::string_view t) { o.maxRetries = parseIntegerIn(t, 0, ClientConfig::kMaxRetries); },
     [](const ClientOptions& o) { return one(std::to_string(o.maxRetries)); }},
    {"backoff_base", "backoff-base", SettingForm::Seconds, "a time in seconds", false,
     [](ClientOptions& o, std::string_view t) { o.backoffBaseNanos = seconds(t, true); },
     [](const ClientOptions& o) { return one(formatSeconds(o.backoffBaseNanos)); }},
    {"backoff_cap", "backoff-cap", SettingForm::Seconds, "a time in seconds", false,
     [](ClientOptions& o, std::string_view t) { o.backoffCapNanos = seconds(t, true); },
     [](const ClientOptions& o) { return one(formatSeconds(o.backoffCapNanos)); }},
    {"jitter", "jitter", SettingForm::Text, "a jitter id", false,
     [](ClientOptions& o, std::string_view t) { o.jitter = byId(t, "jitter", kAllJitters, jitterId, jitterFromId); },
     [](const ClientOptions& o) { return when(o.jitter != Jitter::Full, std::string(jitterId(o.jitter))); }},
    // Cohorts hold every client (ClientConfig::make); the command line sums them (withCohorts).
    {"cohorts", "cohort", SettingForm::List, "\"K:POLICY[:key=value,...]\"", false,
     [](ClientOptions& o, std::string_view t) { o.cohorts.push_back(parseCohort(t)); },
     [](const ClientOptions& o) {
         std::vector<std::string> out;
         for (const Cohort& c : o.cohorts)
             out.push_back(cohortText(c));
         return out;
     },
     [](ClientOptions& o) { o.cohorts.clear(); }},
};

template <typename Options>
std::string membersJson(std::span<const Setting<Options>> table, const Options& o, SecondsAs secondsAs)
{
    std::string out;
    std::string_view group; // the nested object open, if any
    bool first = true;      // the next member is its object's first
    for (const Setting<Options>& s : table) {
        const std::vector<std::string> texts = s.texts(o);
        if (texts.empty())
            continue;
        const auto dot = s.key.find('.');
        const std::string_view g = dot == std::string_view::npos ? std::string_view{} : s.key.substr(0, dot);
        const std::string_view name = dot == std::string_view::npos ? s.key : s.key.substr(dot + 1);
        if (g != group) {
            if (!group.empty())
                out += "}";
            first = group.empty() && out.empty();
            if (!g.empty()) {
                out += std::string(first ? "" : ", ") + jsonString(g) + ": {";
                first = true;
            }
            group = g;
        }
        out += std::string(first ? "" : ", ") + jsonString(name) + ": ";
        first = false;
        switch (s.form) {
        case SettingForm::Number: out += texts.front(); break;
        case SettingForm::Text: out += jsonString(texts.front()); break;
        case SettingForm::Seconds:
            out += secondsAs == SecondsAs::String ? jsonString(texts.front()) : texts.front();
            break;
        case SettingForm::List:
            out += "[";
            for (std::size_t i = 0; i < texts.size(); ++i)
                out += (i ? ", " : "") + jsonString(texts[i]);
            out += "]";
            break;
        }
    }
    if (!group.empty())
        out += "}";
    return out;
}

template <typename Options>
const Setting<Options>& settingOf(std::span<const Setting<Options>> table, std::string_view key)
{
    for (const Setting<Options>& s : table)
        if (s.key == key)
            return s;
    throw std::logic_error("no setting " + std::string(key));
}

} // namespace

std::span<const ClusterSetting> clusterSettings() { return kCluster; }
std::span<const ClientSetting> clientSettings() { return kClients; }
std::span<const PairOption> clusterPairOptions() { return kClusterPairs; }

void readPair(const PairOption& pair, ClusterConfig::Options& o, std::string_view text)
{
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        throw InputError("expected " + std::string(pair.shape) + " (got " + quoted(text) + ")");
    settingOf(clusterSettings(), pair.first).read(o, text.substr(0, colon));
    settingOf(clusterSettings(), pair.second).read(o, text.substr(colon + 1));
}

std::string clusterJson(const ClusterConfig::Options& o, SecondsAs seconds)
{
    return membersJson(clusterSettings(), o, seconds);
}

std::string clientsJson(const ClientOptions& o, SecondsAs seconds) { return membersJson(clientSettings(), o, seconds); }

} // namespace ratelab
