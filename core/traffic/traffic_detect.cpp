// Telling a log's format from a sample of its lines: each line's look, then the majority.
#include "traffic/traffic_parse.h"

#include "arithmetic/decimal.h"

#include <algorithm>
#include <array>

namespace ratelab::detail {

LogFormat classifyLine(std::string_view line)
{
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
        line.remove_prefix(1);
    if (!line.empty() && line.front() == '{')
        return LogFormat::Json;
    const std::size_t open = line.find('[');
    if (open != std::string_view::npos && line.find(']', open) != std::string_view::npos
        && line.find('"') != std::string_view::npos) {
        // combined ends with two more quoted fields (referer, user agent) after status and bytes
        const std::size_t quotes = std::count(line.begin(), line.end(), '"');
        return quotes >= 6 ? LogFormat::Combined : LogFormat::Common;
    }
    // A custom log_format with $msec has a word of seconds with decimals between spaces; a CSV
    // line has its cells between commas or tabs, so no such word.
    for (std::size_t at = 0; at < line.size();) {
        const std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
        Nanos t = 0;
        bool fraction = false;
        if (parseDecimalSeconds(line.substr(at, end - at), t, fraction) && fraction)
            return LogFormat::Msec;
        at = end + 1;
    }
    if (line.find(',') != std::string_view::npos || line.find('\t') != std::string_view::npos)
        return LogFormat::Csv;
    return LogFormat::Auto;
}

LogFormat decideFormat(const std::vector<SampleLine>& sample, const std::string& name)
{
    // The votes: every line but the file's first when others vote (it may be cut short).
    std::vector<std::pair<std::int64_t, LogFormat>> votes;
    for (const SampleLine& l : sample)
        if (l.number != 1 || sample.size() == 1)
            votes.emplace_back(l.number, classifyLine(l.text));
    std::array<std::int64_t, 7> count{};
    for (const auto& [n, f] : votes)
        ++count[std::size_t(f)];
    // combined and common are one family (one reader reads both): the larger names it.
    const auto combined = std::size_t(LogFormat::Combined), common = std::size_t(LogFormat::Common);
    const std::int64_t access = count[combined] + count[common];
    const LogFormat accessFormat = count[combined] >= count[common] ? LogFormat::Combined : LogFormat::Common;
    std::int64_t classified = 0;
    LogFormat best = LogFormat::Auto;
    std::int64_t bestCount = 0;
    for (LogFormat f : {LogFormat::Combined, LogFormat::Msec, LogFormat::Json, LogFormat::Csv}) {
        const std::int64_t c = f == LogFormat::Combined ? access : count[std::size_t(f)];
        classified += c;
        if (c > bestCount) {
            bestCount = c;
            best = f == LogFormat::Combined ? accessFormat : f;
        }
    }
    if (classified == 0) {
        // No other line looks like a log line: the first decides, if it looks like one.
        if (const LogFormat f = classifyLine(sample.front().text); f != LogFormat::Auto)
            return f;
        throw InputError(name + ": no line of the first " + std::to_string(sample.size()) + " looks like a log line (line "
                         + std::to_string(sample.front().number) + ": " + ratelab::quoted(sample.front().text.substr(0, 60))
                         + "); name the format with --log-format");
    }
    const auto family = [](LogFormat f) { return f == LogFormat::Common ? LogFormat::Combined : f; };
    if (2 * bestCount > classified) // lines that look like no format (cut, garbage) are read and reported as unreadable
        return best;
    std::string counts, disagree;
    for (LogFormat f : {LogFormat::Combined, LogFormat::Msec, LogFormat::Json, LogFormat::Csv, LogFormat::Auto}) {
        const std::int64_t c = f == LogFormat::Combined ? access : count[std::size_t(f)];
        if (c > 0)
            counts += (counts.empty() ? "" : ", ") + std::string(f == LogFormat::Auto ? "none" : f == LogFormat::Combined
                                                                  ? "access log" : logFormatId(f)) + " " + std::to_string(c);
    }
    int named = 0;
    for (const auto& [n, f] : votes)
        if (family(f) != family(best) && named++ < 5)
            disagree += (disagree.empty() ? "" : ", ") + std::to_string(n);
    throw InputError(name + ": no one format holds most of the first " + std::to_string(sample.size()) + " lines (" + counts
                     + "; lines " + disagree + (named > 5 ? ", ..." : "") + " are not " + std::string(logFormatId(best))
                     + "); name the format with --log-format");
}

} // namespace ratelab::detail
