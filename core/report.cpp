#include "report.h"

#include "headers.h"

#include <algorithm>
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

void writeHeadersJson(std::ostream& out, const std::vector<Header>& headers)
{
    out << ", \"headers\": {";
    for (std::size_t h = 0; h < headers.size(); ++h)
        out << (h ? ", " : "") << jsonString(headers[h].name) << ": " << jsonString(headers[h].value);
    out << "}";
}

// writeLayeredJson writes the result "layered" (issue 14), shaped like an algorithm's.
void writeLayeredJson(std::ostream& out, const Trace& trace, bool afterOthers)
{
    const LayeredTrace& l = *trace.layered;
    const Metrics& m = l.metrics;
    out << (afterOthers ? ",\n  " : "\n  ") << "\"layered\": {\"allowed\": " << m.allowed << ", \"denied\": " << m.denied
        << ", \"delayed\": " << m.delayed << ", \"never\": " << m.never << ", \"layers\": [";
    for (std::size_t k = 0; k < l.algorithms.size(); ++k)
        out << (k ? ", " : "") << "{\"algorithm\": " << jsonString(algorithmId(l.algorithms[k])) << ", \"allowed\": "
            << l.allowed[k] << ", \"denied_here\": " << l.deniedHere[k] << ", \"wasted\": " << l.wasted[k] << "}";
    out << "],\n   \"sequence\": [";
    for (std::size_t i = 0; i < l.decisions.size(); ++i) {
        const Decision& d = l.decisions[i];
        out << (i ? ",\n    " : "\n    ") << "{\"t\": " << formatSeconds(trace.arrivals[i])
            << ", \"allowed\": " << (d.allowed ? "true" : "false") << ", \"delay\": " << formatSeconds(d.delay)
            << ", \"remaining\": " << d.remaining << ", \"retry_after\": " << retryText(d, "null")
            << ", \"level\": " << formatNumber(d.level);
        if (!trace.costs.empty())
            out << ", \"cost\": " << trace.costs[i];
        out << "}";
    }
    out << "]}";
}

// csvField quotes a CSV field that holds a quote, comma or line break (RFC 4180).
std::string csvField(std::string_view v)
{
    if (v.find_first_of("\",\n") == std::string_view::npos)
        return std::string(v);
    std::string out = "\"";
    for (char c : v)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

void writeCsvRow(std::ostream& out, std::string_view id, const Trace& trace, std::size_t i, const Decision& d)
{
    out << id << ',' << formatSeconds(trace.arrivals[i]) << ',' << (d.allowed ? "true" : "false") << ','
        << formatSeconds(d.delay) << ',' << d.remaining << ',' << retryText(d, "") << ',' << formatNumber(d.level)
        << (trace.costs.empty() ? "" : "," + std::to_string(trace.costs[i]));
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

void writeJson(std::ostream& out, const Scenario& scenario, const Trace& trace, const ReportOptions& options)
{
    const ClusterReport* cluster = options.cluster;
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
        const std::vector<Nanos> resets = options.headers ? resetsOf(trace, r) : std::vector<Nanos>{};
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
            if (options.headers)
                writeHeadersJson(out, responseHeaders(a.algorithm, trace.config, trace.arrivals[i], d, resets[i]));
            out << "}";
        }
        out << "]}";
    }
    if (trace.layered)
        writeLayeredJson(out, trace, !trace.results.empty());
    out << "}}\n";
}

void writeCsv(std::ostream& out, const Trace& trace, const ReportOptions& options)
{
    const ClusterReport* cluster = options.cluster;
    out << "algorithm,t,allowed,delay,remaining,retry_after,level" << (trace.costs.empty() ? "" : ",cost")
        << (cluster ? ",node" : "");
    if (options.headers)
        for (std::string_view name : kHeaderNames)
            out << ',' << name;
    out << '\n';
    for (std::size_t r = 0; r < trace.results.size(); ++r) {
        const AlgorithmTrace& a = trace.results[r];
        const std::string_view id = algorithmId(a.algorithm);
        const std::vector<Nanos> resets = options.headers ? resetsOf(trace, r) : std::vector<Nanos>{};
        for (std::size_t i = 0; i < a.decisions.size(); ++i) {
            const Decision& d = a.decisions[i];
            writeCsvRow(out, id, trace, i, d);
            if (cluster)
                out << ',' << int(cluster->nodes[r][i]);
            if (options.headers) {
                const std::vector<Header> headers = responseHeaders(a.algorithm, trace.config, trace.arrivals[i], d, resets[i]);
                for (std::string_view name : kHeaderNames) {
                    const auto h = std::find_if(headers.begin(), headers.end(), [&](const Header& x) { return x.name == name; });
                    out << ',' << (h == headers.end() ? std::string() : csvField(h->value));
                }
            }
            out << '\n';
        }
    }
    if (trace.layered) // layered rows (issue 14); their header columns stay empty
        for (std::size_t i = 0; i < trace.layered->decisions.size(); ++i) {
            writeCsvRow(out, "layered", trace, i, trace.layered->decisions[i]);
            out << (options.headers ? std::string(kHeaderNames.size(), ',') : std::string()) << '\n';
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
