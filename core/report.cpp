#include "report.h"

#include <charconv>
#include <cmath>

namespace ratelab {

namespace {

std::string jsonString(std::string_view s)
{
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

void writeInput(std::ostream& out, const Scenario& s, const Trace& trace)
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
        }
    }
    if (!s.title.empty())
        out << ", \"title\": " << jsonString(s.title);
    if (!trace.costs.empty()) // request cost (issue 14): only when some request costs more than 1
        out << ", \"cost\": " << s.cost << (s.explicitArrivals && !s.explicitCosts.empty() ? ", \"costs\": \"file\"" : "");
    out << ", \"requests\": " << trace.arrivals.size() << "}";
}

// retryText writes retry_after in seconds, or `never` (JSON null, CSV empty) when no wait helps.
std::string retryText(const Decision& d, const char* never)
{
    return d.retryNever() ? std::string(never) : formatSeconds(d.retryAfter);
}

} // namespace

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

void writeJson(std::ostream& out, const Scenario& scenario, const Trace& trace, const ClusterReport* cluster)
{
    out << "{\"input\": ";
    writeInput(out, scenario, trace);
    out << ",\n \"results\": {";
    for (std::size_t r = 0; r < trace.results.size(); ++r) {
        const AlgorithmTrace& a = trace.results[r];
        const Metrics& m = a.metrics;
        out << (r ? ",\n  " : "\n  ") << jsonString(algorithmId(a.algorithm)) << ": {\"allowed\": " << m.allowed
            << ", \"denied\": " << m.denied << ", \"delayed\": " << m.delayed << ", \"max_in_window\": "
            << m.maxInWindow << ", \"overshoot\": " << formatNumber(m.overshoot) << ", \"memory\": {\"bytes\": "
            << m.memory.bytes << ", \"entries\": " << m.memory.entries << "}";
        if (!trace.costs.empty())
            out << ", \"allowed_cost\": " << m.allowedCost << ", \"never\": " << m.never;
        if (cluster) {
            out << ",\n   \"cluster\": {\"nodes\": " << cluster->config.nodes() << ", \"coordination\": "
                << jsonString(coordinationId(cluster->config.coordination())) << ", \"per_node_allowed\": [";
            for (std::size_t n = 0; n < cluster->perNodeAllowed[r].size(); ++n)
                out << (n ? ", " : "") << cluster->perNodeAllowed[r][n];
            out << "]}";
        }
        out << ",\n   \"sequence\": [";
        for (std::size_t i = 0; i < a.decisions.size(); ++i) {
            const Decision& d = a.decisions[i];
            out << (i ? ",\n    " : "\n    ") << "{\"t\": " << formatSeconds(trace.arrivals[i])
                << ", \"allowed\": " << (d.allowed ? "true" : "false") << ", \"delay\": " << formatSeconds(d.delay)
                << ", \"remaining\": " << d.remaining << ", \"retry_after\": " << retryText(d, "null")
                << ", \"level\": " << formatNumber(d.level);
            if (!trace.costs.empty())
                out << ", \"cost\": " << trace.costs[i];
            if (cluster)
                out << ", \"node\": " << int(cluster->nodes[r][i]);
            out << "}";
        }
        out << "]}";
    }
    out << "}}\n";
}

void writeCsv(std::ostream& out, const Trace& trace, const ClusterReport* cluster)
{
    out << "algorithm,t,allowed,delay,remaining,retry_after,level" << (trace.costs.empty() ? "" : ",cost")
        << (cluster ? ",node" : "") << "\n";
    for (std::size_t r = 0; r < trace.results.size(); ++r) {
        const AlgorithmTrace& a = trace.results[r];
        const std::string_view id = algorithmId(a.algorithm);
        for (std::size_t i = 0; i < a.decisions.size(); ++i) {
            const Decision& d = a.decisions[i];
            out << id << ',' << formatSeconds(trace.arrivals[i]) << ',' << (d.allowed ? "true" : "false") << ','
                << formatSeconds(d.delay) << ',' << d.remaining << ',' << retryText(d, "") << ','
                << formatNumber(d.level);
            if (!trace.costs.empty())
                out << ',' << trace.costs[i];
            if (cluster)
                out << ',' << int(cluster->nodes[r][i]);
            out << '\n';
        }
    }
}

} // namespace ratelab

// --- Clients that react (issue 13) ---
namespace ratelab {

void writeJsonInput(std::ostream& out, const Scenario& scenario, const Trace& trace)
{
    writeInput(out, scenario, trace);
}

} // namespace ratelab
