#include "report/report_run.h"

#include "engine/admitted_window.h"

#include "scenario/scenario_parts.h"
#include "scenario/settings_codec.h"

#include "report/headers.h"
#include "report/report.h"
#include "report/report_parts.h"
#include "scenario/rows.h"
#include "server/server_stage.h"
#include "limiters/worst_case.h"

#include <algorithm>
#include <sstream>

namespace ratelab {

using namespace detail;

namespace {

std::string memoryJson(const Memory& m)
{
    return "{\"bytes\": " + std::to_string(m.bytes) + ", \"entries\": " + std::to_string(m.entries) + "}";
}

// writeClientSettings and writeClusterSettings write the settings as a scenario file does, through
// the settings codec, with times as numbers like every time of the report (and the clients' seed,
// the scenario's).
void writeClientSettings(std::ostream& out, const ClientConfig& c, std::uint64_t seed)
{
    out << "{" << clientsJson(c.options(), SecondsAs::Number) << ", \"seed\": " << seed << "}";
}

void writeClusterSettings(std::ostream& out, const ClusterConfig& c)
{
    out << "{" << clusterJson(c.options(), SecondsAs::Number) << "}";
}

std::string clientStatsJson(const ClientStats& s)
{
    std::ostringstream out;
    out << "{\"requests\": " << s.requests << ", \"attempts\": " << s.attempts << ", \"succeeded\": " << s.succeeded
        << ", \"gave_up\": " << s.gaveUp << ", \"amplification\": " << formatNumber(s.amplification)
        << ", \"latency\": {\"mean\": " << formatSeconds(s.latency.mean) << ", \"p50\": " << formatSeconds(s.latency.p50)
        << ", \"p99\": " << formatSeconds(s.latency.p99) << ", \"max\": " << formatSeconds(s.latency.max)
        << "}, \"memory\": {\"keys\": " << s.keysUsed << ", \"per_key\": " << memoryJson(s.perKeyMax)
        << ", \"total\": " << memoryJson(s.total) << "}}";
    return out.str();
}

std::string headerValue(const std::vector<Header>& headers, std::string_view name)
{
    const auto h = std::find_if(headers.begin(), headers.end(), [&](const Header& x) { return x.name == name; });
    return h == headers.end() ? std::string() : h->value;
}

// Columns is which optional columns a scenario's output carries.
struct Columns {
    bool clients = false, cost = false, node = false, headers = false, server = false;
};

// serverJson writes a row's server figures: each outcome's count, goodput (served in time per
// second, over [0, the last departure]), the latency of the requests served in time, the most
// in the system and in the queue, the work wasted on attempts whose client had given up, the
// gate's limit over time, and Little's L (the time-average number in the system).
std::string serverJson(const ServerFigures& f, const ClientStats& clients)
{
    std::ostringstream out;
    const double span = double(f.end) / 1e9;
    out << "{\"in_time\": " << f.inTime << ", \"late\": " << f.late << ", \"queue_timeout\": " << f.queueTimeouts
        << ", \"refused\": " << f.refused << ", \"rejected\": " << f.rejected
        << ", \"goodput_per_s\": " << formatNumber(span > 0 ? double(f.inTime) / span : 0.0)
        << ", \"latency\": {\"p50\": " << formatSeconds(clients.latency.p50) << ", \"p99\": "
        << formatSeconds(clients.latency.p99) << ", \"max\": " << formatSeconds(clients.latency.max) << "}"
        << ", \"max_in_system\": " << f.maxInSystem << ", \"max_queue\": " << f.maxQueue
        << ", \"busy\": " << formatSeconds(f.busyNanos) << ", \"wasted\": " << formatSeconds(f.wastedNanos)
        << ", \"mean_in_system\": " << formatNumber(f.end > 0 ? toDouble(f.areaInSystem) / double(f.end) : 0.0);
    if (!f.limits.empty()) {
        out << ", \"limit\": [";
        for (std::size_t k = 0; k < f.limits.size(); ++k)
            out << (k ? ", " : "") << "{\"at\": " << formatSeconds(f.limits[k].first) << ", \"limit\": "
                << f.limits[k].second << "}";
        out << "]";
    }
    out << "}";
    return out.str();
}

// writeServedJson and writeServedCsv write what became of an attempt at the server: its
// outcome, and for one that reached it its wait (queue and gate) and its time in the server.
void writeServedJson(Text& text, const ServedAttempt& a)
{
    text << ", \"outcome\": " << jsonString(outcomeId(a.outcome));
    if (a.outcome != Outcome::NotAdmitted)
        text << ", \"wait\": " << formatSeconds(a.start - a.arrived) << ", \"in_server\": " << formatSeconds(a.end - a.arrived);
}

void writeServedCsv(Text& text, const ServedAttempt& a)
{
    text << ',' << outcomeId(a.outcome);
    if (a.outcome != Outcome::NotAdmitted)
        text << ',' << formatSeconds(a.start - a.arrived) << ',' << formatSeconds(a.end - a.arrived);
    else
        text << ",,";
}

void writeJsonRow(Text& text, const Scenario& s, std::size_t r, const EngineSetup& setup, const RowRun& run,
                  const RowInputs& in, const Columns& c)
{
    writeResultHead(text, rowId(s, r), run.metrics, c.cost);
    AdmittedWindow window(boundWindowNanos(s.pattern, s.config));
    std::int64_t reached = 0;
    for (std::size_t i = 0; i < run.log.size(); ++i)
        if (run.log[i].allowed)
            reached = std::max(reached, window.add(run.log[i].t, true,
                                                   in.costs.empty() ? 1 : in.costs[std::size_t(run.log[i].request)]));
    writeBound(text, r < s.algorithms.size() && oneState(setup) ? std::optional(s.algorithms[r]) : std::nullopt, s,
               reached);
    if (setup.layers.size() > 1 || isLayeredRow(s, r)) {
        text << ",\n   \"layers\": [";
        for (std::size_t k = 0; k < setup.layers.size(); ++k)
            text << (k ? ", " : "") << "{\"algorithm\": " << jsonString(algorithmId(setup.layers[k].algorithm))
                 << ", \"allowed\": " << run.layers[k].allowed << ", \"denied_here\": " << run.layers[k].deniedHere
                 << ", \"wasted\": " << run.layers[k].wasted << "}";
        text << "]";
    }
    if (setup.cluster) {
        text << ",\n   \"cluster\": {\"nodes\": " << std::int64_t(setup.cluster->nodes()) << ", \"coordination\": "
             << jsonString(coordinationId(setup.cluster->coordination())) << ", \"per_node_allowed\": [";
        for (std::size_t n = 0; n < run.perNodeAllowed.size(); ++n)
            text << (n ? ", " : "") << run.perNodeAllowed[n];
        text << "]";
        if (setup.cluster->hasAutoscale()) { // from each time on, the nodes up
            text << ", \"scaling\": [";
            for (std::size_t k = 0; k < run.scaling.size(); ++k)
                text << (k ? ", " : "") << "{\"at\": " << formatSeconds(run.scaling[k].first) << ", \"nodes\": "
                     << std::int64_t(run.scaling[k].second) << "}";
            text << "]";
        }
        text << "}";
    }
    if (c.clients)
        text << ",\n   \"clients\": " << clientStatsJson(run.clients);
    if (run.server)
        text << ",\n   \"server\": " << serverJson(*run.server, run.clients);
    text << ",\n   \"sequence\": [";
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        text << (i ? ",\n    " : "\n    ");
        if (c.clients)
            text << "{\"request\": " << a.request << ", \"client\": " << a.client << ", \"attempt\": "
                 << std::int64_t(a.attempt) << ", ";
        writeEntry(text, a.t, a.decision(), costAt(in.costs, std::size_t(a.request)), !c.clients);
        if (c.node)
            text << ", \"node\": " << std::int64_t(a.node);
        if (c.headers)
            writeHeadersJson(text, engineHeaders(setup, run, i));
        if (run.server)
            writeServedJson(text, run.served[i]);
        text << "}";
        text.flushSome();
    }
    text << "]}";
}

void writeCsvRows(Text& text, const Scenario& s, std::size_t r, const EngineSetup& setup, const RowRun& run,
                  const RowInputs& in, const Columns& c)
{
    const std::string id = csvField(rowId(s, r)); // a gate's row is named by its spec: "aimd:initial_limit=3,..."
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        text << id << ',';
        if (c.clients)
            text << a.request << ',' << a.client << ',' << std::int64_t(a.attempt) << ',';
        writeCsvTail(text, a.t, a.decision(), costAt(in.costs, std::size_t(a.request)));
        if (c.node)
            text << ',' << std::int64_t(a.node);
        if (c.headers) {
            const std::vector<Header> h = engineHeaders(setup, run, i);
            for (std::string_view name : kHeaderNames)
                text << ',' << csvField(headerValue(h, name));
        }
        if (c.server)
            writeServedCsv(text, run.served[i]);
        text << '\n';
        text.flushSome();
    }
}

} // namespace

std::vector<Header> engineHeaders(const EngineSetup& setup, const RowRun& run, std::size_t i)
{
    const LoggedAttempt& a = run.log[i];
    const std::size_t layers = setup.layers.size();
    if (layers == 0) // a concurrency limiter's row: no rate limit answers, so no RateLimit headers
        return {};
    std::vector<LayerResponse> figures;
    figures.reserve(layers);
    for (std::size_t l = 0; l < layers; ++l) {
        const bool own = layers > 1; // one layer: the attempt's own figures
        figures.push_back({setup.layers[l].algorithm, layerConfig(setup, l),
                           own ? run.figures[i * layers + l].remaining : a.remaining,
                           own ? run.figures[i * layers + l].reset : run.resets[i]});
    }
    return responseHeaders(a.t, a.decision(), figures, a.headerLayer);
}

void writeReport(std::ostream& out, const Scenario& s, ReportFormat format, bool headers)
{
    if (streamable(s, headers)) { // written as it is decided: no trace, bounded memory
        if (format == ReportFormat::Csv)
            streamCsv(out, s);
        else
            streamJson(out, s);
        return;
    }
    writeReport(out, s, format, headers, [](std::size_t, const EngineSetup& setup, const EngineRequests& in) {
        return runRow(setup, in);
    });
}

namespace {

// reportInput is the JSON report's "input" object: the scenario's settings, and those of its
// clients, cluster, server and throttle inside it.
std::string reportInput(const Scenario& s, bool cost, std::size_t arrivals)
{
    std::ostringstream input;
    writeInput(input, s, cost, arrivals);
    std::string inputJson = input.str();
    if (!s.clients && !s.cluster && !s.server && s.throttle.empty())
        return inputJson;
    inputJson.pop_back();
    std::ostringstream more;
    if (s.clients) {
        more << ", \"clients\": ";
        writeClientSettings(more, *s.clients, s.pattern.seed);
    }
    if (s.cluster) {
        more << ", \"cluster\": ";
        writeClusterSettings(more, *s.cluster);
    }
    if (s.server) {
        more << ", \"server\": " << jsonString(s.server->text());
        if (!s.concurrency.empty()) {
            more << ", \"concurrency\": [";
            for (std::size_t i = 0; i < s.concurrency.size(); ++i)
                more << (i ? ", " : "") << jsonString(s.concurrency[i].text());
            more << "]";
        }
        if (!s.layeredGate.empty())
            more << ", \"layered_gate\": " << jsonString(s.layeredGate.text());
    }
    if (!s.throttle.empty())
        more << ", \"throttle\": " << jsonString(s.throttle.text());
    inputJson += more.str() + "}";
    return inputJson;
}

// writeCsvHeader writes the CSV report's header line: the columns the report holds.
void writeCsvHeader(Text& text, const Columns& c)
{
    text << "algorithm" << (c.clients ? ",request,client,attempt" : "") << ",t,allowed,delay,remaining,retry_after,level"
         << (c.cost ? ",cost" : "") << (c.node ? ",node" : "");
    if (c.headers)
        for (std::string_view name : kHeaderNames)
            text << ',' << name;
    text << (c.server ? ",outcome,wait,in_server" : "") << '\n';
}

} // namespace

void writeReport(std::ostream& out, const Scenario& s, ReportFormat format, bool headers, const RowRunner& runner)
{
    const RowInputs in = resolveRowInputs(s);
    Columns c;
    c.clients = s.clients.has_value();
    c.cost = !in.costs.empty();
    c.node = s.cluster.has_value();
    c.headers = headers;
    c.server = s.server.has_value();
    const std::size_t rows = rowCount(s);
    const EngineRequests requests = in.requests();
    // A refusal (too many attempts) must come before anything is written: the first row runs
    // with its log, the others once without (48 bytes an attempt are kept for one row at a time).
    RowRun first = rows > 0 ? runner(0, engineSetup(s, 0, headers), requests) : RowRun{};
    for (std::size_t r = 1; r < rows; ++r) {
        EngineSetup check = engineSetup(s, r, false);
        check.keepLog = false;
        (void)runRow(check, requests);
    }
    const auto runOf = [&](std::size_t r) { return r == 0 ? std::move(first) : runner(r, engineSetup(s, r, headers), requests); };
    Text text(out);
    if (format == ReportFormat::Csv) {
        writeCsvHeader(text, c);
        for (std::size_t r = 0; r < rows; ++r)
            writeCsvRows(text, s, r, engineSetup(s, r, headers), runOf(r), in, c);
        return;
    }
    const std::string inputJson = reportInput(s, c.cost, in.arrivals.size());
    text << "{\"input\": " << inputJson << ",\n \"results\": {";
    for (std::size_t r = 0; r < rows; ++r) {
        text << (r ? ",\n  " : "\n  ");
        writeJsonRow(text, s, r, engineSetup(s, r, headers), runOf(r), in, c);
    }
    text << "}}\n";
}

} // namespace ratelab
