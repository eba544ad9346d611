// What `ratelab advise` prints of any product's advice: the headline, the cost, the proof (the
// written config's dry run on the log) and the JSON's head and tail, which the front's report
// (advise_command.cpp) and the windows' (advise_windows.cpp) both write.
#pragma once

#include "advise_args.h"
#include "advise_current.h"
#include "traffic_options.h"

#include "advise/advise.h"
#include "advise/origin_load.h"
#include "replay/dry_run.h"
#include "replay/replay.h"

#include <QCommandLineParser>
#include <QString>

#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ratelab::app::advising {

// Proof is the dry run of the written config on the log, whether it denies what the advice says,
// and what it leaves for the origin.
struct Proof {
    DryRunResult result;
    bool equal = false;
    OriginLoad origin;
    std::optional<AgainstCurrent> current; // beside the config the gateway runs now (--config)
};

// tracesFor groups the traffic by key for a window product's advice, with the keys kept as the
// options say (--pass, --keep current).
KeyedTraces tracesFor(const AdviseArgs& a, const Traffic& traffic);

// prove runs the dry run on the written config: it must deny each key what the advice says, and
// count the limited requests.
Proof prove(const std::string& config, const std::vector<std::int64_t>& deniedPerKey, const KeptKeys& keys,
            const AdviseArgs& a, const Traffic& traffic);

// padded is s in a column of `width`, right-aligned (left: left-aligned).
std::string padded(const std::string& s, std::size_t width, bool left = false);

// shadowText introduces the written config: the product's dry-run form, or that it has none.
std::string shadowText(const AdviseArgs& args);

// writeCost is what a limit costs the keys: the kept keys' denials, the others', and the keys it
// denies most, named.
void writeCost(std::ostream& out, const KeptKeys& a, const DenialCount& denied, const std::vector<KeyDenials>& worst,
               const Traffic& traffic);

// originText is the origin goal as the recommendation meets it: "at most 30 reach the origin in any 1 s of the log".
std::string originText(const OriginGoal& o);

// writeHeadline says what the advice is made on, and writes whose requests must pass.
void writeHeadline(std::ostream& out, const std::string& product, const QString& log, const KeptKeys& a,
                   const AdviseArgs& args, const Traffic& traffic);

// writeProofText is the written config, introduced by the product's dry-run form, and its proof.
void writeProofText(std::ostream& out, const KeptKeys& a, const AdviseArgs& args, const std::string& config,
                    const Proof& proof);

// writeJsonHead opens the JSON: the product, the log read, its warnings and the keys kept.
void writeJsonHead(std::ostream& out, const std::string& product, const QString& log, const Traffic& traffic,
                   const QCommandLineParser& parser, const KeptKeys& a, const AdviseArgs& args);

// writeGoalsJson adds the goals asked (--cap, --origin), each as given, to the recommendation's
// JSON object: ", \"cap\": {...}, \"origin_goal\": {...}", nothing for one not asked.
void writeGoalsJson(std::ostream& out, const AdviseArgs& args);

// writeTopKeys is the "top_keys" array: the keys denied most, as the dry run ranks them.
void writeTopKeys(std::ostream& out, const std::vector<KeyDenials>& worst, const Traffic& traffic);

// writeJsonTail closes the JSON: the config and its proof.
void writeJsonTail(std::ostream& out, const std::string& config, const Proof& proof);

// settle checks the proof and saves the config: the exit status when either fails.
std::optional<int> settle(const Proof& proof, const AdviseArgs& a, const std::string& config);

// worstKeys ranks the keys by the dry run's own figures, as replay ranks its keys.
std::vector<KeyDenials> worstKeys(const Proof& proof, const AdviseArgs& a, const Traffic& traffic);

// report settles the proof, then prints the traffic's warnings and the report in the format asked
// for; json and text each write it given the worst keys.
template <typename Json, typename Text>
int report(const Proof& proof, const AdviseArgs& a, const std::string& config, const Traffic& traffic, Json json, Text text)
{
    if (const std::optional<int> failed = settle(proof, a, config))
        return *failed;
    const std::vector<KeyDenials> worst = worstKeys(proof, a, traffic);
    printWarnings(trafficWarningList(traffic));
    if (a.format == "json")
        json(worst);
    else
        text(worst);
    return 0;
}

} // namespace ratelab::app::advising
