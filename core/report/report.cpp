#include "report/report.h"

#include "engine/admitted_window.h"
#include "report/report_parts.h"

#include "report/headers.h"
#include "report/text_buffer.h"
#include "limiters/worst_case.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ratelab {

namespace detail {

void writeInput(std::ostream& out, const Scenario& s, bool hasCosts, std::size_t requests)
{
    const LimiterConfig& c = s.config;
    out << "{\"algorithms\": [";
    for (std::size_t i = 0; i < s.algorithms.size(); ++i)
        out << (i ? ", " : "") << jsonString(algorithmId(s.algorithms[i]));
    out << "], \"limit\": " << c.limit() << ", \"window\": " << formatSeconds(c.windowNanos())
        << ", \"capacity\": " << c.capacity() << ", \"rate\": " << formatNumber(c.rate().perSecond())
        << ", \"rate_exact\": " << jsonString(c.rate().exactText());
    const Pattern& p = s.pattern;
    if (s.explicitArrivals) {
        out << ", \"pattern\": \"file\"";
    } else {
        out << ", \"pattern\": " << jsonString(patternId(p.kind)) << ", \"start\": " << formatSeconds(p.startNanos);
        switch (p.kind) {
        case PatternKind::Uniform: out << ", \"n\": " << p.count << ", \"delay\": " << formatSeconds(p.delayNanos); break;
        case PatternKind::Burst:
            out << ", \"n\": " << p.count << ", \"size\": " << p.burstSize << ", \"period\": "
                << formatSeconds(p.periodNanos);
            break;
        case PatternKind::Poisson:
            out << ", \"n\": " << p.count << ", \"lambda\": " << formatNumber(p.lambda.perSecond())
                << ", \"seed\": " << p.seed;
            break;
        case PatternKind::Edge: out << ", \"gap\": " << formatSeconds(p.gapNanos); break;
        case PatternKind::Worst:
            out << ", \"worst_of\": " << jsonString(algorithmId(p.worstOf)) << ", \"window_of\": "
                << formatSeconds(boundWindowNanos(p, s.config));
            break;
        }
    }
    if (!s.title.empty())
        out << ", \"title\": " << jsonString(s.title);
    if (hasCosts) // request cost: only when some request costs more than 1
        out << ", \"cost\": " << s.cost << (s.explicitArrivals && !s.explicitCosts.empty() ? ", \"costs\": \"file\"" : "");
    if (s.bucketsStartEmpty) // only when not the default, full
        out << ", \"buckets_start\": \"empty\"";
    if (!s.changes.empty()) {
        out << ", \"changes\": [";
        for (std::size_t i = 0; i < s.changes.size(); ++i)
            out << (i ? ", " : "") << jsonString(limitChangeText(s.changes[i]));
        out << "]";
    }
    out << ", \"requests\": " << requests << "}";
}

// inputText is the "input" object, for a Text.
std::string inputText(const Scenario& s, bool hasCosts, std::size_t requests)
{
    std::ostringstream out;
    writeInput(out, s, hasCosts, requests);
    return out.str();
}

// writeResultHead writes `"ID": {"allowed": ..., "memory": {...}` and, with costs, allowed_cost
// and never: a result up to its cluster or sequence.
void writeResultHead(Text& out, std::string_view id, const Metrics& m, bool hasCosts)
{
    out << jsonString(id) << ": {\"allowed\": " << m.allowed << ", \"denied\": " << m.denied << ", \"delayed\": "
        << m.delayed << ", \"max_in_window\": " << m.maxInWindow << ", \"overshoot\": ";
    out.number(m.overshoot) << ", \"memory\": {\"bytes\": " << m.memory.bytes << ", \"entries\": " << m.memory.entries
                            << "}";
    if (hasCosts)
        out << ", \"allowed_cost\": " << m.allowedCost << ", \"never\": " << m.never;
}

void writeBound(Text& out, std::optional<Algorithm> a, const Scenario& s, std::int64_t reached)
{
    const Nanos T = boundWindowNanos(s.pattern, s.config);
    const std::optional<std::int64_t> bound = a ? worstCaseBound(*a, s.config, T) : std::nullopt;
    out << ", \"bound\": {\"window\": " << formatSeconds(T) << ", \"at_most\": ";
    if (bound)
        out << *bound;
    else
        out << "null";
    out << ", \"reached\": " << reached << "}";
}

// writeEntry writes one JSON sequence entry without its closing brace (a cluster's node and the
// headers may follow). cost is null when every request costs 1.
void writeEntry(Text& out, Nanos t, const Decision& d, const std::int64_t* cost, bool open)
{
    out << (open ? "{\"t\": " : "\"t\": ");
    out.seconds(t) << ", \"allowed\": " << (d.allowed ? "true" : "false") << ", \"delay\": ";
    out.seconds(d.delay) << ", \"remaining\": " << d.remaining << ", \"retry_after\": ";
    if (d.retryNever())
        out << "null";
    else
        out.seconds(d.retryAfter);
    out << ", \"level\": ";
    out.number(d.level);
    if (cost)
        out << ", \"cost\": " << *cost;
}

// writeCsvRow writes one CSV row without its line end (a cluster's node and the headers may follow).
void writeCsvRow(Text& out, std::string_view id, Nanos t, const Decision& d, const std::int64_t* cost)
{
    out << id << ',';
    writeCsvTail(out, t, d, cost);
}

void writeCsvTail(Text& out, Nanos t, const Decision& d, const std::int64_t* cost)
{
    out.seconds(t) << ',' << (d.allowed ? "true" : "false") << ',';
    out.seconds(d.delay) << ',' << d.remaining << ',';
    if (!d.retryNever())
        out.seconds(d.retryAfter);
    out << ',';
    out.number(d.level);
    if (cost)
        out << ',' << *cost;
}

// costAt points at request i's cost, or is null when every request costs 1.
const std::int64_t* costAt(const std::vector<std::int64_t>& costs, std::size_t i)
{
    return costs.empty() ? nullptr : &costs[i];
}

void writeHeadersJson(Text& out, const std::vector<Header>& headers)
{
    out << ", \"headers\": {";
    for (std::size_t h = 0; h < headers.size(); ++h)
        out << (h ? ", " : "") << jsonString(headers[h].name) << ": " << jsonString(headers[h].value);
    out << "}";
}

} // namespace detail

using namespace detail;

std::string formatNumber(double v)
{
    if (!std::isfinite(v))
        return "null";
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, end);
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s;
}

bool streamable(const Scenario& scenario, bool headers)
{
    return scenario.layers.empty() && !scenario.cluster && !scenario.clients && !scenario.bucketsStartEmpty
        && scenario.changes.empty() && !scenario.server && scenario.throttle.empty()
        && !headers;
}

void streamJson(std::ostream& out, const Scenario& scenario)
{
    const std::vector<std::int64_t> costs = resolveCosts(scenario); // resolved as the rows resolve them, so the same error comes first
    const std::vector<Nanos> arrivals = resolveArrivals(scenario);
    const bool hasCosts = !costs.empty();
    Text text(out);
    text << "{\"input\": " << inputText(scenario, hasCosts, arrivals.size()) << ",\n \"results\": {";
    const Nanos boundWindow = boundWindowNanos(scenario.pattern, scenario.config);
    const auto lookback = makeWindowLookback(arrivals, scenario.config.windowNanos());
    for (std::size_t r = 0; r < scenario.algorithms.size(); ++r) {
        const Algorithm a = scenario.algorithms[r];
        // The metrics come before the sequence: one pass to measure, a second to write.
        AdmittedWindow window(boundWindow);
        std::int64_t reached = 0;
        const Metrics m = decideStream(scenario.config, a, arrivals, costs, [&](std::size_t first, std::span<const Decision> d) {
            for (std::size_t k = 0; k < d.size(); ++k)
                if (d[k].allowed)
                    reached = std::max(reached, window.add(arrivals[first + k], true, costs.empty() ? 1 : costs[first + k]));
        }, lookback.get());
        text << (r ? ",\n  " : "\n  ");
        writeResultHead(text, algorithmId(a), m, hasCosts);
        writeBound(text, a, scenario, reached);
        text << ",\n   \"sequence\": [";
        decideStream(scenario.config, a, arrivals, costs, [&](std::size_t first, std::span<const Decision> decisions) {
            for (std::size_t k = 0; k < decisions.size(); ++k) {
                const std::size_t i = first + k;
                text << (i ? ",\n    " : "\n    ");
                writeEntry(text, arrivals[i], decisions[k], costAt(costs, i));
                text << "}";
            }
            text.flushSome();
        }, lookback.get());
        text << "]}";
    }
    text << "}}\n";
}

void streamCsv(std::ostream& out, const Scenario& scenario)
{
    const std::vector<std::int64_t> costs = resolveCosts(scenario); // resolved as the rows resolve them, so the same error comes first
    const std::vector<Nanos> arrivals = resolveArrivals(scenario);
    streamCsv(out, scenario.config, scenario.algorithms, arrivals, costs);
}

void streamCsv(std::ostream& out, const LimiterConfig& config, std::span<const Algorithm> algorithms,
               std::span<const Nanos> arrivals, std::span<const std::int64_t> costs)
{
    Text text(out);
    text << "algorithm,t,allowed,delay,remaining,retry_after,level" << (costs.empty() ? "" : ",cost") << '\n';
    const auto lookback = makeWindowLookback(arrivals, config.windowNanos());
    for (const Algorithm a : algorithms) {
        const std::string id = csvField(algorithmId(a));
        decideStream(config, a, arrivals, costs, [&](std::size_t first, std::span<const Decision> decisions) {
            for (std::size_t k = 0; k < decisions.size(); ++k) {
                const std::size_t i = first + k;
                writeCsvRow(text, id, arrivals[i], decisions[k], costs.empty() ? nullptr : &costs[i]);
                text << '\n';
            }
            text.flushSome();
        }, lookback.get());
    }
}

} // namespace ratelab
