// Fuzz target: log lines whose fields are a megabyte long, through the readers `replay` uses
// (parseTraffic, as a dry run reads a log: paths kept, host and headers read beside the key).
//
// The fuzzer's bytes are cut at 0x00 into the units of the fields (the URL, user agent, referer
// and host), each repeated to about 1 MiB, so the fuzzer need not write a megabyte itself: what
// it varies is what a megabyte of a field is made of. The first byte picks the form (combined;
// an nginx log_format of combined with "$host"; JSON lines), whether the units are made plain
// (no byte that the form quotes or escapes), and whether the URL is blown past the line bound.
// The log is a plain line, the big line, and a plain line again. Checked:
//  - every line is read or counted: requests + unreadable + comments + a cut first line = lines;
//  - plain units: the big line is read, its URL is one of the log's paths whole, byte for byte,
//    and (JSON, log_format) its host is read whole too;
//  - a line past the bound (16 MiB) is unreadable, for being too long, and the lines after it
//    are still read;
//  - every refusal and reason is one printable line.
#include "traffic_checks.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace ratelab;

namespace {

constexpr std::size_t kFieldBytes = std::size_t(1) << 20;
constexpr std::size_t kPastBound = (std::size_t(16) << 20) + 1; // TrafficOptions' line bound is 16 MiB

enum class Form { Combined, LogFormat, Json };

// plainUnit is a field's unit (or "a" for none), a newline never in it: the lines are the
// target's own. plain also replaces what the form would quote or escape.
std::string plainUnit(std::string_view unit, bool plain)
{
    std::string u(unit.empty() ? std::string_view("a") : unit);
    for (char& c : u) {
        const bool quoted = c == '"' || c == '\\' || c == ' ' || c == '\t' || static_cast<unsigned char>(c) < 0x20
                            || static_cast<unsigned char>(c) >= 0x7f;
        if (c == '\n' || c == '\r' || (plain && quoted))
            c = '_';
    }
    return u;
}

// repeated is text `copies` times over, by doubling (copies a power of two: a megabyte of one
// byte is twenty appends, not a million).
std::string repeated(const std::string& text, std::size_t copies)
{
    std::string out = text;
    out.reserve(text.size() * copies);
    while (out.size() < text.size() * copies)
        out.append(out);
    return out;
}

// jsonText writes a JSON string's content for s (bytes past 0x7f left as they are: not UTF-8,
// the line is unreadable).
std::string jsonText(const std::string& s)
{
    static const char* kHex = "0123456789abcdef";
    std::string out;
    for (const char c : s) {
        if (c == '"' || c == '\\')
            out += '\\', out += c;
        else if (static_cast<unsigned char>(c) < 0x20)
            out += "\\u00", out += kHex[(c >> 4) & 0xf], out += kHex[c & 0xf];
        else
            out += c;
    }
    return out;
}

// Field is a field's unit as read and as the line writes it (a JSON line escapes it), and how
// many copies of it the line holds: a power of two, so that the written field is at least
// `bytes` long. The escape of a repetition is the repetition of the escape.
struct Field {
    Field(std::string u, std::size_t bytes, bool json) : unit(std::move(u)), writtenUnit(json ? jsonText(unit) : unit)
    {
        while (writtenUnit.size() * copies < bytes)
            copies *= 2;
    }
    std::string unit, writtenUnit;
    std::size_t copies = 1;
    std::string text() const { return repeated(unit, copies); }
    std::string written() const { return repeated(writtenUnit, copies); }
};

std::string line(Form form, const Field& url, const Field& agent, const Field& referer, const Field& host)
{
    const bool json = form == Form::Json;
    if (json)
        return "{\"ip\": \"192.0.2.1\", \"time\": 1795392000.5, \"path\": \"/" + url.written() + "\", \"host\": \""
               + host.written() + "\", \"http_user_agent\": \"" + agent.written() + "\", \"http_referer\": \""
               + referer.written() + "\"}\n";
    std::string out = "192.0.2.1 - - [23/Nov/2026:00:00:00 +0000] \"GET /" + url.written() + " HTTP/1.1\" 200 1 \""
                      + referer.written() + "\" \"" + agent.written() + "\"";
    return form == Form::LogFormat ? out + " \"" + host.written() + "\"\n" : out + "\n";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::uint8_t pick = data[0];
    const Form form = Form(pick % 3);
    const bool plain = pick & 0x10, pastBound = (pick & 0x60) == 0x60; // a quarter of the inputs: 16 MiB is slow to build
    std::vector<std::string_view> units;
    std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    for (std::size_t cut; units.size() < 3 && (cut = rest.find('\0')) != std::string_view::npos; rest.remove_prefix(cut + 1))
        units.push_back(rest.substr(0, cut));
    units.push_back(rest);
    units.resize(4);
    const bool json = form == Form::Json;
    const Field url(plainUnit(units[0], plain), pastBound ? kPastBound : kFieldBytes, json);
    const Field agent(plainUnit(units[1], plain), kFieldBytes, json), referer(plainUnit(units[2], plain), kFieldBytes, json);
    const Field host(plainUnit(units[3], plain), kFieldBytes, json);

    TrafficOptions o;
    o.format = form == Form::Json ? LogFormat::Json : form == Form::LogFormat ? LogFormat::Nginx : LogFormat::Combined;
    o.nginxLogFormat = "$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" "
                       "\"$http_user_agent\" \"$host\"";
    o.keepPaths = true;
    o.emptyKeys = true;
    o.keyFields = {"ip", "host", "http_user_agent", "http_referer"};
    const std::string small = line(form, Field("small", 1, json), Field("agent", 1, json), Field("-", 1, json),
                                   Field("example.com", 1, json));
    const std::string text = small + line(form, url, agent, referer, host) + small;
    const fuzz::Outcome read = fuzz::readTraffic(text, o);
    FUZZ_CHECK(read.error.empty(), read.error); // the plain lines always read
    const Traffic& t = read.traffic;
    for (const LineError& e : t.firstErrors)
        fuzz::checkMessage(e.reason);
    FUZZ_CHECK(t.lines == 3, "three lines");
    FUZZ_CHECK(std::int64_t(t.times.size()) + t.unreadable + t.comments + (t.firstLineCut.empty() ? 0 : 1) == t.lines,
               "a line neither read nor counted");
    if (pastBound) {
        FUZZ_CHECK(t.times.size() == 2 && t.unreadable == 1, "a line past the bound is read");
        FUZZ_CHECK(t.firstErrors.at(0).line == 2 && t.firstErrors[0].reason.find("longer than") != std::string::npos,
                   t.firstErrors[0].reason);
        return 0;
    }
    if (!plain)
        return 0;
    FUZZ_CHECK(t.times.size() == 3, t.firstErrors.empty() ? "plain big line unread" : t.firstErrors[0].reason);
    const std::string wholeUrl = "/" + url.text(), wholeHost = host.text();
    FUZZ_CHECK(std::find(t.pathNames.begin(), t.pathNames.end(), wholeUrl) != t.pathNames.end(), "the URL read back whole");
    if (form != Form::Combined)
        FUZZ_CHECK(std::find(t.keyNames.begin(), t.keyNames.end(), wholeHost) != t.keyNames.end(), "the host read back whole");
    return 0;
}
