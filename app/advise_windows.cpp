#include "advise_windows.h"
#include "advise_report.h"
#include "advise_window_table.h"

#include "advise_args.h"
#include "advise_current.h"
#include "command.h"
#include "config_dry_run.h"
#include "dry_run_command.h"
#include "outputpath.h"
#include "scenario_options.h"
#include "traffic_options.h"
#include "advise/aws_api_gateway_advice.h"
#include "advise/burst_gateway.h"
#include "advise/envoy_advice.h"
#include "advise/express_advice.h"
#include "advise/kong_advice.h"
#include "advise/managed_advice.h"
#include "advise/nginx_advice.h"
#include "advise/origin_load.h"
#include "advise/spring_advice.h"
#include "advise/textbook_advice.h"
#include "advise/traefik_advice.h"
#include "advise/upstash_advice.h"
#include "advise/window_gateway.h"
#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "replay/log_keys.h"
#include "replay/replay.h"
#include "replay/replay_memory.h"
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace ratelab::app::advising {

namespace {

// kongCapsText is what Kong's limits cap, longest period first: "120 requests in each minute of
// the clock and 10 in each second".
std::string kongCapsText(const KongLimits& limits)
{
    std::string out;
    for (int p = Kong::kPeriods - 1; p >= 0; --p)
        if (const std::int64_t l = limits[std::size_t(p)]; l != 0) {
            const std::string period(Kong::periodName(p));
            out += out.empty() ? counted(l, "request") + " in each " + period + " of the clock"
                               : " and " + grouping(l) + " in each " + period;
        }
    return out;
}

// KongReport is Kong's advice as reported: the goal met among its rows (kongRows), and the usual
// recommendation's row and text when the goal moved it.
struct KongReport {
    const KongAdvice& k;
    WindowGoal goal;
    std::size_t usualRow = 0;
    std::string usualPoint;
};

void writeKongText(std::ostream& out, const QString& log, const Traffic& traffic, const KongReport& kr,
                   const AdviseArgs& args, const std::string& config, const Proof& proof,
                   const std::vector<KeyDenials>& worst)
{
    const KongAdvice& k = kr.k;
    writeHeadline(out, "Kong", log, k.keys, args, traffic);
    writeWindowsHead(out, "window", args);
    for (int p = 0; p < kKongShownPeriods; ++p) {
        const KongPoint& w = k.windows[std::size_t(p)];
        writeWindowRow(out, std::string(Kong::periodName(p)), w.limits[std::size_t(p)], w.denied,
                       w.limits == k.recommended.limits, goalCells(args, kr.goal, std::size_t(p)));
    }
    const KongPoint& r = k.recommended;
    const std::string usual = r.limits[0] != 0 ? "the most one kept key sent in a minute, and under it the most it sent in a second"
                                               : "the most one kept key sent in a minute; it sent as many in a second, where a "
                                                 "limit would never bind";
    out << "\nrecommended: " << kongLimitsText(r.limits) << " (" << windowReason(args, kr.goal, usual, kr.usualPoint, kr.usualRow)
        << ")\n";
    writeCost(out, k.keys, r.denied, worst, traffic);
    out << "  it caps every key at " << kongCapsText(r.limits) << ": fixed windows, so a key may spend "
        << "one window's limit at its end and the next's at its start\n";
    writeProofText(out, k.keys, args, config, proof);
}

void writeKongPoint(std::ostream& out, const KongPoint& p)
{
    out << "{\"limits\": {";
    bool first = true;
    for (int i = 0; i < Kong::kPeriods; ++i)
        if (p.limits[std::size_t(i)] != 0) {
            out << (first ? "" : ", ") << jsonString(std::string(Kong::periodName(i))) << ": " << p.limits[std::size_t(i)];
            first = false;
        }
    out << "}, \"kept_denied\": " << p.denied.kept << ", \"others_denied\": " << p.denied.other
        << ", \"keys_denied\": " << p.denied.keys;
}

void writeKongJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                   const KongReport& kr, const AdviseArgs& args, const std::string& config, const Proof& proof,
                   const std::vector<KeyDenials>& worst)
{
    const KongAdvice& k = kr.k;
    writeJsonHead(out, "Kong", log, traffic, parser, k.keys, args);
    writeRowsJson(out, "windows", k.windows, k.recommended, [&](const KongPoint& p) { writeKongPoint(out, p); }, kr.goal,
                  args, worst, traffic);
    writeJsonTail(out, config, proof);
}

// expressPointText is a row as the options name it: "windowMs 60000, limit 12".
std::string expressPointText(const ExpressPoint& p)
{
    return "windowMs " + std::to_string(p.windowMs) + ", limit " + grouping(p.limit);
}

void writeExpressText(std::ostream& out, const QString& log, const Traffic& traffic, const ExpressAdvice& e,
                      const WindowGoal& goal, const AdviseArgs& args, const std::string& config, const Proof& proof,
                      const std::vector<KeyDenials>& worst)
{
    writeHeadline(out, "express-rate-limit", log, e.keys, args, traffic);
    writeWindowsHead(out, "windowMs", args);
    for (std::size_t i = 0; i < e.windows.size(); ++i)
        writeWindowRow(out, std::to_string(e.windows[i].windowMs), e.windows[i].limit, e.windows[i].denied,
                       i == e.recommendedIndex, goalCells(args, goal, i));
    const ExpressPoint& r = e.recommended();
    out << "\nrecommended: " << expressPointText(r) << " ("
        << windowReason(args, goal, "express-rate-limit's default window, and the most one kept key sent in one",
                        expressPointText(e.windows[kExpressRecommended]), kExpressRecommended)
        << ")\n";
    writeCost(out, e.keys, r.denied, worst, traffic);
    out << "  it caps every key at " << counted(r.limit, "request") << " in a window of " << r.windowMs
        << " ms from its first request after the last window ended; a denied request counts too, so a key that keeps "
           "retrying stays denied until its window ends\n";
    writeProofText(out, e.keys, args, config, proof);
}

void writeExpressJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                      const ExpressAdvice& e, const WindowGoal& goal, const AdviseArgs& args, const std::string& config,
                      const Proof& proof, const std::vector<KeyDenials>& worst)
{
    writeJsonHead(out, "express-rate-limit", log, traffic, parser, e.keys, args);
    const auto point = [&](const ExpressPoint& p) {
        out << "{\"windowMs\": " << p.windowMs << ", \"limit\": " << p.limit << ", \"kept_denied\": " << p.denied.kept
            << ", \"others_denied\": " << p.denied.other << ", \"keys_denied\": " << p.denied.keys;
    };
    writeRowsJson(out, "windows", e.windows, e.recommended(), point, goal, args, worst, traffic);
    writeJsonTail(out, config, proof);
}

// ManagedTerms is how the report names a managed edge's settings (Cloudflare's, AWS WAF's).
struct ManagedTerms {
    std::string product, column, window, limit;
};

ManagedTerms managedTerms(const AdviseArgs& a)
{
    return a.product == "cloudflare" ? ManagedTerms{"Cloudflare", "period", "period", "requests_per_period"}
                                     : ManagedTerms{"AWS WAF", "window", "EvaluationWindowSec", "Limit"};
}

// managedCapsText says what the recommendation does to a key, in the product's terms.
std::string managedCapsText(const AdviseArgs& a, const WindowPoint& r)
{
    const std::string window = std::to_string(r.window) + " s";
    if (a.product == "cloudflare")
        return "it blocks a key for " + window + " (mitigation_timeout) once its count passes " + grouping(r.limit)
               + ": this period's requests plus the last period's weighted by how much of it lies in the " + window
               + " before; periods on the clock, as Cloudflare counts them; blocked requests are not counted";
    const AwsWafRate rule = wafRule(r.window, r.limit);
    return "it blocks a key while the last check (every " + formatSeconds(rule.checkInterval()) + " s, in force "
           + formatSeconds(rule.detectionDelay()) + " s later) counted more than " + grouping(r.limit)
           + " of its requests in the " + window + " before it: a burst passes whole until a check sees it, and blocked "
           "requests count too";
}

// managedPointText is a row as the rule names it: "period 60, requests_per_period 40".
std::string managedPointText(const ManagedTerms& t, const WindowPoint& p)
{
    return t.window + " " + std::to_string(p.window) + ", " + t.limit + " " + grouping(p.limit);
}

void writeManagedText(std::ostream& out, const QString& log, const Traffic& traffic, const WindowAdvice& w,
                      const WindowGoal& goal, const AdviseArgs& args, const std::string& config, const Proof& proof,
                      const std::vector<KeyDenials>& worst)
{
    const ManagedTerms t = managedTerms(args);
    writeHeadline(out, t.product, log, w.keys, args, traffic);
    writeWindowsHead(out, t.column, args);
    for (std::size_t i = 0; i < w.windows.size(); ++i)
        writeWindowRow(out, std::to_string(w.windows[i].window) + " s", w.windows[i].limit, w.windows[i].denied,
                       i == w.recommendedIndex, goalCells(args, goal, i));
    if (std::any_of(w.windows.begin(), w.windows.end(), [](const WindowPoint& p) { return p.least < p.limit; }))
        out << "  (AWS's least Limit is " << kWafMinLimit << ": where the kept keys need less, " << kWafMinLimit
            << " is written and measured)\n";
    const WindowPoint& r = w.recommended();
    const std::size_t usualRow = args.product == "cloudflare" ? kCloudflareRecommended : kWafRecommended;
    const std::string usual = args.product == "cloudflare" ? "a minute, and the least limit at which the sliding count lets "
                                                             "every request of the kept keys through"
                                                           : "AWS's default window, and the most requests of one kept key "
                                                             "that a check in force at one of them counted";
    out << "\nrecommended: " << managedPointText(t, r) << " ("
        << windowReason(args, goal, usual, managedPointText(t, w.windows[usualRow]), usualRow) << ")\n";
    writeCost(out, w.keys, r.denied, worst, traffic);
    out << "  " << managedCapsText(args, r) << "\n";
    writeProofText(out, w.keys, args, config, proof);
}

void writeManagedJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                      const WindowAdvice& w, const WindowGoal& goal, const AdviseArgs& args, const std::string& config,
                      const Proof& proof, const std::vector<KeyDenials>& worst)
{
    const ManagedTerms t = managedTerms(args);
    writeJsonHead(out, t.product, log, traffic, parser, w.keys, args);
    const auto point = [&](const WindowPoint& p) {
        out << "{" << jsonString(t.window) << ": " << p.window << ", \"least\": " << p.least << ", " << jsonString(t.limit)
            << ": " << p.limit << ", \"kept_denied\": " << p.denied.kept << ", \"others_denied\": " << p.denied.other
            << ", \"keys_denied\": " << p.denied.keys;
    };
    writeRowsJson(out, "windows", w.windows, w.recommended(), point, goal, args, worst, traffic);
    writeJsonTail(out, config, proof);
}

void writeUpstashText(std::ostream& out, const QString& log, const Traffic& traffic, const UpstashAdvice& u,
                      const WindowGoal& goal, const AdviseArgs& args, const std::string& config, const Proof& proof,
                      const std::vector<KeyDenials>& worst)
{
    writeHeadline(out, "@upstash/ratelimit", log, u.keys, args, traffic);
    out << "the limiters: for each, the least tokens at which every request of the kept keys passes, and what it "
           "alone denies\n  "
        << padded("limiter", 22, true) << padded("tokens", 8) << padded("kept denied", 13) << padded("others denied", 15)
        << padded("keys denied", 13) << goalColumns(args) << "\n";
    for (std::size_t i = 0; i < u.limiters.size(); ++i) {
        const UpstashPoint& p = u.limiters[i];
        out << "  " << padded(std::string(p.sliding ? "slidingWindow " : "fixedWindow ") + upstashWindowText(p.windowMs), 22, true)
            << padded(grouping(p.tokens), 8) << padded(grouping(p.denied.kept), 13) << padded(grouping(p.denied.other), 15)
            << padded(grouping(p.denied.keys), 13) << goalCells(args, goal, i)
            << (i == u.recommendedIndex ? "  <- recommended" : "") << "\n";
    }
    const UpstashPoint& r = u.recommended();
    out << "\nrecommended: Ratelimit." << upstashLimiterCall(r) << " ("
        << windowReason(args, goal, "the package's own example window, and the least tokens the kept keys need in it",
                        "Ratelimit." + upstashLimiterCall(u.limiters[kUpstashRecommended]), kUpstashRecommended)
        << ")\n";
    writeCost(out, u.keys, r.denied, worst, traffic);
    out << "  it caps every identifier at " << counted(r.tokens, "request") << " in each window of "
        << upstashWindowText(r.windowMs) << " of the clock"
        << (r.sliding ? ", less the previous window's count weighted by how much of it the sliding window still covers "
                        "(rounded down)"
                      : ": fixed windows, so one may spend a window's tokens at its end and the next's at its start")
        << "; a denied identifier stays denied in the process until its window ends (the ephemeral cache)\n";
    writeProofText(out, u.keys, args, config, proof);
}

void writeUpstashJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                      const UpstashAdvice& u, const WindowGoal& goal, const AdviseArgs& args, const std::string& config,
                      const Proof& proof, const std::vector<KeyDenials>& worst)
{
    writeJsonHead(out, "@upstash/ratelimit", log, traffic, parser, u.keys, args);
    const auto point = [&](const UpstashPoint& p) {
        out << "{\"limiter\": " << jsonString(p.sliding ? "slidingWindow" : "fixedWindow") << ", \"window\": "
            << jsonString(upstashWindowText(p.windowMs)) << ", \"tokens\": " << p.tokens << ", \"kept_denied\": "
            << p.denied.kept << ", \"others_denied\": " << p.denied.other << ", \"keys_denied\": " << p.denied.keys;
    };
    writeRowsJson(out, "limiters", u.limiters, u.recommended(), point, goal, args, worst, traffic);
    writeJsonTail(out, config, proof);
}

} // namespace

int runKong(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const KeyedTraces traces = tracesFor(a, traffic);
    KongAdvice k = adviseKong(traces, a.options.keep);
    if (const std::string problem = kongUnkeyedProblem(a.key, a.limitBy.consumer, k.keys.unlimitedRequests); !problem.empty())
        throw InputError("--key: " + problem + fromCurrentText(a));
    const std::vector<KongPoint> rows = kongRows(k);
    const std::size_t usualRow = kongRecommendedRow(k);
    const KongReport kr{k, windowGoal(a, traces, k.keys, kongRowModels(k, a.limitBy.consumer), denialsOf(rows), usualRow,
                                      windowGatewayName(a.product),
                                      [&](std::size_t r) { return kongLimitsText(rows[r].limits); }),
                        usualRow, kongLimitsText(k.recommended.limits)};
    if (kr.goal && kr.goal->moved) {
        k.recommended = rows[kr.goal->recommended];
        k.deniedPerKey = kr.goal->deniedPerKey;
    }
    const std::string config = kongAdviceConfig(k.recommended.limits, a.limitBy, a.letBy);
    const Proof proof = prove(config, k.deniedPerKey, k.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeKongJson(std::cout, log, traffic, parser, kr, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeKongText(std::cout, log, traffic, kr, a, config, proof, worst); });
}

int runExpress(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const KeyedTraces traces = tracesFor(a, traffic);
    ExpressAdvice e = adviseExpress(traces, a.options.keep);
    const WindowGoal goal = windowGoal(a, traces, e.keys, expressRowModels(e), denialsOf(e.windows), e.recommendedIndex,
                                       windowGatewayName(a.product),
                                       [&](std::size_t r) { return expressPointText(e.windows[r]); });
    if (goal && goal->moved) {
        e.recommendedIndex = goal->recommended;
        e.deniedPerKey = goal->deniedPerKey;
    }
    const std::string config = expressAdviceConfig(e.recommended().windowMs, e.recommended().limit);
    const Proof proof = prove(config, e.deniedPerKey, e.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeExpressJson(std::cout, log, traffic, parser, e, goal, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeExpressText(std::cout, log, traffic, e, goal, a, config, proof, worst); });
}

int runUpstash(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const KeyedTraces traces = tracesFor(a, traffic);
    UpstashAdvice u = adviseUpstash(traces, a.options.keep);
    const WindowGoal goal = windowGoal(a, traces, u.keys, upstashRowModels(u), denialsOf(u.limiters), u.recommendedIndex,
                                       windowGatewayName(a.product),
                                       [&](std::size_t r) { return "Ratelimit." + upstashLimiterCall(u.limiters[r]); });
    if (goal && goal->moved) {
        u.recommendedIndex = goal->recommended;
        u.deniedPerKey = goal->deniedPerKey;
    }
    const std::string config = upstashAdviceSnippet(u.recommended());
    const Proof proof = prove(config, u.deniedPerKey, u.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeUpstashJson(std::cout, log, traffic, parser, u, goal, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeUpstashText(std::cout, log, traffic, u, goal, a, config, proof, worst); });
}

int runManaged(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const bool cloudflare = a.product == "cloudflare";
    const KeyedTraces traces = tracesFor(a, traffic);
    WindowAdvice w = cloudflare ? adviseCloudflare(traces, a.options.keep) : adviseAwsWaf(traces, a.options.keep);
    const ManagedTerms t = managedTerms(a);
    const WindowGoal goal = windowGoal(a, traces, w.keys, managedRowModels(w, cloudflare), denialsOf(w.windows),
                                       w.recommendedIndex, windowGatewayName(a.product),
                                       [&](std::size_t r) { return managedPointText(t, w.windows[r]); });
    if (goal && goal->moved) {
        w.recommendedIndex = goal->recommended;
        w.deniedPerKey = goal->deniedPerKey;
    }
    const WindowPoint& r = w.recommended();
    const std::string config = cloudflare ? cloudflareAdviceConfig(r.window, r.limit) : wafAdviceConfig(r.window, r.limit);
    const Proof proof = prove(config, w.deniedPerKey, w.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeManagedJson(std::cout, log, traffic, parser, w, goal, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeManagedText(std::cout, log, traffic, w, goal, a, config, proof, worst); });
}

} // namespace ratelab::app::advising
