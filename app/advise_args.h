// `ratelab advise`'s options read into one value: the gateway, the goal, the output, and what
// depends on the gateway (its key, Envoy's fill_interval, a cap where a bound is derived).
#pragma once

#include "advise_current.h"

#include "advise/advise.h"
#include "advise/kong_advice.h"
#include "advise/let_by.h"
#include "arithmetic/nanos.h"
#include "traffic/traffic_log.h"

#include <QCommandLineParser>
#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ratelab::app {

struct AdviseArgs {
    std::string product;
    AdviceOptions options;
    std::string format = "text";
    std::size_t top = 5;
    QString write;
    std::string key = "ip";      // the log's key (--key)
    std::string keyFromCurrent;  // the key the current config's rules limit by, taken without --key (else "")
    KongLimitBy limitBy;         // Kong's limit_by for it
    Nanos fill = kNanosPerSecond; // Envoy's fill_interval (--fill-interval)
    bool compare = false;         // the textbook token bucket and GCRA beside it (--compare)
    std::string pass;             // the keys whose every request must pass, by pattern (--pass)
    LetBy letBy;                  // the requests the config lets by uncounted (--pass-path, --pass-agent)
    bool keepCurrent = false;     // --keep current: the keys the current config denies nothing are kept
    std::vector<std::uint8_t> keptBy; // with it, per key of the traffic advised on, whether it is one
    std::shared_ptr<const AgainstCurrent> current; // the config the gateway runs now (--config), read before the log
    // With --config whose rules meet only part of the log: the log's requests, and those met,
    // which the advice is made on (0, 0: every request).
    std::int64_t logRequests = 0, metRequests = 0;
    std::string metRules;                       // the current config's rules that meet them, by name
    bool metComplete = true;                    // every part of the current config replayed
    std::shared_ptr<const Traffic> logTraffic;  // the whole log, and which of its requests they are
    std::vector<std::uint8_t> met;
};

// addAdviseOptions adds `ratelab advise`'s options, the log's among them, to the parser.
void addAdviseOptions(QCommandLineParser& parser);

// fromCurrentText is what a refusal of the key adds when the key is the current config's ("").
std::string fromCurrentText(const AdviseArgs& a);

// readAdviseArgs reads the options, and the current config (--config), and refuses what cannot be
// advised (exit 2, one line) before the log is read.
AdviseArgs readAdviseArgs(const QCommandLineParser& p, const QString& log);

} // namespace ratelab::app
