// `ratelab advise` for the gateways of a count in a window (Kong, express-rate-limit, Cloudflare,
// AWS WAF, @upstash/ratelimit): each offered window's least limit, the goals met among them
// (window_goals.h), the written config and its proof.
#pragma once

#include "advise_args.h"

#include "traffic/traffic_log.h"

#include <QCommandLineParser>
#include <QString>

namespace ratelab::app::advising {

// Each runs `advise --for PRODUCT` on the traffic and prints its report: the exit status.
int runKong(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic);

int runExpress(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic);

// runUpstash: the identifier's windows are Date.now()'s, so the log's start since 1970 is added.
int runUpstash(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic);

int runManaged(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic);

} // namespace ratelab::app::advising
