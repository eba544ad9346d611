// The one codec of a scenario's cluster and client settings: each setting's names (its
// key in a scenario file, its command-line option), its text form, its check and the reason it
// gives live here once, in a table that the scenario file (io/scenariofile*), the command line
// (app/cluster_options.cpp, app/client_options.cpp) and the JSON report (report_run.cpp) all go
// through.
//
// A setting is read from text and written as text: a whole number ("3"), an id ("racy"), a time
// in seconds as an exact decimal ("0.05"), a rate ("5/2"), or a list of items each in the
// option's grammar ("1@0.5", "9:retry_after"). Its check is of the value alone ("must not be
// negative (got -1)"); how values combine (latency only for racy, cohorts holding every client)
// is ClusterConfig::make's and ClientConfig::make's. A refusal is the reason only: each source
// prefixes it with the name it knows the setting by ("--latency: ", "\"cluster.latency\": ").
//
// The file nests two groups: "outage.from" is the key "from" of the object "outage". The command
// line gives such a pair in one option, "--outage T1:T2" (PairOption).
#pragma once

#include "engine/clients.h"
#include "engine/cluster.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// SettingForm is how a setting's text is written in JSON: Number bare, Text as a string, Seconds
// as a string in a scenario file and bare in a report (SecondsAs), List as an array of strings.
enum class SettingForm : std::uint8_t { Number, Text, Seconds, List };

// Setting is one setting of Options (ClusterConfig::Options or ClientOptions).
template <typename Options>
struct Setting {
    std::string_view key;      // in the file's object; "outage.from" is "from" in "outage"
    std::string_view flag;     // the command-line option, without "--"; empty when a PairOption sets it
    SettingForm form = SettingForm::Number;
    std::string_view expected; // what a file's value (a list's item) must be: "a time in seconds"
    bool required = false;     // a nested object must hold it ("autoscale.min")
    // read parses text (a list: one item, appended) into o, checking the value alone. It throws
    // InputError with the reason only.
    void (*read)(Options& o, std::string_view text) = nullptr;
    // texts returns the setting's text (a list: each item's); empty when it is not written
    // (latency outside racy, a full jitter, no outage).
    std::vector<std::string> (*texts)(const Options& o) = nullptr;
    // clear drops a list's items before a source gives its own (nullptr for a scalar).
    void (*clear)(Options& o) = nullptr;
};

using ClusterSetting = Setting<ClusterConfig::Options>;
using ClientSetting = Setting<ClientOptions>;

// clusterSettings and clientSettings return the tables, in the order files and reports write them.
std::span<const ClusterSetting> clusterSettings();
std::span<const ClientSetting> clientSettings();

// PairOption is a command-line option that gives two settings as "A:B": --outage T1:T2 gives
// outage.from and outage.to.
struct PairOption {
    std::string_view flag;
    std::string_view first, second; // the settings' keys
    std::string_view shape;         // for a refusal: "T1:T2 in seconds"
};

// clusterPairOptions returns the cluster's pair options: outage and autoscale.
std::span<const PairOption> clusterPairOptions();

// readPair reads "A:B" into the pair's two settings. It throws InputError with the reason only
// ("expected T1:T2 in seconds (got '1')").
void readPair(const PairOption& pair, ClusterConfig::Options& o, std::string_view text);

// SecondsAs says how Seconds settings are written: a scenario file writes strings ("0.05"), a
// report numbers (0.05), as every other time of each.
enum class SecondsAs : std::uint8_t { String, Number };

// clusterJson and clientsJson write the settings o holds as the members of a JSON object, in the
// table's order, a nested group as an object of its own: "\"nodes\": 2, \"balancer\": ...".
std::string clusterJson(const ClusterConfig::Options& o, SecondsAs seconds);
std::string clientsJson(const ClientOptions& o, SecondsAs seconds);

// idList lists the ids of all values, comma-separated ("round_robin, random, hash").
template <typename All, typename Id>
std::string idList(const All& all, Id id)
{
    std::string out;
    for (auto v : all)
        out += (out.empty() ? "" : ", ") + std::string(id(v));
    return out;
}

} // namespace ratelab
