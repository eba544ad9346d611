#include "report_clients.h"

#include "report.h"
#include "text_buffer.h"

#include <sstream>
#include <string>

namespace ratelab {

namespace {

std::string quotedId(std::string_view id) { return "\"" + std::string(id) + "\""; } // ids are plain ASCII

std::string memoryJson(const Memory& m)
{
    return "{\"bytes\": " + std::to_string(m.bytes) + ", \"entries\": " + std::to_string(m.entries) + "}";
}

void writeSettings(std::ostream& out, const ClientConfig& c)
{
    const ClientOptions& o = c.options();
    out << "{\"clients\": " << o.clients << ", \"key\": " << quotedId(keyModeId(o.key))
        << ", \"retry\": " << quotedId(retryPolicyId(o.retry)) << ", \"retry_delay\": " << formatSeconds(o.retryDelayNanos)
        << ", \"max_retries\": " << o.maxRetries << ", \"backoff_base\": " << formatSeconds(o.backoffBaseNanos)
        << ", \"backoff_cap\": " << formatSeconds(o.backoffCapNanos) << ", \"seed\": " << o.seed << "}";
}

void writeStats(std::ostream& out, const ClientStats& s)
{
    out << "{\"requests\": " << s.requests << ", \"attempts\": " << s.attempts << ", \"succeeded\": " << s.succeeded
        << ", \"gave_up\": " << s.gaveUp << ", \"amplification\": " << formatNumber(s.amplification)
        << ", \"latency\": {\"mean\": " << formatSeconds(s.latency.mean) << ", \"p50\": " << formatSeconds(s.latency.p50)
        << ", \"p99\": " << formatSeconds(s.latency.p99) << ", \"max\": " << formatSeconds(s.latency.max)
        << "}, \"memory\": {\"keys\": " << s.keysUsed << ", \"per_key\": " << memoryJson(s.perKeyMax)
        << ", \"total\": " << memoryJson(s.total) << "}}";
}

} // namespace

void writeClientsJson(std::ostream& out, const Scenario& scenario, const ClientsTrace& trace)
{
    std::ostringstream input;
    writeJsonInput(input, scenario, trace.base);
    std::string text = input.str();
    text.pop_back(); // the input object's closing brace: the client settings go inside it
    out << "{\"input\": " << text << ", \"clients\": ";
    writeSettings(out, trace.clientConfig);
    out << "},\n \"results\": {";
    for (std::size_t r = 0; r < trace.results.size(); ++r) {
        const ClientTrace& a = trace.results[r];
        const Metrics& m = a.metrics;
        out << (r ? ",\n  " : "\n  ") << quotedId(algorithmId(a.algorithm)) << ": {\"allowed\": " << m.allowed
            << ", \"denied\": " << m.denied << ", \"delayed\": " << m.delayed << ", \"max_in_window\": "
            << m.maxInWindow << ", \"overshoot\": " << formatNumber(m.overshoot) << ", \"memory\": "
            << memoryJson(m.memory) << ",\n   \"clients\": ";
        writeStats(out, a.clients);
        out << ",\n   \"sequence\": [";
        Text sequence(out); // the sequence, the bulk of the output, through a buffer
        for (std::size_t i = 0; i < a.attempts.size(); ++i) {
            const Attempt& at = a.attempts[i];
            const Decision& d = at.decision;
            sequence << (i ? ",\n    " : "\n    ") << "{\"request\": " << at.request << ", \"client\": " << at.client
                 << ", \"attempt\": " << at.attempt << ", \"t\": ";
            sequence.seconds(at.t) << ", \"allowed\": " << (d.allowed ? "true" : "false") << ", \"delay\": ";
            sequence.seconds(d.delay) << ", \"remaining\": " << d.remaining << ", \"retry_after\": ";
            sequence.seconds(d.retryAfter) << ", \"level\": ";
            sequence.number(d.level) << "}";
            sequence.flushSome();
        }
        sequence.flush();
        out << "]}";
    }
    out << "}}\n";
}

void writeClientsCsv(std::ostream& out, const ClientsTrace& trace)
{
    Text text(out);
    text << "algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level\n";
    for (const ClientTrace& a : trace.results) {
        const std::string_view id = algorithmId(a.algorithm);
        for (const Attempt& at : a.attempts) {
            const Decision& d = at.decision;
            text << id << ',' << at.request << ',' << at.client << ',' << at.attempt << ',';
            text.seconds(at.t) << ',' << (d.allowed ? "true" : "false") << ',';
            text.seconds(d.delay) << ',' << d.remaining << ',';
            text.seconds(d.retryAfter) << ',';
            text.number(d.level) << '\n';
            text.flushSome();
        }
    }
}

} // namespace ratelab
