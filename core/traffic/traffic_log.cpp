#include "traffic/traffic_log.h"

#include "arithmetic/decimal.h"
#include "traffic/text_ids.h"
#include "traffic/traffic_parse.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>

namespace ratelab {

namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
// A log line may carry a URL of a megabyte or more (nginx logs what a client sent, up to its own
// buffers; other servers take longer ones): 16 MiB keeps any real line and still bounds the
// memory one line can take.
constexpr std::size_t kMaxLineBytes = std::size_t(16) << 20;
// kSampleBytes bounds the lines held to decide the format: the sample ends at kSampleLines lines
// or at these many bytes, whichever comes first.
constexpr std::size_t kSampleBytes = std::size_t(64) << 20;

// Reader turns lines into Traffic: it interns keys, keeps absolute times, and counts what it
// could not read.
class Reader {
public:
    Reader(const TrafficOptions& options, std::string name) : m_options(options), m_name(std::move(name))
    {
        m_t.key = options.key;
        m_t.keyFields = options.keyFields;
        m_t.fieldKeys.resize(options.keyFields.size());
        m_t.fieldSeen.assign(options.keyFields.size(), 0);
    }

    void line(std::string_view text)
    {
        ++m_t.lines;
        if (!text.empty() && text.back() == '\r')
            text.remove_suffix(1);
        if (text.starts_with("\xEF\xBB\xBF")) // a UTF-8 byte order mark: at the file's start, or where files were joined
            text.remove_prefix(3);
        const std::size_t first = text.find_first_not_of(" \t");
        if (first == std::string_view::npos)
            return;
        if (text[first] == '#') {
            ++m_t.comments;
            return;
        }
        if (!m_parser) {
            m_sample.push_back({m_t.lines, std::string(text)});
            m_sampleBytes += text.size();
            // The bytes bound too: a hundred lines of 16 MiB would hold 1.6 GB before one is read.
            if (m_options.format != LogFormat::Auto || m_sample.size() >= kSampleLines || m_sampleBytes >= kSampleBytes)
                start();
            return;
        }
        handle(text, m_t.lines);
    }

    // tooLong reports a line longer than kMaxLineBytes (its text is not kept).
    void tooLong()
    {
        ++m_t.lines;
        bad("longer than " + std::to_string(kMaxLineBytes) + " bytes", m_t.lines);
    }

    Traffic finish()
    {
        if (!m_parser && !m_sample.empty())
            start();
        if (m_t.times.empty()) {
            std::string why = m_t.filtered > 0 ? std::to_string(m_t.filtered) + " requests, none under --path "
                                                     + ratelab::quoted(m_options.pathPrefix)
                              : m_t.unreadable > 0 ? std::to_string(m_t.unreadable) + " unreadable lines, line "
                                                         + std::to_string(m_t.firstErrors.front().line) + ": "
                                                         + m_t.firstErrors.front().reason
                              : !m_t.firstLineCut.empty() ? "line 1: " + m_t.firstLineCut
                              : m_t.comments > 0          ? "it holds only comment lines"
                                                          : "it is empty";
            throw InputError(m_name + ": no request to replay (" + why + ")");
        }
        m_t.wholeSeconds = !m_fraction;
        sortByTime();
        const Nanos first = m_t.times.front(), ms = 1'000'000;
        m_t.startEpochNanos = first - ((first % ms) + ms) % ms; // floored, before 1970 too
        for (Nanos& t : m_t.times)
            t -= m_t.startEpochNanos;
        m_t.pathIsUri = m_parser && m_parser->pathIsUri();
        if (m_options.keepPaths && m_t.pathNames.size() == 1 && m_t.pathNames[0].empty()) {
            if (m_options.pathField != "path") // named, it is a field the log must have
                throw InputError(m_name + ": no request has the path field " + ratelab::quoted(m_options.pathField)
                                 + " (--path-field)");
            m_t.pathNames[0] = "/";
            m_t.noPaths = true;
        }
        m_t.times.shrink_to_fit();
        m_t.keys.shrink_to_fit();
        m_t.paths.shrink_to_fit();
        return std::move(m_t);
    }

private:
    // start decides the format (given, or from the sample) and reads the sample's lines.
    void start()
    {
        m_t.format = m_options.format == LogFormat::Auto ? detail::decideFormat(m_sample, m_name) : m_options.format;
        m_parser = std::make_unique<detail::LineParser>(m_t.format, m_options);
        m_parser->hintKeys(&m_ids);
        const std::vector<detail::SampleLine> sample = std::move(m_sample);
        m_sample.clear();
        for (const detail::SampleLine& l : sample)
            handle(l.text, l.number);
    }

    // handle reads one line that is not blank or a comment: a CSV header first, then requests.
    void handle(std::string_view text, std::int64_t number)
    {
        if (m_t.format == LogFormat::Csv && !m_headerRead) {
            m_headerRead = true;
            try {
                m_parser->header(text);
            } catch (const InputError& e) {
                throw InputError(m_name + ":" + std::to_string(number) + ": " + e.what());
            }
            return;
        }
        const std::string reason = m_parser->parse(text, m_parsed);
        if (!reason.empty()) {
            if (number == 1) // the file's first line: `tail -c` cuts it; set aside, not unreadable
                m_t.firstLineCut = reason;
            else
                bad(reason, number);
            return;
        }
        if (!m_options.pathPrefix.empty() && !m_parsed.path.starts_with(m_options.pathPrefix)) {
            ++m_t.filtered;
            return;
        }
        if (std::int64_t(m_t.times.size()) >= kMaxTrafficLines)
            throw InputError(m_name + ": more than " + std::to_string(kMaxTrafficLines) + " requests");
        if (m_options.maxRequests > 0 && std::int64_t(m_t.times.size()) >= m_options.maxRequests)
            throw InputError(m_name + ": more than " + std::to_string(m_options.maxRequests) + " requests, about "
                             + std::to_string((m_options.maxRequests * m_options.bytesPerRequest + 999'999) / 1'000'000)
                             + " MB at " + std::to_string(m_options.bytesPerRequest)
                             + " B a request, half of the memory available: replay a part of the log (--path, or fewer lines)");
        m_fraction |= m_parsed.fraction;
        if (!m_t.times.empty() && m_parsed.epochNanos < m_latest) {
            ++m_t.outOfOrder;
            m_t.largestStepBack = std::max(m_t.largestStepBack, m_latest - m_parsed.epochNanos);
        }
        m_latest = std::max(m_latest, m_parsed.epochNanos);
        m_t.times.push_back(m_parsed.epochNanos);
        m_t.keys.push_back(intern(m_parsed.key));
        for (std::size_t j = 0; j < m_parsed.fields.size(); ++j) { // a key field absent is the key ""
            m_t.fieldKeys[j].push_back(intern(m_parsed.fields[j]));
            m_t.fieldSeen[j] += m_parsed.fields[j].empty() ? 0 : 1;
        }
        if (m_options.keepPaths)
            m_t.paths.push_back(internPath(m_parsed.path));
        if (m_parsed.cost != 1 && !m_costs) { // the first cost other than 1: the earlier ones were 1
            m_t.costs.assign(m_t.times.size() - 1, 1);
            m_costs = true;
        }
        if (m_costs)
            m_t.costs.push_back(m_parsed.cost);
    }

    void bad(const std::string& reason, std::int64_t number)
    {
        if (m_options.strict)
            throw InputError(m_name + ":" + std::to_string(number) + ": " + reason + " (--strict)");
        ++m_t.unreadable;
        if (m_t.firstErrors.size() < m_options.errorsKept)
            m_t.firstErrors.push_back({number, reason});
    }

    std::uint32_t intern(std::string_view key)
    {
        if (const std::uint32_t id = m_ids.find(key, m_t.keyNames); id != detail::TextIds::kAbsent)
            return id;
        if (m_options.maxKeys > 0 && std::int64_t(m_t.keyNames.size()) >= m_options.maxKeys) {
            const std::int64_t over = m_options.maxKeys + 1;
            const std::int64_t mb = (over * m_options.bytesPerKey + 999'999) / 1'000'000;
            throw InputError(m_name + ": more than " + std::to_string(m_options.maxKeys)
                             + " distinct keys (--max-keys): " + std::to_string(over) + " keys take about "
                             + std::to_string(mb) + " MB at " + std::to_string(m_options.bytesPerKey)
                             + " B a key; raise --max-keys if the machine has the memory");
        }
        return m_ids.add(key, m_t.keyNames);
    }

    std::uint32_t internPath(std::string_view path)
    {
        const std::uint32_t id = m_pathIds.find(path, m_t.pathNames);
        return id != detail::TextIds::kAbsent ? id : m_pathIds.add(path, m_t.pathNames);
    }

    // sortByTime puts requests in time order, keeping the file's order at equal times.
    void sortByTime()
    {
        if (m_t.outOfOrder == 0)
            return;
        const std::size_t n = m_t.times.size();
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return m_t.times[a] < m_t.times[b]; });
        auto permute = [&](auto& v) {
            std::remove_reference_t<decltype(v)> sorted(n);
            for (std::size_t i = 0; i < n; ++i)
                sorted[i] = v[order[i]];
            v = std::move(sorted);
        };
        permute(m_t.times);
        permute(m_t.keys);
        if (!m_t.costs.empty())
            permute(m_t.costs);
        if (!m_t.paths.empty())
            permute(m_t.paths);
        for (std::vector<std::uint32_t>& f : m_t.fieldKeys)
            permute(f);
    }

    const TrafficOptions& m_options;
    std::string m_name;
    Traffic m_t;
    std::unique_ptr<detail::LineParser> m_parser;
    std::vector<detail::SampleLine> m_sample; // the lines read before the format is decided
    std::size_t m_sampleBytes = 0;
    bool m_headerRead = false;
    detail::ParsedLine m_parsed;
    detail::TextIds m_ids, m_pathIds; // ids of m_t.keyNames and m_t.pathNames
    Nanos m_latest = 0;
    bool m_fraction = false;
    bool m_costs = false;
};

// Splitter cuts a stream of chunks into lines, however they fall across chunks.
class Splitter {
public:
    explicit Splitter(Reader& reader) : m_reader(reader) {}

    void feed(std::string_view chunk)
    {
        while (!chunk.empty()) {
            const char* nl = static_cast<const char*>(std::memchr(chunk.data(), '\n', chunk.size()));
            const std::size_t len = nl ? std::size_t(nl - chunk.data()) : chunk.size();
            if (m_skipping || m_carry.size() + len > kMaxLineBytes) {
                if (!m_skipping)
                    m_reader.tooLong();
                m_skipping = true;
                m_carry.clear();
            } else if (!nl) {
                m_carry.append(chunk.data(), len);
            } else if (m_carry.empty()) {
                m_reader.line(chunk.substr(0, len));
            } else {
                m_carry.append(chunk.data(), len);
                m_reader.line(m_carry);
                m_carry.clear();
            }
            if (!nl)
                return;
            m_skipping = false;
            chunk.remove_prefix(len + 1);
        }
    }

    void end()
    {
        if (!m_carry.empty() && !m_skipping)
            m_reader.line(m_carry);
        m_carry.clear();
    }

private:
    Reader& m_reader;
    std::string m_carry;
    bool m_skipping = false;
};

void checkCancel(const TrafficOptions& o, std::int64_t bytes)
{
    if (o.cancel && o.cancel->load(std::memory_order_relaxed))
        throw TrafficCancelled{};
    if (o.progress)
        o.progress(bytes);
}

} // namespace

std::string_view logFormatId(LogFormat f)
{
    switch (f) {
    case LogFormat::Auto: return "auto";
    case LogFormat::Combined: return "combined";
    case LogFormat::Common: return "common";
    case LogFormat::Msec: return "msec";
    case LogFormat::Json: return "json";
    case LogFormat::Nginx: return "nginx";
    case LogFormat::Csv: break;
    }
    return "csv";
}

std::optional<LogFormat> logFormatFromId(std::string_view id)
{
    for (LogFormat f : {LogFormat::Auto, LogFormat::Combined, LogFormat::Common, LogFormat::Msec, LogFormat::Json,
                        LogFormat::Csv, LogFormat::Nginx})
        if (logFormatId(f) == id)
            return f;
    return std::nullopt;
}

Traffic readTrafficLog(const std::string& path, const TrafficOptions& options)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw InputError(path + ": no such file");
    if (!std::filesystem::is_regular_file(status))
        throw InputError(path + ": not a regular file");
    gzFile file = gzopen(path.c_str(), "rb"); // reads a plain file as it is
    if (!file)
        throw InputError(path + ": cannot be opened: " + std::strerror(errno));
    const std::unique_ptr<gzFile_s, int (*)(gzFile)> closer(file, gzclose);
    gzbuffer(file, 256 * 1024);
    Reader reader(options, path);
    Splitter splitter(reader);
    std::vector<char> buffer(kChunkBytes);
    std::int64_t total = 0;
    while (true) {
        const int n = gzread(file, buffer.data(), unsigned(buffer.size()));
        if (n < 0) {
            int code = 0;
            const char* message = gzerror(file, &code);
            throw InputError(path + ": cannot be read (" + std::string(code == Z_ERRNO ? std::strerror(errno) : message)
                             + ")");
        }
        if (n == 0) {
            int code = Z_OK;
            (void)gzerror(file, &code);
            if (code == Z_BUF_ERROR) // zlib's "unexpected end of file": a gzip stream cut short
                throw InputError(path + ": cannot be read (the gzip data is cut short)");
            break;
        }
        total += n;
        checkCancel(options, total);
        splitter.feed(std::string_view(buffer.data(), std::size_t(n)));
    }
    splitter.end();
    return reader.finish();
}

Traffic parseTraffic(std::string_view bytes, const TrafficOptions& options, const std::string& name)
{
    Reader reader(options, name);
    Splitter splitter(reader);
    const bool gzip = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f
                      && static_cast<unsigned char>(bytes[1]) == 0x8b;
    if (!gzip) {
        for (std::size_t at = 0; at < bytes.size(); at += kChunkBytes) {
            checkCancel(options, std::int64_t(at));
            splitter.feed(bytes.substr(at, kChunkBytes));
        }
    } else {
        z_stream z{};
        if (inflateInit2(&z, 15 + 32) != Z_OK)
            throw InputError(name + ": cannot start gzip");
        const std::unique_ptr<z_stream, int (*)(z_streamp)> end(&z, inflateEnd);
        std::vector<char> buffer(kChunkBytes);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
        z.avail_in = uInt(bytes.size());
        std::int64_t total = 0;
        while (true) {
            z.next_out = reinterpret_cast<Bytef*>(buffer.data());
            z.avail_out = uInt(buffer.size());
            const int r = inflate(&z, Z_NO_FLUSH);
            if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
                throw InputError(name + ": corrupt gzip data (" + (z.msg ? z.msg : "error") + ")");
            const std::size_t produced = buffer.size() - z.avail_out;
            total += std::int64_t(produced);
            checkCancel(options, total);
            splitter.feed(std::string_view(buffer.data(), produced));
            if (r == Z_STREAM_END) {
                if (z.avail_in == 0)
                    break;
                inflateReset(&z); // another gzip member follows
            } else if (r == Z_BUF_ERROR || (produced == 0 && z.avail_in == 0)) {
                throw InputError(name + ": the gzip data is cut short");
            }
        }
    }
    splitter.end();
    return reader.finish();
}

std::int64_t epochFromCivil(std::int64_t year, int month, int day, int hour, int minute, int second)
{
    // Howard Hinnant's days_from_civil.
    year -= month <= 2;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const std::int64_t yoe = year - era * 400;
    const std::int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const std::int64_t days = era * 146097 + doe - 719468;
    return days * 86400 + hour * 3600 + minute * 60 + second;
}

std::string_view hostOfHostPort(std::string_view text)
{
    if (text.starts_with('[')) {
        const std::size_t close = text.find("]:");
        return close != std::string_view::npos && text.find(':', close + 2) == std::string_view::npos ? text.substr(1, close - 1) : text;
    }
    const std::size_t colon = text.find(':');
    return colon != std::string_view::npos && text.find(':', colon + 1) == std::string_view::npos ? text.substr(0, colon) : text;
}

std::string formatEpoch(Nanos epochNanos)
{
    const std::int64_t s = epochNanos / kNanosPerSecond;
    const Nanos frac = epochNanos % kNanosPerSecond;
    std::int64_t days = s / 86400;
    const std::int64_t rest = s % 86400;
    // civil_from_days
    days += 719468;
    const std::int64_t era = days / 146097;
    const std::int64_t doe = days - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
    const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t y = yoe + era * 400 + (m <= 2);
    char text[64];
    std::snprintf(text, sizeof text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld", static_cast<long long>(y),
                  static_cast<long long>(m), static_cast<long long>(d), static_cast<long long>(rest / 3600),
                  static_cast<long long>(rest / 60 % 60), static_cast<long long>(rest % 60));
    std::string out = text;
    if (frac) {
        std::string f = formatSeconds(frac); // "0.123"
        out += f.substr(1);
    }
    return out + "Z";
}

} // namespace ratelab
